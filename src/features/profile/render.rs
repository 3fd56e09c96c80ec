//! The profile report (`report --profile`) in every format: per cell the kernel
//! functions and categories of the pretouch, then each label's shift against the
//! baseline: first the movers in words, with their intervals, then the biggest shifts,
//! as `perf diff` and the kernel test robot print them. And the heap table's column and
//! remarks of each cell's pretouch method checked against its profile, which
//! `features::render::HEAP` and `HEAP_REMARKS` list.

use std::fmt::Write as _;

use crate::analyze::heap::CellHeap;
use crate::analyze::report::CellReport;
use crate::features::profile::analyze::{
    CellProfile, CellShift, MIN_LAUNCHES, ProfileReport, Share, Shift,
};
use crate::features::profile::method::MethodCheck;
use crate::machine::jdk::short_jdk;
use crate::render::common::{INSTRUMENT_CSV_HEAD, markdown_with_notes, shift_heading};
use crate::render::table::{self, Column, Explaining, Note, Table, WIDTH};

/// The method's check in a word or two (`agrees`, `DISAGREES: madvise populate`,
/// `inconclusive`), `-` without a profile.
pub fn check_word(check: Option<&MethodCheck>) -> String {
    match check {
        None => "-".to_owned(),
        Some(MethodCheck::Agrees) => "agrees".to_owned(),
        Some(MethodCheck::Disagrees { seen }) => format!("DISAGREES: {}", seen.name()),
        Some(MethodCheck::Inconclusive { .. }) => "inconclusive".to_owned(),
    }
}

/// The profile's column of the heap's explaining columns, after the method's.
pub const HEAP_COLUMNS: [Explaining<CellReport>; 1] = [Explaining {
    col: table::name("profile"),
    legend: "profile is the method checked against the kernel profile, where a populate \
             shows no fault-entry frames.",
    value: |c| {
        check_word(
            c.heap_and_method
                .as_ref()
                .and_then(|h| h.parts.check.as_ref()),
        )
    },
}];

/// The remark under the heap's table on a cell, named `cell`, whose profile disagrees
/// with its method or does not settle it.
pub fn heap_remark(h: &CellHeap, cell: &str) -> Option<String> {
    match &h.parts.check {
        Some(MethodCheck::Disagrees { seen }) => Some(format!(
            "warning: {cell}: the profile DISAGREES with the method {}: it looks like {}",
            h.method.method.name(),
            seen.name()
        )),
        Some(MethodCheck::Inconclusive { why }) => Some(format!(
            "note: {cell}: the profile does not settle the method: {why}"
        )),
        _ => None,
    }
}

/// Functions listed per cell in text and Markdown (CSV and JSON have all).
pub const TOP_FUNCTIONS: usize = 12;
/// Shifts listed per cell and label in the tables of text and Markdown (the movers
/// are all named above the tables, and CSV and JSON have every shift).
pub const TOP_MOVERS: usize = 10;

fn cell_title(key: &[String; 4]) -> String {
    format!("{} {} {} {}", short_jdk(&key[0]), key[1], key[2], key[3])
}

/// What a cell's figures rest on, as prose: samples, CPU, cost, perf's overhead.
fn summary(c: &CellProfile) -> String {
    let mut s = format!(
        "{}+{} profiled launches (with+without pretouch){}. With pretouch {} samples, {} in \
         pretouch frames ({}; heap {}).",
        c.launches_on,
        c.launches_off,
        if c.failed > 0 {
            format!(", {} failed", c.failed)
        } else {
            String::new()
        },
        c.samples_on,
        c.pretouch_samples,
        table::pct(c.pretouch_share_pct(), 1),
        c.heap_pretouch_samples
    );
    if let Some(cpu) = c.pretouch_cpu_ms {
        write!(s, " Pretouch CPU {} ms a launch", table::ms(cpu)).unwrap();
        if let Some(extra) = c.extra_cpu_ms {
            write!(
                s,
                " (a launch with pretouch takes {} ms CPU more than one without)",
                table::ms(extra)
            )
            .unwrap();
        }
        s.push('.');
    }
    match c.cost_ms {
        Some(cost) => write!(s, " Cost (timed launches) {} ms.", table::ms(cost)).unwrap(),
        None => s.push_str(" No timed cost for this cell: shares only."),
    }
    if let (Some(on), Some(off)) = (c.overhead_on_ms(), c.overhead_off_ms()) {
        write!(
            s,
            " perf's overhead on time to main: {} ms with pretouch ({} vs {} timed), {} ms \
             without ({} vs {}).",
            table::signed_ms(on),
            table::opt_ms(c.profiled_on_ms),
            table::opt_ms(c.timed_on_ms),
            table::signed_ms(off),
            table::opt_ms(c.profiled_off_ms),
            table::opt_ms(c.timed_off_ms)
        )
        .unwrap();
    }
    s
}

/// The first column of a share or shift table: the category or the kernel function,
/// cut to `width` in text, and a function set as code in Markdown.
fn first(function: bool, width: usize) -> Column {
    match function {
        true => Column::name("function (self)").code(),
        false => Column::name("category"),
    }
    .fit(width)
}

/// A cell's shares of the pretouch samples, by category or by function.
fn share_table(shares: &[Share], function: bool, limit: usize, width: usize) -> Table {
    let mut columns = vec![first(function, width)];
    columns.extend(table::columns(&["samples", "share", "est ms"], 0));
    Table::new(columns).with_rows(shares.iter().take(limit).map(|s| {
        [
            s.name.clone(),
            table::whole(s.samples),
            table::pct(s.pct, 1),
            table::opt_ms(s.est_ms),
        ]
    }))
}

/// A label's biggest shifts against the baseline, by category or by function.
fn shift_table(shifts: &[Shift], function: bool, width: usize) -> Table {
    let mut columns = vec![first(function, width)];
    columns.extend(table::columns(&SHIFT_HEADERS, 0));
    Table::new(columns).with_rows(shifts.iter().take(TOP_MOVERS).map(|s| {
        [
            s.name.clone(),
            table::opt_ms(s.base_ms),
            table::opt_ms(s.ms),
            table::opt_signed_ms(s.delta_ms),
            table::pp(s.delta_pp),
            if s.mover { "yes" } else { "" }.to_owned(),
        ]
    }))
}

/// The headers of a shift table after its first column's.
const SHIFT_HEADERS: [&str; 5] = ["baseline ms", "ms", "change ms", "points", "mover"];

fn profiled_launches(n: usize) -> String {
    if n == 1 {
        "1 profiled launch".to_owned()
    } else {
        format!("{n} profiled launches")
    }
}

/// What the launches say about the movers of one cell, as sentences: each mover with
/// its shift and interval, or that none moved, or that there were too few launches to
/// tell. Each entry is one paragraph. Names are set as code where `code` (Markdown),
/// because a kernel function's underscores would otherwise read as emphasis.
fn movers_prose(s: &CellShift, code: bool) -> Vec<String> {
    if !s.tested {
        return vec![format!(
            "No interval and so no mover: {} with pretouch samples in `{}` and {} in \
             `{}`, and an interval needs {MIN_LAUNCHES} on each side (run with \
             --profile-rounds {MIN_LAUNCHES} or more). The shifts below are single \
             figures, which the launches' own noise may make.",
            profiled_launches(s.launches),
            s.label,
            s.base_launches,
            s.baseline
        )];
    }
    let launches = format!(
        "the {} profiled launches of `{}` and the {} of `{}` vary, at 95% for all the \
         cell's tested shifts together",
        s.launches, s.label, s.base_launches, s.baseline
    );
    let movers: Vec<&Shift> = s
        .categories
        .iter()
        .chain(&s.functions)
        .filter(|x| x.mover)
        .collect();
    if movers.is_empty() {
        return vec![format!(
            "No category or function moved more than {launches}."
        )];
    }
    let mut out = vec![format!("Movers, whose change exceeds what {launches}:")];
    for m in movers {
        let Some(i) = m.interval else { continue };
        let mut line = format!(
            "{}: {} of a launch's pretouch samples in `{}` against {} in `{}`, a change \
             of {} points, interval {} to {} points",
            if code {
                format!("`{}`", m.name)
            } else {
                m.name.clone()
            },
            table::pct(i.pct, 1),
            s.label,
            table::pct(i.base_pct, 1),
            s.baseline,
            table::pp(i.change_pp),
            table::pp(i.low_pp),
            table::pp(i.high_pp),
        );
        if let Some(ms) = m.delta_ms {
            write!(line, ", about {} ms of the cost", table::signed_ms(ms)).unwrap();
        }
        line.push('.');
        out.push(line);
    }
    out
}

const NOTES: &str = "share = of the samples whose stack passes through the JVM's \
pretouch frames (os::pretouch_memory, PretouchTask::*), by the leaf function (self \
time; [k] kernel, [.] the JVM) or by category (locks and helpers count for their \
caller's category); est ms = share x the cell's pretouch cost from the timed launches. \
The profiled launches ran after the timed ones, under perf record -e cpu-clock -g, and \
are in no median. cpu-clock is a timer: samples due while interrupts were off land \
where they are turned back on (exc_page_fault, *_irqrestore), so those leaves are \
partly time of the code before them.";

/// The profile's analysis as text tables.
pub fn text(report: &ProfileReport) -> String {
    let mut out = String::new();
    if report.cells.is_empty() {
        return table::wrap(
            "profile: no profiled launches in these results (run with `pretouch run \
             --profile`)",
            2,
        );
    }
    out += "where the pretouch time goes (perf, cpu-clock, call graphs)\n";
    // 2 indent + name + 3 gaps of 2 + samples 7 + share 6 + est ms 6.
    let fn_width = WIDTH - 2 - 6 - 7 - 6 - 6;
    for c in &report.cells {
        writeln!(out, "\n{}  {}", c.label, cell_title(&c.key)).unwrap();
        out += &table::wrap(&format!("  {}", summary(c)), 2);
        if c.pretouch_samples == 0 {
            out += "  no sample passes through pretouch frames\n";
            continue;
        }
        out += &share_table(&c.categories, false, usize::MAX, fn_width).text(2);
        out += &share_table(&c.functions, true, TOP_FUNCTIONS, fn_width).text(2);
        if c.functions.len() > TOP_FUNCTIONS {
            writeln!(
                out,
                "  ... {} more functions (--format csv or json lists all)",
                c.functions.len() - TOP_FUNCTIONS
            )
            .unwrap();
        }
    }
    if !report.shifts.is_empty() {
        writeln!(
            out,
            "\nshift against the baseline `{}`: the movers, then the biggest\nshifts in estimated ms of the pretouch cost and in points of share",
            report.baseline
        )
        .unwrap();
        // 2 indent + name + 5 gaps + baseline ms 11 + ms 7 + change ms 9 + points 6 +
        // mover 5.
        let width = WIDTH - 2 - 10 - 11 - 7 - 9 - 6 - 5;
        for s in &report.shifts {
            out += &shift_text(s, width);
        }
    }
    out += "\n";
    out += &table::notes_text(&notes());
    out
}

/// The notes under the profile's tables.
fn notes() -> Vec<Note> {
    vec![Note::Legend(NOTES.to_owned())]
}

fn shift_text(s: &CellShift, width: usize) -> String {
    let mut out = format!(
        "\n{}\n",
        shift_heading(&cell_title(&s.key), &s.label, &s.baseline)
    );
    for (i, paragraph) in movers_prose(s, false).iter().enumerate() {
        let indent = if i == 0 { "  " } else { "  - " };
        out += &table::wrap(&format!("{indent}{paragraph}"), if i == 0 { 2 } else { 4 });
    }
    out += &shift_table(&s.categories, false, width).text(2);
    out += &shift_table(&s.functions, true, width).text(2);
    out
}

/// The profile's analysis as Markdown tables.
pub fn markdown(report: &ProfileReport) -> String {
    let mut out = String::from("## Where the pretouch time goes\n\n");
    if report.cells.is_empty() {
        out += "No profiled launches in these results (run `pretouch run --profile`).\n";
        return out;
    }
    for c in &report.cells {
        writeln!(
            out,
            "### {} {}\n\n{}\n",
            c.label,
            cell_title(&c.key),
            summary(c)
        )
        .unwrap();
        if c.pretouch_samples == 0 {
            continue;
        }
        out += &share_table(&c.categories, false, usize::MAX, WIDTH).markdown();
        out.push('\n');
        out += &share_table(&c.functions, true, TOP_FUNCTIONS, WIDTH).markdown();
        out.push('\n');
    }
    if !report.shifts.is_empty() {
        writeln!(
            out,
            "### Shift against the baseline `{}`\n\nThe movers first, then the biggest shifts in estimated ms of the pretouch cost and in points of share.\n",
            report.baseline
        )
        .unwrap();
        for s in &report.shifts {
            let heading = shift_heading(&cell_title(&s.key), &s.label, &s.baseline);
            writeln!(out, "**{heading}**\n").unwrap();
            let prose = movers_prose(s, true);
            for (i, paragraph) in prose.iter().enumerate() {
                if i == 0 {
                    writeln!(out, "{paragraph}\n").unwrap();
                } else {
                    writeln!(out, "- {paragraph}").unwrap();
                }
            }
            if prose.len() > 1 {
                out.push('\n');
            }
            out += &shift_table(&s.categories, false, WIDTH).markdown();
            out.push('\n');
            out += &shift_table(&s.functions, true, WIDTH).markdown();
            out.push('\n');
        }
    }
    markdown_with_notes(&out, &notes())
}

/// The profile's analysis, a CSV row per figure (`--profile-csv`).
pub fn csv(report: &ProfileReport) -> String {
    let columns = [
        &INSTRUMENT_CSV_HEAD[..],
        &[
            "kind",
            "name",
            "value",
            "samples",
            "share_pct",
            "est_ms",
            "base_share_pct",
            "base_est_ms",
            "delta_pp",
            "delta_ms",
            "launch_base_share_pct",
            "launch_share_pct",
            "change_pp",
            "interval_low_pp",
            "interval_high_pp",
            "mover",
        ],
    ]
    .concat();
    let mut w = Table::new(table::columns(&columns, 0));
    let f = |v: Option<f64>| v.map_or_else(String::new, |v| format!("{v:.3}"));
    for c in &report.cells {
        let head = |kind: &str, name: &str| {
            vec![
                "profile".to_owned(),
                c.label.clone(),
                String::new(),
                c.key[0].clone(),
                c.key[1].clone(),
                c.key[2].clone(),
                c.key[3].clone(),
                kind.to_owned(),
                name.to_owned(),
            ]
        };
        let count = |n: u64| Some(n.to_string());
        let summary: [(&str, Option<String>); 13] = [
            ("launches_on", count(c.launches_on as u64)),
            ("launches_off", count(c.launches_off as u64)),
            ("failed", count(c.failed as u64)),
            ("samples_on", count(c.samples_on)),
            ("samples_off", count(c.samples_off)),
            ("pretouch_samples", count(c.pretouch_samples)),
            ("heap_pretouch_samples", count(c.heap_pretouch_samples)),
            ("pretouch_cpu_ms", c.pretouch_cpu_ms.map(|v| f(Some(v)))),
            ("extra_cpu_ms", c.extra_cpu_ms.map(|v| f(Some(v)))),
            ("cost_ms", c.cost_ms.map(|v| f(Some(v)))),
            (
                "perf_overhead_on_ms",
                c.overhead_on_ms().map(|v| f(Some(v))),
            ),
            (
                "perf_overhead_off_ms",
                c.overhead_off_ms().map(|v| f(Some(v))),
            ),
            ("period_ms", Some(f(Some(c.period_ms)))),
        ];
        for (name, value) in summary {
            let mut r = head("summary", name);
            r.push(value.unwrap_or_default());
            r.extend(std::iter::repeat_n(String::new(), 13));
            w.push(r);
        }
        for (kind, shares) in [("category", &c.categories), ("function", &c.functions)] {
            for s in shares {
                let mut r = head(kind, &s.name);
                r.extend([
                    String::new(),
                    s.samples.to_string(),
                    format!("{:.3}", s.pct),
                    f(s.est_ms),
                ]);
                r.extend(std::iter::repeat_n(String::new(), 10));
                w.push(r);
            }
        }
    }
    for s in &report.shifts {
        for (kind, shifts) in [("category", &s.categories), ("function", &s.functions)] {
            for x in shifts {
                w.push([
                    "shift".to_owned(),
                    s.label.clone(),
                    s.baseline.clone(),
                    s.key[0].clone(),
                    s.key[1].clone(),
                    s.key[2].clone(),
                    s.key[3].clone(),
                    kind.to_owned(),
                    x.name.clone(),
                    String::new(),
                    String::new(),
                    format!("{:.3}", x.pct),
                    f(x.ms),
                    format!("{:.3}", x.base_pct),
                    f(x.base_ms),
                    format!("{:.3}", x.delta_pp),
                    f(x.delta_ms),
                    f(x.interval.map(|i| i.base_pct)),
                    f(x.interval.map(|i| i.pct)),
                    f(x.interval.map(|i| i.change_pp)),
                    f(x.interval.map(|i| i.low_pp)),
                    f(x.interval.map(|i| i.high_pp)),
                    x.mover.to_string(),
                ]);
            }
        }
    }
    w.csv()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyze::report::{CellReport, Report};
    use crate::features::profile::analyze::build;

    #[test]
    fn a_check_that_disagrees_or_settles_nothing_is_said_under_the_heap_table() {
        use crate::analyze::method::PretouchMethod;
        use crate::features::profile::method::{ProfileEvidence, check_against_profile};
        let mut h = crate::analyze::heap::cell_heap::<crate::store::LaunchRecord>(
            "25.0.3",
            crate::matrix::Gc::G1,
            &[],
            &[],
            None,
        );
        assert_eq!(check_word(h.parts.check.as_ref()), "-");
        assert_eq!(heap_remark(&h, "g1"), None);
        let populate = ProfileEvidence {
            fault_entry_samples: 0,
            populate_samples: 400,
        };
        h.parts.check = Some(check_against_profile(h.method.method, populate));
        assert_eq!(
            check_word(h.parts.check.as_ref()),
            "DISAGREES: madvise populate"
        );
        assert_eq!(
            heap_remark(&h, "g1").unwrap(),
            "warning: g1: the profile DISAGREES with the method atomic add: it looks like madvise populate"
        );
        h.method.method = PretouchMethod::MadvisePopulate;
        h.parts.check = Some(check_against_profile(h.method.method, populate));
        assert_eq!(check_word(h.parts.check.as_ref()), "agrees");
        assert_eq!(heap_remark(&h, "g1"), None);
        let few = ProfileEvidence {
            fault_entry_samples: 1,
            populate_samples: 1,
        };
        h.parts.check = Some(check_against_profile(h.method.method, few));
        assert_eq!(check_word(h.parts.check.as_ref()), "inconclusive");
        assert!(
            heap_remark(&h, "g1").unwrap().starts_with(
                "note: g1: the profile does not settle the method: 2 pretouch samples"
            ),
        );
        // The column reads the cell's check, `-` for a cell without a heap.
        let mut c = CellReport::default();
        assert_eq!((HEAP_COLUMNS[0].value)(&c), "-");
        c.heap_and_method = Some(h);
        assert_eq!((HEAP_COLUMNS[0].value)(&c), "inconclusive");
    }
    use crate::features::profile::record::{LabelledProfile, ProfileRecord};

    const FAULT: &str = "GC_Thread;start_thread;GangWorker::loop;os::pretouch_memory;asm_exc_page_fault_[k];exc_page_fault_[k];handle_mm_fault_[k];__handle_mm_fault_[k];do_anonymous_page_[k]";

    fn record(label: &str, pretouch: bool, folded: &[String]) -> LabelledProfile {
        LabelledProfile {
            label: label.into(),
            record: ProfileRecord {
                at: crate::store::PlannedAs {
                    seq: 0,
                    round: 0,
                    cell: crate::store::CellKey {
                        jdk: "17.0.15+6-Debian-1deb12u1".into(),
                        gc: crate::matrix::Gc::G1,
                        heap: "1g".into(),
                        variant: "default".into(),
                        gc_threads: "auto".into(),
                        cpus: "all".into(),
                        app: None,
                        features: Default::default(),
                    },
                    pretouch,
                },
                launched: crate::store::Launched {
                    command: Vec::new(),
                    started_at: String::new(),
                    time_to_main_ns: Some(crate::units::Nanos(
                        if pretouch { 500 } else { 90 } * 1_000_000,
                    )),
                    failure: None,
                },
                wall_ns: crate::units::Nanos(0),
                event: "cpu-clock".into(),
                frequency_hz: 1000,
                call_graph: "fp".into(),
                samples: crate::features::profile::launch::folded_samples(folded),
                folded: folded.to_vec(),
                perf_data: None,
            },
        }
    }

    /// Two labels: the baseline zeroes 4 KiB pages, the other huge pages at a tenth, one
    /// profiled launch each.
    pub(crate) fn two_labels() -> ProfileReport {
        two_labels_of(1)
    }

    /// The same change, each label with `launches` profiled launches with pretouch whose
    /// counts differ a little from launch to launch.
    fn two_labels_of(launches: usize) -> ProfileReport {
        let base = [
            format!("{FAULT};clear_page_erms_[k] 300"),
            format!("{FAULT} 60"),
            format!("{FAULT};__pte_offset_map_lock_[k];_raw_spin_lock_[k] 40"),
            "java;JavaMain 50".to_owned(),
        ];
        let thp = [
            "GC_Thread;start_thread;GangWorker::loop;os::pretouch_memory;asm_exc_page_fault_[k];exc_page_fault_[k];handle_mm_fault_[k];__handle_mm_fault_[k];do_huge_pmd_anonymous_page_[k];vma_alloc_anon_folio_pmd_[k];folio_zero_user_[k];clear_page_erms_[k] 38".to_owned(),
            format!("{FAULT} 2"),
            "java;JavaMain 50".to_owned(),
        ];
        let off = ["java;JavaMain 45".to_owned()];
        // Launch i adds (3 i + 5 j) mod 7 samples to line j, so the shares wander.
        let varied = |lines: &[String], i: usize| -> Vec<String> {
            lines
                .iter()
                .enumerate()
                .map(|(j, line)| {
                    let (stack, n) = line.rsplit_once(' ').unwrap();
                    let n: usize = n.parse().unwrap();
                    format!("{stack} {}", n + (3 * i + 5 * j) % 7)
                })
                .collect()
        };
        let mut profiles = Vec::new();
        for (label, on) in [("madvise", &base[..]), ("always", &thp[..])] {
            for i in 0..launches {
                profiles.push(record(
                    label,
                    true,
                    &if i == 0 { on.to_vec() } else { varied(on, i) },
                ));
            }
            profiles.push(record(label, false, &off));
        }
        let row = |label: &str, cost: f64| CellReport {
            id: crate::analyze::report::CellId {
                label: label.into(),
                jdk: "17.0.15+6-Debian-1deb12u1".into(),
                gc: "g1".into(),
                heap: "1g".into(),
                variant: "default".into(),
            },
            times: crate::analyze::report::CellTimes {
                pretouch_ms: Some(cost),
                median_on_ms: Some(400.0),
                median_off_ms: Some(40.0),
                ..Default::default()
            },
            axes: crate::analyze::report::CellAxes {
                gc_threads: "auto".into(),
                cpus: "all".into(),
                ..Default::default()
            },
            ..CellReport::default()
        };
        let report = Report {
            cells: vec![row("madvise", 400.0), row("always", 40.0)],
            labels: vec!["madvise".into(), "always".into()],
            warnings: Vec::new(),
            env_differences: Vec::new(),
            stops: Vec::new(),
            outliers_excluded: false,
            label_info: Vec::new(),
            run_to_run: Vec::new(),
            machine_notes: Vec::new(),
        };
        build(
            &report,
            &profiles,
            &["madvise".to_owned(), "always".to_owned()],
            "madvise",
        )
    }

    #[test]
    fn the_shift_names_huge_page_zeroing_and_fits_72_columns() {
        let report = two_labels();
        assert_eq!(report.cells.len(), 2);
        let s = &report.shifts[0];
        // Baseline: zeroing 300 of 400 pretouch samples of a 400 ms cost = 300 ms; THP
        // label: all zeroing is huge-page zeroing, 38 of 40 of 40 ms = 38 ms.
        assert_eq!(s.categories[0].name, "page zeroing");
        assert!((s.categories[0].delta_ms.unwrap() + 300.0).abs() < 1e-9);
        let huge = s
            .categories
            .iter()
            .find(|c| c.name == "huge-page zeroing")
            .unwrap();
        assert!((huge.delta_ms.unwrap() - 38.0).abs() < 1e-9);
        let text = text(&report);
        for line in text.lines() {
            assert!(line.chars().count() <= WIDTH, "too wide: {line:?}");
            assert_eq!(line, line.trim_end());
        }
        assert!(text.contains("huge-page zeroing"));
        assert!(text.contains("always against madvise"));
        assert!(text.contains("[k] clear_page_erms"));
        // perf's overhead: 500 ms profiled against 400 ms timed with pretouch.
        assert!(
            text.replace("\n  ", " ")
                .contains("perf's overhead on time to main: +100 ms with pretouch")
        );
    }

    #[test]
    fn text_reads_like_perf_diff() {
        insta::assert_snapshot!(text(&two_labels()), @"
        where the pretouch time goes (perf, cpu-clock, call graphs)

        madvise  17.0.15+6 g1 1g default
          1+1 profiled launches (with+without pretouch). With pretouch 450
          samples, 400 in pretouch frames (88.9%; heap 400). Pretouch CPU 400 ms
          a launch (a launch with pretouch takes 405 ms CPU more than one
          without). Cost (timed launches) 400 ms. perf's overhead on time to
          main: +100 ms with pretouch (500 vs 400 timed), +50.0 ms without (90.0
          vs 40.0).
          category          samples  share  est ms
          page zeroing          300  75.0%     300
          fault entry/exit       60  15.0%    60.0
          page tables            40  10.0%    40.0
          function (self)        samples  share  est ms
          [k] clear_page_erms        300  75.0%     300
          [k] do_anonymous_page       60  15.0%    60.0
          [k] _raw_spin_lock          40  10.0%    40.0

        always  17.0.15+6 g1 1g default
          1+1 profiled launches (with+without pretouch). With pretouch 90
          samples, 40 in pretouch frames (44.4%; heap 40). Pretouch CPU 40.0 ms
          a launch (a launch with pretouch takes 45.0 ms CPU more than one
          without). Cost (timed launches) 40.0 ms. perf's overhead on time to
          main: +100 ms with pretouch (500 vs 400 timed), +50.0 ms without (90.0
          vs 40.0).
          category           samples  share  est ms
          huge-page zeroing       38  95.0%    38.0
          fault entry/exit         2   5.0%     2.0
          function (self)        samples  share  est ms
          [k] clear_page_erms         38  95.0%    38.0
          [k] do_anonymous_page        2   5.0%     2.0

        shift against the baseline `madvise`: the movers, then the biggest
        shifts in estimated ms of the pretouch cost and in points of share

        17.0.15+6 g1 1g default: always against madvise
          No interval and so no mover: 1 profiled launch with pretouch samples
          in `always` and 1 in `madvise`, and an interval needs 4 on each side
          (run with --profile-rounds 4 or more). The shifts below are single
          figures, which the launches' own noise may make.
          category           baseline ms    ms  change ms  points  mover
          page zeroing               300   0.0       -300   -75.0
          fault entry/exit          60.0   2.0      -58.0   -10.0
          page tables               40.0   0.0      -40.0   -10.0
          huge-page zeroing          0.0  38.0      +38.0   +95.0
          function (self)        baseline ms    ms  change ms  points  mover
          [k] clear_page_erms            300  38.0       -262   +20.0
          [k] do_anonymous_page         60.0   2.0      -58.0   -10.0
          [k] _raw_spin_lock            40.0   0.0      -40.0   -10.0

        share = of the samples whose stack passes through the JVM's pretouch
        frames (os::pretouch_memory, PretouchTask::*), by the leaf function
        (self time; [k] kernel, [.] the JVM) or by category (locks and helpers
        count for their caller's category); est ms = share x the cell's pretouch
        cost from the timed launches. The profiled launches ran after the timed
        ones, under perf record -e cpu-clock -g, and are in no median. cpu-clock
        is a timer: samples due while interrupts were off land where they are
        turned back on (exc_page_fault, *_irqrestore), so those leaves are
        partly time of the code before them.
        ");
    }

    #[test]
    fn csv_json_and_markdown_hold_the_same_figures() {
        let report = two_labels();
        let csv_text = csv(&report);
        let mut reader = csv::Reader::from_reader(csv_text.as_bytes());
        let headers = reader.headers().unwrap().clone();
        let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
        assert!(rows.iter().all(|r| r.len() == headers.len()));
        let zeroing = rows
            .iter()
            .find(|r| &r[0] == "profile" && &r[1] == "madvise" && &r[8] == "page zeroing")
            .unwrap();
        assert_eq!(&zeroing[12], "300.000");
        let shift = rows
            .iter()
            .find(|r| &r[0] == "shift" && &r[8] == "page zeroing")
            .unwrap();
        assert_eq!(&shift[16], "-300.000");
        let json: serde_json::Value = serde_json::to_value(&report).unwrap();
        assert_eq!(json["cells"][0]["pretouch_samples"], 400);
        assert_eq!(json["shifts"][0]["categories"][0]["name"], "page zeroing");
        let md = markdown(&report);
        assert!(md.contains("| page zeroing | 300 | 75.0% | 300 |"), "{md}");
        assert!(md.contains("### Shift against the baseline `madvise`"));
    }

    #[test]
    fn too_few_launches_say_so_and_name_no_mover() {
        let text = text(&two_labels()).replace("\n  ", " ");
        assert!(
            text.contains(
                "No interval and so no mover: 1 profiled launch with pretouch samples in \
                 `always` and 1 in `madvise`, and an interval needs 4 on each side"
            ),
            "{text}"
        );
        assert!(!text.contains("yes"));
        assert!(markdown(&two_labels()).contains("No interval and so no mover"));
    }

    #[test]
    fn movers_are_named_with_their_shift_and_interval_in_words() {
        let report = two_labels_of(5);
        let s = &report.shifts[0];
        assert!(s.tested);
        let text = text(&report);
        for line in text.lines() {
            assert!(line.chars().count() <= WIDTH, "too wide: {line:?}");
            assert_eq!(line, line.trim_end());
        }
        let section = text
            .split("17.0.15+6 g1 1g default: always against madvise")
            .nth(1)
            .unwrap()
            .split("share = ")
            .next()
            .unwrap();
        insta::assert_snapshot!(section, @"

        Movers, whose change exceeds what the 5 profiled launches of `always`
        and the 5 of `madvise` vary, at 95% for all the cell's tested shifts
        together:
        - page zeroing: 0.0% of a launch's pretouch samples in `always`
          against 74.4% in `madvise`, a change of -74.4 points, interval -79.3
          to -69.5 points, about -298 ms of the cost.
        - fault entry/exit: 7.8% of a launch's pretouch samples in `always`
          against 15.1% in `madvise`, a change of -7.3 points, interval -11.7
          to -2.9 points, about -57.2 ms of the cost.
        - page tables: 0.0% of a launch's pretouch samples in `always` against
          10.5% in `madvise`, a change of -10.5 points, interval -13.5 to -7.5
          points, about -42.0 ms of the cost.
        - huge-page zeroing: 92.2% of a launch's pretouch samples in `always`
          against 0.0% in `madvise`, a change of +92.2 points, interval +88.0
          to +96.4 points, about +36.8 ms of the cost.
        - [k] clear_page_erms: 92.2% of a launch's pretouch samples in
          `always` against 74.4% in `madvise`, a change of +17.8 points,
          interval +13.0 to +22.6 points, about -261 ms of the cost.
        - [k] do_anonymous_page: 7.8% of a launch's pretouch samples in
          `always` against 15.1% in `madvise`, a change of -7.3 points,
          interval -11.7 to -2.9 points, about -57.2 ms of the cost.
        - [k] _raw_spin_lock: 0.0% of a launch's pretouch samples in `always`
          against 10.5% in `madvise`, a change of -10.5 points, interval -13.5
          to -7.5 points, about -42.0 ms of the cost.
        category           baseline ms    ms  change ms  points  mover
        page zeroing               298   0.0       -298   -74.4    yes
        fault entry/exit          60.5   3.2      -57.2    -7.1    yes
        page tables               42.0   0.0      -42.0   -10.5    yes
        huge-page zeroing          0.0  36.8      +36.8   +92.0    yes
        function (self)        baseline ms    ms  change ms  points  mover
        [k] clear_page_erms            298  36.8       -261   +17.6    yes
        [k] do_anonymous_page         60.5   3.2      -57.2    -7.1    yes
        [k] _raw_spin_lock            42.0   0.0      -42.0   -10.5    yes
        ");
        let md = markdown(&report);
        assert!(md.contains("- `huge-page zeroing`: "), "{md}");
        assert!(md.contains("- `[k] _raw_spin_lock`: "), "{md}");
        let csv_text = csv(&report);
        let mut reader = csv::Reader::from_reader(csv_text.as_bytes());
        let headers = reader.headers().unwrap().clone();
        let mover = headers.iter().position(|h| h == "mover").unwrap();
        let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
        let huge = rows
            .iter()
            .find(|r| &r[0] == "shift" && &r[8] == "huge-page zeroing")
            .unwrap();
        assert_eq!(&huge[mover], "true");
    }

    #[test]
    fn flame_graphs_per_cell_and_a_differential_one() {
        let written =
            crate::features::profile::flamegraph::graphs(&two_labels_of(5), true).unwrap();
        let names: Vec<&str> = written.iter().map(|(name, _)| name.as_str()).collect();
        assert_eq!(
            names,
            [
                "madvise-17.0.15_6-g1-1g-default.svg",
                "always-17.0.15_6-g1-1g-default.svg",
                "diff-madvise-to-always-17.0.15_6-g1-1g-default.svg",
                "diff-madvise-to-always-17.0.15_6-g1-1g-default-baseline-shape.svg",
            ]
        );
        let diff = String::from_utf8(written[2].1.clone()).unwrap();
        assert!(diff.starts_with("<?xml"));
        // Differential titles carry the change of each frame's share.
        assert!(
            diff.contains("do_huge_pmd_anonymous_page"),
            "the THP frames are drawn"
        );
        assert!(
            diff.contains("%)") && diff.contains("+"),
            "changes in the titles"
        );
        // The movers are red or blue, everything else one neutral grey.
        let fills: Vec<&str> = diff
            .split("fill=\"rgb(")
            .skip(1)
            .map(|f| f.split(')').next().unwrap())
            .collect();
        assert!(fills.contains(&"200,200,200"), "grey frames");
        assert!(!fills.contains(&"250,250,250"), "no near-white frame left");
        assert!(
            fills.iter().any(|f| f.starts_with("255,"))
                || fills.iter().any(|f| f.ends_with(",255")),
            "a red or blue mover: {fills:?}"
        );
        // With one launch a side nothing is a mover, so nothing is coloured.
        let one = crate::features::profile::flamegraph::graphs(&two_labels(), true).unwrap();
        let diff = String::from_utf8(one[2].1.clone()).unwrap();
        let coloured = diff
            .split("fill=\"rgb(")
            .skip(1)
            .filter(|f| f.starts_with("255,") || f.split(')').next().unwrap().ends_with(",255"))
            .count();
        assert_eq!(coloured, 0);
        assert!(diff.contains("too few profiled launches"));
    }
}
