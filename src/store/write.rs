//! Writing a result file: records appended one line each, under an exclusive lock.
//!
//! Each record is written to the file (`write(2)`, no buffer in the runner) before the
//! next launch starts, so a runner that crashes or is killed loses nothing it measured:
//! the kernel holds the line. Pushing it to the disk (`fdatasync`, about 3 ms on the
//! development VM, between two launches) is batched: at most [`SYNC_EVERY`] launch
//! records or [`SYNC_AFTER`] apart, and at once for the run's header, its end and any
//! other record, and when the writer is dropped. What only a crash of the whole
//! machine can lose is the launches since the last sync, which `--resume` runs again
//! (a line cut there is dropped and kept in the resume record).

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::store::record::Record;

/// Appends records to a result file, one flushed line each. Holds an exclusive lock on
/// the file while it lives, so that a second writer is refused instead of interleaving.
pub struct StoreWriter {
    file: File,
    path: PathBuf,
    /// Launch records written since the last `fdatasync`, and when that was.
    unsynced: usize,
    synced_at: Instant,
}

/// Most launch records between two `fdatasync`s.
const SYNC_EVERY: usize = 10;

/// Longest time between two `fdatasync`s while records are written.
const SYNC_AFTER: Duration = Duration::from_secs(2);

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error(
        "cannot create results folder `{path}`\n  fix: choose a writable folder with --results DIR"
    )]
    CreateDir {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot write results in `{}`: {denied}\n  fix: {}, or choose another folder with --results DIR", path.display(), denied.fix())]
    Denied {
        path: PathBuf,
        denied: Box<crate::access::Denied>,
    },
    #[error(
        "cannot write results file `{path}`\n  fix: check the folder's permissions and free space, or choose another with --results DIR"
    )]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot read results `{path}`")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "results file `{path}` is being written by another pretouch process\n  \
         fix: wait until that run ends (or stop it), then resume"
    )]
    Locked { path: PathBuf },
    #[error(
        "`{path}` is not a pretouch result file: {why}\n  \
         fix: name result files (results/<label>/*.jsonl) or folders of them"
    )]
    NotResults {
        path: PathBuf,
        /// Its first bad line, with its number and why it is not a record.
        why: String,
    },
    #[error(
        "`{path}` has record format {found}, newer than format {known}, the newest this \
         pretouch reads\n  fix: read it with the pretouch that wrote it (its run header's \
         tool_version), or a newer one"
    )]
    NewerFormat {
        path: PathBuf,
        /// The `format` in the file's run header.
        found: u64,
        /// [`FORMAT_VERSION`](crate::store::record::FORMAT_VERSION) of this build.
        known: u32,
    },
    #[error(
        "`{path}` is {kind}, not a regular file, so it is not read as results\n  \
         fix: name result files (results/<label>/*.jsonl) or folders of them"
    )]
    NotRegular {
        path: PathBuf,
        /// What it is instead, such as `a FIFO` ([`crate::access::what_kind`]).
        kind: &'static str,
    },
}

/// The store's error for a permission denial on `path`, when `error` was one.
fn denied(path: &Path, error: &std::io::Error) -> Option<StoreError> {
    crate::access::denied(path, error, crate::access::Need::Write).map(|denied| {
        StoreError::Denied {
            path: path.to_owned(),
            denied,
        }
    })
}

impl StoreWriter {
    /// Creates `dir/<name>-<UTC timestamp>.jsonl`; never overwrites a file.
    pub fn create(dir: &Path, name: &str, utc_stamp: &str) -> Result<StoreWriter, StoreError> {
        std::fs::create_dir_all(dir).map_err(|source| match denied(dir, &source) {
            Some(e) => e,
            None => StoreError::CreateDir {
                path: dir.to_owned(),
                source,
            },
        })?;
        let mut n = 0;
        loop {
            let file_name = match n {
                0 => format!("{name}-{utc_stamp}.jsonl"),
                _ => format!("{name}-{utc_stamp}-{n}.jsonl"),
            };
            let path = dir.join(file_name);
            match OpenOptions::new().append(true).create_new(true).open(&path) {
                Ok(file) => {
                    lock(&file, &path)?;
                    return Ok(StoreWriter::new(file, path));
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => n += 1,
                Err(source) => {
                    return Err(
                        denied(&path, &source).unwrap_or(StoreError::Write { path, source })
                    );
                }
            }
        }
    }

    /// Opens an existing result file to append to it (`--resume`), refused while another
    /// process writes it. A last line cut mid-write is removed (it is returned, so that the
    /// caller can keep it in a [`RunResume`] record): new records start on a fresh line.
    pub fn open_append(path: &Path) -> Result<(StoreWriter, Option<String>), StoreError> {
        let write_err = |source| {
            denied(path, &source).unwrap_or(StoreError::Write {
                path: path.to_owned(),
                source,
            })
        };
        let file = OpenOptions::new()
            .read(true)
            .append(true)
            .open(path)
            .map_err(write_err)?;
        lock(&file, path)?;
        let bytes = std::fs::read(path).map_err(write_err)?;
        let mut dropped = None;
        if !bytes.is_empty() && !bytes.ends_with(b"\n") {
            let keep = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
            dropped = Some(String::from_utf8_lossy(&bytes[keep..]).into_owned());
            file.set_len(keep as u64)
                .and_then(|()| file.sync_data())
                .map_err(write_err)?;
        }
        Ok((StoreWriter::new(file, path.to_owned()), dropped))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Writes one record as one line; pushes it to the disk now unless it is a launch
    /// record and the last push is less than [`SYNC_EVERY`] records and [`SYNC_AFTER`]
    /// old (module doc).
    pub fn append(&mut self, record: &Record) -> Result<(), StoreError> {
        let mut line = serde_json::to_string(record).expect("records always serialize");
        line.push('\n');
        self.file
            .write_all(line.as_bytes())
            .map_err(|source| self.write_error(source))?;
        self.unsynced += 1;
        let launch = matches!(record, Record::Launch(_));
        if !launch || self.unsynced >= SYNC_EVERY || self.synced_at.elapsed() >= SYNC_AFTER {
            self.sync()?;
        }
        Ok(())
    }

    /// Pushes every record written so far to the disk.
    pub fn sync(&mut self) -> Result<(), StoreError> {
        if self.unsynced > 0 {
            self.file
                .sync_data()
                .map_err(|source| self.write_error(source))?;
            self.unsynced = 0;
        }
        self.synced_at = Instant::now();
        Ok(())
    }

    fn new(file: File, path: PathBuf) -> StoreWriter {
        StoreWriter {
            file,
            path,
            unsynced: 0,
            synced_at: Instant::now(),
        }
    }

    fn write_error(&self, source: std::io::Error) -> StoreError {
        StoreError::Write {
            path: self.path.clone(),
            source,
        }
    }

    /// Launch records not yet pushed to the disk.
    pub fn unsynced(&self) -> usize {
        self.unsynced
    }
}

impl Drop for StoreWriter {
    /// A run cut short (an error, a signal) still pushes what it wrote.
    fn drop(&mut self) {
        let _ = self.sync();
    }
}

/// Takes the exclusive advisory lock of a result file (released when the file closes).
fn lock(file: &File, path: &Path) -> Result<(), StoreError> {
    match file.try_lock() {
        Ok(()) => Ok(()),
        Err(std::fs::TryLockError::WouldBlock) => Err(StoreError::Locked {
            path: path.to_owned(),
        }),
        Err(std::fs::TryLockError::Error(source)) => Err(StoreError::Write {
            path: path.to_owned(),
            source,
        }),
    }
}

/// Where the crash files of a result file's launches are kept: beside it, in
/// `<file stem>-crashes/` (`results/k/quick-20260101T000000Z-crashes/hs_err_pid42.log`),
/// as an absolute path, so that the records name the files wherever they are read from.
pub fn crash_dir(result_file: &Path) -> PathBuf {
    let result_file = std::path::absolute(result_file).unwrap_or_else(|_| result_file.to_owned());
    let stem = result_file
        .file_stem()
        .map_or_else(|| "run".into(), |s| s.to_string_lossy());
    result_file.with_file_name(format!("{stem}-crashes"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::{FakeCell, file, host};
    use crate::matrix::Gc;
    use crate::store::record::RunEnd;

    #[test]
    fn every_record_is_in_the_file_at_once_and_synced_in_batches() {
        let dir = tempfile::tempdir().unwrap();
        let mut w = StoreWriter::create(dir.path(), "t", "20261201T000000Z").unwrap();
        let rounds = [(100.0, 400.0); 13];
        let cell = FakeCell {
            gc: Gc::G1,
            heap: "64m",
            rounds: &rounds,
        };
        let launches = file("a", "2026-12-01T00:00:00Z", host("vm"), &[cell]).launches;
        for (i, l) in launches.iter().enumerate() {
            w.append(&Record::Launch(l.clone())).unwrap();
            // Readable by another process (the report) before any sync.
            let text = std::fs::read_to_string(w.path()).unwrap();
            assert_eq!(text.lines().count(), i + 1);
            assert!(w.unsynced() < SYNC_EVERY);
        }
        assert_eq!(w.unsynced(), 26 % SYNC_EVERY);
        w.append(&Record::End(RunEnd {
            finished_at: "2026-12-01T00:01:00Z".into(),
            launches: 26,
            failed: 0,
            runner_max_rss: None,
            stops: Vec::new(),
        }))
        .unwrap();
        assert_eq!(w.unsynced(), 0, "the end record syncs everything");
    }
}
