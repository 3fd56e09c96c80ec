//! `pretouch run --probe`: the checks that bpftrace can time the JVM's faults (before any
//! JVM starts), and the probed rounds after the timed launches.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;

use crate::cmd::cli::RunArgs;
use crate::cmd::error::bad;
use crate::launch::JvmLauncher;
use crate::launch::interrupt::Interrupt;
use crate::launch::probe::{self, C2cSupport, ProbeLauncher, ProbeSupport};
use crate::matrix::Matrix;
use crate::matrix::app::App;
use crate::schedule::plan::Plan;
use crate::schedule::probe as probed;
use crate::schedule::profile::ProfileSummary;
use crate::store::StoreWriter;

/// Whether the run asks for probes (`--probe` or `probe: true`).
pub(crate) fn wanted(args: &RunArgs, matrix: &Matrix) -> bool {
    args.probe || matrix.probe
}

/// With probes asked for: what they can do here, or a bad-input error saying the fix.
/// Without: `None`, and nothing is looked for. Says once, when the kernel cannot tell
/// lock contention, why.
pub(crate) fn preflight(
    wanted: bool,
    agent: &std::path::Path,
) -> anyhow::Result<Option<ProbeSupport>> {
    if !wanted {
        return Ok(None);
    }
    let support = probe::preflight(agent).map_err(bad)?;
    if let Err(why) = &support.locks {
        eprintln!("note: --probe times the faults, but not lock contention: {why}");
    }
    Ok(Some(support))
}

/// The probed rounds a run owes: what the probes can do, the rounds per cell, and
/// (resumed) the seqs of the probed launches the file already holds.
pub(crate) struct Probing {
    pub support: ProbeSupport,
    pub rounds: u32,
    pub done: BTreeSet<u64>,
}

/// The probed rounds: every cell `rounds` times without and with pretouch, but the
/// launches in `done`, appended to the result file as probe records.
#[expect(
    clippy::too_many_arguments,
    reason = "the run's parts, passed down once"
)]
pub(crate) fn run_probed(
    args: &RunArgs,
    plan: &Plan,
    matrix: &Matrix,
    agent: PathBuf,
    app: Option<App>,
    store: &mut StoreWriter,
    interrupt: Option<&Interrupt>,
    probing: &Probing,
) -> anyhow::Result<ProfileSummary> {
    let mut inner = JvmLauncher::new(agent.clone(), Duration::from_secs(args.timeout))
        .context("creating the launcher's scratch folder")?
        .with_app(app)
        .with_jvm_log(!args.no_jvm_log)
        .with_crash_dir(crate::store::crash_dir(store.path()));
    if let Some(interrupt) = interrupt {
        inner = inner.with_interrupt(interrupt.clone());
    }
    let mut launcher = ProbeLauncher::new(inner, probing.support.clone(), agent)
        .context("creating the probe's scratch folder")?;
    let c2c = probe::c2c_support();
    let all = u64::from(probing.rounds) * plan.cells.len() as u64 * 2;
    let done_before = probing.done.len() as u64;
    eprintln!(
        "pretouch: {all} probed launches ({} cells x {} rounds x with/without pretouch): bpftrace times each page fault{} from exec to main(); in no timing median{}",
        plan.cells.len(),
        probing.rounds,
        match probing.support.locks {
            Ok(()) => " and lock wait",
            Err(_) => "",
        },
        match done_before {
            0 => String::new(),
            n => format!("; {n} already in the file, {} to go", all.saturating_sub(n)),
        }
    );
    match &c2c {
        C2cSupport::Available { events } => eprintln!(
            "  perf c2c can run here ({}): each probe record's command, after `perf c2c record -g --`, profiles the cache lines of the same launch",
            events.join(", ")
        ),
        C2cSupport::Unavailable { why } => eprintln!("  perf c2c: not here, {why}"),
    }
    let bar = indicatif::ProgressBar::with_draw_target(
        Some(all),
        indicatif::ProgressDrawTarget::stderr(),
    );
    bar.set_style(
        indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} probed launches, ETA {eta}")
            .expect("the template is valid"),
    );
    bar.set_position(done_before);
    let mut done = done_before;
    let summary = probed::execute(
        plan,
        &matrix.jvm_args,
        probing.rounds,
        &probing.done,
        &mut launcher,
        store,
        interrupt,
        &c2c,
        &mut |record| {
            done += 1;
            bar.inc(1);
            if let Some(failure) = &record.failure {
                bar.suspend(|| {
                    eprintln!(
                        "{}",
                        crate::cmd::profile::failed_launch_warning(
                            "probed",
                            done,
                            all,
                            &record.cell,
                            record.pretouch,
                            failure
                        )
                    )
                });
            }
        },
    );
    bar.finish_and_clear();
    Ok(summary?)
}
