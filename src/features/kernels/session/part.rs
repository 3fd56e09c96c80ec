//! The kernels' part of a run's life: inside a VM that `--kernel` booted, the run knows
//! the VM's shape, marks its label when the VM is emulated, records the shape in its
//! header and tells the host where its result file is. On the host, a fresh run's
//! command line is checked against its matrix.

use std::path::Path;

use crate::features::header::RunParts;
use crate::features::kernels::machine::{VmShape, mark_label};
use crate::features::kernels::session::{check_fresh, guest_vm, note_guest_result};
use crate::matrix::Matrix;
use crate::session::args::RunArgs;
use crate::session::part::RunPart;
use crate::store::ResultFile;

/// The kernels' part of a run: the shape of the VM it runs in, `None` outside a VM that
/// `--kernel` booted.
pub(crate) struct InVm(Option<VmShape>);

impl RunPart for InVm {
    fn fresh(args: &RunArgs, _matrix: &Matrix) -> anyhow::Result<InVm> {
        guest_vm(args).map(InVm)
    }

    fn resumed(args: &RunArgs, _matrix: &Matrix, _file: &ResultFile) -> anyhow::Result<InVm> {
        guest_vm(args).map(InVm)
    }

    fn check_fresh(args: &RunArgs, matrix: &Matrix) -> anyhow::Result<()> {
        check_fresh(args, matrix)
    }

    /// The label, marked when the VM is emulated.
    fn mark_label(&self, label: String) -> String {
        let emulated = self.0.as_ref().is_some_and(|vm| vm.emulated);
        mark_label(&label, emulated)
    }

    fn note_result(&self, args: &RunArgs, file: &Path) -> anyhow::Result<()> {
        note_guest_result(args, file)
    }

    /// The VM the run ran in.
    fn header(&self, parts: &mut RunParts) {
        parts.vm = self.0.clone().map(Box::new);
    }
}
