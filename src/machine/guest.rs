//! Stage 2, the machine: is this a virtual machine, and can its host take memory back?
//! The hypervisor (CPUID, DMI), the virtio devices, the balloon and its free page
//! reporting (the guest hands freed memory back to the host; the next touch of it pays
//! the host's fault too), KSM. Stored in the run header's environment, worded and
//! compared by `analyze::env`, printed by `pretouch env` with what each means for the
//! numbers (`render::env`).

use std::path::Path;

use serde::{Deserialize, Serialize};

/// `/sys/module/page_reporting/parameters`: the free page reporting knobs.
pub const PAGE_REPORTING: &str = "sys/module/page_reporting/parameters";
/// virtio device id of a memory balloon.
const VIRTIO_ID_BALLOON: u32 = 5;
/// VIRTIO_BALLOON_F_REPORTING: the device takes free page reports.
const VIRTIO_BALLOON_F_REPORTING: usize = 5;

/// What the guest side of a VM looks like. Every value is read from `/proc`, `/sys` or
/// CPUID; what cannot be read is absent.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GuestInfo {
    /// The `hypervisor` CPU flag (CPUID leaf 1, ECX bit 31): this kernel runs in a VM.
    pub hypervisor_flag: bool,
    /// The hypervisor's CPUID signature (leaf 0x40000000), e.g. `KVMKVMKVM`,
    /// `Microsoft Hv`, `VMwareVMware`, `TCGTCGTCGTCG` (QEMU without KVM).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpuid_signature: Option<String>,
    /// DMI system vendor and product (`/sys/class/dmi/id/sys_vendor`, `product_name`),
    /// e.g. `QEMU Standard PC (Q35 + ICH9, 2009)`; absent without DMI tables (Firecracker
    /// provides none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dmi: Option<String>,
    /// The virtio devices, as `<name>(<driver>)`, e.g. `balloon(virtio_balloon)`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub virtio: Vec<String>,
    /// Whether a virtio balloon device is present.
    pub balloon: bool,
    /// The balloon device offers free page reporting (feature bit 5).
    pub balloon_reporting: bool,
    /// `page_reporting_order`: free blocks of 2^order pages and larger are reported (9 =
    /// 2 MiB); above the largest buddy order nothing is. Absent without the module.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page_reporting_order: Option<u32>,
    /// The largest buddy order of this kernel (the columns of /proc/buddyinfo minus one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_page_order: Option<u32>,
    /// KiB reported to the host so far, on kernels that count it (not mainline).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reported_kib: Option<u64>,
    /// `/sys/kernel/mm/ksm/run`: 0 off, 1 merging, 2 unmerging.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ksm_run: Option<String>,
    /// The init process's command line names Firecracker (a hint only: Firecracker looks
    /// like any KVM guest from inside).
    #[serde(default)]
    pub firecracker_hint: bool,
}

impl GuestInfo {
    pub fn read() -> GuestInfo {
        let mut info = GuestInfo::read_from(Path::new("/"));
        let (flag, signature) = cpuid_hypervisor();
        info.hypervisor_flag = info.hypervisor_flag || flag;
        info.cpuid_signature = signature;
        info
    }

    /// Reads the files under `root` (tests use a fake tree); CPUID is not read here.
    pub fn read_from(root: &Path) -> GuestInfo {
        let read = |p: &str| -> Option<String> {
            let text = std::fs::read_to_string(root.join(p)).ok()?;
            Some(text.trim().to_owned()).filter(|t| !t.is_empty())
        };
        let hypervisor_flag = read("proc/cpuinfo").is_some_and(|c| {
            c.lines()
                .filter(|l| l.starts_with("flags"))
                .any(|l| l.split_whitespace().any(|f| f == "hypervisor"))
        });
        let dmi = match (
            read("sys/class/dmi/id/sys_vendor"),
            read("sys/class/dmi/id/product_name"),
        ) {
            (None, None) => None,
            (a, b) => Some([a, b].into_iter().flatten().collect::<Vec<_>>().join(" ")),
        };
        let mut virtio = Vec::new();
        let (mut balloon, mut balloon_reporting) = (false, false);
        if let Ok(entries) = std::fs::read_dir(root.join("sys/bus/virtio/devices")) {
            let mut devices: Vec<_> = entries.flatten().map(|e| e.path()).collect();
            devices.sort();
            for dev in devices {
                let rel = |f: &str| dev.join(f);
                let id = std::fs::read_to_string(rel("device"))
                    .ok()
                    .and_then(|t| u32::from_str_radix(t.trim().trim_start_matches("0x"), 16).ok());
                let driver = std::fs::read_link(rel("driver"))
                    .ok()
                    .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
                    .unwrap_or_else(|| "no driver".to_owned());
                let name = id.map_or_else(|| "unknown".to_owned(), virtio_name);
                virtio.push(format!("{name}({driver})"));
                if id == Some(VIRTIO_ID_BALLOON) {
                    balloon = true;
                    let features = std::fs::read_to_string(rel("features")).unwrap_or_default();
                    balloon_reporting |=
                        features.trim().as_bytes().get(VIRTIO_BALLOON_F_REPORTING) == Some(&b'1');
                }
            }
        }
        GuestInfo {
            hypervisor_flag,
            cpuid_signature: None,
            dmi,
            virtio,
            balloon,
            balloon_reporting,
            page_reporting_order: read(&format!("{PAGE_REPORTING}/page_reporting_order"))
                .and_then(|t| t.parse().ok()),
            max_page_order: read("proc/buddyinfo").and_then(|t| max_page_order(&t)),
            reported_kib: read(&format!("{PAGE_REPORTING}/reported_kib"))
                .and_then(|t| t.parse().ok()),
            ksm_run: read("sys/kernel/mm/ksm/run"),
            firecracker_hint: read("proc/1/cmdline")
                .is_some_and(|c| c.to_ascii_lowercase().contains("firecracker")),
        }
    }

    /// Free page reporting is on: a balloon that takes reports, and an order at or
    /// below the largest buddy order (so that some free blocks qualify).
    pub fn reporting_on(&self) -> bool {
        self.balloon_reporting
            && match (self.page_reporting_order, self.max_page_order) {
                (Some(order), Some(max)) => order <= max,
                (Some(_), None) => true,
                (None, _) => false,
            }
    }

    /// The hypervisor as detected, or `None` on no VM (no hypervisor CPU flag, no
    /// signature). `analyze::env::virtualization` words it.
    pub fn virtualization(&self) -> Option<Virtualization<'_>> {
        if !self.hypervisor_flag && self.cpuid_signature.is_none() {
            return None;
        }
        let firecracker = if self.firecracker_hint {
            Firecracker::Named
        } else if self.dmi.is_none()
            && self.cpuid_signature.as_deref() == Some("KVMKVMKVM")
            && !self.virtio.is_empty()
        {
            Firecracker::Likely
        } else {
            Firecracker::No
        };
        Some(Virtualization {
            signature: self.cpuid_signature.as_deref(),
            dmi: self.dmi.as_deref(),
            firecracker,
        })
    }

    /// The balloon and its free page reporting, as one of the states that tell runs
    /// apart.
    pub fn reporting(&self) -> Reporting {
        if !self.balloon {
            return Reporting::NoBalloon {
                order: self.page_reporting_order,
            };
        }
        if !self.balloon_reporting {
            return Reporting::NotOffered;
        }
        if self.reporting_on() {
            Reporting::On {
                order: self.page_reporting_order,
            }
        } else {
            Reporting::Idle {
                order: self.page_reporting_order,
                max: self.max_page_order,
            }
        }
    }
}

/// A VM as seen from inside: what the report and `pretouch env` compare and word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Virtualization<'a> {
    /// The hypervisor's CPUID signature; absent with the CPU flag alone.
    pub signature: Option<&'a str>,
    /// DMI vendor and product; absent without DMI tables.
    pub dmi: Option<&'a str>,
    pub firecracker: Firecracker,
}

/// Whether the VM is Firecracker, which looks like any KVM guest from inside.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Firecracker {
    No,
    /// A KVM guest without DMI, virtio devices only.
    Likely,
    /// The init process's command line names it.
    Named,
}

/// The state of free page reporting. Worded by its `Display`, here in the machine
/// stage because `guest_memory`'s errors and its stored note (stage 2) print it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reporting {
    /// No balloon device; the module's order when it is loaded anyway.
    NoBalloon { order: Option<u32> },
    /// A balloon that does not offer free page reporting.
    NotOffered,
    /// Free blocks of 2^order pages and larger go back to the host.
    On { order: Option<u32> },
    /// Offered, but the order is above the largest buddy order: nothing qualifies.
    Idle {
        order: Option<u32>,
        max: Option<u32>,
    },
}

impl std::fmt::Display for Reporting {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let known = |v: &Option<u32>| v.map_or_else(|| "?".to_owned(), |o| o.to_string());
        match self {
            Reporting::NoBalloon { order: Some(order) } => {
                write!(f, "no balloon device (page_reporting_order {order})")
            }
            Reporting::NoBalloon { order: None } => write!(f, "no balloon device"),
            Reporting::NotOffered => write!(f, "balloon without free page reporting"),
            Reporting::On { order } => {
                let size = order
                    .filter(|o| *o < 30)
                    .map(|o| format!(", blocks of {} KiB and larger", 4u64 << o))
                    .unwrap_or_default();
                write!(
                    f,
                    "on (balloon feature bit 5, order {}{size})",
                    known(order)
                )
            }
            Reporting::Idle { order, max } => write!(
                f,
                "offered but idle: order {} is above the largest buddy order {}",
                known(order),
                known(max)
            ),
        }
    }
}

/// The name of a virtio device id (virtio spec 1.2, 5 "Device Types").
fn virtio_name(id: u32) -> String {
    match id {
        1 => "net",
        2 => "block",
        3 => "console",
        4 => "rng",
        5 => "balloon",
        8 => "scsi",
        9 => "9p",
        16 => "gpu",
        18 => "input",
        19 => "vsock",
        20 => "crypto",
        24 => "mem",
        26 => "fs",
        27 => "pmem",
        _ => return format!("id{id}"),
    }
    .to_owned()
}

/// The largest buddy order: the number of free-block columns of /proc/buddyinfo minus
/// one (`Node 0, zone Normal 1 2 ... 11 columns` -> 10).
pub fn max_page_order(buddyinfo: &str) -> Option<u32> {
    let columns = buddyinfo
        .lines()
        .filter_map(|l| l.split_once("zone").map(|(_, rest)| rest))
        .map(|rest| rest.split_whitespace().skip(1).count())
        .max()?;
    u32::try_from(columns).ok()?.checked_sub(1)
}

/// The hypervisor CPU flag and the hypervisor's CPUID signature (x86-64 only).
#[cfg(target_arch = "x86_64")]
fn cpuid_hypervisor() -> (bool, Option<String>) {
    use std::arch::x86_64::__cpuid;
    // `__cpuid` became a safe function in newer Rust; the block keeps older compilers
    // (rust-version 1.89) building.
    #[allow(unused_unsafe)]
    // SAFETY: CPUID exists on every x86-64 CPU; leaf 1 is always valid.
    let flag = (unsafe { __cpuid(1) }.ecx >> 31) & 1 == 1;
    if !flag {
        return (false, None);
    }
    #[allow(unused_unsafe)]
    // SAFETY: with the hypervisor flag set, leaves 0x40000000.. are the hypervisor's.
    let r = unsafe { __cpuid(0x4000_0000) };
    let mut bytes = Vec::with_capacity(12);
    for word in [r.ebx, r.ecx, r.edx] {
        bytes.extend_from_slice(&word.to_le_bytes());
    }
    let signature = String::from_utf8_lossy(&bytes)
        .trim_matches(char::from(0))
        .trim()
        .to_owned();
    (
        true,
        (!signature.is_empty() && signature.chars().all(|c| c.is_ascii_graphic() || c == ' '))
            .then_some(signature),
    )
}

#[cfg(not(target_arch = "x86_64"))]
fn cpuid_hypervisor() -> (bool, Option<String>) {
    (false, None)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(root: &Path, path: &str, text: &str) {
        let p = root.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    const BUDDY: &str = "Node 0, zone      DMA      0      0      0      0      0      0      0      0      1      1      3\nNode 0, zone   Normal  11587  14311   4306   2105   1206    645    436   1620   1280    663   1662\n";

    /// A Firecracker guest as this project's development VM is: a balloon with
    /// reporting, no DMI.
    fn firecracker(dir: &Path) {
        write(
            dir,
            "proc/cpuinfo",
            "processor\t: 0\nflags\t\t: fpu sse2 hypervisor lahf_lm\n",
        );
        write(dir, "proc/buddyinfo", BUDDY);
        let dev = dir.join("sys/bus/virtio/devices/virtio0");
        write(dir, "sys/bus/virtio/devices/virtio0/device", "0x0005\n");
        write(
            dir,
            "sys/bus/virtio/devices/virtio0/features",
            "0110010100000000000000000000000010000000\n",
        );
        let drivers = dir.join("sys/bus/virtio/drivers/virtio_balloon");
        std::fs::create_dir_all(&drivers).unwrap();
        std::os::unix::fs::symlink(&drivers, dev.join("driver")).unwrap();
        write(dir, "sys/bus/virtio/devices/virtio1/device", "0x0002\n");
        write(dir, "sys/bus/virtio/devices/virtio1/features", "0010\n");
        write(
            dir,
            &format!("{PAGE_REPORTING}/page_reporting_order"),
            "9\n",
        );
        write(dir, &format!("{PAGE_REPORTING}/reported_kib"), "2097152\n");
        write(dir, "sys/kernel/mm/ksm/run", "0\n");
    }

    #[test]
    fn a_firecracker_guest_with_free_page_reporting() {
        let dir = tempfile::tempdir().unwrap();
        firecracker(dir.path());
        let mut g = GuestInfo::read_from(dir.path());
        assert!(g.hypervisor_flag && g.balloon && g.balloon_reporting);
        assert_eq!(g.virtio, ["balloon(virtio_balloon)", "block(no driver)"]);
        assert_eq!(
            (g.page_reporting_order, g.max_page_order),
            (Some(9), Some(10))
        );
        assert!(g.reporting_on());
        assert_eq!(
            g.reporting().to_string(),
            "on (balloon feature bit 5, order 9, blocks of 2048 KiB and larger)"
        );
        assert_eq!(g.ksm_run.as_deref(), Some("0"));
        g.cpuid_signature = Some("KVMKVMKVM".into());
        assert_eq!(
            g.virtualization(),
            Some(Virtualization {
                signature: Some("KVMKVMKVM"),
                dmi: None,
                firecracker: Firecracker::Likely
            })
        );
        // Order 11, above the largest buddy order 10: nothing qualifies.
        g.page_reporting_order = Some(11);
        assert!(!g.reporting_on());
        assert_eq!(
            g.reporting(),
            Reporting::Idle {
                order: Some(11),
                max: Some(10)
            }
        );
        assert!(g.reporting().to_string().starts_with("offered but idle"));
    }

    #[test]
    fn bare_metal_reads_as_no_vm() {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), "proc/cpuinfo", "flags\t\t: fpu sse2\n");
        write(dir.path(), "sys/class/dmi/id/sys_vendor", "Dell Inc.\n");
        let g = GuestInfo::read_from(dir.path());
        assert!(!g.hypervisor_flag && !g.balloon && !g.reporting_on());
        assert_eq!(g.virtualization(), None);
        assert_eq!(g.reporting().to_string(), "no balloon device");
        assert_eq!(g.dmi.as_deref(), Some("Dell Inc."));
    }

    #[test]
    fn buddy_orders() {
        assert_eq!(max_page_order(BUDDY), Some(10));
        assert_eq!(max_page_order(""), None);
    }

    #[test]
    fn reads_this_machine() {
        let g = GuestInfo::read();
        // Whatever it is, it agrees with the flag.
        assert_eq!(
            g.virtualization().is_none(),
            !g.hypervisor_flag && g.cpuid_signature.is_none()
        );
    }
}
