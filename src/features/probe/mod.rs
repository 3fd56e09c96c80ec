//! The fault-latency probe (`pretouch run --probe`): extra rounds under bpftrace that time
//! every page fault of a launch, their record, their analysis and their report sections.
//!
//! One file per stage of the pipeline, named after the stage folder it plugs into.

pub mod analyze;
#[cfg(any(test, feature = "test-support"))]
pub mod fixtures;
pub mod launch;
pub mod matrix;
pub mod options;
pub mod plot;
pub mod record;
pub mod render;
pub mod report;
pub mod report_options;
pub mod schedule;
pub mod section;
pub mod session;
