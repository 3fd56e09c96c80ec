//! Stage 6: what disturbed the launches, as notes under the tables: the likely cause of
//! each outlier, the cells whose launches the machine disturbed, and what the machine
//! was (free page reporting on a VM). Computed in `analyze/disturbance.rs`.

use crate::analyze::report::{CellReport, Report};
use crate::render::common::cell_name;

/// One note per outlier with its likely cause, one per disturbed cell, then the
/// machine notes.
pub(crate) fn notes(report: &Report) -> Vec<String> {
    let cells: Vec<&CellReport> = report.cells.iter().collect();
    let mut out = cell_notes(&cells);
    out.extend(report.machine_notes.iter().cloned());
    out
}

/// One note per outlier with its likely cause, one per disturbed cell.
pub(crate) fn cell_notes(cells: &[&CellReport]) -> Vec<String> {
    let mut out = Vec::new();
    for c in cells {
        for line in &c.outlier_lines {
            out.push(format!("outlier: {}: {line}", cell_name(c)));
        }
    }
    for c in cells {
        if c.disturbed > 0 {
            out.push(format!(
                "disturbed: {}: {} of {} launches ({})",
                cell_name(c),
                c.disturbed,
                c.runs,
                c.disturbances
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outliers_and_disturbed_cells_are_named() {
        let mut c = CellReport {
            label: "base".into(),
            jdk: "25.0.3+9".into(),
            gc: "g1".into(),
            heap: "2g".into(),
            variant: "thp".into(),
            gc_threads: "auto".into(),
            cpus: "all".into(),
            runs: 20,
            ..CellReport::default()
        };
        c.outlier_lines = vec![
            "round 0 with pretouch 2437 ms, median 160: idle 20 s before: memory returned to host (1960 MiB reported)".into(),
        ];
        c.disturbed = 3;
        c.disturbances = "memory returned to host 2, other processes 1".into();
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
                "disturbed: base 25.0.3+9 g1 2g thp: 3 of 20 launches (memory returned to host 2, other processes 1)",
                "machine: base ran on a VM",
            ]
        );
    }
}
