//! Profile records (`pretouch run --profile`): one JVM launched under `perf record`,
//! apart from the timed launches and in no timing statistic, with its samples as
//! folded stacks, so that reports and flame graphs work offline, years later. Stored
//! as `"record":"profile"` lines in the run's result file, after its timed launches;
//! the store reads and counts them through [`KIND`], listed in `features::record`.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::store::extra::{ExtraKind, ExtraRecord, Labelled};
use crate::store::record::{Launched, PlannedAs};
use crate::units::Nanos;

/// What the store knows of profile records.
pub const KIND: ExtraKind = ExtraKind::of::<ProfileRecord>("profile", "profiled", |header| {
    header.extra_rounds.profile_rounds
});

/// One profiled launch (`"record":"profile"`). Written after the run's timed launches,
/// its fields in the order of `ProfileLine`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ProfileRecord {
    /// Where the launch stands among the run's profiled launches.
    #[serde(flatten)]
    pub at: PlannedAs,
    /// Its command line (`perf record ... --`, then the JVM's as in a launch record), the
    /// spawn (of perf) and the time from it to the JVM's `main()`: set against the timed
    /// launches, perf's overhead. Failed when the launch or the reading of its samples
    /// failed.
    #[serde(flatten)]
    pub launched: Launched,
    /// Spawn of perf to its reap (perf writes its data after the JVM exits).
    pub wall_ns: Nanos,
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

/// A profile record as its line holds it: the fields in the order files have always
/// had, [`Launched`]'s around `wall_ns`.
#[derive(Serialize)]
struct ProfileLine<'a> {
    #[serde(flatten)]
    at: &'a PlannedAs,
    command: &'a [String],
    started_at: &'a str,
    time_to_main_ns: Option<Nanos>,
    wall_ns: Nanos,
    failure: Option<&'a str>,
    event: &'a str,
    frequency_hz: u32,
    call_graph: &'a str,
    samples: u64,
    folded: &'a [String],
    #[serde(skip_serializing_if = "Option::is_none")]
    perf_data: Option<&'a PathBuf>,
}

impl Serialize for ProfileRecord {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        ProfileLine {
            at: &self.at,
            command: &self.launched.command,
            started_at: &self.launched.started_at,
            time_to_main_ns: self.launched.time_to_main_ns,
            wall_ns: self.wall_ns,
            failure: self.launched.failure.as_deref(),
            event: &self.event,
            frequency_hz: self.frequency_hz,
            call_graph: &self.call_graph,
            samples: self.samples,
            folded: &self.folded,
            perf_data: self.perf_data.as_ref(),
        }
        .serialize(serializer)
    }
}

impl ExtraRecord for ProfileRecord {
    const KIND: ExtraKind = KIND;

    fn parts(&self) -> (&PlannedAs, &Launched) {
        (&self.at, &self.launched)
    }
}

/// A profile record and the label of the file it was read from.
pub type LabelledProfile = Labelled<ProfileRecord>;
