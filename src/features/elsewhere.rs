//! The runs that the features take elsewhere than this machine's kernel, kernels in VMs
//! and campaigns across reboots. The run's life in `session/` asks this list where a run
//! goes, so it names no feature. Each feature decides whether it takes a fresh run, and
//! the kernels own the resume of their session. It is a list of its own,
//! apart from `features/session.rs`, because the kernels and the campaign run the
//! core's checks, which call that list.

use std::path::Path;

use crate::session::elsewhere::{Elsewhere, Fresh};

/// The run elsewhere that `--resume PATH` asks for, when PATH is a feature's own file.
pub(crate) fn resumed_elsewhere(path: &Path) -> Option<Box<dyn Elsewhere>> {
    crate::features::kernels::elsewhere::resumed(path)
}

/// The features that may take a fresh run elsewhere, asked in this order. The campaign
/// comes first, because it decides whether the kernels boot on this machine or in VMs.
pub(crate) static FRESH: &[Fresh] = &[
    crate::features::campaign::elsewhere::elsewhere,
    crate::features::kernels::elsewhere::elsewhere,
];
