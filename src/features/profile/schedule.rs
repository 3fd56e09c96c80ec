//! Profiled rounds (`pretouch run --profile`), one kind of extra round
//! ([`crate::schedule::extra`]): every cell launched once without and once with pretouch
//! under `perf record`, stored as a profile record with its samples. And what a resumed
//! run owes of them.

use crate::features::profile::launch::{self as profile, PerfLauncher, ProfiledOutcome};
use crate::features::profile::record::ProfileRecord;
use crate::schedule::extra::{Instrumented, Planned, Rounds};
use crate::schedule::plan::Cell;
use crate::schedule::run::launch_options;

/// Profiled rounds per cell unless told otherwise. Five, because the report names a
/// mover only with 4 profiled launches with pretouch a label or more, and its test
/// gets sharper with 5 (docs/explaining.md).
pub const DEFAULT_ROUNDS: u32 = 5;

impl Instrumented for PerfLauncher {
    type Outcome = ProfiledOutcome;

    /// Names the launch's perf.data after its cell, round and pretouch side.
    fn launch_planned(
        &mut self,
        at: &Planned,
        cell: &Cell,
        jvm_args: &[String],
    ) -> ProfiledOutcome {
        let name = format!(
            "cell{}-round{}-{}",
            at.cell,
            at.round,
            if at.pretouch { "on" } else { "off" }
        );
        self.launch(&cell.jdk.java, jvm_args, &launch_options(cell), &name)
    }
}

/// The profiled rounds, for [`crate::schedule::extra::execute`]: each launch under perf,
/// stored as a [`ProfileRecord`] with its folded stacks.
pub struct Profiled<L>(pub L);

impl<L: Instrumented<Outcome = ProfiledOutcome>> Rounds for Profiled<L> {
    type Record = ProfileRecord;

    fn launch(&mut self, at: &Planned, cell: &Cell, jvm_args: &[String]) -> Option<ProfileRecord> {
        let p = self.0.launch_planned(at, cell, jvm_args);
        if p.outcome.interrupted {
            return None;
        }
        let measured = p.outcome.measured;
        let wall_ns = measured
            .reaped_ns
            .since(measured.spawn_ns)
            .unwrap_or_default();
        let (at, launched) = at.stored(cell, measured, p.problem);
        Some(ProfileRecord {
            at,
            launched,
            wall_ns,
            event: profile::EVENT.to_owned(),
            frequency_hz: profile::FREQUENCY_HZ,
            call_graph: profile::CALL_GRAPH.to_owned(),
            samples: p.samples,
            folded: p.folded,
            perf_data: p.perf_data,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::{FakeInstrumented, run_rounds};
    use std::collections::BTreeSet;

    /// One sample in pretouch frames with pretouch, none without.
    fn sampled(pretouch: bool) -> ProfiledOutcome {
        ProfiledOutcome {
            outcome: crate::fixtures::reached_main(),
            folded: vec![format!(
                "GC_Thread;os::pretouch_memory;x_[k] {}",
                u8::from(pretouch)
            )],
            samples: u64::from(pretouch),
            ..ProfiledOutcome::default()
        }
    }

    #[test]
    fn profiled_rounds_are_stored_as_profile_records_with_their_samples() {
        let mut kind = Profiled(FakeInstrumented::new(sampled));
        let run = run_rounds(&mut kind, 2, &BTreeSet::new(), |r| {
            (r.at.seq, r.at.pretouch, r.samples)
        });
        assert_eq!((run.summary.launches, run.summary.failed), (8, 0));
        // Round 0 off/on, round 1 on/off, per cell; one sample with pretouch.
        assert_eq!(
            kind.0.sides,
            [false, true, false, true, true, false, true, false]
        );
        assert!(
            run.seen
                .iter()
                .enumerate()
                .all(|(i, &(seq, on, samples))| seq == i as u64 && samples == u64::from(on))
        );
        assert!(
            run.written.contains(r#""event":"cpu-clock""#),
            "{}",
            run.written
        );
    }

    #[test]
    fn profile_records_read_back_beside_the_launches() {
        let dir = tempfile::tempdir().unwrap();
        let file =
            crate::fixtures::file("k", "2026-01-01T00:00:00Z", crate::fixtures::host("h"), &[]);
        let cell = crate::store::CellKey {
            jdk: "17".into(),
            gc: crate::matrix::Gc::G1,
            heap: "64m".into(),
            variant: "default".into(),
            gc_threads: "auto".into(),
            cpus: "all".into(),
            app: None,
            features: Default::default(),
        };
        let (at, launched) = crate::fixtures::extra_launch(cell, "perf");
        let record = ProfileRecord {
            at,
            launched,
            wall_ns: crate::units::Nanos(9),
            event: "cpu-clock".into(),
            frequency_hz: 999,
            call_graph: "fp".into(),
            samples: 3,
            folded: vec!["a;b 3".into()],
            perf_data: None,
        };
        let read = crate::fixtures::read_back_extra(dir.path(), &file, &record);
        assert_eq!(read.launches.len(), 0);
    }
}
