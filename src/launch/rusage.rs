//! Stage 3, beside the launcher: the kernel's counters for one launched JVM, from
//! `getrusage(RUSAGE_CHILDREN)` read just before the spawn and just after the reap.
//!
//! duct owns the child's `wait`, so `wait4` on its pid is not available. Launches never
//! overlap and the runner starts no other child while a JVM runs, so the difference of the
//! two readings is that JVM's (and its own children's, if it had any).

use serde::{Deserialize, Serialize};

use crate::units::{Bytes, Nanos};

/// A `getrusage(RUSAGE_CHILDREN)` reading: totals over every child reaped so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChildrenUsage {
    pub minflt: u64,
    pub majflt: u64,
    pub utime: Nanos,
    pub stime: Nanos,
    /// The largest max RSS of any single child reaped so far.
    pub maxrss: Bytes,
}

impl ChildrenUsage {
    pub fn now() -> ChildrenUsage {
        // SAFETY: rusage is plain old data; an all-zero value is valid and getrusage fills it.
        let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: `ru` is a valid, writable rusage; RUSAGE_CHILDREN is a valid `who`.
        let rc = unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut ru) };
        assert_eq!(rc, 0, "getrusage(RUSAGE_CHILDREN) failed");
        let tv =
            |t: libc::timeval| Nanos(t.tv_sec as u64 * 1_000_000_000 + t.tv_usec as u64 * 1000);
        ChildrenUsage {
            minflt: ru.ru_minflt as u64,
            majflt: ru.ru_majflt as u64,
            utime: tv(ru.ru_utime),
            stime: tv(ru.ru_stime),
            // Linux reports ru_maxrss in KiB.
            maxrss: Bytes(ru.ru_maxrss as u64 * 1024),
        }
    }

    /// What the children reaped between `before` and `self` used.
    pub fn since(&self, before: &ChildrenUsage) -> LaunchUsage {
        LaunchUsage {
            minflt: self.minflt.saturating_sub(before.minflt),
            majflt: self.majflt.saturating_sub(before.majflt),
            utime_ns: Nanos(self.utime.0.saturating_sub(before.utime.0)),
            stime_ns: Nanos(self.stime.0.saturating_sub(before.stime.0)),
            maxrss: (self.maxrss > before.maxrss).then_some(self.maxrss),
        }
    }
}

/// The kernel's counters for one launch: the difference of two
/// `getrusage(RUSAGE_CHILDREN)` readings, just before the spawn and just after the reap
/// (launches never overlap, so the difference is this JVM's).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct LaunchUsage {
    /// Minor (no I/O) page faults of the whole process, exec to exit.
    pub minflt: u64,
    /// Major (I/O) page faults of the whole process.
    pub majflt: u64,
    /// User CPU time over all the JVM's threads.
    pub utime_ns: Nanos,
    /// System CPU time over all the JVM's threads (the kernel's fault handling lands here).
    pub stime_ns: Nanos,
    /// Peak RSS of this JVM, known only when it exceeded every earlier child's
    /// (RUSAGE_CHILDREN keeps the maximum over all children, not a sum); absent otherwise.
    /// The agent's stamps hold the RSS at each stamp.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub maxrss: Option<Bytes>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reaped_child_shows_in_the_difference() {
        let before = ChildrenUsage::now();
        // dd reads 64 MiB of zeros into one buffer: at least 16384 minor faults (4 KiB).
        let status = std::process::Command::new("dd")
            .args([
                "if=/dev/zero",
                "of=/dev/null",
                "bs=64M",
                "count=1",
                "status=none",
            ])
            .status()
            .unwrap();
        assert!(status.success());
        let used = ChildrenUsage::now().since(&before);
        // Under THP `always` the buffer may be mapped with 2 MiB folios (32 faults at
        // least), under mTHP 64 KiB `always` with 64 KiB ones (1024).
        use crate::machine::folio::{Backing, sizes};
        let env = crate::machine::env::Environment::read_from(std::path::Path::new("/"));
        let folio = sizes(&env, Backing::Anonymous, false)
            .first()
            .map_or(4096, |b| b.0);
        let least = (64 << 20) / folio;
        assert!(
            used.minflt >= least,
            "THP {:?}, mTHP {:?}: {used:?}",
            env.thp_enabled,
            env.mthp
        );
        assert!(
            used.maxrss.unwrap_or(Bytes(64 << 20)) >= Bytes(64 << 20),
            "{used:?}"
        );
        let zero = before.since(&before);
        assert_eq!(zero.minflt, 0);
        assert_eq!(zero.maxrss, None);
    }
}
