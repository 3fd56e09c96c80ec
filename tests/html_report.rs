//! The HTML report (`report --format html`) in a real browser: for every golden report
//! input (`tests/data/report-golden/inputs/`, and its calibrations alone), the page is
//! written, then one headless Chromium (Debian's `chromium`) loads it, dumps its DOM,
//! takes a screenshot and prints it to PDF. Checked: no console message (the page has
//! no script, so any is an error), every chart's `<svg>` in the DOM holds drawn marks
//! and words, every flame graph image is an SVG of frames, the screenshot is no blank
//! page and shows the charts' colours, and the PDF has pages in which every table's
//! last column is still there (its words are in `pdftotext`'s text, which drops what
//! falls outside a page). A control page (a script error, a table too wide for a
//! page) shows that the console and cut-off checks see what they look for.
//!
//! Without `chromium` or `pdftotext` the tests fail, naming the install command, unless
//! `PRETOUCH_SKIP_BROWSER_TEST` is set: then they skip, counted in the skip summary.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

const INSTALL: &str = "apt-get install -y chromium poppler-utils";

fn on_path(name: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// The browser and `pdftotext`, or `None` when the test is to skip (said so).
fn tools(test: &str) -> Option<(PathBuf, PathBuf)> {
    if std::env::var_os("PRETOUCH_SKIP_BROWSER_TEST").is_some() {
        common::skipped(
            test,
            "PRETOUCH_SKIP_BROWSER_TEST unset",
            "the HTML report is not loaded, drawn or printed in a browser",
        );
        return None;
    }
    let chromium = on_path("chromium").or_else(|| on_path("chromium-browser"));
    let pdftotext = on_path("pdftotext");
    match (chromium, pdftotext) {
        (Some(c), Some(p)) => Some((c, p)),
        _ => panic!(
            "{test}: needs chromium and pdftotext: `{INSTALL}` (or set PRETOUCH_SKIP_BROWSER_TEST=1 to skip)"
        ),
    }
}

/// What one Chromium run of a page gave.
struct Loaded {
    dom: String,
    log: String,
    png: PathBuf,
    pdf: PathBuf,
}

/// One headless Chromium: the DOM, a 1200x3000 screenshot and a PDF of `page`.
fn load(chromium: &Path, page: &Path, out: &Path) -> Loaded {
    let profile = tempfile::tempdir().unwrap();
    let png = out.join("shot.png");
    let pdf = out.join("page.pdf");
    let run = Command::new("timeout")
        .arg("300")
        .arg(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--enable-logging=stderr",
            "--v=0",
            "--window-size=1200,3000",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg(format!("--screenshot={}", png.display()))
        .arg(format!("--print-to-pdf={}", pdf.display()))
        .arg("--dump-dom")
        .arg(format!("file://{}", page.display()))
        .output()
        .unwrap();
    let log = String::from_utf8_lossy(&run.stderr).into_owned();
    assert!(run.status.success(), "chromium: {}\n{log}", run.status);
    Loaded {
        dom: String::from_utf8_lossy(&run.stdout).into_owned(),
        log,
        png,
        pdf,
    }
}

/// The console's messages in Chromium's log (`INFO:CONSOLE...] "message", source: ...`).
fn console_lines(log: &str) -> Vec<&str> {
    log.lines().filter(|l| l.contains(":CONSOLE")).collect()
}

/// Each `<svg>...</svg>` of an HTML text.
fn svgs(html: &str) -> Vec<&str> {
    html.split("<svg")
        .skip(1)
        .map(|s| &s[..s.find("</svg>").unwrap_or(s.len())])
        .collect()
}

/// Every SVG holds a drawn mark (point, line, path, bar beyond the background) and text.
fn undrawn(dom: &str) -> Vec<String> {
    svgs(dom)
        .iter()
        .filter(|s| {
            let marks = ["<circle", "<polyline", "<path", "<line"]
                .iter()
                .map(|m| s.matches(m).count())
                .sum::<usize>()
                + s.matches("<rect").count().saturating_sub(1);
            marks == 0 || !s.contains("<text")
        })
        .map(|s| s.chars().take(300).collect())
        .collect()
}

fn base64_decode(text: &str) -> Vec<u8> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => panic!("not base64: {c}"),
    };
    let digits: Vec<u8> = text.bytes().filter(|c| *c != b'=').map(value).collect();
    let mut out = Vec::new();
    for chunk in digits.chunks(4) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, d)| n | u32::from(*d) << (18 - 6 * i));
        out.extend(n.to_be_bytes()[1..chunk.len()].iter());
    }
    out
}

/// The flame graphs' images: SVGs of frames (`<rect>` each), as many as in the page.
fn flame_graph_frames(dom: &str) -> Vec<usize> {
    dom.split("src=\"data:image/svg+xml;base64,")
        .skip(1)
        .map(|s| {
            let svg = base64_decode(&s[..s.find('"').unwrap()]);
            let svg = String::from_utf8(svg).unwrap();
            assert!(svg.contains("<svg"), "{}", &svg[..200.min(svg.len())]);
            svg.matches("<rect").count()
        })
        .collect()
}

/// The screenshot: 1200 wide, not blank (some share of it not white, many colours), and
/// where the page has charts, their colours (the first label's blue, the boxes' fill).
fn check_screenshot(png: &Path, charts: bool, labels: usize, what: &str) {
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(png).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!(info.width, 1200, "{what}");
    let channels = info.color_type.samples();
    assert!(channels >= 3, "{what}: {:?}", info.color_type);
    let pixels: Vec<[u8; 3]> = buf[..info.buffer_size()]
        .chunks(channels)
        .map(|p| [p[0], p[1], p[2]])
        .collect();
    let not_white = pixels.iter().filter(|p| **p != [255, 255, 255]).count();
    let mut colours: Vec<[u8; 3]> = pixels.clone();
    colours.sort_unstable();
    colours.dedup();
    let share = not_white as f64 / pixels.len() as f64;
    assert!(
        share > 0.02,
        "{what}: {:.2}% of the screenshot not white",
        100.0 * share
    );
    assert!(colours.len() > 50, "{what}: {} colours", colours.len());
    if charts {
        let near = |want: [u8; 3]| {
            pixels
                .iter()
                .filter(|p| (0..3).all(|i| p[i].abs_diff(want[i]) <= 12))
                .count()
        };
        // The first label's colour (forest plot, over-time lines) and the second's,
        // where there is a second.
        let drawn = [near([31, 119, 180]), near([214, 39, 40])];
        let drawn = &drawn[..labels.min(2)];
        assert!(
            drawn.iter().all(|n| *n > 50),
            "{what}: pixels of the charts' colours {drawn:?}"
        );
    }
}

/// The page's tables as rows of cell texts (tags dropped, entities read).
fn tables(html: &str) -> Vec<Vec<Vec<String>>> {
    let text = |cell: &str| {
        let mut out = String::new();
        let mut in_tag = false;
        for c in cell.chars() {
            match c {
                '<' => in_tag = true,
                '>' => in_tag = false,
                c if !in_tag => out.push(c),
                _ => {}
            }
        }
        out.replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&quot;", "\"")
            .replace("&#39;", "'")
            .replace("&amp;", "&")
    };
    html.split("<table")
        .skip(1)
        .map(|t| {
            let t = &t[..t.find("</table>").unwrap()];
            t.split("<tr")
                .skip(1)
                .map(|row| {
                    row.split("<t")
                        .skip(1)
                        .filter(|c| c.starts_with('h') || c.starts_with('d'))
                        .filter(|c| !c.starts_with("head") && !c.starts_with("body"))
                        .map(|c| text(&format!("<t{c}")))
                        .collect()
                })
                .collect()
        })
        .collect()
}

/// The words of every table's last column, header and rows, that the PDF's text lacks:
/// a column cut off at the page's edge is not in the text `pdftotext` gives.
fn cut_off(pdftotext: &Path, pdf: &Path, html: &str) -> Vec<String> {
    let out = Command::new(pdftotext).arg(pdf).arg("-").output().unwrap();
    assert!(out.status.success(), "pdftotext: {}", out.status);
    let printed: std::collections::HashSet<String> = String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .map(str::to_owned)
        .collect();
    let mut missing = Vec::new();
    for rows in tables(html) {
        for row in rows {
            for word in row.last().into_iter().flat_map(|c| c.split_whitespace()) {
                if !printed.contains(word) {
                    missing.push(word.to_owned());
                }
            }
        }
    }
    missing
}

/// A PDF of at least one page.
fn pages(pdf: &Path) -> usize {
    let bytes = std::fs::read(pdf).unwrap();
    assert!(bytes.starts_with(b"%PDF-"), "not a PDF");
    let text = String::from_utf8_lossy(&bytes);
    text.matches("/Type /Page").count() - text.matches("/Type /Pages").count()
}

fn inputs() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/report-golden/inputs")
}

#[test]
fn every_golden_input_loads_draws_and_prints_in_chromium() {
    let Some((chromium, pdftotext)) =
        tools("every_golden_input_loads_draws_and_prints_in_chromium")
    else {
        return;
    };
    let mut sets: Vec<(String, Vec<&str>)> = std::fs::read_dir(inputs())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .map(|name| (name, vec!["--format", "html"]))
        .collect();
    sets.sort();
    assert!(sets.len() >= 5, "{sets:?}");
    sets.push((
        "real/calibrations".into(),
        vec!["--calibrate", "--format", "html"],
    ));
    for (set, args) in sets {
        let dir = tempfile::tempdir().unwrap();
        let page = dir.path().join("report.html");
        common::pretouch()
            .current_dir(inputs())
            .arg("report")
            .arg(&set)
            .args(&args)
            .arg("--output")
            .arg(&page)
            .assert()
            .success();
        let html = std::fs::read_to_string(&page).unwrap();
        for never in [
            "<script",
            "<link",
            "src=\"http",
            "href=\"http",
            "@import",
            "url(http",
        ] {
            assert!(!html.contains(never), "{set}: {never} in the page");
        }
        let loaded = load(&chromium, &page, dir.path());
        let console = console_lines(&loaded.log);
        assert!(console.is_empty(), "{set}: the console said {console:#?}");
        let charts = svgs(&html).len();
        assert_eq!(
            svgs(&loaded.dom).len(),
            charts,
            "{set}: charts lost in the DOM"
        );
        // Every set compares two labels but `settings`: one label under three settings.
        let labels = if set == "settings" { 1 } else { 2 };
        if set != "real/calibrations" {
            // The forest plot (where labels are compared), the distributions and a chart
            // a cell over time at least (the headline table's rows less its header and
            // its closing geometric mean).
            let forest = usize::from(labels > 1);
            let cells = tables(&html)[0]
                .iter()
                .skip(1)
                .filter(|row| row.first().is_none_or(|c| c != "geomean"))
                .count();
            assert!(
                cells >= 1 && charts >= 1 + forest + cells,
                "{set}: {charts} charts, {cells} cells"
            );
        }
        let undrawn = undrawn(&loaded.dom);
        assert!(
            undrawn.is_empty(),
            "{set}: charts with nothing drawn: {undrawn:#?}"
        );
        for frames in flame_graph_frames(&loaded.dom) {
            assert!(frames > 10, "{set}: a flame graph of {frames} frames");
        }
        if set == "real" {
            assert!(
                !flame_graph_frames(&loaded.dom).is_empty(),
                "real has a profile"
            );
        }
        check_screenshot(&loaded.png, charts > 0, labels, &set);
        assert!(pages(&loaded.pdf) >= 1, "{set}: a PDF without a page");
        let missing = cut_off(&pdftotext, &loaded.pdf, &html);
        assert!(missing.is_empty(), "{set}: cut off in the PDF: {missing:?}");
    }
}

/// The checks see what they look for: a script error reaches the console lines, and a
/// table too wide for the page loses its last column's words in the PDF's text.
#[test]
fn the_checks_see_a_console_error_and_a_cut_off_column() {
    let Some((chromium, pdftotext)) = tools("the_checks_see_a_console_error_and_a_cut_off_column")
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("control.html");
    let wide: String = (0..40)
        .map(|i| format!("<td>wide{i:02}column</td>"))
        .collect();
    let html = format!(
        "<!DOCTYPE html><html><head><style>td {{ white-space: nowrap; }}</style></head><body>\
         <table><tr><td>first</td>{wide}<td>lastcolumnword</td></tr></table>\
         <script>undefinedFunction();</script></body></html>"
    );
    std::fs::write(&page, &html).unwrap();
    let loaded = load(&chromium, &page, dir.path());
    let console = console_lines(&loaded.log);
    assert!(
        console.iter().any(|l| l.contains("undefinedFunction")),
        "{console:#?}\n{}",
        loaded.log
    );
    assert!(pages(&loaded.pdf) >= 1);
    let missing = cut_off(&pdftotext, &loaded.pdf, &html);
    assert_eq!(missing, ["lastcolumnword"]);
}
