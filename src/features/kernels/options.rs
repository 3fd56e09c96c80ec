//! `pretouch run`'s options for kernels in VMs, flattened into its command line.

use std::path::PathBuf;

use crate::matrix::HeapSize;
use crate::session::options::{Given, RunOptionsPart};
use crate::units::Bytes;

/// What `pretouch run` is asked about the kernels it boots in VMs. `--runs` applies to a
/// campaign across reboots too.
#[derive(Debug, Clone, clap::Args)]
pub struct KernelArgs {
    /// Boot this kernel image in a VM and run the matrix inside.
    ///
    /// Give it once for each kernel. Each kernel's results are filed under its release,
    /// and the option replaces the matrix's `kernels:`. Without hardware virtualization
    /// the guests are emulated, and their results are marked so.
    #[arg(long, value_name = "IMAGE", conflicts_with = "resume")]
    pub kernel: Vec<PathBuf>,
    /// Run the matrix N times in each kernel, taking the kernels in turn.
    ///
    /// Each time is a new boot, so a kernel's cost gets an interval over its boots. That
    /// interval sees the machine move between them. Use three or more.
    #[arg(long, value_name = "N", default_value_t = 1,
          value_parser = clap::value_parser!(u32).range(1..=100), conflicts_with = "resume")]
    pub runs: u32,
    /// The vCPUs of each kernel's VM [default: this machine's online CPUs]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub vm_cpus: Option<u32>,
    /// The memory of each kernel's VM, such as 6g [default: enough for the largest heap]
    #[arg(long, value_name = "SIZE", value_parser = HeapSize::parse_bytes)]
    pub vm_memory: Option<Bytes>,
    /// Seconds a kernel may take to boot. After that its VM is stopped and the kernel
    /// is reported as failed.
    #[arg(long, value_name = "SECS", default_value_t = 600, value_parser = clap::value_parser!(u64).range(1..))]
    pub vm_boot_timeout: u64,
    /// Run inside a VM that `pretouch run --kernel` started; WORK holds the VM's shape
    #[arg(long, hide = true, value_name = "WORK", conflicts_with = "kernel")]
    pub in_vm: Option<PathBuf>,
}

impl RunOptionsPart for KernelArgs {
    /// A run elsewhere gets none of these options, because they boot the kernels and
    /// mark the guest.
    fn passed_on(&self, _given: &Given, _values: &mut Vec<String>, _switches: &mut Vec<String>) {
        let KernelArgs {
            kernel: _,
            runs: _,
            vm_cpus: _,
            vm_memory: _,
            vm_boot_timeout: _,
            in_vm: _,
        } = self;
    }

    /// `--runs`, 1 unless it asks for more, whether the kernels run in VMs or across
    /// reboots.
    fn runs_per_label(&self) -> Option<usize> {
        Some(self.runs as usize)
    }

    /// Refuses the matrix flags, named as `flags`, on the host of a run of kernels,
    /// from `--kernel` or the matrix's `kernels:`, because each kernel's run is given
    /// the matrix as a file, and a resumed session reads that file again.
    fn check_matrix_flags(
        &self,
        flags: &str,
        matrix: &crate::matrix::Matrix,
    ) -> anyhow::Result<()> {
        if self.in_vm.is_some() {
            return Ok(());
        }
        let by = match (self.kernel.is_empty(), matrix.features.kernels.is_empty()) {
            (false, _) => "with --kernel",
            (true, false) => "with a matrix that lists `kernels:`",
            (true, true) => return Ok(()),
        };
        Err(crate::session::error::bad(anyhow::anyhow!(
            "{flags} {by}: each kernel's run reads the matrix from a file\n  \
             fix: write these axes into the matrix file (docs/matrix.md), and run \
             `pretouch run FILE --kernel ...`"
        )))
    }
}
