//! Is a real change found at the cover letter's budget (issue 35, item 5)? Reads the
//! result folders `bench/in-turn.sh` writes (`DIR/<repeat>/{a,b}/`: labels `a` and `b`,
//! each run `--runs` times in turn) and, for each repeat, compares `b` with `a` as the
//! several-label report does: each label's cells, in the order of their matrix, paired
//! one to one (so that `b`'s cells may differ from `a`'s in heap, as `found-b.yaml`'s
//! 10% larger heaps do), each cell's difference the interval over runs with the
//! label's drift, the column's marks at `1 - 0.05 / k` (`stats::family::table_marks`).
//! Then A/A: each repeat's `a` against the next repeat's `a` (and `b` against `b`),
//! which nothing but time separates.

use std::path::PathBuf;

use pretouch::analyze::build;
use pretouch::analyze::report::CellReport;
use pretouch::stats::family::{Sides, table_marks};
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
            .map(|c| format!("{} {}", c.gc, c.heap))
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
    let marks = table_marks(&cells, CONFIDENCE);
    let mut rows = Vec::new();
    let (mut marked, mut compared) = (0, 0);
    for (i, ((m, xn), yn)) in marks.iter().zip(&x.names).zip(&y.names).enumerate() {
        let Some(m) = m else {
            rows.push(format!("  {xn} - {yn}: not compared (few rounds)"));
            continue;
        };
        compared += 1;
        marked += usize::from(m.marked);
        let d = m.difference;
        let base: Vec<f64> = y.runs[i].iter().flatten().copied().collect();
        let base = pretouch::stats::interval::trimmed_mean(&base, 0.2).unwrap_or(f64::NAN);
        rows.push(format!(
            "  {xn:<14} - {yn:<14} {:+7.1} ms ({:+5.1}%)  CI {:+.1} .. {:+.1} at {:.2}%{}",
            d.estimate_ms,
            100.0 * d.estimate_ms / base,
            d.low_ms,
            d.high_ms,
            100.0 * m.level,
            if m.marked { "  *" } else { "" }
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
    Ok(())
}
