//! Probe records (`pretouch run --probe`): one JVM launched while bpftrace timed its page
//! faults and lock waits from exec to `main()`, apart from the timed launches and in no
//! timing statistic. Stored as `"record":"probe"` lines in the run's result file, after
//! its timed launches, like the profile records; read back here.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use crate::launch::probe::{C2cSupport, Contention, FaultLatency};
use crate::store::read::ResultFile;
use crate::store::record::{CellKey, Record};
use crate::units::Nanos;

/// One probed launch (`"record":"probe"`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProbeRecord {
    /// Position among the run's probed launches, from 0.
    pub seq: u64,
    /// Probed round of the cell, from 0. Each round launches the cell once without and
    /// once with pretouch.
    pub round: u32,
    /// The cell, as in its launch records.
    #[serde(flatten)]
    pub cell: CellKey,
    /// Launched with `-XX:+AlwaysPreTouch` (else with `-XX:-AlwaysPreTouch`).
    pub pretouch: bool,
    /// The JVM's command line, as in a launch record (the JVM is not under a wrapper).
    pub command: Vec<String>,
    /// The bpftrace command that probed it, started before the JVM and stopped after it.
    pub probe_command: Vec<String>,
    /// UTC wall-clock time of the JVM's spawn, RFC 3339 with milliseconds.
    pub started_at: String,
    /// Spawn to `main()`, as for a timed launch: set against the timed launches of the
    /// same cell, the probes' cost. Absent when the launch failed.
    pub time_to_main_ns: Option<Nanos>,
    /// The agent's fault count at its main stamp (`getrusage` minor + major, exec to
    /// main, the forked child's few included): what `faults` must agree with.
    pub main_faults: Option<u64>,
    /// Why the launch or its probe failed; absent when both succeeded.
    pub failure: Option<String>,
    /// The faults, timed one by one; absent when the probe read nothing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub faults: Option<FaultLatency>,
    /// The lock waits, or why this kernel cannot tell them; absent when the probe read
    /// nothing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contention: Option<Contention>,
    /// Whether `perf c2c` could run on this machine (it needs the PMU's memory-sampling
    /// events); with them, `perf c2c record -g -- <command>` profiles the same launch.
    pub c2c: C2cSupport,
}

impl ProbeRecord {
    pub fn ok(&self) -> bool {
        self.failure.is_none() && self.time_to_main_ns.is_some() && self.faults.is_some()
    }
}

/// A probe record and the label of the file it was read from.
#[derive(Debug, Clone)]
pub struct LabelledProbe {
    pub label: String,
    pub record: ProbeRecord,
}

/// The probe records of result files already read (their lines are read again; lines
/// that do not parse were warned about when the files were read).
pub fn read_probes(files: &[ResultFile]) -> Vec<LabelledProbe> {
    let mut out = Vec::new();
    for file in files {
        let Ok(text) = std::fs::read_to_string(&file.path) else {
            continue;
        };
        out.extend(
            text.lines()
                .filter(|l| l.contains(r#""record":"probe""#))
                .filter_map(|l| match serde_json::from_str::<Record>(l) {
                    Ok(Record::Probe(record)) => Some(LabelledProbe {
                        label: file.header.label.clone(),
                        record: *record,
                    }),
                    _ => None,
                }),
        );
    }
    out
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
