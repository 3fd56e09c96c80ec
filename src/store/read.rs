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
use crate::store::file::{
    LAUNCH_LINE_START, Line, MAX_LINE, damaged_line, long_line, next_line, tag_of,
};
use crate::store::record::{CORE_TAGS, Entries, ExtraLine, FORMAT_VERSION, LaunchRecord, Record};
use crate::store::write::StoreError;

/// Everything read from the paths given to `report`.
#[derive(Debug, Default)]
pub struct Results {
    pub files: Vec<ResultFile>,
    /// Lines or files that could not be read, each naming the file and line.
    pub warnings: Vec<String>,
    /// The files found and skipped whose launches are read nowhere else, each with the
    /// warning that says why. A verdict over these results leaves their launches out.
    pub unread: Vec<(PathBuf, String)>,
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
///
/// One bad file costs that file only. A file found in a folder that cannot be read, is
/// not a regular file, or has a newer format is named in a warning and skipped, and the
/// others are read. A path named on the command line is an error instead, because the
/// user asked for that file.
///
/// A run is read once, whatever the copies. A run is known by its header's label, matrix
/// name, host and start, and of several files that hold one run only the longest is
/// read, because a copy taken while the run went on is a part of the finished file. The
/// others are named and skipped.
fn read_results_with(
    paths: &[PathBuf],
    keep: Keep,
    mut each_file: impl FnMut(&Path, Vec<String>),
) -> Result<Results, StoreError> {
    let roots: Vec<PathBuf> = paths
        .iter()
        .filter(|p| p.is_dir())
        .filter_map(|p| p.canonicalize().ok())
        .collect();
    let mut found = Vec::new();
    for path in paths {
        collect_named(path, &roots, &mut found)?;
    }
    // A file reached twice, by two paths named or through a folder named twice, is
    // the same file, so it is read once without a word.
    found.sort_by(|a, b| a.path.cmp(&b.path));
    let mut seen_files = std::collections::HashSet::new();
    found.retain(|f| {
        f.skipped.is_some()
            || seen_files.insert(f.path.canonicalize().unwrap_or_else(|_| f.path.clone()))
    });
    // Each kind of a feature's files, then the result files: what no kind claims.
    let mut of_kind: Vec<Vec<PathBuf>> = FILE_KINDS.iter().map(|_| Vec::new()).collect();
    let found: Vec<Found> = found
        .into_iter()
        .filter(|f| {
            if f.skipped.is_some() {
                return true;
            }
            match FILE_KINDS.iter().position(|k| (k.is_one)(&f.path)) {
                Some(i) => {
                    of_kind[i].push(f.path.clone());
                    false
                }
                None => true,
            }
        })
        .collect();
    let to_read: Vec<PathBuf> = found
        .iter()
        .filter(|f| f.skipped.is_none())
        .map(|f| f.path.clone())
        .collect();
    let mut reads = read_each(&to_read, keep).into_iter();
    let mut results = Results::default();
    // Each file found, in name order: what it held, and the warnings of reading it.
    let mut files: Vec<(PathBuf, Option<ResultFile>, Vec<String>)> = Vec::new();
    for f in found {
        if let Some(why) = f.skipped {
            if !f.read_elsewhere {
                results.unread.push((f.path.clone(), why.clone()));
            }
            files.push((f.path, None, vec![why]));
            continue;
        }
        let read = reads.next().expect("one read a file to read");
        let named = paths.contains(&f.path);
        let (file, warnings) = match read {
            Ok(read) => read,
            Err(e) if named => return Err(e),
            Err(e) => {
                let why = skipped_because(&e);
                results.unread.push((f.path.clone(), why.clone()));
                files.push((f.path, None, vec![why]));
                continue;
            }
        };
        // A file named on the command line was meant to be read: say why it was not.
        if file.is_none() && named {
            let bytes = first_bytes(&f.path);
            return Err(StoreError::NotResults {
                why: first_bad_line(&bytes),
                path: f.path.clone(),
            });
        }
        if file.is_none() && std::fs::metadata(&f.path).is_ok_and(|m| m.len() > 0) {
            let why = warnings.last().cloned().unwrap_or_default();
            results.unread.push((f.path.clone(), why));
        }
        files.push((f.path, file, warnings));
    }
    read_each_run_once(&mut files);
    for (path, file, warnings) in files {
        results.files.extend(file);
        if keep == Keep::Header {
            each_file(&path, warnings);
        } else {
            results.warnings.extend(warnings);
        }
    }
    for paths in &mut of_kind {
        paths.sort();
        paths.dedup();
    }
    for (kind, paths) in FILE_KINDS.iter().zip(&of_kind) {
        let part = (kind.read)(paths, &mut results.warnings);
        results.features.push(*kind, part);
    }
    Ok(results)
}

/// What identifies a run: its header's label, matrix name, host and start. One machine
/// runs one `pretouch run` at a time and each starts in a second of its own, so two
/// files with the same four hold the same run.
fn run_identity(file: &ResultFile) -> (&str, &str, &str, &str) {
    let h = &file.header;
    (&h.label, &h.name, &h.host.hostname, &h.started_at)
}

/// Keeps one file of each run among `files` (in name order): the longest, and of files
/// as long the first by name. Each other is replaced by a warning that names the file
/// kept, because its launches are that file's launches again.
fn read_each_run_once(files: &mut [(PathBuf, Option<ResultFile>, Vec<String>)]) {
    let size = |p: &Path| std::fs::metadata(p).map_or(0, |m| m.len());
    let mut kept: std::collections::HashMap<(String, String, String, String), usize> =
        std::collections::HashMap::new();
    let mut copies: Vec<(usize, usize)> = Vec::new();
    for i in 0..files.len() {
        let Some(file) = &files[i].1 else { continue };
        let (a, b, c, d) = run_identity(file);
        let key = (a.to_owned(), b.to_owned(), c.to_owned(), d.to_owned());
        match kept.get(&key) {
            None => {
                kept.insert(key, i);
            }
            Some(&k) if size(&files[i].0) > size(&files[k].0) => {
                copies.push((k, i));
                kept.insert(key, i);
            }
            Some(&k) => copies.push((i, k)),
        }
    }
    // A file first kept and then outdone by a longer one names the file read in the end.
    let last = |mut k: usize| {
        while let Some(&(_, next)) = copies.iter().find(|(c, _)| *c == k) {
            k = next;
        }
        k
    };
    let copies: Vec<(usize, usize)> = copies.iter().map(|&(c, k)| (c, last(k))).collect();
    for (copy, read) in copies {
        let header = &files[copy].1.as_ref().expect("a copy has a header").header;
        let why = format!(
            "{}: skipped, because it holds the same run as `{}`, label `{}` started at {} on {}, and a launch is counted once. Of the files of one run the longest is read.",
            files[copy].0.display(),
            files[read].0.display(),
            header.label,
            header.started_at,
            header.host.hostname
        );
        files[copy].1 = None;
        files[copy].2 = vec![why];
    }
}

/// The warning for a file found in a folder and skipped because of `e`.
fn skipped_because(e: &StoreError) -> String {
    match e {
        StoreError::NewerFormat { path, found, known } => format!(
            "{}: skipped, because it has record format {found}, newer than format {known}, the newest this pretouch reads. Read it with the pretouch that wrote it, or a newer one.",
            path.display()
        ),
        StoreError::NotRegular { path, kind } => format!(
            "{}: skipped, because it is {kind}, not a regular file",
            path.display()
        ),
        StoreError::Read { path, source } => format!(
            "{}: skipped, because it cannot be read. {source}",
            path.display()
        ),
        other => format!("skipped: {other}"),
    }
}

/// A path found under the paths given, to read or skipped with a warning.
struct Found {
    path: PathBuf,
    /// Why it is not read, when it is not: the warning that names it.
    skipped: Option<String>,
    /// Skipped because the file it leads to is read anyway, so no launch is lost.
    read_elsewhere: bool,
}

impl Found {
    fn read(path: PathBuf) -> Found {
        Found {
            path,
            skipped: None,
            read_elsewhere: false,
        }
    }

    fn skipped(path: PathBuf, why: String) -> Found {
        Found {
            path,
            skipped: Some(why),
            read_elsewhere: false,
        }
    }
}

/// Whether a file of this name is one the reader takes: a result file or a feature's.
fn wanted(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "jsonl") || FILE_KINDS.iter().any(|k| (k.is_one)(path))
}

/// A path named on the command line: a file is read and a folder walked, following a
/// symbolic link, because the user named it. Anything else is refused at once.
fn collect_named(path: &Path, roots: &[PathBuf], out: &mut Vec<Found>) -> Result<(), StoreError> {
    let meta = std::fs::metadata(path).map_err(|source| StoreError::Read {
        path: path.to_owned(),
        source,
    })?;
    if meta.is_file() {
        out.push(Found::read(path.to_owned()));
        return Ok(());
    }
    if !meta.is_dir() {
        return Err(StoreError::NotRegular {
            path: path.to_owned(),
            kind: crate::access::what_kind(meta.file_type()),
        });
    }
    collect_jsonl(path, roots, out)
}

/// Walks the folder `dir` for result files and the features' files. A folder inside is
/// walked, and a FIFO, socket or device of a wanted name is skipped with a warning,
/// because reading it would block or never end.
///
/// A symbolic link is followed only to a regular file outside the folders named, so
/// that a link to last week's run reads it. A link to a file inside those folders is
/// skipped, because the walk reads that file already. A link to a folder is never
/// followed, because `up -> ..` would read every file again and again, and is named
/// instead.
fn collect_jsonl(dir: &Path, roots: &[PathBuf], out: &mut Vec<Found>) -> Result<(), StoreError> {
    let read_err = |source| StoreError::Read {
        path: dir.to_owned(),
        source,
    };
    for entry in std::fs::read_dir(dir).map_err(read_err)? {
        let entry = entry.map_err(read_err)?;
        let p = entry.path();
        let kind = match entry.file_type() {
            Ok(kind) => kind,
            Err(e) => {
                if wanted(&p) {
                    out.push(Found::skipped(
                        p.clone(),
                        format!("{}: skipped, because it cannot be read. {e}", p.display()),
                    ));
                }
                continue;
            }
        };
        if kind.is_dir() {
            match collect_jsonl(&p, roots, out) {
                Ok(()) => {}
                Err(e) => out.push(Found::skipped(p.clone(), skipped_because(&e))),
            }
        } else if kind.is_symlink() {
            out.extend(follow(&p, roots));
        } else if wanted(&p) {
            if kind.is_file() {
                out.push(Found::read(p));
            } else {
                let why = format!(
                    "{}: skipped, because it is {}, not a regular file",
                    p.display(),
                    crate::access::what_kind(kind)
                );
                out.push(Found::skipped(p, why));
            }
        }
    }
    Ok(())
}

/// What the walk does with the symbolic link `link`, by [`collect_jsonl`]'s rule:
/// nothing for a link of a name the reader does not take, and it is not a folder.
fn follow(link: &Path, roots: &[PathBuf]) -> Option<Found> {
    let skip = |why: String| Some(Found::skipped(link.to_owned(), why));
    let shown = link.display();
    let meta = match std::fs::metadata(link) {
        Ok(meta) => meta,
        Err(_) if !wanted(link) => return None,
        Err(e) => {
            return skip(format!(
                "{shown}: skipped, because it is a symbolic link that leads to no file. {e}"
            ));
        }
    };
    if meta.is_dir() {
        let why = format!(
            "{shown}: skipped, because it is a symbolic link to a folder, and such links are not followed so that no file is read twice. Name the folder on the command line to read it."
        );
        // A link such as `up -> ..` or `self -> .` leads to the folders read or above
        // them, so it hides nothing the user asked for.
        let target = link.canonicalize().ok()?;
        let read_elsewhere = roots
            .iter()
            .any(|r| target.starts_with(r) || r.starts_with(&target));
        return Some(Found {
            read_elsewhere,
            ..Found::skipped(link.to_owned(), why)
        });
    }
    if !wanted(link) {
        return None;
    }
    if !meta.is_file() {
        return skip(format!(
            "{shown}: skipped, because it is a symbolic link to {}, not to a regular file",
            crate::access::what_kind(meta.file_type())
        ));
    }
    let target = link.canonicalize().ok()?;
    if roots.iter().any(|r| target.starts_with(r)) {
        // Not a file lost, so not in `unread`, because the walk reads the target.
        let why = format!(
            "{shown}: skipped, because it is a symbolic link to `{}`, which is read already, and a launch is counted once",
            target.display()
        );
        return Some(Found {
            read_elsewhere: true,
            ..Found::skipped(link.to_owned(), why)
        });
    }
    Some(Found::read(link.to_owned()))
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
    let file = crate::access::open_regular(path)
        .map_err(read_err)?
        .map_err(|kind| StoreError::NotRegular {
            path: path.to_owned(),
            kind,
        })?;
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

/// The first bytes of `path`, up to a few lines of the longest kept, to say why it is
/// no result file. Reading it whole would cost its size in memory, whatever it is.
fn first_bytes(path: &Path) -> Vec<u8> {
    use std::io::Read as _;
    let mut bytes = Vec::new();
    if let Ok(Ok(file)) = crate::access::open_regular(path) {
        let _ = file.take(4 * MAX_LINE as u64).read_to_end(&mut bytes);
    }
    bytes
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
///
/// Each launch of the run is kept once. A launch line whose `seq` an earlier line of
/// the file holds already is left out and named, because a copied or repeated line
/// counted again would shrink the intervals as if the run had more launches. A launch
/// line that claims neither a time to `main()` nor a failure is damaged, so it is named
/// and left out rather than counted as a failed launch.
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
    let mut seen = Seen::default();
    loop {
        let read = next_line(&mut reader, &mut line).map_err(|source| StoreError::Read {
            path: path.to_owned(),
            source,
        })?;
        match read {
            Line::End => break,
            Line::TooLong => {
                number += 1;
                warnings.push(long_line(path, number));
                continue;
            }
            Line::Read => number += 1,
        }
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
            Ok(Record::Launch(l)) if l.claims_nothing() => warnings.push(format!(
                "{}: a launch record with neither `time_to_main_ns` nor `failure` is skipped, because a launch either reached main() or failed, so the line is damaged",
                at()
            )),
            Ok(Record::Launch(l)) if !seen.first(l.seq, number) => {}
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
    warnings.extend(seen.warning(path));
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

/// The launches of one file seen so far, by `seq`, with the line of each, and the
/// lines that repeat one of them. A run numbers its launches from 0, so the lines are
/// kept in a list indexed by `seq`, a word a launch, rather than in a map that costs
/// several. A `seq` far beyond the launches seen, which only damage makes, goes to a
/// map instead, so that no number in a file can make the list large.
#[derive(Default)]
struct Seen {
    /// The line of each `seq` seen, where it is below the bound of [`Seen::first`];
    /// 0 where none is seen yet, because lines count from 1.
    dense: Vec<usize>,
    /// The line of each `seq` seen beyond that bound.
    sparse: std::collections::HashMap<u64, usize>,
    /// How many launches are in `dense`.
    in_dense: usize,
    /// Each repeating line, with the line it repeats.
    repeats: Vec<(usize, usize)>,
}

impl Seen {
    /// Whether the launch `seq` at line `number` is the first of its `seq` in the file.
    fn first(&mut self, seq: u64, number: usize) -> bool {
        // The list is at most four times as long as the launches in it, plus a little.
        let bound = 4 * (self.in_dense + 1024);
        let earlier = match usize::try_from(seq) {
            Ok(i) if i < bound => {
                if i >= self.dense.len() {
                    self.dense.resize(i + 1, 0);
                }
                let earlier = match self.dense[i] {
                    0 if self.sparse.is_empty() => None,
                    0 => self.sparse.get(&seq).copied(),
                    line => Some(line),
                };
                if earlier.is_none() {
                    self.dense[i] = number;
                    self.in_dense += 1;
                }
                earlier
            }
            _ => match self.sparse.entry(seq) {
                std::collections::hash_map::Entry::Vacant(v) => {
                    v.insert(number);
                    None
                }
                std::collections::hash_map::Entry::Occupied(o) => Some(*o.get()),
            },
        };
        match earlier {
            Some(line) => {
                self.repeats.push((number, line));
                false
            }
            None => true,
        }
    }

    /// One warning that names every repeating line of `path`, in runs of lines so that
    /// a file whose every line is doubled reads as one range. The first repeat names
    /// the line it repeats, so the reader can compare the two.
    fn warning(&self, path: &Path) -> Option<String> {
        let &(first, of) = self.repeats.first()?;
        let lines: Vec<usize> = self.repeats.iter().map(|&(n, _)| n).collect();
        let n = lines.len();
        let launches = if n == 1 {
            "launch line"
        } else {
            "launch lines"
        };
        Some(format!(
            "{}: {n} {launches} left out, {}, because each repeats the `seq` of a launch an earlier line of the run holds, and a launch is counted once. Line {first} repeats line {of}.",
            path.display(),
            line_ranges(&lines)
        ))
    }
}

/// Line numbers in increasing order as runs, such as `lines 4-9, 12` or `line 3`.
fn line_ranges(lines: &[usize]) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let mut j = i;
        while j + 1 < lines.len() && lines[j + 1] == lines[j] + 1 {
            j += 1;
        }
        out.push(if i == j {
            lines[i].to_string()
        } else {
            format!("{}-{}", lines[i], lines[j])
        });
        i = j + 1;
    }
    let word = if lines.len() == 1 { "line" } else { "lines" };
    format!("{word} {}", out.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seq_is_seen_once_however_far_it_lies_and_the_list_stays_small() {
        let mut seen = Seen::default();
        // Beyond the list's bound at first, then within it once more launches came.
        assert!(seen.first(5000, 1));
        for seq in 0..1000 {
            assert!(seen.first(seq, 2 + seq as usize));
        }
        assert!(!seen.first(5000, 2000));
        assert!(!seen.first(7, 2001));
        // Numbers only damage makes stay out of the list.
        assert!(seen.first(u64::MAX, 2002));
        assert!(seen.first(1 << 40, 2003));
        assert!(!seen.first(u64::MAX, 2004));
        assert!(seen.dense.len() < 4 * 2024, "{}", seen.dense.len());
        assert_eq!(seen.repeats, [(2000, 1), (2001, 9), (2004, 2002)]);
    }
}
