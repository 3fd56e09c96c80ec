//! Is a real change found at the cover letter's budget of 10 rounds and 3 runs? Reads the
//! result folders `bench/in-turn.sh` writes (`DIR/<repeat>/{a,b}/`: labels `a` and `b`,
//! each run `--runs` times in turn) and, for each repeat, compares `b` with `a` as the
//! several-label report does: each label's cells, in the order of their matrix, paired
//! one to one (so that `b`'s cells may differ from `a`'s in heap, as `found-b.yaml`'s
//! 10% larger heaps do), each cell's difference the interval over runs with the
//! label's drift, the column's marks at `1 - 0.05 / k` (`stats::family::table_changes`).
//! Then A/A: each repeat's `a` against the next repeat's `a` (and `b` against `b`),
//! which nothing but time separates.

use std::path::PathBuf;

use pretouch::analyze::build;
use pretouch::analyze::report::CellReport;
use pretouch::stats::family::{Sides, table_changes};
use pretouch::stats::interval::{CONFIDENCE, as_runs};
use pretouch::store::read_results;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The folder `bench/in-turn.sh` wrote (one folder a repeat)
    pub dir: PathBuf,
}

/// One label of one repeat: its cells' names and per-round costs by run.
struct Label {
    names: Vec<String>,
    runs: Vec<Vec<Vec<f64>>>,
    files: usize,
}

fn label(dir: &std::path::Path) -> anyhow::Result<Option<Label>> {
    if !dir.is_dir() {
        return Ok(None);
    }
    let results = read_results(&[dir.to_path_buf()])?;
    let files = results.files.len();
    let report = build(&results);
    let cells: Vec<&CellReport> = report.cells.iter().collect();
    Ok(Some(Label {
        names: cells
            .iter()
            .map(|c| format!("{} {}", c.id.gc, c.id.heap))
            .collect(),
        runs: cells.iter().map(|c| c.run_costs()).collect(),
        files,
    }))
}

/// `x - y` for each pair of cells: (marks, compared, rows printed).
fn compare(x: &Label, y: &Label) -> (usize, usize, Vec<String>) {
    let cells: Vec<Sides<'_>> = x
        .runs
        .iter()
        .zip(&y.runs)
        .map(|(a, b)| (as_runs(a), as_runs(b)))
        .collect();
    let (level, changes) = table_changes(&cells, CONFIDENCE);
    let mut rows = Vec::new();
    let (mut marked, mut compared) = (0, 0);
    for ((c, xn), yn) in changes.iter().zip(&x.names).zip(&y.names) {
        let Some(c) = c else {
            rows.push(format!("  {xn} - {yn}: not compared (few rounds)"));
            continue;
        };
        compared += 1;
        marked += usize::from(c.marked());
        let change = match c.ratio {
            Some(r) => format!(
                "{:+5.1}% [{:+.1}, {:+.1}]",
                100.0 * (r.estimate - 1.0),
                100.0 * (r.low - 1.0),
                100.0 * (r.high - 1.0)
            ),
            None => "no ratio".to_owned(),
        };
        rows.push(format!(
            "  {xn:<14} - {yn:<14} {:+7.1} ms {change} at {:.2}%{}",
            c.ms.estimate,
            100.0 * level,
            if c.marked() { "  *" } else { "" }
        ));
    }
    (marked, compared, rows)
}

pub fn run(args: &Args) -> anyhow::Result<()> {
    let mut repeats: Vec<(String, Label, Label)> = Vec::new();
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&args.dir)?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort_by_key(|p| {
        p.file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.parse::<u32>().ok())
    });
    for d in dirs {
        let (Some(a), Some(b)) = (label(&d.join("a"))?, label(&d.join("b"))?) else {
            continue;
        };
        // Only whole repeats: as many runs of b as of a.
        if a.files != b.files {
            println!(
                "{}: {} runs of a, {} of b: incomplete, left out",
                d.display(),
                a.files,
                b.files
            );
            continue;
        }
        repeats.push((d.display().to_string(), a, b));
    }
    let (mut found, mut cells) = (0, 0);
    for (name, a, b) in &repeats {
        let (m, k, rows) = compare(b, a);
        println!(
            "{name}: b - a, {} runs a label: {m} of {k} cells marked",
            a.files
        );
        rows.iter().for_each(|r| println!("{r}"));
        found += m;
        cells += k;
    }
    println!(
        "b - a: {found} of {cells} cells marked over {} repeats",
        repeats.len()
    );
    let (mut aa_tables, mut aa_marked) = (0, 0);
    for pair in repeats.windows(2) {
        for (side, x, y) in [("a", &pair[1].1, &pair[0].1), ("b", &pair[1].2, &pair[0].2)] {
            let (m, k, rows) = compare(x, y);
            println!(
                "A/A {side}: {} - {}: {m} of {k} cells marked",
                pair[1].0, pair[0].0
            );
            rows.iter().for_each(|r| println!("{r}"));
            aa_tables += 1;
            aa_marked += usize::from(m > 0);
        }
    }
    println!("A/A: {aa_marked} of {aa_tables} tables carry a mark");
    let labels: Vec<&Label> = repeats.iter().flat_map(|(_, a, b)| [a, b]).collect();
    print_spread(&labels);
    for side in ["a", "b"] {
        let of_side: Vec<&Label> = repeats
            .iter()
            .map(|(_, a, b)| if side == "a" { a } else { b })
            .collect();
        // The other label of the same repeat: its runs ran between this one's.
        let others: Vec<&Label> = repeats
            .iter()
            .map(|(_, a, b)| if side == "a" { b } else { a })
            .collect();
        print_coverage(side, &of_side, &others);
    }
    Ok(())
}

/// Leave-one-out coverage on the measured runs, per label side: does the interval a
/// report states hold the cell's cost as every other repeat measured it (the trimmed
/// mean of their runs' trimmed means)? Once for each run read alone (the report's
/// interval of one run, its drift pooled over the run's cells), once for each repeat's
/// label of several runs (the interval over runs, with the label's spread pooled over
/// its cells, `stats::interval::RunSpread`).
fn print_coverage(side: &str, labels: &[&Label], others: &[&Label]) {
    use pretouch::stats::interval::{Drift, TRIM, runs_interval_in, trimmed_mean};
    let cells = labels.iter().map(|l| l.runs.len()).min().unwrap_or(0);
    // The cost the other runs measured, as an interval over runs estimates it: the
    // mean of their trimmed means (not the trimmed mean of their rounds pooled, which
    // trims the rounds of the runs at the outer levels first).
    let truth = |c: usize, skip: usize, skip_run: Option<usize>| {
        let means: Vec<f64> = labels
            .iter()
            .enumerate()
            .flat_map(|(i, l)| {
                l.runs[c]
                    .iter()
                    .enumerate()
                    .filter(move |(j, _)| i != skip || skip_run.is_some_and(|s| s != *j))
                    .filter_map(|(_, r)| trimmed_mean(r, TRIM))
            })
            .collect();
        (!means.is_empty()).then(|| means.iter().sum::<f64>() / means.len() as f64)
    };
    let (mut one, mut one_n, mut over, mut over_n) = (0, 0, 0, 0);
    // The interval over runs without the pooled spread (each cell's own runs' spread,
    // never below their rounds' drift-widened error), for comparison.
    let (mut own, mut own_halves) = (0, Vec::new());
    // With the spread pooled over both labels of the repeat.
    let (mut both, mut both_halves) = (0, Vec::new());
    let mut halves = (Vec::new(), Vec::new());
    for (i, label) in labels.iter().enumerate() {
        let by_cell: Vec<Vec<&[f64]>> = label.runs.iter().map(|c| as_runs(c)).collect();
        let drift = Drift::of_cells(&by_cell);
        let runs = by_cell.first().map_or(0, Vec::len);
        for run in 0..runs {
            let of_run: Vec<&[f64]> = by_cell.iter().filter_map(|c| c.get(run).copied()).collect();
            let run_drift = Drift::of(&of_run);
            for (c, cell) in by_cell.iter().enumerate().take(cells) {
                let (Some(&costs), Some(t)) = (cell.get(run), truth(c, i, Some(run))) else {
                    continue;
                };
                let Some(stated) = runs_interval_in(&[costs], run_drift, CONFIDENCE) else {
                    continue;
                };
                one_n += 1;
                one += usize::from(stated.low_ms <= t && t <= stated.high_ms);
                halves.0.push(stated.half_width_ms());
            }
        }
        for c in 0..cells {
            let (Some(stated), Some(t)) = (
                runs_interval_in(&by_cell[c], drift, CONFIDENCE),
                truth(c, i, None),
            ) else {
                continue;
            };
            over_n += 1;
            over += usize::from(stated.low_ms <= t && t <= stated.high_ms);
            halves.1.push(stated.half_width_ms());
            let mut all: Vec<Vec<&[f64]>> = by_cell.clone();
            all.extend(others[i].runs.iter().map(|c| as_runs(c)));
            let two = Drift {
                runs: Drift::of_cells(&all).runs,
                ..drift
            };
            if let Some(i) = runs_interval_in(&by_cell[c], two, CONFIDENCE) {
                both += usize::from(i.low_ms <= t && t <= i.high_ms);
                both_halves.push(i.half_width_ms());
            }
            let unpooled = Drift {
                runs: None,
                ..drift
            };
            if let Some(i) = runs_interval_in(&by_cell[c], unpooled, CONFIDENCE) {
                own += usize::from(i.low_ms <= t && t <= i.high_ms);
                own_halves.push(i.half_width_ms());
            }
        }
    }
    let median = |v: Vec<f64>| pretouch::stats::median(&v).unwrap_or(f64::NAN);
    println!(
        "label {side}: one run's interval holds the cell's cost in the other runs in {one} of {one_n} (median +-{:.1} ms); a repeat's interval over its runs holds it in the other repeats in {over} of {over_n} (median +-{:.1} ms), without the pooled spread in {own} of {over_n} (median +-{:.1} ms), with the spread pooled over both labels in {both} of {over_n} (median +-{:.1} ms)",
        median(halves.0),
        median(halves.1),
        median(own_halves),
        median(both_halves)
    );
}

/// How far a label's runs of a cell differ, beside what their rounds say: what the
/// interval over runs takes as its error (`stats::interval::RunSpread`), and what a
/// simulation of the cover letter's budget must have (`stats::noise::Noise::run_shift`).
/// Per label: the variance of a run's trimmed mean over its iid variance pooled over
/// the label's cells, with its degrees of freedom and the share of it the cells have
/// in common (their run deviations' pooled correlation), beside the drift's point
/// estimate; then over every label, weighted by degrees of freedom.
fn print_spread(labels: &[&Label]) {
    use pretouch::stats::interval::Drift;
    let (mut sum, mut dfs, mut shared, mut rhos) = (0.0, 0.0, 0.0, 0.0);
    let mut n = 0;
    for label in labels {
        let cells: Vec<Vec<&[f64]>> = label.runs.iter().map(|c| as_runs(c)).collect();
        let drift = Drift::of_cells(&cells);
        let Some(spread) = drift.runs else {
            continue;
        };
        sum += spread.factor_sq * spread.df;
        dfs += spread.df;
        shared += spread.shared;
        rhos += drift.rho;
        n += 1;
    }
    if n == 0 {
        return;
    }
    println!(
        "spread between runs, {n} labels: a run's trimmed mean varies {:.2} times its iid variance between runs (pooled over cells, weighted by df {:.1} in all); the cells share {:.0}% of it (mean pooled correlation); the drift's lag-1 {:.2} alone implies {:.2} (mean)",
        sum / dfs,
        dfs,
        100.0 * shared / n as f64,
        rhos / n as f64,
        {
            let r = (rhos / n as f64).max(0.0);
            (1.0 + r) / (1.0 - r)
        }
    );
}
