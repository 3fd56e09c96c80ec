//! The A/A check of the report's intervals on this machine, because an interval is only worth its stated 95% if it holds here: the same
//! matrix run twice in a row, A then A', `--repetitions` times. Nothing differs between
//! A and A' but time, so each cell's two stated 95% intervals (the 20% trimmed mean of
//! the per-round costs, batch means widened for drift, `docs/statistics.md`) should
//! overlap, and the interval of their difference should hold 0, in at least 95% of the
//! pairs. Prints each pair and the counts; also the Mann-Whitney interval of the shift
//! that the several-label comparison shows today, for contrast.
//!
//! Coverage of the truth: no run knows a cell's true cost, but every other run of the
//! same cell estimates it. For each run, the truth is taken as the 20% trimmed mean of
//! the per-round costs of all the other runs of that cell pooled (leave one out, so a
//! run is never judged against itself), and the count is of runs whose stated interval
//! holds it. With many runs the pooled value's own error is small beside one run's
//! interval; it is not zero, so the count is a slight underestimate of the coverage
//! when the runs agree, and the test is of the interval against the spread between
//! runs minutes apart, which is what a user who reruns the matrix sees.
//!
//! Over runs (`--group`): the pairs, a few at a time, taken as a label's several runs,
//! as the report takes a label of several result files ([`over_runs`]).

use pretouch::analyze::interval::CONFIDENCE;
use pretouch::analyze::report::CellReport;
use pretouch::stats::hodges_lehmann;
use pretouch::stats::interval::{TRIM, difference_interval, runs_interval, trimmed_mean};

use crate::runs::{jdk, run_pretouch};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// JDK (JAVA_HOME) [default: JAVA_HOME, then java on PATH]
    #[arg(long)]
    pub jdk: Option<String>,
    /// Heap of every launch
    #[arg(long, default_value = "512m")]
    pub heap: String,
    /// Collectors, one cell each
    #[arg(long, value_delimiter = ',', default_value = "g1,parallel")]
    pub gcs: Vec<String>,
    /// Counted rounds of each run (10 at least for an interval)
    #[arg(long, default_value_t = 10)]
    pub rounds: usize,
    /// A/A pairs of runs
    #[arg(long, default_value_t = 3)]
    pub repetitions: usize,
    /// Pairs taken together as one label's several runs, for the interval over runs
    #[arg(long, default_value_t = 3)]
    pub group: usize,
    /// Every run with `comparable_memory: true` (free page reporting held off; root)
    #[arg(long)]
    pub comparable_memory: bool,
}

/// One cell of one A/A pair.
struct Pair {
    rep: usize,
    cell: String,
    a: (f64, f64, f64),
    b: (f64, f64, f64),
    /// Drift-aware interval of the difference (A' - A) holds 0.
    diff: Option<(f64, f64)>,
    /// Mann-Whitney interval of the shift holds 0.
    mann_whitney: Option<(f64, f64)>,
    disturbed: usize,
    /// The per-round costs of A and A'.
    costs: (Vec<f64>, Vec<f64>),
}

fn costs(c: &CellReport) -> Vec<f64> {
    c.costs.iter().map(|r| r.ms).collect()
}

fn holds_zero(i: Option<(f64, f64)>) -> bool {
    i.is_some_and(|(lo, hi)| lo <= 0.0 && 0.0 <= hi)
}

pub fn run(args: &Args) -> anyhow::Result<()> {
    let jdk = jdk(args.jdk.as_deref())?;
    let home = jdk.home.display().to_string();
    let yaml = format!(
        "name: aa\njdks: [{home:?}]\ngcs: [{}]\nheaps: [{}]\nrepetitions: {}\nwarmup: 1\ncomparable_memory: {}\n",
        args.gcs.join(", "),
        args.heap,
        args.rounds,
        args.comparable_memory
    );
    println!(
        "A/A check of the stated 95% intervals: {} pairs of runs (A then A'), {} rounds each, {} at {} ({}){}",
        args.repetitions,
        args.rounds,
        args.gcs.join(", "),
        args.heap,
        jdk.version,
        if args.comparable_memory {
            ", --comparable-memory"
        } else {
            ""
        }
    );
    println!(
        "{:<4} {:<10} {:>16} {:>16} {:>7} {:>22} {:>22} {:>5}",
        "pair",
        "cell",
        "A tmean +-95%",
        "A' tmean +-95%",
        "overlap",
        "A'-A drift-aware",
        "A'-A Mann-Whitney",
        "dist."
    );
    let mut pairs = Vec::new();
    // Every run's stated interval and per-round costs, by cell, for the coverage count.
    let mut runs = Vec::new();
    for rep in 1..=args.repetitions {
        let a = run_pretouch(&yaml, tempfile::tempdir()?.path())?;
        let b = run_pretouch(&yaml, tempfile::tempdir()?.path())?;
        for ca in &a.report.cells {
            let Some(cb) = b.report.cells.iter().find(|c| c.key() == ca.key()) else {
                continue;
            };
            let (Some(ia), Some(ib)) = (ca.cost_interval(), cb.cost_interval()) else {
                println!("{rep:<4} {:<10} few rounds: no interval", ca.id.gc);
                continue;
            };
            let (xa, xb) = (costs(ca), costs(cb));
            runs.push(Run {
                cell: ca.id.gc.clone(),
                interval: ia,
                costs: xa.clone(),
            });
            runs.push(Run {
                cell: ca.id.gc.clone(),
                interval: ib,
                costs: xb.clone(),
            });
            let pair = Pair {
                rep,
                cell: ca.id.gc.clone(),
                a: ia,
                b: ib,
                diff: difference_interval(&[&xb], &[&xa], CONFIDENCE)
                    .map(|d| (d.low_ms, d.high_ms)),
                mann_whitney: hodges_lehmann(&xb, &xa, CONFIDENCE).map(|s| (s.low, s.high)),
                disturbed: ca.machine.disturbed + cb.machine.disturbed,
                costs: (xa, xb),
            };
            let shown = |i: (f64, f64, f64)| format!("{:.1} +-{:.1}", i.0, (i.2 - i.1) / 2.0);
            let range = |i: Option<(f64, f64)>| {
                i.map_or_else(
                    || "-".to_owned(),
                    |(lo, hi)| format!("{lo:+.1} .. {hi:+.1}"),
                )
            };
            println!(
                "{:<4} {:<10} {:>16} {:>16} {:>7} {:>22} {:>22} {:>5}",
                pair.rep,
                pair.cell,
                shown(pair.a),
                shown(pair.b),
                if overlap(&pair) { "yes" } else { "NO" },
                range(pair.diff),
                range(pair.mann_whitney),
                pair.disturbed
            );
            pairs.push(pair);
        }
    }
    let n = pairs.len();
    let count = |f: &dyn Fn(&Pair) -> bool| pairs.iter().filter(|p| f(p)).count();
    println!(
        "intervals of A and A' overlap: {} of {n}; drift-aware interval of A'-A holds 0: {} of {n}; Mann-Whitney interval holds 0: {} of {n}",
        count(&overlap),
        count(&|p| holds_zero(p.diff)),
        count(&|p| holds_zero(p.mann_whitney)),
    );
    println!(
        "dist. = launches of the pair whose machine counters show a disturbance (analyze/disturbance.rs)"
    );
    let (held, judged, per_cell) = loo_coverage(&runs);
    for (cell, held, judged) in per_cell {
        println!(
            "{cell}: the stated interval holds the other runs' pooled trimmed mean in {held} of {judged} runs"
        );
    }
    println!(
        "all cells: the stated interval holds the other runs' pooled trimmed mean in {held} of {judged} runs"
    );
    if args.group >= 2 {
        for spread in [false, true] {
            let c = over_runs(&pairs, args.group, spread);
            println!(
                "over runs, {} pairs a group {}: the difference A'-A holds 0 in {} of {}; A's interval over its {} runs holds the pooled trimmed mean of the runs outside the group in {} of {} (A' in {} of {}); median half-width {:.1} ms",
                args.group,
                if spread {
                    "spread over the whole run (pairs i, i + k, ...)"
                } else {
                    "of consecutive pairs"
                },
                c.diff_held,
                c.groups,
                args.group,
                c.a_held,
                c.groups,
                c.b_held,
                c.groups,
                c.median_half
            );
        }
    }
    println!();
    Ok(())
}

/// The check of the interval over runs ([`over_runs`]).
#[derive(Debug, PartialEq)]
struct OverRuns {
    groups: usize,
    diff_held: usize,
    a_held: usize,
    b_held: usize,
    median_half: f64,
}

/// The pairs of each cell, `group` at a time, taken as two labels A and A' that each
/// ran `group` times, interleaved (A A' A A' ...): the interval over runs of A' - A
/// (`stats::interval::difference_interval`) should hold 0, and each side's interval
/// over its runs (`runs_interval`) the trimmed mean of all the cell's runs outside the
/// group pooled. The groups are consecutive pairs, or, when `spread`, pairs `k` apart
/// for `k = pairs / group`, so that each group spans the whole A/A run as a label's runs
/// span a campaign.
fn over_runs(pairs: &[Pair], group: usize, spread: bool) -> OverRuns {
    let mut out = OverRuns {
        groups: 0,
        diff_held: 0,
        a_held: 0,
        b_held: 0,
        median_half: f64::NAN,
    };
    let mut halves = Vec::new();
    let mut cells: Vec<&str> = pairs.iter().map(|p| p.cell.as_str()).collect();
    cells.sort_unstable();
    cells.dedup();
    for cell in cells {
        let mine: Vec<&Pair> = pairs.iter().filter(|p| p.cell == cell).collect();
        let k = mine.len() / group;
        for g in 0..k {
            let members: Vec<usize> = if spread {
                (0..group).map(|j| g + j * k).collect()
            } else {
                (g * group..(g + 1) * group).collect()
            };
            let a: Vec<&[f64]> = members.iter().map(|&i| &mine[i].costs.0[..]).collect();
            let b: Vec<&[f64]> = members.iter().map(|&i| &mine[i].costs.1[..]).collect();
            let outside: Vec<f64> = (0..mine.len())
                .filter(|i| !members.contains(i))
                .flat_map(|i| mine[i].costs.0.iter().chain(&mine[i].costs.1).copied())
                .collect();
            let (Some(d), Some(ia), Some(ib), Some(truth)) = (
                difference_interval(&b, &a, CONFIDENCE),
                runs_interval(&a, CONFIDENCE),
                runs_interval(&b, CONFIDENCE),
                trimmed_mean(&outside, TRIM),
            ) else {
                continue;
            };
            let holds = |i: &pretouch::stats::interval::CostInterval| {
                i.low_ms <= truth && truth <= i.high_ms
            };
            out.groups += 1;
            out.diff_held += usize::from(d.low_ms <= 0.0 && 0.0 <= d.high_ms);
            out.a_held += usize::from(holds(&ia));
            out.b_held += usize::from(holds(&ib));
            halves.push(ia.half_width_ms());
            halves.push(ib.half_width_ms());
        }
    }
    if !halves.is_empty() {
        halves.sort_by(f64::total_cmp);
        out.median_half = halves[halves.len() / 2];
    }
    out
}

/// One run of one cell, for the coverage count.
struct Run {
    cell: String,
    /// The stated interval: estimate, low, high.
    interval: (f64, f64, f64),
    /// Per-round costs, ms.
    costs: Vec<f64>,
}

/// Leave-one-out coverage (module doc): of `runs`, how many intervals hold the trimmed
/// mean of the other runs' costs of their cell pooled; in all and per cell (cell,
/// held, judged), in the order cells first appear. A cell with one run is not judged.
fn loo_coverage(runs: &[Run]) -> (usize, usize, Vec<(String, usize, usize)>) {
    let mut per_cell: Vec<(String, usize, usize)> = Vec::new();
    for (i, run) in runs.iter().enumerate() {
        let (cell, (_, lo, hi)) = (&run.cell, run.interval);
        let others: Vec<f64> = runs
            .iter()
            .enumerate()
            .filter(|(j, r)| *j != i && r.cell == *cell)
            .flat_map(|(_, r)| r.costs.iter().copied())
            .collect();
        let Some(truth) = trimmed_mean(&others, TRIM) else {
            continue;
        };
        let slot = match per_cell.iter().position(|c| c.0 == *cell) {
            Some(k) => k,
            None => {
                per_cell.push((cell.clone(), 0, 0));
                per_cell.len() - 1
            }
        };
        per_cell[slot].2 += 1;
        if lo <= truth && truth <= hi {
            per_cell[slot].1 += 1;
        }
    }
    let held = per_cell.iter().map(|c| c.1).sum();
    let judged = per_cell.iter().map(|c| c.2).sum();
    (held, judged, per_cell)
}

fn overlap(p: &Pair) -> bool {
    p.a.1 <= p.b.2 && p.b.1 <= p.a.2
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_are_consecutive_or_spread_over_the_run() {
        // Six pairs of one cell; the cost steps from 100 to 200 ms halfway. A group of
        // three consecutive pairs sits on one level and misses the others' cost; a
        // group spread over the run holds it. A and A' agree throughout.
        let pair = |rep: usize, level: f64| {
            let costs: Vec<f64> = (0..10).map(|i| level + f64::from(i % 2)).collect();
            Pair {
                rep,
                cell: "g1".to_owned(),
                a: (level, level, level),
                b: (level, level, level),
                diff: None,
                mann_whitney: None,
                disturbed: 0,
                costs: (costs.clone(), costs),
            }
        };
        let pairs: Vec<Pair> = (0..6)
            .map(|i| pair(i + 1, if i < 3 { 100.0 } else { 200.0 }))
            .collect();
        let consecutive = over_runs(&pairs, 3, false);
        assert_eq!(
            (
                consecutive.groups,
                consecutive.diff_held,
                consecutive.a_held
            ),
            (2, 2, 0),
            "{consecutive:?}"
        );
        let spread = over_runs(&pairs, 3, true);
        assert_eq!(
            (
                spread.groups,
                spread.diff_held,
                spread.a_held,
                spread.b_held
            ),
            (2, 2, 2, 2),
            "{spread:?}"
        );
        assert!(spread.median_half > consecutive.median_half);
    }

    #[test]
    fn each_run_is_judged_against_the_others_alone() {
        let run = |cell: &str, lo: f64, hi: f64, costs: &[f64]| Run {
            cell: cell.to_owned(),
            interval: ((lo + hi) / 2.0, lo, hi),
            costs: costs.to_vec(),
        };
        let runs = [
            // Judged against 20 (the other g1 run): held.
            run("g1", 5.0, 25.0, &[10.0; 5]),
            // Judged against 10: not held, though its own costs sit inside it.
            run("g1", 15.0, 25.0, &[20.0; 5]),
            // Alone in its cell: not judged.
            run("parallel", 0.0, 1.0, &[100.0; 5]),
        ];
        let (held, judged, per_cell) = loo_coverage(&runs);
        assert_eq!((held, judged), (1, 2));
        assert_eq!(per_cell, [("g1".to_owned(), 1, 2)]);
    }
}
