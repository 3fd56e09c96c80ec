//! Stage 4: raw records on disk. One JSON object a line, appended and flushed as soon
//! as each launch ends: the first line describes the run, then one line a launch, and a
//! last line when the run ends. This is the file format users keep; fields are only
//! ever added.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::launch::agent::Stamps;
use crate::launch::jvmlog::JvmLog;
use crate::launch::rusage::LaunchUsage;
use crate::machine::calibrate::{Calibration, is_calibration_file};
use crate::machine::env::Environment;
use crate::machine::jdk::Jdk;
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
    /// Number of launches the plan holds, warm-ups included. With adaptive repetitions,
    /// those of the first `min` rounds; the end record says where each cell stopped.
    pub planned_launches: u64,
    /// The machine's and kernel's settings at the start of the run (THP modes, cgroup
    /// limits, boot parameters...). Absent in files written before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub env: Option<Environment>,
}

/// The machine a run was taken on (read by `machine::host`), stored in the run header.
pub use crate::machine::host::HostInfo;

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
    /// `-XX:ParallelGCThreads` as written in `gc_threads:`; `auto` (the JVM's choice) when
    /// the matrix has no such axis, and in files written before it existed.
    #[serde(default = "gc_threads_auto")]
    pub gc_threads: String,
    /// The CPU set as written in `cpus:`; `all` (not confined) when the matrix has no
    /// such axis, and in files written before it existed.
    #[serde(default = "cpus_all")]
    pub cpus: String,
    /// Binary name of the `app:` main class stamped; absent for the built-in main class.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub app: Option<String>,
}

fn gc_threads_auto() -> String {
    crate::matrix::GC_THREADS_AUTO.to_owned()
}

fn cpus_all() -> String {
    crate::matrix::cpuset::ALL.to_owned()
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
    /// The CPUs the JVM was allowed to run on, in the kernel's list syntax (`0-1`): the
    /// `cpus:` set it was confined to, or for `all` the runner's own. Absent in files
    /// written before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub affinity: Option<String>,
    /// The kernel's counters for the whole process, exec to exit: the difference of
    /// `getrusage(RUSAGE_CHILDREN)` read just before the spawn and just after the reap
    /// (launches never overlap). Absent in files written before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rusage: Option<LaunchUsage>,
    /// The JVM's own log (`-Xlog:gc+heap=debug,startuptime` with `tn`), parsed: pretouch
    /// lines, Genesis and Create VM times. Absent when the run did not ask for it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jvm_log: Option<JvmLog>,
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
    /// The runner's own peak resident set (getrusage RUSAGE_SELF), to show that it does
    /// not grow with the run. Absent in files of older versions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runner_max_rss: Option<Bytes>,
    /// With adaptive repetitions: where each cell stopped adding rounds, and why. Empty
    /// (and not written) for a fixed number of repetitions.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stops: Vec<CellStop>,
}

/// Where a cell stopped adding rounds under adaptive repetitions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CellStop {
    /// The cell, as in its launch records.
    #[serde(flatten)]
    pub cell: CellKey,
    /// Counted rounds the cell ran.
    pub rounds: u32,
    /// The policy's `max` rounds.
    pub max_rounds: u32,
    /// The policy's `ci_pct`: the target half-width of the interval, in % of the cost.
    pub target_pct: f64,
    /// `converged` (interval within ±ci_pct%), `max_reached`, or `no_interval` (too few
    /// successful launches for an interval).
    pub reason: String,
    /// median(with) - median(without) at the stop, ms.
    pub cost_ms: Option<f64>,
    /// Low end of the 95% interval of the shift at the stop (see `src/adaptive.rs`), ms.
    pub ci_low_ms: Option<f64>,
    /// High end of that interval, ms.
    pub ci_high_ms: Option<f64>,
    /// The interval's larger distance from the cost, in % of the cost.
    pub ci_half_width_pct: Option<f64>,
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
    /// `pretouch calibrate` results found among the paths (`calibrate-*.json`).
    pub calibrations: Vec<Calibration>,
}

/// Reads result files, and folders of them recursively (`*.jsonl`), in name order.
/// A line that does not parse (a run cut mid-write) is reported and skipped.
pub fn read_results(paths: &[PathBuf]) -> Result<Results, StoreError> {
    let mut files = Vec::new();
    for path in paths {
        collect_jsonl(path, &mut files)?;
    }
    let (mut calibrations, mut files): (Vec<PathBuf>, Vec<PathBuf>) =
        files.into_iter().partition(|p| is_calibration_file(p));
    files.sort();
    files.dedup();
    calibrations.sort();
    calibrations.dedup();
    let mut results = Results::default();
    for path in files {
        read_file(&path, &mut results)?;
    }
    for path in calibrations {
        let parsed = std::fs::read_to_string(&path)
            .map_err(|e| e.to_string())
            .and_then(|t| serde_json::from_str::<Calibration>(&t).map_err(|e| e.to_string()));
        match parsed {
            Ok(c) => results.calibrations.push(c),
            Err(e) => results.warnings.push(format!(
                "{}: unreadable calibration skipped ({e})",
                path.display()
            )),
        }
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
        } else if p.extension().is_some_and(|e| e == "jsonl") || is_calibration_file(&p) {
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

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: &str = r##"{"record":"run","format":1,"tool_version":"0.1.0","name":"q","label":"k","matrix_origin":"m.yaml","matrix":"name: q\n","host":{"kernel_release":"6.1","kernel_version":"#1","hostname":"h","cpu_model":"c","cpus":2},"started_at":"2026-01-01T00:00:00Z","jdks":[],"agent":"/a.so","planned_launches":2}"##;
    const LAUNCH: &str = r#"{"record":"launch","seq":0,"round":0,"warmup":false,"jdk":"17","gc":"g1","heap":"64m","variant":"default","jdk_home":"/j","heap_bytes":67108864,"pretouch":false,"command":["java"],"started_at":"t","spawn_ns":1,"reaped_ns":9,"exit_code":0,"signal":null,"stamps":{},"time_to_main_ns":5,"failure":null,"output_tail":null}"#;

    #[test]
    fn launches_written_before_the_new_axes_read_as_their_defaults() {
        // LAUNCH has no gc_threads, cpus, app or affinity: a file of an older version.
        let Record::Launch(old) = serde_json::from_str(LAUNCH).unwrap() else {
            panic!("not a launch");
        };
        assert_eq!(
            (old.cell.gc_threads.as_str(), old.cell.cpus.as_str()),
            ("auto", "all")
        );
        assert_eq!((old.cell.app, old.affinity), (None, None));
        // Written again, the defaults are explicit, and the absent ones stay absent.
        let mut new = serde_json::to_value(Record::Launch(LaunchRecord {
            affinity: Some("0-1".into()),
            ..match serde_json::from_str(LAUNCH).unwrap() {
                Record::Launch(l) => l,
                _ => unreachable!(),
            }
        }))
        .unwrap();
        assert_eq!(new["gc_threads"], "auto");
        assert_eq!(new["cpus"], "all");
        assert_eq!(new["affinity"], "0-1");
        assert!(new.as_object_mut().unwrap().remove("app").is_none());
    }

    fn parse(text: &[u8]) -> (Option<ResultFile>, Vec<String>) {
        parse_result_file(Path::new("r.jsonl"), text)
    }

    #[test]
    fn a_header_without_the_matrix_hash_still_reads() {
        let (file, warnings) = parse(format!("{HEADER}\n{LAUNCH}\n").as_bytes());
        assert!(warnings.is_empty(), "{warnings:?}");
        let file = file.unwrap();
        assert_eq!(file.header.matrix_sha256, None);
        assert_eq!(file.launches.len(), 1);
    }

    #[test]
    fn a_cut_last_line_is_reported_and_skipped() {
        let text = format!("{HEADER}\n{LAUNCH}\n{}", &LAUNCH[..100]);
        let (file, warnings) = parse(text.as_bytes());
        assert_eq!(file.unwrap().launches.len(), 1);
        assert_eq!(
            warnings,
            [
                "r.jsonl:3: the last line is cut short (the run was killed while writing it); skipped"
            ]
        );
    }

    #[test]
    fn damaged_lines_are_skipped_even_when_not_utf8() {
        let mut text = format!("{HEADER}\n").into_bytes();
        text.extend_from_slice(b"{\"record\":\"launch\",\xff\xfe\n");
        text.extend_from_slice(format!("{LAUNCH}\n").as_bytes());
        let (file, warnings) = parse(&text);
        assert_eq!(file.unwrap().launches.len(), 1);
        assert_eq!(warnings.len(), 1);
        assert!(warnings[0].starts_with("r.jsonl:2: unreadable line skipped"));
        let (file, warnings) = parse(b"\xff\n");
        assert!(file.is_none());
        assert_eq!(warnings.len(), 2, "{warnings:?}");
    }

    #[test]
    fn two_writers_get_two_files() {
        let dir = tempfile::tempdir().unwrap();
        let a = StoreWriter::create(dir.path(), "q", "20260101T000000Z").unwrap();
        let b = StoreWriter::create(dir.path(), "q", "20260101T000000Z").unwrap();
        assert_ne!(a.path(), b.path());
        assert!(b.path().ends_with("q-20260101T000000Z-1.jsonl"));
    }

    #[test]
    fn appending_cuts_a_half_written_line_and_locks_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.jsonl");
        std::fs::write(&path, format!("{HEADER}\n{LAUNCH}\n{}", &LAUNCH[..40])).unwrap();
        let (mut writer, dropped) = StoreWriter::open_append(&path).unwrap();
        assert_eq!(dropped.as_deref(), Some(&LAUNCH[..40]));
        assert!(matches!(
            StoreWriter::open_append(&path),
            Err(StoreError::Locked { .. })
        ));
        writer
            .append(&Record::End(RunEnd {
                finished_at: "t".into(),
                launches: 1,
                failed: 0,
                stops: Vec::new(),
                runner_max_rss: None,
            }))
            .unwrap();
        drop(writer);
        let (file, warnings) = parse(&std::fs::read(&path).unwrap());
        assert!(warnings.is_empty(), "{warnings:?}");
        assert!(file.unwrap().end.is_some());
        // A file that ends cleanly loses nothing.
        let (_, dropped) = StoreWriter::open_append(&path).unwrap();
        assert_eq!(dropped, None);
    }

    mod fuzz {
        use super::*;
        use proptest::prelude::*;

        /// Cases a property runs: bounded for the test suite; `PRETOUCH_FUZZ_CASES=100000`
        /// for a long session.
        fn fuzz_cases(default: u32) -> u32 {
            std::env::var("PRETOUCH_FUZZ_CASES")
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(default)
        }

        proptest! {
            #![proptest_config(ProptestConfig { cases: fuzz_cases(400), failure_persistence: None, ..ProptestConfig::default() })]

            /// Any bytes: no panic, and every line but the header is either read or warned.
            #[test]
            fn any_bytes_read_without_panic(bytes in proptest::collection::vec(any::<u8>(), 0..600)) {
                let _ = parse(&bytes);
            }

            /// A valid file cut anywhere and with one byte changed: no panic; the header
            /// survives when the cut is past it and the change is not in it.
            #[test]
            fn a_damaged_file_reads_what_is_intact(cut in 0usize..2000, at in 0usize..2000, byte in any::<u8>()) {
                let text = format!("{HEADER}\n{LAUNCH}\n{LAUNCH}\n");
                let mut bytes = text.into_bytes();
                bytes.truncate(cut.min(bytes.len()));
                if !bytes.is_empty() {
                    let i = at % bytes.len();
                    bytes[i] = byte;
                }
                let (file, _) = parse(&bytes);
                if at % bytes.len().max(1) > HEADER.len() && bytes.len() > HEADER.len() {
                    prop_assert!(file.is_some());
                }
            }
        }
    }
}
