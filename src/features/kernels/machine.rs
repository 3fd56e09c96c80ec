//! The host's side of `pretouch run --kernel`: can a guest use hardware virtualization
//! (KVM on VT-x/AMD-V), or does it run under QEMU's TCG emulation, where timings mean
//! nothing; the versions of QEMU and virtme-ng; and the VM's shape, stored per label beside the guest's own environment.

use std::fmt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::units::Bytes;

/// Appended to the label of every run taken under emulation, so that the mark travels
/// with the numbers into every table (`6.12.117+deb12-amd64-EMULATED`).
pub const EMULATED_MARK: &str = "-EMULATED";

/// How QEMU runs the guest's CPUs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Accel {
    /// KVM on hardware virtualization: the guest's timings are real.
    Kvm,
    /// QEMU's TCG emulation: every instruction translated, about 25x slower; timings
    /// inside say nothing about the kernel.
    Tcg,
}

impl fmt::Display for Accel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Accel::Kvm => "kvm",
            Accel::Tcg => "tcg",
        })
    }
}

/// What `/dev/kvm` gave when opened read-write.
#[derive(Debug, Clone, PartialEq, Eq)]
enum KvmDevice {
    Absent,
    /// It exists but cannot be opened (permissions): the error.
    Unusable(String),
    Usable,
}

/// The accelerator a guest gets here, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Virtualization {
    pub accel: Accel,
    /// One line a user can act on, e.g. why there is no KVM.
    pub reason: String,
}

/// Reads this machine: `/dev/kvm` and the CPU flags of /proc/cpuinfo.
pub fn detect() -> Virtualization {
    let kvm = match std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/kvm")
    {
        Ok(_) => KvmDevice::Usable,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => KvmDevice::Absent,
        Err(e) => KvmDevice::Unusable(e.to_string()),
    };
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    detect_from(&cpuinfo, &kvm)
}

/// KVM runs stock kernels only on hardware virtualization: the `vmx` (Intel VT-x) or
/// `svm` (AMD-V) CPU flag. A `/dev/kvm` without either is software virtualization
/// (PVM, for instance), which boots only specially built guests: QEMU must emulate.
fn detect_from(cpuinfo: &str, kvm: &KvmDevice) -> Virtualization {
    let flags: Vec<&str> = cpuinfo
        .lines()
        .find_map(|l| {
            let (key, value) = l.split_once(':')?;
            (key.trim() == "flags").then_some(value)
        })
        .map(|v| v.split_whitespace().collect())
        .unwrap_or_default();
    let hardware = flags.iter().any(|f| *f == "vmx" || *f == "svm");
    let tcg = |reason: String| Virtualization {
        accel: Accel::Tcg,
        reason,
    };
    match (kvm, hardware) {
        (KvmDevice::Usable, true) => Virtualization {
            accel: Accel::Kvm,
            reason: "KVM with hardware virtualization (vmx/svm)".into(),
        },
        (KvmDevice::Usable, false) => tcg(
            "/dev/kvm is here but the CPU has no vmx/svm flag: it is software virtualization \
             (PVM or alike), which cannot boot stock kernels"
                .into(),
        ),
        (KvmDevice::Absent, _) => {
            tcg("no /dev/kvm (KVM module not loaded, or not allowed here)".into())
        }
        (KvmDevice::Unusable(e), _) => tcg(format!("/dev/kvm cannot be opened: {e}")),
    }
}

/// What the VM a label was run in looked like, from the host's side. Stored in the run
/// header (`vm`) beside the guest's own `env`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VmShape {
    /// `kvm` (hardware virtualization: real timings) or `tcg` (QEMU's emulation).
    pub accel: Accel,
    /// Timings were taken under emulation and mean nothing: `accel` is `tcg`. The label
    /// carries [`EMULATED_MARK`] too.
    pub emulated: bool,
    /// Why the accelerator is what it is (e.g. why there is no KVM).
    pub accel_reason: String,
    /// First line of `qemu-system-x86_64 --version`; absent when it could not be run.
    pub qemu_version: Option<String>,
    /// `vng --version`, e.g. `virtme-ng 1.42`; absent when it could not be run.
    pub vng_version: Option<String>,
    /// Virtual CPUs given to the guest (`vng --cpus`).
    pub vcpus: u32,
    /// Memory given to the guest (`vng --memory`).
    pub memory: Bytes,
    /// The guest's memory was allocated by QEMU before boot (`-mem-prealloc`), so that
    /// the guest's first touch of a page is not the host's.
    pub prealloc: bool,
    /// The kernel image booted, as the host sees it.
    pub image: PathBuf,
    /// Boot parameters added to virtme-ng's own (`vng --append`); absent: none.
    pub kernel_cmdline: Option<String>,
    /// The host's `uname -r`.
    pub host_kernel_release: String,
    /// The host's `uname -v`.
    pub host_kernel_version: String,
    /// The host's hostname.
    pub host_hostname: String,
    /// The host's CPU model.
    pub host_cpu_model: String,
}

/// The label a guest's run is filed under: the given one or its kernel release, marked
/// when emulated (once).
pub fn mark_label(label: &str, emulated: bool) -> String {
    if emulated && !label.ends_with(EMULATED_MARK) {
        format!("{label}{EMULATED_MARK}")
    } else {
        label.to_owned()
    }
}

/// The memory a guest needs for a matrix whose largest heap is `heap`: the heap, the
/// JVM's own memory ([`crate::machine::memory::jvm_overhead`]), and 768 MiB for the
/// guest's kernel, its init and page cache (an idle virtme-ng guest uses about 130 MiB
/// of 1 GiB), rounded up to 256 MiB.
pub fn vm_memory(heap: Bytes) -> Bytes {
    const STEP: u64 = 256 << 20;
    let need = heap.0 + crate::machine::memory::jvm_overhead(heap).0 + (768 << 20);
    Bytes(need.div_ceil(STEP) * STEP)
}

/// The first line a tool prints for `arg` (`--version`), when it runs and exits 0.
pub fn tool_version(program: &Path, arg: &str) -> Option<String> {
    let out = duct::cmd(program, [arg])
        // Outermost first: stdout captured, then stderr joins it. The other order sent
        // stderr to the runner's own stdout, and a failure's message was lost.
        .stderr_to_stdout()
        .stdout_capture()
        .stdin_null()
        .unchecked()
        .run()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    const EPYC_SVM: &str = "processor\t: 0\nflags\t\t: fpu vme de pse svm sse\n";
    const PVM_GUEST: &str = "processor\t: 0\nflags\t\t: fpu vme hypervisor sse\n";

    #[test]
    fn kvm_counts_only_on_hardware_virtualization() {
        let hw = detect_from(EPYC_SVM, &KvmDevice::Usable);
        assert_eq!(hw.accel, Accel::Kvm);
        assert_eq!(
            detect_from("flags : vmx\n", &KvmDevice::Usable).accel,
            Accel::Kvm
        );
        // This machine's case: /dev/kvm is PVM, the CPU has no vmx/svm.
        let pvm = detect_from(PVM_GUEST, &KvmDevice::Usable);
        assert_eq!(pvm.accel, Accel::Tcg);
        assert!(pvm.reason.contains("no vmx/svm"), "{}", pvm.reason);
        assert_eq!(detect_from(EPYC_SVM, &KvmDevice::Absent).accel, Accel::Tcg);
        let denied = detect_from(EPYC_SVM, &KvmDevice::Unusable("Permission denied".into()));
        assert_eq!(denied.accel, Accel::Tcg);
        assert!(denied.reason.contains("Permission denied"));
        // A flag that merely contains the letters is no flag.
        assert_eq!(
            detect_from("flags : svme vmxx\n", &KvmDevice::Usable).accel,
            Accel::Tcg
        );
    }

    #[test]
    fn labels_are_marked_once_and_only_when_emulated() {
        assert_eq!(mark_label("6.12.1", true), "6.12.1-EMULATED");
        assert_eq!(mark_label("6.12.1-EMULATED", true), "6.12.1-EMULATED");
        assert_eq!(mark_label("6.12.1", false), "6.12.1");
    }

    #[test]
    fn guest_memory_grows_with_the_heap_and_leaves_room_for_the_guest() {
        let small = vm_memory(Bytes(64 << 20));
        let large = vm_memory(Bytes(32 << 30));
        assert_eq!(small.0 % (256 << 20), 0);
        assert!(small.0 >= (64 << 20) + (768 << 20), "{small}");
        assert!(large.0 > (32u64 << 30) + (2u64 << 30), "{large}");
        assert!(small < large);
    }
}
