//! Stage 6, rendering: the NUMA section of the report, its render half
//! (`render::section::Section`). The table is `features::numa::render`'s; this file
//! shows it last in the text and Markdown with `--details`, and always sets the `numa`
//! key of the JSON, which holds each launch's pages per node.

use crate::analyze::document::Launches;
use crate::features::numa::analyze::NumaAnalysis;
use crate::features::numa::render as numa;
use crate::render::section::{HtmlSection, Section};

/// The NUMA section, written.
pub struct SectionWriter;

pub static SECTION: SectionWriter = SectionWriter;

impl Section for SectionWriter {
    /// With `--details` only, because the spread explains a cost rather than being one.
    fn text(&self, l: &Launches) -> String {
        match l.part::<NumaAnalysis>() {
            Some(a) if l.details => numa::text(a),
            _ => String::new(),
        }
    }

    fn markdown(&self, l: &Launches) -> String {
        match l.part::<NumaAnalysis>() {
            Some(a) if l.details => numa::markdown(a),
            _ => String::new(),
        }
    }

    /// The nodes, and each cell's medians and launches' pages per node.
    fn json(&self, l: &Launches) -> Option<(&'static str, String)> {
        let a = l.part::<NumaAnalysis>()?;
        Some(("numa", serde_json::to_string_pretty(a).ok()?))
    }

    fn html(&self, l: &Launches) -> Option<HtmlSection> {
        let a = l.part::<NumaAnalysis>()?;
        Some(HtmlSection {
            id: "numa",
            heading: numa::HEADING,
            markdown: numa::markdown(a),
            figures: Vec::new(),
        })
    }
}
