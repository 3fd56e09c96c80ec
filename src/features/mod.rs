//! The optional features, one folder each. A feature's files are named after the stages
//! they plug into (`matrix`, `launch`, `schedule`, `analyze`, `render`, `session`,
//! `cli`), so a reader finds everything about one feature in one place.

pub mod calibrate;
pub mod campaign;
pub mod cds;
pub mod cgroup;
pub mod kernels;
pub mod probe;
pub mod profile;
pub mod servers;
pub mod settings;

/// The list of the features' hooks around a launch (`launch` stage).
pub mod launch;
/// The list of the features' records the store reads (`store` stage).
pub mod record;
