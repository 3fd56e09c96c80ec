//! Stage 5, analysis: why a launch was slow, from what the machine did meanwhile (the
//! counters of `launch/machine_counters.rs` and the JVM's rusage). Each launch is
//! compared with the median of its cell and setting: the kernel under test does the
//! same work in every launch of a cell, so what differs is the machine: the host took
//! memory back (free page reporting), another guest stole the vCPU, other processes
//! took CPU, THP fell back, the allocator compacted or reclaimed.
//!
//! The causes are likely, not proven: a counter says what happened during the launch,
//! not that it made this launch slow. Thresholds are set well above the noise of
//! undisturbed launches on the development VM (10 ms tick resolution of /proc/stat).

use std::collections::BTreeMap;

use crate::launch::machine_counters::MachineCounters;
use crate::stats::summarize;
use crate::store::LaunchRecord;

const MIB: u64 = 1 << 20;
/// Memory handed to the host in a gap that predicts a slow next launch (research on the
/// development VM: above ~200 MiB every 2g THP launch was slow; 64 MiB leaves margin).
const REPORTED_MIN: u64 = 64 * MIB;

pub use crate::launch::machine_counters::{PSI_READ, reads_counter};

/// One counted launch of a cell, as the cell's analysis sees it.
pub struct Judged<'a> {
    pub record: &'a LaunchRecord,
    /// Time to main(), ms.
    pub ms: f64,
    /// Flagged as an outlier within its cell and setting.
    pub outlier: bool,
    /// The file the launch is in: its header says whether free page reporting was on.
    pub reporting_on: bool,
    /// Its round as counted, from 1: the file's round less the warm-up rounds before
    /// it, as the report's `rounds` and its chart number them.
    pub round: u32,
}

/// What the cell's launches say about disturbances.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CellDisturbance {
    /// Counted launches with at least one cause.
    pub disturbed: usize,
    /// Each kind of cause and how many launches had it, e.g. `memory returned to host 3,
    /// other processes 2`.
    pub summary: String,
    /// Each outlier launch and its causes: `round 3 with pretouch 2437 ms: idle 12 s
    /// before: memory returned to host (1960 MiB reported)`, `; `-separated.
    pub outlier_causes: String,
    /// The same, one entry per outlier, for the text report.
    pub outliers: Vec<String>,
    /// The same as data, one per outlier in launch order: what
    /// [`crate::analyze::outliers::OutlierSummary`] condenses.
    pub outlier_launches: Vec<OutlierLaunch>,
}

/// One launch flagged as an outlier, and what the machine counters say caused it.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct OutlierLaunch {
    /// Its round as counted, from 1 ([`Judged::round`]).
    pub round: u32,
    pub pretouch: bool,
    /// Its time to main(), ms.
    pub ms: f64,
    /// The median of its cell and setting, ms.
    pub median_ms: Option<f64>,
    /// Its causes (`other processes 812 ms CPU`); empty when none is found.
    pub causes: Vec<String>,
    /// Each cause's kind (`other processes`), or `unexplained` / `no machine counters`.
    pub kinds: Vec<String>,
}

/// The medians a launch is compared with: its cell and setting.
#[derive(Debug, Clone, Copy, Default)]
struct Peers {
    stime_ms: Option<f64>,
    faults: Option<f64>,
    other_ms: Option<f64>,
    thp_fallback: Option<f64>,
    compact_stall: Option<f64>,
    involuntary: Option<f64>,
}

fn median(values: impl Iterator<Item = f64>) -> Option<f64> {
    let v: Vec<f64> = values.collect();
    summarize(&v).map(|s| s.median)
}

/// Busy CPU time of other processes during the launch, ms.
fn other_ms(r: &LaunchRecord) -> Option<f64> {
    let m = r.measured.machine.as_ref()?;
    let jvm = r
        .measured
        .rusage
        .map(|u| crate::units::Nanos(u.utime_ns.0 + u.stime_ns.0))?;
    m.other_busy(jvm).map(|n| n.as_ms())
}

fn peers(launches: &[&LaunchRecord]) -> Peers {
    let vm = |name: &'static str| {
        median(
            launches
                .iter()
                .filter_map(|r| r.measured.machine.as_ref()?.vm(name).map(|v| v as f64)),
        )
    };
    Peers {
        stime_ms: median(
            launches
                .iter()
                .filter_map(|r| r.measured.rusage.map(|u| u.stime_ns.as_ms())),
        ),
        faults: median(
            launches
                .iter()
                .filter_map(|r| r.measured.rusage.map(|u| u.minflt as f64)),
        ),
        other_ms: median(launches.iter().filter_map(|r| other_ms(r))),
        thp_fallback: vm("thp_fault_fallback"),
        compact_stall: vm("compact_stall"),
        involuntary: median(launches.iter().filter_map(|r| {
            r.measured
                .machine
                .as_ref()?
                .involuntary_switches
                .map(|v| v as f64)
        })),
    }
}

fn secs(ns: u64) -> String {
    let s = ns as f64 / 1e9;
    if s < 10.0 {
        format!("{s:.1} s")
    } else {
        format!("{s:.0} s")
    }
}

/// The likely causes of one launch's time, each a short phrase starting with the
/// cause's kind (`steal`, `other processes`, `memory returned to host`, ...); empty when
/// no counter stands out. `reporting_on`: free page reporting was on for the run.
fn causes_against(r: &LaunchRecord, p: &Peers, reporting_on: bool) -> Vec<String> {
    let Some(m) = &r.measured.machine else {
        return Vec::new();
    };
    let mut out = Vec::new();
    out.extend(memory_returned(r, m, p, reporting_on));
    out.extend(cpu_taken(r, m, p));
    out.extend(memory_management(m, p));
    out
}

/// The host took memory back: counted where the kernel counts it (before the launch,
/// else during it), else read from the JVM's system time, since the host's faults are
/// charged to the guest's clear_page.
fn memory_returned(
    r: &LaunchRecord,
    m: &MachineCounters,
    p: &Peers,
    reporting_on: bool,
) -> Option<String> {
    let idle = m
        .idle_before_ns
        .filter(|n| n.0 >= 2_000_000_000)
        .map(|n| format!("idle {} before: ", secs(n.0)))
        .unwrap_or_default();
    let reported = m.reported_before.filter(|b| b.0 >= REPORTED_MIN);
    let during = m.reported_during.filter(|b| b.0 >= REPORTED_MIN);
    if let Some(b) = reported {
        return Some(format!(
            "{idle}memory returned to host ({} MiB reported)",
            b.0 / MIB
        ));
    }
    if let Some(b) = during {
        return Some(format!(
            "memory returned to host ({} MiB reported during the launch)",
            b.0 / MIB
        ));
    }
    let (u, median_stime, median_faults) = (r.measured.rusage?, p.stime_ms?, p.faults?);
    let stime = u.stime_ns.as_ms();
    let same_faults = (u.minflt as f64) <= median_faults * 1.25 + 1000.0;
    (reporting_on && same_faults && stime >= 2.0 * median_stime + 50.0).then(|| {
        format!(
            "{idle}memory returned to host (system CPU {} against {} in its cell, as many faults)",
            secs((stime * 1e6) as u64),
            secs((median_stime * 1e6) as u64)
        )
    })
}

/// The CPU was taken from the launch: stolen by the host, used by other processes, or
/// the JVM preempted far more often than its cell-mates.
fn cpu_taken(r: &LaunchRecord, m: &MachineCounters, p: &Peers) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(cpu) = m.cpu {
        let steal = cpu.steal_ns.as_ms();
        if steal >= 20.0 {
            out.push(format!("steal {steal:.0} ms"));
        }
    }
    if let (Some(other), Some(cpu)) = (other_ms(r), m.cpu) {
        // More than the cell's other launches saw, or a quarter of all CPU time: on a
        // machine busy throughout, every launch shares it, and each says so.
        let typical = p.other_ms.unwrap_or(0.0);
        let all = (cpu.busy().0 + cpu.idle_ns.0 + cpu.iowait_ns.0 + cpu.steal_ns.0) as f64 / 1e6;
        if other >= 50.0 && (other >= 1.5 * typical + 20.0 || other >= 0.25 * all) {
            out.push(format!("other processes {other:.0} ms CPU"));
        }
    }
    if let (Some(n), Some(median)) = (m.involuntary_switches, p.involuntary)
        && n as f64 >= 3.0 * median + 100.0
    {
        out.push(format!("preempted {n} times"));
    }
    out
}

/// The kernel's memory management got in the way: THP fell back or compaction stalled
/// more than in the cell's other launches, direct reclaim, swap, a memory pressure stall.
fn memory_management(m: &MachineCounters, p: &Peers) -> Vec<String> {
    let mut out = Vec::new();
    let more = |name: &str, typical: Option<f64>| {
        m.vm(name)
            .filter(|&n| n > 0 && n as f64 > typical.unwrap_or(0.0) * 1.5)
    };
    if let Some(n) = more("thp_fault_fallback", p.thp_fallback) {
        out.push(format!("THP fallback {n}"));
    }
    if let Some(n) = more("compact_stall", p.compact_stall) {
        out.push(format!("compaction stalls {n}"));
    }
    let scanned = m.vm("pgscan_direct").unwrap_or(0);
    if m.allocstalls().unwrap_or(0) > 0 || scanned > 0 {
        out.push(format!("direct reclaim ({scanned} pages scanned)"));
    }
    let swapped = m.vm("pswpin").unwrap_or(0) + m.vm("pswpout").unwrap_or(0);
    if swapped > 0 {
        out.push(format!("swap {swapped} pages"));
    }
    if let Some(us) = m.psi_us.get(PSI_READ)
        && *us >= 10_000
    {
        out.push(format!("memory pressure stall {} ms", us / 1000));
    }
    out
}

/// The kind of a cause: its words before any figure or parenthesis.
fn kind(cause: &str) -> &str {
    let cause = cause.split_once(": ").map_or(cause, |(_, c)| c);
    let end = cause
        .find(|c: char| c.is_ascii_digit() || c == '(')
        .unwrap_or(cause.len());
    cause[..end].trim()
}

/// Judges a cell's counted launches: which were disturbed, by what, and the likely cause
/// of each outlier.
pub fn judge_cell(launches: &[Judged<'_>]) -> CellDisturbance {
    let mut by_setting: BTreeMap<bool, Vec<&LaunchRecord>> = BTreeMap::new();
    for j in launches {
        by_setting
            .entry(j.record.pretouch)
            .or_default()
            .push(j.record);
    }
    let peer: BTreeMap<bool, Peers> = by_setting
        .iter()
        .map(|(setting, records)| (*setting, peers(records)))
        .collect();
    let median_ms: BTreeMap<bool, Option<f64>> = [false, true]
        .into_iter()
        .map(|s| {
            (
                s,
                median(
                    launches
                        .iter()
                        .filter(|j| j.record.pretouch == s)
                        .map(|j| j.ms),
                ),
            )
        })
        .collect();
    let mut result = CellDisturbance::default();
    let mut kinds: BTreeMap<String, usize> = BTreeMap::new();
    for j in launches {
        let p = peer.get(&j.record.pretouch).copied().unwrap_or_default();
        let causes = causes_against(j.record, &p, j.reporting_on);
        if !causes.is_empty() {
            result.disturbed += 1;
            let mut seen: Vec<&str> = causes.iter().map(|c| kind(c)).collect();
            seen.dedup();
            for k in seen {
                *kinds.entry(k.to_owned()).or_default() += 1;
            }
        }
        if j.outlier {
            let (line, launch) = outlier(j, causes, median_ms[&j.record.pretouch]);
            result.outliers.push(line);
            result.outlier_launches.push(launch);
        }
    }
    let mut kinds: Vec<(String, usize)> = kinds.into_iter().collect();
    kinds.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    result.summary = kinds
        .iter()
        .map(|(k, n)| format!("{k} {n}"))
        .collect::<Vec<_>>()
        .join(", ");
    result.outlier_causes = result.outliers.join("; ");
    result
}

/// An outlier launch with its `causes`, against the `median` of its cell and setting:
/// the text report's line, and the same as data.
fn outlier(j: &Judged<'_>, causes: Vec<String>, median: Option<f64>) -> (String, OutlierLaunch) {
    let setting = if j.record.pretouch { "with" } else { "without" };
    let shown_median = median
        .map(|m| format!(", median {m:.0}"))
        .unwrap_or_default();
    // A load slows a launch down, so a launch faster than its median is blamed on none,
    // whatever the counters say of the machine meanwhile.
    let faster = median.is_some_and(|m| j.ms < m);
    let causes = if faster { Vec::new() } else { causes };
    let why = if faster {
        FASTER.to_owned()
    } else if !causes.is_empty() {
        causes.join(", ")
    } else if j.record.measured.machine.is_none() {
        "no machine counters recorded (file written before they were)".to_owned()
    } else {
        "no machine counter explains it".to_owned()
    };
    let line = format!(
        "round {} {setting} pretouch {:.0} ms{shown_median}: {why}",
        j.round, j.ms
    );
    let mut kinds: Vec<String> = if faster {
        vec![FASTER.to_owned()]
    } else if !causes.is_empty() {
        causes.iter().map(|c| kind(c).to_owned()).collect()
    } else if j.record.measured.machine.is_none() {
        vec![NO_COUNTERS.to_owned()]
    } else {
        vec![UNEXPLAINED.to_owned()]
    };
    kinds.dedup();
    let launch = OutlierLaunch {
        round: j.round,
        pretouch: j.record.pretouch,
        ms: j.ms,
        median_ms: median,
        causes,
        kinds,
    };
    (line, launch)
}

/// The kind of an outlier no machine counter explains.
const UNEXPLAINED: &str = "unexplained";

/// The outlier line and kind of a launch faster than its median: a load slows a
/// launch, so none is named.
const FASTER: &str = "faster than its median, which no load explains";

/// The kind of an outlier from a file written before machine counters were recorded.
pub const NO_COUNTERS: &str = "no machine counters";

/// The causes of one launch against the given cell-mates (same cell and setting), for
/// callers that judge a single launch (the scheduler's re-runs, tests).
pub fn causes(r: &LaunchRecord, cell_mates: &[&LaunchRecord], reporting_on: bool) -> Vec<String> {
    causes_against(r, &peers(cell_mates), reporting_on)
}

/// What the machine was during each label's runs, where it matters for the numbers:
/// free page reporting on, a VM. One note per machine and kind, naming every label
/// that ran there, oldest label first.
pub fn machine_notes(results: &crate::store::Results) -> Vec<String> {
    let mut files: Vec<_> = results.files.iter().collect();
    files.sort_by(|a, b| a.header.started_at.cmp(&b.header.started_at));
    // (host, what was said of it, the labels it is said of), in the order first met.
    let mut seen: Vec<(String, String, Vec<String>)> = Vec::new();
    let mut note = |hostname: &str, text: String, label: &str| match seen
        .iter_mut()
        .find(|(h, t, _)| h == hostname && *t == text)
    {
        Some((_, _, labels)) => {
            if !labels.iter().any(|l| l == label) {
                labels.push(label.to_owned());
            }
        }
        None => seen.push((hostname.to_owned(), text, vec![label.to_owned()])),
    };
    for f in &files {
        let label = f.header.label.as_str();
        let hostname = f.header.host.hostname.as_str();
        if let Some(cm) = &f.header.comparable_memory {
            note(
                hostname,
                format!("ran with --comparable-memory: {}", cm.note),
                label,
            );
        }
        let Some(guest) = f.header.env.as_ref().and_then(|e| e.guest.as_ref()) else {
            continue;
        };
        let virt = crate::analyze::env::virtualization(guest.virtualization().as_ref());
        if guest.reporting_on() {
            note(
                hostname,
                format!(
                    "ran on a VM, {virt}, with free page reporting on. Memory freed between launches went back to the host, so launches that touched it again paid the host's faults too, and their cells are marked disturbed. `pretouch run --comparable-memory` keeps that memory in the guest, as root."
                ),
                label,
            );
        } else if guest.hypervisor_flag {
            note(
                hostname,
                format!("ran on a VM, {virt}, with free page reporting off."),
                label,
            );
        }
    }
    seen.into_iter()
        .map(|(_, text, labels)| format!("machine: {} {text}", labels.join(", ")))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::launch::machine_counters::CpuTime;
    use crate::launch::rusage::LaunchUsage;
    use crate::units::{Bytes, Nanos};

    fn ms(v: f64) -> Nanos {
        Nanos((v * 1e6) as u64)
    }

    /// A G1 2g THP launch with pretouch as the development VM makes it when nothing
    /// disturbs it: 0.3 s system CPU, 8k faults, a little other load, no steal.
    fn launch_record(round: u32, pretouch: bool, ms: f64) -> LaunchRecord {
        let mut l = crate::fixtures::launch(round, pretouch, ms);
        l.seq = u64::from(pretouch);
        l.cell.heap = "2g".into();
        l.measured.started_at = "t".into();
        l.round = round;
        l
    }

    fn quiet(round: u32) -> LaunchRecord {
        let mut l = launch_record(round, true, 160.0);
        l.measured.rusage = Some(LaunchUsage {
            minflt: 8000,
            majflt: 0,
            utime_ns: ms(40.0),
            stime_ns: ms(300.0),
            maxrss: None,
            peak_rss: None,
        });
        let vmstat = [
            ("thp_fault_alloc", 1068),
            ("thp_fault_fallback", 0),
            ("compact_stall", 0),
        ]
        .into_iter()
        .collect();
        l.measured.machine = Some(MachineCounters {
            idle_before_ns: Some(ms(60.0)),
            cpu: Some(CpuTime {
                user_ns: ms(60.0),
                system_ns: ms(310.0),
                steal_ns: ms(0.0),
                ..CpuTime::default()
            }),
            vmstat,
            involuntary_switches: Some(40),
            reported_before: Some(Bytes(0)),
            reported_during: Some(Bytes(0)),
            ..MachineCounters::default()
        });
        l
    }

    fn cell(slow: LaunchRecord, slow_ms: f64, reporting_on: bool) -> CellDisturbance {
        let quiet: Vec<LaunchRecord> = (0..9).map(quiet).collect();
        let mut judged: Vec<Judged<'_>> = quiet
            .iter()
            .map(|r| Judged {
                record: r,
                ms: 160.0,
                outlier: false,
                reporting_on,
                round: r.round + 1,
            })
            .collect();
        judged.push(Judged {
            record: &slow,
            ms: slow_ms,
            outlier: true,
            reporting_on,
            round: slow.round + 1,
        });
        judge_cell(&judged)
    }

    #[test]
    fn quiet_launches_have_no_cause() {
        let d = cell(quiet(9), 170.0, true);
        assert_eq!(d.disturbed, 0);
        assert_eq!(
            d.outlier_causes,
            "round 10 with pretouch 170 ms, median 160: no machine counter explains it"
        );
    }

    #[test]
    fn memory_returned_to_host_counted_by_the_kernel() {
        let mut slow = quiet(9);
        let m = slow.measured.machine.as_mut().unwrap();
        m.idle_before_ns = Some(ms(12_300.0));
        m.reported_before = Some(Bytes(1960 * MIB));
        slow.measured.rusage.as_mut().unwrap().stime_ns = ms(4750.0);
        let d = cell(slow, 2437.0, true);
        assert_eq!(d.disturbed, 1);
        assert_eq!(
            d.outliers,
            [
                "round 10 with pretouch 2437 ms, median 160: idle 12 s before: memory returned to host (1960 MiB reported)"
            ]
        );
        assert_eq!(d.summary, "memory returned to host 1");
        // The same outlier as data, for the summary of a cell with many.
        let o = &d.outlier_launches[..];
        assert_eq!(o.len(), 1);
        assert_eq!((o[0].round, o[0].pretouch, o[0].ms), (10, true, 2437.0));
        assert_eq!(o[0].kinds, ["memory returned to host"]);
        assert_eq!(o[0].median_ms, Some(160.0));
    }

    #[test]
    fn memory_returned_to_host_read_from_system_time() {
        let mut slow = quiet(9);
        let m = slow.measured.machine.as_mut().unwrap();
        m.idle_before_ns = None;
        m.reported_before = None;
        m.reported_during = None;
        slow.measured.rusage.as_mut().unwrap().stime_ns = ms(4750.0);
        let d = cell(slow.clone(), 2437.0, true);
        assert!(
            d.outlier_causes.ends_with(
                "memory returned to host (system CPU 4.8 s against 0.3 s in its cell, as many faults)"
            ),
            "{d:?}"
        );
        // Without free page reporting, more system time is not blamed on the host.
        assert_eq!(cell(slow.clone(), 2437.0, false).disturbed, 0);
        // Nor with many more faults: the JVM did more work.
        slow.measured.rusage.as_mut().unwrap().minflt = 500_000;
        assert_eq!(cell(slow, 2437.0, true).disturbed, 0);
    }

    #[test]
    fn a_launch_faster_than_its_median_is_not_blamed_on_load() {
        let mut fast = quiet(9);
        let m = fast.measured.machine.as_mut().unwrap();
        let cpu = m.cpu.as_mut().unwrap();
        cpu.user_ns = ms(340.0);
        m.involuntary_switches = Some(900);
        let d = cell(fast, 120.0, true);
        assert_eq!(
            d.outliers,
            [
                "round 10 with pretouch 120 ms, median 160: faster than its median, which no load explains"
            ]
        );
        assert_eq!(d.outlier_launches[0].kinds, [FASTER]);
        // The machine was still busy, so the launch counts as disturbed.
        assert_eq!(d.disturbed, 1);
    }

    #[test]
    fn steal_other_processes_and_the_allocator() {
        let mut slow = quiet(9);
        let m = slow.measured.machine.as_mut().unwrap();
        let cpu = m.cpu.as_mut().unwrap();
        cpu.steal_ns = ms(84.0);
        // The JVM used 340 ms; the machine was busy for 650 ms.
        cpu.user_ns = ms(340.0);
        m.vmstat.insert("thp_fault_fallback", 412);
        m.vmstat.insert("compact_stall", 30);
        m.vmstat.insert("allocstall_movable", 2);
        m.vmstat.insert("pgscan_direct", 5000);
        m.involuntary_switches = Some(900);
        let d = cell(slow, 900.0, true);
        assert_eq!(
            d.outliers,
            [
                "round 10 with pretouch 900 ms, median 160: steal 84 ms, other processes 310 ms CPU, preempted 900 times, THP fallback 412, compaction stalls 30, direct reclaim (5000 pages scanned)"
            ]
        );
        assert_eq!(
            d.summary,
            "THP fallback 1, compaction stalls 1, direct reclaim 1, other processes 1, preempted 1, steal 1"
        );
    }

    #[test]
    fn the_reports_reader_keeps_every_counter_a_cause_reads() {
        // Every cause the counters can give, in one slow launch among quiet ones, with
        // counters no cause reads beside them.
        let mut slow = quiet(9);
        let m = slow.measured.machine.as_mut().unwrap();
        m.cpu.as_mut().unwrap().steal_ns = ms(84.0);
        for (name, n) in [
            ("thp_fault_fallback", 412),
            ("compact_stall", 30),
            ("allocstall_normal", 2),
            ("pgscan_direct", 5000),
            ("pswpin", 7),
            ("pswpout", 3),
            ("pgfault", 9000),
        ] {
            m.vmstat.insert(name, n);
        }
        m.psi_us.insert("memory_some", 25_000);
        m.psi_us.insert("cpu_some", 90_000);
        m.involuntary_switches = Some(900);
        let whole = cell(slow.clone(), 900.0, true);
        for cause in [
            "steal",
            "THP fallback",
            "compaction",
            "direct reclaim",
            "swap 10",
            "memory pressure stall 25 ms",
        ] {
            assert!(whole.outlier_causes.contains(cause), "{cause}: {whole:?}");
        }
        let slim = slow.for_report();
        let m = slim.measured.machine.as_ref().unwrap();
        assert!(!m.vmstat.contains_key("pgfault") && !m.vmstat.contains_key("thp_fault_alloc"));
        assert!(!m.psi_us.contains_key("cpu_some"));
        let quiet: Vec<LaunchRecord> = (0..9).map(|r| quiet(r).for_report()).collect();
        let mut judged: Vec<Judged<'_>> = quiet
            .iter()
            .map(|r| Judged {
                record: r,
                ms: 160.0,
                outlier: false,
                reporting_on: true,
                round: r.round + 1,
            })
            .collect();
        judged.push(Judged {
            record: &slim,
            ms: 900.0,
            outlier: true,
            reporting_on: true,
            round: slim.round + 1,
        });
        assert_eq!(judge_cell(&judged), whole);
    }

    #[test]
    fn a_machine_busy_throughout_disturbs_every_launch() {
        // Every launch shares the CPUs with a build: 600 ms of other work in a launch
        // that had 1000 ms of CPU time on all CPUs. Nothing stands out, yet each is
        // disturbed.
        let busy = |round| {
            let mut l = quiet(round);
            let cpu = l.measured.machine.as_mut().unwrap().cpu.as_mut().unwrap();
            cpu.user_ns = ms(640.0);
            cpu.idle_ns = ms(50.0);
            l
        };
        let launches: Vec<LaunchRecord> = (0..10).map(busy).collect();
        let judged: Vec<Judged<'_>> = launches
            .iter()
            .map(|r| Judged {
                record: r,
                ms: if r.round == 9 { 170.0 } else { 160.0 },
                outlier: r.round == 9,
                reporting_on: true,
                round: r.round + 1,
            })
            .collect();
        let d = judge_cell(&judged);
        assert_eq!(d.disturbed, 10, "{d:?}");
        assert!(
            d.outlier_causes.ends_with("other processes 610 ms CPU"),
            "{d:?}"
        );
    }

    #[test]
    fn old_records_say_they_have_no_counters() {
        let mut slow = quiet(9);
        slow.measured.machine = None;
        let d = cell(slow, 900.0, true);
        assert!(
            d.outlier_causes
                .ends_with("no machine counters recorded (file written before they were)")
        );
    }

    /// Through the whole report: a result file whose slow launch came after the host
    /// took memory back, read by `analyze::build`, printed in every format.
    #[test]
    fn the_report_carries_the_cause_in_every_format() {
        use crate::fixtures::{FakeCell, file, host, rounds};
        use crate::render::common::Format;
        let g1 = rounds(48.0, 430.0, true);
        let mut f = file(
            "base",
            "2026-11-30T07:00:00Z",
            host("vm"),
            &[FakeCell {
                gc: crate::matrix::Gc::G1,
                heap: "1g",
                rounds: &g1,
            }],
        );
        let env = crate::machine::env::Environment {
            guest: Some(crate::machine::guest::GuestInfo {
                hypervisor_flag: true,
                balloon: true,
                balloon_reporting: true,
                page_reporting_order: Some(9),
                max_page_order: Some(10),
                ..Default::default()
            }),
            ..Default::default()
        };
        f.header.env = Some(env);
        for l in &mut f.launches {
            let q = quiet(l.round);
            l.measured.rusage = q.measured.rusage;
            l.measured.machine = q.measured.machine;
            if l.round == 7 && l.pretouch {
                let m = l.measured.machine.as_mut().unwrap();
                m.idle_before_ns = Some(ms(20_000.0));
                m.reported_before = Some(Bytes(2000 * MIB));
            }
        }
        let results = crate::store::Results {
            files: vec![f],
            ..Default::default()
        };
        let report = crate::analyze::build(&results);
        // The causes are details of the text and Markdown (`--details`).
        let details = crate::analyze::Options {
            details: true,
            ..Default::default()
        };
        let doc = crate::analyze::document::build(results, &details).unwrap();
        let cause = "round 8 with pretouch 1284 ms, median 433: idle 20 s before: memory returned to host (2000 MiB reported)";
        assert_eq!(report.cells[0].machine.outlier_causes, cause);
        assert_eq!(report.cells[0].machine.disturbed, 1);
        for format in [Format::Text, Format::Markdown, Format::Csv, Format::Json] {
            let out = crate::render::document::render(&doc, format);
            let flat = out.replace("\n  ", " ");
            assert!(
                flat.contains("memory returned to host (2000 MiB reported)"),
                "{format:?}: {out}"
            );
        }
        let text = crate::render::document::render(&doc, Format::Text).replace("\n  ", " ");
        assert!(
            text.contains("disturbed launches: g1 1g 1 of 20 (memory returned to host 1)"),
            "{text}"
        );
        assert!(
            text.contains("machine: base ran on a VM, ")
                && text.contains(", with free page reporting on."),
            "{text}"
        );
    }

    #[test]
    fn kinds_drop_figures_and_the_idle_prefix() {
        assert_eq!(kind("steal 84 ms"), "steal");
        assert_eq!(
            kind("idle 12 s before: memory returned to host (1 MiB reported)"),
            "memory returned to host"
        );
        assert_eq!(kind("direct reclaim (5 pages scanned)"), "direct reclaim");
    }
}
