//! Stage 5, analysis: the profile's section of the report, its analysis half
//! (`analyze::section::Section`). Its render half is `features::profile::report`.

use crate::analyze::options::Options;
use crate::analyze::report::Report;
use crate::analyze::section::{Gathered, Input, Part, Section, SectionError};
use crate::features::profile::analyze::{ProfileReport, build};
use crate::features::profile::method::check_against_profile;

/// The profile's part of the report: the profiled launches' analysis, and whether the
/// report shows it (`--profile`) or only draws files from it, such as the flame graphs.
#[derive(Debug, Clone)]
pub struct ProfileSection {
    pub report: ProfileReport,
    pub shown: bool,
}

impl ProfileSection {
    /// The profile, when the report shows it.
    pub fn shown(&self) -> Option<&ProfileReport> {
        self.shown.then_some(&self.report)
    }
}

/// The profile's section of the report, its analysis half: the profiled launches of
/// the labels shown, when the report is asked for them. It checks each profiled cell's
/// pretouch method against its profile.
pub struct SectionAnalysis;

pub static SECTION: SectionAnalysis = SectionAnalysis;

impl Section for SectionAnalysis {
    fn build(
        &self,
        input: &mut Input<'_>,
        _gathered: Vec<Gathered>,
    ) -> Result<Option<Box<dyn Part>>, SectionError> {
        if !asked(input.options) {
            return Ok(None);
        }
        let profiles = crate::store::extra::read_records::<
            crate::features::profile::record::ProfileRecord,
        >(&input.results.files);
        let labels = input.comparison.labels();
        let profile = build(input.report, &profiles, &labels, &input.comparison.baseline);
        check_methods(input.report, &profile);
        Ok(Some(Box::new(ProfileSection {
            report: profile,
            shown: input.options.features.profile.profile,
        })))
    }
}

/// The profile is analyzed when the report shows it (`--profile`) or writes its files
/// (`--flamegraph`, `--profile-csv`). The HTML page holds the profile and its flame
/// graphs whenever there is one.
fn asked(options: &Options) -> bool {
    let features = &options.features;
    options.page
        || features.profile.profile
        || features.profile.flamegraph.is_some()
        || features.profile.profile_csv.is_some()
}

/// Checks each profiled cell's pretouch method against its profile: a populate shows no
/// fault-entry frames, a store or an atomic add no `madvise`.
fn check_methods(report: &mut Report, profile: &ProfileReport) {
    for cell in &mut report.cells {
        let key = cell.key();
        let label = cell.id.label.clone();
        if let (Some(h), Some(p)) = (
            cell.heap_and_method.as_mut(),
            profile
                .cells
                .iter()
                .find(|p| p.label == label && p.key == key && p.launches_on > 0),
        ) {
            h.parts.check = Some(check_against_profile(h.method.method, p.evidence));
        }
    }
}
