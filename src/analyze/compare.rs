//! Stage 5: the comparison across labels (kernels). Rows of the report
//! ([`crate::analyze::report`]) with the same (JDK, GC, heap, variant) are set side by
//! side, one column per label, and each label's change against the baseline is given
//! with an interval whose marks hold for the whole column.
//!
//! The change shown is `cost(label) - cost(baseline)`, each cost being
//! median(with) - median(without) as in the single-label report; negative means less
//! startup time. Its interval is the drift-aware difference of the two labels'
//! per-round costs ([`crate::stats::interval::difference_interval`]: each side's
//! trimmed mean and batch-means standard error, combined as Welch's interval; for a
//! side whose run stopped at adaptive looks, the sum of the two sides' intervals over
//! their looks, [`crate::stats::interval::difference_interval_looks`]), which needs 10
//! rounds a side. A column's cells are one family: with `k` cells compared,
//! each cell's interval is at `1 - 0.05 / k` (Bonferroni, [`crate::stats::family`]), so
//! that where no cell differs the column carries any mark at most 5% of the time, as
//! the calibration table's columns do, for drift like the simulated development VM's
//! (not under the quiet machine's spells: `stats::family`'s tests, docs/statistics.md).
//! A change is marked when its interval excludes
//! zero. Cells that differ in anything but the label (machine, CPU model, the JVM flags
//! the matrix adds) are not compared, and the report says why.

use crate::analyze::labels::{self, count_run_to_run};
pub use crate::analyze::labels::{Change, Chosen, Interval, choose, letter};
use crate::analyze::options::Options;
use crate::analyze::report::CompareError;
use crate::analyze::report::{self, CellReport, LabelInfo, Report, RunToRun};
use crate::stats::change::{CellChange, change_with};
use crate::stats::family::{cell_level, geometric_mean};
use crate::stats::interval::{as_runs, look_level};
use crate::store::ResultFile;

/// Confidence that a column holds no false mark (each cell's interval is at
/// `1 - (1 - CONFIDENCE) / k` for the `k` cells the column compares).
pub const CONFIDENCE: f64 = 0.95;

/// The launches' cells side by side: a row per (JDK, GC, heap, variant with its axes,
/// [`CellReport::key`]), an entry per label with its [`CellReport`]. A change is
/// cost(label) - cost(baseline), ms; its interval the drift-aware difference of the
/// per-round costs at the column's level; `testable` whenever it has one.
pub type Comparison = labels::Comparison<[String; 4], LabelInfo, CellReport>;
pub type Column = labels::Column<LabelInfo>;
pub type Row = labels::Row<[String; 4], CellReport>;
pub type Entry = labels::Entry<CellReport>;

impl Comparison {
    /// The labels shown, in column order, the baseline among them.
    pub fn labels(&self) -> Vec<String> {
        self.columns.iter().map(|c| c.info.label.clone()).collect()
    }
}

/// The labels of `report` side by side against the baseline, as `options` chooses them
/// (its `labels` and `baseline`).
pub fn compare(report: &Report, options: &Options) -> Result<Comparison, CompareError> {
    let chosen = choose(
        &report.labels,
        options.labels.as_deref(),
        options.baseline.as_deref(),
    )?;
    Ok(compare_chosen(report, chosen))
}

/// [`compare`] of the labels already chosen ([`choose`]), as the report entry chooses
/// them once, before it reads the launches.
pub fn compare_chosen(report: &Report, chosen: Chosen) -> Comparison {
    let Chosen { labels, baseline } = chosen;
    let mut columns: Vec<Column> = labels
        .iter()
        .enumerate()
        .map(|(i, l)| {
            let info = report
                .label_info
                .iter()
                .find(|info| info.label == *l)
                .cloned()
                .expect("every label has its info");
            Column::new(i, l, &baseline, info)
        })
        .collect();
    let base_index = labels.iter().position(|l| *l == baseline).unwrap_or(0);
    let mut warnings = report.warnings.clone();
    let base_info = &columns[base_index].info;
    for c in &columns {
        if !c.baseline && c.info.matrix != base_info.matrix {
            warnings.push(format!(
                "label `{}` was run from another matrix than the baseline `{}`, so only cells with the same flags are compared",
                c.info.label, base_info.label
            ));
        }
    }

    // Rows in the order first met, label by label.
    let mut rows: Vec<Row> = Vec::new();
    for label in &labels {
        for cell in report.cells.iter().filter(|c| c.id.label == *label) {
            let key = cell.key();
            if !rows.iter().any(|r| r.key == key) {
                rows.push(Row {
                    key,
                    entries: Vec::new(),
                });
            }
        }
    }
    for row in &mut rows {
        let cells: Vec<Option<&CellReport>> = labels
            .iter()
            .map(|l| {
                report
                    .cells
                    .iter()
                    .find(|c| c.id.label == *l && c.key() == row.key)
            })
            .collect();
        let base = cells[base_index];
        row.entries = cells
            .iter()
            .zip(&columns)
            .map(|(cell, col)| {
                let cell = (*cell)?;
                let mut entry = Entry {
                    measured: cell.clone(),
                    change: None,
                    not_compared: None,
                };
                if col.baseline {
                    return Some(entry);
                }
                match base {
                    None => entry.not_compared = Some("the baseline has no such cell".into()),
                    Some(base) => match differs(base_info, base, &col.info, cell) {
                        Some(why) => entry.not_compared = Some(why),
                        None => {
                            entry.change = change(base, cell);
                            if entry.change.is_none() {
                                entry.not_compared =
                                    Some("a side has no launch pair that reached main()".into());
                            }
                        }
                    },
                }
                Some(entry)
            })
            .collect();
        let [jdk, gc, heap, variant] = &row.key;
        for (col, e) in columns.iter().zip(&row.entries) {
            if let Some(why) = e.as_ref().and_then(|e| e.not_compared.as_ref()) {
                warnings.push(format!(
                    "{} {gc} {heap} {variant}: `{}` not compared with `{baseline}`: {why}",
                    crate::machine::jdk::short_jdk(jdk),
                    col.label
                ));
            }
        }
    }
    mark(&mut columns, &mut rows);
    Comparison {
        columns,
        baseline,
        confidence: CONFIDENCE,
        outliers_excluded: report.outliers_excluded,
        rows,
        warnings,
        run_to_run: report
            .run_to_run
            .iter()
            .filter(|r| labels.contains(&r.label))
            .cloned()
            .collect(),
        env_differences: report.env_differences.clone(),
        machine_notes: report.machine_notes.clone(),
    }
}

/// What, besides the label, sets two cells apart; `None` when nothing does.
fn differs(
    a_info: &LabelInfo,
    a: &CellReport,
    b_info: &LabelInfo,
    b: &CellReport,
) -> Option<String> {
    if a_info.hostname != b_info.hostname {
        return Some(format!(
            "another machine (`{}`, not `{}`)",
            b_info.hostname, a_info.hostname
        ));
    }
    if a_info.cpu_model != b_info.cpu_model {
        return Some(format!("another CPU model (`{}`)", b_info.cpu_model));
    }
    match (&a.flags, &b.flags) {
        (Some(fa), Some(fb)) if fa == fb => None,
        (Some(fa), Some(fb)) => Some(format!(
            "other JVM flags (`{}`, not `{}`)",
            fb.join(" "),
            fa.join(" ")
        )),
        _ => Some("the stored matrix could not be read back to check the flags".into()),
    }
}

/// The change of the two cells' stated costs, before [`mark`] gives it the two-sample
/// change and its interval. A cell of under 10 rounds a side keeps this one, because it
/// gets no interval.
fn change(base: &CellReport, cell: &CellReport) -> Option<Change> {
    let (b, c) = (base.cost.cost_ms?, cell.cost.cost_ms?);
    Some(Change {
        delta: c - b,
        percent: (b > 0.0).then(|| 100.0 * (c - b) / b),
        interval: None,
        percent_interval: None,
        testable: false,
        significant: false,
    })
}

/// One compared cell of a column: its row, the label's and the baseline's per-round
/// costs by run ([`CellReport::run_costs`]), the times of their launches without
/// pretouch ([`CellReport::off_times`]), and the most looks either side's adaptive
/// stop planned.
struct Side {
    row: usize,
    x: Vec<Vec<f64>>,
    y: Vec<Vec<f64>>,
    control: [Vec<f64>; 2],
    looks: usize,
}

/// Each column's changes from both labels' rounds ([`crate::stats::change::change`]),
/// with their intervals at the column's level and their marks. A column of `k` cells
/// compared tests each at `1 - 0.05 / k` (Bonferroni), so that its marks hold together
/// at 95%. A side that stopped at the planned looks of adaptive repetitions raises its
/// cell's level once more, to `1 - (1 - level) / looks`, because its stop chose the
/// rounds it stopped on.
fn mark(columns: &mut [Column], rows: &mut [Row]) {
    let base = columns.iter().position(|c| c.baseline).unwrap_or(0);
    for (i, column) in columns.iter_mut().enumerate() {
        if i == base {
            continue;
        }
        // The compared cells of this column, with the row each is in and the most
        // looks either side's stop planned.
        let sides: Vec<Side> = rows
            .iter()
            .enumerate()
            .filter_map(|(r, row)| {
                let e = row.entries[i].as_ref().filter(|e| e.change.is_some())?;
                let b = row.entries[base].as_ref()?;
                let looks = [&e.measured, &b.measured]
                    .iter()
                    .filter_map(|c| c.cost.cost_ci_looks)
                    .max()
                    .unwrap_or(1) as usize;
                Some(Side {
                    row: r,
                    x: e.measured.run_costs(),
                    y: b.measured.run_costs(),
                    control: [e.measured.off_times(), b.measured.off_times()],
                    looks,
                })
            })
            .collect();
        let changes_at = |level: f64| -> Vec<Option<CellChange>> {
            sides
                .iter()
                .map(|s| {
                    let control = [s.control[0].as_slice(), s.control[1].as_slice()];
                    let at = look_level(level, s.looks);
                    change_with(&as_runs(&s.x), &as_runs(&s.y), Some(control), at)
                })
                .collect()
        };
        let k = changes_at(CONFIDENCE).iter().flatten().count();
        let level = cell_level(k, CONFIDENCE);
        column.compared = k;
        column.level = (k > 0).then_some(level);
        let own = changes_at(CONFIDENCE);
        for (side, c) in sides.iter().zip(changes_at(level)) {
            let entry = rows[side.row].entries[i].as_mut();
            let Some(change) = entry.and_then(|e| e.change.as_mut()) else {
                continue;
            };
            let Some(c) = c else { continue };
            let at = look_level(level, side.looks);
            change.delta = c.ms.estimate;
            change.interval = Some(Interval::of(c.ms, at));
            // The change in % is the ratio less one, so it never passes -100%.
            if let Some(q) = c.ratio {
                change.percent = Some(100.0 * (q.estimate - 1.0));
                change.percent_interval = Some(Interval::of(q, at).ratio_as_percent());
            } else {
                change.percent_interval = None;
            }
            change.testable = true;
            change.significant = c.marked();
        }
        column.geomean = column_geomean(rows, i, &sides, &own);
    }
}

/// The geometric mean of column `i`'s cost ratios over its compared rows
/// ([`geometric_mean`]): each ratio as the row shows it, `1 + change / 100`, and its
/// interval at [`CONFIDENCE`] for the row alone, not at the column's Bonferroni level,
/// because the summary is one statement, not one more mark in the column's family.
fn column_geomean(
    rows: &[Row],
    i: usize,
    sides: &[Side],
    own: &[Option<CellChange>],
) -> Option<crate::stats::family::GeoMean> {
    let ratios: Vec<(f64, Option<(f64, f64)>)> = sides
        .iter()
        .zip(own)
        .filter_map(|(side, c)| {
            let change = rows[side.row].entries[i].as_ref()?.change?;
            let ratio = 1.0 + change.percent? / 100.0;
            let interval = c.and_then(|c| c.ratio).map(|q| (q.low, q.high));
            Some((ratio, interval))
        })
        .collect();
    geometric_mean(&ratios)
}

/// The run-to-run check ([`RunToRun`]) of a label's files, oldest first: its oldest run
/// compared with each later one, as two labels would be; `None` for a single run. Each
/// pair is compared as two labels of one machine would be: the oldest run's cells
/// against each later run's, computed from each file's launches once.
pub fn run_to_run_check(label: &str, runs: &[&ResultFile], options: &Options) -> Option<RunToRun> {
    let (first, later) = runs.split_first()?;
    if later.is_empty() {
        return None;
    }
    let mut check = RunToRun {
        label: label.to_owned(),
        runs: runs.len(),
        cells: 0,
        significant: 0,
    };
    let side = |file: &ResultFile, name: &str| {
        let rows = report::label_rows(name, &[(0, file)], &Default::default(), options);
        let h = &file.header;
        let info = LabelInfo {
            label: name.to_owned(),
            // One machine by construction: the label was split by host before.
            hostname: String::new(),
            cpu_model: h.host.cpu_model.clone(),
            kernel_release: h.host.kernel_release.clone(),
            oldest_run: h.started_at.clone(),
            files: 1,
            matrices: 1,
            matrix: h.matrix.clone(),
        };
        (rows.cells, info)
    };
    let (oldest_cells, oldest_info) = side(first, "oldest");
    for (i, other) in later.iter().enumerate() {
        let name = format!("run {i}");
        let (cells, info) = side(other, &name);
        let report = Report {
            cells: oldest_cells.iter().cloned().chain(cells).collect(),
            labels: vec![oldest_info.label.clone(), name],
            warnings: Vec::new(),
            env_differences: Vec::new(),
            stops: Vec::new(),
            outliers_excluded: options.exclude_outliers,
            label_info: vec![oldest_info.clone(), info],
            run_to_run: Vec::new(),
            machine_notes: Vec::new(),
        };
        let Ok(cmp) = compare(&report, &Options::default()) else {
            continue;
        };
        count_run_to_run(&mut check, &cmp);
    }
    Some(check)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyze::build;
    use crate::fixtures::{FakeCell, file, host, rounds};
    use crate::matrix::Gc;
    use crate::store::{ResultFile, Results};

    fn run(label: &str, at: &str, hostname: &str, on: f64) -> ResultFile {
        let r = rounds(50.0, on, false);
        file(
            label,
            at,
            host(hostname),
            &[FakeCell {
                gc: Gc::G1,
                heap: "1g",
                rounds: &r,
            }],
        )
    }

    fn results(files: Vec<ResultFile>) -> Report {
        build(&Results {
            files,
            warnings: Vec::new(),
            ..Default::default()
        })
    }

    #[test]
    fn baseline_is_the_oldest_label_unless_named() {
        // Read in name order, but the oldest run is `b`.
        let report = results(vec![
            run("a", "2026-11-30T09:00:00Z", "vm", 300.0),
            run("b", "2026-11-30T08:00:00Z", "vm", 400.0),
            run("c", "2026-11-30T10:00:00Z", "vm", 400.0),
        ]);
        let cmp = compare(&report, &Options::default()).unwrap();
        assert_eq!(cmp.baseline, "b");
        let order: Vec<&str> = cmp.columns.iter().map(|c| &*c.info.label).collect();
        assert_eq!(order, ["b", "a", "c"]);
        let a = cmp.rows[0].entries[1].as_ref().unwrap().change.unwrap();
        assert!(
            a.significant && a.delta < 0.0 && (a.percent.unwrap() - -28.57).abs() < 0.01,
            "{a:?}"
        );
        let c = cmp.rows[0].entries[2].as_ref().unwrap().change.unwrap();
        assert!(!c.significant && c.delta.abs() < 1e-9, "{c:?}");

        let options = Options {
            labels: Some(vec!["c".into(), "a".into()]),
            baseline: Some("a".into()),
            ..Options::default()
        };
        let cmp = compare(&report, &options).unwrap();
        assert_eq!(cmp.baseline, "a");
        assert_eq!(cmp.baseline_index(), 1);
        // Columns in the order asked for, each named by its label, the baseline second.
        let text = crate::render::compare::text(&cmp, true);
        let header = text.lines().find(|l| l.starts_with("gc ")).unwrap();
        let header: Vec<&str> = header.split_whitespace().collect();
        assert_eq!(header, ["gc", "heap", "c", "a"], "{text}");
        assert!(
            cmp.rows[0].entries[0]
                .as_ref()
                .unwrap()
                .change
                .unwrap()
                .significant
        );
    }

    #[test]
    fn unknown_labels_are_refused() {
        let report = results(vec![
            run("a", "2026-11-30T08:00:00Z", "vm", 300.0),
            run("b", "2026-11-30T09:00:00Z", "vm", 300.0),
        ]);
        let err = |labels: Option<&[&str]>, baseline: Option<&str>| {
            compare(
                &report,
                &Options {
                    labels: labels.map(|l| l.iter().map(|s| s.to_string()).collect()),
                    baseline: baseline.map(Into::into),
                    ..Options::default()
                },
            )
            .unwrap_err()
            .to_string()
        };
        assert_eq!(
            err(Some(&["a", "x"]), None),
            "no results are labelled `x`. The results hold a, b."
        );
        assert_eq!(
            err(Some(&["a"]), Some("b")),
            "baseline `b` is not among --labels (a)"
        );
        assert_eq!(
            err(Some(&["a", "a"]), None),
            "the label `a` is asked for twice. Name each label once."
        );
    }

    #[test]
    fn cells_of_other_machines_or_flags_are_not_compared() {
        let mut other_flags = run("thp", "2026-11-30T09:00:00Z", "vm", 100.0);
        other_flags.header.matrix = format!(
            "{}jvm_args: [-XX:+UseTransparentHugePages]\n",
            crate::fixtures::MATRIX
        );
        let report = results(vec![
            run("base", "2026-11-30T08:00:00Z", "vm", 400.0),
            run("elsewhere", "2026-11-30T09:00:00Z", "other-vm", 300.0),
            other_flags,
        ]);
        let cmp = compare(&report, &Options::default()).unwrap();
        let entry = |i: usize| cmp.rows[0].entries[i].as_ref().unwrap();
        assert_eq!(entry(1).change, None);
        assert_eq!(
            entry(1).not_compared.as_deref(),
            Some("another machine (`other-vm`, not `vm`)")
        );
        assert_eq!(entry(2).change, None);
        assert_eq!(
            entry(2).not_compared.as_deref(),
            Some("other JVM flags (`-XX:+UseTransparentHugePages`, not ``)")
        );
        let text = crate::render::compare::text(&cmp, true);
        assert!(text.contains("n/a"), "{text}");
        assert!(
            text.contains("`elsewhere` not compared with `base`"),
            "{text}"
        );
        assert!(text.contains("another matrix than the baseline"), "{text}");
    }

    #[test]
    fn a_label_from_two_machines_is_split_and_warned_about() {
        let report = results(vec![
            run("k", "2026-11-30T08:00:00Z", "vm1", 400.0),
            run("k", "2026-11-30T09:00:00Z", "vm2", 400.0),
        ]);
        assert_eq!(report.labels, ["k@vm1", "k@vm2"]);
        assert!(report.warnings[0].starts_with("label `k` mixes results of 2 machines"));
        let cmp = compare(&report, &Options::default()).unwrap();
        assert!(
            cmp.rows[0].entries[1]
                .as_ref()
                .unwrap()
                .not_compared
                .is_some()
        );
    }

    #[test]
    fn many_long_labels_still_fit_72_columns() {
        let labels = [
            "6.18.0-rc3-base-with-a-very-long-local-version-string",
            "6.18.0-rc3-patch1",
            "6.18.0-rc3-patch2",
            "6.18.0-rc3-patch3",
            "6.18.0-rc3-patch4",
            "6.18.0-rc3-patch5",
        ];
        let report = results(
            labels
                .iter()
                .enumerate()
                .map(|(i, l)| {
                    run(
                        l,
                        &format!("2026-11-30T0{i}:00:00Z"),
                        "a-long-hostname.example.org",
                        400.0 + i as f64 * 1000.0,
                    )
                })
                .collect(),
        );
        let cmp = compare(&report, &Options::default()).unwrap();
        let text = crate::render::compare::text(&cmp, true);
        assert!(
            crate::render::table::width(&text) <= crate::render::table::WIDTH,
            "{text}"
        );
        // The labels did not fit one table: the main table is split.
        assert!(text.matches("heap").count() >= 3, "{text}");
    }

    #[test]
    fn labels_that_do_not_fit_beside_the_key_go_to_another_table() {
        // Two JDKs: the key needs a jdk column, and three labels no longer fit one table.
        let two_jdks = |mut f: ResultFile| {
            let more: Vec<_> = f
                .launches
                .iter()
                .cloned()
                .map(|mut l| {
                    l.cell.jdk = "25.0.3+9-LTS".into();
                    l.cell.gc = Gc::Parallel;
                    l
                })
                .collect();
            f.launches.extend(more);
            f
        };
        let report = results(vec![
            two_jdks(run("base", "2026-11-30T08:00:00Z", "vm", 4000.0)),
            two_jdks(run("p1", "2026-11-30T09:00:00Z", "vm", 3000.0)),
            two_jdks(run("p2", "2026-11-30T10:00:00Z", "vm", 2000.0)),
        ]);
        let cmp = compare(&report, &Options::default()).unwrap();
        let text = crate::render::compare::text(&cmp, true);
        assert!(
            crate::render::table::width(&text) <= crate::render::table::WIDTH,
            "{text}"
        );
        // The cover letter's tables' headers: each with the baseline's column.
        let headers: Vec<&str> = text.lines().filter(|l| l.starts_with("jdk ")).collect();
        assert_eq!(headers.len(), 2, "{text}");
        let columns = |h: &str| h.split_whitespace().skip(3).collect::<Vec<_>>().join(" ");
        assert_eq!(columns(headers[0]), "base p1", "{text}");
        assert_eq!(columns(headers[1]), "base p2", "{text}");
    }

    /// The text with its wrapped lines joined, to find a phrase whatever the wrapping.
    fn table_text(text: &str) -> String {
        text.split_whitespace().collect::<Vec<_>>().join(" ")
    }

    #[test]
    fn runs_of_one_label_are_checked_against_each_other() {
        let report = results(vec![
            run("k", "2026-11-30T08:00:00Z", "vm", 400.0),
            run("k", "2026-11-30T09:00:00Z", "vm", 400.0),
            run("k", "2026-11-30T10:00:00Z", "vm", 300.0),
            run("single", "2026-11-30T11:00:00Z", "vm", 300.0),
        ]);
        assert_eq!(
            report.run_to_run,
            [crate::analyze::report::RunToRun {
                label: "k".into(),
                runs: 3,
                cells: 2,
                significant: 1,
            }]
        );
        let cmp = compare(&report, &Options::default()).unwrap();
        let text = crate::render::compare::text(&cmp, true);
        assert!(
            table_text(&text).contains("`k` (3 runs) 1 of 2 pairs"),
            "{text}"
        );
        assert!(
            table_text(&text).contains("the machine drifted between runs"),
            "{text}"
        );
    }

    /// Two labels' tables of 20 cells (G1 and Parallel at ten heap sizes), each cell's
    /// rounds drawn from `noise(label)` with the development VM's noise (drift, bursts,
    /// slow launches; `stats::noise`), through the whole report and comparison. Returns
    /// per table the marks of the second label's column, its compared cells, and
    /// whether its geometric mean's interval leaves 1 out.
    fn simulated_tables(
        tables: usize,
        rounds: usize,
        seed: u64,
        noise: impl Fn(usize) -> crate::stats::noise::Noise,
    ) -> Vec<(usize, usize, bool)> {
        use crate::stats::noise::simulate_cell;
        const HEAPS: [&str; 10] = [
            "64m", "128m", "192m", "256m", "320m", "384m", "448m", "512m", "576m", "640m",
        ];
        let mut state = seed;
        (0..tables)
            .map(|_| {
                let files: Vec<ResultFile> = (0..2)
                    .map(|label| {
                        let sides: Vec<Vec<(f64, f64)>> = (0..20)
                            .map(|_| simulate_cell(&noise(label), rounds, &mut state).0)
                            .collect();
                        let cells: Vec<FakeCell<'_>> = sides
                            .iter()
                            .enumerate()
                            .map(|(i, r)| FakeCell {
                                gc: if i % 2 == 0 { Gc::G1 } else { Gc::Parallel },
                                heap: HEAPS[i / 2],
                                rounds: r,
                            })
                            .collect();
                        let at = format!("2026-11-30T0{label}:00:00Z");
                        file(&format!("k{label}"), &at, host("vm"), &cells)
                    })
                    .collect();
                let cmp = compare(&results(files), &Options::default()).unwrap();
                let marks = cmp
                    .rows
                    .iter()
                    .filter_map(|r| r.entries[1].as_ref()?.change.as_ref())
                    .filter(|c| c.significant)
                    .count();
                let geomean = cmp.columns[1].geomean.expect("20 cells compared");
                // A slow launch without pretouch can make a round's cost 0 or less, and
                // then its cell, and so the geometric mean, has no interval.
                let off = geomean.interval.is_some_and(|(low, high)| {
                    assert!(low <= geomean.ratio && geomean.ratio <= high, "{geomean:?}");
                    low > 1.0 || high < 1.0
                });
                (marks, cmp.columns[1].compared, off)
            })
            .collect()
    }

    /// Two labels of two cells each, `base` and `patch`: `cells(label)` gives each
    /// cell's rounds, G1 first.
    fn two_cells(base: [Vec<(f64, f64)>; 2], patch: [Vec<(f64, f64)>; 2]) -> Comparison {
        let mk = |label: &str, at: &str, r: &[Vec<(f64, f64)>; 2]| {
            file(
                label,
                at,
                host("h"),
                &crate::fixtures::g1_and_parallel(&r[0], &r[1]),
            )
        };
        let files = vec![
            mk("base", "2026-01-01T00:00:00Z", &base),
            mk("patch", "2026-01-01T01:00:00Z", &patch),
        ];
        compare(&results(files), &Options::default()).unwrap()
    }

    /// Every round of the patch below every round of the base: each cell is marked,
    /// at 10 rounds a side, and `check` calls the base a regression against the patch.
    #[test]
    fn rounds_that_do_not_overlap_are_marked_in_every_cell() {
        let spread = |from: f64| -> Vec<(f64, f64)> {
            (0..10)
                .map(|i| (50.0, 50.0 + from + 7.0 * f64::from(i)))
                .collect()
        };
        let cmp = two_cells([spread(211.0), spread(215.0)], [spread(53.0), spread(60.0)]);
        for row in &cmp.rows {
            let c = row.entries[1].as_ref().unwrap().change.unwrap();
            let p = c.percent_interval.unwrap();
            assert!(c.significant && p.high < 0.0, "{c:?}");
            assert!(p.low > -100.0 && p.low <= c.percent.unwrap() && c.percent.unwrap() <= p.high);
            assert!((p.confidence - 0.975).abs() < 1e-12, "{p:?}");
        }
        let up = two_cells([spread(53.0), spread(60.0)], [spread(211.0), spread(215.0)]);
        let v = crate::analyze::verdict::judge(
            &up,
            None,
            "5%".parse().unwrap(),
            crate::analyze::verdict::Direction::Increase,
        );
        assert_eq!(
            v.outcome(),
            crate::analyze::verdict::Outcome::Regression,
            "{v:?}"
        );
    }

    /// A cell's change and mark come from its own rounds: a Parallel round lost from
    /// the patch's file moves nothing of the G1 cell.
    #[test]
    fn a_lost_round_of_one_cell_changes_no_other_cell() {
        let r = |cost: f64| crate::fixtures::rounds_costing(cost, 12);
        let whole = two_cells([r(300.0), r(310.0)], [r(330.0), r(335.0)]);
        let mut short = r(335.0);
        short.remove(4);
        let lost = two_cells([r(300.0), r(310.0)], [r(330.0), short]);
        let change = |c: &Comparison, row: usize| c.rows[row].entries[1].as_ref().unwrap().change;
        assert_eq!(change(&whole, 0), change(&lost, 0), "the G1 cell");
        assert_eq!(
            whole.rows[0].entries[1]
                .as_ref()
                .unwrap()
                .measured
                .cost
                .cost_ci_low_ms,
            lost.rows[0].entries[1]
                .as_ref()
                .unwrap()
                .measured
                .cost
                .cost_ci_low_ms
        );
        assert_ne!(
            change(&whole, 1),
            change(&lost, 1),
            "the Parallel cell lost a round"
        );
    }

    /// The intervals are honest at the comparison itself. At most 5% of A/A tables of 20 cells
    /// carry any mark (`stats::family` shows it for the intervals alone, and that the
    /// rank test the comparison used before marked most such tables).
    #[test]
    fn at_most_5_percent_of_a_a_tables_of_20_cells_carry_a_mark() {
        let vm = crate::stats::noise::Noise::development_vm();
        for (rounds, seed) in [(10, 41), (20, 42)] {
            let tables = simulated_tables(200, rounds, seed, |_| vm);
            assert!(
                tables.iter().all(|&(_, k, _)| k == 20),
                "every cell compared"
            );
            let marked = tables.iter().filter(|&&(m, ..)| m > 0).count();
            eprintln!("A/A, 20 cells of {rounds} rounds: {marked} of 200 tables marked");
            assert!(
                marked * 20 <= tables.len(),
                "{rounds} rounds: {marked} of 200"
            );
            // The geometric mean's 95% interval leaves out 1, where nothing changed, in
            // at most 5% of the tables too.
            let off = tables.iter().filter(|t| t.2).count();
            eprintln!("A/A, 20 cells of {rounds} rounds: geomean leaves out 1 in {off} of 200");
            assert!(off * 20 <= tables.len(), "{rounds} rounds: {off} of 200");
        }
    }

    /// And a real change is still marked: +100 ms (a sixth of the cost) in every cell,
    /// 40 rounds a side.
    #[test]
    fn a_real_change_is_marked_in_most_cells() {
        let vm = crate::stats::noise::Noise::development_vm();
        let slower = crate::stats::noise::Noise {
            cost_ms: vm.cost_ms + 100.0,
            ..vm
        };
        let tables = simulated_tables(5, 40, 43, |label| if label == 1 { slower } else { vm });
        let marked: usize = tables.iter().map(|&(m, ..)| m).sum();
        eprintln!("+100 ms, 5 tables of 20 cells of 40 rounds: {marked} of 100 marked");
        assert!(marked >= 70, "{marked} of 100");
        // The geometric mean sees the change in every table, however wide it is taken,
        // where every cell has an interval of its ratio. Here a slow launch without
        // pretouch makes some round's cost 0 or less in most tables, and that cell has
        // none, so the same tables are drawn without slow launches.
        let steady = |n: crate::stats::noise::Noise| crate::stats::noise::Noise { slow: 0.0, ..n };
        let tables = simulated_tables(5, 40, 44, |label| {
            steady(if label == 1 { slower } else { vm })
        });
        assert!(tables.iter().all(|t| t.2), "{tables:?}");
    }
}
