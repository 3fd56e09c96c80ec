//! `pretouch run`'s options for the fault-latency probe, flattened into its command line.

/// What `pretouch run` is asked about the fault-latency probe.
#[derive(Debug, Clone, clap::Args)]
pub struct ProbeArgs {
    /// After the timed (and profiled) launches, a few probed rounds per cell (with and
    /// without pretouch) in which bpftrace times every page fault and lock wait of the
    /// JVM from exec to main(), stored apart and in no timing median; needs bpftrace, BTF
    /// and root (see docs/explaining.md). Same as `probe: true` in the matrix
    #[arg(long)]
    pub probe: bool,
    /// Probed rounds per cell with --probe (each: one launch without, one with pretouch)
    #[arg(long, default_value_t = crate::features::probe::schedule::DEFAULT_ROUNDS,
          value_parser = clap::value_parser!(u32).range(1..=100))]
    pub probe_rounds: u32,
}
