//! Stage 5, analysis: the calibrations' report, its analysis half
//! (`analyze::section::Section`). `report --calibrate` asks for it instead of the
//! launches' report. Its render half is `features::calibrate::report`.

use crate::analyze::options::Options;
use crate::analyze::section::{Part, Section, SectionError};
use crate::features::calibrate::analyze::compare;
use crate::features::calibrate::ceiling::calibrations;
use crate::store::Results;

/// The calibrations' report, its analysis half: the labels' calibrations side by side,
/// a `features::calibrate::analyze::CalibrationComparison`.
pub struct SectionAnalysis;

pub static SECTION: SectionAnalysis = SectionAnalysis;

impl Section for SectionAnalysis {
    fn instead_of_launches(
        &self,
        results: &Results,
        options: &Options,
    ) -> Option<Result<Box<dyn Part>, SectionError>> {
        options.features.calibrate.calibrate.then(|| {
            compare(calibrations(&results.features), options)
                .map(|c| Box::new(c) as Box<dyn Part>)
                .map_err(SectionError::from)
        })
    }
}
