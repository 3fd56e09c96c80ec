//! The features' keys of the matrix, one line per feature that takes part. The matrix
//! reads a key it does not know through this list, so it names no feature.
//! `matrix::parts` makes the values of these lists: each feature's type says where its
//! key goes among the others, how it reads, and whether it is an axis of the cells.

crate::matrix::parts::app_parts! {
    servers: crate::features::servers::matrix::AppKeys,
}

crate::matrix::parts::matrix_parts! {
    profile: crate::matrix::parts::Switch<crate::features::profile::matrix::ProfileKey>,
    probe: crate::matrix::parts::Switch<crate::features::probe::matrix::ProbeKey>,
    kernels: crate::features::kernels::matrix::KernelsKey,
    settings: crate::features::settings::matrix::SettingsKey => setting,
    memory: crate::features::cgroup::matrix::MemoryKey => memory,
    numa: crate::matrix::parts::Switch<crate::features::numa::matrix::NumaKey>,
}
