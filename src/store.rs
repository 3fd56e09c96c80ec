//! Stage 4: raw records on disk. One JSON object a line, appended and flushed as soon
//! as each launch ends: the first line describes the run, then one line a launch, and a
//! last line when the run ends. This is the file format users keep; fields are only
//! ever added.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::agent::Stamps;
use crate::jdk::Jdk;
use crate::matrix::Gc;
use crate::units::{Bytes, Nanos};

/// Version of the record format, in every run header.
pub const FORMAT_VERSION: u32 = 1;

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "record", rename_all = "snake_case")]
pub enum Record {
    Run(RunHeader),
    Launch(LaunchRecord),
    End(RunEnd),
    /// Written by `pretouch run --resume` before the launches it adds.
    Resume(RunResume),
}

/// First line of a result file: what was run, where, when.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RunHeader {
    /// Record format version ([`FORMAT_VERSION`]).
    pub format: u32,
    /// Version of the `pretouch` that wrote the file.
    pub tool_version: String,
    /// The matrix's `name`.
    pub name: String,
    /// What this run is compared under: the kernel release unless `--label` said otherwise.
    pub label: String,
    /// Where the matrix came from (a path, or the built-in matrix).
    pub matrix_origin: String,
    /// The matrix YAML exactly as given.
    pub matrix: String,
    /// SHA-256 of `matrix`, hex: `--resume` refuses a matrix file that changed since.
    /// Absent in files written before it existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matrix_sha256: Option<String>,
    pub host: HostInfo,
    /// UTC wall-clock time at the start of the run, RFC 3339.
    pub started_at: String,
    /// The JDKs of the matrix, resolved.
    pub jdks: Vec<Jdk>,
    /// Agent library loaded with `-agentpath`.
    pub agent: PathBuf,
    /// Number of launches the plan holds, warm-ups included.
    pub planned_launches: u64,
}

/// The machine a run was taken on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HostInfo {
    /// `uname -r`.
    pub kernel_release: String,
    /// `uname -v`.
    pub kernel_version: String,
    pub hostname: String,
    /// `model name` of /proc/cpuinfo.
    pub cpu_model: String,
    /// Online CPUs.
    pub cpus: usize,
}

/// What identifies a cell across runs and kernels.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct CellKey {
    /// The JDK's runtime version, e.g. `17.0.15+6-Debian-1deb12u1`.
    pub jdk: String,
    pub gc: Gc,
    /// The heap as written in the matrix, e.g. `1g`.
    pub heap: String,
    /// The variant's name (`default` when the matrix has none).
    pub variant: String,
}

/// One launch of a JVM.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct LaunchRecord {
    /// Position in the run's plan, from 0.
    pub seq: u64,
    /// Round number, from 0; warm-up rounds come first.
    pub round: u32,
    /// An uncounted warm-up launch.
    pub warmup: bool,
    #[serde(flatten)]
    pub cell: CellKey,
    /// JAVA_HOME of the JDK launched.
    pub jdk_home: PathBuf,
    /// The heap in bytes.
    pub heap_bytes: Bytes,
    /// Launched with `-XX:+AlwaysPreTouch` (else with `-XX:-AlwaysPreTouch`).
    pub pretouch: bool,
    /// The full command line, program first.
    pub command: Vec<String>,
    /// UTC wall-clock time of the spawn, RFC 3339 with milliseconds.
    pub started_at: String,
    /// CLOCK_MONOTONIC read just before the spawn.
    pub spawn_ns: Nanos,
    /// CLOCK_MONOTONIC read once the process was reaped.
    pub reaped_ns: Nanos,
    /// Exit code, when the JVM exited.
    pub exit_code: Option<i32>,
    /// Terminating signal, when the JVM was killed.
    pub signal: Option<i32>,
    /// The agent's stamps.
    pub stamps: Stamps,
    /// `stamps.main - spawn_ns`: the measurement. Absent when the launch failed.
    pub time_to_main_ns: Option<Nanos>,
    /// Why the launch failed; absent when it succeeded.
    pub failure: Option<String>,
    /// The end of the JVM's stdout and stderr (kept for failed launches).
    pub output_tail: Option<String>,
}

impl LaunchRecord {
    pub fn ok(&self) -> bool {
        self.failure.is_none() && self.time_to_main_ns.is_some()
    }

    /// Spawn to reap: what a whole-process timer would see.
    pub fn wall(&self) -> Nanos {
        self.reaped_ns.since(self.spawn_ns).unwrap_or(Nanos(0))
    }
}

/// Last line of a result file that ran to its end.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RunEnd {
    /// UTC wall-clock time at the end of the run.
    pub finished_at: String,
    /// Launches recorded, warm-ups included.
    pub launches: u64,
    /// Launches that failed.
    pub failed: u64,
}

/// The run was interrupted, then resumed with `pretouch run --resume`: the launches after
/// this line were taken in a later session (same matrix, kernel release and JDKs).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RunResume {
    /// UTC wall-clock time of the resume, RFC 3339.
    pub resumed_at: String,
    /// Version of the `pretouch` that resumed.
    pub tool_version: String,
    /// The kernel at the resume (its release was checked to equal the header's).
    pub host: HostInfo,
    /// Agent library loaded with `-agentpath` from here on.
    pub agent: PathBuf,
    /// Launches already in the file, warm-ups and failures included.
    pub launches_before: u64,
    /// The end of the file cut mid-line (the runner was killed while writing it),
    /// removed so that new lines start on a line of their own; kept here, lossily decoded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dropped_tail: Option<String>,
}

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
    #[error("cannot write results file `{path}`")]
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

/// A result file read back.
#[derive(Debug, Clone)]
pub struct ResultFile {
    pub path: PathBuf,
    pub header: RunHeader,
    pub launches: Vec<LaunchRecord>,
    pub end: Option<RunEnd>,
}

/// Everything read from the paths given to `report`.
#[derive(Debug, Default)]
pub struct Results {
    pub files: Vec<ResultFile>,
    /// Lines or files that could not be read, each naming the file and line.
    pub warnings: Vec<String>,
}

/// Reads result files, and folders of them recursively (`*.jsonl`), in name order.
/// A line that does not parse (a run cut mid-write) is reported and skipped.
pub fn read_results(paths: &[PathBuf]) -> Result<Results, StoreError> {
    let mut files = Vec::new();
    for path in paths {
        collect_jsonl(path, &mut files)?;
    }
    files.sort();
    files.dedup();
    let mut results = Results::default();
    for path in files {
        read_file(&path, &mut results)?;
    }
    Ok(results)
}

fn collect_jsonl(path: &Path, out: &mut Vec<PathBuf>) -> Result<(), StoreError> {
    let read_err = |source| StoreError::Read {
        path: path.to_owned(),
        source,
    };
    let meta = std::fs::metadata(path).map_err(read_err)?;
    if meta.is_file() {
        out.push(path.to_owned());
        return Ok(());
    }
    for entry in std::fs::read_dir(path).map_err(read_err)? {
        let p = entry.map_err(read_err)?.path();
        if p.is_dir() {
            collect_jsonl(&p, out)?;
        } else if p.extension().is_some_and(|e| e == "jsonl") {
            out.push(p);
        }
    }
    Ok(())
}

fn read_file(path: &Path, results: &mut Results) -> Result<(), StoreError> {
    let bytes = std::fs::read(path).map_err(|source| StoreError::Read {
        path: path.to_owned(),
        source,
    })?;
    let (file, warnings) = parse_result_file(path, &bytes);
    results.files.extend(file);
    results.warnings.extend(warnings);
    Ok(())
}

/// Parses the bytes of one result file. Never fails and never panics: a line that does
/// not parse (cut by a crash mid-write, damaged, not UTF-8) is skipped with a warning
/// naming the file and line; a file without a run header is skipped with a warning.
pub fn parse_result_file(path: &Path, bytes: &[u8]) -> (Option<ResultFile>, Vec<String>) {
    let mut warnings = Vec::new();
    let mut header = None;
    let mut launches = Vec::new();
    let mut end = None;
    let cut = !bytes.is_empty() && !bytes.ends_with(b"\n");
    let lines: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
    let last = lines.len().saturating_sub(1);
    for (i, line) in lines.iter().enumerate() {
        let at = format!("{}:{}", path.display(), i + 1);
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let record = std::str::from_utf8(line)
            .map_err(|e| e.to_string())
            .and_then(|text| serde_json::from_str::<Record>(text).map_err(|e| e.to_string()));
        match record {
            Ok(Record::Run(h)) if header.is_none() => header = Some(h),
            Ok(Record::Run(_)) => warnings.push(format!("{at}: a second run header; skipped")),
            Ok(Record::Launch(l)) => launches.push(l),
            Ok(Record::End(e)) => end = Some(e),
            Ok(Record::Resume(_)) => {}
            Err(_) if cut && i == last => warnings.push(format!(
                "{at}: the last line is cut short (the run was killed while writing it); skipped"
            )),
            Err(e) => warnings.push(format!("{at}: unreadable line skipped ({e})")),
        }
    }
    let file = match header {
        Some(header) => Some(ResultFile {
            path: path.to_owned(),
            header,
            launches,
            end,
        }),
        None => {
            warnings.push(format!(
                "{}: no run header; not a pretouch result file, skipped",
                path.display()
            ));
            None
        }
    };
    (file, warnings)
}
