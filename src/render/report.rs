//! Stage 6: finished reports turned into bytes: text for the terminal and email,
//! Markdown, CSV and JSON. Exporters compute nothing.

use crate::analyze::heap::HeapColumns;
use std::fmt::Write as _;

use crate::analyze::report::{CellReport, Report};
use crate::render::common::{
    CellNames, KEY_HEADERS, cost, cost_ci, cost_range, failure_warnings, failure_warnings_named,
    interval_basis_note, iqr, key_columns, key_refs, key_values, ms, outlier_note,
    run_to_run_notes, spread, stop_lines,
};
use crate::render::csv_row::columns;
use crate::render::table::{self, Column, Note, Shown, Table};

fn by_label(report: &Report) -> Vec<(&str, Vec<&CellReport>)> {
    report
        .labels
        .iter()
        .map(|l| {
            (
                l.as_str(),
                report.cells.iter().filter(|c| c.id.label == *l).collect(),
            )
        })
        .collect()
}

fn label_line(report: &Report, label: &str) -> String {
    match label_machine(report, label) {
        Some(machine) => format!("label: {label} ({machine})"),
        None => format!("label: {label}"),
    }
}

/// The machine a label ran on, `host vm, kernel 6.18.0, AMD EPYC 9B14`, where the
/// results say it. Text prints it beside the label and Markdown under its title.
fn label_machine(report: &Report, label: &str) -> Option<String> {
    let i = report.label_info.iter().find(|i| i.label == label)?;
    Some(format!(
        "host {}, kernel {}, {}",
        i.hostname, i.kernel_release, i.cpu_model
    ))
}

/// The legend under the single-label tables, said once: every column in words, a
/// sentence only where its case occurs.
fn single_legend(report: &Report) -> String {
    let cells = || report.cells.iter();
    let estimator = cells()
        .next()
        .map_or_else(Default::default, |c| c.cost.cost_estimator);
    let mut text = format!(
        "A round launches the JVM twice back to back, once with -XX:+AlwaysPreTouch and \
         once without. Its cost is the time from exec to main() with pretouch less the \
         time without. cost ms is the {} of a cell's rounds, and interval ms gives the ends of its 95% \
         interval.",
        estimator.name()
    );
    if cells().any(|c| c.cost.rounds > 0 && c.cost_interval().is_none()) {
        text += " none means under 10 rounds, so there is no interval.";
    }
    if cells().any(|c| c.cost.cost_ci_runs.is_some()) {
        text += " runs counts the result files the interval is over.";
    }
    text += " min-max ms and IQR ms give the spread of the per-round costs. outliers \
             counts the launches whose modified z-score is above 3.5.";
    if cells().any(|c| c.times.failed > 0) {
        text += " failed counts the failed launches, which are in no figure.";
    }
    if cells().any(|c| c.cost_interval().is_some() && c.cost.cost_ci_runs.is_none()) {
        text += " An interval from one run misses drift between runs. Three runs a \
                 label measure it, from --runs 3 with --kernel or --boot, or from three \
                 runs of pretouch run under one label, in turn with the other labels'.";
    }
    text + " docs/report.md says more."
}

/// One label's cells as text tables.
pub fn text(report: &Report) -> String {
    let mut out = String::new();
    let over_runs = report.cells.iter().any(|c| c.cost.cost_ci_runs.is_some());
    for (label, cells) in by_label(report) {
        let owned: Vec<[String; 4]> = cells.iter().map(|c| c.key()).collect();
        let keys: Vec<_> = owned.iter().map(key_refs).collect();
        let (cols, shared) = key_columns(&keys);
        out += &table::wrap(&label_line(report, label), 2);
        if let Some(shared) = shared {
            out += &table::wrap(&shared, 2);
        }
        let table = cells_table(&cells, over_runs);
        let shown: Vec<usize> = (cols.iter().copied())
            .chain(table.key..table.columns.len())
            .collect();
        out += &table.pick(&shown).text_keyed();
        out.push('\n');
    }
    let cells: Vec<&CellReport> = report.cells.iter().collect();
    let names = CellNames::of(report);
    out += &Note::Legend(single_legend(report)).text();
    let failures = failure_warnings_named(&cells, &|c| names.name(c));
    let remarks = remarks(report, failures);
    out +=
        &crate::render::disturbance::with_remarks(remarks, &cells, &names, &report.machine_notes);
    out
}

/// The remarks under one label's tables: the failed launches, the outliers, the cells
/// that stopped early, the warnings and the run-to-run checks.
fn remarks(report: &Report, failures: Vec<String>) -> Vec<String> {
    let mut notes = failures;
    notes.extend(outlier_note(
        report.cells.iter().map(|c| c.outliers).sum(),
        report.outliers_excluded,
    ));
    notes.extend(stop_lines(report).lines().map(str::to_owned));
    notes.extend(report.warnings.iter().map(|w| format!("warning: {w}")));
    notes.extend(run_to_run_notes(&report.run_to_run));
    notes
}

/// One label's cells, a row each: the launches, the times to main without and with
/// pretouch (Markdown), the cost with its interval and its spread, the outliers and the
/// failed launches. Text gives the interval's half-width a column of its own, the
/// runs it is over when any cell has them, and the failed launches where any failed.
fn cells_table(cells: &[&CellReport], over_runs: bool) -> Table {
    let wide = |c: Column| c.shown(Shown::Wide);
    let text = |c: Column| c.shown(Shown::Text);
    let failed = match cells.iter().any(|c| c.times.failed > 0) {
        true => Shown::Everywhere,
        false => Shown::Wide,
    };
    let mut columns: Vec<Column> = KEY_HEADERS.into_iter().map(Column::name).collect();
    columns.extend([
        Column::num("launches"),
        wide(Column::num("without (min-max)")),
        wide(Column::num("with (min-max)")),
        wide(Column::num("pretouch")),
        text(Column::num("cost ms")),
        text(Column::num("interval ms")),
        wide(Column::num("cost ms [95% interval]")),
    ]);
    if over_runs {
        columns.push(text(Column::num("runs")));
    }
    columns.extend([
        Column::num("min-max ms").wide_header("cost min-max"),
        Column::num("IQR ms").wide_header("cost IQR"),
        Column::num("outliers"),
        Column::num("failed").shown(failed),
    ]);
    Table::new(columns)
        .keyed(KEY_HEADERS.len())
        .with_rows(cells.iter().map(|c| {
            let mut row = key_values(key_refs(&c.key()), &[0, 1, 2, 3]);
            row.extend([
                format!(
                    "{}+{}",
                    table::whole(c.times.runs_off),
                    table::whole(c.times.runs_on)
                ),
                md_spread(
                    c.times.median_off_ms,
                    c.times.min_off_ms,
                    c.times.max_off_ms,
                ),
                md_spread(c.times.median_on_ms, c.times.min_on_ms, c.times.max_on_ms),
                cost(c),
                ms(c.cost.cost_ms),
                cost_range(c, "none"),
                cost_ci(c),
            ]);
            if over_runs {
                row.push(table::whole(c.cost.cost_ci_runs.unwrap_or(1)));
            }
            row.extend([
                spread(c.cost.cost_min_ms, c.cost.cost_max_ms),
                iqr(c),
                table::whole(c.outliers),
                table::whole(c.times.failed),
            ]);
            row
        }))
}

fn md_spread(median: Option<f64>, min: Option<f64>, max: Option<f64>) -> String {
    match median {
        Some(m) => format!("{} ({})", table::ms(m), spread(min, max)),
        None => "-".to_owned(),
    }
}

/// One label's cells as Markdown tables.
pub fn markdown(report: &Report) -> String {
    let mut out = String::new();
    for (label, cells) in by_label(report) {
        let _ = writeln!(out, "### {label}\n");
        if let Some(machine) = label_machine(report, label) {
            let _ = writeln!(out, "{machine}\n");
        }
        out += &cells_table(&cells, false).markdown();
        out.push('\n');
    }
    let estimator = report
        .cells
        .first()
        .map_or_else(Default::default, |c| c.cost.cost_estimator);
    let mut legend = format!(
        "Times are in ms from exec to `main()`, as the median of the counted launches with their range. pretouch is the median time with pretouch less the median without. A round's cost is the time with pretouch less the time without, and cost ms is the {} of the per-round costs. The brackets hold the ends of its 95% interval, order statistics of the rounds taken at the rounds their drift leaves. A cell under 10 rounds shows `few rounds`. cost min-max and IQR give the spread of the per-round costs. outliers counts the launches with a modified z-score above 3.5.",
        estimator.name()
    );
    legend += &interval_basis_note(report.cells.iter());
    let cells: Vec<&CellReport> = report.cells.iter().collect();
    let mut notes = vec![Note::Legend(legend)];
    let mut remarks = remarks(report, failure_warnings(&cells));
    remarks.extend(crate::render::disturbance::notes(report));
    notes.extend(remarks.into_iter().map(Note::Remark));
    // The last table ends with a blank line, and each note brings its own.
    out.pop();
    out += &table::notes_markdown(&notes);
    out
}

/// One label's cells, a CSV row each ([`cells_csv`]).
pub fn csv(report: &Report) -> String {
    let rows: Vec<(&CellReport, NoColumns)> =
        report.cells.iter().map(|c| (c, NoColumns {})).collect();
    cells_csv(&rows)
}

/// No columns beyond the cell's.
#[derive(serde::Serialize)]
pub(crate) struct NoColumns {}

/// The one CSV of cells: every figure of each cell's row ([`CellReport`]'s parts, so
/// that a new figure of a cell is a new column of every CSV), the heap's memory and the
/// pretouch method ([`HeapColumns`]), the features' columns of the cell when any cell
/// has them, such as a server's time to ready (empty for the others), the folios and
/// the features' figures of the backing when any cell has them, then `extra`'s columns
/// (the comparison's, with several labels). It is one table of the table model, written
/// once, and each millisecond is rounded as it is written.
pub(crate) fn cells_csv<E: serde::Serialize>(rows: &[(&CellReport, E)]) -> String {
    if rows.is_empty() {
        return String::new();
    }
    let parts = rows.iter().any(|(c, _)| !c.parts.is_empty());
    let backing = rows.iter().any(|(c, _)| {
        !c.faults.folios.is_empty() || c.faults.folio_fallbacks.is_some() || !c.backing.is_empty()
    });
    let rows: Vec<Vec<(String, String)>> = (rows.iter())
        .map(|(c, extra)| {
            // The row's own figures. The JSON nests the heap and method, the folios
            // and the features' figures, and they follow as flat columns.
            let mut row = columns(c);
            let heap = c.heap_and_method.as_ref().map(HeapColumns::of);
            row.extend(columns(&heap.unwrap_or_default()));
            if parts {
                row.extend(columns(&c.parts.columns()));
            }
            if backing {
                let f = &c.faults;
                let folios =
                    crate::analyze::explain::FolioColumns::of(&f.folios, f.folio_fallbacks);
                row.extend(columns(&(folios, c.backing.columns())));
            }
            row.extend(columns(extra));
            row
        })
        .collect();
    csv_table(rows).csv()
}

/// The rows' columns as one table. The columns are in the order the rows give them,
/// and a row without a column that others have, such as a feature's axis or where the
/// ceiling comes from, leaves it empty. A column a row gives twice keeps its last place,
/// as `folio_fallbacks` goes with the folios' columns. Each millisecond column (its
/// header ends in `_ms`) is rounded to the microsecond.
fn csv_table(rows: Vec<Vec<(String, String)>>) -> Table {
    let mut headers: Vec<String> = Vec::new();
    let rows: Vec<Vec<(String, String)>> = (rows.into_iter())
        .map(|row| {
            let mut once: Vec<(String, String)> = Vec::new();
            for (key, value) in row.into_iter().rev() {
                if !once.iter().any(|(k, _)| *k == key) {
                    once.push((key, value));
                }
            }
            once.reverse();
            once
        })
        .collect();
    for row in &rows {
        // A header new to the table goes before the next of the row's that the table
        // has, so a column some rows lack keeps its place among the others.
        for (i, (key, _)) in row.iter().enumerate().rev() {
            if headers.contains(key) {
                continue;
            }
            let next = row[i + 1..]
                .iter()
                .find_map(|(k, _)| headers.iter().position(|h| h == k));
            headers.insert(next.unwrap_or(headers.len()), key.clone());
        }
    }
    let mut table = Table::new(headers.iter().map(Column::name).collect());
    for row in &rows {
        table.push(headers.iter().map(|h| {
            let value = row
                .iter()
                .find(|(k, _)| k == h)
                .map_or("", |(_, v)| v.as_str());
            match value.parse::<f64>() {
                Ok(v) if h.ends_with("_ms") && value.contains('.') => microseconds(v),
                _ => value.to_owned(),
            }
        }));
    }
    table
}

/// `v` ms to the microsecond, trailing zeros dropped down to one decimal: `372.775`,
/// `53.9`, `562.0`. A timer's figure has no more to it, and the float noise of a mean
/// would read as precision, as `372.77499999999998` would.
fn microseconds(v: f64) -> String {
    let s = format!("{v:.3}");
    let s = s.trim_end_matches('0');
    if s.ends_with('.') {
        format!("{s}0")
    } else {
        s.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::{FakeCell, file, host, rounds};
    use crate::matrix::Gc;
    use crate::store::Results;

    fn sample() -> Report {
        let g1 = rounds(48.25, 431.5, true);
        let failed: Vec<(f64, f64)> = rounds(50.0, 0.0, false)
            .into_iter()
            .map(|(off, _)| (off, f64::NAN))
            .collect();
        let results = Results {
            files: vec![file(
                "6.18.0-base",
                "2026-11-30T07:00:00Z",
                host("vm"),
                &[
                    FakeCell {
                        gc: Gc::G1,
                        heap: "1g",
                        rounds: &g1,
                    },
                    FakeCell {
                        gc: Gc::Parallel,
                        heap: "2g",
                        rounds: &failed,
                    },
                ],
            )],
            warnings: vec!["results/x.jsonl:7: unreadable line skipped (EOF while parsing)".into()],
            ..Default::default()
        };
        crate::analyze::build(&results)
    }

    #[test]
    fn an_outlier_is_named_by_its_round_as_counted_after_the_warm_up() {
        // The slow launch is the 8th counted round, after one warm-up round, so the
        // file's round is 8 and the chart rings its 8th point.
        let g1 = rounds(48.25, 431.5, true);
        let mut f = file(
            "base",
            "2026-11-30T07:00:00Z",
            host("vm"),
            &[FakeCell {
                gc: Gc::G1,
                heap: "1g",
                rounds: &g1,
            }],
        );
        let mut warm = f.launches[..2].to_vec();
        for l in &mut warm {
            l.warmup = true;
        }
        for l in &mut f.launches {
            l.round += 1;
        }
        f.launches.splice(0..0, warm);
        let report = crate::analyze::build(&Results {
            files: vec![f],
            ..Default::default()
        });
        let cell = &report.cells[0];
        assert_eq!(cell.costs.iter().position(|c| c.outlier), Some(7));
        for (format, out) in [
            ("markdown", super::markdown(&report)),
            ("csv", super::csv(&report)),
            ("json", crate::render::json::render(&report, None)),
        ] {
            assert!(out.contains("round 8 with pretouch"), "{format}: {out}");
            assert!(!out.contains("round 9 with pretouch"), "{format}: {out}");
        }
        // The text's table of outliers gives the same round.
        let text = super::text(&report);
        let row = text
            .lines()
            .find(|l| l.starts_with("g1 1g") && l.contains(" with "))
            .map(|l| l.split_whitespace().collect::<Vec<_>>());
        assert_eq!(row.as_ref().map(|r| r[2]), Some("8"), "{text}");
    }

    /// Cells on the new axes (GC threads, CPU sets, an application) under adaptive
    /// repetitions.
    fn axes_sample() -> Report {
        let mut report = sample();
        report.warnings.clear();
        report.cells.truncate(1);
        let mut one = report.cells[0].clone();
        one.axes.gc_threads = "1".into();
        one.axes.cpus = "0".into();
        one.axes.app = Some("com.example.Main".into());
        one.times.median_on_ms = Some(900.0);
        one.times.min_on_ms = Some(880.0);
        one.times.max_on_ms = Some(990.0);
        one.times.pretouch_ms = Some(900.0 - 48.25);
        report.cells.push(one);
        let stop = |cell: &CellReport, rounds, reason: &str, lo, hi, pct| {
            crate::analyze::report::LabelledStop {
                label: cell.id.label.clone(),
                stop: crate::store::CellStop {
                    cell: crate::store::CellKey {
                        jdk: cell.id.jdk.as_str().into(),
                        gc: crate::matrix::Gc::G1,
                        heap: cell.id.heap.as_str().into(),
                        variant: cell.id.variant.as_str().into(),
                        gc_threads: cell.axes.gc_threads.as_str().into(),
                        cpus: cell.axes.cpus.as_str().into(),
                        app: cell.axes.app.clone(),
                        features: cell.axes.features.clone(),
                    },
                    rounds,
                    max_rounds: 30,
                    target_pct: Some(2.0),
                    target_ms: None,
                    reason: reason.into(),
                    cost_ms: cell.times.pretouch_ms,
                    ci_low_ms: Some(lo),
                    ci_high_ms: Some(hi),
                    ci_half_width_pct: Some(pct),
                    ci_batches: Some(2),
                    looks: None,
                },
            }
        };
        report.stops = vec![
            stop(&report.cells[0], 5, "converged", 380.1, 389.0, 1.5),
            stop(&report.cells[1], 30, "max_reached", 801.0, 870.2, 5.8),
        ];
        report
    }

    /// A run checked at planned looks: each stop line names its looks and their level,
    /// and the note says the interval it stopped on holds 95%; the old note is not shown.
    #[test]
    fn stops_at_planned_looks_name_them() {
        let mut report = axes_sample();
        for s in &mut report.stops {
            s.stop.rounds = 20;
            s.stop.looks = Some(3);
        }
        let out = super::text(&report);
        assert!(table::width(&out) <= table::WIDTH, "{out}");
        let out = out.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            out.contains("stopped early after 20 of 30 rounds: 95% interval [380.1, 389.0] ms, +-1.5% (each of 3 looks at 98.33%), within +-2%"),
            "{out}"
        );
        assert!(
            out.contains("So the interval it stopped on holds 95%"),
            "{out}"
        );
        assert!(!out.contains("written before the planned looks"), "{out}");
    }

    #[test]
    fn text_with_axes_and_stops() {
        let out = super::text(&axes_sample());
        assert!(table::width(&out) <= table::WIDTH, "{out}");
        insta::assert_snapshot!(out, @"
        label: 6.18.0-base (host vm, kernel 6.18.0, AMD EPYC 9B14)
        jdk 17.0.15+6
          launches  cost ms  interval ms  min-max ms  IQR ms  outliers
        g1 1g default
             10+10      386   [379, 395]    376-1241    11.8         1
        g1 1g default gc_threads=1 cpus=0 app=com.example.Main
             10+10      386   [379, 395]    376-1241    11.8         1

        A round launches the JVM twice back to back, once with
        -XX:+AlwaysPreTouch and once without. Its cost is the time from exec to
        main() with pretouch less the time without. cost ms is the median of a
        cell's rounds, and interval ms gives the ends of its 95% interval.
        min-max ms and IQR ms give the spread of the per-round costs. outliers
        counts the launches whose modified z-score is above 3.5. An interval
        from one run misses drift between runs. Three runs a label measure it,
        from --runs 3 with --kernel or --boot, or from three runs of pretouch
        run under one label, in turn with the other labels'. docs/report.md says
        more.
        warning: 2 outlier launch(es), in every figure unless --exclude-outliers
        adaptive: 6.18.0-base 17.0.15+6 g1 1g default: stopped early after 5 of
          30 rounds: 95% interval [380.1, 389.0] ms, +-1.5%, within +-2%
        adaptive: 6.18.0-base 17.0.15+6 g1 1g default gc_threads=1 cpus=0: ran
          all 30 rounds: 95% interval [801.0, 870.2] ms, +-5.8%, wider than +-2%
        adaptive: this file was written before the planned looks, so a cell's
          interval at the round it stopped on holds the cost less often than
          95%. docs/statistics.md's simulation found 77-88%. For a 95% interval,
          run a fixed count of rounds
        outlier                                                 round  pretouch
          ms  median  likely cause
        g1 1g default                                               8  with
          1288     435  no machine counters (older file)
        g1 1g default gc_threads=1 cpus=0 app=com.example.Main      8  with
          1288     435  no machine counters (older file)
        ");
    }

    #[test]
    fn markdown_with_axes_and_stops() {
        insta::assert_snapshot!(super::markdown(&axes_sample()), @"
        ### 6.18.0-base

        host vm, kernel 6.18.0, AMD EPYC 9B14

        | jdk | gc | heap | variant | launches | without (min-max) | with (min-max) | pretouch | cost ms [95% interval] | cost min-max | cost IQR | outliers | failed |
        |---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|
        | 17.0.15+6 | g1 | 1g | default | 10+10 | 48.4 (47.2-49.8) | 435 (423-1288) | 386 | 386 [379, 395] | 376-1241 | 11.8 | 1 | 0 |
        | 17.0.15+6 | g1 | 1g | default gc_threads=1 cpus=0 app=com.example.Main | 10+10 | 48.4 (47.2-49.8) | 900 (880-990) | 852 | 386 [379, 395] | 376-1241 | 11.8 | 1 | 0 |

        Times are in ms from exec to `main()`, as the median of the counted launches with their range. pretouch is the median time with pretouch less the median without. A round's cost is the time with pretouch less the time without, and cost ms is the median of the per-round costs. The brackets hold the ends of its 95% interval, order statistics of the rounds taken at the rounds their drift leaves. A cell under 10 rounds shows `few rounds`. cost min-max and IQR give the spread of the per-round costs. outliers counts the launches with a modified z-score above 3.5. An interval from one run's rounds does not see the machine move between runs. A label of three runs or more, run in turn with the others, gets one over its runs that does, as `run --kernel ... --runs 3` makes in VMs and `--boot` across reboots, or as three runs of `pretouch run` under one label make. docs/statistics.md explains it.

        > warning: 2 outlier launch(es), in every figure unless --exclude-outliers

        > adaptive: 6.18.0-base 17.0.15+6 g1 1g default: stopped early after 5 of 30 rounds: 95% interval [380.1, 389.0] ms, +-1.5%, within +-2%

        > adaptive: 6.18.0-base 17.0.15+6 g1 1g default gc_threads=1 cpus=0: ran all 30 rounds: 95% interval [801.0, 870.2] ms, +-5.8%, wider than +-2%

        > adaptive: this file was written before the planned looks, so a cell's interval at the round it stopped on holds the cost less often than 95%. docs/statistics.md's simulation found 77-88%. For a 95% interval, run a fixed count of rounds

        > outlier: 6.18.0-base 17.0.15+6 g1 1g default: round 8 with pretouch 1288 ms, median 435: no machine counters recorded (file written before they were)

        > outlier: 6.18.0-base 17.0.15+6 g1 1g default gc_threads=1 cpus=0 app=com.example.Main: round 8 with pretouch 1288 ms, median 435: no machine counters recorded (file written before they were)
        ");
    }

    #[test]
    fn a_cell_without_launches_on_one_side_is_not_failed() {
        let mut c = sample().cells[1].clone();
        assert_eq!(cost(&c), "FAILED");
        c.times.failed = 0;
        assert_eq!(cost(&c), "-");
    }

    #[test]
    fn text() {
        let out = super::text(&sample());
        assert!(table::width(&out) <= table::WIDTH);
        insta::assert_snapshot!(out, @"
        label: 6.18.0-base (host vm, kernel 6.18.0, AMD EPYC 9B14)
        jdk 17.0.15+6, variant default
          launches  cost ms  interval ms  min-max ms  IQR ms  outliers  failed
        g1 1g
             10+10      386   [379, 395]    376-1241    11.8         1       0
        parallel 2g
              10+0        -            -           -       -         0      10

        A round launches the JVM twice back to back, once with
        -XX:+AlwaysPreTouch and once without. Its cost is the time from exec to
        main() with pretouch less the time without. cost ms is the median of a
        cell's rounds, and interval ms gives the ends of its 95% interval.
        min-max ms and IQR ms give the spread of the per-round costs. outliers
        counts the launches whose modified z-score is above 3.5. failed counts
        the failed launches, which are in no figure. An interval from one run
        misses drift between runs. Three runs a label measure it, from --runs 3
        with --kernel or --boot, or from three runs of pretouch run under one
        label, in turn with the other labels'. docs/report.md says more.
        warning: parallel 2g: 10 launch(es) failed, first: exited with code 1
          before main()
        warning: 1 outlier launch(es), in every figure unless --exclude-outliers
        warning: results/x.jsonl:7: unreadable line skipped (EOF while parsing)
        outlier  round  pretouch    ms  median  likely cause
        g1 1g        8  with      1288     435  no machine counters (older file)
        ");
    }

    #[test]
    fn an_interval_over_runs_says_so_in_text_and_markdown() {
        let mut report = sample();
        let flat = |out: &str| out.split_whitespace().collect::<Vec<_>>().join(" ");
        let one_run = "An interval from one run's rounds does not see the machine move";
        let text_one_run = "An interval from one run misses drift between runs";
        let plain = super::text(&report);
        assert!(!plain.contains("runs counts"), "{plain}");
        assert!(flat(&plain).contains(text_one_run), "{plain}");
        assert!(flat(&super::markdown(&report)).contains(one_run));
        // The sample's one cell with an interval, now over 3 runs: the note says so,
        // and no longer the one-run sentence.
        report.cells[0].cost.cost_ci_runs = Some(3);
        report.cells[0].cost.cost_ci_batches = None;
        let plain = super::text(&report);
        let header = plain.lines().find(|l| l.contains("launches")).unwrap();
        assert!(header.contains(" runs "), "{plain}");
        assert!(
            flat(&plain).contains("runs counts the result files the interval is over"),
            "{plain}"
        );
        assert!(!flat(&plain).contains(text_one_run), "{plain}");
        let md = super::markdown(&report);
        assert!(md.contains("386 [") && md.contains(" (3 runs) |"), "{md}");
        assert!(
            flat(&md).contains("(N runs) means that the label ran the cell N times"),
            "{md}"
        );
        assert!(!flat(&md).contains(one_run), "{md}");
    }

    #[test]
    fn text_with_outliers_excluded() {
        let mut report = sample();
        report.outliers_excluded = true;
        let out = super::text(&report);
        assert!(out.contains("--exclude-outliers was given"), "{out}");
    }

    #[test]
    fn markdown() {
        insta::assert_snapshot!(super::markdown(&sample()), @"
        ### 6.18.0-base

        host vm, kernel 6.18.0, AMD EPYC 9B14

        | jdk | gc | heap | variant | launches | without (min-max) | with (min-max) | pretouch | cost ms [95% interval] | cost min-max | cost IQR | outliers | failed |
        |---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|
        | 17.0.15+6 | g1 | 1g | default | 10+10 | 48.4 (47.2-49.8) | 435 (423-1288) | 386 | 386 [379, 395] | 376-1241 | 11.8 | 1 | 0 |
        | 17.0.15+6 | parallel | 2g | default | 10+0 | 50.1 (49.0-51.5) | - | FAILED | - | - | - | 0 | 10 |

        Times are in ms from exec to `main()`, as the median of the counted launches with their range. pretouch is the median time with pretouch less the median without. A round's cost is the time with pretouch less the time without, and cost ms is the median of the per-round costs. The brackets hold the ends of its 95% interval, order statistics of the rounds taken at the rounds their drift leaves. A cell under 10 rounds shows `few rounds`. cost min-max and IQR give the spread of the per-round costs. outliers counts the launches with a modified z-score above 3.5. An interval from one run's rounds does not see the machine move between runs. A label of three runs or more, run in turn with the others, gets one over its runs that does, as `run --kernel ... --runs 3` makes in VMs and `--boot` across reboots, or as three runs of `pretouch run` under one label make. docs/statistics.md explains it.

        > warning: 6.18.0-base 17.0.15+6 parallel 2g default: 10 launch(es) failed, first: exited with code 1 before main()

        > warning: 1 outlier launch(es), in every figure unless --exclude-outliers

        > warning: results/x.jsonl:7: unreadable line skipped (EOF while parsing)

        > outlier: 6.18.0-base 17.0.15+6 g1 1g default: round 8 with pretouch 1288 ms, median 435: no machine counters recorded (file written before they were)
        ");
    }

    #[test]
    fn csv() {
        insta::assert_snapshot!(super::csv(&sample()), @r#"
        label,jdk,gc,heap,variant,launches,launches_on,launches_off,failed,median_on_ms,min_on_ms,max_on_ms,median_off_ms,min_off_ms,max_off_ms,pretouch_ms,first_failure,gc_threads,cpus,app,exec_to_agent_off_ms,exec_to_agent_on_ms,agent_to_init_off_ms,agent_to_init_on_ms,init_to_main_off_ms,init_to_main_on_ms,pretouch_faults,expected_faults,expected_folio_bytes,expected_faults_4k,fault_rate_per_s,ceiling_per_s,ceiling_pct,jvm_pretouch_ms,jvm_genesis_growth_ms,untouched,untouched_reason,untouched_launches,rounds,cost_min_ms,cost_q1_ms,cost_median_ms,cost_q3_ms,cost_max_ms,cost_tmean_ms,cost_estimator,cost_ms,cost_ci_low_ms,cost_ci_high_ms,cost_ci_batches,cost_ci_runs,cost_ci_looks,outliers,disturbed,disturbances,outlier_causes,peak_rss_off_mib,peak_rss_on_mib,heap_memory,heap_views,heap_page_size_bytes,heap_huge_bytes,heap_resident_bytes,pretouch_method,method_source,method_bugs,method_notes,method_check,method_check_detail,pretouch_logging
        6.18.0-base,17.0.15+6-Debian-1deb12u1,g1,1g,default,20,10,10,0,434.736,422.87,1288.027,48.375,47.25,49.75,386.361,,auto,all,,,,,,,,,262144,4096,,,,,,,0,,,10,375.62,381.184,386.111,392.946,1240.527,386.429,median,386.111,379.435,394.695,10,,,1,0,,"round 8 with pretouch 1288 ms, median 435: no machine counters recorded (file written before they were)",,,,,,,,store,"JDK 17, before JDK 18",JDK-8272807,,,,running-pre-touch-lines
        6.18.0-base,17.0.15+6-Debian-1deb12u1,parallel,2g,default,10,0,10,10,,,,50.125,49.0,51.5,,exited with code 1 before main(),auto,all,,,,,,,,,262144,4096,,,,,,,0,,,0,,,,,,,median,,,,,,,0,0,,,,,,,,,,store,"JDK 17, before JDK 18",JDK-8272807 JDK-8324817,"Parallel GC could leave part of its heap untouched without THP `always` before JDK-8324817 (JDK 23, backported to 21u): the touched check says whether it did here",,,running-pre-touch-lines
        "#);
    }

    #[test]
    fn json() {
        insta::assert_snapshot!(crate::render::json::render(&sample(), None), @r#"
        {
          "schema": "pretouch-report",
          "schema_version": 1,
          "cells": [
            {
              "label": "6.18.0-base",
              "jdk": "17.0.15+6-Debian-1deb12u1",
              "gc": "g1",
              "heap": "1g",
              "variant": "default",
              "launches": 20,
              "launches_on": 10,
              "launches_off": 10,
              "failed": 0,
              "median_on_ms": 434.73625000000004,
              "min_on_ms": 422.87,
              "max_on_ms": 1288.0275,
              "median_off_ms": 48.375,
              "min_off_ms": 47.25,
              "max_off_ms": 49.75,
              "pretouch_ms": 386.36125000000004,
              "first_failure": null,
              "gc_threads": "auto",
              "cpus": "all",
              "app": null,
              "heap_and_method": {
                "memory": null,
                "method": {
                  "method": "store",
                  "source": "JDK 17, before JDK 18",
                  "bugs": [
                    "JDK-8272807"
                  ],
                  "notes": []
                },
                "check": null,
                "logging": "running-pre-touch-lines",
                "missing_log_line": "g1 logs `Running ... PreTouch` lines under gc+heap=debug, and these logs had none"
              },
              "exec_to_agent_off_ms": null,
              "exec_to_agent_on_ms": null,
              "agent_to_init_off_ms": null,
              "agent_to_init_on_ms": null,
              "init_to_main_off_ms": null,
              "init_to_main_on_ms": null,
              "pretouch_faults": null,
              "expected_faults": 262144,
              "expected_folio_bytes": 4096,
              "expected_faults_4k": null,
              "fault_rate_per_s": null,
              "ceiling_per_s": null,
              "ceiling_pct": null,
              "jvm_pretouch_ms": null,
              "jvm_genesis_growth_ms": null,
              "untouched": 0,
              "untouched_reason": null,
              "untouched_launches": "",
              "rounds": 10,
              "cost_min_ms": 375.62,
              "cost_q1_ms": 381.18354166666666,
              "cost_median_ms": 386.11125000000004,
              "cost_q3_ms": 392.94645833333334,
              "cost_max_ms": 1240.5275,
              "cost_tmean_ms": 386.42916666666673,
              "cost_estimator": "median",
              "cost_ms": 386.11125000000004,
              "cost_ci_low_ms": 379.435,
              "cost_ci_high_ms": 394.695,
              "cost_ci_batches": 10,
              "cost_ci_runs": null,
              "cost_ci_looks": null,
              "outliers": 1,
              "disturbed": 0,
              "disturbances": "",
              "outlier_causes": "round 8 with pretouch 1288 ms, median 435: no machine counters recorded (file written before they were)",
              "peak_rss_off_mib": null,
              "peak_rss_on_mib": null
            },
            {
              "label": "6.18.0-base",
              "jdk": "17.0.15+6-Debian-1deb12u1",
              "gc": "parallel",
              "heap": "2g",
              "variant": "default",
              "launches": 10,
              "launches_on": 0,
              "launches_off": 10,
              "failed": 10,
              "median_on_ms": null,
              "min_on_ms": null,
              "max_on_ms": null,
              "median_off_ms": 50.125,
              "min_off_ms": 49.0,
              "max_off_ms": 51.5,
              "pretouch_ms": null,
              "first_failure": "exited with code 1 before main()",
              "gc_threads": "auto",
              "cpus": "all",
              "app": null,
              "heap_and_method": {
                "memory": null,
                "method": {
                  "method": "store",
                  "source": "JDK 17, before JDK 18",
                  "bugs": [
                    "JDK-8272807",
                    "JDK-8324817"
                  ],
                  "notes": [
                    "Parallel GC could leave part of its heap untouched without THP `always` before JDK-8324817 (JDK 23, backported to 21u): the touched check says whether it did here"
                  ]
                },
                "check": null,
                "logging": "running-pre-touch-lines",
                "missing_log_line": "parallel logs `Running ... PreTouch` lines under gc+heap=debug, and these logs had none"
              },
              "exec_to_agent_off_ms": null,
              "exec_to_agent_on_ms": null,
              "agent_to_init_off_ms": null,
              "agent_to_init_on_ms": null,
              "init_to_main_off_ms": null,
              "init_to_main_on_ms": null,
              "pretouch_faults": null,
              "expected_faults": 262144,
              "expected_folio_bytes": 4096,
              "expected_faults_4k": null,
              "fault_rate_per_s": null,
              "ceiling_per_s": null,
              "ceiling_pct": null,
              "jvm_pretouch_ms": null,
              "jvm_genesis_growth_ms": null,
              "untouched": 0,
              "untouched_reason": null,
              "untouched_launches": "",
              "rounds": 0,
              "cost_min_ms": null,
              "cost_q1_ms": null,
              "cost_median_ms": null,
              "cost_q3_ms": null,
              "cost_max_ms": null,
              "cost_tmean_ms": null,
              "cost_estimator": "median",
              "cost_ms": null,
              "cost_ci_low_ms": null,
              "cost_ci_high_ms": null,
              "cost_ci_batches": null,
              "cost_ci_runs": null,
              "cost_ci_looks": null,
              "outliers": 0,
              "disturbed": 0,
              "disturbances": "",
              "outlier_causes": "",
              "peak_rss_off_mib": null,
              "peak_rss_on_mib": null
            }
          ],
          "labels": [
            "6.18.0-base"
          ],
          "env_differences": [],
          "outliers_excluded": false,
          "label_info": [
            {
              "label": "6.18.0-base",
              "hostname": "vm",
              "cpu_model": "AMD EPYC 9B14",
              "kernel_release": "6.18.0",
              "oldest_run": "2026-11-30T07:00:00Z",
              "files": 1,
              "matrices": 1
            }
          ],
          "warnings": [
            "6.18.0-base 17.0.15+6 parallel 2g default: 10 launch(es) failed, first: exited with code 1 before main()",
            "1 outlier launch(es), in every figure unless --exclude-outliers",
            "results/x.jsonl:7: unreadable line skipped (EOF while parsing)"
          ]
        }
        "#);
    }
}
