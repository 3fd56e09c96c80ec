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
            peak_rss: None,
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
    /// Peak RSS of this JVM alone (its `ru_maxrss`), read from the exited process
    /// before it is reaped ([`peak_at_exit`]), so every launch has its own, small or
    /// large. Absent in files written before it was read, for a server, and when the
    /// read failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peak_rss: Option<Bytes>,
}

/// Waits up to `timeout` for the child `pid` to exit, and reads its own peak RSS
/// without reaping it, so that the caller's wait still reaps it and gets its status.
///
/// `getrusage(RUSAGE_CHILDREN)` keeps the largest peak of every child reaped so far,
/// so after one launch with pretouch a launch without it shows nothing of its own.
/// `waitid` with `WNOWAIT` fills the exited child's own rusage when it is given one,
/// which the raw system call does and glibc's wrapper does not. The wait is a pidfd
/// polled with the timeout, because `waitid` has none. `None` when the kernel has no
/// pidfd (before Linux 5.3), when the timeout passes, or when the child was reaped
/// elsewhere; the launch goes on without the figure.
pub fn peak_at_exit(pid: u32, timeout: std::time::Duration) -> Option<Bytes> {
    let deadline = std::time::Instant::now() + timeout;
    let pid = libc::pid_t::try_from(pid).ok()?;
    // SAFETY: pidfd_open takes a pid and flags and returns a new descriptor or -1.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
    let fd = libc::c_int::try_from(fd).ok().filter(|fd| *fd >= 0)?;
    // SAFETY: `fd` is a descriptor this function just opened and owns.
    let fd = unsafe { <std::os::fd::OwnedFd as std::os::fd::FromRawFd>::from_raw_fd(fd) };
    loop {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        let mut poll = libc::pollfd {
            fd: std::os::fd::AsRawFd::as_raw_fd(&fd),
            events: libc::POLLIN,
            revents: 0,
        };
        let ms = libc::c_int::try_from(left.as_millis()).unwrap_or(libc::c_int::MAX);
        // SAFETY: one valid pollfd, its count 1.
        let ready = unsafe { libc::poll(&mut poll, 1, ms) };
        if ready > 0 {
            break;
        }
        // A signal interrupts the poll; the interrupt's handler stops the child, so the
        // loop sees it exit.
        let interrupted =
            ready < 0 && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted;
        if !interrupted || left.is_zero() {
            return None;
        }
    }
    // SAFETY: rusage is plain old data; an all-zero value is valid.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: siginfo_t is plain old data; an all-zero value is valid.
    let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
    // SAFETY: the raw waitid takes the id type, the id, a writable siginfo_t, the
    // options and a writable rusage; WNOWAIT leaves the child to be reaped by its owner.
    let rc = unsafe {
        libc::syscall(
            libc::SYS_waitid,
            libc::P_PID,
            pid,
            &mut info as *mut libc::siginfo_t,
            libc::WEXITED | libc::WNOWAIT | libc::WNOHANG,
            &mut ru as *mut libc::rusage,
        )
    };
    // With WNOHANG a child that has not exited leaves the siginfo's pid 0.
    // SAFETY: the kernel filled `info` for an exited child, and zeroed it otherwise.
    let exited = rc == 0 && unsafe { info.si_pid() } == pid;
    // Linux reports ru_maxrss in KiB.
    (exited && ru.ru_maxrss > 0).then(|| Bytes(ru.ru_maxrss as u64 * 1024))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dd(block: &str) -> std::process::Child {
        std::process::Command::new("dd")
            .args([
                "if=/dev/zero",
                "of=/dev/null",
                &format!("bs={block}"),
                "count=1",
                "status=none",
            ])
            .spawn()
            .unwrap()
    }

    /// Each child's own peak, a small one after a large one too, which the children's
    /// running maximum cannot give; and the child is left for its owner to reap. A
    /// child starts as a copy of its parent, so its peak is at least the parent's peak
    /// at the spawn: the large child is made larger than this test process has been.
    #[test]
    fn each_child_shows_its_own_peak_and_is_still_reaped_by_its_owner() {
        let timeout = std::time::Duration::from_secs(30);
        let mib = crate::machine::host::own_max_rss().0 / (1 << 20) + 128;
        let mut large = dd(&format!("{mib}M"));
        let large_peak = peak_at_exit(large.id(), timeout).expect("a peak");
        assert!(large.wait().unwrap().success());
        let mut small = dd("4M");
        let small_peak = peak_at_exit(small.id(), timeout).expect("a peak");
        assert!(small.wait().unwrap().success(), "still reapable");
        assert!(large_peak >= Bytes(mib << 20), "{large_peak}");
        assert!(small_peak < large_peak, "{small_peak} vs {large_peak}");
        // A child that outlives the timeout gives nothing, and is not reaped.
        let mut sleeper = std::process::Command::new("sleep")
            .arg("5")
            .spawn()
            .unwrap();
        let short = std::time::Duration::from_millis(50);
        assert_eq!(peak_at_exit(sleeper.id(), short), None);
        sleeper.kill().unwrap();
        sleeper.wait().unwrap();
        // Nor a child already reaped.
        assert_eq!(peak_at_exit(small.id(), short), None);
    }

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
        crate::fixtures::reads_thp_mode();
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
        assert_eq!(zero.peak_rss, None);
        assert_eq!(zero.minflt, 0);
        assert_eq!(zero.maxrss, None);
    }
}
