//! A multi-kernel run's progress, its session record (`pretouch run --kernel A --kernel
//! B`, and each step of a campaign across reboots): which kernels ran to their end,
//! which failed and why, and each one's result file. One JSON file,
//! `<results>/vm-runs/<name>-<UTC>/session.json`, rewritten whole (write, then rename)
//! after every change, so that `pretouch run --resume` on it continues at the first
//! unfinished kernel whatever stopped the run. The results themselves are ordinary result
//! files, written by the guests into `<results>/<label>/`.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The session file's name inside its folder.
pub const SESSION_FILE: &str = "session.json";

/// Version of the session format.
pub const SESSION_FORMAT: u32 = 1;

/// A multi-kernel run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KernelSession {
    /// Session format version ([`SESSION_FORMAT`]).
    pub format: u32,
    /// The matrix's `name`.
    pub name: String,
    /// Where the matrix came from (a path, or the built-in matrix).
    pub matrix_origin: String,
    /// SHA-256 of the matrix text, hex: `--resume` refuses a matrix that changed since.
    pub matrix_sha256: String,
    /// UTC wall-clock time at the start, RFC 3339.
    pub started_at: String,
    /// The results folder (absolute), which every guest writes into.
    pub results: PathBuf,
    /// The kernels, in the order they run.
    pub kernels: Vec<KernelState>,
    /// `--probe`: the probed rounds per cell every guest runs, so that a resume probes
    /// the kernels still to run as the first ones were; absent: no `--probe` (a matrix's
    /// `probe: true` reaches the guests through the matrix).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probe_rounds: Option<u32>,
    /// `--profile` or `profile: true`: the profiled rounds per cell every guest runs, so
    /// that a resume profiles the kernels still to run as the first ones were; absent:
    /// no profiling, or a session of a version that did not pass `--profile` on (there a
    /// matrix's `profile: true` reached the guests through the matrix, with their
    /// default rounds).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile_rounds: Option<u32>,
    /// `--runs N` above 1: each kernel appears N times in `kernels`, in turn (A B A B),
    /// each time a new run of its label; absent: once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runs: Option<u32>,
}

/// One kernel of a session, and how far it got.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KernelState {
    /// The kernel image (absolute).
    pub image: PathBuf,
    /// Boot parameters added to virtme-ng's own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cmdline: Option<String>,
    /// The label asked for; absent: the guest's kernel release.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    pub status: KernelStatus,
    /// The result file the guest writes (known once its run started).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_file: Option<PathBuf>,
    /// The guest's `uname -r`, once it booted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub release: Option<String>,
    /// Boots tried so far.
    #[serde(default)]
    pub boots: u32,
    /// Why it failed, or a note on how it ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// The console log of its last boot.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub console: Option<PathBuf>,
    /// Which of the session's runs of this kernel it is, from 1 (`--runs N`: every kernel
    /// N times, in turn); absent: the kernel runs once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<u32>,
    /// A campaign's `--calibrate-per-boot`: the exit code of this step's `pretouch
    /// calibrate` (run once, before its run); absent: not run (yet).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub calibrated: Option<i32>,
}

/// Where a kernel stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum KernelStatus {
    /// Not started.
    Pending,
    /// Its VM was running when the session file was last written (a runner killed with
    /// `kill -9` leaves this behind).
    Running,
    /// Its result file ran to its end.
    Done,
    /// The kernel did not boot far enough to run the matrix.
    BootFailed,
    /// It booted, but the run inside failed (it may have left launches to resume).
    RunFailed,
    /// Stopped by SIGINT or SIGTERM.
    Interrupted,
}

impl KernelState {
    /// A kernel not started yet: its image, boot parameters and label.
    pub fn pending(image: PathBuf, cmdline: Option<String>, label: Option<String>) -> KernelState {
        KernelState {
            image,
            cmdline,
            label,
            status: KernelStatus::Pending,
            result_file: None,
            release: None,
            boots: 0,
            message: None,
            console: None,
            run: None,
            calibrated: None,
        }
    }
}

impl KernelSession {
    pub fn load(path: &Path) -> Result<KernelSession, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
        serde_json::from_str(&text).map_err(|e| {
            format!(
                "`{}` is not a pretouch kernel session ({e})",
                path.display()
            )
        })
    }

    /// Writes the session whole: to a temporary file beside it, then renamed over it.
    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        save_json(path, self)
    }

    /// Kernels not yet done, in order: what a resume runs.
    pub fn unfinished(&self) -> impl Iterator<Item = usize> + '_ {
        self.kernels
            .iter()
            .enumerate()
            .filter(|(_, k)| k.status != KernelStatus::Done)
            .map(|(i, _)| i)
    }
}

/// Writes `value` whole as JSON: to a temporary file beside `path`, synced, renamed over
/// it, and the folder synced, so that a power cut leaves the old file or the new one.
pub fn save_json<T: Serialize>(path: &Path, value: &T) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    serde_json::to_writer_pretty(&mut tmp, value)?;
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    std::fs::File::open(dir)?.sync_all()
}

/// The session file `path` names: the file itself, or the session folder holding it.
pub fn session_file(path: &Path) -> Option<PathBuf> {
    if path.is_dir() {
        let file = path.join(SESSION_FILE);
        return file.is_file().then_some(file);
    }
    (path.file_name().is_some_and(|n| n == SESSION_FILE) && path.is_file()).then(|| path.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn saves_whole_and_reads_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s").join(SESSION_FILE);
        let mut session = KernelSession {
            format: SESSION_FORMAT,
            name: "q".into(),
            matrix_origin: "m.yaml".into(),
            matrix_sha256: "ab".into(),
            started_at: "2026-11-30T00:00:00Z".into(),
            results: "/r".into(),
            kernels: vec![KernelState::pending("/boot/a".into(), None, None)],
            probe_rounds: None,
            profile_rounds: None,
            runs: None,
        };
        session.save(&path).unwrap();
        session.kernels[0].status = KernelStatus::Done;
        session.save(&path).unwrap();
        assert_eq!(KernelSession::load(&path).unwrap(), session);
        assert_eq!(session.unfinished().count(), 0);
        assert_eq!(session_file(path.parent().unwrap()), Some(path.clone()));
        assert_eq!(session_file(&path), Some(path.clone()));
        assert_eq!(session_file(dir.path()), None);
        // No temporary file is left beside it.
        assert_eq!(
            std::fs::read_dir(path.parent().unwrap()).unwrap().count(),
            1
        );
        std::fs::write(&path, "{}").unwrap();
        assert!(
            KernelSession::load(&path)
                .unwrap_err()
                .contains("not a pretouch kernel session")
        );
    }
}
