//! The runs that the features take elsewhere than this machine's kernel, kernels in VMs
//! and campaigns across reboots. The run's life in `session/` asks this list where a run
//! goes, so it names no feature. The campaign decides where a fresh run with kernels
//! goes, and the kernels own the resume of their session. It is a list of its own,
//! apart from `features/session.rs`, because the kernels and the campaign run the
//! core's checks, which call that list.

use std::path::Path;

use crate::matrix::Matrix;
use crate::session::args::RunArgs;
use crate::session::elsewhere::{Elsewhere, Where};

/// The run elsewhere that `--resume PATH` asks for, when PATH is a feature's own file.
pub(crate) fn resumed_elsewhere(path: &Path) -> Option<Box<dyn Elsewhere>> {
    crate::features::kernels::elsewhere::resumed(path)
}

/// Where the fresh run of `matrix` that `args` asks for goes.
pub(crate) fn elsewhere(args: &RunArgs, matrix: Matrix) -> anyhow::Result<Where> {
    crate::features::campaign::elsewhere::elsewhere(args, matrix)
}
