//! The kernel profile (`pretouch run --profile`): extra rounds under `perf record`, the
//! folded stacks they keep, the categories and movers, and the flame graphs.
//!
//! One file per stage of the pipeline, named after the stage folder it plugs into.

pub mod analyze;
pub mod flamegraph;
pub mod launch;
pub mod matrix;
pub mod method;
pub mod options;
pub mod record;
pub mod render;
pub mod report;
pub mod report_options;
pub mod schedule;
pub mod section;
pub mod session;
