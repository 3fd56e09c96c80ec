//! The probed launches (`run --probe`) in every format: per cell, label and pretouch
//! setting the fault latency (p50, p90 and p99 as their buckets, the max), the count's
//! agreement with the agent's, what the probes cost, the lock waits; then each label's
//! shift of p50 and p99 against the baseline, one metric a line as the kernel test robot
//! prints them; then, once, what was not measured and why. Computes nothing.

use std::fmt::Write as _;

use crate::features::probe::analyze::{
    AGREEMENT_PCT, CellProbes, LatencyShift, LockSummary, ProbeAnalysis, Quantile,
};
use crate::features::probe::launch::C2cSupport;
use crate::machine::jdk::short_jdk;
use crate::render::common::{INSTRUMENT_CSV_HEAD, markdown_with_notes, shift_heading};
use crate::render::table::{self, Column, Note, Shown, Table};
use crate::stats::Shift;
use crate::store::CellKey;

/// Locks listed per cell, label and pretouch in text and Markdown (CSV and JSON: all).
pub const TOP_LOCKS: usize = 5;

/// A cell as the other sections name it, plus the axes that are not at their default.
pub fn cell_title(c: &CellKey) -> String {
    let mut s = format!("{} {} {} {}", short_jdk(&c.jdk), c.gc, c.heap, c.variant);
    if &*c.gc_threads != crate::matrix::GC_THREADS_AUTO {
        write!(s, " gc_threads={}", c.gc_threads).unwrap();
    }
    if &*c.cpus != crate::matrix::cpuset::ALL {
        write!(s, " cpus={}", c.cpus).unwrap();
    }
    if let Some(app) = &c.app {
        write!(s, " app={app}").unwrap();
    }
    s
}

fn pt(pretouch: bool) -> &'static str {
    if pretouch { "on" } else { "off" }
}

/// A quantile's bucket, `low-high` in us (`[low, high)`).
pub fn bucket(q: &Quantile) -> String {
    format!(
        "{}-{}",
        table::us(q.low.0 as f64),
        table::us(q.high.0 as f64)
    )
}

fn agree(c: &CellProbes) -> String {
    c.worst_agreement.map_or_else(
        || "-".to_owned(),
        |a| {
            format!(
                "{}{}",
                table::signed_pct(a.diff_pct),
                if a.within() { "" } else { "!" }
            )
        },
    )
}

fn summary_row(c: &CellProbes) -> Vec<String> {
    let (cost_ms, cost_pct) = match c.cost {
        Some(cost) => (
            table::signed_ms(cost.delta_ms()),
            table::signed_pct(cost.pct()),
        ),
        None => ("-".to_owned(), "-".to_owned()),
    };
    vec![
        format!(
            "{}/{}",
            table::whole(c.launches_read()),
            table::whole(c.launches)
        ),
        c.latency
            .as_ref()
            .map_or_else(|| "-".to_owned(), |l| table::lkp_count(l.faults_per_launch)),
        agree(c),
        cost_ms,
        cost_pct,
    ]
}

const SUMMARY_HEADERS: [&str; 5] = ["launches", "faults/launch", "agree", "cost ms", "cost"];

fn latency_row(c: &CellProbes) -> Vec<String> {
    match &c.latency {
        Some(l) => vec![
            bucket(&l.p50),
            bucket(&l.p90),
            bucket(&l.p99),
            table::us(l.max.0 as f64),
        ],
        None => vec!["-".into(), "-".into(), "-".into(), "-".into()],
    }
}

const LATENCY_HEADERS: [&str; 4] = ["p50 us", "p90 us", "p99 us", "max us"];

/// A cell's probed launches, a row per label and pretouch setting: the summary's
/// figures, then the latency's. Text prints the two as tables of their own.
fn cell_table(cells: &[&CellProbes]) -> Table {
    let headers: Vec<&str> = ["label", "pt"]
        .iter()
        .chain(&SUMMARY_HEADERS)
        .chain(&LATENCY_HEADERS)
        .copied()
        .collect();
    Table::new(table::columns(&headers, 2))
        .keyed(2)
        .with_rows(cells.iter().map(|c| {
            [
                vec![c.label.clone(), pt(c.pretouch).to_owned()],
                summary_row(c),
                latency_row(c),
            ]
            .concat()
        }))
}

/// The columns of [`cell_table`] text prints as its first table and as its second.
const SUMMARY_TABLE: [usize; 7] = [0, 1, 2, 3, 4, 5, 6];
const LATENCY_TABLE: [usize; 6] = [0, 1, 7, 8, 9, 10];

/// A cell's lock waits, the most total wait first: its kind and symbol as the key,
/// then the figures and the caller last, as `perf lock contention` prints them. Text
/// first tries one line a lock with the kind and symbol together after the figures.
fn lock_table(locks: &[LockSummary], limit: usize) -> Table {
    let columns = vec![
        Column::name("kind"),
        Column::name("lock").code(),
        Column::num("waits"),
        Column::num("total us"),
        Column::num("max us"),
        Column::num("us/launch"),
        Column::name("lock").shown(Shown::Text),
        Column::name("caller").code(),
    ];
    Table::new(columns)
        .keyed(2)
        .with_rows(locks.iter().take(limit).map(|l| {
            let lock = match l.lock.as_str() {
                "(no symbol)" => l.kind.clone(),
                symbol => format!("{} {symbol}", l.kind),
            };
            [
                l.kind.clone(),
                l.lock.clone(),
                table::whole(l.count),
                table::us(l.total.0 as f64),
                table::us(l.max.0 as f64),
                table::us(l.per_launch_ns),
                lock,
                l.caller.clone(),
            ]
        }))
}

/// The cells of `a` with the probe figures of `key`, in order.
fn of_cell<'a>(a: &'a ProbeAnalysis, key: &CellKey) -> Vec<&'a CellProbes> {
    a.cells.iter().filter(|c| &c.cell == key).collect()
}

/// The median launch's p50 or p99 of `label` in the cell and pretouch of `s`: the
/// figures beside its shift.
fn launch_median(a: &ProbeAnalysis, s: &LatencyShift, label: &str, p99: bool) -> Option<f64> {
    let l = a.cell(label, &s.cell, s.pretouch)?.latency.as_ref()?;
    if p99 {
        l.median_launch_p99_ns()
    } else {
        l.median_launch_p50_ns()
    }
}

fn shift_rows(a: &ProbeAnalysis, s: &LatencyShift) -> Vec<Vec<String>> {
    let row = |q: &str, shift: Option<&Shift>, p99: bool| {
        let opt = |v: Option<f64>| v.map_or_else(|| "-".to_owned(), table::us);
        vec![
            opt(launch_median(a, s, &s.baseline, p99)),
            shift.map_or_else(
                || "-".to_owned(),
                |x| {
                    format!(
                        "{}{}",
                        table::signed_us(x.estimate),
                        LatencyShift::mark(shift)
                    )
                },
            ),
            shift.map_or_else(
                || "-".to_owned(),
                |x| {
                    format!(
                        "[{}, {}]",
                        table::signed_us(x.low),
                        table::signed_us(x.high)
                    )
                },
            ),
            opt(launch_median(a, s, &s.label, p99)),
            format!(
                "fault-latency.{}-pretouch.{q}",
                if s.pretouch { "with" } else { "without" }
            ),
        ]
    };
    vec![
        row("p50", s.p50.as_ref(), false),
        row("p99", s.p99.as_ref(), true),
    ]
}

/// A label's shift of p50 and p99 in one cell and pretouch setting; Markdown names the
/// label and cell in each row, text above the table.
fn shift_table(a: &ProbeAnalysis, s: &LatencyShift) -> Table {
    let columns = vec![
        Column::name("label").shown(Shown::Wide),
        Column::name("cell").shown(Shown::Wide),
        Column::num("base"),
        Column::num("shift"),
        Column::num("95% interval"),
        Column::num("new"),
        Column::name("metric"),
    ];
    Table::new(columns).with_rows(
        shift_rows(a, s)
            .into_iter()
            .map(|r| [vec![s.label.clone(), cell_title(&s.cell)], r].concat()),
    )
}

const LEGEND: &str = "pt: without (off) or with (on) -XX:+AlwaysPreTouch. launches: probed \
launches read / run. faults/launch: the median count of faults timed, exec to main. agree: \
the launch whose count (timed, plus those before the exec) is furthest from the agent's \
getrusage count at main, ! when more than 2% off. cost: median time to main of the probed \
launches minus that of the timed ones, same cell and pt. p50, p90, p99: the bucket (an \
eighth of an octave, [low, high)) holding it, all launches' faults together; max: the \
longest fault. Probed launches ran after the timed ones and are in no median.";

/// The notes under the probes' tables: the legend, then what the report says once about
/// the locks, c2c and the count's agreement.
fn notes(a: &ProbeAnalysis) -> Vec<Note> {
    let mut notes = vec![Note::Legend(LEGEND.to_owned())];
    notes.extend(remarks(a).into_iter().map(Note::Remark));
    notes
}

/// What the report says once: the locks, c2c, the count's agreement.
fn remarks(a: &ProbeAnalysis) -> Vec<String> {
    let mut notes = Vec::new();
    if let Some(why) = &a.locks_unsupported {
        notes.push(format!("lock contention: not measured, {why}."));
    }
    notes.push(match &a.c2c {
        Some(C2cSupport::Available { events }) => format!(
            "perf c2c: possible here ({}); each cell's command is above. No c2c figure is in \
             this report.",
            events.join(", ")
        ),
        Some(C2cSupport::Unavailable { why }) => format!("perf c2c: not run, {why}."),
        None => "perf c2c: not looked for.".to_owned(),
    });
    let mut count = match a.disagreeing {
        0 => format!(
            "fault count: every probed launch within {AGREEMENT_PCT}% of the agent's count."
        ),
        n => format!(
            "fault count: {n} of {} probed launches read more than {AGREEMENT_PCT}% from the \
             agent's count.",
            a.launches
        ),
    };
    if a.disagreeing_populate > 0 {
        write!(
            count,
            " {} of them ran with pretouch and -XX:+UseTransparentHugePages and counted fewer: \
             JDK 22 and later pretouch THP with madvise(MADV_POPULATE_WRITE), whose faults are \
             taken inside the syscall and raise no exception, so no probe sees them \
             (getrusage counts them).",
            a.disagreeing_populate
        )
        .unwrap();
    }
    notes.push(count);
    notes
}

fn c2c_lines(c: &CellProbes) -> Option<String> {
    let cmd = c.c2c_command.as_ref()?;
    Some(format!(
        "perf c2c, {} pt {}: {}",
        c.label,
        pt(c.pretouch),
        cmd.join(" ")
    ))
}

/// The widest line of the lock table, which names its locks and callers after the
/// figures, as `perf lock contention` does (the brief's 80 columns, not the tables' 72).
const LOCK_WIDTH: usize = 80;

/// A cell's lock waits as text: one line a lock, the figures first, then the lock (its
/// kind, and its symbol when it has one) and the caller; when a name makes that wider
/// than [`LOCK_WIDTH`], each lock's name goes on a line above its figures.
fn lock_text(locks: &[LockSummary]) -> String {
    let locks = lock_table(locks, TOP_LOCKS);
    let text = locks.pick(&[2, 3, 4, 5, 6, 7]).text(4);
    if table::width(&text) <= LOCK_WIDTH {
        return text;
    }
    indent(&locks.pick(&[0, 1, 2, 3, 4, 5, 7]).text_keyed())
}

/// The probes as text within the table width.
pub fn text(a: &ProbeAnalysis) -> String {
    let mut out =
        String::from("\nfault latency and lock waits, exec to main (run --probe, bpftrace)\n");
    for cell in a.cell_keys() {
        let cells = of_cell(a, cell);
        writeln!(out, "\n{}", cell_title(cell)).unwrap();
        let table = cell_table(&cells);
        out += &indent(&table.pick(&SUMMARY_TABLE).text_keyed());
        out += &indent(&table.pick(&LATENCY_TABLE).text_keyed());
        for c in &cells {
            let Ok(locks) = &c.locks else { continue };
            if c.latency.is_none() {
                continue;
            }
            if locks.is_empty() {
                writeln!(out, "  lock waits, {} pt {}: none", c.label, pt(c.pretouch)).unwrap();
                continue;
            }
            writeln!(
                out,
                "  lock waits, {} pt {} (most total wait first{}):",
                c.label,
                pt(c.pretouch),
                if locks.len() > TOP_LOCKS {
                    format!("; {} of {}", TOP_LOCKS, locks.len())
                } else {
                    String::new()
                }
            )
            .unwrap();
            out += &lock_text(locks);
        }
        for line in cells.iter().filter_map(|c| c2c_lines(c)) {
            out += &table::wrap(&format!("  {line}"), 4);
        }
    }
    if !a.shifts.is_empty() {
        writeln!(
            out,
            "\nshift of each probed launch's p50 and p99 against `{}`, us:\n\
             Hodges-Lehmann, 95% interval, * where it excludes 0; base, new:\n\
             the median launch's",
            a.shifts[0].baseline
        )
        .unwrap();
        for s in &a.shifts {
            let heading = shift_heading(&cell_title(&s.cell), &s.label, &s.baseline);
            writeln!(out, "\n{heading}").unwrap();
            out += &shift_table(a, s).text(2);
        }
    }
    out += "\n";
    out += &table::notes_text(&notes(a));
    out
}

/// Two spaces before each line of a block.
fn indent(block: &str) -> String {
    block.lines().map(|l| format!("  {l}\n")).collect()
}

/// The probes as Markdown tables.
pub fn markdown(a: &ProbeAnalysis) -> String {
    let mut out = String::from("\n## Fault latency and lock waits (`run --probe`)\n\n");
    for cell in a.cell_keys() {
        let cells = of_cell(a, cell);
        writeln!(out, "### {}\n", cell_title(cell)).unwrap();
        out += &cell_table(&cells).markdown();
        out.push('\n');
        for c in &cells {
            let Ok(locks) = &c.locks else { continue };
            if c.latency.is_none() || locks.is_empty() {
                continue;
            }
            writeln!(
                out,
                "Lock waits, {} pt {}, most total wait first:\n",
                c.label,
                pt(c.pretouch)
            )
            .unwrap();
            out += &lock_table(locks, TOP_LOCKS).markdown();
            out.push('\n');
        }
        for line in cells.iter().filter_map(|c| c2c_lines(c)) {
            let (what, cmd) = line.split_once(": ").unwrap_or((&line, ""));
            writeln!(out, "{what}: `{cmd}`\n").unwrap();
        }
    }
    if !a.shifts.is_empty() {
        writeln!(
            out,
            "### Shift against `{}`\n\nEach probed launch's p50 and p99, us: Hodges-Lehmann, \
             95% interval, * where it excludes 0; base, new: the median launch's.\n",
            a.shifts[0].baseline
        )
        .unwrap();
        for s in &a.shifts {
            out += &shift_table(a, s).markdown();
            out.push('\n');
        }
    }
    markdown_with_notes(&out, &notes(a))
}

/// The probe CSV's columns after [`INSTRUMENT_CSV_HEAD`].
const CSV_COLUMNS: [&str; 13] = [
    "gc_threads",
    "cpus",
    "app",
    "pretouch",
    "metric",
    "value",
    "low",
    "high",
    "unit",
    "mark",
    "lock",
    "kind",
    "caller",
];

/// One row of the probe CSV; what a row does not set stays empty.
#[derive(Default)]
struct CsvRow<'a> {
    section: &'a str,
    label: &'a str,
    baseline: &'a str,
    cell: Option<(&'a CellKey, bool)>,
    metric: &'a str,
    value: String,
    range: Option<(String, String)>,
    unit: &'a str,
    /// mark, lock, kind, caller
    rest: [&'a str; 4],
}

fn write_row(w: &mut Table, row: CsvRow<'_>) {
    let (low, high) = row.range.unwrap_or_default();
    let cell_fields: [String; 8] = match row.cell {
        Some((c, pretouch)) => [
            c.jdk.to_string(),
            c.gc.to_string(),
            c.heap.to_string(),
            c.variant.to_string(),
            c.gc_threads.to_string(),
            c.cpus.to_string(),
            c.app.clone().unwrap_or_default(),
            pretouch.to_string(),
        ],
        None => Default::default(),
    };
    let mut r: Vec<String> = vec![row.section.into(), row.label.into(), row.baseline.into()];
    r.extend(cell_fields);
    r.extend([row.metric.into(), row.value, low, high, row.unit.into()]);
    r.extend(row.rest.iter().map(|s| (*s).to_owned()));
    w.push(r);
}

/// The probes, a CSV row per figure (`--probe-csv`): ns unless `unit` says otherwise;
/// histogram rows give every bucket's count.
pub fn csv(a: &ProbeAnalysis) -> String {
    let columns = [&INSTRUMENT_CSV_HEAD[..], &CSV_COLUMNS].concat();
    let mut w = Table::new(table::columns(&columns, columns.len()));
    for c in &a.cells {
        cell_csv(&mut w, c);
    }
    for s in &a.shifts {
        for (metric, shift) in [("p50_shift", &s.p50), ("p99_shift", &s.p99)] {
            let Some(x) = shift else { continue };
            write_row(
                &mut w,
                CsvRow {
                    section: "shift",
                    label: &s.label,
                    baseline: &s.baseline,
                    cell: Some((&s.cell, s.pretouch)),
                    metric,
                    value: x.estimate.to_string(),
                    range: Some((x.low.to_string(), x.high.to_string())),
                    unit: "ns",
                    rest: [LatencyShift::mark(Some(x)), "", "", ""],
                },
            );
        }
    }
    for note in remarks(a) {
        let (metric, value) = note.split_once(": ").unwrap_or(("note", &note));
        write_row(
            &mut w,
            CsvRow {
                section: "note",
                metric: &metric.replace(' ', "_"),
                value: value.to_owned(),
                ..CsvRow::default()
            },
        );
    }
    w.csv()
}

/// A cell's rows of the probe CSV: its latency figures, histogram and lock waits.
fn cell_csv(w: &mut Table, c: &CellProbes) {
    let at = Some((&c.cell, c.pretouch));
    for (metric, value, range, unit) in latency_figures(c) {
        write_row(
            w,
            CsvRow {
                section: "latency",
                label: &c.label,
                cell: at,
                metric,
                value,
                range,
                unit,
                ..CsvRow::default()
            },
        );
    }
    if let Some(l) = &c.latency {
        for b in &l.histogram {
            write_row(
                w,
                CsvRow {
                    section: "histogram",
                    label: &c.label,
                    cell: at,
                    metric: "faults",
                    value: b.count.to_string(),
                    range: Some((b.low_ns.to_string(), b.high_ns.to_string())),
                    unit: "count",
                    ..CsvRow::default()
                },
            );
        }
    }
    if let Ok(locks) = &c.locks {
        for l in locks {
            for (metric, value, unit) in [
                ("waits", l.count.to_string(), "count"),
                ("total", l.total.0.to_string(), "ns"),
                ("max", l.max.0.to_string(), "ns"),
                ("per_launch", l.per_launch_ns.to_string(), "ns"),
            ] {
                write_row(
                    w,
                    CsvRow {
                        section: "lock",
                        label: &c.label,
                        cell: at,
                        metric,
                        value,
                        unit,
                        rest: ["", &l.lock, &l.kind, &l.caller],
                        ..CsvRow::default()
                    },
                );
            }
        }
    }
}

/// One figure of a cell: metric, value, its `[low, high)` range, unit.
type Figure = (&'static str, String, Option<(String, String)>, &'static str);

/// A cell's latency figures.
fn latency_figures(c: &CellProbes) -> Vec<Figure> {
    let ns = |q: &Quantile| Some((q.low.0.to_string(), q.high.0.to_string()));
    let mut out = vec![
        ("launches", c.launches.to_string(), None, "count"),
        ("failed", c.failed.to_string(), None, "count"),
    ];
    if let Some(l) = &c.latency {
        out.push((
            "faults_per_launch",
            l.faults_per_launch.to_string(),
            None,
            "count",
        ));
        out.push(("faults", l.count.to_string(), None, "count"));
        for (name, q) in [("p50", &l.p50), ("p90", &l.p90), ("p99", &l.p99)] {
            out.push((name, q.mid_ns().to_string(), ns(q), "ns"));
        }
        out.push(("max", l.max.0.to_string(), None, "ns"));
    }
    if let Some(ag) = c.worst_agreement {
        out.push(("worst_agreement", ag.diff_pct.to_string(), None, "%"));
    }
    if let Some(cost) = c.cost {
        out.push((
            "probed_time_to_main",
            cost.probed_ms.to_string(),
            None,
            "ms",
        ));
        out.push(("timed_time_to_main", cost.timed_ms.to_string(), None, "ms"));
        out.push(("probe_cost", cost.delta_ms().to_string(), None, "ms"));
        out.push(("probe_cost_pct", cost.pct().to_string(), None, "%"));
    }
    if let Some(cmd) = &c.c2c_command {
        out.push(("c2c_command", cmd.join(" "), None, ""));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::probe::fixtures::{lock_wait, probe_record};
    use crate::features::probe::launch::{Contention, LocksUnsupported};
    use crate::features::probe::record::LabelledProbe;
    use crate::fixtures::{FakeCell, file, host};
    use crate::matrix::Gc;

    fn analysis(edit: impl Fn(&mut crate::features::probe::record::ProbeRecord)) -> ProbeAnalysis {
        let files = [file(
            "base",
            "t",
            host("h"),
            &[FakeCell {
                gc: Gc::G1,
                heap: "1g",
                rounds: &[(50.0, 400.0)],
            }],
        )];
        let cell = files[0].launches[0].cell.clone();
        let probes = (0..4u64)
            .map(|seq| {
                let values: Vec<u64> = (0..500).map(|j| 1_000 + j * 3).collect();
                let mut r = probe_record(
                    &cell,
                    seq,
                    seq % 2 == 1,
                    60.0,
                    &values,
                    503,
                    vec![lock_wait("zone_lock", "rmqueue_bulk+0x5b", 2, 900, 500)],
                );
                edit(&mut r);
                LabelledProbe {
                    label: "base".into(),
                    record: r,
                }
            })
            .collect::<Vec<_>>();
        crate::features::probe::analyze::build(&files, &probes, "base")
    }

    #[test]
    fn the_populate_shortfall_of_thp_is_explained_once_and_unmeasured_locks_say_why() {
        let a = analysis(|r| {
            if r.at.pretouch {
                r.launched
                    .command
                    .push("-XX:+UseTransparentHugePages".into());
                r.main_faults = Some(5_000);
            }
            r.contention = Some(Contention::Unsupported {
                why: LocksUnsupported::NoTracepoints,
            });
        });
        assert_eq!((a.disagreeing, a.disagreeing_populate), (2, 2));
        let text = text(&a);
        assert_eq!(text.matches("MADV_POPULATE_WRITE").count(), 1, "{text}");
        assert!(
            text.contains("fault count: 2 of 4 probed launches"),
            "{text}"
        );
        assert_eq!(text.matches("lock contention: not measured").count(), 1);
        assert!(!text.contains("lock waits, base"), "no lock table: {text}");
        let md = markdown(&a);
        assert!(md.contains("> lock contention: not measured"), "{md}");
        let csv = csv(&a);
        assert!(csv.contains("note,"), "{csv}");
        assert!(!csv.contains("\nlock,"), "{csv}");
    }

    #[test]
    fn where_c2c_can_run_each_cell_names_its_command_and_a_plain_shortfall_is_not_blamed_on_thp() {
        let a = analysis(|r| {
            r.c2c = C2cSupport::Available {
                events: vec!["mem-loads".into()],
            };
            r.main_faults = Some(600);
        });
        assert_eq!((a.disagreeing, a.disagreeing_populate), (4, 0));
        let text = text(&a);
        assert!(
            text.contains("perf c2c, base pt on: perf c2c record -g --"),
            "{text}"
        );
        assert!(
            text.contains("perf c2c: possible here (mem-loads)"),
            "{text}"
        );
        assert!(!text.contains("MADV_POPULATE_WRITE"), "{text}");
        assert!(text.contains("rmqueue_bulk+0x5b"), "{text}");
        assert!(
            text.contains("-16.2%!"),
            "the worst agreement, flagged: {text}"
        );
        for line in text.lines() {
            assert!(line.chars().count() <= 80, "{line}");
        }
    }

    #[test]
    fn microseconds_keep_three_figures_and_a_zero_shift_has_no_sign() {
        assert_eq!(table::us(1_234.0), "1.23");
        assert_eq!(table::us(12_345.0), "12.3");
        assert_eq!(table::us(123_456.0), "123");
        assert_eq!(table::signed_us(1.0), "0.00");
        assert_eq!(table::signed_us(-1.0), "0.00");
        assert_eq!(table::signed_us(-5_000.0), "-5.00");
        assert_eq!(table::signed_us(5_000.0), "+5.00");
    }
}
