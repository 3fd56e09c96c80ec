//! Probe records (`pretouch run --probe`): one JVM launched while bpftrace timed its page
//! faults and lock waits from exec to `main()`, apart from the timed launches and in no
//! timing statistic. Stored as `"record":"probe"` lines in the run's result file, after
//! its timed launches, like the profile records; read back here. The type,
//! [`ProbeRecord`], is in `record.rs` with the others.

use std::collections::BTreeSet;

use crate::store::read::ResultFile;
pub use crate::store::record::ProbeRecord;
use crate::store::record::{CellKey, Record};

/// A probe record and the label of the file it was read from.
#[derive(Debug, Clone)]
pub struct LabelledProbe {
    pub label: String,
    pub record: ProbeRecord,
}

/// The probe records of result files already read (their lines are read again; lines
/// that do not parse were warned about when the files were read).
pub fn read_probes(files: &[ResultFile]) -> Vec<LabelledProbe> {
    let probe = |r| match r {
        Record::Probe(record) => Some(*record),
        _ => None,
    };
    crate::store::read::reread(files, r#""record":"probe""#, probe)
        .into_iter()
        .map(|(label, record)| LabelledProbe { label, record })
        .collect()
}

/// Probed launches a file still lacks: those its header's `probe_rounds` plan (every
/// cell of its launches, each round once without and once with pretouch) and that no
/// probe record holds. 0 for a run started without probes.
pub fn missing_probes(file: &ResultFile) -> u64 {
    let Some(rounds) = file.header.probe_rounds else {
        return 0;
    };
    let cells: BTreeSet<&CellKey> = file.launches.iter().map(|l| &l.cell).collect();
    let present: BTreeSet<(CellKey, u32, bool)> = read_probes(std::slice::from_ref(file))
        .into_iter()
        .map(|p| (p.record.cell, p.record.round, p.record.pretouch))
        .filter(|(cell, round, _)| *round < rounds && cells.contains(cell))
        .collect();
    (cells.len() as u64 * u64::from(rounds) * 2).saturating_sub(present.len() as u64)
}
