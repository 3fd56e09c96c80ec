//! The `memory:` axis end to end, as root with real JVMs: each launch of a limited cell
//! runs in a memory cgroup of its own, made with the limit (read back), recorded (peak
//! charge, events) and removed; a pretouched heap above the limit is killed by the
//! cgroup's OOM killer and recorded as a failed launch with that cause, while the same
//! cell without pretouch (the heap untouched) reaches `main()`. Bad input is refused
//! before any JVM starts.

mod common;

use std::path::Path;

use common::*;

/// Where the memory controller is: (cgroup v1, cgroup v2).
fn controllers() -> (bool, bool) {
    let v2 = std::fs::read_to_string("/sys/fs/cgroup/cgroup.controllers")
        .is_ok_and(|c| c.split_whitespace().any(|c| c == "memory"));
    let v1 = std::fs::read_to_string("/proc/self/mountinfo").is_ok_and(|m| {
        m.lines()
            .any(|l| l.contains(" - cgroup ") && l.split(',').any(|o| o.trim() == "memory"))
    });
    (v1, v2)
}

/// Whether this machine can run the test: root, and a memory controller.
fn can_limit(test: &str) -> bool {
    if !is_root() {
        skipped(
            test,
            "root",
            "the launches' memory cgroups are made as root",
        );
        return false;
    }
    let (v1, v2) = controllers();
    if !(v1 || v2) {
        skipped(
            test,
            "a memory cgroup controller",
            "this kernel mounts none",
        );
        return false;
    }
    true
}

fn matrix(dir: &Path, memory: &str) -> std::path::PathBuf {
    write_matrix(
        dir,
        &format!(
            "name: m\njdks: [{}]\ngcs: [parallel]\nheaps: [128m]\nrepetitions: 2\nmemory: {memory}\n",
            yaml_list(&jdks()[..1])
        ),
    )
}

/// The `pretouch-<pid>-<n>` cgroups left anywhere under the memory controller's mounts.
fn leftover_cgroups() -> Vec<String> {
    let mut left = Vec::new();
    let mut stack: Vec<std::path::PathBuf> = ["/sys/fs/cgroup/memory", "/sys/fs/cgroup"]
        .iter()
        .map(Into::into)
        .collect();
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let path = e.path();
            if !path.is_dir() || path.is_symlink() {
                continue;
            }
            let name = e.file_name().to_string_lossy().into_owned();
            if name.starts_with("pretouch-") {
                left.push(path.display().to_string());
            } else if dir != Path::new("/sys/fs/cgroup") || name == "unified" {
                stack.push(path);
            }
        }
    }
    left
}

#[test]
fn a_limited_cell_runs_in_its_own_cgroup_and_a_heap_above_the_limit_is_oom_killed() {
    let test = "a_limited_cell_runs_in_its_own_cgroup_and_a_heap_above_the_limit_is_oom_killed";
    if !can_limit(test) {
        return;
    }
    let _jvm = jvm_lock();
    let dir = tempfile::tempdir().unwrap();
    let m = matrix(
        dir.path(),
        "[{name: roomy, max: 512m}, {name: tight, max: 100m}]",
    );
    let out = run_labelled("m", dir.path().join("results"))
        .args(["--give-up-after", "0"])
        .arg(&m)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("memory=tight: the limit") && stderr.contains("OOM killer"),
        "the run warns of the limit below the heap before it starts: {stderr}"
    );
    let records = records(&dir.path().join("results"));
    let launches: Vec<&serde_json::Value> = records
        .iter()
        .filter(|r| r["record"] == "launch" && r["warmup"] == false)
        .collect();
    assert_eq!(
        launches.len(),
        8,
        "2 cells x 2 rounds x with/without: {stderr}"
    );
    let heap = 128u64 << 20;
    for l in &launches {
        let name = l["memory"].as_str().unwrap();
        let cgroup = &l["cgroup"];
        let max = cgroup["max"].as_u64().unwrap();
        let wanted: u64 = if name == "roomy" {
            512 << 20
        } else {
            100 << 20
        };
        assert_eq!(max, wanted, "the limit as read back: {l}");
        let path = cgroup["path"].as_str().unwrap();
        assert!(path.contains("/pretouch-"), "{path}");
        assert!(!Path::new(path).exists(), "{path} was not removed");
        let peak = cgroup["peak"].as_u64().unwrap();
        let pretouch = l["pretouch"] == true;
        match (name, pretouch) {
            ("roomy", true) => {
                assert!(l["failure"].is_null(), "{l}");
                assert!(
                    peak >= heap,
                    "a pretouched 128m heap is charged in full: {peak}"
                );
                assert_eq!(cgroup["events"]["oom_kill"], 0, "{l}");
            }
            ("roomy", false) | ("tight", false) => {
                assert!(l["failure"].is_null(), "untouched, the heap fits: {l}");
                assert!(
                    peak < heap,
                    "without pretouch the heap is not charged: {peak}"
                );
            }
            ("tight", true) => {
                let failure = l["failure"].as_str().unwrap();
                assert!(
                    failure.contains("memory cgroup's OOM killer")
                        && failure.contains("oom_kill 1"),
                    "{failure}"
                );
                assert_eq!(l["signal"], 9, "{l}");
                assert!(
                    peak <= max && peak > max / 2,
                    "charged up to the limit: {peak}"
                );
                assert!(cgroup["events"]["max"].as_u64().unwrap() > 0, "{l}");
            }
            _ => panic!("unexpected cell {name}"),
        }
    }
    // The failed launches' cause is a detail; the default report names the option.
    let report = pretouch()
        .args(["report", "--details"])
        .arg(dir.path().join("results"))
        .output()
        .unwrap();
    let text = unwrapped(&report.stdout);
    assert!(
        text.contains("memory=roomy") && text.contains("memory=tight"),
        "{text}"
    );
    assert!(
        text.contains("memory cgroup's OOM killer"),
        "the cause is reported: {text}"
    );
    // The CSV has the cgroups as flat columns, for every row.
    let csv = pretouch()
        .args(["report", "--format", "csv"])
        .arg(dir.path().join("results"))
        .output()
        .unwrap();
    assert!(
        csv.status.success(),
        "{}",
        String::from_utf8_lossy(&csv.stderr)
    );
    let rows = csv_rows(&String::from_utf8_lossy(&csv.stdout));
    assert_eq!(rows.len(), 2, "a row a cell");
    for row in &rows {
        let wanted = if row["memory"] == "roomy" {
            512u64 << 20
        } else {
            100 << 20
        };
        assert_eq!(row["cgroup_max_bytes"], wanted.to_string(), "{row:?}");
    }
    assert!(leftover_cgroups().is_empty(), "{:?}", leftover_cgroups());
    assert_no_java_left();
}

#[test]
fn bad_memory_input_is_refused_before_any_jvm_starts() {
    let dir = tempfile::tempdir().unwrap();
    for (memory, says) in [
        ("[1.5g]", "invalid size \"1.5g\""),
        ("[{max: 1g, high: 2g}]", "above max"),
        ("[512m, {name: 512m, max: 1g}]", "listed twice"),
        ("[{max: 1g, swap: 0}]", "unknown field `swap`"),
    ] {
        let m = matrix(dir.path(), memory);
        let out = run_labelled("m", dir.path().join("results"))
            .arg(&m)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{memory}: {stderr}");
        assert!(
            stderr.contains(says) && stderr.contains("line 6") && stderr.contains("fix"),
            "{memory}: {stderr}"
        );
        assert!(
            !dir.path().join("results").exists(),
            "{memory}: nothing ran"
        );
    }
    if controllers() == (true, false) {
        // cgroup v1's memory controller: no memory.high.
        let m = matrix(dir.path(), "[{max: 1g, high: 900m}]");
        let out = run_labelled("m", dir.path().join("results"))
            .arg(&m)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(
            stderr.contains("no memory.high") && stderr.contains("line 6"),
            "{stderr}"
        );
    }
}
