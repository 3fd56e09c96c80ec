//! `pretouch run --gc ... --heap ... --jdk ... --rounds N`: without a matrix file the run
//! stores the matrix the flags make as YAML, and `report` and `--resume` read its result
//! file as a file's. Beside a file the flags replace its axes, and the dry run, the
//! header and the resume follow them. Bad values are refused naming the flag.
//! Real JVMs on a 64m heap, one collector, the first JDK installed, two rounds.

mod common;

use std::path::Path;

use common::*;
use predicates::prelude::*;
use serde_json::Value;

/// `pretouch run` in `dir` with the matrix flags of a tiny run: G1, 64m, the first JDK
/// installed, two rounds, no warmup.
fn tiny_flags_run(dir: &Path) -> assert_cmd::Command {
    let mut cmd = run_labelled("k", dir.join("results"));
    cmd.current_dir(dir)
        .args(["--gc", "g1", "--heap", "64m", "--jdk"])
        .arg(&jdks()[0])
        .args(["--rounds", "2", "--warmup", "0"]);
    cmd
}

/// The records of `file` whose `record` is `kind`.
fn of_kind(file: &Path, kind: &str) -> Vec<Value> {
    std::fs::read_to_string(file)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|r| r["record"] == kind)
        .collect()
}

#[test]
fn a_run_from_flags_stores_its_matrix_and_reports_and_resumes_as_a_files() {
    let _jvms = jvm_lock();
    let dir = tempfile::tempdir().unwrap();
    tiny_flags_run(dir.path()).assert().success();
    assert_no_java_left();
    let file = jsonl_files(&dir.path().join("results")).remove(0);

    // The header holds the matrix as a file would, made from the flags.
    let header = of_kind(&file, "run").remove(0);
    assert_eq!(header["matrix_origin"], "<command line>");
    let text = header["matrix"].as_str().unwrap();
    for line in [
        "gcs: [g1]\n",
        "heaps: [64m]\n",
        "repetitions: 2\n",
        "warmup: 0\n",
    ] {
        assert!(text.contains(line), "{line:?} not in\n{text}");
    }
    assert!(
        text.starts_with("# pretouch run --gc g1 --heap 64m --jdk "),
        "{text}"
    );
    assert_eq!(header["planned_launches"], 4);
    assert_eq!(of_kind(&file, "launch").len(), 4);

    // The report reads it as a file's run: one cell, named by the flags' values.
    let report = pretouch()
        .args(["report", "--format", "csv"])
        .arg(dir.path().join("results"))
        .assert()
        .success();
    let rows = csv_rows(&String::from_utf8_lossy(&report.get_output().stdout));
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(
        (rows[0]["gc"].as_str(), rows[0]["heap"].as_str()),
        ("g1", "64m")
    );

    // Stopped before its end and its last launch: the resume, without a matrix file,
    // runs the missing launch from the header's matrix.
    let kept = cut_end_record(&file);
    let last = kept.trim_end().rfind('\n').unwrap();
    std::fs::write(&file, &kept[..=last]).unwrap();
    assert_eq!(of_kind(&file, "launch").len(), 3);
    pretouch()
        .current_dir(dir.path())
        .args(["run", "--resume"])
        .arg(&file)
        .assert()
        .success()
        .stderr(predicate::str::contains("3 of 4 launches recorded"));
    assert_no_java_left();
    let seqs: Vec<u64> = of_kind(&file, "launch")
        .iter()
        .map(|l| l["seq"].as_u64().unwrap())
        .collect();
    assert_eq!(seqs, [0, 1, 2, 3]);
    assert_eq!(of_kind(&file, "resume").len(), 1);
    assert_eq!(of_kind(&file, "end").len(), 1);
    pretouch()
        .arg("report")
        .arg(&file)
        .assert()
        .success()
        .stdout(predicate::str::contains("g1  64m"));

    // The flags do not go with --resume: the file's matrix is the run's.
    pretouch()
        .args(["run", "--gc", "parallel", "--resume"])
        .arg(&file)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("cannot be used with"));
}

#[test]
fn flags_beside_a_matrix_file_replace_its_axes_for_the_run_and_its_resume() {
    let _jvms = jvm_lock();
    let dir = tempfile::tempdir().unwrap();
    let matrix = first_jdk_matrix(dir.path(), "g1", "64m", 1);
    let flags = ["--heap", "128m", "--rounds", "2", "--warmup", "1"];

    // The dry run shows the matrix as it will run.
    let dry = run_labelled("k", dir.path().join("results"))
        .arg(&matrix)
        .args(flags)
        .arg("--dry-run")
        .assert()
        .success();
    let out = String::from_utf8_lossy(&dry.get_output().stdout).into_owned();
    assert!(
        out.contains(&format!(
            "dry run of `{}` with --heap 128m --rounds 2 --warmup 1",
            matrix.display()
        )) && out.contains("6 launches. 4 are counted, 1 cell x 2 rounds")
            && out.contains("-Xms128m"),
        "{out}"
    );

    run_labelled("k", dir.path().join("results"))
        .arg(&matrix)
        .args(flags)
        .assert()
        .success()
        .stderr(predicate::str::contains(format!(
            // The rounds as counted, and the warm-up apart from them.
            "6 launches of `{}` with --heap 128m --rounds 2 --warmup 1, 1 cell x 2 rounds \
             x with and without pretouch, and 1 warm-up round,",
            matrix.display()
        )));
    assert_no_java_left();
    let file = jsonl_files(&dir.path().join("results")).remove(0);
    let header = of_kind(&file, "run").remove(0);
    assert_eq!(
        header["matrix_origin"],
        format!(
            "{} with --heap 128m --rounds 2 --warmup 1",
            matrix.display()
        )
    );
    let text = header["matrix"].as_str().unwrap();
    for line in [
        "heaps: [128m] # --heap 128m, in place of: heaps: [64m]\n",
        "repetitions: 2 # --rounds 2, in place of: repetitions: 1\n",
        "warmup: 1 # --warmup 1\n",
        "gcs: [g1]\n",
    ] {
        assert!(text.contains(line), "{line:?} not in\n{text}");
    }
    assert_eq!(header["planned_launches"], 6);
    let launches = of_kind(&file, "launch");
    assert_eq!(launches.len(), 6);
    assert!(launches.iter().all(|l| l["heap"] == "128m"), "{launches:?}");

    // Stopped before its last launch: the resume runs it from the header's matrix, not
    // from the file, which still says 64m and 1 round.
    let kept = cut_end_record(&file);
    let last = kept.trim_end().rfind('\n').unwrap();
    std::fs::write(&file, &kept[..=last]).unwrap();
    pretouch()
        .current_dir(dir.path())
        .args(["run", "--resume"])
        .arg(&file)
        .assert()
        .success()
        .stderr(predicate::str::contains("5 of 6 launches recorded"));
    assert_no_java_left();
    let launches = of_kind(&file, "launch");
    assert_eq!(launches.len(), 6);
    assert!(launches.iter().all(|l| l["heap"] == "128m"), "{launches:?}");
    assert_eq!(of_kind(&file, "end").len(), 1);
}

#[test]
fn a_bad_flag_value_is_bad_input_naming_the_flag() {
    let dir = tempfile::tempdir().unwrap();
    for (args, says) in [
        (
            &["--heap", "5x"][..],
            "error: --heap: invalid heap size \"5x\": unknown unit `x`",
        ),
        (
            &["--gc", "g1,cms"][..],
            "error: --gc: unknown collector `cms`\n  fix: use one of g1, parallel",
        ),
        (
            &["--heap", "64m", "--heap", "64M"][..],
            "error: --heap: `64M` is `64m` again",
        ),
        (
            &["--rounds", "0"][..],
            "error: --rounds: 0 rounds measure nothing",
        ),
        (&["--rounds", "ten"][..], "'ten' for '--rounds <N>'"),
        // Checked against this machine as a file's heap is, and named by its flag.
        (
            &["--gc", "g1", "--heap", "100t"][..],
            "error: --heap 100t: heap 100t needs about",
        ),
        // The flag and its value, not a line of a matrix the user never wrote.
        (
            &["--rounds", "4294967295"][..],
            "error: --rounds 4294967295: this matrix plans",
        ),
        (
            &["--jdk", "17\nwarmup: 5"][..],
            "error: --jdk: \"17\\nwarmup: 5\" holds a control character",
        ),
        // Negative values get pretouch's own message, not clap's advice to pass them
        // after `--`, where they would be the matrix file.
        (
            &["--heap", "-1"][..],
            "error: --heap: invalid heap size \"-1\"",
        ),
        (&["--rounds", "-1"][..], "`-1` is negative"),
    ] {
        run_labelled("k", dir.path().join("results"))
            .args(args)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(says).and(predicate::str::contains("line ").not()));
    }
    assert!(!dir.path().join("results").exists());
}

#[test]
fn a_dry_run_that_a_real_run_would_refuse_prints_the_plan_and_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    // A heap no machine has: the plan first, then the refusal, and exit code 2.
    let out = run_labelled("k", dir.path().join("results"))
        .args(["--gc", "g1", "--heap", "100t", "--dry-run"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "error: a real run would stop here: --heap 100t: heap 100t needs about",
        ));
    let plan = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(plan.contains("-Xms100t"), "{plan}");
    // --force would run it, so the dry run passes and says so.
    run_labelled("k", dir.path().join("results"))
        .args(["--gc", "g1", "--heap", "100t", "--dry-run", "--force"])
        .assert()
        .success()
        .stdout(predicate::str::contains("note: --force runs it anyway"));
    // A results folder that cannot be made, because a file stands where a folder would.
    let file = dir.path().join("a-file");
    std::fs::write(&file, "").unwrap();
    run_labelled("k", file.join("results"))
        .args(["--gc", "g1", "--heap", "64m", "--dry-run"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(format!(
            "error: a real run would stop here: `{}` is not a folder",
            file.display()
        )));
    // A plan that fits, into a folder that can be made, passes and creates nothing.
    run_labelled("k", dir.path().join("new/results"))
        .args(["--gc", "g1", "--heap", "64m", "--dry-run"])
        .assert()
        .success();
    assert!(!dir.path().join("new").exists());
}
