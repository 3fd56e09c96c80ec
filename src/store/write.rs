//! Writing a result file: records appended and flushed one line each, under an
//! exclusive lock.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::store::record::Record;

/// Appends records to a result file, one flushed line each. Holds an exclusive lock on
/// the file while it lives, so that a second writer is refused instead of interleaving.
pub struct StoreWriter {
    file: File,
    path: PathBuf,
}

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
}

impl StoreWriter {
    /// Creates `dir/<name>-<UTC timestamp>.jsonl`; never overwrites a file.
    pub fn create(dir: &Path, name: &str, utc_stamp: &str) -> Result<StoreWriter, StoreError> {
        std::fs::create_dir_all(dir).map_err(|source| StoreError::CreateDir {
            path: dir.to_owned(),
            source,
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
                    return Ok(StoreWriter { file, path });
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => n += 1,
                Err(source) => return Err(StoreError::Write { path, source }),
            }
        }
    }

    /// Opens an existing result file to append to it (`--resume`), refused while another
    /// process writes it. A last line cut mid-write is removed (it is returned, so that the
    /// caller can keep it in a [`RunResume`] record): new records start on a fresh line.
    pub fn open_append(path: &Path) -> Result<(StoreWriter, Option<String>), StoreError> {
        let write_err = |source| StoreError::Write {
            path: path.to_owned(),
            source,
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
        Ok((
            StoreWriter {
                file,
                path: path.to_owned(),
            },
            dropped,
        ))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Writes one record as one line and pushes it to the disk before returning.
    pub fn append(&mut self, record: &Record) -> Result<(), StoreError> {
        let mut line = serde_json::to_string(record).expect("records always serialize");
        line.push('\n');
        self.file
            .write_all(line.as_bytes())
            .and_then(|()| self.file.sync_data())
            .map_err(|source| StoreError::Write {
                path: self.path.clone(),
                source,
            })
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
