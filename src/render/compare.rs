//! Stage 6: the cross-kernel comparison ([`crate::analyze::compare`]) turned into bytes: text
//! that fits a patch email (72 columns), Markdown and CSV (its JSON is `render::json`'s
//! `comparison` key). Computes nothing.

use std::fmt::Write as _;

use serde::Serialize;

use crate::analyze::compare::{Column, Comparison, Entry, Interval};
use crate::analyze::report::CellReport;
use crate::render::common::{
    Brief, CellNames, KEY_HEADERS, cost_range, estimate_phrase, failure_warnings,
    failure_warnings_named, iqr, key_columns, key_values, ms, outlier_note, percent_range,
    run_to_run_notes, spread,
};
use crate::render::labels::{self, minute};
use crate::render::table::{self, Note};

/// The legend under the details, said once: every column in words; the long story
/// is docs/report.md's.
fn legend(cmp: &Comparison) -> String {
    let one_run =
        compared_cells(cmp).any(|c| c.cost_interval().is_some() && c.cost.cost_ci_runs.is_none());
    let over_runs = compared_cells(cmp).any(|c| c.cost.cost_ci_runs.is_some());
    let few = compared_cells(cmp).any(|c| c.cost.rounds > 0 && c.cost_interval().is_none());
    let estimator = compared_cells(cmp)
        .next()
        .map_or_else(Default::default, |c| c.cost.cost_estimator);
    let figure = if over_runs {
        format!("the mean of the runs' {}s", estimator.name())
    } else {
        format!("the {} of a cell's rounds", estimator.name())
    };
    let mut text = format!(
        "A round launches the JVM twice back to back, once with -XX:+AlwaysPreTouch and \
         once without. Its cost is the time from exec to main() with pretouch less the \
         time without. cost ms is {figure}, and interval ms gives the ends of its 95% \
         interval. A negative change is less startup time."
    );
    let levels: Vec<String> = cmp
        .columns
        .iter()
        .filter_map(|c| {
            c.level.map(|l| {
                format!(
                    "{} {} cell(s) at {}",
                    c.label,
                    c.compared,
                    table::confidence(l)
                )
            })
        })
        .collect();
    if !levels.is_empty() {
        let _ = write!(
            text,
            " A change is the median of the ratios of each round of a label to each \
             round of the baseline, so it can differ from the ratio of the two costs \
             shown. Its interval is the Mann-Whitney interval of that ratio, with each \
             side counted as the rounds its drift leaves it, widened by how far the \
             launches without pretouch moved between the two labels' runs. Where each \
             side has several runs, it is over the runs. A change's interval is at the level that holds a \
             label's marks together at {}, by Bonferroni. The levels are {}.",
            table::pct(100.0 * cmp.confidence, 0),
            levels.join(", ")
        );
    }
    if shows_geomean(cmp) {
        let _ = write!(
            text,
            " geomean is the geometric mean of a label's cost ratios over its cells. Its \
             {} interval holds for that one figure. It is taken as if the cells moved \
             together, so it is never too narrow, and it carries no mark.",
            table::pct(100.0 * cmp.confidence, 0)
        );
    }
    if few {
        text += " none means under 10 rounds a side, so there is no interval and no mark.";
    }
    text += " min-max ms and IQR ms give the spread of the per-round costs. outliers \
             counts the launches whose modified z-score is above 3.5.";
    if one_run {
        text += " An interval from one run misses drift between runs. Three runs of each \
                 label, in turn, measure it: `run --kernel ... --runs 3` makes them in VMs, \
                 `--boot` across reboots, or three runs of `pretouch run` under one label.";
    }
    if over_runs {
        text += " Where the interval is over runs, rounds counts the runs times the \
                 rounds of a run.";
    }
    text += " docs/report.md says more.";
    text
}

/// A cell's cost in the cover letter's table: `FAILED` where its launches failed and
/// left it no cost, and `-` where the label has no such cell or it has no cost yet.
fn cell_cost(e: Option<&Entry>) -> String {
    match e {
        Some(e) => match e.measured.cost.cost_ms {
            Some(v) => table::ms(v),
            None if e.measured.times.failed > 0 => "FAILED".to_owned(),
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

/// The details: per cell and label, its rounds, its cost with its interval, the runs
/// it is over, the spread of the per-round costs and the outliers, then its change
/// against the baseline. Text names a cell once, its label by a letter where
/// `lettered`, and the interval by its ends; Markdown gives one figure a cell.
fn details_table(cmp: &Comparison, lettered: bool) -> table::Table {
    use table::{Cell, Column as Col, Shown};
    let wide = |c: Col| c.shown(Shown::Wide);
    let text = |c: Col| c.shown(Shown::Text);
    let mut columns: Vec<Col> = KEY_HEADERS.into_iter().map(Col::name).collect();
    columns.extend([
        Col::name("label"),
        Col::num("rounds"),
        Col::num("cost ms"),
        text(Col::num("interval ms")),
        wide(Col::num("low ms")),
        wide(Col::num("high ms")),
        wide(Col::num("runs")),
        text(Col::num("min-max ms")),
        wide(Col::num("min ms")),
        wide(Col::num("max ms")),
        Col::num("IQR ms"),
        Col::num("outliers"),
    ]);
    columns.extend(
        ["change ms", "change low ms", "change high ms"]
            .into_iter()
            .chain(["change low %", "change high %"])
            .map(|h| wide(Col::num(h))),
    );
    let mut t = table::Table::new(columns)
        .keyed(KEY_HEADERS.len())
        .key_once();
    for r in &cmp.rows {
        for (col, e) in cmp.entries(r) {
            let c: &CellReport = &e.measured;
            let change = e.change;
            let interval = change.and_then(|c| c.interval);
            let pct = change.and_then(|c| c.percent_interval);
            let dash = || "-".to_owned();
            let end = |v: Option<f64>| v.map_or_else(dash, |v| format!("{v:+.1}"));
            // Over runs, `3 x 10`: 3 runs of 10 rounds each (on average).
            let rounds = match c.cost.cost_ci_runs {
                Some(runs) => format!("{runs} x {}", table::whole(c.cost.rounds / runs.max(1))),
                None => table::whole(c.cost.rounds),
            };
            let label = match lettered {
                true => Cell::wide(col.letter.clone(), col.label.clone()),
                false => col.label.as_str().into(),
            };
            let mut row: Vec<Cell> = key_values(key_parts(&r.key), &[0, 1, 2, 3])
                .into_iter()
                .map(Cell::from)
                .collect();
            row.push(label);
            row.push(Cell::wide(rounds, table::whole(c.cost.rounds)));
            row.extend(
                [
                    ms(c.cost.cost_ms),
                    cost_range(c, "none"),
                    ms(c.cost.cost_ci_low_ms),
                    ms(c.cost.cost_ci_high_ms),
                    table::whole(c.cost.cost_ci_runs.unwrap_or(1)),
                    spread(c.cost.cost_min_ms, c.cost.cost_max_ms),
                    ms(c.cost.cost_min_ms),
                    ms(c.cost.cost_max_ms),
                    iqr(c),
                    table::whole(c.outliers),
                    change.map_or_else(dash, |c| table::change_ms(c.delta)),
                    interval.map_or_else(dash, |i| table::change_ms(i.low)),
                    interval.map_or_else(dash, |i| table::change_ms(i.high)),
                    end(pct.map(|p| p.low)),
                    end(pct.map(|p| p.high)),
                ]
                .map(Cell::from),
            );
            t.rows.push(row);
        }
    }
    t
}

/// The details as text: the key parts that vary, and each line names its label, not a
/// letter to look up, where the labels fit.
fn details(cmp: &Comparison, cols: &[usize]) -> String {
    let shown = |t: &table::Table| {
        let picked: Vec<usize> = (cols.iter().copied())
            .chain(t.key..t.columns.len())
            .collect();
        t.pick(&picked)
    };
    let named = shown(&details_table(cmp, false));
    if named.fits(true) {
        return named.text_keyed();
    }
    let mut out = String::new();
    for c in &cmp.columns {
        out += &table::wrap(&format!("{} = {}", c.letter, c.label), 2);
    }
    out + &shown(&details_table(cmp, true)).text_keyed()
}

/// What a label's column of the cover letter's table holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    /// The only label: its cost with the ends of its own interval.
    Alone,
    /// The baseline beside other labels: its cost.
    Baseline,
    /// A label beside the baseline: its cost, then its change in % against the
    /// baseline with the ends of the change's interval and `*` where that interval
    /// leaves out 0.
    Compared,
}

impl Role {
    fn of(cmp: &Comparison, i: usize) -> Role {
        match (cmp.columns.len(), i == cmp.baseline_index()) {
            (1, _) => Role::Alone,
            (_, true) => Role::Baseline,
            (_, false) => Role::Compared,
        }
    }
}

/// A label's column of the cover letter's table, headed by its label. Its values are
/// made of parts, which text lines up from row to row and Markdown heads each in a
/// column of its own.
fn letter_column(label: &str, role: Role) -> table::Column {
    use table::Part;
    let cost = Part::new(format!("{label} ms"));
    let parts = match role {
        Role::Alone => vec![cost, Part::new("interval ms")],
        Role::Baseline => vec![cost],
        Role::Compared => vec![
            cost,
            Part::new(format!("{label} change %")).unit("%").apart(),
            Part::new("interval %"),
            Part::mark(1),
        ],
    };
    table::Column::parts(label, parts)
}

/// A label's value in a row of the cover letter's table, by the parts of its
/// [`letter_column`]. A cell that the label lacks has `-` for its cost and nothing
/// else, and a cell not compared with the baseline's has `n/a` for its change.
fn letter_cell(e: Option<&Entry>, role: Role) -> table::Cell {
    let cost = Some(cell_cost(e));
    let parts = match role {
        Role::Alone => vec![cost, e.map(|e| cost_range(&e.measured, NO_CI))],
        Role::Baseline => vec![cost],
        Role::Compared => {
            let change = e.and_then(|e| e.change);
            let percent = match (e, change) {
                (_, Some(c)) => Some(
                    c.percent
                        .map_or_else(|| "n/a".to_owned(), table::signed_pct),
                ),
                // Not compared: a warning under the table says why.
                (Some(_), None) => Some("n/a".to_owned()),
                (None, None) => None,
            };
            let interval = change.and_then(|c| match (c.interval, c.percent_interval) {
                (_, Some(p)) => Some(percent_range(p.low, p.high)),
                (None, _) => Some(NO_CI.to_owned()),
                // A round's cost of 0 or less has no ratio, so the interval is in ms alone.
                (Some(_), None) => None,
            });
            let mark = change.map(|c| labels::mark(&c).to_owned());
            vec![cost, percent, interval, mark]
        }
    };
    table::Cell::parts(parts)
}

/// A label's value in the geometric mean's row: its geometric mean in % with the ends
/// of its interval, and no mark, because the summary is not one of the column's
/// cells. The cost is blank, and so is the baseline's value, its ratio to itself
/// being 1.
fn geomean_cell(column: &Column, role: Role, confidence: f64) -> table::Cell {
    let blank = Some(String::new());
    let parts = match role {
        Role::Compared => {
            let g = GeomeanView::of(column, confidence);
            let interval = |g: GeomeanView| match (g.percent_low, g.percent_high) {
                (Some(low), Some(high)) => percent_range(low, high),
                _ => NO_CI.to_owned(),
            };
            vec![
                blank,
                g.map(|g| table::signed_pct(g.percent)),
                g.map(interval),
                None,
            ]
        }
        Role::Alone | Role::Baseline => vec![blank],
    };
    table::Cell::parts(parts)
}

/// The cover letter's table, stated once: a row per cell, named by the four key parts,
/// with a column per label in the order given ([`letter_column`]), and the geometric
/// means' row last where a label has one. Text and Markdown both walk it.
fn letter_table(cmp: &Comparison) -> table::Table {
    use table::{Cell, Column as Col};
    let roles: Vec<Role> = (0..cmp.columns.len()).map(|i| Role::of(cmp, i)).collect();
    let mut columns: Vec<Col> = KEY_HEADERS.into_iter().map(Col::name).collect();
    let labels = cmp.columns.iter().zip(&roles);
    columns.extend(labels.map(|(c, &role)| letter_column(&c.label, role)));
    let mut t = table::Table::new(columns).keyed(KEY_HEADERS.len());
    for r in &cmp.rows {
        let key = key_values(key_parts(&r.key), &[0, 1, 2, 3]).into_iter();
        let entries = r.entries.iter().zip(&roles);
        let values = entries.map(|(e, &role)| letter_cell(e.as_ref(), role));
        t.push(key.map(Cell::from).chain(values));
    }
    if shows_geomean(cmp) {
        let values = (cmp.columns.iter().zip(&roles))
            .map(|(c, &role)| geomean_cell(c, role, cmp.confidence));
        t.push_summary(GEOMEAN, values);
    }
    t
}

/// The cover letter's table as text ([`letter_table`]), with the key parts at `cols`.
/// Labels too long to head their columns are named by letters, and labels that do
/// not fit 72 columns go to further tables, each with the baseline's column.
fn letter_tables(cmp: &Comparison, cols: &[usize]) -> String {
    let base = cmp.baseline_index();
    let table = letter_table(cmp);
    let others: Vec<usize> = (0..cmp.columns.len()).filter(|&i| i != base).collect();
    let parts = |group: &[usize], lettered: bool| {
        let mut shown: Vec<usize> = group.to_vec();
        shown.push(base);
        shown.sort_unstable();
        let picked: Vec<usize> = (cols.iter().copied())
            .chain(shown.iter().map(|&i| KEY_HEADERS.len() + i))
            .collect();
        let mut t = table.pick(&picked);
        if lettered {
            for (c, &i) in t.columns[cols.len()..].iter_mut().zip(&shown) {
                c.header.clone_from(&cmp.columns[i].letter);
            }
        }
        t
    };
    // Labels too long for a column beside the baseline's are named by letters, each
    // letter's label said above the table.
    let lettered = others
        .iter()
        .chain(others.is_empty().then_some(&base))
        .any(|&i| !parts(&[i], false).fits(false));
    let fits = |group: &[usize]| parts(group, lettered).fits(false);
    let mut tables: Vec<Vec<usize>> = Vec::new();
    let mut group: Vec<usize> = Vec::new();
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
    let mut out = String::new();
    if lettered {
        for c in &cmp.columns {
            out += &table::wrap(&format!("{} = {}", c.letter, c.label), 2);
        }
    }
    for (n, g) in tables.iter().enumerate() {
        if n > 0 {
            out.push('\n');
        }
        out += &parts(g, lettered).text_keyed();
    }
    out
}

/// The footer of the cover letter's table, at most two lines: what a change is, the
/// confidence of its interval, what `*` means and at what level a label's marks hold
/// together. With one label, the confidence of the cost's interval. Where no cell has
/// an interval, what [`NO_CI`] means.
fn letter_footer(cmp: &Comparison) -> String {
    let any_interval = compared_cells(cmp).any(|c| c.cost_interval().is_some());
    if cmp.columns.len() == 1 {
        return if any_interval {
            "[low, high] is the 95% interval of the cost.\n".to_owned()
        } else {
            no_ci_footer()
        };
    }
    // Each label's column is one family, so with several labels the level holds for
    // each label's cells, not for all the table's cells together.
    let families: Vec<(usize, f64)> = cmp
        .columns
        .iter()
        .filter_map(|c| c.level.map(|l| (c.compared, l)))
        .collect();
    let Some((cells, level)) = change_confidence(cmp) else {
        let changes = cmp.rows.iter().flat_map(|r| r.entries.iter().flatten());
        return if changes.clone().any(|e| e.change.is_some()) {
            no_ci_footer()
        } else {
            String::new()
        };
    };
    let whose = if families.len() > 1 {
        "each label's"
    } else {
        "a label's"
    };
    let together = if cells == 1 {
        String::new()
    } else {
        format!(
            ", at {} for {whose} {cells} cells together",
            table::pct(100.0 * cmp.confidence, 0)
        )
    };
    table::wrap(
        &format!(
            "A change is the median ratio of rounds, with its {} interval. * marks an interval without 0{together}.",
            table::confidence(level)
        ),
        2,
    )
}

/// The confidence of the changes' intervals, that of the column with the most cells
/// compared, and those cells: what the footer, the HTML's chart and `check` state.
/// `None` where no change has an interval.
pub fn change_confidence(cmp: &Comparison) -> Option<(usize, f64)> {
    cmp.columns
        .iter()
        .filter_map(|c| c.level.map(|l| (c.compared, l)))
        .max_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)))
}

/// What the cover letter's table shows, in text and Markdown alike, for a cell or a
/// geometric mean without an interval.
const NO_CI: &str = "no CI";

/// The footer where no cell has an interval.
fn no_ci_footer() -> String {
    format!("{NO_CI} means under 10 rounds, too few for an interval.\n")
}

/// The summary row's name in the key columns.
const GEOMEAN: &str = "geomean";

/// Whether the tables end with the geometric mean of each label's cost ratios: with
/// two compared rows or more in some label's column.
fn shows_geomean(cmp: &Comparison) -> bool {
    cmp.columns.iter().any(|c| c.geomean.is_some())
}

/// A label's geometric mean of its cost ratios against the baseline
/// (`stats::family::geometric_mean`), in %, as the JSON's `comparison.columns[].geomean`
/// and the CSV's `geomean_*` columns give it.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct GeomeanView {
    /// The geometric mean of the cells' cost ratios, label over baseline.
    pub ratio: f64,
    /// `100 (ratio - 1)`: the typical change across the cells, in %.
    pub percent: f64,
    /// Its interval, in %; null when a cell has no interval.
    pub percent_low: Option<f64>,
    pub percent_high: Option<f64>,
    /// The interval's confidence, for this one statement (no Bonferroni).
    pub confidence: f64,
    /// The cells it is over: those of the label compared with the baseline.
    pub cells: usize,
}

impl GeomeanView {
    pub fn of(column: &Column, confidence: f64) -> Option<GeomeanView> {
        let g = column.geomean?;
        let pct = |r: f64| 100.0 * (r - 1.0);
        Some(GeomeanView {
            ratio: g.ratio,
            percent: pct(g.ratio),
            percent_low: g.interval.map(|i| pct(i.0)),
            percent_high: g.interval.map(|i| pct(i.1)),
            confidence,
            cells: g.cells,
        })
    }
}

/// The CSV's geometric-mean columns: the label's summary, repeated on each of its rows
/// so that the CSV keeps one shape; empty for the baseline and under 2 cells.
#[derive(Serialize, Default)]
struct GeomeanColumns {
    geomean_percent: Option<f64>,
    geomean_percent_low: Option<f64>,
    geomean_percent_high: Option<f64>,
    geomean_confidence: Option<f64>,
    geomean_cells: Option<usize>,
}

impl GeomeanColumns {
    fn of(column: &Column, confidence: f64) -> GeomeanColumns {
        GeomeanView::of(column, confidence).map_or_else(Default::default, |g| GeomeanColumns {
            geomean_percent: Some(g.percent),
            geomean_percent_low: g.percent_low,
            geomean_percent_high: g.percent_high,
            geomean_confidence: Some(g.confidence),
            geomean_cells: Some(g.cells),
        })
    }
}

/// The table's title: what the cost is, its estimator and rounds, against which label
/// the changes are.
fn title(cmp: &Comparison, cells: &[&CellReport]) -> String {
    if cmp.columns.len() == 1 {
        return format!(
            "AlwaysPreTouch startup cost, ms ({})",
            estimate_phrase(cells)
        );
    }
    format!(
        "AlwaysPreTouch startup cost, ms ({}); change against {}",
        estimate_phrase(cells),
        cmp.columns[cmp.baseline_index()].label
    )
}

/// What every cell shares, said once above the table: the host, the kernel where
/// every label ran the same, and the key parts that are the same in every row.
fn shared_line(cmp: &Comparison, shared: Option<String>) -> String {
    let same = |f: fn(&crate::analyze::report::LabelInfo) -> &str| {
        cmp.columns
            .iter()
            .all(|c| f(&c.info) == f(&cmp.columns[0].info))
    };
    let mut common: Vec<String> = Vec::new();
    common.extend(shared);
    if let Some(first) = cmp
        .columns
        .first()
        .filter(|_| same(|i| &i.hostname) && same(|i| &i.cpu_model))
    {
        let kernel = if same(|i| &i.kernel_release) {
            format!(", kernel {}", first.info.kernel_release)
        } else {
            String::new()
        };
        common.push(format!(
            "host {} ({}){kernel}",
            first.info.hostname, first.info.cpu_model
        ));
    }
    table::wrap(&common.join("; "), 2)
}

/// The labels side by side as the cover letter's table; every detail with `details`.
/// Without `details` the notes are apart ([`brief_notes`]), so that the table can be
/// pasted as it is.
pub fn text(cmp: &Comparison, details: bool) -> String {
    let mut out = head(cmp);
    if details {
        let (cols, _) = key_columns(&keys(cmp));
        out.push('\n');
        out += &details_text(cmp, &cols);
    }
    out
}

/// The notes under the cover letter's table without `--details`, a line or two each,
/// each naming the option that shows more. The text report prints them to stderr, so
/// that its stdout is the table alone.
pub fn brief_notes(cmp: &Comparison) -> String {
    let cells: Vec<&CellReport> = compared_cells(cmp).collect();
    let brief = Brief {
        cells: &cells,
        outliers_excluded: cmp.outliers_excluded,
        warnings: &cmp.warnings,
        run_to_run: &cmp.run_to_run,
        machine_notes: &cmp.machine_notes,
        env_differences: &cmp.env_differences,
    };
    brief.lines().concat()
}

/// The cover letter's table under its title, with its footer: what the text report
/// opens with, with `--details` or without.
pub fn head(cmp: &Comparison) -> String {
    let cells: Vec<&CellReport> = compared_cells(cmp).collect();
    let mut out = table::wrap(&title(cmp, &cells), 2);
    let (cols, shared) = key_columns(&keys(cmp));
    out += &shared_line(cmp, shared);
    out.push('\n');
    out += &letter_tables(cmp, &cols);
    out += &letter_footer(cmp);
    out
}

/// `--details`: when and where each label ran, each cell's rounds, cost and spread, the
/// legend, and every note in full.
fn details_text(cmp: &Comparison, cols: &[usize]) -> String {
    let mut out = String::new();
    for c in &cmp.columns {
        let facts = format!(
            "host {} ({}), kernel {}, first run {} UTC",
            c.info.hostname,
            c.info.cpu_model,
            c.info.kernel_release,
            minute(&c.info.oldest_run)
        );
        out += &table::wrap(
            &format!(
                "{}{}: {facts}",
                c.label,
                if c.baseline { " (baseline)" } else { "" }
            ),
            2,
        );
    }
    out.push('\n');
    out += &details(cmp, cols);
    out.push('\n');
    out += &Note::Legend(legend(cmp)).text();
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
        .map(|c| (c.label.clone(), c.label.clone()))
        .collect();
    let names = CellNames::new(cells.iter().copied(), letters);
    let mut notes = failure_warnings_named(&cells, &|c| names.name(c));
    notes.extend(outlier_note(
        cells.iter().map(|c| c.outliers).sum(),
        cmp.outliers_excluded,
    ));
    notes.extend(cmp.warnings.iter().map(|w| format!("warning: {w}")));
    notes.extend(run_to_run_notes(&cmp.run_to_run));
    crate::render::disturbance::with_remarks(notes, &cells, &names, &cmp.machine_notes)
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

/// The labels side by side as Markdown: the title, the cover letter's table
/// ([`letter_table`]) with a column for each part of a label's values, its footer and a
/// line per warning; with `details`, each cell's rounds, interval and spread, the
/// legend and every note in full.
pub fn markdown(cmp: &Comparison, details: bool) -> String {
    let cells: Vec<&CellReport> = compared_cells(cmp).collect();
    let mut out = format!("{}\n\n", title(cmp, &cells));
    out += &letter_table(cmp).markdown();
    let footer = letter_footer(cmp);
    if !footer.is_empty() {
        out += "\n";
        out += &footer.split_whitespace().collect::<Vec<_>>().join(" ");
        out += "\n";
    }
    if !details {
        let brief = Brief {
            cells: &cells,
            outliers_excluded: cmp.outliers_excluded,
            warnings: &cmp.warnings,
            run_to_run: &cmp.run_to_run,
            machine_notes: &cmp.machine_notes,
            env_differences: &cmp.env_differences,
        };
        for line in brief.lines() {
            let _ = writeln!(
                out,
                "\n> {}",
                line.split_whitespace().collect::<Vec<_>>().join(" ")
            );
        }
        return out;
    }
    out += "\n";
    out += &markdown_details(cmp);
    out += &Note::Legend(legend(cmp)).markdown();
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
    let remarks: Vec<Note> = notes(cmp).into_iter().map(Note::Remark).collect();
    out += &table::notes_markdown(&remarks);
    out
}

/// `--details` in Markdown: a row per cell and label, one figure a cell: its rounds,
/// cost, interval, runs, spread and outliers; and each change's interval in ms and %.
fn markdown_details(cmp: &Comparison) -> String {
    let mut t = details_table(cmp, false);
    // Each label's geometric mean closes the table, with its interval's ends in %.
    for c in &cmp.columns {
        let Some(g) = GeomeanView::of(c, cmp.confidence) else {
            continue;
        };
        let end = |v: Option<f64>| v.map_or_else(|| "-".to_owned(), |v| format!("{v:+.1}"));
        let mut row = vec![GEOMEAN.to_owned()];
        row.extend(std::iter::repeat_n(String::new(), 3));
        row.push(c.label.clone());
        row.push(format!("{} cells", g.cells));
        row.extend(std::iter::repeat_n("-".to_owned(), 11));
        row.push(end(g.percent_low));
        row.push(end(g.percent_high));
        // Markdown alone has the room for these rows, so the text's columns are empty.
        let mut cells: Vec<table::Cell> = row.into_iter().map(table::Cell::from).collect();
        for (i, c) in t.columns.iter().enumerate() {
            if c.shown == table::Shown::Text {
                cells.insert(i, table::Cell::from(""));
            }
        }
        t.rows.push(cells);
    }
    t.markdown()
}

/// A cell's change against the baseline as the CSV's columns after the cell's own, and
/// as the JSON's `comparison.changes` keys after the cell's key (`render::json`).
#[derive(Serialize)]
pub struct ChangeColumns<'a> {
    baseline: bool,
    /// The change in ms, the Hodges-Lehmann shift of the two labels' per-round costs
    /// where both sides have 10 rounds or more, else the difference of their costs.
    change_ms: Option<f64>,
    /// The change in %: the median ratio of the label's rounds to the baseline's, less
    /// 1 (null when a cost is not positive), or of the two costs with fewer rounds.
    change_percent: Option<f64>,
    /// The interval of `change_percent`, the rank interval of the ratio
    /// (`stats::change`); null without an interval.
    change_percent_low: Option<f64>,
    change_percent_high: Option<f64>,
    /// `change_ms` again, with the ends of its interval in ms after it; null with fewer
    /// than 10 rounds on a side.
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
            let geomean = GeomeanColumns::of(col, cmp.confidence);
            rows.push((&e.measured, (ChangeColumns::of(col, e), geomean, excluded)));
        }
    }
    crate::render::report::cells_csv(&rows)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyze::Options;
    use crate::analyze::compare::{Change, compare};
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

    /// [`sample`] with labels too long to name each line of the details.
    fn long_labels() -> Comparison {
        let mut cmp = sample();
        for c in &mut cmp.columns {
            c.label = format!("{}-with-a-local-version-string-this-long", c.label);
        }
        cmp
    }

    /// [`long_labels`] with three more labels like the second, so the labels take
    /// several tables.
    fn many_labels() -> Comparison {
        let mut cmp = long_labels();
        for letter in ["C", "D", "E"] {
            let mut c = cmp.columns[1].clone();
            c.letter = letter.to_owned();
            c.label = format!("{}-{letter}", c.label);
            cmp.columns.push(c);
            for r in &mut cmp.rows {
                let e = r.entries[1].clone();
                r.entries.push(e);
            }
        }
        cmp
    }

    #[test]
    fn cover_letter_tables_letter_long_labels_and_split_many() {
        insta::assert_snapshot!(letter_tables(&long_labels(), &[1, 2]), @"
        A = 6.18.0-base-with-a-local-version-string-this-long
        B = 6.18.0-vma-refcount-with-a-local-version-string-this-long
        gc        heap  A    B
        g1        1g    383  284  -25.9% [-29.5, +147.9]
        parallel  1g    396  396   +0.1%    [-3.8, +4.2]
        geomean                   -13.9%  [-17.3, +58.4]
        ");
        insta::assert_snapshot!(letter_tables(&many_labels(), &[1, 2]), @"
        A = 6.18.0-base-with-a-local-version-string-this-long
        B = 6.18.0-vma-refcount-with-a-local-version-string-this-long
        C = 6.18.0-vma-refcount-with-a-local-version-string-this-long-C
        D = 6.18.0-vma-refcount-with-a-local-version-string-this-long-D
        E = 6.18.0-vma-refcount-with-a-local-version-string-this-long-E
        gc        heap  A    B
        g1        1g    383  284  -25.9% [-29.5, +147.9]
        parallel  1g    396  396   +0.1%    [-3.8, +4.2]
        geomean                   -13.9%  [-17.3, +58.4]

        gc        heap  A    C
        g1        1g    383  284  -25.9% [-29.5, +147.9]
        parallel  1g    396  396   +0.1%    [-3.8, +4.2]
        geomean                   -13.9%  [-17.3, +58.4]

        gc        heap  A    D
        g1        1g    383  284  -25.9% [-29.5, +147.9]
        parallel  1g    396  396   +0.1%    [-3.8, +4.2]
        geomean                   -13.9%  [-17.3, +58.4]

        gc        heap  A    E
        g1        1g    383  284  -25.9% [-29.5, +147.9]
        parallel  1g    396  396   +0.1%    [-3.8, +4.2]
        geomean                   -13.9%  [-17.3, +58.4]
        ");
    }

    /// [`sample`] with a third label, and in the cover letter's table a cell of each
    /// kind that lacks a figure: a change without an interval, a cell not compared, a
    /// cell the label lacks, and a change without an interval in %.
    fn without_figures() -> Comparison {
        let mut cmp = sample();
        let mut third = cmp.columns[1].clone();
        third.letter = "C".to_owned();
        third.label = "thp-always".to_owned();
        cmp.columns.push(third);
        for r in &mut cmp.rows {
            let e = r.entries[1].clone();
            r.entries.push(e);
        }
        fn change(cmp: &mut Comparison, row: usize, label: usize) -> &mut Change {
            let e = cmp.rows[row].entries[label].as_mut().unwrap();
            e.change.as_mut().unwrap()
        }
        // Under 10 rounds a side, a change has no interval and no mark.
        let few = change(&mut cmp, 0, 1);
        (few.interval, few.percent_interval, few.significant) = (None, None, false);
        // A cost of 0 or less has no ratio, so its change has an interval in ms alone.
        let not_positive = change(&mut cmp, 1, 2);
        (not_positive.percent, not_positive.percent_interval) = (None, None);
        not_positive.significant = true;
        let e = cmp.rows[1].entries[1].as_mut().unwrap();
        (e.change, e.not_compared) = (None, Some("another machine".to_owned()));
        cmp.rows[0].entries[2] = None;
        cmp
    }

    #[test]
    fn the_letters_table_says_the_same_words_in_text_and_markdown() {
        let cmp = without_figures();
        insta::assert_snapshot!(letter_tables(&cmp, &[1, 2]), @"
        gc        heap  6.18.0-base  6.18.0-vma-refcount
        g1        1g    383          284  -25.9%          no CI
        parallel  1g    396          396     n/a
        geomean                           -13.9% [-17.3, +58.4]

        gc        heap  6.18.0-base  thp-always
        g1        1g    383            -
        parallel  1g    396          396     n/a                *
        geomean                           -13.9% [-17.3, +58.4]
        ");
        insta::assert_snapshot!(letter_table(&cmp).markdown(), @"
        | jdk | gc | heap | variant | 6.18.0-base ms | 6.18.0-vma-refcount ms | 6.18.0-vma-refcount change % | interval % | thp-always ms | thp-always change % | interval % |
        |---|---|---|---|---:|---:|---:|---:|---:|---:|---:|
        | 17.0.15+6 | g1 | 1g | default | 383 | 284 | -25.9 | no CI | - | - | - |
        | 17.0.15+6 | parallel | 1g | default | 396 | 396 | n/a | - | 396 | n/a* | - |
        | geomean |  |  |  |  |  | -13.9 | [-17.3, +58.4] |  | -13.9 | [-17.3, +58.4] |
        ");
        let mut alone = sample();
        alone.columns.truncate(1);
        for r in &mut alone.rows {
            r.entries.truncate(1);
        }
        let few = &mut alone.rows[0].entries[0].as_mut().unwrap().measured;
        (few.cost.cost_ci_low_ms, few.cost.cost_ci_high_ms) = (None, None);
        insta::assert_snapshot!(letter_tables(&alone, &[1, 2]), @"
        gc        heap  6.18.0-base
        g1        1g    383 no CI
        parallel  1g    396 [389, 405]
        ");
        insta::assert_snapshot!(letter_table(&alone).markdown(), @"
        | jdk | gc | heap | variant | 6.18.0-base ms | interval ms |
        |---|---|---|---|---:|---:|
        | 17.0.15+6 | g1 | 1g | default | 383 | no CI |
        | 17.0.15+6 | parallel | 1g | default | 396 | [389, 405] |
        ");
    }

    #[test]
    fn details_name_labels_by_letter_where_they_do_not_fit() {
        let out = details(&long_labels(), &[1, 2]);
        insta::assert_snapshot!(out, @"
        A = 6.18.0-base-with-a-local-version-string-this-long
        B = 6.18.0-vma-refcount-with-a-local-version-string-this-long
          label  rounds  cost ms  interval ms  min-max ms  IQR ms  outliers
        g1 1g
          A          10      383   [376, 392]     374-393    10.0         0
          B          10      284   [279, 290]     276-937     8.6         1
        parallel 1g
          A          10      396   [389, 405]     387-407    10.4         0
          B          10      396   [390, 405]     388-407    10.4         0
        ");
    }

    #[test]
    fn text() {
        let out = super::text(&sample(), false);
        assert!(table::width(&out) <= table::WIDTH, "{out}");
        insta::assert_snapshot!(out, @"
        AlwaysPreTouch startup cost, ms (median of 10); change against
          6.18.0-base
        jdk 17.0.15+6, variant default; host vm (AMD EPYC 9B14), kernel 6.18.0

        gc        heap  6.18.0-base  6.18.0-vma-refcount
        g1        1g    383          284  -25.9% [-29.5, +147.9]
        parallel  1g    396          396   +0.1%    [-3.8, +4.2]
        geomean                           -13.9%  [-17.3, +58.4]
        A change is the median ratio of rounds, with its 97.5% interval. * marks
          an interval without 0, at 95% for a label's 2 cells together.
        ");
    }

    #[test]
    fn markdown() {
        insta::assert_snapshot!(super::markdown(&sample(), false), @"
        AlwaysPreTouch startup cost, ms (median of 10); change against 6.18.0-base

        | jdk | gc | heap | variant | 6.18.0-base ms | 6.18.0-vma-refcount ms | 6.18.0-vma-refcount change % | interval % |
        |---|---|---|---|---:|---:|---:|---:|
        | 17.0.15+6 | g1 | 1g | default | 383 | 284 | -25.9 | [-29.5, +147.9] |
        | 17.0.15+6 | parallel | 1g | default | 396 | 396 | +0.1 | [-3.8, +4.2] |
        | geomean |  |  |  |  |  | -13.9 | [-17.3, +58.4] |

        A change is the median ratio of rounds, with its 97.5% interval. * marks an interval without 0, at 95% for a label's 2 cells together.

        > note: 1 launch far from the others, counted in every figure. --details lists them.

        > note: each label is one run, so its intervals miss drift between runs. Three runs of each label, in turn, measure it (--details says how).
        ");
    }

    #[test]
    fn csv() {
        insta::assert_snapshot!(super::csv(&sample()), @r#"
        label,jdk,gc,heap,variant,launches,launches_on,launches_off,failed,median_on_ms,min_on_ms,max_on_ms,median_off_ms,min_off_ms,max_off_ms,pretouch_ms,first_failure,gc_threads,cpus,app,exec_to_agent_off_ms,exec_to_agent_on_ms,agent_to_init_off_ms,agent_to_init_on_ms,init_to_main_off_ms,init_to_main_on_ms,pretouch_faults,expected_faults,expected_folio_bytes,expected_faults_4k,fault_rate_per_s,ceiling_per_s,ceiling_pct,jvm_pretouch_ms,jvm_genesis_growth_ms,untouched,untouched_reason,untouched_launches,rounds,cost_min_ms,cost_q1_ms,cost_median_ms,cost_q3_ms,cost_max_ms,cost_tmean_ms,cost_estimator,cost_ms,cost_ci_low_ms,cost_ci_high_ms,cost_ci_batches,cost_ci_runs,cost_ci_looks,outliers,disturbed,disturbances,outlier_causes,peak_rss_off_mib,peak_rss_on_mib,heap_memory,heap_views,heap_page_size_bytes,heap_huge_bytes,heap_resident_bytes,pretouch_method,method_source,method_bugs,method_notes,method_check,method_check_detail,pretouch_logging,baseline,change_ms,change_percent,change_percent_low,change_percent_high,shift_ms,ci_low_ms,ci_high_ms,ci_confidence,significant,not_compared,geomean_percent,geomean_percent_low,geomean_percent_high,geomean_confidence,geomean_cells,outliers_excluded
        6.18.0-base,17.0.15+6-Debian-1deb12u1,g1,1g,default,20,10,10,0,431.075,421.4,442.9,48.125,47.0,49.5,382.95,,auto,all,,,,,,,,,262144,4096,,,,,,,0,,,10,374.4,378.042,382.95,388.017,393.4,382.95,median,382.95,376.3,391.5,10,,,0,0,,,,,,,,,,store,"JDK 17, before JDK 18",JDK-8272807,,,,running-pre-touch-lines,true,,,,,,,,,,,,,,,,false
        6.18.0-vma-refcount,17.0.15+6-Debian-1deb12u1,g1,1g,default,20,10,10,0,332.475,323.4,985.05,48.625,47.5,50.0,283.85,,auto,all,,,,,,,,,262144,4096,,,,,,,0,,,10,275.9,279.983,283.6,288.617,937.3,283.833,median,283.6,278.7,289.9,10,,,1,0,,"round 8 with pretouch 985 ms, median 332: no machine counters recorded (file written before they were)",,,,,,,,store,"JDK 17, before JDK 18",JDK-8272807,,,,running-pre-touch-lines,false,-98.85,-25.941475175682005,-29.544273002748078,147.91577151295385,-98.85,-116.779,559.279,0.975,false,,-13.888152389742858,-17.253396521539145,58.37739688330388,0.95,2,false
        6.18.0-base,17.0.15+6-Debian-1deb12u1,parallel,1g,default,20,10,10,0,446.113,436.1,458.35,50.125,49.0,51.5,395.988,,auto,all,,,,,,,,,262144,4096,,,,,,,0,,,10,387.1,390.885,395.988,401.254,406.85,395.988,median,395.988,389.075,404.875,10,,,0,0,,,,,,,,,,store,"JDK 17, before JDK 18",JDK-8272807 JDK-8324817,"Parallel GC could leave part of its heap untouched without THP `always` before JDK-8324817 (JDK 23, backported to 21u): the touched check says whether it did here",,,running-pre-touch-lines,true,,,,,,,,,,,,,,,,false
        6.18.0-vma-refcount,17.0.15+6-Debian-1deb12u1,parallel,1g,default,20,10,10,0,447.115,437.08,459.38,50.625,49.5,52.0,396.49,,auto,all,,,,,,,,,262144,4096,,,,,,,0,,,10,387.58,391.375,396.49,401.77,407.38,396.49,median,396.49,389.56,405.4,10,,,0,0,,,,,,,,,,store,"JDK 17, before JDK 18",JDK-8272807 JDK-8324817,"Parallel GC could leave part of its heap untouched without THP `always` before JDK-8324817 (JDK 23, backported to 21u): the touched check says whether it did here",,,running-pre-touch-lines,false,0.502,0.1268971592756296,-3.8094934381324608,4.222336104807045,0.502,-15.32,16.33,0.975,false,,-13.888152389742858,-17.253396521539145,58.37739688330388,0.95,2,false
        "#);
    }
}
