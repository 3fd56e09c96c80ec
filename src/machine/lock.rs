//! Beside the scheduler: one pretouch run per machine at a time. Two runs at once
//! disturb each other's timings (CPUs, memory bandwidth, the kernel's fault path), so a
//! second run is warned. An advisory lock on a file in the temporary folder ($TMPDIR,
//! else /tmp) marks the running one; the kernel drops it when the process ends, even by
//! `kill -9`.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::PathBuf;

/// Held while a run runs.
pub struct MachineLock {
    _file: Option<File>,
}

/// What taking the lock found.
enum Acquired {
    /// This is the only run on the machine.
    Alone(MachineLock),
    /// Another pretouch run holds the lock: its pid, when it wrote one.
    Busy { other_pid: Option<u32> },
    /// The lock file could not be opened: nothing is known.
    Unknown {
        path: PathBuf,
        error: std::io::Error,
    },
}

fn lock_path() -> PathBuf {
    std::env::temp_dir().join("pretouch-run.lock")
}

/// Takes the machine-wide run lock without waiting.
fn acquire() -> Acquired {
    let path = lock_path();
    let opened = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        // Another user's lock file: reading is enough to lock it.
        .or_else(|_| File::open(&path));
    let mut file = match opened {
        Ok(file) => file,
        Err(error) => return Acquired::Unknown { path, error },
    };
    match file.try_lock() {
        Ok(()) => {
            // Best effort: the pid only makes the warning more helpful.
            let pid = std::process::id().to_string();
            let _ = file
                .set_len(0)
                .and_then(|()| file.write_all(pid.as_bytes()));
            Acquired::Alone(MachineLock { _file: Some(file) })
        }
        Err(std::fs::TryLockError::WouldBlock) => {
            let mut text = String::new();
            let _ = file
                .seek(SeekFrom::Start(0))
                .and_then(|_| file.read_to_string(&mut text));
            Acquired::Busy {
                other_pid: text.trim().parse().ok(),
            }
        }
        Err(std::fs::TryLockError::Error(error)) => Acquired::Unknown { path, error },
    }
}

/// Takes the lock, or prints why the timings may be disturbed; never refuses to run.
pub fn acquire_or_warn() -> MachineLock {
    match acquire() {
        Acquired::Alone(lock) => lock,
        Acquired::Busy { other_pid } => {
            let who = other_pid.map_or_else(String::new, |p| format!(" (pid {p})"));
            eprintln!(
                "warning: another pretouch run is running on this machine{who}: the JVMs of both \
                 runs will disturb each other's timings\n  fix: let one run finish first; \
                 this run goes on, and its results are suspect"
            );
            MachineLock { _file: None }
        }
        Acquired::Unknown { path, error } => {
            eprintln!(
                "warning: cannot open `{}` ({error}): a second pretouch run on this machine would not be noticed",
                path.display()
            );
            MachineLock { _file: None }
        }
    }
}
