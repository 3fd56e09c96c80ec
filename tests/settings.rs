//! The `settings:` axis end to end: bad input refused before anything changes; each
//! launch records its setting as read back; the originals come back at the run's end,
//! on SIGINT, SIGTERM and (at the end, since a hang-up does not stop a run) SIGHUP, and
//! after a `kill -9` in the next `pretouch`, which says so; a journal others may write
//! is never replayed. These run against a fake tree (`PRETOUCH_KERNEL_ROOT`,
//! `PRETOUCH_STATE_DIR`) with real JVMs, so that they disturb no other test; one test
//! writes a real knob as root (khugepaged's `pages_to_scan`, which no test reads) and
//! restores it. A panic of the runner restores through the session's `Drop`
//! (`features::settings::launch` unit test `a_panic_restores_through_drop`).

mod common;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::*;

const ENABLED: &str = "sys/kernel/mm/transparent_hugepage/enabled";
const SIZE_64K: &str = "sys/kernel/mm/transparent_hugepage/hugepages-64kB/enabled";

/// A fake kernel tree in `dir/kernel` with THP's files as this kernel shows them.
fn tree(dir: &Path) -> PathBuf {
    let root = dir.join("kernel");
    for (file, text) in [
        (ENABLED, "always [madvise] never\n"),
        (SIZE_64K, "always inherit madvise [never]\n"),
        (
            "sys/kernel/mm/transparent_hugepage/hugepages-16kB/enabled",
            "always inherit madvise [never]\n",
        ),
        ("proc/sys/vm/overcommit_memory", "0\n"),
    ] {
        let path = root.join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    root
}

fn held(root: &Path, file: &str) -> String {
    let text = std::fs::read_to_string(root.join(file)).unwrap();
    match (text.find('['), text.find(']')) {
        (Some(a), Some(b)) => text[a + 1..b].to_owned(),
        _ => text.trim().to_owned(),
    }
}

fn matrix(dir: &Path, repetitions: u32, settings: &str) -> PathBuf {
    write_matrix(
        dir,
        &format!(
            "name: s\njdks: [{}]\ngcs: [g1]\nheaps: [64m]\nrepetitions: {repetitions}\nsettings:\n{settings}",
            yaml_list(&jdks()[..1])
        ),
    )
}

const TWO: &str = "  - name: mthp-64k\n    sysfs: {transparent_hugepage/hugepages-64kB/enabled: always}\n  - name: thp\n    sysfs: {transparent_hugepage/enabled: always}\n    sysctl: {vm.overcommit_memory: 1}\n";

fn pretouch_in(dir: &Path) -> assert_cmd::Command {
    let mut cmd = pretouch();
    cmd.env("PRETOUCH_KERNEL_ROOT", dir.join("kernel"))
        .env("PRETOUCH_STATE_DIR", dir.join("state"));
    cmd
}

fn spawn(dir: &Path, matrix: &Path) -> Child {
    Command::new(env!("CARGO_BIN_EXE_pretouch"))
        .args(["run", "--label", "s", "--results"])
        .arg(dir.join("results"))
        .arg(matrix)
        .env_remove("PRETOUCH_AGENT")
        .env("PRETOUCH_KERNEL_ROOT", dir.join("kernel"))
        .env("PRETOUCH_STATE_DIR", dir.join("state"))
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(dir.join("stdout")).unwrap())
        .stderr(std::fs::File::create(dir.join("stderr")).unwrap())
        .spawn()
        .unwrap()
}

/// Waits until the run's file holds `n` launch records.
fn wait_for_launches(dir: &Path, n: usize) {
    let deadline = Instant::now() + Duration::from_secs(180);
    loop {
        assert!(
            Instant::now() < deadline,
            "timed out waiting for {n} launches"
        );
        if jsonl_files(&dir.join("results"))
            .first()
            .is_some_and(|f| lines_of(f, "launch") >= n)
        {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn stderr_of(dir: &Path) -> String {
    std::fs::read_to_string(dir.join("stderr")).unwrap()
}

fn signal(child: &Child, signal: i32) {
    // SAFETY: kill(2) of our own child with a valid signal number.
    assert_eq!(unsafe { libc::kill(child.id() as i32, signal) }, 0);
}

fn assert_originals(root: &Path) {
    assert_eq!(held(root, ENABLED), "madvise");
    assert_eq!(held(root, SIZE_64K), "never");
    assert_eq!(held(root, "proc/sys/vm/overcommit_memory"), "0");
}

#[test]
fn bad_settings_are_refused_before_anything_changes() {
    let dir = tempfile::tempdir().unwrap();
    let root = tree(dir.path());
    for (settings, says) in [
        (
            "  - name: big\n    sysfs: {transparent_hugepage/hugepages-4096kB/enabled: always}\n",
            vec![
                "no hugepages-4096kB",
                "hugepages-16kB, hugepages-64kB",
                "line 8",
            ],
        ),
        (
            "  - name: odd\n    sysfs: {transparent_hugepage/enabled: sometimes}\n",
            vec![
                "does not take `sometimes`",
                "always, madvise, never",
                "line 8",
            ],
        ),
        (
            "  - name: odd\n    sysctl: {vm.overcommit_memory: lots}\n",
            vec!["is not one", "write a number"],
        ),
        (
            "  - name: odd\n    sysctl: {vm.no_such_knob: 1}\n",
            vec!["this kernel has no vm.no_such_knob"],
        ),
        (
            "  - name: odd\n    sysfs: {kernel/mm/../../../etc/passwd: x}\n",
            vec!["not a knob a setting may write", "fix:"],
        ),
    ] {
        let m = matrix(dir.path(), 1, settings);
        let out = pretouch_in(dir.path()).arg("run").arg(&m).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        for s in says {
            assert!(stderr.contains(s), "missing {s:?}: {stderr}");
        }
        assert_originals(&root);
        assert!(
            !dir.path().join("state").exists(),
            "nothing journalled: {stderr}"
        );
    }
}

#[test]
fn refused_without_root_naming_why() {
    if !is_root() {
        skipped(
            "refused_without_root_naming_why",
            "root",
            "the test drops to another user with setpriv",
        );
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let m = matrix(
        dir.path(),
        1,
        "  - name: thp\n    sysfs: {transparent_hugepage/enabled: always}\n",
    );
    let m = {
        // A copy the other user can read.
        let open = tempfile::Builder::new()
            .prefix("pretouch-m")
            .tempdir_in("/tmp")
            .unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(open.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        let copy = open.path().join("m.yaml");
        std::fs::copy(&m, &copy).unwrap();
        (open, copy)
    };
    let out = Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"])
        .arg(env!("CARGO_BIN_EXE_pretouch"))
        .arg("run")
        .arg(&m.1)
        .env("HOME", "/tmp")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("needs root") && stderr.contains("uid 65534") && stderr.contains("fix:"),
        "{stderr}"
    );
}

#[test]
fn each_launch_records_its_setting_as_read_back_and_the_run_restores_at_its_end() {
    let _jvm = jvm_lock();
    let dir = tempfile::tempdir().unwrap();
    let root = tree(dir.path());
    let m = matrix(dir.path(), 2, TWO);
    let out = pretouch_in(dir.path())
        .args(["run", "--label", "s", "--results"])
        .arg(dir.path().join("results"))
        .arg(&m)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_originals(&root);
    assert!(!dir.path().join("state/kernel-settings.json").exists());
    assert!(stderr.contains("restored"), "{stderr}");
    let launches: Vec<serde_json::Value> = records(&dir.path().join("results"))
        .into_iter()
        .filter(|r| r["record"] == "launch")
        .collect();
    assert_eq!(launches.len(), 2 * 2 * 2);
    for l in &launches {
        let name = l["setting"].as_str().unwrap();
        let values = &l["settings"]["values"];
        assert_eq!(l["settings"]["name"], name);
        let (enabled, size, overcommit) = match name {
            "thp" => ("always", "never", "1"),
            "mthp-64k" => ("madvise", "always", "0"),
            other => panic!("setting {other}"),
        };
        assert_eq!(values["transparent_hugepage/enabled"], enabled, "{l}");
        assert_eq!(values["transparent_hugepage/hugepages-64kB/enabled"], size);
        assert_eq!(values["vm.overcommit_memory"], overcommit);
    }
    // Rounds interleave the settings: each round has both.
    for round in 0..2 {
        let names: std::collections::BTreeSet<&str> = launches
            .iter()
            .filter(|l| l["round"] == round)
            .map(|l| l["setting"].as_str().unwrap())
            .collect();
        assert_eq!(names.len(), 2, "round {round}");
    }
    // The report keeps the settings' cells apart: side by side by default, a column
    // each, and a row each with --details.
    let report = pretouch_in(dir.path())
        .arg("report")
        .arg(dir.path().join("results"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&report.stdout);
    let header = text
        .lines()
        .find(|l| l.starts_with("gc "))
        .unwrap_or_default();
    assert!(
        header.contains("mthp-64k") && header.contains("thp"),
        "{text}"
    );
    let details = pretouch_in(dir.path())
        .args(["report", "--details"])
        .arg(dir.path().join("results"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&details.stdout);
    assert!(
        text.contains("setting=thp") && text.contains("setting=mthp-64k"),
        "{text}"
    );
    // The expected faults follow each setting's modes as read back, not the machine's
    // at the run's start: under mthp-64k (64 KiB at `always`) a fault maps 64 KiB or more.
    let json = pretouch_in(dir.path())
        .args(["report", "--format", "json"])
        .arg(dir.path().join("results"))
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let cell = |name: &str| {
        report["cells"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["setting"] == name)
            .unwrap_or_else(|| panic!("no cell of setting {name}: {report}"))
            .clone()
    };
    let mthp = cell("mthp-64k");
    let folio = mthp["expected_folio_bytes"].as_u64().unwrap();
    assert!(folio >= 64 << 10, "{mthp}");
    assert_eq!(
        mthp["expected_faults"],
        (64u64 << 20).div_ceil(folio),
        "{mthp}"
    );
}

/// A run stopped by `signal` after its first launch has the originals back at once.
fn stopped_by(sig: i32) {
    let _jvm = jvm_lock();
    let dir = tempfile::tempdir().unwrap();
    let root = tree(dir.path());
    let m = matrix(
        dir.path(),
        30,
        "  - name: thp\n    sysfs: {transparent_hugepage/enabled: always}\n",
    );
    let mut child = spawn(dir.path(), &m);
    wait_for_launches(dir.path(), 1);
    assert_eq!(held(&root, ENABLED), "always");
    assert!(dir.path().join("state/kernel-settings.json").exists());
    signal(&child, sig);
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(128 + sig), "{}", stderr_of(dir.path()));
    assert_originals(&root);
    assert!(!dir.path().join("state/kernel-settings.json").exists());
    assert!(stderr_of(dir.path()).contains("kernel settings restored"));
}

#[test]
fn sigint_restores() {
    stopped_by(libc::SIGINT);
}

#[test]
fn sigterm_restores() {
    stopped_by(libc::SIGTERM);
}

#[test]
fn sighup_leaves_the_run_going_and_it_restores_at_its_end() {
    let _jvm = jvm_lock();
    let dir = tempfile::tempdir().unwrap();
    let root = tree(dir.path());
    let m = matrix(
        dir.path(),
        3,
        "  - name: thp\n    sysfs: {transparent_hugepage/enabled: always}\n",
    );
    let mut child = spawn(dir.path(), &m);
    wait_for_launches(dir.path(), 1);
    signal(&child, libc::SIGHUP);
    let status = child.wait().unwrap();
    assert!(status.success(), "{}", stderr_of(dir.path()));
    assert_eq!(
        lines_of(&jsonl_files(&dir.path().join("results"))[0], "launch"),
        6
    );
    assert_originals(&root);
    assert!(!dir.path().join("state/kernel-settings.json").exists());
}

#[test]
fn after_kill_9_the_next_pretouch_restores_and_says_so_and_refuses_a_loose_journal() {
    let _jvm = jvm_lock();
    let dir = tempfile::tempdir().unwrap();
    let root = tree(dir.path());
    let m = matrix(
        dir.path(),
        30,
        "  - name: thp\n    sysfs: {transparent_hugepage/enabled: always}\n",
    );
    let kill_9 = || {
        let mut child = spawn(dir.path(), &m);
        wait_for_launches(dir.path(), 1);
        signal(&child, libc::SIGKILL);
        child.wait().unwrap();
        let _ = std::fs::remove_dir_all(dir.path().join("results"));
        assert_eq!(held(&root, ENABLED), "always", "left changed by the kill");
        assert!(dir.path().join("state/kernel-settings.json").exists());
    };
    kill_9();
    // `pretouch env`, any command, replays it first and says what it restored.
    let out = pretouch_in(dir.path()).args(["env"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("restored the kernel settings")
            && stderr.contains("transparent_hugepage/enabled: always -> madvise"),
        "{stderr}"
    );
    assert_originals(&root);
    assert!(!dir.path().join("state/kernel-settings.json").exists());
    assert!(String::from_utf8_lossy(&out.stdout).contains("kernel settings journal: none"));

    // A journal others may write is shown by `pretouch env` and never replayed.
    kill_9();
    use std::os::unix::fs::PermissionsExt;
    let journal = dir.path().join("state/kernel-settings.json");
    std::fs::set_permissions(&journal, std::fs::Permissions::from_mode(0o646)).unwrap();
    let out = pretouch_in(dir.path()).args(["env"]).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("kernel settings journal") && stdout.contains("NOT replayed"),
        "{stdout}"
    );
    assert_eq!(held(&root, ENABLED), "always");
    // And a run refuses to start over it, changing nothing.
    let out = pretouch_in(dir.path()).arg("run").arg(&m).output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("was not replayed"));
    assert_eq!(held(&root, ENABLED), "always");
}

#[test]
fn a_real_knob_is_written_read_back_and_restored() {
    if !is_root() {
        skipped(
            "a_real_knob_is_written_read_back_and_restored",
            "root",
            "writing /sys/kernel/mm/transparent_hugepage/khugepaged/pages_to_scan",
        );
        return;
    }
    let knob = Path::new("/sys/kernel/mm/transparent_hugepage/khugepaged/pages_to_scan");
    if !knob.exists() {
        skipped(
            "a_real_knob_is_written_read_back_and_restored",
            "THP with khugepaged",
            "this kernel has no khugepaged/pages_to_scan",
        );
        return;
    }
    /// Writes the original back whatever the test did.
    struct Restore(String);
    impl Drop for Restore {
        fn drop(&mut self) {
            let _ = std::fs::write(
                "/sys/kernel/mm/transparent_hugepage/khugepaged/pages_to_scan",
                &self.0,
            );
        }
    }
    let original = std::fs::read_to_string(knob).unwrap().trim().to_owned();
    let _restore = Restore(original.clone());
    let other = (original.parse::<u64>().unwrap().max(16) - 8).to_string();
    let _jvm = jvm_lock();
    let dir = tempfile::tempdir().unwrap();
    let m = matrix(
        dir.path(),
        1,
        &format!(
            "  - name: fewer\n    sysfs: {{transparent_hugepage/khugepaged/pages_to_scan: {other}}}\n"
        ),
    );
    let out = pretouch()
        .args(["run", "--label", "s", "--results"])
        .arg(dir.path().join("results"))
        .arg(&m)
        .env("PRETOUCH_STATE_DIR", dir.path().join("state"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(std::fs::read_to_string(knob).unwrap().trim(), original);
    for l in records(&dir.path().join("results"))
        .into_iter()
        .filter(|r| r["record"] == "launch")
    {
        assert_eq!(
            l["settings"]["values"]["transparent_hugepage/khugepaged/pages_to_scan"],
            other.as_str()
        );
    }
    assert!(
        stderr.contains(&format!("pages_to_scan: {other} -> {original}")),
        "{stderr}"
    );
}
