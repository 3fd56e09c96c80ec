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
