//! `pretouch report` on inputs it meets in the wild: a file that is not a result file,
//! two labels whose costs are identical (a file copied under a second label), and the
//! JSON shape whatever the number of labels, the profile a key of it. A folder with a
//! copy of a file, links back to itself, a link to `/dev/zero` and a file of a newer
//! format gives the figures of the clean folder, and names each of them.

mod common;

use std::path::Path;

use pretouch::fixtures::{FakeCell, file, host, rounds, write_result_file as write};
use pretouch::matrix::Gc;

use common::pretouch;

/// The same G1 1g cell under each of `labels`, launch for launch.
fn identical_labels(dir: &Path, labels: &[&str]) {
    let g1 = rounds(50.0, 420.0, false);
    for label in labels {
        let cells = [FakeCell {
            gc: Gc::G1,
            heap: "1g",
            rounds: &g1,
        }];
        write(
            dir,
            &file(label, "2026-11-30T08:00:00Z", host("vm"), &cells),
        );
    }
}

#[test]
fn identical_costs_show_no_change_with_an_interval() {
    let dir = tempfile::tempdir().unwrap();
    identical_labels(dir.path(), &["base", "copy"]);
    let out = pretouch().arg("report").arg(dir.path()).assert().success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    let row = text
        .lines()
        .find(|l| l.starts_with("g1") && l.contains('%'))
        .unwrap_or_else(|| panic!("no change row:\n{text}"));
    // gc heap base copy %change [low, high]: no change in %, with an interval about
    // it, no mark.
    let cols: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(cols[4], "+0.0%", "{row}\n{text}");
    let low: f64 = cols[5]
        .trim_start_matches('[')
        .trim_end_matches(',')
        .parse()
        .unwrap_or_else(|_| panic!("{row}"));
    let high: f64 = cols[6]
        .trim_end_matches(']')
        .parse()
        .unwrap_or_else(|_| panic!("{row}"));
    assert!(low < 0.0 && high > 0.0, "{row}\n{text}");
    assert_eq!(cols.len(), 7, "no mark: {row}");
    assert!(!row.contains("n/a"), "{row}");
}

#[test]
fn a_file_that_is_not_a_result_file_is_named_with_its_first_bad_line() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            "g.jsonl",
            "\n{\"a\": 1}\nsecond\n",
            "line 2 is not a record",
        ),
        ("notes.txt", "hello world\n", "line 1 is not a record"),
        ("empty.jsonl", "", "it is empty"),
    ];
    for (name, text, why) in cases {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        let out = pretouch().arg("report").arg(&path).assert().code(2);
        let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
        assert!(
            stderr.contains(&format!(
                "`{}` is not a pretouch result file: {why}",
                path.display()
            )),
            "{stderr}"
        );
        assert!(stderr.contains("fix: "), "{stderr}");
    }
    // A launch line without its run header.
    identical_labels(dir.path(), &["k"]);
    let full = std::fs::read_to_string(dir.path().join("k/fixed.jsonl")).unwrap();
    let headless: String = full.lines().skip(1).map(|l| format!("{l}\n")).collect();
    let path = dir.path().join("headless.jsonl");
    std::fs::write(&path, headless).unwrap();
    let out = pretouch().arg("report").arg(&path).assert().code(2);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(stderr.contains("it has no run header"), "{stderr}");
    // In a folder, such files are warned about, not fatal.
    pretouch().arg("report").arg(dir.path()).assert().success();
}

#[test]
fn json_has_one_shape_for_one_label_or_several() {
    let dir = tempfile::tempdir().unwrap();
    identical_labels(dir.path(), &["base", "copy"]);
    let json = |args: &[&str]| -> serde_json::Value {
        let out = pretouch()
            .arg("report")
            .arg(dir.path())
            .args(["--format", "json"])
            .args(args)
            .assert()
            .success();
        serde_json::from_slice(&out.get_output().stdout).unwrap()
    };
    let keys = |v: &serde_json::Value| -> Vec<String> {
        let mut k: Vec<String> = v.as_object().unwrap().keys().cloned().collect();
        k.sort();
        k
    };
    let one = json(&["--labels", "base"]);
    let two = json(&[]);
    assert_eq!(one["schema"], "pretouch-report");
    assert_eq!(one["schema_version"], 1);
    assert_eq!(two["schema_version"], 1);
    assert!(one.get("comparison").is_none());
    let mut expected = keys(&one);
    expected.push("comparison".into());
    expected.sort();
    assert_eq!(keys(&two), expected, "the comparison goes beside the cells");
    assert_eq!(keys(&one["cells"][0]), keys(&two["cells"][0]));
    assert_eq!(two["cells"].as_array().unwrap().len(), 2);
    assert_eq!(two["comparison"]["changes"][1]["change_ms"], 0.0);
}

#[test]
fn the_profile_is_a_json_key_and_csv_stays_one_table() {
    let dir = tempfile::tempdir().unwrap();
    identical_labels(dir.path(), &["base", "copy"]);
    let report = |args: &[&str]| {
        let out = pretouch()
            .arg("report")
            .arg(dir.path())
            .args(args)
            .assert()
            .success();
        let out = out.get_output();
        (
            out.stdout.clone(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let keys = |v: &serde_json::Value| -> Vec<String> {
        let mut k: Vec<String> = v.as_object().unwrap().keys().cloned().collect();
        k.sort();
        k
    };
    // JSON, one label or several: the report's document, the profile one key more.
    for labels in [&["--labels", "base"][..], &[]] {
        let json = |profile: &[&str]| -> serde_json::Value {
            let args = [labels, &["--format", "json"], profile].concat();
            serde_json::from_slice(&report(&args).0).unwrap()
        };
        let plain = json(&[]);
        let with = json(&["--profile"]);
        assert!(plain.get("profile").is_none());
        let mut expected = keys(&plain);
        expected.push("profile".into());
        expected.sort();
        assert_eq!(keys(&with), expected);
        assert_eq!(with["cells"], plain["cells"]);
        assert_eq!(with["profile"]["baseline"], "base");
        assert!(with["profile"]["cells"].as_array().unwrap().is_empty());
    }
    // CSV: the report's rows, and where the profile's go.
    let (plain, _) = report(&["--format", "csv"]);
    let (with, note) = report(&["--format", "csv", "--profile"]);
    assert_eq!(with, plain);
    assert!(note.contains("`--profile-csv FILE`"), "{note}");
    let file = dir.path().join("profile.csv");
    let (with, note) = report(&["--format", "csv", "--profile-csv", file.to_str().unwrap()]);
    assert_eq!(with, plain);
    assert!(note.contains("no profiled launches"), "{note}");
    let rows = std::fs::read_to_string(&file).unwrap();
    assert!(rows.starts_with("section,label,baseline,"), "{rows}");
    assert_eq!(rows.lines().count(), 1, "the header alone: {rows}");
}

/// The report's JSON of `dir`: its cells and comparison, and its warnings apart.
fn report_json(dir: &Path) -> (serde_json::Value, Vec<String>) {
    let out = pretouch()
        .arg("report")
        .arg(dir)
        .args(["--format", "json"])
        .assert()
        .success();
    let mut json: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    let warnings = json["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap().to_owned())
        .collect();
    json.as_object_mut().unwrap().remove("warnings");
    json["comparison"]
        .as_object_mut()
        .unwrap()
        .remove("warnings");
    (json, warnings)
}

#[test]
fn copies_links_and_a_file_that_cannot_be_read_leave_the_figures_as_they_were() {
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("results");
    let g1 = rounds(50.0, 420.0, false);
    for (label, started) in [
        ("base", "2026-11-30T08:00:00Z"),
        ("patch", "2026-11-30T09:00:00Z"),
    ] {
        let cells = [FakeCell {
            gc: Gc::G1,
            heap: "1g",
            rounds: &g1,
        }];
        write(&results, &file(label, started, host("vm"), &cells));
    }
    let (clean, warnings) = report_json(&results);
    assert!(warnings.is_empty(), "{warnings:?}");
    let base = results.join("base");
    std::fs::copy(base.join("fixed.jsonl"), base.join("copy.jsonl")).unwrap();
    std::os::unix::fs::symlink("..", base.join("up")).unwrap();
    std::os::unix::fs::symlink(".", base.join("self")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", base.join("zero.jsonl")).unwrap();
    let newer = r#"{"record":"run","format":99}"#.to_owned() + "\n";
    std::fs::write(results.join("patch").join("newer.jsonl"), newer).unwrap();
    let (damaged, warnings) = report_json(&results);
    assert_eq!(clean, damaged, "{warnings:?}");
    // Of the file and its copy, as long, the first by name is read and the other named.
    let copies: Vec<_> = warnings
        .iter()
        .filter(|w| w.contains("fixed.jsonl: skipped, because it holds the same run as"))
        .collect();
    assert_eq!(copies.len(), 1, "{warnings:?}");
    for name in ["up", "self", "zero.jsonl", "newer.jsonl"] {
        assert_eq!(
            warnings
                .iter()
                .filter(|w| w.contains(&format!("/{name}: skipped")))
                .count(),
            1,
            "{name}: {warnings:?}"
        );
    }
}
