//! Stage 6, rendering: the settings' section of the report, its render half
//! (`render::section::Section`). The tables are `features::settings::render`'s; this
//! file places them after the cells' tables, sets the `settings` key of the JSON, and
//! says when the settings' table stands in for the cells' in the text.

use crate::analyze::document::Launches;
use crate::features::settings::render as settings;
use crate::features::settings::section::SettingsSection;
use crate::render::section::{Place, Section};

/// The settings' section, written.
pub struct SectionWriter;

pub static SECTION: SectionWriter = SectionWriter;

impl Section for SectionWriter {
    fn place(&self) -> Place {
        Place::AfterCells
    }

    /// One label's settings side by side are the table its reader wants, so the short
    /// report shows that table alone, with the notes once. The row per setting comes
    /// with --details.
    fn instead_of_cells(&self, l: &Launches) -> Option<String> {
        let SettingsSection(cmp) = l.part::<SettingsSection>()?;
        (!l.details && !l.several()).then(|| crate::render::compare::text(cmp, false))
    }

    fn text(&self, l: &Launches) -> String {
        match l.part::<SettingsSection>() {
            Some(SettingsSection(cmp)) if l.details || l.several() => {
                settings::text(cmp, l.details)
            }
            _ => String::new(),
        }
    }

    fn markdown(&self, l: &Launches) -> String {
        l.part::<SettingsSection>()
            .map(|SettingsSection(cmp)| settings::markdown(cmp, l.details))
            .unwrap_or_default()
    }

    /// The `settings:` axis side by side: the shape of `comparison`, a column per
    /// setting; only when the cells ran under two settings or more.
    fn json(&self, l: &Launches) -> Option<(&'static str, String)> {
        let SettingsSection(cmp) = l.part::<SettingsSection>()?;
        Some(("settings", crate::render::json::comparison_json(cmp)))
    }
}
