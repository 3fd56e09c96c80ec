//! Stage 5, analysis: how a feature adds its section to the report. Each feature that
//! has a section gives one [`Section`], its `SECTION` in its `section.rs`, and
//! `features::sections::report_sections` lists them. [`crate::analyze::document`] walks that list,
//! so the document's builder names no feature. A section's render half is
//! `render::section::Section`, in the feature's `report.rs`.
//!
//! A section is built in two steps. While a label's launches are read, [`Section::gather`]
//! keeps what the section needs of them, because the launches are dropped once the
//! label is analyzed. Once every label is read, [`Section::build`] makes the section's
//! [`Part`] of the document from what it gathered, the files' headers and records, the
//! report and the comparison.

use std::any::Any;
use std::fmt::Debug;

use crate::analyze::compare::Comparison;
use crate::analyze::options::Options;
use crate::analyze::report::Report;
use crate::store::{ResultFile, Results};

/// What a section kept of one label's launches, for its [`Section::build`].
pub type Gathered = Box<dyn Any + Send>;

/// Why a section cannot be built, such as a feature's option that names a baseline the
/// results do not hold. The report prints it as it is.
pub type SectionError = Box<dyn std::error::Error + Send + Sync>;

/// One feature's section of the report, its analysis half.
pub trait Section: Sync {
    /// What the section keeps of one label's launches, each file under the label it is
    /// shown under. Nothing by default.
    fn gather(&self, _files: &[(String, &ResultFile)]) -> Option<Gathered> {
        None
    }

    /// The section's part of the document, or `None` when the results hold nothing for
    /// it. `gathered` holds what [`Section::gather`] kept of each label shown, in label
    /// order. By default a section has no part of its own, because its figures are in
    /// the cells' report already.
    fn build(
        &self,
        _input: &mut Input<'_>,
        _gathered: Vec<Gathered>,
    ) -> Result<Option<Box<dyn Part>>, SectionError> {
        Ok(None)
    }

    /// A report of the feature's own, when `options` ask for it instead of the
    /// launches' report, as `report --calibrate` asks for the calibrations side by side.
    /// The document then holds that report alone. None by default.
    fn instead_of_launches(
        &self,
        _results: &Results,
        _options: &Options,
    ) -> Option<Result<Box<dyn Part>, SectionError>> {
        None
    }
}

/// What every section is built from.
pub struct Input<'a> {
    /// The result files, their launches dropped, and the calibrations.
    pub results: &'a Results,
    /// The labels shown side by side against the baseline.
    pub comparison: &'a Comparison,
    /// What the report is asked.
    pub options: &'a Options,
    /// The cells' report. A section may check the cells against what it found, as the
    /// profile checks each cell's pretouch method, so the sections listed after it read
    /// the checked cells.
    pub report: &'a mut Report,
}

/// A section's part of the document. Its render half finds it by its type, with
/// `Launches::part`.
pub trait Part: Any + Debug + Send + Sync {}

impl<T: Any + Debug + Send + Sync> Part for T {}

/// The label `file` is shown under among `labels`: its own, or `label@hostname` (with
/// the CPU model when one hostname had two), as the report splits a label by machine.
pub fn shown_label(file: &ResultFile, labels: &[String]) -> Option<String> {
    let own = &file.header.label;
    let host = &file.header.host;
    let split = format!("{own}@{}", host.hostname);
    let split_cpu = format!("{split} ({})", host.cpu_model);
    [own, &split_cpu, &split]
        .into_iter()
        .find(|l| labels.contains(l))
        .cloned()
}
