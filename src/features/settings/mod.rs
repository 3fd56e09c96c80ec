//! Kernel settings as a matrix axis (`settings:`): each cell's sysfs and sysctl values,
//! set before its launches and restored after, and how the report names them.
//!
//! One file per stage of the pipeline, named after the stage folder it plugs into.

pub mod analyze;
pub mod cli;
pub mod launch;
pub mod matrix;
pub mod method;
pub mod render;
pub mod report;
pub mod report_options;
pub mod section;
pub mod session;
