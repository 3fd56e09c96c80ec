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

impl ProbeArgs {
    /// What these options ask of the probed rounds, with `probe: true` in the matrix
    /// when `in_matrix`.
    pub(crate) fn asked(&self, in_matrix: bool) -> crate::schedule::extra::Asked {
        crate::schedule::extra::Asked {
            switch: self.probe,
            in_matrix,
            rounds: self.probe_rounds,
        }
    }

    /// What a run elsewhere gets of these options. `rounds` is the session's probed
    /// rounds, `None` when it probes nothing. `probe: true` in the matrix reaches a
    /// guest through the matrix file, with these rounds.
    pub(crate) fn passed_on(
        &self,
        rounds: Option<u32>,
        values: &mut Vec<String>,
        switches: &mut Vec<String>,
    ) {
        // Every field is named, so a new option is a compile error until it is passed on.
        let ProbeArgs {
            probe: _,
            probe_rounds,
        } = self;
        values.extend([
            "--probe-rounds".to_owned(),
            rounds.unwrap_or(*probe_rounds).to_string(),
        ]);
        if rounds.is_some() {
            switches.push("--probe".to_owned());
        }
    }
}
