//! Stage 6, rendering: the one report document ([`crate::analyze::document`]) into
//! bytes, one function per format, each walking the document's sections in the same
//! order; and the files beside the report (each section's, then the plot) from the same
//! document, [`side_files`]. The features' sections are written by their render halves
//! ([`crate::render::section::Section`]), which every format walks through the features'
//! list, in the order of [`in_order`]. A new format
//! is one [`Format`] variant (its `--format` value comes with it), one arm in [`render`]
//! and one function that walks the document (HTML's walks it in `html`, with its
//! pictures in `charts`).

use crate::analyze::document::{Document, Launches};
use crate::render::common::{CellNames, Format};
use crate::render::section::{OwnReport, Place, Section};
use crate::render::{compare, explain, heap, json, report};

mod charts;
mod html;
mod side;

pub use crate::render::section::{SideError, SideFile, SideOutput, SideRequest};
pub use side::side_files;

/// The render halves of the features' sections, in their list's order.
macro_rules! render_halves {
    ($($feature:ident,)*) => {
        [$(&crate::features::$feature::report::SECTION as &dyn Section,)*]
    };
}

/// Every feature's section, its render half.
static SECTIONS: &[&dyn Section] = &crate::features::sections::report_sections!(render_halves);

/// The sections that go at `place`, in their list's order.
fn placed(place: Place) -> impl Iterator<Item = &'static dyn Section> {
    SECTIONS.iter().copied().filter(move |s| s.place() == place)
}

/// The feature's report of its own that `doc` holds instead of the launches' report.
fn own_report(doc: &Document) -> Option<Box<dyn OwnReport + '_>> {
    SECTIONS.iter().find_map(|s| s.own_report(doc))
}

/// The sections in the order every format prints them: by place, then in their list's
/// order.
fn in_order() -> impl Iterator<Item = &'static dyn Section> {
    placed(Place::AfterCells).chain(placed(Place::Last))
}

/// The document in `format`.
pub fn render(doc: &Document, format: Format) -> String {
    match format {
        Format::Text => text(doc),
        Format::Markdown => markdown(doc),
        Format::Csv => csv(doc),
        Format::Json => json(doc),
        Format::Html => html::page(doc),
    }
}

/// What the text report prints to stderr beside [`render`]'s stdout: the notes under
/// the cover letter's table, a line or two each, when `--details` does not hold them.
/// So `pretouch report > letter.txt` keeps only the letter's table. Empty in the other
/// formats, which keep their notes.
pub fn notes(doc: &Document, format: Format) -> String {
    match (&doc.launches, format) {
        (Some(l), Format::Text)
            if !l.details && in_order().all(|s| s.instead_of_cells(l).is_none()) =>
        {
            compare::brief_notes(&l.comparison)
        }
        _ => String::new(),
    }
}

/// Plain text that fits a patch email: the cells (or the labels side by side), the
/// sections that go after them, what explains each cost, the heap and pretouch method,
/// the sections that go last; or a feature's report of its own.
fn text(doc: &Document) -> String {
    let mut out = String::new();
    if let Some(l) = &doc.launches {
        let alone = in_order().find_map(|s| s.instead_of_cells(l));
        out += &alone.unwrap_or_else(|| cells_text(l));
        for s in placed(Place::AfterCells) {
            out += &s.text(l);
        }
        let names = cell_names(l);
        // The tables that explain the cost are details, or asked for by `--phases`.
        if l.details || l.phases {
            out += &explain::text(&l.report, l.phases, &names);
        }
        if l.details {
            out += &heap::text(&l.report, &names);
        }
        for s in placed(Place::Last) {
            out += &s.text(l);
        }
    }
    if let Some(r) = own_report(doc) {
        out += &r.text();
    }
    out
}

/// How the text names the cells: by their label when several labels are shown.
fn cell_names(l: &Launches) -> CellNames {
    let letters = if l.several() {
        l.comparison
            .columns
            .iter()
            .map(|c| (c.label.clone(), c.label.clone()))
            .collect()
    } else {
        Vec::new()
    };
    CellNames::new(&l.report.cells, letters)
}

fn cells_text(l: &Launches) -> String {
    if l.details && !l.several() {
        // One label's details: its cells' launches, times, spread, stops and notes.
        format!(
            "{}\n{}",
            compare::head(&l.comparison),
            report::text(&l.report)
        )
    } else {
        compare::text(&l.comparison, l.details)
    }
}

/// Markdown: the sections of [`text`], as tables.
fn markdown(doc: &Document) -> String {
    let mut out = String::new();
    if let Some(l) = &doc.launches {
        out += &compare::markdown(&l.comparison, l.details);
        if l.details && !l.several() {
            // One label's launches: each cell's times without and with pretouch.
            out += "\n";
            out += &report::markdown(&l.report);
        }
        for s in placed(Place::AfterCells) {
            out += &s.markdown(l);
        }
        if l.details || l.phases {
            out += &explain::markdown(&l.report, l.phases);
        }
        if l.details {
            out += &heap::markdown(&l.report);
        }
        for s in placed(Place::Last) {
            out += &s.markdown(l);
        }
    }
    if let Some(r) = own_report(doc) {
        out += &r.markdown();
    }
    out
}

/// CSV holds one table: a row per cell (and label), its explaining figures as columns.
/// A section that has rows of its own writes them into a file beside the report
/// ([`side_files`]), unless it adds them here.
fn csv(doc: &Document) -> String {
    let mut out = String::new();
    if let Some(l) = &doc.launches {
        out += &if l.several() {
            compare::csv(&l.comparison)
        } else {
            report::csv(&l.report)
        };
        for s in in_order() {
            out += &s.csv(l);
        }
    }
    if let Some(r) = own_report(doc) {
        out += &r.csv();
    }
    out
}

/// One JSON document whatever the number of labels: the cells, the comparison beside
/// them when there are several labels, each section's key; or a feature's report of
/// its own.
fn json(doc: &Document) -> String {
    let mut out = String::new();
    if let Some(l) = &doc.launches {
        let cmp = l.several().then_some(&l.comparison);
        let sections: Vec<(&str, String)> = in_order().filter_map(|s| s.json(l)).collect();
        out += &json::with_sections(&l.report, cmp, &sections);
    }
    if let Some(r) = own_report(doc) {
        out += &r.json();
    }
    out
}
