//! What a cell's fault rate reads against: the machine's ceiling at the cell's CPUs and
//! folio size, from a feature that measured it. `features::analyze::CEILING_SOURCE` names that
//! feature, so the report's core names none.

use crate::store::feature_files::FeatureFiles;

/// A cell's ceiling and where it comes from.
#[derive(Debug, Clone, PartialEq)]
pub struct CellCeiling {
    /// Faults per wall-second.
    pub per_s: f64,
    /// The configuration it was measured in, as a note names it.
    pub from: String,
}

/// The cell a ceiling is asked for.
#[derive(Debug, Clone, Copy)]
pub struct CeilingOf<'a> {
    pub label: &'a str,
    /// The CPU set the cell was confined to (`all`: not).
    pub cpus: &'a str,
    /// The CPUs its launches ran on (kernel list syntax).
    pub affinity: Option<&'a str>,
    /// The size of the folios its heap's faults map.
    pub folio: u64,
}

/// How the explaining tables name where the cells' ceilings come from, in the legend of
/// `% ceiling` and in the notes under the tables. The feature that gives the ceilings
/// says it, in its [`CeilingSource`].
#[derive(Debug, Clone, Copy)]
pub struct CeilingWords {
    /// The legend's sentence of the `% ceiling` column.
    pub legend: &'static str,
    /// What fills the `% ceiling` column, for a legend that says the column was left out.
    pub fills: &'static str,
    /// The note on labels without a ceiling up to the labels, which follow it.
    pub none_for: &'static str,
    /// What the note on a cell read against a ceiling of its own puts before where the
    /// ceiling comes from.
    pub against: &'static str,
}

/// A feature that gives cells their ceiling.
pub trait Ceilings: Sync {
    /// The ceiling of `cell` from the features' files, or why there is none. The reason
    /// is `None` when the feature measured nothing for the cell's label.
    fn of_cell(
        &self,
        files: &FeatureFiles,
        cell: &CeilingOf<'_>,
    ) -> Result<CellCeiling, Option<String>>;
}

/// The feature that gives cells their ceiling, and the words that name it. One line of
/// `features::analyze` names it.
pub struct CeilingSource {
    /// The ceilings of the cells.
    pub ceilings: &'static dyn Ceilings,
    /// How the explaining tables name where the ceilings come from.
    pub words: CeilingWords,
}
