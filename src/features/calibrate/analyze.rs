//! Stage 5, analysis: calibrations of several labels (kernels) side by side, in the
//! shape of the reference series' microbenchmark table: one row per CPU placement and
//! test (`7 L3 domains, 1 CPU each` x `zap`), one column per label, each label's median
//! rate, its gain against the baseline, the min-max spread of its rounds, and `*` where
//! the rounds tell the two apart. The comparison's shape is `analyze::labels`'s, as the
//! launches' table's is. Computes; `features::calibrate::render` prints.
//!
//! The unit of the test is the round, not the pass: passes a fraction of a second apart
//! share the state of the machine (which physical pages, how the VM host backs them, what
//! else runs), so their spread understates how much a calibration moves from one run to
//! the next. Measured on the development VM, two calibrations seconds apart marked 1 to 4
//! of 9 rows when their passes were tested. So the mark tests each label's round medians
//! (the Mann-Whitney interval of the shift, as in [`crate::stats::hodges_lehmann`]), and
//! holds for the whole column: with `k` rows compared, each row's interval is at
//! `1 - 0.05 / k` (Bonferroni), so that where no row differs, and rounds vary as
//! independent runs would, a column holds any mark at most 5% of the time. With 6
//! rounds a side that allows up to 23 rows; fewer rounds print `few rounds` and no mark.

use serde::Serialize;

use crate::analyze::env::differences;
use crate::analyze::labels::{self, Change, Chosen, choose, count_run_to_run};
use crate::analyze::options::Options;
use crate::analyze::report::{CompareError, RunToRun};
use crate::features::calibrate::machine::{Calibration, ConfigResult, Layout, Variant};
use crate::stats::{hodges_lehmann, summarize};

/// Confidence that a column holds no false mark (each row's interval is at
/// `1 - (1 - CONFIDENCE) / k` for the `k` rows compared).
pub const CONFIDENCE: f64 = 0.95;

/// Below this share of CPU time in their passes, the workers were preempted enough to
/// say so.
const BUSY_SHARE: f64 = 0.9;

/// Two labels' CPU shares further apart than this ratio: their machine was not equally
/// loaded, and a mark between them is flagged.
const SHARE_RATIO: f64 = 1.25;

#[derive(Debug, thiserror::Error)]
pub enum CalibrationCompareError {
    #[error(
        "no `pretouch calibrate` results found\n  fix: run `pretouch calibrate --label NAME` on each kernel first"
    )]
    Empty,
    #[error("label `{label}` has no calibration. These labels have one: {known}.")]
    UnknownLabel { label: String, known: String },
    #[error(transparent)]
    Labels(CompareError),
}

/// What a column knows of its label's newest calibration.
#[derive(Debug, Clone, PartialEq)]
pub struct Calibrated {
    /// When it started (UTC, RFC 3339).
    pub started_at: String,
    /// The CPU model it ran on.
    pub cpu_model: String,
    pub kernel: String,
    /// Its machine's topology line, when recorded.
    pub topology: Option<String>,
    /// Rounds and passes per round.
    pub rounds: u32,
    pub passes: u32,
}

/// One label's measurement of one row. Serialized as the keys of an entry of
/// `report --calibrate --format json` (`features::calibrate::render::json`), which writes
/// `cpu_share` after the change's keys, where that file has always had it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Rates {
    /// Counted passes, all rounds.
    pub passes: usize,
    /// Rounds: the units the mark tests.
    pub rounds: usize,
    /// The median of the rounds' median rates: 4 KiB pages made present per
    /// wall-second (for 4 KiB faults, faults per wall-second). With one round, the median
    /// of its passes.
    pub median_per_s: f64,
    /// The lowest and highest round median.
    pub round_min_per_s: f64,
    pub round_max_per_s: f64,
    /// (highest - lowest round median) / median, %: how far the calibration moved from
    /// round to round.
    pub round_spread_pct: f64,
    /// The slowest and fastest pass, all rounds.
    pub min_per_s: f64,
    pub max_per_s: f64,
    /// (max - min) / median of the passes, %.
    pub spread_pct: f64,
    /// Bytes mapped per fault the kernel counted: 4096, or about 2 MiB with huge pages.
    pub fault_bytes: Option<f64>,
    /// The CPUs the workers were pinned to (kernel list syntax); absent: unpinned.
    pub cpus: Option<String>,
    /// The workers' CPU time over their time in the passes (1.0: never preempted).
    #[serde(skip)]
    pub cpu_share: Option<f64>,
}

/// One CPU placement and test: what names a row.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Config {
    /// The CPU set as asked for (`1 L3 domain, 7 CPUs`), or `N threads` (unpinned).
    pub cpus: String,
    /// `zap`, `pft`, `huge`, with the layout unless shared (`zap per-thread`).
    pub test: String,
    pub variant: Variant,
    pub layout: Layout,
    pub workers: usize,
}

/// The labels' calibrations side by side: a row per CPU placement and test, an entry per
/// label with its [`Rates`]. A change is median(label) - median(baseline) in pages per
/// second, its `percent` the gain; its interval the Hodges-Lehmann shift of the round
/// medians, `testable` when it reaches the column's row level.
pub type CalibrationComparison = labels::Comparison<Config, Calibrated, Rates>;
pub type Column = labels::Column<Calibrated>;
pub type Row = labels::Row<Config, Rates>;
pub type Entry = labels::Entry<Rates>;

/// The confidence of each row's interval in a column of `k` compared rows: the
/// Bonferroni share of [`CONFIDENCE`].
pub fn row_level(k: usize) -> f64 {
    crate::stats::family::cell_level(k, CONFIDENCE)
}

/// The smallest two-sided p-value the rank-sum test can give with `m` and `n` values a
/// side: every value of one side above every value of the other, `2 / C(m + n, m)`.
fn smallest_p(m: usize, n: usize) -> f64 {
    let ways = (1..=m).fold(1.0, |c, i| c * (n + i) as f64 / i as f64);
    (2.0 / ways).min(1.0)
}

fn key(r: &ConfigResult) -> (String, String) {
    (r.cpus_name(), r.test_name())
}

/// Sets the labels' calibrations side by side. Per label and row, the newest
/// calibration holding that configuration. The labels are `options.labels` (default:
/// every label, oldest calibration first), the baseline `options.baseline` (default: the
/// oldest label shown).
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
    let Chosen { labels, baseline } = choose(
        &known,
        options.labels.as_deref(),
        options.baseline.as_deref(),
    )
    .map_err(|e| match e {
        CompareError::UnknownLabel { label, known } => {
            CalibrationCompareError::UnknownLabel { label, known }
        }
        other => CalibrationCompareError::Labels(other),
    })?;
    let measured = Measured {
        // Newest first, so that the first match is the newest.
        newest_first: sorted.iter().rev().copied().collect(),
        labels,
        baseline,
    };
    let keys = measured.keys(&sorted);
    let compared = measured.compared(&keys);
    let columns = measured.columns(&compared);
    let mut warnings = Vec::new();
    let rows: Vec<Row> = keys
        .iter()
        .map(|k| measured.row(k, &compared, &mut warnings))
        .collect();
    warnings.extend(measured.busy_warnings(&rows));
    warnings.extend(measured.memory_warnings());
    let env_differences = measured.env_differences();
    let run_to_run: Vec<RunToRun> = measured
        .labels
        .iter()
        .filter_map(|label| own_drift(&sorted, label))
        .collect();
    for r in run_to_run.iter().filter(|r| r.significant > 0) {
        warnings.push(format!(
            "{}: its own calibrations differ (the oldest against each later one marks {} \
             of {} rows): the machine moved between them, and a mark against another \
             label may say as much about that as about the kernel",
            r.label, r.significant, r.cells
        ));
    }
    Ok(CalibrationComparison {
        columns,
        baseline: measured.baseline,
        confidence: CONFIDENCE,
        rows,
        warnings,
        run_to_run,
        env_differences,
        machine_notes: Vec::new(),
        outliers_excluded: false,
    })
}

/// The calibrations a comparison reads, newest first, with the labels chosen and the
/// baseline among them.
struct Measured<'a> {
    newest_first: Vec<&'a Calibration>,
    labels: Vec<String>,
    baseline: String,
}

impl<'a> Measured<'a> {
    /// The calibrations of `label`, newest first.
    fn of<'s>(&'s self, label: &'s str) -> impl Iterator<Item = &'a Calibration> + 's {
        self.newest_first
            .iter()
            .copied()
            .filter(move |c| c.label == label)
    }

    /// The newest calibration of `label`.
    fn newest(&self, label: &str) -> &'a Calibration {
        self.of(label)
            .next()
            .expect("every label has a calibration")
    }

    /// The newest result of `label` for the configuration `k`, with its calibration.
    fn find(
        &self,
        label: &str,
        k: &(String, String),
    ) -> Option<(&'a Calibration, &'a ConfigResult)> {
        self.of(label)
            .find_map(|c| c.results.iter().find(|r| key(r) == *k).map(|r| (c, r)))
    }

    /// Rows in the order the configurations were first measured, baseline first.
    fn keys(&self, oldest_first: &[&Calibration]) -> Vec<(String, String)> {
        let mut keys: Vec<(String, String)> = Vec::new();
        let mut order: Vec<&String> = vec![&self.baseline];
        order.extend(self.labels.iter().filter(|l| **l != self.baseline));
        for label in order {
            for c in oldest_first.iter().filter(|c| c.label == *label) {
                for r in &c.results {
                    if !keys.contains(&key(r)) {
                        keys.push(key(r));
                    }
                }
            }
        }
        keys
    }

    /// The family each column's marks hold for: the rows it shares with the baseline.
    fn compared(&self, keys: &[(String, String)]) -> Vec<usize> {
        self.labels
            .iter()
            .map(|label| {
                if *label == self.baseline {
                    return 0;
                }
                keys.iter()
                    .filter(|k| {
                        self.find(label, k).is_some() && self.find(&self.baseline, k).is_some()
                    })
                    .count()
            })
            .collect()
    }

    fn columns(&self, compared: &[usize]) -> Vec<Column> {
        self.labels
            .iter()
            .enumerate()
            .map(|(i, label)| {
                let c = self.newest(label);
                let info = Calibrated {
                    started_at: c.started_at.clone(),
                    cpu_model: c.env.cpu_model.clone(),
                    kernel: c.env.kernel_release.clone(),
                    topology: c.topology.clone(),
                    rounds: c.rounds,
                    passes: c.passes,
                };
                let mut column = Column::new(i, label, &self.baseline, info);
                column.compared = compared[i];
                column.level = (*label != self.baseline).then(|| row_level(compared[i]));
                column
            })
            .collect()
    }

    /// The row of configuration `k`: one entry per label; what makes a change doubtful
    /// goes to `warnings`.
    fn row(&self, k: &(String, String), compared: &[usize], warnings: &mut Vec<String>) -> Row {
        let first = self
            .labels
            .iter()
            .find_map(|l| self.find(l, k))
            .map(|(_, r)| r)
            .expect("a key comes from some label");
        let entries = self
            .labels
            .iter()
            .enumerate()
            .map(|(column, label)| self.entry(k, label, compared[column], warnings))
            .collect();
        Row {
            key: Config {
                cpus: k.0.clone(),
                test: k.1.clone(),
                variant: first.variant,
                layout: first.layout,
                workers: first.workers,
            },
            entries,
        }
    }

    /// The entry of `label` for configuration `k`, changed against the baseline over
    /// the family of `compared` rows.
    fn entry(
        &self,
        k: &(String, String),
        label: &str,
        compared: usize,
        warnings: &mut Vec<String>,
    ) -> Option<Entry> {
        let baseline = &self.baseline;
        let (c, r) = self.find(label, k)?;
        let rounds = c.round_medians(r);
        let mut e = Entry {
            measured: rates(c, r, &rounds)?,
            change: None,
            not_compared: None,
        };
        if label == baseline {
            return Some(e);
        }
        let Some((bc, b)) = self.find(baseline, k) else {
            e.not_compared = Some("the baseline has no such configuration".into());
            return Some(e);
        };
        let base_rounds = bc.round_medians(b);
        let bs = summarize(&base_rounds)?;
        let level = row_level(compared);
        let shift = hodges_lehmann(&rounds, &base_rounds, level);
        // Ties switch to the normal approximation (any level): the exact test's smallest p decides.
        let testable = shift.is_some_and(|s| s.confidence >= level - 1e-9)
            && smallest_p(rounds.len(), base_rounds.len()) <= 1.0 - level;
        let change = Change {
            delta: e.measured.median_per_s - bs.median,
            percent: Some(100.0 * (e.measured.median_per_s / bs.median - 1.0)),
            interval: shift.map(Into::into),
            percent_interval: None,
            testable,
            significant: testable && shift.is_some_and(|s| s.significant()),
        };
        e.change = Some(change);
        let pinned = |r: &ConfigResult| r.placement.as_ref().map(|p| p.cpus.clone());
        if pinned(r) != pinned(b) {
            warnings.push(format!(
                "`{}` {}: {label} ran on CPUs {}, {baseline} on {}",
                k.0,
                k.1,
                e.measured.cpus.as_deref().unwrap_or("unpinned"),
                pinned(b).map_or("unpinned".into(), |c| {
                    crate::matrix::cpuset::format_list(&c)
                })
            ));
        }
        if let (Some(a), Some(b)) = (r.cpu_share, b.cpu_share)
            && change.significant
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
        Some(e)
    }

    /// Workers that did not have their CPUs: the machine was busy, and the rates (and
    /// any mark) say as much about that as about the kernel.
    fn busy_warnings(&self, rows: &[Row]) -> Vec<String> {
        let mut warnings = Vec::new();
        for (i, label) in self.labels.iter().enumerate() {
            let busy: Vec<String> = rows
                .iter()
                .filter_map(|r: &Row| {
                    let share = r.entries[i].as_ref()?.measured.cpu_share?;
                    (share < BUSY_SHARE)
                        .then(|| format!("{} {} {:.0}%", r.key.cpus, r.key.test, 100.0 * share))
                })
                .collect();
            if !busy.is_empty() {
                warnings.push(format!(
                    "{label}: the workers had their CPUs less than {:.0}% of the time in {}: \
                     {}. The machine was busy, so these rates and marks show that \
                     as much as the kernel.",
                    100.0 * BUSY_SHARE,
                    crate::units::count_of(busy.len(), "configuration"),
                    busy.join(", ")
                ));
            }
        }
        warnings
    }

    /// Memory the guest handed to the VM host while a label calibrated: its passes may
    /// have paid the host's faults, which no kernel change explains.
    fn memory_warnings(&self) -> Vec<String> {
        let mut warnings = Vec::new();
        for label in &self.labels {
            if let Some(m) = &self.newest(label).memory
                && m.host_may_have_faulted()
            {
                let how_much = m.reported_kib.map_or_else(
                    || "the kernel does not count how much".to_owned(),
                    |k| format!("{} MiB of it", k / 1024),
                );
                warnings.push(format!(
                    "{label}: free page reporting was on while it calibrated ({how_much}): \
                     passes that took that memory back paid the VM host's faults too\n  fix: \
                     calibrate with --comparable-memory (root)"
                ));
            }
        }
        warnings
    }

    /// How each label's environment differs from the baseline's.
    fn env_differences(&self) -> Vec<String> {
        let baseline = &self.baseline;
        let base_env = &self.newest(baseline).env;
        let mut out = Vec::new();
        for label in self.labels.iter().filter(|l| *l != baseline) {
            for (name, a, b) in differences(base_env, &self.newest(label).env) {
                out.push(format!("{name} differs: {baseline}={a}, {label}={b}"));
            }
        }
        out
    }
}

/// The rates of one result: over its passes and over its rounds' medians (`rounds`).
fn rates(c: &Calibration, r: &ConfigResult, rounds: &[f64]) -> Option<Rates> {
    let s = summarize(&r.faults_per_s)?;
    let rs = summarize(rounds)?;
    Some(Rates {
        passes: s.n,
        rounds: rs.n,
        median_per_s: rs.median,
        round_min_per_s: rs.min,
        round_max_per_s: rs.max,
        round_spread_pct: 100.0 * (rs.max - rs.min) / rs.median,
        min_per_s: s.min,
        max_per_s: s.max,
        spread_pct: 100.0 * (s.max - s.min) / s.median,
        fault_bytes: r.fault_bytes(c.page_size),
        cpus: r
            .placement
            .as_ref()
            .map(|p| crate::matrix::cpuset::format_list(&p.cpus)),
        cpu_share: r.cpu_share,
    })
}

/// A label's own calibrations as A/A pairs: its oldest against each later one, with
/// the same test as between labels. `None` with one calibration.
fn own_drift(oldest_first: &[&Calibration], label: &str) -> Option<RunToRun> {
    let own: Vec<&Calibration> = oldest_first
        .iter()
        .copied()
        .filter(|c| c.label == label)
        .collect();
    let (oldest, later) = own.split_first()?;
    if later.is_empty() {
        return None;
    }
    let mut check = RunToRun {
        label: label.to_owned(),
        runs: own.len(),
        cells: 0,
        significant: 0,
    };
    for (i, c) in later.iter().enumerate() {
        let (mut a, mut b) = ((*oldest).clone(), (*c).clone());
        a.label = "oldest".to_owned();
        b.label = format!("later {}", i + 1);
        let options = Options {
            labels: Some(vec![a.label.clone(), b.label.clone()]),
            baseline: Some(a.label.clone()),
            ..Options::default()
        };
        let Ok(pair) = compare(&[a, b], &options) else {
            continue;
        };
        count_run_to_run(&mut check, &pair);
    }
    Some(check)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::calibrate::machine::Layout;
    use crate::fixtures::uniform;
    use crate::machine::env::Environment;
    use crate::machine::topology::Placement;
    use crate::units::Bytes;

    fn testable(e: &Entry) -> bool {
        e.change.is_some_and(|c| c.testable)
    }

    fn significant(e: &Entry) -> bool {
        e.change.is_some_and(|c| c.significant)
    }

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
        in_rounds(label, at, 1, results)
    }

    /// A calibration of `rounds` rounds; each result's rates are its rounds' passes,
    /// round by round.
    fn in_rounds(label: &str, at: &str, rounds: u32, results: Vec<ConfigResult>) -> Calibration {
        let passes = results[0].faults_per_s.len() as u32 / rounds;
        Calibration {
            record: "calibrate".into(),
            label: label.into(),
            started_at: at.into(),
            env: Environment::default(),
            size: Bytes(1 << 30),
            page_size: Bytes(4096),
            passes,
            rounds,
            memory: None,
            results,
            topology: None,
        }
    }

    /// Six rounds of one pass around `m`, spread +-2%.
    fn six(m: f64) -> Vec<f64> {
        [0.99, 1.01, 1.0, 0.98, 1.02, 1.005].map(|f| m * f).to_vec()
    }

    #[test]
    fn gains_and_marks_against_the_baseline() {
        let base = in_rounds(
            "base",
            "2026-01-01T00:00:00Z",
            6,
            vec![
                result("1 CCD, 7 CPUs", Variant::Zap, &six(2.36e6)),
                result("1 CCD, 7 CPUs", Variant::Pft, &six(3.0e6)),
            ],
        );
        let patched = in_rounds(
            "patched",
            "2026-01-02T00:00:00Z",
            6,
            vec![
                result("1 CCD, 7 CPUs", Variant::Zap, &six(2.6e6)),
                // Overlapping rounds: no mark.
                result("1 CCD, 7 CPUs", Variant::Pft, &six(3.02e6)),
            ],
        );
        let c = compare(&[patched.clone(), base.clone()], &Options::default()).unwrap();
        assert!(c.warnings.is_empty(), "{:?}", c.warnings);
        assert_eq!(c.baseline, "base");
        assert_eq!(c.columns[0].label, "base");
        assert_eq!(c.rows.len(), 2);
        // Two rows compared: each interval at 97.5%, the column's marks together at 95%.
        assert_eq!(c.columns[1].compared, 2);
        assert!((c.columns[1].level.unwrap() - 0.975).abs() < 1e-12);
        assert_eq!(c.columns[0].level, None);
        let zap = c.rows[0].entries[1].as_ref().unwrap();
        assert!(
            (zap.change.and_then(|c| c.percent).unwrap() - 100.0 * (2.6 / 2.36 - 1.0)).abs() < 1e-9
        );
        assert!(testable(zap) && significant(zap), "{zap:?}");
        assert!(
            zap.change.unwrap().interval.unwrap().confidence >= 0.975,
            "{zap:?}"
        );
        assert_eq!((zap.measured.rounds, zap.measured.passes), (6, 6));
        let pft = c.rows[1].entries[1].as_ref().unwrap();
        assert!(testable(pft) && !significant(pft), "{pft:?}");
        assert!(c.rows[0].entries[0].as_ref().unwrap().change.is_none());

        // The same rates, but the patched run's workers had half the CPU: flagged.
        let mut busy = patched.clone();
        busy.results[0].cpu_share = Some(0.5);
        let flagged = compare(&[busy, base.clone()], &Options::default()).unwrap();
        assert!(flagged.rows[0].entries[1].as_ref().is_some_and(significant));
        assert!(
            flagged
                .warnings
                .iter()
                .any(|w| w.contains("marked, but patched's workers had their CPUs 50%")),
            "{:?}",
            flagged.warnings
        );
        assert!(
            flagged.warnings.iter().any(|w| w
                .contains("less than 90% of the time in 1 configuration: 1 CCD, 7 CPUs zap 50%.")),
            "{:?}",
            flagged.warnings
        );
    }

    #[test]
    fn the_smallest_p_is_the_exact_tests() {
        // R: 2 * pwilcox(0, m, n)
        assert!((smallest_p(4, 4) - 2.0 / 70.0).abs() < 1e-12);
        assert!((smallest_p(6, 6) - 2.0 / 924.0).abs() < 1e-12);
        assert!((smallest_p(3, 5) - 2.0 / 56.0).abs() < 1e-12);
        assert_eq!(smallest_p(1, 1), 1.0);
        // Tied round medians cannot make two rounds a side testable.
        let tied = |label: &str, at: &str, m: f64| {
            in_rounds(label, at, 2, vec![result("1 CPU", Variant::Zap, &[m, m])])
        };
        let c = compare(
            &[tied("a", "1", 1e6), tied("b", "2", 2e6)],
            &Options::default(),
        )
        .unwrap();
        let e = c.rows[0].entries[1].as_ref().unwrap();
        assert!(!testable(e) && !significant(e), "{e:?}");
    }

    #[test]
    fn passes_of_one_round_are_not_replicates() {
        // One round of five passes a side, far apart: the gain is shown, but nothing
        // says the next run of either would not move as much, so no mark.
        let one = |label: &str, at: &str, m: f64| {
            calibration(
                label,
                at,
                vec![result(
                    "1 CPU",
                    Variant::Zap,
                    &[m, m * 1.001, m * 0.999, m * 1.002, m * 0.998],
                )],
            )
        };
        let c = compare(
            &[one("a", "1", 1e6), one("b", "2", 1.1e6)],
            &Options::default(),
        )
        .unwrap();
        let e = c.rows[0].entries[1].as_ref().unwrap();
        assert_eq!((e.measured.rounds, e.measured.passes), (1, 5));
        assert!(!testable(e) && !significant(e), "{e:?}");
        assert!((e.change.and_then(|c| c.percent).unwrap() - 10.0).abs() < 1e-9);
        // The median is the median of the round medians, here of the one round's passes.
        assert_eq!(e.measured.median_per_s, 1.1e6);
        assert_eq!(
            (e.measured.round_min_per_s, e.measured.round_max_per_s),
            (1.1e6, 1.1e6)
        );
    }

    #[test]
    fn the_mark_holds_for_the_whole_column() {
        // Four rounds a side, entirely apart: the exact two-sided p is 2/70 = 0.029.
        let four = |m: f64| vec![m, m * 1.01, m * 0.99, m * 1.02];
        let table = |rows: usize, label: &str, at: &str, m: f64| {
            in_rounds(
                label,
                at,
                4,
                (0..rows)
                    .map(|i| result(&format!("{} CPU", i + 1), Variant::Zap, &four(m)))
                    .collect(),
            )
        };
        // One row: its interval is at 95%, which 4 a side reach: marked.
        let c = compare(
            &[table(1, "a", "1", 1e6), table(1, "b", "2", 2e6)],
            &Options::default(),
        )
        .unwrap();
        let e = c.rows[0].entries[1].as_ref().unwrap();
        assert!(testable(e) && significant(e), "{e:?}");
        // Nine rows: each at 1 - 0.05/9 = 99.44%, beyond what 4 a side can reach.
        let c = compare(
            &[table(9, "a", "1", 1e6), table(9, "b", "2", 2e6)],
            &Options::default(),
        )
        .unwrap();
        assert_eq!(c.columns[1].compared, 9);
        for r in &c.rows {
            let e = r.entries[1].as_ref().unwrap();
            assert!(!testable(e) && !significant(e), "{e:?}");
        }
        // Six a side reach it (1 - 2 x 2/924 = 99.57%).
        let six_rows = |label: &str, at: &str, m: f64| {
            in_rounds(
                label,
                at,
                6,
                (0..9)
                    .map(|i| result(&format!("{} CPU", i + 1), Variant::Zap, &six(m)))
                    .collect(),
            )
        };
        let c = compare(
            &[six_rows("a", "1", 1e6), six_rows("b", "2", 2e6)],
            &Options::default(),
        )
        .unwrap();
        assert!(
            c.rows
                .iter()
                .all(|r| r.entries[1].as_ref().is_some_and(significant))
        );
    }

    /// A calibration as the development VM gives them: each round moves by up to +-6%
    /// (which physical pages, the host's backing), its passes by +-1% around that.
    fn simulated(state: &mut u64, label: &str, rows: usize, m: f64) -> Calibration {
        let results = (0..rows)
            .map(|i| {
                let rates: Vec<f64> = (0..6)
                    .flat_map(|_| {
                        let round = m * (1.0 + 0.12 * (uniform(state) - 0.5));
                        (0..3)
                            .map(|_| round * (1.0 + 0.02 * (uniform(state) - 0.5)))
                            .collect::<Vec<_>>()
                    })
                    .collect();
                result(&format!("{} CPU", i + 1), Variant::Zap, &rates)
            })
            .collect();
        in_rounds(label, label, 6, results)
    }

    #[test]
    fn a_a_tables_are_rarely_marked_and_a_real_change_is() {
        let mut state = 15;
        let tables = 200;
        let (mut marked, mut marked_by_passes, mut found) = (0, 0, 0);
        for _ in 0..tables {
            let a = simulated(&mut state, "a", 9, 1e6);
            let b = simulated(&mut state, "b", 9, 1e6);
            let c = compare(&[a.clone(), b.clone()], &Options::default()).unwrap();
            marked += usize::from(
                c.rows
                    .iter()
                    .any(|r| r.entries[1].as_ref().is_some_and(significant)),
            );
            // What testing the passes at 95% a row would have said.
            marked_by_passes += usize::from(a.results.iter().zip(&b.results).any(|(x, y)| {
                hodges_lehmann(&y.faults_per_s, &x.faults_per_s, 0.95)
                    .is_some_and(|s| s.significant())
            }));
            // A 15% gain in one row of nine.
            let mut d = simulated(&mut state, "d", 9, 1e6);
            d.results[0] = simulated(&mut state, "d", 1, 1.15e6).results.remove(0);
            let c = compare(&[a, d], &Options::default()).unwrap();
            found += usize::from(c.rows[0].entries[1].as_ref().is_some_and(significant));
        }
        eprintln!(
            "simulated A/A tables of 9 rows: {marked} of {tables} marked (by passes: \
             {marked_by_passes}); a 15% gain found in {found}"
        );
        assert!(marked * 100 <= 6 * tables, "A/A: {marked} of {tables}");
        assert!(
            marked_by_passes * 2 > tables,
            "by passes: {marked_by_passes}"
        );
        assert!(found * 10 >= 9 * tables, "real change: {found} of {tables}");
    }

    #[test]
    fn a_label_calibrated_twice_is_its_own_a_a_pair() {
        let rows = |m: f64| {
            (0..3)
                .map(|i| result(&format!("{} CPU", i + 1), Variant::Zap, &six(m)))
                .collect::<Vec<_>>()
        };
        let steady = [
            in_rounds("k", "1", 6, rows(1e6)),
            in_rounds("k", "2", 6, rows(1e6)),
            in_rounds("other", "3", 6, rows(1e6)),
        ];
        let c = compare(&steady, &Options::default()).unwrap();
        assert_eq!(c.run_to_run.len(), 1);
        let r = &c.run_to_run[0];
        assert_eq!(
            (r.label.as_str(), r.runs, r.cells, r.significant),
            ("k", 2, 3, 0)
        );
        assert!(c.warnings.is_empty(), "{:?}", c.warnings);
        // The later calibration of `k` moved by 20% in every row: said, with the rows.
        let moved = [
            in_rounds("k", "1", 6, rows(1e6)),
            in_rounds("k", "2", 6, rows(1.2e6)),
            in_rounds("other", "3", 6, rows(1e6)),
        ];
        let c = compare(&moved, &Options::default()).unwrap();
        assert_eq!(c.run_to_run[0].significant, 3);
        assert!(
            c.warnings
                .iter()
                .any(|w| w.starts_with("k: its own calibrations differ (the oldest against each later one marks 3 of 3 rows)")),
            "{:?}",
            c.warnings
        );
        // The table itself still uses the newest calibration of each label.
        let e = c.rows[0].entries[0].as_ref().unwrap();
        assert!(
            (e.measured.median_per_s / 1.2e6 - 1.0025).abs() < 1e-9,
            "{e:?}"
        );
    }

    #[test]
    fn memory_handed_to_the_host_is_warned_about() {
        let mut a = in_rounds("a", "1", 6, vec![result("1 CPU", Variant::Zap, &six(1e6))]);
        let mut b = in_rounds("b", "2", 6, vec![result("1 CPU", Variant::Zap, &six(1e6))]);
        a.memory = Some(crate::features::calibrate::machine::MemoryDuring {
            reporting: "on (balloon feature bit 5, order 9)".into(),
            reporting_on: true,
            stopped: None,
            reported_kib: Some(300 << 10),
        });
        b.memory = Some(crate::features::calibrate::machine::MemoryDuring {
            reporting: "on (balloon feature bit 5, order 9)".into(),
            reporting_on: true,
            stopped: Some([9, 11]),
            reported_kib: Some(0),
        });
        let c = compare(&[a, b], &Options::default()).unwrap();
        assert_eq!(c.warnings.len(), 1, "{:?}", c.warnings);
        assert!(
            c.warnings[0]
                .starts_with("a: free page reporting was on while it calibrated (300 MiB of it)"),
            "{:?}",
            c.warnings
        );
    }

    #[test]
    fn labels_and_baseline_are_checked() {
        let a = calibration("a", "1", vec![result("1 CPU", Variant::Zap, &[1.0])]);
        let b = calibration("b", "2", vec![result("1 CPU", Variant::Huge, &[1.0])]);
        let both = [a, b];
        let opts = Options {
            labels: Some(vec!["b".into(), "a".into()]),
            baseline: Some("a".into()),
            ..Options::default()
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
        assert!(e.to_string().contains("These labels have one: a, b"), "{e}");
        assert!(matches!(
            compare(&[], &Options::default()),
            Err(CalibrationCompareError::Empty)
        ));
    }
}
