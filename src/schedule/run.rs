//! The scheduler: runs a plan's launches one after the other (never overlapping: each
//! starts after the previous JVM was reaped and its heap freed), stores each as soon as
//! it ends, and emits events for the progress display. It never prints.

use std::collections::BTreeSet;

use crate::launch::interrupt::Interrupt;
use crate::launch::{LaunchOptions, Launcher, Measurement};
use crate::matrix::cpuset::CpuSet;
use crate::schedule::give_up::GiveUp;
use crate::schedule::plan::{Cell, Plan, PlannedLaunch};
use crate::store::{CellKey, LaunchRecord, Record, RunEnd, StoreError, StoreWriter};

/// What the scheduler tells its observers.
pub enum Event<'a> {
    LaunchStarting {
        launch: &'a PlannedLaunch,
        cell: &'a Cell,
    },
    LaunchFinished {
        record: &'a LaunchRecord,
        cell: &'a Cell,
    },
}

pub trait Observer {
    fn event(&mut self, event: Event<'_>);
}

/// An observer that ignores everything.
impl Observer for () {
    fn event(&mut self, _: Event<'_>) {}
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunSummary {
    pub launches: u64,
    pub failed: u64,
    /// Why the run stopped before its last launch; `None` when it ran to its end (and
    /// the end record was written).
    pub stopped: Option<Stop>,
}

/// Why a run stopped early. Its file then has no end record, and `--resume` goes on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// A signal (SIGINT, SIGTERM): the JVM under way was killed and not recorded.
    Interrupted(i32),
    /// `--fail-fast`: this launch failed (it is recorded).
    FailFast { seq: u64 },
}

/// How [`execute_with`] runs a plan, beyond [`execute`]'s defaults.
#[derive(Default)]
pub struct Options<'a> {
    /// Checked before each launch: once it holds a signal, the run stops.
    pub interrupt: Option<&'a Interrupt>,
    /// Stop after the first failed launch.
    pub fail_fast: bool,
    /// Launches already in the file (`--resume`), by seq: skipped.
    pub done: BTreeSet<u64>,
    /// Launches already in the file, for the end record's totals.
    pub launches_before: u64,
    /// Of those, the failed ones.
    pub failed_before: u64,
    /// Give a cell up after this many consecutive failed launches of one pretouch
    /// setting (see [`GiveUp`]); 0: never.
    pub give_up_after: u32,
    /// The launches already in the file (`--resume`), so that a cell given up stays so.
    pub earlier: &'a [LaunchRecord],
    /// The run's kernel settings (`settings:`), written by the launchers before each
    /// launch; `None` without that axis.
    pub settings: Option<std::sync::Arc<std::sync::Mutex<crate::launch::settings::Session>>>,
}

pub fn cell_key(cell: &Cell) -> CellKey {
    CellKey {
        jdk: cell.jdk.version.as_str().into(),
        gc: cell.gc,
        heap: cell.heap.text.as_str().into(),
        variant: cell.variant.name.as_str().into(),
        gc_threads: cell.gc_threads.to_string().into(),
        cpus: cell.cpus.to_string().into(),
        app: cell.app.clone(),
        setting: cell.setting.as_ref().map(|s| s.name.clone()),
    }
}

/// What the launcher is told besides the flags: the cell's CPU set.
pub fn launch_options(cell: &Cell) -> LaunchOptions {
    LaunchOptions {
        cpus: match &cell.cpus {
            CpuSet::All => None,
            set => Some(set.cpus(&[])),
        },
        setting: cell.setting.as_ref().map(|s| s.index),
    }
}

/// Makes one planned launch, stores its record and tells the observer. `None` when the
/// launch was interrupted (killed by us on a signal): not a measurement, not stored.
pub fn launch_one(
    plan: &Plan,
    planned: &PlannedLaunch,
    matrix_args: &[String],
    launcher: &mut dyn Launcher,
    store: &mut StoreWriter,
    observer: &mut dyn Observer,
) -> Result<Option<LaunchRecord>, StoreError> {
    let cell = &plan.cells[planned.cell];
    observer.event(Event::LaunchStarting {
        launch: planned,
        cell,
    });
    let outcome = launcher.launch_with(
        &cell.jdk.java,
        &cell.jvm_args(matrix_args, planned.pretouch),
        &launch_options(cell),
    );
    if outcome.interrupted {
        return Ok(None);
    }
    let record = LaunchRecord {
        seq: planned.seq,
        round: planned.round,
        warmup: planned.warmup,
        cell: cell_key(cell),
        jdk_home: cell.jdk.home.clone(),
        heap_bytes: cell.heap.bytes,
        pretouch: planned.pretouch,
        time_to_main_ns: outcome.measured.time_to_main(),
        measured: outcome.measured,
        skipped: false,
    };
    store.append(&Record::Launch(record.clone()))?;
    observer.event(Event::LaunchFinished {
        record: &record,
        cell,
    });
    Ok(Some(record))
}

/// Records a planned launch that is not started because its cell was given up
/// (`reason`), and tells the observer.
pub fn skip_one(
    plan: &Plan,
    planned: &PlannedLaunch,
    reason: &str,
    store: &mut StoreWriter,
    observer: &mut dyn Observer,
) -> Result<LaunchRecord, StoreError> {
    let cell = &plan.cells[planned.cell];
    let record = LaunchRecord {
        seq: planned.seq,
        round: planned.round,
        warmup: planned.warmup,
        cell: cell_key(cell),
        jdk_home: cell.jdk.home.clone(),
        heap_bytes: cell.heap.bytes,
        pretouch: planned.pretouch,
        measured: Measurement {
            started_at: crate::launch::utc_now_millis(),
            failure: Some(reason.to_owned()),
            ..Measurement::default()
        },
        time_to_main_ns: None,
        skipped: true,
    };
    store.append(&Record::Launch(record.clone()))?;
    observer.event(Event::LaunchFinished {
        record: &record,
        cell,
    });
    Ok(record)
}

/// Makes a planned launch, or records it as skipped when `give_up` gave its cell up,
/// and counts it there. `None` when the launch was interrupted.
pub fn launch_or_skip(
    plan: &Plan,
    planned: &PlannedLaunch,
    matrix_args: &[String],
    launcher: &mut dyn Launcher,
    store: &mut StoreWriter,
    observer: &mut dyn Observer,
    give_up: &mut GiveUp,
) -> Result<Option<LaunchRecord>, StoreError> {
    let key = cell_key(&plan.cells[planned.cell]);
    let record = match give_up.reason(&key) {
        Some(reason) => {
            let reason = reason.to_owned();
            skip_one(plan, planned, &reason, store, observer)?
        }
        None => match launch_one(plan, planned, matrix_args, launcher, store, observer)? {
            Some(record) => record,
            None => return Ok(None),
        },
    };
    give_up.count(&record);
    Ok(Some(record))
}

/// Runs every launch of `plan`, appending each record to `store` as it ends, then an
/// end record.
pub fn execute(
    plan: &Plan,
    matrix_args: &[String],
    launcher: &mut dyn Launcher,
    store: &mut StoreWriter,
    observer: &mut dyn Observer,
) -> Result<RunSummary, StoreError> {
    execute_with(
        plan,
        matrix_args,
        launcher,
        store,
        observer,
        &Options::default(),
    )
}

/// [`execute`], skipping the launches in `options.done` and stopping early on a signal
/// or (with `fail_fast`) a failed launch. Returns the counts of this session's launches.
pub fn execute_with(
    plan: &Plan,
    matrix_args: &[String],
    launcher: &mut dyn Launcher,
    store: &mut StoreWriter,
    observer: &mut dyn Observer,
    options: &Options<'_>,
) -> Result<RunSummary, StoreError> {
    let mut summary = RunSummary {
        launches: 0,
        failed: 0,
        stopped: None,
    };
    let signal = || options.interrupt.and_then(Interrupt::signal);
    let mut give_up = GiveUp::new(options.give_up_after);
    for earlier in options.earlier {
        give_up.count(earlier);
    }
    for planned in &plan.launches {
        if options.done.contains(&planned.seq) {
            continue;
        }
        if let Some(signal) = signal() {
            summary.stopped = Some(Stop::Interrupted(signal));
            return Ok(summary);
        }
        let Some(record) = launch_or_skip(
            plan,
            planned,
            matrix_args,
            launcher,
            store,
            observer,
            &mut give_up,
        )?
        else {
            // Killed by us: not a measurement. A resume launches it again.
            summary.stopped = Some(Stop::Interrupted(signal().unwrap_or(libc::SIGINT)));
            return Ok(summary);
        };
        summary.launches += 1;
        summary.failed += u64::from(!record.ok());
        if options.fail_fast && !record.ok() {
            summary.stopped = Some(Stop::FailFast { seq: record.seq });
            return Ok(summary);
        }
    }
    store.append(&Record::End(RunEnd {
        finished_at: crate::launch::utc_now_millis(),
        launches: options.launches_before + summary.launches,
        failed: options.failed_before + summary.failed,
        stops: Vec::new(),
        runner_max_rss: Some(crate::machine::host::own_max_rss()),
    }))?;
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use crate::fixtures::stamp;
    use std::path::Path;

    use super::*;
    use crate::launch::LaunchOutcome;
    use crate::launch::agent::Stamps;
    use crate::matrix::Matrix;
    use crate::store::read_results;
    use crate::units::Nanos;

    /// Launches nothing: every launch reaches main() 30 ns after its spawn, unless told
    /// to fail, or to raise a signal while it "runs".
    struct Mock {
        calls: u64,
        fail_at: Option<u64>,
        interrupt_at: Option<(u64, Interrupt)>,
    }

    impl Launcher for Mock {
        fn launch(&mut self, java: &Path, _: &[String]) -> LaunchOutcome {
            let call = self.calls;
            self.calls += 1;
            let mut outcome = LaunchOutcome {
                measured: crate::launch::Measurement {
                    command: vec![java.display().to_string()],
                    spawn_ns: Nanos(100),
                    reaped_ns: Nanos(200),
                    exit_code: Some(0),
                    stamps: Stamps {
                        mechanism: None,
                        agent_load: stamp(110),
                        vm_init: stamp(120),
                        main: stamp(130),
                    },
                    ..crate::launch::Measurement::default()
                },
                ..LaunchOutcome::default()
            };
            if self.fail_at == Some(call) {
                outcome.measured.exit_code = Some(1);
                outcome.measured.failure = Some("exited with code 1 before main()".into());
            }
            if let Some((at, interrupt)) = &self.interrupt_at
                && *at == call
            {
                interrupt.raise(libc::SIGINT);
                outcome.measured.failure = Some("killed by signal 9".into());
                outcome.interrupted = true;
            }
            outcome
        }
    }

    fn plan() -> Plan {
        let m = Matrix::parse(
            "m",
            "name: x\ngcs: [g1, parallel]\nheaps: [64m]\nrepetitions: 2\nwarmup: 1\n",
        )
        .unwrap();
        Plan::new(&m, &[crate::fixtures::fake_jdk("17")])
    }

    fn seqs(store: &StoreWriter) -> (Vec<u64>, bool) {
        let results = read_results(&[store.path().to_owned()]).unwrap();
        let file = results.files.first();
        (
            file.map(|f| f.launches.iter().map(|l| l.seq).collect())
                .unwrap_or_default(),
            file.is_some_and(|f| f.end.is_some()),
        )
    }

    fn store(dir: &Path) -> StoreWriter {
        let mut store = StoreWriter::create(dir, "x", "t").unwrap();
        // A header, so that the file reads back.
        let header = r#"{"record":"run","format":1,"tool_version":"0","name":"x","label":"k","matrix_origin":"m","matrix":"","host":{"kernel_release":"6","kernel_version":"v","hostname":"h","cpu_model":"c","cpus":1},"started_at":"t","jdks":[],"agent":"/a","planned_launches":12}"#;
        store
            .append(&serde_json::from_str(header).unwrap())
            .unwrap();
        store
    }

    #[test]
    fn an_interrupt_stops_before_the_next_launch_and_drops_the_killed_one() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = store(dir.path());
        let interrupt = Interrupt::new();
        let mut mock = Mock {
            calls: 0,
            fail_at: None,
            interrupt_at: Some((5, interrupt.clone())),
        };
        let options = Options {
            interrupt: Some(&interrupt),
            ..Options::default()
        };
        let summary = execute_with(&plan(), &[], &mut mock, &mut store, &mut (), &options).unwrap();
        assert_eq!(summary.stopped, Some(Stop::Interrupted(libc::SIGINT)));
        assert_eq!(summary.launches, 5);
        assert_eq!(mock.calls, 6, "no launch after the signal");
        assert_eq!(seqs(&store), (vec![0, 1, 2, 3, 4], false));

        // Resumed: exactly the missing launches, in plan order, then the end record.
        let done: BTreeSet<u64> = seqs(&store).0.into_iter().collect();
        let mut mock = Mock {
            calls: 0,
            fail_at: None,
            interrupt_at: None,
        };
        let options = Options {
            done,
            launches_before: 5,
            ..Options::default()
        };
        let summary = execute_with(&plan(), &[], &mut mock, &mut store, &mut (), &options).unwrap();
        assert_eq!((summary.launches, summary.stopped), (7, None));
        assert_eq!(seqs(&store), ((0..12).collect(), true));
        let results = read_results(&[store.path().to_owned()]).unwrap();
        assert_eq!(results.files[0].end.as_ref().unwrap().launches, 12);
    }

    #[test]
    fn fail_fast_stops_after_the_failed_launch_is_recorded() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = store(dir.path());
        let mut mock = Mock {
            calls: 0,
            fail_at: Some(2),
            interrupt_at: None,
        };
        let options = Options {
            fail_fast: true,
            ..Options::default()
        };
        let summary = execute_with(&plan(), &[], &mut mock, &mut store, &mut (), &options).unwrap();
        assert_eq!(summary.stopped, Some(Stop::FailFast { seq: 2 }));
        assert_eq!((summary.launches, summary.failed), (3, 1));
        assert_eq!(seqs(&store), (vec![0, 1, 2], false));
        // Without it, the run goes on with the other cells.
        let dir = tempfile::tempdir().unwrap();
        let mut store = super::tests::store(dir.path());
        mock.calls = 0;
        let summary = execute(&plan(), &[], &mut mock, &mut store, &mut ()).unwrap();
        assert_eq!(
            (summary.launches, summary.failed, summary.stopped),
            (12, 1, None)
        );
    }
}
