//! Stage 6, rendering: what every table of labels side by side prints the same way,
//! whatever it compares ([`crate::analyze::labels::Comparison`]): the legend that names
//! each letter, each column's family and level for the note on marks, a change's
//! percentage and estimate with their mark, and the details table that gives every
//! label of a row a line. `render::compare` (the launches) and `features::calibrate::render`
//! (the calibrations) walk their comparison with these. Computes nothing.

use crate::analyze::labels::{Change, Column, Comparison};
use crate::render::table;

/// `A  base (baseline): facts`, wrapped under the label.
pub fn legend_line<I>(c: &Column<I>, facts: &str) -> String {
    table::wrap(
        &format!(
            "{}  {}{}: {facts}",
            c.letter,
            c.label,
            if c.baseline { " (baseline)" } else { "" }
        ),
        3,
    )
}

/// An RFC 3339 time to the minute, as the legends print it: `2026-11-30 07:00`.
pub fn minute(at: &str) -> String {
    at.get(..16).unwrap_or(at).replace('T', " ")
}

/// Each compared column's family and level: `B tests 2 cells at 97.50%` (`unit` `cell`,
/// `at` `""`), `B tests 3 rows at L = 98.33%`, or `B tests no cell` where nothing had an
/// interval.
pub fn levels<K, I, M>(cmp: &Comparison<K, I, M>, unit: &str, at: &str) -> String {
    cmp.columns
        .iter()
        .filter(|c| !c.baseline)
        .map(|c| match c.level {
            Some(level) => format!(
                "{} tests {} at {at}{}",
                c.letter,
                crate::units::count_of(table::whole(c.compared), unit),
                table::pct(100.0 * level, 2)
            ),
            None => format!("{} tests no {unit}", c.letter),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// `*` on a marked change.
pub fn mark(c: &Change) -> &'static str {
    if c.significant { "*" } else { "" }
}

/// The change in percent with its mark, `-25.9%*`; `n/a` where the baseline's figure
/// is not positive, `missing` where there is no change.
pub fn percent(change: Option<&Change>, missing: &str) -> String {
    match change {
        Some(c) => format!(
            "{}{}",
            c.percent
                .map_or_else(|| "n/a".to_owned(), table::signed_pct),
            mark(c)
        ),
        None => missing.to_owned(),
    }
}

/// The shift's estimate in `unit` with its mark, where the interval reaches the
/// column's level; empty elsewhere.
pub fn estimate(change: Option<&Change>, unit: fn(f64) -> String) -> String {
    match change {
        Some(c) if c.testable => c
            .interval
            .map_or_else(String::new, |i| format!("{}{}", unit(i.estimate), mark(c))),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::two_labels;

    #[test]
    fn both_tables_print_a_comparison_alike() {
        let mut cmp = two_labels(&[Some(true), Some(false)]);
        assert_eq!(levels(&cmp, "cell", ""), "B tests no cell");
        cmp.columns[1].compared = 2;
        cmp.columns[1].level = Some(0.975);
        assert_eq!(levels(&cmp, "row", "L = "), "B tests 2 rows at L = 97.50%");
        let change = |r: usize| cmp.rows[r].entries[1].as_ref().unwrap().change;
        assert_eq!(percent(change(0).as_ref(), "-"), "+100.0%*");
        assert_eq!(percent(None, "-"), "-");
        // No interval: no estimate, whatever the mark.
        assert_eq!(estimate(change(0).as_ref(), table::change_ms), "");
        assert_eq!(minute("2026-11-30T07:00:00Z"), "2026-11-30 07:00");
        assert!(legend_line(&cmp.columns[0], "x").starts_with("A  a (baseline): x"));
    }
}
