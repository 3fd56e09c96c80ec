//! The optional features, one folder each. A feature's files are named after the stages
//! they plug into (`matrix`, `launch`, `schedule`, `analyze`, `render`, `session`,
//! `cli`), so a reader finds everything about one feature in one place.

pub mod calibrate;
pub mod campaign;
pub mod cds;
pub mod cgroup;
pub mod kernels;
pub mod numa;
pub mod probe;
pub mod profile;
pub mod servers;
pub mod settings;

/// The list of the features' warnings of the report and figures of a cell (`analyze`
/// stage).
pub mod analyze;
/// The features' checks within the core's checks before the first JVM (`session` stage).
pub mod checks;
/// The list of the features' own subcommands (`cmd` stage).
pub mod cli;
/// The runs the features take elsewhere than this machine's kernel (`session` stage).
pub mod elsewhere;
/// The list of the features' parts of a run's header (`store` stage).
pub mod header;
/// The features' axes of a cell's key (`store` stage).
pub mod key;
/// The list of the features' hooks around a launch (`launch` stage).
pub mod launch;
/// The list of the features' keys of the matrix (`matrix` stage).
pub mod matrix;
/// The features' parts of what a launch measured (`launch` stage).
pub mod measurement;
/// The list of the features' options of `pretouch run` (`session` stage).
pub mod options;
/// The list of the features' records the store reads (`store` stage).
pub mod record;
/// The list of the features' columns of the explaining tables (`render` stage).
pub mod render;
/// The list of the features' options of `pretouch report` (`analyze` stage).
pub mod report_options;
/// The list of the features' sections of the report (`analyze` and `render` stages).
pub mod sections;
/// The features' parts of a run's life (`session` stage).
pub mod session;
