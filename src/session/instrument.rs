//! An instrument's rounds in a run's life, after the timed launches: what every
//! instrument of the extra rounds does the same way, written once. A fresh run asks for
//! its rounds as an [`Asked`]. A resumed one owes the rounds its file planned, as
//! [`rounds_of_resumed`] finds them, less those it holds, as [`owed_by`] finds them.
//! [`dry_run_line`] says what they will do, and one driver, [`run`], runs them. The
//! driver makes the launcher, says what the rounds will do, draws the progress bar, warns
//! about each failed launch, and says how the rounds ended. Each instrument, such as the
//! profiled and the probed rounds in their features' `session.rs`, supplies only what
//! differs, as an [`Instrument`].

use std::path::Path;

use anyhow::Context;

use crate::features::header::ExtraRounds;
use crate::launch::JvmLauncher;
use crate::launch::interrupt::{self, Interrupt};
use crate::matrix::Matrix;
use crate::render::common::Format;
use crate::schedule::extra::{self, Asked, Owed, Rounds};
use crate::schedule::plan::Plan;
use crate::schedule::prepared::{Features, Prepared};
use crate::session::args::RunArgs;
use crate::session::error::bad;
use crate::session::part::RunPart;
use crate::store::ResultFile;
use crate::store::extra::ExtraRecord;

/// The record of an instrument's rounds.
type RecordOf<I> = <<I as Instrument>::Rounds as Rounds>::Record;

/// What one instrument of the extra rounds brings to the driver.
pub(crate) trait Instrument: Sized {
    /// The scheduler's side of the instrument: the wrapped launcher and its records.
    type Rounds: Rounds;

    /// Why a launch counts as failed besides failing, after "failed or ".
    const FAILED: &'static str;

    /// What each launch runs under, as the dry run says it after the count of launches.
    const DRY_RUN_HOW: &'static str;

    /// The tool a real run checks first, as the dry run names it.
    const TOOL: &'static str;

    /// Whether a file whose header does not record the rounds, because a version before
    /// it wrote it, owes those that the matrix asks.
    const OLD_FILES: bool = false;

    /// Whether the line that announces a resume says how far these rounds are. Only the
    /// profiled rounds' is said, as it always was.
    const RESUME_NOTE: bool = false;

    /// What the run's command line and matrix ask of the instrument's rounds.
    fn asked(args: &RunArgs, matrix: &Matrix) -> Asked;

    /// The run header's key that holds the rounds per cell the run owes.
    fn rounds_in(rounds: &mut ExtraRounds) -> &mut Option<u32>;

    /// The instrument with its tool checked on this machine before any JVM starts and
    /// before the agent is looked for. `None` when the check needs the agent, so that
    /// [`Instrument::check_with_agent`] makes it.
    fn check_before_agent(args: &RunArgs) -> Option<anyhow::Result<Self>> {
        let _ = args;
        None
    }

    /// The instrument with its tool checked on this machine with the run's `agent`, when
    /// [`Instrument::check_before_agent`] did not make it.
    fn check_with_agent(args: &RunArgs, agent: &Path) -> Option<anyhow::Result<Self>> {
        let _ = (args, agent);
        None
    }

    /// Sets the instrument's options of the report a run that owed its rounds prints at
    /// its end in `format`.
    fn report_options(&self, format: Format, options: &mut crate::analyze::Options) {
        let _ = (format, options);
    }

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

/// An instrument whose rounds a run owes, and the launches of them it owes.
#[derive(Debug)]
struct Owing<I> {
    instrument: I,
    owed: Owed,
}

impl<I> Owing<I> {
    /// A new run's: every launch of `rounds` rounds under `instrument`.
    fn all(instrument: I, rounds: u32) -> Owing<I> {
        Owing {
            instrument,
            owed: Owed::all(rounds),
        }
    }
}

/// An instrument's part of a run's life: the rounds its command line and matrix ask for,
/// or its file owes, and once the instrument is checked, the launches of them owed.
pub(crate) struct Extra<I> {
    /// The rounds per cell asked for, before the instrument's tool is checked.
    asked: Option<u32>,
    /// The rounds owed, once the tool is checked.
    owing: Option<Owing<I>>,
}

impl<I: Instrument> Extra<I> {
    /// Owes every launch of the rounds asked for under `checked`, once its tool is.
    fn owe(&mut self, checked: Option<anyhow::Result<I>>) -> anyhow::Result<()> {
        if let Some(rounds) = self.asked
            && let Some(instrument) = checked
        {
            self.owing = Some(Owing::all(instrument?, rounds));
        }
        Ok(())
    }
}

impl<I: Instrument> RunPart for Extra<I> {
    fn fresh(args: &RunArgs, matrix: &Matrix) -> anyhow::Result<Self> {
        Ok(Extra {
            asked: rounds_of_fresh::<I>(args, matrix),
            owing: None,
        })
    }

    fn resumed(args: &RunArgs, matrix: &Matrix, file: &ResultFile) -> anyhow::Result<Self> {
        Ok(Extra {
            asked: rounds_of_resumed::<I>(args, matrix, file)?,
            owing: None,
        })
    }

    fn dry_run_line(args: &RunArgs, matrix: &Matrix, cells: usize) -> Option<String> {
        dry_run_line::<I>(args, matrix, cells)
    }

    fn check_before_agent(&mut self, args: &RunArgs) -> anyhow::Result<()> {
        // Nothing is looked for when no rounds are asked.
        match self.asked {
            Some(_) => self.owe(I::check_before_agent(args)),
            None => Ok(()),
        }
    }

    fn check_with_agent(&mut self, args: &RunArgs, agent: &Path) -> anyhow::Result<()> {
        match self.asked {
            Some(_) if self.owing.is_none() => self.owe(I::check_with_agent(args, agent)),
            _ => Ok(()),
        }
    }

    fn owed_by(&mut self, plan: &Plan, file: &ResultFile) -> anyhow::Result<()> {
        match &mut self.owing {
            Some(owing) => owed_by(owing, plan, file),
            None => Ok(()),
        }
    }

    fn extra_rounds(&self, rounds: &mut ExtraRounds) {
        *I::rounds_in(rounds) = self.owing.as_ref().map(|owing| owing.owed.rounds);
    }

    fn resume_note(&self, plan: &Plan) -> String {
        match &self.owing {
            Some(owing) if I::RESUME_NOTE => resume_note(owing, plan),
            _ => String::new(),
        }
    }

    fn report_options(&self, format: Format, options: &mut crate::analyze::Options) {
        if let Some(owing) = &self.owing {
            owing.instrument.report_options(format, options);
        }
    }

    fn after_timed<F: Features>(
        session: &mut Prepared<F>,
        interrupt: Option<&Interrupt>,
        part: fn(&mut F) -> &mut Self,
    ) -> anyhow::Result<Option<u8>> {
        match part(&mut session.features).owing.take() {
            Some(owing) => run(session, interrupt, &owing),
            None => Ok(None),
        }
    }
}

/// Runs the extra rounds of one kind: every cell `rounds` times without and with
/// pretouch under the instrument, but the launches in `done`, appended to the result
/// file. `Some(exit code)` when a signal stopped them, the way to resume said.
fn run<I: Instrument, F: Features>(
    session: &mut Prepared<F>,
    interrupt: Option<&Interrupt>,
    owing: &Owing<I>,
) -> anyhow::Result<Option<u8>> {
    let Owing { instrument, owed } = owing;
    let name = RecordOf::<I>::KIND.launches;
    let inner = session
        .launcher(interrupt)
        .context("creating the launcher's scratch folder")?;
    let Prepared {
        plan,
        matrix,
        agent,
        store,
        ..
    } = session;
    let (mut rounds, notes) = instrument.wrap(inner, store.path(), agent)?;
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

/// The rounds of instrument `I` that a fresh run asks for, `None` when it asks for none.
fn rounds_of_fresh<I: Instrument>(args: &RunArgs, matrix: &Matrix) -> Option<u32> {
    I::asked(args, matrix).fresh()
}

/// The rounds of instrument `I` that a resumed `file` owes, as its header plans them,
/// whatever this command line asks. A resume adds no rounds to a run without them, so
/// the switch on such a run is refused. A note says when the command line asks
/// otherwise.
fn rounds_of_resumed<I: Instrument>(
    args: &RunArgs,
    matrix: &Matrix,
    file: &ResultFile,
) -> anyhow::Result<Option<u32>> {
    let asked = I::asked(args, matrix);
    let old_files = I::OLD_FILES;
    let kind = RecordOf::<I>::KIND;
    let (tag, launches) = (kind.tag, kind.launches);
    let path = file.path.display();
    let rounds = match (kind.rounds)(&file.header) {
        Some(rounds) => rounds,
        None if old_files && asked.in_matrix => return Ok(Some(asked.rounds)),
        None if asked.switch => {
            return Err(bad(anyhow::anyhow!(
                "`{path}` was started without --{tag}: a resume runs only the launches its run planned \
                 (its header plans no {launches} rounds, so nothing would tell the {launches} launches owed \
                 from those done)\n  \
                 fix: resume without --{tag}, then {tag} in a run of its own: `pretouch run {} --{tag}`",
                file.header.matrix_origin
            )));
        }
        None => return Ok(None),
    };
    if !asked.wanted() {
        eprintln!(
            "note: `{path}` was started with --{tag} ({rounds} {launches} rounds per cell): the resume runs its missing {launches} launches too"
        );
    } else if asked.switch && asked.rounds != rounds {
        eprintln!(
            "note: `{path}` was started with --{tag}-rounds {rounds}: the resume keeps them (--{tag}-rounds {} does not change a resumed run)",
            asked.rounds
        );
    }
    Ok(Some(rounds))
}

/// A resumed file's launches of instrument `I`: only those it lacks are owed, each one
/// it holds checked to be the one `plan` plans.
fn owed_by<I: Instrument>(
    owing: &mut Owing<I>,
    plan: &Plan,
    file: &ResultFile,
) -> anyhow::Result<()> {
    let owed = &mut owing.owed;
    owed.done = extra::done_in::<RecordOf<I>>(plan, owed.rounds, file).map_err(bad)?;
    Ok(())
}

/// How far a resumed file's launches of instrument `I` are, after its timed ones in the
/// line that announces the resume.
fn resume_note<I: Instrument>(owing: &Owing<I>, plan: &Plan) -> String {
    let owed = &owing.owed;
    let all = extra::count(plan, owed.rounds);
    format!(
        ", then {} of {all} {} launches recorded, {} to go",
        owed.done.len(),
        RecordOf::<I>::KIND.launches,
        all.saturating_sub(owed.done.len() as u64)
    )
}

/// The dry run's line on the rounds of instrument `I` over `cells` cells, when the run
/// asks for them.
fn dry_run_line<I: Instrument>(args: &RunArgs, matrix: &Matrix, cells: usize) -> Option<String> {
    let asked = I::asked(args, matrix);
    let rounds = asked.rounds;
    asked.fresh().map(|_| {
        format!(
            "then {} {} launches, {cells} cells x {rounds} rounds x with and without pretouch, {}. They enter no median, and a real run checks {} first.",
            cells as u32 * rounds * 2,
            RecordOf::<I>::KIND.launches,
            I::DRY_RUN_HOW,
            I::TOOL,
        )
    })
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
