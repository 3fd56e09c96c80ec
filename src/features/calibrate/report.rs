//! Stage 6, rendering: the calibrations' report, its render half
//! (`render::section::Section`). `report --calibrate` asks for it instead of the
//! launches' report, so it has no section among the launches' and writes its own
//! report in each format, with the tables of `features::calibrate::render`.

use crate::analyze::document::Document;
use crate::features::calibrate::analyze::CalibrationComparison;
use crate::features::calibrate::render as calibration;
use crate::render::section::{HtmlSection, OwnReport, Section};

/// The calibrations' report, written.
pub struct SectionWriter;

pub static SECTION: SectionWriter = SectionWriter;

impl Section for SectionWriter {
    fn own_report<'a>(&self, doc: &'a Document) -> Option<Box<dyn OwnReport + 'a>> {
        let cmp = doc.own::<CalibrationComparison>()?;
        Some(Box::new(Calibrations(cmp)))
    }
}

/// The labels' calibrations side by side.
struct Calibrations<'a>(&'a CalibrationComparison);

impl OwnReport for Calibrations<'_> {
    fn labels(&self) -> Vec<&str> {
        self.0.columns.iter().map(|c| c.label.as_str()).collect()
    }

    fn text(&self) -> String {
        calibration::text(self.0)
    }

    fn markdown(&self) -> String {
        calibration::markdown(self.0)
    }

    fn csv(&self) -> String {
        calibration::csv(self.0)
    }

    fn json(&self) -> String {
        calibration::json(self.0)
    }

    fn html(&self) -> HtmlSection {
        HtmlSection {
            id: "calibration",
            heading: "Calibrations",
            markdown: calibration::markdown(self.0),
            figures: Vec::new(),
        }
    }
}
