//! The features' hooks around each launch, as one list. It is a file of its own beside
//! the feature folders, named after its stage, because the launcher's callers import it
//! and it imports the features' hooks.

use std::sync::{Arc, Mutex};

use crate::features::matrix::MatrixParts;
use crate::launch::LaunchHook;
use crate::matrix::app::App;

/// The features' hooks around each launch, one line per feature, in the order the
/// launcher calls them. A hook that may refuse a launch comes before one that holds
/// something for it (see `LaunchHook::before_spawn`). `settings` is the kernel
/// settings applied to the machine when the matrix has a `settings:` axis. `matrix` is
/// the features' keys of the run's matrix, from which a hook takes its own. `app` is the
/// run's `app:`.
pub fn hooks(
    settings: Option<Arc<Mutex<super::settings::launch::Applied>>>,
    matrix: &MatrixParts,
    app: Option<&App>,
) -> Vec<Box<dyn LaunchHook>> {
    vec![
        Box::new(super::cds::launch::hook::CdsHook),
        Box::new(super::servers::launch::hook::ServerHook::new(app)),
        Box::new(super::settings::launch::hook::SettingsHook::new(settings)),
        Box::new(super::cgroup::launch::hook::CgroupHook::default()),
        Box::new(super::numa::launch::hook::NumaHook::new(matrix.numa)),
    ]
}
