//! Probed rounds (`pretouch run --probe`): after the timed launches (and the profiled
//! ones), a few rounds in which every cell is launched once without and once with
//! pretouch while bpftrace times its faults and lock waits. Their records are of their
//! own type and enter no timing statistic; the timed launches are the same as without
//! `--probe`. The rounds' order is the profiled rounds' ([`profile::planned`]).

use std::collections::BTreeSet;

use crate::launch::interrupt::Interrupt;
use crate::launch::probe::{C2cSupport, ProbeLauncher, ProbedOutcome};
use crate::schedule::plan::Plan;
use crate::schedule::profile::{self, PlannedProfile, ProfileSummary};
use crate::schedule::run::{cell_key, launch_options};
use crate::store::probe::ProbeRecord;
use crate::store::{Record, StoreError, StoreWriter};

/// Probed rounds per cell unless told otherwise.
pub const DEFAULT_ROUNDS: u32 = 3;

/// A probed launch: what the caller needs to make one (a seam for tests).
pub trait ProbedLaunch {
    fn launch_probed(
        &mut self,
        java: &std::path::Path,
        jvm_args: &[String],
        options: &crate::launch::LaunchOptions,
    ) -> ProbedOutcome;
}

impl ProbedLaunch for ProbeLauncher {
    fn launch_probed(
        &mut self,
        java: &std::path::Path,
        jvm_args: &[String],
        options: &crate::launch::LaunchOptions,
    ) -> ProbedOutcome {
        self.launch(java, jvm_args, options)
    }
}

/// Runs the probed launches of `rounds` rounds over the plan's cells but those whose
/// seq is in `done` (a resumed run), appending a [`ProbeRecord`] per launch. `each` sees
/// every record once stored (progress). `c2c` is stored in each record.
#[expect(
    clippy::too_many_arguments,
    reason = "the run's parts, passed down once"
)]
pub fn execute(
    plan: &Plan,
    matrix_args: &[String],
    rounds: u32,
    done: &BTreeSet<u64>,
    launcher: &mut dyn ProbedLaunch,
    store: &mut StoreWriter,
    interrupt: Option<&Interrupt>,
    c2c: &C2cSupport,
    each: &mut dyn FnMut(&ProbeRecord),
) -> Result<ProfileSummary, StoreError> {
    let mut summary = ProfileSummary::default();
    for PlannedProfile {
        seq,
        round,
        cell: index,
        pretouch,
    } in profile::planned(plan, rounds)
    {
        if done.contains(&seq) {
            continue;
        }
        let cell = &plan.cells[index];
        if let Some(signal) = interrupt.and_then(Interrupt::signal) {
            summary.interrupted = Some(signal);
            return Ok(summary);
        }
        let p = launcher.launch_probed(
            &cell.jdk.java,
            &cell.jvm_args(matrix_args, pretouch),
            &launch_options(cell),
        );
        if p.outcome.interrupted {
            summary.interrupted = Some(
                interrupt
                    .and_then(Interrupt::signal)
                    .unwrap_or(libc::SIGINT),
            );
            return Ok(summary);
        }
        let main = p.outcome.measured.stamps.main;
        let failure = p.outcome.measured.failure.clone().or(p.problem.clone());
        let time_to_main_ns = p.outcome.measured.time_to_main();
        let record = ProbeRecord {
            seq,
            round,
            cell: cell_key(cell),
            pretouch,
            command: p.outcome.measured.command,
            probe_command: p.probe_command,
            started_at: p.outcome.measured.started_at,
            time_to_main_ns,
            main_faults: main.map(|m| m.minflt + m.majflt),
            failure,
            faults: p.reading.as_ref().map(|r| r.faults.clone()),
            contention: p.reading.map(|r| r.contention),
            c2c: c2c.clone(),
        };
        store.append(&Record::Probe(Box::new(record.clone())))?;
        summary.launches += 1;
        summary.failed += u64::from(!record.ok());
        each(&record);
    }
    Ok(summary)
}

/// The seqs of the probed launches the file already holds. Every stored probe record
/// must be the planned one of its seq (round, cell, pretouch): else the file does not
/// match its own matrix and `--probe-rounds`, and is not resumed.
pub fn done_probes(
    plan: &Plan,
    rounds: u32,
    file: &crate::store::ResultFile,
) -> Result<BTreeSet<u64>, String> {
    let planned = profile::planned(plan, rounds);
    let mut done = BTreeSet::new();
    for probe in crate::store::probe::read_probes(std::slice::from_ref(file)) {
        let r = &probe.record;
        let Some(p) = planned.get(r.seq as usize) else {
            return Err(format!(
                "probed launch {}: the run plans only {} probed launches",
                r.seq,
                planned.len()
            ));
        };
        if (p.round, &cell_key(&plan.cells[p.cell]), p.pretouch) != (r.round, &r.cell, r.pretouch)
            || !done.insert(r.seq)
        {
            return Err(format!(
                "probed launch {}: recorded as round {} of another cell or twice; the file does \
                 not match its own matrix and --probe-rounds, so it is not resumed",
                r.seq, r.round
            ));
        }
    }
    Ok(done)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::launch::probe::{Contention, FaultLatency, LatencyBucket, ProbeReading};
    use crate::launch::{LaunchOptions, LaunchOutcome};
    use crate::store::probe::read_probes;
    use std::path::Path;

    /// Answers every launch with a reading: ten faults without pretouch, a hundred with.
    struct Fake(Vec<bool>);

    impl ProbedLaunch for Fake {
        fn launch_probed(
            &mut self,
            _java: &Path,
            jvm_args: &[String],
            _options: &LaunchOptions,
        ) -> ProbedOutcome {
            let on = jvm_args.iter().any(|a| a == "-XX:+AlwaysPreTouch");
            self.0.push(on);
            let count = if on { 100 } else { 10 };
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
                    ..Default::default()
                },
                ..LaunchOutcome::default()
            };
            outcome.measured.failure = crate::launch::judge(&outcome);
            ProbedOutcome {
                outcome,
                probe_command: vec!["bpftrace".into()],
                reading: Some(ProbeReading {
                    faults: FaultLatency {
                        count,
                        buckets: vec![LatencyBucket {
                            low_ns: 1024,
                            high_ns: 1152,
                            count,
                        }],
                        ..FaultLatency::default()
                    },
                    contention: Contention::Measured { locks: Vec::new() },
                }),
                problem: None,
            }
        }
    }

    #[test]
    fn probed_rounds_alternate_resume_and_are_stored_as_probe_records() {
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
        let mut seqs = Vec::new();
        let c2c = C2cSupport::Unavailable { why: "vm".into() };
        let summary = execute(
            &plan,
            &[],
            2,
            &BTreeSet::from([0, 1, 2]),
            &mut fake,
            &mut store,
            None,
            &c2c,
            &mut |r| seqs.push((r.seq, r.pretouch)),
        )
        .unwrap();
        assert_eq!((summary.launches, summary.failed), (5, 0));
        // Seq 3 is cell 1 with pretouch in round 0; round 1 starts with pretouch.
        assert_eq!(
            seqs,
            [(3, true), (4, true), (5, false), (6, true), (7, false)]
        );
        assert_eq!(fake.0, [true, true, false, true, false]);
        let written = std::fs::read_to_string(store.path()).unwrap();
        assert!(written.lines().all(|l| l.contains(r#""record":"probe""#)));
        assert!(written.contains(r#""status":"unavailable""#), "{written}");
    }

    #[test]
    fn probe_records_read_back_beside_the_launches_and_count_what_is_missing() {
        let dir = tempfile::tempdir().unwrap();
        let mut file = crate::fixtures::file(
            "k",
            "2026-01-01T00:00:00Z",
            crate::fixtures::host("h"),
            &[crate::fixtures::FakeCell {
                gc: crate::matrix::Gc::G1,
                heap: "1g",
                rounds: &[(40.0, 400.0)],
            }],
        );
        file.header.probe_rounds = Some(1);
        let cell = file.launches[0].cell.clone();
        let path = dir.path().join("r.jsonl");
        let record = ProbeRecord {
            seq: 0,
            round: 0,
            cell,
            pretouch: true,
            command: vec!["java".into()],
            probe_command: vec!["bpftrace".into()],
            started_at: "t".into(),
            time_to_main_ns: Some(crate::units::Nanos(5)),
            main_faults: Some(7),
            failure: None,
            faults: Some(FaultLatency::default()),
            contention: Some(Contention::Unsupported {
                why: crate::launch::probe::LocksUnsupported::NoTracepoints,
            }),
            c2c: C2cSupport::Unavailable { why: "vm".into() },
        };
        let mut lines = vec![serde_json::to_string(&Record::Run(file.header.clone())).unwrap()];
        for launch in &file.launches {
            lines.push(serde_json::to_string(&Record::Launch(launch.clone())).unwrap());
        }
        lines.push(serde_json::to_string(&Record::Probe(Box::new(record.clone()))).unwrap());
        let text = lines.join("\n") + "\n";
        std::fs::write(&path, text).unwrap();
        let results = crate::store::read_results(&[path]).unwrap();
        assert!(results.warnings.is_empty(), "{:?}", results.warnings);
        assert_eq!(results.files[0].launches.len(), 2);
        let probes = read_probes(&results.files);
        assert_eq!(probes.len(), 1);
        assert_eq!(
            (probes[0].label.as_str(), &probes[0].record),
            ("k", &record)
        );
        // One round of one cell plans two probed launches; one is here.
        assert_eq!(crate::store::probe::missing_probes(&results.files[0]), 1);
        // Resumed: seq 0 of the plan is the cell without pretouch, not this record.
        let matrix = crate::matrix::Matrix::parse(
            "m",
            "name: t\njdks: [17]\ngcs: [g1]\nheaps: [1g]\nrepetitions: 1\n",
        )
        .unwrap();
        let mut jdk = crate::fixtures::fake_jdk("17");
        jdk.version = record.cell.jdk.clone();
        let plan = Plan::new(&matrix, std::slice::from_ref(&jdk));
        let e = done_probes(&plan, 1, &results.files[0]).unwrap_err();
        assert!(e.contains("probed launch 0: recorded as round 0"), "{e}");
        let e = done_probes(&plan, 0, &results.files[0]).unwrap_err();
        assert!(e.contains("plans only 0"), "{e}");
    }
}
