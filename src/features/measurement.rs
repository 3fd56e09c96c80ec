//! The features' parts of what one launch measured, one line per feature, in the order
//! the launch record writes their keys. `launch::parts` makes of this list the value
//! that the launch's `Measurement` holds. It is a file of its own beside the feature
//! folders because the launcher's `Measurement` holds it, and the list of the hooks in
//! `launch.rs` imports the launcher.

crate::launch::parts::launch_parts! {
    server: Box<crate::features::servers::launch::ServerRun>,
    cds: crate::features::cds::launch::Cds,
    settings: Box<crate::features::settings::launch::SettingsRead>,
    cgroup: Box<crate::features::cgroup::launch::CgroupRun>,
    numa: Box<crate::features::numa::launch::HeapNodes>,
}
