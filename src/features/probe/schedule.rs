//! Probed rounds (`pretouch run --probe`), one kind of extra round
//! ([`crate::schedule::extra`]), after the timed launches and the profiled ones: every
//! cell launched once without and once with pretouch while bpftrace times its faults
//! and lock waits, stored as a probe record.

use crate::features::probe::launch::{C2cSupport, ProbeLauncher, ProbedOutcome};
use crate::features::probe::record::ProbeRecord;
use crate::schedule::extra::{Instrumented, Planned, Rounds};
use crate::schedule::plan::Cell;
use crate::schedule::run::launch_options;

/// Probed rounds per cell unless told otherwise.
pub const DEFAULT_ROUNDS: u32 = 3;

impl Instrumented for ProbeLauncher {
    type Outcome = ProbedOutcome;

    fn launch_planned(&mut self, _at: &Planned, cell: &Cell, jvm_args: &[String]) -> ProbedOutcome {
        self.launch(&cell.jdk.java, jvm_args, &launch_options(cell))
    }
}

/// The probed rounds, for [`extra::execute`]: each launch under bpftrace, stored as a
/// [`ProbeRecord`] that also holds `c2c`, whether `perf c2c` can run here.
pub struct Probed<L> {
    pub launcher: L,
    pub c2c: C2cSupport,
}

impl<L: Instrumented<Outcome = ProbedOutcome>> Rounds for Probed<L> {
    type Record = ProbeRecord;

    fn launch(&mut self, at: &Planned, cell: &Cell, jvm_args: &[String]) -> Option<ProbeRecord> {
        let p = self.launcher.launch_planned(at, cell, jvm_args);
        if p.outcome.interrupted {
            return None;
        }
        let measured = p.outcome.measured;
        let main_faults = measured.stamps.main.map(|m| m.minflt + m.majflt);
        let (at, launched) = at.stored(cell, measured, p.problem);
        Some(ProbeRecord {
            at,
            launched,
            probe_command: p.probe_command,
            main_faults,
            faults: p.reading.as_ref().map(|r| r.faults.clone()),
            contention: p.reading.map(|r| r.contention),
            c2c: self.c2c.clone(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::probe::launch::{Contention, FaultLatency, LatencyBucket, ProbeReading};
    use crate::fixtures::{FakeInstrumented, run_rounds};
    use crate::schedule::extra;
    use crate::schedule::plan::Plan;
    use std::collections::BTreeSet;

    /// A reading of ten faults without pretouch and a hundred with.
    fn read(pretouch: bool) -> ProbedOutcome {
        let count = if pretouch { 100 } else { 10 };
        ProbedOutcome {
            outcome: crate::fixtures::reached_main(),
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

    #[test]
    fn probed_rounds_are_stored_as_probe_records_with_their_reading_and_c2c() {
        let mut kind = Probed {
            launcher: FakeInstrumented::new(read),
            c2c: C2cSupport::Unavailable { why: "vm".into() },
        };
        let run = run_rounds(&mut kind, 2, &BTreeSet::from([0, 1, 2]), |r| {
            (r.at.seq, r.at.pretouch, r.faults.as_ref().map(|f| f.count))
        });
        assert_eq!((run.summary.launches, run.summary.failed), (5, 0));
        // Seq 3 is cell 1 with pretouch in round 0; round 1 starts with pretouch.
        assert_eq!(
            run.seen,
            [
                (3, true, Some(100)),
                (4, true, Some(100)),
                (5, false, Some(10)),
                (6, true, Some(100)),
                (7, false, Some(10))
            ]
        );
        assert_eq!(kind.launcher.sides, [true, true, false, true, false]);
        assert!(
            run.written.contains(r#""status":"unavailable""#),
            "{}",
            run.written
        );
    }

    #[test]
    fn probe_records_read_back_beside_the_launches_and_count_what_is_missing() {
        let dir = tempfile::tempdir().unwrap();
        let mut file = crate::fixtures::one_cell_file("k");
        file.header.extra_rounds.probe_rounds = Some(1);
        let (at, launched) = crate::fixtures::extra_launch(file.launches[0].cell.clone(), "java");
        let record = ProbeRecord {
            at,
            launched,
            probe_command: vec!["bpftrace".into()],
            main_faults: Some(7),
            faults: Some(FaultLatency::default()),
            contention: Some(Contention::Unsupported {
                why: crate::features::probe::launch::LocksUnsupported::NoTracepoints,
            }),
            c2c: C2cSupport::Unavailable { why: "vm".into() },
        };
        let read = crate::fixtures::read_back_extra(dir.path(), &file, &record);
        assert_eq!(read.launches.len(), 2);
        // One round of one cell plans two probed launches; one is here.
        assert_eq!(
            crate::store::extra::missing_records::<ProbeRecord>(&read),
            1
        );
        // Resumed: seq 0 of the plan is the cell without pretouch, not this record.
        let matrix = crate::matrix::Matrix::parse(
            "m",
            "name: t\njdks: [17]\ngcs: [g1]\nheaps: [1g]\nrepetitions: 1\n",
        )
        .unwrap();
        let mut jdk = crate::fixtures::fake_jdk("17");
        jdk.version = record.at.cell.jdk.to_string();
        let plan = Plan::new(&matrix, std::slice::from_ref(&jdk));
        let e = extra::done_in::<ProbeRecord>(&plan, 1, &read)
            .unwrap_err()
            .to_string();
        assert!(e.contains("probed launch 0: recorded as round 0"), "{e}");
        let e = extra::done_in::<ProbeRecord>(&plan, 0, &read)
            .unwrap_err()
            .to_string();
        assert!(e.contains("plans only 0"), "{e}");
    }
}
