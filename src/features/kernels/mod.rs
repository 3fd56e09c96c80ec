//! Kernels in VMs (`pretouch run --kernel`, the matrix's `kernels:`): the host's checks,
//! one virtme-ng guest per kernel, the session file, and the report's kernel notes.
//!
//! One file per stage of the pipeline, named after the stage folder it plugs into.

pub mod analyze;
pub mod elsewhere;
pub mod launch;
pub mod machine;
pub mod matrix;
pub mod options;
pub mod schedule;
pub mod session;
