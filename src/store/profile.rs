//! Profile records read back. The type, [`ProfileRecord`], is in `record.rs` with the
//! others: one JVM launched under `perf record` (`pretouch run --profile`), apart from
//! the timed launches and in no timing statistic, with its samples as folded stacks,
//! so that reports and flame graphs work offline, years later.

use std::collections::BTreeSet;

use crate::store::read::ResultFile;
use crate::store::record::CellKey;
pub use crate::store::record::ProfileRecord;
use crate::store::record::Record;

/// Profiled launches a file still lacks: those its header's `profile_rounds` plan (every
/// cell of its launches, each round once without and once with pretouch) and that no
/// profile record holds. 0 for a run started without profiling, or by a version that
/// did not record its rounds.
pub fn missing_profiles(file: &ResultFile) -> u64 {
    let Some(rounds) = file.header.profile_rounds else {
        return 0;
    };
    let cells: BTreeSet<&CellKey> = file.launches.iter().map(|l| &l.cell).collect();
    let present: BTreeSet<(CellKey, u32, bool)> = read_profiles(std::slice::from_ref(file))
        .into_iter()
        .map(|p| (p.record.cell, p.record.round, p.record.pretouch))
        .filter(|(cell, round, _)| *round < rounds && cells.contains(cell))
        .collect();
    (cells.len() as u64 * u64::from(rounds) * 2).saturating_sub(present.len() as u64)
}

/// A profile record and the label of the file it was read from.
#[derive(Debug, Clone)]
pub struct LabelledProfile {
    pub label: String,
    pub record: ProfileRecord,
}

/// The profile records of result files already read (their lines are read again; lines
/// that do not parse were warned about when the files were read).
pub fn read_profiles(files: &[ResultFile]) -> Vec<LabelledProfile> {
    let profile = |r| match r {
        Record::Profile(record) => Some(record),
        _ => None,
    };
    crate::store::read::reread(files, r#""record":"profile""#, profile)
        .into_iter()
        .map(|(label, record)| LabelledProfile { label, record })
        .collect()
}
