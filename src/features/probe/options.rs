//! `pretouch run`'s options for the fault-latency probe, flattened into its command line.

use crate::features::header::ExtraRounds;
use crate::features::matrix::MatrixParts;
use crate::session::options::{Given, RunOptionsPart};

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
}

impl RunOptionsPart for ProbeArgs {
    fn extra_rounds(&self, features: &MatrixParts, rounds: &mut ExtraRounds) {
        rounds.probe_rounds = self.asked(features.probe).fresh();
    }

    /// The session's probed rounds, `None` when it probes nothing. `probe: true` in the
    /// matrix reaches a guest through the matrix file, with these rounds.
    fn passed_on(&self, given: &Given, values: &mut Vec<String>, switches: &mut Vec<String>) {
        let rounds = given.probe_rounds;
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
