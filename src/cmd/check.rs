//! `pretouch check`: the report's comparison, read as a verdict with an exit code for
//! scripts and `git bisect run`. The verdict itself is `analyze::verdict`'s.

use std::path::PathBuf;

use crate::analyze::Options;
use crate::analyze::document;
use crate::analyze::verdict::{self, Direction, Judged, Judging, Outcome, Verdict};
use crate::cmd::cli::CheckArgs;
use crate::cmd::error::bad;
use crate::render::from_files::catalog;

/// The exit code `git bisect run` reads as "skip this commit".
pub const UNDECIDED: u8 = 125;

/// Prints the verdict and returns its exit code. Every error is bad input (exit code 2),
/// because 1 and 125 are the verdict's own and a script must never read an unreadable
/// file as a regression.
pub(crate) fn cmd_check(args: &CheckArgs) -> anyhow::Result<u8> {
    let verdict = judge(args).map_err(bad)?;
    for cell in verdict.deciding() {
        println!("{}", cell_line(&verdict, cell));
    }
    println!("{}", final_line(&verdict));
    Ok(match verdict.outcome() {
        Outcome::Pass => 0,
        Outcome::Regression => 1,
        Outcome::Undecided => UNDECIDED,
    })
}

/// The verdict of the files `args` names, from the comparison `pretouch report` builds
/// of them with the same labels, baseline, estimator and outliers.
fn judge(args: &CheckArgs) -> anyhow::Result<Verdict> {
    let paths = if args.paths.is_empty() {
        vec![PathBuf::from("results")]
    } else {
        args.paths.clone()
    };
    if let Some(base) = &args.baseline
        && args.label.contains(base)
    {
        anyhow::bail!(
            "--labels `{base}` is the baseline itself\n  fix: name another label to hold against `{base}`"
        );
    }
    // The baseline first, then the labels judged, so that the comparison holds them.
    let labels = (!args.label.is_empty()).then(|| {
        args.baseline
            .iter()
            .chain(&args.label)
            .cloned()
            .collect::<Vec<_>>()
    });
    let options = Options {
        labels,
        baseline: args.baseline.clone(),
        exclude_outliers: args.exclude_outliers,
        compare: args.features.compare(),
        estimator: args.estimator,
        ..Options::default()
    };
    let catalog = catalog(&paths)?;
    // A file left out could hold any label's launches, so a verdict without it may be
    // one that its launches would change. Exit 2 says the results cannot be judged.
    if let Some((path, why)) = catalog.results.unread.first() {
        anyhow::bail!(
            "`{}` is skipped, so a verdict would leave its launches out: {why}\n  fix: repair the file or move it out of the results, or name the files and folders to judge",
            path.display()
        );
    }
    let doc = document::build_read(catalog, &options)?;
    let launches = doc
        .launches
        .ok_or_else(|| anyhow::anyhow!("the results hold no launches to judge"))?;
    let Judging {
        comparison,
        judged,
        what,
    } = match args.features.judging(&launches) {
        Some(judging) => judging?,
        None => Judging {
            comparison: launches.comparison,
            judged: &args.label,
            what: "label",
        },
    };
    for w in &comparison.warnings {
        eprintln!("warning: {w}");
    }
    for name in judged {
        if !comparison.columns.iter().any(|c| c.label == *name) {
            anyhow::bail!(
                "--{what} `{name}`: there is no such {what}. The results hold {}.",
                comparison
                    .columns
                    .iter()
                    .map(|c| c.label.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
        if *name == comparison.baseline {
            anyhow::bail!(
                "--{what} `{name}` is the baseline itself\n  fix: name another {what} to hold against `{name}`"
            );
        }
    }
    let judged = (!judged.is_empty()).then_some(judged);
    let v = verdict::judge(&comparison, judged, args.max_change, args.direction);
    if v.cells.is_empty() {
        anyhow::bail!(
            "only the {what} `{}` is in the results, so nothing is held against it\n  fix: name the results of two {what}s, the baseline's and the one to judge",
            comparison.baseline
        );
    }
    Ok(v)
}

/// One cell's line: its name, the change with its interval, and what that says.
fn cell_line(v: &Verdict, cell: &Judged) -> String {
    let word = match cell.outcome {
        Outcome::Pass => "pass",
        Outcome::Regression => "regression",
        Outcome::Undecided => "undecided",
    };
    let against = format!("`{}` against `{}`", cell.label, v.baseline);
    let show = |x: f64| v.threshold.show(x);
    let figures = match (cell.change, cell.interval) {
        (Some(change), Some(i)) => format!(
            "change {}, {} interval {} to {}",
            show(change),
            crate::render::table::confidence(i.confidence),
            show(i.low),
            show(i.high)
        ),
        (Some(change), None) => format!("change {}", show(change)),
        (None, _) => String::new(),
    };
    let parts: Vec<&str> = [figures.as_str(), cell.why.as_str()]
        .into_iter()
        .filter(|s| !s.is_empty())
        .collect();
    format!("{word}: {} {against}: {}", cell.cell, parts.join(", "))
}

/// The last line: the verdict and the threshold in plain words.
fn final_line(v: &Verdict) -> String {
    let n = v.cells.len();
    let k = v.deciding().count();
    let some = if n == 1 {
        "the one cell".to_owned()
    } else {
        format!("{k} of {n} cells")
    };
    let t = v.threshold;
    let (beyond, within) = match v.direction {
        Direction::Increase => (format!("grew by more than {t}"), format!("below +{t}")),
        Direction::Both => (
            format!("changed by more than {t} either way"),
            format!("within {t} either way"),
        ),
    };
    let base = &v.baseline;
    match v.outcome() {
        Outcome::Pass if n == 1 => format!(
            "verdict: pass, because the change of the one cell against `{base}` lies {within} with its whole interval (exit 0)"
        ),
        Outcome::Pass => format!(
            "verdict: pass, because the changes of all {n} cells against `{base}` lie {within} with their whole intervals (exit 0)"
        ),
        Outcome::Regression => format!(
            "verdict: regression, because the cost of {some} {beyond} against `{base}` with its whole interval (exit 1)"
        ),
        Outcome::Undecided => format!(
            "verdict: undecided, because no cell {beyond} against `{base}` with its whole interval, but {some} could not be decided against {t} (exit 125, which `git bisect run` reads as skip)"
        ),
    }
}
