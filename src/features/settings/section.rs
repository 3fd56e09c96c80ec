//! Stage 5, analysis: the settings' section of the report, its analysis half
//! (`analyze::section::Section`). Its render half is `features::settings::report`.

use crate::analyze::compare::Comparison;
use crate::analyze::section::{Gathered, Input, Part, Section, SectionError};
use crate::features::settings::analyze::compare_settings;

/// The settings' part of the report: the `settings:` axis side by side.
#[derive(Debug, Clone)]
pub struct SettingsSection(pub Comparison);

/// The settings' section of the report, its analysis half: the cells shown side by side
/// by setting, against `--baseline-setting` or the first setting. It has no part when
/// the cells shown ran under fewer than two settings.
pub struct SectionAnalysis;

pub static SECTION: SectionAnalysis = SectionAnalysis;

impl Section for SectionAnalysis {
    fn build(
        &self,
        input: &mut Input<'_>,
        _gathered: Vec<Gathered>,
    ) -> Result<Option<Box<dyn Part>>, SectionError> {
        let baseline = input.options.compare.settings.baseline_setting.as_deref();
        let cmp = compare_settings(input.report, baseline)?;
        Ok(cmp.map(|c| Box::new(SettingsSection(c)) as Box<dyn Part>))
    }
}
