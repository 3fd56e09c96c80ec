//! The machine's fault-rate ceiling (`pretouch calibrate`): the microbenchmark, its
//! record, and the reading of a cell's fault rate against it.
//!
//! One file per stage of the pipeline, named after the stage folder it plugs into.

pub mod analyze;
pub mod ceiling;
pub mod cli;
pub mod machine;
pub mod options;
pub mod record;
pub mod render;
pub mod report;
pub mod report_options;
pub mod section;
