//! `pretouch run`'s options for the fault-latency probe, flattened into its command line.

/// What `pretouch run` is asked about the fault-latency probe.
#[derive(Debug, Clone, clap::Args)]
pub struct ProbeArgs {
    /// Add a few rounds per cell in which bpftrace times every page fault and lock wait.
    ///
    /// They come after the timed launches, cover the JVM from exec to main(), and are
    /// left out of every timing median. It needs bpftrace, a kernel with BTF and root.
    /// The matrix key `probe: true` does the same.
    #[arg(long)]
    pub probe: bool,
    /// The probed rounds per cell. Each round launches once without and once with
    /// pretouch.
    #[arg(long, default_value_t = crate::features::probe::schedule::DEFAULT_ROUNDS,
          value_parser = clap::value_parser!(u32).range(1..=100))]
    pub probe_rounds: u32,
}
