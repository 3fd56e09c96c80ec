//! The features' hooks around each launch, as one list. It is a file of its own beside
//! the feature folders, named after its stage, because the launcher's callers import it
//! and it imports the features' hooks.

use crate::features::matrix::MatrixParts;
use crate::launch::{LaunchHook, RunValues};
use crate::matrix::app::App;

/// The features' hooks around each launch, one line per feature, in the order the
/// launcher calls them. A hook that may refuse a launch comes before one that holds
/// something for it (see `LaunchHook::before_spawn`). `run` is what the run's parts hold
/// for the hooks, such as the kernel settings applied to the machine, from which a hook
/// takes its own by its type. `matrix` is the features' keys of the run's matrix, from
/// which a hook takes its own. `app` is the run's `app:`.
pub fn hooks(run: &RunValues, matrix: &MatrixParts, app: Option<&App>) -> Vec<Box<dyn LaunchHook>> {
    vec![
        Box::new(super::cds::launch::hook::CdsHook),
        Box::new(super::servers::launch::hook::ServerHook::new(app)),
        Box::new(super::settings::launch::hook::SettingsHook::new(run)),
        Box::new(super::cgroup::launch::hook::CgroupHook::default()),
        Box::new(super::numa::launch::hook::NumaHook::new(matrix.numa)),
    ]
}
