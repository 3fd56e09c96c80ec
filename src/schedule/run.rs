//! The scheduler: runs a plan's launches one after the other (never overlapping: each
//! starts after the previous JVM was reaped and its heap freed), stores each as soon as
//! it ends, and emits events for the progress display. It never prints.

use std::collections::BTreeSet;

use crate::launch::interrupt::Interrupt;
use crate::launch::{LaunchOptions, Launcher, Measurement};
use crate::matrix::cpuset::CpuSet;
use crate::schedule::give_up::GiveUp;
use crate::schedule::plan::{Cell, Plan, PlannedLaunch};
use crate::store::{CellKey, CellStop, LaunchRecord, Record, RunEnd, StoreError, StoreWriter};

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

/// What the launch loop is given beyond the plan (made from the session's
/// [`crate::schedule::prepared::Options`] and what a resumed file holds): how
/// [`execute_with`] runs a plan, beyond [`execute`]'s defaults.
#[derive(Default)]
pub struct Context<'a> {
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
        features: crate::features::key::KeyParts::of(&cell.features),
    }
}

/// What the launcher is told besides the flags: the cell's CPU set, and the values its
/// features' hooks read.
pub fn launch_options(cell: &Cell) -> LaunchOptions {
    LaunchOptions {
        cpus: match &cell.cpus {
            CpuSet::All => None,
            set => Some(set.cpus(&[])),
        },
        // The cell's values of the features' axes, each for its hook to find by its type.
        cell: crate::launch::CellValues::of(cell.features.values()),
    }
}

/// What one kind of rounds brings to the one launch loop ([`drive`]): which launch comes
/// next, whether the file already holds it, how it is made and which record it stores.
/// The timed rounds ([`Timed`]), the adaptive ones (`schedule::adaptive`) and the extra
/// rounds under an instrument (`schedule::extra`) are each one of these; the loop, its
/// interruption, its counts and `--fail-fast` are shared.
pub trait Strategy {
    /// What the strategy says to launch.
    type Planned;
    /// What a launch stores.
    type Record;
    type Error: From<StoreError>;

    /// The next launch, or `None` when the rounds are over (the adaptive rounds decide
    /// it here, from the records of the launches before).
    fn next(&mut self) -> Option<Self::Planned>;

    /// Whether the file already holds `planned` (`--resume`): then it is not launched.
    fn already_done(&mut self, planned: &Self::Planned) -> Result<bool, Self::Error>;

    /// Makes `planned` and stores its record. `None` when the launch was interrupted
    /// (killed by us on a signal): not a measurement, not stored.
    fn launch(&mut self, planned: &Self::Planned) -> Result<Option<Self::Record>, Self::Error>;

    /// The record's seq, and whether it counts as a success.
    fn outcome(record: &Self::Record) -> (u64, bool);
}

/// The one launch loop: makes each launch `strategy` plans but those the file holds,
/// stopping before the next on a signal, at once when a launch was interrupted and, with
/// `fail_fast`, after the first failed launch (recorded). Returns this session's counts;
/// the caller writes what follows (the end record).
pub fn drive<S: Strategy>(
    strategy: &mut S,
    interrupt: Option<&Interrupt>,
    fail_fast: bool,
) -> Result<RunSummary, S::Error> {
    let mut summary = RunSummary {
        launches: 0,
        failed: 0,
        stopped: None,
    };
    let signal = || interrupt.and_then(Interrupt::signal);
    while let Some(planned) = strategy.next() {
        if strategy.already_done(&planned)? {
            continue;
        }
        if let Some(signal) = signal() {
            summary.stopped = Some(Stop::Interrupted(signal));
            return Ok(summary);
        }
        let Some(record) = strategy.launch(&planned)? else {
            // Killed by us: not a measurement. A resume launches it again.
            summary.stopped = Some(Stop::Interrupted(signal().unwrap_or(libc::SIGINT)));
            return Ok(summary);
        };
        let (seq, ok) = S::outcome(&record);
        summary.launches += 1;
        summary.failed += u64::from(!ok);
        if fail_fast && !ok {
            summary.stopped = Some(Stop::FailFast { seq });
            return Ok(summary);
        }
    }
    Ok(summary)
}

/// The timed rounds of a plan, in plan order: each launch made (or recorded as skipped
/// when its cell was given up) and stored as a [`LaunchRecord`], the observer told.
pub struct Timed<'a> {
    plan: &'a Plan,
    matrix_args: &'a [String],
    launcher: &'a mut dyn Launcher,
    store: &'a mut StoreWriter,
    observer: &'a mut dyn Observer,
    /// The cells given up, counted from the launches before too.
    pub give_up: GiveUp,
    done: &'a BTreeSet<u64>,
    next: usize,
}

impl<'a> Timed<'a> {
    /// The timed rounds of `plan` under `options` (its `done` launches not made again,
    /// its `earlier` ones counted toward giving a cell up).
    pub fn new(
        plan: &'a Plan,
        matrix_args: &'a [String],
        launcher: &'a mut dyn Launcher,
        store: &'a mut StoreWriter,
        observer: &'a mut dyn Observer,
        options: &'a Context<'a>,
    ) -> Timed<'a> {
        let mut give_up = GiveUp::new(options.give_up_after);
        for earlier in options.earlier {
            give_up.count(earlier);
        }
        Timed {
            plan,
            matrix_args,
            launcher,
            store,
            observer,
            give_up,
            done: &options.done,
            next: 0,
        }
    }

    /// The plan these rounds launch.
    pub fn plan(&self) -> &'a Plan {
        self.plan
    }
}

impl Strategy for Timed<'_> {
    type Planned = PlannedLaunch;
    type Record = LaunchRecord;
    type Error = StoreError;

    fn next(&mut self) -> Option<PlannedLaunch> {
        let planned = self.plan.launches.get(self.next).copied()?;
        self.next += 1;
        Some(planned)
    }

    fn already_done(&mut self, planned: &PlannedLaunch) -> Result<bool, StoreError> {
        Ok(self.done.contains(&planned.seq))
    }

    /// Makes a planned launch, or records it as skipped when its cell was given up, and
    /// counts it toward giving its cell up.
    fn launch(&mut self, planned: &PlannedLaunch) -> Result<Option<LaunchRecord>, StoreError> {
        let cell = &self.plan.cells[planned.cell];
        let (measured, skipped) = match self.give_up.reason(&cell_key(cell)) {
            Some(reason) => (
                Measurement {
                    started_at: crate::launch::utc_now_millis(),
                    failure: Some(reason.to_owned()),
                    ..Measurement::default()
                },
                true,
            ),
            None => {
                self.observer.event(Event::LaunchStarting {
                    launch: planned,
                    cell,
                });
                let outcome = self.launcher.launch_with(
                    &cell.jdk.java,
                    &cell.jvm_args(self.matrix_args, planned.pretouch),
                    &launch_options(cell),
                );
                if outcome.interrupted {
                    return Ok(None);
                }
                (outcome.measured, false)
            }
        };
        let record = launch_record(planned, cell, measured, skipped);
        self.store.append(&Record::Launch(record.clone()))?;
        self.observer.event(Event::LaunchFinished {
            record: &record,
            cell,
        });
        self.give_up.count(&record);
        Ok(Some(record))
    }

    fn outcome(record: &LaunchRecord) -> (u64, bool) {
        (record.seq, record.ok())
    }
}

/// The record of `planned`, launched (`measured`) or skipped (`measured` then holds only
/// the time and the reason): the one place a [`LaunchRecord`] is made.
fn launch_record(
    planned: &PlannedLaunch,
    cell: &Cell,
    measured: Measurement,
    skipped: bool,
) -> LaunchRecord {
    LaunchRecord {
        seq: planned.seq,
        round: planned.round,
        warmup: planned.warmup,
        cell: cell_key(cell),
        jdk_home: cell.jdk.home.clone(),
        heap_bytes: cell.heap.bytes,
        pretouch: planned.pretouch,
        time_to_main_ns: if skipped {
            None
        } else {
            measured.time_to_main()
        },
        measured,
        skipped,
    }
}

/// The end record of a run whose timed launches all ran: this session's counts added
/// to those before it (`options`), and where adaptive cells stopped.
pub fn end_record(options: &Context<'_>, summary: &RunSummary, stops: Vec<CellStop>) -> Record {
    Record::End(RunEnd {
        finished_at: crate::launch::utc_now_millis(),
        launches: options.launches_before + summary.launches,
        failed: options.failed_before + summary.failed,
        stops,
        runner_max_rss: Some(crate::machine::host::own_max_rss()),
    })
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
        &Context::default(),
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
    options: &Context<'_>,
) -> Result<RunSummary, StoreError> {
    let mut timed = Timed::new(plan, matrix_args, launcher, store, observer, options);
    let summary = drive(&mut timed, options.interrupt, options.fail_fast)?;
    if summary.stopped.is_none() {
        store.append(&end_record(options, &summary, Vec::new()))?;
    }
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
        let options = Context {
            interrupt: Some(&interrupt),
            ..Context::default()
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
        let options = Context {
            done,
            launches_before: 5,
            ..Context::default()
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
        let options = Context {
            fail_fast: true,
            ..Context::default()
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
