//! The calibrations of several labels side by side (`pretouch report --calibrate`), as
//! the reference series' microbenchmark table: text within 72 columns, Markdown, CSV,
//! JSON. Reads `analyze::calibration`'s types; computes nothing.

use std::fmt::Write as _;

use serde::Serialize;

use crate::analyze::calibration::{CalibrationComparison, Entry, Row};
use crate::render::common::Format;
use crate::render::table::{self, name, num};

pub fn render(cmp: &CalibrationComparison, format: Format) -> String {
    match format {
        Format::Text => text(cmp),
        Format::Markdown => markdown(cmp),
        Format::Csv => csv(cmp),
        Format::Json => serde_json::to_string_pretty(cmp).expect("always serializes") + "\n",
    }
}

/// `2.360M`, `323.4k`: four digits, as the cover letter prints them.
pub fn rate(per_s: f64) -> String {
    if per_s >= 1e6 {
        format!("{:.3}M", per_s / 1e6)
    } else if per_s >= 1e3 {
        format!("{:.1}k", per_s / 1e3)
    } else {
        format!("{per_s:.0}")
    }
}

fn gain(e: &Entry) -> String {
    match e.gain_pct {
        Some(g) => format!("{g:+.1}%{}", if e.significant { "*" } else { "" }),
        None => "-".to_owned(),
    }
}

fn fault(e: &Entry) -> String {
    crate::machine::calibrate::fault_size(e.fault_bytes)
}

fn shift(e: &Entry) -> (String, String) {
    match e.shift {
        Some(s) if e.testable => (
            format!(
                "{}{}{}",
                if s.estimate >= 0.0 { "+" } else { "-" },
                rate(s.estimate.abs()),
                if e.significant { "*" } else { "" }
            ),
            format!("{} .. {}", signed(s.low), signed(s.high)),
        ),
        Some(_) => ("few passes".to_owned(), String::new()),
        None => (String::new(), String::new()),
    }
}

fn signed(v: f64) -> String {
    format!("{}{}", if v >= 0.0 { "+" } else { "-" }, rate(v.abs()))
}

/// The gain columns: one per label but the baseline.
fn gain_headers(cmp: &CalibrationComparison) -> Vec<String> {
    let others: Vec<&str> = cmp
        .columns
        .iter()
        .filter(|c| !c.baseline)
        .map(|c| c.letter.as_str())
        .collect();
    if others.len() == 1 {
        vec!["gain".to_owned()]
    } else {
        others.iter().map(|l| format!("gain {l}")).collect()
    }
}

fn values(cmp: &CalibrationComparison, r: &Row) -> Vec<String> {
    let mut v: Vec<String> = r
        .entries
        .iter()
        .map(|e| e.as_ref().map_or("-".to_owned(), |e| rate(e.median_per_s)))
        .collect();
    for (e, c) in r.entries.iter().zip(&cmp.columns) {
        if !c.baseline {
            v.push(e.as_ref().map_or("-".to_owned(), gain));
        }
    }
    v
}

fn legend(cmp: &CalibrationComparison) -> String {
    let mut out = String::new();
    for c in &cmp.columns {
        let date = c.started_at.get(..16).unwrap_or(&c.started_at);
        out += &table::wrap(
            &format!(
                "{}  {}{}: {} UTC, kernel {}",
                c.letter,
                c.label,
                if c.baseline { " (baseline)" } else { "" },
                date.replace('T', " "),
                c.kernel
            ),
            3,
        );
    }
    let first = &cmp.columns[0];
    let mut machine = first.cpu_model.clone();
    if let Some(t) = &first.topology {
        machine += &format!("; {t}");
    }
    out += &table::wrap(&format!("machine: {machine}"), 2);
    out
}

const NOTE: &str = "Rates: 4 KiB pages made present per wall-second, median of each \
label's passes (for 4 KiB faults: faults/s, as pft reports; a 2 MiB fault counts 512). \
zap: threads write one shared anonymous mapping, each its own slice, MADV_DONTNEED \
between passes; pft: a fresh mapping every pass; huge: zap on a MADV_HUGEPAGE mapping. \
CPUs: the set the workers were pinned to, one per CPU. gain = median / baseline's \
median - 1. * = the 95% interval of the shift of the passes' rates excludes 0 \
(Hodges-Lehmann, Mann-Whitney; R: wilcox.test(x, y, conf.int = TRUE)); it needs 4 \
passes a side. spread = (max - min) / median. fault = bytes the kernel mapped per fault.";

fn text(cmp: &CalibrationComparison) -> String {
    let mut out = String::from("anonymous write faults per wall-second, per label; gain against ");
    out += &cmp.columns[cmp.baseline_index()].letter;
    out += "\n";
    out += &legend(cmp);
    out.push('\n');
    let gains = gain_headers(cmp);
    let mut value_cols: Vec<table::Col<'_>> =
        cmp.columns.iter().map(|c| num(c.letter.as_str())).collect();
    value_cols.extend(gains.iter().map(|g| num(g.as_str())));
    let rows: Vec<(Vec<String>, Vec<String>)> = cmp
        .rows
        .iter()
        .map(|r| (vec![r.cpus.clone(), r.test.clone()], values(cmp, r)))
        .collect();
    out += &table::render_keyed(&[name("CPUs"), name("test")], &value_cols, &rows);
    out.push('\n');
    // The spread and the interval, per row and label.
    let mut detail: Vec<(Vec<String>, Vec<String>)> = Vec::new();
    for r in &cmp.rows {
        let mut first = true;
        for (e, c) in r.entries.iter().zip(&cmp.columns) {
            let Some(e) = e else { continue };
            let (s, ci) = shift(e);
            let key = if first {
                vec![r.cpus.clone(), r.test.clone()]
            } else {
                vec![String::new(), String::new()]
            };
            first = false;
            detail.push((
                key,
                vec![
                    c.letter.clone(),
                    e.passes.to_string(),
                    format!("{}-{}", rate(e.min_per_s), rate(e.max_per_s)),
                    format!("{:.1}%", e.spread_pct),
                    fault(e),
                    s,
                    ci,
                ],
            ));
        }
    }
    out += &table::render_keyed(
        &[name("CPUs"), name("test")],
        &[
            name(""),
            num("passes"),
            num("min-max"),
            num("spread"),
            num("fault"),
            num("shift"),
            num("95% CI"),
        ],
        &detail,
    );
    out.push('\n');
    out += &table::wrap(NOTE, 0);
    for d in &cmp.env_differences {
        out += &table::wrap(&format!("environment: {d}"), 2);
    }
    for w in &cmp.warnings {
        out += &table::wrap(&format!("warning: {w}"), 2);
    }
    out
}

fn markdown(cmp: &CalibrationComparison) -> String {
    let mut out = String::new();
    for c in &cmp.columns {
        let _ = writeln!(
            out,
            "- **{}** {}{}: {} UTC, kernel {}",
            c.letter,
            c.label,
            if c.baseline { " (baseline)" } else { "" },
            c.started_at
                .get(..16)
                .unwrap_or(&c.started_at)
                .replace('T', " "),
            c.kernel
        );
    }
    out.push('\n');
    let gains = gain_headers(cmp);
    let mut head = vec!["CPUs".to_owned(), "test".to_owned()];
    head.extend(cmp.columns.iter().map(|c| c.label.clone()));
    head.extend(gains);
    let _ = writeln!(out, "| {} |", head.join(" | "));
    let _ = writeln!(
        out,
        "|{}",
        head.iter()
            .enumerate()
            .map(|(i, _)| if i < 2 { "---|" } else { "---:|" })
            .collect::<String>()
    );
    for r in &cmp.rows {
        let mut cells = vec![r.cpus.clone(), r.test.clone()];
        cells.extend(values(cmp, r));
        let _ = writeln!(out, "| {} |", cells.join(" | "));
    }
    out += "\n| CPUs | test | label | passes | min-max | spread | fault | shift | 95% CI |\n";
    out += "|---|---|---|---:|---:|---:|---:|---:|---:|\n";
    for r in &cmp.rows {
        for e in r.entries.iter().flatten() {
            let (s, ci) = shift(e);
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {}-{} | {:.1}% | {} | {} | {} |",
                r.cpus,
                r.test,
                e.label,
                e.passes,
                rate(e.min_per_s),
                rate(e.max_per_s),
                e.spread_pct,
                fault(e),
                s,
                ci
            );
        }
    }
    out.push('\n');
    out += NOTE;
    out.push('\n');
    for d in &cmp.env_differences {
        let _ = writeln!(out, "\nenvironment: {d}");
    }
    for w in &cmp.warnings {
        let _ = writeln!(out, "\nwarning: {w}");
    }
    out
}

#[derive(Serialize)]
struct CsvRow<'a> {
    cpus: &'a str,
    test: &'a str,
    workers: usize,
    label: &'a str,
    baseline: bool,
    pinned_to: Option<&'a str>,
    passes: usize,
    median_per_s: f64,
    min_per_s: f64,
    max_per_s: f64,
    spread_pct: f64,
    fault_bytes: Option<f64>,
    gain_pct: Option<f64>,
    shift_per_s: Option<f64>,
    ci_low_per_s: Option<f64>,
    ci_high_per_s: Option<f64>,
    ci_confidence: Option<f64>,
    testable: bool,
    significant: bool,
}

fn csv(cmp: &CalibrationComparison) -> String {
    let mut w = csv::Writer::from_writer(Vec::new());
    for r in &cmp.rows {
        for (e, c) in r.entries.iter().zip(&cmp.columns) {
            let Some(e) = e else { continue };
            w.serialize(CsvRow {
                cpus: &r.cpus,
                test: &r.test,
                workers: r.workers,
                label: &e.label,
                baseline: c.baseline,
                pinned_to: e.cpus.as_deref(),
                passes: e.passes,
                median_per_s: e.median_per_s,
                min_per_s: e.min_per_s,
                max_per_s: e.max_per_s,
                spread_pct: e.spread_pct,
                fault_bytes: e.fault_bytes,
                gain_pct: e.gain_pct,
                shift_per_s: e.shift.map(|s| s.estimate),
                ci_low_per_s: e.shift.map(|s| s.low),
                ci_high_per_s: e.shift.map(|s| s.high),
                ci_confidence: e.shift.map(|s| s.confidence),
                testable: e.testable,
                significant: e.significant,
            })
            .expect("writing to memory");
        }
    }
    String::from_utf8(w.into_inner().expect("writing to memory")).expect("csv is UTF-8")
}
