//! Stage 6, scheduling: adaptive repetitions, between the plan and the launches. `repetitions: {min: 5, max: 30, ci_pct: 2}`
//! runs `min` counted rounds, then adds rounds for the cells whose 95% confidence interval
//! of the pretouch cost is not yet within ±`ci_pct`% of the cost, until `max`.
//!
//! The interval is the distribution-free confidence interval for a shift in location
//! between two samples (with pretouch, without) from the Mann-Whitney statistic, as R's
//! `wilcox.test(with, without, conf.int = TRUE)` reports it: [`crate::stats::hodges_lehmann`],
//! which names its sources and is tested against R. Like the median, it makes no
//! assumption of normality. It is not blind to outliers: one slow launch out of n on one
//! side is in n of the differences, so with few rounds an outlier keeps a cell running,
//! which is what more rounds are for.

use crate::launch::Launcher;
use crate::launch::interrupt::Interrupt;
use crate::schedule::give_up::GiveUp;
use crate::schedule::plan::{Plan, PlannedLaunch, round_launches};
use crate::schedule::run::{self, Observer, RunSummary, Stop, cell_key, launch_or_skip};
use crate::stats::{hodges_lehmann, median};
use crate::store::{CellStop, LaunchRecord, Record, RunEnd, StoreError, StoreWriter};

/// Why adaptive rounds could not go on.
#[derive(Debug, thiserror::Error)]
pub enum AdaptiveError {
    #[error(transparent)]
    Store(#[from] StoreError),
    /// `--resume`: a launch in the file is not the one the policy plans at its seq.
    #[error(
        "launch {seq}: {detail}; the file does not match its own matrix and policy, so it is not resumed"
    )]
    Mismatch { seq: u64, detail: String },
}

/// Confidence level of the stopping rule.
pub const CONFIDENCE: f64 = 0.95;

use crate::matrix::repetitions::Adaptive;

/// Where a cell stands against the stopping rule.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Verdict {
    /// median(with) - median(without), ms.
    pub cost: f64,
    /// The 95% interval of the shift, ms.
    pub low: f64,
    pub high: f64,
    /// The interval's larger distance from `cost`, as a percentage of `|cost|`.
    pub half_width_pct: f64,
    /// Within ±ci_pct%.
    pub converged: bool,
}

/// Applies the stopping rule to one cell's samples (ms); `None` when either side has
/// fewer than two launches.
pub fn verdict(with: &[f64], without: &[f64], ci_pct: f64) -> Option<Verdict> {
    if with.len() < 2 || without.len() < 2 {
        return None;
    }
    let cost = median(with)? - median(without)?;
    let shift = hodges_lehmann(with, without, CONFIDENCE)?;
    let (low, high) = (shift.low, shift.high);
    let half_width_pct = if cost == 0.0 {
        f64::INFINITY
    } else {
        100.0 * (cost - low).abs().max((high - cost).abs()) / cost.abs()
    };
    Some(Verdict {
        cost,
        low,
        high,
        half_width_pct,
        converged: half_width_pct <= ci_pct,
    })
}

/// Why a cell stopped taking rounds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum StopReason {
    /// The interval reached ±ci_pct% after this many counted rounds.
    Converged,
    /// `max` rounds ran and the interval is still wider.
    MaxReached,
    /// Too few successful launches to compute an interval (launches failed).
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
    options: &run::Options<'_>,
) -> Result<(RunSummary, Vec<CellStop>), AdaptiveError> {
    let earlier: std::collections::HashMap<u64, &LaunchRecord> =
        options.earlier.iter().map(|r| (r.seq, r)).collect();
    // Launches replayed from the file, for the seqs of added rounds.
    let mut replayed: u64 = 0;
    let mut summary = RunSummary {
        launches: 0,
        failed: 0,
        stopped: None,
    };
    let signal = || options.interrupt.and_then(Interrupt::signal);
    let cells = plan.cells.len();
    // Successful counted times per cell, ms: [without, with].
    let mut samples: Vec<[Vec<f64>; 2]> = vec![Default::default(); cells];
    // The plan holds `policy.min` counted rounds of every cell.
    let mut counted_rounds = vec![policy.min; cells];
    // Makes one launch; `Some(stop)` when the run must stop.
    let mut give_up = GiveUp::new(options.give_up_after);
    let mut run = |planned: &PlannedLaunch,
                   summary: &mut RunSummary,
                   samples: &mut Vec<[Vec<f64>; 2]>,
                   give_up: &mut GiveUp,
                   replayed: &mut u64|
     -> Result<Option<Stop>, AdaptiveError> {
        if let Some(&record) = earlier.get(&planned.seq) {
            let key = cell_key(&plan.cells[planned.cell]);
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
            give_up.count(record);
            if !planned.warmup
                && let Some(t) = record.time_to_main_ns.filter(|_| record.ok())
            {
                samples[planned.cell][usize::from(planned.pretouch)].push(t.as_ms());
            }
            *replayed += 1;
            return Ok(None);
        }
        if let Some(signal) = signal() {
            return Ok(Some(Stop::Interrupted(signal)));
        }
        let Some(record) = launch_or_skip(
            plan,
            planned,
            matrix_args,
            launcher,
            store,
            observer,
            give_up,
        )?
        else {
            return Ok(Some(Stop::Interrupted(signal().unwrap_or(libc::SIGINT))));
        };
        summary.launches += 1;
        summary.failed += u64::from(!record.ok());
        if !planned.warmup
            && let Some(t) = record.time_to_main_ns.filter(|_| record.ok())
        {
            samples[planned.cell][usize::from(planned.pretouch)].push(t.as_ms());
        }
        if options.fail_fast && !record.ok() {
            return Ok(Some(Stop::FailFast { seq: record.seq }));
        }
        Ok(None)
    };
    let mut last_round = 0;
    for planned in &plan.launches {
        if let Some(stop) = run(
            planned,
            &mut summary,
            &mut samples,
            &mut give_up,
            &mut replayed,
        )? {
            summary.stopped = Some(stop);
            return Ok((summary, Vec::new()));
        }
        last_round = planned.round;
    }
    let mut stops: Vec<Option<CellStop>> = vec![None; cells];
    let mut round = last_round + 1;
    loop {
        let mut pending = Vec::new();
        for cell in 0..cells {
            if stops[cell].is_some() {
                continue;
            }
            let [without, with] = &samples[cell];
            let v = verdict(with, without, policy.ci_pct);
            let given_up = give_up.reason(&cell_key(&plan.cells[cell])).is_some();
            let reason = match v {
                _ if given_up => Some(StopReason::GivenUp),
                Some(v) if v.converged => Some(StopReason::Converged),
                _ if counted_rounds[cell] >= policy.max => Some(if v.is_some() {
                    StopReason::MaxReached
                } else {
                    StopReason::NoInterval
                }),
                _ => None,
            };
            match reason {
                Some(reason) => {
                    stops[cell] = Some(CellStop {
                        cell: cell_key(&plan.cells[cell]),
                        rounds: counted_rounds[cell],
                        max_rounds: policy.max,
                        target_pct: policy.ci_pct,
                        reason: reason.as_str().to_owned(),
                        cost_ms: v.map(|v| v.cost),
                        ci_low_ms: v.map(|v| v.low),
                        ci_high_ms: v.map(|v| v.high),
                        ci_half_width_pct: v.map(|v| v.half_width_pct).filter(|p| p.is_finite()),
                    })
                }
                None => pending.push(cell),
            }
        }
        if pending.is_empty() {
            break;
        }
        let first_seq = summary.launches + replayed;
        for planned in round_launches(round, false, &pending, first_seq) {
            if let Some(stop) = run(
                &planned,
                &mut summary,
                &mut samples,
                &mut give_up,
                &mut replayed,
            )? {
                summary.stopped = Some(stop);
                return Ok((summary, Vec::new()));
            }
        }
        for &cell in &pending {
            counted_rounds[cell] += 1;
        }
        round += 1;
    }
    let stops: Vec<CellStop> = stops.into_iter().flatten().collect();
    store.append(&Record::End(RunEnd {
        finished_at: crate::launch::utc_now_millis(),
        launches: options.launches_before + summary.launches,
        failed: options.failed_before + summary.failed,
        stops: stops.clone(),
        runner_max_rss: Some(crate::machine::host::own_max_rss()),
    }))?;
    Ok((summary, stops))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::{fake_jdk, stamp};
    use crate::launch::LaunchOutcome;
    use crate::launch::agent::Stamps;
    use crate::units::Nanos;
    use std::collections::HashMap;

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
                // Noisy: alternately fast and 3x slow.
                (false, true) => {
                    if n.is_multiple_of(2) {
                        300.0
                    } else {
                        900.0
                    }
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

    #[test]
    fn each_cell_stops_on_its_own() {
        let m = crate::matrix::Matrix::parse(
            "m",
            "name: x\ngcs: [g1]\nheaps: [64m]\nrepetitions: {min: 5, max: 8, ci_pct: 2}\nwarmup: 1\n",
        )
        .unwrap();
        let plan = Plan::new(&m, &[fake_jdk("steady"), fake_jdk("noisy")]);
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
            &run::Options::default(),
        )
        .unwrap();
        // 1 warm-up round + 5 rounds for both cells, then 3 more rounds for the noisy one.
        assert_eq!(summary.launches, (6 * 2 + 3) * 2);
        let got: Vec<(&str, u32, &str)> = stops
            .iter()
            .map(|s| (&*s.cell.jdk, s.rounds, s.reason.as_str()))
            .collect();
        assert_eq!(
            got,
            [("steady", 5, "converged"), ("noisy", 8, "max_reached")]
        );
        assert_eq!(stops[0].cost_ms, Some(400.0));
        assert!(stops[1].ci_half_width_pct.unwrap() > 2.0);
        // The end record carries the stops.
        let text = std::fs::read_to_string(store.path()).unwrap();
        match serde_json::from_str(text.lines().last().unwrap()).unwrap() {
            Record::End(end) => assert_eq!(end.stops, stops),
            other => panic!("last record: {other:?}"),
        }
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
        let options = run::Options {
            interrupt: Some(&interrupt),
            ..run::Options::default()
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
            "name: x\ngcs: [g1]\nheaps: [64m]\nrepetitions: {min: 5, max: 8, ci_pct: 2}\nwarmup: 1\n",
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
            &run::Options::default(),
        )
        .unwrap();
        let (want, want_end) = launches_of(store.path());

        // Interrupted in the added rounds (launch 27 of 30), then resumed.
        for stop_at in [7, 27] {
            let dir = tempfile::tempdir().unwrap();
            let mut store = StoreWriter::create(dir.path(), "x", "t").unwrap();
            let interrupt = Interrupt::new();
            let mut launcher = Interrupting {
                inner: scripted(),
                at: stop_at,
                calls: 0,
                interrupt: interrupt.clone(),
            };
            let options = run::Options {
                interrupt: Some(&interrupt),
                ..run::Options::default()
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
            let earlier: Vec<LaunchRecord> = std::fs::read_to_string(store.path())
                .unwrap()
                .lines()
                .filter_map(|l| match serde_json::from_str(l).unwrap() {
                    Record::Launch(l) => Some(l),
                    _ => None,
                })
                .collect();
            let header_free = earlier.len() as u64;
            assert_eq!(header_free, stop_at);
            // The resumed launcher goes on with the same script (the calls it already made).
            let mut resumed = launcher.inner;
            let options = run::Options {
                earlier: &earlier,
                launches_before: header_free,
                ..run::Options::default()
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
            assert_eq!(end.stops, stops);
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

    #[test]
    fn tight_cells_converge_and_noisy_ones_do_not() {
        let without = [50.0, 51.0, 49.0, 50.5, 49.5, 50.2];
        let tight = [450.0, 451.0, 449.0, 450.5, 449.5, 450.2];
        let v = verdict(&tight, &without, 2.0).unwrap();
        assert!(v.converged && (v.cost - 400.0).abs() < 1e-9, "{v:?}");
        let noisy = [450.0, 600.0, 380.0, 520.0, 410.0, 700.0];
        let v = verdict(&noisy, &without, 2.0).unwrap();
        assert!(!v.converged && v.half_width_pct > 2.0, "{v:?}");
        assert_eq!(verdict(&[1.0], &without, 2.0), None);
    }
}
