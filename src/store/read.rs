//! Reading result files back: every record that parses, and a warning naming the file
//! and line for each that does not. A file is read a line at a time, never whole: a
//! long run's files are gigabytes. [`read_for_report`] also drops, from each launch
//! record, what no report reads ([`LaunchRecord::for_report`]), so that a report holds
//! a few hundred bytes a launch instead of the record's few kilobytes.

use std::io::BufRead;
use std::path::{Path, PathBuf};

use crate::features::record::{EXTRA_KINDS, FILE_KINDS, extra_kind};
use crate::store::feature_files::FeatureFiles;
pub use crate::store::file::ResultFile;
use crate::store::file::{LAUNCH_LINE_START, damaged_line, tag_of};
use crate::store::record::{CORE_TAGS, Entries, ExtraLine, FORMAT_VERSION, LaunchRecord, Record};
use crate::store::write::StoreError;

/// Everything read from the paths given to `report`.
#[derive(Debug, Default)]
pub struct Results {
    pub files: Vec<ResultFile>,
    /// Lines or files that could not be read, each naming the file and line.
    pub warnings: Vec<String>,
    /// The files the features keep among the paths, such as the calibrations and the
    /// states of ended campaigns, each kind read by its feature
    /// (`features::record::FILE_KINDS`).
    pub features: FeatureFiles,
}

/// How much of each launch record to keep.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keep {
    /// The record as stored (`--resume`, tools that rewrite records).
    Whole,
    /// What the report reads ([`LaunchRecord::for_report`]).
    Report,
    /// No launch: the file is read up to its run header only (the whole file when it
    /// has none, for the warnings).
    Header,
    /// No launch: every line is read and checked, for the warnings only.
    Nothing,
}

/// Reads result files, and folders of them recursively (`*.jsonl`), in name order.
/// A line that does not parse (a run cut mid-write) is reported and skipped.
pub fn read_results(paths: &[PathBuf]) -> Result<Results, StoreError> {
    read_results_keeping(paths, Keep::Whole)
}

/// [`read_results`] keeping of each launch only what the report reads: the same report,
/// in a fraction of the memory.
pub fn read_for_report(paths: &[PathBuf]) -> Result<Results, StoreError> {
    read_results_keeping(paths, Keep::Report)
}

/// A result file read whole, with the warnings of its lines that do not parse.
type ReadWhole = (ResultFile, Vec<String>);

/// Result files found for a report, each read only up to its run header; their launches
/// are read later, a few files at a time ([`Catalog::read`]), so that a report need
/// never hold more than one label's launch records. Reading every file with
/// [`Catalog::read`] gives the same files and warnings as [`read_for_report`].
#[derive(Debug, Default)]
pub struct Catalog {
    /// The files with a run header, in name order, without their launches and end
    /// records (read by [`Catalog::read`]); the features' files found; no warning yet.
    pub results: Results,
    /// Every result file found, in name order, with the warnings of reading those that
    /// have no run header (read whole already; none for the others yet).
    found: Vec<(PathBuf, Vec<String>)>,
}

/// Each result file's headers under `paths`: [`read_for_report`]'s files and errors,
/// without reading their launches yet. A file named on the command line that holds no
/// run header is refused here, as there.
pub fn catalog_for_report(paths: &[PathBuf]) -> Result<Catalog, StoreError> {
    let mut catalog = Catalog::default();
    catalog.results = read_results_with(paths, Keep::Header, |path, warnings| {
        catalog.found.push((path.to_owned(), warnings))
    })?;
    Ok(catalog)
}

impl Catalog {
    /// Each of `files` (of `results.files`) read whole, keeping what the report reads
    /// of each launch, with the warnings of its lines that do not parse, each naming
    /// the file and line; side by side on the machine's CPUs when `parallel`. The first
    /// failure in their order, with its file.
    pub fn read(
        &self,
        files: &[&ResultFile],
        parallel: bool,
    ) -> Result<Vec<ReadWhole>, (PathBuf, StoreError)> {
        let paths: Vec<PathBuf> = files.iter().map(|f| f.path.clone()).collect();
        let read = if parallel {
            read_each(&paths, Keep::Report)
        } else {
            paths.iter().map(|p| read_file(p, Keep::Report)).collect()
        };
        files
            .iter()
            .zip(read)
            .map(|(file, read)| {
                let (read, warnings) = read.map_err(|e| (file.path.clone(), e))?;
                Ok((read.unwrap_or_else(|| header_only(file)), warnings))
            })
            .collect()
    }

    /// The warnings of reading every file whole, as [`read_for_report`] gives them
    /// (each file's lines in name order, then the features' files'), keeping no
    /// launch: what a feature's report of its own prints of the result files beside it.
    pub fn read_warnings(&self) -> Result<Vec<String>, StoreError> {
        let paths: Vec<PathBuf> = self.results.files.iter().map(|f| f.path.clone()).collect();
        let mut by_path = std::collections::HashMap::new();
        for (path, read) in paths.iter().zip(read_each(&paths, Keep::Nothing)) {
            by_path.insert(path.clone(), read?.1);
        }
        let mut out = self.warnings(&by_path);
        out.extend(self.results.warnings.iter().cloned());
        Ok(out)
    }

    /// The reading warnings of every file in name order, as [`read_for_report`] gives
    /// them: those of `read_back` (each file's [`Catalog::read`] warnings, by path) for
    /// the files with a header, the ones already read for the others.
    pub fn warnings(
        &self,
        read_back: &std::collections::HashMap<PathBuf, Vec<String>>,
    ) -> Vec<String> {
        let mut out = Vec::new();
        for (path, warnings) in &self.found {
            match read_back.get(path) {
                Some(w) => out.extend(w.iter().cloned()),
                None => out.extend(warnings.iter().cloned()),
            }
        }
        out
    }
}

/// `file`'s header without launches: what [`Catalog::read`] keeps of a file that lost
/// its run header since it was first read (rewritten under the report).
fn header_only(file: &ResultFile) -> ResultFile {
    ResultFile {
        launches: Vec::new(),
        end: None,
        ..file.clone()
    }
}

fn read_results_keeping(paths: &[PathBuf], keep: Keep) -> Result<Results, StoreError> {
    read_results_with(paths, keep, |_, _| {})
}

/// [`read_results_keeping`]; with [`Keep::Header`], each file's reading warnings are
/// given to `each_file` with its path, in name order, instead of kept in the results.
fn read_results_with(
    paths: &[PathBuf],
    keep: Keep,
    mut each_file: impl FnMut(&Path, Vec<String>),
) -> Result<Results, StoreError> {
    let mut files = Vec::new();
    for path in paths {
        collect_jsonl(path, &mut files)?;
    }
    // Each kind of a feature's files, then the result files: what no kind claims.
    let mut of_kind: Vec<Vec<PathBuf>> = FILE_KINDS.iter().map(|_| Vec::new()).collect();
    let mut files: Vec<PathBuf> = files
        .into_iter()
        .filter(|p| match FILE_KINDS.iter().position(|k| (k.is_one)(p)) {
            Some(i) => {
                of_kind[i].push(p.clone());
                false
            }
            None => true,
        })
        .collect();
    files.sort();
    files.dedup();
    for paths in &mut of_kind {
        paths.sort();
        paths.dedup();
    }
    let mut results = Results::default();
    for (path, read) in files.iter().zip(read_each(&files, keep)) {
        let (file, warnings) = read?;
        let found = file.is_some();
        results.files.extend(file);
        if keep == Keep::Header {
            each_file(path, warnings);
        } else {
            results.warnings.extend(warnings);
        }
        // A file named on the command line was meant to be read: say why it was not.
        if !found && paths.contains(path) {
            let bytes = std::fs::read(path).unwrap_or_default();
            return Err(StoreError::NotResults {
                why: first_bad_line(&bytes),
                path: path.clone(),
            });
        }
    }
    for (kind, paths) in FILE_KINDS.iter().zip(&of_kind) {
        let part = (kind.read)(paths, &mut results.warnings);
        results.features.push(*kind, part);
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
        } else if p.extension().is_some_and(|e| e == "jsonl")
            || FILE_KINDS.iter().any(|k| (k.is_one)(&p))
        {
            out.push(p);
        }
    }
    Ok(())
}

/// One file read, or why it could not be.
type FileRead = Result<(Option<ResultFile>, Vec<String>), StoreError>;

/// [`read_file`] of each of `files`, in their order, on as many threads as the machine
/// has CPUs: parsing the lines is most of a long run's report time, and each file is
/// parsed on its own. Every file is read even after one fails; the caller takes the
/// first failure in order, as reading them one after the other would.
fn read_each(files: &[PathBuf], keep: Keep) -> Vec<FileRead> {
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(files.len());
    each_on_threads(files.iter().collect(), threads, |p| read_file(p, keep))
}

/// `f` of each of `work`, on `threads` threads (each takes the next item left), results
/// in the order of `work`; in this thread when `threads` is at most 1. What reads files
/// side by side uses it: [`read_each`] here, the report's labels in `analyze::document`.
pub fn each_on_threads<W: Send, R: Send>(
    work: Vec<W>,
    threads: usize,
    f: impl Fn(W) -> R + Sync,
) -> Vec<R> {
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicUsize, Ordering};
    if threads <= 1 {
        return work.into_iter().map(f).collect();
    }
    let work: Vec<Mutex<Option<W>>> = work.into_iter().map(|w| Mutex::new(Some(w))).collect();
    let done: Vec<Mutex<Option<R>>> = work.iter().map(|_| Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(slot) = work.get(i) else {
                        break;
                    };
                    let w = slot.lock().expect("no worker panics holding it").take();
                    let r = f(w.expect("each work is taken once"));
                    *done[i].lock().expect("no worker panics holding it") = Some(r);
                }
            });
        }
    });
    done.into_iter()
        .map(|d| {
            d.into_inner()
                .expect("no worker panics holding it")
                .expect("every work is done")
        })
        .collect()
}

fn read_file(path: &Path, keep: Keep) -> FileRead {
    let read_err = |source| StoreError::Read {
        path: path.to_owned(),
        source,
    };
    let file = std::fs::File::open(path).map_err(read_err)?;
    let read = parse_lines(path, std::io::BufReader::with_capacity(1 << 16, file), keep);
    // The file's launches share their cells' words; the next file has its own.
    crate::units::word::forget();
    read
}

/// The part of a line that says what record it is and, for a run header, its format.
#[derive(serde::Deserialize)]
struct Kind {
    record: Option<String>,
    format: Option<serde_json::Value>,
}

/// `Some(format)` when `line` is a run header (`Some(None)` without a numeric format).
fn header_format(line: &[u8]) -> Option<Option<u64>> {
    let kind = serde_json::from_slice::<Kind>(line).ok()?;
    (kind.record.as_deref() == Some("run")).then(|| kind.format.and_then(|f| f.as_u64()))
}

/// Refuses a file whose run header says a newer record format than this build knows:
/// its fields may mean what this build does not know, so reading what happens to parse
/// would report figures the file does not hold. Every older format still reads.
fn format_known(path: &Path, found: Option<u64>) -> Result<(), StoreError> {
    match found {
        Some(found) if found > u64::from(FORMAT_VERSION) => Err(StoreError::NewerFormat {
            path: path.to_owned(),
            found,
            known: FORMAT_VERSION,
        }),
        _ => Ok(()),
    }
}

/// Why `bytes` are not a result file: its first line that is not a record (number,
/// the start of the line, the parser's reason), or the missing run header.
fn first_bad_line(bytes: &[u8]) -> String {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return "it is empty".to_owned();
    }
    for (i, line) in bytes.split(|&b| b == b'\n').enumerate() {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let text = String::from_utf8_lossy(line);
        let parsed = std::str::from_utf8(line)
            .map_err(|e| e.to_string())
            .and_then(|t| parse_record(t).map_err(|e| e.to_string()));
        if let Err(e) = parsed {
            let mut start: String = text.trim().chars().take(60).collect();
            if text.trim().chars().count() > 60 {
                start.push_str("...");
            }
            return format!("line {} is not a record ({e}): `{start}`", i + 1);
        }
    }
    "it has no run header (a first line with \"record\":\"run\")".to_owned()
}

/// Parses the bytes of one result file. Never fails and never panics: a line that does
/// not parse (cut by a crash mid-write, damaged, not UTF-8) is skipped with a warning
/// naming the file and line; a file without a run header is skipped with a warning.
pub fn parse_result_file(path: &Path, bytes: &[u8]) -> (Option<ResultFile>, Vec<String>) {
    let mut bytes = bytes;
    match parse_lines(path, &mut bytes, Keep::Whole) {
        Ok(parsed) => parsed,
        // Only a read from a file can fail, never one from memory.
        Err(e) => (None, vec![e.to_string()]),
    }
}

/// One line's record: its tag read first, then the line as the record of that kind.
/// A launch line as the writer puts it (its tag first) is read as a launch directly,
/// without reading its tag apart. No line is copied into a buffer of serde's to find
/// its kind, as an internally tagged enum would: a report reads millions of them.
///
/// A tag that is neither the core's ([`CORE_TAGS`]) nor one a feature registers
/// (`features::record`) is refused, naming the tags this build knows.
pub fn parse_record(text: &str) -> serde_json::Result<Record> {
    if text.starts_with(LAUNCH_LINE_START) {
        return serde_json::from_str::<LaunchRecord>(text).map(Record::Launch);
    }
    let tag = tag_of(text)?;
    match &*tag {
        "run" => serde_json::from_str(text).map(Record::Run),
        "launch" => serde_json::from_str(text).map(Record::Launch),
        "end" => serde_json::from_str(text).map(Record::End),
        "resume" => serde_json::from_str(text).map(Record::Resume),
        other => match extra_kind(other) {
            Some(kind) => {
                (kind.read)(text)?;
                Ok(Record::Extra(ExtraLine::read(kind.tag, text)))
            }
            None => Err(serde::de::Error::unknown_variant(other, &RECORD_TAGS)),
        },
    }
}

/// Every tag a record may have: the core's, then those the features register.
static RECORD_TAGS: std::sync::LazyLock<Vec<&'static str>> = std::sync::LazyLock::new(|| {
    CORE_TAGS
        .into_iter()
        .chain(EXTRA_KINDS.iter().map(|k| k.tag))
        .collect()
});

/// Read as [`parse_record`] reads it, from the keys and values in their order. For
/// tests and tools that read one line; the readers of files call [`parse_record`],
/// which reads the text without this copy.
impl<'de> serde::Deserialize<'de> for Record {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Record, D::Error> {
        use serde::de::Error;
        let entries = Entries::deserialize(d)?;
        let text = serde_json::to_string(&entries).map_err(D::Error::custom)?;
        parse_record(&text).map_err(D::Error::custom)
    }
}

/// Reads a result file a line at a time, keeping of each launch what `keep` says.
/// Refuses a newer format (see [`format_known`]) as soon as its header is met;
/// otherwise as [`parse_result_file`]: an error only when the file cannot be read.
fn parse_lines(
    path: &Path,
    mut reader: impl BufRead,
    keep: Keep,
) -> Result<(Option<ResultFile>, Vec<String>), StoreError> {
    let mut warnings = Vec::new();
    let mut header = None;
    let mut format_checked = false;
    let mut launches = Vec::new();
    let mut end = None;
    let mut line = Vec::new();
    let mut number = 0;
    loop {
        line.clear();
        let read = reader
            .read_until(b'\n', &mut line)
            .map_err(|source| StoreError::Read {
                path: path.to_owned(),
                source,
            })?;
        if read == 0 {
            break;
        }
        number += 1;
        // Only the last line can lack its newline: the run was killed while writing it.
        let cut = line.last() != Some(&b'\n');
        if !cut {
            line.pop();
        }
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        if !format_checked && let Some(found) = header_format(&line) {
            format_known(path, found)?;
            format_checked = true;
        }
        let at = || format!("{}:{number}", path.display());
        let record = std::str::from_utf8(&line)
            .map_err(|e| e.to_string())
            .and_then(|text| parse_record(text).map_err(|e| e.to_string()));
        match record {
            Ok(Record::Run(h)) if keep == Keep::Header => {
                // Its other lines are read, and warned about, with its launches.
                return Ok((
                    Some(ResultFile {
                        path: path.to_owned(),
                        header: h,
                        launches: Vec::new(),
                        end: None,
                    }),
                    Vec::new(),
                ));
            }
            Ok(Record::Run(h)) if header.is_none() => header = Some(h),
            Ok(Record::Run(_)) => {
                warnings.push(format!("{}: a second run header is skipped", at()))
            }
            Ok(Record::Launch(l)) => match keep {
                Keep::Whole => launches.push(l),
                Keep::Report => launches.push(l.for_report()),
                Keep::Header | Keep::Nothing => {}
            },
            Ok(Record::End(e)) => end = Some(e),
            // An extra round's record is read by its feature, only when a report asks.
            Ok(Record::Resume(_) | Record::Extra(_)) => {}
            Err(e) => warnings.push(damaged_line(path, number, cut, &e)),
        }
    }
    launches.shrink_to_fit();
    let file = match header {
        Some(header) => Some(ResultFile {
            path: path.to_owned(),
            header,
            launches,
            end,
        }),
        None => {
            warnings.push(format!(
                "{}: skipped, because it has no run header and so is no pretouch result file",
                path.display()
            ));
            None
        }
    };
    Ok((file, warnings))
}
