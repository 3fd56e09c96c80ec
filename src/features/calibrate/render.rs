//! Stage 6, rendering: calibrations. The table `pretouch calibrate` prints for one
//! ([`run_text`]), and several labels side by side (`pretouch report --calibrate`), as
//! the reference series' microbenchmark table: text within 72 columns, Markdown, CSV.
//! Every rate is written by [`rate`]. Reads `features::calibrate::machine`'s and
//! `features::calibrate::analyze`'s types; computes nothing.

use std::fmt::Write as _;

use serde::Serialize;

use crate::analyze::labels::Interval;
use crate::analyze::report::RunToRun;
use crate::features::calibrate::analyze::{CalibrationComparison, Config, Entry, Rates, Row};
use crate::features::calibrate::machine::{Calibration, MemoryDuring};
use crate::machine::topology::Placement;
use crate::matrix::cpuset::format_list;
use crate::render::labels::{self, legend_line, levels, minute};
use crate::render::table::{self, Cell, Column, Note, Shown, Table};

fn gain(e: &Entry) -> String {
    labels::percent(e.change.as_ref(), "-")
}

fn cpu(e: &Entry) -> String {
    e.measured
        .cpu_share
        .map_or_else(|| "-".to_owned(), |s| table::pct(100.0 * s, 0))
}

fn fault(e: &Entry) -> String {
    table::fault_size(e.measured.fault_bytes)
}

/// The shift with its mark and its interval; `few rounds` where the interval does not
/// reach the column's level.
fn shift(e: &Entry) -> (String, String) {
    match e.change {
        Some(c) if c.testable => (
            labels::estimate(Some(&c), table::signed_count),
            c.interval.map_or_else(String::new, |s| {
                format!(
                    "{}..{}",
                    table::signed_count(s.low),
                    table::signed_count(s.high)
                )
            }),
        ),
        Some(c) if c.interval.is_some() => ("few rounds".to_owned(), String::new()),
        _ => (String::new(), String::new()),
    }
}

/// `6x3`: rounds x passes per round.
fn rounds(e: &Entry) -> String {
    let m = &e.measured;
    format!("{}x{}", m.rounds, m.passes / m.rounds.max(1))
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
        .map(|e| {
            e.as_ref()
                .map_or("-".to_owned(), |e| table::count(e.measured.median_per_s))
        })
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
        out += &legend_line(
            c,
            &format!(
                "{} UTC, kernel {}",
                minute(&c.info.started_at),
                c.info.kernel
            ),
        );
    }
    let first = &cmp.columns[0];
    let mut machine = first.info.cpu_model.clone();
    if let Some(t) = &first.info.topology {
        machine += &format!("; {t}");
    }
    out += &table::wrap(&format!("machine: {machine}"), 2);
    out
}

const NOTE: &str = "A rate is 4 KiB pages made present per wall-second, the median of \
the label's round medians. For 4 KiB faults that is faults per second, as pft reports \
them, and a 2 MiB fault counts 512. In zap, the threads write one shared anonymous \
mapping, each its own slice, with MADV_DONTNEED between passes. pft maps afresh every \
pass, and huge is zap on a MADV_HUGEPAGE mapping. CPUs is the set the workers were \
pinned to, one worker per CPU. gain is the median over the baseline's median, less 1. n \
is rounds x passes. min-max and spread are of the round medians, and spread is their \
range over their median. cpu is the workers' CPU time over their time in the passes, so \
below 100% they were preempted. fault is the bytes the kernel mapped per fault. shift is \
the Hodges-Lehmann shift of the round medians against the baseline's, with its \
Mann-Whitney interval. R gives the same with wilcox.test(x, y, conf.int = TRUE, \
conf.level = L).";

/// One line per label calibrated more than once: its own A/A pairs.
fn run_to_run(cmp: &CalibrationComparison) -> Vec<String> {
    cmp.run_to_run
        .iter()
        .map(|r| {
            format!(
                "run-to-run check: `{}` has {} calibrations. Its oldest against each later \
                 one marks {} of {} rows.",
                r.label, r.runs, r.significant, r.cells
            )
        })
        .collect()
}

/// What the mark means here: the family confidence and each column's row level.
fn mark_note(cmp: &CalibrationComparison) -> String {
    format!(
        "* marks an interval that excludes 0. Each column's marks hold together at {}, \
         because its rows' intervals are at 1 - {} / rows, by Bonferroni. {}. So where \
         no row differs, and rounds vary as independent runs would, a column holds any \
         mark at most {} of the time. The test is on rounds, not passes, because the \
         passes of one round share the machine's state. `few rounds` means too few \
         rounds a side for that level, so the row gets no mark. 6 rounds a side allow up \
         to 23 rows.",
        table::pct(100.0 * cmp.confidence, 0),
        table::fraction(1.0 - cmp.confidence, 2),
        levels(cmp, "row", "L = "),
        table::pct(100.0 * (1.0 - cmp.confidence), 0)
    )
}

/// Each row's median rate under each label, then each label's gain against the
/// baseline. Text heads a label's column with its letter, Markdown with its name.
fn rates_table(cmp: &CalibrationComparison) -> Table {
    let mut columns = vec![Column::name("CPUs"), Column::name("test")];
    columns.extend(
        (cmp.columns.iter()).map(|c| Column::num(c.letter.as_str()).wide_header(c.label.as_str())),
    );
    columns.extend(gain_headers(cmp).into_iter().map(Column::num));
    Table::new(columns).keyed(2).with_rows(
        cmp.rows
            .iter()
            .map(|r| [config(r), values(cmp, r)].concat()),
    )
}

/// Each row's figures, a line per label: rounds, the spread of the round medians, the
/// CPU share, the fault size, the shift and its interval. Text names a row once and a
/// label by its letter; Markdown adds the passes' range.
fn detail_table(cmp: &CalibrationComparison) -> Table {
    let columns = vec![
        Column::name("CPUs"),
        Column::name("test"),
        Column::name("").wide_header("label"),
        Column::num("n").wide_header("rounds"),
        Column::num("min-max").wide_header("rounds min-max"),
        Column::num("spread"),
        Column::num("passes min-max").shown(Shown::Wide),
        Column::num("cpu"),
        Column::num("fault"),
        Column::num("shift"),
        Column::num("interval"),
    ];
    let mut t = Table::new(columns).keyed(2).key_once();
    for r in &cmp.rows {
        for (c, e) in cmp.entries(r) {
            let (s, ci) = shift(e);
            let m = &e.measured;
            let mut line: Vec<Cell> = config(r).into_iter().map(Cell::from).collect();
            line.extend([
                Cell::wide(c.letter.clone(), c.label.clone()),
                rounds(e).into(),
                format!(
                    "{}-{}",
                    table::count(m.round_min_per_s),
                    table::count(m.round_max_per_s)
                )
                .into(),
                Cell::wide(
                    table::pct(m.round_spread_pct, 0),
                    table::pct(m.round_spread_pct, 1),
                ),
                format!(
                    "{}-{}",
                    table::count(m.min_per_s),
                    table::count(m.max_per_s)
                )
                .into(),
                cpu(e).into(),
                fault(e).into(),
                s.into(),
                ci.into(),
            ]);
            t.push(line);
        }
    }
    t
}

/// The calibrations side by side as a text table.
pub fn text(cmp: &CalibrationComparison) -> String {
    let mut out = String::from("anonymous write faults per wall-second, each gain against ");
    out += &cmp.columns[cmp.baseline_index()].letter;
    out += "\n";
    out += &legend(cmp);
    out.push('\n');
    out += &rates_table(cmp).text_keyed();
    out.push('\n');
    out += &detail_table(cmp).text_keyed();
    out.push('\n');
    out += &table::notes_text(&notes(cmp));
    out
}

/// The notes under the tables: what the figures and marks mean, then the run-to-run
/// checks, the differences between the machines and the warnings.
fn notes(cmp: &CalibrationComparison) -> Vec<Note> {
    let mut notes = vec![Note::Legend(NOTE.to_owned()), Note::Legend(mark_note(cmp))];
    notes.extend(run_to_run(cmp).into_iter().map(Note::Remark));
    notes.extend((cmp.env_differences.iter()).map(|d| Note::Remark(format!("environment: {d}"))));
    notes.extend((cmp.warnings.iter()).map(|w| Note::Remark(format!("warning: {w}"))));
    notes
}

/// The calibrations side by side as a Markdown table.
pub fn markdown(cmp: &CalibrationComparison) -> String {
    let mut out = String::new();
    for c in &cmp.columns {
        let _ = writeln!(
            out,
            "- **{}** {}{}: {} UTC, kernel {}",
            c.letter,
            c.label,
            if c.baseline { " (baseline)" } else { "" },
            minute(&c.info.started_at),
            c.info.kernel
        );
    }
    out.push('\n');
    out += &rates_table(cmp).markdown();
    out.push('\n');
    out += &detail_table(cmp).markdown();
    out += &table::notes_markdown(&notes(cmp));
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
    rounds: usize,
    passes: usize,
    median_per_s: f64,
    round_min_per_s: f64,
    round_max_per_s: f64,
    round_spread_pct: f64,
    min_per_s: f64,
    max_per_s: f64,
    spread_pct: f64,
    fault_bytes: Option<f64>,
    cpu_share: Option<f64>,
    gain_pct: Option<f64>,
    shift_per_s: Option<f64>,
    ci_low_per_s: Option<f64>,
    ci_high_per_s: Option<f64>,
    ci_confidence: Option<f64>,
    testable: bool,
    significant: bool,
}

/// The calibrations side by side, a CSV row each.
pub fn csv(cmp: &CalibrationComparison) -> String {
    let mut w = csv::Writer::from_writer(Vec::new());
    for r in &cmp.rows {
        for (c, e) in cmp.entries(r) {
            let m = &e.measured;
            let ch = e.change;
            let [shift_per_s, ci_low_per_s, ci_high_per_s, ci_confidence] =
                Interval::columns(ch.and_then(|c| c.interval));
            w.serialize(CsvRow {
                cpus: &r.key.cpus,
                test: &r.key.test,
                workers: r.key.workers,
                label: &c.label,
                baseline: c.baseline,
                pinned_to: m.cpus.as_deref(),
                rounds: m.rounds,
                passes: m.passes,
                median_per_s: m.median_per_s,
                round_min_per_s: m.round_min_per_s,
                round_max_per_s: m.round_max_per_s,
                round_spread_pct: m.round_spread_pct,
                min_per_s: m.min_per_s,
                max_per_s: m.max_per_s,
                spread_pct: m.spread_pct,
                fault_bytes: m.fault_bytes,
                cpu_share: m.cpu_share,
                gain_pct: ch.and_then(|c| c.percent),
                shift_per_s,
                ci_low_per_s,
                ci_high_per_s,
                ci_confidence,
                testable: ch.is_some_and(|c| c.testable),
                significant: ch.is_some_and(|c| c.significant),
            })
            .expect("writing to memory");
        }
    }
    String::from_utf8(w.into_inner().expect("writing to memory")).expect("csv is UTF-8")
}

/// A row's key columns: its CPU set and test.
fn config(r: &Row) -> Vec<String> {
    vec![r.key.cpus.clone(), r.key.test.clone()]
}

/// The calibrations side by side as JSON, in the keys `report --calibrate --format
/// json` has always written (docs/json.md).
pub fn json(cmp: &CalibrationComparison) -> String {
    let doc = JsonComparison {
        columns: cmp
            .columns
            .iter()
            .map(|c| JsonColumn {
                letter: &c.letter,
                label: &c.label,
                baseline: c.baseline,
                started_at: &c.info.started_at,
                cpu_model: &c.info.cpu_model,
                kernel: &c.info.kernel,
                topology: c.info.topology.as_deref(),
                compared_rows: c.compared,
                row_confidence: c.level,
                rounds: c.info.rounds,
                passes: c.info.passes,
            })
            .collect(),
        baseline: &cmp.baseline,
        confidence: cmp.confidence,
        rows: cmp
            .rows
            .iter()
            .map(|r| JsonRow {
                config: &r.key,
                entries: r
                    .entries
                    .iter()
                    .zip(&cmp.columns)
                    .map(|(e, c)| {
                        let e = e.as_ref()?;
                        let m = &e.measured;
                        let ch = e.change;
                        Some(JsonEntry {
                            label: &c.label,
                            rates: m,
                            gain_pct: ch.and_then(|c| c.percent),
                            shift: ch.and_then(|c| c.interval),
                            cpu_share: m.cpu_share,
                            testable: ch.is_some_and(|c| c.testable),
                            significant: ch.is_some_and(|c| c.significant),
                        })
                    })
                    .collect(),
            })
            .collect(),
        env_differences: &cmp.env_differences,
        run_to_run: &cmp.run_to_run,
        warnings: &cmp.warnings,
    };
    serde_json::to_string_pretty(&doc).expect("a calibration always serializes") + "\n"
}

/// The JSON of [`json`]: its keys are a file format, kept as they were when each entry
/// held its own gain and shift.
#[derive(Serialize)]
struct JsonComparison<'a> {
    columns: Vec<JsonColumn<'a>>,
    baseline: &'a str,
    confidence: f64,
    rows: Vec<JsonRow<'a>>,
    env_differences: &'a [String],
    run_to_run: &'a [RunToRun],
    warnings: &'a [String],
}

#[derive(Serialize)]
struct JsonColumn<'a> {
    letter: &'a str,
    label: &'a str,
    baseline: bool,
    started_at: &'a str,
    cpu_model: &'a str,
    kernel: &'a str,
    topology: Option<&'a str>,
    compared_rows: usize,
    row_confidence: Option<f64>,
    rounds: u32,
    passes: u32,
}

#[derive(Serialize)]
struct JsonRow<'a> {
    #[serde(flatten)]
    config: &'a Config,
    entries: Vec<Option<JsonEntry<'a>>>,
}

#[derive(Serialize)]
struct JsonEntry<'a> {
    label: &'a str,
    #[serde(flatten)]
    rates: &'a Rates,
    gain_pct: Option<f64>,
    shift: Option<Interval>,
    cpu_share: Option<f64>,
    testable: bool,
    significant: bool,
}

/// `n` and the noun, plural unless `n` is 1.
fn counted(n: u32, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The table `pretouch calibrate` prints for one calibration, with a sentence on what
/// was measured above it and the legend, the ceiling and each CPU set's place below.
pub fn run_text(c: &Calibration) -> String {
    let first = format!(
        "Calibration {} faulted in {} for each configuration, in {} pages, over {} of {} each.",
        c.label,
        c.size,
        c.page_size,
        counted(c.rounds, "round", "rounds"),
        counted(c.passes, "pass", "passes"),
    );
    let mut out = table::wrap(&first, 2);
    if let Some(t) = &c.topology {
        out += &table::wrap(&format!("Machine: {t}"), 2);
    }
    let rows: Vec<Vec<String>> = c
        .results
        .iter()
        .map(|r| {
            let s = r.summary();
            let range =
                |low: f64, high: f64| format!("{}-{}", table::count(low), table::count(high));
            vec![
                r.test_name(),
                r.cpus_name(),
                s.map_or("-".to_owned(), |s| table::count(s.median)),
                s.map_or("-".to_owned(), |s| range(s.min, s.max)),
                c.round_median_range(r)
                    .map_or("-".to_owned(), |(low, high)| range(low, high)),
                table::whole(r.faults_per_pass),
                table::fault_size(r.fault_bytes(c.page_size)),
                r.cpu_share
                    .map_or_else(|| "-".to_owned(), |s| table::pct(100.0 * s, 0)),
            ]
        })
        .collect();
    let table = Table::new(table::columns(
        &[
            "test",
            "CPUs",
            "faults/s",
            "passes",
            "rounds",
            "faults/pass",
            "fault",
            "cpu",
        ],
        2,
    ))
    .with_rows(rows);
    out += "\n";
    out += &table.text(0);
    out += "\n";
    let legend = "faults/s is the median of all passes, and passes is their range. \
        rounds is the range of the rounds' medians. \
        cpu is the workers' CPU time over their time in the passes, so below 100% they were preempted.";
    out += &table::wrap(legend, 2);
    if let Some((best, r)) = c.ceiling() {
        let sentence = format!(
            "The ceiling is {} faults/s, from zap on a shared mapping with {}. Each pass writes {} pages.",
            table::count(best),
            r.cpus_name(),
            r.pages
        );
        out += &table::wrap(&sentence, 2);
    }
    let mut shown: Vec<&str> = Vec::new();
    for p in c.results.iter().filter_map(|r| r.placement.as_ref()) {
        if !shown.contains(&p.set.as_str()) {
            shown.push(&p.set);
            out += &table::wrap(&placement(p), 2);
        }
    }
    if let Some(m) = &c.memory {
        out += &table::wrap(&memory_during(m), 2);
    }
    out
}

/// Where a CPU set's workers ran, such as `1 CCD, 7 CPUs ran on CPUs 0-6, 7 cores in L3
/// domain 0 and NUMA node 0.`
fn placement(p: &Placement) -> String {
    let which = |one: &str, many: &str, list: &[usize]| {
        let noun = if list.len() == 1 { one } else { many };
        format!("{noun} {}", format_list(list))
    };
    format!(
        "{} ran on CPUs {}, {} in {} and {}.",
        p.set,
        format_list(&p.cpus),
        counted(u32::try_from(p.cores).unwrap_or(u32::MAX), "core", "cores"),
        which("L3 domain", "L3 domains", &p.l3_domains),
        which("NUMA node", "NUMA nodes", &p.nodes),
    )
}

/// The guest's free page reporting during a calibration, in a sentence or two.
fn memory_during(m: &MemoryDuring) -> String {
    let reported = m
        .reported_kib
        .map(|k| format!(" {} MiB were reported to the host meanwhile.", k / 1024))
        .unwrap_or_default();
    match m.stopped {
        Some([before, during]) => format!(
            "Free page reporting was stopped for the calibration, by raising \
             page_reporting_order from {before} to {during}, and restored after.{reported}"
        ),
        None => format!("Free page reporting: {}.{reported}", m.reporting),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyze::Options;
    use crate::features::calibrate::analyze::compare;
    use crate::features::calibrate::machine::{Calibration, ConfigResult, Layout, Variant};
    use crate::machine::env::Environment;
    use crate::machine::topology::Placement;
    use crate::units::Bytes;

    fn result(set: &str, cpus: Vec<usize>, variant: Variant, rates: [f64; 6]) -> ConfigResult {
        ConfigResult {
            layout: Layout::Shared,
            workers: cpus.len(),
            faults_per_s: rates.to_vec(),
            pages: 262_144,
            faults_per_pass: 262_144,
            variant,
            placement: Some(Placement {
                set: set.into(),
                l3_domains: vec![0],
                nodes: vec![0],
                sockets: vec![0],
                cores: cpus.len(),
                cpus,
            }),
            cpu_share: Some(0.99),
        }
    }

    /// One label's calibration of three CPU sets, each set's rounds wobbling in an order
    /// that `turn` rotates, as independent runs would.
    fn calibration(label: &str, at: &str, turn: usize, f: [f64; 3]) -> Calibration {
        Calibration {
            record: "calibrate".into(),
            label: label.into(),
            started_at: at.into(),
            env: Environment {
                kernel_release: format!("6.19.0-{label}"),
                cpu_model: "AMD EPYC 9634 84-Core Processor".into(),
                ..Environment::default()
            },
            size: Bytes(1 << 30),
            page_size: Bytes(4096),
            passes: 1,
            rounds: 6,
            memory: None,
            results: [
                ("1 CCD, 7 CPUs", (0..7).collect::<Vec<_>>(), f[0]),
                ("7 CCDs, 1 CPU each", (0..7).map(|k| 7 * k).collect(), f[1]),
                (
                    "12 CCDs, 1 CPU each",
                    (0..12).map(|k| 7 * k).collect(),
                    f[2],
                ),
            ]
            .into_iter()
            .map(|(set, cpus, m)| {
                let mut wobble = [0.98, 1.0, 1.02, 0.99, 1.0, 1.01];
                wobble.rotate_left(turn);
                result(set, cpus, Variant::Zap, wobble.map(|w| m * w))
            })
            .collect(),
            topology: Some(
                "1 socket, 1 NUMA node, 12 L3 domains, 84 cores, 168 CPUs (2 per core: SMT on)"
                    .into(),
            ),
        }
    }

    /// The cover letter's rows, three kernels, six rounds each; `+patch 2` clearly apart
    /// in the last two.
    fn seeds() -> CalibrationComparison {
        let cal = calibration;
        let cals = [
            cal(
                "base",
                "2026-11-30T07:00:00Z",
                0,
                [2.360e6, 1.738e6, 2.288e6],
            ),
            cal(
                "patch1",
                "2026-11-30T08:00:00Z",
                1,
                [2.369e6, 1.982e6, 2.548e6],
            ),
            cal(
                "patch2",
                "2026-11-30T09:00:00Z",
                3,
                [2.425e6, 2.215e6, 2.949e6],
            ),
        ];
        compare(&cals, &Options::default()).unwrap()
    }

    #[test]
    fn text_is_the_cover_letter_table_within_72_columns() {
        let text = text(&seeds());
        assert!(table::width(&text) <= table::WIDTH, "{text}");
        insta::assert_snapshot!(text, @"
        anonymous write faults per wall-second, each gain against A
        A  base (baseline): 2026-11-30 07:00 UTC, kernel 6.19.0-base
        B  patch1: 2026-11-30 08:00 UTC, kernel 6.19.0-patch1
        C  patch2: 2026-11-30 09:00 UTC, kernel 6.19.0-patch2
        machine: AMD EPYC 9634 84-Core Processor; 1 socket, 1 NUMA node, 12 L3
          domains, 84 cores, 168 CPUs (2 per core: SMT on)

        CPUs                 test       A       B       C   gain B   gain C
        1 CCD, 7 CPUs        zap   2.360M  2.369M  2.425M    +0.4%    +2.8%
        7 CCDs, 1 CPU each   zap   1.738M  1.982M  2.215M  +14.0%*  +27.4%*
        12 CCDs, 1 CPU each  zap   2.288M  2.548M  2.949M  +11.4%*  +28.9%*

               n        min-max  spread  cpu  fault     shift          interval
        1 CCD, 7 CPUs zap
          A  6x1  2.313M-2.407M      4%  99%     4K
          B  6x1  2.322M-2.416M      4%  99%     4K     +9.0k    -61.9k..+79.9k
          C  6x1  2.377M-2.474M      4%  99%     4K    +65.0k    -6.5k..+136.4k
        7 CCDs, 1 CPU each zap
          A  6x1  1.703M-1.773M      4%  99%     4K
          B  6x1  1.942M-2.022M      4%  99%     4K  +244.0k*  +189.4k..+298.6k
          C  6x1  2.171M-2.259M      4%  99%     4K  +477.0k*  +420.1k..+533.9k
        12 CCDs, 1 CPU each zap
          A  6x1  2.242M-2.334M      4%  99%     4K
          B  6x1  2.497M-2.599M      4%  99%     4K  +260.0k*  +188.8k..+331.2k
          C  6x1  2.890M-3.008M      4%  99%     4K  +661.0k*  +585.8k..+736.2k

        A rate is 4 KiB pages made present per wall-second, the median of the
        label's round medians. For 4 KiB faults that is faults per second, as
        pft reports them, and a 2 MiB fault counts 512. In zap, the threads
        write one shared anonymous mapping, each its own slice, with
        MADV_DONTNEED between passes. pft maps afresh every pass, and huge is
        zap on a MADV_HUGEPAGE mapping. CPUs is the set the workers were pinned
        to, one worker per CPU. gain is the median over the baseline's median,
        less 1. n is rounds x passes. min-max and spread are of the round
        medians, and spread is their range over their median. cpu is the
        workers' CPU time over their time in the passes, so below 100% they were
        preempted. fault is the bytes the kernel mapped per fault. shift is the
        Hodges-Lehmann shift of the round medians against the baseline's, with
        its Mann-Whitney interval. R gives the same with wilcox.test(x, y,
        conf.int = TRUE, conf.level = L).
        * marks an interval that excludes 0. Each column's marks hold together
        at 95%, because its rows' intervals are at 1 - 0.05 / rows, by
        Bonferroni. B tests 3 rows at L = 98.33%, C tests 3 rows at L = 98.33%.
        So where no row differs, and rounds vary as independent runs would, a
        column holds any mark at most 5% of the time. The test is on rounds, not
        passes, because the passes of one round share the machine's state. `few
        rounds` means too few rounds a side for that level, so the row gets no
        mark. 6 rounds a side allow up to 23 rows.
        ");
    }

    #[test]
    fn markdown_and_csv() {
        let cmp = seeds();
        insta::assert_snapshot!(markdown(&cmp), @"
        - **A** base (baseline): 2026-11-30 07:00 UTC, kernel 6.19.0-base
        - **B** patch1: 2026-11-30 08:00 UTC, kernel 6.19.0-patch1
        - **C** patch2: 2026-11-30 09:00 UTC, kernel 6.19.0-patch2

        | CPUs | test | base | patch1 | patch2 | gain B | gain C |
        |---|---|---:|---:|---:|---:|---:|
        | 1 CCD, 7 CPUs | zap | 2.360M | 2.369M | 2.425M | +0.4% | +2.8% |
        | 7 CCDs, 1 CPU each | zap | 1.738M | 1.982M | 2.215M | +14.0%* | +27.4%* |
        | 12 CCDs, 1 CPU each | zap | 2.288M | 2.548M | 2.949M | +11.4%* | +28.9%* |

        | CPUs | test | label | rounds | rounds min-max | spread | passes min-max | cpu | fault | shift | interval |
        |---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|
        | 1 CCD, 7 CPUs | zap | base | 6x1 | 2.313M-2.407M | 4.0% | 2.313M-2.407M | 99% | 4K |  |  |
        | 1 CCD, 7 CPUs | zap | patch1 | 6x1 | 2.322M-2.416M | 4.0% | 2.322M-2.416M | 99% | 4K | +9.0k | -61.9k..+79.9k |
        | 1 CCD, 7 CPUs | zap | patch2 | 6x1 | 2.377M-2.474M | 4.0% | 2.377M-2.474M | 99% | 4K | +65.0k | -6.5k..+136.4k |
        | 7 CCDs, 1 CPU each | zap | base | 6x1 | 1.703M-1.773M | 4.0% | 1.703M-1.773M | 99% | 4K |  |  |
        | 7 CCDs, 1 CPU each | zap | patch1 | 6x1 | 1.942M-2.022M | 4.0% | 1.942M-2.022M | 99% | 4K | +244.0k* | +189.4k..+298.6k |
        | 7 CCDs, 1 CPU each | zap | patch2 | 6x1 | 2.171M-2.259M | 4.0% | 2.171M-2.259M | 99% | 4K | +477.0k* | +420.1k..+533.9k |
        | 12 CCDs, 1 CPU each | zap | base | 6x1 | 2.242M-2.334M | 4.0% | 2.242M-2.334M | 99% | 4K |  |  |
        | 12 CCDs, 1 CPU each | zap | patch1 | 6x1 | 2.497M-2.599M | 4.0% | 2.497M-2.599M | 99% | 4K | +260.0k* | +188.8k..+331.2k |
        | 12 CCDs, 1 CPU each | zap | patch2 | 6x1 | 2.890M-3.008M | 4.0% | 2.890M-3.008M | 99% | 4K | +661.0k* | +585.8k..+736.2k |

        A rate is 4 KiB pages made present per wall-second, the median of the label's round medians. For 4 KiB faults that is faults per second, as pft reports them, and a 2 MiB fault counts 512. In zap, the threads write one shared anonymous mapping, each its own slice, with MADV_DONTNEED between passes. pft maps afresh every pass, and huge is zap on a MADV_HUGEPAGE mapping. CPUs is the set the workers were pinned to, one worker per CPU. gain is the median over the baseline's median, less 1. n is rounds x passes. min-max and spread are of the round medians, and spread is their range over their median. cpu is the workers' CPU time over their time in the passes, so below 100% they were preempted. fault is the bytes the kernel mapped per fault. shift is the Hodges-Lehmann shift of the round medians against the baseline's, with its Mann-Whitney interval. R gives the same with wilcox.test(x, y, conf.int = TRUE, conf.level = L).

        * marks an interval that excludes 0. Each column's marks hold together at 95%, because its rows' intervals are at 1 - 0.05 / rows, by Bonferroni. B tests 3 rows at L = 98.33%, C tests 3 rows at L = 98.33%. So where no row differs, and rounds vary as independent runs would, a column holds any mark at most 5% of the time. The test is on rounds, not passes, because the passes of one round share the machine's state. `few rounds` means too few rounds a side for that level, so the row gets no mark. 6 rounds a side allow up to 23 rows.
        ");
        insta::assert_snapshot!(csv(&cmp), @r#"
        cpus,test,workers,label,baseline,pinned_to,rounds,passes,median_per_s,round_min_per_s,round_max_per_s,round_spread_pct,min_per_s,max_per_s,spread_pct,fault_bytes,cpu_share,gain_pct,shift_per_s,ci_low_per_s,ci_high_per_s,ci_confidence,testable,significant
        "1 CCD, 7 CPUs",zap,7,base,true,0-6,6,6,2360000.0,2312800.0,2407200.0,4.0,2312800.0,2407200.0,4.0,4096.0,0.99,,,,,,false,false
        "1 CCD, 7 CPUs",zap,7,patch1,false,0-6,6,6,2369000.0,2321620.0,2416380.0,4.0,2321620.0,2416380.0,4.0,4096.0,0.99,0.3813559322033866,9000.0,-61890.0,79890.0,0.9833333333333333,true,false
        "1 CCD, 7 CPUs",zap,7,patch2,false,0-6,6,6,2425000.0,2376500.0,2473500.0,4.0,2376500.0,2473500.0,4.0,4096.0,0.99,2.754237288135597,65000.0,-6450.0,136450.0,0.9833333333333333,true,false
        "7 CCDs, 1 CPU each",zap,7,base,true,"0,7,14,21,28,35,42",6,6,1738000.0,1703240.0,1772760.0,4.0,1703240.0,1772760.0,4.0,4096.0,0.99,,,,,,false,false
        "7 CCDs, 1 CPU each",zap,7,patch1,false,"0,7,14,21,28,35,42",6,6,1982000.0,1942360.0,2021640.0,4.0,1942360.0,2021640.0,4.0,4096.0,0.99,14.039125431530497,244000.0,189420.0,298580.0,0.9833333333333333,true,true
        "7 CCDs, 1 CPU each",zap,7,patch2,false,"0,7,14,21,28,35,42",6,6,2215000.0,2170700.0,2259300.0,4.0,2170700.0,2259300.0,4.0,4096.0,0.99,27.445339470655927,477000.0,420090.0,533910.0,0.9833333333333333,true,true
        "12 CCDs, 1 CPU each",zap,12,base,true,"0,7,14,21,28,35,42,49,56,63,70,77",6,6,2288000.0,2242240.0,2333760.0,4.0,2242240.0,2333760.0,4.0,4096.0,0.99,,,,,,false,false
        "12 CCDs, 1 CPU each",zap,12,patch1,false,"0,7,14,21,28,35,42,49,56,63,70,77",6,6,2548000.0,2497040.0,2598960.0,4.0,2497040.0,2598960.0,4.0,4096.0,0.99,11.363636363636353,260000.0,188760.0,331240.0,0.9833333333333333,true,true
        "12 CCDs, 1 CPU each",zap,12,patch2,false,"0,7,14,21,28,35,42,49,56,63,70,77",6,6,2949000.0,2890020.0,3007980.0,4.0,2890020.0,3007980.0,4.0,4096.0,0.99,28.889860139860147,661000.0,585750.0,736250.0,0.9833333333333333,true,true
        "#);
    }

    #[test]
    fn every_format_carries_the_gain_and_the_mark() {
        let cmp = seeds();
        let md = markdown(&cmp);
        assert!(
            md.contains(
                "| 7 CCDs, 1 CPU each | zap | 1.738M | 1.982M | 2.215M | +14.0%* | +27.4%* |"
            ),
            "{md}"
        );
        let csv = csv(&cmp);
        let line = csv
            .lines()
            .find(|l| l.starts_with("\"7 CCDs, 1 CPU each\",zap,7,patch2,"))
            .unwrap();
        assert!(line.ends_with(",true,true"), "{line}");
        assert_eq!(table::count(1.8e6), "1.800M");
        assert_eq!(table::count(950e3), "950.0k");
        assert!(line.contains(",\"0,7,14,21,28,35,42\","), "{line}");
        let json: serde_json::Value = serde_json::from_str(&json(&cmp)).unwrap();
        let e = &json["rows"][2]["entries"][2];
        assert_eq!(e["label"], "patch2");
        assert_eq!(e["significant"], true);
        assert!((e["gain_pct"].as_f64().unwrap() - 28.89).abs() < 0.01);
    }

    /// The table `pretouch calibrate` prints when it ends: one row a configuration, the
    /// ceiling from the fastest zap, each CPU set's placement once, and what free page
    /// reporting did meanwhile.
    #[test]
    fn run_text_is_the_table_calibrate_prints() {
        let mut c = calibration(
            "base",
            "2026-11-30T07:00:00Z",
            0,
            [2.360e6, 1.738e6, 2.288e6],
        );
        c.memory = Some(MemoryDuring {
            reporting: "on".into(),
            reporting_on: true,
            stopped: Some([9, 63]),
            reported_kib: Some(2048),
        });
        let text = run_text(&c);
        insta::assert_snapshot!(text, @"
        Calibration base faulted in 1 GiB for each configuration, in 4 KiB
          pages, over 6 rounds of 1 pass each.
        Machine: 1 socket, 1 NUMA node, 12 L3 domains, 84 cores, 168 CPUs (2 per
          core: SMT on)

        test  CPUs                 faults/s         passes         rounds  faults/pass  fault  cpu
        zap   1 CCD, 7 CPUs          2.360M  2.313M-2.407M  2.313M-2.407M       262144     4K  99%
        zap   7 CCDs, 1 CPU each     1.738M  1.703M-1.773M  1.703M-1.773M       262144     4K  99%
        zap   12 CCDs, 1 CPU each    2.288M  2.242M-2.334M  2.242M-2.334M       262144     4K  99%

        faults/s is the median of all passes, and passes is their range. rounds
          is the range of the rounds' medians. cpu is the workers' CPU time over
          their time in the passes, so below 100% they were preempted.
        The ceiling is 2.360M faults/s, from zap on a shared mapping with 1 CCD,
          7 CPUs. Each pass writes 262144 pages.
        1 CCD, 7 CPUs ran on CPUs 0-6, 7 cores in L3 domain 0 and NUMA node 0.
        7 CCDs, 1 CPU each ran on CPUs 0,7,14,21,28,35,42, 7 cores in L3 domain
          0 and NUMA node 0.
        12 CCDs, 1 CPU each ran on CPUs 0,7,14,21,28,35,42,49,56,63,70,77, 12
          cores in L3 domain 0 and NUMA node 0.
        Free page reporting was stopped for the calibration, by raising
          page_reporting_order from 9 to 63, and restored after. 2 MiB were
          reported to the host meanwhile.
        ");
    }
}
