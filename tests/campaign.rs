//! The campaign across reboots (`pretouch run --boot`), its reboots faked: the campaign
//! is installed under a test root with the fake boot loader, which writes each boot it
//! is asked for into `ROOT/fake-boot.jsonl`. The harness "reboots" by starting the
//! installed unit's command again (its ExecStart, under the root) with another kernel
//! release, boot id and command line in the variables the campaign reads instead of
//! `uname -r`, /proc/sys/kernel/random/boot_id and /proc/cmdline. Covered: a power cut
//! (kill -9 of the whole process group) in every step, a wrong kernel, a kernel that
//! never returns (the default kernel comes up), a cut after the boot request, `stop`
//! in the middle; the campaign ends with every planned run present exactly once, the
//! report beside the results equal to `pretouch report` of the folder, and nothing
//! installed left. The unit is checked with `systemd-analyze verify --root`. Real JVMs,
//! 64m heaps.

mod common;

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::{first_jdk_matrix, jsonl_files, lines_of, pretouch};

const UNIT: &str = "etc/systemd/system/pretouch-campaign.service";
const WANTS: &str = "etc/systemd/system/multi-user.target.wants/pretouch-campaign.service";
const DIR: &str = "var/lib/pretouch-campaign";

/// A file with the header of an x86 bzImage naming `release`, as `image_release` reads
/// it (the boot protocol's `HdrS` and kernel_version offset).
fn fake_image(dir: &Path, release: &str) -> PathBuf {
    let mut bytes = vec![0u8; 0x400];
    bytes[0x202..0x206].copy_from_slice(b"HdrS");
    bytes[0x20e..0x210].copy_from_slice(&0x100u16.to_le_bytes());
    let text = format!("{release} (builder@host) #1 SMP");
    bytes[0x300..0x300 + text.len()].copy_from_slice(text.as_bytes());
    let path = dir.join(format!("vmlinuz-{release}"));
    std::fs::write(&path, bytes).unwrap();
    path
}

/// The machine the harness plays: its kernel and boot.
#[derive(Clone, Debug)]
struct Machine {
    release: String,
    boot_id: String,
    cmdline: String,
}

impl Machine {
    fn default_kernel(n: u32) -> Machine {
        Machine {
            release: "6.1.0-default".into(),
            boot_id: format!("boot-{n}"),
            cmdline: "BOOT_IMAGE=/boot/vmlinuz-6.1.0-default root=/dev/vda ro quiet".into(),
        }
    }
}

struct Harness {
    root: PathBuf,
    results: PathBuf,
    boots: u32,
}

impl Harness {
    fn new(root: &Path) -> Harness {
        Harness {
            root: root.to_owned(),
            results: root.join("results"),
            boots: 0,
        }
    }

    fn log(&self) -> Vec<serde_json::Value> {
        std::fs::read_to_string(self.root.join("fake-boot.jsonl"))
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    /// The kernel the last boot request asks for, booted as asked.
    fn asked(&mut self) -> Machine {
        let last = self
            .log()
            .into_iter()
            .rev()
            .find(|l| l["action"] == "boot")
            .expect("a boot was asked for");
        self.boots += 1;
        Machine {
            release: last["target"]["release"].as_str().unwrap().into(),
            boot_id: format!("boot-{}", self.boots),
            cmdline: last["cmdline"].as_str().unwrap().into(),
        }
    }

    fn default_kernel(&mut self) -> Machine {
        self.boots += 1;
        Machine::default_kernel(self.boots)
    }

    /// The installed unit's command, under the root.
    fn unit_command(&self, machine: &Machine) -> Command {
        let unit = std::fs::read_to_string(self.root.join(UNIT)).expect("the unit is installed");
        let exec = unit
            .lines()
            .find_map(|l| l.strip_prefix("ExecStart="))
            .unwrap();
        let mut words = exec.split_whitespace();
        let program = words.next().unwrap();
        let mut cmd = Command::new(self.root.join(program.trim_start_matches('/')));
        cmd.args(words)
            .arg("--campaign-root")
            .arg(&self.root)
            .env("PRETOUCH_CAMPAIGN_RELEASE", &machine.release)
            .env("PRETOUCH_CAMPAIGN_BOOT_ID", &machine.boot_id)
            .env("PRETOUCH_CAMPAIGN_CMDLINE", &machine.cmdline)
            .env_remove("PRETOUCH_AGENT")
            .stdin(Stdio::null())
            .process_group(0);
        cmd
    }

    /// A boot: the unit's command to its end.
    fn boot(&self, machine: &Machine) -> std::process::Output {
        let out = self.unit_command(machine).output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        out
    }

    /// A boot whose power is cut (kill -9 of the whole group) once the result files
    /// under `label` hold `launches` more launch records than before.
    fn boot_and_cut(&self, machine: &Machine, label: &str, launches: usize) {
        let before = launch_count(&self.results, label);
        let mut child: Child = self
            .unit_command(machine)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(300);
        while launch_count(&self.results, label) < before + launches {
            assert!(Instant::now() < deadline, "no launch of {label} recorded");
            assert!(
                child.try_wait().unwrap().is_none(),
                "the step ended before the cut"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        // SAFETY: kill(2) of the child's own process group.
        let rc = unsafe { libc::kill(-(child.id() as i32), libc::SIGKILL) };
        assert_eq!(rc, 0);
        child.wait().unwrap();
        // The JVMs of the group died with it.
        std::thread::sleep(Duration::from_millis(200));
    }

    /// `pretouch campaign stop`, which must succeed.
    fn stop(&self) {
        let out = pretouch()
            .args(["campaign", "stop", "--campaign-root"])
            .arg(&self.root)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    fn state(&self) -> serde_json::Value {
        serde_json::from_str(
            &std::fs::read_to_string(self.root.join(DIR).join("campaign.json")).unwrap(),
        )
        .unwrap()
    }

    fn status(&self) -> String {
        let out = pretouch()
            .args(["campaign", "status", "--campaign-root"])
            .arg(&self.root)
            .output()
            .unwrap();
        assert!(out.status.success());
        String::from_utf8_lossy(&out.stdout).into_owned()
    }
}

fn launch_count(results: &Path, label: &str) -> usize {
    jsonl_files(results)
        .iter()
        .filter(|f| f.parent().unwrap().file_name().unwrap() == label)
        .map(|f| lines_of(f, "launch"))
        .sum()
}

/// The campaign's own folder (the newest `campaign-*` under `results`).
fn campaign_results(results: &Path) -> PathBuf {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(results)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_str()
                .unwrap()
                .starts_with("campaign-")
        })
        .collect();
    dirs.sort();
    dirs.pop().expect("the campaign's results folder")
}

/// `pretouch run MATRIX --kernel A --kernel B --runs 2 --boot fake --yes`, started on
/// the default kernel, from `binary`.
fn start(h: &Harness, binary: &Path, matrix: &Path, images: &[&Path]) -> std::process::Output {
    let m = Machine::default_kernel(0);
    let mut cmd = Command::new(binary);
    cmd.arg("run").arg(matrix);
    for image in images {
        cmd.arg("--kernel").arg(image);
    }
    cmd.args(["--runs", "2", "--boot", "fake", "--yes", "--campaign-root"])
        .arg(&h.root)
        .arg("--results")
        .arg(&h.results)
        .env("PRETOUCH_CAMPAIGN_RELEASE", &m.release)
        .env("PRETOUCH_CAMPAIGN_BOOT_ID", &m.boot_id)
        .env("PRETOUCH_CAMPAIGN_CMDLINE", &m.cmdline)
        .env_remove("PRETOUCH_AGENT")
        .stdin(Stdio::null());
    cmd.output().unwrap()
}

/// `dir/open`: a folder anyone can write.
fn open_folder(dir: &Path) -> PathBuf {
    let open = dir.join("open");
    std::fs::create_dir(&open).unwrap();
    std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o777)).unwrap();
    open
}

/// The state a finished or stopped campaign kept beside its `results`.
fn kept_state(results: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(results.join("campaign.json")).unwrap()).unwrap()
}

fn setup(dir: &Path) -> (Harness, PathBuf, PathBuf, PathBuf) {
    let root = dir.join("root");
    std::fs::create_dir(&root).unwrap();
    let boot = dir.join("boot");
    std::fs::create_dir(&boot).unwrap();
    let base = fake_image(&boot, "6.1.0-base");
    let patch = fake_image(&boot, "6.1.0-patch");
    let matrix = first_jdk_matrix(dir, "serial", "64m", 2);
    (Harness::new(&root), matrix, base, patch)
}

fn is_root() -> bool {
    common::is_root()
}

#[test]
fn a_campaign_survives_cuts_wrong_kernels_and_hangs_and_runs_every_planned_run_once() {
    if !is_root() {
        common::skipped("campaign", "root", "a campaign runs as root");
        return;
    }
    let _jvm = common::jvm_lock();
    let dir = tempfile::tempdir().unwrap();
    let (mut h, matrix, base, patch) = setup(dir.path());
    let exe = PathBuf::from(env!("CARGO_BIN_EXE_pretouch"));
    let out = start(&h, &exe, &matrix, &[&base, &patch]);
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{said}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The plan: four boots in turn, and an estimate.
    assert!(
        said.contains("2 kernel(s) x 2 run(s), in turn, by fake: 4 boots"),
        "{said}"
    );
    for (step, label) in [
        (1, "6.1.0-base"),
        (2, "6.1.0-patch"),
        (3, "6.1.0-base"),
        (4, "6.1.0-patch"),
    ] {
        assert!(said.contains(&format!("step  {step}: {label}")), "{said}");
    }
    assert!(said.contains("estimated duration: "), "{said}");
    // Installed: the unit, enabled, and root's 0700 folder with root's copy.
    assert!(h.root.join(UNIT).is_file());
    assert!(
        std::fs::symlink_metadata(h.root.join(WANTS))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    let meta = std::fs::metadata(h.root.join(DIR)).unwrap();
    assert_eq!((meta.uid(), meta.mode() & 0o777), (0, 0o700));
    assert_eq!(
        std::fs::read(h.root.join(DIR).join("pretouch")).unwrap(),
        std::fs::read(&exe).unwrap()
    );
    verify_unit(&h.root);
    let results = campaign_results(&h.results);

    // Step 1 (base): the power goes mid-run; the default kernel comes up.
    let m = h.asked();
    assert_eq!(m.release, "6.1.0-base");
    assert!(
        m.cmdline.contains("pretouch.campaign=s1b1"),
        "{}",
        m.cmdline
    );
    // The default kernel's `BOOT_IMAGE` is dropped; the kexec line names the target's own
    // image (so the kernel that comes up names what it booted, as GRUB's boots do).
    assert!(m.cmdline.contains("panic=30"), "{}", m.cmdline);
    assert!(
        !m.cmdline.contains("BOOT_IMAGE=/boot/vmlinuz-6.1.0-default")
            && m.cmdline.contains("BOOT_IMAGE=")
            && m.cmdline.contains("vmlinuz-6.1.0-base"),
        "{}",
        m.cmdline
    );
    h.boot_and_cut(&m, "6.1.0-base", 1);
    assert!(
        h.status().contains("step 1 of 4 (6.1.0-base), running"),
        "{}",
        h.status()
    );
    let m = h.default_kernel();
    h.boot(&m);
    let state = h.state();
    assert_eq!(state["session"]["kernels"][0]["status"], "interrupted");
    assert!(
        state["failed_boots"].as_array().unwrap().is_empty(),
        "a cut run is no failed boot"
    );
    // Booted again, and its run resumed to its end.
    let m = h.asked();
    assert_eq!(m.release, "6.1.0-base");
    assert!(m.cmdline.contains("pretouch.campaign=s1b2"));
    let out = h.boot(&m);
    assert!(String::from_utf8_lossy(&out.stderr).contains(", resuming:"));

    // Step 2 (patch): the wrong kernel comes up.
    let mut m = h.asked();
    assert_eq!(m.release, "6.1.0-patch");
    m.release = "6.1.0-other".into();
    let out = h.boot(&m);
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("FAILED BOOT: expected 6.1.0-patch, found 6.1.0-other")
    );

    // Step 3 (base): the campaign's process is killed mid-run in a boot that goes on,
    // and started again in the same boot: the run resumes there.
    let m = h.asked();
    assert_eq!(m.release, "6.1.0-base");
    h.boot_and_cut(&m, "6.1.0-base", 1);
    let before = h.log().len();
    h.boot(&m);
    // Then the campaign is started again in the same boot, as after a cut between its
    // boot request and the machine going down: it asks for the same boot again.
    let asked: Vec<serde_json::Value> = h.log()[before..].to_vec();
    assert_eq!(asked.len(), 1);
    h.boot(&m);
    let again = h.log();
    assert_eq!(again.len(), before + 2);
    assert_eq!(
        again[before]["cmdline"],
        again[before + 1]["cmdline"],
        "the same boot, asked again"
    );

    // Step 4 (patch): the kernel never returns; the watchdog's reset brings up the
    // default kernel.
    let m = h.asked();
    assert_eq!(m.release, "6.1.0-patch");
    assert!(m.cmdline.contains("pretouch.campaign=s4b1"));
    let m = h.default_kernel();
    let out = h.boot(&m);
    assert!(String::from_utf8_lossy(&out.stderr).contains("the default kernel came up"));
    let status = h.status();
    assert!(
        status.contains("6.1.0-patch              0 of 2 runs done, 2 failed boot(s)"),
        "{status}"
    );
    assert!(
        status.contains("6.1.0-base               2 of 2 runs done"),
        "{status}"
    );
    assert!(status.contains("time left: about"), "{status}");

    // The failed boots are tried again at the end, in order: step 2, then step 4.
    for step in [2, 4] {
        let m = h.asked();
        assert_eq!(m.release, "6.1.0-patch");
        assert!(
            m.cmdline.contains(&format!("pretouch.campaign=s{step}b2")),
            "{}",
            m.cmdline
        );
        h.boot(&m);
    }

    // The end: the default boot restored and booted, nothing installed left.
    let log = h.log();
    let actions: Vec<&str> = log
        .iter()
        .rev()
        .take(2)
        .map(|l| l["action"].as_str().unwrap())
        .collect();
    assert_eq!(actions, ["default", "restore"]);
    assert!(!h.root.join(UNIT).exists() && !h.root.join(WANTS).exists());
    assert!(!h.root.join(DIR).exists());
    // Every planned run exactly once: two finished files a label, each launch once.
    for label in ["6.1.0-base", "6.1.0-patch"] {
        let files: Vec<PathBuf> = jsonl_files(&results.join(label));
        assert_eq!(files.len(), 2, "{label}: {files:?}");
        for f in &files {
            assert_eq!(lines_of(f, "end"), 1, "{}", f.display());
            let header: serde_json::Value =
                serde_json::from_str(std::fs::read_to_string(f).unwrap().lines().next().unwrap())
                    .unwrap();
            let planned = header["planned_launches"].as_u64().unwrap() as usize;
            let seqs: std::collections::BTreeSet<u64> = std::fs::read_to_string(f)
                .unwrap()
                .lines()
                .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
                .filter(|r| r["record"] == "launch")
                .map(|r| r["seq"].as_u64().unwrap())
                .collect();
            assert_eq!(lines_of(f, "launch"), planned, "{}", f.display());
            assert_eq!(seqs.len(), planned, "no launch twice in {}", f.display());
        }
    }
    // The report beside the results is `pretouch report --details` of the folder,
    // because nobody watched the campaign run.
    for (name, format) in [
        ("campaign-report.txt", "text"),
        ("campaign-report.json", "json"),
    ] {
        let out = pretouch()
            .args(["report", "--details"])
            .arg(&results)
            .args(["--format", format])
            .output()
            .unwrap();
        assert!(out.status.success());
        let written = std::fs::read_to_string(results.join(name)).unwrap();
        assert_eq!(written, String::from_utf8_lossy(&out.stdout), "{name}");
    }
    let text = std::fs::read_to_string(results.join("campaign-report.txt")).unwrap();
    assert!(
        text.contains("6.1.0-base") && text.contains("6.1.0-patch"),
        "{text}"
    );
    // The report names the boots that failed (read from the state copied beside the
    // results), and no label is short of its runs: both were tried again and ran.
    // (The warnings are wrapped: read them with their whitespace made single spaces.)
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert_eq!(
        flat.matches("campaign: the boot of step").count(),
        2,
        "{text}"
    );
    for (step, found) in [(2, "6.1.0-other"), (4, "6.1.0-default")] {
        let said = format!("the boot of step {step} of 4 (label `6.1.0-patch`) failed at ");
        let at = flat.find(&said).unwrap_or_else(|| panic!("{said}: {text}"));
        assert!(
            flat[at..].contains(&format!("expected 6.1.0-patch, found {found}: ")),
            "{text}"
        );
    }
    assert!(!flat.contains("planned runs"), "{text}");
    // Of the labels shown only: the base alone says nothing of the patch's boots.
    let base = pretouch()
        .arg("report")
        .arg(&results)
        .args(["--labels", "6.1.0-base"])
        .output()
        .unwrap();
    assert!(base.status.success());
    let base = String::from_utf8_lossy(&base.stdout);
    assert!(!base.contains("campaign: the boot of step"), "{base}");
    let record = kept_state(&results);
    let failed = record["failed_boots"].as_array().unwrap();
    assert_eq!(failed.len(), 2);
    assert_eq!(failed[0]["found"], "6.1.0-other");
    assert_eq!(failed[1]["found"], "6.1.0-default");
    assert!(record["finished_at"].is_string());
    // The campaign's own time was measured, apart from the runs.
    let own = record["time"]["own"].as_f64().unwrap();
    let runs = record["time"]["runs"].as_f64().unwrap();
    assert!(own > 0.0 && runs > own, "own {own} s, runs {runs} s");
    // Its parts: the start's checks and the end's report, each within the whole.
    let start = record["time"]["start"].as_f64().unwrap();
    let end = record["time"]["end"].as_f64().unwrap();
    assert!(
        start > 0.0 && end > 0.0 && start + end <= own,
        "start {start} s, end {end} s, own {own} s"
    );
    common::assert_no_java_left();
}

/// `systemd-analyze verify` of the installed unit, with the distribution's own units
/// copied into the root (the unit needs sysinit.target and the rest).
fn verify_unit(root: &Path) {
    let Ok(analyze) = which("systemd-analyze") else {
        common::skipped("campaign", "systemd-analyze", "apt-get install systemd");
        return;
    };
    let units = root.join("usr/lib/systemd");
    std::fs::create_dir_all(&units).unwrap();
    let status = Command::new("cp")
        .args(["-r", "/usr/lib/systemd/system"])
        .arg(&units)
        .status()
        .unwrap();
    assert!(status.success());
    let out = Command::new(analyze)
        .arg("verify")
        .arg(format!("--root={}", root.display()))
        .arg(root.join(UNIT))
        .output()
        .unwrap();
    assert!(
        out.status.success() && out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::remove_dir_all(root.join("usr")).unwrap();
}

fn which(name: &str) -> Result<PathBuf, ()> {
    std::env::var_os("PATH")
        .into_iter()
        .flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .map(|d| d.join(name))
        .find(|p| p.is_file())
        .ok_or(())
}

#[test]
fn stop_in_the_middle_ends_the_run_removes_everything_and_keeps_what_ran() {
    if !is_root() {
        common::skipped("campaign", "root", "a campaign runs as root");
        return;
    }
    let _jvm = common::jvm_lock();
    let dir = tempfile::tempdir().unwrap();
    let (mut h, matrix, base, patch) = setup(dir.path());
    let exe = PathBuf::from(env!("CARGO_BIN_EXE_pretouch"));
    assert!(start(&h, &exe, &matrix, &[&base, &patch]).status.success());
    let results = campaign_results(&h.results);
    // Step 1 runs; step 2's run is under way when `stop` comes.
    let m = h.asked();
    h.boot(&m);
    let m = h.asked();
    let mut child = h
        .unit_command(&m)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(300);
    while launch_count(&results, "6.1.0-patch") < 1 {
        assert!(Instant::now() < deadline);
        std::thread::sleep(Duration::from_millis(20));
    }
    h.stop();
    assert!(
        child.try_wait().unwrap().is_some(),
        "stop waits for the step to end"
    );
    child.wait().unwrap();
    let before = h.log().len();
    assert_eq!(h.log().last().unwrap()["action"], "restore");
    assert!(
        !h.root.join(UNIT).exists() && !h.root.join(WANTS).exists() && !h.root.join(DIR).exists()
    );
    // What ran is kept: step 1's whole run, step 2's launches so far.
    let record = kept_state(&results);
    assert!(record["stopped_at"].is_string());
    assert_eq!(record["session"]["kernels"][0]["status"], "done");
    assert_eq!(record["session"]["kernels"][1]["status"], "interrupted");
    assert!(launch_count(&results, "6.1.0-patch") >= 1);
    // The report says the stopped label is short of its runs, and why.
    let text = std::fs::read_to_string(results.join("campaign-report.txt")).unwrap();
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    for (label, done) in [("6.1.0-base", 1), ("6.1.0-patch", 0)] {
        assert!(
            flat.contains(&format!(
                "campaign: label `{label}` has {done} of its 2 planned runs finished (the campaign was stopped at "
            )),
            "{text}"
        );
    }
    // Nothing boots after a stop: the status says so, a late boot does nothing.
    let out = pretouch()
        .args(["campaign", "status", "--campaign-root"])
        .arg(&h.root)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no campaign is installed"));
    let m = h.default_kernel();
    let out = Command::new(&exe)
        .args(["campaign", "continue", "--campaign-root"])
        .arg(&h.root)
        .env("PRETOUCH_CAMPAIGN_BOOT_ID", &m.boot_id)
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(h.log().len(), before);
    common::assert_no_java_left();
}

#[test]
fn a_campaign_started_from_a_world_writable_folder_runs_root_s_copy() {
    if !is_root() {
        common::skipped("campaign", "root", "a campaign runs as root");
        return;
    }
    let _jvm = common::jvm_lock();
    let dir = tempfile::tempdir().unwrap();
    let (mut h, matrix, base, patch) = setup(dir.path());
    let open = open_folder(dir.path());
    let exe = open.join("pretouch");
    std::fs::copy(env!("CARGO_BIN_EXE_pretouch"), &exe).unwrap();
    // Results where others can write are refused, with exit 2 and a fix.
    let mut bad = Harness::new(&h.root);
    bad.results = open.join("results");
    let out = start(&bad, &exe, &matrix, &[&base, &patch]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("is writable by others") && err.contains("fix:"),
        "{err}"
    );
    assert!(!h.root.join(DIR).exists(), "nothing installed");

    assert!(start(&h, &exe, &matrix, &[&base, &patch]).status.success());
    // Anyone could now replace the binary the campaign was started from.
    let mark = dir.path().join("mark");
    std::fs::remove_file(&exe).unwrap();
    std::fs::write(&exe, format!("#!/bin/sh\ntouch {}\n", mark.display())).unwrap();
    std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).unwrap();
    let unit = std::fs::read_to_string(h.root.join(UNIT)).unwrap();
    assert!(!unit.contains(open.to_str().unwrap()), "{unit}");
    let m = h.asked();
    let out = h.boot(&m);
    assert!(!mark.exists(), "the replaced binary ran");
    let said = String::from_utf8_lossy(&out.stderr);
    let copy = h.root.join(DIR).join("pretouch");
    assert!(said.contains(&format!("{} run ", copy.display())), "{said}");
    assert_eq!(h.state()["session"]["kernels"][0]["status"], "done");
    h.stop();
}

#[test]
fn a_binary_replaced_while_the_question_waits_is_not_the_one_copied() {
    use std::io::{Read, Write};
    if !is_root() {
        common::skipped("campaign", "root", "a campaign runs as root");
        return;
    }
    if Command::new("script").arg("--version").output().is_err() {
        common::skipped(
            "campaign",
            "script (util-linux)",
            "the question needs a terminal",
        );
        return;
    }
    let _jvm = common::jvm_lock();
    let dir = tempfile::tempdir().unwrap();
    let (mut h, matrix, base, patch) = setup(dir.path());
    let open = open_folder(dir.path());
    let exe = open.join("pretouch");
    std::fs::copy(env!("CARGO_BIN_EXE_pretouch"), &exe).unwrap();
    let original = std::fs::read(&exe).unwrap();
    // The question needs a terminal: `script` (util-linux) gives the start one.
    let quoted = |p: &Path| format!("'{}'", p.display());
    let command = format!(
        "{} run {} --kernel {} --kernel {} --runs 2 --boot fake --campaign-root {} --results {}",
        quoted(&exe),
        quoted(&matrix),
        quoted(&base),
        quoted(&patch),
        quoted(&h.root),
        quoted(&h.results)
    );
    let m = Machine::default_kernel(0);
    let mut child = Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .env("PRETOUCH_CAMPAIGN_RELEASE", &m.release)
        .env("PRETOUCH_CAMPAIGN_BOOT_ID", &m.boot_id)
        .env("PRETOUCH_CAMPAIGN_CMDLINE", &m.cmdline)
        .env_remove("PRETOUCH_AGENT")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("script (util-linux) runs");
    let mut said = Vec::new();
    let mut stdout = child.stdout.take().unwrap();
    while !String::from_utf8_lossy(&said).contains("[y/N]") {
        let mut buf = [0u8; 4096];
        let n = stdout.read(&mut buf).unwrap();
        assert!(n > 0, "no question: {}", String::from_utf8_lossy(&said));
        said.extend_from_slice(&buf[..n]);
    }
    // While it waits, someone replaces the file it was started from, and plants the
    // name its running binary's link now has.
    let mark = dir.path().join("mark");
    std::fs::remove_file(&exe).unwrap();
    for path in [exe.clone(), open.join("pretouch (deleted)")] {
        std::fs::write(&path, format!("#!/bin/sh\ntouch {}\n", mark.display())).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    child.stdin.take().unwrap().write_all(b"y\n").unwrap();
    stdout.read_to_end(&mut said).unwrap();
    let status = child.wait().unwrap();
    let said = String::from_utf8_lossy(&said);
    assert!(status.success(), "{said}");
    let copy = std::fs::read(h.root.join(DIR).join("pretouch")).unwrap();
    assert!(
        copy == original,
        "root's copy is not the binary that asked: {said}"
    );
    let m = h.asked();
    let out = h.boot(&m);
    assert!(!mark.exists(), "the planted file ran");
    assert_eq!(
        h.state()["session"]["kernels"][0]["status"],
        "done",
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    h.stop();
}

#[test]
fn a_jdk_named_through_a_link_others_can_change_runs_as_checked() {
    if !is_root() {
        common::skipped("campaign", "root", "a campaign runs as root");
        return;
    }
    let _jvm = common::jvm_lock();
    let dir = tempfile::tempdir().unwrap();
    let (mut h, _, base, _) = setup(dir.path());
    let open = open_folder(dir.path());
    let home = std::fs::canonicalize(&common::jdks()[0]).unwrap();
    let link = open.join("jdk");
    std::os::unix::fs::symlink(&home, &link).unwrap();
    let matrix = common::write_matrix(
        dir.path(),
        &format!(
            "name: p\njdks: [{}]\ngcs: [serial]\nheaps: [64m]\nrepetitions: 2\n",
            common::yaml_list(std::slice::from_ref(&link))
        ),
    );
    let exe = PathBuf::from(env!("CARGO_BIN_EXE_pretouch"));
    let out = start(&h, &exe, &matrix, &[&base]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Root's matrix names the JDK checked, not the link.
    let copy = std::fs::read_to_string(h.root.join(DIR).join("matrix.yaml")).unwrap();
    assert!(!copy.contains(open.to_str().unwrap()), "{copy}");
    assert!(copy.contains(home.to_str().unwrap()), "{copy}");
    // The link now leads nowhere: the boot runs the JDK as checked all the same.
    std::fs::remove_file(&link).unwrap();
    std::os::unix::fs::symlink("/nonexistent", &link).unwrap();
    let m = h.asked();
    let out = h.boot(&m);
    assert_eq!(
        h.state()["session"]["kernels"][0]["status"],
        "done",
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    h.stop();
}

#[test]
fn an_agent_named_by_pretouch_agent_is_copied_and_loaded_at_every_boot() {
    if !is_root() {
        common::skipped("campaign", "root", "a campaign runs as root");
        return;
    }
    let _jvm = common::jvm_lock();
    let dir = tempfile::tempdir().unwrap();
    let (mut h, matrix, base, _) = setup(dir.path());
    let agent = dir.path().join("agent.so");
    std::fs::copy(env!("PRETOUCH_AGENT_LIB"), &agent).unwrap();
    let m = Machine::default_kernel(0);
    let out = pretouch()
        .arg("run")
        .arg(&matrix)
        .args(["--kernel"])
        .arg(&base)
        .args(["--runs", "1", "--boot", "fake", "--yes", "--campaign-root"])
        .arg(&h.root)
        .arg("--results")
        .arg(&h.results)
        .env("PRETOUCH_CAMPAIGN_RELEASE", &m.release)
        .env("PRETOUCH_CAMPAIGN_BOOT_ID", &m.boot_id)
        .env("PRETOUCH_CAMPAIGN_CMDLINE", &m.cmdline)
        .env("PRETOUCH_AGENT", &agent)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let copy = h.root.join(DIR).join("agent.so");
    assert!(std::fs::read(&copy).unwrap() == std::fs::read(&agent).unwrap());
    // The boot's run (without PRETOUCH_AGENT, as the unit starts it) loads root's copy.
    let m = h.asked();
    let out = h.boot(&m);
    let said = String::from_utf8_lossy(&out.stderr);
    let results = campaign_results(&h.results);
    let state = kept_state(&results);
    assert_eq!(state["session"]["kernels"][0]["status"], "done", "{said}");
    // Each run header (and resume) names the agent it loads.
    let named: Vec<serde_json::Value> = jsonl_files(&h.results)
        .iter()
        .flat_map(|f| {
            std::fs::read_to_string(f)
                .unwrap()
                .lines()
                .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
                .collect::<Vec<_>>()
        })
        .filter_map(|r| r.get("agent").cloned())
        .collect();
    assert!(!named.is_empty(), "{said}");
    assert!(
        named.iter().all(|a| *a == copy.display().to_string()),
        "{named:?}"
    );
}

#[test]
fn a_bad_campaign_is_refused_before_anything_is_installed() {
    if !is_root() {
        common::skipped("campaign", "root", "a campaign runs as root");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (h, matrix, base, _) = setup(dir.path());
    let run_matrix = |matrix: &Path, extra: &[&std::ffi::OsStr], stdin_yes: bool| {
        let mut cmd = pretouch();
        cmd.arg("run")
            .arg(matrix)
            .args(["--boot", "fake", "--campaign-root"])
            .arg(&h.root)
            .arg("--results")
            .arg(&h.results)
            .args(extra);
        if stdin_yes {
            cmd.arg("--yes");
        }
        cmd.output().unwrap()
    };
    let run = |extra: &[&std::ffi::OsStr], stdin_yes: bool| run_matrix(&matrix, extra, stdin_yes);
    let missing = dir.path().join("vmlinuz-none");
    let not_an_image = dir.path().join("matrix.yaml");
    // An agent file others could change: it would be loaded into root's JVMs.
    let open = open_folder(dir.path());
    let open_agent = open.join("agent.so");
    std::fs::write(&open_agent, b"\x7fELF not loaded").unwrap();
    // A kernel others could replace, or its initramfs.
    let open_image = fake_image(&open, "6.1.0-open");
    let boot = base.parent().unwrap();
    let open_initrd = fake_image(boot, "6.1.0-openinitrd");
    std::os::unix::fs::symlink(&open_agent, boot.join("initrd.img-6.1.0-openinitrd")).unwrap();
    for (args, yes, says) in [
        (vec![], true, "none is given"),
        (
            vec!["--kernel".as_ref(), missing.as_os_str()],
            true,
            "does not exist",
        ),
        (
            vec!["--kernel".as_ref(), not_an_image.as_os_str()],
            true,
            "cannot read the release",
        ),
        (
            vec!["--kernel".as_ref(), base.as_os_str()],
            false,
            "no terminal is there to confirm",
        ),
        (
            vec![
                "--kernel".as_ref(),
                base.as_os_str(),
                "--agent".as_ref(),
                open_agent.as_os_str(),
            ],
            true,
            "is writable by others",
        ),
        (
            vec!["--kernel".as_ref(), open_image.as_os_str()],
            true,
            "is writable by others",
        ),
        (
            vec!["--kernel".as_ref(), open_initrd.as_os_str()],
            true,
            "is writable by others",
        ),
    ] {
        let out = run(&args, yes);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{says}: {err}");
        assert!(err.contains(says) && err.contains("fix:"), "{says}: {err}");
        assert!(!h.root.join(DIR).exists() && !h.root.join(UNIT).exists());
    }
    // A jar others can change, in a root folder on the classpath (`lib/*`).
    let lib = dir.path().join("lib");
    std::fs::create_dir(&lib).unwrap();
    std::fs::write(lib.join("a.jar"), b"PK").unwrap();
    std::fs::set_permissions(lib.join("a.jar"), std::fs::Permissions::from_mode(0o666)).unwrap();
    let app_matrix = dir.path().join("app.yaml");
    let jdk = common::yaml_list(&common::jdks()[..1]);
    std::fs::write(
        &app_matrix,
        format!(
            "name: p\njdks: [{jdk}]\ngcs: [serial]\nheaps: [64m]\nrepetitions: 2\napp:\n  \
             classpath: lib/*\n  main: a.Main\n"
        ),
    )
    .unwrap();
    let out = run_matrix(&app_matrix, &["--kernel".as_ref(), base.as_os_str()], true);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("a.jar") && err.contains("is writable by others"),
        "{err}"
    );
    assert!(!h.root.join(DIR).exists());
    // The same agent named by PRETOUCH_AGENT.
    let out = pretouch()
        .arg("run")
        .arg(&matrix)
        .args(["--boot", "fake", "--yes", "--campaign-root"])
        .arg(&h.root)
        .arg("--results")
        .arg(&h.results)
        .arg("--kernel")
        .arg(&base)
        .env("PRETOUCH_AGENT", &open_agent)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("is writable by others"), "{err}");
    assert!(!h.root.join(DIR).exists());
    // The kernels and the matrix are checked at once: a bad kernel is named before a bad
    // matrix, as when one check followed the other, and the matrix's error is its own.
    let no_jdk = dir.path().join("no-jdk.yaml");
    std::fs::write(
        &no_jdk,
        "name: p\njdks: [/nonexistent/jdk]\ngcs: [serial]\nheaps: [64m]\nrepetitions: 2\n",
    )
    .unwrap();
    for (kernel, says) in [(&missing, "kernel image"), (&base, "line 2: jdks")] {
        let out = run_matrix(&no_jdk, &["--kernel".as_ref(), kernel.as_os_str()], true);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{says}: {err}");
        assert!(err.contains(says), "{says}: {err}");
        assert!(!h.root.join(DIR).exists() && !h.root.join(UNIT).exists());
    }
    // The dry run prints the plan and installs nothing.
    let out = run(
        &["--kernel".as_ref(), base.as_os_str(), "--dry-run".as_ref()],
        false,
    );
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("step  1: 6.1.0-base"));
    assert!(!h.root.join(DIR).exists());
}

#[test]
fn a_boot_loader_that_fails_is_a_failed_boot_of_its_label_and_the_campaign_goes_on() {
    if !is_root() {
        common::skipped("campaign", "root", "a campaign runs as root");
        return;
    }
    let _jvm = common::jvm_lock();
    let dir = tempfile::tempdir().unwrap();
    let (mut h, matrix, base, patch) = setup(dir.path());
    // Every boot of base fails as a failed `kexec -e` would.
    std::fs::write(
        h.root.join("fail-boot-6.1.0-base"),
        "kexec_load failed: Device or resource busy",
    )
    .unwrap();
    let exe = PathBuf::from(env!("CARGO_BIN_EXE_pretouch"));
    let out = start(&h, &exe, &matrix, &[&base, &patch]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("FAILED BOOT") && err.contains("kexec_load failed"),
        "{err}"
    );
    // The state is not left booting base: patch's boot was asked for instead.
    assert_eq!(h.state()["in_flight"]["step"], 1);
    while h.root.join(DIR).exists() {
        let m = h.asked();
        assert_eq!(m.release, "6.1.0-patch");
        h.boot(&m);
    }
    let results = campaign_results(&h.results);
    let state = kept_state(&results);
    let failed = state["failed_boots"].as_array().unwrap();
    assert_eq!(failed.len(), 4, "two steps of base, tried twice each");
    assert!(failed.iter().all(|f| {
        f["label"] == "6.1.0-base"
            && f["why"]
                .as_str()
                .unwrap()
                .contains("the boot loader failed: kexec_load failed")
    }));
    assert!(launch_count(&h.results, "6.1.0-patch") > 0);
    let kernels = state["session"]["kernels"].as_array().unwrap();
    let done: Vec<_> = kernels
        .iter()
        .map(|k| k["status"].as_str().unwrap())
        .collect();
    assert_eq!(done, ["boot_failed", "done", "boot_failed", "done"]);
    assert!(state["finished_at"].is_string());
    assert!(h.log().last().unwrap()["action"] == "default");
    common::assert_no_java_left();
}
