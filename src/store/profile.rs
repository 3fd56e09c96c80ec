//! Profile records read back. The type, [`ProfileRecord`], is in `record.rs` with the
//! others: one JVM launched under `perf record` (`pretouch run --profile`), apart from
//! the timed launches and in no timing statistic, with its samples as folded stacks,
//! so that reports and flame graphs work offline, years later.

use crate::store::extra::{self, Labelled};
use crate::store::read::ResultFile;
pub use crate::store::record::ProfileRecord;

/// Profiled launches a file still lacks: those its header's `profile_rounds` plan and
/// that no profile record holds ([`extra::missing_extras`]). 0 for a run started without
/// profiling, or by a version that did not record its rounds.
pub fn missing_profiles(file: &ResultFile) -> u64 {
    extra::missing_extras(file).0
}

/// A profile record and the label of the file it was read from.
pub type LabelledProfile = Labelled<ProfileRecord>;

/// The profile records of result files already read ([`extra::read_all`]; a line that
/// does not parse was warned about when the files were read).
pub fn read_profiles(files: &[ResultFile]) -> Vec<LabelledProfile> {
    extra::read_all(files).profiles
}
