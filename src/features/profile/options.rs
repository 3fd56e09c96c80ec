//! `pretouch run`'s options for the kernel profile, flattened into its command line.

use std::path::{Path, PathBuf};

use crate::features::header::ExtraRounds;
use crate::features::matrix::MatrixParts;
use crate::session::options::{Given, RunOptionsPart};

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

impl ProfileArgs {
    /// What these options ask of the profiled rounds, with `profile: true` in the matrix
    /// when `in_matrix`.
    pub(crate) fn asked(&self, in_matrix: bool) -> crate::schedule::extra::Asked {
        crate::schedule::extra::Asked {
            switch: self.profile,
            in_matrix,
            rounds: self.profile_rounds,
        }
    }
}

impl RunOptionsPart for ProfileArgs {
    fn extra_rounds(&self, features: &MatrixParts, rounds: &mut ExtraRounds) {
        rounds.profile_rounds = self.asked(features.profile).fresh();
    }

    /// `--keep-perf-data DIR` of a run elsewhere, absolute, when that run profiles and
    /// can write DIR. DIR must lie in the results folder, the one folder a kernel's VM
    /// writes to the host.
    fn given_elsewhere(&self, results: &Path, given: &mut Given) -> anyhow::Result<()> {
        let (Some(keep), Some(_)) = (&self.keep_perf_data, given.profile_rounds) else {
            return Ok(());
        };
        let keep = std::path::absolute(keep).unwrap_or_else(|_| keep.to_owned());
        if !keep.starts_with(results) {
            return Err(crate::session::error::bad(anyhow::anyhow!(
                "--keep-perf-data `{}` is outside the results folder `{}`: a kernel's VM \
                 writes only into the results folder, so its perf.data would be lost with \
                 the VM\n  fix: keep it under the results folder, e.g. --keep-perf-data {}",
                keep.display(),
                results.display(),
                results.join("perf-data").display()
            )));
        }
        given.keep_perf_data = Some(keep);
        Ok(())
    }

    /// The session's profiled rounds, `None` when it profiles nothing, and the absolute
    /// folder for perf.data, because they replace this command line's own.
    fn passed_on(&self, given: &Given, values: &mut Vec<String>, switches: &mut Vec<String>) {
        let (rounds, keep_perf_data) = (given.profile_rounds, given.keep_perf_data.as_ref());
        let ProfileArgs {
            profile: _,
            profile_rounds: _,
            keep_perf_data: _,
        } = self;
        // Perf's options only with the profile, because a guest without it profiles
        // nothing.
        let Some(rounds) = rounds else {
            return;
        };
        values.extend(["--profile-rounds".to_owned(), rounds.to_string()]);
        if let Some(keep) = keep_perf_data {
            values.extend(["--keep-perf-data".to_owned(), keep.display().to_string()]);
        }
        switches.push("--profile".to_owned());
    }
}
