//! What an overnight run on someone else's machine meets: a closed pipe, a dropped ssh
//! session (SIGHUP), a cell that keeps crashing, and the crash files it leaves. Real
//! JVMs on 64m heaps; each test holds `jvm_lock()` and checks for JVMs left behind.

mod common;

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::*;
use serde_json::Value;

fn runner(dir: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_pretouch"));
    cmd.arg("run")
        .arg("--agent")
        .arg(agent())
        .args(args)
        .current_dir(dir)
        .env_remove("PRETOUCH_AGENT")
        .env("TMPDIR", dir)
        .stdin(Stdio::null());
    cmd
}

fn wait_for(secs: u64, what: &str, mut cond: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(secs);
    while !cond() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn launches(records: &[Value]) -> Vec<&Value> {
    records.iter().filter(|r| r["record"] == "launch").collect()
}

fn end(records: &[Value]) -> Option<&Value> {
    records.iter().find(|r| r["record"] == "end")
}

/// Files in `dir` itself whose names start with `prefix`.
fn files_starting(dir: &Path, prefix: &str) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(prefix))
        .map(|e| e.path())
        .collect()
}

#[test]
fn closed_stdout_and_stderr_neither_panic_nor_stop_the_run() {
    let _jvms = jvm_lock();
    let dir = tempfile::tempdir().unwrap();
    let matrix = write_matrix(
        dir.path(),
        &format!(
            "name: pipe\njdks: [{}]\ngcs: [g1]\nheaps: [64m]\nrepetitions: 2\nwarmup: 0\n",
            yaml_list(&jdks()[..1])
        ),
    );
    // `pretouch run 2>&1 | head -0`: both pipes closed before the first line.
    let mut child = runner(
        dir.path(),
        &[
            "--label",
            "k",
            "--results",
            "results",
            matrix.to_str().unwrap(),
        ],
    )
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    drop(child.stdout.take());
    drop(child.stderr.take());
    let status = child.wait().unwrap();
    assert_eq!(
        status.code(),
        Some(0),
        "a closed pipe changed the exit code"
    );
    let records = records(&dir.path().join("results"));
    assert_eq!(launches(&records).len(), 4);
    assert_eq!(
        end(&records).unwrap()["launches"],
        4,
        "the file was not finished"
    );
    assert_no_java_left();

    // `pretouch report | head`: the report meets the closed pipe too.
    let mut child = Command::new(env!("CARGO_BIN_EXE_pretouch"))
        .arg("report")
        .arg(dir.path().join("results"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    drop(child.stderr.take());
    assert_eq!(child.wait().unwrap().code(), Some(0));
}

#[test]
fn a_hang_up_neither_stops_the_run_nor_kills_its_jvm() {
    let _jvms = jvm_lock();
    let dir = tempfile::tempdir().unwrap();
    // The first launch pauses (HotSpot's PauseAtStartup) until its vm.paused.<pid> file
    // in the working folder is removed: the hang-up surely meets a running JVM.
    let matrix = write_matrix(
        dir.path(),
        &format!(
            "name: hup\njdks: [{}]\ngcs: [serial]\nheaps: [64m]\nrepetitions: 2\nwarmup: 0\n\
             variants:\n  - name: paused\n    jvm_args: [-XX:+UnlockDiagnosticVMOptions, -XX:+PauseAtStartup]\n",
            yaml_list(&jdks()[..1])
        ),
    );
    let stderr = dir.path().join("stderr");
    let mut child = runner(
        dir.path(),
        &[
            "--label",
            "k",
            "--results",
            "results",
            matrix.to_str().unwrap(),
        ],
    )
    .stdout(Stdio::null())
    .stderr(std::fs::File::create(&stderr).unwrap())
    // Its own process group, as a terminal's foreground job: the hang-up goes to the
    // runner and to its JVM, as the kernel sends it when the session's terminal goes.
    .process_group(0)
    .spawn()
    .unwrap();
    let pgid = child.id() as i32;
    for _ in 0..4 {
        let mut paused = Vec::new();
        wait_for(60, "a paused JVM", || {
            paused = files_starting(dir.path(), "vm.paused.");
            !paused.is_empty() || child.try_wait().unwrap().is_some()
        });
        if paused.is_empty() {
            break; // the runner ended
        }
        // SAFETY: kill(2) of the process group this test started, with a valid signal.
        assert_eq!(unsafe { libc::kill(-pgid, libc::SIGHUP) }, 0);
        std::thread::sleep(Duration::from_millis(200));
        for file in paused {
            let _ = std::fs::remove_file(file);
        }
    }
    let status = child.wait().unwrap();
    let text = std::fs::read_to_string(&stderr).unwrap();
    assert_eq!(status.code(), Some(0), "{status:?}\n{text}");
    assert!(
        !text.contains("ETA"),
        "a progress bar without a terminal:\n{text}"
    );
    let records = records(&dir.path().join("results"));
    let launches = launches(&records);
    assert_eq!(launches.len(), 4);
    for l in &launches {
        assert_eq!(l["failure"], Value::Null, "{l}");
    }
    assert_eq!(end(&records).unwrap()["failed"], 0);
    assert_no_java_left();
}

#[test]
fn a_crashing_cell_is_given_up_and_its_crash_files_are_kept_beside_the_results() {
    let _jvms = jvm_lock();
    let dir = tempfile::tempdir().unwrap();
    // `crash`: a system class loader that does not exist, and a fatal error on the
    // ClassNotFoundException this throws during startup: an hs_err file every launch.
    let matrix = write_matrix(
        dir.path(),
        &format!(
            "name: crash\njdks: [{}]\ngcs: [serial]\nheaps: [64m]\nrepetitions: 5\nwarmup: 0\n\
             variants:\n  - name: crash\n    jvm_args: [-XX:+UnlockDiagnosticVMOptions, \
             -XX:AbortVMOnException=java.lang.ClassNotFoundException, \
             -Djava.system.class.loader=NoSuchLoader]\n  - name: ok\n",
            yaml_list(&jdks())
        ),
    );
    let out = runner(
        dir.path(),
        &[
            "--label",
            "k",
            "--results",
            "results",
            "--give-up-after",
            "2",
            matrix.to_str().unwrap(),
        ],
    )
    .output()
    .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert_no_java_left();
    assert!(
        files_starting(dir.path(), "hs_err").is_empty(),
        "crash files landed in the working folder"
    );
    let results = dir.path().join("results");
    let records = records(&results);
    let file = &jsonl_files(&results)[0];
    let kept_dir = file.with_file_name(format!(
        "{}-crashes",
        file.file_stem().unwrap().to_string_lossy()
    ));
    for jdk in records[0]["jdks"].as_array().unwrap() {
        let version = &jdk["version"];
        let cell: Vec<&Value> = launches(&records)
            .into_iter()
            .filter(|l| l["jdk"] == *version && l["variant"] == "crash")
            .collect();
        assert_eq!(cell.len(), 10, "every planned launch is recorded");
        let (skipped, launched): (Vec<&Value>, Vec<&Value>) =
            cell.iter().partition(|l| l["skipped"] == true);
        // Two failures in a row of one setting give up; the settings alternate, so at
        // most 3 launches ran.
        assert!(
            (2..=3).contains(&launched.len()),
            "{version}: {} launched",
            launched.len()
        );
        assert_eq!(skipped.len(), 10 - launched.len());
        for l in &skipped {
            let why = l["failure"].as_str().unwrap();
            assert!(
                why.contains("gave up after 2 consecutive failed launches"),
                "{why}"
            );
            assert!(l["command"].as_array().unwrap().is_empty());
        }
        for l in &launched {
            let kept = l["crash_files"].as_array().expect("crash files named");
            assert!(!kept.is_empty());
            for path in kept {
                let path = Path::new(path.as_str().unwrap());
                assert!(
                    path.starts_with(dir.path().join(&kept_dir)),
                    "{}",
                    path.display()
                );
                let report = std::fs::read_to_string(path).unwrap();
                assert!(report.contains("Saw java.lang.ClassNotFoundException"));
            }
            // The failure names the kept report, not the scratch folder's copy.
            let why = l["failure"].as_str().unwrap();
            assert!(
                why.contains(&dir.path().join(&kept_dir).display().to_string()),
                "{why}"
            );
        }
        // The other cell of the same JDK measured every launch.
        let ok = launches(&records)
            .into_iter()
            .filter(|l| l["jdk"] == *version && l["variant"] == "ok")
            .filter(|l| l["failure"].is_null())
            .count();
        assert_eq!(ok, 10, "{version}");
    }
    assert!(stderr.contains("warning: giving up"), "{stderr}");
}

#[test]
fn an_interrupted_adaptive_run_resumes_where_it_stopped() {
    let _jvms = jvm_lock();
    let dir = tempfile::tempdir().unwrap();
    // ±0.01% is never met: 1 warm-up round, then 5 to 6 rounds, 14 launches in all.
    let matrix = write_matrix(
        dir.path(),
        &format!(
            "name: adaptive\njdks: [{}]\ngcs: [g1]\nheaps: [64m]\nwarmup: 1\n\
             repetitions: {{min: 5, max: 6, ci_pct: 0.01}}\n",
            yaml_list(&jdks()[..1])
        ),
    );
    let stderr = dir.path().join("stderr");
    let mut child = runner(
        dir.path(),
        &[
            "--label",
            "k",
            "--results",
            "results",
            matrix.to_str().unwrap(),
        ],
    )
    .stdout(Stdio::null())
    .stderr(std::fs::File::create(&stderr).unwrap())
    .spawn()
    .unwrap();
    let results = dir.path().join("results");
    let count = || launches(&records(&results)).len();
    wait_for(120, "4 launches", || count() >= 4);
    // SAFETY: kill(2) of our own child with a valid signal.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGINT) }, 0);
    assert_eq!(child.wait().unwrap().code(), Some(130));
    let before = count();
    assert!(before < 14, "the run ended before the signal: {before}");
    let file = &jsonl_files(&results)[0];
    let out = Command::new(env!("CARGO_BIN_EXE_pretouch"))
        .args(["run", "--agent"])
        .arg(agent())
        .arg("--resume")
        .arg(file)
        .current_dir(dir.path())
        .env("TMPDIR", dir.path())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{text}");
    let records = records(&results);
    let launches = launches(&records);
    let seqs: Vec<u64> = launches
        .iter()
        .map(|l| l["seq"].as_u64().unwrap())
        .collect();
    assert_eq!(
        seqs,
        (0..14).collect::<Vec<_>>(),
        "each launch once, in order"
    );
    let end = end(&records).expect("the resumed run ends");
    assert_eq!(end["launches"], 14);
    assert_eq!(end["stops"][0]["rounds"], 6);
    // An old matrix (max below the interval's 10 rounds) still runs, to max.
    assert_eq!(end["stops"][0]["reason"], "no_interval");
    assert_no_java_left();
}
