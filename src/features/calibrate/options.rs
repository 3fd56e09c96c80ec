//! The options of `pretouch calibrate`.

use std::path::PathBuf;

use crate::features::calibrate::machine::{Layout, Variant};
use crate::matrix::HeapSize;
use crate::units::Bytes;

#[derive(Debug, clap::Args)]
pub struct CalibrateArgs {
    /// How many threads or processes fault at once. Each value given is measured
    /// [default: 1 and the online CPUs]
    #[arg(long, num_args = 1.., value_parser = clap::value_parser!(u16).range(1..=512))]
    pub threads: Vec<u16>,
    /// The memory each pass faults in, split between the workers
    #[arg(long, default_value = "1g", value_parser = HeapSize::parse_bytes)]
    pub size: Bytes,
    /// The counted passes of each configuration in a round. One uncounted pass comes
    /// first.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..))]
    pub passes: u32,
    /// The rounds. Each measures every configuration once, in order and then in reverse.
    /// `report --calibrate` needs 6 rounds a side to mark a change.
    #[arg(long, default_value_t = 6, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub rounds: u32,
    /// Stop free page reporting for the calibration and touch the memory once before it,
    /// so that no pass pays the VM host's faults. It needs root, and the setting is
    /// restored afterwards.
    #[arg(long)]
    pub comparable_memory: bool,
    /// The layouts to measure [default: all three]
    #[arg(long, value_enum, num_args = 1..)]
    pub layout: Vec<Layout>,
    /// The name the results are filed under [default: the kernel release]
    #[arg(long)]
    pub label: Option<String>,
    /// The folder of result files. The calibration goes to DIR/LABEL/calibrate-TIME.json.
    #[arg(long, default_value = "results")]
    pub results: PathBuf,
    /// Print the figures and store nothing
    #[arg(long)]
    pub no_save: bool,
    /// CPU sets, each measured with one worker pinned to each of its CPUs.
    ///
    /// A set is a CPU list such as `0-6`, `all`, or a description of the topology such as
    /// "2 NUMA nodes" or "7 L3 domains, 1 CPU each". docs/matrix.md lists the forms.
    #[arg(long, num_args = 1.., value_name = "SET")]
    pub cpus: Vec<String>,
    /// What each pass does [default: zap]
    #[arg(long, value_enum, num_args = 1..)]
    pub variant: Vec<Variant>,
}
