//! pretouch: measure what `-XX:+AlwaysPreTouch` costs a JVM at startup.
//!
//! The data flows matrix -> plan -> launch -> store -> stats -> report/export; each
//! stage is a module.

pub mod adaptive;
pub mod agent;
pub mod app;
pub mod calibrate;
pub mod classfile;
pub mod cli;
pub mod compare;
pub mod cpuset;
pub mod discover;
pub mod dryrun;
pub mod env;
pub mod explain;
pub mod export;
pub mod export_compare;
pub mod export_explain;
#[doc(hidden)]
pub mod fixtures;
pub mod host;
pub mod interrupt;
pub mod jdk;
pub mod jvmlog;
pub mod launch;
pub mod machine_lock;
pub mod matrix;
pub mod memory;
pub mod plan;
pub mod plot;
pub mod progress;
pub mod reference;
pub mod report;
pub mod resume;
pub mod run;
pub mod rusage;
pub mod stats;
pub mod store;
pub mod table;
pub mod units;
