//! The environment a result set was taken in: kernel, boot command line, CPUs, NUMA,
//! memory, THP and mTHP modes, cgroup limits, CPU frequency governor. Stored in each run
//! header, compared between labels and worded by `analyze::env` (so that "THP mode
//! differs" shows next to the numbers it explains), printed by `pretouch env`
//! (`render::env`).

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::machine::guest::{GuestInfo, Reporting, Virtualization};
use crate::machine::host::host_info;
use crate::units::Bytes;

/// What the machine and kernel were set to during a run. Every value is read from
/// `/proc` or `/sys` as text; a value that could not be read is absent.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Environment {
    /// `uname -r`.
    pub kernel_release: String,
    /// `uname -v`.
    pub kernel_version: String,
    /// /proc/cmdline: the kernel's boot parameters.
    pub cmdline: Option<String>,
    /// `model name` of /proc/cpuinfo.
    pub cpu_model: String,
    /// /sys/devices/system/cpu/online, e.g. `0-83`.
    pub cpus_online: Option<String>,
    /// Number of online CPUs.
    pub cpus: usize,
    /// /sys/devices/system/node/online, e.g. `0-1` (absent without NUMA support).
    pub numa_nodes: Option<String>,
    /// `MemTotal` of /proc/meminfo.
    pub mem_total: Option<Bytes>,
    /// The selected mode of /sys/kernel/mm/transparent_hugepage/enabled, e.g. `madvise`.
    pub thp_enabled: Option<String>,
    /// The selected mode of /sys/kernel/mm/transparent_hugepage/defrag.
    pub thp_defrag: Option<String>,
    /// mTHP: each `hugepages-<size>/enabled` under transparent_hugepage, by size
    /// (`never`, `always`, `madvise` or `inherit`).
    #[serde(default)]
    pub mthp: BTreeMap<String, String>,
    /// The selected mode of /sys/kernel/mm/transparent_hugepage/shmem_enabled: huge
    /// pages for shared memory such as ZGC's memfd heap (`never`, `always`,
    /// `within_size`, `advise`, `deny`, `force`). Absent in files written before it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thp_shmem_enabled: Option<String>,
    /// mTHP for shared memory: each `hugepages-<size>/shmem_enabled`, by size
    /// (`inherit` follows `thp_shmem_enabled`). Empty in files written before it.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub mthp_shmem: BTreeMap<String, String>,
    /// cgroup v2 `cpu.max` of this process's cgroup or the nearest ancestor that sets one
    /// (`max` when none does).
    pub cgroup_cpu_max: Option<String>,
    /// cgroup v2 `memory.max`, found the same way.
    pub cgroup_memory_max: Option<String>,
    /// /sys/devices/system/cpu/cpu0/cpufreq/scaling_governor, when there is cpufreq.
    pub cpu_governor: Option<String>,
    /// Virtualization, the balloon and its free page reporting, KSM (see
    /// `machine/guest.rs`). Absent in files written before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub guest: Option<GuestInfo>,
}

impl Environment {
    /// Reads this machine.
    pub fn read() -> Environment {
        Environment {
            guest: Some(GuestInfo::read()),
            ..Environment::read_from(Path::new("/"))
        }
    }

    /// Reads a machine whose `/proc` and `/sys` are under `root` (tests use a fake tree).
    pub fn read_from(root: &Path) -> Environment {
        let host = host_info();
        let read = |p: &str| -> Option<String> {
            let text = std::fs::read_to_string(root.join(p)).ok()?;
            Some(text.trim().to_owned()).filter(|t| !t.is_empty())
        };
        let thp = "sys/kernel/mm/transparent_hugepage";
        let (mut mthp, mut mthp_shmem) = (BTreeMap::new(), BTreeMap::new());
        if let Ok(entries) = std::fs::read_dir(root.join(thp)) {
            for e in entries.flatten() {
                let name = e.file_name().to_string_lossy().into_owned();
                let Some(size) = name.strip_prefix("hugepages-") else {
                    continue;
                };
                for (file, modes) in [("enabled", &mut mthp), ("shmem_enabled", &mut mthp_shmem)] {
                    if let Some(mode) = read(&format!("{thp}/{name}/{file}")) {
                        modes.insert(size.to_owned(), selected(&mode).to_owned());
                    }
                }
            }
        }
        let cgroup = read("proc/self/cgroup").and_then(|t| {
            t.lines().find_map(|l| {
                l.strip_prefix("0::")
                    .map(|p| p.trim_matches('/').to_owned())
            })
        });
        let limit = |file: &str| cgroup.as_deref().and_then(|c| cgroup_limit(root, c, file));
        Environment {
            kernel_release: host.kernel_release,
            kernel_version: host.kernel_version,
            cmdline: read("proc/cmdline"),
            cpu_model: host.cpu_model,
            cpus_online: read("sys/devices/system/cpu/online"),
            cpus: host.cpus,
            numa_nodes: read("sys/devices/system/node/online"),
            mem_total: read("proc/meminfo").and_then(|m| mem_total(&m)),
            thp_enabled: read(&format!("{thp}/enabled")).map(|m| selected(&m).to_owned()),
            thp_defrag: read(&format!("{thp}/defrag")).map(|m| selected(&m).to_owned()),
            mthp,
            thp_shmem_enabled: read(&format!("{thp}/shmem_enabled"))
                .map(|m| selected(&m).to_owned()),
            mthp_shmem,
            cgroup_cpu_max: limit("cpu.max"),
            cgroup_memory_max: limit("memory.max"),
            cpu_governor: read("sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"),
            guest: Some(GuestInfo::read_from(root)),
        }
    }

    /// Each setting by name, as recorded, in declaration order: what labels are
    /// compared on and `pretouch env` prints a line of (worded by `analyze::env`).
    pub fn settings(&self) -> Vec<(&'static str, Setting<'_>)> {
        fn text(v: &Option<String>) -> Setting<'_> {
            Setting::Text(v.as_deref())
        }
        let guest = self.guest.as_ref();
        vec![
            ("kernel_release", Setting::Text(Some(&self.kernel_release))),
            ("kernel_version", Setting::Text(Some(&self.kernel_version))),
            ("cmdline", text(&self.cmdline)),
            ("cpu_model", Setting::Text(Some(&self.cpu_model))),
            ("cpus_online", text(&self.cpus_online)),
            ("cpus", Setting::Count(self.cpus)),
            ("numa_nodes", text(&self.numa_nodes)),
            ("mem_total", Setting::Size(self.mem_total)),
            ("thp_enabled", text(&self.thp_enabled)),
            ("thp_defrag", text(&self.thp_defrag)),
            (
                "mthp_enabled",
                Setting::Mthp(
                    self.mthp
                        .iter()
                        .filter(|(_, mode)| *mode != "never")
                        .map(|(size, mode)| (size.as_str(), mode.as_str()))
                        .collect(),
                ),
            ),
            ("cgroup_cpu_max", text(&self.cgroup_cpu_max)),
            ("cgroup_memory_max", text(&self.cgroup_memory_max)),
            ("cpu_governor", text(&self.cpu_governor)),
            (
                "virtualization",
                Setting::Virtualization(guest.map(GuestInfo::virtualization)),
            ),
            (
                "page_reporting",
                Setting::Reporting(guest.map(GuestInfo::reporting)),
            ),
            (
                "ksm",
                Setting::Ksm(guest.and_then(|g| g.ksm_run.as_deref())),
            ),
        ]
    }
}

/// One setting of an [`Environment`] as recorded: two labels differ in it when these
/// differ.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Setting<'a> {
    /// A value read as text; absent where it could not be read.
    Text(Option<&'a str>),
    Count(usize),
    Size(Option<Bytes>),
    /// The mTHP sizes that are not `never`, with their mode, by size.
    Mthp(Vec<(&'a str, &'a str)>),
    /// Absent: not recorded (files before it was); `Some(None)`: no VM detected.
    Virtualization(Option<Option<Virtualization<'a>>>),
    /// Absent: not recorded.
    Reporting(Option<Reporting>),
    /// `/sys/kernel/mm/ksm/run`; absent when not recorded or not readable.
    Ksm(Option<&'a str>),
}

/// The bracketed choice of a sysfs mode list: `always [madvise] never` -> `madvise`.
fn selected(modes: &str) -> &str {
    modes
        .split_whitespace()
        .find_map(|m| m.strip_prefix('[')?.strip_suffix(']'))
        .unwrap_or(modes)
}

fn mem_total(meminfo: &str) -> Option<Bytes> {
    let line = meminfo.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(Bytes(kib * 1024))
}

/// The first limit other than `max` from the cgroup up to the root; `max` when none.
fn cgroup_limit(root: &Path, cgroup: &str, file: &str) -> Option<String> {
    let base = root.join("sys/fs/cgroup");
    let mut dir = Some(Path::new(cgroup));
    let mut seen = None;
    while let Some(d) = dir {
        if let Ok(text) = std::fs::read_to_string(base.join(d).join(file)) {
            let text = text.trim().to_owned();
            if !text.starts_with("max") {
                return Some(text);
            }
            seen = Some(text);
        }
        dir = d.parent();
    }
    seen
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(root: &Path, path: &str, text: &str) {
        let p = root.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    #[test]
    fn reads_a_fake_machine() {
        let dir = tempfile::tempdir().unwrap();
        let r = dir.path();
        write(
            r,
            "proc/cmdline",
            "BOOT_IMAGE=/vmlinuz root=/dev/vda1 mitigations=off\n",
        );
        write(
            r,
            "proc/meminfo",
            "MemTotal:       24590000 kB\nMemFree: 1 kB\n",
        );
        write(r, "proc/self/cgroup", "0::/user.slice/job\n");
        write(r, "sys/fs/cgroup/user.slice/job/cpu.max", "max 100000\n");
        write(r, "sys/fs/cgroup/user.slice/cpu.max", "200000 100000\n");
        write(r, "sys/fs/cgroup/user.slice/job/memory.max", "max\n");
        write(r, "sys/devices/system/node/online", "0-1\n");
        let thp = "sys/kernel/mm/transparent_hugepage";
        write(r, &format!("{thp}/enabled"), "always [madvise] never\n");
        write(
            r,
            &format!("{thp}/defrag"),
            "always defer defer+madvise [madvise] never\n",
        );
        write(
            r,
            &format!("{thp}/hugepages-64kB/enabled"),
            "always inherit madvise [never]\n",
        );
        write(
            r,
            &format!("{thp}/hugepages-2048kB/enabled"),
            "always [inherit] madvise never\n",
        );
        let env = Environment::read_from(r);
        assert_eq!(
            env.cmdline.as_deref(),
            Some("BOOT_IMAGE=/vmlinuz root=/dev/vda1 mitigations=off")
        );
        assert_eq!(env.mem_total, Some(Bytes(24590000 * 1024)));
        assert_eq!(env.cgroup_cpu_max.as_deref(), Some("200000 100000"));
        assert_eq!(env.cgroup_memory_max.as_deref(), Some("max"));
        assert_eq!(env.numa_nodes.as_deref(), Some("0-1"));
        assert_eq!(env.thp_enabled.as_deref(), Some("madvise"));
        assert_eq!(env.thp_defrag.as_deref(), Some("madvise"));
        let mthp = env
            .settings()
            .into_iter()
            .find(|(n, _)| *n == "mthp_enabled");
        assert_eq!(
            mthp,
            Some(("mthp_enabled", Setting::Mthp(vec![("2048kB", "inherit")])))
        );
        assert_eq!(env.cpu_governor, None);
    }

    #[test]
    fn reads_this_machine() {
        let env = Environment::read();
        assert!(env.cpus >= 1);
        assert!(env.cmdline.is_some() && env.mem_total.is_some(), "{env:?}");
        assert!(
            env.settings()
                .iter()
                .any(|(name, _)| *name == "thp_enabled")
        );
    }
}
