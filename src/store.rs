//! Stage 4: raw records on disk. One JSON object a line, appended and flushed as soon
//! as each launch ends: the first line describes the run, then one line a launch, and a
//! last line when the run ends. This is the file format users keep; fields are only
//! ever added.

use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
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

/// Appends records to a result file, one flushed line each.
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
                Ok(file) => return Ok(StoreWriter { file, path }),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => n += 1,
                Err(source) => return Err(StoreError::Write { path, source }),
            }
        }
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
    let file = File::open(path).map_err(|source| StoreError::Read {
        path: path.to_owned(),
        source,
    })?;
    let mut header = None;
    let mut launches = Vec::new();
    let mut end = None;
    for (i, line) in BufReader::new(file).lines().enumerate() {
        let line = line.map_err(|source| StoreError::Read {
            path: path.to_owned(),
            source,
        })?;
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<Record>(&line) {
            Ok(Record::Run(h)) if header.is_none() => header = Some(h),
            Ok(Record::Run(_)) => results.warnings.push(format!(
                "{}:{}: a second run header; skipped",
                path.display(),
                i + 1
            )),
            Ok(Record::Launch(l)) => launches.push(l),
            Ok(Record::End(e)) => end = Some(e),
            Err(e) => results.warnings.push(format!(
                "{}:{}: unreadable line skipped ({e})",
                path.display(),
                i + 1
            )),
        }
    }
    match header {
        Some(header) => results.files.push(ResultFile {
            path: path.to_owned(),
            header,
            launches,
            end,
        }),
        None => results.warnings.push(format!(
            "{}: no run header on its first line; not a pretouch result file, skipped",
            path.display()
        )),
    }
    Ok(())
}
