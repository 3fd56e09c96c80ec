//! `pretouch report` over result files of several labels: the comparison through the
//! command line, on fixed data, and once on real runs.

mod common;

use std::path::Path;

use assert_cmd::Command;
use predicates::prelude::*;
use pretouch::fixtures::{
    FakeCell, file, g1_and_parallel, host, rounds, write_result_file as write,
};
use pretouch::matrix::Gc;

/// A base kernel and THP `always`: G1 and Parallel at 1g, pretouch about 4x cheaper.
fn two_labels(dir: &Path) {
    let slow = rounds(50.0, 420.0, true);
    let fast = rounds(50.0, 105.0, false);
    let par = rounds(52.0, 430.0, false);
    let par_fast = rounds(52.0, 110.0, false);
    write(
        dir,
        &file(
            "thp-madvise",
            "2026-11-30T08:00:00Z",
            host("vm"),
            &g1_and_parallel(&slow, &par),
        ),
    );
    write(
        dir,
        &file(
            "thp-always",
            "2026-11-30T08:10:00Z",
            host("vm"),
            &g1_and_parallel(&fast, &par_fast),
        ),
    );
}

/// A CSV's header and rows, quoted fields (with commas inside) read as one.
fn parse_csv(text: &str) -> (Vec<String>, Vec<Vec<String>>) {
    let mut r = csv::Reader::from_reader(text.as_bytes());
    let header = r.headers().unwrap().iter().map(str::to_owned).collect();
    let rows = r
        .records()
        .map(|rec| rec.unwrap().iter().map(str::to_owned).collect())
        .collect();
    (header, rows)
}

fn pretouch() -> Command {
    let mut cmd = Command::cargo_bin("pretouch").unwrap();
    cmd.env_remove("PRETOUCH_AGENT");
    cmd
}

#[test]
fn compares_labels_within_72_columns_and_draws_every_round() {
    let dir = tempfile::tempdir().unwrap();
    two_labels(dir.path());
    let out = dir.path().join("report.txt");
    let svg = dir.path().join("plot.svg");
    pretouch()
        .arg("report")
        .arg(dir.path())
        .arg("--output")
        .arg(&out)
        .arg("--plot")
        .arg(&svg)
        .arg("--details")
        .assert()
        .success()
        .stdout("");
    let text = std::fs::read_to_string(&out).unwrap();
    // The comparison fits 72 columns; the per-label explaining tables that follow it
    // (faults, rates, the touched check) are wider.
    let comparison = text.split("\npretouch explained").next().unwrap();
    assert!(text.contains("\npretouch explained\n"), "{text}");
    assert!(
        comparison.lines().all(|l| l.chars().count() <= 72),
        "{text}"
    );
    assert!(!comparison.contains("the run is unfinished"), "{text}");
    assert!(text.contains("thp-madvise (baseline): host"), "{text}");
    // Both cells about -85%, marked significant.
    let header = text.lines().find(|l| l.starts_with("gc ")).unwrap();
    assert!(header.ends_with("thp-madvise  thp-always"), "{text}");
    let marked = text
        .lines()
        .filter(|l| (l.starts_with("g1 ") || l.starts_with("parallel ")) && l.ends_with(" *"));
    assert_eq!(marked.count(), 2, "{text}");
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains("A negative change is less startup time."),
        "{text}"
    );
    let svg = std::fs::read_to_string(&svg).unwrap();
    assert!(svg.starts_with("<svg"));
    // 2 cells x 2 labels x 10 rounds, one point each.
    assert_eq!(svg.matches("<circle").count(), 40);
    // Columns by letter, the legend naming each label.
    assert!(svg.contains("A (base)"), "{svg}");
    assert!(
        svg.contains("A = thp-madvise") && svg.contains("B = thp-always"),
        "{svg}"
    );
}

#[test]
fn every_format_and_the_outlier_choice_reach_the_output() {
    let dir = tempfile::tempdir().unwrap();
    two_labels(dir.path());
    let run = |args: &[&str]| {
        let out = pretouch()
            .arg("report")
            .arg(dir.path())
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "{args:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    let csv = run(&["--format", "csv", "--baseline", "thp-always"]);
    // Each row is the cell's row of the single-label CSV, then the comparison's columns.
    assert!(
        csv.starts_with("label,jdk,gc,heap,variant,launches,"),
        "{csv}"
    );
    let (header, rows) = parse_csv(&csv);
    let baseline = header.iter().position(|h| h == "baseline").unwrap();
    assert_eq!(rows.len(), 4, "{csv}");
    assert!(
        rows.iter()
            .all(|f| (f[0] == "thp-always") == (f[baseline] == "true")),
        "{csv}"
    );
    let json: serde_json::Value =
        serde_json::from_str(&run(&["--format", "json", "--exclude-outliers"])).unwrap();
    assert_eq!(json["outliers_excluded"], true);
    assert_eq!(json["comparison"]["baseline"], "thp-madvise");
    let md = run(&["--format", "markdown"]);
    assert!(md.contains("| thp-madvise ms | thp-always ms |"), "{md}");
    let text = run(&["--exclude-outliers", "--details"]);
    assert!(text.contains("--exclude-outliers was given"), "{text}");
    let one = run(&["--labels", "thp-always"]);
    assert!(one.starts_with("AlwaysPreTouch startup cost"), "{one}");
    assert!(one.contains("\ngc        heap  thp-always\n"), "{one}");
}

#[test]
fn labels_not_asked_for_are_left_out_of_every_part() {
    let dir = tempfile::tempdir().unwrap();
    two_labels(dir.path());
    let r = rounds(50.0, 300.0, false);
    let third = file(
        "later",
        "2026-11-30T09:00:00Z",
        host("vm"),
        &[FakeCell {
            gc: Gc::G1,
            heap: "1g",
            rounds: &r,
        }],
    );
    write(dir.path(), &third);
    let out = pretouch()
        .arg("report")
        .arg(dir.path())
        .args(["--labels", "thp-always,later", "--details"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(!text.contains("thp-madvise"), "{text}");
    // The oldest label asked for is the baseline.
    assert!(text.contains("thp-always (baseline): host"), "{text}");
    assert!(text.contains("change against"), "{text}");
    assert!(text.contains("pretouch explained"), "{text}");
}

#[test]
fn an_unknown_label_is_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    two_labels(dir.path());
    pretouch()
        .arg("report")
        .arg(dir.path())
        .args(["--labels", "thp-madvise,6.19"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no results are labelled `6.19`"));
}

#[test]
fn a_baseline_left_out_of_the_labels_is_named_as_such_and_spaces_are_trimmed() {
    let dir = tempfile::tempdir().unwrap();
    two_labels(dir.path());
    pretouch()
        .arg("report")
        .arg(dir.path())
        .args(["--labels", "thp-always", "--baseline", "thp-madvise"])
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains("baseline `thp-madvise` is not among --labels (thp-always)")
                .and(predicate::str::contains("no results are labelled").not()),
        );
    // The spaces around a label are dropped, as a list written with ", " has them.
    pretouch()
        .arg("report")
        .arg(dir.path())
        .args([
            "--labels",
            "thp-madvise, thp-always",
            "--baseline",
            " thp-madvise",
        ])
        .assert()
        .success()
        .stdout(predicate::str::contains("thp-always"));
}

/// Real JVMs: the same matrix twice under two labels is compared cell by cell (the
/// flags read back from the stored matrices agree); a run with other JVM flags under a
/// third label is shown but not compared.
#[test]
fn real_runs_under_two_labels_are_compared_and_other_flags_are_not() {
    let _jvms = common::jvm_lock();
    let dir = tempfile::tempdir().unwrap();
    let jdk = &common::jdks()[0];
    let matrix = |jvm_args: &str| {
        format!(
            "name: cmp\njdks: [{:?}]\ngcs: [g1]\nheaps: [128m]\nrepetitions: 4\njvm_args: [{jvm_args}]\n",
            jdk.display().to_string()
        )
    };
    let results = dir.path().join("results");
    for (label, args) in [("a", ""), ("b", ""), ("c", "-XX:+UseTransparentHugePages")] {
        let file = dir.path().join(format!("{label}.yaml"));
        std::fs::write(&file, matrix(args)).unwrap();
        pretouch()
            .args(["run", "--label", label, "--agent"])
            .arg(common::agent())
            .arg("--results")
            .arg(&results)
            .arg(&file)
            .assert()
            .success();
    }
    common::assert_no_java_left();
    let svg = dir.path().join("cmp.svg");
    let out = pretouch()
        .arg("report")
        .arg(&results)
        .args(["--format", "csv", "--plot"])
        .arg(&svg)
        .output()
        .unwrap();
    assert!(out.status.success());
    let csv = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 4, "{csv}");
    // b against a: compared. With 4 rounds a side the drift-aware interval (10 rounds a
    // side at least) is not given, so the cell has its change but no interval or mark.
    let (header, rows) = parse_csv(&csv);
    let at = |name: &str| header.iter().position(|h| h == name).unwrap();
    let b = &rows[1];
    assert_eq!(b[at("label")], "b");
    for empty in ["shift_ms", "ci_low_ms", "ci_high_ms", "ci_confidence"] {
        assert_eq!(b[at(empty)], "", "{empty}: {csv}");
    }
    assert_eq!(b[at("significant")], "false", "{csv}");
    // The change, recomputed here from the raw records, not by the code under test:
    // each label's median of its per-round costs (the time with pretouch less the time
    // without, round by round), b's less a's.
    let cost = |label: &str| -> f64 {
        let mut rounds: std::collections::BTreeMap<u64, [f64; 2]> = Default::default();
        for l in common::records(&results.join(label))
            .iter()
            .filter(|r| r["record"] == "launch" && r["warmup"] == false)
        {
            rounds.entry(l["round"].as_u64().unwrap()).or_default()
                [usize::from(l["pretouch"] == true)] = l["time_to_main_ns"].as_f64().unwrap() / 1e6;
        }
        let mut costs: Vec<f64> = rounds.values().map(|[off, on]| on - off).collect();
        assert_eq!(costs.len(), 4);
        costs.sort_by(f64::total_cmp);
        (costs[1] + costs[2]) / 2.0
    };
    let change: f64 = b[at("change_ms")].parse().unwrap();
    let want = cost("b") - cost("a");
    // The CSV's milliseconds are to the microsecond.
    assert!((change - want).abs() < 1e-3, "{change} vs {want}: {csv}");
    // Why the cell was not compared, then the label's geometric mean, empty for a
    // label without a compared cell, then whether outliers were left out.
    assert!(
        lines[3]
            .ends_with("\"other JVM flags (`-XX:+UseTransparentHugePages`, not ``)\",,,,,,false"),
        "{csv}"
    );
    // 3 labels x 4 rounds, every round a point.
    let svg = std::fs::read_to_string(&svg).unwrap();
    assert_eq!(svg.matches("<circle").count(), 12);
}
