//! The runner's side of the agent protocol: where the agent library is, how it is
//! passed to the JVM, and the stamps file it writes (see `jvm-agent/src/lib.rs`).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::units::{Bytes, Nanos};

/// File name of the agent library that `cargo build` puts beside the runner.
pub const AGENT_FILE: &str = "libpretouch_agent.so";

/// One stamp taken by the agent: the clock, then the process's counters at that moment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stamp {
    /// CLOCK_MONOTONIC, nanoseconds.
    pub ns: Nanos,
    /// Minor page faults of the JVM process so far (getrusage).
    pub minflt: u64,
    /// Major page faults of the JVM process so far (getrusage).
    pub majflt: u64,
    /// Resident set size of the JVM process (/proc/self/statm).
    pub rss: Bytes,
}

/// The stamps of one launch; a stamp the JVM never reached is absent.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stamps {
    /// How `main()` was stamped: `jni` (native call in the built-in main) or `breakpoint`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mechanism: Option<String>,
    /// `Agent_OnLoad`: options parsed, before the heap exists.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_load: Option<Stamp>,
    /// JVMTI VMInit: the end of VM creation, heap created and pretouched.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vm_init: Option<Stamp>,
    /// Entry to `main()`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub main: Option<Stamp>,
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ProtocolError {
    #[error("stamps file does not start with `pretouch-agent 1` (agent of another version?)")]
    BadHeader,
    #[error("stamps file line {line}: {text:?} is not `key value`")]
    BadLine { line: usize, text: String },
}

/// Parses the agent's `key value` lines. Unknown keys are ignored, so that a newer
/// agent can add counters without breaking an older runner.
pub fn parse_stamps(text: &str) -> Result<Stamps, ProtocolError> {
    let mut lines = text.lines();
    if lines.next() != Some("pretouch-agent 1") {
        return Err(ProtocolError::BadHeader);
    }
    let mut stamps = Stamps::default();
    let mut fields: [[Option<u64>; 4]; 3] = Default::default();
    for (i, line) in lines.enumerate() {
        let bad = || ProtocolError::BadLine {
            line: i + 2,
            text: line.to_owned(),
        };
        let (key, value) = line.split_once(' ').ok_or_else(bad)?;
        if key == "mechanism" {
            stamps.mechanism = Some(value.to_owned());
            continue;
        }
        let Some((which, counter)) = ["agent_load", "vm_init", "main"]
            .iter()
            .enumerate()
            .find_map(|(w, name)| Some((w, key.strip_prefix(name)?.strip_prefix('_')?)))
        else {
            continue;
        };
        let slot = match counter {
            "ns" => 0,
            "minflt" => 1,
            "majflt" => 2,
            "rss_bytes" => 3,
            _ => continue,
        };
        fields[which][slot] = Some(value.parse().map_err(|_| bad())?);
    }
    let stamp = |f: [Option<u64>; 4]| {
        Some(Stamp {
            ns: Nanos(f[0]?),
            minflt: f[1].unwrap_or(0),
            majflt: f[2].unwrap_or(0),
            rss: Bytes(f[3].unwrap_or(0)),
        })
    };
    stamps.agent_load = stamp(fields[0]);
    stamps.vm_init = stamp(fields[1]);
    stamps.main = stamp(fields[2]);
    Ok(stamps)
}

/// The `-agentpath` argument that makes the agent write its stamps to `out`.
pub fn agent_arg(agent: &Path, out: &Path) -> String {
    format!("-agentpath:{}=out={}", agent.display(), out.display())
}

/// The `-agentpath` argument that stamps a user's `main_class` with a JVMTI breakpoint,
/// ending the JVM there when `exit_at_main`.
pub fn agent_arg_for_main(
    agent: &Path,
    out: &Path,
    main_class: &str,
    exit_at_main: bool,
) -> String {
    format!(
        "-agentpath:{}=main={main_class},exit_at_main={},out={}",
        agent.display(),
        u8::from(exit_at_main),
        out.display()
    )
}

#[derive(Debug, thiserror::Error)]
pub enum AgentLookupError {
    #[error(
        "agent library `{0}` does not exist\n  fix: build it with `cargo build --release` in the pretouch source tree, or pass --agent PATH"
    )]
    Missing(PathBuf),
    #[error(
        "agent library path `{0}` contains `=`, which -agentpath cannot pass\n  fix: move it to a path without `=`"
    )]
    BadPath(PathBuf),
    #[error(
        "agent library `{0}` is not a shared library (no ELF header): every JVM would fail to load it\n  \
         fix: pass the libpretouch_agent.so that `cargo build --release` builds, with --agent PATH"
    )]
    NotALibrary(PathBuf),
}

/// Finds the agent: `--agent`, else `PRETOUCH_AGENT`, else beside the runner binary.
pub fn locate_agent(explicit: Option<&Path>) -> Result<PathBuf, AgentLookupError> {
    let candidate = match explicit {
        Some(p) => p.to_owned(),
        None => match std::env::var_os("PRETOUCH_AGENT") {
            Some(p) => PathBuf::from(p),
            None => {
                let exe = std::env::current_exe().unwrap_or_default();
                let dir = exe.parent().unwrap_or(Path::new("."));
                // Test binaries live in target/<profile>/deps, the agent in target/<profile>.
                [dir.join(AGENT_FILE), dir.join("..").join(AGENT_FILE)]
                    .into_iter()
                    .find(|p| p.exists())
                    .unwrap_or_else(|| dir.join(AGENT_FILE))
            }
        },
    };
    let path = candidate
        .canonicalize()
        .map_err(|_| AgentLookupError::Missing(candidate.clone()))?;
    if path.to_string_lossy().contains('=') {
        return Err(AgentLookupError::BadPath(path));
    }
    let mut magic = [0u8; 4];
    let is_elf = std::fs::File::open(&path)
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut magic))
        .is_ok_and(|()| magic == *b"\x7fELF");
    if !is_elf {
        return Err(AgentLookupError::NotALibrary(path));
    }
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_a_complete_file() {
        let text = "pretouch-agent 1\nmechanism jni\nagent_load_ns 100\nagent_load_minflt 10\nagent_load_majflt 0\nagent_load_rss_bytes 4096\nvm_init_ns 200\nvm_init_minflt 20\nvm_init_majflt 1\nvm_init_rss_bytes 8192\nmain_ns 300\nmain_minflt 30\nmain_majflt 1\nmain_rss_bytes 12288\nfuture_counter 7\n";
        let s = parse_stamps(text).unwrap();
        assert_eq!(s.mechanism.as_deref(), Some("jni"));
        assert_eq!(s.agent_load.unwrap().ns, Nanos(100));
        assert_eq!(s.vm_init.unwrap().majflt, 1);
        assert_eq!(
            s.main,
            Some(Stamp {
                ns: Nanos(300),
                minflt: 30,
                majflt: 1,
                rss: Bytes(12288)
            })
        );
    }

    #[test]
    fn stamps_not_reached_are_absent() {
        let s = parse_stamps("pretouch-agent 1\nagent_load_ns 5\n").unwrap();
        assert!(s.agent_load.is_some());
        assert_eq!((s.vm_init, s.main), (None, None));
    }

    #[test]
    fn rejects_garbage() {
        assert_eq!(parse_stamps(""), Err(ProtocolError::BadHeader));
        assert_eq!(
            parse_stamps("pretouch-agent 2\n"),
            Err(ProtocolError::BadHeader)
        );
        assert!(matches!(
            parse_stamps("pretouch-agent 1\nmain_ns twelve\n"),
            Err(ProtocolError::BadLine { line: 2, .. })
        ));
        assert!(matches!(
            parse_stamps("pretouch-agent 1\nnospace\n"),
            Err(ProtocolError::BadLine { line: 2, .. })
        ));
    }
}
