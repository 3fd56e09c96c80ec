//! pretouch: measure what `-XX:+AlwaysPreTouch` costs a JVM at startup.
//!
//! The data flows matrix -> plan -> launch -> store -> analyze -> render; each stage is
//! a folder, and imports run one way, from the commands down to the units:
//!
//! `cmd` -> `session` -> `schedule`, `render` -> `analyze` -> `store` -> `launch` -> `machine` ->
//! `matrix` -> `units`, `stats`, `access`.
//!
//! `tests/architecture.rs` fails on an import against that order or a cycle.

/// Before every other module: its macros shadow std's printing ones in all of them.
#[macro_use]
mod console;

pub mod access;
pub mod analyze;
pub mod cmd;
pub mod features;
pub mod kernel;
pub mod launch;
pub mod machine;
pub mod matrix;
pub mod render;
pub mod schedule;
pub mod session;
pub mod stats;
pub mod store;
pub mod units;

#[cfg(any(test, feature = "test-support"))]
pub mod fixtures;
