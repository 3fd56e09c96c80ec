//! Stage 6, rendering: the report document as one self-contained HTML page
//! (`report --format html`): no network, no script, CSS and pictures inline. Its tables
//! and notes are the Markdown report's, section by section, turned into HTML here, so
//! the page says what the text says with the same estimator, intervals and marks; its
//! pictures are drawn by `charts`, by the renderer of `--plot` and by the features'
//! sections, as their files beside the report draw them. Every text from the results
//! is escaped. Computes nothing.

use std::fmt::Write as _;

use crate::analyze::document::{Document, Launches};
use crate::render::section::{Figure, HtmlSection, Picture, Place};
use crate::render::{compare, explain, heap, report};

use super::charts;

/// The whole page.
pub(super) fn page(doc: &Document) -> String {
    let mut body = String::new();
    if let Some(l) = &doc.launches {
        body += &launches(l);
    }
    if let Some(r) = super::own_report(doc) {
        body += &sections_of([r.html()]);
    }
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{}</title>\n<style>\n{STYLE}</style>\n</head>\n<body>\n<h1>{}</h1>\n{body}\
         </body>\n</html>\n",
        escape(&title(doc)),
        escape(&title(doc))
    )
}

/// `pretouch report: k1, k2`, the labels shown.
fn title(doc: &Document) -> String {
    let labels: Vec<String> = match (&doc.launches, super::own_report(doc)) {
        (Some(l), _) => l.comparison.labels(),
        (None, Some(r)) => r.labels().into_iter().map(str::to_owned).collect(),
        (None, None) => Vec::new(),
    };
    format!("pretouch report: {}", labels.join(", "))
}

fn launches(l: &Launches) -> String {
    let mut out = String::new();
    // HTML always holds every detail.
    let mut table = compare::markdown(&l.comparison, true);
    if !l.several() {
        table += "\n";
        table += &report::markdown(&l.report);
    }
    out += &section("comparison", "Pretouch cost", &markdown_to_html(&table));
    out += &section("pictures", "Pictures", &pictures(l));
    out += &section(
        "environment",
        "Environment differences",
        &environment(&l.report.env_differences, l.several()),
    );
    out += &sections(l, Place::AfterCells);
    out += &section(
        "explain",
        "What explains the cost",
        &markdown_to_html(&explain::markdown(&l.report, l.phases)),
    );
    out += &section(
        "heap",
        "Heap and pretouch method",
        &markdown_to_html(&heap::markdown(&l.report)),
    );
    out += &sections(l, Place::Last);
    out
}

/// The features' sections that go at `place`, each its Markdown as HTML, then its
/// pictures.
fn sections(l: &Launches, place: Place) -> String {
    sections_of(super::placed(place).filter_map(|s| s.html(l)))
}

/// Each section's Markdown as HTML, then its pictures.
fn sections_of(sections: impl IntoIterator<Item = HtmlSection>) -> String {
    let mut out = String::new();
    for s in sections {
        let HtmlSection {
            id,
            heading,
            markdown,
            figures: figs,
        } = s;
        let html = markdown_to_html(&markdown) + &figures(figs);
        out += &section(id, heading, &html);
    }
    out
}

/// The comparison's pictures: the changes with their intervals, the per-round costs'
/// distributions, each cell's per-round costs over time.
fn pictures(l: &Launches) -> String {
    let mut figs = Vec::new();
    if l.several() {
        figs.push(charts::forest(&l.comparison));
    }
    figs.push(charts::distributions(&l.comparison));
    figs.extend(charts::over_time(&l.comparison));
    figures(figs)
}

fn environment(differences: &[String], several: bool) -> String {
    if differences.is_empty() {
        return if several {
            "<p>The labels' recorded environments do not differ.</p>\n".to_owned()
        } else {
            "<p>One label: nothing to compare.</p>\n".to_owned()
        };
    }
    let mut out = "<ul class=\"env\">\n".to_owned();
    for d in differences {
        let _ = writeln!(out, "<li>{}</li>", inline(d));
    }
    out + "</ul>\n"
}

fn figures(figs: Vec<Figure>) -> String {
    let mut out = String::new();
    for f in figs {
        let picture = match f.picture {
            Ok(Picture::Inline(svg)) => strip_prolog(&svg).to_owned(),
            Ok(Picture::Image(svg)) => format!(
                "<img alt=\"{}\" src=\"data:image/svg+xml;base64,{}\">",
                escape(&f.caption),
                base64(&svg)
            ),
            Err(e) => format!("<p class=\"warning\">not drawn: {}</p>", escape(&e)),
        };
        let _ = writeln!(
            out,
            "<figure class=\"chart\">\n{picture}\n<figcaption>{}</figcaption>\n</figure>",
            escape(&f.caption)
        );
    }
    out
}

/// An SVG document from its `<svg` element on, for inlining in HTML.
fn strip_prolog(svg: &str) -> &str {
    svg.find("<svg").map_or(svg, |i| &svg[i..])
}

fn section(id: &str, heading: &str, html: &str) -> String {
    format!("<section id=\"{id}\">\n<h2>{heading}</h2>\n{html}</section>\n")
}

/// The page's styles; `@media print` keeps a table within the page, its text smaller
/// and wrapped rather than cut off, and a chart within the page's width.
const STYLE: &str = "\
body { font-family: sans-serif; margin: 1.5em auto; max-width: 1200px; padding: 0 1em; color: #222; }
h1 { font-size: 1.5em; } h2 { border-bottom: 1px solid #ccc; margin-top: 1.6em; }
table { border-collapse: collapse; margin: 0.8em 0; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.5em; vertical-align: top; }
th { background: #eef2f7; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
tbody tr:nth-child(even) { background: #fafafa; }
p.note { margin: 0.3em 0; color: #444; }
p.warning { margin: 0.3em 0; color: #a00; }
code { background: #f3f3f3; padding: 0 0.2em; }
figure.chart { margin: 1em 0; }
figure.chart svg, figure.chart img { max-width: 100%; height: auto; }
figcaption { font-size: 0.9em; color: #444; }
.scroll { overflow-x: auto; }
@media print {
  body { max-width: none; margin: 0; padding: 0; font-size: 10pt; }
  .scroll { overflow: visible; }
  table { width: 100%; table-layout: auto; font-size: 7.5pt; page-break-inside: auto; }
  th, td { padding: 0.1em 0.25em; overflow-wrap: break-word; }
  tr { page-break-inside: avoid; }
  figure.chart { page-break-inside: avoid; }
  figure.chart svg, figure.chart img { width: 100%; height: auto; }
}
";

/// `text` with `&`, `<`, `>`, `"` and `'` escaped, for HTML text and attributes.
pub(super) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out += "&amp;",
            '<' => out += "&lt;",
            '>' => out += "&gt;",
            '"' => out += "&quot;",
            '\'' => out += "&#39;",
            c => out.push(c),
        }
    }
    out
}

/// A Markdown line's inline text: `code` spans and the rest, escaped.
fn inline(text: &str) -> String {
    let parts: Vec<&str> = text.split('`').collect();
    let mut out = String::new();
    for (i, part) in parts.iter().enumerate() {
        if i % 2 == 0 {
            out += &escape(part);
        } else if i + 1 < parts.len() {
            let _ = write!(out, "<code>{}</code>", escape(part));
        } else {
            // A backtick without its closing one is text.
            out.push('`');
            out += &escape(part);
        }
    }
    out
}

/// The Markdown the report's sections print (tables, `#` headings, `- ` lists, `> `
/// notes and paragraphs, `code` spans) as HTML.
pub(super) fn markdown_to_html(md: &str) -> String {
    let mut out = String::new();
    let lines: Vec<&str> = md.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if line.starts_with('|') {
            let end = (i..lines.len())
                .find(|&j| !lines[j].starts_with('|'))
                .unwrap_or(lines.len());
            out += &table(&lines[i..end]);
            i = end;
            continue;
        }
        if line.starts_with("- ") {
            out += "<ul>\n";
            while i < lines.len() && lines[i].starts_with("- ") {
                let _ = writeln!(out, "<li>{}</li>", inline(&lines[i][2..]));
                i += 1;
            }
            out += "</ul>\n";
            continue;
        }
        let hashes = line.chars().take_while(|c| *c == '#').count();
        if (1..=6).contains(&hashes) && line[hashes..].starts_with(' ') {
            // The page's own headings are h1 and h2: a section's start below them.
            let level = (hashes + 1).min(6);
            let _ = writeln!(
                out,
                "<h{level}>{}</h{level}>",
                inline(line[hashes..].trim())
            );
        } else if let Some(note) = line.strip_prefix("> ") {
            let class = if note.starts_with("warning") {
                "warning"
            } else {
                "note"
            };
            let _ = writeln!(out, "<p class=\"{class}\">{}</p>", inline(note));
        } else if !line.trim().is_empty() {
            let _ = writeln!(out, "<p>{}</p>", inline(line));
        }
        i += 1;
    }
    out
}

/// A Markdown table (header, `---`/`---:` line, rows) as an HTML table, its numbers'
/// columns right-aligned.
fn table(lines: &[&str]) -> String {
    let cells = |line: &str| -> Vec<String> {
        let inner = line.trim().trim_start_matches('|').trim_end_matches('|');
        inner.split('|').map(|c| c.trim().to_owned()).collect()
    };
    let header = cells(lines[0]);
    let numeric: Vec<bool> = lines
        .get(1)
        .map(|l| cells(l).iter().map(|c| c.ends_with(':')).collect())
        .unwrap_or_default();
    let class = |j: usize| {
        if numeric.get(j).copied().unwrap_or(false) {
            " class=\"num\""
        } else {
            ""
        }
    };
    let mut out = "<div class=\"scroll\"><table>\n<thead><tr>".to_owned();
    for (j, h) in header.iter().enumerate() {
        let _ = write!(out, "<th{}>{}</th>", class(j), inline(h));
    }
    out += "</tr></thead>\n<tbody>\n";
    for line in lines.iter().skip(2) {
        out += "<tr>";
        for (j, c) in cells(line).iter().enumerate() {
            let _ = write!(out, "<td{}>{}</td>", class(j), inline(c));
        }
        out += "</tr>\n";
    }
    out + "</tbody>\n</table></div>\n"
}

/// Standard Base64 (RFC 4648, with padding), for the images' `data:` addresses.
fn base64(bytes: &[u8]) -> String {
    const ABC: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = u32::from(b[0]) << 16 | u32::from(b[1]) << 8 | u32::from(b[2]);
        for k in 0..4 {
            if k <= chunk.len() {
                out.push(ABC[(n >> (18 - 6 * k) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_is_rfc_4648s() {
        // RFC 4648 section 10's test vectors.
        for (plain, coded) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(plain.as_bytes()), coded, "{plain}");
        }
    }

    #[test]
    fn text_from_the_results_is_escaped() {
        let md = "| label | cost |\n|---|---:|\n| <script>x</script> & \"q\" | 1 |\n\n\
                  > warning: `a<b` broke\n- `k1` <i>\n#### k'1: explained\n";
        let html = markdown_to_html(md);
        assert!(!html.contains("<script>"), "{html}");
        assert!(!html.contains("<i>"), "{html}");
        insta::assert_snapshot!(html, @r#"
        <div class="scroll"><table>
        <thead><tr><th>label</th><th class="num">cost</th></tr></thead>
        <tbody>
        <tr><td>&lt;script&gt;x&lt;/script&gt; &amp; &quot;q&quot;</td><td class="num">1</td></tr>
        </tbody>
        </table></div>
        <p class="warning">warning: <code>a&lt;b</code> broke</p>
        <ul>
        <li><code>k1</code> &lt;i&gt;</li>
        </ul>
        <h5>k&#39;1: explained</h5>
        "#);
    }
}

#[cfg(test)]
mod page_tests {
    use crate::analyze::Options;
    use crate::analyze::document;
    use crate::fixtures::{file, g1_and_parallel, host, rounds};
    use crate::render::common::Format;
    use crate::store::Results;

    /// Two labels, one named with HTML's special characters, two cells each.
    fn page() -> String {
        let base = rounds(50.0, 420.0, false);
        let new = rounds(50.0, 380.0, false);
        let files = vec![
            file(
                "base<b>&\"x\"",
                "2026-11-30T08:00:00Z",
                host("vm"),
                &g1_and_parallel(&base, &base),
            ),
            file(
                "new",
                "2026-11-30T08:10:00Z",
                host("vm"),
                &g1_and_parallel(&new, &base),
            ),
        ];
        let results = Results {
            files,
            ..Default::default()
        };
        let doc = document::build(results, &Options::default()).unwrap();
        crate::render::document::render(&doc, Format::Html)
    }

    #[test]
    fn the_page_holds_the_sections_and_a_picture_of_each_in_order() {
        let html = page();
        assert!(html.starts_with("<!DOCTYPE html>"), "{html}");
        let at = |needle: &str| {
            html.find(needle)
                .unwrap_or_else(|| panic!("no {needle} in the page"))
        };
        let order = [
            "<section id=\"comparison\">",
            "<section id=\"pictures\">",
            "<section id=\"environment\">",
            "<section id=\"explain\">",
            "<section id=\"heap\">",
        ];
        let places: Vec<usize> = order.iter().map(|s| at(s)).collect();
        assert!(places.is_sorted(), "{order:?} at {places:?}");
        // The forest plot, one over-time chart a cell, the distributions.
        let svgs: Vec<&str> = html.split("<svg").skip(1).collect();
        assert_eq!(svgs.len(), 4, "{html}");
        for svg in &svgs {
            let svg = &svg[..svg.find("</svg>").unwrap()];
            assert!(svg.contains("<circle"), "a chart without points: {svg}");
            assert!(svg.contains("<text"), "a chart without words: {svg}");
        }
        // Every figure's caption, and none says it could not be drawn.
        assert_eq!(html.matches("<figcaption>").count(), 4);
        assert!(!html.contains("not drawn"), "{html}");
        // The headline table is the Markdown one: its header's columns, its marks.
        let head = &html[at("<thead>")..at("</thead>")];
        assert_eq!(head.matches("</th>").count(), 8, "{head}");
        assert!(html.contains("*</td>"), "the G1 change is marked: {html}");
    }

    #[test]
    fn the_page_has_no_script_no_address_and_escapes_the_labels() {
        let html = page();
        for never in [
            "<script",
            "<link",
            "src=\"http",
            "href=\"http",
            "@import",
            "<b>",
        ] {
            assert!(!html.contains(never), "{never} in the page");
        }
        assert!(html.contains("base&lt;b&gt;&amp;&quot;x&quot;"), "{html}");
        // plotters escapes its own text: the label in an SVG legend, escaped once.
        assert!(html.contains("base&lt;b&gt;&amp;"), "{html}");
        assert!(!html.contains("&amp;lt;"), "escaped twice: {html}");
    }
}
