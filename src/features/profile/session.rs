//! `pretouch run --profile`: the check that perf can see the kernel (before any JVM
//! starts), and what the profiled rounds after the timed launches bring to the extra
//! rounds' driver ([`crate::session::instrument`]).

use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::features::profile::launch::{EVENT, FREQUENCY_HZ, PerfLauncher};
use crate::features::profile::schedule::Profiled;
use crate::launch::JvmLauncher;
use crate::matrix::Matrix;
use crate::render::common::Format;
use crate::schedule::extra::Asked;
use crate::session::args::RunArgs;
use crate::session::error::bad;
use crate::session::instrument::{Instrument, Owing};

/// The profiler of a run's profiled rounds (`--profile`): perf, and where perf.data is
/// kept, if asked (`--keep-perf-data`).
#[derive(Debug)]
pub(crate) struct Profiling {
    pub(crate) perf: PathBuf,
    pub(crate) keep_perf_data: Option<PathBuf>,
}

/// With profiled rounds owed: perf checked before any JVM starts, and every launch of
/// `rounds` rounds owed. Without: `None`, and nothing is looked for.
pub(crate) fn check(
    args: &RunArgs,
    rounds: Option<u32>,
) -> anyhow::Result<Option<Owing<Profiling>>> {
    let Some(rounds) = rounds else {
        return Ok(None);
    };
    let profiling = Profiling {
        perf: crate::features::profile::launch::preflight().map_err(bad)?,
        keep_perf_data: args.features.profiling.keep_perf_data.clone(),
    };
    Ok(Some(Owing::all(profiling, rounds)))
}

/// The options of the report a run prints at its end: with the profile after the text
/// table when the run was `profiled`. `pretouch report --profile` has it in every
/// format.
pub(crate) fn report_options(profiled: bool, format: Format) -> crate::analyze::Options {
    crate::analyze::Options {
        features: crate::features::report_options::ReportOptions::after_run(
            profiled && format == Format::Text,
        ),
        ..crate::analyze::Options::default()
    }
}

impl Instrument for Profiling {
    type Rounds = Profiled<PerfLauncher>;
    const DRY_RUN_HOW: &'static str = "under `perf record -e cpu-clock -g`";
    const TOOL: &'static str = "perf";
    const OLD_FILES: bool = true;
    const FAILED: &'static str = "have no samples. They are recorded and left out of the profile";

    fn asked(args: &RunArgs, matrix: &Matrix) -> Asked {
        args.features.profiling.asked(matrix.features.profile)
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
