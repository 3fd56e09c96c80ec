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
    use crate::schedule::extra;
    use crate::schedule::plan::Plan;
    use crate::store::Record;
    use crate::store::StoreWriter;
    use crate::store::extra::ExtraRecord;
    use std::collections::BTreeSet;

    /// Answers every launch with one sample, in or out of pretouch.
    struct Fake(Vec<bool>);

    impl Instrumented for Fake {
        type Outcome = ProfiledOutcome;

        fn launch_planned(
            &mut self,
            _at: &Planned,
            _cell: &Cell,
            jvm_args: &[String],
        ) -> ProfiledOutcome {
            let on = jvm_args.iter().any(|a| a == "-XX:+AlwaysPreTouch");
            self.0.push(on);
            let outcome = crate::fixtures::reached_main();
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
    fn profiled_rounds_are_stored_as_profile_records_with_their_samples() {
        let matrix = crate::matrix::Matrix::parse(
            "m",
            "name: t\ngcs: [g1, parallel]\nheaps: [64m]\nrepetitions: 1\n",
        )
        .unwrap();
        let jdk = crate::fixtures::fake_jdk("17");
        let plan = Plan::new(&matrix, std::slice::from_ref(&jdk));
        let dir = tempfile::tempdir().unwrap();
        let mut store = StoreWriter::create(dir.path(), "t", "x").unwrap();
        let mut kind = Profiled(Fake(Vec::new()));
        let mut seen = Vec::new();
        let none = BTreeSet::new();
        let summary = extra::execute(
            &plan,
            &[],
            2,
            &none,
            &mut kind,
            &mut store,
            None,
            &mut |r| seen.push((r.at.seq, r.at.pretouch, r.samples)),
        )
        .unwrap();
        assert_eq!((summary.launches, summary.failed), (8, 0));
        // Round 0 off/on, round 1 on/off, per cell; one sample with pretouch.
        assert_eq!(
            kind.0.0,
            [false, true, false, true, true, false, true, false]
        );
        assert!(
            seen.iter()
                .enumerate()
                .all(|(i, &(seq, on, samples))| seq == i as u64 && samples == u64::from(on))
        );
        let written = std::fs::read_to_string(store.path()).unwrap();
        assert_eq!(written.lines().count(), 8);
        assert!(written.lines().all(|l| l.contains(r#""record":"profile""#)));
        assert!(written.contains(r#""event":"cpu-clock""#), "{written}");
    }

    #[test]
    fn profile_records_read_back_beside_the_launches() {
        let dir = tempfile::tempdir().unwrap();
        let file =
            crate::fixtures::file("k", "2026-01-01T00:00:00Z", crate::fixtures::host("h"), &[]);
        let path = dir.path().join("r.jsonl");
        let record = ProfileRecord {
            at: crate::store::PlannedAs {
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
                    features: Default::default(),
                },
                pretouch: true,
            },
            launched: crate::store::Launched {
                command: vec!["perf".into()],
                started_at: "t".into(),
                time_to_main_ns: Some(crate::units::Nanos(5)),
                failure: None,
            },
            wall_ns: crate::units::Nanos(9),
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
            serde_json::to_string(&record.as_record()).unwrap()
        );
        std::fs::write(&path, text).unwrap();
        let results = crate::store::read_results(&[path]).unwrap();
        assert!(results.warnings.is_empty(), "{:?}", results.warnings);
        assert_eq!(results.files[0].launches.len(), 0);
        let profiles = crate::store::extra::read_records::<ProfileRecord>(&results.files);
        assert_eq!(profiles.len(), 1);
        assert_eq!(
            (profiles[0].label.as_str(), &profiles[0].record),
            ("k", &record)
        );
    }
}
