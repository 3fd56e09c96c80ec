//! Stage 7, a run's session: the life of one `pretouch run` below its command. It
//! checks the matrix and the machine before the first JVM, prepares the machine and
//! the result file, runs the schedule, restores the machine's settings and prints the
//! final report. `cmd::run` only parses the arguments into it.

pub(crate) mod args;
pub(crate) mod checks;
pub mod error;
pub(crate) mod extra;
pub(crate) mod preflight;
pub(crate) mod report;
