//! `run --profile` and `report --profile`: perf checked before any JVM, and a real
//! profiled run (needs perf: `.ci/run` installs linux-perf).

mod common;

use common::*;
use predicates::prelude::*;
use serde_json::Value;

/// A PATH holding only a folder with nothing in it: no perf (and no java).
fn empty_path() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

#[test]
fn profile_without_perf_says_the_fix_before_any_jvm_starts() {
    let dir = tempfile::tempdir().unwrap();
    let path = empty_path();
    let jdk = &jdks()[0];
    for (yaml, args) in [("", &["--profile"][..]), ("profile: true\n", &[][..])] {
        let matrix = write_matrix(
            dir.path(),
            &format!(
                "name: p\njdks: [{}]\ngcs: [g1]\nheaps: [64m]\nrepetitions: 1\n{yaml}",
                yaml_list(std::slice::from_ref(jdk))
            ),
        );
        run_labelled("p", dir.path().join("results"))
            .env("PATH", path.path())
            .arg(&matrix)
            .args(args)
            .assert()
            .code(2)
            .stderr(
                predicate::str::contains("perf")
                    .and(predicate::str::contains("not on PATH"))
                    .and(predicate::str::contains("apt-get install linux-perf")),
            );
        assert!(
            jsonl_files(&dir.path().join("results")).is_empty(),
            "nothing was recorded"
        );
    }
}

#[test]
fn a_run_without_profile_never_needs_perf() {
    let _jvms = jvm_lock();
    let dir = tempfile::tempdir().unwrap();
    let path = empty_path();
    let matrix = write_matrix(
        dir.path(),
        &format!(
            "name: p\njdks: [{}]\ngcs: [g1]\nheaps: [64m]\nrepetitions: 1\n",
            yaml_list(&jdks()[..1])
        ),
    );
    run_labelled("p", dir.path().join("results"))
        .env("PATH", path.path())
        .arg(&matrix)
        .assert()
        .success();
    let records = records(&dir.path().join("results"));
    assert!(records.iter().all(|r| r["record"] != "profile"));
    assert_no_java_left();
}

#[test]
fn profiled_launches_put_the_pretouch_in_the_kernel_and_stay_out_of_the_medians() {
    let _jvms = jvm_lock();
    let dir = tempfile::tempdir().unwrap();
    let jdks = jdks();
    let matrix = write_matrix(
        dir.path(),
        &format!(
            "name: p\njdks: [{}]\ngcs: [g1, parallel]\nheaps: [128m]\nrepetitions: 2\n",
            yaml_list(&jdks)
        ),
    );
    let results = dir.path().join("results");
    run_labelled("prof", &results)
        .arg(&matrix)
        .args(["--profile", "--profile-rounds", "1"])
        .assert()
        .success()
        .stderr(predicate::str::contains("profiled launches"));
    assert_no_java_left();
    let cells = jdks.len() * 2;
    let records = records(&results);
    let launches: Vec<&Value> = records.iter().filter(|r| r["record"] == "launch").collect();
    let profiles: Vec<&Value> = records
        .iter()
        .filter(|r| r["record"] == "profile")
        .collect();
    // The timed launches are those of the matrix, exactly; the profiled ones come apart.
    assert_eq!(launches.len(), cells * 2 * 2);
    assert_eq!(profiles.len(), cells * 2);
    for p in &profiles {
        assert_eq!(p["failure"], Value::Null, "{p}");
        assert_eq!(
            p["command"][0].as_str().unwrap().rsplit('/').next(),
            Some("perf")
        );
        let folded = p["folded"].as_array().unwrap();
        let sum: u64 = folded
            .iter()
            .map(|l| {
                l.as_str()
                    .unwrap()
                    .rsplit_once(' ')
                    .unwrap()
                    .1
                    .parse::<u64>()
                    .unwrap()
            })
            .sum();
        assert_eq!(sum, p["samples"].as_u64().unwrap());
        let text: String = folded.iter().map(|l| l.as_str().unwrap()).collect();
        assert!(text.contains("_[k]"), "kernel frames resolve");
        if p["pretouch"] == true {
            assert!(
                text.contains("os::pretouch_memory"),
                "the JVM's pretouch frame"
            );
        }
    }

    let output = pretouch()
        .args(["report", "--profile", "--format", "json"])
        .arg(&results)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let json: Value = serde_json::from_slice(&output.stdout).unwrap();
    // The one report document, the profile a key beside the report's own.
    let plain = pretouch()
        .args(["report", "--format", "json"])
        .arg(&results)
        .output()
        .unwrap();
    let plain: Value = serde_json::from_slice(&plain.stdout).unwrap();
    assert!(plain.get("profile").is_none());
    let keys = |v: &Value| {
        let mut k: Vec<String> = v.as_object().unwrap().keys().cloned().collect();
        k.retain(|k| k != "profile");
        k
    };
    assert_eq!(keys(&json), keys(&plain));
    assert_eq!(json["schema"], "pretouch-report");
    assert_eq!(json["cells"].as_array().unwrap().len(), cells);
    let cells_json = json["profile"]["cells"].as_array().unwrap();
    assert_eq!(cells_json.len(), cells);
    for c in cells_json {
        let pretouch = c["pretouch_samples"].as_u64().unwrap();
        assert!(pretouch > 0, "{c}");
        assert!(pretouch <= c["samples_on"].as_u64().unwrap());
        let categories = c["categories"].as_array().unwrap();
        let in_categories: u64 = categories
            .iter()
            .map(|s| s["samples"].as_u64().unwrap())
            .sum();
        assert_eq!(
            in_categories, pretouch,
            "categories partition the pretouch samples"
        );
        // Most of the pretouch is the kernel's, not the JVM's own loop.
        let user: u64 = categories
            .iter()
            .filter(|s| s["name"] == "JVM (user space)")
            .map(|s| s["samples"].as_u64().unwrap())
            .sum();
        assert!(2 * user < pretouch, "{c}");
        let functions = c["functions"].as_array().unwrap();
        assert!(
            functions[..3.min(functions.len())]
                .iter()
                .any(|f| f["name"].as_str().unwrap().starts_with("[k] ")),
            "a kernel function among the top three: {c}"
        );
        // perf's overhead is measured (profiled against timed time to main).
        assert!(c["profiled_on_ms"].as_f64().is_some() && c["timed_on_ms"].as_f64().is_some());
    }

    // CSV: one table a file. `--profile` keeps the report's rows and says where the
    // profile's go; `--profile-csv FILE` writes them.
    let report_csv = pretouch()
        .args(["report", "--format", "csv"])
        .arg(&results)
        .output()
        .unwrap();
    let profile_csv = dir.path().join("profile.csv");
    let output = pretouch()
        .args(["report", "--profile", "--format", "csv"])
        .arg(&results)
        .output()
        .unwrap();
    assert!(output.status.success());
    assert_eq!(output.stdout, report_csv.stdout);
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("--profile-csv FILE"),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    pretouch()
        .args(["report", "--format", "csv", "--profile-csv"])
        .arg(&profile_csv)
        .arg(&results)
        .assert()
        .success()
        .stdout(predicate::eq(report_csv.stdout.as_slice()));
    let rows = std::fs::read_to_string(&profile_csv).unwrap();
    let mut rows = rows.lines();
    assert!(rows.next().unwrap().starts_with("section,label,"));
    let rows: Vec<&str> = rows.collect();
    assert!(
        rows.iter().all(|r| r.starts_with("profile,prof,")),
        "{rows:?}"
    );
    assert!(rows.len() >= cells, "{rows:?}");

    // The text report fits a patch email; the flame graphs are drawn.
    let fg = dir.path().join("fg");
    let output = pretouch()
        .args(["report", "--profile", "--flamegraph"])
        .arg(&fg)
        .arg(&results)
        .output()
        .unwrap();
    assert!(output.status.success());
    let text = String::from_utf8_lossy(&output.stdout);
    let profile = &text[text.find("where the pretouch time goes").unwrap()..];
    assert!(
        profile.lines().all(|l| l.chars().count() <= 72),
        "{profile}"
    );
    assert!(profile.contains("[k] "));
    let svgs = std::fs::read_dir(&fg).unwrap().count();
    assert_eq!(svgs, cells, "an SVG per cell of the one label");
}
