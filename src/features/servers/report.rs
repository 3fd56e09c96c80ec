//! Stage 6, rendering: the servers' section of the report, its render half
//! (`render::section::Section`). The time-to-ready, pay-back and first requests'
//! tables are `features::servers::render`'s, drawn from the cells' report; this file
//! places them after the cells' tables in the text, the Markdown and the HTML page.
//! Their CSV columns and JSON fields are the cells' own.

use crate::analyze::document::Launches;
use crate::features::servers::render as ready;
use crate::render::section::{HtmlSection, Place, Section};

/// The servers' section, written.
pub struct SectionWriter;

pub static SECTION: SectionWriter = SectionWriter;

impl Section for SectionWriter {
    fn place(&self) -> Place {
        Place::AfterCells
    }

    fn text(&self, l: &Launches) -> String {
        ready::text(&l.report)
    }

    fn markdown(&self, l: &Launches) -> String {
        ready::markdown(&l.report)
    }

    /// A section of the page only when some cell is a server.
    fn html(&self, l: &Launches) -> Option<HtmlSection> {
        let markdown = ready::markdown(&l.report);
        (!markdown.trim().is_empty()).then_some(HtmlSection {
            id: "ready",
            heading: "Time to ready",
            markdown,
            figures: Vec::new(),
        })
    }
}
