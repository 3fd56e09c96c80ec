//! Calibrations of several labels (kernels) side by side, in the shape of the reference
//! series' microbenchmark table: one row per CPU placement and test (`7 L3 domains, 1
//! CPU each` x `zap`), one column per label, each label's median rate, its gain against
//! the baseline, the min-max spread of its passes, and `*` where the passes tell the two
//! apart (the Mann-Whitney interval of the shift, as in [`crate::stats::hodges_lehmann`]).
//! Computes; `render::calibration` prints.

use serde::Serialize;

use crate::machine::calibrate::{Calibration, ConfigResult, Layout, Variant};
use crate::machine::env::differences;
use crate::stats::{Shift, hodges_lehmann, summarize};

/// Confidence level of the intervals behind the mark.
pub const CONFIDENCE: f64 = 0.95;

/// Below this share of CPU time in their passes, the workers were preempted enough to
/// say so.
pub const BUSY_SHARE: f64 = 0.9;

/// Two labels' CPU shares further apart than this ratio: their machine was not equally
/// loaded, and a mark between them is flagged.
pub const SHARE_RATIO: f64 = 1.25;

/// Which labels, in which order, and which one is the baseline.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Labels to show, in this order; `None`: every label, oldest calibration first.
    pub labels: Option<Vec<String>>,
    /// The label the others are compared with; `None`: the first label.
    pub baseline: Option<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum CalibrationCompareError {
    #[error(
        "no `pretouch calibrate` results found\n  fix: run `pretouch calibrate --label NAME` on each kernel first"
    )]
    Empty,
    #[error("no calibration of label `{label}`; calibrated labels: {known}")]
    UnknownLabel { label: String, known: String },
}

/// One label's column.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Column {
    /// `A`, `B`, ...: the label in the text table, named in its legend.
    pub letter: String,
    pub label: String,
    pub baseline: bool,
    /// When its newest calibration started (UTC, RFC 3339).
    pub started_at: String,
    /// The CPU model it ran on.
    pub cpu_model: String,
    pub kernel: String,
    /// Its machine's topology line, when recorded.
    pub topology: Option<String>,
}

/// One label's measurement of one row.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Entry {
    pub label: String,
    /// Counted passes.
    pub passes: usize,
    /// Median, min and max of the passes' rates: 4 KiB pages made present per
    /// wall-second (for 4 KiB faults, faults per wall-second).
    pub median_per_s: f64,
    pub min_per_s: f64,
    pub max_per_s: f64,
    /// (max - min) / median, %.
    pub spread_pct: f64,
    /// Bytes mapped per fault the kernel counted: 4096, or about 2 MiB with huge pages.
    pub fault_bytes: Option<f64>,
    /// The CPUs the workers were pinned to (kernel list syntax); absent: unpinned.
    pub cpus: Option<String>,
    /// median / baseline's median - 1, %; absent for the baseline.
    pub gain_pct: Option<f64>,
    /// Hodges-Lehmann shift of the passes' rates against the baseline's, with its
    /// interval; absent for the baseline.
    pub shift: Option<Shift>,
    /// The workers' CPU time over their time in the passes (1.0: never preempted).
    pub cpu_share: Option<f64>,
    /// Enough passes on both sides for an interval at [`CONFIDENCE`] (4 a side).
    pub testable: bool,
    /// Testable, and the interval excludes 0.
    pub significant: bool,
}

/// One CPU placement and test, every label side by side.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Row {
    /// The CPU set as asked for (`1 L3 domain, 7 CPUs`), or `N threads` (unpinned).
    pub cpus: String,
    /// `zap`, `pft`, `huge`, with the layout unless shared (`zap per-thread`).
    pub test: String,
    pub variant: Variant,
    pub layout: Layout,
    pub workers: usize,
    /// One per column; `None` where a label has no such configuration.
    pub entries: Vec<Option<Entry>>,
}

#[derive(Debug, Clone, Serialize)]
pub struct CalibrationComparison {
    pub columns: Vec<Column>,
    pub baseline: String,
    pub confidence: f64,
    pub rows: Vec<Row>,
    /// Settings that differ between the labels' calibrations (THP mode, ...).
    pub env_differences: Vec<String>,
    pub warnings: Vec<String>,
}

impl CalibrationComparison {
    pub fn baseline_index(&self) -> usize {
        self.columns.iter().position(|c| c.baseline).unwrap_or(0)
    }
}

fn letter(i: usize) -> String {
    let a = |k: usize| char::from(b'A' + (k % 26) as u8);
    if i < 26 {
        a(i).to_string()
    } else {
        format!("{}{}", a(i / 26 - 1), a(i))
    }
}

fn key(r: &ConfigResult) -> (String, String) {
    (r.cpus_name(), r.test_name())
}

/// Sets the labels' calibrations side by side. Per label and row, the newest
/// calibration holding that configuration.
pub fn compare(
    calibrations: &[Calibration],
    options: &Options,
) -> Result<CalibrationComparison, CalibrationCompareError> {
    if calibrations.is_empty() {
        return Err(CalibrationCompareError::Empty);
    }
    let mut sorted: Vec<&Calibration> = calibrations.iter().collect();
    sorted.sort_by(|a, b| a.started_at.cmp(&b.started_at));
    let mut known: Vec<String> = Vec::new();
    for c in &sorted {
        if !known.contains(&c.label) {
            known.push(c.label.clone());
        }
    }
    let unknown = |label: &String| CalibrationCompareError::UnknownLabel {
        label: label.clone(),
        known: known.join(", "),
    };
    let labels: Vec<String> = match &options.labels {
        Some(wanted) => {
            if let Some(missing) = wanted.iter().find(|w| !known.contains(w)) {
                return Err(unknown(missing));
            }
            wanted.clone()
        }
        None => known.clone(),
    };
    let baseline = match &options.baseline {
        Some(b) if !labels.contains(b) => return Err(unknown(b)),
        Some(b) => b.clone(),
        None => labels[0].clone(),
    };
    // Newest first, so that the first match is the newest.
    let newest_first: Vec<&Calibration> = sorted.iter().rev().copied().collect();
    fn of<'a>(
        newest_first: &'a [&'a Calibration],
        label: &'a str,
    ) -> impl Iterator<Item = &'a &'a Calibration> {
        newest_first.iter().filter(move |c| c.label == label)
    }
    let columns: Vec<Column> = labels
        .iter()
        .enumerate()
        .map(|(i, label)| {
            let c = of(&newest_first, label)
                .next()
                .expect("every label has a calibration");
            Column {
                letter: letter(i),
                label: label.clone(),
                baseline: *label == baseline,
                started_at: c.started_at.clone(),
                cpu_model: c.env.cpu_model.clone(),
                kernel: c.env.kernel_release.clone(),
                topology: c.topology.clone(),
            }
        })
        .collect();
    // Rows in the order the configurations were first measured, baseline first.
    let mut keys: Vec<(String, String)> = Vec::new();
    let mut order: Vec<&String> = vec![&baseline];
    order.extend(labels.iter().filter(|l| **l != baseline));
    for label in order {
        for c in sorted.iter().filter(|c| c.label == *label) {
            for r in &c.results {
                if !keys.contains(&key(r)) {
                    keys.push(key(r));
                }
            }
        }
    }
    fn find<'a>(
        newest_first: &'a [&'a Calibration],
        label: &'a str,
        k: &(String, String),
    ) -> Option<(&'a Calibration, &'a ConfigResult)> {
        of(newest_first, label)
            .find_map(|c| c.results.iter().find(|r| key(r) == *k).map(|r| (*c, r)))
    }
    let mut warnings = Vec::new();
    let rows: Vec<Row> = keys
        .iter()
        .map(|k| {
            let base = find(&newest_first, &baseline, k);
            let first = labels
                .iter()
                .find_map(|l| find(&newest_first, l, k))
                .map(|(_, r)| r)
                .expect("a key comes from some label");
            let entries = labels
                .iter()
                .map(|label| {
                    let (c, r) = find(&newest_first, label, k)?;
                    let s = summarize(&r.faults_per_s)?;
                    let mut e = Entry {
                        label: label.clone(),
                        passes: s.n,
                        median_per_s: s.median,
                        min_per_s: s.min,
                        max_per_s: s.max,
                        spread_pct: 100.0 * (s.max - s.min) / s.median,
                        fault_bytes: r.fault_bytes(c.page_size),
                        cpus: r
                            .placement
                            .as_ref()
                            .map(|p| crate::matrix::cpuset::format_list(&p.cpus)),
                        gain_pct: None,
                        shift: None,
                        cpu_share: r.cpu_share,
                        testable: false,
                        significant: false,
                    };
                    if *label != baseline
                        && let Some((bc, b)) = base
                    {
                        let bs = summarize(&b.faults_per_s)?;
                        e.gain_pct = Some(100.0 * (s.median / bs.median - 1.0));
                        e.shift = hodges_lehmann(&r.faults_per_s, &b.faults_per_s, CONFIDENCE);
                        e.testable = e.shift.is_some_and(|s| s.confidence >= CONFIDENCE - 1e-9);
                        e.significant = e.testable && e.shift.is_some_and(|s| s.significant());
                        let pinned =
                            |r: &ConfigResult| r.placement.as_ref().map(|p| p.cpus.clone());
                        if pinned(r) != pinned(b) {
                            warnings.push(format!(
                                "`{}` {}: {label} ran on CPUs {}, {baseline} on {}",
                                k.0,
                                k.1,
                                e.cpus.as_deref().unwrap_or("unpinned"),
                                pinned(b).map_or("unpinned".into(), |c| {
                                    crate::matrix::cpuset::format_list(&c)
                                })
                            ));
                        }
                        if let (Some(a), Some(b)) = (r.cpu_share, b.cpu_share)
                            && e.significant
                            && (a / b > SHARE_RATIO || b / a > SHARE_RATIO)
                        {
                            warnings.push(format!(
                                "`{}` {}: marked, but {label}'s workers had their CPUs {:.0}% \
                                 of the time and {baseline}'s {:.0}%: the machine's load \
                                 differed between the two, and may explain the change",
                                k.0,
                                k.1,
                                100.0 * a,
                                100.0 * b
                            ));
                        }
                        if c.env.cpu_model != bc.env.cpu_model {
                            warnings.push(format!(
                                "`{}` {}: {label} was calibrated on a {}, {baseline} on a {}",
                                k.0, k.1, c.env.cpu_model, bc.env.cpu_model
                            ));
                        }
                        if c.size != bc.size {
                            warnings.push(format!(
                                "`{}` {}: {label} faulted {} a pass, {baseline} {}",
                                k.0, k.1, c.size, bc.size
                            ));
                        }
                    }
                    Some(e)
                })
                .collect();
            Row {
                cpus: k.0.clone(),
                test: k.1.clone(),
                variant: first.variant,
                layout: first.layout,
                workers: first.workers,
                entries,
            }
        })
        .collect();
    // Workers that did not have their CPUs: the machine was busy, and the rates (and any
    // mark) say as much about that as about the kernel.
    for (i, label) in labels.iter().enumerate() {
        let busy: Vec<String> = rows
            .iter()
            .filter_map(|r: &Row| {
                let share = r.entries[i].as_ref()?.cpu_share?;
                (share < BUSY_SHARE).then(|| format!("{} {} {:.0}%", r.cpus, r.test, 100.0 * share))
            })
            .collect();
        if !busy.is_empty() {
            warnings.push(format!(
                "{label}: the workers had their CPUs less than {:.0}% of the time in {} \
                 configuration(s) ({}): the machine was busy, and these rates and marks \
                 reflect that as much as the kernel",
                100.0 * BUSY_SHARE,
                busy.len(),
                busy.join(", ")
            ));
        }
    }
    let base_env = &of(&newest_first, &baseline)
        .next()
        .expect("baseline has one")
        .env;
    let mut env_differences = Vec::new();
    for label in labels.iter().filter(|l| **l != baseline) {
        let env = &of(&newest_first, label).next().expect("label has one").env;
        for (name, a, b) in differences(base_env, env) {
            env_differences.push(format!("{name} differs: {baseline}={a}, {label}={b}"));
        }
    }
    Ok(CalibrationComparison {
        columns,
        baseline,
        confidence: CONFIDENCE,
        rows,
        env_differences,
        warnings,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::machine::calibrate::Layout;
    use crate::machine::env::Environment;
    use crate::machine::topology::Placement;
    use crate::units::Bytes;

    fn result(set: &str, variant: Variant, rates: &[f64]) -> ConfigResult {
        ConfigResult {
            layout: Layout::Shared,
            workers: 7,
            faults_per_s: rates.to_vec(),
            pages: 262_144,
            faults_per_pass: if variant == Variant::Huge {
                512
            } else {
                262_144
            },
            variant,
            placement: Some(Placement {
                set: set.into(),
                cpus: (0..7).collect(),
                l3_domains: vec![0],
                nodes: vec![0],
                sockets: vec![0],
                cores: 7,
            }),
            cpu_share: Some(1.0),
        }
    }

    pub(crate) fn calibration(label: &str, at: &str, results: Vec<ConfigResult>) -> Calibration {
        Calibration {
            record: "calibrate".into(),
            label: label.into(),
            started_at: at.into(),
            env: Environment::default(),
            size: Bytes(1 << 30),
            page_size: Bytes(4096),
            passes: 5,
            results,
            topology: None,
        }
    }

    #[test]
    fn gains_and_marks_against_the_baseline() {
        let base = calibration(
            "base",
            "2026-01-01T00:00:00Z",
            vec![
                result(
                    "1 CCD, 7 CPUs",
                    Variant::Zap,
                    &[2.36e6, 2.35e6, 2.37e6, 2.34e6, 2.38e6],
                ),
                result(
                    "1 CCD, 7 CPUs",
                    Variant::Pft,
                    &[3.0e6, 3.1e6, 2.9e6, 3.2e6, 2.8e6],
                ),
            ],
        );
        let patched = calibration(
            "patched",
            "2026-01-02T00:00:00Z",
            vec![
                result(
                    "1 CCD, 7 CPUs",
                    Variant::Zap,
                    &[2.42e6, 2.43e6, 2.41e6, 2.44e6, 2.42e6],
                ),
                // Overlapping passes: no mark.
                result(
                    "1 CCD, 7 CPUs",
                    Variant::Pft,
                    &[3.05e6, 2.95e6, 3.15e6, 2.85e6, 3.0e6],
                ),
            ],
        );
        let c = compare(&[patched.clone(), base.clone()], &Options::default()).unwrap();
        assert!(c.warnings.is_empty(), "{:?}", c.warnings);
        // The same rates, but the patched run's workers had half the CPU: flagged.
        let mut busy = patched.clone();
        busy.results[0].cpu_share = Some(0.5);
        let flagged = compare(&[busy, base.clone()], &Options::default()).unwrap();
        assert!(flagged.rows[0].entries[1].as_ref().unwrap().significant);
        assert!(
            flagged
                .warnings
                .iter()
                .any(|w| w.contains("marked, but patched's workers had their CPUs 50%")),
            "{:?}",
            flagged.warnings
        );
        assert!(
            flagged.warnings.iter().any(|w| w.contains(
                "less than 90% of the time in 1 configuration(s) (1 CCD, 7 CPUs zap 50%)"
            )),
            "{:?}",
            flagged.warnings
        );
        assert_eq!(c.baseline, "base");
        assert_eq!(c.columns[0].label, "base");
        assert_eq!(c.rows.len(), 2);
        let zap = c.rows[0].entries[1].as_ref().unwrap();
        assert!((zap.gain_pct.unwrap() - 100.0 * (2.42 / 2.36 - 1.0)).abs() < 1e-9);
        assert!(zap.testable && zap.significant, "{zap:?}");
        let pft = c.rows[1].entries[1].as_ref().unwrap();
        assert!(pft.testable && !pft.significant, "{pft:?}");
        assert!(c.rows[0].entries[0].as_ref().unwrap().gain_pct.is_none());
        // Three passes a side cannot reach 95%: no mark, whatever the gain.
        let few = |label: &str, at: &str, f: f64| {
            calibration(
                label,
                at,
                vec![result("1 CPU", Variant::Zap, &[f, f + 1.0, f + 2.0])],
            )
        };
        let c = compare(
            &[few("a", "1", 1e6), few("b", "2", 2e6)],
            &Options::default(),
        )
        .unwrap();
        let e = c.rows[0].entries[1].as_ref().unwrap();
        assert!(!e.testable && !e.significant && e.gain_pct.unwrap() > 99.0);
    }

    #[test]
    fn labels_and_baseline_are_checked() {
        let a = calibration("a", "1", vec![result("1 CPU", Variant::Zap, &[1.0])]);
        let b = calibration("b", "2", vec![result("1 CPU", Variant::Huge, &[1.0])]);
        let both = [a, b];
        let opts = Options {
            labels: Some(vec!["b".into(), "a".into()]),
            baseline: Some("a".into()),
        };
        let c = compare(&both, &opts).unwrap();
        assert_eq!(c.baseline_index(), 1);
        // Different tests are different rows; each label has only one of them.
        assert_eq!(c.rows.len(), 2);
        assert!(c.rows[0].entries[0].is_none() && c.rows[0].entries[1].is_some());
        let e = compare(
            &both,
            &Options {
                baseline: Some("c".into()),
                ..Options::default()
            },
        )
        .unwrap_err();
        assert!(e.to_string().contains("calibrated labels: a, b"), "{e}");
        assert!(matches!(
            compare(&[], &Options::default()),
            Err(CalibrationCompareError::Empty)
        ));
    }
}
