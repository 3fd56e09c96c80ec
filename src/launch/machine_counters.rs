//! Stage 3, beside the launcher: what the whole machine did while one JVM ran. Read
//! just before the spawn and just after the reap (launches never overlap, so the
//! differences belong to the launch): CPU time by state (`/proc/stat`), selected
//! `/proc/vmstat` counters, PSI stall totals (`/proc/pressure/*`), the JVM's context
//! switches (`getrusage(RUSAGE_CHILDREN)`), the idle gap since the previous launch
//! ended, and the memory the guest handed back to its hypervisor where the kernel
//! counts it.
//!
//! A counter this kernel lacks is absent from the record, never zero: "no THP fallback"
//! and "cannot tell" must not read alike.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::units::{Bytes, Nanos};

/// The vmstat counters the report's disturbance analysis (`analyze::disturbance`)
/// reads (with every `allocstall_*`, see [`MachineCounters::allocstalls`]), and the PSI
/// one. They are named here, beside the counters recorded, because the report's reader
/// (`store::LaunchRecord::for_report`) keeps only these: a counter the analysis starts
/// reading must be named here too.
const VMSTAT_READ: [&str; 5] = [
    "thp_fault_fallback",
    "compact_stall",
    "pgscan_direct",
    "pswpin",
    "pswpout",
];
pub const PSI_READ: &str = "memory_some";

/// Whether the report reads the vmstat or PSI counter `name` (see [`VMSTAT_READ`]).
pub fn reads_counter(name: &str) -> bool {
    VMSTAT_READ.contains(&name) || name.starts_with("allocstall_") || name == PSI_READ
}

/// The `/proc/vmstat` counters recorded per launch: faults, THP allocation and its
/// fallbacks, compaction and direct reclaim (the allocator stalling the faulting
/// thread), balloon moves, swap. Only these, to keep the records small.
const VMSTAT_COUNTERS: &[&str] = &[
    "pgfault",
    "pgmajfault",
    "thp_fault_alloc",
    "thp_fault_fallback",
    "thp_fault_fallback_charge",
    "compact_stall",
    "compact_fail",
    "compact_success",
    "allocstall_dma",
    "allocstall_dma32",
    "allocstall_normal",
    "allocstall_movable",
    "allocstall_device",
    "pgscan_direct",
    "pgsteal_direct",
    "balloon_inflate",
    "balloon_deflate",
    "pswpin",
    "pswpout",
];

/// The PSI files read, and the lines kept: `<resource>_<some|full>`.
const PSI_RESOURCES: &[&str] = &["cpu", "memory", "io"];

/// Where the kernel counts memory handed back to the hypervisor by free page reporting,
/// in KiB. Mainline Linux has no such counter; some guest kernels (Firecracker hosts'
/// builds, as on the machine this tool was developed on) add `reported_kib` beside
/// `page_reporting_order`. Absent elsewhere, and then so is the figure.
const REPORTED_KIB: &str = "sys/module/page_reporting/parameters/reported_kib";

/// The PSI lines recorded, as [`Counters`] names them: `<resource>_<some|full>`.
const PSI_NAMES: [&str; 6] = [
    "cpu_some",
    "cpu_full",
    "memory_some",
    "memory_full",
    "io_some",
    "io_full",
];

/// Names of counters that are neither in [`VMSTAT_COUNTERS`] nor in [`PSI_NAMES`]
/// (a file of another version may hold them), each leaked once for the process's life.
/// There are only as many as distinct names, so the leak is bounded.
static OTHER_NAMES: std::sync::RwLock<Vec<&'static str>> = std::sync::RwLock::new(Vec::new());

/// A counter's name as a small number: an index into [`VMSTAT_COUNTERS`] then
/// [`PSI_NAMES`], then into [`OTHER_NAMES`]. Two bytes instead of a `String` a counter a
/// launch, because a campaign's report holds a label's launches at a time, a hundred
/// thousand of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct CounterId(u16);

impl CounterId {
    fn of(name: &str) -> CounterId {
        let known = VMSTAT_COUNTERS.iter().chain(PSI_NAMES.iter());
        if let Some(i) = known.clone().position(|&n| n == name) {
            return CounterId(i as u16);
        }
        let first_other = known.count();
        let found = |others: &[&str]| others.iter().position(|&n| n == name);
        let mut others = OTHER_NAMES.write().unwrap_or_else(|e| e.into_inner());
        let i = found(&others).unwrap_or_else(|| {
            others.push(Box::leak(name.to_owned().into_boxed_str()));
            others.len() - 1
        });
        CounterId(u16::try_from(first_other + i).expect("fewer than 65536 counter names"))
    }

    fn name(self) -> &'static str {
        let i = usize::from(self.0);
        let known = VMSTAT_COUNTERS.len() + PSI_NAMES.len();
        match i.checked_sub(known) {
            None => VMSTAT_COUNTERS
                .get(i)
                .copied()
                .unwrap_or_else(|| PSI_NAMES[i - VMSTAT_COUNTERS.len()]),
            Some(other) => OTHER_NAMES.read().unwrap_or_else(|e| e.into_inner())[other],
        }
    }
}

/// Counters by kernel name, stored as the map `{"name": value, ...}` in name order (as a
/// `BTreeMap<String, u64>` is), held in memory as a sorted boxed slice of
/// (name number, value) pairs: 16 bytes a counter and one allocation a map, so that
/// the report of a campaign (millions of launches) fits in memory.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Counters(Box<[(CounterId, u64)]>);

impl Counters {
    /// The counter `name`'s value, when it is there.
    pub fn get(&self, name: &str) -> Option<&u64> {
        self.0
            .iter()
            .find(|(id, _)| id.name() == name)
            .map(|(_, v)| v)
    }

    pub fn contains_key(&self, name: &str) -> bool {
        self.get(name).is_some()
    }

    /// Sets `name` to `value`, replacing its value if it is there.
    pub fn insert(&mut self, name: &str, value: u64) {
        let mut v = std::mem::take(&mut self.0).into_vec();
        match v.iter_mut().find(|(id, _)| id.name() == name) {
            Some(entry) => entry.1 = value,
            None => v.push((CounterId::of(name), value)),
        }
        v.sort_by_key(|(id, _)| id.name());
        self.0 = v.into_boxed_slice();
    }

    /// Keeps the counters for which `keep` is true.
    pub fn retain(&mut self, mut keep: impl FnMut(&str, u64) -> bool) {
        let mut v = std::mem::take(&mut self.0).into_vec();
        v.retain(|(id, value)| keep(id.name(), *value));
        self.0 = v.into_boxed_slice();
    }

    /// (name, value) in name order.
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, u64)> + '_ {
        self.0.iter().map(|(id, v)| (id.name(), *v))
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl std::ops::Index<&str> for Counters {
    type Output = u64;

    fn index(&self, name: &str) -> &u64 {
        self.get(name)
            .unwrap_or_else(|| panic!("no counter {name}"))
    }
}

impl<K: AsRef<str>> FromIterator<(K, u64)> for Counters {
    /// A name given twice keeps its last value, as a map's insert does.
    fn from_iter<I: IntoIterator<Item = (K, u64)>>(iter: I) -> Counters {
        let mut v: Vec<(CounterId, u64)> = Vec::new();
        for (name, value) in iter {
            let id = CounterId::of(name.as_ref());
            match v.iter_mut().find(|(i, _)| *i == id) {
                Some(entry) => entry.1 = value,
                None => v.push((id, value)),
            }
        }
        v.sort_by_key(|(id, _)| id.name());
        Counters(v.into_boxed_slice())
    }
}

impl Serialize for Counters {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.iter())
    }
}

impl<'de> Deserialize<'de> for Counters {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Counters, D::Error> {
        struct Name(CounterId);
        impl<'de> Deserialize<'de> for Name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Name, D::Error> {
                struct V;
                impl serde::de::Visitor<'_> for V {
                    type Value = Name;
                    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                        f.write_str("a string")
                    }
                    // Without a `String` a counter: the name is looked up where it lies.
                    fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Name, E> {
                        Ok(Name(CounterId::of(s)))
                    }
                }
                d.deserialize_str(V)
            }
        }
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Counters;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a map")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Counters, A::Error> {
                let mut v: Vec<(CounterId, u64)> = Vec::new();
                while let Some((Name(id), value)) = map.next_entry::<Name, u64>()? {
                    match v.iter_mut().find(|(i, _)| *i == id) {
                        Some(entry) => entry.1 = value,
                        None => v.push((id, value)),
                    }
                }
                v.sort_by_key(|(id, _)| id.name());
                Ok(Counters(v.into_boxed_slice()))
            }
        }
        d.deserialize_map(V)
    }
}

/// CPU time of all CPUs by state, from the first line of `/proc/stat`, converted from
/// clock ticks (`USER_HZ`, usually 10 ms) to nanoseconds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CpuTime {
    pub user_ns: Nanos,
    pub nice_ns: Nanos,
    pub system_ns: Nanos,
    pub idle_ns: Nanos,
    pub iowait_ns: Nanos,
    pub irq_ns: Nanos,
    pub softirq_ns: Nanos,
    /// Time this guest's vCPUs were runnable but the hypervisor ran something else.
    pub steal_ns: Nanos,
}

impl CpuTime {
    /// Busy time: every state but idle, iowait and steal (guest time is inside user).
    pub fn busy(&self) -> Nanos {
        Nanos(
            self.user_ns.0 + self.nice_ns.0 + self.system_ns.0 + self.irq_ns.0 + self.softirq_ns.0,
        )
    }

    fn since(&self, before: &CpuTime) -> CpuTime {
        let d = |a: Nanos, b: Nanos| Nanos(a.0.saturating_sub(b.0));
        CpuTime {
            user_ns: d(self.user_ns, before.user_ns),
            nice_ns: d(self.nice_ns, before.nice_ns),
            system_ns: d(self.system_ns, before.system_ns),
            idle_ns: d(self.idle_ns, before.idle_ns),
            iowait_ns: d(self.iowait_ns, before.iowait_ns),
            irq_ns: d(self.irq_ns, before.irq_ns),
            softirq_ns: d(self.softirq_ns, before.softirq_ns),
            steal_ns: d(self.steal_ns, before.steal_ns),
        }
    }
}

/// What the machine did during one launch, stored raw on its record.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MachineCounters {
    /// From the reap of the runner's previous launch to this spawn: the time the machine
    /// had to hand freed memory back to the host. Absent for a session's first launch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idle_before_ns: Option<Nanos>,
    /// CPU time of all CPUs by state during the launch (`/proc/stat`, all CPUs summed;
    /// 10 ms resolution). Absent when `/proc/stat` could not be read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu: Option<CpuTime>,
    /// The increase of each of [`VMSTAT_COUNTERS`] during the launch, by its kernel
    /// name; a counter this kernel lacks is not in the map.
    #[serde(default, skip_serializing_if = "Counters::is_empty")]
    pub vmstat: Counters,
    /// The increase of PSI stall totals during the launch, in microseconds, keyed
    /// `cpu_some`, `memory_some`, `memory_full`, `io_some`, `io_full`; empty without
    /// `/proc/pressure` (a kernel without CONFIG_PSI, or booted with `psi=0`).
    #[serde(default, skip_serializing_if = "Counters::is_empty")]
    pub psi_us: Counters,
    /// The JVM's voluntary context switches (it blocked), all threads, exec to exit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub voluntary_switches: Option<u64>,
    /// The JVM's involuntary context switches (preempted by other threads or processes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub involuntary_switches: Option<u64>,
    /// Memory the guest reported to the hypervisor (free page reporting) during the
    /// idle gap before this launch, from [`REPORTED_KIB`]. Absent where the kernel has
    /// no such count, and for a session's first launch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reported_before: Option<Bytes>,
    /// The same during the launch itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reported_during: Option<Bytes>,
    /// Free memory at the spawn (`nr_free_pages` of /proc/vmstat): when it is low, THP
    /// faults fall back and compaction stalls the JVM.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub free_before: Option<Bytes>,
}

impl MachineCounters {
    /// A vmstat counter's increase, when this kernel has it.
    pub fn vm(&self, name: &str) -> Option<u64> {
        self.vmstat.get(name).copied()
    }

    /// The sum of the `allocstall_*` counters the kernel has (direct reclaim entries).
    pub fn allocstalls(&self) -> Option<u64> {
        let stalls: Vec<u64> = self
            .vmstat
            .iter()
            .filter(|(k, _)| k.starts_with("allocstall_"))
            .map(|(_, v)| v)
            .collect();
        (!stalls.is_empty()).then(|| stalls.iter().sum())
    }

    /// Busy CPU time of everything but the JVM: all busy time minus `jvm_cpu` (its user
    /// plus system time from rusage), never below zero. Includes the runner's own small
    /// share and the kernel's work for nobody in particular (interrupts).
    pub fn other_busy(&self, jvm_cpu: Nanos) -> Option<Nanos> {
        self.cpu
            .map(|c| Nanos(c.busy().0.saturating_sub(jvm_cpu.0)))
    }
}

/// One reading of the machine's counters.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Snapshot {
    /// CLOCK_MONOTONIC of the reading.
    pub at: Nanos,
    cpu: Option<CpuTime>,
    vmstat: BTreeMap<String, u64>,
    psi_us: BTreeMap<String, u64>,
    switches: (u64, u64),
    reported_kib: Option<u64>,
    free_pages: Option<u64>,
}

/// Reads the counters under a root folder (`/` on a real machine; tests pass a fake tree).
#[derive(Debug, Clone)]
pub struct CounterSource {
    root: PathBuf,
    /// Clock ticks a second of `/proc/stat`.
    ticks_per_s: u64,
}

impl Default for CounterSource {
    fn default() -> CounterSource {
        CounterSource::new(Path::new("/"))
    }
}

impl CounterSource {
    pub fn new(root: &Path) -> CounterSource {
        // SAFETY: sysconf has no preconditions.
        let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
        CounterSource {
            root: root.to_owned(),
            ticks_per_s: u64::try_from(hz).ok().filter(|&h| h > 0).unwrap_or(100),
        }
    }

    fn read(&self, path: &str) -> Option<String> {
        std::fs::read_to_string(self.root.join(path)).ok()
    }

    /// Reads every counter now. Cheap: a handful of small procfs files.
    pub fn snapshot(&self) -> Snapshot {
        let at = Nanos::monotonic_now();
        let vmstat_text = self.read("proc/vmstat");
        let psi_us = PSI_RESOURCES
            .iter()
            .filter_map(|r| Some((r, self.read(&format!("proc/pressure/{r}"))?)))
            .flat_map(|(r, text)| {
                parse_psi(&text)
                    .into_iter()
                    .map(move |(kind, total)| (format!("{r}_{kind}"), total))
            })
            .collect();
        Snapshot {
            at,
            cpu: self
                .read("proc/stat")
                .and_then(|t| parse_stat(&t, self.ticks_per_s)),
            vmstat: vmstat_text.as_deref().map(parse_vmstat).unwrap_or_default(),
            free_pages: vmstat_text.as_deref().and_then(|t| {
                t.lines()
                    .find_map(|l| l.strip_prefix("nr_free_pages ")?.trim().parse().ok())
            }),
            psi_us,
            switches: children_switches(),
            reported_kib: self.read(REPORTED_KIB).and_then(|t| t.trim().parse().ok()),
        }
    }
}

/// Keeps the reading at the previous launch's reap, for the idle gap before the next.
#[derive(Debug, Default)]
pub struct MachineWatch {
    source: CounterSource,
    last_reap: Option<Snapshot>,
}

impl MachineWatch {
    pub fn new(source: CounterSource) -> MachineWatch {
        MachineWatch {
            source,
            last_reap: None,
        }
    }

    /// Reads the counters just before a spawn.
    pub fn before_spawn(&self) -> Snapshot {
        self.source.snapshot()
    }

    /// Reads the counters just after the reap and returns what changed since `before`;
    /// remembers this reading as the start of the next idle gap.
    pub fn after_reap(&mut self, before: &Snapshot) -> MachineCounters {
        let after = self.source.snapshot();
        let counters = counters_between(self.last_reap.as_ref(), before, &after);
        self.last_reap = Some(after);
        counters
    }
}

/// The record of one launch from the readings at the previous reap (if any), at the
/// spawn and at the reap.
fn counters_between(
    previous_reap: Option<&Snapshot>,
    before: &Snapshot,
    after: &Snapshot,
) -> MachineCounters {
    let diff = |a: &BTreeMap<String, u64>, b: &BTreeMap<String, u64>| -> Counters {
        b.iter()
            .filter_map(|(k, after)| Some((k, after.saturating_sub(*a.get(k)?))))
            .collect()
    };
    let reported = |from: Option<u64>, to: Option<u64>| {
        from.zip(to).map(|(a, b)| Bytes(b.saturating_sub(a) * 1024))
    };
    MachineCounters {
        idle_before_ns: previous_reap.and_then(|p| before.at.since(p.at)),
        cpu: before.cpu.zip(after.cpu).map(|(b, a)| a.since(&b)),
        vmstat: diff(&before.vmstat, &after.vmstat),
        psi_us: diff(&before.psi_us, &after.psi_us),
        voluntary_switches: Some(after.switches.0.saturating_sub(before.switches.0)),
        involuntary_switches: Some(after.switches.1.saturating_sub(before.switches.1)),
        reported_before: previous_reap.and_then(|p| reported(p.reported_kib, before.reported_kib)),
        reported_during: reported(before.reported_kib, after.reported_kib),
        free_before: before.free_pages.map(|p| Bytes(p * page_size())),
    }
}

/// How busy the machine is while this process waits `sample`: the share of all CPUs'
/// time that was busy (everything but idle, iowait and steal), and the share stolen by
/// the hypervisor. `None` without `/proc/stat`. The runner sleeps meanwhile, so the
/// busy time is other processes'.
/// Share of all CPU time that went to other processes over a launch (its warm-up,
/// first of a run), above which the run is warned about.
const BUSY_WARNING: f64 = 0.25;

/// Share of all CPU time that went to steal over a launch, above which the run is
/// warned about.
const STEAL_WARNING: f64 = 0.05;

/// Over one launch: the share of all CPUs' time that other processes had (busy time
/// less the JVM's own CPU time, `jvm_cpu`) and the share stolen by the host. `None`
/// without the CPU counters.
pub fn launch_busy_share(m: &MachineCounters, jvm_cpu: Nanos) -> Option<(f64, f64)> {
    let cpu = m.cpu?;
    let total = cpu.busy().0 + cpu.idle_ns.0 + cpu.iowait_ns.0 + cpu.steal_ns.0;
    let other = m.other_busy(jvm_cpu)?;
    (total > 0).then(|| {
        (
            other.0 as f64 / total as f64,
            cpu.steal_ns.0 as f64 / total as f64,
        )
    })
}

/// The warning for a machine found busy over `over` (`the first launch, 0.31 s`);
/// `None` below [`BUSY_WARNING`] and [`STEAL_WARNING`].
pub fn busy_warning(busy: f64, steal: f64, over: &str) -> Option<String> {
    (busy >= BUSY_WARNING || steal >= STEAL_WARNING).then(|| {
        textwrap::fill(
            &format!(
                "warning: the machine is busy. Over {over}, other processes took {:.0}% of all CPU time and steal took {:.0}%, so launches will be disturbed. Each record keeps the other processes' CPU time, and the report names the launches they slowed.",
                100.0 * busy,
                100.0 * steal
            ),
            80,
        )
        .replace('\n', "\n  ")
    })
}

/// The first (`cpu `) line of `/proc/stat`: user nice system idle iowait irq softirq
/// steal (guest and guest_nice are already inside user and nice). Kernels before 2.6.11
/// lack steal; it then reads as absent, and so does the whole reading.
fn parse_stat(text: &str, ticks_per_s: u64) -> Option<CpuTime> {
    let line = text.lines().find(|l| l.starts_with("cpu "))?;
    let v: Vec<u64> = line
        .split_whitespace()
        .skip(1)
        .map(str::parse)
        .collect::<Result<_, _>>()
        .ok()?;
    if v.len() < 8 || ticks_per_s == 0 {
        return None;
    }
    // In u128: ticks since boot of many CPUs times 10^9 overflows u64 within a year.
    let ns = |ticks: u64| {
        Nanos(
            u64::try_from(u128::from(ticks) * 1_000_000_000 / u128::from(ticks_per_s))
                .unwrap_or(u64::MAX),
        )
    };
    Some(CpuTime {
        user_ns: ns(v[0]),
        nice_ns: ns(v[1]),
        system_ns: ns(v[2]),
        idle_ns: ns(v[3]),
        iowait_ns: ns(v[4]),
        irq_ns: ns(v[5]),
        softirq_ns: ns(v[6]),
        steal_ns: ns(v[7]),
    })
}

/// The counters of [`VMSTAT_COUNTERS`] that `/proc/vmstat` holds.
fn parse_vmstat(text: &str) -> BTreeMap<String, u64> {
    text.lines()
        .filter_map(|l| {
            let (name, value) = l.split_once(' ')?;
            VMSTAT_COUNTERS
                .contains(&name)
                .then(|| Some((name.to_owned(), value.trim().parse().ok()?)))?
        })
        .collect()
}

/// The `total=` of each line of a PSI file: `some avg10=0.00 avg60=0.00 avg300=0.00
/// total=1234` -> (`some`, 1234). `/proc/pressure/cpu` has a `full` line of zeros on
/// kernels before 5.13; it is kept as the kernel gives it.
fn parse_psi(text: &str) -> Vec<(String, u64)> {
    text.lines()
        .filter_map(|l| {
            let mut words = l.split_whitespace();
            let kind = words.next()?;
            let total = words.find_map(|w| w.strip_prefix("total="))?.parse().ok()?;
            Some((kind.to_owned(), total))
        })
        .collect()
}

fn page_size() -> u64 {
    // SAFETY: sysconf has no preconditions.
    u64::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) })
        .ok()
        .filter(|&p| p > 0)
        .unwrap_or(4096)
}

/// Voluntary and involuntary context switches of every child reaped so far.
fn children_switches() -> (u64, u64) {
    // SAFETY: rusage is plain old data; an all-zero value is valid and getrusage fills it.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `ru` is a valid, writable rusage; RUSAGE_CHILDREN is a valid `who`.
    unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut ru) };
    (ru.ru_nvcsw.max(0) as u64, ru.ru_nivcsw.max(0) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    const STAT: &str = "cpu  69466 5 55208 152152 1483 0 114 417 0 0\ncpu0 31015 4 29021 78628 496 0 10 208 0 0\nintr 1 2 3\n";

    #[test]
    fn proc_stat_in_nanoseconds() {
        let cpu = parse_stat(STAT, 100).unwrap();
        assert_eq!(cpu.user_ns, Nanos(694_660_000_000));
        assert_eq!(cpu.steal_ns, Nanos(4_170_000_000));
        assert_eq!(cpu.idle_ns, Nanos(1_521_520_000_000));
        // busy = user + nice + system + irq + softirq.
        assert_eq!(cpu.busy(), Nanos((69466 + 5 + 55208 + 114) * 10_000_000));
        // 84 CPUs for a year: no overflow.
        let year = 84 * 100 * 365 * 86_400_u64;
        let big = parse_stat(&format!("cpu  {year} 0 0 0 0 0 0 0\n"), 100).unwrap();
        assert_eq!(big.user_ns, Nanos(year * 10_000_000));
        // A kernel without steal time (7 columns) gives no reading.
        assert_eq!(parse_stat("cpu  1 2 3 4 5 6 7\n", 100), None);
        assert_eq!(parse_stat("garbage", 100), None);
    }

    #[test]
    fn vmstat_keeps_the_selected_counters_that_exist() {
        let text = "nr_free_pages 3522818\npgfault 88040272\nthp_fault_alloc 81872\nallocstall_normal 4\nallocstall_movable 474\nnot_a_number x\n";
        let v = parse_vmstat(text);
        assert_eq!(v.len(), 4, "{v:?}");
        assert_eq!(v["pgfault"], 88040272);
        assert!(!v.contains_key("thp_fault_fallback"), "absent, not zero");
        let c = MachineCounters {
            vmstat: v.iter().map(|(k, v)| (k, *v)).collect(),
            ..MachineCounters::default()
        };
        assert_eq!(c.allocstalls(), Some(478));
        assert_eq!(MachineCounters::default().allocstalls(), None);
    }

    #[test]
    fn psi_totals() {
        let text = "some avg10=4.13 avg60=5.07 avg300=7.74 total=180302565\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n";
        assert_eq!(
            parse_psi(text),
            [("some".to_owned(), 180302565), ("full".to_owned(), 0)]
        );
        assert!(parse_psi("").is_empty());
    }

    fn snap(at: u64, stat: &str, vmstat: &str, reported: Option<u64>, sw: (u64, u64)) -> Snapshot {
        Snapshot {
            at: Nanos(at),
            cpu: parse_stat(stat, 100),
            vmstat: parse_vmstat(vmstat),
            psi_us: [("memory_some".to_owned(), at / 1000)].into(),
            switches: sw,
            reported_kib: reported,
            free_pages: Some(1000),
        }
    }

    #[test]
    fn differences_belong_to_the_launch_and_the_gap_before() {
        let reap = snap(
            1_000_000_000,
            "cpu  100 0 100 1000 0 0 0 10\n",
            "pgfault 10\n",
            Some(1000),
            (5, 1),
        );
        let spawn = snap(
            13_000_000_000,
            "cpu  110 0 100 3000 0 0 0 10\n",
            "pgfault 20\n",
            Some(2_008_000),
            (5, 1),
        );
        let end = snap(
            15_000_000_000,
            "cpu  150 0 300 3100 0 0 0 18\n",
            "pgfault 8020\nthp_fault_alloc 3\n",
            Some(2_009_024),
            (105, 41),
        );
        let c = counters_between(Some(&reap), &spawn, &end);
        assert_eq!(c.idle_before_ns, Some(Nanos(12_000_000_000)));
        assert_eq!(c.reported_before, Some(Bytes(2_007_000 * 1024)));
        assert_eq!(c.reported_during, Some(Bytes(1024 * 1024)));
        assert_eq!(c.vm("pgfault"), Some(8000));
        assert_eq!(c.vm("thp_fault_alloc"), None, "not there at the spawn");
        let cpu = c.cpu.unwrap();
        assert_eq!(cpu.steal_ns, Nanos(80_000_000));
        assert_eq!(cpu.busy(), Nanos(2_400_000_000));
        // The JVM used 1.9 s of it: 0.5 s went to other processes.
        assert_eq!(c.other_busy(Nanos(1_900_000_000)), Some(Nanos(500_000_000)));
        assert_eq!(c.other_busy(Nanos(9_000_000_000)), Some(Nanos(0)));
        assert_eq!(
            (c.voluntary_switches, c.involuntary_switches),
            (Some(100), Some(40))
        );
        assert_eq!(c.psi_us["memory_some"], 2_000_000);
        assert_eq!(c.free_before, Some(Bytes(1000 * page_size())));
        // The first launch of a session has no gap before it.
        let first = counters_between(None, &spawn, &end);
        assert_eq!((first.idle_before_ns, first.reported_before), (None, None));
        // A kernel without the reported count: absent, not zero.
        let mut bare = end.clone();
        bare.reported_kib = None;
        assert_eq!(
            counters_between(Some(&reap), &spawn, &bare).reported_during,
            None
        );
    }

    #[test]
    fn a_fake_machine_without_counters_reads_as_absent() {
        let dir = tempfile::tempdir().unwrap();
        let source = CounterSource::new(dir.path());
        let s = source.snapshot();
        let c = counters_between(Some(&s), &s, &source.snapshot());
        assert_eq!(c.cpu, None);
        assert!(c.vmstat.is_empty() && c.psi_us.is_empty());
        assert_eq!(c.reported_during, None);
    }

    #[test]
    fn a_launch_judges_the_machine_by_other_processes_cpu_time() {
        // 0.4 s of two CPUs: 0.8 s in all; the JVM used 0.3 s of the 0.5 s busy.
        let cpu = CpuTime {
            user_ns: Nanos(400_000_000),
            system_ns: Nanos(100_000_000),
            idle_ns: Nanos(280_000_000),
            steal_ns: Nanos(20_000_000),
            ..CpuTime::default()
        };
        let m = MachineCounters {
            cpu: Some(cpu),
            ..MachineCounters::default()
        };
        let (busy, steal) = launch_busy_share(&m, Nanos(300_000_000)).unwrap();
        assert!((busy - 0.25).abs() < 1e-9 && (steal - 0.025).abs() < 1e-9);
        let warning = busy_warning(busy, steal, "the first launch (0.40 s)").unwrap();
        let words = warning.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            words.contains("other processes took 25% of all CPU time"),
            "{warning}"
        );
        // The JVM's own time is not load; without counters there is no judgement.
        let (quiet, _) = launch_busy_share(&m, Nanos(500_000_000)).unwrap();
        assert_eq!(quiet, 0.0);
        assert_eq!(busy_warning(quiet, 0.0, "x"), None);
        assert_eq!(
            launch_busy_share(&MachineCounters::default(), Nanos(0)),
            None
        );
    }

    #[test]
    fn counters_are_stored_as_the_map_they_replace() {
        // Names out of order, one given twice, one no version of this tool records.
        let text =
            r#"{"pswpout":3,"allocstall_normal":2,"zz_from_elsewhere":9,"pgfault":1,"pswpout":4}"#;
        let map: BTreeMap<String, u64> = serde_json::from_str(text).unwrap();
        let counters: Counters = serde_json::from_str(text).unwrap();
        assert_eq!(
            serde_json::to_string(&counters).unwrap(),
            serde_json::to_string(&map).unwrap()
        );
        assert_eq!(counters.len(), 4);
        assert_eq!(counters["pswpout"], 4, "the last value, as the map keeps");
        assert_eq!(counters.get("zz_from_elsewhere"), Some(&9));
        assert_eq!(counters.get("pgmajfault"), None);
        let collected: Counters = map.iter().map(|(k, v)| (k, *v)).collect();
        assert_eq!(collected, counters);
        let mut kept = counters.clone();
        kept.retain(|name, _| name.starts_with('p'));
        assert_eq!(
            kept.iter().collect::<Vec<_>>(),
            [("pgfault", 1), ("pswpout", 4)]
        );
        kept.insert("compact_stall", 5);
        kept.insert("pgfault", 6);
        assert_eq!(
            serde_json::to_string(&kept).unwrap(),
            r#"{"compact_stall":5,"pgfault":6,"pswpout":4}"#
        );
        // What is not a map of counts is refused as the map refused it.
        for bad in [r#"{"pgfault":-1}"#, r#"[1]"#, r#"{"pgfault":"x"}"#] {
            let map = serde_json::from_str::<BTreeMap<String, u64>>(bad).unwrap_err();
            let counters = serde_json::from_str::<Counters>(bad).unwrap_err();
            assert_eq!(counters.to_string(), map.to_string(), "{bad}");
        }
    }

    #[test]
    fn a_counter_is_sixteen_bytes() {
        // The report holds about a dozen a launch, for millions of launches.
        assert_eq!(std::mem::size_of::<(CounterId, u64)>(), 16);
        assert_eq!(std::mem::size_of::<Counters>(), 16);
    }

    #[test]
    fn this_machine_has_cpu_times_and_vmstat() {
        let source = CounterSource::default();
        let before = source.snapshot();
        let after = source.snapshot();
        let c = counters_between(None, &before, &after);
        assert!(c.cpu.is_some(), "/proc/stat with steal since 2.6.11");
        assert!(c.vm("pgfault").is_some(), "{c:?}");
    }
}
