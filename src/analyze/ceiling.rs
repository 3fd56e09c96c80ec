//! What a cell's fault rate reads against: the machine's ceiling at the cell's CPUs and
//! folio size, from a feature that measured it. `features::analyze::CEILINGS` lists the
//! features that can give one, so the report's core names none.

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
/// says it, through `features::analyze::CEILING_WORDS`.
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

/// The ceiling of `cell` from the first of `ceilings` that gives one. Otherwise the
/// first reason there is none, or `None` when none of them measured the cell's label.
pub fn of_cell(
    ceilings: &[&dyn Ceilings],
    files: &FeatureFiles,
    cell: &CeilingOf<'_>,
) -> Result<CellCeiling, Option<String>> {
    let mut why = None;
    for c in ceilings {
        match c.of_cell(files, cell) {
            Ok(found) => return Ok(found),
            Err(w) => why = why.or(w),
        }
    }
    Err(why)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A feature that gives every cell the same answer.
    struct Fixed(Result<f64, Option<&'static str>>);

    impl Ceilings for Fixed {
        fn of_cell(
            &self,
            _: &FeatureFiles,
            _: &CeilingOf<'_>,
        ) -> Result<CellCeiling, Option<String>> {
            self.0
                .map(|per_s| CellCeiling {
                    per_s,
                    from: format!("{per_s}"),
                })
                .map_err(|why| why.map(str::to_owned))
        }
    }

    #[test]
    fn the_first_ceiling_found_wins_else_the_first_reason() {
        let files = FeatureFiles::default();
        let cell = CeilingOf {
            label: "k",
            cpus: "all",
            affinity: None,
            folio: 4096,
        };
        let ask = |list: &[&dyn Ceilings]| of_cell(list, &files, &cell);
        assert_eq!(ask(&[]), Err(None));
        assert_eq!(ask(&[&Fixed(Err(None))]), Err(None));
        let why = Fixed(Err(Some("no 2M calibration")));
        let other = Fixed(Err(Some("other")));
        assert_eq!(
            ask(&[&Fixed(Err(None)), &why, &other]),
            Err(Some("no 2M calibration".to_owned()))
        );
        let found = ask(&[&why, &Fixed(Ok(5.0)), &Fixed(Ok(7.0))]).unwrap();
        assert_eq!(found.per_s, 5.0);
    }
}
