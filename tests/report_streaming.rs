//! The report's reader (`store::read_for_report`: a line at a time, each launch record
//! kept as far as a report reads it) gives the same report as the whole records
//! (`store::read_results`), in every format and sub-report, on the inputs the golden
//! outputs are made from (fixed numbers, server launches, two real runs with machine
//! counters, JVM logs, a profile and calibrations, and a format-1 file).

use std::path::PathBuf;

use pretouch::analyze::document::{Options, build};
use pretouch::render::common::Format;
use pretouch::render::document::render;
use pretouch::store::{read_for_report, read_results};

fn inputs() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/report-golden/inputs")
}

fn reports(paths: &[PathBuf], options: &Options) -> Vec<(Format, String, String)> {
    let whole = build(read_results(paths).unwrap(), options).unwrap();
    let compact = build(read_for_report(paths).unwrap(), options).unwrap();
    [Format::Text, Format::Markdown, Format::Csv, Format::Json]
        .into_iter()
        .map(|f| (f, render(&whole, f), render(&compact, f)))
        .collect()
}

#[test]
fn the_compact_records_give_the_same_report_as_the_whole_ones() {
    let format_1 = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/format-1-before-restructure.jsonl");
    let sets = [
        vec![inputs().join("fixed")],
        vec![inputs().join("server")],
        vec![inputs().join("real")],
        vec![format_1],
    ];
    let options = [
        Options::default(),
        Options {
            exclude_outliers: true,
            phases: true,
            ..Options::default()
        },
        Options {
            profile: true,
            show_profile: true,
            ..Options::default()
        },
        Options {
            calibrate: true,
            ..Options::default()
        },
    ];
    let mut compared = 0;
    for paths in &sets {
        for o in &options {
            if o.calibrate && !paths[0].ends_with("real") {
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
