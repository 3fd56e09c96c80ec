//! Stage 5, analysis: the `settings:` axis side by side. Each cell's cost per setting
//! (a named set of kernel writes, `features::settings::matrix`) is set beside the same cell under
//! the baseline setting (the first setting met, in matrix order, unless
//! `--baseline-setting` names another), with the change's interval and the
//! table-wide marks: the same comparison, statistics and families as labels get
//! ([`crate::analyze::compare`]), a column per setting instead of per label.
//!
//! Rows are (JDK, GC, heap, variant with its axes); with several labels shown, a row
//! per label too (`label=NAME` after the variant), since settings compare within one
//! run's rounds and labels across runs. The report's warnings, run-to-run checks and
//! machine notes are the labels' comparison's and are not repeated here.

use crate::analyze::compare::{self, Comparison};
use crate::analyze::options::Options;
use crate::analyze::report::{CompareError, Report};

/// A `--baseline-setting` that cannot be met, or a comparison that cannot be made.
#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    #[error(
        "--baseline-setting `{name}`: no cell shown ran under that setting. The settings are {known}."
    )]
    UnknownBaseline { name: String, known: String },
    #[error("--baseline-setting `{0}`: the results shown have no `settings:` axis")]
    NoSettings(String),
    #[error(transparent)]
    Compare(#[from] CompareError),
}

/// The settings of `report`'s cells, in the order first met (matrix order).
fn settings_of(report: &Report) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for s in report
        .cells
        .iter()
        .filter_map(|c| c.axes.features.setting.as_ref())
    {
        if !out.contains(s) {
            out.push(s.clone());
        }
    }
    out
}

/// The settings of `report` side by side against `baseline` (the first setting when
/// `None`); `None` when the cells shown ran under fewer than two settings.
pub fn compare_settings(
    report: &Report,
    baseline: Option<&str>,
) -> Result<Option<Comparison>, SettingsError> {
    let settings = settings_of(report);
    if let Some(b) = baseline {
        if settings.is_empty() {
            return Err(SettingsError::NoSettings(b.to_owned()));
        }
        if !settings.iter().any(|s| s == b) {
            return Err(SettingsError::UnknownBaseline {
                name: b.to_owned(),
                known: settings.join(", "),
            });
        }
    }
    if settings.len() < 2 {
        return Ok(None);
    }
    let by_setting = by_setting(report, &settings);
    let cmp = compare::compare(
        &by_setting,
        &Options {
            baseline: baseline.map(str::to_owned),
            ..Options::default()
        },
    )?;
    Ok(Some(cmp))
}

/// `report` with each cell's setting as its label (the label in its variant when
/// several labels are shown), each setting's info its first label's: what
/// [`compare::compare`] sets side by side.
fn by_setting(report: &Report, settings: &[String]) -> Report {
    let labels: Vec<&String> = {
        let mut l: Vec<&String> = Vec::new();
        for c in &report.cells {
            if !l.contains(&&c.id.label) {
                l.push(&c.id.label);
            }
        }
        l
    };
    let several = labels.len() > 1;
    let cells = report
        .cells
        .iter()
        .filter_map(|c| {
            let setting = c.axes.features.setting.clone()?;
            let mut cell = c.clone();
            if several {
                cell.id.variant = format!("{} label={}", c.id.variant, c.id.label);
            }
            cell.id.label = setting;
            cell.axes.features.setting = None;
            Some(cell)
        })
        .collect();
    let label_info = settings
        .iter()
        .map(|s| {
            let first = report
                .cells
                .iter()
                .find(|c| c.axes.features.setting.as_ref() == Some(s))
                .map(|c| c.id.label.as_str())
                .unwrap_or_default();
            let mut info = report
                .label_info
                .iter()
                .find(|i| i.label == first)
                .cloned()
                .expect("every label has its info");
            info.label = s.clone();
            info
        })
        .collect();
    Report {
        cells,
        labels: settings.to_vec(),
        warnings: Vec::new(),
        env_differences: Vec::new(),
        stops: Vec::new(),
        outliers_excluded: report.outliers_excluded,
        label_info,
        run_to_run: Vec::new(),
        machine_notes: Vec::new(),
    }
}
