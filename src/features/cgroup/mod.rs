//! Memory cgroups as a matrix axis (`memory:`): the limit a cell's launches run under,
//! the cgroup each launch runs in, and what it was charged.
//!
//! One file per stage of the pipeline, named after the stage folder it plugs into.

pub mod analyze;
pub mod launch;
pub mod matrix;
pub mod render;
pub mod session;
