//! CPU sets by topology, as a person says them: `7 L3 domains, 1 CPU each`,
//! `1 L3 domain, 7 CPUs`, `2 NUMA nodes`, `1 core, 2 CPUs` (a core and its SMT sibling),
//! `4 CPUs`. Only the syntax lives here; `machine::topology` picks the CPUs from the
//! machine's sysfs.
//!
//! ```text
//! spec   := COUNT UNIT [", " PER]  |  COUNT "CPU(s)"
//! UNIT   := "L3 domain(s)" | "L3(s)" | "CCD(s)" | "NUMA node(s)" | "node(s)"
//!         | "socket(s)" | "package(s)" | "core(s)"
//! PER    := COUNT "CPU(s)" ["each"] | "all CPUs"
//! ```
//!
//! Words are case-insensitive and singular or plural. A CCD is an L3 domain (on AMD Zen
//! each CCD, or CCX, has an L3 of its own; on Intel a socket's L3 is one domain). Without
//! `PER`, every CPU of each domain. With more than one domain, `PER` must say `each`:
//! `2 L3 domains, 4 CPUs` could mean 4 in all.

use std::fmt;

/// A kind of topology domain.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DomainKind {
    /// CPUs sharing one last-level (L3) cache: `cache/index3/shared_cpu_list`.
    L3,
    /// A NUMA node: `node/node*/cpulist`.
    Node,
    /// A physical package: `topology/physical_package_id`.
    Socket,
    /// A core: its SMT siblings, `topology/thread_siblings_list`.
    Core,
}

impl DomainKind {
    /// The name in messages, singular or plural.
    pub fn name(self, count: usize) -> &'static str {
        match (self, count == 1) {
            (DomainKind::L3, true) => "L3 domain",
            (DomainKind::L3, false) => "L3 domains",
            (DomainKind::Node, true) => "NUMA node",
            (DomainKind::Node, false) => "NUMA nodes",
            (DomainKind::Socket, true) => "socket",
            (DomainKind::Socket, false) => "sockets",
            (DomainKind::Core, true) => "core",
            (DomainKind::Core, false) => "cores",
        }
    }
}

/// A CPU set given by topology.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CpuSpec {
    /// `N CPUs`: N CPUs, one per core before any SMT sibling, filling L3 domains in order.
    Cpus(usize),
    /// `N <domains>[, M CPUs each]`: the first N domains that have M CPUs, M from each
    /// (one per core first); `per: None` takes every CPU of each.
    Domains {
        count: usize,
        kind: DomainKind,
        per: Option<usize>,
    },
}

const SYNTAX: &str = "Write a CPU list (0-6, 0,2,4-7), `all`, or a topology spec such as \
`1 L3 domain, 7 CPUs`, `7 L3 domains, 1 CPU each`, `2 NUMA nodes`, `1 core, 2 CPUs`, `4 CPUs`";

impl CpuSpec {
    /// Whether `text` reads as a topology spec (it has a letter), not a CPU list.
    pub fn looks_like_spec(text: &str) -> bool {
        text.chars().any(|c| c.is_ascii_alphabetic())
    }

    pub fn parse(text: &str) -> Result<CpuSpec, String> {
        let fail = |why: &str| format!("invalid CPU set {text:?}: {why}. {SYNTAX}");
        let (head, tail) = match text.split_once(',') {
            Some((h, t)) => (h, Some(t)),
            None => (text, None),
        };
        let words: Vec<String> = head.split_whitespace().map(str::to_lowercase).collect();
        let Some((first, unit)) = words.split_first() else {
            return Err(fail("it is empty"));
        };
        let count = count(first).map_err(|e| fail(&e))?;
        let unit: Vec<&str> = unit.iter().map(String::as_str).collect();
        if is_cpus(&unit) {
            if tail.is_some() {
                return Err(fail("`N CPUs` takes nothing after a comma"));
            }
            return Ok(CpuSpec::Cpus(count));
        }
        let kind = match unit.as_slice() {
            ["l3", "domain" | "domains"] | ["l3" | "l3s"] | ["ccd" | "ccds"] => DomainKind::L3,
            ["numa", "node" | "nodes"] | ["node" | "nodes"] => DomainKind::Node,
            ["socket" | "sockets"] | ["package" | "packages"] => DomainKind::Socket,
            ["core" | "cores"] => DomainKind::Core,
            _ => {
                return Err(fail(&format!(
                    "`{}` is not a unit (L3 domains, CCDs, NUMA nodes, sockets, cores, CPUs)",
                    unit.join(" ")
                )));
            }
        };
        let per = match tail {
            None => None,
            Some(tail) => {
                let words: Vec<String> = tail.split_whitespace().map(str::to_lowercase).collect();
                let words: Vec<&str> = words.iter().map(String::as_str).collect();
                match words.as_slice() {
                    ["all", "cpus"] => None,
                    [n, rest @ ..] => {
                        let (unit, each) = match rest {
                            [u @ .., "each"] => (u, true),
                            u => (u, false),
                        };
                        if !is_cpus(unit) {
                            return Err(fail("after the comma, write `M CPUs` or `M CPUs each`"));
                        }
                        if count > 1 && !each {
                            return Err(fail(&format!(
                                "with {count} {}, say `{n} CPUs each` (per domain)",
                                kind.name(count)
                            )));
                        }
                        Some(self::count(n).map_err(|e| fail(&e))?)
                    }
                    [] => return Err(fail("nothing after the comma")),
                }
            }
        };
        Ok(CpuSpec::Domains { count, kind, per })
    }
}

fn is_cpus(words: &[&str]) -> bool {
    matches!(words, ["cpu" | "cpus"])
}

fn count(word: &str) -> Result<usize, String> {
    match word.parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!("`{word}` is not a count of at least 1")),
    }
}

impl fmt::Display for CpuSpec {
    /// The canonical spelling (`1 L3 domain, 7 CPUs`, `7 L3 domains, 1 CPU each`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let cpus = |n: usize| if n == 1 { "CPU" } else { "CPUs" };
        match *self {
            CpuSpec::Cpus(n) => write!(f, "{n} {}", cpus(n)),
            CpuSpec::Domains { count, kind, per } => {
                write!(f, "{count} {}", kind.name(count))?;
                match per {
                    Some(m) if count > 1 => write!(f, ", {m} {} each", cpus(m)),
                    Some(m) => write!(f, ", {m} {}", cpus(m)),
                    None => Ok(()),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_read_as_people_write_them() {
        let d = |count, kind, per| CpuSpec::Domains { count, kind, per };
        for (text, spec) in [
            ("7 L3 domains, 1 CPU each", d(7, DomainKind::L3, Some(1))),
            ("1 L3 domain, 7 CPUs", d(1, DomainKind::L3, Some(7))),
            ("7 CCDs, 1 CPU each", d(7, DomainKind::L3, Some(1))),
            ("1 ccd,  7 cpus", d(1, DomainKind::L3, Some(7))),
            ("12 CCDs, 1 CPU each", d(12, DomainKind::L3, Some(1))),
            ("2 NUMA nodes", d(2, DomainKind::Node, None)),
            ("1 node, all CPUs", d(1, DomainKind::Node, None)),
            ("2 sockets, 3 CPUs each", d(2, DomainKind::Socket, Some(3))),
            ("1 core, 2 CPUs", d(1, DomainKind::Core, Some(2))),
            ("4 cores, 1 CPU each", d(4, DomainKind::Core, Some(1))),
            ("1 CPU", CpuSpec::Cpus(1)),
            ("2 CPUs", CpuSpec::Cpus(2)),
        ] {
            assert_eq!(CpuSpec::parse(text), Ok(spec), "{text}");
            // The canonical spelling reads back as the same spec.
            assert_eq!(CpuSpec::parse(&spec.to_string()), Ok(spec), "{spec}");
        }
        assert_eq!(
            CpuSpec::parse("7 ccds, 1 cpu each").unwrap().to_string(),
            "7 L3 domains, 1 CPU each"
        );
    }

    #[test]
    fn bad_specs_say_what_to_write() {
        for (text, says) in [
            ("2 L3 domains, 4 CPUs", "say `4 CPUs each`"),
            ("0 CPUs", "not a count of at least 1"),
            ("two CCDs", "not a count"),
            ("3 dies", "`dies` is not a unit"),
            ("1 CCD, 7 threads", "after the comma"),
            ("4 CPUs, 1 CPU each", "takes nothing after a comma"),
            ("1 CCD,", "nothing after the comma"),
        ] {
            let e = CpuSpec::parse(text).unwrap_err();
            assert!(e.contains(says), "{text}: {e}");
            assert!(e.contains("7 L3 domains, 1 CPU each"), "{text}: {e}");
        }
    }
}
