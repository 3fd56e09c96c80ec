//! The way a feature takes a run elsewhere than this machine's kernel, kernels in VMs
//! and campaigns across reboots. The run's life asks the features that
//! `features::elsewhere` lists where a run goes and gets one of these, so it names no
//! feature.

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

/// A feature's answer to where a fresh run of a matrix goes: elsewhere, when the feature
/// takes it, or here, with the matrix handed back for the next feature to ask.
pub(crate) type Fresh = fn(&RunArgs, Matrix) -> anyhow::Result<Where>;

/// Where the fresh run of `matrix` that `args` asks for goes: to the first of `features`
/// that takes it elsewhere, or here when none does.
pub(crate) fn fresh(
    features: &[Fresh],
    args: &RunArgs,
    mut matrix: Matrix,
) -> anyhow::Result<Where> {
    for ask in features {
        match ask(args, matrix)? {
            Where::Here(here) => matrix = *here,
            elsewhere => return Ok(elsewhere),
        }
    }
    Ok(Where::Here(Box::new(matrix)))
}
