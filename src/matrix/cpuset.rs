//! The `cpus:` axis: CPU sets in the kernel's list syntax (`0-6`, `0,2,4-7`) or `all`, and
//! the confinement of a launch to one, with `sched_setaffinity` in the child between fork
//! and exec, as `taskset -c` does. The JVM sizes its GC worker pool from the CPUs it may
//! run on, so a set changes both where pretouch runs and how many threads it uses. A set
//! may also be a topology spec ([`CpuSpec`]: `1 L3 domain, 7 CPUs`), resolved to CPUs by
//! `machine::topology` before anything runs.

use std::fmt;

use crate::matrix::cpuspec::CpuSpec;

/// A set of CPUs as the matrix wrote it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum CpuSet {
    /// No confinement: the CPUs the runner itself may use.
    All,
    /// These CPUs, sorted, without duplicates; `text` as written.
    List { text: String, cpus: Vec<usize> },
    /// A topology spec; `cpus` is empty until `machine::topology` resolves it.
    Spec {
        text: String,
        spec: CpuSpec,
        cpus: Vec<usize>,
    },
}

/// The name a cell without a `cpus:` axis has, in records and reports.
pub const ALL: &str = "all";

/// `CPU_SETSIZE`: the largest CPU number `cpu_set_t` holds, plus one.
const MAX_CPUS: usize = 1024;

impl CpuSet {
    /// Parses `all` or a CPU list (`0-6`, `0,2,4-7`).
    pub fn parse(text: &str) -> Result<CpuSet, String> {
        if text == ALL {
            return Ok(CpuSet::All);
        }
        if CpuSpec::looks_like_spec(text) {
            return Ok(CpuSet::Spec {
                text: text.to_owned(),
                spec: CpuSpec::parse(text)?,
                cpus: Vec::new(),
            });
        }
        let cpus = parse_list(text).map_err(|why| {
            format!(
                "invalid CPU set {text:?}: {why}; write `all`, a list like 0-6 or 0,2,4-7, \
                 or a topology spec like `1 L3 domain, 7 CPUs`"
            )
        })?;
        Ok(CpuSet::List {
            text: text.to_owned(),
            cpus,
        })
    }

    /// The CPUs a launch may run on, given those the runner may use.
    pub fn cpus(&self, available: &[usize]) -> Vec<usize> {
        match self {
            CpuSet::All => available.to_vec(),
            CpuSet::List { cpus, .. } | CpuSet::Spec { cpus, .. } => cpus.clone(),
        }
    }

    /// This set with a topology spec's CPUs filled in (other sets are returned as is).
    pub fn resolved(self, resolved: Vec<usize>) -> CpuSet {
        match self {
            CpuSet::Spec { text, spec, .. } => CpuSet::Spec {
                text,
                spec,
                cpus: resolved,
            },
            other => other,
        }
    }

    /// CPUs of the set that are not in `available`.
    pub fn missing(&self, available: &[usize]) -> Vec<usize> {
        match self {
            CpuSet::All => Vec::new(),
            CpuSet::List { cpus, .. } | CpuSet::Spec { cpus, .. } => cpus
                .iter()
                .copied()
                .filter(|c| !available.contains(c))
                .collect(),
        }
    }
}

impl fmt::Display for CpuSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CpuSet::All => f.write_str(ALL),
            CpuSet::List { text, .. } | CpuSet::Spec { text, .. } => f.write_str(text),
        }
    }
}

/// The kernel's CPU list syntax, as in `/sys/devices/system/cpu/online` and `taskset -c`.
pub fn parse_list(text: &str) -> Result<Vec<usize>, String> {
    let mut cpus = Vec::new();
    for item in text.split(',') {
        let item = item.trim();
        let number = |s: &str| -> Result<usize, String> {
            let n: usize = s
                .trim()
                .parse()
                .map_err(|_| format!("`{s}` is not a CPU number"))?;
            if n >= MAX_CPUS {
                return Err(format!(
                    "CPU {n} is beyond the {MAX_CPUS} Linux can address"
                ));
            }
            Ok(n)
        };
        match item.split_once('-') {
            Some((lo, hi)) => {
                let (lo, hi) = (number(lo)?, number(hi)?);
                if lo > hi {
                    return Err(format!("range `{item}` runs backwards"));
                }
                cpus.extend(lo..=hi);
            }
            None => cpus.push(number(item)?),
        }
    }
    cpus.sort_unstable();
    cpus.dedup();
    Ok(cpus)
}

/// A CPU list in the kernel's compact syntax: `[0, 1, 2, 5]` -> `0-2,5`.
pub fn format_list(cpus: &[usize]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < cpus.len() {
        let mut j = i;
        while j + 1 < cpus.len() && cpus[j + 1] == cpus[j] + 1 {
            j += 1;
        }
        parts.push(if i == j {
            cpus[i].to_string()
        } else {
            format!("{}-{}", cpus[i], cpus[j])
        });
        i = j + 1;
    }
    parts.join(",")
}

/// The CPUs this process may run on (`sched_getaffinity`), which its children inherit.
pub fn available() -> std::io::Result<Vec<usize>> {
    // SAFETY: cpu_set_t is plain old data; all-zero is the empty set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: `set` is a valid, writable cpu_set_t of the size passed; pid 0 is this thread.
    let rc = unsafe { libc::sched_getaffinity(0, std::mem::size_of_val(&set), &mut set) };
    if rc != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok((0..MAX_CPUS)
        // SAFETY: `set` is initialised and every index is below CPU_SETSIZE.
        .filter(|&c| unsafe { libc::CPU_ISSET(c, &set) })
        .collect())
}

/// Makes `command`'s child run only on `cpus`, from before its exec on.
pub fn confine(command: &mut std::process::Command, cpus: &[usize]) {
    use std::os::unix::process::CommandExt;
    // SAFETY: cpu_set_t is plain old data; all-zero is the empty set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    for &cpu in cpus.iter().filter(|&&c| c < MAX_CPUS) {
        // SAFETY: `set` is a valid cpu_set_t and cpu < CPU_SETSIZE.
        unsafe { libc::CPU_SET(cpu, &mut set) };
    }
    // SAFETY: the closure runs in the child between fork and exec, where only
    // async-signal-safe calls are allowed: it makes one system call on a set built
    // before the fork, and allocates nothing.
    unsafe {
        command.pre_exec(move || {
            if libc::sched_setaffinity(0, std::mem::size_of_val(&set), &set) == 0 {
                Ok(())
            } else {
                Err(std::io::Error::last_os_error())
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_parse_like_taskset() {
        assert_eq!(parse_list("0-3").unwrap(), [0, 1, 2, 3]);
        assert_eq!(parse_list("5,0-1,1").unwrap(), [0, 1, 5]);
        assert_eq!(parse_list("7").unwrap(), [7]);
        for bad in ["", "a", "3-1", "0-", "-1", "0,,1", "4096"] {
            assert!(parse_list(bad).is_err(), "{bad:?} was accepted");
        }
        assert_eq!(CpuSet::parse("all").unwrap(), CpuSet::All);
        let e = CpuSet::parse("0-x").unwrap_err();
        assert!(e.contains("invalid CPU set \"0-x\""), "{e}");
    }

    #[test]
    fn lists_print_compactly() {
        assert_eq!(format_list(&[0, 1, 2, 5, 7, 8]), "0-2,5,7-8");
        assert_eq!(format_list(&[3]), "3");
        assert_eq!(format_list(&[]), "");
    }

    #[test]
    fn missing_cpus_are_named() {
        let set = CpuSet::parse("0-3").unwrap();
        assert_eq!(set.missing(&[0, 1]), [2, 3]);
        assert!(CpuSet::All.missing(&[0]).is_empty());
        assert_eq!(CpuSet::All.cpus(&[0, 1]), [0, 1]);
    }

    #[test]
    fn a_child_runs_only_on_its_set() {
        let available = available().unwrap();
        assert!(!available.is_empty());
        let cpu = *available.last().unwrap();
        let mut command = std::process::Command::new("grep");
        command.args(["^Cpus_allowed_list:", "/proc/self/status"]);
        confine(&mut command, &[cpu]);
        let out = command.output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(text.trim(), format!("Cpus_allowed_list:\t{cpu}"));
    }
}
