//! `pretouch-bench` stops on SIGINT and SIGTERM as `pretouch run` does: the JVM under
//! way is killed, no figures are printed, and the exit code is the shell's 128 + signal.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// The agent library as a file, built with the profile of the benchmark under test, so
/// that the JVMs this test starts are known by their `-agentpath:` (the workspace's
/// tests/common has the same helper, for the `pretouch` binary).
fn agent() -> &'static Path {
    static AGENT: OnceLock<PathBuf> = OnceLock::new();
    AGENT.get_or_init(|| {
        let dir = Path::new(env!("CARGO_BIN_EXE_pretouch-bench"))
            .parent()
            .unwrap()
            .to_owned();
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

/// A JDK to launch: JAVA_HOME, else the first under /usr/lib/jvm.
fn jdk() -> PathBuf {
    let listed = std::fs::read_dir("/usr/lib/jvm")
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path());
    std::env::var_os("JAVA_HOME")
        .map(PathBuf::from)
        .into_iter()
        .chain(listed)
        .find(|home| home.join("bin/java").exists())
        .expect("this test needs a JDK: sudo apt-get install -y openjdk-17-jdk-headless")
}

/// Fails if a JVM started with this build's agent is still alive.
fn assert_no_java_left() {
    let marker = format!("-agentpath:{}=", agent().display());
    let left: Vec<String> = std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .map(|e| std::fs::read(e.path().join("cmdline")).unwrap_or_default())
        .map(|c| String::from_utf8_lossy(&c).replace('\0', " "))
        .filter(|c| c.contains(&marker))
        .collect();
    assert!(left.is_empty(), "java processes left behind: {left:?}");
}

#[test]
fn a_signal_stops_the_benchmark_and_its_jvm() {
    for (signal, code) in [(libc::SIGINT, 130), (libc::SIGTERM, 143)] {
        let stderr = tempfile::NamedTempFile::new().unwrap();
        // Enough launches that the run is still going when the signal comes.
        let mut child = Command::new(env!("CARGO_BIN_EXE_pretouch-bench"))
            .args(["agent-overhead", "--heap", "128m", "--runs", "400", "--jdk"])
            .arg(jdk())
            .arg("--agent")
            .arg(agent())
            .stdout(Stdio::null())
            .stderr(stderr.reopen().unwrap())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_secs(3));
        assert!(
            child.try_wait().unwrap().is_none(),
            "the benchmark ended before the signal"
        );
        // SAFETY: kill(2) with a pid of our own child and a valid signal number.
        assert_eq!(unsafe { libc::kill(child.id() as i32, signal) }, 0);
        let start = Instant::now();
        let status = child.wait().unwrap();
        let said = std::fs::read_to_string(stderr.path()).unwrap();
        assert_eq!(status.code(), Some(code), "{said}");
        assert!(said.contains("no figures from the cut benchmark"), "{said}");
        assert!(start.elapsed() < Duration::from_secs(30), "slow to stop");
        assert_no_java_left();
    }
}
