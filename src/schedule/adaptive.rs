//! Stage 6, scheduling: adaptive repetitions, between the plan and the launches.
//! `repetitions: {min: 10, max: 30, ci_pct: 2}` runs `min` counted rounds, then adds
//! rounds for the cells whose 95% interval of the pretouch cost is not yet within
//! +-`ci_pct`% of the cost (or, with `ci_ms: 10`, within +-10 ms; with both, within both),
//! until `max`.
//!
//! The interval is the one the report states for the cell: the 20% trimmed mean of the
//! per-round costs with its drift-aware batch-means interval
//! ([`crate::stats::interval::cost_interval`], `docs/statistics.md`), from the same
//! per-round costs ([`RoundPairs`]). So a cell stops when the interval the user will
//! read is good enough. It needs 10 rounds (two batches of 5): a cell runs at least 10
//! counted rounds, or `max` if that is fewer, whatever `min` says.
//!
//! A cell is checked only at the policy's planned looks ([`Adaptive::looks`]: from
//! `min`, doubling, to `max`), each at [`Adaptive::level`], `1 - 0.05 / looks`. A rule
//! that checks every round at 95% stops on the rounds whose batches happened to agree,
//! and its interval holds the cost far less often than 95% (77-88% in the simulation
//! below); with the looks planned and each at the smaller error, the interval it stops
//! on misses only if one of the looks' intervals does, at most 5% together.

use crate::analyze::interval::RoundPairs;
use std::collections::{HashMap, VecDeque};

use crate::launch::Launcher;
use crate::schedule::give_up::GiveUp;
use crate::schedule::plan::{Plan, PlannedLaunch, round_launches};
use crate::schedule::run::{
    self, Observer, RunSummary, Strategy, Timed, cell_key, drive, end_record,
};
use crate::stats::interval::{Estimator, cost_interval_by};
use crate::store::{CellStop, LaunchRecord, StoreError, StoreWriter};

/// Why adaptive rounds could not go on.
#[derive(Debug, thiserror::Error)]
pub enum AdaptiveError {
    #[error(transparent)]
    Store(#[from] StoreError),
    /// `--resume`: a launch in the file is not the one the policy plans at its seq.
    #[error(
        "launch {seq}: {detail}. The file does not match its own matrix and policy, so it is not resumed"
    )]
    Mismatch { seq: u64, detail: String },
}

use crate::matrix::repetitions::Adaptive;

/// Where a cell stands against the stopping rule.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Verdict {
    /// The 20% trimmed mean of the per-round costs, ms.
    pub cost: f64,
    /// Its 95% interval, ms (symmetric around `cost`).
    pub low: f64,
    pub high: f64,
    /// The interval's half-width, as a percentage of `|cost|` (infinite for a zero cost).
    pub half_width_pct: f64,
    /// Batches of consecutive rounds the interval is computed from.
    pub batches: usize,
    /// Every target of the policy is met.
    pub converged: bool,
}

/// Applies the stopping rule to one cell's per-round costs (ms, in round order), with
/// the interval at the policy's level of a look; `None` below 10 rounds, where the
/// interval does not exist.
pub fn verdict(costs: &[f64], policy: &Adaptive) -> Option<Verdict> {
    // The interval of the report's default estimator, the one the report restates.
    let c = cost_interval_by(costs, Estimator::default(), policy.level())?;
    let half = c.half_width_ms();
    let half_width_pct = if c.estimate_ms == 0.0 {
        f64::INFINITY
    } else {
        100.0 * half / c.estimate_ms.abs()
    };
    Some(Verdict {
        cost: c.estimate_ms,
        low: c.low_ms,
        high: c.high_ms,
        half_width_pct,
        batches: c.batches,
        converged: policy.met(c.estimate_ms, half),
    })
}

/// Why a cell stopped taking rounds.
#[derive(Debug, Clone, Copy, PartialEq)]
enum StopReason {
    /// The interval met the policy's targets after this many counted rounds.
    Converged,
    /// `max` rounds ran and the interval is still wider.
    MaxReached,
    /// Too few rounds with both launches for an interval (under 10: `max` below 10, or
    /// launches failed).
    NoInterval,
    /// The cell kept failing and was given up (`--give-up-after`).
    GivenUp,
}

impl StopReason {
    pub fn as_str(self) -> &'static str {
        match self {
            StopReason::Converged => "converged",
            StopReason::MaxReached => "max_reached",
            StopReason::NoInterval => "no_interval",
            StopReason::GivenUp => "given_up",
        }
    }
}

/// The adaptive rounds as a [`Strategy`] of the one launch loop: the plan's launches,
/// then a round at a time for the cells that have not stopped, each launch made as a
/// timed one ([`Timed`]). A resumed run's launches are replayed from the file instead
/// of launched.
struct Rounds<'a> {
    timed: Timed<'a>,
    policy: Adaptive,
    looks: Vec<u32>,
    /// The launches already in the file (`--resume`), by seq.
    earlier: HashMap<u64, &'a LaunchRecord>,
    /// Each cell's successful counted launches, paired by round.
    samples: Vec<RoundPairs>,
    /// Each cell's counted rounds so far; the plan holds `policy.min` of every cell.
    counted_rounds: Vec<u32>,
    /// Where each cell stopped, once it did.
    stops: Vec<Option<CellStop>>,
    /// The launches to make before the next look: the plan's, then a round's.
    queue: VecDeque<PlannedLaunch>,
    /// The cells of the round under way; `None` while the plan's launches run.
    pending: Option<Vec<usize>>,
    /// The round of the last launch handed out.
    round: u32,
    /// Launches handed out (made or replayed): the seq of the next added one.
    handed_out: u64,
}

impl Rounds<'_> {
    /// Whether `cell` has stopped taking rounds: before, or at this look (which then
    /// records its stop).
    fn look(&mut self, cell: usize) -> bool {
        if self.stops[cell].is_some() {
            return true;
        }
        let (policy, rounds) = (&self.policy, self.counted_rounds[cell]);
        let key = cell_key(&self.timed.plan().cells[cell]);
        let given_up = self.timed.give_up.reason(&key).is_some();
        if !(self.looks.contains(&rounds) || rounds >= policy.max || given_up) {
            return false;
        }
        let v = verdict(&self.samples[cell].costs(), policy);
        let reason = match v {
            _ if given_up => StopReason::GivenUp,
            Some(v) if v.converged => StopReason::Converged,
            Some(_) if rounds >= policy.max => StopReason::MaxReached,
            None if rounds >= policy.max => StopReason::NoInterval,
            _ => return false,
        };
        self.stops[cell] = Some(CellStop {
            cell: key,
            rounds,
            max_rounds: policy.max,
            target_pct: policy.ci_pct,
            target_ms: policy.ci_ms,
            reason: reason.as_str().to_owned(),
            cost_ms: v.map(|v| v.cost),
            ci_low_ms: v.map(|v| v.low),
            ci_high_ms: v.map(|v| v.high),
            ci_half_width_pct: v.map(|v| v.half_width_pct).filter(|p| p.is_finite()),
            ci_batches: v.map(|v| v.batches),
            looks: (!self.looks.is_empty()).then_some(self.looks.len() as u32),
        });
        true
    }
}

impl Strategy for Rounds<'_> {
    type Planned = PlannedLaunch;
    type Record = LaunchRecord;
    type Error = AdaptiveError;

    fn next(&mut self) -> Option<PlannedLaunch> {
        loop {
            if let Some(planned) = self.queue.pop_front() {
                self.handed_out += 1;
                if self.pending.is_none() {
                    self.round = planned.round;
                }
                return Some(planned);
            }
            // The plan's launches, or a round's, are all made: a look.
            if let Some(pending) = &self.pending {
                for &cell in pending {
                    self.counted_rounds[cell] += 1;
                }
            }
            self.round += 1;
            let cells = self.timed.plan().cells.len();
            let pending: Vec<usize> = (0..cells).filter(|&cell| !self.look(cell)).collect();
            if pending.is_empty() {
                return None;
            }
            self.queue = round_launches(self.round, false, &pending, self.handed_out).into();
            self.pending = Some(pending);
        }
    }

    /// A launch the file holds is replayed: it must be the one planned at its seq, and
    /// counts toward its cell's samples and giving it up as it did.
    fn already_done(&mut self, planned: &PlannedLaunch) -> Result<bool, AdaptiveError> {
        let Some(&record) = self.earlier.get(&planned.seq) else {
            return Ok(false);
        };
        let key = cell_key(&self.timed.plan().cells[planned.cell]);
        if (record.round, record.warmup, record.pretouch, &record.cell)
            != (planned.round, planned.warmup, planned.pretouch, &key)
        {
            return Err(AdaptiveError::Mismatch {
                seq: record.seq,
                detail: format!(
                    "recorded as round {} {:?} pretouch {}, planned as round {} {:?} pretouch {}",
                    record.round,
                    record.cell,
                    record.pretouch,
                    planned.round,
                    key,
                    planned.pretouch
                ),
            });
        }
        self.timed.give_up.count(record);
        self.samples[planned.cell].add(0, record);
        Ok(true)
    }

    fn launch(&mut self, planned: &PlannedLaunch) -> Result<Option<LaunchRecord>, AdaptiveError> {
        let record = self.timed.launch(planned)?;
        if let Some(record) = &record {
            self.samples[planned.cell].add(0, record);
        }
        Ok(record)
    }

    fn outcome(record: &LaunchRecord) -> (u64, bool) {
        Timed::outcome(record)
    }
}

/// Runs `plan` (warm-ups and the first `policy.min` counted rounds), then adds rounds for
/// the cells that have not converged, until `policy.max`. Returns the summary and where
/// each cell stopped; the end record carries the stops. Stops early, without an end
/// record, on a signal or (`options.fail_fast`) a failed launch, as [`run::execute_with`].
///
/// `--resume`: the launches already in the file (`options.earlier`) are replayed in seq
/// order instead of launched: each counts toward its cell's samples as it did, so the
/// same policy decides the same rounds, and the run goes on where it stopped.
/// (`options.done` is not used.)
pub fn execute(
    plan: &Plan,
    matrix_args: &[String],
    policy: Adaptive,
    launcher: &mut dyn Launcher,
    store: &mut StoreWriter,
    observer: &mut dyn Observer,
    options: &run::Context<'_>,
) -> Result<(RunSummary, Vec<CellStop>), AdaptiveError> {
    let cells = plan.cells.len();
    let mut timed = Timed::new(plan, matrix_args, launcher, store, observer, options);
    // Replayed, not counted again.
    timed.give_up = GiveUp::new(options.give_up_after);
    let mut rounds = Rounds {
        timed,
        policy,
        looks: policy.looks(),
        earlier: options.earlier.iter().map(|r| (r.seq, r)).collect(),
        samples: vec![RoundPairs::default(); cells],
        counted_rounds: vec![policy.min; cells],
        stops: vec![None; cells],
        queue: plan.launches.iter().copied().collect(),
        pending: None,
        round: 0,
        handed_out: 0,
    };
    let summary = drive(&mut rounds, options.interrupt, options.fail_fast)?;
    if summary.stopped.is_some() {
        return Ok((summary, Vec::new()));
    }
    let stops: Vec<CellStop> = rounds.stops.into_iter().flatten().collect();
    store.append(&end_record(options, &summary, stops.clone()))?;
    Ok((summary, stops))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::{fake_jdk, stamp};
    use crate::launch::LaunchOutcome;
    use crate::launch::agent::Stamps;
    use crate::launch::interrupt::Interrupt;
    use crate::schedule::run::Stop;
    use crate::stats::interval::cost_interval;
    use crate::store::{Record, RunEnd};
    use crate::units::Nanos;

    /// Gives each launch a time to main picked by (cell, pretouch, how many so far).
    struct Scripted {
        calls: HashMap<(String, bool), usize>,
    }

    impl Launcher for Scripted {
        fn launch(&mut self, java: &std::path::Path, jvm_args: &[String]) -> LaunchOutcome {
            let pretouch = jvm_args.iter().any(|a| a == "-XX:+AlwaysPreTouch");
            let cell = java.display().to_string();
            let n = self.calls.entry((cell.clone(), pretouch)).or_default();
            *n += 1;
            let ms = match (cell.contains("steady"), pretouch) {
                (_, false) => 50.0 + (*n % 3) as f64,
                (true, true) => 450.0 + (*n % 3) as f64,
                // Noisy: drifting up 30 ms a launch, and scattered over 60 ms (a
                // multiplicative hash of the count).
                (false, true) => {
                    300.0 + 30.0 * *n as f64 + ((*n as u64).wrapping_mul(2_654_435_761) % 61) as f64
                }
            };
            LaunchOutcome {
                measured: crate::launch::Measurement {
                    spawn_ns: Nanos(1_000),
                    exit_code: Some(0),
                    stamps: Stamps {
                        mechanism: None,
                        agent_load: stamp(2_000),
                        vm_init: stamp(3_000),
                        main: stamp(1_000 + (ms * 1e6) as u64),
                    },
                    ..crate::launch::Measurement::default()
                },
                ..LaunchOutcome::default()
            }
        }
    }

    /// Runs `matrix` (one G1 64m cell per JDK name) with the scripted launcher.
    fn scripted_run(
        matrix: &str,
        jdks: &[&str],
    ) -> (
        RunSummary,
        Vec<CellStop>,
        tempfile::TempDir,
        std::path::PathBuf,
    ) {
        let m = crate::matrix::Matrix::parse("m", matrix).unwrap();
        let jdks: Vec<_> = jdks.iter().map(|j| fake_jdk(j)).collect();
        let plan = Plan::new(&m, &jdks);
        let dir = tempfile::tempdir().unwrap();
        let mut store = StoreWriter::create(dir.path(), "x", "t").unwrap();
        let mut launcher = Scripted {
            calls: HashMap::new(),
        };
        let (summary, stops) = execute(
            &plan,
            &[],
            m.adaptive.unwrap(),
            &mut launcher,
            &mut store,
            &mut (),
            &run::Context::default(),
        )
        .unwrap();
        let path = store.path().to_owned();
        (summary, stops, dir, path)
    }

    #[test]
    fn each_cell_stops_on_its_own() {
        let (summary, stops, _dir, path) = scripted_run(
            "name: x\ngcs: [g1]\nheaps: [64m]\nrepetitions: {min: 10, max: 14, ci_pct: 2}\nwarmup: 1\n",
            &["steady", "noisy"],
        );
        // 1 warm-up round + 10 rounds for both cells, then 4 more rounds for the noisy one.
        assert_eq!(summary.launches, (11 * 2 + 4) * 2);
        let got: Vec<(&str, u32, &str)> = stops
            .iter()
            .map(|s| (&*s.cell.jdk, s.rounds, s.reason.as_str()))
            .collect();
        assert_eq!(
            got,
            [("steady", 10, "converged"), ("noisy", 14, "max_reached")]
        );
        assert_eq!(stops[0].cost_ms, Some(400.0));
        // The rounds the error is from (`stats::interval::CostInterval::batches`).
        assert_eq!(stops[0].ci_batches, Some(10));
        assert!(stops[1].ci_half_width_pct.unwrap() > 2.0);
        // The end record carries the stops.
        let text = std::fs::read_to_string(&path).unwrap();
        match serde_json::from_str(text.lines().last().unwrap()).unwrap() {
            Record::End(end) => assert_eq!(end.stops, as_stored(&stops)),
            other => panic!("last record: {other:?}"),
        }
    }

    #[test]
    fn the_stop_is_on_the_interval_the_report_states() {
        let (_, stops, _dir, path) = scripted_run(
            "name: x\ngcs: [g1]\nheaps: [64m]\nrepetitions: {min: 10, max: 13, ci_pct: 2}\nwarmup: 1\n",
            &["noisy"],
        );
        // The report built from the file states the interval the cell stopped on: at
        // the level of its looks (10 and 13: 97.5%), wider than the 95% of a fixed count.
        let launches = launch_records(&path);
        let mut file = crate::fixtures::file("x", "t", crate::fixtures::host("vm"), &[]);
        file.launches.clone_from(&launches);
        file.end = launches_of(&path).1;
        let report = crate::analyze::build(&crate::store::Results {
            files: vec![file],
            ..Default::default()
        });
        let cell = &report.cells[0];
        let stop = &stops[0];
        assert_eq!((stop.rounds, stop.looks), (13, Some(2)));
        assert_eq!(cell.cost.cost_ci_looks, Some(2));
        assert_eq!(
            cell.cost_interval(),
            Some((
                stop.cost_ms.unwrap(),
                stop.ci_low_ms.unwrap(),
                stop.ci_high_ms.unwrap()
            ))
        );
        assert_eq!(cell.cost.cost_ci_batches, stop.ci_batches);
        let fixed = crate::analyze::interval::cell_interval(&[&launches], |_| true).unwrap();
        assert_eq!(fixed.estimate_ms, stop.cost_ms.unwrap());
        assert!(fixed.half_width_ms() < cell.cost.cost_ci_high_ms.unwrap() - stop.cost_ms.unwrap());
    }

    #[test]
    fn a_target_in_ms_stops_a_cell_whose_percentage_would_not() {
        // The noisy cell's costs drift 30 ms a round: its interval is hundreds of ms
        // wide, far from +-2%, but within +-10 s.
        let (_, stops, _dir, _) = scripted_run(
            "name: x\ngcs: [g1]\nheaps: [64m]\nrepetitions: {min: 10, max: 14, ci_ms: 10000}\nwarmup: 1\n",
            &["noisy"],
        );
        assert_eq!(
            (stops[0].rounds, stops[0].reason.as_str()),
            (10, "converged")
        );
        assert_eq!(
            (stops[0].target_pct, stops[0].target_ms),
            (None, Some(10000.0))
        );
        // Both targets: the cell stops only when both hold.
        let (_, stops, _dir, _) = scripted_run(
            "name: x\ngcs: [g1]\nheaps: [64m]\nrepetitions: {min: 10, max: 14, ci_ms: 10000, ci_pct: 2}\nwarmup: 1\n",
            &["noisy"],
        );
        assert_eq!(
            (stops[0].rounds, stops[0].reason.as_str()),
            (14, "max_reached")
        );
    }

    #[test]
    fn below_10_rounds_there_is_no_interval_to_stop_on() {
        // An old matrix (min 5, max 8) still runs: every cell runs to max and says why.
        let (summary, stops, _dir, _) = scripted_run(
            "name: x\ngcs: [g1]\nheaps: [64m]\nrepetitions: {min: 5, max: 8, ci_pct: 2}\nwarmup: 1\n",
            &["steady"],
        );
        assert_eq!(summary.launches, 9 * 2);
        assert_eq!(
            (stops[0].rounds, stops[0].reason.as_str()),
            (8, "no_interval")
        );
        assert_eq!(stops[0].ci_low_ms, None);
    }

    #[test]
    fn a_signal_or_a_failure_stops_adaptive_rounds_without_an_end_record() {
        let m = crate::matrix::Matrix::parse(
            "m",
            "name: x\ngcs: [g1]\nheaps: [64m]\nrepetitions: {min: 5, max: 8, ci_pct: 2}\n",
        )
        .unwrap();
        let plan = Plan::new(&m, &[fake_jdk("noisy")]);
        let interrupt = Interrupt::new();
        interrupt.raise(libc::SIGTERM);
        let dir = tempfile::tempdir().unwrap();
        let mut store = StoreWriter::create(dir.path(), "x", "t").unwrap();
        let options = run::Context {
            interrupt: Some(&interrupt),
            ..run::Context::default()
        };
        let mut launcher = Scripted {
            calls: HashMap::new(),
        };
        let (summary, stops) = execute(
            &plan,
            &[],
            m.adaptive.unwrap(),
            &mut launcher,
            &mut store,
            &mut (),
            &options,
        )
        .unwrap();
        assert_eq!(summary.stopped, Some(Stop::Interrupted(libc::SIGTERM)));
        assert_eq!(summary.launches, 0);
        assert!(stops.is_empty());
        assert_eq!(std::fs::read_to_string(store.path()).unwrap(), "");
    }

    /// `stops` as a file reads them back: serde_json's default parser may read a float
    /// one unit in the last place from the shortest text it wrote.
    fn as_stored(stops: &[CellStop]) -> Vec<CellStop> {
        serde_json::from_str(&serde_json::to_string(stops).unwrap()).unwrap()
    }

    /// The launch records of a result file, in file order.
    fn launch_records(path: &std::path::Path) -> Vec<LaunchRecord> {
        std::fs::read_to_string(path)
            .unwrap()
            .lines()
            .filter_map(|l| match serde_json::from_str(l).unwrap() {
                Record::Launch(l) => Some(l),
                _ => None,
            })
            .collect()
    }

    /// A launch as the test compares it: seq, round, cell, pretouch.
    type Shape = (u64, u32, String, bool);

    /// The shape of every launch in the file, and its end record.
    fn launches_of(path: &std::path::Path) -> (Vec<Shape>, Option<RunEnd>) {
        let text = std::fs::read_to_string(path).unwrap();
        let mut launches = Vec::new();
        let mut end = None;
        for line in text.lines() {
            match serde_json::from_str(line).unwrap() {
                Record::Launch(l) => {
                    launches.push((l.seq, l.round, l.cell.jdk.to_string(), l.pretouch))
                }
                Record::End(e) => end = Some(e),
                _ => {}
            }
        }
        (launches, end)
    }

    #[test]
    fn a_resumed_adaptive_run_goes_on_where_it_stopped_with_the_same_policy() {
        let m = crate::matrix::Matrix::parse(
            "m",
            "name: x\ngcs: [g1]\nheaps: [64m]\nrepetitions: {min: 10, max: 14, ci_pct: 2}\nwarmup: 1\n",
        )
        .unwrap();
        let plan = Plan::new(&m, &[fake_jdk("steady"), fake_jdk("noisy")]);
        let policy = m.adaptive.unwrap();
        let scripted = || Scripted {
            calls: HashMap::new(),
        };
        // Uninterrupted.
        let whole = tempfile::tempdir().unwrap();
        let mut store = StoreWriter::create(whole.path(), "x", "t").unwrap();
        execute(
            &plan,
            &[],
            policy,
            &mut scripted(),
            &mut store,
            &mut (),
            &run::Context::default(),
        )
        .unwrap();
        let (want, want_end) = launches_of(store.path());

        // Interrupted in the planned rounds (launch 7) and in the added ones (launch 47
        // of 52), then resumed.
        assert_eq!(want.len(), 52);
        for stop_at in [7, 47] {
            let dir = tempfile::tempdir().unwrap();
            let mut store = StoreWriter::create(dir.path(), "x", "t").unwrap();
            let interrupt = Interrupt::new();
            let mut launcher = Interrupting {
                inner: scripted(),
                at: stop_at,
                calls: 0,
                interrupt: interrupt.clone(),
            };
            let options = run::Context {
                interrupt: Some(&interrupt),
                ..run::Context::default()
            };
            let (summary, _) = execute(
                &plan,
                &[],
                policy,
                &mut launcher,
                &mut store,
                &mut (),
                &options,
            )
            .unwrap();
            assert!(summary.stopped.is_some());
            let earlier = launch_records(store.path());
            let header_free = earlier.len() as u64;
            assert_eq!(header_free, stop_at);
            // The resumed launcher goes on with the same script (the calls it already made).
            let mut resumed = launcher.inner;
            let options = run::Context {
                earlier: &earlier,
                launches_before: header_free,
                ..run::Context::default()
            };
            let (summary, stops) = execute(
                &plan,
                &[],
                policy,
                &mut resumed,
                &mut store,
                &mut (),
                &options,
            )
            .unwrap();
            assert_eq!(summary.stopped, None);
            assert_eq!(summary.launches, want.len() as u64 - stop_at);
            let (got, end) = launches_of(store.path());
            assert_eq!(got, want, "resumed at {stop_at}");
            let end = end.unwrap();
            assert_eq!(end.launches, want.len() as u64);
            assert_eq!(end.stops, want_end.as_ref().unwrap().stops);
            assert_eq!(end.stops, as_stored(&stops));
        }
    }

    /// A launcher that raises SIGINT on its `at`-th launch (which is then not recorded).
    struct Interrupting {
        inner: Scripted,
        at: u64,
        calls: u64,
        interrupt: Interrupt,
    }

    impl Launcher for Interrupting {
        fn launch(&mut self, java: &std::path::Path, jvm_args: &[String]) -> LaunchOutcome {
            if self.calls == self.at {
                self.interrupt.raise(libc::SIGINT);
                return LaunchOutcome {
                    measured: crate::launch::Measurement {
                        failure: Some("killed".into()),
                        ..crate::launch::Measurement::default()
                    },
                    interrupted: true,
                };
            }
            self.calls += 1;
            self.inner.launch(java, jvm_args)
        }
    }

    /// What docs/statistics.md says of the interval at an adaptive stop, checked under
    /// this machine's noise (`stats::noise`), 2,000 cells of up to 100 rounds, stopping
    /// within +-`target` ms. Checked after every round at 95% (the rule before the looks)
    /// the stop is data-dependent: it picks the cells whose batches happened to agree,
    /// and the interval it stops on covers less than 95%. Checked at the policy's
    /// planned looks (10, 20, 40, 80, 100), each at 99%, as `execute` does, it covers at
    /// least 95%, at the price of more rounds. Printed: the rounds each took and how
    /// often the stated interval held the long-run cost. The same cells run to a fixed
    /// 100 rounds cover at least 95%.
    #[test]
    fn an_adaptive_stop_covers_95_percent_at_planned_looks_not_every_round() {
        use crate::stats::interval::{TRIM, trimmed_mean};
        use crate::stats::noise::{Noise, simulate_cell};
        let vm = Noise::development_vm();
        let mut state = 99;
        let all: Vec<f64> = (0..500)
            .flat_map(|_| simulate_cell(&vm, 100, &mut state).costs())
            .collect();
        let truth = trimmed_mean(&all, TRIM).unwrap();
        let trials = 2000;
        let covers = |low: f64, high: f64| low <= truth && truth <= high;
        for (target, seed) in [(30.0, 1), (15.0, 2), (10.0, 3)] {
            let policy = Adaptive {
                min: 10,
                max: 100,
                ci_pct: None,
                ci_ms: Some(target),
            };
            assert_eq!(policy.looks(), [10, 20, 40, 80, 100]);
            let mut state = seed;
            let (mut every, mut looked, mut fixed) = (0, 0, 0);
            let (mut every_rounds, mut looked_rounds) = (0, 0);
            for _ in 0..trials {
                let costs = simulate_cell(&vm, 100, &mut state).costs();
                let (n, c) = (10..=100)
                    .map(|n| (n, cost_interval(&costs[..n], 0.95).unwrap()))
                    .find(|(n, c)| policy.met(c.estimate_ms, c.half_width_ms()) || *n == 100)
                    .unwrap();
                every += usize::from(covers(c.low_ms, c.high_ms));
                every_rounds += n;
                let (n, v) = policy
                    .looks()
                    .into_iter()
                    .map(|n| (n, verdict(&costs[..n as usize], &policy).unwrap()))
                    .find(|(n, v)| v.converged || *n == 100)
                    .unwrap();
                looked += usize::from(covers(v.low, v.high));
                looked_rounds += n as usize;
                let c = cost_interval(&costs, 0.95).unwrap();
                fixed += usize::from(covers(c.low_ms, c.high_ms));
            }
            let share = |n: usize| n as f64 / trials as f64;
            let (every, looked, fixed) = (share(every), share(looked), share(fixed));
            eprintln!(
                "adaptive stop within +-{target} ms: every round at 95%: {:.1} rounds on average, covers {:.1}%; at the planned looks: {:.1} rounds, covers {:.1}%; the same cells at 100 rounds {:.1}%",
                share(every_rounds),
                100.0 * every,
                share(looked_rounds),
                100.0 * looked,
                100.0 * fixed
            );
            assert!(fixed >= 0.95, "+-{target} ms, 100 rounds: {fixed}");
            // Checking every round covers less than the looks. With the interval over
            // a label's runs it is about 95% at +-30 ms, and under it at tighter targets
            // (printed).
            assert!(
                every < looked,
                "+-{target} ms, every round: {every}, looks {looked} (update docs/statistics.md)"
            );
            assert!(looked >= 0.95, "+-{target} ms, at the looks: {looked}");
        }
    }

    #[test]
    fn tight_cells_converge_and_noisy_ones_do_not() {
        let policy = Adaptive {
            min: 10,
            max: 30,
            ci_pct: Some(2.0),
            ci_ms: None,
        };
        let tight = [
            400.0, 401.0, 399.0, 400.5, 399.5, 400.2, 400.8, 399.1, 400.3, 399.9,
        ];
        let v = verdict(&tight, &policy).unwrap();
        // At the level of each of the policy's 3 looks (10, 20, 30).
        let c = cost_interval_by(&tight, Estimator::default(), 1.0 - 0.05 / 3.0).unwrap();
        assert!(v.converged, "{v:?}");
        assert_eq!(
            (v.cost, v.low, v.high),
            (c.estimate_ms, c.low_ms, c.high_ms)
        );
        assert!((v.half_width_pct - 100.0 * c.half_width_ms() / c.estimate_ms).abs() < 1e-9);
        let noisy = [
            400.0, 550.0, 330.0, 470.0, 360.0, 650.0, 420.0, 390.0, 610.0, 300.0,
        ];
        let v = verdict(&noisy, &policy).unwrap();
        assert!(!v.converged && v.half_width_pct > 2.0, "{v:?}");
        // Nine rounds: no interval.
        assert_eq!(verdict(&tight[..9], &policy), None);
    }
}
