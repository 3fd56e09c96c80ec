//! `pretouch run --kernel` / `kernels:` through the real binary, with stand-ins for `vng`
//! and QEMU that run the "guest" on this machine: the session, the guest command, the
//! labels, a kernel that does not boot, an interrupted session and its resume. Real JVMs,
//! no VM. (`tests/kernels_vm.rs` boots a real kernel.)

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use common::{agent, jdks, jvm_lock, pretouch, records, unwrapped};

/// A folder with stand-ins for `vng` and `qemu-system-x86_64`. The fake vng logs the
/// image it was asked to boot, then acts as its file says: `panic-<image name>` prints a
/// panic and fails; `hang-<image name>` hangs before the "guest" runs; else it runs the
/// guest script here.
fn fakes(dir: &Path) -> PathBuf {
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let vng = format!(
        r#"#!/bin/sh
[ "$1" = --version ] && {{ echo "virtme-ng 0.0-fake"; exit 0; }}
image=$(basename "$2")
echo "$image" >> {dir}/boots.log
echo "[    0.000000] Linux version fake"
if [ -e {dir}/panic-$image ]; then echo "Kernel panic - not syncing: VFS: Unable to mount root fs"; exit 255; fi
if [ -e {dir}/hang-$image ]; then sleep 611; fi
for last; do :; done
exec /bin/sh "$last"
"#,
        dir = dir.display()
    );
    let qemu = "#!/bin/sh\necho 'QEMU emulator version 0.0 (fake)'\n";
    for (name, text) in [("vng", vng.as_str()), ("qemu-system-x86_64", qemu)] {
        let path = bin.join(name);
        std::fs::write(&path, text).unwrap();
        std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .unwrap();
    }
    for image in ["img-a", "img-b"] {
        std::fs::write(dir.join(image), "not a real kernel").unwrap();
    }
    bin
}

fn matrix(dir: &Path) -> PathBuf {
    let path = dir.join("matrix.yaml");
    std::fs::write(
        &path,
        format!(
            "name: vmq\njdks: [{:?}]\ngcs: [g1]\nheaps: [64m]\nrepetitions: 1\nkernels:\n  - {{image: img-a, label: base}}\n  - {{image: img-b, label: patched}}\n",
            jdks()[0].display().to_string()
        ),
    )
    .unwrap();
    path
}

fn with_fakes(cmd: &mut Command, bin: &Path) {
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    cmd.env("PATH", path)
        .env("PRETOUCH_VNG", bin.join("vng"))
        .env_remove("PRETOUCH_AGENT");
}

fn run_command(dir: &Path, bin: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_pretouch"));
    cmd.arg("run")
        .arg(matrix(dir))
        .arg("--agent")
        .arg(agent())
        .arg("--results")
        .arg(dir.join("results"))
        .args(["--vm-cpus", "1"]);
    with_fakes(&mut cmd, bin);
    cmd
}

fn mark() -> &'static str {
    // Read by the test from /proc/cpuinfo and /dev/kvm, not by the detection under test.
    if common::kvm_usable() {
        ""
    } else {
        "-EMULATED"
    }
}

fn boots(dir: &Path) -> Vec<String> {
    std::fs::read_to_string(dir.join("boots.log"))
        .unwrap_or_default()
        .lines()
        .map(str::to_owned)
        .collect()
}

fn session_dir(dir: &Path) -> PathBuf {
    let runs: Vec<PathBuf> = std::fs::read_dir(dir.join("results/vm-runs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(runs.len(), 1, "{runs:?}");
    runs[0].clone()
}

fn session(dir: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(session_dir(dir).join("session.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

#[test]
fn an_interrupted_session_resumes_at_the_first_unfinished_kernel() {
    let _jvms = jvm_lock();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let bin = fakes(d);
    std::fs::write(d.join("hang-img-b"), "").unwrap();
    let mut child = run_command(d, &bin)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until the second kernel is "booting" (the first ran to its end), then Ctrl-C.
    let start = Instant::now();
    while boots(d).len() < 2 {
        assert!(
            start.elapsed() < Duration::from_secs(180),
            "the second kernel never booted"
        );
        assert!(child.try_wait().unwrap().is_none(), "pretouch ended early");
        std::thread::sleep(Duration::from_millis(200));
    }
    // SAFETY: kill(2) on our own child's pid.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("resume: pretouch run --resume"), "{stderr}");
    let s = session(d);
    assert_eq!(s["kernels"][0]["status"], "done");
    assert_eq!(s["kernels"][1]["status"], "interrupted");
    // The hanging "VM" was stopped with its process group: no sleep left behind.
    assert_eq!(boots(d), ["img-a", "img-b"]);
    let left: Vec<_> = std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter(|e| {
            std::fs::read(e.path().join("cmdline")).unwrap_or_default() == b"sleep\x00611\x00"
        })
        .collect();
    assert!(left.is_empty(), "the fake VM's sleep outlived the run");

    std::fs::remove_file(d.join("hang-img-b")).unwrap();
    let mut resume = Command::new(env!("CARGO_BIN_EXE_pretouch"));
    resume
        .arg("run")
        .arg("--resume")
        .arg(session_dir(d))
        .arg("--agent")
        .arg(agent())
        .args(["--vm-cpus", "1"]);
    with_fakes(&mut resume, &bin);
    let out = resume.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    // Only the unfinished kernel booted again.
    assert_eq!(boots(d), ["img-a", "img-b", "img-b"]);
    assert!(stderr.contains("1 of 2 kernels done"), "{stderr}");
    let s = session(d);
    assert_eq!(s["kernels"][1]["status"], "done");

    // Two labels, each with the VM's shape beside the guest's environment.
    let (base, patched) = (format!("base{}", mark()), format!("patched{}", mark()));
    let headers: Vec<serde_json::Value> = records(&d.join("results"))
        .into_iter()
        .filter(|r| r["record"] == "run")
        .collect();
    let mut labels: Vec<&str> = headers
        .iter()
        .map(|h| h["label"].as_str().unwrap())
        .collect();
    labels.sort();
    assert_eq!(labels, [base.as_str(), patched.as_str()]);
    for h in &headers {
        let vm = &h["vm"];
        assert_eq!(vm["vcpus"], 1, "{vm}");
        assert_eq!(vm["prealloc"], true);
        assert_eq!(vm["qemu_version"], "QEMU emulator version 0.0 (fake)");
        assert_eq!(vm["vng_version"], "virtme-ng 0.0-fake");
        assert_eq!(vm["emulated"], mark() == "-EMULATED");
        assert!(
            vm["image"].as_str().unwrap().ends_with("img-a")
                || vm["image"].as_str().unwrap().ends_with("img-b")
        );
        assert!(h["env"]["kernel_release"].is_string());
    }
    // The run printed the cross-kernel table; `report` prints it again, with the mark.
    let stdout = unwrapped(&out.stdout);
    assert!(
        stdout.contains(&base) && stdout.contains(&patched),
        "{stdout}"
    );
    let report = pretouch()
        .arg("report")
        .arg(d.join("results"))
        .output()
        .unwrap();
    // The table on stdout, then the notes on stderr.
    let text = unwrapped(&report.stdout) + &unwrapped(&report.stderr);
    assert!(text.contains(&base) && text.contains(&patched), "{text}");
    if mark() == "-EMULATED" {
        assert!(
            text.contains(&format!(
                "EMULATED: label `{base}` ran in a QEMU guest under TCG"
            )),
            "{text}"
        );
    }
    // Resuming a finished session is refused.
    let mut again = Command::new(env!("CARGO_BIN_EXE_pretouch"));
    again.arg("run").arg("--resume").arg(session_dir(d));
    with_fakes(&mut again, &bin);
    let out = again.output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("nothing to resume"));
}

#[test]
fn a_kernel_that_does_not_boot_is_shown_with_its_console_and_the_next_one_runs() {
    let _jvms = jvm_lock();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let bin = fakes(d);
    std::fs::write(d.join("panic-img-a"), "").unwrap();
    let out = run_command(d, &bin).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(stderr.contains("kernel 1 ("), "{stderr}");
    assert!(stderr.contains("FAILED: did not boot"), "{stderr}");
    assert!(stderr.contains("| Kernel panic - not syncing"), "{stderr}");
    assert_eq!(boots(d), ["img-a", "img-b"]);
    let s = session(d);
    assert_eq!(s["kernels"][0]["status"], "boot_failed");
    assert_eq!(s["kernels"][1]["status"], "done");
    let patched = format!("patched{}", mark());
    assert!(String::from_utf8_lossy(&out.stdout).contains(&patched));
    if mark() == "-EMULATED" {
        assert!(stderr.contains("!!! EMULATED"), "{stderr}");
    }
}

#[test]
fn kernels_that_cannot_run_are_refused_before_any_boot() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let bin = fakes(d);
    let m = matrix(d);
    let cases: Vec<(Vec<String>, &str)> = vec![
        (
            vec!["--kernel".into(), d.join("nope").display().to_string()],
            "does not exist",
        ),
        (
            vec![
                "--label".into(),
                "x".into(),
                "--kernel".into(),
                d.join("img-a").display().to_string(),
                "--kernel".into(),
                d.join("img-b").display().to_string(),
            ],
            "--label names the results of one kernel",
        ),
        (
            vec!["--vm-memory".into(), "256m".into()],
            "--vm-memory sets it",
        ),
    ];
    for (args, says) in cases {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_pretouch"));
        cmd.arg("run").arg(&m).args(&args);
        with_fakes(&mut cmd, &bin);
        let out = cmd.output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(says), "{args:?}: {stderr}");
    }
    assert!(boots(d).is_empty());
    // No vng at all: the fix names the set-up script.
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_pretouch"));
    cmd.arg("run")
        .arg(&m)
        .arg("--results")
        .arg(d.join("results"))
        .env("PRETOUCH_VNG", d.join("no-such-vng"));
    let out = cmd.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("scripts/setup-vm.sh"), "{stderr}");
    // The dry run shows the vng command lines and boots nothing.
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_pretouch"));
    cmd.arg("run")
        .arg(&m)
        .arg("--dry-run")
        .args(["--vm-cpus", "1"]);
    with_fakes(&mut cmd, &bin);
    let out = cmd.output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("--cpus 1 --memory 1024M --qemu-opts=-mem-prealloc"),
        "{stdout}"
    );
    assert!(stdout.contains("--label patched"), "{stdout}");
    // With --runs, every kernel's boots are planned in turn.
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_pretouch"));
    cmd.arg("run")
        .arg(&m)
        .arg("--dry-run")
        .args(["--vm-cpus", "1", "--runs", "2"]);
    with_fakes(&mut cmd, &bin);
    let out = cmd.output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(stdout.contains("2 kernel(s) x 2 runs, in turn"), "{stdout}");
    let order: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("kernel "))
        .collect();
    assert_eq!(order.len(), 4, "{stdout}");
    for (line, (run, image)) in
        order
            .iter()
            .zip([(1, "img-a"), (1, "img-b"), (2, "img-a"), (2, "img-b")])
    {
        assert!(line.contains(&format!("(run {run} of 2)")), "{line}");
        assert!(line.ends_with(image), "{line}");
    }
    assert!(boots(d).is_empty());
    // Without kernels, --runs has nothing to repeat: the fix says what does the same.
    let out = pretouch()
        .args(["run", "--runs", "3", "--dry-run"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("--runs 3 repeats the kernels of a `--kernel` run")
            && stderr.contains("run `pretouch run` 3 times"),
        "{stderr}"
    );
}

/// `--runs 2`: the kernels boot in turn (A B A B), each boot a new result file of its
/// kernel's label, and the cross-kernel table states each cell's interval over the
/// label's two runs.
#[test]
fn runs_boot_the_kernels_in_turn_and_the_table_is_over_their_runs() {
    let _jvms = jvm_lock();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let bin = fakes(d);
    // Ten rounds a run: the least for an interval of its own, which the interval over
    // runs needs of every run.
    let m = d.join("matrix.yaml");
    std::fs::write(
        &m,
        format!(
            "name: vmq\njdks: [{:?}]\ngcs: [parallel]\nheaps: [64m]\nrepetitions: 10\nwarmup: 0\n\
             kernels:\n  - {{image: img-a, label: base}}\n  - {{image: img-b, label: patched}}\n",
            jdks()[0].display().to_string()
        ),
    )
    .unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_pretouch"));
    cmd.arg("run")
        .arg(&m)
        .arg("--agent")
        .arg(agent())
        .arg("--results")
        .arg(d.join("results"))
        .args(["--vm-cpus", "1", "--runs", "2"]);
    with_fakes(&mut cmd, &bin);
    let out = cmd.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(boots(d), ["img-a", "img-b", "img-a", "img-b"]);
    assert!(stderr.contains("2 kernel(s) x 2 runs, in turn"), "{stderr}");
    assert!(
        stderr.contains("kernel 4 of 4 (run 2 of 2): booting"),
        "{stderr}"
    );
    let s = session(d);
    assert_eq!(s["runs"], 2);
    let kernels = s["kernels"].as_array().unwrap();
    let runs: Vec<_> = kernels.iter().map(|k| k["run"].as_u64().unwrap()).collect();
    assert_eq!(runs, [1, 1, 2, 2]);
    assert!(kernels.iter().all(|k| k["status"] == "done"), "{s}");
    let mut files: Vec<&str> = kernels
        .iter()
        .map(|k| k["result_file"].as_str().unwrap())
        .collect();
    files.sort_unstable();
    files.dedup();
    assert_eq!(files.len(), 4, "each boot its own result file: {files:?}");
    for label in ["base", "patched"] {
        let dir = d.join("results").join(format!("{label}{}", mark()));
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 2, "{dir:?}");
    }
    // The table at the end: each label's cost over its two runs, as its title says.
    let stdout = unwrapped(&out.stdout);
    assert!(stdout.contains("(mean of 2 runs' medians)"), "{stdout}");
}

#[test]
fn probe_reaches_every_guest_and_a_resume_cannot_add_it_to_a_session_without() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let bin = fakes(d);
    // The dry run shows the guest's command: --probe and its rounds are passed on.
    let mut cmd = run_command(d, &bin);
    cmd.args(["--dry-run", "--probe", "--probe-rounds", "2"]);
    let out = cmd.output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let guests: Vec<&str> = stdout
        .lines()
        .filter(|l| l.contains("guest runs:"))
        .collect();
    assert_eq!(guests.len(), 2, "{stdout}");
    for g in &guests {
        assert!(
            g.contains("--probe-rounds 2") && g.contains(" --probe "),
            "{g}"
        );
    }
    resume_cannot_add(d, &bin, "--probe", "probe_rounds");
}

#[test]
fn the_matrixs_probe_reaches_every_guest_with_its_rounds_as_the_flag_does() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let bin = fakes(d);
    let mut cmd = run_command(d, &bin);
    // `probe: true` in the matrix, and no --probe: the session owes probed rounds too.
    let matrix = d.join("matrix.yaml");
    let text = std::fs::read_to_string(&matrix).unwrap();
    std::fs::write(&matrix, format!("{text}probe: true\n")).unwrap();
    cmd.args(["--dry-run", "--probe-rounds", "2"]);
    let out = cmd.output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let guests: Vec<&str> = stdout
        .lines()
        .filter(|l| l.contains("guest runs:"))
        .collect();
    assert_eq!(guests.len(), 2, "{stdout}");
    for g in &guests {
        assert!(
            g.contains("--probe-rounds 2") && g.contains(" --probe "),
            "{g}"
        );
    }
}

#[test]
fn profile_reaches_every_guest_with_its_rounds_and_a_resume_cannot_add_it_to_a_session_without() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let bin = fakes(d);
    let guests = |extra: &[&std::ffi::OsStr]| {
        let mut cmd = run_command(d, &bin);
        cmd.arg("--dry-run").args(extra);
        let out = cmd.output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        let lines: Vec<String> = stdout
            .lines()
            .filter(|l| l.contains("guest runs:"))
            .map(str::to_owned)
            .collect();
        (out.status.code(), lines, stderr)
    };
    // The dry run shows the guest's command: --profile and its rounds are passed on.
    let (code, lines, stderr) = guests(&[
        "--profile".as_ref(),
        "--profile-rounds".as_ref(),
        "2".as_ref(),
    ]);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(lines.len(), 2, "{lines:?}");
    for g in &lines {
        assert!(
            g.contains("--profile-rounds 2") && g.contains(" --profile"),
            "{g}"
        );
        assert!(!g.contains("--keep-perf-data"), "{g}");
    }
    // Without it, the guests profile nothing.
    let (code, lines, stderr) = guests(&[]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(lines.iter().all(|g| !g.contains("--profile")), "{lines:?}");
    // perf.data kept where a guest can write it, the results folder: passed on, absolute.
    let kept = d.join("results").join("perf");
    let (code, lines, stderr) = guests(&[
        "--profile".as_ref(),
        "--keep-perf-data".as_ref(),
        kept.as_os_str(),
    ]);
    assert_eq!(code, Some(0), "{stderr}");
    let wanted = format!("--keep-perf-data {}", kept.display());
    assert!(lines.iter().all(|g| g.contains(&wanted)), "{lines:?}");
    // Elsewhere it would be lost with the VM: refused before any boot, with the fix.
    let elsewhere = d.join("perf");
    let (code, _, stderr) = guests(&[
        "--profile".as_ref(),
        "--keep-perf-data".as_ref(),
        elsewhere.as_os_str(),
    ]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("outside the results folder"), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "fix: keep it under the results folder, e.g. --keep-perf-data {}",
            d.join("results").join("perf-data").display()
        )),
        "{stderr}"
    );
    assert!(boots(d).is_empty(), "a dry run boots nothing");

    resume_cannot_add(d, &bin, "--profile", "profile_rounds");
}

/// A session started without an extra round's `flag` (its kernels do not boot, so
/// nothing ran; its session file has no `key`) is not resumed with `flag`: refused
/// before any boot, with the fix.
fn resume_cannot_add(d: &Path, bin: &Path, flag: &str, key: &str) {
    for image in ["img-a", "img-b"] {
        std::fs::write(d.join(format!("panic-{image}")), "").unwrap();
    }
    let out = run_command(d, bin).output().unwrap();
    assert!(!out.status.success());
    assert!(session(d)[key].is_null());
    let booted = boots(d).len();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_pretouch"));
    cmd.arg("run").arg("--resume").arg(session_dir(d)).arg(flag);
    with_fakes(&mut cmd, bin);
    let out = cmd.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!("was started without {flag}")),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("fix: resume without {flag}")),
        "{stderr}"
    );
    assert_eq!(boots(d).len(), booted, "no boot");
}

#[test]
fn give_up_after_and_comparable_memory_reach_every_guest() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let bin = fakes(d);
    // The dry run shows each guest's command.
    let mut cmd = run_command(d, &bin);
    cmd.args(["--dry-run", "--give-up-after", "1", "--comparable-memory"]);
    let out = cmd.output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let guests: Vec<&str> = stdout
        .lines()
        .filter(|l| l.contains("guest runs:"))
        .collect();
    assert_eq!(guests.len(), 2, "{stdout}");
    for g in &guests {
        assert!(g.contains("--give-up-after 1"), "{g}");
        assert!(g.contains("--comparable-memory"), "{g}");
    }
}

#[test]
fn a_guest_gives_a_failing_cell_up_as_the_host_was_told() {
    let _jvms = jvm_lock();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let bin = fakes(d);
    // Every launch fails before main() (an unknown flag): with --give-up-after 1 the
    // guest gives the cell up after its first failure; with the default (3) it would
    // launch three of one setting first.
    let m = d.join("matrix.yaml");
    std::fs::write(
        &m,
        format!(
            "name: vmq\njdks: [{:?}]\ngcs: [g1]\nheaps: [64m]\nrepetitions: 3\nwarmup: 0\n\
             jvm_args: [\"-XX:+NoSuchFlagAnywhere\"]\nkernels:\n  - {{image: img-a, label: base}}\n",
            jdks()[0].display().to_string()
        ),
    )
    .unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_pretouch"));
    cmd.arg("run")
        .arg(&m)
        .arg("--agent")
        .arg(agent())
        .arg("--results")
        .arg(d.join("results"))
        .args(["--vm-cpus", "1", "--give-up-after", "1"]);
    with_fakes(&mut cmd, &bin);
    let out = cmd.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    let launches: Vec<serde_json::Value> =
        records(&d.join("results").join(format!("base{}", mark())))
            .into_iter()
            .filter(|r| r["record"] == "launch")
            .collect();
    assert_eq!(launches.len(), 6, "{launches:?}");
    let skipped = launches.iter().filter(|l| l["skipped"] == true).count();
    assert_eq!(
        skipped, 5,
        "one launched and failed, the rest given up: {launches:?}"
    );
}
