//! Stage 6: the one JSON shape of `pretouch report --format json` (and `run --format
//! json`), whether one label is reported or several. Computes nothing.
//!
//! ```text
//! {
//!   "schema": "pretouch-report",
//!   "schema_version": 1,
//!   "cells": [...],          every label's cells, one object each (the CSV's columns,
//!                            with `heap_and_method` as one object where the CSV has
//!                            its flat `heap_*`/`method_*` columns)
//!   "labels": [...], "label_info": [...], "warnings": [...], "env_differences": [...],
//!   "outliers_excluded": false,
//!   "stops": [...], "run_to_run": [...],     only when there are any
//!   "comparison": {...}      only with two labels or more
//!   then the features' sections' keys, in the order the formats print the sections:
//!   "settings": {...}        only with two `settings:` values or more (its shape)
//!   "profile": {...}         only with `--profile` (the kernel profile's analysis)
//!   "probes": {...}          only when the results hold probe records (`run --probe`)
//! }
//! ```
//!
//! Each feature's section gives its key and value (`render::section::Section::json`),
//! and [`with_sections`] sets them after the report's. Sections are added as new keys
//! beside `cells` (readers ignore keys they do not know); `schema_version` changes
//! only when a key is removed or renamed, or its meaning changes. docs/json.md
//! documents every key.

use serde::Serialize;

use crate::analyze::compare::{Column, Comparison};
use crate::analyze::report::LabelInfo;
use crate::analyze::report::Report;
use crate::render::compare::{ChangeColumns, GeomeanView};

/// Raised when a key is removed or renamed, or changes meaning; not when one is added.
const SCHEMA_VERSION: u32 = 1;

#[derive(Serialize)]
struct Document<'a> {
    /// Always `pretouch-report`: what this JSON is.
    schema: &'static str,
    schema_version: u32,
    #[serde(flatten)]
    report: &'a Report,
    /// Every warning the text prints under its tables (`render::common::printed_warnings`).
    warnings: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    comparison: Option<ComparisonSection<'a>>,
}

/// The labels side by side: each label's change against the baseline, per cell.
#[derive(Serialize)]
pub struct ComparisonSection<'a> {
    pub baseline: &'a str,
    /// Confidence level of the intervals.
    pub confidence: f64,
    /// One per label, in the order asked for (`--labels`), with its letter in text.
    pub columns: Vec<ColumnView<'a>>,
    /// One per (label, cell), the baseline's included (its change fields null).
    pub changes: Vec<ChangeRow<'a>>,
    /// Cells not compared, and why.
    pub warnings: &'a [String],
}

/// One label's column: its letter, what it was run on, and its family.
#[derive(Serialize)]
pub struct ColumnView<'a> {
    pub letter: &'a str,
    pub baseline: bool,
    #[serde(flatten)]
    pub info: &'a LabelInfo,
    /// Cells with an interval against the baseline (10 rounds a side): the family the
    /// column's marks hold for; 0 for the baseline.
    pub compared_cells: usize,
    /// The confidence of each cell's interval in this column (`1 - 0.05 /
    /// compared_cells`); absent for the baseline and where no cell has an interval.
    pub cell_confidence: Option<f64>,
    /// The geometric mean of the label's cost ratios against the baseline over its
    /// compared cells, with its interval; absent for the baseline and under 2 cells.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub geomean: Option<GeomeanView>,
}

impl<'a> ColumnView<'a> {
    fn of(c: &'a Column, confidence: f64) -> ColumnView<'a> {
        ColumnView {
            letter: &c.letter,
            baseline: c.baseline,
            info: &c.info,
            compared_cells: c.compared,
            cell_confidence: c.level,
            geomean: GeomeanView::of(c, confidence),
        }
    }
}

/// A cell of one label against the baseline's. The key fields are those of `cells`.
#[derive(Serialize)]
pub struct ChangeRow<'a> {
    pub label: &'a str,
    pub jdk: &'a str,
    pub gc: &'a str,
    pub heap: &'a str,
    pub variant: &'a str,
    pub gc_threads: &'a str,
    pub cpus: &'a str,
    pub app: Option<&'a str>,
    #[serde(flatten)]
    pub change: ChangeColumns<'a>,
}

/// The comparison section of `cmp`.
pub fn comparison(cmp: &Comparison) -> ComparisonSection<'_> {
    let mut changes = Vec::new();
    for row in &cmp.rows {
        for (column, e) in cmp.entries(row) {
            let c = &e.measured;
            changes.push(ChangeRow {
                label: &column.label,
                jdk: &c.id.jdk,
                gc: &c.id.gc,
                heap: &c.id.heap,
                variant: &c.id.variant,
                gc_threads: &c.axes.gc_threads,
                cpus: &c.axes.cpus,
                app: c.axes.app.as_deref(),
                change: ChangeColumns::of(column, e),
            });
        }
    }
    ComparisonSection {
        baseline: &cmp.baseline,
        confidence: cmp.confidence,
        columns: cmp
            .columns
            .iter()
            .map(|c| ColumnView::of(c, cmp.confidence))
            .collect(),
        changes,
        warnings: &cmp.warnings,
    }
}

/// The report as JSON; `cmp`: the comparison of its labels, when there are several.
pub fn render(report: &Report, cmp: Option<&Comparison>) -> String {
    with_sections(report, cmp, &[])
}

/// [`render`], with the features' sections after the report's keys: each a key and its
/// value as pretty JSON on its own, in the order given
/// (`render::section::Section::json`).
pub fn with_sections(
    report: &Report,
    cmp: Option<&Comparison>,
    sections: &[(&str, String)],
) -> String {
    let cells: Vec<_> = report.cells.iter().collect();
    let document = Document {
        schema: "pretouch-report",
        schema_version: SCHEMA_VERSION,
        report,
        warnings: crate::render::common::printed_warnings(
            &cells,
            report.outliers_excluded,
            cmp.map_or(&report.warnings, |c| &c.warnings),
            &report.run_to_run,
        ),
        comparison: cmp.map(comparison),
    };
    let core = serde_json::to_string_pretty(&document).expect("a report always serializes");
    set_keys(core, sections) + "\n"
}

/// A comparison's section as pretty JSON on its own, the shape of `comparison`.
pub fn comparison_json(cmp: &Comparison) -> String {
    serde_json::to_string_pretty(&comparison(cmp)).expect("a comparison always serializes")
}

/// `object`, pretty JSON of an object with a key or more, with `keys` added at its end:
/// the bytes serde writes for the object with those fields. serde's pretty JSON indents
/// each level by two spaces and writes a string's line breaks as `\n`, so a value
/// written on its own is the nested one once each line after its first is indented.
fn set_keys(object: String, keys: &[(&str, String)]) -> String {
    if keys.is_empty() {
        return object;
    }
    let mut out = object
        .strip_suffix("\n}")
        .expect("pretty JSON of an object with keys ends with a line break and `}`")
        .to_owned();
    for (key, value) in keys {
        out += &format!(",\n  {}: ", serde_json::Value::from(*key));
        out += &value.replace('\n', "\n  ");
    }
    out + "\n}"
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyze::Options;
    use crate::analyze::compare::compare;
    use crate::fixtures::{FakeCell, file, host, rounds};
    use crate::matrix::Gc;
    use crate::store::Results;

    fn report(labels: &[&str]) -> Report {
        let g1 = rounds(48.0, 430.0, false);
        let files = labels
            .iter()
            .enumerate()
            .map(|(i, l)| {
                file(
                    l,
                    &format!("2026-11-30T0{i}:00:00Z"),
                    host("vm"),
                    &[FakeCell {
                        gc: Gc::G1,
                        heap: "1g",
                        rounds: &g1,
                    }],
                )
            })
            .collect();
        crate::analyze::build(&Results {
            files,
            ..Default::default()
        })
    }

    fn keys(v: &serde_json::Value) -> Vec<String> {
        v.as_object().unwrap().keys().cloned().collect()
    }

    #[test]
    fn one_label_or_several_share_one_shape() {
        let one = report(&["base"]);
        let one: serde_json::Value = serde_json::from_str(&render(&one, None)).unwrap();
        let two = report(&["base", "new"]);
        let cmp = compare(&two, &Options::default()).unwrap();
        let two: serde_json::Value = serde_json::from_str(&render(&two, Some(&cmp))).unwrap();
        assert_eq!(one["schema_version"], SCHEMA_VERSION);
        assert_eq!(two["schema_version"], SCHEMA_VERSION);
        // The same keys, and the comparison beside them.
        let mut with_comparison = keys(&one);
        with_comparison.push("comparison".into());
        with_comparison.sort();
        let mut got = keys(&two);
        got.sort();
        assert_eq!(got, with_comparison);
        // Cells: the same fields; one per label.
        assert_eq!(keys(&one["cells"][0]), keys(&two["cells"][0]));
        assert_eq!(two["cells"].as_array().unwrap().len(), 2);
        let changes = two["comparison"]["changes"].as_array().unwrap();
        assert_eq!(changes.len(), 2);
        assert_eq!(changes[1]["label"], "new");
        assert_eq!(changes[1]["gc_threads"], "auto");
        assert_eq!(changes[1]["change_ms"], 0.0);
        assert!(changes[0]["change_ms"].is_null(), "the baseline");
    }

    #[test]
    fn a_section_is_a_key_of_the_same_document_as_serde_writes_it() {
        #[derive(Serialize)]
        struct Inner {
            baseline: &'static str,
            cells: Vec<Vec<f64>>,
            shifts: Vec<u8>,
            note: &'static str,
        }
        #[derive(Serialize)]
        struct Head {
            schema: u8,
        }
        #[derive(Serialize)]
        struct Whole {
            schema: u8,
            section: Inner,
            empty: Vec<u8>,
        }
        let inner = || Inner {
            baseline: "base",
            cells: vec![vec![1.5, 2.0], Vec::new()],
            shifts: Vec::new(),
            note: "two\nlines",
        };
        fn pretty<T: Serialize>(v: &T) -> String {
            serde_json::to_string_pretty(v).unwrap()
        }
        let sections = [
            ("section", pretty(&inner())),
            ("empty", pretty(&Vec::<u8>::new())),
        ];
        // The bytes serde writes for the object with the sections as its last fields.
        assert_eq!(
            set_keys(pretty(&Head { schema: 1 }), &sections),
            pretty(&Whole {
                schema: 1,
                section: inner(),
                empty: Vec::new(),
            })
        );
        // The report's keys, unchanged, and the section after them.
        let one = report(&["base"]);
        let plain = render(&one, None);
        let with = with_sections(&one, None, &sections[..1]);
        let (p, w): (serde_json::Value, serde_json::Value) = (
            serde_json::from_str(&plain).unwrap(),
            serde_json::from_str(&with).unwrap(),
        );
        let mut expected = keys(&p);
        expected.push("section".into());
        expected.sort();
        assert_eq!(keys(&w), expected);
        assert!(with.starts_with(plain.strip_suffix("\n}\n").unwrap()));
        assert_eq!(w["cells"], p["cells"]);
        assert_eq!(w["section"]["note"], "two\nlines");
        assert!(p.get("section").is_none(), "absent without the section");
    }
}
