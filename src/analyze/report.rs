//! Stage 5: from raw launch records to one row per (label, JDK, GC, heap, variant).
//! The pretouch cost of a cell is median(with pretouch) - median(without), over the
//! counted launches that reached `main()`; warm-ups and failed launches never enter it.
//! Its spread is that of the per-round costs: in each round a cell is launched once
//! without and once with pretouch, back to back, and `with - without` is that round's
//! cost. Launches far from their group's median are flagged as outliers (modified
//! z-score, [`crate::stats::outliers`]), counted, and dropped only on request.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

use crate::analyze::disturbance::{Judged, judge_cell};
use crate::analyze::env::differences;
use crate::analyze::explain::{CellExplain, CellFolios, explain_cell};
use crate::analyze::options::Options;
use crate::matrix::{Gc, Matrix};
use crate::stats::interval::{CONFIDENCE, Estimator, as_runs, look_level, runs_estimate};
use crate::stats::{Summary, outliers, quartiles, summarize};
use crate::store::{CellKey, CellStop, HostInfo, LaunchRecord, ResultFile, Results};

/// A label selection that cannot be met (`--labels`, `--baseline`).
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum CompareError {
    #[error("no results are labelled `{label}`. The results hold {known}.")]
    UnknownLabel { label: String, known: String },
    #[error("baseline `{baseline}` is not among --labels ({labels})")]
    BaselineNotShown { baseline: String, labels: String },
    #[error("the label `{0}` is asked for twice. Name each label once.")]
    Duplicate(String),
}

/// One round's pair of launches of a cell: its cost is `with - without`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct RoundCost {
    /// Time to main() with pretouch minus without, in the same round.
    pub ms: f64,
    /// Time to main() of the round's launch without pretouch.
    pub off_ms: f64,
    /// One of the two launches is an outlier.
    pub outlier: bool,
    /// The round's run (result file), as an index among the files read: the rounds of
    /// one run share it.
    pub run: usize,
}

/// One row of the report: a cell's figures, in parts. The core's parts come first in
/// each group of the JSON's keys, and the features' parts ([`Backing`] and
/// [`CellParts`]) sit where their keys always have. Every part is flattened, so the
/// JSON's keys and their order are those of one flat row. This row is only ever
/// written, never read back, so the flattens cost no reading time.
///
/// [`Backing`]: crate::features::analyze::Backing
/// [`CellParts`]: crate::features::analyze::CellParts
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct CellReport {
    /// The label, JDK, collector, heap and variant.
    #[serde(flatten)]
    pub id: CellId,
    /// The counted launches and their times to `main()` with and without pretouch.
    #[serde(flatten)]
    pub times: CellTimes,
    /// The cell's other axes: GC threads, CPU set, application and the features' axes.
    #[serde(flatten)]
    pub axes: CellAxes,
    /// Where the cost went: phases, faults, the JVM's own account, the touched check.
    #[serde(skip)]
    pub explain: CellExplain,
    /// The heap's memory, the pretouch method (with its source and, under `--profile`,
    /// its check against the profile) and what the collector logs. The CSV gives it as
    /// flat columns (`analyze::heap::HeapColumns`), JSON as this object.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub heap_and_method: Option<crate::analyze::heap::CellHeap>,
    /// The medians of the launch's three phases up to `main()`.
    #[serde(flatten)]
    pub phases: CellPhases,
    /// The faults of a pretouch, those expected and the folios that backed the heap.
    #[serde(flatten)]
    pub faults: CellFaults,
    /// The features' figures of how the heap was backed, each its own key (a `memory:`
    /// cell's cgroups).
    #[serde(flatten)]
    pub backing: crate::features::analyze::Backing,
    /// The fault rate and the machine's ceiling it reads against.
    #[serde(flatten)]
    pub rate: CellRate,
    /// What the JVM's own log says of its pretouch.
    #[serde(flatten)]
    pub jvm_log: CellJvmLog,
    /// The launches with pretouch whose heap did not become resident.
    #[serde(flatten)]
    pub touched: CellTouched,
    /// The per-round costs' spread, the cost the report states and its interval.
    #[serde(flatten)]
    pub cost: CellCost,
    /// Launches flagged as outliers (both settings), whether excluded or not.
    pub outliers: usize,
    /// The per-round costs, in round order.
    #[serde(skip)]
    pub costs: Vec<RoundCost>,
    /// The JVM flags the matrix adds to this cell (matrix and variant `jvm_args`);
    /// `None` when the stored matrix could not be read back.
    #[serde(skip)]
    pub flags: Option<Vec<String>>,
    /// Where the ceiling comes from, or why there is none.
    #[serde(flatten)]
    pub ceiling: CellCeilingSource,
    /// The features' figures of the cell, each its own key (a server cell's time to
    /// ready).
    #[serde(flatten)]
    pub parts: crate::features::analyze::CellParts,
    /// What the machine's counters say of the cell's launches and of its outliers.
    #[serde(flatten)]
    pub machine: CellMachine,
    /// The JVM's peak RSS with and without pretouch.
    #[serde(flatten)]
    pub peak_rss: CellPeakRss,
}

/// What names a cell: its label and the axes every cell has.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct CellId {
    pub label: String,
    pub jdk: String,
    pub gc: String,
    /// The heap as written in the matrix.
    pub heap: String,
    pub variant: String,
}

/// A cell's counted launches and their times to `main()`, ms.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct CellTimes {
    /// Counted launches that reached `main()`, both settings together (`launches` in
    /// the JSON and CSV: a run is a result file, a round two launches).
    #[serde(rename = "launches")]
    pub runs: usize,
    /// Of those, with pretouch.
    #[serde(rename = "launches_on")]
    pub runs_on: usize,
    /// Of those, without pretouch.
    #[serde(rename = "launches_off")]
    pub runs_off: usize,
    /// Counted launches that failed (they are in no median).
    pub failed: usize,
    pub median_on_ms: Option<f64>,
    pub min_on_ms: Option<f64>,
    pub max_on_ms: Option<f64>,
    pub median_off_ms: Option<f64>,
    pub min_off_ms: Option<f64>,
    pub max_off_ms: Option<f64>,
    /// median_on_ms - median_off_ms; absent when either side has no launch.
    pub pretouch_ms: Option<f64>,
    /// Why the first failed launch of the cell failed.
    pub first_failure: Option<String>,
}

/// A cell's axes beyond those that name it, each shown only where it differs from its
/// default ([`CellReport::variant_text`]).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct CellAxes {
    /// `-XX:ParallelGCThreads` (`auto`: the JVM's choice).
    pub gc_threads: String,
    /// The CPU set the launches were confined to (`all`: not confined).
    pub cpus: String,
    /// The `app:` main class stamped; null: the built-in main class.
    pub app: Option<String>,
    /// The features' axes of the cell, each its own key, absent without that axis.
    #[serde(flatten)]
    pub features: crate::features::key::KeyParts,
}

/// The medians of a launch's three phases up to `main()`, ms, with and without
/// pretouch.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct CellPhases {
    /// Median exec->agent load without pretouch, ms.
    pub exec_to_agent_off_ms: Option<f64>,
    /// Median exec->agent load with pretouch, ms.
    pub exec_to_agent_on_ms: Option<f64>,
    /// Median agent load->VM init (heap creation and pretouch) without pretouch, ms.
    pub agent_to_init_off_ms: Option<f64>,
    /// Median agent load->VM init with pretouch, ms.
    pub agent_to_init_on_ms: Option<f64>,
    /// Median VM init->main() (class loading) without pretouch, ms.
    pub init_to_main_off_ms: Option<f64>,
    /// Median VM init->main() with pretouch, ms.
    pub init_to_main_on_ms: Option<f64>,
}

/// The faults a cell's pretouch took, those it would take at its folio size and at the
/// base page, and the folios that backed its heap.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct CellFaults {
    /// Median minor faults of a launch up to `main()` (the agent's stamp) with pretouch,
    /// less the same without; a server's faults after `main()` are not in it.
    pub pretouch_faults: Option<f64>,
    /// heap / `expected_folio_bytes` (x views): the faults a pretouch takes when each
    /// fault gets a folio of the largest size the run's THP and mTHP modes allowed the
    /// heap; heap / 4 KiB without THP.
    pub expected_faults: u64,
    /// The folio size `expected_faults` counts by, bytes (4096 without THP).
    pub expected_folio_bytes: u64,
    /// heap / 4 KiB (x views) where the folio is larger: the faults when the kernel
    /// falls back to base pages all along, the most a pretouch takes.
    pub expected_faults_4k: Option<u64>,
    /// How the heap was backed: folios per size above the base page, the median of the
    /// launches with pretouch, largest first (the `mthp` counters).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub folios: Vec<crate::analyze::explain::FolioCount>,
    /// Median fallbacks to a smaller folio of a launch with pretouch.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub folio_fallbacks: Option<f64>,
}

/// A cell's fault rate against the machine's ceiling.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct CellRate {
    /// pretouch_faults per second of the agent->init growth (wall time).
    pub fault_rate_per_s: Option<f64>,
    /// This label's ceiling, faults/s, from the feature that measured it
    /// ([`CellCeilingSource`] says which).
    pub ceiling_per_s: Option<f64>,
    /// fault_rate_per_s as a percentage of the ceiling.
    pub ceiling_pct: Option<f64>,
}

/// What the JVM's own log says of a cell's pretouch.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct CellJvmLog {
    /// The JVM's own pretouch time (its log), median over launches with pretouch, ms.
    pub jvm_pretouch_ms: Option<f64>,
    /// How much longer the JVM's Genesis phase takes with pretouch, from its log, ms.
    pub jvm_genesis_growth_ms: Option<f64>,
}

/// The check that pretouch touched the heap.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct CellTouched {
    /// Launches with pretouch whose heap did not become resident: pretouch did not happen.
    pub untouched: usize,
    /// Why the first of them was flagged.
    pub untouched_reason: Option<String>,
    /// Those launches, as `<result file name>#<seq>`, space-separated.
    pub untouched_launches: String,
}

/// The per-round costs of a cell, the cost the report states and its 95% interval.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct CellCost {
    /// Rounds whose two launches both entered the statistics (the per-round costs).
    pub rounds: usize,
    /// Smallest per-round cost.
    pub cost_min_ms: Option<f64>,
    /// Lower quartile of the per-round costs (R's type 8).
    pub cost_q1_ms: Option<f64>,
    /// Median of the per-round costs, all runs together: the line in the plot's box
    /// (`report --plot`).
    pub cost_median_ms: Option<f64>,
    /// Upper quartile of the per-round costs (R's type 8).
    pub cost_q3_ms: Option<f64>,
    /// Largest per-round cost.
    pub cost_max_ms: Option<f64>,
    /// The 20% trimmed mean of the per-round costs (`docs/statistics.md`), over runs the
    /// mean of the runs' trimmed means; absent without a round. Given whatever the
    /// report's estimator.
    pub cost_tmean_ms: Option<f64>,
    /// The estimator the report states (`median`, or `trimmed-mean` with
    /// `--estimator trimmed-mean`): what `cost_ms` and its interval are.
    pub cost_estimator: crate::stats::interval::Estimator,
    /// The cell's cost as the report states it, ms: the estimator's figure of the
    /// per-round costs, over runs the mean of the runs' figures; absent without a round.
    pub cost_ms: Option<f64>,
    /// The 95% interval of `cost_ms`, drift-aware ([`crate::analyze::interval`]);
    /// absent with fewer than 10 rounds (`few rounds` in the text and Markdown).
    pub cost_ci_low_ms: Option<f64>,
    pub cost_ci_high_ms: Option<f64>,
    /// The rounds the interval's error comes from (named for the batch means it
    /// replaced); absent when it is over runs.
    pub cost_ci_batches: Option<usize>,
    /// The runs (result files) the interval is over, when the label has two or more of
    /// 10 rounds each (its error pooled over the label's cells,
    /// `stats::interval::RunSpread`);
    /// its estimate, `cost_ms`, is then the mean of the runs' figures.
    pub cost_ci_runs: Option<usize>,
    /// When the cell's run stopped under adaptive repetitions checked at planned looks
    /// (`schedule::adaptive`): how many, and the interval from its rounds is at
    /// `1 - 0.05 / looks`, so that it holds 95% however the stop fell. Absent for a
    /// fixed count, for files written before the looks, and over runs.
    pub cost_ci_looks: Option<u32>,
}

/// Where a cell's ceiling comes from, or why it has none.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct CellCeilingSource {
    /// The calibration configuration the ceiling comes from (`zap, 1 L3 domain (CPUs
    /// 0-1)`), at the cell's folio size: the cell's own CPU set when it was confined and
    /// that set was calibrated; else the best shared-mapping rate.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ceiling_from: Option<String>,
    /// Why a cell of a calibrated label has no ceiling: no calibration at the folio size
    /// its heap's faults map (`features::calibrate::ceiling::missing`). Absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ceiling_missing: Option<String>,
}

/// What the machine's counters say of a cell's launches.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct CellMachine {
    /// Counted launches whose machine counters show a disturbance (host memory, steal,
    /// other processes, THP fallback, compaction, reclaim; `analyze/disturbance.rs`).
    pub disturbed: usize,
    /// Those disturbances by kind, with the number of launches, e.g.
    /// `memory returned to host 3, other processes 1`.
    pub disturbances: String,
    /// The likely cause of each launch flagged as an outlier, `; `-separated.
    pub outlier_causes: String,
    /// The same, one entry per outlier.
    #[serde(skip)]
    pub outlier_lines: Vec<String>,
    /// The same as data, in the order of `outlier_lines`: what the text report
    /// condenses when there are many ([`crate::analyze::outliers::OutlierSummary`]).
    #[serde(skip)]
    pub outlier_launches: Vec<crate::analyze::disturbance::OutlierLaunch>,
}

/// The JVM's peak RSS (its `ru_maxrss`), MiB, median over the counted launches that
/// recorded one; absent in files written before it was read. Last among the cell's
/// columns, so that the CSV's earlier columns keep their places.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct CellPeakRss {
    /// Without pretouch.
    pub peak_rss_off_mib: Option<f64>,
    /// With pretouch: about the heap plus the JVM's own memory.
    pub peak_rss_on_mib: Option<f64>,
}

/// Per-round costs by run, in run then round order: one vector a run that has a cost.
fn run_costs(costs: &[RoundCost]) -> Vec<Vec<f64>> {
    crate::analyze::interval::by_run(costs.iter().map(|c| (c.run, c.ms)))
}

impl CellReport {
    /// The per-round costs by run, in run then round order.
    pub fn run_costs(&self) -> Vec<Vec<f64>> {
        run_costs(&self.costs)
    }

    /// The times to main() of the launches without pretouch of the rounds that give a
    /// cost, in run then round order: what the comparison reads the machine's shift
    /// between two labels' runs from.
    pub fn off_times(&self) -> Vec<f64> {
        self.costs.iter().map(|c| c.off_ms).collect()
    }

    /// The cost's 95% interval, when the cell has one.
    pub fn cost_interval(&self) -> Option<(f64, f64, f64)> {
        let cost = &self.cost;
        Some((cost.cost_ms?, cost.cost_ci_low_ms?, cost.cost_ci_high_ms?))
    }

    /// Half the width of the cost's 95% interval, ms: the `+-` the tables print.
    pub fn cost_half_width_ms(&self) -> Option<f64> {
        let (_, low, high) = self.cost_interval()?;
        Some((high - low) / 2.0)
    }
}

impl CellReport {
    /// What identifies the cell across labels: JDK, GC, heap, and the variant with the
    /// axes that differ from their default ([`CellReport::variant_text`]).
    pub fn key(&self) -> [String; 4] {
        [
            self.id.jdk.clone(),
            self.id.gc.clone(),
            self.id.heap.clone(),
            self.variant_text(),
        ]
    }

    /// The variant, followed by the axes that differ from their default (GC threads,
    /// CPU set, application), so that tables without those axes look as before.
    pub fn variant_text(&self) -> String {
        let (mut s, axes) = (self.id.variant.clone(), &self.axes);
        if axes.gc_threads != crate::matrix::GC_THREADS_AUTO {
            s += &format!(" gc_threads={}", axes.gc_threads);
        }
        if axes.cpus != crate::matrix::cpuset::ALL {
            s += &format!(" cpus={}", axes.cpus);
        }
        if let Some(app) = &axes.app {
            s += &format!(" app={app}");
        }
        s += &axes.features.words();
        s
    }
}

/// What one label's results were taken on.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LabelInfo {
    pub label: String,
    pub hostname: String,
    pub cpu_model: String,
    pub kernel_release: String,
    /// Start of its oldest run (UTC, RFC 3339).
    pub oldest_run: String,
    /// Result files read for it.
    pub files: usize,
    /// Distinct matrix texts among those files.
    pub matrices: usize,
    /// The matrix text of its oldest run, to compare labels by.
    #[serde(skip)]
    pub matrix: String,
}

/// The report over everything read.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub cells: Vec<CellReport>,
    /// Labels in the order of their oldest result.
    pub labels: Vec<String>,
    /// Problems met while reading, each naming its file and line. The JSON's
    /// `warnings` key holds these and every other warning the text prints
    /// (`render::json`), so it is not serialized from here.
    #[serde(skip)]
    pub warnings: Vec<String>,
    /// Settings that differ between the labels compared (each against the first label),
    /// e.g. `thp_enabled: base=madvise, patched=always`.
    pub env_differences: Vec<String>,
    /// Adaptive repetitions: where each cell stopped and why, per label.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub stops: Vec<LabelledStop>,
    /// Launches flagged as outliers were left out of the statistics, by request.
    pub outliers_excluded: bool,
    /// Where and when each label was run, in the order of `labels`.
    pub label_info: Vec<LabelInfo>,
    /// For labels run more than once: how often their runs differ from each other.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub run_to_run: Vec<RunToRun>,
    /// What the machine was during each label's runs, where it matters for the numbers
    /// (a VM, free page reporting on): see `analyze/disturbance.rs`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub machine_notes: Vec<String>,
}

/// An A/A check inside one label run several times: its oldest run against each later
/// one, cell by cell, with the same statistics as a comparison of labels. With only
/// chance between the runs, about 5% of the cells are marked significant; many more
/// mean the machine drifted between runs (load, host), which no interval over one
/// run's rounds can see.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunToRun {
    pub label: String,
    /// Result files of the label.
    pub runs: usize,
    /// Pairs compared: each cell of the oldest run against the same cell in each later
    /// run, so 2 cells and 3 runs make 4.
    pub cells: usize,
    /// Of those, marked significant.
    pub significant: usize,
}

/// A cell's adaptive stop, with the label of the run it belongs to.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LabelledStop {
    pub label: String,
    #[serde(flatten)]
    pub stop: CellStop,
}

impl LabelledStop {
    /// The level each of the stop's looks checked its interval at, in %: 1 - 0.05 /
    /// looks (Bonferroni over the looks, [`look_level`]), so that the interval it
    /// stopped on holds 95%. `None` in files written before the looks.
    pub fn look_level_pct(&self) -> Option<f64> {
        let looks = self.stop.looks?;
        Some(100.0 * look_level(CONFIDENCE, looks as usize))
    }
}

/// A cell's launches, borrowed from the records read (never copied: a label of a
/// campaign holds a hundred thousand).
#[derive(Default)]
struct Samples<'a> {
    failed: usize,
    first_failure: Option<String>,
    launches_on: Vec<&'a LaunchRecord>,
    launches_off: Vec<&'a LaunchRecord>,
    /// `<file name>#<seq>` of each of `launches_on`, to point at raw records.
    where_on: Vec<String>,
    /// (file index, round, pretouch, time in ms) of each ok launch, in reading order.
    timed: Vec<(usize, u32, bool, f64)>,
    /// Index into `launches_on` / `launches_off` of each of `timed`.
    record: Vec<usize>,
    flags: Option<Vec<String>>,
    flag_sets: usize,
}

fn host_id(h: &HostInfo) -> (String, String) {
    (h.hostname.clone(), h.cpu_model.clone())
}

/// The label a file is reported under: its own, or `label@hostname` when the label's
/// files come from more than one machine (hostname and CPU model).
fn effective_labels(files: &[&ResultFile], warnings: &mut Vec<String>) -> Vec<String> {
    let mut hosts: BTreeMap<&str, Vec<(String, String)>> = BTreeMap::new();
    for f in files {
        let ids = hosts.entry(&f.header.label).or_default();
        let id = host_id(&f.header.host);
        if !ids.contains(&id) {
            ids.push(id);
        }
    }
    for (label, ids) in &hosts {
        if ids.len() > 1 {
            warnings.push(format!(
                "label `{label}` mixes results of {} machines, so each is reported apart as `{label}@<hostname>`. They are {}.",
                ids.len(),
                ids.iter()
                    .map(|(h, c)| format!("{h}: {c}"))
                    .collect::<Vec<_>>()
                    .join("; ")
            ));
        }
    }
    files
        .iter()
        .map(|f| {
            let label = &f.header.label;
            let ids = &hosts[label.as_str()];
            let h = &f.header.host;
            if ids.len() == 1 {
                label.clone()
            } else if ids.iter().filter(|(name, _)| *name == h.hostname).count() > 1 {
                // One hostname, two CPU models (a resized instance): name the CPU too.
                format!("{label}@{} ({})", h.hostname, h.cpu_model)
            } else {
                format!("{label}@{}", h.hostname)
            }
        })
        .collect()
}

/// The flags the matrix adds to each variant, read back from the stored matrix text;
/// why not, when that text no longer parses (a matrix of another version, or one whose
/// `app:` is gone).
fn variant_flags(file: &ResultFile) -> Result<HashMap<String, Vec<String>>, String> {
    let m = Matrix::parse(&file.path.display().to_string(), &file.header.matrix)
        .map_err(|e| e.to_string())?;
    Ok(m.variants
        .iter()
        .map(|v| {
            let mut flags = m.jvm_args.clone();
            flags.extend(v.jvm_args.iter().cloned());
            (v.name.clone(), flags)
        })
        .collect())
}

/// The warning for a file whose stored matrix [`variant_flags`] cannot read.
fn unparsed_matrix(label: &str, file: &ResultFile, why: &str) -> String {
    format!(
        "label `{label}`: the matrix stored in `{}` does not parse here ({}): its variants' flags are unknown, so its cells are pooled without checking that they ran with the same flags",
        file.path.display(),
        why.lines().next().unwrap_or_default()
    )
}

/// Which label each result file is reported under, and the labels in order with where
/// they ran: what the report knows from the files' run headers alone, before any launch
/// is read. A report built a label at a time ([`crate::analyze::document`]) reads each
/// label's launches after this.
#[derive(Debug, Clone)]
pub struct Labelling {
    /// Indices into `results.files`, oldest run first.
    pub order: Vec<usize>,
    /// The label each file of `order` is reported under ([`effective_labels`]).
    pub file_labels: Vec<String>,
    /// Labels in the order of their oldest result.
    pub labels: Vec<String>,
    /// Where and when each label was run, in the order of `labels`.
    pub label_info: Vec<LabelInfo>,
    /// Labels that mix machines, labels that pool matrices.
    pub warnings: Vec<String>,
}

impl Labelling {
    /// The labelling of `results`' files, from their headers (their launches are not read).
    pub fn of(results: &Results) -> Labelling {
        let mut warnings = Vec::new();
        let mut order: Vec<usize> = (0..results.files.len()).collect();
        order.sort_by(|&a, &b| {
            let at = |i: usize| &results.files[i].header.started_at;
            at(a).cmp(at(b))
        });
        let files: Vec<&ResultFile> = order.iter().map(|&i| &results.files[i]).collect();
        let file_labels = effective_labels(&files, &mut warnings);
        let mut labels: Vec<String> = Vec::new();
        let mut label_info: Vec<LabelInfo> = Vec::new();
        for (n, (file, label)) in files.iter().zip(&file_labels).enumerate() {
            match labels.iter().position(|l| l == label) {
                Some(i) => {
                    let info = &mut label_info[i];
                    info.files += 1;
                    let seen = files[..n]
                        .iter()
                        .zip(&file_labels)
                        .any(|(f, l)| l == label && f.header.matrix == file.header.matrix);
                    if !seen {
                        info.matrices += 1;
                    }
                }
                None => {
                    labels.push(label.clone());
                    let h = &file.header.host;
                    label_info.push(LabelInfo {
                        label: label.clone(),
                        hostname: h.hostname.clone(),
                        cpu_model: h.cpu_model.clone(),
                        kernel_release: h.kernel_release.clone(),
                        oldest_run: file.header.started_at.clone(),
                        files: 1,
                        matrices: 1,
                        matrix: file.header.matrix.clone(),
                    });
                }
            }
        }
        for info in &label_info {
            if info.matrices > 1 {
                warnings.push(format!(
                    "label `{}` pools {} files run from {} different matrices. A cell's launches are pooled only where its flags agree.",
                    info.label, info.files, info.matrices
                ));
            }
        }
        Labelling {
            order,
            file_labels,
            labels,
            label_info,
            warnings,
        }
    }

    /// The files of the `label`-th label in `results` (the results this labelling is
    /// of), oldest first, each with its position in `order`.
    pub fn files<'r>(&self, label: usize, results: &'r Results) -> Vec<(usize, &'r ResultFile)> {
        self.runs(label)
            .into_iter()
            .map(|(position, index)| (position, &results.files[index]))
            .collect()
    }

    /// The files of the `label`-th label, oldest first: their positions in `order` and
    /// their indices into `results.files`.
    pub fn runs(&self, label: usize) -> Vec<(usize, usize)> {
        let name = &self.labels[label];
        self.order
            .iter()
            .zip(&self.file_labels)
            .enumerate()
            .filter(|(_, (_, l))| *l == name)
            .map(|(position, (&index, _))| (position, index))
            .collect()
    }
}

/// One label's rows, computed from its files' launches alone.
#[derive(Debug, Clone, Default)]
pub struct LabelRows {
    /// Its cells, in the order first met in its files (oldest first).
    pub cells: Vec<CellReport>,
    /// Cells run with other flags in a later file, each with the position of that file
    /// in [`Labelling::order`], so that the labels' warnings merge in the order of the
    /// files, as one pass over every file gives them.
    pub warnings: Vec<(usize, String)>,
}

/// The rows of the label `label`, from its files (oldest first, each with its position
/// in [`Labelling::order`]) and the features' files found among the results, whose
/// calibrations the ceilings come from.
pub fn label_rows(
    label: &str,
    files: &[(usize, &ResultFile)],
    features: &crate::store::feature_files::FeatureFiles,
    options: &Options,
) -> LabelRows {
    let Gathered {
        order,
        mut by_cell,
        warnings,
    } = gather(label, files);
    let per_file: Vec<FileState<'_>> = files.iter().map(|(_, f)| FileState::of(f)).collect();
    let looks = cell_looks(files);
    let cells = order
        .into_iter()
        .map(|key| {
            let s = by_cell.remove(&key).unwrap_or_default();
            let looks = looks.get(&key).copied();
            let heap = heap_facts(features, label, &key, &s, &per_file);
            cell_report(label.to_owned(), key, s, options, heap, &per_file, looks)
        })
        .collect();
    LabelRows { cells, warnings }
}

/// A label's counted launches, gathered by cell.
struct Gathered<'a> {
    /// The cells in the order first met, the matrix's own order.
    order: Vec<CellKey>,
    by_cell: HashMap<CellKey, Samples<'a>>,
    /// Cells run with other flags in a later file, or files whose matrix no longer
    /// parses, each with the position of its file.
    warnings: Vec<(usize, String)>,
}

/// The counted launches of the label `label`'s files, by cell.
fn gather<'a>(label: &str, files: &[(usize, &'a ResultFile)]) -> Gathered<'a> {
    let mut gathered = Gathered {
        order: Vec::new(),
        by_cell: HashMap::new(),
        warnings: Vec::new(),
    };
    for (file_index, (position, file)) in files.iter().enumerate() {
        let flags = variant_flags(file)
            .map_err(|why| {
                (gathered.warnings).push((*position, unparsed_matrix(label, file, &why)))
            })
            .ok();
        for launch in file.launches.iter().filter(|l| !l.warmup) {
            if !gathered.by_cell.contains_key(&launch.cell) {
                gathered.order.push(launch.cell.clone());
            }
            let samples = gathered.by_cell.entry(launch.cell.clone()).or_default();
            let cell_flags = flags
                .as_ref()
                .and_then(|f| f.get(&*launch.cell.variant).cloned());
            if samples.flag_sets == 0 || samples.flags != cell_flags {
                if samples.flag_sets > 0 {
                    let warning = other_flags(label, launch, file, cell_flags.as_deref());
                    gathered.warnings.push((*position, warning));
                }
                samples.flags = cell_flags;
                samples.flag_sets += 1;
            }
            samples.add(file_index, file, launch);
        }
    }
    gathered
}

/// The warning for a cell whose launches in `file` ran with other flags than before.
fn other_flags(
    label: &str,
    launch: &LaunchRecord,
    file: &ResultFile,
    flags: Option<&[String]>,
) -> String {
    format!(
        "label `{label}`: cell {} {} {} {} was run with different flags in `{}`, and its launches are pooled. {}",
        launch.cell.jdk,
        launch.cell.gc,
        launch.cell.heap,
        launch.cell.variant,
        file.path.display(),
        flags.map_or("unknown".into(), |f| f.join(" "))
    )
}

impl<'a> Samples<'a> {
    /// Adds a counted launch of the file `file_index`, `file`.
    fn add(&mut self, file_index: usize, file: &ResultFile, launch: &'a LaunchRecord) {
        let Some(t) = launch.time_to_main_ns.filter(|_| launch.ok()) else {
            self.failed += 1;
            if self.first_failure.is_none() {
                self.first_failure = launch.measured.failure.clone();
            }
            return;
        };
        let list = if launch.pretouch {
            let name = (file.path.file_name())
                .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
            self.where_on.push(format!("{name}#{}", launch.seq));
            &mut self.launches_on
        } else {
            &mut self.launches_off
        };
        list.push(launch);
        self.record.push(list.len() - 1);
        self.timed
            .push((file_index, launch.round, launch.pretouch, t.as_ms()));
    }
}

impl<'a> FileState<'a> {
    /// Whether free page reporting was on during the file's run, and the kernel's THP
    /// mode, which decides the JDK's pretouch method as much as its flags do
    /// (`analyze::method`).
    fn of(f: &'a ResultFile) -> FileState<'a> {
        let env = f.header.env.as_ref();
        FileState {
            reporting: env
                .and_then(|e| e.guest.as_ref())
                .is_some_and(|g| g.reporting_on()),
            thp_mode: env.and_then(|e| e.thp_enabled.as_deref()),
            env,
            // Warm-up rounds come first, so the last one's number counts them.
            warmup_rounds: (f.launches.iter())
                .filter(|l| l.warmup)
                .map(|l| l.round + 1)
                .max()
                .unwrap_or(0),
        }
    }
}

/// Per cell, the looks of the adaptive rule its runs stopped at, the most of any run.
fn cell_looks<'a>(files: &[(usize, &'a ResultFile)]) -> HashMap<&'a CellKey, u32> {
    let mut looks: HashMap<&CellKey, u32> = HashMap::new();
    for (_, f) in files {
        for stop in f.end.iter().flat_map(|e| &e.stops) {
            if let Some(k) = stop.looks {
                let most = looks.entry(&stop.cell).or_default();
                *most = (*most).max(k);
            }
        }
    }
    looks
}

/// The report of the labels' rows (each label's computed from its launches alone, in
/// the order of `labelling.labels`) and what the files' headers and end records say.
/// `results` needs no launch: their figures are in `rows`.
pub fn from_rows(
    results: &Results,
    labelling: Labelling,
    rows: Vec<LabelRows>,
    options: &Options,
) -> Report {
    let Labelling {
        labels,
        label_info,
        mut warnings,
        ..
    } = labelling;
    let mut cells = Vec::new();
    let mut flagged = Vec::new();
    for r in rows {
        cells.extend(r.cells);
        flagged.extend(r.warnings);
    }
    // In the order of the files that raised them (a stable sort: a file's own in order).
    flagged.sort_by_key(|(position, _)| *position);
    warnings.extend(flagged.into_iter().map(|(_, w)| w));
    let mut stops = Vec::new();
    for file in &results.files {
        if let Some(end) = &file.end {
            stops.extend(end.stops.iter().map(|stop| LabelledStop {
                label: file.header.label.clone(),
                stop: stop.clone(),
            }));
        }
    }
    warnings.extend(results.warnings.iter().cloned());
    Report {
        cells,
        env_differences: env_differences(results, &labels),
        labels,
        warnings,
        stops,
        outliers_excluded: options.exclude_outliers,
        label_info,
        run_to_run: Vec::new(),
        machine_notes: crate::analyze::disturbance::machine_notes(results),
    }
}

/// What a cell's figures need to know of the file each launch came from.
struct FileState<'a> {
    /// Free page reporting was on during the file's run.
    reporting: bool,
    /// The kernel's THP mode (`enabled`) during the run, when recorded.
    thp_mode: Option<&'a str>,
    /// The environment the run recorded (its THP and mTHP modes).
    env: Option<&'a crate::machine::env::Environment>,
    /// The warm-up rounds the file's run began with, so a round is numbered as counted.
    warmup_rounds: u32,
}

/// What a cell's heap faults map and what its rate reads against.
struct CellHeapFacts {
    /// The folio sizes the heap may get, largest first (`None`: its runs' modes differ).
    folios: crate::analyze::explain::CellFolios,
    /// The ceiling at the cell's folio size, or why there is none (`Err(None)`: the
    /// label has no calibration).
    ceiling: Result<crate::analyze::ceiling::CellCeiling, Option<String>>,
}

/// The folio sizes of a cell's heap and the ceiling at the largest, from the features'
/// files, such as the calibration of the same CPUs and folio size where there is one.
fn heap_facts(
    features: &crate::store::feature_files::FeatureFiles,
    label: &str,
    key: &CellKey,
    s: &Samples<'_>,
    per_file: &[FileState<'_>],
) -> CellHeapFacts {
    let folios = cell_folios(s, key.gc, per_file);
    let folio = folios
        .as_ref()
        .and_then(|f| f.first())
        .map_or(crate::machine::folio::BASE_PAGE.0, |b| b.0);
    let cell = crate::analyze::ceiling::CeilingOf {
        label,
        cpus: &key.cpus,
        affinity: s
            .launches_on
            .iter()
            .find_map(|l| l.measured.affinity.as_deref()),
        folio,
    };
    let ceiling = crate::features::analyze::CEILING_SOURCE
        .ceilings
        .of_cell(features, &cell);
    CellHeapFacts { folios, ceiling }
}

/// The folio sizes a cell's heap may get under its runs' THP modes, the same in every
/// file of the cell, with the JVM's flags (`-XX:+UseTransparentHugePages` advises
/// the heap); `None` when the files' modes give different sizes.
fn cell_folios(s: &Samples<'_>, gc: Gc, per_file: &[FileState<'_>]) -> CellFolios {
    use crate::machine::folio::{Backing, jvm_advises, sizes};
    let backing = if gc == Gc::Zgc {
        Backing::Shmem
    } else {
        Backing::Anonymous
    };
    let command = s
        .launches_on
        .iter()
        .chain(&s.launches_off)
        .next()
        .map(|l| l.measured.command.as_slice());
    let args = s.flags.as_deref().or(command).unwrap_or(&[]);
    let default = crate::machine::env::Environment::default();
    // Launches of one file that ran under the same kernel values have the same sizes.
    // So each run of such launches is computed once, because laying the values over the
    // environment copies it.
    let mut first: Option<Vec<crate::units::Bytes>> = None;
    let mut last = None;
    for i in 0..s.timed.len() {
        let read = launch_of(s, i).measured.features.kernel_values();
        let key = (s.timed[i].0, read);
        if last == Some(key) {
            continue;
        }
        last = Some(key);
        let env = per_file
            .get(s.timed[i].0)
            .and_then(|f| f.env)
            .unwrap_or(&default);
        let folios = match launch_of(s, i).measured.features.environment(env) {
            Some(env) => sizes(&env, backing, jvm_advises(&env, backing, args)),
            None => sizes(env, backing, jvm_advises(env, backing, args)),
        };
        match &first {
            None => first = Some(folios),
            Some(f) if *f != folios => return None,
            Some(_) => {}
        }
    }
    Some(first.unwrap_or_default())
}

/// The record of a cell's `i`th timed launch.
fn launch_of<'a>(s: &Samples<'a>, i: usize) -> &'a LaunchRecord {
    let all = if s.timed[i].2 {
        &s.launches_on
    } else {
        &s.launches_off
    };
    all[s.record[i]]
}

/// Which of a cell's timed launches are outliers. They are judged within each pretouch
/// setting, because with and without pretouch differ a lot.
fn flag_outliers(s: &Samples<'_>) -> Vec<bool> {
    let mut flagged = vec![false; s.timed.len()];
    for setting in [false, true] {
        let idx: Vec<usize> = (0..s.timed.len())
            .filter(|&i| s.timed[i].2 == setting)
            .collect();
        let times: Vec<f64> = idx.iter().map(|&i| s.timed[i].3).collect();
        for (i, out) in idx.into_iter().zip(outliers(&times)) {
            flagged[i] = out;
        }
    }
    flagged
}

/// The THP mode of a cell's runs, or none when its runs ran under different modes,
/// since those settle no one method.
fn cell_thp_mode<'a>(s: &Samples<'a>, per_file: &[FileState<'a>]) -> Option<&'a str> {
    // A feature may have written the mode a launch ran under, as a `settings:` value.
    let mut modes = (0..s.timed.len()).map(|i| {
        let launch = launch_of(s, i);
        let written = crate::features::analyze::THP_MODES
            .iter()
            .find_map(|mode| mode(launch));
        written.or_else(|| per_file.get(s.timed[i].0).and_then(|f| f.thp_mode))
    });
    let first = modes.next().flatten();
    if modes.all(|m| m == first) {
        first
    } else {
        None
    }
}

/// The launches of a cell that entered its statistics, outliers left out on request,
/// and the per-round costs they give.
struct Kept<'a> {
    /// Whether each of the cell's timed launches is an outlier.
    flagged: Vec<bool>,
    /// The times to `main()` with and without pretouch, ms.
    on_times: Vec<f64>,
    off_times: Vec<f64>,
    /// Their records, for the explanation of the cell.
    on: Vec<&'a LaunchRecord>,
    off: Vec<&'a LaunchRecord>,
    /// The index into the cell's launches with pretouch of each of `on`.
    on_index: Vec<usize>,
    costs: Vec<RoundCost>,
}

impl<'a> Kept<'a> {
    fn of(s: &Samples<'a>, options: &Options) -> Kept<'a> {
        let flagged = flag_outliers(s);
        let kept = |i: usize| !(options.exclude_outliers && flagged[i]);
        let chosen =
            |setting: bool| (0..s.timed.len()).filter(move |&i| kept(i) && s.timed[i].2 == setting);
        let times = |setting: bool| -> Vec<f64> { chosen(setting).map(|i| s.timed[i].3).collect() };
        let records =
            |setting: bool, all: &[&'a LaunchRecord]| -> (Vec<&'a LaunchRecord>, Vec<usize>) {
                chosen(setting)
                    .map(|i| (all[s.record[i]], s.record[i]))
                    .unzip()
            };
        let (on, on_index) = records(true, &s.launches_on);
        let (off, _) = records(false, &s.launches_off);
        Kept {
            on_times: times(true),
            off_times: times(false),
            costs: round_costs(s, &flagged, kept),
            on,
            off,
            on_index,
            flagged,
        }
    }

    /// The counted launches and their times, with the failed ones of `s`.
    fn times(&self, s: &Samples<'_>) -> CellTimes {
        let (on, off) = (summarize(&self.on_times), summarize(&self.off_times));
        let pick = |x: Option<Summary>, f: fn(Summary) -> f64| x.map(f);
        CellTimes {
            runs: self.on_times.len() + self.off_times.len(),
            runs_on: self.on_times.len(),
            runs_off: self.off_times.len(),
            failed: s.failed,
            median_on_ms: pick(on, |x| x.median),
            min_on_ms: pick(on, |x| x.min),
            max_on_ms: pick(on, |x| x.max),
            median_off_ms: pick(off, |x| x.median),
            min_off_ms: pick(off, |x| x.min),
            max_off_ms: pick(off, |x| x.max),
            pretouch_ms: on.zip(off).map(|(on, off)| on.median - off.median),
            first_failure: s.first_failure.clone(),
        }
    }
}

/// The spread of the per-round costs, and the cost the report states with its
/// interval, from the rounds of the cell's runs and the looks it stopped at.
fn cell_cost(costs: &[RoundCost], looks: Option<u32>, estimator: Estimator) -> CellCost {
    let values: Vec<f64> = costs.iter().map(|c| c.ms).collect();
    let (cost, quart) = (summarize(&values), quartiles(&values));
    let by_run = run_costs(costs);
    let (interval, looks) = crate::analyze::interval::stated(&by_run, looks, estimator);
    // Over runs the interval is about the mean of the runs' figures.
    let figure = |e: Estimator| runs_estimate(&as_runs(&by_run), e);
    CellCost {
        rounds: costs.len(),
        cost_min_ms: cost.map(|x| x.min),
        cost_q1_ms: quart.map(|q| q.0),
        cost_median_ms: cost.map(|x| x.median),
        cost_q3_ms: quart.map(|q| q.1),
        cost_max_ms: cost.map(|x| x.max),
        cost_tmean_ms: figure(Estimator::TrimmedMean),
        cost_estimator: estimator,
        cost_ms: interval.map_or_else(|| figure(estimator), |i| Some(i.estimate_ms)),
        cost_ci_low_ms: interval.map(|i| i.low_ms),
        cost_ci_high_ms: interval.map(|i| i.high_ms),
        cost_ci_batches: interval.filter(|i| i.runs == 1).map(|i| i.batches),
        cost_ci_runs: interval.filter(|i| i.runs > 1).map(|i| i.runs),
        cost_ci_looks: looks,
    }
}

impl CellPhases {
    fn of(x: &CellExplain) -> CellPhases {
        CellPhases {
            exec_to_agent_off_ms: x.phases_off_ms[0],
            exec_to_agent_on_ms: x.phases_on_ms[0],
            agent_to_init_off_ms: x.phases_off_ms[1],
            agent_to_init_on_ms: x.phases_on_ms[1],
            init_to_main_off_ms: x.phases_off_ms[2],
            init_to_main_on_ms: x.phases_on_ms[2],
        }
    }
}

impl CellFaults {
    fn of(x: &CellExplain) -> CellFaults {
        CellFaults {
            pretouch_faults: x.pretouch_faults,
            expected_faults: x.expected_faults,
            expected_folio_bytes: x.expected_folio_bytes,
            expected_faults_4k: x.expected_faults_4k,
            folios: x.folios.clone(),
            folio_fallbacks: x.folio_fallbacks,
        }
    }
}

/// The cell's ceiling, and where it comes from or why there is none.
fn ceiling_of(
    ceiling: Result<crate::analyze::ceiling::CellCeiling, Option<String>>,
) -> (Option<f64>, CellCeilingSource) {
    match ceiling {
        Ok(c) => (
            Some(c.per_s),
            CellCeilingSource {
                ceiling_from: Some(c.from),
                ceiling_missing: None,
            },
        ),
        Err(missing) => (
            None,
            CellCeilingSource {
                ceiling_from: None,
                ceiling_missing: missing,
            },
        ),
    }
}

impl CellMachine {
    fn of(judged: crate::analyze::disturbance::CellDisturbance) -> CellMachine {
        CellMachine {
            disturbed: judged.disturbed,
            disturbances: judged.summary,
            outlier_causes: judged.outlier_causes,
            outlier_lines: judged.outliers,
            outlier_launches: judged.outlier_launches,
        }
    }
}

/// A cell's row, from its launches `s` and what its heap's facts and its runs' files
/// and looks say.
fn cell_report(
    label: String,
    key: CellKey,
    s: Samples<'_>,
    options: &Options,
    heap: CellHeapFacts,
    per_file: &[FileState<'_>],
    looks: Option<u32>,
) -> CellReport {
    let kept = Kept::of(&s, options);
    let x = explain_cell(&kept.on, &kept.off, &heap.folios);
    let (ceiling, source) = ceiling_of(heap.ceiling);
    let thp_mode = cell_thp_mode(&s, per_file);
    let heap_and_method =
        crate::analyze::heap::cell_heap(&key.jdk, key.gc, &kept.on, &kept.off, thp_mode);
    let machine = CellMachine::of(judge_cell(&judged(&s, &kept.flagged, per_file)));
    let rate = CellRate {
        fault_rate_per_s: x.fault_rate_per_s,
        ceiling_per_s: ceiling,
        ceiling_pct: x.fault_rate_per_s.zip(ceiling).map(|(r, c)| 100.0 * r / c),
    };
    let touched = CellTouched {
        untouched: x.untouched,
        untouched_reason: x.untouched_reason.clone(),
        untouched_launches: where_of(&s.where_on, &kept.on_index, &x.untouched_launches),
    };
    CellReport {
        id: CellId {
            label,
            jdk: key.jdk.to_string(),
            gc: key.gc.to_string(),
            heap: key.heap.to_string(),
            variant: key.variant.to_string(),
        },
        times: kept.times(&s),
        axes: CellAxes {
            gc_threads: key.gc_threads.to_string(),
            cpus: key.cpus.to_string(),
            app: key.app,
            features: key.features,
        },
        heap_and_method: Some(heap_and_method),
        phases: CellPhases::of(&x),
        faults: CellFaults::of(&x),
        backing: x.backing.clone(),
        rate,
        jvm_log: CellJvmLog {
            jvm_pretouch_ms: x.jvm_pretouch_ms,
            jvm_genesis_growth_ms: x.jvm_genesis_growth_ms,
        },
        touched,
        explain: x,
        cost: cell_cost(&kept.costs, looks, options.estimator),
        outliers: kept.flagged.iter().filter(|f| **f).count(),
        parts: crate::features::analyze::CellParts::of(&kept.on, &kept.off),
        peak_rss: CellPeakRss {
            peak_rss_off_mib: peak_rss_mib(&kept.off),
            peak_rss_on_mib: peak_rss_mib(&kept.on),
        },
        costs: kept.costs,
        flags: s.flags,
        ceiling: source,
        machine,
    }
}

/// The median peak RSS of `launches`, MiB, over those that recorded one
/// (`launch::rusage::peak_at_exit`); `None` when none did, as in older files, so that
/// a report shows nothing rather than 0.
fn peak_rss_mib(launches: &[&LaunchRecord]) -> Option<f64> {
    let peaks: Vec<f64> = launches
        .iter()
        .filter_map(|l| l.measured.rusage?.peak_rss)
        .map(|b| b.0 as f64 / (1u64 << 20) as f64)
        .collect();
    crate::stats::median(&peaks)
}

/// Per-round costs: the round's with and without launches, both kept.
fn round_costs(s: &Samples<'_>, flagged: &[bool], kept: impl Fn(usize) -> bool) -> Vec<RoundCost> {
    let mut pairs: BTreeMap<(usize, u32), [Option<usize>; 2]> = BTreeMap::new();
    for (i, l) in s.timed.iter().enumerate() {
        if kept(i) {
            pairs.entry((l.0, l.1)).or_default()[usize::from(l.2)] = Some(i);
        }
    }
    pairs
        .values()
        .filter_map(|p| match *p {
            [Some(off), Some(on)] => Some(RoundCost {
                ms: s.timed[on].3 - s.timed[off].3,
                off_ms: s.timed[off].3,
                outlier: flagged[on] || flagged[off],
                run: s.timed[on].0,
            }),
            _ => None,
        })
        .collect()
}

/// Every counted launch, to be judged, outliers left out of the figures included.
fn judged<'a>(s: &Samples<'a>, flagged: &[bool], per_file: &[FileState<'_>]) -> Vec<Judged<'a>> {
    (0..s.timed.len())
        .map(|i| {
            let (file, _, on, ms) = s.timed[i];
            let all = if on { &s.launches_on } else { &s.launches_off };
            let record = all[s.record[i]];
            let warmups = per_file.get(file).map_or(0, |f| f.warmup_rounds);
            Judged {
                record,
                ms,
                outlier: flagged[i],
                reporting_on: per_file.get(file).is_some_and(|f| f.reporting),
                round: record.round.saturating_sub(warmups) + 1,
            }
        })
        .collect()
}

/// Where the launches `which` (indices into the kept launches with pretouch, whose
/// indices into `launches_on` are `on_index`) are stored: `<file>#<seq>`, space-separated.
fn where_of(where_on: &[String], on_index: &[usize], which: &[usize]) -> String {
    which
        .iter()
        .map(|&i| where_on[on_index[i]].as_str())
        .collect::<Vec<_>>()
        .join(" ")
}

/// What differs between each label's environment and the first label's, one line a
/// setting; and, within a label, between its runs.
fn env_differences(results: &Results, labels: &[String]) -> Vec<String> {
    let mut files: Vec<_> = results.files.iter().collect();
    files.sort_by(|a, b| a.header.started_at.cmp(&b.header.started_at));
    let first_env = |label: &str| {
        files
            .iter()
            .filter(|f| f.header.label == label)
            .find_map(|f| f.header.env.as_ref())
    };
    let mut out = Vec::new();
    let Some(base_label) = labels.first() else {
        return out;
    };
    for label in labels {
        let Some(env) = first_env(label) else {
            continue;
        };
        // Runs within one label taken with different settings.
        for f in files.iter().filter(|f| f.header.label == *label) {
            if let Some(other) = &f.header.env {
                for (name, a, b) in differences(env, other) {
                    out.push(format!(
                        "{name} differs within {label}: {a} vs {b} ({})",
                        f.path.display()
                    ));
                }
            }
        }
        if label == base_label {
            continue;
        }
        if let Some(base) = first_env(base_label) {
            for (name, a, b) in differences(base, env) {
                out.push(format!("{name} differs: {base_label}={a}, {label}={b}"));
            }
        }
    }
    out
}

/// Each label's result files, oldest first, labels in the order they first ran. The
/// report reads one label at a time instead, so only tests ask for them all at once.
#[cfg(test)]
pub(crate) fn runs_by_label(results: &Results) -> Vec<(String, Vec<&ResultFile>)> {
    let labelling = Labelling::of(results);
    (0..labelling.labels.len())
        .map(|i| {
            let files = labelling.files(i, results);
            (
                labelling.labels[i].clone(),
                files.into_iter().map(|(_, f)| f).collect(),
            )
        })
        .collect()
}

impl Report {
    /// The report restricted to one label (`--labels` naming one).
    pub fn only(self, label: &str) -> Result<Report, CompareError> {
        if !self.labels.iter().any(|l| l == label) {
            return Err(CompareError::UnknownLabel {
                label: label.to_owned(),
                known: self.labels.join(", "),
            });
        }
        Ok(Report {
            cells: self
                .cells
                .into_iter()
                .filter(|c| c.id.label == label)
                .collect(),
            labels: vec![label.to_owned()],
            label_info: self
                .label_info
                .into_iter()
                .filter(|i| i.label == label)
                .collect(),
            run_to_run: self
                .run_to_run
                .into_iter()
                .filter(|r| r.label == label)
                .collect(),
            ..self
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Results;

    /// Each side's peak RSS is the median over its launches that recorded one, in MiB;
    /// launches of older files, which recorded none, give no figure rather than 0.
    #[test]
    fn peak_rss_is_each_sides_median_and_absent_in_older_files() {
        use crate::launch::rusage::LaunchUsage;
        use crate::units::{Bytes, Nanos};
        let cell = |f: &crate::store::ResultFile| {
            let report = crate::analyze::build(&Results {
                files: vec![f.clone()],
                ..Default::default()
            });
            let c = &report.cells[0];
            (c.peak_rss.peak_rss_off_mib, c.peak_rss.peak_rss_on_mib)
        };
        use crate::fixtures::{FakeCell, file, host, rounds};
        let r = rounds(40.0, 400.0, false);
        let cells = [FakeCell {
            gc: crate::matrix::Gc::G1,
            heap: "1g",
            rounds: &r,
        }];
        let mut f = file("a", "2026-01-01T00:00:00Z", host("h"), &cells);
        assert_eq!(cell(&f), (None, None), "a file from before the peak");
        let mib = 1u64 << 20;
        for l in &mut f.launches {
            // Without pretouch 40, 41, 42... MiB; with it 1100 MiB and one of 1300.
            let peak = if l.pretouch {
                if l.round == 0 { 1300 } else { 1100 }
            } else {
                40 + u64::from(l.round)
            };
            l.measured.rusage = Some(LaunchUsage {
                minflt: 0,
                majflt: 0,
                utime_ns: Nanos(0),
                stime_ns: Nanos(0),
                maxrss: None,
                peak_rss: (l.round != 1).then_some(Bytes(peak * mib)),
            });
        }
        let rounds: Vec<u32> = f
            .launches
            .iter()
            .filter(|l| !l.pretouch)
            .map(|l| l.round)
            .collect();
        let expected_off: Vec<f64> = rounds
            .iter()
            .filter(|&&r| r != 1)
            .map(|&r| 40.0 + f64::from(r))
            .collect();
        let (off, on) = cell(&f);
        assert_eq!(off, crate::stats::median(&expected_off));
        assert_eq!(on, Some(1100.0));
        assert!(on > off);
    }

    #[test]
    fn a_stored_matrix_that_no_longer_parses_is_named_not_skipped() {
        let report = |matrix: Option<&str>| {
            let mut f = crate::fixtures::one_cell_file("a");
            if let Some(m) = matrix {
                f.header.matrix = m.into();
            }
            crate::analyze::build(&Results {
                files: vec![f],
                ..Default::default()
            })
            .warnings
        };
        let said = |w: &[String]| w.iter().any(|w| w.contains("does not parse here"));
        assert!(!said(&report(None)), "{:?}", report(None));
        let warnings = report(Some("name: x\njdks: [17\n"));
        assert!(said(&warnings), "{warnings:?}");
        assert!(
            warnings
                .iter()
                .any(|w| w.contains("`results/a/fixed.jsonl`")
                    && w.contains("pooled without checking")),
            "{warnings:?}"
        );
    }

    #[test]
    fn each_of_a_stops_looks_is_at_the_bonferroni_level() {
        let stop = |looks| LabelledStop {
            label: "a".into(),
            stop: CellStop {
                cell: crate::fixtures::launch(0, true, 1.0).cell,
                rounds: 20,
                max_rounds: 40,
                target_pct: Some(2.0),
                target_ms: None,
                reason: "converged".into(),
                cost_ms: Some(300.0),
                ci_low_ms: Some(290.0),
                ci_high_ms: Some(310.0),
                ci_half_width_pct: Some(3.3),
                ci_batches: Some(4),
                looks,
            },
        };
        // Four looks at 1 - 0.05 / 4 = 98.75% each; none before the looks.
        assert!((stop(Some(4)).look_level_pct().unwrap() - 98.75).abs() < 1e-9);
        assert_eq!(stop(None).look_level_pct(), None);
    }

    #[test]
    fn the_half_width_is_half_the_interval_and_absent_without_one() {
        let cell = CellReport {
            cost: crate::analyze::report::CellCost {
                cost_ms: Some(300.0),
                cost_ci_low_ms: Some(290.0),
                cost_ci_high_ms: Some(315.0),
                ..Default::default()
            },
            ..CellReport::default()
        };
        assert_eq!(cell.cost_half_width_ms(), Some(12.5));
        assert_eq!(CellReport::default().cost_half_width_ms(), None);
    }
}
