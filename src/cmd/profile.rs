//! `pretouch run --profile`: the check that perf can see the kernel (before any JVM
//! starts), and the profiled rounds after the timed launches.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;

use crate::cmd::cli::RunArgs;
use crate::cmd::error::bad;
use crate::launch::JvmLauncher;
use crate::launch::interrupt::Interrupt;
use crate::launch::profile::{EVENT, FREQUENCY_HZ, PerfLauncher};
use crate::matrix::Matrix;
use crate::matrix::app::App;
use crate::schedule::plan::Plan;
use crate::schedule::profile::{self, ProfileSummary};
use crate::store::StoreWriter;

/// With `--profile` or `profile: true`: the perf binary, or a bad-input error saying
/// the fix. Without: `None`, and perf is never looked for.
pub(crate) fn preflight(args: &RunArgs, matrix: &Matrix) -> anyhow::Result<Option<PathBuf>> {
    if !(args.profile || matrix.profile) {
        return Ok(None);
    }
    crate::launch::profile::preflight().map(Some).map_err(bad)
}

/// The profiled rounds a run owes: perf, the rounds per cell, and (resumed) the seqs of
/// the profiled launches the file already holds.
pub(crate) struct Profiling {
    pub perf: PathBuf,
    pub rounds: u32,
    pub done: BTreeSet<u64>,
}

/// The profiled rounds: every cell `rounds` times without and with pretouch, under
/// perf, but the launches in `done`, appended to the result file as profile records.
#[expect(
    clippy::too_many_arguments,
    reason = "the run's parts, passed down once"
)]
pub(crate) fn run_profiled(
    args: &RunArgs,
    plan: &Plan,
    matrix: &Matrix,
    agent: PathBuf,
    app: Option<App>,
    store: &mut StoreWriter,
    interrupt: Option<&Interrupt>,
    profiling: &Profiling,
) -> anyhow::Result<ProfileSummary> {
    let mut inner = JvmLauncher::new(agent, Duration::from_secs(args.timeout))
        .context("creating the launcher's scratch folder")?
        .with_app(app)
        .with_jvm_log(!args.no_jvm_log);
    if let Some(interrupt) = interrupt {
        inner = inner.with_interrupt(interrupt.clone());
    }
    let keep = args.keep_perf_data.as_ref().map(|dir| {
        dir.join(
            store
                .path()
                .file_stem()
                .map_or_else(|| "perf".into(), |s| s.to_owned()),
        )
    });
    let mut launcher = PerfLauncher::new(inner, profiling.perf.clone(), keep)
        .context("creating the folder for perf.data")?;
    let all = u64::from(profiling.rounds) * plan.cells.len() as u64 * 2;
    let done_before = profiling.done.len() as u64;
    eprintln!(
        "pretouch: {all} profiled launches ({} cells x {} rounds x with/without pretouch) under perf record -e {} -F {} -g; in no timing median{}",
        plan.cells.len(),
        profiling.rounds,
        EVENT,
        FREQUENCY_HZ,
        match done_before {
            0 => String::new(),
            n => format!("; {n} already in the file, {} to go", all.saturating_sub(n)),
        }
    );
    // indicatif draws nothing when stderr is not a terminal.
    let bar = indicatif::ProgressBar::with_draw_target(
        Some(all),
        indicatif::ProgressDrawTarget::stderr(),
    );
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{bar:30} {pos}/{len} profiled launches, ETA {eta}",
        )
        .expect("the template is valid"),
    );
    bar.set_position(done_before);
    let mut done = done_before;
    let summary = profile::execute(
        plan,
        &matrix.jvm_args,
        profiling.rounds,
        &profiling.done,
        &mut launcher,
        store,
        interrupt,
        &mut |record| {
            done += 1;
            bar.inc(1);
            if let Some(failure) = &record.failure {
                bar.suspend(|| {
                    eprintln!(
                        "{}",
                        crate::cmd::profile::failed_launch_warning(
                            "profiled",
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

/// The warning for a failed launch of the extra rounds (profiled or probed) of a run:
/// `warning: profiled launch 3 of 8 (17.0.15+6 g1 1g, with pretouch): why`.
pub(crate) fn failed_launch_warning(
    kind: &str,
    done: u64,
    all: u64,
    cell: &crate::store::CellKey,
    pretouch: bool,
    failure: &str,
) -> String {
    format!(
        "warning: {kind} launch {done} of {all} ({} {} {}, {}): {failure}",
        crate::machine::jdk::short_jdk(&cell.jdk),
        cell.gc,
        cell.heap,
        if pretouch { "with pretouch" } else { "without" }
    )
}
