//! `pretouch run --profile`: the check that perf can see the kernel (before any JVM
//! starts), and what the profiled rounds after the timed launches bring to the extra
//! rounds' driver ([`crate::session::extra`]).

use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::features::profile::launch::{EVENT, FREQUENCY_HZ, PerfLauncher};
use crate::features::profile::schedule::{Profiled, done_profiles, profile_rounds};
use crate::launch::JvmLauncher;
use crate::matrix::Matrix;
use crate::render::common::Format;
use crate::schedule::extra::Owed;
use crate::schedule::plan::Plan;
use crate::session::args::RunArgs;
use crate::session::error::bad;
use crate::session::extra::Instrument;
use crate::store::ResultFile;

/// The profiled rounds a run owes (`--profile`), with perf and where perf.data is kept,
/// if asked (`--keep-perf-data`).
#[derive(Debug)]
pub(crate) struct Profiling {
    pub(crate) perf: PathBuf,
    pub(crate) owed: Owed,
    pub(crate) keep_perf_data: Option<PathBuf>,
}

/// The profiled rounds a fresh run asks for (`--profile` or `profile: true`).
pub(crate) fn rounds_of_fresh(args: &RunArgs, matrix: &Matrix) -> Option<u32> {
    let profiling = &args.features.profiling;
    (profiling.profile || matrix.features.profile).then_some(profiling.profile_rounds)
}

/// The profiled rounds a resumed file owes, as its first run planned them, whatever
/// this command line says; a note when the command line asks otherwise.
pub(crate) fn rounds_of_resumed(
    args: &RunArgs,
    matrix: &Matrix,
    file: &ResultFile,
) -> anyhow::Result<Option<u32>> {
    let profiling = &args.features.profiling;
    let rounds = profile_rounds(
        file,
        matrix.features.profile,
        profiling.profile,
        profiling.profile_rounds,
    )
    .map_err(bad)?;
    if let Some(rounds) = rounds {
        if !(profiling.profile || matrix.features.profile) {
            eprintln!(
                "note: `{}` was started with --profile ({rounds} profiled rounds per cell): the resume runs its missing profiled launches too",
                file.path.display()
            );
        } else if profiling.profile && profiling.profile_rounds != rounds {
            eprintln!(
                "note: `{}` was started with --profile-rounds {rounds}: the resume keeps them (--profile-rounds {} does not change a resumed run)",
                file.path.display(),
                profiling.profile_rounds
            );
        }
    }
    Ok(rounds)
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

impl Profiling {
    /// A resumed file's profiled launches: only those it lacks are owed.
    pub(crate) fn owed_by(&mut self, plan: &Plan, file: &ResultFile) -> anyhow::Result<()> {
        self.owed.done = done_profiles(plan, self.owed.rounds, file).map_err(bad)?;
        Ok(())
    }

    /// How far a resumed file's profiled launches are, after its timed ones in the line
    /// that announces the resume.
    pub(crate) fn resume_note(&self, plan: &Plan) -> String {
        let all = crate::schedule::extra::count(plan, self.owed.rounds);
        format!(
            ", then {} of {all} profiled launches recorded, {} to go",
            self.owed.done.len(),
            all.saturating_sub(self.owed.done.len() as u64)
        )
    }
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
    const NAME: &'static str = "profiled";
    const FAILED: &'static str = "have no samples. They are recorded and left out of the profile";

    fn owed(&self) -> &crate::schedule::extra::Owed {
        &self.owed
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
    let rounds = args.features.profiling.profile_rounds;
    (args.features.profiling.profile || matrix.features.profile).then(|| {
        format!(
            "then {} profiled launches, {cells} cells x {rounds} rounds x with and without pretouch, under `perf record -e cpu-clock -g`. They enter no median, and a real run checks perf first.",
            cells as u32 * rounds * 2,
        )
    })
}
