//! A launch of a `memory:` cell runs in a memory cgroup of its own: made just before the
//! spawn with the cell's limit (read back), joined by the child between fork and exec
//! (so that every page the JVM touches is charged to it), read once the JVM is reaped
//! (its peak charge, its events, its fault counters) and removed.
//!
//! cgroup v2 is used where its memory controller is (`memory.max`, `memory.high`,
//! `memory.events`, `memory.peak`), under the hierarchy's root; else cgroup v1's memory
//! controller (`memory.limit_in_bytes`, `memory.failcnt`, `memory.oom_control`,
//! `memory.max_usage_in_bytes`), under the runner's own memory cgroup, so that the
//! limits a container sets the runner still hold. v1 has no `memory.high`: a limit
//! that names one is refused there. A cgroup per launch, not per cell: its peak and
//! its events are that launch's alone.

pub mod hook;

use std::collections::BTreeMap;
use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::features::cgroup::matrix::MemoryLimit;
use crate::units::Bytes;

/// Which cgroup hierarchy holds the memory controller.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Version {
    #[serde(rename = "v1")]
    V1,
    #[serde(rename = "v2")]
    V2,
}

/// Where this machine's per-launch memory cgroups are made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hierarchy {
    pub version: Version,
    /// The folder the launches' cgroups are made in.
    pub parent: PathBuf,
}

/// What a launch's memory cgroup recorded, read once the JVM was reaped.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CgroupRun {
    /// The cgroup's folder (removed after the launch).
    pub path: PathBuf,
    /// `v1` or `v2`.
    pub version: Option<Version>,
    /// The limit as the kernel held it (rounded down to a page); absent: no limit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max: Option<Bytes>,
    /// `memory.high` as the kernel held it (v2 only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub high: Option<Bytes>,
    /// The largest charge over the launch (v2 `memory.peak`, v1
    /// `memory.max_usage_in_bytes`); absent on kernels without it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peak: Option<Bytes>,
    /// `memory.events`; v1 has `max` (`memory.failcnt`) and `oom_kill` only.
    pub events: Events,
    /// `memory.stat`'s fault, reclaim and page-cache counters ([`STAT_KEYS`]) at the
    /// end, those the kernel has.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub stat: BTreeMap<String, u64>,
}

/// Its part of what a launch measured sets nothing the core reads.
impl crate::launch::parts::LaunchPart for CgroupRun {}

/// The cgroup's memory events over the launch (the cgroup is new, so its counts are the
/// launch's).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Events {
    /// Times the charge went above `memory.high` (and the kernel reclaimed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub high: Option<u64>,
    /// Times a charge hit `memory.max` (v1: `memory.failcnt`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max: Option<u64>,
    /// Times the cgroup ran out of memory (v2 only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub oom: Option<u64>,
    /// Processes the OOM killer killed in the cgroup.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub oom_kill: Option<u64>,
}

/// The `memory.stat` keys kept: what faulted, what was reclaimed, what stays charged
/// after the exit (page cache). Present on v1, v2 or both.
const STAT_KEYS: [&str; 13] = [
    "pgfault",
    "pgmajfault",
    "pgscan",
    "pgsteal",
    "pgpgin",
    "pgpgout",
    "thp_fault_alloc",
    "workingset_refault_anon",
    "workingset_refault_file",
    "cache",
    "file",
    "shmem",
    "mapped_file",
];

impl Hierarchy {
    /// This machine's, from `/proc/self/mountinfo` and `/proc/self/cgroup`.
    pub fn find() -> Result<Hierarchy, String> {
        let read =
            |p: &str| std::fs::read_to_string(p).map_err(|e| format!("cannot read {p}: {e}"));
        Hierarchy::find_in(
            &read("/proc/self/mountinfo")?,
            &read("/proc/self/cgroup")?,
            |p| std::fs::read_to_string(p).ok(),
        )
    }

    /// [`Hierarchy::find`] from the two files' texts; `read` reads a v2 mount's
    /// `cgroup.controllers`.
    pub fn find_in(
        mountinfo: &str,
        cgroups: &str,
        read: impl Fn(&Path) -> Option<String>,
    ) -> Result<Hierarchy, String> {
        let mounts: Vec<(PathBuf, &str, &str)> = mountinfo
            .lines()
            .filter_map(|line| {
                let (left, right) = line.split_once(" - ")?;
                let point = left.split(' ').nth(4)?;
                let mut right = right.split(' ');
                let fstype = right.next()?;
                let options = right.nth(1)?;
                Some((PathBuf::from(unescape(point)), fstype, options))
            })
            .collect();
        for (point, fstype, _) in &mounts {
            if *fstype == "cgroup2"
                && read(&point.join("cgroup.controllers"))
                    .is_some_and(|c| c.split_whitespace().any(|c| c == "memory"))
            {
                return Ok(Hierarchy {
                    version: Version::V2,
                    parent: point.clone(),
                });
            }
        }
        let v1 = mounts.iter().find(|(_, fstype, options)| {
            *fstype == "cgroup" && options.split(',').any(|o| o == "memory")
        });
        let Some((point, _, _)) = v1 else {
            return Err(
                "this machine has no memory cgroup controller (neither cgroup v2's \
                        `memory` in cgroup.controllers nor a cgroup v1 `memory` mount in \
                        /proc/self/mountinfo)\n  fix: remove `memory:` from the matrix, or \
                        run on a kernel with CONFIG_MEMCG and the controller mounted"
                    .to_owned(),
            );
        };
        let own = cgroups
            .lines()
            .find_map(|l| {
                let mut parts = l.splitn(3, ':');
                let (_, controllers, path) = (parts.next()?, parts.next()?, parts.next()?);
                controllers
                    .split(',')
                    .any(|c| c == "memory")
                    .then_some(path)
            })
            .unwrap_or("/");
        Ok(Hierarchy {
            version: Version::V1,
            parent: point.join(own.trim_start_matches('/')),
        })
    }

    /// Refuses a limit this hierarchy cannot set.
    pub fn check(&self, limit: &MemoryLimit) -> Result<(), String> {
        if self.version == Version::V1 && limit.high.is_some() {
            return Err(format!(
                "memory: {:?} sets `high`, but this machine's memory controller is cgroup \
                 v1's ({}), which has no memory.high\n  fix: remove `high` (v1 has the hard \
                 limit only), or run on a machine whose memory controller is on cgroup v2",
                limit.name,
                self.parent.display()
            ));
        }
        Ok(())
    }

    /// Makes the hierarchy ready for this run's cgroups, once before its first: removes
    /// what dead runs left ([`Hierarchy::remove_leftovers`]) and, on cgroup v2, enables
    /// the memory controller for the parent's children ([`enable_memory`]).
    pub fn prepare(&self) -> Result<(), String> {
        self.remove_leftovers();
        match self.version {
            Version::V1 => Ok(()),
            Version::V2 => enable_memory(&self.parent),
        }
    }

    /// Removes the empty cgroups that runs no longer alive left here (a runner killed
    /// between a launch's mkdir and its rmdir). Their names carry the runner's pid.
    pub fn remove_leftovers(&self) {
        let Ok(entries) = std::fs::read_dir(&self.parent) else {
            return;
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some(pid) = name
                .to_str()
                .and_then(|n| n.strip_prefix("pretouch-"))
                .and_then(|rest| rest.split('-').next())
                .and_then(|p| p.parse::<i32>().ok())
            else {
                continue;
            };
            // SAFETY: kill with signal 0 only checks whether the process exists.
            let alive = unsafe { libc::kill(pid, 0) } == 0
                || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM);
            if !alive {
                let _ = std::fs::remove_dir(entry.path());
            }
        }
    }
}

/// Checks a matrix's `memory:` axis against this machine before anything runs: the
/// controller is there, each limit is one it can set, and (for a real run, `need_root`)
/// the runner is root and can make a cgroup (a trial one, removed at once). Returns the
/// warnings to print: a limit below a heap, whose pretouch launches the cgroup's OOM
/// killer will kill (they run, and are recorded as failed launches with that cause).
pub fn check(matrix: &crate::matrix::Matrix, need_root: bool) -> Result<Vec<String>, String> {
    if matrix.features.memory.is_empty() {
        return Ok(Vec::new());
    }
    let line = matrix
        .text
        .lines()
        .position(|l| l.starts_with("memory:"))
        .map_or_else(String::new, |i| format!(", line {}", i + 1));
    let at = |message: String| format!("matrix `{}`{line}: {message}", matrix.origin);
    let hierarchy = Hierarchy::find().map_err(at)?;
    for limit in &matrix.features.memory {
        hierarchy.check(limit).map_err(at)?;
    }
    if need_root {
        if !crate::machine::host::is_root() {
            return Err(at(format!(
                "memory: the launches' memory cgroups are made under {}, which needs root\n  \
                 fix: run as root (sudo), or remove `memory:`",
                hierarchy.parent.display()
            )));
        }
        hierarchy.prepare().map_err(at)?;
        let trial = MemoryLimit {
            name: "trial".to_owned(),
            max: None,
            high: None,
        };
        Transient::create(&hierarchy, &trial, 0)
            .map_err(at)?
            .finish();
    }
    let mut warnings = Vec::new();
    for limit in &matrix.features.memory {
        let Some(max) = limit.max else { continue };
        let below: Vec<&str> = (matrix.heaps.iter())
            .filter(|h| h.bytes >= max)
            .map(|h| h.text.as_str())
            .collect();
        if !below.is_empty() {
            warnings.push(format!(
                "memory={}: the limit ({max}) is not above the heap ({}): launches with \
                 pretouch will be killed by the cgroup's OOM killer, and are recorded as \
                 failed launches with that cause",
                limit.name,
                below.join(", ")
            ));
        }
    }
    Ok(warnings)
}

/// `\040` and friends in mountinfo's paths.
fn unescape(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find('\\') {
        out += &rest[..i];
        let code = rest
            .get(i + 1..i + 4)
            .and_then(|o| u8::from_str_radix(o, 8).ok());
        match code {
            Some(c) => {
                out.push(c as char);
                rest = &rest[i + 4..];
            }
            None => {
                out.push('\\');
                rest = &rest[i + 1..];
            }
        }
    }
    out + rest
}

/// A launch's cgroup, made and limited, until [`Transient::finish`] reads and removes it.
#[derive(Debug)]
pub struct Transient {
    dir: PathBuf,
    version: Version,
    procs: CString,
    max: Option<Bytes>,
    high: Option<Bytes>,
}

/// cgroup v2 gives a child the memory controller's files only when its parent's
/// `cgroup.subtree_control` names `memory`: enables it there when it does not (the
/// hierarchy's root takes it; a cgroup with processes of its own refuses, and the error
/// says so).
fn enable_memory(parent: &Path) -> Result<(), String> {
    let control = parent.join("cgroup.subtree_control");
    let enabled = std::fs::read_to_string(&control)
        .is_ok_and(|c| c.split_whitespace().any(|c| c == "memory"));
    if enabled {
        return Ok(());
    }
    std::fs::write(&control, "+memory").map_err(|e| {
        format!(
            "cannot enable the memory controller for {}'s children (writing +memory to {}): \
             {e}\n  fix: enable it there (`echo +memory > {}`), or run pretouch where it is",
            parent.display(),
            control.display(),
            control.display()
        )
    })
}

fn page_size() -> u64 {
    // SAFETY: sysconf has no preconditions.
    let size = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    u64::try_from(size).unwrap_or(4096).max(1)
}

fn read_number(path: &Path) -> Option<u64> {
    std::fs::read_to_string(path).ok()?.trim().parse().ok()
}

/// `key value` lines (memory.events, memory.stat, memory.oom_control).
fn read_pairs(path: &Path) -> BTreeMap<String, u64> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| {
            let (k, v) = l.split_once(' ')?;
            Some((k.to_owned(), v.trim().parse().ok()?))
        })
        .collect()
}

impl Transient {
    /// Makes `pretouch-<pid>-<n>` under the hierarchy (made ready by
    /// [`Hierarchy::prepare`]) with `limit`, read back.
    pub fn create(hierarchy: &Hierarchy, limit: &MemoryLimit, n: u64) -> Result<Transient, String> {
        hierarchy.check(limit)?;
        let dir = hierarchy
            .parent
            .join(format!("pretouch-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir(&dir);
        std::fs::create_dir(&dir).map_err(|e| {
            format!(
                "cannot make the memory cgroup {}: {e}\n  fix: run as root on a machine whose \
                 memory controller is mounted writable ({})",
                dir.display(),
                hierarchy.parent.display()
            )
        })?;
        let made = Transient {
            procs: CString::new(dir.join("cgroup.procs").as_os_str().as_bytes())
                .map_err(|e| e.to_string())?,
            dir,
            version: hierarchy.version,
            max: None,
            high: None,
        };
        made.limited(limit)
    }

    fn limited(mut self, limit: &MemoryLimit) -> Result<Transient, String> {
        let page = page_size();
        let (max_file, high_file) = match self.version {
            Version::V1 => ("memory.limit_in_bytes", None),
            Version::V2 => ("memory.max", Some("memory.high")),
        };
        let set = |file: &str, value: Bytes| -> Result<Bytes, String> {
            let path = self.dir.join(file);
            let wanted = value.0 / page * page;
            let result = std::fs::write(&path, value.0.to_string())
                .map_err(|e| format!("cannot write {} to {}: {e}", value.0, path.display()))
                .and_then(|()| {
                    let held = read_number(&path);
                    match held {
                        Some(h) if h == wanted => Ok(Bytes(h)),
                        _ => Err(format!(
                            "wrote {} to {}, and the kernel holds {}",
                            value.0,
                            path.display(),
                            held.map_or_else(|| "no number".to_owned(), |h| h.to_string())
                        )),
                    }
                });
            if result.is_err() {
                let _ = std::fs::remove_dir(&self.dir);
            }
            result
        };
        let max = limit.max.map(|m| set(max_file, m)).transpose()?;
        let high = match (limit.high, high_file) {
            (Some(h), Some(file)) => Some(set(file, h)?),
            _ => None,
        };
        self.max = max;
        self.high = high;
        Ok(self)
    }

    /// The path the child writes itself into ([`join_before_exec`]).
    pub fn procs(&self) -> &CString {
        &self.procs
    }

    /// Reads what the cgroup recorded, then removes it (empty once the JVM is reaped).
    pub fn finish(self) -> CgroupRun {
        let stat = read_pairs(&self.dir.join("memory.stat"));
        let (peak, events) = match self.version {
            Version::V1 => {
                let oom = read_pairs(&self.dir.join("memory.oom_control"));
                (
                    read_number(&self.dir.join("memory.max_usage_in_bytes")),
                    Events {
                        max: read_number(&self.dir.join("memory.failcnt")),
                        oom_kill: oom.get("oom_kill").copied(),
                        ..Events::default()
                    },
                )
            }
            Version::V2 => {
                let e = read_pairs(&self.dir.join("memory.events"));
                (
                    read_number(&self.dir.join("memory.peak")),
                    Events {
                        high: e.get("high").copied(),
                        max: e.get("max").copied(),
                        oom: e.get("oom").copied(),
                        oom_kill: e.get("oom_kill").copied(),
                    },
                )
            }
        };
        let run = CgroupRun {
            path: self.dir.clone(),
            version: Some(self.version),
            max: self.max,
            high: self.high,
            peak: peak.map(Bytes),
            events,
            stat: STAT_KEYS
                .iter()
                .filter_map(|&k| Some((k.to_owned(), *stat.get(k)?)))
                .collect(),
        };
        // A killed JVM's last threads may take a moment to leave.
        for _ in 0..50 {
            if std::fs::remove_dir(&self.dir).is_ok() || !self.dir.exists() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        run
    }
}

/// Moves the child into the cgroup whose `cgroup.procs` is `procs`, between fork and
/// exec, so that every page the JVM touches is charged there.
pub fn join_before_exec(command: &mut std::process::Command, procs: CString) {
    use std::os::unix::process::CommandExt;
    // SAFETY: the closure runs in the child between fork and exec, where only
    // async-signal-safe calls are allowed: open, write and close on a path made before
    // the fork; it allocates nothing. Writing 0 moves the writer itself.
    unsafe {
        command.pre_exec(move || {
            let fd = libc::open(procs.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
            if fd < 0 {
                return Err(std::io::Error::last_os_error());
            }
            let written = libc::write(fd, b"0".as_ptr().cast(), 1);
            let error = std::io::Error::last_os_error();
            libc::close(fd);
            if written == 1 { Ok(()) } else { Err(error) }
        });
    }
}

impl CgroupRun {
    /// Why the cgroup killed the JVM, when its OOM killer did.
    pub fn oom_killed(&self) -> Option<String> {
        let kills = self.events.oom_kill.filter(|&k| k > 0)?;
        let limit = self
            .max
            .map_or_else(|| "no limit".to_owned(), |m| format!("limit {m}"));
        let peak = self
            .peak
            .map_or_else(String::new, |p| format!(", peak charge {p}"));
        Some(format!(
            "killed by its memory cgroup's OOM killer (oom_kill {kills} in {}, {limit}{peak}): \
             the JVM's memory does not fit the cell's `memory:` limit",
            self.path.display()
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const V1_MOUNTS: &str = "\
31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
";
    const V1_CGROUPS: &str = "9:name=systemd:/\n4:memory:/process_api/a39c\n0::/\n";

    #[test]
    fn v1_is_used_where_v2_has_no_memory_controller_under_the_runners_own_cgroup() {
        let h = Hierarchy::find_in(V1_MOUNTS, V1_CGROUPS, |_| Some(String::new())).unwrap();
        assert_eq!(h.version, Version::V1);
        assert_eq!(
            h.parent,
            Path::new("/sys/fs/cgroup/memory/process_api/a39c")
        );
        let high = MemoryLimit {
            name: "h".into(),
            max: Some(Bytes(1 << 30)),
            high: Some(Bytes(1 << 29)),
        };
        assert!(h.check(&high).unwrap_err().contains("no memory.high"));
    }

    #[test]
    fn v2_is_used_where_its_root_offers_the_memory_controller() {
        let mounts = "25 1 0:23 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw,nsdelegate\n";
        let h = Hierarchy::find_in(mounts, "0::/user.slice\n", |p| {
            (p == Path::new("/sys/fs/cgroup/cgroup.controllers"))
                .then(|| "cpuset cpu io memory pids\n".to_owned())
        })
        .unwrap();
        assert_eq!(
            h,
            Hierarchy {
                version: Version::V2,
                parent: PathBuf::from("/sys/fs/cgroup")
            }
        );
        let none = Hierarchy::find_in("25 1 0:23 / /x rw - ext4 /dev/vda rw\n", "0::/\n", |_| None);
        assert!(none.unwrap_err().contains("no memory cgroup controller"));
    }

    #[test]
    fn mountinfo_escapes_are_read() {
        assert_eq!(unescape(r"/a\040b"), "/a b");
        assert_eq!(unescape(r"/a\b"), r"/a\b");
    }

    #[test]
    fn an_oom_kill_in_the_cgroup_is_the_cause_and_none_is_not() {
        let mut run = CgroupRun {
            path: PathBuf::from("/sys/fs/cgroup/memory/pretouch-1-2"),
            max: Some(Bytes(900 << 20)),
            ..CgroupRun::default()
        };
        assert_eq!(run.oom_killed(), None);
        run.events.oom_kill = Some(0);
        assert_eq!(run.oom_killed(), None);
        run.events.oom_kill = Some(1);
        let cause = run.oom_killed().unwrap();
        assert!(
            cause.contains("oom_kill 1") && cause.contains("900"),
            "{cause}"
        );
    }
}
