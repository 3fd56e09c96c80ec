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

use std::sync::{Arc, Mutex};

use crate::launch::LaunchHook;
use crate::matrix::app::App;

/// The features' hooks around each launch, one line per feature, in the order the
/// launcher calls them. A hook that may refuse a launch comes before one that holds
/// something for it (see `LaunchHook::before_spawn`). `settings` is the run's kernel
/// settings session, if the matrix has a `settings:` axis, and `app` the run's `app:`.
pub fn launch_hooks(
    settings: Option<Arc<Mutex<settings::launch::Session>>>,
    app: Option<&App>,
) -> Vec<Box<dyn LaunchHook>> {
    vec![
        Box::new(cds::launch::hook::CdsHook),
        Box::new(servers::launch::hook::ServerHook::new(app)),
        Box::new(settings::launch::hook::SettingsHook::new(settings)),
        Box::new(cgroup::launch::hook::CgroupHook::default()),
    ]
}
