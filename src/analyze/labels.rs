//! Stage 5, analysis: labels side by side. Which labels a comparison shows, in which
//! order, and which one is the baseline; the letters that name them in text tables; and
//! the one shape of a comparison ([`Comparison`]: a column per label, a row per thing
//! compared, in each an entry with its change against the baseline, that change's
//! interval and its mark). One rule and one shape for the launches' table
//! (`analyze::compare`, `report`) and the calibrations' (`features::calibrate::analyze`,
//! `report --calibrate`).

use serde::Serialize;

use crate::analyze::report::{CompareError, RunToRun};

/// The labels shown, in order, and the baseline among them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chosen {
    pub labels: Vec<String>,
    pub baseline: String,
}

/// Chooses from `known` (every label, oldest results first): `wanted` in its order
/// (each known, none twice), else all of `known`; the baseline `baseline` (known and
/// shown), else the oldest label shown.
pub fn choose(
    known: &[String],
    wanted: Option<&[String]>,
    baseline: Option<&str>,
) -> Result<Chosen, CompareError> {
    let check = |label: &str| {
        if known.iter().any(|l| l == label) {
            Ok(())
        } else {
            Err(CompareError::UnknownLabel {
                label: label.to_owned(),
                known: known.join(", "),
            })
        }
    };
    let labels: Vec<String> = match wanted {
        Some(ls) => {
            for (i, l) in ls.iter().enumerate() {
                check(l)?;
                if ls[..i].contains(l) {
                    return Err(CompareError::Duplicate(l.clone()));
                }
            }
            ls.to_vec()
        }
        None => known.to_vec(),
    };
    let baseline = match baseline {
        Some(b) => {
            check(b)?;
            if !labels.iter().any(|l| l == b) {
                return Err(CompareError::BaselineNotShown {
                    baseline: b.to_owned(),
                    labels: labels.join(", "),
                });
            }
            b.to_owned()
        }
        None => known
            .iter()
            .find(|l| labels.contains(l))
            .cloned()
            .unwrap_or_default(),
    };
    Ok(Chosen { labels, baseline })
}

/// `A`, `B`, ... `Z`, `AA`, `AB`...: the `i`-th column's name in a text table.
pub fn letter(i: usize) -> String {
    let a = |k: usize| char::from(b'A' + (k % 26) as u8);
    if i < 26 {
        a(i).to_string()
    } else {
        format!("{}{}", a(i / 26 - 1), a(i))
    }
}

/// Labels side by side: one [`Column`] per label, one [`Row`] per thing compared (a cell
/// of the matrix, a CPU placement and test), each row one [`Entry`] per column. `K`
/// names a row, `I` is what a column knows of its label's runs, `M` what an entry
/// measured.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison<K, I, M> {
    /// In the order shown (`--labels`), the baseline among them.
    pub columns: Vec<Column<I>>,
    pub baseline: String,
    /// Confidence that a column holds no false mark.
    pub confidence: f64,
    pub rows: Vec<Row<K, M>>,
    pub warnings: Vec<String>,
    /// The A/A check of each label with more than one run: its oldest run against each
    /// later one, with the same test as between labels.
    pub run_to_run: Vec<RunToRun>,
    /// Settings that differ between the labels (THP mode, ...), each against the
    /// baseline's.
    pub env_differences: Vec<String>,
    /// What the machine was during each label's runs, where it matters for the numbers.
    pub machine_notes: Vec<String>,
    /// Launches flagged as outliers were left out of every figure (`--exclude-outliers`;
    /// calibrations flag none).
    pub outliers_excluded: bool,
}

/// One label's column.
#[derive(Debug, Clone, PartialEq)]
pub struct Column<I> {
    /// `A`, `B`, ...: the label's name in plain-text tables, explained in their legend.
    pub letter: String,
    pub label: String,
    pub baseline: bool,
    /// What the column's label was run on, and when.
    pub info: I,
    /// Rows whose change has an interval against the baseline: the family the column's
    /// marks hold for; 0 for the baseline.
    pub compared: usize,
    /// The confidence of each of those intervals, `1 - 0.05 / compared` (Bonferroni,
    /// `stats::family`); absent for the baseline.
    pub level: Option<f64>,
    /// The geometric mean of the label's cost ratios against the baseline over the
    /// rows compared, with its interval at the comparison's confidence
    /// (`stats::family::geometric_mean`); absent for the baseline, under 2 rows, and
    /// where the rows are not costs (calibrations).
    pub geomean: Option<crate::stats::family::GeoMean>,
}

/// One thing compared, every label side by side.
#[derive(Debug, Clone, PartialEq)]
pub struct Row<K, M> {
    pub key: K,
    /// One per column, in column order; `None` where a label has no such row.
    pub entries: Vec<Option<Entry<M>>>,
}

/// One label's entry in a row.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry<M> {
    pub measured: M,
    /// Against the baseline; absent for the baseline itself and when not compared.
    pub change: Option<Change>,
    /// Why this entry was not compared with the baseline's.
    pub not_compared: Option<String>,
}

/// A label's change against the baseline in one row: an estimate, its interval, its
/// mark.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Change {
    /// The label's figure minus the baseline's, in the figure's unit (ms of cost, pages
    /// made present per second).
    pub delta: f64,
    /// `delta` as a percentage of the baseline's figure; absent when that figure is
    /// not positive.
    pub percent: Option<f64>,
    /// The shift with its interval, at the column's level where the rounds allow it;
    /// absent with too few rounds for any interval.
    pub interval: Option<Interval>,
    /// `interval` in % of the baseline's figure, as `percent` is of `delta`; absent
    /// without an interval or where that figure is not positive.
    pub percent_interval: Option<Interval>,
    /// The interval reaches the column's level, so that its mark counts.
    pub testable: bool,
    /// Testable, and the interval excludes zero.
    pub significant: bool,
}

/// An estimate of a shift and its interval, in the unit of the figure compared.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Interval {
    pub estimate: f64,
    pub low: f64,
    pub high: f64,
    /// The confidence the interval has.
    pub confidence: f64,
}

impl Interval {
    /// The interval in another unit: every bound times `factor`.
    pub fn scaled(self, factor: f64) -> Interval {
        Interval {
            estimate: self.estimate * factor,
            low: self.low * factor,
            high: self.high * factor,
            confidence: self.confidence,
        }
    }

    /// A shift of the statistics and its interval, stated at `confidence`.
    pub fn of(shift: crate::stats::Shift, confidence: f64) -> Interval {
        Interval {
            estimate: shift.estimate,
            low: shift.low,
            high: shift.high,
            confidence,
        }
    }

    /// A ratio's interval as a change in %: `100 (ratio - 1)` at every end.
    pub fn ratio_as_percent(self) -> Interval {
        let percent = |r: f64| 100.0 * (r - 1.0);
        Interval {
            estimate: percent(self.estimate),
            low: percent(self.low),
            high: percent(self.high),
            confidence: self.confidence,
        }
    }

    /// Half the interval's width.
    pub fn half_width(&self) -> f64 {
        (self.high - self.low) / 2.0
    }

    /// An interval's four columns in CSV and JSON, estimate, low, high and confidence;
    /// all empty without one.
    pub fn columns(interval: Option<Interval>) -> [Option<f64>; 4] {
        interval.map_or([None; 4], |i| {
            [i.estimate, i.low, i.high, i.confidence].map(Some)
        })
    }
}

impl From<crate::stats::interval::Difference> for Interval {
    fn from(d: crate::stats::interval::Difference) -> Interval {
        Interval {
            estimate: d.estimate_ms,
            low: d.low_ms,
            high: d.high_ms,
            confidence: d.confidence,
        }
    }
}

impl From<crate::stats::Shift> for Interval {
    fn from(s: crate::stats::Shift) -> Interval {
        Interval {
            estimate: s.estimate,
            low: s.low,
            high: s.high,
            confidence: s.confidence,
        }
    }
}

impl<I> Column<I> {
    /// The `i`-th column shown, for `label`; not compared yet.
    pub fn new(i: usize, label: &str, baseline: &str, info: I) -> Column<I> {
        Column {
            letter: letter(i),
            label: label.to_owned(),
            baseline: label == baseline,
            info,
            compared: 0,
            level: None,
            geomean: None,
        }
    }
}

impl<K, I, M> Comparison<K, I, M> {
    pub fn baseline_index(&self) -> usize {
        self.columns.iter().position(|c| c.baseline).unwrap_or(0)
    }

    /// Every entry's change against the baseline, row by row: what an A/A pair counts.
    pub fn changes(&self) -> impl Iterator<Item = &Change> {
        self.rows
            .iter()
            .flat_map(|r| r.entries.iter().flatten())
            .filter_map(|e| e.change.as_ref())
    }

    /// Each row with its entry in every column, the column beside it.
    pub fn entries<'a>(
        &'a self,
        row: &'a Row<K, M>,
    ) -> impl Iterator<Item = (&'a Column<I>, &'a Entry<M>)> {
        self.columns
            .iter()
            .zip(&row.entries)
            .filter_map(|(c, e)| Some((c, e.as_ref()?)))
    }
}

/// Adds one pair's changes to a label's A/A check: cells compared, and marked.
pub fn count_run_to_run<K, I, M>(check: &mut RunToRun, pair: &Comparison<K, I, M>) {
    for change in pair.changes() {
        check.cells += 1;
        check.significant += usize::from(change.significant);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn known() -> Vec<String> {
        ["old", "mid", "new"].map(String::from).to_vec()
    }

    #[test]
    fn the_oldest_shown_label_is_the_default_baseline() {
        let wanted = ["new".to_owned(), "mid".to_owned()];
        let c = choose(&known(), Some(&wanted), None).unwrap();
        assert_eq!((c.labels, c.baseline.as_str()), (wanted.to_vec(), "mid"));
        assert_eq!(choose(&known(), None, None).unwrap().baseline, "old");
        assert_eq!(choose(&known(), None, Some("new")).unwrap().baseline, "new");
    }

    #[test]
    fn selections_that_cannot_be_met_are_refused() {
        let twice = ["old".to_owned(), "old".to_owned()];
        assert_eq!(
            choose(&known(), Some(&twice), None),
            Err(CompareError::Duplicate("old".into()))
        );
        assert!(matches!(
            choose(&known(), None, Some("nope")),
            Err(CompareError::UnknownLabel { .. })
        ));
        let one = ["new".to_owned()];
        assert!(matches!(
            choose(&known(), Some(&one), Some("old")),
            Err(CompareError::BaselineNotShown { .. })
        ));
    }

    #[test]
    fn an_a_a_pair_counts_its_changes_and_marks() {
        let cmp = crate::fixtures::two_labels(&[Some(true), None, Some(false)]);
        assert_eq!(cmp.baseline_index(), 0);
        assert_eq!(
            cmp.columns.iter().map(|c| c.baseline).collect::<Vec<_>>(),
            [true, false]
        );
        let mut check = RunToRun {
            label: "a".into(),
            runs: 2,
            cells: 0,
            significant: 0,
        };
        count_run_to_run(&mut check, &cmp);
        assert_eq!((check.cells, check.significant), (2, 1));
        let second: Vec<(&str, f64)> = cmp
            .entries(&cmp.rows[1])
            .map(|(c, e)| (c.letter.as_str(), e.measured))
            .collect();
        assert_eq!(second, [("A", 1.0), ("B", 2.0)]);
        let i = Interval {
            estimate: 1.0,
            low: 0.5,
            high: 1.5,
            confidence: 0.975,
        };
        assert_eq!(
            Interval::columns(Some(i)),
            [Some(1.0), Some(0.5), Some(1.5), Some(0.975)]
        );
        assert_eq!(Interval::columns(None), [None; 4]);
    }

    #[test]
    fn letters_go_on_past_z() {
        assert_eq!(
            [0, 25, 26, 27, 51].map(letter),
            ["A", "Z", "AA", "AB", "AZ"].map(String::from)
        );
    }
}
