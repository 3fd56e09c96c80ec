//! The runner's side of the agent protocol: where the agent library is, how it is
//! passed to the JVM, and the stamps file it writes (see `jvm-agent/src/lib.rs`).
//!
//! The library travels inside this binary (`build.rs` builds it). At run time it is
//! written once to a sealed memfd that every child inherits, and the JVM loads it as
//! `/proc/self/fd/N`, so that no file on a shared or predictable path is ever loaded.

use std::io::Write;
use std::os::fd::{FromRawFd, IntoRawFd, RawFd};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use crate::access::Need;
use crate::units::{Bytes, Nanos};

/// File name of the agent library that `cargo build` puts in `target/<profile>/`.
pub const AGENT_FILE: &str = "libpretouch_agent.so";

/// The agent library built with this binary by `build.rs`.
pub static EMBEDDED: &[u8] = include_bytes!(env!("PRETOUCH_AGENT_LIB"));

/// SHA-256 of [`EMBEDDED`], hex, computed when it was built.
pub const EMBEDDED_SHA256: &str = env!("PRETOUCH_AGENT_SHA256");

/// The agent a run loads: what `-agentpath` names, and the hash of its bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Agent {
    /// `/proc/self/fd/N` for the embedded agent, else the file given.
    pub path: PathBuf,
    /// SHA-256 of the library's bytes, hex.
    pub sha256: String,
}

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

/// The `-agentpath` argument that makes the agent write its stamps to `out`, and copy
/// the files of `/proc/self` that `copy` names at `main()` (see [`copy_path`]).
pub fn agent_arg(agent: &Path, out: &Path, copy: &[&str]) -> String {
    format!(
        "-agentpath:{}={}out={}",
        agent.display(),
        copy_option(copy),
        out.display()
    )
}

/// The `-agentpath` argument that stamps a user's `main_class` with a JVMTI breakpoint,
/// ending the JVM there when `exit_at_main`. `copy`: as for [`agent_arg`].
pub fn agent_arg_for_main(
    agent: &Path,
    out: &Path,
    main_class: &str,
    exit_at_main: bool,
    copy: &[&str],
) -> String {
    format!(
        "-agentpath:{}=main={main_class},exit_at_main={},{}out={}",
        agent.display(),
        u8::from(exit_at_main),
        copy_option(copy),
        out.display()
    )
}

/// The agent's `copy=` option for the files of `/proc/self` it copies at `main()`, with
/// its comma, or nothing when it copies none.
fn copy_option(copy: &[&str]) -> String {
    if copy.is_empty() {
        String::new()
    } else {
        format!("copy={},", copy.join("+"))
    }
}

/// Where the agent writes its copy of the file `name` of `/proc/self`, beside the
/// stamps file `stamps`.
pub fn copy_path(stamps: &Path, name: &str) -> PathBuf {
    let mut path = stamps.as_os_str().to_owned();
    path.push(".");
    path.push(name);
    path.into()
}

#[derive(Debug, thiserror::Error)]
pub enum AgentLookupError {
    #[error(
        "agent library `{0}` does not exist\n  fix: pass an existing file with --agent PATH or PRETOUCH_AGENT, or neither to use the agent built into pretouch"
    )]
    Missing(PathBuf),
    #[error(
        "agent library `{}`: {denied}\n  fix: {}, or pass neither --agent nor PRETOUCH_AGENT to use the agent built into pretouch",
        path.display(), denied.fix()
    )]
    Denied {
        path: PathBuf,
        denied: Box<crate::access::Denied>,
    },
    #[error(
        "agent library path `{0}` contains `=`, which -agentpath cannot pass\n  fix: move it to a path without `=`"
    )]
    BadPath(PathBuf),
    #[error(
        "agent library `{0}` is not a shared library (no ELF header): every JVM would fail to load it\n  \
         fix: pass the libpretouch_agent.so that `cargo build --release -p pretouch-agent` builds, with --agent PATH, or neither to use the agent built into pretouch"
    )]
    NotALibrary(PathBuf),
    #[error(
        "cannot hand the built-in agent to the JVM: {0}\n  fix: pass an agent library with --agent PATH (`cargo build --release -p pretouch-agent` builds target/release/libpretouch_agent.so)"
    )]
    Memfd(String),
}

/// The agent file given: `--agent`, else `PRETOUCH_AGENT`; `None` for the built-in one.
fn given_agent(explicit: Option<&Path>) -> Option<PathBuf> {
    explicit
        .map(Path::to_owned)
        .or_else(|| std::env::var_os("PRETOUCH_AGENT").map(PathBuf::from))
}

/// Finds the agent: `--agent`, else `PRETOUCH_AGENT`, else the one built into this binary.
pub fn locate_agent(explicit: Option<&Path>) -> Result<Agent, AgentLookupError> {
    let Some(candidate) = given_agent(explicit) else {
        return embedded_agent();
    };
    // A folder on the way that this user may not search makes the file look missing.
    let lookup = |path: &Path, e: std::io::Error| match crate::access::denied(path, &e, Need::Read)
    {
        Some(denied) => AgentLookupError::Denied {
            path: path.to_owned(),
            denied,
        },
        None => AgentLookupError::Missing(path.to_owned()),
    };
    let path = candidate
        .canonicalize()
        .map_err(|e| lookup(&candidate, e))?;
    if path.to_string_lossy().contains('=') {
        return Err(AgentLookupError::BadPath(path));
    }
    let bytes = std::fs::read(&path).map_err(|e| lookup(&path, e))?;
    if !bytes.starts_with(b"\x7fELF") {
        return Err(AgentLookupError::NotALibrary(path));
    }
    Ok(Agent {
        path,
        sha256: sha256_hex(&bytes),
    })
}

/// SHA-256 of `bytes`, hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    format!("{:x}", Sha256::digest(bytes))
}

/// Whether an `--agent` or `PRETOUCH_AGENT` overrides the built-in agent.
pub fn overridden(explicit: Option<&Path>) -> bool {
    given_agent(explicit).is_some()
}

/// The embedded agent, in a memfd made once per process and kept open to its end.
fn embedded_agent() -> Result<Agent, AgentLookupError> {
    static MEMFD: OnceLock<Result<RawFd, String>> = OnceLock::new();
    let fd = MEMFD
        .get_or_init(|| write_memfd(EMBEDDED).map_err(|e| e.to_string()))
        .clone()
        .map_err(AgentLookupError::Memfd)?;
    Ok(Agent {
        path: PathBuf::from(format!("/proc/self/fd/{fd}")),
        sha256: EMBEDDED_SHA256.to_owned(),
    })
}

/// Writes `bytes` to a new memfd without close-on-exec, so that the JVM (and whatever
/// wraps it: perf, a server's start script) inherits it at the same number, then seals it
/// so that neither this process nor a child can change what later JVMs load.
fn write_memfd(bytes: &[u8]) -> std::io::Result<RawFd> {
    // SAFETY: the name is a NUL-terminated literal; the flags are valid memfd flags.
    let fd = unsafe { libc::memfd_create(c"pretouch-agent".as_ptr(), libc::MFD_ALLOW_SEALING) };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: `fd` was just returned by memfd_create and is owned by nothing else.
    let mut file = unsafe { std::fs::File::from_raw_fd(fd) };
    file.write_all(bytes)?;
    let seals = libc::F_SEAL_SEAL | libc::F_SEAL_SHRINK | libc::F_SEAL_GROW | libc::F_SEAL_WRITE;
    // SAFETY: F_ADD_SEALS on a memfd this process owns, with valid seal bits.
    if unsafe { libc::fcntl(fd, libc::F_ADD_SEALS, seals) } < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // Kept open for the life of the process: every launch names it.
    Ok(file.into_raw_fd())
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_agent_copies_only_what_is_asked() {
        let (agent, out) = (Path::new("/a.so"), Path::new("/s/stamps"));
        assert_eq!(agent_arg(agent, out, &[]), "-agentpath:/a.so=out=/s/stamps");
        assert_eq!(
            agent_arg(agent, out, &["numa_maps", "status"]),
            "-agentpath:/a.so=copy=numa_maps+status,out=/s/stamps"
        );
        assert_eq!(
            agent_arg_for_main(agent, out, "a.Main", false, &["numa_maps"]),
            "-agentpath:/a.so=main=a.Main,exit_at_main=0,copy=numa_maps,out=/s/stamps"
        );
        assert_eq!(
            copy_path(out, "numa_maps"),
            Path::new("/s/stamps.numa_maps")
        );
    }

    use super::*;

    #[test]
    fn the_embedded_agent_is_a_sealed_inheritable_memfd_of_its_bytes() {
        let agent = embedded_agent().unwrap();
        assert_eq!(std::fs::read(&agent.path).unwrap(), EMBEDDED);
        assert_eq!(sha256_hex(EMBEDDED), agent.sha256);
        let fd: RawFd = agent
            .path
            .file_name()
            .unwrap()
            .to_str()
            .unwrap()
            .parse()
            .unwrap();
        // SAFETY: fcntl queries on an fd this process keeps open.
        let (flags, seals) = unsafe {
            (
                libc::fcntl(fd, libc::F_GETFD),
                libc::fcntl(fd, libc::F_GET_SEALS),
            )
        };
        assert_eq!(flags & libc::FD_CLOEXEC, 0, "a JVM child must inherit it");
        assert_ne!(seals & libc::F_SEAL_WRITE, 0);
        let rewrite = std::fs::OpenOptions::new()
            .write(true)
            .open(&agent.path)
            .and_then(|mut f| f.write_all(b"x"));
        assert!(rewrite.is_err(), "the sealed memfd took a write");
        // Made once: a second lookup names the same fd.
        assert_eq!(embedded_agent().unwrap(), agent);
    }

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
