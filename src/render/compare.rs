//! Stage 6: the cross-kernel comparison ([`crate::analyze::compare`]) turned into bytes: text
//! that fits a patch email (72 columns), Markdown and CSV (its JSON is `render::json`'s
//! `comparison` key). Computes nothing.

use std::fmt::Write as _;

use serde::Serialize;

use crate::analyze::compare::{Column, Comparison, Entry, Interval};
use crate::analyze::report::CellReport;
use crate::machine::jdk::short_jdk;
use crate::render::common::{
    CellNames, FEW_ROUNDS, KEY_HEADERS, cost, cost_half_width, failure_warnings,
    failure_warnings_named, iqr, key_columns, key_values, ms, outlier_note, run_to_run_notes,
    spread,
};
use crate::render::labels::{self, detail_rows, legend_line, levels, minute};
use crate::render::table::{self, Col};

fn percent(e: &Entry) -> String {
    labels::percent(e.change.as_ref(), "n/a")
}

fn change_ms(e: &Entry) -> String {
    e.change
        .map_or_else(|| "n/a".to_owned(), |c| table::change_ms(c.delta))
}

/// The half-width of the change's interval, `few` where a side has too few rounds.
fn half_width(e: &Entry) -> String {
    match e.change.map(|c| c.interval) {
        Some(Some(d)) => table::ms(d.half_width()),
        Some(None) => FEW.to_owned(),
        None => String::new(),
    }
}

/// The half-width of the change's interval in %, as [`half_width`].
fn percent_half_width(e: &Entry) -> String {
    match e.change.map(|c| (c.interval, c.percent_interval)) {
        Some((_, Some(p))) => table::pct(p.half_width(), 1),
        Some((Some(_), None)) => "n/a".to_owned(),
        Some((None, _)) => FEW.to_owned(),
        None => String::new(),
    }
}

/// The interval of the change, `low .. high` (Markdown).
fn interval(e: &Entry) -> String {
    match e.change.map(|c| c.interval) {
        Some(Some(d)) => format!(
            "{} .. {}",
            table::change_ms(d.low),
            table::change_ms(d.high)
        ),
        Some(None) => FEW_ROUNDS.to_owned(),
        None => String::new(),
    }
}

/// What a change without an interval shows in the text's narrow column.
const FEW: &str = "few";

/// The legend under the tables, said once: at most 8 lines at 72 columns, every
/// abbreviation defined; the long story is docs/report.md's.
fn legend(cmp: &Comparison) -> String {
    let one_run =
        compared_cells(cmp).any(|c| c.cost_interval().is_some() && c.cost_ci_runs.is_none());
    let over_runs = compared_cells(cmp).any(|c| c.cost_ci_runs.is_some());
    let few = compared_cells(cmp).any(|c| c.rounds > 0 && c.cost_interval().is_none());
    let mut text = format!(
        "cost = ms from exec to main() with minus without -XX:+AlwaysPreTouch, \
         per round (two launches back to back); tmean = its {} trimmed \
         mean; a negative change is less startup time.",
        table::pct(100.0 * crate::stats::interval::TRIM, 0),
    );
    if cmp.columns.iter().any(|c| c.level.is_some()) {
        let _ = write!(
            text,
            " +- = half-width of the interval; * = it excludes 0; a column's marks \
             hold at {} together (Bonferroni: {}).",
            table::pct(100.0 * cmp.confidence, 0),
            levels(cmp, "cell", "")
        );
    }
    if few {
        text += " few = under 10 rounds a side: no interval, no mark.";
    }
    text += " median = median(with) - median(without); IQR = its quartiles' \
             distance; out = outlier launches (modified z-score > 3.5).";
    if one_run {
        text += " An interval from one run misses run-to-run drift (--runs 3).";
    }
    if over_runs {
        text += " runs = result files an interval is over.";
    }
    text += " docs/report.md says more.";
    text
}

fn cell_cost(e: Option<&Entry>) -> String {
    match e {
        Some(e) => match e.measured.cost_tmean_ms {
            Some(v) => table::ms(v),
            None if e.measured.failed > 0 => "FAILED".to_owned(),
            None => "-".to_owned(),
        },
        None => "-".to_owned(),
    }
}

fn keys(cmp: &Comparison) -> Vec<(&str, &str, &str, &str)> {
    cmp.rows.iter().map(|r| key_parts(&r.key)).collect()
}

/// A row's (JDK, GC, heap, variant), as the key columns take it.
fn key_parts([jdk, gc, heap, variant]: &[String; 4]) -> (&str, &str, &str, &str) {
    (jdk, gc, heap, variant)
}

/// The main table: key, then per label in label order its trimmed mean cost, and for
/// the labels other than the baseline their change in ms and in %, each with the
/// half-width of its interval, and the mark: one estimator a row. Labels that do not
/// fit 72 columns go to further tables, each with the baseline's column.
fn main_tables(cmp: &Comparison, cols: &[usize]) -> String {
    let base = cmp.baseline_index();
    let key: Vec<Col<'_>> = cols.iter().map(|&i| table::name(KEY_HEADERS[i])).collect();
    let others: Vec<usize> = (0..cmp.columns.len()).filter(|&i| i != base).collect();
    let headers: Vec<[String; 2]> = cmp
        .columns
        .iter()
        .map(|c| {
            let b = &cmp.columns[base].letter;
            [c.letter.clone(), format!("{}-{b}", c.letter)]
        })
        .collect();
    // Columns in label order: the baseline's cost, and each other label's cost with
    // its change against the baseline.
    let parts = |group: &[usize]| {
        let mut shown: Vec<usize> = group.to_vec();
        shown.push(base);
        shown.sort_unstable();
        let mut value_cols = Vec::new();
        for &i in &shown {
            value_cols.push(table::num(&headers[i][0]));
            if i != base {
                value_cols.push(table::num(&headers[i][1]));
                value_cols.push(table::num("+-"));
                value_cols.push(table::num("%"));
                value_cols.push(table::num("+-"));
            }
        }
        let rows: Vec<(Vec<String>, Vec<String>)> = cmp
            .rows
            .iter()
            .map(|r| {
                let mut v = Vec::new();
                for &i in &shown {
                    let e = r.entries[i].as_ref();
                    v.push(cell_cost(e));
                    if i != base {
                        let dash = || "-".to_owned();
                        v.push(e.map_or_else(dash, change_ms));
                        v.push(e.map_or_else(dash, half_width));
                        v.push(e.map_or_else(dash, percent));
                        v.push(e.map_or_else(dash, percent_half_width));
                    }
                }
                (key_values(key_parts(&r.key), cols), v)
            })
            .collect();
        (value_cols, rows)
    };
    let fits = |group: &[usize]| {
        let (values, rows) = parts(group);
        table::fits(&key, &values, &rows)
    };
    let build = |group: &[usize]| {
        let (values, rows) = parts(group);
        table::render_keyed(&key, &values, &rows)
    };
    // Greedy: as many labels per table as fit the width.
    let mut out = String::new();
    let mut group: Vec<usize> = Vec::new();
    let mut tables = Vec::new();
    for &i in &others {
        group.push(i);
        if group.len() > 1 && !fits(&group) {
            group.pop();
            tables.push(std::mem::take(&mut group));
            group.push(i);
        }
    }
    if !group.is_empty() || tables.is_empty() {
        tables.push(group);
    }
    for (n, g) in tables.iter().enumerate() {
        if n > 0 {
            out.push('\n');
        }
        out += &build(g);
    }
    out
}

/// The details: per cell and label, its rounds, its trimmed mean cost with the
/// half-width of its own interval, the median cost (the other estimator, labelled),
/// the spread of the per-round costs and the outliers.
fn details(cmp: &Comparison, cols: &[usize]) -> String {
    let key: Vec<Col<'_>> = cols.iter().map(|&i| table::name(KEY_HEADERS[i])).collect();
    let over_runs = compared_cells(cmp).any(|c| c.cost_ci_runs.is_some());
    let mut values = vec![
        table::name(""),
        table::num("rounds"),
        table::num("tmean"),
        table::num("+-"),
    ];
    if over_runs {
        values.push(table::num("runs"));
    }
    values.extend([
        table::num("median"),
        table::num("min-max"),
        table::num("IQR"),
        table::num("out"),
    ]);
    let rows = detail_rows(
        cmp,
        |k| key_values(key_parts(k), cols),
        |e| {
            let c: &CellReport = &e.measured;
            let mut v = vec![
                table::whole(c.rounds),
                ms(c.cost_tmean_ms),
                cost_half_width(c, FEW),
            ];
            if over_runs {
                v.push(table::whole(c.cost_ci_runs.unwrap_or(1)));
            }
            v.extend([
                cost(c),
                spread(c.cost_min_ms, c.cost_max_ms),
                iqr(c),
                table::whole(c.outliers),
            ]);
            v
        },
    );
    table::render_keyed(&key, &values, &rows)
}

/// The labels side by side as text tables.
pub fn text(cmp: &Comparison) -> String {
    let mut out = String::new();
    out += &table::wrap(
        &format!(
            "pretouch cost, {} trimmed mean in ms; change against {} (baseline)",
            table::pct(100.0 * crate::stats::interval::TRIM, 0),
            cmp.columns[cmp.baseline_index()].letter
        ),
        0,
    );
    let same = |f: fn(&crate::analyze::report::LabelInfo) -> &str| {
        cmp.columns
            .iter()
            .all(|c| f(&c.info) == f(&cmp.columns[0].info))
    };
    let same_host = same(|i| &i.hostname) && same(|i| &i.cpu_model);
    let same_kernel = same(|i| &i.kernel_release);
    for c in &cmp.columns {
        let mut facts = Vec::new();
        if !same_host {
            facts.push(format!("host {} ({})", c.info.hostname, c.info.cpu_model));
        }
        if !same_kernel && c.info.kernel_release != c.info.label {
            facts.push(format!("kernel {}", c.info.kernel_release));
        }
        facts.push(format!("{} UTC", minute(&c.info.oldest_run)));
        out += &legend_line(c, &facts.join(", "));
    }
    let (cols, shared) = key_columns(&keys(cmp));
    // What every cell shares, on one line when it fits: the host, the kernel, the key
    // parts.
    let mut common: Vec<String> = Vec::new();
    if let Some(first) = cmp.columns.first().filter(|_| same_host) {
        let kernel = if same_kernel {
            format!(", kernel {}", first.info.kernel_release)
        } else {
            String::new()
        };
        common.push(format!(
            "host {} ({}){kernel}",
            first.info.hostname, first.info.cpu_model
        ));
    }
    common.extend(shared);
    let one = common.join("; ");
    if one.len() <= table::WIDTH {
        out += &table::wrap(&one, 2);
    } else {
        for line in &common {
            out += &table::wrap(line, 2);
        }
    }
    out.push('\n');
    out += &main_tables(cmp, &cols);
    out.push('\n');
    out += &details(cmp, &cols);
    out.push('\n');
    out += &table::wrap(&legend(cmp), 0);
    out += &text_notes(cmp);
    out
}

/// The notes under the text's tables: [`notes`]' with each cell named by its letter and
/// the key parts that vary, the outliers as a table.
fn text_notes(cmp: &Comparison) -> String {
    let cells: Vec<&CellReport> = cmp
        .rows
        .iter()
        .flat_map(|r| cmp.entries(r).map(|(_, e)| &e.measured))
        .collect();
    let letters = cmp
        .columns
        .iter()
        .map(|c| (c.label.clone(), c.letter.clone()))
        .collect();
    let names = CellNames::new(cells.iter().copied(), letters);
    let mut notes = failure_warnings_named(&cells, &|c| names.name(c));
    notes.extend(outlier_note(
        cells.iter().map(|c| c.outliers).sum(),
        cmp.outliers_excluded,
    ));
    notes.extend(cmp.warnings.iter().map(|w| format!("warning: {w}")));
    notes.extend(run_to_run_notes(&cmp.run_to_run));
    let mut out = String::new();
    for n in notes {
        out += &table::wrap(&n, 2);
    }
    out += &crate::render::disturbance::text(&cells, &names);
    for n in &cmp.machine_notes {
        out += &table::wrap(n, 2);
    }
    out
}

/// Every cell the comparison shows.
fn compared_cells(cmp: &Comparison) -> impl Iterator<Item = &CellReport> {
    cmp.rows
        .iter()
        .flat_map(|r| r.entries.iter().flatten().map(|e| &e.measured))
}

fn notes(cmp: &Comparison) -> Vec<String> {
    let cells: Vec<&CellReport> = cmp
        .rows
        .iter()
        .flat_map(|r| cmp.entries(r).map(|(_, e)| &e.measured))
        .collect();
    let mut notes = failure_warnings(&cells);
    notes.extend(outlier_note(
        cells.iter().map(|c| c.outliers).sum(),
        cmp.outliers_excluded,
    ));
    notes.extend(cmp.warnings.iter().map(|w| format!("warning: {w}")));
    notes.extend(run_to_run_notes(&cmp.run_to_run));
    notes.extend(crate::render::disturbance::cell_notes(&cells));
    notes.extend(cmp.machine_notes.iter().cloned());
    notes
}

/// The labels side by side as Markdown tables.
pub fn markdown(cmp: &Comparison) -> String {
    let base = cmp.baseline_index();
    let base_label = &cmp.columns[base].info.label;
    let vs = format!("vs {base_label} (ms)");
    let mut cols = table::cols(&["jdk", "gc", "heap", "variant"], 4);
    for (i, c) in cmp.columns.iter().enumerate() {
        cols.push(table::num(&c.info.label));
        if i != base {
            cols.extend(table::cols(&[&vs, "interval (ms)", "%", "interval (%)"], 0));
        }
    }
    let mut rows = Vec::new();
    for r in &cmp.rows {
        let [jdk, gc, heap, variant] = &r.key;
        let mut row = vec![
            short_jdk(jdk).to_owned(),
            gc.clone(),
            heap.clone(),
            variant.clone(),
        ];
        for (i, e) in r.entries.iter().enumerate() {
            let e = e.as_ref();
            let c = e.map(|e| &e.measured);
            row.push(format!(
                "{} ({}; median {}; {}; IQR {}; {} out)",
                cell_cost(e),
                c.map_or_else(|| "-".to_owned(), |c| cost_half_width(c, FEW_ROUNDS)),
                c.map_or_else(|| "-".to_owned(), cost),
                c.map_or_else(|| "-".to_owned(), |c| spread(c.cost_min_ms, c.cost_max_ms)),
                c.map_or_else(|| "-".to_owned(), iqr),
                c.map_or(0, |c| c.outliers),
            ));
            if i != base {
                row.push(e.map_or_else(|| "-".to_owned(), change_ms));
                row.push(e.map_or_else(String::new, interval));
                row.push(e.map_or_else(|| "-".to_owned(), percent));
                row.push(e.map_or_else(String::new, percent_interval));
            }
        }
        rows.push(row);
    }
    let mut out = table::markdown(&cols, &rows);
    out += "\n";
    out += &legend(cmp);
    out += "\n";
    for c in &cmp.columns {
        let _ = write!(
            out,
            "\n- `{}`{}: host {}, {}, kernel {}, oldest run {}",
            c.info.label,
            if c.baseline { " (baseline)" } else { "" },
            c.info.hostname,
            c.info.cpu_model,
            c.info.kernel_release,
            c.info.oldest_run
        );
    }
    out += "\n";
    for n in notes(cmp) {
        let _ = writeln!(out, "\n> {n}");
    }
    out
}

/// The interval of the change in %, `low .. high` (Markdown).
fn percent_interval(e: &Entry) -> String {
    match e.change.map(|c| (c.interval, c.percent_interval)) {
        Some((_, Some(p))) => format!("{} .. {}", table::pct(p.low, 1), table::pct(p.high, 1)),
        Some((Some(_), None)) => "n/a".to_owned(),
        Some((None, _)) => FEW_ROUNDS.to_owned(),
        None => String::new(),
    }
}

/// A cell's change against the baseline as the CSV's columns after the cell's own, and
/// as the JSON's `comparison.changes` keys after the cell's key (`render::json`).
#[derive(Serialize)]
pub struct ChangeColumns<'a> {
    baseline: bool,
    /// cost(label) - cost(baseline), ms: the change of the 20% trimmed mean
    /// per-round costs (`cost_tmean_ms`), the estimator of `shift_ms`'s interval.
    change_ms: Option<f64>,
    /// `change_ms` in % of the baseline's cost (null when that cost is not positive).
    change_percent: Option<f64>,
    /// The interval of `change_percent`: `ci_low_ms`, `ci_high_ms` in % of the
    /// baseline's cost; null without an interval.
    change_percent_low: Option<f64>,
    change_percent_high: Option<f64>,
    /// The drift-aware difference of the per-round costs (trimmed means, label -
    /// baseline), and its interval, ms; null with fewer than 10 rounds on a side.
    shift_ms: Option<f64>,
    ci_low_ms: Option<f64>,
    ci_high_ms: Option<f64>,
    /// The interval's confidence: the column's cell level, `1 - (1 - confidence) / k`
    /// for its `k` compared cells, so that its marks hold together at `confidence`.
    ci_confidence: Option<f64>,
    /// The interval excludes zero.
    significant: Option<bool>,
    /// Why this cell was not compared with the baseline's.
    not_compared: Option<&'a str>,
}

impl<'a> ChangeColumns<'a> {
    pub fn of(column: &Column, e: &'a Entry) -> ChangeColumns<'a> {
        let ch = e.change;
        let [shift_ms, ci_low_ms, ci_high_ms, ci_confidence] =
            Interval::columns(ch.and_then(|c| c.interval));
        ChangeColumns {
            baseline: column.baseline,
            change_ms: ch.map(|c| c.delta),
            change_percent: ch.and_then(|c| c.percent),
            change_percent_low: ch.and_then(|c| c.percent_interval).map(|i| i.low),
            change_percent_high: ch.and_then(|c| c.percent_interval).map(|i| i.high),
            shift_ms,
            ci_low_ms,
            ci_high_ms,
            ci_confidence,
            significant: ch.map(|c| c.significant),
            not_compared: e.not_compared.as_deref(),
        }
    }
}

/// The CSV's last column: whether outliers were left out of every figure.
#[derive(Serialize)]
struct Excluded {
    outliers_excluded: bool,
}

/// The labels side by side, a CSV row per cell and label: the cell's row as in the
/// single-label CSV (every figure, the server's when any cell is one), then its change
/// against the baseline.
pub fn csv(cmp: &Comparison) -> String {
    let mut rows = Vec::new();
    for r in &cmp.rows {
        for (col, e) in cmp.entries(r) {
            let excluded = Excluded {
                outliers_excluded: cmp.outliers_excluded,
            };
            rows.push((&e.measured, (ChangeColumns::of(col, e), excluded)));
        }
    }
    crate::render::report::cells_csv(&rows)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyze::Options;
    use crate::analyze::compare::compare;
    use crate::fixtures::{file, g1_and_parallel, host, rounds};
    use crate::store::Results;

    /// A baseline kernel and a patched one about 25% faster at pretouch, one slow
    /// launch in the patched G1 cell.
    pub(crate) fn sample() -> Comparison {
        let base_g1 = rounds(48.0, 430.0, false);
        let base_par = rounds(50.0, 445.0, false);
        let new_g1 = rounds(48.5, 330.0, true);
        let new_par = rounds(50.5, 446.0, false);
        let results = Results {
            files: vec![
                file(
                    "6.18.0-base",
                    "2026-11-30T07:00:00Z",
                    host("vm"),
                    &g1_and_parallel(&base_g1, &base_par),
                ),
                file(
                    "6.18.0-vma-refcount",
                    "2026-11-30T08:00:00Z",
                    host("vm"),
                    &g1_and_parallel(&new_g1, &new_par),
                ),
            ],
            warnings: Vec::new(),
            ..Default::default()
        };
        compare(&crate::analyze::build(&results), &Options::default()).unwrap()
    }

    #[test]
    fn text() {
        let out = super::text(&sample());
        assert!(table::width(&out) <= table::WIDTH, "{out}");
        insta::assert_snapshot!(out, @"
        pretouch cost, 20% trimmed mean in ms; change against A (baseline)
        A  6.18.0-base (baseline): 2026-11-30 07:00 UTC
        B  6.18.0-vma-refcount: 2026-11-30 08:00 UTC
        host vm (AMD EPYC 9B14), kernel 6.18.0; jdk 17.0.15+6, variant default

        gc        heap    A    B    B-A   +-        %    +-
        g1        1g    383  284  -99.1  7.6  -25.9%*  2.0%
        parallel  1g    396  396   +0.5  8.4    +0.1%  2.1%

        gc        heap     rounds  tmean   +-  median  min-max   IQR  out
        g1        1g    A      10    383  5.6     383  374-393  10.0    0
                        B      10    284  4.9     284  276-937   8.6    1
        parallel  1g    A      10    396  5.8     396  387-407  10.4    0
                        B      10    396  5.8     396  388-407  10.4    0

        cost = ms from exec to main() with minus without -XX:+AlwaysPreTouch,
        per round (two launches back to back); tmean = its 20% trimmed mean; a
        negative change is less startup time. +- = half-width of the interval; *
        = it excludes 0; a column's marks hold at 95% together (Bonferroni: B 2
        cell(s) at 97.50%). median = median(with) - median(without); IQR = its
        quartiles' distance; out = outlier launches (modified z-score > 3.5). An
        interval from one run misses run-to-run drift (--runs 3). docs/report.md
        says more.
        warning: 1 outlier launch(es), in every figure unless --exclude-outliers
        outlier  round  pretouch   ms  median  likely cause
        B g1 1g      7  with      985     332  no machine counters (older file)
        ");
    }

    #[test]
    fn markdown() {
        insta::assert_snapshot!(super::markdown(&sample()), @"
        | jdk | gc | heap | variant | 6.18.0-base | 6.18.0-vma-refcount | vs 6.18.0-base (ms) | interval (ms) | % | interval (%) |
        |---|---|---|---|---:|---:|---:|---:|---:|---:|
        | 17.0.15+6 | g1 | 1g | default | 383 (5.6; median 383; 374-393; IQR 10.0; 0 out) | 284 (4.9; median 284; 276-937; IQR 8.6; 1 out) | -99.1 | -107 .. -91.5 | -25.9%* | -27.9% .. -23.9% |
        | 17.0.15+6 | parallel | 1g | default | 396 (5.8; median 396; 387-407; IQR 10.4; 0 out) | 396 (5.8; median 396; 388-407; IQR 10.4; 0 out) | +0.5 | -7.9 .. +8.9 | +0.1% | -2.0% .. 2.3% |

        cost = ms from exec to main() with minus without -XX:+AlwaysPreTouch, per round (two launches back to back); tmean = its 20% trimmed mean; a negative change is less startup time. +- = half-width of the interval; * = it excludes 0; a column's marks hold at 95% together (Bonferroni: B 2 cell(s) at 97.50%). median = median(with) - median(without); IQR = its quartiles' distance; out = outlier launches (modified z-score > 3.5). An interval from one run misses run-to-run drift (--runs 3). docs/report.md says more.

        - `6.18.0-base` (baseline): host vm, AMD EPYC 9B14, kernel 6.18.0, oldest run 2026-11-30T07:00:00Z
        - `6.18.0-vma-refcount`: host vm, AMD EPYC 9B14, kernel 6.18.0, oldest run 2026-11-30T08:00:00Z

        > warning: 1 outlier launch(es), in every figure unless --exclude-outliers

        > outlier: 6.18.0-vma-refcount 17.0.15+6 g1 1g default: round 7 with pretouch 985 ms, median 332: no machine counters recorded (file written before they were)
        ");
    }

    #[test]
    fn csv() {
        insta::assert_snapshot!(super::csv(&sample()), @r#"
        label,jdk,gc,heap,variant,launches,launches_on,launches_off,failed,median_on_ms,min_on_ms,max_on_ms,median_off_ms,min_off_ms,max_off_ms,pretouch_ms,first_failure,gc_threads,cpus,app,exec_to_agent_off_ms,exec_to_agent_on_ms,agent_to_init_off_ms,agent_to_init_on_ms,init_to_main_off_ms,init_to_main_on_ms,pretouch_faults,expected_faults,expected_folio_bytes,expected_faults_4k,fault_rate_per_s,ceiling_per_s,ceiling_pct,jvm_pretouch_ms,jvm_genesis_growth_ms,untouched,untouched_reason,untouched_launches,rounds,cost_min_ms,cost_q1_ms,cost_q3_ms,cost_max_ms,cost_tmean_ms,cost_ci_low_ms,cost_ci_high_ms,cost_ci_batches,cost_ci_runs,cost_ci_looks,outliers,disturbed,disturbances,outlier_causes,heap_memory,heap_views,heap_page_size_bytes,heap_huge_bytes,heap_resident_bytes,pretouch_method,method_source,method_bugs,method_notes,method_check,method_check_detail,pretouch_logging,baseline,change_ms,change_percent,change_percent_low,change_percent_high,shift_ms,ci_low_ms,ci_high_ms,ci_confidence,significant,not_compared,outliers_excluded
        6.18.0-base,17.0.15+6-Debian-1deb12u1,g1,1g,default,20,10,10,0,431.075,421.4,442.9,48.125,47.0,49.5,382.95,,auto,all,,,,,,,,,262144,4096,,,,,,,0,,,10,374.4,378.0416666666667,388.01666666666665,393.4,382.95,377.3561992187547,388.5438007812453,10,,,0,0,,,,,,,,store,"JDK 17, before JDK 18",JDK-8272807,,,,running-pre-touch-lines,true,,,,,,,,,,,false
        6.18.0-vma-refcount,17.0.15+6-Debian-1deb12u1,g1,1g,default,20,10,10,0,332.475,323.4,985.05,48.625,47.5,50.0,283.85,,auto,all,,,,,,,,,262144,4096,,,,,,,0,,,10,275.9,279.98333333333335,288.6166666666667,937.3,283.8333333333333,278.9523188668794,288.7143477997872,10,,,1,0,,"round 7 with pretouch 985 ms, median 332: no machine counters recorded (file written before they were)",,,,,,store,"JDK 17, before JDK 18",JDK-8272807,,,,running-pre-touch-lines,false,-99.11666666666667,-25.882404143273714,-27.87496889371002,-23.889839392837406,-99.11666666666667,-106.74719337846251,-91.48613995487084,0.975,true,,false
        6.18.0-base,17.0.15+6-Debian-1deb12u1,parallel,1g,default,20,10,10,0,446.1125,436.1,458.35,50.125,49.0,51.5,395.9875,,auto,all,,,,,,,,,262144,4096,,,,,,,0,,,10,387.1,390.8854166666667,401.25416666666666,406.85,395.9875,390.17289129317925,401.8021087068208,10,,,0,0,,,,,,,,store,"JDK 17, before JDK 18",JDK-8272807 JDK-8324817,"Parallel GC could leave part of its heap untouched without THP `always` before JDK-8324817 (JDK 23, backported to 21u): the touched check says whether it did here",,,running-pre-touch-lines,true,,,,,,,,,,,false
        6.18.0-vma-refcount,17.0.15+6-Debian-1deb12u1,parallel,1g,default,20,10,10,0,447.115,437.08,459.38,50.625,49.5,52.0,396.49,,auto,all,,,,,,,,,262144,4096,,,,,,,0,,,10,387.58,391.375,401.77,407.38,396.49,390.66067076480755,402.31932923519247,10,,,0,0,,,,,,,,store,"JDK 17, before JDK 18",JDK-8272807 JDK-8324817,"Parallel GC could leave part of its heap untouched without THP `always` before JDK-8324817 (JDK 23, backported to 21u): the touched check says whether it did here",,,running-pre-touch-lines,false,0.5024999999999977,0.1268979450108899,-2.0034480110222592,2.257243901044039,0.5024999999999977,-7.933403692646769,8.938403692646764,0.975,false,,false
        "#);
    }
}
