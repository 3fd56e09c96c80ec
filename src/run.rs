//! The scheduler: runs a plan's launches one after the other (never overlapping: each
//! starts after the previous JVM was reaped and its heap freed), stores each as soon as
//! it ends, and emits events for the progress display. It never prints.

use std::collections::BTreeSet;

use crate::interrupt::Interrupt;
use crate::launch::Launcher;
use crate::plan::{Cell, Plan, PlannedLaunch};
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
    /// Launches and failures already in the file, for the end record's totals.
    pub before: (u64, u64),
}

pub fn cell_key(cell: &Cell) -> CellKey {
    CellKey {
        jdk: cell.jdk.version.clone(),
        gc: cell.gc,
        heap: cell.heap.text.clone(),
        variant: cell.variant.name.clone(),
    }
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
    for planned in &plan.launches {
        if options.done.contains(&planned.seq) {
            continue;
        }
        if let Some(signal) = signal() {
            summary.stopped = Some(Stop::Interrupted(signal));
            return Ok(summary);
        }
        let cell = &plan.cells[planned.cell];
        observer.event(Event::LaunchStarting {
            launch: planned,
            cell,
        });
        let outcome = launcher.launch(
            &cell.jdk.java,
            &cell.jvm_args(matrix_args, planned.pretouch),
        );
        if outcome.interrupted {
            // Killed by us: not a measurement. A resume launches it again.
            summary.stopped = Some(Stop::Interrupted(signal().unwrap_or(libc::SIGINT)));
            return Ok(summary);
        }
        let record = LaunchRecord {
            seq: planned.seq,
            round: planned.round,
            warmup: planned.warmup,
            cell: cell_key(cell),
            jdk_home: cell.jdk.home.clone(),
            heap_bytes: cell.heap.bytes,
            pretouch: planned.pretouch,
            time_to_main_ns: outcome.time_to_main(),
            command: outcome.command,
            started_at: outcome.started_at,
            spawn_ns: outcome.spawn_ns,
            reaped_ns: outcome.reaped_ns,
            exit_code: outcome.exit_code,
            signal: outcome.signal,
            stamps: outcome.stamps,
            failure: outcome.failure,
            output_tail: outcome.output_tail,
        };
        store.append(&Record::Launch(record.clone()))?;
        summary.launches += 1;
        summary.failed += u64::from(!record.ok());
        observer.event(Event::LaunchFinished {
            record: &record,
            cell,
        });
        if options.fail_fast && !record.ok() {
            summary.stopped = Some(Stop::FailFast { seq: record.seq });
            return Ok(summary);
        }
    }
    store.append(&Record::End(RunEnd {
        finished_at: crate::launch::utc_now_millis(),
        launches: options.before.0 + summary.launches,
        failed: options.before.1 + summary.failed,
    }))?;
    Ok(summary)
}
