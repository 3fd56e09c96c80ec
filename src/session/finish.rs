//! The end of a run's session: the prepared session's launches run, the kernel
//! settings restored whatever happened, and the final report printed, or how to
//! resume said.

use std::path::Path;

use anyhow::Context;

use crate::analyze::document;
use crate::features::session::Parts;
use crate::launch::interrupt;
use crate::schedule::adaptive::AdaptiveError;
use crate::schedule::prepared::Prepared;
use crate::schedule::run::Stop;
use crate::session::args::RunArgs;
use crate::session::error::{bad, exit};
use crate::session::preflight;
use crate::store::read_for_report;

/// Runs the session ([`execute_and_report`]), then restores the kernel settings it
/// wrote, whatever happened.
pub(super) fn run_and_restore(
    args: &RunArgs,
    session: Prepared<Parts>,
    machine: preflight::Held,
) -> anyhow::Result<u8> {
    let restore = session.features.to_restore();
    let result = execute_and_report(args, session, &machine);
    restore.end();
    result
}

/// Runs the session's timed launches, then the features' extra rounds, then says how it
/// ended: the report, or how to resume.
fn execute_and_report(
    args: &RunArgs,
    mut session: Prepared<Parts>,
    machine: &preflight::Held,
) -> anyhow::Result<u8> {
    let interrupt = Some(&machine.interrupt);
    let mut launcher = session
        .launcher(interrupt)
        .context("creating the launcher's scratch folder")?
        .with_crash_dir(crate::store::crash_dir(session.store.path()));
    let summary = session
        .run_timed(&mut launcher, interrupt)
        .map_err(|e| match e {
            AdaptiveError::Mismatch { .. } => {
                bad(anyhow::anyhow!("`{}`, {e}", session.store.path().display()))
            }
            AdaptiveError::Store(e) => anyhow::Error::new(e),
        })?;
    drop(launcher);
    let report = session.features.report_options(args.format);
    // A signal in the extra rounds ends the run.
    if summary.stopped.is_none()
        && let Some(code) = Parts::after_timed(&mut session, interrupt)?
    {
        return Ok(code);
    }
    let recorded = session.resumed.done.len() as u64 + summary.launches;
    let failed = session.resumed.failed_before + summary.failed;
    if let Some(stop) = &summary.stopped {
        return Ok(say_stopped(stop, &session, recorded));
    }
    let path = session.store.path();
    print_report(args, path, &report)?;
    eprintln!("results: {}", path.display());
    if failed > 0 {
        eprintln!("{failed} of {recorded} launches failed. The warnings above say why.");
        return Ok(exit::FAILED_LAUNCHES);
    }
    Ok(0)
}

/// Says why the timed launches stopped before their end (`recorded` of them in the
/// file) and how to resume; the exit code.
fn say_stopped(stop: &Stop, session: &Prepared<Parts>, recorded: u64) -> u8 {
    let path = session.store.path();
    let planned = session.plan.launches.len();
    let resume_hint = format!(
        "every finished launch is in {}\n  resume: pretouch run --resume {}",
        path.display(),
        path.display()
    );
    match *stop {
        Stop::Interrupted(signal) => {
            eprintln!(
                "pretouch: interrupted by {} after {recorded} of {planned} launches. The JVM under way was killed and not recorded.\n  {resume_hint}",
                interrupt::signal_name(signal),
            );
            interrupt::exit_code(signal)
        }
        Stop::FailFast { seq } => {
            eprintln!(
                "pretouch: stopped after launch {seq} failed (--fail-fast), {recorded} of {planned} launches recorded\n  {resume_hint}",
            );
            exit::FAILED_LAUNCHES
        }
    }
}

/// Prints the report of the result file at `path`, in `--format`, with this label's
/// calibrations and the features' `options`.
fn print_report(
    args: &RunArgs,
    path: &Path,
    options: &crate::analyze::Options,
) -> anyhow::Result<()> {
    let mut results = read_for_report(&[path.to_owned()])?;
    // This label's calibrations (beside the result file), for the report's % of the ceiling;
    // the label's other result files are read up to their headers only.
    if let Some(label_dir) = path.parent()
        && let Ok(found) = crate::store::read::catalog_for_report(&[label_dir.to_owned()])
    {
        results.features = found.results.features.beside_each_run();
    }
    let doc = document::build(results, options)?;
    print!("{}", crate::render::document::render(&doc, args.format));
    eprint!("{}", crate::render::document::notes(&doc, args.format));
    Ok(())
}
