//! Stage 5, probed: the probe records of `pretouch run --probe` turned into what a
//! report shows (no rendering here): per cell and label the fault latency (count, p50,
//! p90, p99, max, histogram) and the lock contention, what the probes cost, whether the
//! probe's count agrees with the agent's, and across labels the shift of p50 and p99.
//!
//! Quantiles come from the probe's histogram, whose buckets are an eighth of an octave
//! wide ([`crate::features::probe::launch::bucket_bounds`]): a quantile is the bucket that holds the
//! value of nearest rank `ceil(q * n)` (Hyndman & Fan's type 1, R's `quantile(type = 1)`),
//! known to within that bucket. Where one figure is needed (a shift), it is the bucket's
//! midpoint. Shifts across labels are the Hodges-Lehmann estimate and 95% interval of the
//! per-launch quantiles ([`crate::stats::hodges_lehmann`]), as the cost table's are of
//! the per-round costs; marked when the interval excludes 0.

use std::collections::BTreeMap;

use crate::features::probe::launch::{
    C2cSupport, Contention, FaultLatency, LatencyBucket, LocksUnsupported,
};
use crate::features::probe::record::LabelledProbe;
use crate::stats::{Shift, hodges_lehmann, median};
use crate::store::CellKey;
use crate::store::extra::ExtraRecord;
use crate::store::read::ResultFile;
use crate::units::Nanos;

/// How far the probe's count may be from the agent's before it is flagged, in %.
pub const AGREEMENT_PCT: f64 = 2.0;
/// The confidence of the shifts' intervals.
const LEVEL: f64 = 0.95;

/// A quantile of a histogram: the bucket that holds it, `[low, high)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Quantile {
    pub low: Nanos,
    pub high: Nanos,
}

impl Quantile {
    /// The bucket's midpoint, ns: the one figure for it.
    pub fn mid_ns(&self) -> f64 {
        (self.low.0 as f64 + self.high.0 as f64) / 2.0
    }
}

/// The quantile `q` (0 < q <= 1) of a histogram by nearest rank; `None` when it is empty.
/// The high end is clamped to `max` when given (the exact longest fault).
pub fn quantile(buckets: &[LatencyBucket], q: f64, max: Option<Nanos>) -> Option<Quantile> {
    let n: u64 = buckets.iter().map(|b| b.count).sum();
    if n == 0 {
        return None;
    }
    let rank = ((q * n as f64).ceil() as u64).clamp(1, n);
    let mut seen = 0;
    for b in buckets {
        seen += b.count;
        if seen >= rank {
            let high = match max {
                Some(m) if m.0 >= b.low_ns && m.0 < b.high_ns => m.0 + 1,
                _ => b.high_ns,
            };
            return Some(Quantile {
                low: Nanos(b.low_ns),
                high: Nanos(high),
            });
        }
    }
    None
}

/// Histograms added bucket by bucket (same bucket bounds, as the probe makes them).
pub fn merge<'a>(histograms: impl IntoIterator<Item = &'a [LatencyBucket]>) -> Vec<LatencyBucket> {
    let mut sum = BTreeMap::<(u64, u64), u64>::new();
    for h in histograms {
        for b in h {
            *sum.entry((b.low_ns, b.high_ns)).or_default() += b.count;
        }
    }
    sum.into_iter()
        .map(|((low_ns, high_ns), count)| LatencyBucket {
            low_ns,
            high_ns,
            count,
        })
        .collect()
}

/// Fault latency of a cell's probed launches (one label, with or without pretouch).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct LatencySummary {
    /// Probed launches read.
    pub launches: usize,
    /// Median over the launches of the faults timed, exec to main.
    pub faults_per_launch: f64,
    /// Faults timed, all launches.
    pub count: u64,
    /// Quantiles of all the launches' faults together.
    pub p50: Quantile,
    pub p90: Quantile,
    pub p99: Quantile,
    /// The longest fault of any launch.
    pub max: Nanos,
    /// The launches' histograms added up, buckets in order: what the SVG draws.
    pub histogram: Vec<LatencyBucket>,
    /// Each launch's p50 and p99 midpoints, ns: what the shifts across labels compare.
    pub launch_p50_ns: Vec<f64>,
    pub launch_p99_ns: Vec<f64>,
}

impl LatencySummary {
    /// The median launch's p50 midpoint, ns: the baseline's and the label's figure
    /// beside a shift of p50.
    pub fn median_launch_p50_ns(&self) -> Option<f64> {
        median(&self.launch_p50_ns)
    }

    /// The median launch's p99 midpoint, ns: the figure beside a shift of p99.
    pub fn median_launch_p99_ns(&self) -> Option<f64> {
        median(&self.launch_p99_ns)
    }

    /// Each bucket of [`Self::histogram`] with its share of the faults, in %: what the
    /// SVG draws, so that labels with different launch counts compare.
    pub fn bucket_shares_pct(&self) -> impl Iterator<Item = (&LatencyBucket, f64)> {
        let total = self.count.max(1) as f64;
        self.histogram
            .iter()
            .map(move |b| (b, 100.0 * b.count as f64 / total))
    }
}

/// [`LatencySummary`] of some launches' faults; `None` when none timed a fault.
fn summarize_latency(faults: &[&FaultLatency]) -> Option<LatencySummary> {
    let histogram = merge(faults.iter().map(|f| f.buckets.as_slice()));
    let max = faults.iter().map(|f| f.max_ns).max()?;
    let per_launch = |q: f64| -> Vec<f64> {
        faults
            .iter()
            .filter_map(|f| quantile(&f.buckets, q, Some(f.max_ns)))
            .map(|q| q.mid_ns())
            .collect()
    };
    Some(LatencySummary {
        launches: faults.len(),
        faults_per_launch: median(&faults.iter().map(|f| f.count as f64).collect::<Vec<_>>())?,
        count: histogram.iter().map(|b| b.count).sum(),
        p50: quantile(&histogram, 0.50, Some(max))?,
        p90: quantile(&histogram, 0.90, Some(max))?,
        p99: quantile(&histogram, 0.99, Some(max))?,
        max,
        launch_p50_ns: per_launch(0.50),
        launch_p99_ns: per_launch(0.99),
        histogram,
    })
}

/// The probe's count against the agent's for one launch: the faults the probe timed
/// plus those the process took before its exec, against getrusage at the main stamp.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Agreement {
    pub probe: u64,
    pub agent: u64,
    /// `(probe - agent) / agent`, in %.
    pub diff_pct: f64,
}

impl Agreement {
    pub fn within(&self) -> bool {
        self.diff_pct.abs() <= AGREEMENT_PCT
    }
}

/// [`Agreement`] of a probed launch; `None` without both counts.
pub fn agreement(faults: &FaultLatency, agent_main_faults: Option<u64>) -> Option<Agreement> {
    let agent = agent_main_faults.filter(|a| *a > 0)?;
    let probe = faults.count + faults.before_exec;
    Some(Agreement {
        probe,
        agent,
        diff_pct: (probe as f64 - agent as f64) / agent as f64 * 100.0,
    })
}

/// One lock at one caller, over a cell's probed launches.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct LockSummary {
    /// The lock's symbol, or `(no symbol)` for a lock in allocated memory (its address
    /// differs from launch to launch, so it does not name it).
    pub lock: String,
    pub kind: String,
    pub caller: String,
    /// Waits, all launches.
    pub count: u64,
    /// Their total and longest wait.
    pub total: Nanos,
    pub max: Nanos,
    /// Total wait per launch (all probed launches of the cell, waiting or not), ns.
    pub per_launch_ns: f64,
}

/// The lock contention of a cell's probed launches: the locks, most total wait first, or
/// why this kernel cannot tell.
fn summarize_locks(contention: &[&Contention]) -> Result<Vec<LockSummary>, LocksUnsupported> {
    let mut by = BTreeMap::<(String, String, String), (u64, u64, u64)>::new();
    for c in contention {
        let locks = match c {
            Contention::Unsupported { why } => return Err(why.clone()),
            Contention::Measured { locks } => locks,
        };
        for l in locks {
            let lock = match l.lock.starts_with("0x") {
                true => "(no symbol)".to_owned(),
                false => l.lock.clone(),
            };
            let e = by
                .entry((lock, l.kind.clone(), l.caller.clone()))
                .or_default();
            e.0 += l.count;
            e.1 += l.total_ns.0;
            e.2 = e.2.max(l.max_ns.0);
        }
    }
    let launches = contention.len().max(1) as f64;
    let mut out: Vec<LockSummary> = by
        .into_iter()
        .map(|((lock, kind, caller), (count, total, max))| LockSummary {
            lock,
            kind,
            caller,
            count,
            total: Nanos(total),
            max: Nanos(max),
            per_launch_ns: total as f64 / launches,
        })
        .collect();
    out.sort_by_key(|l| std::cmp::Reverse(l.total));
    Ok(out)
}

/// What the probes cost a cell: the median time to main of its probed launches against
/// that of its timed launches (same label, same pretouch).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct ProbeCost {
    pub probed_ms: f64,
    pub timed_ms: f64,
}

impl ProbeCost {
    pub fn delta_ms(&self) -> f64 {
        self.probed_ms - self.timed_ms
    }
    pub fn pct(&self) -> f64 {
        self.delta_ms() / self.timed_ms * 100.0
    }
}

/// The probe figures of one cell, label and pretouch setting.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct CellProbes {
    pub label: String,
    pub cell: CellKey,
    pub pretouch: bool,
    /// Probed launches, and those that failed or were not read.
    pub launches: usize,
    pub failed: usize,
    pub latency: Option<LatencySummary>,
    /// `Err`: the kernel cannot tell (said once, in [`ProbeAnalysis::locks_unsupported`]).
    /// In JSON the list, or `null` when not measured.
    #[serde(serialize_with = "locks_or_null")]
    pub locks: Result<Vec<LockSummary>, LocksUnsupported>,
    pub cost: Option<ProbeCost>,
    /// The launch whose count is furthest from the agent's.
    pub worst_agreement: Option<Agreement>,
    /// `perf c2c record -g --` and a probed launch's command: the same launch under
    /// perf c2c, where this machine has the PMU events for it.
    pub c2c_command: Option<Vec<String>>,
}

impl CellProbes {
    /// Probed launches read (not failed): the first figure of `launches` in the tables.
    pub fn launches_read(&self) -> usize {
        self.launches - self.failed
    }
}

fn locks_or_null<S: serde::Serializer>(
    locks: &Result<Vec<LockSummary>, LocksUnsupported>,
    s: S,
) -> Result<S::Ok, S::Error> {
    serde::Serialize::serialize(&locks.as_ref().ok(), s)
}

/// The shift of p50 and p99 from the baseline label to another, one cell and pretouch.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct LatencyShift {
    pub cell: CellKey,
    pub pretouch: bool,
    pub baseline: String,
    pub label: String,
    /// In ns: `label - baseline`, Hodges-Lehmann, with its 95% interval.
    pub p50: Option<Shift>,
    pub p99: Option<Shift>,
}

impl LatencyShift {
    /// The mark the report puts beside a shift whose interval excludes zero.
    pub fn mark(shift: Option<&Shift>) -> &'static str {
        match shift {
            Some(s) if s.significant() => "*",
            _ => "",
        }
    }
}

/// Everything the report shows of the probes.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ProbeAnalysis {
    pub cells: Vec<CellProbes>,
    pub shifts: Vec<LatencyShift>,
    /// Why lock contention was not measured, when it was not (said once).
    pub locks_unsupported: Option<LocksUnsupported>,
    /// Whether `perf c2c` could run where the probes ran (the first record's word).
    pub c2c: Option<C2cSupport>,
    /// Launches whose count is more than [`AGREEMENT_PCT`] from the agent's.
    pub disagreeing: usize,
    /// Of those, the launches with pretouch and `-XX:+UseTransparentHugePages` whose
    /// probe counted fewer: JDK 22+ pretouches THP with `madvise(MADV_POPULATE_WRITE)`,
    /// whose faults raise no exception, so no probe sees them (getrusage counts them).
    pub disagreeing_populate: usize,
    /// Probed launches read (not failed), all cells and labels: those whose count is
    /// held against the agent's.
    pub launches: usize,
    /// The labels, in the report's order (the baseline first by default).
    pub labels: Vec<String>,
}

impl ProbeAnalysis {
    /// Puts the labels in the report's order: `cells` by cell, then without before with
    /// pretouch, then by label in `labels`' order; `shifts` likewise.
    pub fn order_labels(&mut self, labels: &[String]) {
        let at = |l: &str| labels.iter().position(|x| x == l).unwrap_or(usize::MAX);
        self.cells.sort_by(|a, b| {
            (&a.cell, a.pretouch, at(&a.label)).cmp(&(&b.cell, b.pretouch, at(&b.label)))
        });
        self.shifts.sort_by(|a, b| {
            (&a.cell, a.pretouch, at(&a.label)).cmp(&(&b.cell, b.pretouch, at(&b.label)))
        });
        self.labels = labels
            .iter()
            .filter(|l| self.cells.iter().any(|c| &c.label == *l))
            .cloned()
            .collect();
    }

    /// The figures of `label`'s probed launches of `cell` with or without pretouch.
    pub fn cell(&self, label: &str, cell: &CellKey, pretouch: bool) -> Option<&CellProbes> {
        self.cells
            .iter()
            .find(|c| c.label == label && &c.cell == cell && c.pretouch == pretouch)
    }

    /// The cells probed, each once, in order.
    pub fn cell_keys(&self) -> Vec<&CellKey> {
        let mut keys: Vec<&CellKey> = self.cells.iter().map(|c| &c.cell).collect();
        keys.dedup();
        keys
    }
}

/// Whether a probed launch's shortfall is the one [`ProbeAnalysis::disagreeing_populate`]
/// explains: pretouch with THP, the probe counting fewer than the agent.
fn populate_shortfall(record: &crate::features::probe::record::ProbeRecord, a: &Agreement) -> bool {
    record.at.pretouch
        && a.diff_pct < 0.0
        && record
            .launched
            .command
            .iter()
            .any(|arg| arg == "-XX:+UseTransparentHugePages")
}

/// [`ProbeAnalysis`] of the probe records of `files` (`probes`, read from them), their
/// labels compared with `baseline`.
pub fn build(files: &[ResultFile], probes: &[LabelledProbe], baseline: &str) -> ProbeAnalysis {
    let shown: Vec<(String, &ResultFile)> =
        files.iter().map(|f| (f.header.label.clone(), f)).collect();
    build_timed(probes, &timed_medians(&shown), baseline)
}

/// The median time to main() of each (label, cell, pretouch) of the timed launches that
/// reached it, of files each shown under the label paired with it: what a probed
/// launch's cost is measured against ([`build_timed`]). A report computes it a label at
/// a time, while that label's launches are read.
pub type TimedMedians = BTreeMap<(String, CellKey, bool), f64>;

/// [`TimedMedians`] of `files`.
pub fn timed_medians(files: &[(String, &ResultFile)]) -> TimedMedians {
    let mut timed = BTreeMap::<(String, CellKey, bool), Vec<f64>>::new();
    for (label, f) in files {
        for l in f.launches.iter().filter(|l| !l.warmup && l.ok()) {
            if let Some(t) = l.time_to_main_ns {
                timed
                    .entry((label.clone(), l.cell.clone(), l.pretouch))
                    .or_default()
                    .push(t.as_ms());
            }
        }
    }
    timed
        .into_iter()
        .filter_map(|(key, times)| Some((key, median(&times)?)))
        .collect()
}

/// [`build`] of probe records against the timed launches' medians ([`timed_medians`]).
pub fn build_timed(
    probes: &[LabelledProbe],
    timed: &TimedMedians,
    baseline: &str,
) -> ProbeAnalysis {
    type Key = (String, CellKey, bool);
    let mut groups = BTreeMap::<Key, Vec<&LabelledProbe>>::new();
    for p in probes {
        groups
            .entry((
                p.label.clone(),
                p.record.at.cell.clone(),
                p.record.at.pretouch,
            ))
            .or_default()
            .push(p);
    }
    let mut cells = Vec::new();
    let mut disagreeing = 0;
    let mut disagreeing_populate = 0;
    let mut locks_unsupported = None;
    let c2c = probes.first().map(|p| p.record.c2c.clone());
    for ((label, cell, pretouch), group) in &groups {
        let ok: Vec<_> = group.iter().filter(|p| p.record.ok()).collect();
        let faults: Vec<&FaultLatency> =
            ok.iter().filter_map(|p| p.record.faults.as_ref()).collect();
        let agreements: Vec<Agreement> = ok
            .iter()
            .filter_map(|p| {
                let a = agreement(p.record.faults.as_ref()?, p.record.main_faults)?;
                if !a.within() {
                    disagreeing += 1;
                    disagreeing_populate += usize::from(populate_shortfall(&p.record, &a));
                }
                Some(a)
            })
            .collect();
        let contention: Vec<&Contention> = ok
            .iter()
            .filter_map(|p| p.record.contention.as_ref())
            .collect();
        let locks = summarize_locks(&contention);
        if let Err(why) = &locks {
            locks_unsupported = Some(why.clone());
        }
        let probed_ms: Vec<f64> = ok
            .iter()
            .filter_map(|p| p.record.launched.time_to_main_ns.map(Nanos::as_ms))
            .collect();
        let cost = match (
            median(&probed_ms),
            timed
                .get(&(label.clone(), cell.clone(), *pretouch))
                .copied(),
        ) {
            (Some(probed_ms), Some(timed_ms)) => Some(ProbeCost {
                probed_ms,
                timed_ms,
            }),
            _ => None,
        };
        cells.push(CellProbes {
            label: label.clone(),
            cell: cell.clone(),
            pretouch: *pretouch,
            launches: group.len(),
            failed: group.len() - ok.len(),
            latency: summarize_latency(&faults),
            locks,
            cost,
            worst_agreement: agreements
                .into_iter()
                .max_by(|a, b| a.diff_pct.abs().total_cmp(&b.diff_pct.abs())),
            c2c_command: match &ok.first().map(|p| &p.record.c2c) {
                Some(C2cSupport::Available { .. }) => ok.first().map(|p| {
                    crate::features::probe::launch::c2c_command(&p.record.launched.command)
                }),
                _ => None,
            },
        });
    }
    let shifts = shifts(&cells, baseline);
    ProbeAnalysis {
        cells,
        shifts,
        locks_unsupported,
        c2c,
        disagreeing,
        disagreeing_populate,
        launches: probes.iter().filter(|p| p.record.ok()).count(),
        labels: groups
            .keys()
            .map(|k| k.0.clone())
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect(),
    }
}

/// Each other label's shift of p50 and p99 from `baseline`, cell by cell.
pub fn shifts(cells: &[CellProbes], baseline: &str) -> Vec<LatencyShift> {
    let mut out = Vec::new();
    for base in cells.iter().filter(|c| c.label == baseline) {
        let Some(b) = &base.latency else { continue };
        for other in cells
            .iter()
            .filter(|c| c.label != baseline && c.cell == base.cell && c.pretouch == base.pretouch)
        {
            let Some(o) = &other.latency else { continue };
            out.push(LatencyShift {
                cell: base.cell.clone(),
                pretouch: base.pretouch,
                baseline: baseline.to_owned(),
                label: other.label.clone(),
                p50: hodges_lehmann(&o.launch_p50_ns, &b.launch_p50_ns, LEVEL),
                p99: hodges_lehmann(&o.launch_p99_ns, &b.launch_p99_ns, LEVEL),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::probe::fixtures::latency_histogram;
    use crate::features::probe::launch::LockWait;
    use crate::features::probe::record::ProbeRecord;

    fn faults(values: &[u64]) -> FaultLatency {
        FaultLatency {
            count: values.len() as u64,
            max_ns: Nanos(*values.iter().max().unwrap()),
            buckets: latency_histogram(values),
            ..FaultLatency::default()
        }
    }

    #[test]
    fn a_quantile_is_the_bucket_holding_the_value_of_nearest_rank() {
        // 1..=1000 us in ns: R's quantile(type = 1) gives 500, 900, 990 us.
        let values: Vec<u64> = (1..=1000).map(|i| i * 1000).collect();
        let h = latency_histogram(&values);
        for (q, exact) in [
            (0.5, 500_000),
            (0.9, 900_000),
            (0.99, 990_000),
            (1.0, 1_000_000),
        ] {
            let got = quantile(&h, q, Some(Nanos(1_000_000))).unwrap();
            assert!(
                got.low.0 <= exact && exact < got.high.0,
                "q{q}: {exact} in {got:?}"
            );
            // An eighth of an octave: the bucket is at most 12.5% of its low end wide.
            assert!((got.high.0 - got.low.0) as f64 <= got.low.0 as f64 * 0.125 + 1.0);
        }
        assert_eq!(quantile(&[], 0.5, None), None);
        // The max clamps the top bucket to the exact longest fault.
        let q = quantile(&latency_histogram(&[1000, 1001]), 1.0, Some(Nanos(1001))).unwrap();
        assert_eq!(q.high, Nanos(1002));
    }

    #[test]
    fn merged_histograms_keep_every_fault_and_the_summary_orders_its_quantiles() {
        let a = faults(&[1_500, 1_700, 1_800, 10_000, 300_000]);
        let b = faults(&[1_600; 20]);
        let merged = merge([a.buckets.as_slice(), b.buckets.as_slice()]);
        assert_eq!(merged.iter().map(|b| b.count).sum::<u64>(), 25);
        let s = summarize_latency(&[&a, &b]).unwrap();
        assert_eq!((s.launches, s.count, s.max), (2, 25, Nanos(300_000)));
        assert!(s.p50.low <= s.p90.low && s.p90.low <= s.p99.low && s.p99.high.0 <= 300_001);
        assert_eq!(s.faults_per_launch, 12.5);
        assert_eq!(s.launch_p50_ns.len(), 2);
        assert!(summarize_latency(&[]).is_none());
    }

    #[test]
    fn the_figures_beside_a_shift_are_the_median_launch_midpoints() {
        let launches = [
            faults(&[1_000; 9]),
            faults(&[2_000; 9]),
            faults(&[50_000; 9]),
        ];
        let s = summarize_latency(&launches.iter().collect::<Vec<_>>()).unwrap();
        let middle = quantile(&launches[1].buckets, 0.5, Some(Nanos(2_000))).unwrap();
        assert_eq!(s.median_launch_p50_ns(), Some(middle.mid_ns()));
        let middle = quantile(&launches[1].buckets, 0.99, Some(Nanos(2_000))).unwrap();
        assert_eq!(s.median_launch_p99_ns(), Some(middle.mid_ns()));
    }

    #[test]
    fn the_buckets_shares_add_up_to_all_the_faults() {
        let s = summarize_latency(&[&faults(&[1_000, 1_000, 1_000, 90_000])]).unwrap();
        let shares: Vec<f64> = s.bucket_shares_pct().map(|(_, pct)| pct).collect();
        assert_eq!(shares, [75.0, 25.0]);
    }

    #[test]
    fn the_agreement_counts_the_faults_before_exec_and_flags_over_two_percent() {
        let mut f = faults(&[1000; 98]);
        f.before_exec = 2;
        let a = agreement(&f, Some(100)).unwrap();
        assert_eq!((a.probe, a.agent), (100, 100));
        assert!(a.within());
        let a = agreement(&f, Some(103)).unwrap();
        assert!(!a.within(), "{a:?}");
        assert!(agreement(&f, None).is_none());
    }

    fn wait(lock: &str, caller: &str, count: u64, total: u64, max: u64) -> LockWait {
        LockWait {
            lock: lock.into(),
            kind: "spinlock".into(),
            caller: caller.into(),
            stack: vec![caller.into()],
            count,
            total_ns: Nanos(total),
            max_ns: Nanos(max),
        }
    }

    #[test]
    fn locks_add_up_by_symbol_and_caller_and_an_unsupported_kernel_says_why() {
        let a = Contention::Measured {
            locks: vec![
                wait("0xffff8881", "rmqueue_bulk+80", 2, 500, 300),
                wait("contig_page_data", "rmqueue_bulk+80", 1, 100, 100),
            ],
        };
        let b = Contention::Measured {
            locks: vec![wait("0xffff9999", "rmqueue_bulk+80", 3, 900, 600)],
        };
        let s = summarize_locks(&[&a, &b]).unwrap();
        assert_eq!(s.len(), 2);
        // Addresses differ between launches: the same caller's waits add up.
        assert_eq!(
            (s[0].lock.as_str(), s[0].count, s[0].total, s[0].max),
            ("(no symbol)", 5, Nanos(1400), Nanos(600))
        );
        assert_eq!(s[0].per_launch_ns, 700.0);
        assert_eq!(s[1].lock, "contig_page_data");
        let no = Contention::Unsupported {
            why: LocksUnsupported::NoTracepoints,
        };
        assert_eq!(
            summarize_locks(&[&a, &no]),
            Err(LocksUnsupported::NoTracepoints)
        );
    }

    fn record(seq: u64, pretouch: bool, values: &[u64], ms: u64) -> ProbeRecord {
        ProbeRecord {
            at: crate::store::PlannedAs {
                seq,
                round: 0,
                cell: crate::fixtures::file(
                    "x",
                    "t",
                    crate::fixtures::host("h"),
                    &[crate::fixtures::FakeCell {
                        gc: crate::matrix::Gc::G1,
                        heap: "1g",
                        rounds: &[(1.0, 2.0)],
                    }],
                )
                .launches[0]
                    .cell
                    .clone(),
                pretouch,
            },
            launched: crate::store::Launched {
                command: vec!["java".into()],
                started_at: "t".into(),
                time_to_main_ns: Some(Nanos(ms * 1_000_000)),
                failure: None,
            },
            probe_command: vec!["bpftrace".into()],
            main_faults: Some(values.len() as u64),
            faults: Some(faults(values)),
            contention: Some(Contention::Measured { locks: Vec::new() }),
            c2c: C2cSupport::Unavailable { why: "vm".into() },
        }
    }

    #[test]
    fn two_kernels_one_faulting_slower_shift_p50_significantly_and_the_cost_is_per_cell() {
        let files = [
            crate::fixtures::file(
                "base",
                "t",
                crate::fixtures::host("h"),
                &[crate::fixtures::FakeCell {
                    gc: crate::matrix::Gc::G1,
                    heap: "1g",
                    rounds: &[(40.0, 400.0), (42.0, 410.0), (41.0, 405.0)],
                }],
            ),
            crate::fixtures::file(
                "new",
                "t",
                crate::fixtures::host("h"),
                &[crate::fixtures::FakeCell {
                    gc: crate::matrix::Gc::G1,
                    heap: "1g",
                    rounds: &[(40.0, 300.0)],
                }],
            ),
        ];
        let mut probes = Vec::new();
        for i in 0..6u64 {
            // base: faults about 2 us; new: about 1 us; ten launches each side.
            let base: Vec<u64> = (0..200).map(|j| 2_000 + (i * 7 + j) % 100).collect();
            let new: Vec<u64> = (0..200).map(|j| 1_000 + (i * 7 + j) % 50).collect();
            probes.push(LabelledProbe {
                label: "base".into(),
                record: record(i, true, &base, 420),
            });
            probes.push(LabelledProbe {
                label: "new".into(),
                record: record(i, true, &new, 310),
            });
        }
        let a = build(&files, &probes, "base");
        assert_eq!(a.cells.len(), 2);
        assert_eq!(a.disagreeing, 0);
        assert_eq!(a.locks_unsupported, None);
        let base = &a.cells[0];
        assert_eq!(base.label, "base");
        let cost = base.cost.unwrap();
        assert_eq!((cost.probed_ms, cost.timed_ms), (420.0, 405.0));
        assert!(cost.delta_ms() > 0.0 && cost.pct() > 3.0);
        assert!(base.c2c_command.is_none(), "no PMU events: no c2c command");
        assert_eq!(a.shifts.len(), 1);
        let s = &a.shifts[0];
        let p50 = s.p50.unwrap();
        assert!(p50.estimate < 0.0 && p50.significant(), "{p50:?}");
        assert_eq!(LatencyShift::mark(s.p50.as_ref()), "*");
        // The same launches on both sides: no shift, no mark.
        let same = shifts(
            &[
                base.clone(),
                CellProbes {
                    label: "again".into(),
                    ..base.clone()
                },
            ],
            "base",
        );
        assert_eq!(LatencyShift::mark(same[0].p50.as_ref()), "");
    }
}
