//! What every format shares: the format names, how a cell, a spread or a JDK is
//! written, and the notes that follow a table.

use std::fmt::Write as _;

use crate::analyze::report::{CellReport, Report};
use crate::machine::jdk::short_jdk;
use crate::render::table;

/// A file name from free text, as the files beside a report are named: letters, digits,
/// `.`, `-` and `_` stay, and the rest become `_`.
pub fn file_part(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') {
                c
            } else {
                '_'
            }
        })
        .collect()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Text,
    Markdown,
    Csv,
    Json,
    /// One self-contained page with the report's tables and pictures.
    Html,
}

/// A cell as warnings and notes name it: label, JDK, GC, heap and variant with its axes.
pub(crate) fn cell_name(c: &CellReport) -> String {
    format!(
        "{} {} {} {} {}",
        c.id.label,
        short_jdk(&c.id.jdk),
        c.id.gc,
        c.id.heap,
        c.variant_text()
    )
}

pub(crate) fn ms(x: Option<f64>) -> String {
    table::opt_ms(x)
}

pub(crate) fn spread(min: Option<f64>, max: Option<f64>) -> String {
    match min.zip(max) {
        // `-18.1-177` would read as a range from a negative number to... something.
        Some((a, b)) if a < 0.0 || b < 0.0 => format!("{}..{}", table::ms(a), table::ms(b)),
        Some((a, b)) => format!("{}-{}", table::ms(a), table::ms(b)),
        None => "-".to_owned(),
    }
}

pub(crate) fn iqr(c: &CellReport) -> String {
    match c.cost.cost_q1_ms.zip(c.cost.cost_q3_ms) {
        Some((q1, q3)) => table::ms(q3 - q1),
        None => "-".to_owned(),
    }
}

pub(crate) fn cost(c: &CellReport) -> String {
    match c.times.pretouch_ms {
        Some(v) => table::ms(v),
        None if c.times.failed > 0 => "FAILED".to_owned(),
        // An interrupted run not resumed yet: nothing failed, one side has no launch.
        None => "-".to_owned(),
    }
}

/// The cell's cost with the ends of its 95% interval, `376 [372, 381]`, and
/// `376 [365, 388] (3 runs)` when the interval is over the label's runs; `few rounds`
/// when it has rounds but fewer than an interval needs.
pub(crate) fn cost_ci(c: &CellReport) -> String {
    match (c.cost.cost_ms, c.cost_interval()) {
        (Some(estimate), Some(_)) => {
            let shown = format!("{} {}", table::ms(estimate), cost_range(c, ""));
            match c.cost.cost_ci_runs {
                Some(runs) => format!("{shown} ({} runs)", table::whole(runs)),
                None => shown,
            }
        }
        _ if c.cost.rounds > 0 => FEW_ROUNDS.to_owned(),
        _ => "-".to_owned(),
    }
}

/// The ends of the cell's own interval, `[372, 381]`; `few` where it has rounds but
/// fewer than an interval needs.
pub(crate) fn cost_range(c: &CellReport, few: &str) -> String {
    match (c.cost.cost_ci_low_ms, c.cost.cost_ci_high_ms) {
        (Some(low), Some(high)) => ms_range(low, high),
        _ if c.cost.rounds > 0 => few.to_owned(),
        _ => "-".to_owned(),
    }
}

/// An interval in ms by its ends, `[372, 381]`, each end as [`table::ms`] writes it.
pub(crate) fn ms_range(low: f64, high: f64) -> String {
    format!("[{}, {}]", table::ms(low), table::ms(high))
}

/// An interval of a change in % by its ends, `[-13.5, -9.3]`, each signed to a tenth.
pub(crate) fn percent_range(low: f64, high: f64) -> String {
    format!("[{low:+.1}, {high:+.1}]")
}

/// What a cell without an interval shows instead.
pub(crate) const FEW_ROUNDS: &str = "few rounds";

/// What the footers add, with a leading space, about what each interval shown is
/// from: one run's rounds (it does not see the machine move between runs), or a
/// label's runs ([`cost_ci`]'s `(N runs)`); empty when no cell has an interval.
pub(crate) fn interval_basis_note<'a>(cells: impl Iterator<Item = &'a CellReport>) -> String {
    let (mut one_run, mut over_runs) = (false, false);
    for c in cells.filter(|c| c.cost_interval().is_some()) {
        match c.cost.cost_ci_runs {
            Some(_) => over_runs = true,
            None => one_run = true,
        }
    }
    let mut note = String::new();
    if one_run {
        note += " An interval from one run's rounds does not see the machine move between runs. A label of three runs or more, run in turn with the others, gets one over its runs that does, as `run --kernel ... --runs 3` makes in VMs and `--boot` across reboots, or as three runs of `pretouch run` under one label make. docs/statistics.md explains it.";
    }
    if over_runs {
        note += " (N runs) means that the label ran the cell N times, in N result files, and that the interval is over those runs. Its figure is the mean of the runs' figures. Its error is how far the runs differ, never narrower than the drift in their rounds, and its ends stay within the rounds. docs/statistics.md explains it.";
    }
    note
}

/// Lines saying where each cell stopped under adaptive repetitions, and why.
pub(crate) fn stop_lines(report: &Report) -> String {
    let mut out = String::new();
    for s in &report.stops {
        let cell = &s.stop.cell;
        let mut name = format!(
            "{} {} {} {}",
            short_jdk(&cell.jdk),
            cell.gc,
            cell.heap,
            cell.variant
        );
        if &*cell.gc_threads != crate::matrix::GC_THREADS_AUTO {
            name += &format!(" gc_threads={}", cell.gc_threads);
        }
        if &*cell.cpus != crate::matrix::cpuset::ALL {
            name += &format!(" cpus={}", cell.cpus);
        }
        let stop = &s.stop;
        let interval = match (stop.ci_low_ms, stop.ci_high_ms, stop.ci_half_width_pct) {
            (Some(lo), Some(hi), Some(pct)) => format!(
                "95% interval [{}, {}] ms, +-{}",
                table::ms_tenths(lo),
                table::ms_tenths(hi),
                table::pct(pct, 1)
            ),
            (Some(lo), Some(hi), None) => format!(
                "95% interval [{}, {}] ms",
                table::ms_tenths(lo),
                table::ms_tenths(hi)
            ),
            _ => "no 95% interval".to_owned(),
        };
        // Files written before the stop used the report's interval stopped on the
        // Mann-Whitney one of the launches; say so where it is shown.
        let interval = match (stop.looks, s.look_level_pct()) {
            _ if stop.ci_batches.is_none() && stop.ci_low_ms.is_some() => {
                interval + " (Mann-Whitney, as this file's runner stopped on)"
            }
            (Some(looks), Some(level)) if stop.ci_low_ms.is_some() => format!(
                "{interval} (each of {looks} looks at {})",
                table::pct(level, 2)
            ),
            _ => interval,
        };
        let target = crate::matrix::repetitions::target_text(stop.target_pct, stop.target_ms);
        let why = match stop.reason.as_str() {
            "converged" if stop.rounds < stop.max_rounds => {
                format!(
                    "stopped early after {} of {} rounds: {interval}, within {target}",
                    stop.rounds, stop.max_rounds
                )
            }
            "converged" => format!(
                "met the target in the last round ({}): {interval}, within {target}",
                stop.rounds
            ),
            "max_reached" => format!(
                "ran all {} rounds: {interval}, wider than {target}",
                stop.rounds
            ),
            "no_interval" => format!(
                "ran all {} rounds: fewer than 10 rounds with both launches, too few for an interval",
                stop.rounds
            ),
            "given_up" => format!(
                "given up after {} rounds: its launches kept failing (--give-up-after)",
                stop.rounds
            ),
            other => format!("{other} after {} rounds", stop.rounds),
        };
        let _ = writeln!(out, "adaptive: {} {name}: {why}", s.label);
    }
    let converged = |looks: bool| {
        report
            .stops
            .iter()
            .any(|s| s.stop.reason == "converged" && s.stop.looks.is_some() == looks)
    };
    if converged(false) {
        out.push_str(ADAPTIVE_COVERAGE_NOTE);
        out.push('\n');
    }
    if report.stops.iter().any(|s| s.stop.looks.is_some()) {
        out.push_str(ADAPTIVE_LOOKS_NOTE);
        out.push('\n');
    }
    out
}

/// Under the stop lines when a cell of a file written before the looks stopped on its
/// interval: stopping when the interval first looks narrow enough picks a lucky spell,
/// so that interval holds the cost less often than it says
/// (`an_adaptive_stop_covers_95_percent_at_planned_looks_not_every_round` in
/// `schedule/adaptive.rs`, docs/statistics.md).
const ADAPTIVE_COVERAGE_NOTE: &str = "adaptive: this file was written before the planned looks, so a cell's interval at the round it stopped on holds the cost less often than 95%. docs/statistics.md's simulation found 77-88%. For a 95% interval, run a fixed count of rounds";

/// Under the stop lines of a run checked at planned looks.
const ADAPTIVE_LOOKS_NOTE: &str = "adaptive: each cell was checked only at planned rounds, from min and doubling up to max, each time at 1 - 0.05 / looks. So the interval it stopped on holds 95% however the stop fell, by Bonferroni over the looks. The table states that interval. A comparison of such a cell adds the two sides' intervals over their looks, which is wider than Welch's";

/// The key columns that vary among `cells` (gc and heap always), and a line naming the
/// parts every cell shares.
pub(crate) fn key_columns(cells: &[(&str, &str, &str, &str)]) -> (Vec<usize>, Option<String>) {
    let varies = |i: usize| {
        let part = |c: &(&str, &str, &str, &str)| [c.0, c.1, c.2, c.3][i].to_owned();
        cells.iter().any(|c| part(c) != part(&cells[0]))
    };
    let mut cols = Vec::new();
    let mut shared = Vec::new();
    if varies(0) {
        cols.push(0);
    } else if let Some(c) = cells.first() {
        shared.push(format!("jdk {}", short_jdk(c.0)));
    }
    cols.extend([1, 2]);
    if varies(3) {
        cols.push(3);
    } else if let Some(c) = cells.first() {
        shared.push(format!("variant {}", c.3));
    }
    (cols, (!shared.is_empty()).then(|| shared.join(", ")))
}

/// A cell key as the tuple the table helpers take.
pub(crate) fn key_refs(k: &[String; 4]) -> (&str, &str, &str, &str) {
    (&k[0], &k[1], &k[2], &k[3])
}

pub(crate) const KEY_HEADERS: [&str; 4] = ["jdk", "gc", "heap", "variant"];

pub(crate) fn key_values(key: (&str, &str, &str, &str), cols: &[usize]) -> Vec<String> {
    let parts = [short_jdk(key.0), key.1, key.2, key.3];
    cols.iter().map(|&i| parts[i].to_owned()).collect()
}

pub(crate) fn outlier_note(outliers: usize, excluded: bool) -> Option<String> {
    match (outliers, excluded) {
        (0, false) => None,
        (n, false) => Some(format!(
            "warning: {n} outlier launch(es), in every figure unless --exclude-outliers"
        )),
        (n, true) => Some(format!(
            "note: --exclude-outliers was given: {n} launch(es) flagged as outliers (column out) are left out of every figure."
        )),
    }
}

/// The A/A check of labels run more than once, as one note for every label checked.
pub(crate) fn run_to_run_notes(checks: &[crate::analyze::report::RunToRun]) -> Vec<String> {
    if checks.is_empty() {
        return Vec::new();
    }
    let drifted =
        |r: &crate::analyze::report::RunToRun| r.cells > 0 && r.significant * 10 >= r.cells;
    let each: Vec<String> = checks
        .iter()
        .map(|r| {
            format!(
                "`{}` ({} runs) {} of {} pairs",
                r.label, r.runs, r.significant, r.cells
            )
        })
        .collect();
    let verdict = if checks.iter().any(drifted) {
        "warning: that is more than the 5% that chance gives, so the machine drifted between runs. An interval from one run's rounds does not see that drift, and an interval over runs allows for it."
    } else {
        "About 5% is chance."
    };
    vec![format!(
        "run-to-run check: each cell of a label's oldest run is tested against the same cell in each later run. These pairs differ significantly: {}. {verdict}",
        each.join(", ")
    )]
}

/// Every warning the text prints under its tables, without its `warning: ` prefix: the
/// failed launches, the outliers kept, `warnings` (the report's or the comparison's)
/// and a run-to-run check that found more than chance. The JSON's `warnings` key holds
/// these, so that a script sees what a reader sees.
pub(crate) fn printed_warnings(
    cells: &[&CellReport],
    outliers_excluded: bool,
    warnings: &[String],
    run_to_run: &[crate::analyze::report::RunToRun],
) -> Vec<String> {
    let mut out = failure_warnings(cells);
    out.extend(outlier_note(
        cells.iter().map(|c| c.outliers).sum(),
        outliers_excluded,
    ));
    out.retain(|w| w.starts_with("warning: "));
    out.extend(warnings.iter().map(|w| format!("warning: {w}")));
    out.extend(
        run_to_run_notes(run_to_run)
            .into_iter()
            .filter(|n| n.contains("warning: ")),
    );
    out.into_iter()
        .map(|w| w.strip_prefix("warning: ").map(str::to_owned).unwrap_or(w))
        .collect()
}

pub(crate) fn failure_warnings(cells: &[&CellReport]) -> Vec<String> {
    failure_warnings_named(cells, &|c| cell_name(c))
}

/// [`failure_warnings`], each cell named by `name`.
pub(crate) fn failure_warnings_named(
    cells: &[&CellReport],
    name: &dyn Fn(&CellReport) -> String,
) -> Vec<String> {
    cells
        .iter()
        .filter(|c| c.times.failed > 0)
        .map(|c| {
            format!(
                "warning: {}: {} launch(es) failed, first: {}",
                name(c),
                c.times.failed,
                c.times.first_failure.as_deref().unwrap_or("unknown")
            )
        })
        .collect()
}

/// How the text report names a cell in its rows and notes: the letter of its label when
/// labels are side by side (the legend lines say which label each letter is), then the
/// key parts that vary among the cells (the shared ones are said once, above the
/// tables). With one label, the key parts alone.
#[derive(Debug, Clone, Default)]
pub struct CellNames {
    /// The key parts shown ([`key_columns`]).
    cols: Vec<usize>,
    /// Each label and its letter, in the comparison's order; empty with one label.
    letters: Vec<(String, String)>,
}

impl CellNames {
    /// Names for `cells`, with `letters` (label, letter) when several labels are shown.
    pub fn new<'a>(
        cells: impl IntoIterator<Item = &'a CellReport>,
        letters: Vec<(String, String)>,
    ) -> Self {
        let keys: Vec<[String; 4]> = cells.into_iter().map(CellReport::key).collect();
        let refs: Vec<_> = keys.iter().map(key_refs).collect();
        let (cols, _) = key_columns(&refs);
        Self { cols, letters }
    }

    /// Names for one report's cells, each with its label when it has several.
    pub fn of(report: &Report) -> Self {
        let letters = if report.labels.len() > 1 {
            report
                .labels
                .iter()
                .map(|l| (l.clone(), l.clone()))
                .collect()
        } else {
            Vec::new()
        };
        Self::new(&report.cells, letters)
    }

    /// Whether rows carry a label column (several labels shown).
    pub(crate) fn lettered(&self) -> bool {
        !self.letters.is_empty()
    }

    /// The letter of `label`, its name when it has none.
    pub(crate) fn letter<'a>(&'a self, label: &'a str) -> &'a str {
        self.letters
            .iter()
            .find(|(l, _)| l == label)
            .map_or(label, |(_, letter)| letter.as_str())
    }

    /// The rank of `label` among the lettered labels (the order rows list them in).
    pub(crate) fn rank(&self, label: &str) -> usize {
        self.letters
            .iter()
            .position(|(l, _)| l == label)
            .unwrap_or(0)
    }

    /// The headers of the key columns shown.
    pub(crate) fn headers(&self) -> Vec<&'static str> {
        self.cols.iter().map(|&i| KEY_HEADERS[i]).collect()
    }

    /// The key parts shown of `c`, as the key columns take them.
    pub(crate) fn key(&self, c: &CellReport) -> Vec<String> {
        key_values(key_refs(&c.key()), &self.cols)
    }

    /// `B g1 64m`: the letter (when lettered) and the key parts shown.
    pub(crate) fn name(&self, c: &CellReport) -> String {
        let key = self.key(c).join(" ");
        if self.lettered() {
            format!("{} {key}", self.letter(&c.id.label))
        } else {
            key
        }
    }

    /// The cells named once each, in the order given; a key met under every letter is
    /// named once, without a letter (`g1 1g, A parallel 1g`).
    pub(crate) fn group(&self, cells: &[&CellReport]) -> String {
        let mut out: Vec<String> = Vec::new();
        for c in cells {
            let key = self.key(c);
            let everywhere = self.lettered()
                && self
                    .letters
                    .iter()
                    .all(|(l, _)| cells.iter().any(|o| o.id.label == *l && self.key(o) == key));
            let name = if everywhere {
                key.join(" ")
            } else {
                self.name(c)
            };
            if !out.contains(&name) {
                out.push(name);
            }
        }
        out.join(", ")
    }
}

/// The default report's notes under its table: each warning that applies in at most two
/// lines of [`table::WIDTH`] columns, naming the option that shows its detail
/// (`--details`, or the option that changes it). What `--details` prints in full.
pub(crate) struct Brief<'a> {
    pub cells: &'a [&'a CellReport],
    pub outliers_excluded: bool,
    pub warnings: &'a [String],
    pub run_to_run: &'a [crate::analyze::report::RunToRun],
    pub machine_notes: &'a [String],
    /// What differs between the labels' environments (THP mode, boot parameters).
    pub env_differences: &'a [String],
}

impl Brief<'_> {
    pub(crate) fn lines(&self) -> Vec<String> {
        let mut notes = Vec::new();
        let failed: usize = self.cells.iter().map(|c| c.times.failed).sum();
        if failed > 0 {
            let cells: Vec<String> = self
                .cells
                .iter()
                .filter(|c| c.times.failed > 0)
                .map(|c| format!("{} {} {}", c.id.gc, c.id.heap, c.variant_text()))
                .collect();
            let where_ = if cells.len() <= 2 {
                cells.join(", ")
            } else {
                format!("{} cells", cells.len())
            };
            notes.push(format!(
                "warning: {} failed in {where_}, left out of every figure. --details lists them.",
                launches(failed)
            ));
        }
        // A cost without a pretouch is no cost: said first, whatever else.
        for c in self.cells.iter().filter(|c| c.touched.untouched > 0) {
            notes.push(format!(
                "warning: {}: PRETOUCH DID NOT HAPPEN in {} of {} launches. --details says more.",
                cell_name(c),
                c.touched.untouched,
                c.times.runs_on
            ));
        }
        let outliers: usize = self.cells.iter().map(|c| c.outliers).sum();
        if outliers > 0 {
            notes.push(if self.outliers_excluded {
                format!(
                    "note: {} left out as outliers. --details lists them.",
                    launches(outliers)
                )
            } else {
                format!(
                    "note: {} far from the others, counted in every figure. --details lists them.",
                    launches(outliers)
                )
            });
        }
        let disturbed: usize = self.cells.iter().map(|c| c.machine.disturbed).sum();
        if disturbed > 0 {
            notes.push(format!(
                "note: {} ran beside other work or paid the host's faults. --details names them.",
                launches(disturbed)
            ));
        }
        if self
            .cells
            .iter()
            .any(|c| c.cost_interval().is_some() && c.cost.cost_ci_runs.is_none())
        {
            notes.push(
                "note: each label is one run, so its intervals miss drift between runs. Three runs of each label, in turn, measure it (--details says how).".to_owned(),
            );
        }
        // Where no cell has an interval, the footer already says why, so this note is
        // for a table where only some cells lack one.
        if self
            .cells
            .iter()
            .any(|c| c.cost.rounds > 0 && c.cost_interval().is_none())
            && self.cells.iter().any(|c| c.cost_interval().is_some())
        {
            notes.push(
                "note: a cell of under 10 rounds has no interval. --details shows which."
                    .to_owned(),
            );
        }
        for w in self.warnings {
            notes.push(format!("warning: {w}"));
        }
        let drifted = self
            .run_to_run
            .iter()
            .filter(|r| r.cells > 0 && r.significant * 10 >= r.cells)
            .count();
        if drifted > 0 {
            notes.push(format!(
                "warning: the runs of {drifted} label(s) differ more than chance. --details shows them."
            ));
        }
        for d in self.env_differences {
            notes.push(format!("environment: {d}"));
        }
        if !self.machine_notes.is_empty() {
            let reporting = self
                .machine_notes
                .iter()
                .any(|n| n.contains("free page reporting on"));
            notes.push(if reporting {
                "machine: free page reporting is on, so launches may pay the host's faults. --details says more."
                    .to_owned()
            } else {
                "machine: --details has notes on the machine the runs ran on.".to_owned()
            });
        }
        notes.into_iter().map(|n| two_lines(&n)).collect()
    }
}

/// `1 launch`, `4 launches`.
fn launches(n: usize) -> String {
    if n == 1 {
        "1 launch".to_owned()
    } else {
        format!("{n} launches")
    }
}

/// `text` wrapped at [`table::WIDTH`] columns (continuation indented by 2), cut to two
/// lines with ` ...` where longer: `--details` prints it whole.
fn two_lines(text: &str) -> String {
    let wrapped = table::wrap(text, 2);
    let lines: Vec<&str> = wrapped.lines().collect();
    if lines.len() <= 2 {
        return wrapped;
    }
    let mut second = lines[1].to_owned();
    while second.len() + 4 > table::WIDTH {
        second.pop();
    }
    format!("{}\n{} ...\n", lines[0], second.trim_end())
}

/// What the title says each cost is: `median of 10` (rounds), `median of 10-30`,
/// or over runs `mean of 3 runs' medians`; the estimator is the cells' one.
pub(crate) fn estimate_phrase(cells: &[&CellReport]) -> String {
    let name = cells
        .first()
        .map_or(crate::stats::interval::Estimator::default(), |c| {
            c.cost.cost_estimator
        })
        .name();
    if let Some(runs) = cells.iter().filter_map(|c| c.cost.cost_ci_runs).max() {
        return format!("mean of {runs} runs' {name}s");
    }
    let rounds: Vec<usize> = cells
        .iter()
        .map(|c| c.cost.rounds)
        .filter(|r| *r > 0)
        .collect();
    match (rounds.iter().min(), rounds.iter().max()) {
        (Some(a), Some(b)) if a == b => format!("{name} of {a}"),
        (Some(a), Some(b)) => format!("{name} of {a}-{b}"),
        _ => name.to_owned(),
    }
}

/// A table of the explaining columns `groups`, every one of them, a row per cell named
/// by its whole key: the columns the text of `render::explain` packs into its tables,
/// as Markdown lists them.
pub(crate) fn explaining_markdown(
    cells: &[&CellReport],
    groups: &[&[table::Explaining<CellReport>]],
) -> table::Table {
    let mut columns: Vec<table::Column> =
        KEY_HEADERS.into_iter().map(table::Column::name).collect();
    let explaining: Vec<&table::Explaining<CellReport>> =
        groups.iter().copied().flatten().collect();
    columns.extend(explaining.iter().map(|e| table::Column::from(&e.col)));
    table::Table::new(columns).with_rows(cells.iter().map(|c| {
        let mut row = key_values(key_refs(&c.key()), &[0, 1, 2, 3]);
        row.extend(explaining.iter().map(|e| (e.value)(c)));
        row
    }))
}

/// The heading of one label's shift against the baseline in one cell, such as
/// `17 g1 1g default: new against base`.
pub fn shift_heading(cell: &str, label: &str, baseline: &str) -> String {
    format!("{cell}: {label} against {baseline}")
}

/// A Markdown section ended by its notes. Each table in it ends with a blank line and
/// each note brings its own, so the blank lines at the section's end go first.
pub fn markdown_with_notes(section: &str, notes: &[table::Note]) -> String {
    section.trim_end_matches('\n').to_owned() + "\n" + &table::notes_markdown(notes)
}

/// The first columns of the CSV of every instrument of the extra rounds: the part of
/// its analysis a row belongs to, the label and its baseline, and the names of the
/// cell.
pub const INSTRUMENT_CSV_HEAD: [&str; 7] = [
    "section", "label", "baseline", "jdk", "gc", "heap", "variant",
];
