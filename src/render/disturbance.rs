//! Stage 6: what disturbed the launches, as notes under the tables: the likely cause of
//! each outlier, the cells whose launches the machine disturbed, and what the machine
//! was (free page reporting on a VM). Computed in `analyze/disturbance.rs`.

use crate::analyze::disturbance::NO_COUNTERS;
use crate::analyze::outliers::{OutlierSummary, WORST};
use crate::analyze::report::{CellReport, Report};
use crate::render::common::{CellNames, cell_name};
use crate::render::table::{self, Column, Note, Table};

/// A report with more outlier lines than this summarizes the outliers of each cell
/// with more than [`WORST`] of them (how many, their causes, the worst [`WORST`]);
/// the CSV and JSON keep every one (`outlier_causes`).
pub(crate) const OUTLIER_LINES_MAX: usize = 10;

/// One note per outlier with its likely cause, one per disturbed cell, then the
/// machine notes.
pub(crate) fn notes(report: &Report) -> Vec<String> {
    let cells: Vec<&CellReport> = report.cells.iter().collect();
    let mut out = cell_notes(&cells);
    out.extend(report.machine_notes.iter().cloned());
    out
}

/// One note per outlier with its likely cause (a summary per cell when the report
/// has more than [`OUTLIER_LINES_MAX`]), one per disturbed cell.
pub(crate) fn cell_notes(cells: &[&CellReport]) -> Vec<String> {
    named_notes(cells, &|c| cell_name(c))
}

/// The remarks under the cells' tables for the terminal and email: `remarks` first, then
/// the outliers and the disturbed launches ([`text`]), then `machine_notes`, the notes
/// on the machine the runs ran on.
pub(crate) fn with_remarks(
    remarks: Vec<String>,
    cells: &[&CellReport],
    names: &CellNames,
    machine_notes: &[String],
) -> String {
    let mut out = table::remarks_text(remarks);
    out += &text(cells, names);
    out += &table::remarks_text(machine_notes);
    out
}

/// The outliers of `cells` as a table for the terminal and email, a row each with its
/// likely cause, and the note on disturbed cells, each cell named by `names`; the
/// summary of [`cell_notes`] instead of the table when the report has more than
/// [`OUTLIER_LINES_MAX`] outliers.
pub(crate) fn text(cells: &[&CellReport], names: &CellNames) -> String {
    let total: usize = cells.iter().map(|c| c.machine.outlier_lines.len()).sum();
    let as_table = total <= OUTLIER_LINES_MAX
        && cells
            .iter()
            .all(|c| c.machine.outlier_launches.len() == c.machine.outlier_lines.len());
    if !as_table {
        return table::remarks_text(named_notes(cells, &|c| names.name(c)));
    }
    let columns = vec![
        Column::name("outlier"),
        Column::num("round"),
        Column::name("pretouch"),
        Column::num("ms"),
        Column::num("median"),
    ];
    let mut rows = Table::new(columns);
    let mut causes = Vec::new();
    for c in cells {
        for (o, line) in c
            .machine
            .outlier_launches
            .iter()
            .zip(&c.machine.outlier_lines)
        {
            rows.push([
                names.name(c),
                // As counted, from 1, as every format and the chart number rounds.
                table::whole(o.round),
                if o.pretouch { "with" } else { "without" }.to_owned(),
                table::whole_ms(o.ms),
                o.median_ms.map_or_else(|| "-".to_owned(), table::whole_ms),
            ]);
            // The cause as the line words it (what follows `round R ... ms, median M: `),
            // shorter where no counter was recorded.
            causes.push(if o.kinds.iter().any(|k| k == NO_COUNTERS) {
                "no machine counters (older file)"
            } else {
                line.split_once(": ").map_or(line.as_str(), |(_, why)| why)
            });
        }
    }
    let mut out = String::new();
    if !rows.rows.is_empty() {
        let rendered = rows.text(0);
        let w = table::width(&rendered);
        // A cause too long for its column goes on below, indented as every note is.
        let indent = if w + 2 <= table::WIDTH / 2 { w + 2 } else { 2 };
        for (i, line) in rendered.lines().enumerate() {
            let cause = if i == 0 {
                "likely cause"
            } else {
                causes[i - 1]
            };
            out += &table::wrap(&format!("{line:<w$}  {cause}"), indent);
        }
    }
    if let Some(n) = disturbed_note(cells, &|c| names.name(c)) {
        out += &Note::Remark(n).text();
    }
    out
}

/// [`cell_notes`], each cell named by `name`.
fn named_notes(cells: &[&CellReport], cell_name: &dyn Fn(&CellReport) -> String) -> Vec<String> {
    let mut out = Vec::new();
    let total: usize = cells.iter().map(|c| c.machine.outlier_lines.len()).sum();
    let mut summarized = 0;
    for c in cells {
        let condense = total > OUTLIER_LINES_MAX
            && c.machine.outlier_lines.len() > WORST
            && c.machine.outlier_launches.len() == c.machine.outlier_lines.len();
        if !condense {
            for line in &c.machine.outlier_lines {
                out.push(format!("outlier: {}: {line}", cell_name(c)));
            }
            continue;
        }
        summarized += c.machine.outlier_lines.len();
        let s = OutlierSummary::of(&c.machine.outlier_launches);
        let worst: Vec<&str> = s
            .worst
            .iter()
            .filter_map(|w| {
                let i = c.machine.outlier_launches.iter().position(|o| o == w)?;
                Some(c.machine.outlier_lines[i].as_str())
            })
            .collect();
        out.push(format!(
            "outliers: {}: {}; worst: {}",
            cell_name(c),
            s.headline(),
            worst.join("; ")
        ));
    }
    if summarized > 0 {
        out.push(format!(
            "note: this report has {total} outliers, more than {OUTLIER_LINES_MAX}. So those of cells with more than {WORST} are summarized, {summarized} of them. --format csv or json lists every one in outlier_causes."
        ));
    }
    out.extend(disturbed_note(cells, cell_name));
    out
}

/// One note for every disturbed cell: a line each would make the notes longer than
/// the tables.
fn disturbed_note(
    cells: &[&CellReport],
    cell_name: &dyn Fn(&CellReport) -> String,
) -> Option<String> {
    let disturbed: Vec<String> = cells
        .iter()
        .filter(|c| c.machine.disturbed > 0)
        .map(|c| {
            format!(
                "{} {} of {} ({})",
                cell_name(c),
                c.machine.disturbed,
                c.times.runs,
                c.machine.disturbances
            )
        })
        .collect();
    (!disturbed.is_empty()).then(|| format!("disturbed launches: {}", disturbed.join("; ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outliers_and_disturbed_cells_are_named() {
        let mut c = CellReport {
            id: crate::analyze::report::CellId {
                label: "base".into(),
                jdk: "25.0.3+9".into(),
                gc: "g1".into(),
                heap: "2g".into(),
                variant: "thp".into(),
            },
            times: crate::analyze::report::CellTimes {
                runs: 20,
                ..Default::default()
            },
            axes: crate::analyze::report::CellAxes {
                gc_threads: "auto".into(),
                cpus: "all".into(),
                ..Default::default()
            },
            ..CellReport::default()
        };
        c.machine.outlier_lines = vec![
            "round 0 with pretouch 2437 ms, median 160: idle 20 s before: memory returned to host (1960 MiB reported)".into(),
        ];
        c.machine.disturbed = 3;
        c.machine.disturbances = "memory returned to host 2, other processes 1".into();
        let report = Report {
            cells: vec![c],
            labels: vec!["base".into()],
            warnings: vec![],
            env_differences: vec![],
            stops: vec![],
            outliers_excluded: false,
            label_info: vec![],
            run_to_run: vec![],
            machine_notes: vec!["machine: base ran on a VM".into()],
        };
        assert_eq!(
            notes(&report),
            [
                "outlier: base 25.0.3+9 g1 2g thp: round 0 with pretouch 2437 ms, median 160: idle 20 s before: memory returned to host (1960 MiB reported)",
                "disturbed launches: base 25.0.3+9 g1 2g thp 3 of 20 (memory returned to host 2, other processes 1)",
                "machine: base ran on a VM",
            ]
        );
    }

    fn cell_with_outliers(gc: &str, n: u32) -> CellReport {
        use crate::analyze::disturbance::OutlierLaunch;
        let mut c = CellReport {
            id: crate::analyze::report::CellId {
                label: "base".into(),
                jdk: "25.0.3+9".into(),
                gc: gc.into(),
                heap: "2g".into(),
                variant: "default".into(),
            },
            axes: crate::analyze::report::CellAxes {
                gc_threads: "auto".into(),
                cpus: "all".into(),
                ..Default::default()
            },
            ..CellReport::default()
        };
        for round in 0..n {
            // Round 2 is the worst (5 times its median), then round 1 (4 times).
            let ms = match round {
                1 => 2400.0,
                2 => 3000.0,
                _ => 900.0 + f64::from(round),
            };
            let kind = if round == 2 {
                "steal"
            } else {
                "other processes"
            };
            c.machine.outlier_lines.push(format!(
                "round {round} with pretouch {ms:.0} ms, median 600: {kind}"
            ));
            c.machine.outlier_launches.push(OutlierLaunch {
                round,
                pretouch: true,
                ms,
                median_ms: Some(600.0),
                causes: vec![kind.into()],
                kinds: vec![kind.into()],
            });
        }
        c
    }

    #[test]
    fn many_outliers_are_summarized_per_cell_and_few_listed() {
        let (many, few) = (cell_with_outliers("g1", 12), cell_with_outliers("zgc", 3));
        let notes = cell_notes(&[&many, &few]);
        assert_eq!(
            notes[0],
            "outliers: base 25.0.3+9 g1 2g default: 12 outliers (12 with pretouch): other processes 11, steal 1; worst: round 2 with pretouch 3000 ms, median 600: steal; round 1 with pretouch 2400 ms, median 600: other processes; round 11 with pretouch 911 ms, median 600: other processes"
        );
        // A cell with no more than WORST outliers keeps a line each.
        assert_eq!(notes[1..4].len(), WORST);
        assert!(
            notes[1..4]
                .iter()
                .all(|n| n.starts_with("outlier: base 25.0.3+9 zgc 2g default: round ")),
            "{notes:?}"
        );
        assert!(
            notes[4].contains("this report has 15 outliers"),
            "{notes:?}"
        );
        assert!(notes[4].contains("summarized, 12 of them"), "{notes:?}");
        assert_eq!(notes.len(), 5, "{notes:?}");

        // At the threshold nothing is summarized: 10 lines, one each.
        let (a, b) = (cell_with_outliers("g1", 6), cell_with_outliers("zgc", 4));
        let notes = cell_notes(&[&a, &b]);
        assert_eq!(notes.len(), OUTLIER_LINES_MAX, "{notes:?}");
        assert!(
            notes.iter().all(|n| n.starts_with("outlier: ")),
            "{notes:?}"
        );
        // One more and both cells with more than WORST are summarized.
        let a = cell_with_outliers("g1", 7);
        let notes = cell_notes(&[&a, &b]);
        assert_eq!(notes.len(), 3, "{notes:?}");
        assert!(notes[0].starts_with("outliers: base 25.0.3+9 g1 2g default: 7 outliers"));
        assert!(notes[1].starts_with("outliers: base 25.0.3+9 zgc 2g default: 4 outliers"));
    }
}
