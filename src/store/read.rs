//! Reading result files back: every record that parses, and a warning naming the file
//! and line for each that does not.

use std::path::{Path, PathBuf};

use crate::machine::calibrate::Calibration;
use crate::store::calibration::is_calibration_file;
use crate::store::record::{FORMAT_VERSION, LaunchRecord, Record, RunEnd, RunHeader};
use crate::store::write::StoreError;

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
        let before = results.files.len();
        read_file(&path, &mut results)?;
        // A file named on the command line was meant to be read: say why it was not.
        if results.files.len() == before && paths.contains(&path) {
            let bytes = std::fs::read(&path).unwrap_or_default();
            return Err(StoreError::NotResults {
                why: first_bad_line(&bytes),
                path,
            });
        }
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
    check_format(path, &bytes)?;
    let (file, warnings) = parse_result_file(path, &bytes);
    results.files.extend(file);
    results.warnings.extend(warnings);
    Ok(())
}

/// Refuses a file whose run header says a newer record format than this build knows:
/// its fields may mean what this build does not know, so reading what happens to parse
/// would report figures the file does not hold. Every older format still reads.
pub fn check_format(path: &Path, bytes: &[u8]) -> Result<(), StoreError> {
    let header = bytes
        .split(|&b| b == b'\n')
        .filter_map(|line| serde_json::from_slice::<serde_json::Value>(line).ok())
        .find(|v| v["record"] == "run");
    let found = header.as_ref().and_then(|h| h["format"].as_u64());
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
            .and_then(|t| serde_json::from_str::<Record>(t).map_err(|e| e.to_string()));
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
            // Read by `store::profile::read_profiles` and `store::probe::read_probes`, only
            // when a report asks.
            Ok(Record::Resume(_) | Record::Profile(_) | Record::Probe(_)) => {}
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
