//! The options of `pretouch calibrate`.

use std::path::PathBuf;

use crate::features::calibrate::machine::{Layout, Variant};
use crate::matrix::HeapSize;
use crate::units::Bytes;

#[derive(Debug, clap::Args)]
pub struct CalibrateArgs {
    /// Threads (and processes) faulting at once; several values measure each
    /// [default: 1 and the online CPUs]
    #[arg(long, num_args = 1.., value_parser = clap::value_parser!(u16).range(1..=512))]
    pub threads: Vec<u16>,
    /// Memory faulted per pass and configuration, split between the workers (JVM size syntax)
    #[arg(long, default_value = "1g", value_parser = HeapSize::parse_bytes)]
    pub size: Bytes,
    /// Counted passes per configuration and round, after one uncounted pass
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..))]
    pub passes: u32,
    /// Rounds: each measures every configuration once, interleaved (alternately in order
    /// and in reverse); `report --calibrate` tests the rounds' medians, and needs 6 rounds
    /// a side for a mark in a table of up to 23 rows
    #[arg(long, default_value_t = 6, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub rounds: u32,
    /// Stop free page reporting for the calibration (root; restored afterwards) and touch
    /// the size once before it, so that no pass pays the VM host's faults
    #[arg(long)]
    pub comparable_memory: bool,
    /// Layouts to measure [default: all three]
    #[arg(long, value_enum, num_args = 1..)]
    pub layout: Vec<Layout>,
    /// Name the results are filed under [default: the kernel release, `uname -r`]
    #[arg(long)]
    pub label: Option<String>,
    /// Folder of result files; the calibration goes to <DIR>/<label>/calibrate-<UTC time>.json
    #[arg(long, default_value = "results")]
    pub results: PathBuf,
    /// Print only; store nothing
    #[arg(long)]
    pub no_save: bool,
    /// CPU sets, each measured with one worker pinned to each of its CPUs: a CPU list
    /// (`0-6`), `all`, or a topology spec (`"1 L3 domain, 7 CPUs"`, `"7 L3 domains, 1 CPU
    /// each"`, `"2 NUMA nodes"`, `"1 core, 2 CPUs"`, `"4 CPUs"`); see docs/matrix.md, "CPU sets by topology"
    #[arg(long, num_args = 1.., value_name = "SET")]
    pub cpus: Vec<String>,
    /// What each pass does: zap (one mapping, MADV_DONTNEED between passes), pft (a fresh
    /// mapping every pass), huge (the zap loop on a MADV_HUGEPAGE mapping) [default: zap]
    #[arg(long, value_enum, num_args = 1..)]
    pub variant: Vec<Variant>,
}
