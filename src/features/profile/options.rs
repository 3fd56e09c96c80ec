//! `pretouch run`'s options for the kernel profile, flattened into its command line.

use std::path::PathBuf;

/// What `pretouch run` is asked about the kernel profile.
#[derive(Debug, Clone, clap::Args)]
pub struct ProfileArgs {
    /// Add a few rounds per cell under `perf record` after the timed launches.
    ///
    /// Their launches are stored apart and left out of every timing median, because perf
    /// slows them. It needs perf, which Debian's linux-perf package installs. The matrix
    /// key `profile: true` does the same.
    #[arg(long)]
    pub profile: bool,
    /// The profiled rounds per cell. Each round launches once without and once with
    /// pretouch.
    #[arg(long, default_value_t = crate::features::profile::schedule::DEFAULT_ROUNDS,
          value_parser = clap::value_parser!(u32).range(1..=100))]
    pub profile_rounds: u32,
    /// Keep each profiled launch's perf.data in DIR. Otherwise it is deleted once its
    /// samples are in the result file.
    #[arg(long, value_name = "DIR")]
    pub keep_perf_data: Option<PathBuf>,
}
