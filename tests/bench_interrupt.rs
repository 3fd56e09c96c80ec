//! `pretouch-bench` stops on SIGINT and SIGTERM as `pretouch run` does: the JVM under
//! way is killed, no figures are printed, and the exit code is the shell's 128 + signal.

mod common;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{agent, assert_no_java_left, jdks, jvm_lock};

#[test]
fn a_signal_stops_the_benchmark_and_its_jvm() {
    let _lock = jvm_lock();
    for (signal, code) in [(libc::SIGINT, 130), (libc::SIGTERM, 143)] {
        let stderr = tempfile::NamedTempFile::new().unwrap();
        // Enough launches that the run is still going when the signal comes.
        let mut child = Command::new(env!("CARGO_BIN_EXE_pretouch-bench"))
            .args(["agent-overhead", "--heap", "128m", "--runs", "400", "--jdk"])
            .arg(&jdks()[0])
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
