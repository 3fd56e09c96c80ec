//! Stage 5: from raw launch records to one row per (label, JDK, GC, heap, variant).
//! The pretouch cost of a cell is median(with pretouch) - median(without), over the
//! counted launches that reached `main()`; warm-ups and failed launches never enter it.

use std::collections::HashMap;

use serde::Serialize;

use crate::stats::{Summary, summarize};
use crate::store::{CellKey, CellStop, Results};

/// One row of the report.
#[derive(Debug, Clone, PartialEq, Serialize)]
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
}

/// The report over everything read.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub cells: Vec<CellReport>,
    /// Labels in the order of their oldest result.
    pub labels: Vec<String>,
    /// Problems met while reading, each naming its file and line.
    pub warnings: Vec<String>,
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
                Some(t) if launch.pretouch => samples.on.push(t.as_ms()),
                Some(t) => samples.off.push(t.as_ms()),
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
        labels,
        warnings: results.warnings.clone(),
        stops,
    }
}
