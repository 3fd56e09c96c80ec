//! Stage 5: from raw launch records to one row per (label, JDK, GC, heap, variant).
//! The pretouch cost of a cell is median(with pretouch) - median(without), over the
//! counted launches that reached `main()`; warm-ups and failed launches never enter it.

use std::collections::HashMap;

use serde::Serialize;

use crate::env::differences;
use crate::explain::{CellExplain, explain_cell};
use crate::stats::{Summary, summarize};
use crate::store::{CellKey, CellStop, LaunchRecord, Results};

/// One row of the report.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct CellReport {
    pub label: String,
    pub jdk: String,
    pub gc: String,
    /// The heap as written in the matrix.
    pub heap: String,
    pub variant: String,
    /// Counted launches that reached `main()`, both settings together.
    pub runs: usize,
    /// Of those, with pretouch.
    pub runs_on: usize,
    /// Of those, without pretouch.
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
    /// `-XX:ParallelGCThreads` (`auto`: the JVM's choice).
    pub gc_threads: String,
    /// The CPU set the launches were confined to (`all`: not confined).
    pub cpus: String,
    /// The `app:` main class stamped; null: the built-in main class.
    pub app: Option<String>,
    /// Where the cost went: phases, faults, the JVM's own account, the touched check.
    #[serde(skip)]
    pub explain: CellExplain,
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
    /// Median minor faults of a launch, with minus without pretouch.
    pub pretouch_faults: Option<f64>,
    /// heap / 4 KiB: the faults a pretouch with base pages takes.
    pub expected_faults: u64,
    /// pretouch_faults per second of the agent->init growth (wall time).
    pub fault_rate_per_s: Option<f64>,
    /// This label's `pretouch calibrate` ceiling (shared mapping, best), faults/s.
    pub ceiling_per_s: Option<f64>,
    /// fault_rate_per_s as a percentage of the ceiling.
    pub ceiling_pct: Option<f64>,
    /// The JVM's own pretouch time (its log), median over launches with pretouch, ms.
    pub jvm_pretouch_ms: Option<f64>,
    /// The JVM's Genesis time, with minus without pretouch (its log), ms.
    pub jvm_genesis_growth_ms: Option<f64>,
    /// Launches with pretouch whose heap did not become resident: pretouch did not happen.
    pub untouched: usize,
    /// Why the first of them was flagged.
    pub untouched_reason: Option<String>,
    /// Those launches, as `<result file name>#<seq>`, space-separated.
    pub untouched_launches: String,
}

/// The report over everything read.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub cells: Vec<CellReport>,
    /// Labels in the order of their oldest result.
    pub labels: Vec<String>,
    /// Problems met while reading, each naming its file and line.
    pub warnings: Vec<String>,
    /// Settings that differ between the labels compared (each against the first label),
    /// e.g. `thp_enabled: base=madvise, patched=always`.
    pub env_differences: Vec<String>,
    /// Adaptive repetitions: where each cell stopped and why, per label.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub stops: Vec<LabelledStop>,
}

/// A cell's adaptive stop, with the label of the run it belongs to.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LabelledStop {
    pub label: String,
    #[serde(flatten)]
    pub stop: CellStop,
}

#[derive(Default)]
struct Samples {
    on: Vec<f64>,
    off: Vec<f64>,
    failed: usize,
    first_failure: Option<String>,
    launches_on: Vec<LaunchRecord>,
    launches_off: Vec<LaunchRecord>,
    /// `<file name>#<seq>` of each of `launches_on`, to point at raw records.
    where_on: Vec<String>,
}

pub fn build(results: &Results) -> Report {
    // Cells in the order first met: labels oldest first, then the matrix's own order.
    let mut order: Vec<(usize, CellKey)> = Vec::new();
    let mut by_cell: HashMap<(usize, CellKey), Samples> = HashMap::new();
    let mut files: Vec<_> = results.files.iter().collect();
    files.sort_by(|a, b| a.header.started_at.cmp(&b.header.started_at));
    let mut labels: Vec<String> = Vec::new();
    for file in &files {
        if !labels.contains(&file.header.label) {
            labels.push(file.header.label.clone());
        }
    }
    for file in files {
        let label_index = labels
            .iter()
            .position(|l| *l == file.header.label)
            .unwrap_or(0);
        for launch in file.launches.iter().filter(|l| !l.warmup) {
            let key = (label_index, launch.cell.clone());
            if !by_cell.contains_key(&key) {
                order.push(key.clone());
            }
            let samples = by_cell.entry(key).or_default();
            match launch.time_to_main_ns.filter(|_| launch.ok()) {
                Some(t) if launch.pretouch => {
                    samples.on.push(t.as_ms());
                    samples.launches_on.push(launch.clone());
                    samples.where_on.push(format!(
                        "{}#{}",
                        file.path
                            .file_name()
                            .map_or_else(String::new, |n| n.to_string_lossy().into_owned()),
                        launch.seq
                    ));
                }
                Some(t) => {
                    samples.off.push(t.as_ms());
                    samples.launches_off.push(launch.clone());
                }
                None => {
                    samples.failed += 1;
                    if samples.first_failure.is_none() {
                        samples.first_failure = launch.failure.clone();
                    }
                }
            }
        }
    }
    order.sort_by_key(|(label, _)| *label);
    let cells = order
        .into_iter()
        .map(|(label, key)| {
            let s = by_cell.remove(&(label, key.clone())).unwrap_or_default();
            let on = summarize(&s.on);
            let off = summarize(&s.off);
            let pick = |x: Option<Summary>, f: fn(Summary) -> f64| x.map(f);
            let x = explain_cell(&s.launches_on, &s.launches_off);
            let ceiling = ceiling_of(results, &labels[label]);
            CellReport {
                label: labels[label].clone(),
                jdk: key.jdk,
                gc: key.gc.to_string(),
                heap: key.heap,
                variant: key.variant,
                runs: s.on.len() + s.off.len(),
                runs_on: s.on.len(),
                runs_off: s.off.len(),
                failed: s.failed,
                median_on_ms: pick(on, |x| x.median),
                min_on_ms: pick(on, |x| x.min),
                max_on_ms: pick(on, |x| x.max),
                median_off_ms: pick(off, |x| x.median),
                min_off_ms: pick(off, |x| x.min),
                max_off_ms: pick(off, |x| x.max),
                pretouch_ms: on.zip(off).map(|(on, off)| on.median - off.median),
                first_failure: s.first_failure,
                gc_threads: key.gc_threads,
                cpus: key.cpus,
                app: key.app,
                exec_to_agent_off_ms: x.phases_off_ms[0],
                exec_to_agent_on_ms: x.phases_on_ms[0],
                agent_to_init_off_ms: x.phases_off_ms[1],
                agent_to_init_on_ms: x.phases_on_ms[1],
                init_to_main_off_ms: x.phases_off_ms[2],
                init_to_main_on_ms: x.phases_on_ms[2],
                pretouch_faults: x.pretouch_faults,
                expected_faults: x.expected_faults,
                fault_rate_per_s: x.fault_rate_per_s,
                ceiling_per_s: ceiling,
                ceiling_pct: x.fault_rate_per_s.zip(ceiling).map(|(r, c)| 100.0 * r / c),
                jvm_pretouch_ms: x.jvm_pretouch_ms,
                jvm_genesis_growth_ms: x.jvm_genesis_growth_ms,
                untouched: x.untouched,
                untouched_reason: x.untouched_reason.clone(),
                untouched_launches: x
                    .untouched_launches
                    .iter()
                    .map(|&i| s.where_on[i].as_str())
                    .collect::<Vec<_>>()
                    .join(" "),
                explain: x,
            }
        })
        .collect();
    let mut stops = Vec::new();
    for file in &results.files {
        if let Some(end) = &file.end {
            stops.extend(end.stops.iter().map(|stop| LabelledStop {
                label: file.header.label.clone(),
                stop: stop.clone(),
            }));
        }
    }
    Report {
        cells,
        env_differences: env_differences(results, &labels),
        labels,
        warnings: results.warnings.clone(),
        stops,
    }
}

/// The ceiling of a label: its latest calibration's best shared-mapping rate.
fn ceiling_of(results: &Results, label: &str) -> Option<f64> {
    results
        .calibrations
        .iter()
        .filter(|c| c.label == label)
        .max_by(|a, b| a.started_at.cmp(&b.started_at))
        .and_then(|c| Some(c.ceiling()?.0))
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
