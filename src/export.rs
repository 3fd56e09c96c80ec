//! Stage 6: finished reports turned into bytes: text for the terminal and email,
//! Markdown, CSV and JSON. Exporters compute nothing.

use std::fmt::Write as _;

use crate::report::{CellReport, Report};

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Text,
    Markdown,
    Csv,
    Json,
}

pub fn render(report: &Report, format: Format) -> String {
    match format {
        Format::Text => text(report),
        Format::Markdown => markdown(report),
        Format::Csv => csv(report),
        Format::Json => json(report),
    }
}

/// [`render`], then the tables that explain each cell (faults, rates, the JVM's own
/// pretouch time, the touched check; the phases with `phases`). CSV and JSON already
/// carry those numbers as columns.
pub fn render_explained(report: &Report, format: Format, phases: bool) -> String {
    let main = render(report, format);
    match format {
        Format::Text => main + &crate::export_explain::text(report, phases),
        Format::Markdown => main + &crate::export_explain::markdown(report, phases),
        Format::Csv | Format::Json => main,
    }
}

/// Short JDK name for tables: `17.0.15+6-Debian-1deb12u1` -> `17.0.15+6`.
fn short_jdk(version: &str) -> &str {
    version.split_once('-').map_or(version, |(v, _)| v)
}

fn ms(x: Option<f64>) -> String {
    x.map_or_else(|| "-".to_owned(), |v| format!("{v:.1}"))
}

fn spread(median: Option<f64>, min: Option<f64>, max: Option<f64>) -> String {
    match median {
        Some(_) => format!("{} ({}-{})", ms(median), ms(min), ms(max)),
        None => "-".to_owned(),
    }
}

fn cost(c: &CellReport) -> String {
    match c.pretouch_ms {
        Some(v) => format!("{v:.1}"),
        None if c.failed > 0 => "FAILED".to_owned(),
        // An interrupted run not resumed yet: nothing failed, one side has no launch.
        None => "-".to_owned(),
    }
}

fn row(c: &CellReport) -> [String; 8] {
    [
        short_jdk(&c.jdk).to_owned(),
        c.gc.clone(),
        c.heap.clone(),
        variant_text(c),
        format!("{}+{}", c.runs_off, c.runs_on)
            + &if c.failed > 0 {
                format!(" ({} failed)", c.failed)
            } else {
                String::new()
            },
        spread(c.median_off_ms, c.min_off_ms, c.max_off_ms),
        spread(c.median_on_ms, c.min_on_ms, c.max_on_ms),
        cost(c),
    ]
}

/// The variant, followed by the axes that differ from their default (GC threads, CPU
/// set, application), so that tables without those axes look as before.
fn variant_text(c: &CellReport) -> String {
    let mut s = c.variant.clone();
    if c.gc_threads != crate::matrix::GC_THREADS_AUTO {
        s += &format!(" gc_threads={}", c.gc_threads);
    }
    if c.cpus != crate::cpuset::ALL {
        s += &format!(" cpus={}", c.cpus);
    }
    if let Some(app) = &c.app {
        s += &format!(" app={app}");
    }
    s
}

/// Lines saying where each cell stopped under adaptive repetitions, and why.
fn stop_lines(report: &Report) -> String {
    let mut out = String::new();
    for s in &report.stops {
        let cell = &s.stop.cell;
        let mut name = format!(
            "{} {} {} {}",
            short_jdk(&cell.jdk),
            cell.gc,
            cell.heap,
            cell.variant
        );
        if cell.gc_threads != crate::matrix::GC_THREADS_AUTO {
            name += &format!(" gc_threads={}", cell.gc_threads);
        }
        if cell.cpus != crate::cpuset::ALL {
            name += &format!(" cpus={}", cell.cpus);
        }
        let stop = &s.stop;
        let interval = match (stop.ci_low_ms, stop.ci_high_ms, stop.ci_half_width_pct) {
            (Some(lo), Some(hi), Some(pct)) => {
                format!("95% interval [{lo:.1}, {hi:.1}] ms, ±{pct:.1}%")
            }
            (Some(lo), Some(hi), None) => format!("95% interval [{lo:.1}, {hi:.1}] ms"),
            _ => "no 95% interval".to_owned(),
        };
        let target = format!("±{}%", stop.target_pct);
        let why = match stop.reason.as_str() {
            "converged" if stop.rounds < stop.max_rounds => {
                format!(
                    "stopped early after {} of {} rounds: {interval}, within {target}",
                    stop.rounds, stop.max_rounds
                )
            }
            "converged" => format!(
                "met the target in the last round ({}): {interval}, within {target}",
                stop.rounds
            ),
            "max_reached" => format!(
                "ran all {} rounds: {interval}, wider than {target}",
                stop.rounds
            ),
            "no_interval" => format!(
                "ran all {} rounds: too few successful launches for an interval",
                stop.rounds
            ),
            other => format!("{other} after {} rounds", stop.rounds),
        };
        let _ = writeln!(out, "adaptive: {} {name}: {why}", s.label);
    }
    out
}

const HEADERS: [&str; 8] = [
    "jdk",
    "gc",
    "heap",
    "variant",
    "runs",
    "without (min-max)",
    "with (min-max)",
    "pretouch",
];

fn by_label(report: &Report) -> Vec<(&str, Vec<&CellReport>)> {
    report
        .labels
        .iter()
        .map(|l| {
            (
                l.as_str(),
                report.cells.iter().filter(|c| c.label == *l).collect(),
            )
        })
        .collect()
}

fn text(report: &Report) -> String {
    let mut out = String::new();
    for (label, cells) in by_label(report) {
        let rows: Vec<[String; 8]> = cells.iter().map(|c| row(c)).collect();
        let mut widths = HEADERS.map(str::len);
        for r in &rows {
            for (w, cell) in widths.iter_mut().zip(r) {
                *w = (*w).max(cell.len());
            }
        }
        let line = |cols: [&str; 8]| {
            let mut s = String::new();
            for (i, (col, w)) in cols.iter().zip(widths).enumerate() {
                // Numbers right-aligned, names left-aligned.
                if i >= 4 {
                    let _ = write!(s, "  {col:>w$}");
                } else if i == 0 {
                    let _ = write!(s, "{col:<w$}");
                } else {
                    let _ = write!(s, "  {col:<w$}");
                }
            }
            s.trim_end().to_owned() + "\n"
        };
        let _ = writeln!(out, "label: {label}");
        out += &line(HEADERS);
        for r in &rows {
            out += &line(r.each_ref().map(String::as_str));
        }
        out.push('\n');
    }
    out += "Times in ms from exec to main(): median of the counted launches (min-max);\n";
    out += "runs = launches without+with pretouch; pretouch = median(with) - median(without).\n";
    for c in report.cells.iter().filter(|c| c.failed > 0) {
        let _ = writeln!(
            out,
            "warning: {} {} {} {} {}: {} launch(es) failed, first: {}",
            c.label,
            short_jdk(&c.jdk),
            c.gc,
            c.heap,
            c.variant,
            c.failed,
            c.first_failure.as_deref().unwrap_or("unknown")
        );
    }
    out += &stop_lines(report);
    for w in &report.warnings {
        let _ = writeln!(out, "warning: {w}");
    }
    out
}

fn markdown(report: &Report) -> String {
    let mut out = String::new();
    for (label, cells) in by_label(report) {
        let _ = writeln!(out, "### {label}\n");
        let _ = writeln!(out, "| {} |", HEADERS.join(" | "));
        let _ = writeln!(out, "|---|---|---|---|---:|---:|---:|---:|");
        for c in cells {
            let _ = writeln!(out, "| {} |", row(c).join(" | "));
        }
        out.push('\n');
    }
    out += "Times in ms from exec to `main()`: median of the counted launches (min-max); pretouch = median(with) - median(without).\n";
    let stops = stop_lines(report);
    if !stops.is_empty() {
        out.push('\n');
        for line in stops.lines() {
            let _ = writeln!(out, "- {line}");
        }
    }
    for w in &report.warnings {
        let _ = writeln!(out, "\n> warning: {w}");
    }
    out
}

fn csv(report: &Report) -> String {
    let mut w = csv::Writer::from_writer(Vec::new());
    for c in &report.cells {
        w.serialize(c).expect("a report row always serializes");
    }
    String::from_utf8(w.into_inner().expect("writing to memory cannot fail")).expect("csv is UTF-8")
}

fn json(report: &Report) -> String {
    serde_json::to_string_pretty(report).expect("a report always serializes") + "\n"
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Report {
        let cell = |gc: &str, heap: &str, off: f64, on: f64| CellReport {
            label: "6.18.0-base".into(),
            jdk: "17.0.15+6-Debian-1deb12u1".into(),
            gc: gc.into(),
            heap: heap.into(),
            variant: "default".into(),
            runs: 20,
            runs_on: 10,
            runs_off: 10,
            failed: 0,
            median_on_ms: Some(on),
            min_on_ms: Some(on - 5.0),
            max_on_ms: Some(on + 20.0),
            median_off_ms: Some(off),
            min_off_ms: Some(off - 2.0),
            max_off_ms: Some(off + 3.0),
            pretouch_ms: Some(on - off),
            first_failure: None,
            gc_threads: "auto".into(),
            cpus: "all".into(),
            app: None,
            ..CellReport::default()
        };
        let mut failed = cell("parallel", "2g", 50.0, 0.0);
        failed.runs_on = 0;
        failed.runs = 10;
        failed.failed = 10;
        failed.median_on_ms = None;
        failed.min_on_ms = None;
        failed.max_on_ms = None;
        failed.pretouch_ms = None;
        failed.first_failure = Some("exited with code 1 before main()".into());
        Report {
            cells: vec![cell("g1", "1g", 48.25, 431.5), failed],
            labels: vec!["6.18.0-base".into()],
            warnings: vec!["results/x.jsonl:7: unreadable line skipped (EOF while parsing)".into()],
            stops: Vec::new(),
            env_differences: vec![],
        }
    }

    /// Cells on the new axes (GC threads, CPU sets, an application) under adaptive
    /// repetitions.
    fn axes_sample() -> Report {
        let mut report = sample();
        report.warnings.clear();
        report.cells.truncate(1);
        let mut one = report.cells[0].clone();
        one.gc_threads = "1".into();
        one.cpus = "0".into();
        one.app = Some("com.example.Main".into());
        one.median_on_ms = Some(900.0);
        one.min_on_ms = Some(880.0);
        one.max_on_ms = Some(990.0);
        one.pretouch_ms = Some(900.0 - 48.25);
        report.cells.push(one);
        let stop =
            |cell: &CellReport, rounds, reason: &str, lo, hi, pct| crate::report::LabelledStop {
                label: cell.label.clone(),
                stop: crate::store::CellStop {
                    cell: crate::store::CellKey {
                        jdk: cell.jdk.clone(),
                        gc: crate::matrix::Gc::G1,
                        heap: cell.heap.clone(),
                        variant: cell.variant.clone(),
                        gc_threads: cell.gc_threads.clone(),
                        cpus: cell.cpus.clone(),
                        app: cell.app.clone(),
                    },
                    rounds,
                    max_rounds: 30,
                    target_pct: 2.0,
                    reason: reason.into(),
                    cost_ms: cell.pretouch_ms,
                    ci_low_ms: Some(lo),
                    ci_high_ms: Some(hi),
                    ci_half_width_pct: Some(pct),
                },
            };
        report.stops = vec![
            stop(&report.cells[0], 5, "converged", 380.1, 389.0, 1.5),
            stop(&report.cells[1], 30, "max_reached", 801.0, 870.2, 5.8),
        ];
        report
    }

    #[test]
    fn text_with_axes_and_stops() {
        insta::assert_snapshot!(render(&axes_sample(), Format::Text), @"
        label: 6.18.0-base
        jdk        gc  heap  variant                                            runs  without (min-max)       with (min-max)  pretouch
        17.0.15+6  g1  1g    default                                           10+10   48.2 (46.2-51.2)  431.5 (426.5-451.5)     383.2
        17.0.15+6  g1  1g    default gc_threads=1 cpus=0 app=com.example.Main  10+10   48.2 (46.2-51.2)  900.0 (880.0-990.0)     851.8

        Times in ms from exec to main(): median of the counted launches (min-max);
        runs = launches without+with pretouch; pretouch = median(with) - median(without).
        adaptive: 6.18.0-base 17.0.15+6 g1 1g default: stopped early after 5 of 30 rounds: 95% interval [380.1, 389.0] ms, ±1.5%, within ±2%
        adaptive: 6.18.0-base 17.0.15+6 g1 1g default gc_threads=1 cpus=0: ran all 30 rounds: 95% interval [801.0, 870.2] ms, ±5.8%, wider than ±2%
        ");
    }

    #[test]
    fn markdown_with_axes_and_stops() {
        insta::assert_snapshot!(render(&axes_sample(), Format::Markdown), @"
        ### 6.18.0-base

        | jdk | gc | heap | variant | runs | without (min-max) | with (min-max) | pretouch |
        |---|---|---|---|---:|---:|---:|---:|
        | 17.0.15+6 | g1 | 1g | default | 10+10 | 48.2 (46.2-51.2) | 431.5 (426.5-451.5) | 383.2 |
        | 17.0.15+6 | g1 | 1g | default gc_threads=1 cpus=0 app=com.example.Main | 10+10 | 48.2 (46.2-51.2) | 900.0 (880.0-990.0) | 851.8 |

        Times in ms from exec to `main()`: median of the counted launches (min-max); pretouch = median(with) - median(without).

        - adaptive: 6.18.0-base 17.0.15+6 g1 1g default: stopped early after 5 of 30 rounds: 95% interval [380.1, 389.0] ms, ±1.5%, within ±2%
        - adaptive: 6.18.0-base 17.0.15+6 g1 1g default gc_threads=1 cpus=0: ran all 30 rounds: 95% interval [801.0, 870.2] ms, ±5.8%, wider than ±2%
        ");
    }

    #[test]
    fn a_cell_without_launches_on_one_side_is_not_failed() {
        let mut c = sample().cells[1].clone();
        assert_eq!(cost(&c), "FAILED");
        c.failed = 0;
        assert_eq!(cost(&c), "-");
    }

    #[test]
    fn text() {
        insta::assert_snapshot!(render(&sample(), Format::Text), @"
        label: 6.18.0-base
        jdk        gc        heap  variant              runs  without (min-max)       with (min-max)  pretouch
        17.0.15+6  g1        1g    default             10+10   48.2 (46.2-51.2)  431.5 (426.5-451.5)     383.2
        17.0.15+6  parallel  2g    default  10+0 (10 failed)   50.0 (48.0-53.0)                    -    FAILED

        Times in ms from exec to main(): median of the counted launches (min-max);
        runs = launches without+with pretouch; pretouch = median(with) - median(without).
        warning: 6.18.0-base 17.0.15+6 parallel 2g default: 10 launch(es) failed, first: exited with code 1 before main()
        warning: results/x.jsonl:7: unreadable line skipped (EOF while parsing)
        ");
    }

    #[test]
    fn markdown() {
        insta::assert_snapshot!(render(&sample(), Format::Markdown), @"
        ### 6.18.0-base

        | jdk | gc | heap | variant | runs | without (min-max) | with (min-max) | pretouch |
        |---|---|---|---|---:|---:|---:|---:|
        | 17.0.15+6 | g1 | 1g | default | 10+10 | 48.2 (46.2-51.2) | 431.5 (426.5-451.5) | 383.2 |
        | 17.0.15+6 | parallel | 2g | default | 10+0 (10 failed) | 50.0 (48.0-53.0) | - | FAILED |

        Times in ms from exec to `main()`: median of the counted launches (min-max); pretouch = median(with) - median(without).

        > warning: results/x.jsonl:7: unreadable line skipped (EOF while parsing)
        ");
    }

    #[test]
    fn csv() {
        insta::assert_snapshot!(render(&sample(), Format::Csv), @"
        label,jdk,gc,heap,variant,runs,runs_on,runs_off,failed,median_on_ms,min_on_ms,max_on_ms,median_off_ms,min_off_ms,max_off_ms,pretouch_ms,first_failure,gc_threads,cpus,app,exec_to_agent_off_ms,exec_to_agent_on_ms,agent_to_init_off_ms,agent_to_init_on_ms,init_to_main_off_ms,init_to_main_on_ms,pretouch_faults,expected_faults,fault_rate_per_s,ceiling_per_s,ceiling_pct,jvm_pretouch_ms,jvm_genesis_growth_ms,untouched,untouched_reason,untouched_launches
        6.18.0-base,17.0.15+6-Debian-1deb12u1,g1,1g,default,20,10,10,0,431.5,426.5,451.5,48.25,46.25,51.25,383.25,,auto,all,,,,,,,,,0,,,,,,0,,
        6.18.0-base,17.0.15+6-Debian-1deb12u1,parallel,2g,default,10,0,10,10,,,,50.0,48.0,53.0,,exited with code 1 before main(),auto,all,,,,,,,,,0,,,,,,0,,
        ");
    }

    #[test]
    fn json() {
        insta::assert_snapshot!(render(&sample(), Format::Json), @r#"
        {
          "cells": [
            {
              "label": "6.18.0-base",
              "jdk": "17.0.15+6-Debian-1deb12u1",
              "gc": "g1",
              "heap": "1g",
              "variant": "default",
              "runs": 20,
              "runs_on": 10,
              "runs_off": 10,
              "failed": 0,
              "median_on_ms": 431.5,
              "min_on_ms": 426.5,
              "max_on_ms": 451.5,
              "median_off_ms": 48.25,
              "min_off_ms": 46.25,
              "max_off_ms": 51.25,
              "pretouch_ms": 383.25,
              "first_failure": null,
              "gc_threads": "auto",
              "cpus": "all",
              "app": null,
              "exec_to_agent_off_ms": null,
              "exec_to_agent_on_ms": null,
              "agent_to_init_off_ms": null,
              "agent_to_init_on_ms": null,
              "init_to_main_off_ms": null,
              "init_to_main_on_ms": null,
              "pretouch_faults": null,
              "expected_faults": 0,
              "fault_rate_per_s": null,
              "ceiling_per_s": null,
              "ceiling_pct": null,
              "jvm_pretouch_ms": null,
              "jvm_genesis_growth_ms": null,
              "untouched": 0,
              "untouched_reason": null,
              "untouched_launches": ""
            },
            {
              "label": "6.18.0-base",
              "jdk": "17.0.15+6-Debian-1deb12u1",
              "gc": "parallel",
              "heap": "2g",
              "variant": "default",
              "runs": 10,
              "runs_on": 0,
              "runs_off": 10,
              "failed": 10,
              "median_on_ms": null,
              "min_on_ms": null,
              "max_on_ms": null,
              "median_off_ms": 50.0,
              "min_off_ms": 48.0,
              "max_off_ms": 53.0,
              "pretouch_ms": null,
              "first_failure": "exited with code 1 before main()",
              "gc_threads": "auto",
              "cpus": "all",
              "app": null,
              "exec_to_agent_off_ms": null,
              "exec_to_agent_on_ms": null,
              "agent_to_init_off_ms": null,
              "agent_to_init_on_ms": null,
              "init_to_main_off_ms": null,
              "init_to_main_on_ms": null,
              "pretouch_faults": null,
              "expected_faults": 0,
              "fault_rate_per_s": null,
              "ceiling_per_s": null,
              "ceiling_pct": null,
              "jvm_pretouch_ms": null,
              "jvm_genesis_growth_ms": null,
              "untouched": 0,
              "untouched_reason": null,
              "untouched_launches": ""
            }
          ],
          "labels": [
            "6.18.0-base"
          ],
          "warnings": [
            "results/x.jsonl:7: unreadable line skipped (EOF while parsing)"
          ],
          "env_differences": []
        }
        "#);
    }
}
