//! `pretouch report`: read stored results, analyze, render.

use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::analyze::profile::ProfileReport;
use crate::analyze::{self, compare, report};
use crate::cmd::cli::ReportArgs;
use crate::cmd::error::bad;
use crate::render::common::Format;
use crate::render::report::render_explained;
use crate::render::{compare as export_compare, plot};
use crate::store::read_results;

pub(crate) fn cmd_report(args: ReportArgs) -> anyhow::Result<u8> {
    let paths = if args.paths.is_empty() {
        vec![PathBuf::from("results")]
    } else {
        args.paths.clone()
    };
    if args.calibrate {
        return crate::cmd::calibration_report::cmd_report_calibrate(&args, &paths);
    }
    let mut results = read_results(&paths).map_err(bad)?;
    for file in results.files.iter().filter(|f| f.end.is_none()) {
        results.warnings.push(format!(
            "{}: unfinished run, {} of {} launches (interrupted, or still running); `pretouch run --resume {}` completes it",
            file.path.display(),
            file.launches.len(),
            file.header.planned_launches,
            file.path.display()
        ));
    }
    // Timed launches complete, profiled rounds cut short (the end record comes between).
    for file in results.files.iter().filter(|f| f.end.is_some()) {
        let missing = crate::store::profile::missing_profiles(file);
        if missing > 0 {
            results.warnings.push(format!(
                "{}: profiled rounds unfinished, {missing} profiled launches missing; `pretouch run --resume {}` completes them",
                file.path.display(),
                file.path.display()
            ));
        }
    }
    if results.files.is_empty() {
        return Err(bad(anyhow::anyhow!(
            "no result files in {}\n  fix: run `pretouch run` first, or name the files or folders to report",
            paths
                .iter()
                .map(|p| format!("`{}`", p.display()))
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    if let Some(wanted) = &args.labels {
        // Only the labels asked for: their environment is compared, their runs checked.
        // `label@host` names a label split by machine.
        let names = |w: &str, label: &str| {
            w == label || w.strip_prefix(label).is_some_and(|r| r.starts_with('@'))
        };
        let mut known: Vec<String> = results
            .files
            .iter()
            .map(|f| f.header.label.clone())
            .collect();
        known.sort();
        known.dedup();
        if let Some(missing) = wanted.iter().find(|w| !known.iter().any(|k| names(w, k))) {
            return Err(bad(compare::CompareError::UnknownLabel {
                label: missing.clone(),
                known: known.join(", "),
            }));
        }
        results
            .files
            .retain(|f| wanted.iter().any(|w| names(w, &f.header.label)));
    }
    let report = analyze::build_with(
        &results,
        report::Options {
            exclude_outliers: args.exclude_outliers,
        },
    );
    let options = compare::Options {
        labels: args.labels.clone(),
        baseline: args.baseline.clone(),
    };
    // Checks --labels and --baseline whether one label is shown or several.
    let comparison = compare::compare(&report, &options).map_err(bad)?;
    let profile = profile_report(&args, &results, &report, &comparison)?;
    // `--profile`'s analysis in the report; `--profile-csv` writes its rows apart.
    let shown = profile.as_ref().filter(|_| args.profile);
    let several = comparison.columns.len() > 1;
    let text = if args.format == Format::Json {
        // One shape whatever the number of labels: the cells, the comparison beside
        // them when there is one, and the profile with `--profile`.
        if several {
            crate::render::json::render_with_profile(&report, Some(&comparison), shown)
        } else {
            let one = report.only(&comparison.baseline).map_err(bad)?;
            crate::render::json::render_with_profile(&one, None, shown)
        }
    } else if several {
        // The explaining tables (faults, phases, environment differences) follow, as
        // after a single label's table.
        let explained = match args.format {
            Format::Text => {
                crate::render::ready::text(&report)
                    + &crate::render::explain::text(&report, args.phases)
            }
            Format::Markdown => {
                crate::render::ready::markdown(&report)
                    + &crate::render::explain::markdown(&report, args.phases)
            }
            Format::Csv | Format::Json => String::new(),
        };
        export_compare::render(&comparison, args.format) + &explained
    } else {
        render_explained(
            &report.only(&comparison.baseline).map_err(bad)?,
            args.format,
            args.phases,
        )
    };
    let text = match shown {
        Some(profile) if matches!(args.format, Format::Text | Format::Markdown) => {
            text + "\n" + &crate::render::profile::render(profile, args.format)
        }
        _ => text,
    };
    if args.profile && args.format == Format::Csv && args.profile_csv.is_none() {
        // CSV holds one table a file: the report's rows here, the profile's apart.
        eprintln!(
            "note: --profile: the CSV printed holds the report's rows; `--profile-csv FILE` writes the profile's rows into FILE"
        );
    }
    if let (Some(path), Some(profile)) = (&args.profile_csv, &profile) {
        write_output(path, &crate::render::profile::render(profile, Format::Csv))?;
        if profile.cells.is_empty() {
            eprintln!(
                "profile: no profiled launches in these results (run with `pretouch run --profile`): {} holds the header only",
                path.display()
            );
        } else {
            eprintln!("profile: {}", path.display());
        }
    }
    if let Some(path) = &args.plot {
        plot::draw(&comparison, path).with_context(|| format!("drawing `{}`", path.display()))?;
        eprintln!("plot: {}", path.display());
    }
    match &args.output {
        Some(path) => write_output(path, &text)?,
        None => print!("{text}"),
    }
    Ok(0)
}

/// `--profile`, `--profile-csv FILE` and `--flamegraph DIR`: the profiled launches'
/// analysis, and the flame graphs written.
fn profile_report(
    args: &ReportArgs,
    results: &crate::store::Results,
    report: &report::Report,
    comparison: &compare::Comparison,
) -> anyhow::Result<Option<ProfileReport>> {
    if !args.profile && args.flamegraph.is_none() && args.profile_csv.is_none() {
        return Ok(None);
    }
    let profiles = crate::store::profile::read_profiles(&results.files);
    let labels: Vec<String> = comparison
        .columns
        .iter()
        .map(|c| c.info.label.clone())
        .collect();
    let analysis = analyze::profile::build(report, &profiles, &labels, &comparison.baseline);
    if let Some(dir) = &args.flamegraph {
        if analysis.cells.iter().all(|c| c.stacks.is_empty()) {
            return Err(bad(anyhow::anyhow!(
                "--flamegraph: no profiled launches with samples in these results\n  fix: \
                 record some with `pretouch run --profile`"
            )));
        }
        let written = crate::render::flamegraph::write_all(dir, &analysis)
            .with_context(|| format!("writing flame graphs into `{}`", dir.display()))?;
        eprintln!("flame graphs: {} files in {}", written.len(), dir.display());
    }
    Ok(Some(analysis))
}

pub(crate) fn write_output(path: &Path, text: &str) -> anyhow::Result<()> {
    std::fs::write(path, text).with_context(|| format!("writing `{}`", path.display()))
}
