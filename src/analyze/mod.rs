//! Stage 5, analysis: stored records into figures. Per cell the medians, spreads and
//! outliers ([`report`]), where the cost went ([`explain`]), and labels set side by
//! side with intervals ([`compare`]). Reads the store; computes, never prints.
pub mod ceiling;
pub mod compare;
pub mod disturbance;
pub mod document;
pub mod env;
pub mod explain;
pub mod feature_options;
pub mod figures;
pub mod heap;
pub mod interval;
pub mod labels;
pub mod method;
pub mod options;
pub mod outliers;
pub mod report;
pub mod section;
pub mod verdict;
pub mod warning;

pub use crate::analyze::options::Options;
use crate::analyze::report::{LabelRows, Labelling, RunToRun};
use crate::features::analyze::WARNINGS;
use crate::store::feature_files::FeatureFiles;
use crate::store::{ResultFile, Results};

/// The report of stored results with default options: every cell's row, and the
/// run-to-run check of labels run more than once.
pub fn build(results: &Results) -> report::Report {
    build_with(results, &Options::default())
}

/// [`build`] with options (outliers left out): each label's piece ([`label_piece`]) from
/// its files, then the pieces together ([`assemble`]).
pub fn build_with(results: &Results, options: &Options) -> report::Report {
    let labelling = Labelling::of(results);
    let pieces = (0..labelling.labels.len())
        .map(|i| {
            let files = labelling.files(i, results);
            label_piece(&labelling.labels[i], &files, &results.features, options)
        })
        .collect();
    assemble(results, labelling, pieces, options)
}

/// What the report keeps of one label once its launches are dropped: its cells' rows,
/// the A/A check of its runs, the features' warnings of the label. Each comes from that label's launches
/// alone, so a report can read, analyze and drop one label's launches at a time.
#[derive(Debug, Clone, Default)]
pub struct LabelPiece {
    pub rows: LabelRows,
    pub run_to_run: Option<RunToRun>,
    /// The features' warnings of the label ([`warning::Warnings::of_label`]).
    pub warnings: Vec<String>,
}

/// The piece of the label `label`, from its files with their launches (oldest first,
/// each with its position in [`Labelling::order`]).
pub fn label_piece(
    label: &str,
    files: &[(usize, &ResultFile)],
    features: &FeatureFiles,
    options: &Options,
) -> LabelPiece {
    let runs: Vec<&ResultFile> = files.iter().map(|(_, f)| *f).collect();
    LabelPiece {
        rows: report::label_rows(label, files, features, options),
        run_to_run: compare::run_to_run_check(label, &runs, options),
        warnings: WARNINGS
            .iter()
            .filter_map(|w| w.of_label(label, &runs))
            .collect(),
    }
}

/// The report of the labels' pieces (in the order of `labelling.labels`) and of what
/// `results`' headers and end records say; `results` need hold no launch.
pub fn assemble(
    results: &Results,
    labelling: Labelling,
    pieces: Vec<LabelPiece>,
    options: &Options,
) -> report::Report {
    let mut rows = Vec::with_capacity(pieces.len());
    let mut run_to_run = Vec::new();
    let mut of_labels = Vec::new();
    for piece in pieces {
        rows.push(piece.rows);
        run_to_run.extend(piece.run_to_run);
        of_labels.extend(piece.warnings);
    }
    let mut report = report::from_rows(results, labelling, rows, options);
    report.run_to_run = run_to_run;
    // Such as the emulated labels: no one should read past that.
    let first: Vec<String> = WARNINGS.iter().flat_map(|w| w.first(results)).collect();
    report.warnings.splice(0..0, first);
    for w in WARNINGS {
        report.warnings.extend(w.last(results, options));
    }
    report.warnings.extend(of_labels);
    report
}
