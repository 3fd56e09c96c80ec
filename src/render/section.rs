//! Stage 6, rendering: how a feature's section of the report is written. Each feature
//! that has a section gives one [`Section`], its `SECTION` in its `report.rs`, beside
//! the analysis half in its `analyze.rs` (`analyze::section::Section`) that builds the
//! section's part of the document. `render::document` walks them in the order of
//! `features::sections::report_sections`, so the writers of every format name no feature.
//!
//! This file also holds what a section gives the HTML page ([`HtmlSection`], its
//! [`Figure`]s) and the files beside the report ([`SideRequest`], [`SideOutput`]).

use std::path::{Path, PathBuf};

use crate::analyze::document::{Document, Launches};
use crate::features::report_options::ReportOptions;
use crate::render::common::Format;

/// Where a section's tables go among the core's in the text, Markdown and HTML. Each
/// format prints the sections of one place in their list's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// After the cells' tables (or the labels side by side), before the tables that
    /// explain the cost.
    AfterCells,
    /// After every table of the core.
    Last,
}

/// One feature's section of the report, its render half. Each method finds the
/// section's part in `l` with `Launches::part`, and gives nothing when there is none.
/// Every method gives nothing by default, so a feature writes only what it has.
pub trait Section: Sync {
    /// Where the section's tables go, last by default.
    fn place(&self) -> Place {
        Place::Last
    }

    /// The text that stands in for the cells' tables, when the section is the table the
    /// reader wants. The section then prints nothing more in the text. None by default.
    fn instead_of_cells(&self, _l: &Launches) -> Option<String> {
        None
    }

    /// The section in plain text, empty without a part.
    fn text(&self, _l: &Launches) -> String {
        String::new()
    }

    /// The section in Markdown, empty without a part.
    fn markdown(&self, _l: &Launches) -> String {
        String::new()
    }

    /// The section's rows in the printed CSV, after the cells'. Most sections write
    /// their rows into a file of their own instead ([`Section::side_files`]), because
    /// a CSV holds one table. None by default.
    fn csv(&self, _l: &Launches) -> String {
        String::new()
    }

    /// The section's key in the JSON report and its value, as pretty JSON on its own;
    /// `render::json` sets it into the document. None by default.
    fn json(&self, _l: &Launches) -> Option<(&'static str, String)> {
        None
    }

    /// The section of the HTML page. None by default.
    fn html(&self, _l: &Launches) -> Option<HtmlSection> {
        None
    }

    /// The files the section writes beside the report that `request` asks for, in the
    /// order they are written, ending at the first that cannot be made. `l` is `None`
    /// for a feature's report of its own, which has no launches. None by default.
    fn side_files(
        &self,
        _l: Option<&Launches>,
        _request: &SideRequest,
    ) -> Vec<Result<SideOutput, SideError>> {
        Vec::new()
    }

    /// The feature's report of its own, when `doc` holds it instead of the launches'
    /// report (`analyze::section::Section::instead_of_launches`).
    fn own_report<'a>(&self, _doc: &'a Document) -> Option<Box<dyn OwnReport + 'a>> {
        None
    }
}

/// A feature's report of its own, asked for instead of the launches' report, such as
/// the labels' figures of a feature side by side, in each format.
pub trait OwnReport {
    /// The labels it shows, which the HTML page's title names.
    fn labels(&self) -> Vec<&str>;
    fn text(&self) -> String;
    fn markdown(&self) -> String;
    fn csv(&self) -> String;
    fn json(&self) -> String;
    /// Its section of the HTML page.
    fn html(&self) -> HtmlSection;
}

/// A section of the HTML page: its Markdown turned into HTML, then its pictures.
pub struct HtmlSection {
    /// The section's `id`.
    pub id: &'static str,
    pub heading: &'static str,
    pub markdown: String,
    pub figures: Vec<Figure>,
}

/// A chart for the page: its picture (inline SVG, or an image of an SVG that brings
/// its own styles), or why it could not be drawn, and its caption.
pub struct Figure {
    pub picture: Result<Picture, String>,
    pub caption: String,
}

pub enum Picture {
    /// SVG drawn here, put in the page as it is.
    Inline(String),
    /// An SVG file of its own (a flame graph: its styles would restyle the page), put
    /// in as an image.
    Image(Vec<u8>),
}

/// The files asked for beside the report, and how the report itself is printed (its
/// format and the features' options decide which notes say where the rows it leaves
/// out go).
#[derive(Debug, Clone)]
pub struct SideRequest {
    /// The report's format (`--format`).
    pub format: Format,
    /// `--plot FILE`.
    pub plot: Option<PathBuf>,
    /// The features' options (`features::report_options`), which each section reads.
    pub features: ReportOptions,
}

/// One output beside the report: its files, to be written into `dir` (created first)
/// when it names one, then `note`, printed on stderr. An output without files is a note
/// alone: it says where the rows the printed CSV leaves out go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SideOutput {
    /// The folder the files go into, when the output is a folder of files.
    pub dir: Option<PathBuf>,
    pub files: Vec<SideFile>,
    /// The line printed once the files are written.
    pub note: String,
    /// What a failure to write the files says, before the system's error.
    pub writing: String,
}

impl SideOutput {
    /// A note alone, without files.
    pub fn note(note: String) -> SideOutput {
        SideOutput {
            dir: None,
            files: Vec::new(),
            note,
            writing: String::new(),
        }
    }

    /// One file written at `path`, such as a CSV, and `note` once it is.
    pub fn file(path: &Path, bytes: Vec<u8>, note: String) -> SideOutput {
        SideOutput {
            dir: None,
            files: vec![SideFile {
                path: path.to_owned(),
                bytes,
            }],
            note,
            writing: format!("writing `{}`", path.display()),
        }
    }
}

/// One file beside the report, drawn and ready to write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SideFile {
    pub path: PathBuf,
    pub bytes: Vec<u8>,
}

/// Why an output beside the report cannot be made.
#[derive(Debug, thiserror::Error)]
pub enum SideError {
    /// The results do not hold what the output draws. The section's message names its
    /// option and the fix.
    #[error("{0}")]
    Missing(String),
    /// A picture could not be drawn.
    #[error("{context}")]
    Drawing {
        context: String,
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
}

impl SideError {
    /// A picture that could not be drawn, `context` saying which.
    pub fn drawing(
        context: String,
        source: impl Into<Box<dyn std::error::Error + Send + Sync>>,
    ) -> SideError {
        SideError::Drawing {
            context,
            source: source.into(),
        }
    }

    /// Whether the results, not the machine, are at fault: the user asked for what they
    /// do not hold.
    pub fn is_bad_input(&self) -> bool {
        matches!(self, SideError::Missing(_))
    }
}
