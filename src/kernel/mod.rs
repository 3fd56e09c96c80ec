//! A kernel under test, as the runs that boot kernels share it, in VMs or on this
//! machine across reboots. It holds the kernel to boot, the release its image says, the
//! session file that says how far each kernel got, and the `pretouch` command each
//! booted kernel runs. It reads no option and imports nothing of the crate, so the
//! matrix and the features both build on it.

pub mod guest;
pub mod image;
pub mod list;
pub mod session;

/// A kernel to boot and run the matrix in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KernelSpec {
    /// The kernel image (bzImage, `/boot/vmlinuz-*`), as written: relative paths are
    /// relative to the matrix file.
    pub image: String,
    /// Boot parameters added to virtme-ng's own (`vng --append`).
    pub cmdline: Option<String>,
    /// What the results are filed and compared under; absent: the guest's kernel
    /// release (`uname -r` inside the VM).
    pub label: Option<String>,
}
