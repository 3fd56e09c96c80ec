//! Stage 6: the heap and pretouch method section. Per cell, what backs the heap (kind,
//! views, page size, huge-page bytes), how much of it was resident at `main()`, how the
//! JVM pretouches it with the source of that (JDK version and flags, JDK bug ids), and
//! the features' columns and remarks of them (`features::render::HEAP`). Text and
//! Markdown; CSV and JSON carry the same fields with the cells. Computes nothing.

use std::fmt::Write as _;

use crate::analyze::heap::CellHeap;
use crate::analyze::report::{CellReport, Report};
use crate::render::common::{CellNames, cell_name, explaining_markdown};
use crate::render::table::{self, Explaining, Note, name, num};

/// A median peak RSS in whole MiB; `-` where the launches recorded none.
fn peak(v: Option<f64>) -> String {
    v.map_or_else(|| "-".to_owned(), |v| format!("{v:.0}"))
}

/// One of the heap's figures of a cell, `-` for a cell without the heap's figures or
/// without that one.
fn heap_figure(c: &CellReport, figure: impl Fn(&CellHeap) -> Option<String>) -> String {
    (c.heap_and_method.as_ref())
        .and_then(figure)
        .unwrap_or_else(|| "-".to_owned())
}

/// The heap's columns of the core, each with the sentence of the legend that defines
/// it. The features' follow them in [`columns`].
const COLUMNS: [Explaining<CellReport>; 4] = [
    Explaining {
        col: name("memory"),
        legend: "memory is what backs the heap at main(), with its transparent huge-page \
                 bytes. xN means N views of the same memory, as JDK 11 and 17 ZGC map \
                 it, and such shared memory faults through shmem_fault.",
        value: |c| heap_figure(c, |h| Some(h.memory.as_ref()?.summary())),
    },
    Explaining {
        col: name("page"),
        legend: "page is the kernel page size of its mappings.",
        value: |c| heap_figure(c, |h| Some(h.memory.as_ref()?.page_size?.to_string())),
    },
    Explaining {
        col: name("resident"),
        legend: "resident is the median of the heap resident at main(), each page counted once.",
        value: |c| heap_figure(c, |h| Some(h.memory.as_ref()?.resident_of_heap())),
    },
    Explaining {
        col: name("method"),
        legend: "method is how the JVM touches each page.",
        value: |c| heap_figure(c, |h| Some(h.method.method.name().to_owned())),
    },
];

/// The heap's columns of the text's explaining table (`render::explain`) and of the
/// Markdown's heap table: the core's, then the features' (`features::render::HEAP`),
/// such as the method's check against a kernel profile.
pub(crate) fn columns() -> Vec<Explaining<CellReport>> {
    let features = crate::features::render::HEAP.iter().copied().flatten();
    COLUMNS.iter().chain(features).copied().collect()
}

/// The peak RSS column of the text's explaining tables, a group of its own after the
/// faults, whose table it joins where it has room, so that the heap's columns keep
/// their line. Without and with pretouch in one column, `40 -> 568`, as the phases
/// table gives its medians.
pub(crate) const PEAKS: [Explaining<CellReport>; 1] = [Explaining {
    col: num("peak MiB"),
    legend: "peak MiB is the median peak RSS of a launch without pretouch, then with \
             it.",
    value: |c| match (c.peak_rss.peak_rss_off_mib, c.peak_rss.peak_rss_on_mib) {
        (None, None) => "-".to_owned(),
        (off, on) => format!("{} -> {}", peak(off), peak(on)),
    },
}];

/// The peak RSS without and with pretouch as Markdown gives them, a column each, where
/// text joins them in [`PEAKS`].
const PEAKS_APART: [Explaining<CellReport>; 2] = [
    Explaining {
        col: num("peak RSS off MiB"),
        legend: "peak RSS off MiB and peak RSS on MiB are the median peak RSS of a launch \
                 without and with pretouch.",
        value: |c| peak(c.peak_rss.peak_rss_off_mib),
    },
    Explaining {
        col: num("peak RSS on MiB"),
        legend: "",
        value: |c| peak(c.peak_rss.peak_rss_on_mib),
    },
];

fn cells(report: &Report) -> Vec<(&CellReport, &CellHeap)> {
    report
        .cells
        .iter()
        .filter_map(|c| Some((c, c.heap_and_method.as_ref()?)))
        .collect()
}

/// `cells: what` lines, one per distinct `what`, in the order first met, the cells
/// named together by `name`.
fn grouped<'a>(
    items: impl Iterator<Item = (String, &'a CellReport)>,
    name: &dyn Fn(&[&CellReport]) -> String,
) -> Vec<String> {
    let mut out: Vec<(String, Vec<&CellReport>)> = Vec::new();
    for (what, cell) in items {
        match out.iter_mut().find(|(w, _)| *w == what) {
            Some((_, cells)) => cells.push(cell),
            None => out.push((what, vec![cell])),
        }
    }
    out.into_iter()
        .map(|(what, cells)| format!("{}: {what}", name(&cells)))
        .collect()
}

/// Whether `note` is a doubt the touched check answers (`the touched check says
/// whether it did`) and the check found the heap touched in every launch of `c`: the
/// text leaves such a note out, since its case did not occur.
fn settled_by_touched_check(c: &CellReport, note: &str) -> bool {
    note.contains("the touched check") && c.times.runs_on > 0 && c.touched.untouched == 0
}

/// The lines under the table: each method's source and bugs, the notes (without those
/// the touched check settled, unless `all_notes`), then the features' remarks on each
/// cell (`features::render::HEAP_REMARKS`).
fn notes(report: &Report, name: &dyn Fn(&[&CellReport]) -> String, all_notes: bool) -> Vec<String> {
    let cells = cells(report);
    let mut out: Vec<String> = grouped(
        cells.iter().map(|(c, h)| {
            let bugs = if h.method.bugs.is_empty() {
                String::new()
            } else {
                format!(" ({})", h.method.bugs.join(", "))
            };
            (
                format!("{}, from {}{bugs}", h.method.method.name(), h.method.source),
                *c,
            )
        }),
        name,
    )
    .into_iter()
    .map(|l| format!("method: {l}"))
    .collect();
    out.extend(
        grouped(
            cells.iter().flat_map(|(c, h)| {
                h.method
                    .notes
                    .iter()
                    .filter(|n| all_notes || !settled_by_touched_check(c, n))
                    .map(|n| (n.clone(), *c))
            }),
            name,
        )
        .into_iter()
        .map(|l| format!("note: {l}")),
    );
    for (c, h) in &cells {
        let remarks = crate::features::render::HEAP_REMARKS.iter();
        out.extend(remarks.filter_map(|remark| remark(h, &name(&[c]))));
    }
    out
}

/// The section's notes for the terminal and email: each method's source, the notes,
/// the features' remarks. Its columns are among the explaining tables' ([`columns`],
/// printed by `render::explain`).
pub fn text(report: &Report, names: &CellNames) -> String {
    table::remarks_text(notes(report, &|cells| names.group(cells), false))
}

/// The same as Markdown tables.
pub fn markdown(report: &Report) -> String {
    let all = cells(report);
    if all.is_empty() {
        return String::new();
    }
    let heap_columns = columns();
    let mut out = String::new();
    for label in &report.labels {
        let mine: Vec<&CellReport> = (all.iter())
            .filter(|(c, _)| c.id.label == *label)
            .map(|(c, _)| *c)
            .collect();
        let _ = writeln!(out, "\n#### {label}: heap and pretouch method\n");
        out += &explaining_markdown(&mine, &[&heap_columns, &PEAKS_APART]).markdown();
    }
    let full = |cells: &[&CellReport]| {
        cells
            .iter()
            .map(|c| cell_name(c))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let columns: Vec<&Explaining<CellReport>> = heap_columns.iter().chain(&PEAKS_APART).collect();
    let mut all = vec![Note::Legend(table::legend_of(&columns))];
    all.extend(notes(report, &full, true).into_iter().map(Note::Remark));
    out += &table::notes_markdown(&all);
    out
}

#[cfg(test)]
mod tests {
    use crate::analyze::Options;
    use crate::analyze::document;
    use crate::fixtures::{FakeCell, file, host, rounds};
    use crate::launch::heap_memory::{HeapMemory, MemoryKind};
    use crate::matrix::Gc;
    use crate::render::common::Format;
    use crate::store::Results;
    use crate::units::Bytes;

    const MIB: u64 = 1 << 20;

    /// A JDK 17 ZGC cell (a memfd mapped three times) and a JDK 25 G1 cell with
    /// transparent huge pages (anonymous memory, populated by madvise), 64m each.
    fn results() -> Results {
        let (z, g) = (rounds(1000.0, 1030.0, false), rounds(50.0, 70.0, false));
        let mut f = file(
            "k",
            "2026-12-01T08:00:00Z",
            host("vm"),
            &[
                FakeCell {
                    gc: Gc::Zgc,
                    heap: "64m",
                    rounds: &z,
                },
                FakeCell {
                    gc: Gc::G1,
                    heap: "64m",
                    rounds: &g,
                },
            ],
        );
        for l in &mut f.launches {
            l.heap_bytes = Bytes(64 * MIB);
            let zgc = l.cell.gc == Gc::Zgc;
            if !zgc {
                l.cell.jdk = "25.0.3+9-LTS".into();
            }
            let flags: &[&str] = if zgc {
                &["java", "-Xms64m", "-XX:+UseZGC"]
            } else {
                &[
                    "java",
                    "-Xms64m",
                    "-XX:+UseG1GC",
                    "-XX:+UseTransparentHugePages",
                ]
            };
            l.measured.command = flags.iter().map(|s| (*s).to_owned()).collect();
            // ZGC's log has no `PreTouch` line: the explaining notes say why.
            if zgc {
                l.measured.jvm_log = Some(crate::launch::jvmlog::JvmLog::default());
            }
            let resident = if l.pretouch { 64 * MIB } else { 2 * MIB };
            let views = if zgc { 3 } else { 1 };
            l.measured.heap_memory = Some(HeapMemory {
                kind: if zgc {
                    MemoryKind::SharedMemfd
                } else {
                    MemoryKind::Anonymous
                },
                page_size: Bytes(4096),
                huge: Bytes(if zgc || !l.pretouch { 0 } else { 60 * MIB }),
                mapped: Bytes(views * 64 * MIB),
                resident: Bytes(resident),
                resident_mapped: Bytes(views * resident),
                mappings: views as u32,
                views: views as u32,
            });
        }
        Results {
            files: vec![f],
            ..Default::default()
        }
    }

    fn render(format: Format) -> String {
        // The heap and method are details (`--details`).
        let options = Options {
            details: true,
            ..Options::default()
        };
        let doc = document::build(results(), &options).unwrap();
        crate::render::document::render(&doc, format)
    }

    #[test]
    fn text_names_each_cells_memory_and_method() {
        let out = render(Format::Text);
        assert!(
            out.replace("\n  ", " ").contains("10 JVM log(s) without a pretouch line: zgc logs its pretouch only as a gc+task line"),
            "{out}"
        );
        // The heap's columns are among the explaining tables': from the table that
        // holds them on.
        let at = out.find("memory").unwrap();
        let section = &out[out[..at].rfind("\n\n").unwrap() + 2..];
        insta::assert_snapshot!(section, @"
          memory                  page   resident          method
        17.0.15+6 zgc 64m
          shared-memfd x3         4 KiB  64 MiB of 64 MiB  store
        25.0.3+9 g1 64m
          anonymous, 60 MiB huge  4 KiB  64 MiB of 64 MiB  madvise populate

        expected is the heap divided by the folio size, times its views. touched
        is whether 80% of the heap was resident at main(). memory is what backs
        the heap at main(), with its transparent huge-page bytes. xN means N
        views of the same memory, as JDK 11 and 17 ZGC map it, and such shared
        memory faults through shmem_fault. page is the kernel page size of its
        mappings. resident is the median of the heap resident at main(), each
        page counted once. method is how the JVM touches each page. Empty
        columns are left out. `pretouch calibrate` fills % ceiling.
        note: 17.0.15+6 zgc 64m: 10 JVM log(s) without a pretouch line: zgc logs
          its pretouch only as a gc+task line without bytes or time: no JVM
          figure to check against
        method: 17.0.15+6 zgc 64m: store, from JDK 17, before JDK 18
          (JDK-8272807)
        method: 25.0.3+9 g1 64m: madvise populate, from JDK 25.0.3 with
          -XX:+UseTransparentHugePages (JDK-8315923)
        note: 25.0.3+9 g1 64m: the JVM touches pages itself instead where the
          kernel refuses MADV_POPULATE_WRITE (before Linux 5.14)
        ");
    }

    #[test]
    fn markdown_names_each_cells_memory_and_method() {
        let out = render(Format::Markdown);
        let section = &out[out.find("#### k: heap and pretouch method").unwrap()..];
        insta::assert_snapshot!(section, @"
        #### k: heap and pretouch method

        | jdk | gc | heap | variant | memory | page | resident | method | profile | peak RSS off MiB | peak RSS on MiB |
        |---|---|---|---|---|---|---|---|---|---:|---:|
        | 17.0.15+6 | zgc | 64m | default | shared-memfd x3 | 4 KiB | 64 MiB of 64 MiB | store | - | - | - |
        | 25.0.3+9 | g1 | 64m | default | anonymous, 60 MiB huge | 4 KiB | 64 MiB of 64 MiB | madvise populate | - | - | - |

        memory is what backs the heap at main(), with its transparent huge-page bytes. xN means N views of the same memory, as JDK 11 and 17 ZGC map it, and such shared memory faults through shmem_fault. page is the kernel page size of its mappings. resident is the median of the heap resident at main(), each page counted once. method is how the JVM touches each page. profile is the method checked against the kernel profile, where a populate shows no fault-entry frames. peak RSS off MiB and peak RSS on MiB are the median peak RSS of a launch without and with pretouch.

        > method: k 17.0.15+6 zgc 64m default: store, from JDK 17, before JDK 18 (JDK-8272807)

        > method: k 25.0.3+9 g1 64m default: madvise populate, from JDK 25.0.3 with -XX:+UseTransparentHugePages (JDK-8315923)

        > note: k 25.0.3+9 g1 64m default: the JVM touches pages itself instead where the kernel refuses MADV_POPULATE_WRITE (before Linux 5.14)
        ");
    }

    #[test]
    fn csv_has_each_cells_memory_and_method_columns() {
        let out = render(Format::Csv);
        let mut r = csv::Reader::from_reader(out.as_bytes());
        let headers = r.headers().unwrap().clone();
        let wanted = [
            "jdk",
            "gc",
            "heap_memory",
            "heap_views",
            "heap_page_size_bytes",
            "heap_huge_bytes",
            "heap_resident_bytes",
            "pretouch_method",
            "method_source",
            "method_bugs",
            "method_check",
            "pretouch_logging",
        ];
        let idx: Vec<usize> = wanted
            .iter()
            .map(|w| headers.iter().position(|h| h == *w).unwrap())
            .collect();
        let mut lines = vec![wanted.join(" | ")];
        for row in r.records() {
            let row = row.unwrap();
            lines.push(idx.iter().map(|&i| &row[i]).collect::<Vec<_>>().join(" | "));
        }
        insta::assert_snapshot!(lines.join("\n"), @r#"
        jdk | gc | heap_memory | heap_views | heap_page_size_bytes | heap_huge_bytes | heap_resident_bytes | pretouch_method | method_source | method_bugs | method_check | pretouch_logging
        17.0.15+6-Debian-1deb12u1 | zgc | shared-memfd x3 | 3 | 4096 | 0 | 67108864 | store | JDK 17, before JDK 18 | JDK-8272807 |  | task-line-only
        25.0.3+9-LTS | g1 | anonymous, 60 MiB huge | 1 | 4096 | 62914560 | 67108864 | madvise populate | JDK 25.0.3 with -XX:+UseTransparentHugePages | JDK-8315923 |  | running-pre-touch-lines
        "#);
    }

    #[test]
    fn json_keeps_the_structured_fields() {
        let out: serde_json::Value = serde_json::from_str(&render(Format::Json)).unwrap();
        let cells: Vec<serde_json::Value> = out["cells"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| serde_json::json!({"jdk": c["jdk"], "gc": c["gc"], "heap_and_method": c["heap_and_method"]}))
            .collect();
        insta::assert_snapshot!(serde_json::to_string_pretty(&cells).unwrap(), @r#"
        [
          {
            "gc": "zgc",
            "heap_and_method": {
              "check": null,
              "logging": "task-line-only",
              "memory": {
                "heap": 67108864,
                "huge": 0,
                "kind": "shared-memfd",
                "launches": 10,
                "page_size": 4096,
                "resident": 67108864,
                "views": 3
              },
              "method": {
                "bugs": [
                  "JDK-8272807"
                ],
                "method": "store",
                "notes": [],
                "source": "JDK 17, before JDK 18"
              },
              "missing_log_line": "zgc logs its pretouch only as a gc+task line without bytes or time: no JVM figure to check against"
            },
            "jdk": "17.0.15+6-Debian-1deb12u1"
          },
          {
            "gc": "g1",
            "heap_and_method": {
              "check": null,
              "logging": "running-pre-touch-lines",
              "memory": {
                "heap": 67108864,
                "huge": 62914560,
                "kind": "anonymous",
                "launches": 10,
                "page_size": 4096,
                "resident": 67108864,
                "views": 1
              },
              "method": {
                "bugs": [
                  "JDK-8315923"
                ],
                "method": "madvise-populate",
                "notes": [
                  "the JVM touches pages itself instead where the kernel refuses MADV_POPULATE_WRITE (before Linux 5.14)"
                ],
                "source": "JDK 25.0.3 with -XX:+UseTransparentHugePages"
              },
              "missing_log_line": "g1 logs `Running ... PreTouch` lines under gc+heap=debug, and these logs had none"
            },
            "jdk": "25.0.3+9-LTS"
          }
        ]
        "#);
    }
}
