//! The store's part of calibrate: `pretouch calibrate`'s results on disk, one JSON file a calibration beside
//! the label's result files: `<results>/<label>/calibrate-<UTC time>.json`.

use std::path::{Path, PathBuf};

use crate::features::calibrate::machine::Calibration;
use crate::store::feature_files::{FileKind, Part};

/// The calibration files among the result files, as the store finds and reads them. The
/// report at the end of a run takes its label's, for its share of the ceiling.
pub const FILES: FileKind = FileKind {
    is_one: is_calibration_file,
    read: read_files,
    beside_each_run: true,
};

/// Every calibration of `paths`, a `Vec<Calibration>`. A file that cannot be read or
/// parsed is skipped with a warning that names it.
fn read_files(paths: &[PathBuf], warnings: &mut Vec<String>) -> Box<dyn Part> {
    let mut calibrations: Vec<Calibration> = Vec::new();
    for path in paths {
        let parsed = std::fs::read_to_string(path)
            .map_err(|e| e.to_string())
            .and_then(|t| serde_json::from_str::<Calibration>(&t).map_err(|e| e.to_string()));
        match parsed {
            Ok(c) => calibrations.push(c),
            Err(e) => warnings.push(format!(
                "{}: unreadable calibration skipped ({e})",
                path.display()
            )),
        }
    }
    Box::new(calibrations)
}

/// File name of a calibration taken at `utc_stamp`.
pub fn file_name(utc_stamp: &str) -> String {
    format!("calibrate-{utc_stamp}.json")
}

/// Whether a file is a calibration file.
pub fn is_calibration_file(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.starts_with("calibrate-") && n.ends_with(".json"))
}

/// Writes `dir/calibrate-<stamp>.json`; never overwrites.
pub fn save(c: &Calibration, dir: &Path, utc_stamp: &str) -> std::io::Result<PathBuf> {
    std::fs::create_dir_all(dir)?;
    let path = dir.join(file_name(utc_stamp));
    let text = serde_json::to_string_pretty(c).expect("a calibration always serializes");
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path)?;
    std::io::Write::write_all(&mut file, text.as_bytes())?;
    Ok(path)
}
