//! Probe records (`pretouch run --probe`): one JVM launched while bpftrace timed its page
//! faults and lock waits from exec to `main()`, apart from the timed launches and in no
//! timing statistic. Stored as `"record":"probe"` lines in the run's result file, after
//! its timed launches, like the profile records; read back here. The type,
//! [`ProbeRecord`], is in `record.rs` with the others.

use crate::store::extra::{self, Labelled};
use crate::store::read::ResultFile;
pub use crate::store::record::ProbeRecord;

/// A probe record and the label of the file it was read from.
pub type LabelledProbe = Labelled<ProbeRecord>;

/// The probe records of result files already read ([`extra::read_all`]; a line that
/// does not parse was warned about when the files were read).
pub fn read_probes(files: &[ResultFile]) -> Vec<LabelledProbe> {
    extra::read_all(files).probes
}

/// Probed launches a file still lacks: those its header's `probe_rounds` plan and that
/// no probe record holds ([`extra::missing_extras`]). 0 for a run started without probes.
pub fn missing_probes(file: &ResultFile) -> u64 {
    extra::missing_extras(file).1
}
