//! Stage 6: the heap and pretouch method section. Per cell, what backs the heap (kind,
//! views, page size, huge-page bytes), how much of it was resident at `main()`, how the
//! JVM pretouches it with the source of that (JDK version and flags, JDK bug ids), and
//! the method's check against the profile. Text and Markdown; CSV and JSON carry the
//! same fields with the cells. Computes nothing.

use std::fmt::Write as _;

use crate::analyze::heap::{CellHeap, check_word};
use crate::analyze::method::MethodCheck;
use crate::analyze::report::{CellReport, Report};
use crate::machine::jdk::short_jdk;
use crate::render::common::cell_name;
use crate::render::table::{self, name};

const HEADERS: [&str; 9] = [
    "jdk", "gc", "heap", "variant", "memory", "page", "resident", "method", "profile",
];

fn row(c: &CellReport, h: &CellHeap) -> [String; 9] {
    let m = h.memory.as_ref();
    let dash = || "-".to_owned();
    [
        short_jdk(&c.jdk).to_owned(),
        c.gc.clone(),
        c.heap.clone(),
        c.variant_text(),
        m.map_or_else(dash, |m| m.summary()),
        m.and_then(|m| m.page_size)
            .map_or_else(dash, |p| p.to_string()),
        m.map_or_else(dash, |m| m.resident_of_heap()),
        h.method.method.name().to_owned(),
        check_word(h.check.as_ref()),
    ]
}

fn cells(report: &Report) -> Vec<(&CellReport, &CellHeap)> {
    report
        .cells
        .iter()
        .filter_map(|c| Some((c, c.heap_and_method.as_ref()?)))
        .collect()
}

const LEGEND: &str = "\
memory = what backs the heap at main() (xN: N views of the same memory, as JDK 11/17 \
ZGC maps it; shared memory faults take shmem_fault, not the anonymous-fault path), \
with transparent huge-page bytes; page = the kernel page size of its mappings; \
resident = median of the heap resident at main(), each page once, of the heap; \
method = how the JVM touches each page, from its version and flags; profile = the \
method checked against the kernel profile (a populate shows no fault-entry frames).";

/// `what: cells` lines, one per distinct `what`, in the order first met.
fn grouped(items: impl Iterator<Item = (String, String)>) -> Vec<String> {
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    for (what, cell) in items {
        match out.iter_mut().find(|(w, _)| *w == what) {
            Some((_, cells)) => cells.push(cell),
            None => out.push((what, vec![cell])),
        }
    }
    out.into_iter()
        .map(|(what, cells)| format!("{}: {what}", cells.join(", ")))
        .collect()
}

/// The lines under the table: each method's source and bugs, the notes, the checks
/// that disagree or settle nothing.
fn notes(report: &Report) -> Vec<String> {
    let cells = cells(report);
    let mut out: Vec<String> = grouped(cells.iter().map(|(c, h)| {
        let bugs = if h.method.bugs.is_empty() {
            String::new()
        } else {
            format!(" ({})", h.method.bugs.join(", "))
        };
        (
            format!("{}, from {}{bugs}", h.method.method.name(), h.method.source),
            cell_name(c),
        )
    }))
    .into_iter()
    .map(|l| format!("method: {l}"))
    .collect();
    out.extend(
        grouped(
            cells
                .iter()
                .flat_map(|(c, h)| h.method.notes.iter().map(|n| (n.clone(), cell_name(c)))),
        )
        .into_iter()
        .map(|l| format!("note: {l}")),
    );
    for (c, h) in &cells {
        match &h.check {
            Some(MethodCheck::Disagrees { seen }) => out.push(format!(
                "warning: {}: the profile DISAGREES with the method {}: it looks like {}",
                cell_name(c),
                h.method.method.name(),
                seen.name()
            )),
            Some(MethodCheck::Inconclusive { why }) => out.push(format!(
                "note: {}: the profile does not settle the method: {why}",
                cell_name(c)
            )),
            _ => {}
        }
    }
    out
}

/// The section for the terminal and email: one table per label, the legend, the notes.
pub fn text(report: &Report) -> String {
    let all = cells(report);
    if all.is_empty() {
        return String::new();
    }
    let key = [name("jdk"), name("gc"), name("heap"), name("variant")];
    let values: Vec<_> = HEADERS[4..].iter().map(|h| name(h)).collect();
    let mut out = String::new();
    for label in &report.labels {
        let rows: Vec<(Vec<String>, Vec<String>)> = all
            .iter()
            .filter(|(c, _)| c.label == *label)
            .map(|(c, h)| {
                let r = row(c, h);
                (r[..4].to_vec(), r[4..].to_vec())
            })
            .collect();
        out += "\n";
        out += &table::wrap(&format!("heap and pretouch method, label: {label}"), 2);
        out += &table::render_keyed(&key, &values, &rows);
    }
    out.push('\n');
    out += &table::wrap(LEGEND, 0);
    for note in notes(report) {
        out += &table::wrap(&note, 2);
    }
    out
}

/// The same as Markdown tables.
pub fn markdown(report: &Report) -> String {
    let all = cells(report);
    if all.is_empty() {
        return String::new();
    }
    let mut out = String::new();
    for label in &report.labels {
        let rows: Vec<Vec<String>> = all
            .iter()
            .filter(|(c, _)| c.label == *label)
            .map(|(c, h)| row(c, h).to_vec())
            .collect();
        let _ = writeln!(out, "\n#### {label}: heap and pretouch method\n");
        out += &table::markdown(&table::cols(&HEADERS, 9), &rows);
    }
    let _ = writeln!(out, "\n{LEGEND}");
    for line in notes(report) {
        let _ = writeln!(out, "\n> {line}");
    }
    out
}
