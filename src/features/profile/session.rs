//! `pretouch run --profile`: the check that perf can see the kernel (before any JVM
//! starts), and what the profiled rounds after the timed launches bring to the extra
//! rounds' driver ([`crate::session::instrument`]), which makes them a part of the run's
//! life.

use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::features::header::ExtraRounds;
use crate::features::profile::launch::{EVENT, FREQUENCY_HZ, PerfLauncher};
use crate::features::profile::schedule::Profiled;
use crate::launch::JvmLauncher;
use crate::matrix::Matrix;
use crate::render::common::Format;
use crate::schedule::extra::Asked;
use crate::session::args::RunArgs;
use crate::session::error::bad;
use crate::session::instrument::Instrument;

/// The profiler of a run's profiled rounds (`--profile`): perf, and where perf.data is
/// kept, if asked (`--keep-perf-data`).
#[derive(Debug)]
pub(crate) struct Profiling {
    pub(crate) perf: PathBuf,
    pub(crate) keep_perf_data: Option<PathBuf>,
}

impl Instrument for Profiling {
    type Rounds = Profiled<PerfLauncher>;
    const DRY_RUN_HOW: &'static str = "under `perf record -e cpu-clock -g`";
    const TOOL: &'static str = "perf";
    const OLD_FILES: bool = true;
    const FAILED: &'static str = "have no samples. They are recorded and left out of the profile";

    const RESUME_NOTE: bool = true;

    fn asked(args: &RunArgs, matrix: &Matrix) -> Asked {
        args.features.profiling.asked(matrix.features.profile)
    }

    fn rounds_in(rounds: &mut ExtraRounds) -> &mut Option<u32> {
        &mut rounds.profile_rounds
    }

    /// Perf, checked before any JVM starts, and where perf.data is kept.
    fn check_before_agent(args: &RunArgs) -> Option<anyhow::Result<Profiling>> {
        let checked = crate::features::profile::launch::preflight().map_err(bad);
        Some(checked.map(|perf| Profiling {
            perf,
            keep_perf_data: args.features.profiling.keep_perf_data.clone(),
        }))
    }

    /// With the profile after the text table. `pretouch report --profile` has it in every
    /// format.
    fn report_options(&self, format: Format, options: &mut crate::analyze::Options) {
        options.features =
            crate::features::report_options::ReportOptions::after_run(format == Format::Text);
    }

    fn wrap(
        &self,
        inner: JvmLauncher,
        results: &Path,
        _agent: &Path,
    ) -> anyhow::Result<(Self::Rounds, Vec<String>)> {
        let keep = self.keep_perf_data.as_ref().map(|dir| {
            dir.join(
                results
                    .file_stem()
                    .map_or_else(|| "perf".into(), |s| s.to_owned()),
            )
        });
        let launcher = PerfLauncher::new(inner, self.perf.clone(), keep)
            .context("creating the folder for perf.data")?;
        Ok((Profiled(launcher), Vec::new()))
    }

    fn how(&self) -> String {
        format!(" under perf record -e {EVENT} -F {FREQUENCY_HZ} -g")
    }

    fn interrupted_hint(&self, results: &Path) -> String {
        format!(
            "\n  report: pretouch report {} --profile",
            results.display()
        )
    }
}
