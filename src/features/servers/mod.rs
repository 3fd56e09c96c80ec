//! Servers (`app:` with `ready:`): the time to ready, the first requests sent once the
//! server is ready, the `after_ready` workload and its pay-back, and the server's stop.
//!
//! One file per stage of the pipeline, named after the stage folder it plugs into.

pub mod analyze;
#[cfg(any(test, feature = "test-support"))]
pub mod fixtures;
pub mod launch;
pub mod matrix;
pub mod render;
pub mod report;
pub mod section;
pub mod session;
