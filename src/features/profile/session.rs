//! `pretouch run --profile`: the check that perf can see the kernel (before any JVM
//! starts), and what the profiled rounds after the timed launches bring to the extra
//! rounds' driver ([`crate::session::extra`]).

use std::path::Path;

use anyhow::Context;

use crate::features::profile::launch::{EVENT, FREQUENCY_HZ, PerfLauncher};
use crate::features::profile::schedule::Profiled;
use crate::launch::JvmLauncher;
use crate::schedule::session::Profiling;
use crate::session::extra::Instrument;

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
pub(crate) fn dry_run_line(
    args: &crate::session::args::RunArgs,
    matrix: &crate::matrix::Matrix,
    cells: usize,
) -> Option<String> {
    let rounds = args.features.profiling.profile_rounds;
    (args.features.profiling.profile || matrix.profile).then(|| {
        format!(
            "then {} profiled launches, {cells} cells x {rounds} rounds x with and without pretouch, under `perf record -e cpu-clock -g`. They enter no median, and a real run checks perf first.",
            cells as u32 * rounds * 2,
        )
    })
}
