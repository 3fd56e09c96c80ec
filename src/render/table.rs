//! The one table model of the report: columns ([`Col`]: a header, a name or a number)
//! and rows of strings, printed as plain text that fits a patch email (at most
//! [`WIDTH`] columns, names left-aligned, numbers right-aligned, no trailing spaces) by
//! [`render`] and [`render_keyed`], or as a Markdown table by [`markdown`].

/// The widest line a text report may print: what pastes cleanly into a patch email.
pub const WIDTH: usize = 72;

/// A column: its header and whether its values are numbers (right-aligned).
#[derive(Debug, Clone, Copy)]
pub struct Col<'a> {
    pub header: &'a str,
    pub numeric: bool,
}

pub const fn name(header: &str) -> Col<'_> {
    Col {
        header,
        numeric: false,
    }
}

pub const fn num(header: &str) -> Col<'_> {
    Col {
        header,
        numeric: true,
    }
}

/// Renders rows under their headers, two spaces between columns, `indent` spaces first.
pub fn render(cols: &[Col<'_>], rows: &[Vec<String>], indent: usize) -> String {
    render_gap(cols, rows, indent, 2)
}

/// [`render`] with `gap` spaces between columns.
fn render_gap(cols: &[Col<'_>], rows: &[Vec<String>], indent: usize, gap: usize) -> String {
    let sep = " ".repeat(gap);
    let mut widths: Vec<usize> = cols.iter().map(|c| c.header.chars().count()).collect();
    for r in rows {
        for (w, cell) in widths.iter_mut().zip(r) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: &mut dyn Iterator<Item = &str>| {
        let mut s = " ".repeat(indent);
        for (i, ((cell, w), col)) in cells.zip(&widths).zip(cols).enumerate() {
            if i > 0 {
                s.push_str(&sep);
            }
            if col.numeric {
                s.push_str(&format!("{cell:>w$}"));
            } else {
                s.push_str(&format!("{cell:<w$}"));
            }
        }
        s.trim_end().to_owned() + "\n"
    };
    let mut out = line(&mut cols.iter().map(|c| c.header));
    for r in rows {
        out += &line(&mut r.iter().map(String::as_str));
    }
    out
}

/// The columns and rows as a Markdown table: names left-aligned (`---`), numbers
/// right-aligned (`---:`). A line break inside a cell becomes a space, since a
/// Markdown row is one line.
pub fn markdown(cols: &[Col<'_>], rows: &[Vec<String>]) -> String {
    let headers: Vec<&str> = cols.iter().map(|c| c.header).collect();
    let mut out = format!("| {} |\n|", headers.join(" | "));
    for c in cols {
        out += if c.numeric { "---:|" } else { "---|" };
    }
    out.push('\n');
    for r in rows {
        out += &format!("| {} |\n", r.join(" | ").replace('\n', " "));
    }
    out
}

/// Headers as columns: the first `names` are names, the others numbers.
pub fn cols<'a>(headers: &[&'a str], names: usize) -> Vec<Col<'a>> {
    headers
        .iter()
        .enumerate()
        .map(|(i, h)| if i < names { name(h) } else { num(h) })
        .collect()
}

/// The widest line of a rendered block.
pub fn width(text: &str) -> usize {
    text.lines().map(|l| l.chars().count()).max().unwrap_or(0)
}

/// A table whose first columns (`key`) name the row. Rendered as one table when it
/// fits [`WIDTH`], with two spaces between columns, else one; otherwise each row's key
/// goes on a line of its own, the values indented below it under one header.
pub fn render_keyed(
    key: &[Col<'_>],
    values: &[Col<'_>],
    rows: &[(Vec<String>, Vec<String>)],
) -> String {
    let cols: Vec<Col<'_>> = key.iter().chain(values).copied().collect();
    let flat: Vec<Vec<String>> = rows
        .iter()
        .map(|(k, v)| k.iter().chain(v).cloned().collect())
        .collect();
    for gap in [2, 1] {
        let table = render_gap(&cols, &flat, 0, gap);
        if width(&table) <= WIDTH || key.is_empty() {
            return table;
        }
    }
    let values_only: Vec<Vec<String>> = rows.iter().map(|(_, v)| v.clone()).collect();
    let body = render(values, &values_only, 2);
    let mut lines = body.lines();
    let mut out = lines.next().unwrap_or_default().to_owned() + "\n";
    for ((k, _), line) in rows.iter().zip(lines) {
        // Rows that continue the previous row's key leave it blank.
        if k.iter().any(|part| !part.is_empty()) {
            out += k.join(" ").trim_end();
            out.push('\n');
        }
        out += line;
        out.push('\n');
    }
    out
}

/// Whether [`render_keyed`] can print these rows as one flat table, two spaces apart.
pub fn fits(key: &[Col<'_>], values: &[Col<'_>], rows: &[(Vec<String>, Vec<String>)]) -> bool {
    fits_gap(key, values, rows, 2)
}

/// Whether [`render_keyed`] can print these rows as one flat table at all, two spaces
/// apart or else one, as it tries them.
pub fn fits_tight(
    key: &[Col<'_>],
    values: &[Col<'_>],
    rows: &[(Vec<String>, Vec<String>)],
) -> bool {
    fits_gap(key, values, rows, 2) || fits_gap(key, values, rows, 1)
}

fn fits_gap(
    key: &[Col<'_>],
    values: &[Col<'_>],
    rows: &[(Vec<String>, Vec<String>)],
    gap: usize,
) -> bool {
    let cols: Vec<Col<'_>> = key.iter().chain(values).copied().collect();
    let flat: Vec<Vec<String>> = rows
        .iter()
        .map(|(k, v)| k.iter().chain(v).cloned().collect())
        .collect();
    width(&render_gap(&cols, &flat, 0, gap)) <= WIDTH
}

/// A column of the explaining tables: its header, the sentence of the legend that
/// defines it (printed only when the column is), and its value for a cell.
pub struct Explaining<C> {
    pub col: Col<'static>,
    pub legend: &'static str,
    pub value: fn(&C) -> String,
}

/// Groups of [`Explaining`] columns packed into as few tables as fit [`WIDTH`]: a
/// column whose every value is `-` is left out (the second value says which were), the
/// groups kept whole and in order. `key` and `rows` are each row's key parts and item.
pub fn pack<'a, C>(
    key: &[Col<'_>],
    rows: &[(Vec<String>, &C)],
    groups: &[&'a [Explaining<C>]],
) -> (Vec<Vec<&'a Explaining<C>>>, Vec<&'static str>) {
    let mut dropped = Vec::new();
    let shown: Vec<Vec<&Explaining<C>>> = groups
        .iter()
        .map(|g| {
            g.iter()
                .filter(|col| {
                    let any = rows.iter().any(|(_, c)| (col.value)(c) != "-");
                    if !any {
                        dropped.push(col.col.header);
                    }
                    any
                })
                .collect::<Vec<_>>()
        })
        .filter(|g| !g.is_empty())
        .collect();
    let fits_in = |cols: &[&Explaining<C>]| {
        let values: Vec<Col<'_>> = cols.iter().map(|c| c.col).collect();
        let body: Vec<(Vec<String>, Vec<String>)> = rows
            .iter()
            .map(|(k, c)| (k.clone(), cols.iter().map(|col| (col.value)(c)).collect()))
            .collect();
        fits(key, &values, &body)
    };
    let mut tables: Vec<Vec<&Explaining<C>>> = Vec::new();
    for g in shown {
        match tables.last_mut() {
            Some(last) if fits_in(&[last.as_slice(), g.as_slice()].concat()) => last.extend(g),
            _ => tables.push(g),
        }
    }
    (tables, dropped)
}

/// Wraps prose to [`WIDTH`] columns; continuation lines get `indent` spaces. Words
/// longer than a line (paths) are broken.
pub fn wrap(text: &str, indent: usize) -> String {
    let pad = " ".repeat(indent);
    // Never split at a hyphen: `--exclude-outliers` and kernel names stay whole.
    let options = textwrap::Options::new(WIDTH)
        .subsequent_indent(&pad)
        .word_splitter(textwrap::WordSplitter::NoHyphenation);
    textwrap::fill(text, options) + "\n"
}

// Numbers. Every figure the text and Markdown reports print is written by one of the
// functions below, so that one quantity reads the same in every table.
//
// Milliseconds have two rules, on purpose. [`ms`] writes costs and times a reader
// compares across rows and labels: whole numbers from 100 ms on, since a tenth of a
// millisecond in 1866 is noise. [`ms_tenths`] writes the explaining tables' figures
// (a phase's growth with pretouch, the JVM log's pretouch and Genesis times), always
// to a tenth: they are small parts of a cost, read beside each other, where 312.4
// and 312.0 are different claims about where the time went.

/// Milliseconds for a table: whole numbers from 100 ms on (a reviewer reads 1866, not
/// 1866.0), one decimal below.
pub fn ms(v: f64) -> String {
    if v.abs() >= 99.95 {
        format!("{v:.0}")
    } else {
        format!("{v:.1}")
    }
}

/// Milliseconds always to a tenth: the explaining tables' figures (see above).
pub fn ms_tenths(v: f64) -> String {
    format!("{v:.1}")
}

/// [`ms_tenths`] always signed: `+0.0`, `-2.5`.
pub fn signed_ms_tenths(v: f64) -> String {
    format!("{v:+.1}")
}

/// [`ms`] with a `+` on positive values, for changes.
pub fn signed_ms(v: f64) -> String {
    let s = ms(v);
    if v > 0.0 && !s.starts_with('-') && !s.trim_start_matches(['0', '.']).is_empty() {
        format!("+{s}")
    } else {
        s
    }
}

/// A change across labels in ms, always signed: no change at all reads `+0.0`, as its
/// `+0.0%` does ([`signed_pct`]).
pub fn change_ms(v: f64) -> String {
    let s = signed_ms(v);
    if s.starts_with(['+', '-']) {
        s
    } else {
        format!("+{s}")
    }
}

/// A count or a rate, four digits from a thousand on: `2.360M`, `323.4k`, `950`. Every
/// fault count and faults/s of every report (calibrations, the explaining tables).
pub fn count(v: f64) -> String {
    if v.abs() >= 1e6 {
        format!("{:.3}M", v / 1e6)
    } else if v.abs() >= 1e3 {
        format!("{:.1}k", v / 1e3)
    } else {
        format!("{v:.0}")
    }
}

/// Nanoseconds as microseconds, three significant figures: `3.21`, `45.6`, `789`.
/// Every fault latency of the probe's tables.
pub fn us(ns: f64) -> String {
    let v = ns / 1000.0;
    match v.abs() {
        a if a < 10.0 => format!("{v:.2}"),
        a if a < 100.0 => format!("{v:.1}"),
        _ => format!("{v:.0}"),
    }
}

/// [`us`] signed, for a shift: `+1.20`, `-0.45`, and `0.00` without a sign.
pub fn signed_us(ns: f64) -> String {
    let s = us(ns);
    let zero = s
        .trim_start_matches('-')
        .chars()
        .all(|c| c == '0' || c == '.');
    match (zero, s.starts_with('-')) {
        (true, _) => s.trim_start_matches('-').to_owned(),
        (false, true) => s,
        (false, false) => format!("+{s}"),
    }
}

/// A count with a k or M suffix from 10,000 on, one decimal, as lkp prints large
/// counters: `9500`, `12.3k`, `45.6M`. The probe's tables (fault and lock counts),
/// where four digits below ten thousand read better than [`count`]'s `9.5k`.
pub fn lkp_count(v: f64) -> String {
    match v {
        v if v >= 10_000_000.0 => format!("{:.1}M", v / 1e6),
        v if v >= 10_000.0 => format!("{:.1}k", v / 1e3),
        v => format!("{v:.0}"),
    }
}

/// Whole milliseconds, for an outlier's time and its cell's median beside it: `1246`,
/// `57`.
pub fn whole_ms(v: f64) -> String {
    format!("{v:.0}")
}

/// A whole number [`whole`] writes: one of the report's counts.
pub trait Whole: Copy + std::fmt::Display {}
impl Whole for u32 {}
impl Whole for u64 {}
impl Whole for usize {}

/// A count every digit of which is read: rounds, runs, launches, outliers, samples,
/// lock waits (`30`, `12034`). Where four figures are enough, [`count`] and
/// [`lkp_count`] write a count.
pub fn whole(n: impl Whole) -> String {
    n.to_string()
}

/// A folio or fault size: `4K`, `64K`, `2M`; `-` when the kernel counted no fault.
pub fn fault_size(bytes: Option<f64>) -> String {
    match bytes {
        Some(b) if b >= 1.5 * (1 << 20) as f64 => format!("{:.0}M", b / (1 << 20) as f64),
        Some(b) => format!("{:.0}K", b / 1024.0),
        None => "-".to_owned(),
    }
}

/// Bytes in binary units, as `units::Bytes` writes them: `1.0 GiB`, `22.7 MiB`.
pub fn bytes(v: f64) -> String {
    crate::units::Bytes(v.round() as u64).to_string()
}

/// [`count`] always signed, for a change of a rate: `+1.200M`, `-950`.
pub fn signed_count(v: f64) -> String {
    format!("{}{}", if v >= 0.0 { "+" } else { "-" }, count(v.abs()))
}

/// A percentage to `decimals` places: `12%`, `12.3%`.
pub fn pct(v: f64, decimals: usize) -> String {
    format!("{v:.decimals$}%")
}

/// A fraction (a probability) to `decimals` places: `0.05`.
pub fn fraction(v: f64, decimals: usize) -> String {
    format!("{v:.decimals$}")
}

/// A change in percent, always signed, to a tenth: `-25.9%`, `+0.0%`.
pub fn signed_pct(v: f64) -> String {
    format!("{v:+.1}%")
}

/// A change of a share in percentage points, to a tenth, `+` from +0.1 on (the
/// kernel test robot's `%change` of a profile share).
pub fn pp(v: f64) -> String {
    if v > 0.05 {
        format!("+{v:.1}")
    } else {
        format!("{v:.1}")
    }
}

/// [`ms`], `-` when absent.
pub fn opt_ms(v: Option<f64>) -> String {
    v.map_or_else(|| "-".to_owned(), ms)
}

/// [`ms_tenths`], `-` when absent.
pub fn opt_ms_tenths(v: Option<f64>) -> String {
    v.map_or_else(|| "-".to_owned(), ms_tenths)
}

/// [`signed_ms`], `-` when absent.
pub fn opt_signed_ms(v: Option<f64>) -> String {
    v.map_or_else(|| "-".to_owned(), signed_ms)
}

/// [`count`], `-` when absent.
pub fn opt_count(v: Option<f64>) -> String {
    v.map_or_else(|| "-".to_owned(), count)
}

/// [`pct`], `-` when absent.
pub fn opt_pct(v: Option<f64>, decimals: usize) -> String {
    v.map_or_else(|| "-".to_owned(), |v| pct(v, decimals))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_two_millisecond_rules_and_the_signed_forms() {
        assert_eq!(
            (ms(312.44), ms_tenths(312.44)),
            ("312".into(), "312.4".into())
        );
        assert_eq!(
            (ms(99.94), ms_tenths(99.94)),
            ("99.9".into(), "99.9".into())
        );
        assert_eq!(signed_ms(0.0), "0.0");
        assert_eq!(change_ms(0.0), "+0.0");
        assert_eq!(change_ms(-318.2), "-318");
        assert_eq!(signed_ms_tenths(-0.04), "-0.0");
        assert_eq!(signed_count(-1.2e6), "-1.200M");
        assert_eq!(
            (pct(12.34, 0), pct(12.34, 1)),
            ("12%".into(), "12.3%".into())
        );
        assert_eq!(signed_pct(0.0), "+0.0%");
        assert_eq!(fraction(1.0 - 0.95, 2), "0.05");
        assert_eq!(
            (whole(12_034u64), whole(7usize)),
            ("12034".into(), "7".into())
        );
        assert_eq!((pp(0.04), pp(0.06)), ("0.0".into(), "+0.1".into()));
    }

    #[test]
    fn keyed_tables_fold_when_too_wide() {
        let rows = vec![(
            vec![
                "a-very-long-jdk-version-name".to_owned(),
                "variant-x".to_owned(),
            ],
            vec!["1".repeat(30), "2".repeat(20)],
        )];
        let out = render_keyed(
            &[name("jdk"), name("variant")],
            &[num("a"), num("b")],
            &rows,
        );
        assert!(width(&out) <= WIDTH, "{out}");
        assert!(
            out.lines()
                .nth(1)
                .unwrap()
                .starts_with("a-very-long-jdk-version-name variant-x")
        );
        // 73 columns two spaces apart, 71 one space apart: one space.
        let tight = vec![(vec!["k".repeat(30)], vec!["1".repeat(20), "2".repeat(19)])];
        let out = render_keyed(&[name("key")], &[num("a"), num("b")], &tight);
        assert_eq!(out.lines().count(), 2, "{out}");
        assert_eq!(width(&out), 71, "{out}");
        let short = vec![(vec!["17".to_owned()], vec!["1.0".to_owned()])];
        assert_eq!(
            render_keyed(&[name("jdk")], &[num("ms")], &short),
            "jdk   ms\n17   1.0\n"
        );
    }

    #[test]
    fn markdown_aligns_numbers_right() {
        let rows = vec![vec!["g1".to_owned(), "1.0\n2".to_owned()]];
        assert_eq!(
            markdown(&[name("gc"), num("ms")], &rows),
            "| gc | ms |\n|---|---:|\n| g1 | 1.0 2 |\n"
        );
    }

    #[test]
    fn numbers_read_like_a_cover_letter() {
        assert_eq!(ms(1866.4), "1866");
        assert_eq!(ms(29.74), "29.7");
        assert_eq!(signed_ms(12.0), "+12.0");
        assert_eq!(signed_ms(-213.0), "-213");
        assert_eq!(signed_ms(0.0), "0.0");
        assert_eq!(count(2.36e6), "2.360M");
        assert_eq!(count(323_440.0), "323.4k");
        assert_eq!(count(-950.0), "-950");
        assert!(
            wrap(&"word ".repeat(40), 2)
                .lines()
                .all(|l| l.len() <= WIDTH)
        );
    }
}
