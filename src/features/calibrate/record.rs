//! The store's part of calibrate: `pretouch calibrate`'s results on disk, one JSON file a calibration beside
//! the label's result files: `<results>/<label>/calibrate-<UTC time>.json`.

use std::path::{Path, PathBuf};

use crate::features::calibrate::machine::Calibration;

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
