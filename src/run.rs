//! The scheduler: runs a plan's launches one after the other (never overlapping: each
//! starts after the previous JVM was reaped and its heap freed), stores each as soon as
//! it ends, and emits events for the progress display. It never prints.

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
    let mut summary = RunSummary {
        launches: 0,
        failed: 0,
    };
    for planned in &plan.launches {
        let cell = &plan.cells[planned.cell];
        observer.event(Event::LaunchStarting {
            launch: planned,
            cell,
        });
        let outcome = launcher.launch(
            &cell.jdk.java,
            &cell.jvm_args(matrix_args, planned.pretouch),
        );
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
    }
    store.append(&Record::End(RunEnd {
        finished_at: crate::launch::utc_now_millis(),
        launches: summary.launches,
        failed: summary.failed,
    }))?;
    Ok(summary)
}
