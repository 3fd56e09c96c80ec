//! Stage 5, analysis: the one report document. `pretouch run`, `pretouch report` and
//! `pretouch run --kernel` all build it here from stored records, with [`build`] (records
//! in memory) or [`build_read`] (result files read here, one label at a time); each
//! output format only walks it (`render::document`). A feature's section of the report
//! is built by its analysis half ([`crate::analyze::section::Section`]), which this file
//! walks through the features' list, and is kept in [`Launches::sections`].
//!
//! Either way the report is built a label at a time: each label's launches give its
//! piece ([`crate::analyze::LabelPiece`]: the cells' rows, the A/A check of its runs,
//! its CDS warning) and what each section gathers of them, and are dropped; the pieces
//! are then put together in label order. What depends on more than one label (the
//! labels and their order, the comparison, the environment's differences, the machine
//! notes) reads only the files' headers and end records and the pieces. So a campaign's
//! report holds one label's launch records at a time on each of at most two CPUs
//! ([`LABELS_AT_ONCE`]), not all of them.

use std::any::Any;
use std::sync::Arc;

use crate::analyze::compare::{self, Comparison};
use crate::analyze::options::Options;
use crate::analyze::report::{CompareError, Labelling, Report};
use crate::analyze::section::{Gathered, Input, Part, Section, SectionError, shown_label};
use crate::store::read::Catalog;
use crate::store::{ResultFile, Results, StoreError};

/// The report: every section any format prints, computed once.
#[derive(Debug, Clone, Default)]
pub struct Document {
    /// The launches' sections; absent for `report --calibrate`.
    pub launches: Option<Launches>,
    /// A feature's report of its own, asked for instead of the launches' report, such
    /// as the calibrations side by side (`report --calibrate`).
    pub own: Option<Arc<dyn Part>>,
}

impl Document {
    /// The feature's report of its own, when it is of type `T`.
    pub fn own<T: Part>(&self) -> Option<&T> {
        self.own
            .as_deref()
            .and_then(|p| (p as &dyn Any).downcast_ref::<T>())
    }
}

/// The sections built from the launches.
#[derive(Debug, Clone)]
pub struct Launches {
    /// Per cell and label: medians, spreads, outliers, the figures that explain the cost
    /// (faults, phases, the JVM's log), disturbances, time to ready; with the reading's
    /// warnings and the environment's differences. With one label shown, its cells only.
    pub report: Report,
    /// The labels side by side against the baseline, with intervals (one column when
    /// one label is shown).
    pub comparison: Comparison,
    /// Whether the startup phases' table is shown.
    pub phases: bool,
    /// Whether the text and Markdown show every detail (`--details`): the spread,
    /// rounds, outliers and their causes, the explaining tables and the machine's
    /// notes; without it, the cover letter's table and a line per warning.
    pub details: bool,
    /// The features' sections, each built by its analysis half
    /// ([`crate::analyze::section::Section`]) in the order of
    /// `features::sections::report_sections`; a section with nothing to show has no part.
    pub sections: Vec<Arc<dyn Part>>,
}

/// The analysis halves of the features' sections, in their list's order.
macro_rules! analysis_halves {
    ($($feature:ident,)*) => {
        [$(&crate::features::$feature::section::SECTION as &dyn Section,)*]
    };
}

/// Every feature's section, its analysis half.
static SECTIONS: &[&dyn Section] = &crate::features::sections::report_sections!(analysis_halves);

impl Launches {
    /// Several labels side by side (the comparison's tables), else one label's cells.
    pub fn several(&self) -> bool {
        self.comparison.columns.len() > 1
    }

    /// The part of type `T` of a feature's section, when it has one.
    pub fn part<T: Part>(&self) -> Option<&T> {
        self.sections
            .iter()
            .find_map(|p| (&**p as &dyn Any).downcast_ref::<T>())
    }
}

/// A label selection that cannot be met.
#[derive(Debug, thiserror::Error)]
pub enum DocumentError {
    #[error(transparent)]
    Labels(#[from] CompareError),
    /// A feature's section cannot be built.
    #[error(transparent)]
    Section(SectionError),
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
    if let Some(own) = SECTIONS
        .iter()
        .find_map(|s| s.instead_of_launches(&results, options))
    {
        return Ok(Document {
            launches: None,
            own: Some(Arc::from(own.map_err(DocumentError::Section)?)),
        });
    }
    let others = match &options.labels {
        Some(wanted) => select_labels(&mut results, wanted, options.baseline.as_deref())?,
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
        // features' files', then the runs left unfinished.
        let of_features = std::mem::take(&mut results.warnings);
        results.warnings = catalog.warnings(&read.warnings);
        results.warnings.extend(of_features);
        results
            .warnings
            .extend(crate::store::complete::completeness_warnings(&read.files));
    }
    let report = crate::analyze::assemble(&results, labelling, read.pieces, options);
    // The labels chosen above, once: --labels and --baseline were checked there,
    // whether one label is shown or several.
    let comparison = compare::compare_chosen(&report, chosen);
    let mut report = if comparison.columns.len() > 1 || report.labels.is_empty() {
        report
    } else {
        report.only(&comparison.baseline)?
    };
    let mut input = Input {
        results: &results,
        comparison: &comparison,
        options,
        report: &mut report,
    };
    let mut sections = Vec::new();
    for (section, gathered) in SECTIONS.iter().zip(read.gathered) {
        if let Some(part) = section
            .build(&mut input, gathered)
            .map_err(DocumentError::Section)?
        {
            sections.push(Arc::from(part));
        }
    }
    Ok(Document {
        launches: Some(Launches {
            report,
            comparison,
            phases: options.phases,
            details: options.details,
            sections,
        }),
        own: None,
    })
}

/// At most this many labels' launches are read and held at once (one a CPU, on a
/// machine with fewer CPUs): the report's memory is that many labels', whatever the
/// machine's CPUs.
const LABELS_AT_ONCE: usize = 2;

/// What reading and analyzing every label left: the labels' pieces, in label order;
/// what each section gathered of each label, in label order; and, when the files were
/// read here, each file's reading warnings (by path) and what its completeness warnings
/// need.
struct Read {
    pieces: Vec<crate::analyze::LabelPiece>,
    /// A list per section of [`SECTIONS`].
    gathered: Vec<Vec<Gathered>>,
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

/// One [`Work`] done: its label's piece and what each section gathered of it, and its
/// files without their launches, each with its reading warnings and what its
/// completeness warnings need.
struct Done {
    piece: Option<crate::analyze::LabelPiece>,
    gathered: Vec<Option<Gathered>>,
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
    let features = &results.features;
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
            features,
            shown,
            options,
            parallel_files,
        )
    });
    let mut read = Read {
        pieces: Vec::new(),
        gathered: SECTIONS.iter().map(|_| Vec::new()).collect(),
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
        for (all, one) in read.gathered.iter_mut().zip(d.gathered) {
            all.extend(one);
        }
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
/// label's piece and what each section gathers of it, and drops the launches.
fn do_work(
    work: Work,
    catalog: Option<&Catalog>,
    labelling: &Labelling,
    features: &crate::store::feature_files::FeatureFiles,
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
    let mut gathered = Vec::new();
    if let Some(label) = work.label {
        let runs: Vec<(usize, &ResultFile)> = files.iter().map(|(p, _, f, _)| (*p, f)).collect();
        piece = Some(crate::analyze::label_piece(
            &labelling.labels[label],
            &runs,
            features,
            options,
        ));
        let shown_files: Vec<(String, &ResultFile)> = files
            .iter()
            .filter_map(|(_, _, f, _)| Some((shown_label(f, shown)?, f)))
            .collect();
        gathered = SECTIONS.iter().map(|s| s.gather(&shown_files)).collect();
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
        gathered,
        files,
    })
}

/// Keeps the files of the labels asked for: their environment is compared, their runs
/// checked; returns the others. `label@host` names a label split by machine. The
/// baseline's files stay too, so a baseline left out of the labels is refused as not
/// among them, rather than as a label the results lack.
fn select_labels(
    results: &mut Results,
    wanted: &[String],
    baseline: Option<&str>,
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
        .partition(|f| {
            wanted
                .iter()
                .map(String::as_str)
                .chain(baseline)
                .any(|w| names(w, &f.header.label))
        });
    results.files = kept;
    Ok(others)
}
