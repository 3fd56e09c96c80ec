//! `pretouch run --probe`: the checks that bpftrace can time the JVM's faults (before any
//! JVM starts), and what the probed rounds after the timed launches bring to the extra
//! rounds' driver ([`crate::session::instrument`]).

use std::path::Path;

use anyhow::Context;

use crate::features::probe::launch::{self as probe, C2cSupport, ProbeLauncher, ProbeSupport};
use crate::features::probe::record::ProbeRecord;
use crate::features::probe::schedule::Probed;
use crate::launch::JvmLauncher;
use crate::matrix::Matrix;
use crate::schedule::extra::{Asked, Owed};
use crate::session::args::RunArgs;
use crate::session::error::bad;
use crate::session::instrument::{self, Instrument};
use crate::store::ResultFile;

/// The probed rounds a run owes (`--probe`), with what the probes can do here.
#[derive(Debug)]
pub(crate) struct Probing {
    pub(crate) support: ProbeSupport,
    pub(crate) owed: Owed,
}

/// What the run asks of the probed rounds (`--probe` or `probe: true`).
fn asked(args: &RunArgs, matrix: &Matrix) -> Asked {
    args.features.probing.asked(matrix.features.probe)
}

/// The probed rounds a fresh run asks for (`--probe` or `probe: true`).
pub(crate) fn rounds_of_fresh(args: &RunArgs, matrix: &Matrix) -> Option<u32> {
    asked(args, matrix).fresh()
}

/// The probed rounds a resumed file owes, as its header plans them.
pub(crate) fn rounds_of_resumed(
    args: &RunArgs,
    matrix: &Matrix,
    file: &ResultFile,
) -> anyhow::Result<Option<u32>> {
    instrument::rounds_of_resumed::<ProbeRecord>(asked(args, matrix), file, false)
}

/// With probed rounds owed: what the probes can do here, or a bad-input error saying
/// the fix, and every launch of `rounds` rounds owed. Without: `None`, and nothing is
/// looked for. Says once, when the kernel cannot tell lock contention, why.
pub(crate) fn check(rounds: Option<u32>, agent: &Path) -> anyhow::Result<Option<Probing>> {
    let Some(rounds) = rounds else {
        return Ok(None);
    };
    let support = probe::preflight(agent).map_err(bad)?;
    if let Err(why) = &support.locks {
        eprintln!("note: --probe times the faults, but not lock contention: {why}");
    }
    Ok(Some(Probing {
        support,
        owed: Owed::all(rounds),
    }))
}

impl Instrument for Probing {
    type Rounds = Probed<ProbeLauncher>;
    const FAILED: &'static str = "were not read by the probe. They are recorded with the reason";

    fn owed(&self) -> &Owed {
        &self.owed
    }

    fn owed_mut(&mut self) -> &mut Owed {
        &mut self.owed
    }

    /// Also keeps the crash files of the probed JVMs beside the result file, and asks
    /// whether `perf c2c` can run here (said after the announcement, stored per record).
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

/// The dry run's line on the probed rounds of `cells` cells, when probes are asked for.
pub(crate) fn dry_run_line(args: &RunArgs, matrix: &Matrix, cells: usize) -> Option<String> {
    let how = "while bpftrace times each page fault and lock wait";
    instrument::dry_run_line::<ProbeRecord>(asked(args, matrix), cells, how, "bpftrace")
}
