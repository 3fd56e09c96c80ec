//! The features' parts of a run's header and of its resume record, and the extra rounds
//! a run owes. Each feature that adds to them has a field here. The store's records hold
//! these values, so they name no feature.
//!
//! The list is a file of its own, apart from `features/record.rs`, because the imports
//! run one way and no two files import each other: the store's records read this list,
//! and `features/record.rs` reads the store.

use serde::{Deserialize, Serialize};

/// The features' parts of a run's header, and of its resume record: each feature's own
/// key, in the order the record writes them. The header and the resume record hold one
/// each, flattened, so each key sits where it always has. They are read once a file, not
/// once a launch, so the flatten's buffering costs the reading nothing that counts.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunParts {
    /// The VM the run was taken in, when `pretouch run --kernel` booted this kernel with
    /// virtme-ng (as the host saw it: accelerator, emulated or not, QEMU and virtme-ng
    /// versions, vCPUs, memory, preallocation, the host's kernel). Absent for a run on
    /// the machine's own kernel, and in files written before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vm: Option<Box<crate::features::kernels::machine::VmShape>>,
}

/// The extra rounds per cell a run owes after its timed launches, each feature's own
/// key, in the order the header writes them, so that `--resume` runs those the file
/// lacks. The header writes these keys last, after keys of its own that come after
/// [`RunParts`], so it holds them apart, flattened at its end, and each key sits where it
/// always has.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExtraRounds {
    /// With `--profile` or `profile: true`: the profiled rounds per cell the run was
    /// started with (`--profile-rounds`). Absent without profiling, and in files written
    /// before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile_rounds: Option<u32>,
    /// With `--probe` or `probe: true`: the probed rounds per cell the run was started
    /// with (`--probe-rounds`). Absent without probes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probe_rounds: Option<u32>,
}
