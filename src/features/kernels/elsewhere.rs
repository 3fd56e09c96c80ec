//! The kernels' runs elsewhere than this machine's kernel: each kernel booted in a VM
//! that runs the matrix, and the resume of a kernel session.

use std::path::{Path, PathBuf};

use crate::matrix::Matrix;
use crate::session::args::RunArgs;
use crate::session::elsewhere::{Elsewhere, Where};

/// `--resume` of a kernel session's file: its kernels again, in VMs.
struct ResumeKernels(PathBuf);

impl Elsewhere for ResumeKernels {
    fn run(self: Box<Self>, args: &RunArgs) -> anyhow::Result<u8> {
        crate::features::kernels::session::cmd_resume_kernels(args, &self.0)
    }
}

/// Kernels booted in VMs, the matrix run inside each.
struct Kernels(Matrix);

impl Elsewhere for Kernels {
    fn run(self: Box<Self>, args: &RunArgs) -> anyhow::Result<u8> {
        crate::features::kernels::session::cmd_run_kernels(args, self.0)
    }
}

/// Takes the fresh run of `matrix` that `args` asks for into VMs, one a kernel, when it
/// has kernels and is not itself a guest's run. Otherwise it hands the matrix back.
pub(crate) fn elsewhere(args: &RunArgs, matrix: Matrix) -> anyhow::Result<Where> {
    let kernels = !args.features.kernels.kernel.is_empty() || !matrix.features.kernels.is_empty();
    if kernels && args.features.kernels.in_vm.is_none() {
        return Ok(Where::Elsewhere(Box::new(Kernels(matrix))));
    }
    Ok(Where::Here(Box::new(matrix)))
}

/// The run elsewhere that `--resume PATH` asks for, when PATH is a kernel session's
/// file or its folder.
pub(crate) fn resumed(path: &Path) -> Option<Box<dyn Elsewhere>> {
    let file = crate::kernel::session::session_file(path)?;
    Some(Box::new(ResumeKernels(file)))
}
