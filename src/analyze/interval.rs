//! A cell's cost with its 95% interval, from its stored launch records: the per-round
//! costs (`with - without` of each counted round whose two launches reached `main()`),
//! in round order, into [`crate::stats::interval::cost_interval`]. The report renders
//! the [`CostInterval`]; the method is in `docs/statistics.md`.

use std::collections::BTreeMap;

use crate::stats::interval::{
    CostInterval, Drift, Estimator, as_runs, look_level, runs_interval_by, runs_interval_in,
};
use crate::store::LaunchRecord;

pub use crate::stats::interval::CONFIDENCE;

/// The per-round costs of one cell, ms, in run then round order. `runs` holds the
/// cell's records per result file (a label may pool several runs; rounds pair only
/// within a run). Warm-ups, failed launches, and launches `keep` rejects (outliers,
/// when the user leaves them out) never enter; a round missing either launch gives no
/// cost.
pub fn round_costs<'a>(
    runs: &[&'a [LaunchRecord]],
    keep: impl Fn(&'a LaunchRecord) -> bool,
) -> Vec<f64> {
    pairs_of(runs, keep).costs()
}

/// The launches of `runs` that `keep` keeps, paired by run and round.
fn pairs_of<'a>(
    runs: &[&'a [LaunchRecord]],
    keep: impl Fn(&'a LaunchRecord) -> bool,
) -> RoundPairs {
    let mut pairs = RoundPairs::default();
    for (run, records) in runs.iter().enumerate() {
        for r in records.iter().filter(|r| keep(r)) {
            pairs.add(run, r);
        }
    }
    pairs
}

/// A cell's launches paired by round as they come: what [`round_costs`] reads from a
/// file, and what the adaptive stop (`schedule/adaptive.rs`) keeps while a run goes on,
/// so that both compute the interval from the same costs.
#[derive(Debug, Clone, Default)]
pub struct RoundPairs {
    /// (run, round) -> time to main() without and with pretouch, ms.
    pairs: BTreeMap<(usize, u32), [Option<f64>; 2]>,
}

impl RoundPairs {
    /// Adds one launch of run `run`; warm-ups and failed launches are left out.
    pub fn add(&mut self, run: usize, r: &LaunchRecord) {
        if r.warmup || !r.ok() {
            return;
        }
        if let Some(t) = r.time_to_main_ns {
            self.pairs.entry((run, r.round)).or_default()[usize::from(r.pretouch)] =
                Some(t.as_ms());
        }
    }

    /// The per-round costs (`with - without`), in run then round order; a round missing
    /// either launch gives none.
    pub fn costs(&self) -> Vec<f64> {
        self.pairs
            .values()
            .filter_map(|p| Some(p[1]? - p[0]?))
            .collect()
    }

    /// The same costs by run ([`by_run`]).
    pub fn run_costs(&self) -> Vec<Vec<f64>> {
        by_run(
            self.pairs
                .iter()
                .filter_map(|(&(run, _), p)| Some((run, p[1]? - p[0]?))),
        )
    }
}

/// `(run, cost)` pairs in run order, one vector of costs a run: what
/// [`crate::stats::interval::runs_interval`] takes (through `as_runs`).
pub fn by_run(costs: impl IntoIterator<Item = (usize, f64)>) -> Vec<Vec<f64>> {
    let mut runs: Vec<(usize, Vec<f64>)> = Vec::new();
    for (run, cost) in costs {
        match runs.last_mut() {
            Some((r, v)) if *r == run => v.push(cost),
            _ => runs.push((run, vec![cost])),
        }
    }
    runs.into_iter().map(|(_, v)| v).collect()
}

/// The interval the report states for a cell's per-round costs by run: over the runs
/// when there are several of 10 rounds each, at 95%; else from the rounds, at 95%, or
/// when its run stopped under adaptive repetitions with `looks` planned looks at
/// `1 - 0.05 / looks` (the level the stop checked it at, so that the interval it
/// stopped on holds 95%; `schedule::adaptive`). Returns the looks when they set the
/// level.
pub fn stated(
    runs: &[Vec<f64>],
    looks: Option<u32>,
    estimator: Estimator,
) -> (Option<CostInterval>, Option<u32>) {
    let runs = as_runs(runs);
    let interval = runs_interval_by(&runs, estimator, CONFIDENCE);
    match looks {
        Some(k) if interval.is_some_and(|i| i.runs == 1) => (
            runs_interval_by(&runs, estimator, look_level(CONFIDENCE, k as usize)),
            Some(k),
        ),
        _ => (interval, None),
    }
}

/// The interval the report states for a cell of a fixed count, with the drift of its
/// label's rounds (`Drift::of_cells` of every cell's runs, with the spread between runs
/// pooled over the cells): over the runs when there are several
/// of 10 rounds each, else from the rounds, at 95%.
pub fn stated_in(runs: &[Vec<f64>], drift: Drift) -> Option<CostInterval> {
    runs_interval_in(&as_runs(runs), drift, CONFIDENCE)
}

/// The cell's cost and its interval, as the report states it for a fixed count
/// ([`stated`] without looks): over the runs when there are several of 10 rounds each,
/// else from the rounds ([`crate::stats::interval::runs_interval`]); `None` with fewer
/// than 10 rounds ([`crate::stats::interval::MIN_ROUNDS`]).
pub fn cell_interval<'a>(
    runs: &[&'a [LaunchRecord]],
    keep: impl Fn(&'a LaunchRecord) -> bool,
) -> Option<CostInterval> {
    stated(
        &pairs_of(runs, keep).run_costs(),
        None,
        Estimator::default(),
    )
    .0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::{FakeCell, file, host};
    use crate::matrix::Gc;

    fn records(rounds: &[(f64, f64)]) -> Vec<LaunchRecord> {
        let cell = FakeCell {
            gc: Gc::G1,
            heap: "512m",
            rounds,
        };
        file("a", "2026-12-01T08:00:00Z", host("vm"), &[cell]).launches
    }

    #[test]
    fn pairs_the_launches_of_each_round() {
        let rounds: Vec<(f64, f64)> = (0..12)
            .map(|i| (100.0 + f64::from(i), 400.0 + 2.0 * f64::from(i)))
            .collect();
        let r = records(&rounds);
        let costs = round_costs(&[&r], |_| true);
        let want: Vec<f64> = (0..12).map(|i| 300.0 + f64::from(i)).collect();
        assert_eq!(costs.len(), 12);
        for (c, w) in costs.iter().zip(&want) {
            assert!((c - w).abs() < 1e-6, "{costs:?}");
        }
        let s = cell_interval(&[&r], |_| true).unwrap();
        assert_eq!((s.rounds, s.batches), (12, 12));
        assert!(
            s.low_ms < s.estimate_ms && s.estimate_ms < s.high_ms,
            "{s:?}"
        );
        assert!(s.low_ms < 305.5 && 305.5 < s.high_ms, "{s:?}");
    }

    #[test]
    fn failed_launches_break_their_round_and_runs_never_pair() {
        let mut rounds: Vec<(f64, f64)> = (0..10).map(|_| (100.0, 400.0)).collect();
        rounds[3].1 = f64::NAN;
        let r = records(&rounds);
        assert_eq!(round_costs(&[&r], |_| true).len(), 9);
        assert!(
            cell_interval(&[&r], |_| true).is_none(),
            "9 rounds: no interval"
        );
        // Two runs of the same cell: rounds 0..9 of each pair within their run only.
        let other = records(&[(100.0, 420.0); 10]);
        let costs = round_costs(&[&r, &other], |_| true);
        assert_eq!(costs.len(), 19);
        assert_eq!(
            costs.iter().filter(|c| (**c - 320.0).abs() < 1e-6).count(),
            10
        );
        // What `keep` drops does not count.
        assert_eq!(round_costs(&[&other], |l| l.round != 0).len(), 9);
    }

    #[test]
    fn a_label_of_several_runs_gets_the_interval_over_its_runs() {
        use crate::stats::interval::{TRIM, as_runs, runs_interval, trimmed_mean};
        use crate::store::Results;
        // Three runs of one label, at three levels: the interval is over the runs, its
        // estimate the mean of the runs' trimmed means; a fourth run of 9 rounds puts
        // the cell back on its rounds' batches.
        let run = |level: f64| -> Vec<(f64, f64)> {
            (0..12)
                .map(|i| (100.0, 100.0 + level + f64::from(i % 3)))
                .collect()
        };
        let levels = [300.0, 330.0, 360.0];
        let rounds: Vec<Vec<(f64, f64)>> = levels.iter().map(|l| run(*l)).collect();
        let files = |rounds: &[Vec<(f64, f64)>]| -> Vec<crate::store::ResultFile> {
            rounds
                .iter()
                .enumerate()
                .map(|(i, r)| {
                    let cell = FakeCell {
                        gc: Gc::G1,
                        heap: "512m",
                        rounds: r,
                    };
                    let mut f = file("a", &format!("2026-12-01T0{i}:00:00Z"), host("vm"), &[cell]);
                    f.path = format!("a-{i}.jsonl").into();
                    f
                })
                .collect()
        };
        let report = |files| {
            crate::analyze::build(&Results {
                files,
                ..Default::default()
            })
        };
        let three_files = files(&rounds);
        let launches: Vec<&[LaunchRecord]> = three_files.iter().map(|f| &f.launches[..]).collect();
        let from_records = cell_interval(&launches, |_| true).unwrap();
        let three = report(three_files.clone());
        let [cell] = &three.cells[..] else {
            panic!("{:?}", three.cells);
        };
        let costs: Vec<Vec<f64>> = rounds
            .iter()
            .map(|r| r.iter().map(|(off, on)| on - off).collect())
            .collect();
        let want = runs_interval(&as_runs(&costs), CONFIDENCE).unwrap();
        assert_eq!(
            (cell.cost.cost_ci_runs, cell.cost.cost_ci_batches),
            (Some(3), None)
        );
        assert_eq!(cell.run_costs(), costs);
        assert_eq!(
            cell.cost_interval(),
            Some((want.estimate_ms, want.low_ms, want.high_ms))
        );
        let mean_of_runs = costs
            .iter()
            .map(|c| trimmed_mean(c, TRIM).unwrap())
            .sum::<f64>()
            / 3.0;
        assert!((want.estimate_ms - mean_of_runs).abs() < 1e-9);
        assert_eq!(from_records, want);
        // The runs' spread (their trimmed means 30 ms apart) is the interval, far wider
        // than each run's steady rounds: t(0.975, 2) * 30 / sqrt(3) = 74.5 about 331.
        // That reaches past the rounds, 300-362, so the ends are held at theirs.
        let between = crate::stats::interval::t_quantile(0.975, 2.0) * 30.0 / 3f64.sqrt();
        assert!(want.estimate_ms - between < 300.0 && want.estimate_ms + between > 362.0);
        assert_eq!((want.low_ms, want.high_ms), (300.0, 362.0), "{want:?}");
        let mut four = rounds.clone();
        four.push(run(330.0)[..9].to_vec());
        let short = report(files(&four));
        assert_eq!(short.cells[0].cost.cost_ci_runs, None);
        // The error is from the rounds, one run after the other: 3 x 12 + 9.
        assert_eq!(short.cells[0].cost.cost_ci_batches, Some(45));
    }

    #[test]
    fn the_report_states_each_cells_interval_and_none_with_few_rounds() {
        use crate::store::Results;
        // 12 rounds of a drifting cost: an interval; 9 rounds: none, the cost still.
        let many: Vec<(f64, f64)> = (0..12)
            .map(|i| (100.0, 400.0 + 7.0 * f64::from(i % 5)))
            .collect();
        let few: Vec<(f64, f64)> = (0..9).map(|_| (100.0, 400.0)).collect();
        let cells = [
            FakeCell {
                gc: Gc::G1,
                heap: "512m",
                rounds: &many,
            },
            FakeCell {
                gc: Gc::Parallel,
                heap: "512m",
                rounds: &few,
            },
        ];
        let f = file("a", "2026-12-01T08:00:00Z", host("vm"), &cells);
        // The interval is the cell's own, from its own rounds: the Parallel cell's
        // rounds do not enter it.
        let g1_costs = round_costs(&[&f.launches], |l| l.cell.gc == Gc::G1);
        let drift = Drift::of_by(&[&g1_costs], Estimator::Median);
        let want = stated_in(std::slice::from_ref(&g1_costs), drift).unwrap();
        assert_eq!(
            Some(want),
            cell_interval(&[&f.launches], |l| l.cell.gc == Gc::G1)
        );
        let report = crate::analyze::build(&Results {
            files: vec![f],
            ..Default::default()
        });
        let [g1, parallel] = &report.cells[..] else {
            panic!("{:?}", report.cells);
        };
        assert_eq!(
            g1.cost_interval(),
            Some((want.estimate_ms, want.low_ms, want.high_ms))
        );
        assert_eq!(g1.cost.cost_ci_batches, Some(want.batches));
        let (estimate, low, high) = g1.cost_interval().unwrap();
        assert!(low < estimate && estimate < high, "{g1:?}");
        assert_eq!(parallel.cost.rounds, 9);
        assert_eq!(parallel.cost_interval(), None);
        assert_eq!(parallel.cost.cost_ci_batches, None);
        assert_eq!(parallel.cost.cost_tmean_ms, Some(300.0));
        assert_eq!(parallel.cost.cost_ms, Some(300.0));
    }
}
