//! The way a feature takes a run elsewhere than this machine's kernel, kernels in VMs
//! and campaigns across reboots. The run's life asks `features::elsewhere` where a run
//! goes and gets one of these, so it names no feature.

use crate::matrix::Matrix;
use crate::session::args::RunArgs;

/// A run that a feature takes elsewhere than this machine's kernel.
pub(crate) trait Elsewhere {
    /// Runs it to its end; `Ok` holds the exit code.
    fn run(self: Box<Self>, args: &RunArgs) -> anyhow::Result<u8>;
}

/// Where a fresh run goes: elsewhere, as a feature runs it, or on this machine's kernel
/// with its matrix.
pub(crate) enum Where {
    Elsewhere(Box<dyn Elsewhere>),
    Here(Box<Matrix>),
}
