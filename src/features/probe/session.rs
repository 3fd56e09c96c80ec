//! `pretouch run --probe`: the checks that bpftrace can time the JVM's faults (before any
//! JVM starts), and what the probed rounds after the timed launches bring to the extra
//! rounds' driver ([`crate::session::instrument`]), which makes them a part of the run's
//! life.

use std::path::Path;

use anyhow::Context;

use crate::features::header::ExtraRounds;
use crate::features::probe::launch::{self as probe, C2cSupport, ProbeLauncher, ProbeSupport};
use crate::features::probe::schedule::Probed;
use crate::launch::JvmLauncher;
use crate::matrix::Matrix;
use crate::schedule::extra::Asked;
use crate::session::args::RunArgs;
use crate::session::error::bad;
use crate::session::instrument::Instrument;

/// The probes of a run's probed rounds (`--probe`): what they can do here.
#[derive(Debug)]
pub(crate) struct Probing {
    pub(crate) support: ProbeSupport,
}

impl Instrument for Probing {
    type Rounds = Probed<ProbeLauncher>;
    const DRY_RUN_HOW: &'static str = "while bpftrace times each page fault and lock wait";
    const TOOL: &'static str = "bpftrace";
    const FAILED: &'static str = "were not read by the probe. They are recorded with the reason";

    /// Also keeps the crash files of the probed JVMs beside the result file, and asks
    /// whether `perf c2c` can run here (said after the announcement, stored per record).
    fn asked(args: &RunArgs, matrix: &Matrix) -> Asked {
        args.features.probing.asked(matrix.features.probe)
    }

    fn rounds_in(rounds: &mut ExtraRounds) -> &mut Option<u32> {
        &mut rounds.probe_rounds
    }

    /// What the probes can do here, or a bad-input error saying the fix. Says once, when
    /// the kernel cannot tell lock contention, why.
    fn check_with_agent(_args: &RunArgs, agent: &Path) -> Option<anyhow::Result<Probing>> {
        let support = match probe::preflight(agent) {
            Ok(support) => support,
            Err(e) => return Some(Err(bad(e))),
        };
        if let Err(why) = &support.locks {
            eprintln!("note: --probe times the faults, but not lock contention: {why}");
        }
        Some(Ok(Probing { support }))
    }

    fn wrap(
        &self,
        inner: JvmLauncher,
        results: &Path,
        agent: &Path,
    ) -> anyhow::Result<(Self::Rounds, Vec<String>)> {
        let inner = inner.with_crash_dir(crate::store::crash_dir(results));
        let launcher = ProbeLauncher::new(inner, self.support.clone(), agent.to_owned())
            .context("creating the probe's scratch folder")?;
        let c2c = probe::c2c_support();
        let note = match &c2c {
            C2cSupport::Available { events } => format!(
                "  perf c2c can run here ({}): each probe record's command, after `perf c2c record -g --`, profiles the cache lines of the same launch",
                events.join(", ")
            ),
            C2cSupport::Unavailable { why } => format!("  perf c2c: not here, {why}"),
        };
        Ok((Probed { launcher, c2c }, vec![note]))
    }

    fn how(&self) -> String {
        format!(
            ": bpftrace times each page fault{} from exec to main()",
            match self.support.locks {
                Ok(()) => " and lock wait",
                Err(_) => "",
            }
        )
    }
}
