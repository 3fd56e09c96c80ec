//! Facts about the machine a run is taken on, for the run header.

use std::ffi::CStr;

use serde::{Deserialize, Serialize};

/// The machine a run was taken on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HostInfo {
    /// `uname -r`.
    pub kernel_release: String,
    /// `uname -v`.
    pub kernel_version: String,
    pub hostname: String,
    /// `model name` of /proc/cpuinfo.
    pub cpu_model: String,
    /// Online CPUs.
    pub cpus: usize,
}

pub fn host_info() -> HostInfo {
    // SAFETY: utsname is plain old data; an all-zero value is valid and uname fills it.
    let mut uts: libc::utsname = unsafe { std::mem::zeroed() };
    // SAFETY: `uts` is a valid, writable utsname.
    let ok = unsafe { libc::uname(&mut uts) } == 0;
    let field = |f: &[libc::c_char]| {
        if !ok {
            return "unknown".to_owned();
        }
        // SAFETY: uname NUL-terminates every field within its array.
        unsafe { CStr::from_ptr(f.as_ptr()) }
            .to_string_lossy()
            .into_owned()
    };
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let cpu_model = cpuinfo
        .lines()
        .find_map(|l| {
            l.strip_prefix("model name")?
                .split_once(':')
                .map(|(_, v)| v.trim().to_owned())
        })
        .unwrap_or_else(|| "unknown".to_owned());
    // SAFETY: sysconf has no preconditions.
    let cpus = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) }.max(1) as usize;
    HostInfo {
        kernel_release: field(&uts.release),
        kernel_version: field(&uts.version),
        hostname: field(&uts.nodename),
        cpu_model,
        cpus,
    }
}

/// This process's peak resident set so far.
pub fn own_max_rss() -> crate::units::Bytes {
    // SAFETY: rusage is plain old data; an all-zero value is valid and getrusage fills it.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `usage` is a valid, writable rusage.
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) };
    // Linux reports ru_maxrss in KiB.
    crate::units::Bytes(usage.ru_maxrss.max(0) as u64 * 1024)
}

/// This process runs as root (effective uid 0).
pub fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() == 0 }
}

/// The program `name` on this machine's `PATH`: the first regular file of that name that
/// may be executed, as a shell would find it. The instruments look for their tools,
/// such as perf and bpftrace, with it.
pub fn find_on_path(name: &str) -> Option<std::path::PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|p| {
            std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}

#[cfg(test)]
mod tests {
    #[test]
    fn reads_this_machine() {
        let h = super::host_info();
        assert!(!h.kernel_release.is_empty() && h.kernel_release != "unknown");
        assert!(h.cpus >= 1);
    }
}
