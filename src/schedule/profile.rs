//! Profiled rounds (`pretouch run --profile`): after the timed launches, a few rounds in
//! which every cell is launched once without and once with pretouch under `perf record`.
//! Their records are of their own type and enter no timing statistic; the timed
//! launches are the same as without `--profile`.

use std::collections::BTreeSet;

use crate::launch::interrupt::Interrupt;
use crate::launch::profile::{self, PerfLauncher, ProfiledOutcome};
use crate::schedule::plan::Plan;
use crate::schedule::run::{cell_key, launch_options};
use crate::store::profile::ProfileRecord;
use crate::store::{Record, StoreError, StoreWriter};

/// Profiled rounds per cell unless told otherwise.
pub const DEFAULT_ROUNDS: u32 = 3;

/// How the profiled rounds ended.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProfileSummary {
    pub launches: u64,
    /// Launches that failed, or whose samples could not be read.
    pub failed: u64,
    /// The signal that stopped them, when one did.
    pub interrupted: Option<i32>,
}

/// A profiled launch: what the caller needs to make one (a seam for tests).
pub trait ProfiledLaunch {
    fn launch_profiled(
        &mut self,
        java: &std::path::Path,
        jvm_args: &[String],
        options: &crate::launch::LaunchOptions,
        name: &str,
    ) -> ProfiledOutcome;
}

impl ProfiledLaunch for PerfLauncher {
    fn launch_profiled(
        &mut self,
        java: &std::path::Path,
        jvm_args: &[String],
        options: &crate::launch::LaunchOptions,
        name: &str,
    ) -> ProfiledOutcome {
        self.launch(java, jvm_args, options, name)
    }
}

/// One profiled launch of the plan: `seq` is its position among the run's profiled
/// launches, as stored in its [`ProfileRecord`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlannedProfile {
    pub seq: u64,
    pub round: u32,
    /// Index into the plan's cells.
    pub cell: usize,
    pub pretouch: bool,
}

/// The profiled launches of `rounds` rounds, in order: round by round, cells in plan
/// order, the pair's order alternating by round (as in the timed rounds).
pub fn planned(plan: &Plan, rounds: u32) -> Vec<PlannedProfile> {
    let mut out = Vec::new();
    for round in 0..rounds {
        for cell in 0..plan.cells.len() {
            let order = if round % 2 == 0 {
                [false, true]
            } else {
                [true, false]
            };
            for pretouch in order {
                out.push(PlannedProfile {
                    seq: out.len() as u64,
                    round,
                    cell,
                    pretouch,
                });
            }
        }
    }
    out
}

/// Runs the profiled launches of `rounds` rounds over the plan's cells ([`planned`])
/// but those whose seq is in `done` (a resumed run), appending a [`ProfileRecord`] per
/// launch. `each` sees every record once stored (progress).
#[expect(
    clippy::too_many_arguments,
    reason = "the run's parts, passed down once"
)]
pub fn execute(
    plan: &Plan,
    matrix_args: &[String],
    rounds: u32,
    done: &BTreeSet<u64>,
    launcher: &mut dyn ProfiledLaunch,
    store: &mut StoreWriter,
    interrupt: Option<&Interrupt>,
    each: &mut dyn FnMut(&ProfileRecord),
) -> Result<ProfileSummary, StoreError> {
    let mut summary = ProfileSummary::default();
    for planned in planned(plan, rounds) {
        let PlannedProfile {
            seq,
            round,
            cell: index,
            pretouch,
        } = planned;
        if done.contains(&seq) {
            continue;
        }
        let cell = &plan.cells[index];
        if let Some(signal) = interrupt.and_then(Interrupt::signal) {
            summary.interrupted = Some(signal);
            return Ok(summary);
        }
        let name = format!(
            "cell{index}-round{round}-{}",
            if pretouch { "on" } else { "off" }
        );
        let p = launcher.launch_profiled(
            &cell.jdk.java,
            &cell.jvm_args(matrix_args, pretouch),
            &launch_options(cell),
            &name,
        );
        if p.outcome.interrupted {
            summary.interrupted = Some(
                interrupt
                    .and_then(Interrupt::signal)
                    .unwrap_or(libc::SIGINT),
            );
            return Ok(summary);
        }
        let time_to_main_ns = p.outcome.measured.time_to_main();
        let failure = p.outcome.measured.failure.clone().or(p.problem.clone());
        let record = ProfileRecord {
            seq,
            round,
            cell: cell_key(cell),
            pretouch,
            command: p.outcome.measured.command,
            started_at: p.outcome.measured.started_at,
            time_to_main_ns,
            wall_ns: p
                .outcome
                .measured
                .reaped_ns
                .since(p.outcome.measured.spawn_ns)
                .unwrap_or_default(),
            failure,
            event: profile::EVENT.to_owned(),
            frequency_hz: profile::FREQUENCY_HZ,
            call_graph: profile::CALL_GRAPH.to_owned(),
            samples: p.samples,
            folded: p.folded,
            perf_data: p.perf_data,
        };
        store.append(&Record::Profile(record.clone()))?;
        summary.launches += 1;
        summary.failed += u64::from(!record.ok());
        each(&record);
    }
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::launch::{LaunchOptions, LaunchOutcome};
    use crate::store::profile::read_profiles;
    use std::path::Path;

    /// Answers every launch with one sample, in or out of pretouch.
    struct Fake(Vec<bool>);

    impl ProfiledLaunch for Fake {
        fn launch_profiled(
            &mut self,
            _java: &Path,
            jvm_args: &[String],
            _options: &LaunchOptions,
            _name: &str,
        ) -> ProfiledOutcome {
            let on = jvm_args.iter().any(|a| a == "-XX:+AlwaysPreTouch");
            self.0.push(on);
            let mut outcome = LaunchOutcome {
                measured: crate::launch::Measurement {
                    spawn_ns: crate::units::Nanos(10),
                    reaped_ns: crate::units::Nanos(50),
                    exit_code: Some(0),
                    stamps: crate::launch::agent::Stamps {
                        mechanism: None,
                        agent_load: crate::fixtures::stamp(11),
                        vm_init: crate::fixtures::stamp(12),
                        main: crate::fixtures::stamp(13),
                    },
                    ..crate::launch::Measurement::default()
                },
                ..LaunchOutcome::default()
            };
            outcome.measured.failure = crate::launch::judge(&outcome);
            ProfiledOutcome {
                outcome,
                folded: vec![format!(
                    "GC_Thread;os::pretouch_memory;x_[k] {}",
                    u8::from(on)
                )],
                samples: u64::from(on),
                ..ProfiledOutcome::default()
            }
        }
    }

    #[test]
    fn profiled_rounds_alternate_and_are_stored_as_profile_records() {
        let matrix = crate::matrix::Matrix::parse(
            "m",
            "name: t\ngcs: [g1, parallel]\nheaps: [64m]\nrepetitions: 1\n",
        )
        .unwrap();
        let jdk = crate::fixtures::fake_jdk("17");
        let plan = Plan::new(&matrix, std::slice::from_ref(&jdk));
        let dir = tempfile::tempdir().unwrap();
        let mut store = StoreWriter::create(dir.path(), "t", "x").unwrap();
        let mut fake = Fake(Vec::new());
        let mut seen = 0;
        let none = BTreeSet::new();
        let summary = execute(
            &plan,
            &[],
            2,
            &none,
            &mut fake,
            &mut store,
            None,
            &mut |_| seen += 1,
        )
        .unwrap();
        assert_eq!(summary.launches, 8);
        assert_eq!(summary.failed, 0);
        assert_eq!(seen, 8);
        // Round 0 off/on, round 1 on/off, per cell.
        assert_eq!(fake.0, [false, true, false, true, true, false, true, false]);
        let written = std::fs::read_to_string(store.path()).unwrap();
        assert_eq!(written.lines().count(), 8);
        assert!(written.lines().all(|l| l.contains(r#""record":"profile""#)));
    }

    #[test]
    fn a_resumed_profile_runs_only_the_missing_launches_under_their_planned_seq() {
        let matrix = crate::matrix::Matrix::parse(
            "m",
            "name: t\ngcs: [g1, parallel]\nheaps: [64m]\nrepetitions: 1\n",
        )
        .unwrap();
        let jdk = crate::fixtures::fake_jdk("17");
        let plan = Plan::new(&matrix, std::slice::from_ref(&jdk));
        let dir = tempfile::tempdir().unwrap();
        let mut store = StoreWriter::create(dir.path(), "t", "x").unwrap();
        let mut fake = Fake(Vec::new());
        let done = BTreeSet::from([0, 1, 2]);
        let mut seqs = Vec::new();
        let summary = execute(
            &plan,
            &[],
            2,
            &done,
            &mut fake,
            &mut store,
            None,
            &mut |r| seqs.push((r.seq, r.round, r.pretouch)),
        )
        .unwrap();
        assert_eq!(summary.launches, 5);
        // Seq 3 is cell 1's launch with pretouch in round 0; round 1 starts with pretouch.
        assert_eq!(
            seqs,
            [
                (3, 0, true),
                (4, 1, true),
                (5, 1, false),
                (6, 1, true),
                (7, 1, false)
            ]
        );
        let all = planned(&plan, 2);
        assert_eq!(all.len(), 8);
        assert!(all.iter().enumerate().all(|(i, p)| p.seq == i as u64));
    }

    #[test]
    fn profile_records_read_back_beside_the_launches() {
        let dir = tempfile::tempdir().unwrap();
        let file =
            crate::fixtures::file("k", "2026-01-01T00:00:00Z", crate::fixtures::host("h"), &[]);
        let path = dir.path().join("r.jsonl");
        let record = ProfileRecord {
            seq: 0,
            round: 0,
            cell: crate::store::CellKey {
                jdk: "17".into(),
                gc: crate::matrix::Gc::G1,
                heap: "64m".into(),
                variant: "default".into(),
                gc_threads: "auto".into(),
                cpus: "all".into(),
                app: None,
            },
            pretouch: true,
            command: vec!["perf".into()],
            started_at: "t".into(),
            time_to_main_ns: Some(crate::units::Nanos(5)),
            wall_ns: crate::units::Nanos(9),
            failure: None,
            event: "cpu-clock".into(),
            frequency_hz: 999,
            call_graph: "fp".into(),
            samples: 3,
            folded: vec!["a;b 3".into()],
            perf_data: None,
        };
        let text = format!(
            "{}\n{}\n",
            serde_json::to_string(&Record::Run(file.header.clone())).unwrap(),
            serde_json::to_string(&Record::Profile(record.clone())).unwrap()
        );
        std::fs::write(&path, text).unwrap();
        let results = crate::store::read_results(&[path]).unwrap();
        assert!(results.warnings.is_empty(), "{:?}", results.warnings);
        assert_eq!(results.files[0].launches.len(), 0);
        let profiles = read_profiles(&results.files);
        assert_eq!(profiles.len(), 1);
        assert_eq!(
            (profiles[0].label.as_str(), &profiles[0].record),
            ("k", &record)
        );
    }
}
