//! `run --probe`: bpftrace and its kernel support checked before any JVM, and a real
//! probed run whose fault count is held against the agent's (needs root and bpftrace:
//! `.ci/run` installs bpftrace and CI runs as root).

mod common;

use common::*;
use predicates::prelude::*;
use serde_json::Value;

#[test]
fn probe_without_bpftrace_says_the_fix_before_any_jvm_starts() {
    refused_without_its_tool(
        "--probe",
        "probe",
        &["bpftrace", "not on PATH", "apt-get install bpftrace"],
    );
}

/// Whether this machine can probe: root and bpftrace on PATH. Else the skip is said.
fn can_probe(test: &str) -> bool {
    let bpftrace = std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|d| d.join("bpftrace").is_file()));
    if !(is_root() && bpftrace) {
        skipped(
            test,
            "bpftrace",
            "a probed run (needs root and bpftrace: apt-get install bpftrace)",
        );
        return false;
    }
    true
}

#[test]
fn a_probed_run_times_every_fault_the_agent_counts_and_stays_out_of_the_medians() {
    if !can_probe("a_probed_run_times_every_fault_the_agent_counts") {
        return;
    }
    let _jvms = jvm_lock();
    let dir = tempfile::tempdir().unwrap();
    let matrix = first_jdk_matrix(dir.path(), "g1", "128m", 1);
    let results = dir.path().join("results");
    run_labelled("p", &results)
        .arg(&matrix)
        .args(["--probe", "--probe-rounds", "1"])
        .assert()
        .success()
        .stderr(predicate::str::contains("2 probed launches"));
    let records = records(&results);
    let launches = records.iter().filter(|r| r["record"] == "launch").count();
    assert_eq!(launches, 2, "the timed launches are the plan's, no more");
    let probes: Vec<&Value> = records.iter().filter(|r| r["record"] == "probe").collect();
    assert_eq!(probes.len(), 2);
    let mut timed = [0u64; 2];
    for p in &probes {
        assert_eq!(p["failure"], Value::Null, "{p}");
        let f = &p["faults"];
        let count = f["count"].as_u64().unwrap();
        let buckets = f["buckets"].as_array().unwrap();
        let sum: u64 = buckets.iter().map(|b| b["count"].as_u64().unwrap()).sum();
        assert_eq!(sum, count, "the histogram holds every timed fault");
        assert!(
            buckets
                .windows(2)
                .all(|w| w[0]["high_ns"].as_u64() <= w[1]["low_ns"].as_u64())
        );
        let max = f["max_ns"].as_u64().unwrap();
        let last = buckets.last().unwrap();
        assert!(last["low_ns"].as_u64().unwrap() <= max && max < last["high_ns"].as_u64().unwrap());
        // The probe's count agrees with the agent's getrusage at main within 2%.
        let probe = count + f["before_exec"].as_u64().unwrap();
        let agent = p["main_faults"].as_u64().unwrap();
        let diff = (probe as f64 - agent as f64).abs() / agent as f64;
        assert!(diff <= 0.02, "probe {probe} against agent {agent}: {p}");
        // Counting stopped at main: the uprobe fired before the JVM exited.
        let main = f["main_ns"].as_u64().unwrap();
        assert!(main > f["exec_ns"].as_u64().unwrap());
        assert!(
            ["measured", "unsupported"].contains(&p["contention"]["status"].as_str().unwrap()),
            "{p}"
        );
        assert!(p["c2c"]["status"].is_string());
        timed[usize::from(p["pretouch"] == true)] = count;
    }
    // With pretouch the JVM faults in the heap: at least the 128 MiB in folios of the
    // largest size the run's THP modes allow (4 KiB pages, 64 KiB under mTHP 64 KiB
    // `always`; with THP `always`, 2 MiB ones: far fewer, which the machine's other
    // faults can outnumber, so not checked). The folio model is checked in tests/explain.rs.
    use pretouch::machine::folio::{Backing, sizes};
    pretouch::fixtures::reads_thp_mode();
    let env: pretouch::machine::env::Environment =
        serde_json::from_value(records[0]["env"].clone()).unwrap();
    let folio = sizes(&env, Backing::Anonymous, false)
        .first()
        .map_or(4096, |b| b.0);
    if folio < 2 << 20 {
        assert!(
            timed[1] >= timed[0] + (128 << 20) / folio * 9 / 10,
            "{timed:?} at {folio}-byte folios"
        );
    }
    assert_no_java_left();
}

#[test]
fn sigint_in_the_probed_rounds_then_resume_runs_each_missing_probed_launch_once() {
    if !can_probe("sigint_in_the_probed_rounds_then_resume") {
        return;
    }
    let _jvms = jvm_lock();
    let dir = tempfile::tempdir().unwrap();
    let matrix = first_jdk_matrix(dir.path(), "g1", "64m", 1);
    let results = dir.path().join("results");
    // SIGINT once one probed launch is stored: the timed launches are written.
    let (file, status) = stop_run_at(
        dir.path(),
        &[
            "--label".as_ref(),
            "p".as_ref(),
            "--results".as_ref(),
            results.as_os_str(),
            matrix.as_os_str(),
            "--probe".as_ref(),
            "--probe-rounds".as_ref(),
            "2".as_ref(),
        ],
        &results,
        "probe",
        1,
    );
    let stderr = std::fs::read_to_string(dir.path().join("stderr")).unwrap();
    assert_eq!(status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("during the probed launches"), "{stderr}");
    let before = lines_of(&file, "probe");
    assert!(
        before < 4,
        "{before} of 4 probed launches before the resume"
    );
    pretouch()
        .args(["run", "--agent"])
        .arg(agent())
        .arg("--resume")
        .arg(&file)
        .arg(&matrix)
        .assert()
        .success();
    let records = records(&results);
    let mut seqs: Vec<u64> = records
        .iter()
        .filter(|r| r["record"] == "probe")
        .map(|r| r["seq"].as_u64().unwrap())
        .collect();
    seqs.sort();
    assert_eq!(seqs, [0, 1, 2, 3], "each planned probed launch once");
    assert_eq!(
        records.iter().filter(|r| r["record"] == "launch").count(),
        2,
        "no timed launch again"
    );
    assert_no_java_left();
}

#[test]
fn resume_with_probe_of_a_run_started_without_says_why_and_the_fix() {
    // A run cut short before its end record, started without --probe: refused before
    // bpftrace is looked for and before any JVM.
    let dir = tempfile::tempdir().unwrap();
    let f = pretouch::fixtures::file(
        "p",
        "2026-12-01T08:00:00Z",
        pretouch::fixtures::host("vm"),
        &[pretouch::fixtures::FakeCell {
            gc: pretouch::matrix::Gc::G1,
            heap: "1g",
            rounds: &[(50.0, 400.0)],
        }],
    );
    pretouch::fixtures::write_result_file(dir.path(), &f);
    cut_end_record(&dir.path().join("p/fixed.jsonl"));
    std::fs::write(dir.path().join("fixed.yaml"), pretouch::fixtures::MATRIX).unwrap();
    pretouch()
        .current_dir(dir.path())
        .args(["run", "--resume", "p/fixed.jsonl", "--probe"])
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains("was started without --probe")
                .and(predicate::str::contains("plans no probed rounds"))
                .and(predicate::str::contains("fix: resume without --probe")),
        );
}
