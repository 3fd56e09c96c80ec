//! Stage 5, analysis: the NUMA section of the report, its analysis half
//! (`analyze::section::Section`). Its render half is `features::numa::report`.

use crate::analyze::section::{Gathered, Input, Part, Section, SectionError};
use crate::features::numa::analyze::{self, NumaAnalysis};
use crate::store::read::ResultFile;

/// The NUMA section of the report, its analysis half: each counted launch's pages per
/// node while a label's launches are read, then the spread of each cell. Its part is a
/// [`NumaAnalysis`], absent when no launch recorded the heap's pages per node.
pub struct SectionAnalysis;

pub static SECTION: SectionAnalysis = SectionAnalysis;

impl Section for SectionAnalysis {
    fn gather(&self, files: &[(String, &ResultFile)]) -> Option<Gathered> {
        let mut gathered = analyze::Gathered::new();
        for (label, file) in files {
            for launch in &file.launches {
                analyze::keep(&mut gathered, label, launch);
            }
        }
        Some(Box::new(gathered))
    }

    fn build(
        &self,
        input: &mut Input<'_>,
        gathered: Vec<Gathered>,
    ) -> Result<Option<Box<dyn Part>>, SectionError> {
        let mut all = analyze::Gathered::new();
        for g in gathered {
            if let Ok(g) = g.downcast::<analyze::Gathered>() {
                for (key, mut launches) in *g {
                    all.entry(key).or_default().append(&mut launches);
                }
            }
        }
        let labels = input.comparison.labels();
        Ok(analyze::build(all, &labels).map(|a: NumaAnalysis| Box::new(a) as Box<dyn Part>))
    }
}
