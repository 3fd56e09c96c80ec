//! Stage 5, analysis: the one report document. `pretouch run`, `pretouch report` and
//! `pretouch run --kernel` all build it here from stored records, with [`build`]; each
//! output format only walks it (`render::document`). A new section of the report is
//! one field of [`Document`] (or of [`Launches`]), filled here and printed there.

use crate::analyze::calibration::{self, CalibrationCompareError, CalibrationComparison};
use crate::analyze::compare::{self, Comparison};
use crate::analyze::probe::ProbeAnalysis;
use crate::analyze::profile::ProfileReport;
use crate::analyze::report::{self, CompareError, Report};
use crate::store::Results;

/// What the report shows, and of which labels.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Labels to show, in this order (`label@host` names a label split by machine);
    /// `None`: every label, oldest first.
    pub labels: Option<Vec<String>>,
    /// The label the others are compared with; `None`: the label with the oldest results.
    pub baseline: Option<String>,
    /// Leave launches flagged as outliers out of every figure.
    pub exclude_outliers: bool,
    /// Also the startup phases' table.
    pub phases: bool,
    /// Analyze the profiled launches (`--profile`, `--profile-csv`, `--flamegraph`).
    pub profile: bool,
    /// Show the profile's analysis in the report (`--profile`); without it the analysis
    /// is only made for files (`--profile-csv`, `--flamegraph`).
    pub show_profile: bool,
    /// The labels' `pretouch calibrate` results side by side, instead of the launches.
    pub calibrate: bool,
}

/// The report: every section any format prints, computed once.
#[derive(Debug, Clone, Default)]
pub struct Document {
    /// The launches' sections; absent for `report --calibrate`.
    pub launches: Option<Launches>,
    /// The labels' calibrations side by side (`report --calibrate`).
    pub calibration: Option<CalibrationComparison>,
}

/// The sections built from the timed and profiled launches.
#[derive(Debug, Clone)]
pub struct Launches {
    /// Per cell and label: medians, spreads, outliers, the figures that explain the cost
    /// (faults, phases, the JVM's log), disturbances, time to ready; with the reading's
    /// warnings and the environment's differences. With one label shown, its cells only.
    pub report: Report,
    /// The labels side by side against the baseline, with intervals (one column when
    /// one label is shown).
    pub comparison: Comparison,
    /// The profiled launches' analysis, when asked for.
    pub profile: Option<ProfileReport>,
    /// Whether the report shows the profile (else it is made for files only).
    pub show_profile: bool,
    /// Whether the startup phases' table is shown.
    pub phases: bool,
    /// The probed launches' fault latency and lock contention (`run --probe`), of the
    /// labels shown; absent when the results hold no probe record.
    pub probes: Option<ProbeAnalysis>,
}

impl Launches {
    /// Several labels side by side (the comparison's tables), else one label's cells.
    pub fn several(&self) -> bool {
        self.comparison.columns.len() > 1
    }

    /// The profile, when the report shows it.
    pub fn shown_profile(&self) -> Option<&ProfileReport> {
        self.profile.as_ref().filter(|_| self.show_profile)
    }
}

/// A label selection that cannot be met.
#[derive(Debug, thiserror::Error)]
pub enum DocumentError {
    #[error(transparent)]
    Labels(#[from] CompareError),
    #[error(transparent)]
    Calibration(#[from] CalibrationCompareError),
}

/// The report of `results` with `options`: the one function every command calls.
pub fn build(mut results: Results, options: &Options) -> Result<Document, DocumentError> {
    if options.calibrate {
        let cmp = calibration::compare(
            &results.calibrations,
            &calibration::Options {
                labels: options.labels.clone(),
                baseline: options.baseline.clone(),
            },
        )?;
        return Ok(Document {
            launches: None,
            calibration: Some(cmp),
        });
    }
    if let Some(wanted) = &options.labels {
        select_labels(&mut results, wanted)?;
    }
    let mut report = crate::analyze::build_with(
        &results,
        report::Options {
            exclude_outliers: options.exclude_outliers,
        },
    );
    // Checks --labels and --baseline whether one label is shown or several.
    let comparison = compare::compare(
        &report,
        &compare::Options {
            labels: options.labels.clone(),
            baseline: options.baseline.clone(),
        },
    )?;
    let profile = options.profile.then(|| {
        let profiles = crate::store::profile::read_profiles(&results.files);
        let labels: Vec<String> = comparison
            .columns
            .iter()
            .map(|c| c.info.label.clone())
            .collect();
        crate::analyze::profile::build(&report, &profiles, &labels, &comparison.baseline)
    });
    let probes = probe_analysis(&results, &comparison);
    if let Some(profile) = &profile {
        check_methods(&mut report, profile);
    }
    let report = if comparison.columns.len() > 1 || report.labels.is_empty() {
        report
    } else {
        report.only(&comparison.baseline)?
    };
    Ok(Document {
        launches: Some(Launches {
            report,
            comparison,
            profile,
            show_profile: options.show_profile,
            phases: options.phases,
            probes,
        }),
        calibration: None,
    })
}

/// The probe records' analysis, of the labels the comparison shows; `None` without any.
/// A label split by machine (`label@host`) names its files' probes as it does their
/// timed launches.
fn probe_analysis(results: &Results, comparison: &Comparison) -> Option<ProbeAnalysis> {
    let labels: Vec<String> = comparison
        .columns
        .iter()
        .map(|c| c.info.label.clone())
        .collect();
    // Each file under the label it is shown under. The probes are read from copies
    // without the launches, because a campaign's launches are gigabytes; the timed
    // launches are read from the files themselves.
    let shown: Vec<(String, &crate::store::read::ResultFile)> = results
        .files
        .iter()
        .filter_map(|f| Some((shown_label(f, &labels)?, f)))
        .collect();
    let headers: Vec<crate::store::read::ResultFile> = shown
        .iter()
        .map(|(label, f)| {
            let mut header = f.header.clone();
            header.label = label.clone();
            crate::store::read::ResultFile {
                path: f.path.clone(),
                header,
                launches: Vec::new(),
                end: f.end.clone(),
            }
        })
        .collect();
    let probes = crate::store::probe::read_probes(&headers);
    if probes.is_empty() {
        return None;
    }
    let mut analysis = crate::analyze::probe::build_shown(&shown, &probes, &comparison.baseline);
    analysis.order_labels(&labels);
    Some(analysis)
}

/// The label `file` is shown under among `labels`: its own, or `label@hostname` (with
/// the CPU model when one hostname had two), as the report splits a label by machine.
fn shown_label(file: &crate::store::read::ResultFile, labels: &[String]) -> Option<String> {
    let own = &file.header.label;
    let host = &file.header.host;
    let split = format!("{own}@{}", host.hostname);
    let split_cpu = format!("{split} ({})", host.cpu_model);
    [own, &split_cpu, &split]
        .into_iter()
        .find(|l| labels.contains(l))
        .cloned()
}

/// Checks each profiled cell's pretouch method against its profile: a populate shows no
/// fault-entry frames, a store or an atomic add no `madvise`.
fn check_methods(report: &mut Report, profile: &ProfileReport) {
    for cell in &mut report.cells {
        let key = cell.key();
        let label = cell.label.clone();
        if let (Some(h), Some(p)) = (
            cell.heap_and_method.as_mut(),
            profile
                .cells
                .iter()
                .find(|p| p.label == label && p.key == key && p.launches_on > 0),
        ) {
            h.check_with(p.evidence);
        }
    }
}

/// Keeps the files of the labels asked for: their environment is compared, their runs
/// checked. `label@host` names a label split by machine.
fn select_labels(results: &mut Results, wanted: &[String]) -> Result<(), CompareError> {
    let names = |w: &str, label: &str| {
        w == label || w.strip_prefix(label).is_some_and(|r| r.starts_with('@'))
    };
    let mut known: Vec<String> = results
        .files
        .iter()
        .map(|f| f.header.label.clone())
        .collect();
    known.sort();
    known.dedup();
    if let Some(missing) = wanted.iter().find(|w| !known.iter().any(|k| names(w, k))) {
        return Err(CompareError::UnknownLabel {
            label: missing.clone(),
            known: known.join(", "),
        });
    }
    results
        .files
        .retain(|f| wanted.iter().any(|w| names(w, &f.header.label)));
    Ok(())
}
