//! The profile record: one JVM launched under `perf record` (`pretouch run --profile`),
//! apart from the timed launches and never in their statistics, with its samples as
//! folded stacks, so that reports and flame graphs work offline, years later.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::store::read::ResultFile;
use crate::store::record::{CellKey, Record};
use crate::units::Nanos;

/// One profiled launch (`"record":"profile"`). Written after the run's timed launches.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProfileRecord {
    /// Position among the run's profiled launches, from 0.
    pub seq: u64,
    /// Profiled round of the cell, from 0. Each round launches the cell once without and
    /// once with pretouch.
    pub round: u32,
    /// The cell, as in its launch records.
    #[serde(flatten)]
    pub cell: CellKey,
    /// Launched with `-XX:+AlwaysPreTouch` (else with `-XX:-AlwaysPreTouch`).
    pub pretouch: bool,
    /// The full command line: `perf record ... --`, then the JVM's as in a launch record.
    pub command: Vec<String>,
    /// UTC wall-clock time of the spawn (of perf), RFC 3339 with milliseconds.
    pub started_at: String,
    /// Time from the spawn of perf to the JVM's `main()` (the agent's stamp), as for a
    /// timed launch; set against the timed launches it is perf's overhead. Absent when the
    /// launch failed.
    pub time_to_main_ns: Option<Nanos>,
    /// Spawn of perf to its reap (perf writes its data after the JVM exits).
    pub wall_ns: Nanos,
    /// Why the launch or the reading of its samples failed; absent when both succeeded.
    pub failure: Option<String>,
    /// perf's event: `cpu-clock` (the kernel's timer; needs no hardware PMU).
    pub event: String,
    /// Sampling frequency, per second and thread (`perf record -F`).
    pub frequency_hz: u32,
    /// How stacks were walked: `fp` (frame pointers, `perf record -g`).
    pub call_graph: String,
    /// Samples recorded: the sum of the counts in `folded`.
    pub samples: u64,
    /// The samples as folded stacks, inferno's format: frames from the thread (root; its
    /// `#N` dropped, so `GC_Thread` is every GC worker) to the leaf, `;`-separated, then a
    /// space and the number of samples with that stack. Kernel frames end in `_[k]`;
    /// user frames are demangled symbols, or `[libjvm.so]` where perf had none.
    pub folded: Vec<String>,
    /// perf.data of this launch, when kept (`--keep-perf-data`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub perf_data: Option<PathBuf>,
}

impl ProfileRecord {
    pub fn ok(&self) -> bool {
        self.failure.is_none() && self.time_to_main_ns.is_some()
    }
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
