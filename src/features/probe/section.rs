//! Stage 5, analysis: the probes' section of the report, its analysis half
//! (`analyze::section::Section`). Its render half is `features::probe::report`.

use crate::analyze::section::{Gathered, Input, Part, Section, SectionError, shown_label};
use crate::features::probe::analyze::{TimedMedians, build_timed, timed_medians};
use crate::store::read::ResultFile;

/// The probes' section of the report, its analysis half: each label's timed medians
/// while its launches are read, then the probe records of the labels shown, each
/// against those medians. Its part is the `features::probe::analyze::ProbeAnalysis`, absent when the results
/// hold no probe record.
pub struct SectionAnalysis;

pub static SECTION: SectionAnalysis = SectionAnalysis;

impl Section for SectionAnalysis {
    fn gather(&self, files: &[(String, &ResultFile)]) -> Option<Gathered> {
        Some(Box::new(timed_medians(files)))
    }

    fn build(
        &self,
        input: &mut Input<'_>,
        gathered: Vec<Gathered>,
    ) -> Result<Option<Box<dyn Part>>, SectionError> {
        let mut timed = TimedMedians::new();
        for g in gathered {
            if let Ok(t) = g.downcast::<TimedMedians>() {
                timed.extend(*t);
            }
        }
        let labels = input.comparison.labels();
        // Each file under the label it is shown under (the files hold no launch by now),
        // as its timed launches were while they were read.
        let headers: Vec<ResultFile> = input
            .results
            .files
            .iter()
            .filter_map(|f| {
                let mut header = f.header.clone();
                header.label = shown_label(f, &labels)?;
                Some(ResultFile {
                    path: f.path.clone(),
                    header,
                    launches: Vec::new(),
                    end: f.end.clone(),
                })
            })
            .collect();
        let probes = crate::store::extra::read_records::<crate::features::probe::record::ProbeRecord>(
            &headers,
        );
        if probes.is_empty() {
            return Ok(None);
        }
        let mut analysis = build_timed(&probes, &timed, &input.comparison.baseline);
        analysis.order_labels(&labels);
        Ok(Some(Box::new(analysis)))
    }
}
