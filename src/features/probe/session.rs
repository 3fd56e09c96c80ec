//! `pretouch run --probe`: the checks that bpftrace can time the JVM's faults (before any
//! JVM starts), and what the probed rounds after the timed launches bring to the extra
//! rounds' driver ([`crate::session::extra`]).

use std::path::Path;

use anyhow::Context;

use crate::features::probe::launch::{self as probe, C2cSupport, ProbeLauncher, ProbeSupport};
use crate::features::probe::schedule::{Probed, done_probes};
use crate::launch::JvmLauncher;
use crate::matrix::Matrix;
use crate::schedule::extra::Owed;
use crate::schedule::plan::Plan;
use crate::session::args::RunArgs;
use crate::session::error::bad;
use crate::session::extra::Instrument;
use crate::store::ResultFile;

/// The probed rounds a run owes (`--probe`), with what the probes can do here.
#[derive(Debug)]
pub(crate) struct Probing {
    pub(crate) support: ProbeSupport,
    pub(crate) owed: Owed,
}

/// Whether the run asks for probes (`--probe` or `probe: true`).
fn wanted(args: &RunArgs, matrix: &Matrix) -> bool {
    args.features.probing.probe || matrix.features.probe
}

/// The probed rounds a fresh run asks for (`--probe` or `probe: true`).
pub(crate) fn rounds_of_fresh(args: &RunArgs, matrix: &Matrix) -> Option<u32> {
    wanted(args, matrix).then_some(args.features.probing.probe_rounds)
}

/// The probed rounds a resumed file owes, as its header plans them. A resume adds no
/// probed rounds to a run without; a note when the command line does not ask for them.
pub(crate) fn rounds_of_resumed(
    args: &RunArgs,
    matrix: &Matrix,
    file: &ResultFile,
) -> anyhow::Result<Option<u32>> {
    let header = &file.header;
    if args.features.probing.probe && header.extra_rounds.probe_rounds.is_none() {
        return Err(bad(anyhow::anyhow!(
            "`{}` was started without --probe: a resume runs only the launches its run planned \
             (its header plans no probed rounds, so nothing would tell the probed launches owed \
             from those done)\n  \
             fix: resume without --probe, then probe in a run of its own: `pretouch run {} --probe`",
            file.path.display(),
            header.matrix_origin
        )));
    }
    if let Some(rounds) = header.extra_rounds.probe_rounds
        && !wanted(args, matrix)
    {
        eprintln!(
            "note: `{}` was started with --probe ({rounds} probed rounds per cell): the resume runs its missing probed launches too",
            file.path.display()
        );
    }
    Ok(header.extra_rounds.probe_rounds)
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

impl Probing {
    /// A resumed file's probed launches: only those it lacks are owed.
    pub(crate) fn owed_by(&mut self, plan: &Plan, file: &ResultFile) -> anyhow::Result<()> {
        self.owed.done = done_probes(plan, self.owed.rounds, file)
            .map_err(|e| bad(anyhow::anyhow!("`{}`, {e}", file.path.display())))?;
        Ok(())
    }
}

impl Instrument for Probing {
    type Rounds = Probed<ProbeLauncher>;
    const NAME: &'static str = "probed";
    const FAILED: &'static str = "were not read by the probe. They are recorded with the reason";

    fn owed(&self) -> &crate::schedule::extra::Owed {
        &self.owed
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
    let rounds = args.features.probing.probe_rounds;
    wanted(args, matrix).then(|| {
        format!(
            "then {} probed launches, {cells} cells x {rounds} rounds x with and without pretouch, while bpftrace times each page fault and lock wait. They enter no median, and a real run checks bpftrace first.",
            cells as u32 * rounds * 2,
        )
    })
}
