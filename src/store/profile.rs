//! Profile records read back. The type, [`ProfileRecord`], is in `record.rs` with the
//! others: one JVM launched under `perf record` (`pretouch run --profile`), apart from
//! the timed launches and in no timing statistic, with its samples as folded stacks,
//! so that reports and flame graphs work offline, years later.

use crate::store::read::ResultFile;
pub use crate::store::record::ProfileRecord;
use crate::store::record::Record;

/// A profile record and the label of the file it was read from.
#[derive(Debug, Clone)]
pub struct LabelledProfile {
    pub label: String,
    pub record: ProfileRecord,
}

/// The profile records of result files already read (their lines are read again; lines
/// that do not parse were warned about when the files were read).
pub fn read_profiles(files: &[ResultFile]) -> Vec<LabelledProfile> {
    let mut out = Vec::new();
    for file in files {
        let Ok(text) = std::fs::read_to_string(&file.path) else {
            continue;
        };
        out.extend(
            text.lines()
                .filter(|l| l.contains(r#""record":"profile""#))
                .filter_map(|l| match serde_json::from_str::<Record>(l) {
                    Ok(Record::Profile(record)) => Some(LabelledProfile {
                        label: file.header.label.clone(),
                        record,
                    }),
                    _ => None,
                }),
        );
    }
    out
}
