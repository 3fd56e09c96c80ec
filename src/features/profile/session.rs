//! `pretouch run --profile`: the check that perf can see the kernel (before any JVM
//! starts), and what the profiled rounds after the timed launches bring to the extra
//! rounds' driver ([`crate::session::instrument`]).

use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::features::profile::launch::{EVENT, FREQUENCY_HZ, PerfLauncher};
use crate::features::profile::record::ProfileRecord;
use crate::features::profile::schedule::Profiled;
use crate::launch::JvmLauncher;
use crate::matrix::Matrix;
use crate::render::common::Format;
use crate::schedule::extra::{Asked, Owed};
use crate::session::args::RunArgs;
use crate::session::error::bad;
use crate::session::instrument::{self, Instrument};
use crate::store::ResultFile;

/// The profiled rounds a run owes (`--profile`), with perf and where perf.data is kept,
/// if asked (`--keep-perf-data`).
#[derive(Debug)]
pub(crate) struct Profiling {
    pub(crate) perf: PathBuf,
    pub(crate) owed: Owed,
    pub(crate) keep_perf_data: Option<PathBuf>,
}

/// What the run asks of the profiled rounds (`--profile` or `profile: true`).
fn asked(args: &RunArgs, matrix: &Matrix) -> Asked {
    args.features.profiling.asked(matrix.features.profile)
}

/// The profiled rounds a fresh run asks for (`--profile` or `profile: true`).
pub(crate) fn rounds_of_fresh(args: &RunArgs, matrix: &Matrix) -> Option<u32> {
    asked(args, matrix).fresh()
}

/// The profiled rounds a resumed file owes, as its first run planned them, whatever
/// this command line says. A file from before the header recorded them owes those
/// that `profile: true` asks.
pub(crate) fn rounds_of_resumed(
    args: &RunArgs,
    matrix: &Matrix,
    file: &ResultFile,
) -> anyhow::Result<Option<u32>> {
    instrument::rounds_of_resumed::<ProfileRecord>(asked(args, matrix), file, true)
}

/// With profiled rounds owed: perf checked before any JVM starts, and every launch of
/// `rounds` rounds owed. Without: `None`, and nothing is looked for.
pub(crate) fn check(args: &RunArgs, rounds: Option<u32>) -> anyhow::Result<Option<Profiling>> {
    let Some(rounds) = rounds else {
        return Ok(None);
    };
    Ok(Some(Profiling {
        perf: crate::features::profile::launch::preflight().map_err(bad)?,
        owed: Owed::all(rounds),
        keep_perf_data: args.features.profiling.keep_perf_data.clone(),
    }))
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
    const FAILED: &'static str = "have no samples. They are recorded and left out of the profile";

    fn owed(&self) -> &Owed {
        &self.owed
    }

    fn owed_mut(&mut self) -> &mut Owed {
        &mut self.owed
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

/// The dry run's line on the profiled rounds of `cells` cells, when the profile is
/// asked for.
pub(crate) fn dry_run_line(args: &RunArgs, matrix: &Matrix, cells: usize) -> Option<String> {
    let how = "under `perf record -e cpu-clock -g`";
    instrument::dry_run_line::<ProfileRecord>(asked(args, matrix), cells, how, "perf")
}
