//! End to end: real JVMs with the real agent, on small heaps.

mod common;

use common::*;
use predicates::prelude::*;
use serde_json::Value;

/// Large enough that pretouch costs several times the noise of a loaded machine.
const HEAP: &str = "512m";

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

#[test]
fn measures_pretouch_on_every_installed_jdk() {
    let _jvms = jvm_lock();
    // Minutes a run, so CI runs it again under THP `always` alone, not under every mode.
    pretouch::fixtures::slow_thp_test();
    let dir = tempfile::tempdir().unwrap();
    let jdks = jdks();
    let jdk_list = yaml_list(&jdks);
    let matrix = write_matrix(
        dir.path(),
        &format!(
            "name: e2e\njdks: [{jdk_list}]\ngcs: [g1, parallel]\nheaps: [{HEAP}]\nrepetitions: 3\nwarmup: 1\n"
        ),
    );
    let before = monotonic_ns();
    run_labelled("test-kernel", dir.path().join("results"))
        .arg(&matrix)
        .assert()
        .success()
        // The end of the run is the cover letter's table, its label the column.
        .stdout(
            predicate::str::contains("AlwaysPreTouch startup cost")
                .and(predicate::str::contains("test-kernel\n")),
        );
    let after = monotonic_ns();
    assert_no_java_left();

    let files = jsonl_files(&dir.path().join("results/test-kernel"));
    assert_eq!(files.len(), 1, "one result file under <results>/<label>/");
    let name = files[0].file_name().unwrap().to_string_lossy().into_owned();
    assert!(
        name.starts_with("e2e-") && name.ends_with("Z.jsonl"),
        "{name}"
    );

    let records = records(dir.path());
    let header = &records[0];
    assert_eq!(header["record"], "run");
    assert_eq!(header["label"], "test-kernel");
    assert!(
        header["matrix"]
            .as_str()
            .unwrap()
            .contains(&format!("heaps: [{HEAP}]"))
    );
    assert!(header["host"]["kernel_release"].is_string());
    assert_eq!(records.last().unwrap()["record"], "end");

    let launches: Vec<&Value> = records.iter().filter(|r| r["record"] == "launch").collect();
    // jdks x 2 GCs x 4 rounds x 2 settings
    assert_eq!(launches.len(), jdks.len() * 2 * 4 * 2);
    // Every launch has its own peak RSS, those without pretouch after one with it too,
    // where the children's running maximum gave them none.
    let without_peak: Vec<&&Value> = launches
        .iter()
        .filter(|l| l["rusage"]["peak_rss"].as_u64().is_none())
        .collect();
    assert!(without_peak.is_empty(), "{without_peak:?}");
    // The test's own reading of CLOCK_MONOTONIC bounds every stamp: they are that clock,
    // taken during this run. Launches never overlap: sorted by spawn, each starts after
    // the one before it was reaped.
    let mut spans = Vec::new();
    for l in &launches {
        assert_eq!(l["failure"], Value::Null, "launch failed: {l}");
        let spawn = l["spawn_ns"].as_u64().unwrap();
        let reaped = l["reaped_ns"].as_u64().unwrap();
        assert!(before < spawn && reaped < after, "outside the run: {l}");
        spans.push((spawn, reaped));
        let s = &l["stamps"];
        let (load, init, main) = (
            s["agent_load"]["ns"].as_u64().unwrap(),
            s["vm_init"]["ns"].as_u64().unwrap(),
            s["main"]["ns"].as_u64().unwrap(),
        );
        assert!(
            spawn < load && load < init && init < main,
            "stamps out of order: {l}"
        );
        assert!(main < reaped);
        // The stored measurement is the main stamp from the spawn (its documented
        // definition; a format check, the bounds above are the independent ones).
        assert_eq!(l["time_to_main_ns"].as_u64().unwrap(), main - spawn);
        let command: Vec<&str> = l["command"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_str().unwrap())
            .collect();
        assert!(command.contains(&"-Xms512m") && command.contains(&"-Xmx512m"));
        let flag = if l["pretouch"] == true {
            "-XX:+AlwaysPreTouch"
        } else {
            "-XX:-AlwaysPreTouch"
        };
        assert!(command.contains(&flag), "{command:?}");
    }
    assert_no_overlap(spans);

    // Pretouch-on is slower than off in every cell (at 512m pretouch costs several times
    // the launch-to-launch noise of this loaded 2-core machine), and the heap really was
    // touched: 512 MiB / 4 KiB = 131072 more faults between agent load and VM init
    // (with THP `always`, as few as one per 2 MiB).
    let report = pretouch()
        .args(["report", "--format", "json"])
        .arg(dir.path().join("results"))
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let report: Value = serde_json::from_slice(&report).unwrap();
    let cells = report["cells"].as_array().unwrap();
    assert_eq!(cells.len(), jdks.len() * 2);
    for cell in cells {
        assert_eq!(cell["label"], "test-kernel");
        assert_eq!(cell["heap"], HEAP);
        assert_eq!(cell["variant"], "default");
        assert_eq!(cell["launches"], 6, "{cell}");
        let (on, off) = (
            cell["median_on_ms"].as_f64().unwrap(),
            cell["median_off_ms"].as_f64().unwrap(),
        );
        assert!(on > off, "pretouch-on not slower than off: {cell}");
        // The report's medians and cost are those of the stored records, computed here.
        let times = |pretouch: bool| -> Vec<f64> {
            launches
                .iter()
                .filter(|l| {
                    l["warmup"] == false
                        && l["pretouch"] == pretouch
                        && l["jdk"] == cell["jdk"]
                        && l["gc"] == cell["gc"]
                })
                .map(|l| l["time_to_main_ns"].as_f64().unwrap() / 1e6)
                .collect()
        };
        let (raw_on, raw_off) = (median(times(true)), median(times(false)));
        assert!((raw_on - on).abs() < 1e-6 && (raw_off - off).abs() < 1e-6);
        let cost = cell["pretouch_ms"].as_f64().unwrap();
        assert!((cost - (raw_on - raw_off)).abs() < 1e-6, "{cost}: {cell}");
        let faults = |pretouch: bool| -> Vec<f64> {
            launches
                .iter()
                .filter(|l| {
                    l["pretouch"] == pretouch && l["jdk"] == cell["jdk"] && l["gc"] == cell["gc"]
                })
                .map(|l| {
                    let s = &l["stamps"];
                    (s["vm_init"]["minflt"].as_u64().unwrap()
                        - s["agent_load"]["minflt"].as_u64().unwrap()) as f64
                })
                .collect()
        };
        let extra = median(faults(true)) - median(faults(false));
        let least = min_pretouch_faults(512 << 20);
        assert!(
            extra > 0.8 * least,
            "pretouch faulted only {extra} more pages (THP {}): {cell}",
            thp_enabled()
        );
        // With pretouch the JVM's peak RSS holds the touched heap, so it is above the
        // peak without, whatever the figures are.
        let peak = |key: &str| {
            cell[key]
                .as_f64()
                .unwrap_or_else(|| panic!("{key}: {cell}"))
        };
        assert!(peak("peak_rss_on_mib") > peak("peak_rss_off_mib"), "{cell}");
    }
}

#[test]
fn a_rejected_flag_is_a_failed_launch_not_a_number() {
    let _jvms = jvm_lock();
    let dir = tempfile::tempdir().unwrap();
    let jdk = &jdks()[0];
    let matrix = write_matrix(
        dir.path(),
        &format!(
            "name: bad-flag\njdks: [{:?}]\ngcs: [g1]\nheaps: [64m]\nrepetitions: 2\nvariants:\n  - name: ok\n  - name: typo\n    jvm_args: [-XX:+NoSuchFlagForPretouch]\n",
            jdk.display().to_string()
        ),
    );
    run_labelled("k", dir.path())
        .arg(&matrix)
        .assert()
        .code(3)
        .stderr(predicate::str::contains("NoSuchFlagForPretouch"))
        .stdout(predicate::str::contains("FAILED"));
    assert_no_java_left();
    let records = records(dir.path());
    let launches: Vec<&Value> = records.iter().filter(|r| r["record"] == "launch").collect();
    assert_eq!(launches.len(), 8);
    for l in launches {
        if l["variant"] == "typo" {
            assert_ne!(l["failure"], Value::Null);
            assert_eq!(l["time_to_main_ns"], Value::Null);
            assert!(
                l["output_tail"]
                    .as_str()
                    .unwrap()
                    .contains("NoSuchFlagForPretouch"),
                "{l}"
            );
        } else {
            assert_eq!(l["failure"], Value::Null, "{l}");
        }
    }
}

#[test]
fn a_bad_matrix_starts_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let matrix = write_matrix(
        dir.path(),
        "name: x\ngcs: [g1]\nheaps: [64m, 1q]\nrepetitions: 1\n",
    );
    pretouch()
        .args(["run", "--agent"])
        .arg(agent())
        .arg("--results")
        .arg(dir.path().join("results"))
        .arg(&matrix)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("matrix.yaml`, line 3, column 14"))
        .stderr(predicate::str::contains("unknown unit `q`"));
    assert!(
        !dir.path().join("results").exists(),
        "a results folder was created"
    );
}

#[test]
fn a_missing_agent_is_bad_input_with_the_fix() {
    let dir = tempfile::tempdir().unwrap();
    pretouch()
        .args([
            "run",
            "--agent",
            "/nonexistent/libpretouch_agent.so",
            "--results",
        ])
        .arg(dir.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "or neither to use the agent built into pretouch",
        ));
    assert!(jsonl_files(dir.path()).is_empty());
}

#[test]
fn report_without_results_says_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    pretouch()
        .current_dir(dir.path())
        .arg("report")
        .arg(dir.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains("run `pretouch run` first"));
}
