//! Stage 6, the explaining half: the tables that say where each cell's pretouch cost
//! went (faults, their rate against the ceiling, the JVM's own pretouch time, whether the
//! heap was touched) and, with `--phases`, the startup phases. Text and Markdown; CSV and
//! JSON carry the same numbers as columns of the main rows. Computes nothing.

use std::fmt::Write as _;

use crate::analyze::explain::PHASE_NAMES;
use crate::analyze::report::{CellReport, Report};
use crate::features::analyze::CEILING_SOURCE;
use crate::render::common::{CellNames, cell_name, explaining_markdown};
use crate::render::table::{self, Column, Explaining, Note, Table, name, num};

/// The header of the column of the fault rate as a share of the cell's ceiling, which the
/// notes name too.
const CEILING: &str = "% ceiling";

fn touched(c: &CellReport) -> String {
    if c.times.runs_on == 0 {
        "-".to_owned()
    } else if c.touched.untouched == 0 {
        "yes".to_owned()
    } else {
        format!("NO ({} of {})", c.touched.untouched, c.times.runs_on)
    }
}

fn phase(off: Option<f64>, on: Option<f64>) -> String {
    match (off, on) {
        (Some(a), Some(b)) => format!(
            "{} -> {} ({})",
            table::ms_tenths(a),
            table::ms_tenths(b),
            table::signed_ms_tenths(b - a)
        ),
        _ => format!(
            "{} -> {}",
            table::opt_ms_tenths(off),
            table::opt_ms_tenths(on)
        ),
    }
}

fn labels(report: &Report) -> impl Iterator<Item = (&str, Vec<&CellReport>)> {
    report.labels.iter().map(|l| {
        (
            l.as_str(),
            report.cells.iter().filter(|c| c.id.label == *l).collect(),
        )
    })
}

/// The time columns of the text's explaining table.
const TIME: [Explaining<CellReport>; 4] = [
    Explaining {
        col: num("phase grew"),
        legend: "phase grew is the startup phase whose median grew most with pretouch.",
        value: |c| c.explain.grew_most().unwrap_or("-").to_owned(),
    },
    Explaining {
        col: num("VM init ms"),
        legend: "VM init ms is how much longer the JVM takes to create its VM with \
                 pretouch, which is where it touches the heap.",
        value: |c| table::opt_ms_tenths(c.explain.init_growth_ms()),
    },
    Explaining {
        col: num("JVM log ms"),
        legend: "JVM log ms is the pretouch time the JVM's own log gives.",
        value: |c| table::opt_ms_tenths(c.jvm_log.jvm_pretouch_ms),
    },
    Explaining {
        col: num("Genesis ms"),
        legend: "Genesis ms is how much longer the JVM's Genesis phase takes with pretouch.",
        value: |c| table::opt_ms_tenths(c.jvm_log.jvm_genesis_growth_ms),
    },
];

/// The fault columns of the text's explaining table.
const FAULTS: [Explaining<CellReport>; 5] = [
    Explaining {
        col: num("faults"),
        legend: "faults is the median of the minor faults up to main() that pretouch adds.",
        value: |c| table::opt_count(c.faults.pretouch_faults),
    },
    Explaining {
        col: num("expected"),
        legend: "expected is the heap divided by the folio size, times its views.",
        value: |c| table::opt_count(Some(c.faults.expected_faults as f64)),
    },
    Explaining {
        col: num("faults/s"),
        legend: "faults/s is the faults divided by VM init ms.",
        value: |c| table::opt_count(c.rate.fault_rate_per_s),
    },
    Explaining {
        col: num(CEILING),
        legend: CEILING_SOURCE.words.legend,
        value: |c| {
            c.rate
                .ceiling_pct
                .map_or_else(|| "-".to_owned(), |p| table::pct(p, 0))
        },
    },
    Explaining {
        col: num("touched"),
        legend: "touched is whether 80% of the heap was resident at main().",
        value: touched,
    },
];

/// How each cell's heap was backed: the mTHP counters. The features' figures of it,
/// such as a `memory:` cell's cgroup limit, follow in the same group
/// ([`backing_columns`]).
const BACKING: [Explaining<CellReport>; 2] = [
    Explaining {
        col: num("folios"),
        legend: "folios is the median folios above 4 KiB a launch with pretouch got, per \
                 size, from the mTHP counters.",
        value: |c| {
            let f: Vec<String> = (c.faults.folios.iter())
                .map(|f| {
                    format!(
                        "{} {}",
                        table::fault_size(Some(f.bytes as f64)),
                        table::count(f.per_launch)
                    )
                })
                .collect();
            if f.is_empty() {
                "-".to_owned()
            } else {
                f.join(", ")
            }
        },
    },
    Explaining {
        col: num("fallback"),
        legend: "fallback is its faults that fell back to a smaller folio.",
        value: |c| match c.faults.folio_fallbacks {
            Some(f) if f > 0.0 || !c.faults.folios.is_empty() => table::count(f),
            _ => "-".to_owned(),
        },
    },
];

/// The backing's columns, the core's then the features' (`features::render::BACKING`).
fn backing_columns() -> Vec<Explaining<CellReport>> {
    let features = crate::features::render::BACKING.iter().copied().flatten();
    BACKING.iter().chain(features).copied().collect()
}

/// The labels with a cell that has no ceiling because no feature measured one for the
/// label, so there is no reason of the cell's own, each as `label` names it.
fn without_ceiling(report: &Report, label: &dyn Fn(&str) -> String) -> Vec<String> {
    report
        .labels
        .iter()
        .filter(|l| {
            report.cells.iter().any(|c| {
                c.id.label == **l
                    && c.rate.ceiling_per_s.is_none()
                    && c.ceiling.ceiling_missing.is_none()
            })
        })
        .map(|l| label(l))
        .collect()
}

/// How the notes name the cells and the labels they speak of: the text by letters, the
/// Markdown in full.
struct NoteNames<'a> {
    cell: &'a dyn Fn(&CellReport) -> String,
    label: &'a dyn Fn(&str) -> String,
}

/// The notes under the explaining tables, one a line, unwrapped. The note on the labels
/// without a ceiling comes only where the table shows the ceiling column.
fn notes(report: &Report, names: &NoteNames, ceiling_shown: bool) -> Vec<String> {
    let name = names.cell;
    let mut out = Vec::new();
    for c in report.cells.iter().filter(|c| c.touched.untouched > 0) {
        out.push(format!(
            "warning: {}: PRETOUCH DID NOT HAPPEN in {} of {} launches ({}); first: {}",
            name(c),
            c.touched.untouched,
            c.times.runs_on,
            c.touched.untouched_launches,
            c.touched.untouched_reason.as_deref().unwrap_or("")
        ));
    }
    for c in report
        .cells
        .iter()
        .filter(|c| c.explain.jvm_log_missing > 0)
    {
        out.push(format!(
            "note: {}: {} JVM log(s) without a pretouch line: {}",
            name(c),
            c.explain.jvm_log_missing,
            c.heap_and_method
                .as_ref()
                .map_or("this JDK or GC logs none", |h| h.missing_log_line.as_str())
        ));
    }
    for c in report
        .cells
        .iter()
        .filter(|c| c.explain.jvm_log_warnings > 0)
    {
        out.push(format!(
            "warning: {}: {} JVM log(s) not fully understood, first: {}",
            name(c),
            c.explain.jvm_log_warnings,
            c.explain.first_jvm_log_warning.as_deref().unwrap_or("")
        ));
    }
    let without = without_ceiling(report, names.label);
    if ceiling_shown && !without.is_empty() {
        out.push(format!(
            "note: {} {}: no {CEILING}",
            CEILING_SOURCE.words.none_for,
            without.join(", "),
        ));
    }
    out.extend(folio_notes(report, name));
    // Cells read against a ceiling of their own (their CPU set, huge pages).
    for c in &report.cells {
        if let Some(from) = &c.ceiling.ceiling_from
            && (c.axes.cpus != crate::matrix::cpuset::ALL || from.starts_with("huge"))
        {
            out.push(format!(
                "note: {}: {CEILING} {} {from}",
                name(c),
                CEILING_SOURCE.words.against
            ));
        }
    }
    for d in &report.env_differences {
        out.push(format!("environment: {d}"));
    }
    out
}

/// The notes on the folio sizes behind the expected faults and the ceiling: what the
/// expected count assumes where it is not base pages, and why a cell has no ceiling.
fn folio_notes(report: &Report, name: &dyn Fn(&CellReport) -> String) -> Vec<String> {
    use crate::units::Bytes;
    let mut out = Vec::new();
    for c in &report.cells {
        if let Some(most) = c.faults.expected_faults_4k {
            let through: String = c
                .explain
                .fallback_folio_bytes
                .iter()
                .map(|&b| format!("{}, then ", Bytes(b)))
                .collect();
            out.push(format!(
                "note: {}: {} faults are expected at {} folios, as the run's THP modes give. There may be up to {} if the kernel falls back to {through}4 KiB pages",
                name(c),
                table::opt_count(Some(c.faults.expected_faults as f64)),
                Bytes(c.faults.expected_folio_bytes),
                table::opt_count(Some(most as f64)),
            ));
        }
        if c.explain.thp_modes_differ {
            out.push(format!(
                "note: {}: its runs had THP modes that allow different folio sizes: expected counts 4 KiB pages",
                name(c)
            ));
        }
        if let Some(why) = &c.ceiling.ceiling_missing {
            out.push(format!("note: {}: {why}", name(c)));
        }
    }
    out
}

/// The cells in the order the explaining tables list them: each key where first met,
/// its labels in the comparison's order.
fn ordered<'a>(report: &'a Report, names: &CellNames) -> Vec<&'a CellReport> {
    let mut keys: Vec<Vec<String>> = Vec::new();
    for c in &report.cells {
        let k = names.key(c);
        if !keys.contains(&k) {
            keys.push(k);
        }
    }
    let mut out = Vec::new();
    for k in &keys {
        let mut same: Vec<&CellReport> =
            report.cells.iter().filter(|c| names.key(c) == *k).collect();
        same.sort_by_key(|c| names.rank(&c.id.label));
        out.extend(same);
    }
    out
}

/// What a row that stands for every label of its key shows in the label column.
const ALL: &str = "all";

/// One explaining table: a row per cell (the key once, the label's letter beside it),
/// or one row for a key whose labels show the same values (`all`). The second value
/// says whether a row was merged so.
fn explaining_table(
    names: &CellNames,
    key: &[table::Col<'_>],
    cells: &[&CellReport],
    cols: &[&Explaining<CellReport>],
    merge: bool,
) -> (String, bool) {
    let mut columns: Vec<Column> = key.iter().map(Column::from).collect();
    columns.extend(cols.iter().map(|c| Column::from(&c.col)));
    let mut t = Table::new(columns).keyed(key.len());
    let mut merged = false;
    let mut i = 0;
    while i < cells.len() {
        let k = names.key(cells[i]);
        let group: Vec<&CellReport> = cells[i..]
            .iter()
            .take_while(|c| names.key(c) == k)
            .copied()
            .collect();
        i += group.len();
        let row_values: Vec<Vec<String>> = group
            .iter()
            .map(|c| cols.iter().map(|col| (col.value)(c)).collect())
            .collect();
        if merge
            && names.lettered()
            && group.len() > 1
            && row_values.iter().all(|v| *v == row_values[0])
        {
            merged = true;
            t.push([k, vec![ALL.to_owned()], row_values[0].clone()].concat());
            continue;
        }
        for (n, (c, v)) in group.iter().zip(row_values).enumerate() {
            let mut key_values = if n == 0 {
                k.clone()
            } else {
                vec![String::new(); k.len()]
            };
            if names.lettered() {
                key_values.push(names.letter(&c.id.label).to_owned());
            }
            t.push([key_values, v].concat());
        }
    }
    (t.text_keyed(), merged)
}

/// The phases of each cell, as a column of the phases table.
const PHASES: [Explaining<CellReport>; 3] = [
    Explaining {
        col: num(PHASE_NAMES[0]),
        legend: "",
        value: |c| phase(c.explain.phases_off_ms[0], c.explain.phases_on_ms[0]),
    },
    Explaining {
        col: num(PHASE_NAMES[1]),
        legend: "",
        value: |c| phase(c.explain.phases_off_ms[1], c.explain.phases_on_ms[1]),
    },
    Explaining {
        col: num(PHASE_NAMES[2]),
        legend: "",
        value: |c| phase(c.explain.phases_off_ms[2], c.explain.phases_on_ms[2]),
    },
];

/// The explaining tables for the terminal and email: one set of tables for every
/// label (the label's letter in a column of its own, `all` for a key whose labels
/// agree), the columns without a figure left out, the rest packed into as few tables
/// as fit [`table::WIDTH`] columns; the heap and pretouch method's columns
/// ([`crate::render::heap::columns`]) among them. The phases table with `phases`.
/// A legend defines the columns shown, and only those.
pub fn text(report: &Report, phases: bool, names: &CellNames) -> String {
    let cells = ordered(report, names);
    if cells.is_empty() {
        return String::new();
    }
    let mut key: Vec<table::Col<'_>> = names.headers().into_iter().map(name).collect();
    if names.lettered() {
        key.push(name(""));
    }
    let plain: Vec<(Vec<String>, &CellReport)> = cells
        .iter()
        .map(|c| {
            let mut k = names.key(c);
            if names.lettered() {
                k.push(names.letter(&c.id.label).to_owned());
            }
            (k, *c)
        })
        .collect();
    let (backing, heap) = (backing_columns(), crate::render::heap::columns());
    let groups: [&[Explaining<CellReport>]; 5] =
        [&TIME, &FAULTS, &crate::render::heap::PEAKS, &backing, &heap];
    let (tables, dropped) = table::pack(&key, &plain, &groups);
    let mut out = String::from("\npretouch explained\n");
    let mut merged = false;
    for (n, cols) in tables.iter().enumerate() {
        if n > 0 {
            out += "\n";
        }
        let (t, m) = explaining_table(names, &key, &cells, cols, true);
        out += &t;
        merged |= m;
    }
    if phases {
        out += "\n";
        out += &table::wrap("phases (ms, median without -> with pretouch)", 2);
        let cols: Vec<&Explaining<CellReport>> = PHASES.iter().collect();
        out += &explaining_table(names, &key, &cells, &cols, false).0;
    }
    let shown: Vec<&Explaining<CellReport>> = tables.iter().flatten().copied().collect();
    let mut text = table::legend_of(&shown);
    if merged {
        text += " all is alike in every label.";
    }
    if !dropped.is_empty() {
        text += " Empty columns are left out";
        if dropped.contains(&CEILING)
            && !without_ceiling(report, &|l| names.letter(l).to_owned()).is_empty()
        {
            text += ". ";
            text += CEILING_SOURCE.words.fills;
        }
        text.push('.');
    }
    let note_names = NoteNames {
        cell: &|c| names.name(c),
        label: &|l| names.letter(l).to_owned(),
    };
    let mut all = vec![Note::Legend(text)];
    let remarks = notes(report, &note_names, !dropped.contains(&CEILING));
    all.extend(remarks.into_iter().map(Note::Remark));
    out.push('\n');
    out += &table::notes_text(&all);
    out
}

/// The notes under the Markdown tables: the legend of every column they show, then the
/// remarks, each cell named in full.
fn markdown_notes(report: &Report) -> Vec<Note> {
    let names = NoteNames {
        cell: &|c| cell_name(c),
        label: &|l| l.to_owned(),
    };
    let columns: Vec<&Explaining<CellReport>> = TIME.iter().chain(&FAULTS).collect();
    let mut all = vec![Note::Legend(table::legend_of(&columns))];
    all.extend(notes(report, &names, true).into_iter().map(Note::Remark));
    all
}

/// The same as Markdown tables.
pub fn markdown(report: &Report, phases: bool) -> String {
    let mut out = String::new();
    for (label, cells) in labels(report) {
        let _ = writeln!(out, "\n#### {label}: pretouch explained\n");
        out += &explaining_markdown(&cells, &[&TIME, &FAULTS]).markdown();
        if phases {
            let _ = writeln!(
                out,
                "\n#### {label}: phases (ms, median without -> with pretouch)\n"
            );
            out += &explaining_markdown(&cells, &[&PHASES]).markdown();
        }
    }
    out += &table::notes_markdown(&markdown_notes(report));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyze::explain::CellExplain;

    fn sample() -> Report {
        let explain = CellExplain {
            phases_off_ms: [Some(9.5), Some(58.2), Some(2.0)],
            phases_on_ms: [Some(7.9), Some(455.7), Some(3.3)],
            pretouch_faults: Some(262_900.0),
            expected_faults: 262_144,
            fault_rate_per_s: Some(661_385.0),
            jvm_pretouch_ms: Some(405.1),
            jvm_genesis_growth_ms: Some(395.9),
            ..CellExplain::default()
        };
        let g1 = CellReport {
            id: crate::analyze::report::CellId {
                label: "6.18.0-base".into(),
                jdk: "25.0.3+9-LTS".into(),
                gc: "g1".into(),
                heap: "1g".into(),
                variant: "default".into(),
            },
            times: crate::analyze::report::CellTimes {
                runs_on: 10,
                runs_off: 10,
                ..Default::default()
            },
            axes: crate::analyze::report::CellAxes {
                // As every real report has them: the axes at their defaults.
                gc_threads: crate::matrix::GC_THREADS_AUTO.into(),
                cpus: crate::matrix::cpuset::ALL.into(),
                ..Default::default()
            },
            faults: crate::analyze::report::CellFaults {
                pretouch_faults: explain.pretouch_faults,
                expected_faults: explain.expected_faults,
                ..Default::default()
            },
            rate: crate::analyze::report::CellRate {
                fault_rate_per_s: explain.fault_rate_per_s,
                ceiling_per_s: Some(1_210_000.0),
                ceiling_pct: Some(54.66),
            },
            jvm_log: crate::analyze::report::CellJvmLog {
                jvm_pretouch_ms: explain.jvm_pretouch_ms,
                jvm_genesis_growth_ms: explain.jvm_genesis_growth_ms,
            },
            explain: explain.clone(),
            ..CellReport::default()
        };
        let parallel = CellReport {
            id: crate::analyze::report::CellId {
                gc: "parallel".into(),
                variant: "thp".into(),
                ..g1.id.clone()
            },
            faults: crate::analyze::report::CellFaults {
                pretouch_faults: Some(140_000.0),
                ..g1.faults.clone()
            },
            jvm_log: crate::analyze::report::CellJvmLog {
                jvm_pretouch_ms: None,
                ..g1.jvm_log.clone()
            },
            touched: crate::analyze::report::CellTouched {
                untouched: 3,
                untouched_launches: "quick-20261130T071303Z.jsonl#4 quick-20261130T071303Z.jsonl#9 quick-20261130T071303Z.jsonl#17".into(),
                untouched_reason: Some("RSS grew 542 MiB during VM creation (512 MiB beyond a launch without pretouch), expected about the heap, 1 GiB".into()),
            },
            explain: CellExplain {
                jvm_log_missing: 10,
                jvm_log_warnings: 1,
                first_jvm_log_warning: Some("unrecognised Genesis line: \"[9ns] Genesis, soon\"".into()),
                ..explain
            },
            ..g1.clone()
        };
        Report {
            cells: vec![g1, parallel],
            labels: vec!["6.18.0-base".into()],
            warnings: vec![],
            stops: vec![],
            env_differences: vec![
                "thp_enabled differs: 6.18.0-base=madvise, 6.18.0-patched=always".into(),
            ],
            outliers_excluded: false,
            label_info: vec![],
            run_to_run: vec![],
            machine_notes: vec![],
        }
    }

    #[test]
    fn the_features_backing_columns_follow_the_folios_in_one_group() {
        let headers: Vec<&str> = backing_columns().iter().map(|c| c.col.header).collect();
        assert_eq!(&headers[..2], ["folios", "fallback"]);
        let features: Vec<&str> = (crate::features::render::BACKING.iter().copied().flatten())
            .map(|c| c.col.header)
            .collect();
        assert!(!features.is_empty());
        assert_eq!(headers[2..], features);
    }

    /// Cells that differ only in an axis (gc_threads, cpus, app) must not look alike.
    #[test]
    fn rows_and_notes_name_the_axes() {
        let mut report = sample();
        report.cells[1].axes.gc_threads = "1".into();
        report.cells[1].axes.cpus = "0".into();
        let out = text(&report, true, &CellNames::of(&report)).replace("\n  ", " ");
        assert!(out.contains("parallel 1g thp gc_threads=1 cpus=0"), "{out}");
        assert!(
            out.contains("warning: parallel 1g thp gc_threads=1 cpus=0: PRETOUCH DID NOT HAPPEN"),
            "{out}"
        );
    }

    #[test]
    fn text_with_phases() {
        insta::assert_snapshot!(text(&sample(), true, &CellNames::of(&sample())), @r#"

        pretouch explained
        gc        heap  variant   phase grew  VM init ms  JVM log ms  Genesis ms
        g1        1g    default  agent->init       397.5       405.1       395.9
        parallel  1g    thp      agent->init       397.5           -       395.9

        gc       heap variant faults expected faults/s % ceiling      touched
        g1       1g   default 262.9k   262.1k   661.4k       55%          yes
        parallel 1g   thp     140.0k   262.1k   661.4k       55% NO (3 of 10)

        phases (ms, median without -> with pretouch)
                exec->agent             agent->init         init->main
        g1 1g default
          9.5 -> 7.9 (-1.6)  58.2 -> 455.7 (+397.5)  2.0 -> 3.3 (+1.3)
        parallel 1g thp
          9.5 -> 7.9 (-1.6)  58.2 -> 455.7 (+397.5)  2.0 -> 3.3 (+1.3)

        phase grew is the startup phase whose median grew most with pretouch. VM
        init ms is how much longer the JVM takes to create its VM with pretouch,
        which is where it touches the heap. JVM log ms is the pretouch time the
        JVM's own log gives. Genesis ms is how much longer the JVM's Genesis
        phase takes with pretouch. faults is the median of the minor faults up
        to main() that pretouch adds. expected is the heap divided by the folio
        size, times its views. faults/s is the faults divided by VM init ms. %
        ceiling is faults/s as a share of the label's `pretouch calibrate` rate
        at the same folio size. touched is whether 80% of the heap was resident
        at main(). Empty columns are left out.
        warning: parallel 1g thp: PRETOUCH DID NOT HAPPEN in 3 of 10 launches
          (quick-20261130T071303Z.jsonl#4 quick-20261130T071303Z.jsonl#9
          quick-20261130T071303Z.jsonl#17); first: RSS grew 542 MiB during VM
          creation (512 MiB beyond a launch without pretouch), expected about
          the heap, 1 GiB
        note: parallel 1g thp: 10 JVM log(s) without a pretouch line: this JDK
          or GC logs none
        warning: parallel 1g thp: 1 JVM log(s) not fully understood, first:
          unrecognised Genesis line: "[9ns] Genesis, soon"
        environment: thp_enabled differs: 6.18.0-base=madvise,
          6.18.0-patched=always
        "#);
    }

    #[test]
    fn markdown_without_phases() {
        insta::assert_snapshot!(markdown(&sample(), false), @r#"

        #### 6.18.0-base: pretouch explained

        | jdk | gc | heap | variant | phase grew | VM init ms | JVM log ms | Genesis ms | faults | expected | faults/s | % ceiling | touched |
        |---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|
        | 25.0.3+9 | g1 | 1g | default | agent->init | 397.5 | 405.1 | 395.9 | 262.9k | 262.1k | 661.4k | 55% | yes |
        | 25.0.3+9 | parallel | 1g | thp | agent->init | 397.5 | - | 395.9 | 140.0k | 262.1k | 661.4k | 55% | NO (3 of 10) |

        phase grew is the startup phase whose median grew most with pretouch. VM init ms is how much longer the JVM takes to create its VM with pretouch, which is where it touches the heap. JVM log ms is the pretouch time the JVM's own log gives. Genesis ms is how much longer the JVM's Genesis phase takes with pretouch. faults is the median of the minor faults up to main() that pretouch adds. expected is the heap divided by the folio size, times its views. faults/s is the faults divided by VM init ms. % ceiling is faults/s as a share of the label's `pretouch calibrate` rate at the same folio size. touched is whether 80% of the heap was resident at main().

        > warning: 6.18.0-base 25.0.3+9 parallel 1g thp: PRETOUCH DID NOT HAPPEN in 3 of 10 launches (quick-20261130T071303Z.jsonl#4 quick-20261130T071303Z.jsonl#9 quick-20261130T071303Z.jsonl#17); first: RSS grew 542 MiB during VM creation (512 MiB beyond a launch without pretouch), expected about the heap, 1 GiB

        > note: 6.18.0-base 25.0.3+9 parallel 1g thp: 10 JVM log(s) without a pretouch line: this JDK or GC logs none

        > warning: 6.18.0-base 25.0.3+9 parallel 1g thp: 1 JVM log(s) not fully understood, first: unrecognised Genesis line: "[9ns] Genesis, soon"

        > environment: thp_enabled differs: 6.18.0-base=madvise, 6.18.0-patched=always
        "#);
    }
}
