//! Stage 6, servers: the time-to-ready and pay-back tables that follow the main table
//! when cells ran an `app:` with `ready:`, in text and Markdown, and the CSV that adds
//! their columns. Reports without server cells print exactly as before.

use std::fmt::Write as _;

use crate::analyze::report::{CellReport, Report};
use crate::features::servers::analyze::CellReady;
use crate::render::common::*;
use crate::render::table::{self, Cell, Column, Shown, Table};

fn server_cells(report: &Report) -> Vec<(&CellReport, &CellReady)> {
    report
        .cells
        .iter()
        .filter_map(|c| Some((c, c.parts.ready.as_ref()?)))
        .collect()
}

const READY_FOOTER: &str = "main and ready are the median times in ms from exec to main() and from exec to ready, without -XX:+AlwaysPreTouch. Ready is when the `ready:` probe first succeeds. with is the same with pretouch, and cost is with less without. share is the ready cost as a part of the time to ready with pretouch.";

const PAYBACK_FOOTER: &str = "startup + is the ready cost above. work and with are the median wall times in ms of the `after_ready` command against the ready server, without and with pretouch. change is with less without, so a negative change means pretouch made the workload faster. net is startup + plus change, and pretouch paid back where net is negative.";

const REQUESTS_FOOTER: &str = "first and with are the median latencies in ms of the first request sent once the server was ready, without and with pretouch. p50 and p99 are the median over launches of each launch's median and 99th percentile latency over its n first requests. agree from is the first request from which on, to the last, the two sides agree within their noise. They agree at a request when the medians over launches differ by no more than the two sides' spreads added, a spread being the largest latency less the smallest. never means they still differ at the last request, and - means fewer than two launches a side.";

/// A server cell and its time-to-ready figures.
type ServerCell<'a> = (&'a CellReport, &'a CellReady);

/// Whether the cell sent first requests (`requests:`) at all.
fn sent_requests((_, r): &ServerCell<'_>) -> bool {
    r.requests_count.is_some()
}

/// Whether the cell ran its `after_ready` workload at all.
fn ran_workload((_, r): &ServerCell<'_>) -> bool {
    r.workload_runs_off + r.workload_runs_on + r.workload_failed > 0
}

/// The tables for server cells, text; empty when there are none.
pub fn text(report: &Report) -> String {
    let cells = server_cells(report);
    if cells.is_empty() {
        return String::new();
    }
    let mut out = String::new();
    let mut any_workload = false;
    let mut any_requests = false;
    for label in &report.labels {
        let mine: Vec<ServerCell<'_>> = cells
            .iter()
            .filter(|(c, _)| c.id.label == *label)
            .copied()
            .collect();
        if mine.is_empty() {
            continue;
        }
        let keys = LabelKeys::of(&mine);
        out += &keys.table(
            &format!("time to ready, label: {label}"),
            &ready_table(&mine),
        );
        let asked = requests_table(&mine);
        if !asked.rows.is_empty() {
            any_requests = true;
            out += &keys.table(&format!("first requests, label: {label}"), &asked);
        }
        let work = payback_table(&mine);
        if work.rows.is_empty() {
            continue;
        }
        any_workload = true;
        out += &keys.table(&format!("pay-back, label: {label}"), &work);
    }
    out.push('\n');
    out += &table::wrap(READY_FOOTER, 0);
    if any_requests {
        out += &table::wrap(REQUESTS_FOOTER, 0);
    }
    if any_workload {
        out += &table::wrap(PAYBACK_FOOTER, 0);
    }
    for n in notes(&cells) {
        out += &table::wrap(&n, 2);
    }
    out
}

/// One table of server cells, a row each: the label (in Markdown, which has every
/// label in one table), the cell's key, then `values` and a row of them per cell.
fn server_table(
    cells: &[ServerCell<'_>],
    values: Vec<Column>,
    row: impl Fn(&ServerCell<'_>) -> Vec<Cell>,
) -> Table {
    let mut columns = vec![Column::name("label").shown(Shown::Wide)];
    columns.extend(KEY_HEADERS.map(Column::name));
    columns.extend(values);
    Table::new(columns)
        .keyed(1 + KEY_HEADERS.len())
        .with_rows(cells.iter().map(|cell| {
            let c = cell.0;
            let mut r: Vec<Cell> = vec![c.id.label.as_str().into()];
            r.extend(
                key_values(key_refs(&c.key()), &[0, 1, 2, 3])
                    .into_iter()
                    .map(Cell::from),
            );
            r.extend(row(cell));
            r
        }))
}

/// The time to ready of each cell: the time to main and to ready, without and with
/// pretouch, and their cost. Markdown gives each time with its range.
fn ready_table(cells: &[ServerCell<'_>]) -> Table {
    let values = vec![
        Column::num("launches"),
        Column::num("main").wide_header("to main (min-max)"),
        Column::num("with"),
        Column::num("cost"),
        Column::num("ready").wide_header("to ready (min-max)"),
        Column::num("with").wide_header("with (min-max)"),
        Column::num("cost"),
        Column::num("share"),
    ];
    server_table(cells, values, |(c, r)| {
        vec![
            format!(
                "{}+{}",
                table::whole(c.times.runs_off),
                table::whole(c.times.runs_on)
            )
            .into(),
            Cell::wide(
                ms(c.times.median_off_ms),
                md(
                    c.times.median_off_ms,
                    c.times.min_off_ms,
                    c.times.max_off_ms,
                ),
            ),
            Cell::wide(
                ms(c.times.median_on_ms),
                md(c.times.median_on_ms, c.times.min_on_ms, c.times.max_on_ms),
            ),
            cost(c).into(),
            Cell::wide(
                ms(r.ready_off_ms),
                md(r.ready_off_ms, r.ready_min_off_ms, r.ready_max_off_ms),
            ),
            Cell::wide(
                ms(r.ready_on_ms),
                md(r.ready_on_ms, r.ready_min_on_ms, r.ready_max_on_ms),
            ),
            ms(r.ready_cost_ms).into(),
            table::opt_pct(r.ready_share_pct, 0).into(),
        ]
    })
}

/// The first requests of each cell that sent them (`requests:`).
fn requests_table(cells: &[ServerCell<'_>]) -> Table {
    let asked: Vec<ServerCell<'_>> = cells.iter().copied().filter(sent_requests).collect();
    let values = table::columns(
        &[
            "n",
            "first",
            "with",
            "p50",
            "with",
            "p99",
            "with",
            "agree from",
            "launches",
        ],
        0,
    );
    server_table(&asked, values, |(_, r)| {
        let agree = match (r.requests_agree_from, r.requests_never_agree) {
            (Some(k), _) => table::whole(k as usize),
            (None, true) => "never".to_owned(),
            (None, false) => "-".to_owned(),
        };
        [
            r.requests_count
                .map_or_else(|| "-".to_owned(), |n| table::whole(n as usize)),
            ms(r.first_request_off_ms),
            ms(r.first_request_on_ms),
            ms(r.requests_p50_off_ms),
            ms(r.requests_p50_on_ms),
            ms(r.requests_p99_off_ms),
            ms(r.requests_p99_on_ms),
            agree,
            format!(
                "{}+{}",
                table::whole(r.requests_runs_off),
                table::whole(r.requests_runs_on)
            ),
        ]
        .map(Cell::from)
        .to_vec()
    })
}

/// The pay-back of each cell that ran its `after_ready` workload.
fn payback_table(cells: &[ServerCell<'_>]) -> Table {
    let work: Vec<ServerCell<'_>> = cells.iter().copied().filter(ran_workload).collect();
    let values = table::columns(&["startup +", "work", "with", "change", "net"], 0);
    server_table(&work, values, |(_, r)| {
        [
            table::opt_signed_ms(r.ready_cost_ms),
            ms(r.workload_off_ms),
            ms(r.workload_on_ms),
            table::opt_signed_ms(r.workload_change_ms),
            table::opt_signed_ms(r.net_ms),
        ]
        .map(Cell::from)
        .to_vec()
    })
}

/// The key columns of one label's tables: the parts of the cells' keys that differ
/// between them, and the line that names those they share.
struct LabelKeys {
    cols: Vec<usize>,
    shared: Option<String>,
}

impl LabelKeys {
    fn of(cells: &[ServerCell<'_>]) -> LabelKeys {
        let owned: Vec<[String; 4]> = cells.iter().map(|(c, _)| c.key()).collect();
        let keys: Vec<_> = owned.iter().map(key_refs).collect();
        let (cols, shared) = key_columns(&keys);
        LabelKeys { cols, shared }
    }

    /// One table of the label, text: its `title`, the shared key line, and a row of
    /// `values` for each cell, keyed by the parts that differ.
    fn table(&self, title: &str, table: &Table) -> String {
        let keys = self.cols.iter().map(|i| i + 1);
        let shown: Vec<usize> = keys.chain(table.key..table.columns.len()).collect();
        let mut out = String::from("\n");
        out += &table::wrap(title, 2);
        if let Some(shared) = &self.shared {
            out += &table::wrap(shared, 2);
        }
        out += &table.pick(&shown).text_keyed();
        out
    }
}

/// The probes, failed workloads and forced stops, as notes.
fn notes(cells: &[(&CellReport, &CellReady)]) -> Vec<String> {
    let mut notes = Vec::new();
    let mut probes: Vec<&str> = cells.iter().map(|(_, r)| r.ready_check.as_str()).collect();
    probes.dedup();
    notes.push(format!("ready probe: {}", probes.join("; ")));
    for (c, r) in cells {
        if r.workload_failed > 0 {
            notes.push(format!(
                "warning: {}: {} after_ready run(s) failed and are in no figure. The first: {}",
                cell_name(c),
                r.workload_failed,
                r.workload_first_failure.as_deref().unwrap_or("unknown")
            ));
        }
        if r.sigkills > 0 {
            notes.push(format!(
                "note: {}: {} launch(es) outlived the grace period after SIGTERM and were killed (SIGKILL)",
                cell_name(c),
                r.sigkills
            ));
        }
    }
    notes
}

/// The tables for server cells, Markdown; empty when there are none.
pub fn markdown(report: &Report) -> String {
    let cells = server_cells(report);
    if cells.is_empty() {
        return String::new();
    }
    let mut out = String::from("\n### Time to ready\n\n");
    out += &ready_table(&cells).markdown();
    let _ = writeln!(out, "\n{READY_FOOTER}");
    let asked = requests_table(&cells);
    if !asked.rows.is_empty() {
        out += "\n### First requests\n\n";
        out += &asked.markdown();
        let _ = writeln!(out, "\n{REQUESTS_FOOTER}");
    }
    let work = payback_table(&cells);
    if !work.rows.is_empty() {
        out += "\n### Pay-back\n\n";
        out += &work.markdown();
        let _ = writeln!(out, "\n{PAYBACK_FOOTER}");
    }
    for n in notes(&cells) {
        let _ = writeln!(out, "\n> {n}");
    }
    out
}

fn md(median: Option<f64>, min: Option<f64>, max: Option<f64>) -> String {
    match median {
        Some(m) => format!("{} ({})", table::ms(m), spread(min, max)),
        None => "-".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::servers::fixtures::server_launch;
    use crate::store::Results;

    fn sample(workload: bool) -> Report {
        crate::analyze::build(&Results {
            files: vec![server_file("6.18.0-base", 0.0, workload)],
            ..Default::default()
        })
    }

    /// A label's server cell; `faster`: ms its pretouch takes less than the sample's.
    fn server_file(label: &str, faster: f64, workload: bool) -> crate::store::ResultFile {
        let mut file = crate::fixtures::file(
            label,
            "2026-11-30T07:00:00Z",
            crate::fixtures::host("vm"),
            &[],
        );
        for round in 0..5u32 {
            let w = f64::from(round);
            for (pretouch, main, ready, work) in [
                (false, 90.0 + w, 560.0 + w, 240.0 - w),
                (
                    true,
                    320.0 + w - faster,
                    790.0 + 2.0 * w - faster,
                    200.0 + w,
                ),
            ] {
                let mut l = server_launch(pretouch, main, ready, workload.then_some(work));
                l.round = round;
                l.seq = file.launches.len() as u64;
                file.launches.push(l);
            }
        }
        file
    }

    #[test]
    fn text_tables() {
        let out = text(&sample(true));
        assert!(table::width(&out) <= table::WIDTH, "{out}");
        insta::assert_snapshot!(out, @"

        time to ready, label: 6.18.0-base
        jdk 17.0.15+6, variant default app=example.Server
        gc  heap  launches  main  with  cost  ready  with  cost  share
        g1  1g         5+5  92.0   322   230    562   794   232    29%

        pay-back, label: 6.18.0-base
        jdk 17.0.15+6, variant default app=example.Server
        gc  heap  startup +  work  with  change   net
        g1  1g         +232   238   202   -36.0  +196

        main and ready are the median times in ms from exec to main() and from
        exec to ready, without -XX:+AlwaysPreTouch. Ready is when the `ready:`
        probe first succeeds. with is the same with pretouch, and cost is with
        less without. share is the ready cost as a part of the time to ready
        with pretouch.
        startup + is the ready cost above. work and with are the median wall
        times in ms of the `after_ready` command against the ready server,
        without and with pretouch. change is with less without, so a negative
        change means pretouch made the workload faster. net is startup + plus
        change, and pretouch paid back where net is negative.
        ready probe: port 8080
        ");
    }

    #[test]
    fn the_first_requests_table() {
        let mut file = server_file("6.18.0-base", 0.0, false);
        for l in &mut file.launches {
            // Without pretouch the first two requests are slow, then both sides alike.
            let slow = if l.pretouch { 0.0 } else { 30.0 };
            let w = f64::from(l.round);
            let ms = [10.0 + slow + w, 8.0 + slow + w, 5.0 + w, 5.0 + w];
            l.measured.features.server.as_mut().unwrap().requests =
                Some(crate::features::servers::launch::RequestRun {
                    url: "http://127.0.0.1:8080/work".into(),
                    count: 4,
                    concurrency: 1,
                    latencies_ns: (ms.iter())
                        .map(|m| Some(crate::units::Nanos((m * 1e6) as u64)))
                        .collect(),
                    ..Default::default()
                });
        }
        let report = crate::analyze::build(&Results {
            files: vec![file],
            ..Default::default()
        });
        let out = text(&report);
        assert!(table::width(&out) <= table::WIDTH, "{out}");
        assert!(out.contains("first requests, label: 6.18.0-base"), "{out}");
        assert!(
            out.contains("g1  1g    4   42.0  12.0  23.5   8.5  42.0  12.0           3       5+5"),
            "{out}"
        );
        assert!(markdown(&report).contains("### First requests"));
        // Without `requests:` no such table.
        assert!(!text(&sample(true)).contains("first requests"));
    }

    #[test]
    fn without_a_workload_no_pay_back_table() {
        let out = text(&sample(false));
        assert!(
            out.contains("time to ready") && !out.contains("pay-back"),
            "{out}"
        );
    }

    #[test]
    fn markdown_tables() {
        insta::assert_snapshot!(markdown(&sample(true)), @"

        ### Time to ready

        | label | jdk | gc | heap | variant | launches | to main (min-max) | with | cost | to ready (min-max) | with (min-max) | cost | share |
        |---|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|
        | 6.18.0-base | 17.0.15+6 | g1 | 1g | default app=example.Server | 5+5 | 92.0 (90.0-94.0) | 322 (320-324) | 230 | 562 (560-564) | 794 (790-798) | 232 | 29% |

        main and ready are the median times in ms from exec to main() and from exec to ready, without -XX:+AlwaysPreTouch. Ready is when the `ready:` probe first succeeds. with is the same with pretouch, and cost is with less without. share is the ready cost as a part of the time to ready with pretouch.

        ### Pay-back

        | label | jdk | gc | heap | variant | startup + | work | with | change | net |
        |---|---|---|---|---|---:|---:|---:|---:|---:|
        | 6.18.0-base | 17.0.15+6 | g1 | 1g | default app=example.Server | +232 | 238 | 202 | -36.0 | +196 |

        startup + is the ready cost above. work and with are the median wall times in ms of the `after_ready` command against the ready server, without and with pretouch. change is with less without, so a negative change means pretouch made the workload faster. net is startup + plus change, and pretouch paid back where net is negative.

        > ready probe: port 8080
        ");
    }

    #[test]
    fn csv_and_json_carry_the_server_columns() {
        let report = sample(true);
        let csv = crate::render::report::csv(&report);
        let header = csv.lines().next().unwrap();
        assert!(header.ends_with(",ready_probe,ready_off_ms,ready_on_ms,ready_min_off_ms,ready_max_off_ms,ready_min_on_ms,ready_max_on_ms,ready_cost_ms,ready_share_pct,main_to_ready_off_ms,main_to_ready_on_ms,workload_runs_off,workload_runs_on,workload_failed,workload_first_failure,workload_off_ms,workload_on_ms,workload_change_ms,net_ms,sigkills,stop_ms,requests_count,requests_runs_off,requests_runs_on,first_request_off_ms,first_request_on_ms,requests_p50_off_ms,requests_p50_on_ms,requests_p99_off_ms,requests_p99_on_ms,requests_agree_from,requests_never_agree,requests_off_ms,requests_on_ms"), "{header}");
        assert!(
            csv.lines()
                .nth(1)
                .unwrap()
                .contains(",port 8080,562.0,794.0,"),
            "{csv}"
        );
        let json: serde_json::Value =
            serde_json::from_str(&crate::render::json::render(&report, None)).unwrap();
        let ready = &json["cells"][0]["ready"];
        assert_eq!(ready["ready_cost_ms"], 232.0);
        assert_eq!(ready["workload_change_ms"], -36.0);
    }

    #[test]
    fn several_labels_csv_and_json_carry_the_server_columns() {
        let report = crate::analyze::build(&Results {
            files: vec![
                server_file("6.18.0-base", 0.0, true),
                server_file("6.18.0-patched", 100.0, true),
            ],
            ..Default::default()
        });
        let cmp = crate::analyze::compare::compare(&report, &Default::default()).unwrap();
        assert_eq!(cmp.columns.len(), 2);
        let csv = crate::render::compare::csv(&cmp);
        // Quoted fields (outlier causes) may hold commas: read it as CSV.
        let mut reader = csv::Reader::from_reader(csv.as_bytes());
        let header: Vec<String> = reader
            .headers()
            .unwrap()
            .iter()
            .map(str::to_owned)
            .collect();
        // The cell's columns and the server's, as in the single-label CSV, then the
        // comparison's.
        let at = |name: &str| header.iter().position(|h| h == name).unwrap();
        assert!(at("stop_ms") < at("change_ms"), "{csv}");
        assert_eq!(header.last().map(String::as_str), Some("outliers_excluded"));
        let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
        assert_eq!(rows.len(), 2, "{csv}");
        let f = |row: &csv::StringRecord, name: &str| row[at(name)].parse::<f64>().unwrap();
        for row in &rows {
            assert_eq!(row.len(), header.len());
            assert_eq!(&row[at("ready_probe")], "port 8080");
        }
        // The patched label's ready cost is 100 ms less, in CSV and in JSON.
        let (base, patched) = (&rows[0], &rows[1]);
        assert_eq!(
            (&base[at("label")], &patched[at("label")]),
            ("6.18.0-base", "6.18.0-patched")
        );
        assert_eq!(
            f(base, "ready_cost_ms") - f(patched, "ready_cost_ms"),
            100.0
        );
        let json: serde_json::Value =
            serde_json::from_str(&crate::render::json::render(&report, Some(&cmp))).unwrap();
        let cells = json["cells"].as_array().unwrap();
        assert_eq!(cells.len(), 2);
        for (cell, row) in cells.iter().zip(&rows) {
            assert_eq!(cell["label"], row[at("label")]);
            assert_eq!(cell["ready"]["ready_cost_ms"], f(row, "ready_cost_ms"));
            assert_eq!(cell["ready"]["net_ms"], f(row, "net_ms"));
        }
    }
}
