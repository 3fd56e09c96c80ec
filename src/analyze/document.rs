//! Stage 5, analysis: the one report document. `pretouch run`, `pretouch report` and
//! `pretouch run --kernel` all build it here from stored records, with [`build`] (records
//! in memory) or [`build_read`] (result files read here, one label at a time); each
//! output format only walks it (`render::document`). A new section of the report is
//! one field of [`Document`] (or of [`Launches`]), filled here and printed there.
//!
//! Either way the report is built a label at a time: each label's launches give its
//! piece ([`crate::analyze::LabelPiece`]: the cells' rows, the A/A check of its runs,
//! its CDS warning) and the probed launches' timed medians, and are dropped; the pieces
//! are then put together in label order. What depends on more than one label (the
//! labels and their order, the comparison, the environment's differences, the machine
//! notes) reads only the files' headers and end records and the pieces. So a campaign's
//! report holds one label's launch records at a time on each of at most two CPUs
//! ([`LABELS_AT_ONCE`]), not all of them.

use crate::analyze::compare::{self, Comparison};
use crate::analyze::options::Options;
use crate::analyze::report::{CompareError, Labelling, Report};
use crate::features::calibrate::analyze::{
    self as calibration, CalibrationCompareError, CalibrationComparison,
};
use crate::features::probe::analyze::ProbeAnalysis;
use crate::features::probe::analyze::TimedMedians;
use crate::features::profile::analyze::ProfileReport;
use crate::store::read::Catalog;
use crate::store::{ResultFile, Results, StoreError};

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
    /// The `settings:` axis side by side against the baseline setting, with intervals
    /// ([`crate::features::settings::analyze`]); absent when the cells shown ran under fewer than
    /// two settings.
    pub settings: Option<Comparison>,
    /// The profiled launches' analysis, when asked for.
    pub profile: Option<ProfileReport>,
    /// Whether the report shows the profile (else it is made for files only).
    pub show_profile: bool,
    /// Whether the startup phases' table is shown.
    pub phases: bool,
    /// Whether the text and Markdown show every detail (`--details`): the spread,
    /// rounds, outliers and their causes, the explaining tables and the machine's
    /// notes; without it, the cover letter's table and a line per warning.
    pub details: bool,
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
    #[error(transparent)]
    Settings(#[from] crate::features::settings::analyze::SettingsError),
    /// A result file could not be read (`build_read`).
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The report of `results` (their launches in memory) with `options`.
pub fn build(results: Results, options: &Options) -> Result<Document, DocumentError> {
    build_from(results, None, options)
}

/// The report of the result files of `catalog` with `options`, their launches read here
/// one label at a time and dropped once analyzed. Its warnings are [`build`]'s of the
/// files read whole, followed by one for each run left unfinished and for each file
/// whose profiled rounds were cut short ([`store::complete::completeness_warnings`]).
///
/// [`store::complete::completeness_warnings`]: crate::store::complete::completeness_warnings
pub fn build_read(mut catalog: Catalog, options: &Options) -> Result<Document, DocumentError> {
    let results = std::mem::take(&mut catalog.results);
    build_from(results, Some(&catalog), options)
}

fn build_from(
    mut results: Results,
    catalog: Option<&Catalog>,
    options: &Options,
) -> Result<Document, DocumentError> {
    if options.calibrate {
        let cmp = calibration::compare(&results.calibrations, options)?;
        return Ok(Document {
            launches: None,
            calibration: Some(cmp),
        });
    }
    let others = match &options.labels {
        Some(wanted) => select_labels(&mut results, wanted)?,
        None => Vec::new(),
    };
    let labelling = Labelling::of(&results);
    // The labels shown, as the comparison will choose them (it refuses the same
    // selections), to name each file's probes before its launches are dropped.
    let chosen = compare::choose(
        &labelling.labels,
        options.labels.as_deref(),
        options.baseline.as_deref(),
    )?;
    let read = read_labels(
        &mut results,
        others,
        catalog,
        &labelling,
        &chosen.labels,
        options,
    )?;
    if let Some(catalog) = catalog {
        // As reading every file whole gives them: each file's lines in name order, the
        // calibrations', then the runs left unfinished.
        let calibrations = std::mem::take(&mut results.warnings);
        results.warnings = catalog.warnings(&read.warnings);
        results.warnings.extend(calibrations);
        results
            .warnings
            .extend(crate::store::complete::completeness_warnings(&read.files));
    }
    let mut report = crate::analyze::assemble(&results, labelling, read.pieces, options);
    // The labels chosen above, once: --labels and --baseline were checked there,
    // whether one label is shown or several.
    let comparison = compare::compare_chosen(&report, chosen);
    let profile = options.profile.then(|| {
        let profiles = crate::features::profile::record::read_profiles(&results.files);
        let labels: Vec<String> = comparison
            .columns
            .iter()
            .map(|c| c.info.label.clone())
            .collect();
        crate::features::profile::analyze::build(&report, &profiles, &labels, &comparison.baseline)
    });
    let probes = probe_analysis(&results, &comparison, &read.timed);
    if let Some(profile) = &profile {
        check_methods(&mut report, profile);
    }
    let report = if comparison.columns.len() > 1 || report.labels.is_empty() {
        report
    } else {
        report.only(&comparison.baseline)?
    };
    let settings = crate::features::settings::analyze::compare_settings(
        &report,
        options.baseline_setting.as_deref(),
    )?;
    Ok(Document {
        launches: Some(Launches {
            report,
            comparison,
            settings,
            profile,
            show_profile: options.show_profile,
            phases: options.phases,
            details: options.details,
            probes,
        }),
        calibration: None,
    })
}

/// At most this many labels' launches are read and held at once (one a CPU, on a
/// machine with fewer CPUs): the report's memory is that many labels', whatever the
/// machine's CPUs.
const LABELS_AT_ONCE: usize = 2;

/// What reading and analyzing every label left: the labels' pieces, in label order; the
/// probed launches' timed medians; and, when the files were read here, each file's
/// reading warnings (by path) and what its completeness warnings need.
struct Read {
    pieces: Vec<crate::analyze::LabelPiece>,
    timed: TimedMedians,
    warnings: std::collections::HashMap<std::path::PathBuf, Vec<String>>,
    /// Every file read here (the labels not shown included), in name order, with its
    /// launches counted and its missing profiled launches.
    files: Vec<(ResultFile, crate::store::complete::Launched)>,
}

/// The files of one label (or, for `label` `None`, one file of a label not shown, read
/// for its warnings only), each with its position in [`Labelling::order`] and its index
/// into `results.files`.
struct Work {
    label: Option<usize>,
    files: Vec<(usize, usize, ResultFile)>,
}

/// One [`Work`] done: its label's piece and timed medians, and its files without their
/// launches, each with its reading warnings and what its completeness warnings need.
struct Done {
    piece: Option<crate::analyze::LabelPiece>,
    timed: TimedMedians,
    files: Vec<(
        usize,
        ResultFile,
        Vec<String>,
        crate::store::complete::Launched,
    )>,
}

/// Reads (from `catalog`, else takes from memory) and analyzes each label's launches,
/// [`LABELS_AT_ONCE`] labels side by side, dropping them once analyzed; puts `results.files`
/// back without their launches (their end records read). `others`: files of labels not
/// shown, read for their warnings when `catalog` is given, else dropped.
fn read_labels(
    results: &mut Results,
    others: Vec<ResultFile>,
    catalog: Option<&Catalog>,
    labelling: &Labelling,
    shown: &[String],
    options: &Options,
) -> Result<Read, StoreError> {
    let mut slots: Vec<Option<ResultFile>> = std::mem::take(&mut results.files)
        .into_iter()
        .map(Some)
        .collect();
    let mut work: Vec<Work> = (0..labelling.labels.len())
        .map(|label| Work {
            label: Some(label),
            files: labelling
                .runs(label)
                .into_iter()
                .map(|(position, index)| {
                    let file = slots[index].take().expect("each file is in one label");
                    (position, index, file)
                })
                .collect(),
        })
        .collect();
    let n = slots.len();
    if catalog.is_some() {
        work.extend(others.into_iter().enumerate().map(|(i, f)| Work {
            label: None,
            files: vec![(0, n + i, f)],
        }));
    }
    let calibrations = &results.calibrations;
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(LABELS_AT_ONCE)
        .min(work.len());
    // Labels side by side when there are several; else a label's files.
    let parallel_files = threads <= 1;
    let done = crate::store::each_on_threads(work, threads.max(1), |w| {
        do_work(
            w,
            catalog,
            labelling,
            calibrations,
            shown,
            options,
            parallel_files,
        )
    });
    let mut read = Read {
        pieces: Vec::new(),
        timed: TimedMedians::new(),
        warnings: Default::default(),
        files: Vec::new(),
    };
    let mut back: Vec<(usize, ResultFile, crate::store::complete::Launched)> = Vec::new();
    let mut first_error: Option<(std::path::PathBuf, StoreError)> = None;
    for d in done {
        let d = match d {
            Ok(d) => d,
            Err((path, e)) => {
                // The first failure in name order, as reading the files one by one.
                if first_error.as_ref().is_none_or(|(p, _)| path < *p) {
                    first_error = Some((path, e));
                }
                continue;
            }
        };
        read.pieces.extend(d.piece);
        read.timed.extend(d.timed);
        for (index, file, warnings, launched) in d.files {
            read.warnings.insert(file.path.clone(), warnings);
            back.push((index, file, launched));
        }
    }
    if let Some((_, e)) = first_error {
        return Err(e);
    }
    back.sort_by(|a, b| a.1.path.cmp(&b.1.path));
    for (index, file, launched) in back {
        if index < n {
            read.files.push((file.clone(), launched));
            slots[index] = Some(file);
        } else {
            read.files.push((file, launched));
        }
    }
    results.files = slots.into_iter().flatten().collect();
    Ok(read)
}

/// Reads one [`Work`]'s files (in memory already without `catalog`), computes its
/// label's piece and timed medians, and drops the launches.
fn do_work(
    work: Work,
    catalog: Option<&Catalog>,
    labelling: &Labelling,
    calibrations: &[crate::features::calibrate::machine::Calibration],
    shown: &[String],
    options: &Options,
    parallel_files: bool,
) -> Result<Done, (std::path::PathBuf, StoreError)> {
    let files: Vec<(usize, usize, ResultFile, Vec<String>)> = match catalog {
        None => work
            .files
            .into_iter()
            .map(|(p, i, f)| (p, i, f, Vec::new()))
            .collect(),
        Some(catalog) => {
            let headers: Vec<&ResultFile> = work.files.iter().map(|(_, _, f)| f).collect();
            let read = catalog.read(&headers, parallel_files)?;
            work.files
                .iter()
                .zip(read)
                .map(|((p, i, _), (f, w))| (*p, *i, f, w))
                .collect()
        }
    };
    let mut piece = None;
    let mut timed = TimedMedians::new();
    if let Some(label) = work.label {
        let runs: Vec<(usize, &ResultFile)> = files.iter().map(|(p, _, f, _)| (*p, f)).collect();
        piece = Some(crate::analyze::label_piece(
            &labelling.labels[label],
            &runs,
            calibrations,
            options,
        ));
        let shown_files: Vec<(String, &ResultFile)> = files
            .iter()
            .filter_map(|(_, _, f, _)| Some((shown_label(f, shown)?, f)))
            .collect();
        timed = crate::features::probe::analyze::timed_medians(&shown_files);
    }
    let files = files
        .into_iter()
        .map(|(_, index, mut file, warnings)| {
            let launched = if catalog.is_some() {
                crate::store::complete::Launched::of(&file)
            } else {
                Default::default()
            };
            file.launches = Vec::new();
            (index, file, warnings, launched)
        })
        .collect();
    Ok(Done {
        piece,
        timed,
        files,
    })
}

/// The probe records' analysis, of the labels the comparison shows; `None` without any.
/// A label split by machine (`label@host`) names its files' probes as it does their
/// timed launches, whose medians (`timed`) were taken while they were read.
fn probe_analysis(
    results: &Results,
    comparison: &Comparison,
    timed: &TimedMedians,
) -> Option<ProbeAnalysis> {
    let labels: Vec<String> = comparison
        .columns
        .iter()
        .map(|c| c.info.label.clone())
        .collect();
    // Each file under the label it is shown under (the files hold no launch by now).
    let headers: Vec<ResultFile> = results
        .files
        .iter()
        .filter_map(|f| {
            let mut header = f.header.clone();
            header.label = shown_label(f, &labels)?;
            Some(ResultFile {
                path: f.path.clone(),
                header,
                launches: Vec::new(),
                end: f.end.clone(),
            })
        })
        .collect();
    let probes = crate::features::probe::record::read_probes(&headers);
    if probes.is_empty() {
        return None;
    }
    let mut analysis =
        crate::features::probe::analyze::build_timed(&probes, timed, &comparison.baseline);
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
/// checked; returns the others. `label@host` names a label split by machine.
fn select_labels(
    results: &mut Results,
    wanted: &[String],
) -> Result<Vec<ResultFile>, CompareError> {
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
    let (kept, others) = std::mem::take(&mut results.files)
        .into_iter()
        .partition(|f| wanted.iter().any(|w| names(w, &f.header.label)));
    results.files = kept;
    Ok(others)
}
