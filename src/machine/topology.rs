//! This machine's CPU topology, read from sysfs: sockets, NUMA nodes, last-level-cache
//! (L3) domains, cores and their SMT siblings; and the CPUs a topology spec
//! ([`CpuSpec`]) picks from it, the way a person would: domains in the order of their
//! lowest CPU, and within a domain one CPU per core before any SMT sibling.
//!
//! Files read under the root (`/sys/devices/system`, or `$PRETOUCH_SYSFS` so that tests
//! can point at a fake tree): `cpu/online`, `cpu/cpuN/topology/{physical_package_id,
//! thread_siblings_list}`, `cpu/cpuN/cache/index*/{level,shared_cpu_list}` (the level-3
//! one) and `node/nodeN/cpulist`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::matrix::cpuset::{self, CpuSet, format_list, parse_list};
use crate::matrix::cpuspec::{CpuSpec, DomainKind};

/// Where sysfs's `devices/system` is: `$PRETOUCH_SYSFS` if set (tests), else the real one.
pub fn sysfs_root() -> PathBuf {
    std::env::var_os("PRETOUCH_SYSFS")
        .map_or_else(|| PathBuf::from("/sys/devices/system"), PathBuf::from)
}

/// One online CPU and the domains it belongs to. Domains are numbered from 0 in the
/// order of their lowest CPU.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cpu {
    pub id: usize,
    /// `physical_package_id`.
    pub socket: usize,
    pub node: usize,
    pub l3: usize,
    pub core: usize,
    /// Position among its core's SMT siblings: 0 for the first thread.
    pub thread: usize,
}

impl Cpu {
    fn domain(&self, kind: DomainKind) -> usize {
        match kind {
            DomainKind::L3 => self.l3,
            DomainKind::Node => self.node,
            DomainKind::Socket => self.socket,
            DomainKind::Core => self.core,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Topology {
    /// Online CPUs, by id.
    pub cpus: Vec<Cpu>,
    /// The machine has no level-3 cache in sysfs: each socket counts as one L3 domain.
    pub l3_is_socket: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum TopologyError {
    #[error("reading `{path}`")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("`{path}`: {why}")]
    Parse { path: PathBuf, why: String },
}

fn read(path: &Path) -> Result<String, TopologyError> {
    std::fs::read_to_string(path)
        .map(|s| s.trim().to_owned())
        .map_err(|source| TopologyError::Read {
            path: path.to_owned(),
            source,
        })
}

fn read_list(path: &Path) -> Result<Vec<usize>, TopologyError> {
    parse_list(&read(path)?).map_err(|why| TopologyError::Parse {
        path: path.to_owned(),
        why,
    })
}

/// Numbers groups of CPUs (each given by its member list) by their lowest CPU.
fn number_groups(groups: &[Vec<usize>]) -> Vec<usize> {
    let mut firsts: Vec<usize> = groups.iter().filter_map(|g| g.first().copied()).collect();
    firsts.sort_unstable();
    firsts.dedup();
    groups
        .iter()
        .map(|g| {
            firsts
                .binary_search(&g.first().copied().unwrap_or(0))
                .unwrap_or(0)
        })
        .collect()
}

impl Topology {
    /// Reads the topology under `root` (a `devices/system` folder).
    pub fn read(root: &Path) -> Result<Topology, TopologyError> {
        let online = read_list(&root.join("cpu/online"))?;
        let mut sockets = Vec::new();
        let mut siblings = Vec::new();
        let mut l3s = Vec::new();
        let mut l3_is_socket = false;
        for &id in &online {
            let dir = root.join(format!("cpu/cpu{id}"));
            let socket_path = dir.join("topology/physical_package_id");
            let socket: i64 = read(&socket_path)?
                .parse()
                .map_err(|_| TopologyError::Parse {
                    path: socket_path,
                    why: "not a number".into(),
                })?;
            let socket = socket.max(0) as usize;
            sockets.push(socket);
            let sib_path = dir.join("topology/thread_siblings_list");
            siblings.push(if sib_path.exists() {
                read_list(&sib_path)?
            } else {
                vec![id]
            });
            let mut l3 = None;
            if let Ok(entries) = std::fs::read_dir(dir.join("cache")) {
                let mut indexes: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
                indexes.sort();
                for index in indexes {
                    if read(&index.join("level")).is_ok_and(|l| l == "3") {
                        l3 = Some(read_list(&index.join("shared_cpu_list"))?);
                        break;
                    }
                }
            }
            l3s.push(l3.unwrap_or_else(|| {
                l3_is_socket = true;
                Vec::new()
            }));
        }
        if l3_is_socket {
            // No L3 in sysfs: the socket's CPUs are the domain.
            for i in 0..online.len() {
                l3s[i] = online
                    .iter()
                    .zip(&sockets)
                    .filter(|(_, s)| **s == sockets[i])
                    .map(|(c, _)| *c)
                    .collect();
            }
        }
        let mut nodes = vec![0; online.len()];
        if let Ok(entries) = std::fs::read_dir(root.join("node")) {
            for e in entries.flatten() {
                let name = e.file_name().to_string_lossy().into_owned();
                let Some(n) = name.strip_prefix("node").and_then(|n| n.parse().ok()) else {
                    continue;
                };
                for cpu in read_list(&e.path().join("cpulist"))? {
                    if let Ok(i) = online.binary_search(&cpu) {
                        nodes[i] = n;
                    }
                }
            }
        }
        let cores = number_groups(&siblings);
        let l3 = number_groups(&l3s);
        let cpus = online
            .iter()
            .enumerate()
            .map(|(i, &id)| Cpu {
                id,
                socket: sockets[i],
                node: nodes[i],
                l3: l3[i],
                core: cores[i],
                thread: siblings[i].iter().position(|&c| c == id).unwrap_or(0),
            })
            .collect();
        Ok(Topology { cpus, l3_is_socket })
    }

    fn count(&self, kind: DomainKind) -> usize {
        self.cpus
            .iter()
            .map(|c| c.domain(kind))
            .collect::<BTreeSet<_>>()
            .len()
    }

    /// One line: `2 sockets, 2 NUMA nodes, 2 L3 domains, 40 cores, 80 CPUs (2 per core)`.
    pub fn summary(&self) -> String {
        let per_core = self.cpus.iter().map(|c| c.thread + 1).max().unwrap_or(1);
        let n = |kind: DomainKind| format!("{} {}", self.count(kind), kind.name(self.count(kind)));
        format!(
            "{}, {}, {}{}, {}, {} CPUs ({})",
            n(DomainKind::Socket),
            n(DomainKind::Node),
            n(DomainKind::L3),
            if self.l3_is_socket {
                " (no L3 in sysfs: one per socket)"
            } else {
                ""
            },
            n(DomainKind::Core),
            self.cpus.len(),
            if per_core > 1 {
                format!("{per_core} per core: SMT on")
            } else {
                "1 per core: no SMT".to_owned()
            }
        )
    }

    /// Each domain of a kind with its CPUs: `0: 0-6,84-90; 1: 7-13,91-97; ...`.
    fn domains_text(&self, kind: DomainKind, available: &[usize]) -> String {
        let groups = self.groups(kind, available);
        let shown: Vec<String> = groups
            .iter()
            .take(16)
            .map(|(d, cpus)| format!("{d}: CPUs {}", format_list(&sorted(cpus))))
            .collect();
        let more = if groups.len() > 16 {
            format!("; {} more", groups.len() - 16)
        } else {
            String::new()
        };
        shown.join("; ") + &more
    }

    /// The available CPUs of each domain of `kind`, domains in order, each domain's CPUs
    /// one per core first (first threads by core, then second threads...).
    fn groups(&self, kind: DomainKind, available: &[usize]) -> Vec<(usize, Vec<usize>)> {
        let mut groups: Vec<(usize, Vec<&Cpu>)> = Vec::new();
        for cpu in self.cpus.iter().filter(|c| available.contains(&c.id)) {
            let d = cpu.domain(kind);
            match groups.iter_mut().find(|(g, _)| *g == d) {
                Some((_, list)) => list.push(cpu),
                None => groups.push((d, vec![cpu])),
            }
        }
        groups.sort_by_key(|(d, _)| *d);
        groups
            .into_iter()
            .map(|(d, mut list)| {
                list.sort_by_key(|c| (c.thread, c.core, c.id));
                (d, list.iter().map(|c| c.id).collect())
            })
            .collect()
    }

    /// The CPUs `spec` picks among `available` (online CPUs this runner may use), or why
    /// it cannot, naming what the machine has.
    pub fn select(&self, spec: &CpuSpec, available: &[usize]) -> Result<Vec<usize>, String> {
        let usable: Vec<usize> = self
            .cpus
            .iter()
            .map(|c| c.id)
            .filter(|c| available.contains(c))
            .collect();
        let has = || {
            format!(
                "this machine has {} in all{}",
                self.summary(),
                if usable.len() < self.cpus.len() {
                    format!(
                        ", and this runner may use CPUs {} only",
                        format_list(&usable)
                    )
                } else {
                    String::new()
                }
            )
        };
        match *spec {
            CpuSpec::Cpus(n) => {
                let mut cpus: Vec<&Cpu> = self
                    .cpus
                    .iter()
                    .filter(|c| usable.contains(&c.id))
                    .collect();
                if cpus.len() < n {
                    return Err(format!("it asks for {n} CPUs, but {}", has()));
                }
                cpus.sort_by_key(|c| (c.thread, c.l3, c.core, c.id));
                Ok(sorted(
                    &cpus.iter().take(n).map(|c| c.id).collect::<Vec<_>>(),
                ))
            }
            CpuSpec::Domains { count, kind, per } => {
                let groups = self.groups(kind, &usable);
                let need = per.unwrap_or(1);
                let mut eligible: Vec<&(usize, Vec<usize>)> =
                    groups.iter().filter(|(_, c)| c.len() >= need).collect();
                // Domains that give their CPUs from distinct cores come first: a person
                // takes a whole free CCD before SMT siblings of a partly used one.
                let cores = |cpus: &[usize]| {
                    self.cpus
                        .iter()
                        .filter(|c| cpus.contains(&c.id))
                        .map(|c| c.core)
                        .collect::<BTreeSet<_>>()
                        .len()
                };
                eligible.sort_by_key(|(d, c)| (cores(c) < need, *d));
                if eligible.len() < count {
                    return Err(format!(
                        "it asks for {count} {} of at least {need} CPU(s), but this machine has {} such {} ({})\n  {}",
                        kind.name(count),
                        eligible.len(),
                        kind.name(eligible.len()),
                        self.domains_text(kind, &usable),
                        has()
                    ));
                }
                let mut cpus = Vec::new();
                for (_, members) in eligible.into_iter().take(count) {
                    cpus.extend(members.iter().take(per.unwrap_or(members.len())));
                }
                Ok(sorted(&cpus))
            }
        }
    }

    /// Where `cpus` lie: for the record beside a measurement.
    pub fn placement(&self, set: &str, cpus: &[usize]) -> Placement {
        let of = |f: fn(&Cpu) -> usize| -> Vec<usize> {
            self.cpus
                .iter()
                .filter(|c| cpus.contains(&c.id))
                .map(f)
                .collect::<BTreeSet<_>>()
                .into_iter()
                .collect()
        };
        Placement {
            set: set.to_owned(),
            cpus: sorted(cpus),
            l3_domains: of(|c| c.l3),
            nodes: of(|c| c.node),
            sockets: of(|c| c.socket),
            cores: of(|c| c.core).len(),
        }
    }
}

fn sorted(cpus: &[usize]) -> Vec<usize> {
    let mut v = cpus.to_vec();
    v.sort_unstable();
    v
}

/// Where a set of CPUs lies in the machine: recorded beside what ran on it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Placement {
    /// The set as asked for: a topology spec (`1 L3 domain, 7 CPUs`), a CPU list or `all`.
    pub set: String,
    /// The CPUs it resolved to, ascending; one worker was pinned to each.
    pub cpus: Vec<usize>,
    /// The L3 domains those CPUs lie in (numbered from 0 by their lowest CPU).
    pub l3_domains: Vec<usize>,
    /// Their NUMA nodes.
    pub nodes: Vec<usize>,
    /// Their sockets (`physical_package_id`).
    pub sockets: Vec<usize>,
    /// How many distinct cores they are (fewer than CPUs: SMT siblings share a core).
    pub cores: usize,
}

/// Resolves a CPU set against this machine: a topology spec picks its CPUs, a list is
/// checked against `available`, `all` is `available`. The error says what the machine
/// has; nothing has run yet.
pub fn resolve(
    set: &CpuSet,
    topology: &Topology,
    available: &[usize],
) -> Result<(CpuSet, Placement), String> {
    let resolved = match set {
        CpuSet::Spec { spec, .. } => {
            let cpus = topology
                .select(spec, available)
                .map_err(|why| format!("cpus `{set}`: {why}"))?;
            set.clone().resolved(cpus)
        }
        CpuSet::List { .. } => {
            let missing = set.missing(available);
            if !missing.is_empty() {
                return Err(format!(
                    "cpus `{set}` names CPU(s) {} that this machine does not have\n  available: {}, {} CPUs. This machine has {}.",
                    format_list(&missing),
                    format_list(available),
                    available.len(),
                    topology.summary()
                ));
            }
            set.clone()
        }
        CpuSet::All => set.clone(),
    };
    let cpus = resolved.cpus(available);
    let placement = topology.placement(&set.to_string(), &cpus);
    Ok((resolved, placement))
}

/// [`resolve`] on this machine: sysfs at [`sysfs_root`], the runner's own affinity.
pub fn resolve_here(set: &CpuSet) -> Result<(CpuSet, Placement), String> {
    let topology = Topology::read(&sysfs_root())
        .map_err(|e| format!("cannot read the CPU topology: {}", chain(&e)))?;
    let mut available = cpuset::available().map_err(|e| format!("reading CPU affinity: {e}"))?;
    available.retain(|c| topology.cpus.iter().any(|t| t.id == *c));
    resolve(set, &topology, &available)
}

fn chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut source = e.source();
    while let Some(cause) = source {
        s += &format!(": {cause}");
        source = cause.source();
    }
    s
}

/// Fake sysfs trees for tests: machines this one is not.
#[cfg(any(test, feature = "test-support"))]
pub mod fake {
    use std::path::Path;

    use crate::matrix::cpuset::format_list;

    /// A machine's shape and how Linux numbers its CPUs.
    pub struct Machine {
        pub sockets: usize,
        /// L3 domains (CCDs) per socket.
        pub l3_per_socket: usize,
        pub cores_per_l3: usize,
        /// Threads per core (2: SMT on).
        pub smt: usize,
        /// First threads numbered alternately across sockets (many 2-socket Intel
        /// servers: CPU 0 on socket 0, CPU 1 on socket 1, ...); otherwise socket by socket.
        pub interleave_sockets: bool,
        /// One NUMA node per socket; otherwise one node in all.
        pub node_per_socket: bool,
    }

    /// AMD EPYC 9634: 84 cores in 12 CCDs of 7, SMT on, one socket, NPS1. Linux numbers
    /// the first threads 0-83 (CCD k: 7k..7k+6), their siblings 84-167.
    pub const EPYC_9634: Machine = Machine {
        sockets: 1,
        l3_per_socket: 12,
        cores_per_l3: 7,
        smt: 2,
        interleave_sockets: false,
        node_per_socket: true,
    };

    /// Two Intel Xeon sockets of 20 cores (one L3 each), Hyper-Threading on, a NUMA node
    /// each; first threads alternate between the sockets (even: socket 0, odd: socket 1),
    /// siblings 40-79 in the same pattern.
    pub const XEON_2S: Machine = Machine {
        sockets: 2,
        l3_per_socket: 1,
        cores_per_l3: 20,
        smt: 2,
        interleave_sockets: true,
        node_per_socket: true,
    };

    impl Machine {
        /// The CPU id of (socket, l3 in socket, core in l3, thread).
        pub fn cpu(&self, socket: usize, l3: usize, core: usize, thread: usize) -> usize {
            let cores_per_socket = self.l3_per_socket * self.cores_per_l3;
            let cores = self.sockets * cores_per_socket;
            let in_socket = l3 * self.cores_per_l3 + core;
            let first = if self.interleave_sockets {
                in_socket * self.sockets + socket
            } else {
                socket * cores_per_socket + in_socket
            };
            thread * cores + first
        }

        /// Writes the tree under `root` (a `devices/system` folder).
        pub fn write(&self, root: &Path) -> std::io::Result<()> {
            let total = self.sockets * self.l3_per_socket * self.cores_per_l3 * self.smt;
            std::fs::create_dir_all(root.join("cpu"))?;
            std::fs::write(root.join("cpu/online"), format!("0-{}\n", total - 1))?;
            let mut nodes: Vec<Vec<usize>> = vec![Vec::new(); self.sockets];
            for s in 0..self.sockets {
                for l in 0..self.l3_per_socket {
                    let mut l3: Vec<usize> = (0..self.cores_per_l3)
                        .flat_map(|c| (0..self.smt).map(move |t| (c, t)))
                        .map(|(c, t)| self.cpu(s, l, c, t))
                        .collect();
                    l3.sort_unstable();
                    for c in 0..self.cores_per_l3 {
                        let mut sib: Vec<usize> =
                            (0..self.smt).map(|t| self.cpu(s, l, c, t)).collect();
                        sib.sort_unstable();
                        for &id in &sib {
                            let dir = root.join(format!("cpu/cpu{id}"));
                            std::fs::create_dir_all(dir.join("topology"))?;
                            std::fs::write(
                                dir.join("topology/physical_package_id"),
                                format!("{s}\n"),
                            )?;
                            std::fs::write(
                                dir.join("topology/core_id"),
                                format!("{}\n", l * self.cores_per_l3 + c),
                            )?;
                            std::fs::write(
                                dir.join("topology/thread_siblings_list"),
                                format!("{}\n", format_list(&sib)),
                            )?;
                            for (index, level) in [(0, 1), (2, 2), (3, 3)] {
                                let cache = dir.join(format!("cache/index{index}"));
                                std::fs::create_dir_all(&cache)?;
                                std::fs::write(cache.join("level"), format!("{level}\n"))?;
                                let shared = if level == 3 {
                                    format_list(&l3)
                                } else {
                                    format_list(&sib)
                                };
                                std::fs::write(cache.join("shared_cpu_list"), shared + "\n")?;
                            }
                            nodes[if self.node_per_socket { s } else { 0 }].push(id);
                        }
                    }
                }
            }
            for (n, cpus) in nodes.iter_mut().enumerate() {
                if cpus.is_empty() {
                    continue;
                }
                cpus.sort_unstable();
                let dir = root.join(format!("node/node{n}"));
                std::fs::create_dir_all(&dir)?;
                std::fs::write(dir.join("cpulist"), format_list(cpus) + "\n")?;
            }
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::fake::{EPYC_9634, Machine, XEON_2S};
    use super::*;

    fn tree(m: &Machine) -> (tempfile::TempDir, Topology) {
        let dir = tempfile::tempdir().unwrap();
        m.write(dir.path()).unwrap();
        let t = Topology::read(dir.path()).unwrap();
        (dir, t)
    }

    fn all(t: &Topology) -> Vec<usize> {
        t.cpus.iter().map(|c| c.id).collect()
    }

    fn pick(t: &Topology, spec: &str) -> Result<Vec<usize>, String> {
        t.select(&CpuSpec::parse(spec).unwrap(), &all(t))
    }

    #[test]
    fn epyc_9634_picks_ccds_as_a_person_would() {
        let (_dir, t) = tree(&EPYC_9634);
        assert_eq!(t.cpus.len(), 168);
        assert_eq!(
            t.summary(),
            "1 socket, 1 NUMA node, 12 L3 domains, 84 cores, 168 CPUs (2 per core: SMT on)"
        );
        // One CPU on each of the first seven CCDs: the first core of each.
        assert_eq!(
            pick(&t, "7 CCDs, 1 CPU each").unwrap(),
            [0, 7, 14, 21, 28, 35, 42]
        );
        // Seven CPUs of one CCD: its seven cores, no SMT sibling.
        assert_eq!(pick(&t, "1 CCD, 7 CPUs").unwrap(), [0, 1, 2, 3, 4, 5, 6]);
        assert_eq!(
            pick(&t, "12 CCDs, 1 CPU each").unwrap(),
            (0..12).map(|k| 7 * k).collect::<Vec<_>>()
        );
        // Siblings only once every core of the CCD has one.
        assert_eq!(
            pick(&t, "1 L3 domain, 9 CPUs").unwrap(),
            [0, 1, 2, 3, 4, 5, 6, 84, 85]
        );
        assert_eq!(pick(&t, "1 core, 2 CPUs").unwrap(), [0, 84]);
        assert_eq!(pick(&t, "1 CCD").unwrap().len(), 14);
        assert_eq!(pick(&t, "8 CPUs").unwrap(), [0, 1, 2, 3, 4, 5, 6, 7]);
        let placement = t.placement("7 CCDs, 1 CPU each", &[0, 7, 14, 21, 28, 35, 42]);
        assert_eq!(placement.l3_domains, [0, 1, 2, 3, 4, 5, 6]);
        assert_eq!((placement.cores, placement.nodes.len()), (7, 1));
        // Thirteen CCDs, or eight CPUs of one, are more than it has.
        let e = pick(&t, "13 CCDs, 1 CPU each").unwrap_err();
        assert!(e.contains("asks for 13 L3 domains"), "{e}");
        assert!(
            e.contains("has 12 such L3 domains (0: CPUs 0-6,84-90; 1: CPUs 7-13,91-97;"),
            "{e}"
        );
        let e = pick(&t, "1 CCD, 15 CPUs").unwrap_err();
        assert!(
            e.contains("of at least 15 CPU(s), but this machine has 0 such"),
            "{e}"
        );
    }

    #[test]
    fn two_socket_xeon_picks_sockets_across_interleaved_numbers() {
        let (_dir, t) = tree(&XEON_2S);
        assert_eq!(
            t.summary(),
            "2 sockets, 2 NUMA nodes, 2 L3 domains, 40 cores, 80 CPUs (2 per core: SMT on)"
        );
        // Socket 0 holds the even first threads: its L3 is one domain.
        assert_eq!(pick(&t, "1 L3 domain, 4 CPUs").unwrap(), [0, 2, 4, 6]);
        assert_eq!(pick(&t, "2 L3 domains, 1 CPU each").unwrap(), [0, 1]);
        assert_eq!(pick(&t, "2 sockets, 2 CPUs each").unwrap(), [0, 1, 2, 3]);
        assert_eq!(pick(&t, "1 NUMA node, 2 CPUs").unwrap(), [0, 2]);
        assert_eq!(pick(&t, "1 core, 2 CPUs").unwrap(), [0, 40]);
        assert_eq!(pick(&t, "1 socket").unwrap().len(), 40);
        let e = pick(&t, "3 sockets, 1 CPU each").unwrap_err();
        assert!(e.contains("asks for 3 sockets"), "{e}");
        assert!(e.contains("2 sockets, 2 NUMA nodes"), "{e}");
        let p = t.placement("2 L3 domains, 1 CPU each", &[0, 1]);
        assert_eq!(
            (p.l3_domains, p.nodes, p.sockets),
            (vec![0, 1], vec![0, 1], vec![0, 1])
        );
    }

    #[test]
    fn only_cpus_the_runner_may_use_are_picked() {
        let (_dir, t) = tree(&EPYC_9634);
        // Cores 0-2 of CCD 0 outside the affinity: CCD 0 still has 8 CPUs, but on 4
        // cores; seven CPUs on seven cores come from CCD 1.
        let available: Vec<usize> = (0..168).filter(|c| !matches!(c % 84, 0..=2)).collect();
        let spec = CpuSpec::parse("1 CCD, 7 CPUs").unwrap();
        assert_eq!(
            t.select(&spec, &available).unwrap(),
            [7, 8, 9, 10, 11, 12, 13]
        );
        // Four CPUs fit on CCD 0's four free cores.
        let spec = CpuSpec::parse("1 CCD, 4 CPUs").unwrap();
        assert_eq!(t.select(&spec, &available).unwrap(), [3, 4, 5, 6]);
        let e = t.select(&CpuSpec::Cpus(200), &available).unwrap_err();
        assert!(e.contains("may use CPUs 3-83,87-167 only"), "{e}");
    }

    #[test]
    fn resolving_fills_the_set_and_names_its_domains() {
        let (_dir, t) = tree(&EPYC_9634);
        let set = CpuSet::parse("7 CCDs, 1 CPU each").unwrap();
        let (resolved, placement) = resolve(&set, &t, &all(&t)).unwrap();
        assert_eq!(resolved.cpus(&[]), [0, 7, 14, 21, 28, 35, 42]);
        assert_eq!(resolved.to_string(), "7 CCDs, 1 CPU each");
        assert_eq!(placement.l3_domains.len(), 7);
        let e = resolve(&CpuSet::parse("0-200").unwrap(), &t, &all(&t)).unwrap_err();
        assert!(e.contains("names CPU(s) 168-200"), "{e}");
    }

    #[test]
    fn this_machine_reads() {
        let t = Topology::read(Path::new("/sys/devices/system")).unwrap();
        assert!(!t.cpus.is_empty());
        // Every CPU is in exactly one L3 domain, and picking one domain's CPUs stays in it.
        let one = t
            .select(&CpuSpec::parse("1 L3 domain").unwrap(), &all(&t))
            .unwrap();
        let p = t.placement("1 L3 domain", &one);
        assert_eq!(p.l3_domains, [0]);
    }
}
