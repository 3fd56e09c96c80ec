//! `pretouch run`'s options for the kernel profile, flattened into its command line.

use std::path::PathBuf;

/// What `pretouch run` is asked about the kernel profile.
#[derive(Debug, Clone, clap::Args)]
pub struct ProfileArgs {
    /// After the timed launches, a few profiled rounds per cell (with and without pretouch)
    /// under `perf record -e cpu-clock -g`, stored apart and in no timing median; needs
    /// perf (Debian: linux-perf). Same as `profile: true` in the matrix
    #[arg(long)]
    pub profile: bool,
    /// Profiled rounds per cell with --profile (each: one launch without, one with pretouch)
    #[arg(long, default_value_t = crate::features::profile::schedule::DEFAULT_ROUNDS,
          value_parser = clap::value_parser!(u32).range(1..=100))]
    pub profile_rounds: u32,
    /// Keep each profiled launch's perf.data in DIR (default: deleted once its samples are
    /// folded into the result file)
    #[arg(long, value_name = "DIR")]
    pub keep_perf_data: Option<PathBuf>,
}
