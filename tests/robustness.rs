//! Nothing lost, clear errors: interruption, resume, kill -9, bad input, failing JVMs.
//! Real JVMs on 64m heaps; every test that launches JVMs holds `jvm_lock()` and checks
//! /proc for JVMs left behind.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::*;
use predicates::prelude::*;
use serde_json::Value;

fn jdk_yaml() -> String {
    format!("{:?}", jdks()[0].display().to_string())
}

/// The runner, started in the background with its output in files under `dir`.
fn spawn_run(dir: &Path, args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_pretouch"))
        .arg("run")
        .arg("--agent")
        .arg(agent())
        .args(args)
        .current_dir(dir)
        .env_remove("PRETOUCH_AGENT")
        .env("TMPDIR", dir)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(dir.join("stdout")).unwrap())
        .stderr(std::fs::File::create(dir.join("stderr")).unwrap())
        .spawn()
        .unwrap()
}

fn launch_lines(file: &Path) -> usize {
    std::fs::read_to_string(file)
        .unwrap_or_default()
        .lines()
        .filter(|l| l.contains(r#""record":"launch""#))
        .count()
}

/// Waits until `cond` holds, for at most `secs` seconds.
fn wait_for(secs: u64, what: &str, mut cond: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(secs);
    while !cond() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Waits until the runner has recorded `n` launches in its only result file.
fn wait_for_launches(dir: &Path, n: usize) -> PathBuf {
    let mut file = None;
    wait_for(120, &format!("{n} launches"), || {
        file = jsonl_files(dir).into_iter().next();
        file.as_deref().is_some_and(|f| launch_lines(f) >= n)
    });
    file.unwrap()
}

fn signal(child: &Child, signal: i32) {
    // SAFETY: kill(2) with a pid of our own child and a valid signal number.
    assert_eq!(unsafe { libc::kill(child.id() as i32, signal) }, 0);
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap()
}

/// The JVMs of this build alive now, as pids.
fn java_pids() -> Vec<i32> {
    let agent = agent().display().to_string();
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| {
            let pid: i32 = e.file_name().to_str()?.parse().ok()?;
            let cmdline = std::fs::read(e.path().join("cmdline")).ok()?;
            let cmdline = String::from_utf8_lossy(&cmdline);
            (cmdline.contains(&agent) && cmdline.contains("PretouchMain")).then_some(pid)
        })
        .collect()
}

/// Per (cell, pretouch): the counted launches; and every seq, in file order.
fn tally(records: &[Value]) -> (BTreeMap<String, usize>, Vec<u64>) {
    let mut counted = BTreeMap::new();
    let mut seqs = Vec::new();
    for l in records.iter().filter(|r| r["record"] == "launch") {
        seqs.push(l["seq"].as_u64().unwrap());
        if l["warmup"] == false {
            let key = format!(
                "{} {} {} {} {}",
                l["jdk"], l["gc"], l["heap"], l["variant"], l["pretouch"]
            );
            *counted.entry(key).or_default() += 1;
        }
    }
    (counted, seqs)
}

/// The report's rows without their numbers: what "the same shape" means.
fn report_shape(results: &Path) -> Vec<String> {
    let out = pretouch()
        .args(["report", "--format", "json"])
        .arg(results)
        .assert()
        .success();
    let report: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    report["cells"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let has = |k: &str| c[k].is_number();
            format!(
                "{} {} {} {} {} runs={}+{} failed={} on={} off={} cost={}",
                c["label"],
                c["jdk"],
                c["gc"],
                c["heap"],
                c["variant"],
                c["launches_off"],
                c["launches_on"],
                c["failed"],
                has("median_on_ms"),
                has("median_off_ms"),
                has("pretouch_ms")
            )
        })
        .collect()
}

const REPETITIONS: usize = 6;

fn resumable_matrix(dir: &Path) -> PathBuf {
    write_matrix(
        dir,
        &format!(
            "name: r\njdks: [{}]\ngcs: [g1, parallel]\nheaps: [64m]\nrepetitions: {REPETITIONS}\nwarmup: 1\n",
            jdk_yaml()
        ),
    )
}

/// 2 cells x 7 rounds x 2 settings.
const PLANNED: usize = 2 * (REPETITIONS + 1) * 2;

fn assert_complete(file: &Path) {
    let records: Vec<Value> = read(file)
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let (counted, seqs) = tally(&records);
    assert_eq!(counted.len(), 4, "{counted:?}");
    assert!(counted.values().all(|&n| n == REPETITIONS), "{counted:?}");
    assert_eq!(seqs.len(), PLANNED, "launches: {seqs:?}");
    assert_eq!(
        seqs.iter().copied().collect::<BTreeSet<_>>().len(),
        PLANNED,
        "duplicates: {seqs:?}"
    );
    assert_eq!(
        seqs,
        (0..PLANNED as u64).collect::<Vec<_>>(),
        "the plan's order was not kept"
    );
    let end: Vec<&Value> = records.iter().filter(|r| r["record"] == "end").collect();
    assert_eq!(end.len(), 1);
    assert_eq!(end[0]["launches"], PLANNED);
    assert_eq!(
        records.iter().filter(|r| r["record"] == "resume").count(),
        1
    );
}

#[test]
fn sigint_mid_run_then_resume_gives_every_planned_launch_once() {
    let _jvms = jvm_lock();
    let dir = tempfile::tempdir().unwrap();
    let matrix = resumable_matrix(dir.path());
    let mut child = spawn_run(
        dir.path(),
        &[
            "--label",
            "k",
            "--results",
            "results",
            matrix.to_str().unwrap(),
        ],
    );
    let file = wait_for_launches(dir.path(), 5);
    signal(&child, libc::SIGINT);
    let status = child.wait().unwrap();
    let stderr = read(&dir.path().join("stderr"));
    assert_eq!(status.code(), Some(130), "{stderr}");
    assert_no_java_left();
    let before = launch_lines(&file);
    assert!(
        (5..PLANNED).contains(&before),
        "{before} launches: the run was not interrupted mid-way"
    );
    assert!(
        stderr.contains(&format!(
            "interrupted by SIGINT after {before} of {PLANNED} launches"
        )),
        "{stderr}"
    );
    assert!(
        stderr.contains("resume: pretouch run --resume "),
        "{stderr}"
    );
    assert!(!read(&file).contains(r#""record":"end""#));

    // The label folder: its newest unfinished file.
    let out = pretouch()
        .current_dir(dir.path())
        .env("TMPDIR", dir.path())
        .args(["run", "--agent"])
        .arg(agent())
        .args(["--resume", "results/k"])
        .assert()
        .success()
        .stderr(predicate::str::contains(format!(
            "{before} of {PLANNED} launches recorded"
        )));
    assert_no_java_left();
    // The resumed run ends with the cover letter's table of its label.
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(
        stdout.contains("AlwaysPreTouch startup cost") && stdout.contains("  k\n"),
        "{stdout}"
    );
    assert_complete(&file);

    // The same matrix, uninterrupted: a report of the same shape.
    pretouch()
        .current_dir(dir.path())
        .env("TMPDIR", dir.path())
        .args(["run", "--label", "k", "--results", "straight", "--agent"])
        .arg(agent())
        .arg(&matrix)
        .assert()
        .success();
    assert_no_java_left();
    let resumed = report_shape(&dir.path().join("results"));
    assert_eq!(resumed.len(), 2);
    assert_eq!(resumed, report_shape(&dir.path().join("straight")));
}

/// A matrix whose JVMs stop at startup until killed (HotSpot's PauseAtStartup).
fn paused_matrix(dir: &Path, extra: &str) -> PathBuf {
    write_matrix(
        dir,
        &format!(
            "name: p\njdks: [{}]\ngcs: [serial]\nheaps: [64m]\nrepetitions: 1\nvariants:\n  - name: paused\n    jvm_args: [-XX:+UnlockDiagnosticVMOptions, -XX:+PauseAtStartup]\n{extra}",
            jdk_yaml()
        ),
    )
}

#[test]
fn sigterm_kills_the_running_jvm_and_exits_143() {
    let _jvms = jvm_lock();
    let dir = tempfile::tempdir().unwrap();
    let matrix = paused_matrix(dir.path(), "");
    let mut child = spawn_run(
        dir.path(),
        &[
            "--label",
            "k",
            "--results",
            "results",
            matrix.to_str().unwrap(),
        ],
    );
    wait_for(60, "a paused JVM", || !java_pids().is_empty());
    signal(&child, libc::SIGTERM);
    let status = child.wait().unwrap();
    let stderr = read(&dir.path().join("stderr"));
    assert_eq!(status.code(), Some(143), "{stderr}");
    assert!(
        stderr.contains("interrupted by SIGTERM after 0 of 2 launches"),
        "{stderr}"
    );
    assert_no_java_left();
    // The killed launch is not a measurement: not recorded.
    let file = &jsonl_files(dir.path())[0];
    assert_eq!(launch_lines(file), 0);
}

#[test]
fn kill_9_takes_the_jvm_along_and_a_cut_line_does_not_stop_the_resume() {
    let _jvms = jvm_lock();
    let dir = tempfile::tempdir().unwrap();

    // kill -9 of the runner while a JVM runs: the kernel ends the JVM (PR_SET_PDEATHSIG).
    let paused = tempfile::tempdir().unwrap();
    let matrix = paused_matrix(paused.path(), "");
    let mut child = spawn_run(
        paused.path(),
        &["--results", "results", matrix.to_str().unwrap()],
    );
    wait_for(60, "a paused JVM", || !java_pids().is_empty());
    signal(&child, libc::SIGKILL);
    child.wait().unwrap();
    wait_for(10, "the JVM to die with its runner", || {
        java_pids().is_empty()
    });

    // kill -9 mid-run, and a last line cut as by a power loss.
    let matrix = resumable_matrix(dir.path());
    let mut child = spawn_run(
        dir.path(),
        &[
            "--label",
            "k",
            "--results",
            "results",
            matrix.to_str().unwrap(),
        ],
    );
    let file = wait_for_launches(dir.path(), 5);
    signal(&child, libc::SIGKILL);
    child.wait().unwrap();
    wait_for(10, "no JVM left", || java_pids().is_empty());
    let text = read(&file);
    assert!(!text.contains(r#""record":"end""#));
    let last = text.lines().last().unwrap().to_owned();
    let mut cut = text.clone();
    if text.ends_with('\n') {
        cut.push_str(&last[..last.len() / 2]);
    }
    std::fs::write(&file, &cut).unwrap();
    let recorded = launch_lines(&file) - usize::from(last.contains(r#""record":"launch""#));

    let report = pretouch()
        .arg("report")
        .arg(dir.path().join("results"))
        .output()
        .unwrap();
    assert!(report.status.success());
    // The text report wraps its warnings at 72 columns, and prints them to stderr
    // under its table: read both unwrapped.
    let stdout = unwrapped(&report.stdout) + &unwrapped(&report.stderr);
    assert!(stdout.contains("the last line is cut short"), "{stdout}");
    assert!(
        stdout.contains(&format!(
            "the run is unfinished, with {recorded} of {PLANNED} launches"
        )),
        "{stdout}"
    );

    pretouch()
        .current_dir(dir.path())
        .env("TMPDIR", dir.path())
        .args(["run", "--agent"])
        .arg(agent())
        .arg("--resume")
        .arg(&file)
        .assert()
        .success()
        .stderr(predicate::str::contains("the last line is cut short"))
        .stderr(predicate::str::contains("removed the cut last line"))
        .stderr(predicate::str::contains(format!(
            "{recorded} of {PLANNED} launches recorded"
        )));
    assert_no_java_left();
    assert_complete(&file);
    // The cut bytes are kept in the resume record, and the file reads without warnings.
    let resume: Value = read(&file)
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|r| r["record"] == "resume")
        .unwrap();
    assert!(
        resume["dropped_tail"]
            .as_str()
            .is_some_and(|t| !t.is_empty()),
        "{resume}"
    );
    let report = pretouch().arg("report").arg(&file).output().unwrap();
    assert!(report.status.success());
    let stdout = String::from_utf8(report.stdout).unwrap();
    // Launches far from their cell's median are warned about too; that is about the
    // launches, not about reading the file.
    let file_warnings: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("warning:") && !l.contains("outlier launch(es)"))
        .collect();
    assert!(file_warnings.is_empty(), "{stdout}");
}

/// A finished run of a small matrix, and its result file.
fn finished_run(dir: &Path) -> (PathBuf, PathBuf) {
    let matrix = write_matrix(
        dir,
        &format!(
            "name: f\njdks: [{}]\ngcs: [serial]\nheaps: [64m]\nrepetitions: 1\n",
            jdk_yaml()
        ),
    );
    pretouch()
        .current_dir(dir)
        .env("TMPDIR", dir)
        .args(["run", "--label", "k", "--results", "results", "--agent"])
        .arg(agent())
        .arg(&matrix)
        .assert()
        .success();
    (matrix, jsonl_files(dir)[0].clone())
}

#[test]
fn resume_refuses_what_would_mix_two_runs() {
    let _jvms = jvm_lock();
    let dir = tempfile::tempdir().unwrap();
    let (matrix, file) = finished_run(dir.path());
    let resume = |path: &Path| {
        let mut cmd = pretouch();
        cmd.current_dir(dir.path())
            .env("TMPDIR", dir.path())
            .args(["run", "--agent"])
            .arg(agent())
            .arg("--resume")
            .arg(path);
        cmd
    };
    resume(&file)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "ran to its end: nothing to resume",
        ));
    resume(&dir.path().join("results/k"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no unfinished run in"));

    // Unfinished: the end record and the last launch removed.
    let text = read(&file);
    let lines: Vec<&str> = text.lines().collect();
    let unfinished = lines[..lines.len() - 2].join("\n") + "\n";
    std::fs::write(&file, &unfinished).unwrap();

    // The matrix file changed since.
    let original = read(&matrix);
    std::fs::write(
        &matrix,
        original.replace("repetitions: 1", "repetitions: 2"),
    )
    .unwrap();
    resume(&file)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("changed since"))
        .stderr(predicate::str::contains("fix:"));
    std::fs::write(&matrix, &original).unwrap();

    // Another kernel release.
    let other_kernel = unfinished.replacen(
        r#""kernel_release":""#,
        r#""kernel_release":"0.0.1-other"#,
        1,
    );
    std::fs::write(&file, &other_kernel).unwrap();
    resume(&file)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("taken on kernel 0.0.1-other"))
        .stderr(predicate::str::contains("fix: boot"));
    std::fs::write(&file, &unfinished).unwrap();

    // Another process writes the file.
    let holder = std::fs::OpenOptions::new()
        .append(true)
        .open(&file)
        .unwrap();
    holder.try_lock().unwrap();
    resume(&file)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "is being written by another pretouch process",
        ));
    drop(holder);
    assert_eq!(read(&file), unfinished, "a refused resume changed the file");
    assert_no_java_left();

    // And then it resumes: one launch to go.
    resume(&file)
        .assert()
        .success()
        .stderr(predicate::str::contains("1 to go"));
    assert_no_java_left();
    assert_eq!(launch_lines(&file), 2);
}

#[test]
fn a_second_run_on_the_machine_is_warned_and_writes_its_own_file() {
    let _jvms = jvm_lock();
    let dir = tempfile::tempdir().unwrap();
    // What a running pretouch holds: the lock file in the temporary folder.
    let lock = std::fs::File::create(dir.path().join("pretouch-run.lock")).unwrap();
    lock.try_lock().unwrap();
    std::fs::write(dir.path().join("pretouch-run.lock"), "4242").unwrap();
    let (_, first) = finished_run(dir.path());
    let out = pretouch()
        .current_dir(dir.path())
        .env("TMPDIR", dir.path())
        .args(["run", "--label", "k", "--results", "results", "--agent"])
        .arg(agent())
        .arg(dir.path().join("matrix.yaml"))
        .assert()
        .success();
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(
        stderr.contains("another pretouch run is running on this machine (pid 4242)"),
        "{stderr}"
    );
    let files = jsonl_files(&dir.path().join("results/k"));
    assert_eq!(files.len(), 2, "{files:?}");
    assert!(files.contains(&first));
    assert_no_java_left();
}

#[test]
fn failing_jvms_are_recorded_and_their_cell_reported_failed() {
    let _jvms = jvm_lock();
    let dir = tempfile::tempdir().unwrap();
    // Cell `paused`: its first JVM is killed by a signal (here: by this test), its second
    // times out. Cell `ok` measures, under the same timeout.
    let matrix = paused_matrix(dir.path(), "  - name: ok\n");
    let mut child = spawn_run(
        dir.path(),
        &[
            "--label",
            "k",
            "--results",
            "results",
            // Long enough for the healthy cell on a loaded machine; the paused JVM waits
            // it out.
            "--timeout",
            "10",
            matrix.to_str().unwrap(),
        ],
    );
    wait_for(60, "a paused JVM", || !java_pids().is_empty());
    for pid in java_pids() {
        // SAFETY: kill(2) of a JVM this test's runner started.
        unsafe { libc::kill(pid, libc::SIGKILL) };
    }
    let status = child.wait().unwrap();
    let stderr = read(&dir.path().join("stderr"));
    let stdout = read(&dir.path().join("stdout"));
    assert_eq!(status.code(), Some(3), "{stderr}");
    assert_no_java_left();
    let records = records(&dir.path().join("results"));
    let failures: Vec<String> = records
        .iter()
        .filter(|r| r["record"] == "launch" && r["variant"] == "paused")
        .map(|r| {
            assert_eq!(r["time_to_main_ns"], Value::Null);
            r["failure"].as_str().unwrap().to_owned()
        })
        .collect();
    assert_eq!(failures.len(), 2);
    assert!(
        failures[0].contains("killed by signal 9 (SIGKILL, not by the OOM killer"),
        "{failures:?}"
    );
    assert!(
        failures[1].contains("main() not reached within 10s"),
        "{failures:?}"
    );
    // Shown once per cell, with the command.
    assert_eq!(stderr.matches("warning: launch").count(), 1, "{stderr}");
    // A cell's row, on one line or (a table wider than the terminal's) folded under
    // its key line: the key line and the line after it.
    let row = |name: &str| -> String {
        let lines: Vec<&str> = stdout.lines().collect();
        let i = lines
            .iter()
            .position(|l| l.contains(&format!("64m {name}")) || l.contains(&format!(" {name} ")))
            .unwrap_or_else(|| panic!("no row {name}: {stdout}"));
        lines[i..(i + 2).min(lines.len())].join("\n")
    };
    assert!(row("paused").contains("FAILED"), "{stdout}");
    // The warning is among the notes the run's report prints to stderr.
    assert!(
        unwrapped(stderr.as_bytes()).contains("2 launches failed in serial 64m paused"),
        "{stderr}"
    );
    assert!(!row("ok").contains("FAILED"), "{stdout}");
}

#[test]
fn fail_fast_stops_at_the_first_failed_launch() {
    let _jvms = jvm_lock();
    let dir = tempfile::tempdir().unwrap();
    let matrix = write_matrix(
        dir.path(),
        &format!(
            "name: ff\njdks: [{}]\ngcs: [serial]\nheaps: [64m]\nrepetitions: 3\nvariants:\n  - name: typo\n    jvm_args: [-XX:+NoSuchFlagForPretouch]\n  - name: ok\n",
            jdk_yaml()
        ),
    );
    pretouch()
        .current_dir(dir.path())
        .env("TMPDIR", dir.path())
        .args([
            "run",
            "--fail-fast",
            "--label",
            "k",
            "--results",
            "results",
            "--agent",
        ])
        .arg(agent())
        .arg(&matrix)
        .assert()
        .code(3)
        .stderr(predicate::str::contains(
            "stopped after launch 0 failed (--fail-fast)",
        ))
        .stderr(predicate::str::contains("the JVM rejected a flag"));
    assert_no_java_left();
    assert_eq!(launch_lines(&jsonl_files(dir.path())[0]), 1);
}

#[test]
fn an_agent_that_cannot_load_fails_every_launch_and_says_so() {
    let _jvms = jvm_lock();
    let dir = tempfile::tempdir().unwrap();
    // Every installed JDK: they fail differently.
    let installed = jdks();
    let matrix = write_matrix(
        dir.path(),
        &format!(
            "name: a\njdks: [{}]\ngcs: [serial]\nheaps: [64m]\nrepetitions: 1\n",
            yaml_list(&installed)
        ),
    );
    // A shared library, but not an agent.
    let libm = [
        "/lib/x86_64-linux-gnu/libm.so.6",
        "/usr/lib/x86_64-linux-gnu/libm.so.6",
        "/lib64/libm.so.6",
    ]
    .into_iter()
    .find(|p| Path::new(p).exists())
    .expect("libm");
    let out = pretouch()
        .current_dir(dir.path())
        .env("TMPDIR", dir.path())
        .args([
            "run",
            "--label",
            "k",
            "--results",
            "results",
            "--agent",
            libm,
        ])
        .arg(&matrix)
        .assert()
        .code(3);
    assert_no_java_left();
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(stdout.contains("FAILED"), "{stdout}");
    let records = records(&dir.path().join("results"));
    let launches: Vec<&Value> = records.iter().filter(|r| r["record"] == "launch").collect();
    // One launch without and one with pretouch per JDK: the loop below cannot pass empty.
    assert_eq!(launches.len(), 2 * installed.len());
    for l in launches {
        let failure = l["failure"].as_str().unwrap();
        let home = Path::new(l["jdk_home"].as_str().unwrap());
        // OpenJDK 17 refuses the library; Temurin 25 crashes on it (SIGABRT). Other
        // builds may do either.
        let refused = failure.contains("the agent did not load: Could not find Agent_OnLoad");
        let crashed = failure.contains("the JVM crashed (fatal error, SIGABRT); its report: ");
        match jdk_feature(home) {
            Some(17) => assert!(refused, "{}: {failure}", home.display()),
            Some(25) => assert!(crashed, "{}: {failure}", home.display()),
            _ => assert!(refused || crashed, "{}: {failure}", home.display()),
        }
    }
    if !installed.iter().any(|j| jdk_feature(j) == Some(25)) {
        skipped(
            "an_agent_that_cannot_load_fails_every_launch_and_says_so",
            "jdk 25",
            "JDK 25's crash on a library without Agent_OnLoad is not seen: no JDK 25 installed",
        );
    }
}

#[test]
fn bad_inputs_are_refused_with_file_line_and_fix_before_anything_starts() {
    let dir = tempfile::tempdir().unwrap();
    let jdk = jdk_yaml();
    let not_a_jdk = tempfile::tempdir().unwrap();
    let base = |line2: &str| format!("name: x\n{line2}\nheaps: [64m]\nrepetitions: 1\n");
    let cases: Vec<(String, &str, &str)> = vec![
        (
            "name: x\ngcs: [g1]]\nheaps: [64m]\nrepetitions: 1\n".to_owned(),
            "line 2",
            "fix: correct the YAML syntax",
        ),
        (
            base("gcs: [g1]\nheap: [64m]"),
            "line 3, column 1",
            "unknown field `heap`",
        ),
        (base("gcs: g1"), "line 2", "invalid type"),
        (
            "name: x\ngcs: [g1]\nheaps: [64m]\nrepetitions: {min: 10, max: 30, ci_ms: 0}\n"
                .to_owned(),
            "line 4",
            "ci_ms must be a half-width in ms above 0 (e.g. ci_ms: 10)",
        ),
        (
            "name: x\ngcs: [g1]\nheaps: [64m]\nrepetitions: {min: 10, max: 30}\n".to_owned(),
            "line 4",
            "needs a target: `ci_pct`",
        ),
        (
            base("gcs: []"),
            "line 2",
            "empty list: give at least one value",
        ),
        (
            "name: x\ngcs: [g1]\nheaps: [1q]\nrepetitions: 1\n".to_owned(),
            "line 3",
            "unknown unit `q`. Write a whole number",
        ),
        (
            "name: x\ngcs: [g1]\nheaps: [-1g]\nrepetitions: 1\n".to_owned(),
            "line 3",
            "Write a whole number",
        ),
        (
            "name: x\ngcs: [g1]\nheaps: [0]\nrepetitions: 1\n".to_owned(),
            "line 3",
            "at least 2m",
        ),
        (
            format!("name: x\ngcs: [g1]\nheaps: [64m, 64t]\nrepetitions: 1\njdks: [{jdk}]\n"),
            "line 3",
            "pass --force to run anyway",
        ),
        (
            base("gcs: [g1, cms]"),
            "line 2",
            "unknown variant `cms`, expected one of `g1`, `parallel`, `serial`, `zgc`, `zgc-generational`, `zgc-nongenerational`, `shenandoah`, `epsilon`",
        ),
        (
            base("jdks: [/nonexistent/jdk]\ngcs: [g1]"),
            "line 2",
            "does not exist\n  fix:",
        ),
        (
            base(&format!(
                "jdks: [{:?}]\ngcs: [g1]",
                not_a_jdk.path().display().to_string()
            )),
            "line 2",
            "is not a JDK",
        ),
        (
            base(&format!(
                "jdks: [{jdk}]\ngcs: [g1]\nvariants:\n  - name: a\n  - name: a"
            )),
            "line 5",
            "duplicate variant name",
        ),
    ];
    // What each message tells the user to do, in the order of the cases.
    let fixes = [
        "fix: correct the YAML syntax there: indent with spaces",
        "fix: correct the key's spelling",
        "fix: write the value as the expected type",
        "above 0 (e.g. ci_ms: 10)",
        "or `ci_ms` (half-width in ms, e.g. ci_ms: 10), or both",
        "give at least one value, or remove the key where it is optional",
        "Write a whole number with an optional k, m, g or t suffix, like 256m",
        "Write a whole number with an optional k, m, g or t suffix, like 256m",
        "the JVM needs at least 2m. Write a whole number",
        "fix: use heaps up to",
        "fix: use one of the expected values listed",
        "fix: give a JAVA_HOME folder (it holds bin/java), a `java` binary or a feature version such as 17 in the matrix's `jdks:`. These are installed: ",
        "fix: give a JAVA_HOME folder (it holds bin/java)",
        "each variant needs its own name",
    ];
    assert_eq!(cases.len(), fixes.len());
    for ((yaml, line, message), fix) in cases.into_iter().zip(fixes) {
        let matrix = write_matrix(dir.path(), &yaml);
        let out = pretouch()
            .current_dir(dir.path())
            .args(["run", "--agent"])
            .arg(agent())
            .arg("--results")
            .arg(dir.path().join("results"))
            .arg(&matrix)
            .assert()
            .code(2);
        let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
        assert!(
            stderr.contains(&format!("matrix `{}`, {line}", matrix.display())),
            "for\n{yaml}got: {stderr}"
        );
        assert!(stderr.contains(message), "for\n{yaml}got: {stderr}");
        assert!(stderr.contains(fix), "no fix `{fix}` for\n{yaml}: {stderr}");
        assert!(
            !dir.path().join("results").exists(),
            "results created for\n{yaml}"
        );
    }

    // A results folder that cannot be written: its parent is a file.
    let matrix = write_matrix(
        dir.path(),
        &format!("name: x\njdks: [{jdk}]\ngcs: [g1]\nheaps: [64m]\nrepetitions: 1\n"),
    );
    let blocker = dir.path().join("a-file");
    std::fs::write(&blocker, "").unwrap();
    pretouch()
        .args(["run", "--agent"])
        .arg(agent())
        .arg("--results")
        .arg(blocker.join("results"))
        .arg(&matrix)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("cannot create results folder"))
        .stderr(predicate::str::contains("fix: choose a writable folder"));
    // An agent that is not a library at all.
    pretouch()
        .args(["run", "--agent"])
        .arg(&blocker)
        .arg(&matrix)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("is not a shared library"));
}

/// One typo in a count must not take the machine's memory. Each matrix ran
/// out of memory before (`repetitions: 1000000000` was killed by the OOM killer,
/// `warmup: 100000000` aborted on a 6 GiB allocation); under a 1 GiB address-space limit
/// each is now refused with exit code 2, its estimated duration and the fix, and no JVM
/// starts (the JDK is a fake that leaves a mark when started).
#[test]
fn an_absurd_count_is_refused_with_its_duration_within_bounded_memory() {
    let dir = tempfile::tempdir().unwrap();
    let (home, mark) = fake_jdk(dir.path(), 17);
    let bin = assert_cmd::cargo::cargo_bin("pretouch");
    for (counts, line, key) in [
        ("repetitions: 1000000000\n", "line 5", "repetitions"),
        ("repetitions: 1\nwarmup: 100000000\n", "line 6", "warmup"),
        (
            "repetitions: {min: 5, max: 1000000000, ci_pct: 2}\n",
            "line 5",
            "repetitions",
        ),
    ] {
        let matrix = write_matrix(
            dir.path(),
            &format!(
                "name: typo\njdks: [{:?}]\ngcs: [g1]\nheaps: [64m]\n{counts}",
                home.display().to_string()
            ),
        );
        for dry in [true, false] {
            let script = format!(
                "ulimit -v 1048576; exec {:?} run {} --results {:?} {:?}",
                bin,
                if dry { "--dry-run" } else { "" },
                dir.path().join("results"),
                matrix
            );
            let out = Command::new("bash").args(["-c", &script]).output().unwrap();
            let stderr = unwrapped(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{counts} dry={dry}: {stderr}");
            assert!(stderr.contains(line), "{stderr}");
            assert!(
                stderr.contains("would take") && stderr.contains("at least"),
                "{stderr}"
            );
            assert!(stderr.contains(&format!("fix: lower `{key}`")), "{stderr}");
        }
    }
    assert!(!mark.exists(), "a JVM was started");
}

#[test]
fn an_axis_value_given_twice_is_refused_naming_both_places() {
    let dir = tempfile::tempdir().unwrap();
    for (axes, want) in [
        (
            "gcs: [g1, g1]\nheaps: [64m]\n",
            "line 3: gcs: `g1` is listed twice: first at item 1 (line 3), again at item 2 (line 3)",
        ),
        (
            "gcs: [g1]\nheaps:\n  - 64m\n  - 64M\n",
            "line 6: heaps: `64M` is `64m` again: first at item 1 (line 5), again at item 2 (line 6)",
        ),
    ] {
        let matrix = write_matrix(dir.path(), &format!("name: twice\nrepetitions: 1\n{axes}"));
        pretouch()
            .args(["run", "--dry-run"])
            .arg(&matrix)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(format!(
                "matrix `{}`, {want}",
                matrix.display()
            )))
            .stderr(predicate::str::contains("fix: list each value once"));
    }
}

/// `_JAVA_OPTIONS=-XX:-AlwaysPreTouch` once turned every "with pretouch"
/// launch into one without, behind command lines that said otherwise.
#[test]
fn a_jvm_option_variable_is_refused_before_any_jvm_starts() {
    let dir = tempfile::tempdir().unwrap();
    let (home, mark) = fake_jdk(dir.path(), 17);
    let matrix = write_matrix(
        dir.path(),
        &format!(
            "name: env\njdks: [{:?}]\ngcs: [g1]\nheaps: [64m]\nrepetitions: 1\n",
            home.display().to_string()
        ),
    );
    for name in ["_JAVA_OPTIONS", "JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS"] {
        for dry in [false, true] {
            let mut cmd = run_labelled("k", dir.path().join("results"));
            if dry {
                cmd.arg("--dry-run");
            }
            cmd.arg(&matrix)
                .env(name, "-XX:-AlwaysPreTouch")
                .assert()
                .code(2)
                .stderr(predicate::str::contains(format!(
                    "{name} is set (\"-XX:-AlwaysPreTouch\")"
                )))
                .stderr(predicate::str::contains(format!(
                    "fix: unset it (`unset {name}`)"
                )))
                .stderr(predicate::str::contains("--pass-java-options"));
        }
    }
    assert!(!mark.exists(), "a JVM was started");
    assert!(records(&dir.path().join("results")).is_empty());
}

/// A launch whose JVM says it picked options up from a variable (here a fake `java`
/// that prints HotSpot's line and fails, as a wrapper setting the variable would make a
/// real one) is warned about with that cause named.
#[test]
fn a_launch_that_picked_up_options_names_that_cause() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let (home, _) = fake_jdk(dir.path(), 17);
    let java = home.join("bin/java");
    std::fs::write(
        &java,
        // `-version` alone (the JDK query), the collector query (`... -XX:+PrintFlagsFinal
        // -version`) and one trial start a collector (`-XX:+UseG1GC ... -version`) answer
        // as a JDK 17 does; a launch prints the line and fails.
        "#!/bin/sh\nfor last; do :; done\nif [ \"$last\" = -version ]; then\n  \
         case \"$*\" in *PrintFlagsFinal*) echo '     bool UseG1GC    = true    {product} {ergonomic}' ;; esac\n  \
         echo 'openjdk version \"17.0.0\" 2021-09-14' >&2\n  exit 0\nfi\n\
         echo 'Picked up _JAVA_OPTIONS: -XX:-AlwaysPreTouch' >&2\nexit 1\n",
    )
    .unwrap();
    std::fs::set_permissions(&java, std::fs::Permissions::from_mode(0o755)).unwrap();
    let matrix = write_matrix(
        dir.path(),
        &format!(
            "name: env\njdks: [{:?}]\ngcs: [g1]\nheaps: [64m]\nrepetitions: 1\n",
            home.display().to_string()
        ),
    );
    let out = run_labelled("k", dir.path().join("results"))
        .arg(&matrix)
        .output()
        .unwrap();
    let stderr = unwrapped(&out.stderr);
    assert!(
        stderr.contains(
            "the JVM says `Picked up _JAVA_OPTIONS: -XX:-AlwaysPreTouch`: that variable changed this launch's flags"
        ),
        "{stderr}"
    );
}

/// With --pass-java-options, the variable's options are on every launch's command line,
/// after the cell's flags as HotSpot applies `_JAVA_OPTIONS`, and the JVM no longer
/// reads the variable itself (it does not say "Picked up").
#[test]
fn passed_java_options_are_on_every_command_line() {
    let _jvms = jvm_lock();
    let dir = tempfile::tempdir().unwrap();
    let matrix = write_matrix(
        dir.path(),
        &format!(
            "name: env\njdks: [{:?}]\ngcs: [parallel]\nheaps: [64m]\nrepetitions: 1\n",
            jdks()[0].display().to_string()
        ),
    );
    run_labelled("k", dir.path().join("results"))
        .arg(&matrix)
        .arg("--pass-java-options")
        .env("_JAVA_OPTIONS", "-Dpassed.on=1")
        .env_remove("JAVA_TOOL_OPTIONS")
        .env_remove("JDK_JAVA_OPTIONS")
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "--pass-java-options: _JAVA_OPTIONS=\"-Dpassed.on=1\" goes on every launch's command line",
        ));
    let records = records(&dir.path().join("results"));
    let launches: Vec<&Value> = records.iter().filter(|r| r["record"] == "launch").collect();
    assert_eq!(launches.len(), 2);
    for l in launches {
        let command: Vec<&str> = l["command"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_str().unwrap())
            .collect();
        let at = command.iter().position(|c| *c == "-Dpassed.on=1");
        let pretouch = command.iter().position(|c| c.contains("AlwaysPreTouch"));
        assert!(at.is_some() && pretouch < at, "{command:?}");
        let tail = l["output_tail"].as_str().unwrap_or("");
        assert!(!tail.contains("Picked up"), "{tail}");
    }
    assert_no_java_left();
}

/// The state letter of a process (`T` when stopped), from /proc/PID/stat.
fn process_state(pid: u32) -> char {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    stat.rsplit_once(") ")
        .and_then(|(_, rest)| rest.chars().next())
        .unwrap_or('?')
}

/// Ctrl-Z, then `fg`: SIGTSTP to the run's process group (the runner and its JVM, as
/// the terminal sends it), then SIGCONT. The launches under way during the stop have the
/// stop in their times: each is recorded as not counted, saying why, and no other is.
#[test]
fn ctrl_z_then_fg_marks_the_stopped_launch_as_not_counted() {
    use std::os::unix::process::CommandExt;
    let _jvms = jvm_lock();
    let dir = tempfile::tempdir().unwrap();
    let matrix = resumable_matrix(dir.path());
    let mut child = Command::new(env!("CARGO_BIN_EXE_pretouch"))
        .args(["run", "--label", "k", "--results", "results", "--agent"])
        .arg(agent())
        .arg(&matrix)
        .current_dir(dir.path())
        .env_remove("PRETOUCH_AGENT")
        .env("TMPDIR", dir.path())
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(dir.path().join("stdout")).unwrap())
        .stderr(std::fs::File::create(dir.path().join("stderr")).unwrap())
        .process_group(0)
        .spawn()
        .unwrap();
    let group = child.id() as i32;
    wait_for_launches(dir.path(), 3);
    wait_for(60, "a JVM under way", || !java_pids().is_empty());
    let stop = monotonic_ns();
    // SAFETY: kill(2) to the process group our child leads, with a valid signal.
    assert_eq!(unsafe { libc::kill(-group, libc::SIGTSTP) }, 0);
    wait_for(10, "the runner to stop", || {
        process_state(child.id()) == 'T'
    });
    std::thread::sleep(Duration::from_millis(500));
    let cont = monotonic_ns();
    // SAFETY: as above.
    assert_eq!(unsafe { libc::kill(-group, libc::SIGCONT) }, 0);
    let status = child.wait().unwrap();
    let stderr = read(&dir.path().join("stderr"));
    assert_ne!(status.code(), Some(130), "{stderr}");
    assert_no_java_left();
    let records = records(&dir.path().join("results"));
    let launches: Vec<&Value> = records.iter().filter(|r| r["record"] == "launch").collect();
    assert_eq!(launches.len(), PLANNED, "{stderr}");
    let mut marked = 0;
    for l in &launches {
        let (spawn, reaped) = (ns_of(&l["spawn_ns"]), ns_of(&l["reaped_ns"]));
        let during = spawn < cont && reaped > stop;
        let said = l["failure"]
            .as_str()
            .is_some_and(|f| f.contains("stopped (Ctrl-Z or SIGSTOP) and continued"));
        // 50 ms of slack: the stop may land between a reap's stamp and its check.
        let near = spawn < cont + 50_000_000 && reaped + 50_000_000 > stop;
        assert!(
            !during || said,
            "a launch under way during the stop was counted: {l}"
        );
        assert!(
            !said || near,
            "a launch outside the stop was not counted: {l}"
        );
        marked += usize::from(said);
    }
    assert!(marked >= 1, "no launch was under way during the stop");
    assert!(stderr.contains("its times include the stop"), "{stderr}");
}

fn ns_of(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not a number: {v}"))
}

/// A second Ctrl-C while the first is being handled (the JVM killed, the file closed)
/// changes nothing: the run ends with 130, no JVM is left, no line is cut, and the
/// resume completes the plan.
#[test]
fn a_second_ctrl_c_while_the_first_is_handled_changes_nothing() {
    let _jvms = jvm_lock();
    let dir = tempfile::tempdir().unwrap();
    let matrix = resumable_matrix(dir.path());
    let mut child = spawn_run(
        dir.path(),
        &[
            "--label",
            "k",
            "--results",
            "results",
            matrix.to_str().unwrap(),
        ],
    );
    let file = wait_for_launches(dir.path(), 3);
    wait_for(60, "a JVM under way", || !java_pids().is_empty());
    signal(&child, libc::SIGINT);
    std::thread::sleep(Duration::from_millis(5));
    signal(&child, libc::SIGINT);
    let status = child.wait().unwrap();
    let stderr = read(&dir.path().join("stderr"));
    assert_eq!(status.code(), Some(130), "{stderr}");
    assert_no_java_left();
    assert!(read(&file).ends_with('\n'), "a cut last line");
    let before = launch_lines(&file);
    assert!(
        stderr.contains(&format!(
            "interrupted by SIGINT after {before} of {PLANNED} launches"
        )),
        "{stderr}"
    );
    pretouch()
        .current_dir(dir.path())
        .env("TMPDIR", dir.path())
        .args(["run", "--agent"])
        .arg(agent())
        .args(["--resume", "results/k"])
        .assert()
        .success();
    assert_no_java_left();
    assert_complete(&file);
}

/// `--resume` of a run interrupted after one of its cells was given up: the cell stays
/// given up (no JVM of it starts again; its missing launches are recorded as skipped),
/// and every planned launch is in the file exactly once.
#[test]
fn resume_of_a_run_with_a_given_up_cell_keeps_it_given_up() {
    let _jvms = jvm_lock();
    let dir = tempfile::tempdir().unwrap();
    let matrix = write_matrix(
        dir.path(),
        &format!(
            "name: g\njdks: [{}]\ngcs: [g1]\nheaps: [64m]\nrepetitions: 8\n\
             variants: [{{name: ok}}, {{name: bad, jvm_args: [-XX:+NoSuchFlagAnywhere]}}]\n",
            jdk_yaml()
        ),
    );
    let planned = 2 * 8 * 2;
    let mut child = spawn_run(
        dir.path(),
        &[
            "--label",
            "k",
            "--results",
            "results",
            matrix.to_str().unwrap(),
        ],
    );
    wait_for(120, "the bad cell given up", || {
        std::fs::read_to_string(dir.path().join("stderr"))
            .unwrap_or_default()
            .contains("giving up")
    });
    signal(&child, libc::SIGINT);
    let status = child.wait().unwrap();
    let stderr = read(&dir.path().join("stderr"));
    let file = jsonl_files(dir.path()).into_iter().next().unwrap();
    let before = launch_lines(&file);
    assert!(
        status.code() == Some(130) && before < planned,
        "the run was not interrupted mid-way ({before} launches): {stderr}"
    );
    let resumed = pretouch()
        .current_dir(dir.path())
        .env("TMPDIR", dir.path())
        .args(["run", "--agent"])
        .arg(agent())
        .args(["--resume", "results/k"])
        .output()
        .unwrap();
    let resumed_err = unwrapped(&resumed.stderr);
    assert_no_java_left();
    let text = read(&file);
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let resume_at = lines
        .iter()
        .position(|r| r["record"] == "resume")
        .expect("a resume record");
    let launches: Vec<&Value> = lines.iter().filter(|r| r["record"] == "launch").collect();
    let mut seqs: Vec<u64> = launches.iter().map(|l| ns_of(&l["seq"])).collect();
    seqs.sort();
    assert_eq!(
        seqs,
        (0..planned as u64).collect::<Vec<_>>(),
        "{resumed_err}"
    );
    for l in &lines[resume_at..] {
        if l["record"] == "launch" && l["variant"] == "bad" {
            assert_eq!(l["skipped"], true, "the given-up cell ran again: {l}");
        }
        if l["record"] == "launch" && l["variant"] == "ok" {
            assert_eq!(l["failure"], Value::Null, "{l}");
        }
    }
    assert!(lines.iter().any(|r| r["record"] == "end"), "{resumed_err}");
}

/// A path the runner cannot reach for want of permission (the agent, the matrix, a JDK,
/// the results folder) is reported as a permission denial naming the path, the folder
/// that stops it and the user, never as a missing file; a file that is really missing
/// still is one. Run as `nobody`, where root's rights hide nothing.
#[test]
fn a_permission_denial_names_the_path_the_folder_and_the_user() {
    use std::os::unix::fs::PermissionsExt;
    let test = "a_permission_denial_names_the_path_the_folder_and_the_user";
    if !is_root() || !Path::new("/usr/bin/setpriv").exists() {
        skipped(
            test,
            "root and setpriv",
            "permission denials are not checked",
        );
        return;
    }
    let _jvms = jvm_lock();
    let copies = AsNobody::new();
    let open = copies.dir();
    // A folder only root can enter, holding what the runs below name.
    let closed = tempfile::tempdir().unwrap();
    std::fs::set_permissions(closed.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
    let hidden = closed.path().display().to_string();
    std::fs::copy(&copies.agent, closed.path().join("agent.so")).unwrap();
    let jdk = jdks()[0].clone();
    let yaml = format!(
        "name: denied\njdks: [{}]\ngcs: [g1]\nheaps: [64m]\nrepetitions: 1\n",
        yaml_list(std::slice::from_ref(&jdk))
    );
    let matrix = write_matrix(open, &yaml);
    std::fs::write(closed.path().join("matrix.yaml"), &yaml).unwrap();
    std::os::unix::fs::symlink(&jdk, closed.path().join("jdk")).unwrap();
    let jdk_matrix = open.join("jdk.yaml");
    std::fs::write(
        &jdk_matrix,
        yaml.replace(
            &format!("{:?}", jdk.display().to_string()),
            &format!("{hidden}/jdk"),
        ),
    )
    .unwrap();
    let writable = tempfile::tempdir_in(open).unwrap();
    std::fs::set_permissions(writable.path(), std::fs::Permissions::from_mode(0o777)).unwrap();

    let refused = |what: &str, args: &[&std::ffi::OsStr]| {
        let out = copies.command().args(args).output().unwrap();
        let stderr = unwrapped(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{what}: {stderr}");
        assert!(!stderr.contains("does not exist"), "{what}: {stderr}");
        stderr
    };
    let results = writable.path().join("results");
    let agent = closed.path().join("agent.so");
    let hidden_matrix = closed.path().join("matrix.yaml");
    let r = results.as_os_str();
    for (what, args, path) in [
        (
            "agent",
            vec![
                "run".as_ref(),
                matrix.as_os_str(),
                "--agent".as_ref(),
                agent.as_os_str(),
                "--results".as_ref(),
                r,
            ],
            agent.clone(),
        ),
        (
            "matrix",
            vec![
                "run".as_ref(),
                hidden_matrix.as_os_str(),
                "--results".as_ref(),
                r,
            ],
            hidden_matrix.clone(),
        ),
        (
            "jdk",
            vec![
                "run".as_ref(),
                jdk_matrix.as_os_str(),
                "--results".as_ref(),
                r,
            ],
            closed.path().join("jdk"),
        ),
    ] {
        let stderr = refused(what, &args);
        let path = path.display().to_string();
        for word in [
            "permission denied",
            "user nobody",
            &path,
            &format!("cannot search `{hidden}`"),
            "mode 0700",
            "fix:",
        ] {
            assert!(stderr.contains(word), "{what}: `{word}` missing: {stderr}");
        }
    }
    // A results folder in a folder `nobody` may not write: the folder is named.
    let stderr = refused(
        "results",
        &[
            "run".as_ref(),
            matrix.as_os_str(),
            "--results".as_ref(),
            open.join("results").as_os_str(),
        ],
    );
    for word in [
        "permission denied",
        "user nobody",
        &format!("cannot write `{}`", open.display()),
        "--results DIR",
    ] {
        assert!(stderr.contains(word), "results: `{word}` missing: {stderr}");
    }
    // Missing is still missing.
    let out = copies
        .command()
        .arg("run")
        .arg(&matrix)
        .arg("--agent")
        .arg(open.join("no-such-agent.so"))
        .arg("--results")
        .arg(&results)
        .output()
        .unwrap();
    let stderr = unwrapped(&out.stderr);
    assert!(
        stderr.contains("does not exist") && !stderr.contains("permission denied"),
        "{stderr}"
    );
    assert!(jsonl_files(&results).is_empty(), "nothing ran");
    assert_no_java_left();
}
