//! The profile report (`report --profile`) in every format: per cell the kernel
//! functions and categories of the pretouch, then each label's shift against the
//! baseline, biggest movers first, as `perf diff` and the kernel test robot print them.

use std::fmt::Write as _;

use crate::analyze::profile::{CellProfile, CellShift, ProfileReport, Share, Shift};
use crate::machine::jdk::short_jdk;
use crate::render::common::Format;
use crate::render::table::{self, WIDTH, name, num};

/// Functions listed per cell in text and Markdown (CSV and JSON have all).
pub const TOP_FUNCTIONS: usize = 12;
/// Movers listed per cell and label in text and Markdown.
pub const TOP_MOVERS: usize = 10;

pub fn render(report: &ProfileReport, format: Format) -> String {
    match format {
        Format::Text => text(report),
        Format::Markdown => markdown(report),
        Format::Csv => csv(report),
        Format::Json => serde_json::to_string_pretty(report).expect("serializes") + "\n",
    }
}

fn cell_title(key: &[String; 4]) -> String {
    format!("{} {} {} {}", short_jdk(&key[0]), key[1], key[2], key[3])
}

fn opt_ms(v: Option<f64>) -> String {
    v.map_or_else(|| "-".to_owned(), table::ms)
}

fn opt_signed(v: Option<f64>) -> String {
    v.map_or_else(|| "-".to_owned(), table::signed_ms)
}

fn pct(v: f64) -> String {
    format!("{v:.1}%")
}

fn pp(v: f64) -> String {
    if v > 0.05 {
        format!("+{v:.1}")
    } else {
        format!("{v:.1}")
    }
}

/// Cuts a name to `max` characters, marking the cut with `..`.
fn fit(name: &str, max: usize) -> String {
    if name.chars().count() <= max {
        name.to_owned()
    } else {
        name.chars().take(max - 2).collect::<String>() + ".."
    }
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
        pct(100.0 * c.pretouch_samples as f64 / c.samples_on.max(1) as f64),
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
            opt_ms(c.profiled_on_ms),
            opt_ms(c.timed_on_ms),
            table::signed_ms(off),
            opt_ms(c.profiled_off_ms),
            opt_ms(c.timed_off_ms)
        )
        .unwrap();
    }
    s
}

fn share_rows(shares: &[Share], limit: usize, width: usize) -> Vec<Vec<String>> {
    shares
        .iter()
        .take(limit)
        .map(|s| {
            vec![
                fit(&s.name, width),
                s.samples.to_string(),
                pct(s.pct),
                opt_ms(s.est_ms),
            ]
        })
        .collect()
}

fn shift_rows(shifts: &[Shift], limit: usize, width: usize) -> Vec<Vec<String>> {
    shifts
        .iter()
        .take(limit)
        .map(|s| {
            vec![
                fit(&s.name, width),
                opt_ms(s.base_ms),
                opt_ms(s.ms),
                opt_signed(s.delta_ms),
                pp(s.delta_pp),
            ]
        })
        .collect()
}

const NOTES: &str = "share = of the samples whose stack passes through the JVM's \
pretouch frames (os::pretouch_memory, PretouchTask::*), by the leaf function (self \
time; [k] kernel, [.] the JVM) or by category (locks and helpers count for their \
caller's category); est ms = share x the cell's pretouch cost from the timed launches. \
The profiled launches ran after the timed ones, under perf record -e cpu-clock -g, and \
are in no median. cpu-clock is a timer: samples due while interrupts were off land \
where they are turned back on (exc_page_fault, *_irqrestore), so those leaves are \
partly time of the code before them.";

fn text(report: &ProfileReport) -> String {
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
        out += "  ";
        out += &table::wrap(&summary(c), 2);
        if c.pretouch_samples == 0 {
            out += "  no sample passes through pretouch frames\n";
            continue;
        }
        out += &table::render(
            &[
                name("category"),
                num("samples"),
                num("share"),
                num("est ms"),
            ],
            &share_rows(&c.categories, usize::MAX, fn_width),
            2,
        );
        out += &table::render(
            &[
                name("function (self)"),
                num("samples"),
                num("share"),
                num("est ms"),
            ],
            &share_rows(&c.functions, TOP_FUNCTIONS, fn_width),
            2,
        );
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
            "\nshift against the baseline `{}`: est. ms of the pretouch cost,\nbiggest movers first; pp = change of the share in points",
            report.baseline
        )
        .unwrap();
        // 2 indent + name + 4 gaps + 3 ms columns of 7 + pp 6.
        let width = WIDTH - 2 - 8 - 7 * 3 - 6;
        for s in &report.shifts {
            out += &shift_text(s, width);
        }
    }
    out += "\n";
    out += &table::wrap(NOTES, 0);
    out
}

fn shift_text(s: &CellShift, width: usize) -> String {
    let mut out = format!(
        "\n{}: {} against {}\n",
        cell_title(&s.key),
        s.label,
        s.baseline
    );
    out += &table::render(
        &[
            name("category"),
            num("base ms"),
            num("ms"),
            num("change"),
            num("pp"),
        ],
        &shift_rows(&s.categories, TOP_MOVERS, width),
        2,
    );
    out += &table::render(
        &[
            name("function (self)"),
            num("base ms"),
            num("ms"),
            num("change"),
            num("pp"),
        ],
        &shift_rows(&s.functions, TOP_MOVERS, width),
        2,
    );
    out
}

fn md_table(headers: &[&str], rows: &[Vec<String>]) -> String {
    let mut out = format!("| {} |\n|", headers.join(" | "));
    for (i, _) in headers.iter().enumerate() {
        out += if i == 0 { "---|" } else { "---:|" };
    }
    out += "\n";
    for r in rows {
        writeln!(out, "| {} |", r.join(" | ").replace('\n', " ")).unwrap();
    }
    out + "\n"
}

fn markdown(report: &ProfileReport) -> String {
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
        let esc = |rows: Vec<Vec<String>>| -> Vec<Vec<String>> {
            rows.into_iter()
                .map(|mut r| {
                    r[0] = format!("`{}`", r[0]);
                    r
                })
                .collect()
        };
        out += &md_table(
            &["category", "samples", "share", "est ms"],
            &share_rows(&c.categories, usize::MAX, usize::MAX),
        );
        out += &md_table(
            &["function (self)", "samples", "share", "est ms"],
            &esc(share_rows(&c.functions, TOP_FUNCTIONS, usize::MAX)),
        );
    }
    if !report.shifts.is_empty() {
        writeln!(
            out,
            "### Shift against the baseline `{}`\n\nEstimated ms of the pretouch cost, biggest movers first; pp = change of the share in points.\n",
            report.baseline
        )
        .unwrap();
        for s in &report.shifts {
            writeln!(
                out,
                "**{}: {} against {}**\n",
                cell_title(&s.key),
                s.label,
                s.baseline
            )
            .unwrap();
            let headers = ["base ms", "ms", "change", "pp"];
            out += &md_table(
                &[&["category"], &headers[..]].concat(),
                &shift_rows(&s.categories, TOP_MOVERS, usize::MAX),
            );
            out += &md_table(
                &[&["function (self)"], &headers[..]].concat(),
                &shift_rows(&s.functions, TOP_MOVERS, usize::MAX)
                    .into_iter()
                    .map(|mut r| {
                        r[0] = format!("`{}`", r[0]);
                        r
                    })
                    .collect::<Vec<_>>(),
            );
        }
    }
    out += NOTES;
    out += "\n";
    out
}

fn csv(report: &ProfileReport) -> String {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record([
        "section",
        "label",
        "baseline",
        "jdk",
        "gc",
        "heap",
        "variant",
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
    ])
    .expect("in memory");
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
        let summary: [(&str, Option<f64>); 13] = [
            ("launches_on", Some(c.launches_on as f64)),
            ("launches_off", Some(c.launches_off as f64)),
            ("failed", Some(c.failed as f64)),
            ("samples_on", Some(c.samples_on as f64)),
            ("samples_off", Some(c.samples_off as f64)),
            ("pretouch_samples", Some(c.pretouch_samples as f64)),
            (
                "heap_pretouch_samples",
                Some(c.heap_pretouch_samples as f64),
            ),
            ("pretouch_cpu_ms", c.pretouch_cpu_ms),
            ("extra_cpu_ms", c.extra_cpu_ms),
            ("cost_ms", c.cost_ms),
            ("perf_overhead_on_ms", c.overhead_on_ms()),
            ("perf_overhead_off_ms", c.overhead_off_ms()),
            ("period_ms", Some(c.period_ms)),
        ];
        for (name, value) in summary {
            let mut r = head("summary", name);
            r.push(f(value));
            r.extend(std::iter::repeat_n(String::new(), 7));
            w.write_record(&r).expect("in memory");
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
                r.extend(std::iter::repeat_n(String::new(), 4));
                w.write_record(&r).expect("in memory");
            }
        }
    }
    for s in &report.shifts {
        for (kind, shifts) in [("category", &s.categories), ("function", &s.functions)] {
            for x in shifts {
                w.write_record([
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
                ])
                .expect("in memory");
            }
        }
    }
    String::from_utf8(w.into_inner().expect("in memory")).expect("utf8")
}
