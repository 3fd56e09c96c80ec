//! `pretouch run`'s extra rounds, after the timed launches: the one driver every kind
//! runs through. It makes the launcher, says what the rounds will do, draws the progress
//! bar, warns about each failed launch, and says how the rounds ended. Each kind, such as
//! the profiled and the probed rounds in their features' `session.rs`, supplies only what
//! differs, as an [`Instrument`], and `features::session::extra_rounds` runs them in turn.

use std::path::Path;

use anyhow::Context;

use crate::launch::JvmLauncher;
use crate::launch::interrupt::{self, Interrupt};
use crate::schedule::extra::{self, ExtraRecord, Rounds};
use crate::schedule::session::{Features, Session};

/// What one kind of extra round brings to the driver.
pub(crate) trait Instrument {
    /// The scheduler's side of the kind: the wrapped launcher and its records.
    type Rounds: Rounds;

    /// What its launches are called in every line about them: `profiled`, `probed`.
    const NAME: &'static str;

    /// Why a launch counts as failed besides failing, after "failed or ".
    const FAILED: &'static str;

    /// The launches of this kind the run owes.
    fn owed(&self) -> &crate::schedule::extra::Owed;

    /// `inner` wrapped in the instrument, for the run recording to `results`; and lines
    /// to print after the announcement.
    fn wrap(
        &self,
        inner: JvmLauncher,
        results: &Path,
        agent: &Path,
    ) -> anyhow::Result<(Self::Rounds, Vec<String>)>;

    /// What each launch does, as the announcement says it after the count of launches.
    fn how(&self) -> String;

    /// More lines for a run interrupted in these rounds, after how to resume it.
    fn interrupted_hint(&self, _results: &Path) -> String {
        String::new()
    }
}

/// Runs the extra rounds of one kind: every cell `rounds` times without and with
/// pretouch under the instrument, but the launches in `done`, appended to the result
/// file. `Some(exit code)` when a signal stopped them, the way to resume said.
pub(crate) fn run<I: Instrument, F: Features>(
    session: &mut Session<F>,
    interrupt: Option<&Interrupt>,
    instrument: &I,
) -> anyhow::Result<Option<u8>> {
    let name = I::NAME;
    let inner = session
        .launcher(interrupt)
        .context("creating the launcher's scratch folder")?;
    let Session {
        plan,
        matrix,
        agent,
        store,
        ..
    } = session;
    let (mut rounds, notes) = instrument.wrap(inner, store.path(), agent)?;
    let owed = instrument.owed();
    let all = extra::count(plan, owed.rounds);
    let done_before = owed.done.len() as u64;
    eprintln!(
        "pretouch: {all} {name} launches, {} cells x {} rounds x with and without pretouch{}. They enter no timing median{}",
        plan.cells.len(),
        owed.rounds,
        instrument.how(),
        match done_before {
            0 => String::new(),
            n => format!(", {n} already in the file, {} to go", all.saturating_sub(n)),
        }
    );
    for note in notes {
        eprintln!("{note}");
    }
    // indicatif draws nothing when stderr is not a terminal.
    let bar = indicatif::ProgressBar::with_draw_target(
        Some(all),
        indicatif::ProgressDrawTarget::stderr(),
    );
    bar.set_style(
        indicatif::ProgressStyle::with_template(&format!(
            "{{bar:30}} {{pos}}/{{len}} {name} launches, ETA {{eta}}"
        ))
        .expect("the template is valid"),
    );
    bar.set_position(done_before);
    let mut done = done_before;
    let summary = extra::execute(
        plan,
        &matrix.jvm_args,
        owed.rounds,
        &owed.done,
        &mut rounds,
        store,
        interrupt,
        &mut |record| {
            done += 1;
            bar.inc(1);
            if let Some(failure) = record.failure() {
                let at = record.planned_as();
                bar.suspend(|| {
                    eprintln!(
                        "{}",
                        failed_launch_warning(name, done, all, &at.cell, at.pretouch, failure)
                    )
                });
            }
        },
    );
    bar.finish_and_clear();
    let summary = summary?;
    let results = store.path().display();
    if let Some(signal) = summary.interrupted {
        // The timed run ended (its end record is written); `--resume` runs the extra
        // launches the file lacks.
        eprintln!(
            "pretouch: interrupted by {} during the {name} launches. The timed launches are complete, and {} of {all} {name} launches are in {results}.\n  resume: pretouch run --resume {results}{}",
            interrupt::signal_name(signal),
            done_before + summary.launches,
            instrument.interrupted_hint(store.path()),
        );
        return Ok(Some(interrupt::exit_code(signal)));
    }
    if summary.failed > 0 {
        eprintln!(
            "warning: {} of {} {name} launches failed or {}",
            summary.failed,
            summary.launches,
            I::FAILED
        );
    }
    Ok(None)
}

/// The warning for a failed launch of the extra rounds of a run:
/// `warning: profiled launch 3 of 8 (17.0.15+6 g1 1g, with pretouch): why`.
fn failed_launch_warning(
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
