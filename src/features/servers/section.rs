//! Stage 5, analysis: the servers' section of the report, its analysis half
//! (`analyze::section::Section`). Its render half is `features::servers::report`.

use crate::analyze::section::Section;

/// The servers' section of the report, its analysis half. Its figures are each server
/// cell's time to ready, which the cells' report holds already (`CellReport::ready`),
/// so it builds no part of its own, and its render half reads the cells.
pub struct SectionAnalysis;

pub static SECTION: SectionAnalysis = SectionAnalysis;

impl Section for SectionAnalysis {}
