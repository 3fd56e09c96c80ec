//! Stage 5, analysis: the verdict of `pretouch check`, read from the comparison the
//! report already builds ([`crate::analyze::compare`]). Each change against the
//! baseline is held against a threshold with its whole interval, at the level the
//! report's table marks it, so the verdict always agrees with the table.
//!
//! A cell passes when its whole interval lies below the threshold. It regresses when
//! its whole interval lies above it. Otherwise it is undecided, and so is a cell whose
//! change has no interval because a side has fewer rounds than an interval needs. The
//! verdict is a regression when any cell regresses, else undecided when any cell is,
//! else a pass.

use crate::analyze::labels::{Change, Interval};
use crate::analyze::report::CellReport;

/// How far a change may go before it counts as a regression.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Threshold {
    /// In % of the baseline's cost, against the change's interval in %.
    Percent(f64),
    /// In ms of cost, against the change's interval in ms.
    Ms(f64),
}

impl Threshold {
    /// The interval of `change` in this threshold's unit; absent without one.
    fn interval(self, change: &Change) -> Option<Interval> {
        match self {
            Threshold::Percent(_) => change.percent_interval,
            Threshold::Ms(_) => change.interval,
        }
    }

    fn value(self) -> f64 {
        match self {
            Threshold::Percent(v) | Threshold::Ms(v) => v,
        }
    }

    /// `v` in this threshold's unit, with its sign: `+5%`, `-12.0 ms`.
    pub fn show(self, v: f64) -> String {
        match self {
            Threshold::Percent(_) => format!("{v:+.1}%"),
            Threshold::Ms(_) => format!("{v:+.1} ms"),
        }
    }
}

impl std::fmt::Display for Threshold {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Threshold::Percent(v) => write!(f, "{v}%"),
            Threshold::Ms(v) => write!(f, "{v} ms"),
        }
    }
}

/// A threshold the command line cannot take.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a change: give a positive number with its unit, such as `5%` or `20ms`")]
pub struct ThresholdError(String);

impl std::str::FromStr for Threshold {
    type Err = ThresholdError;

    fn from_str(s: &str) -> Result<Threshold, ThresholdError> {
        let err = || ThresholdError(s.to_owned());
        let t = s.trim();
        let (number, make): (&str, fn(f64) -> Threshold) = if let Some(n) = t.strip_suffix('%') {
            (n, Threshold::Percent)
        } else if let Some(n) = t.strip_suffix("ms") {
            (n, Threshold::Ms)
        } else {
            return Err(err());
        };
        let v: f64 = number.trim().parse().map_err(|_| err())?;
        if !(v.is_finite() && v > 0.0) {
            return Err(err());
        }
        Ok(make(v))
    }
}

/// Which changes count against the threshold.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Direction {
    /// Only a cost that grew: a cell regresses when its interval lies wholly above
    /// +threshold, and any fall passes, because a patch that makes pretouch cheaper is
    /// no regression.
    #[default]
    Increase,
    /// A change either way: a cell regresses when its interval lies wholly beyond
    /// +threshold or -threshold, and passes only when it lies wholly between them.
    Both,
}

/// What one cell's change says against the threshold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Outcome {
    /// The whole interval lies on the allowed side of the threshold.
    Pass,
    /// The interval straddles the threshold, or there is no interval.
    Undecided,
    /// The whole interval lies beyond the threshold.
    Regression,
}

/// One cell of one column against the baseline, judged. A column is a label, or a
/// column of a feature's comparison.
#[derive(Debug, Clone, PartialEq)]
pub struct Judged {
    /// The cell as the report names it: JDK, collector, heap and variant.
    pub cell: String,
    /// The column's name, the label or the feature's, judged against the baseline.
    pub label: String,
    pub outcome: Outcome,
    /// The change in the threshold's unit, as the report's table shows it; absent when
    /// the cell was not compared.
    pub change: Option<f64>,
    /// The change's interval in the threshold's unit.
    pub interval: Option<Interval>,
    /// Why an undecided cell is undecided, or why it was not compared.
    pub why: String,
}

/// The verdict over every judged cell.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    pub threshold: Threshold,
    pub direction: Direction,
    pub baseline: String,
    /// Every judged cell, in the report's row order, label by label.
    pub cells: Vec<Judged>,
}

impl Verdict {
    /// The worst outcome of any cell: a regression over an undecided cell over a pass.
    /// No cell at all is undecided.
    pub fn outcome(&self) -> Outcome {
        self.cells
            .iter()
            .map(|c| c.outcome)
            .max()
            .unwrap_or(Outcome::Undecided)
    }

    /// The cells that decide the verdict: those with its outcome.
    pub fn deciding(&self) -> impl Iterator<Item = &Judged> {
        let outcome = self.outcome();
        self.cells.iter().filter(move |c| c.outcome == outcome)
    }
}

/// What a check judges: a comparison side by side, and the names of its columns it
/// judges. The labels side by side are the check's own, and a feature may give a
/// comparison of its own in their place.
#[derive(Debug, Clone)]
pub struct Judging<'a> {
    pub comparison: crate::analyze::compare::Comparison,
    /// The columns named to judge against the baseline. Empty means every other column.
    pub judged: &'a [String],
    /// The word for a column in the check's messages and the option that names one,
    /// such as `label` for `--label`.
    pub what: &'static str,
}

/// Judges each change of `comparison`'s columns named in `judged` (every column but
/// the baseline when `None`) against `threshold` in `direction`.
pub fn judge(
    comparison: &crate::analyze::compare::Comparison,
    judged: Option<&[String]>,
    threshold: Threshold,
    direction: Direction,
) -> Verdict {
    let columns: Vec<usize> = comparison
        .columns
        .iter()
        .enumerate()
        .filter(|(_, c)| !c.baseline)
        .filter(|(_, c)| judged.is_none_or(|j| j.contains(&c.label)))
        .map(|(i, _)| i)
        .collect();
    let mut cells = Vec::new();
    for &i in &columns {
        let label = &comparison.columns[i].label;
        for row in &comparison.rows {
            let [jdk, gc, heap, variant] = &row.key;
            let cell = format!(
                "{} {gc} {heap} {variant}",
                crate::machine::jdk::short_jdk(jdk)
            );
            cells.push(judge_entry(
                cell,
                label,
                row.entries[i].as_ref(),
                threshold,
                direction,
            ));
        }
    }
    Verdict {
        threshold,
        direction,
        baseline: comparison.baseline.clone(),
        cells,
    }
}

fn judge_entry(
    cell: String,
    label: &str,
    entry: Option<&crate::analyze::compare::Entry>,
    threshold: Threshold,
    direction: Direction,
) -> Judged {
    let undecided = |why: String| Judged {
        cell: cell.clone(),
        label: label.to_owned(),
        outcome: Outcome::Undecided,
        change: None,
        interval: None,
        why,
    };
    let Some(entry) = entry else {
        return undecided(format!("`{label}` has no such cell"));
    };
    let Some(change) = entry.change else {
        let why = entry
            .not_compared
            .clone()
            .unwrap_or_else(|| "not compared".to_owned());
        return undecided(format!("not compared: {why}"));
    };
    let estimate = match threshold {
        Threshold::Percent(_) => change.percent,
        Threshold::Ms(_) => Some(change.delta),
    };
    let Some(interval) = threshold.interval(&change) else {
        let why = if change.interval.is_some() {
            // The interval in ms exists, so the rounds suffice, and only the % lacks a base.
            "the baseline's cost is not positive, so a change in % has no interval. Give --max-change in ms.".to_owned()
        } else {
            no_interval(&entry.measured)
        };
        let mut judged = undecided(why);
        judged.change = estimate;
        return judged;
    };
    let t = threshold.value();
    let (outcome, why) = match direction {
        Direction::Increase if interval.low > t => (Outcome::Regression, "wholly above"),
        Direction::Increase if interval.high < t => (Outcome::Pass, "wholly below"),
        Direction::Increase => (Outcome::Undecided, "straddles"),
        Direction::Both if interval.low > t || interval.high < -t => {
            (Outcome::Regression, "wholly beyond")
        }
        Direction::Both if interval.low > -t && interval.high < t => {
            (Outcome::Pass, "wholly within")
        }
        Direction::Both => (Outcome::Undecided, "straddles"),
    };
    let bound = match direction {
        Direction::Increase => threshold.show(t),
        Direction::Both => format!("+-{threshold}"),
    };
    let mut why = format!("{why} {bound}");
    if outcome == Outcome::Undecided {
        why += &more_to_decide(threshold, direction, interval, &entry.measured);
    }
    Judged {
        cell,
        label: label.to_owned(),
        outcome,
        change: estimate,
        interval: Some(interval),
        why,
    }
}

/// Most rounds or runs a side that [`more_to_decide`] names; beyond it, it says so.
const MOST_TO_NAME: f64 = 10_000.0;

/// For a cell whose interval straddles the threshold, about how many rounds a side (or
/// runs a label, where the interval is over runs) would likely decide it: the
/// interval's half-width shrinks with the square root of the rounds, so the rounds
/// that bring it within the distance from the change to the threshold are `n (half /
/// distance)^2`. A change in % is taken on the log scale, where its interval is made.
/// It assumes the spread stays as measured and the change stays where it is, so it is
/// a guide, not a promise.
fn more_to_decide(
    threshold: Threshold,
    direction: Direction,
    interval: Interval,
    measured: &CellReport,
) -> String {
    let scale = |v: f64| match threshold {
        Threshold::Percent(_) => (1.0 + v / 100.0).max(f64::MIN_POSITIVE).ln(),
        Threshold::Ms(_) => v,
    };
    let t = threshold.value();
    let estimate = scale(interval.estimate);
    let half = (scale(interval.high) - scale(interval.low)) / 2.0;
    let distance = match direction {
        Direction::Increase => (estimate - scale(t)).abs(),
        Direction::Both => (estimate - scale(t))
            .abs()
            .min((estimate - scale(-t)).abs()),
    };
    let (n, what) = match measured.cost.cost_ci_runs {
        Some(runs) => (runs, "runs a label"),
        None => (measured.cost.rounds, "rounds a side"),
    };
    if !(distance > 0.0 && half > 0.0) || n == 0 {
        return ". The change sits at the threshold, so more rounds may not decide it".to_owned();
    }
    let needed = (n as f64 * (half / distance).powi(2)).ceil();
    if needed > MOST_TO_NAME {
        return format!(
            ". It would likely take more than {MOST_TO_NAME} {what} to decide, because the change lies so near the threshold"
        );
    }
    format!(
        ". About {} {what} would likely decide it, where it has {n}",
        needed.max(n as f64 + 1.0)
    )
}

/// Why a compared cell has no interval: its rounds, when a side has too few.
fn no_interval(measured: &CellReport) -> String {
    format!(
        "too few rounds for an interval ({} rounds here, and an interval needs {} a side)",
        measured.cost.rounds,
        crate::stats::interval::MIN_ROUNDS
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyze::compare::compare;
    use crate::analyze::{Options, build};
    use crate::fixtures::{FakeCell, file, host, rounds};
    use crate::matrix::Gc;
    use crate::store::Results;

    /// A baseline and a patch of one G1 1g cell: `base` and `patch` ms of cost, with
    /// the fixtures' small wobble, over `n` rounds.
    fn verdict(base: f64, patch: f64, n: usize, t: &str, direction: Direction) -> Verdict {
        let cell = |on: f64| -> Vec<(f64, f64)> {
            let r = rounds(50.0, 50.0 + on, false);
            r.iter().cycle().take(n).copied().collect()
        };
        let (b, p) = (cell(base), cell(patch));
        let mk = |label: &str, at: &str, r: &[(f64, f64)]| {
            file(
                label,
                at,
                host("h"),
                &[FakeCell {
                    gc: Gc::G1,
                    heap: "1g",
                    rounds: r,
                }],
            )
        };
        let results = Results {
            files: vec![
                mk("base", "2026-01-01T00:00:00Z", &b),
                mk("patch", "2026-01-01T01:00:00Z", &p),
            ],
            ..Results::default()
        };
        let cmp = compare(&build(&results), &Options::default()).unwrap();
        judge(&cmp, None, t.parse().unwrap(), direction)
    }

    #[test]
    fn reads_thresholds_in_percent_and_ms_and_refuses_the_rest() {
        assert_eq!("5%".parse(), Ok(Threshold::Percent(5.0)));
        assert_eq!(" 2.5 % ".parse(), Ok(Threshold::Percent(2.5)));
        assert_eq!("20ms".parse(), Ok(Threshold::Ms(20.0)));
        for bad in ["5", "-5%", "0%", "fast", "%", "nan%", "5s"] {
            assert!(bad.parse::<Threshold>().is_err(), "{bad}");
        }
    }

    #[test]
    fn a_clear_growth_regresses_and_no_change_passes() {
        let grew = verdict(400.0, 600.0, 20, "5%", Direction::Increase);
        assert_eq!(grew.outcome(), Outcome::Regression);
        let i = grew.cells[0].interval.unwrap();
        assert!(i.low > 5.0, "{i:?}");
        let same = verdict(400.0, 400.0, 20, "5%", Direction::Increase);
        assert_eq!(same.outcome(), Outcome::Pass, "{same:?}");
        let i = same.cells[0].interval.unwrap();
        assert!(i.high < 5.0 && i.low > -5.0, "{i:?}");
    }

    #[test]
    fn a_fall_passes_in_increase_and_regresses_in_both() {
        let fell = verdict(600.0, 400.0, 20, "5%", Direction::Increase);
        assert_eq!(fell.outcome(), Outcome::Pass);
        let fell = verdict(600.0, 400.0, 20, "5%", Direction::Both);
        assert_eq!(fell.outcome(), Outcome::Regression);
        assert!(fell.cells[0].interval.unwrap().high < -5.0);
    }

    #[test]
    fn an_interval_across_the_threshold_is_undecided() {
        // A growth of about 5%, the threshold itself: its interval holds it.
        let v = verdict(400.0, 420.0, 20, "5%", Direction::Increase);
        let i = v.cells[0].interval.unwrap();
        assert!(i.low < 5.0 && i.high > 5.0, "{i:?}");
        assert_eq!(v.outcome(), Outcome::Undecided);
        assert!(v.cells[0].why.contains("straddles"), "{v:?}");
    }

    #[test]
    fn too_few_rounds_is_undecided_whatever_the_change() {
        let v = verdict(400.0, 800.0, 5, "5%", Direction::Increase);
        assert_eq!(v.outcome(), Outcome::Undecided);
        assert!(v.cells[0].interval.is_none());
        assert!(v.cells[0].why.contains("too few rounds"), "{v:?}");
        assert!(v.cells[0].change.unwrap() > 50.0);
    }

    #[test]
    fn a_baseline_without_a_positive_cost_has_no_change_in_percent_but_one_in_ms() {
        let v = verdict(-20.0, 400.0, 20, "5%", Direction::Increase);
        assert_eq!(v.outcome(), Outcome::Undecided);
        assert!(v.cells[0].why.contains("not positive"), "{v:?}");
        let v = verdict(-20.0, 400.0, 20, "10ms", Direction::Increase);
        assert_eq!(v.outcome(), Outcome::Regression, "{v:?}");
    }

    #[test]
    fn an_ms_threshold_reads_the_interval_in_ms() {
        let v = verdict(400.0, 440.0, 20, "10ms", Direction::Increase);
        assert_eq!(v.outcome(), Outcome::Regression);
        assert!(v.cells[0].interval.unwrap().low > 10.0);
        let v = verdict(400.0, 440.0, 20, "100ms", Direction::Increase);
        assert_eq!(v.outcome(), Outcome::Pass);
    }

    #[test]
    fn a_regression_outweighs_an_undecided_cell_which_outweighs_a_pass() {
        let judged = |outcome| Judged {
            cell: String::new(),
            label: String::new(),
            outcome,
            change: None,
            interval: None,
            why: String::new(),
        };
        let mut v = Verdict {
            threshold: Threshold::Percent(5.0),
            direction: Direction::Increase,
            baseline: "base".into(),
            cells: vec![judged(Outcome::Pass), judged(Outcome::Undecided)],
        };
        assert_eq!(v.outcome(), Outcome::Undecided);
        assert_eq!(v.deciding().count(), 1);
        v.cells.push(judged(Outcome::Regression));
        assert_eq!(v.outcome(), Outcome::Regression);
        v.cells.clear();
        assert_eq!(v.outcome(), Outcome::Undecided);
    }
}
