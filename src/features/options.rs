//! The features' options of `pretouch run`, one line per feature. `session::args::RunArgs`
//! flattens this list once, so the run's command line names no feature. Each feature
//! says in its own `options.rs` what a run elsewhere gets of its options, a kernel's
//! guest or a campaign's boot.

use std::path::PathBuf;

use crate::features::campaign::options::BootArgs;
use crate::features::header::ExtraRounds;
use crate::features::kernels::options::KernelArgs;
use crate::features::matrix::MatrixParts;
use crate::features::probe::options::ProbeArgs;
use crate::features::profile::options::ProfileArgs;

/// Where the run's own last options, `--comparable-memory`, `--give-up-after` and
/// `--pass-java-options`, show in `pretouch run --help`. They show after the kernels'
/// options and before the campaign's, as they did before the features' options were
/// one list, so the campaign's options start after them.
pub const RUNS_OWN_LAST: usize = 900;

/// The features' options of `pretouch run`, in the order `--help` shows them.
#[derive(Debug, Clone, clap::Args)]
pub struct RunOptions {
    #[command(flatten)]
    pub profiling: ProfileArgs,
    #[command(flatten)]
    pub probing: ProbeArgs,
    #[command(flatten)]
    pub kernels: KernelArgs,
    #[command(flatten, next_display_order = RUNS_OWN_LAST + 3)]
    pub campaign: BootArgs,
}

impl RunOptions {
    /// The extra rounds per cell these options and the matrix's `features` ask a fresh
    /// run for, one line per instrument. A kernel's guests and a campaign's boots get
    /// them, so their sessions record them and resume with them.
    pub(crate) fn extra_rounds(&self, features: &MatrixParts) -> ExtraRounds {
        ExtraRounds {
            profile_rounds: self.profiling.asked(features.profile).fresh(),
            probe_rounds: self.probing.asked(features.probe).fresh(),
        }
    }
}

/// The features' values that a run elsewhere gets in place of this command line's own.
/// They are the extra rounds of the session, which a resumed session keeps from its
/// first run, and the absolute folder where perf.data is kept.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Given {
    pub probe_rounds: Option<u32>,
    pub profile_rounds: Option<u32>,
    pub keep_perf_data: Option<PathBuf>,
}

impl RunOptions {
    /// The features' options that a run elsewhere gets, with `given`'s values where they
    /// replace this command line's. The options with a value go into `values`, and the
    /// switches into `switches`, because the run's line puts each group after its own.
    /// The probe comes before the profile, as guests always got them.
    pub(crate) fn passed_on(
        &self,
        given: &Given,
        values: &mut Vec<String>,
        switches: &mut Vec<String>,
    ) {
        let RunOptions {
            profiling,
            probing,
            kernels,
            campaign,
        } = self;
        probing.passed_on(given.probe_rounds, values, switches);
        profiling.passed_on(
            given.profile_rounds,
            given.keep_perf_data.as_deref(),
            values,
            switches,
        );
        kernels.passed_on();
        campaign.passed_on();
    }

    /// The times each kernel runs the matrix for one label, taken in turn, whether in
    /// VMs or across reboots. It is 1 unless `--runs` asks for more.
    pub(crate) fn runs_per_label(&self) -> usize {
        self.kernels.runs as usize
    }

    /// Refuses the matrix flags, named as `flags`, where a feature runs `matrix`
    /// elsewhere from a file.
    pub(crate) fn check_matrix_flags(
        &self,
        flags: &str,
        matrix: &crate::matrix::Matrix,
    ) -> anyhow::Result<()> {
        self.kernels.check_matrix_flags(flags, matrix)
    }
}
