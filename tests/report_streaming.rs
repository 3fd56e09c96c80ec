//! The report's reader (`store::read_for_report`: a line at a time, each launch record
//! kept as far as a report reads it) gives the same report as the whole records
//! (`store::read_results`), in every format and sub-report, on the inputs the golden
//! outputs are made from (fixed numbers, server launches, two real runs with machine
//! counters, JVM logs, a profile and calibrations, and a format-1 file). And the report
//! read a label at a time (`store::catalog_for_report`, `document::build_read`: each
//! label's launches read, analyzed and dropped) gives the report of every file read
//! whole, with the same warnings in the same places and the same errors.

use std::path::PathBuf;

use pretouch::analyze::Options;
use pretouch::analyze::document::{Document, build, build_read};
use pretouch::features::calibrate::report_options::CalibrateReportArgs;
use pretouch::features::report_options::ReportOptions;
use pretouch::render::common::Format;
use pretouch::render::document::render;
use pretouch::store::read::catalog_for_report;
use pretouch::store::{read_for_report, read_results};

fn inputs() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/report-golden/inputs")
}

fn format_1() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/format-1-before-restructure.jsonl")
}

/// Two reports in every format, side by side.
/// The options both equivalence tests read each set with: plain; outliers left out
/// with the phases; the profile.
fn report_options() -> Vec<Options> {
    vec![
        Options::default(),
        Options {
            exclude_outliers: true,
            phases: true,
            ..Options::default()
        },
        Options {
            features: ReportOptions::after_run(true),
            ..Options::default()
        },
    ]
}

fn in_every_format(a: &Document, b: &Document) -> Vec<(Format, String, String)> {
    [Format::Text, Format::Markdown, Format::Csv, Format::Json]
        .into_iter()
        .map(|f| (f, render(a, f), render(b, f)))
        .collect()
}

fn reports(paths: &[PathBuf], options: &Options) -> Vec<(Format, String, String)> {
    let whole = build(read_results(paths).unwrap(), options).unwrap();
    let compact = build(read_for_report(paths).unwrap(), options).unwrap();
    in_every_format(&whole, &compact)
}

#[test]
fn the_compact_records_give_the_same_report_as_the_whole_ones() {
    let sets = [
        vec![inputs().join("fixed")],
        vec![inputs().join("server")],
        vec![inputs().join("real")],
        vec![format_1()],
    ];
    let mut options = report_options();
    options.push(Options {
        features: ReportOptions {
            calibrate: CalibrateReportArgs { calibrate: true },
            ..ReportOptions::default()
        },
        ..Options::default()
    });
    let mut compared = 0;
    for paths in &sets {
        for o in &options {
            if o.features.instead_of_launches() && !paths[0].ends_with("real") {
                continue;
            }
            for (format, whole, compact) in reports(paths, o) {
                assert!(!whole.is_empty());
                assert_eq!(whole, compact, "{paths:?} {o:?} {format:?}");
                compared += 1;
            }
        }
    }
    assert_eq!(compared, (4 * 3 + 1) * 4);
}

#[test]
fn the_compact_records_drop_what_no_report_reads() {
    let paths = [inputs().join("real")];
    let (whole, compact) = (
        read_results(&paths).unwrap(),
        read_for_report(&paths).unwrap(),
    );
    let first = |r: &pretouch::store::Results| r.files[0].launches[0].clone();
    let (w, c) = (first(&whole), first(&compact));
    // The real runs' records hold each of these; the report's reader drops them.
    assert!(w.measured.command.len() > c.measured.command.len());
    assert!(!w.measured.started_at.is_empty() && c.measured.started_at.is_empty());
    let counters = |l: &pretouch::store::LaunchRecord| {
        l.measured.machine.as_ref().map_or(0, |m| m.vmstat.len())
    };
    assert!(
        counters(&c) < counters(&w),
        "{} vs {}",
        counters(&c),
        counters(&w)
    );
    // And keeps what they do read.
    assert_eq!(w.time_to_main_ns, c.time_to_main_ns);
    assert_eq!(w.measured.rusage, c.measured.rusage);
    assert_eq!(w.cell, c.cell);
    assert_eq!(
        w.jdk_home, c.jdk_home,
        "the CDS check of old records reads it"
    );
}

/// The pretouch method depends on the THP flag, and the CDS state of old records on the
/// CDS flags: the compact record keeps exactly those words of the command line.
#[test]
fn the_compact_record_keeps_the_flags_the_method_and_cds_read() {
    let mut l = pretouch::fixtures::launch(0, true, 500.0);
    l.measured.command = [
        "/jdk/bin/java",
        "-Xms1g",
        "-XX:+UseTransparentHugePages",
        "-Xshare:auto",
        "-XX:SharedArchiveFile=/a.jsa",
        "-XX:+AlwaysPreTouch",
        "example.Hello",
    ]
    .map(String::from)
    .to_vec();
    let kept = l.for_report().measured.command;
    assert_eq!(
        kept,
        [
            "-XX:+UseTransparentHugePages",
            "-Xshare:auto",
            "-XX:SharedArchiveFile=/a.jsa"
        ]
    );
}

/// `pretouch report`'s reading before it went a label at a time: every file read whole
/// (`read_for_report`), then a warning for each run left unfinished.
fn read_whole(paths: &[PathBuf]) -> pretouch::store::Results {
    use pretouch::store::complete::{Launched, completeness_warnings};
    let mut results = read_for_report(paths).unwrap();
    let files: Vec<_> = results
        .files
        .iter()
        .map(|f| (f.clone(), Launched::of(f)))
        .collect();
    results.warnings.extend(completeness_warnings(&files));
    results
}

/// The report read a label at a time (`document::build_read`) and the report of every
/// file read whole, in every format.
fn both(paths: &[PathBuf], options: &Options) -> Vec<(Format, String, String)> {
    let whole = build(read_whole(paths), options).unwrap();
    let streamed = build_read(catalog_for_report(paths).unwrap(), options).unwrap();
    in_every_format(&whole, &streamed)
}

#[test]
fn a_report_read_a_label_at_a_time_is_the_report_of_every_file_read_whole() {
    let sets = [
        vec![inputs().join("fixed")],
        vec![inputs().join("server")],
        vec![inputs().join("real")],
        vec![inputs().join("probe")],
        vec![format_1()],
        vec![inputs().join("fixed"), inputs().join("server")],
    ];
    let options = report_options();
    let mut compared = 0;
    for paths in &sets {
        for o in &options {
            for (format, whole, streamed) in both(paths, o) {
                assert!(!whole.is_empty());
                assert_eq!(whole, streamed, "{paths:?} {o:?} {format:?}");
                compared += 1;
            }
        }
    }
    assert_eq!(compared, 6 * 3 * 4);
}

/// One record a line, as `pretouch run` writes them.
fn line(record: &pretouch::store::Record) -> String {
    serde_json::to_string(record).unwrap() + "\n"
}

/// `file`'s header and launches, and its end record unless `unfinished`.
fn file_text(file: &pretouch::store::ResultFile, unfinished: bool) -> String {
    use pretouch::store::{Record, RunEnd};
    let mut text = line(&Record::Run(file.header.clone()));
    for l in &file.launches {
        text += &line(&Record::Launch(l.clone()));
    }
    if !unfinished {
        text += &line(&Record::End(RunEnd {
            finished_at: file.header.started_at.clone(),
            launches: file.launches.len() as u64,
            failed: 0,
            runner_max_rss: None,
            stops: Vec::new(),
        }));
    }
    text
}

/// Labels whose files interleave in name and in time: `a` and `b` run twice each, their
/// later runs with other flags; `c` on two machines; a damaged line, a cut last line of
/// an unfinished run, a line that is not UTF-8, a file without a run header.
fn awkward_results(dir: &std::path::Path) {
    use pretouch::fixtures::{FakeCell, MATRIX, file, host, rounds};
    use pretouch::matrix::Gc;
    let thp = format!("{MATRIX}jvm_args: [-XX:+UseTransparentHugePages]\n");
    let write = |name: &str, text: String| {
        let path = dir.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    let run = |label: &str, at: &str, machine: &str, on: f64, matrix: &str| {
        let r = rounds(50.0, on, true);
        let mut f = file(
            label,
            at,
            host(machine),
            &[
                FakeCell {
                    gc: Gc::G1,
                    heap: "1g",
                    rounds: &r,
                },
                FakeCell {
                    gc: Gc::Parallel,
                    heap: "1g",
                    rounds: &r,
                },
            ],
        );
        f.header.matrix = matrix.to_owned();
        f
    };
    write(
        "a/1.jsonl",
        file_text(
            &run("a", "2026-12-01T08:00:00Z", "vm", 300.0, MATRIX),
            false,
        ),
    );
    // Unfinished, its last line cut by the kill.
    let mut cut = file_text(&run("a", "2026-12-01T11:00:00Z", "vm", 310.0, &thp), true);
    cut.truncate(cut.len() - 40);
    write("a/2.jsonl", cut);
    let mut damaged = file_text(
        &run("b", "2026-12-01T09:00:00Z", "vm", 400.0, MATRIX),
        false,
    );
    let third = damaged.match_indices('\n').nth(2).unwrap().0;
    damaged.insert_str(third + 1, "{\"record\":\"launch\",\"seq\":\n");
    write("b/1.jsonl", damaged);
    write(
        "b/2.jsonl",
        file_text(&run("b", "2026-12-01T10:00:00Z", "vm", 390.0, &thp), false),
    );
    write(
        "c/h1.jsonl",
        file_text(
            &run("c", "2026-12-01T07:00:00Z", "h1", 350.0, MATRIX),
            false,
        ),
    );
    let mut not_utf8 = file_text(
        &run("c", "2026-12-01T12:00:00Z", "h2", 350.0, MATRIX),
        false,
    )
    .into_bytes();
    not_utf8.extend(b"{\"record\":\"probe\",\xff\n");
    std::fs::create_dir_all(dir.join("c")).unwrap();
    std::fs::write(dir.join("c/h2.jsonl"), not_utf8).unwrap();
    write("junk/notes.jsonl", "{\"not\":\"a record\"}\n".into());
}

#[test]
fn a_label_at_a_time_keeps_every_warning_in_its_place_and_every_figure() {
    let dir = tempfile::tempdir().unwrap();
    awkward_results(dir.path());
    let paths = [dir.path().to_owned()];
    let selections = [
        Options::default(),
        Options {
            labels: Some(vec!["b".into(), "a".into()]),
            baseline: Some("a".into()),
            ..Options::default()
        },
        Options {
            labels: Some(vec!["c@h2".into()]),
            ..Options::default()
        },
        Options {
            exclude_outliers: true,
            phases: true,
            features: ReportOptions::after_run(true),
            ..Options::default()
        },
    ];
    for o in &selections {
        for (format, whole, streamed) in both(&paths, o) {
            assert_eq!(whole, streamed, "{o:?} {format:?}");
        }
    }
    // What the comparison rests on: each warning once, in the order of the files.
    let doc = build_read(catalog_for_report(&paths).unwrap(), &Options::default()).unwrap();
    let report = &doc.launches.as_ref().unwrap().report;
    let at = |text: &str| {
        let found: Vec<usize> = (0..report.warnings.len())
            .filter(|&i| report.warnings[i].contains(text))
            .collect();
        assert_eq!(found.len(), 1, "{text}: {:#?}", report.warnings);
        found[0]
    };
    let flags = |label: &str| {
        at(&format!(
            "label `{label}`: cell {} g1 1g default was run with different flags",
            pretouch::fixtures::JDK
        ))
    };
    let (b_flags, a_flags) = (flags("b"), flags("a"));
    // b's later run (10:00) came before a's (11:00): its warning first, though a is
    // the older label.
    assert!(b_flags < a_flags, "{:#?}", report.warnings);
    let damaged = at("b/1.jsonl:4: an unreadable line is skipped");
    let cut = at("a/2.jsonl:41:");
    assert!(report.warnings[cut].contains("cut short"));
    let junk = at("notes.jsonl: skipped, because it has no run header");
    let not_utf8 = at("c/h2.jsonl:43:");
    let unfinished = at("the run is unfinished");
    assert!(a_flags < cut && cut < damaged && damaged < not_utf8 && not_utf8 < junk);
    assert!(junk < unfinished);
    assert_eq!(report.labels, ["c@h1", "a", "b", "c@h2"]);
    assert_eq!(
        report
            .run_to_run
            .iter()
            .map(|r| &*r.label)
            .collect::<Vec<_>>(),
        ["a", "b"]
    );
    // Every launch of every label is in its cells: 2 cells x 10 rounds x 2 a file, but
    // for the cut line's.
    let runs: usize = report.cells.iter().map(|c| c.times.runs).sum();
    assert_eq!(runs, 6 * 2 * 10 * 2 - 1);

    // Labels not shown are still read for their warnings, as when every file was.
    let only_a = Options {
        labels: Some(vec!["a".into()]),
        ..Options::default()
    };
    let doc = build_read(catalog_for_report(&paths).unwrap(), &only_a).unwrap();
    let warnings = &doc.launches.as_ref().unwrap().report.warnings;
    assert!(
        warnings.iter().any(|w| w.contains("b/1.jsonl:4")),
        "{warnings:#?}"
    );
}

#[test]
fn a_label_at_a_time_refuses_what_reading_every_file_refuses() {
    let dir = tempfile::tempdir().unwrap();
    awkward_results(dir.path());
    let junk = dir.path().join("junk/notes.jsonl");
    let named = [dir.path().join("a"), junk];
    let (whole, streamed) = (
        read_for_report(&named).unwrap_err().to_string(),
        catalog_for_report(&named).unwrap_err().to_string(),
    );
    assert_eq!(whole, streamed);
    assert!(whole.contains("notes.jsonl"), "{whole}");
    let unknown = Options {
        labels: Some(vec!["nope".into()]),
        ..Options::default()
    };
    let paths = [dir.path().to_owned()];
    let err = |r: Result<pretouch::analyze::document::Document, _>| match r {
        Err(e) => pretouch::analyze::document::DocumentError::to_string(&e),
        Ok(_) => panic!("`nope` is no label"),
    };
    assert_eq!(
        err(build(read_whole(&paths), &unknown)),
        err(build_read(catalog_for_report(&paths).unwrap(), &unknown))
    );
}

#[test]
fn report_calibrate_warns_of_the_same_lines_without_keeping_a_launch() {
    let dir = tempfile::tempdir().unwrap();
    awkward_results(dir.path());
    std::fs::write(dir.path().join("a/calibrate-20261201T000000Z.json"), "{").unwrap();
    for paths in [vec![dir.path().to_owned()], vec![inputs().join("real")]] {
        let whole = read_for_report(&paths).unwrap();
        let catalog = catalog_for_report(&paths).unwrap();
        let warnings = catalog.read_warnings().unwrap();
        assert_eq!(warnings, whole.warnings, "{paths:?}");
        let count = |r: &pretouch::store::Results| {
            pretouch::features::calibrate::ceiling::calibrations(&r.features).len()
        };
        assert_eq!(count(&catalog.results), count(&whole));
        assert!(catalog.results.files.iter().all(|f| f.launches.is_empty()));
    }
    let catalog = catalog_for_report(&[dir.path().to_owned()]).unwrap();
    let warnings = catalog.read_warnings().unwrap();
    assert!(
        warnings.iter().any(|w| w.contains("b/1.jsonl:4")),
        "{warnings:#?}"
    );
    assert!(
        warnings
            .last()
            .unwrap()
            .contains("unreadable calibration skipped"),
        "{warnings:#?}"
    );
}
