//! The features' parts of a run's life: the value the run's session holds for them
//! ([`Parts`]), and one function or method per point of the run, each calling the
//! features that take part there, one line per feature. The run's life in `session/`
//! calls these, so it names no feature.

use std::path::Path;

use crate::features::kernels::machine::VmShape;
use crate::features::kernels::session as kernels;
use crate::features::probe::session::{self as probe, Probing};
use crate::features::profile::session::{self as profile, Profiling};
use crate::features::settings::session::{self as settings, Shared};
use crate::launch::LaunchHook;
use crate::launch::interrupt::Interrupt;
use crate::matrix::Matrix;
use crate::matrix::app::App;
use crate::render::common::Format;
use crate::schedule::plan::Plan;
use crate::schedule::prepared::{Features, Prepared};
use crate::session::args::RunArgs;
use crate::session::instrument;
use crate::session::instrument::Owing;
use crate::store::ResultFile;

/// The features' parts of one run, held by its session as one value: the VM it runs
/// in, the extra rounds it owes after the timed launches (profiled, then probed), and
/// the kernel settings it writes. A fresh run's come from its command line and matrix
/// with [`Parts::fresh`], and a resumed run's come from its file with [`Parts::resumed`].
/// The preparation completes them at its points, in the order it reaches them.
pub(crate) struct Parts {
    /// Inside a VM that `--kernel` booted: the VM's shape.
    vm: Option<VmShape>,
    /// The rounds asked for, before their tools are checked.
    profile_rounds: Option<u32>,
    probe_rounds: Option<u32>,
    profiling: Option<Owing<Profiling>>,
    probing: Option<Owing<Probing>>,
    /// The run's kernel settings, once written; `None` without a `settings:` axis.
    settings: Option<Shared>,
}

impl Parts {
    /// A fresh run's parts: the VM it runs in, and the extra rounds its command line and
    /// matrix ask for.
    pub(crate) fn fresh(args: &RunArgs, matrix: &Matrix) -> anyhow::Result<Parts> {
        Ok(Parts {
            vm: kernels::guest_vm(args)?,
            profile_rounds: instrument::rounds_of_fresh::<Profiling>(args, matrix),
            probe_rounds: instrument::rounds_of_fresh::<Probing>(args, matrix),
            profiling: None,
            probing: None,
            settings: None,
        })
    }

    /// A resumed run's parts: the extra rounds its file owes, as its first run planned
    /// them, whatever this command line says, and the VM it runs in.
    pub(crate) fn resumed(
        args: &RunArgs,
        matrix: &Matrix,
        file: &ResultFile,
    ) -> anyhow::Result<Parts> {
        let profile_rounds = instrument::rounds_of_resumed::<Profiling>(args, matrix, file)?;
        let probe_rounds = instrument::rounds_of_resumed::<Probing>(args, matrix, file)?;
        Ok(Parts {
            vm: kernels::guest_vm(args)?,
            profile_rounds,
            probe_rounds,
            profiling: None,
            probing: None,
            settings: None,
        })
    }

    /// The checks of this machine before any JVM starts and before the agent is looked
    /// for: perf, when profiled rounds are owed.
    pub(crate) fn check_before_agent(&mut self, args: &RunArgs) -> anyhow::Result<()> {
        self.profiling = profile::check(args, self.profile_rounds)?;
        Ok(())
    }

    /// The checks of this machine that need the `agent`: bpftrace, when probed rounds
    /// are owed.
    pub(crate) fn check_with_agent(&mut self, agent: &Path) -> anyhow::Result<()> {
        self.probing = probe::check(self.probe_rounds, agent)?;
        Ok(())
    }

    /// A resumed run's extra launches: only those its `file` lacks are owed, each one
    /// it holds checked to be the one `plan` plans.
    pub(crate) fn owed_by(&mut self, plan: &Plan, file: &ResultFile) -> anyhow::Result<()> {
        if let Some(profiling) = &mut self.profiling {
            instrument::owed_by(profiling, plan, file)?;
        }
        if let Some(probing) = &mut self.probing {
            instrument::owed_by(probing, plan, file)?;
        }
        Ok(())
    }

    /// The label a run files its results under, marked when the VM it runs in is
    /// emulated.
    pub(crate) fn mark_label(&self, label: &str) -> String {
        let emulated = self.vm.as_ref().is_some_and(|v| v.emulated);
        crate::features::kernels::machine::mark_label(label, emulated)
    }

    /// Writes the matrix's kernel settings, the originals journalled, once the machine
    /// is held. They are restored at the end ([`end`]), or when the last handle is
    /// dropped on a panic; after a kill, by the next pretouch.
    pub(crate) fn begin(&mut self, matrix: &Matrix) -> anyhow::Result<()> {
        self.settings = settings::begin(matrix)?;
        Ok(())
    }

    /// Tells whoever started this run where its result file is: the host of a kernel's
    /// VM.
    pub(crate) fn note_result(&self, args: &RunArgs, file: &Path) -> anyhow::Result<()> {
        kernels::note_guest_result(args, file)
    }

    /// The features' keys of the run header and of its resume records, such as the VM
    /// the run ran in.
    pub(crate) fn header(&self) -> super::header::RunParts {
        super::header::RunParts {
            vm: self.vm.clone().map(Box::new),
        }
    }

    /// The profiled and probed rounds per cell the run owes, as its header stores them.
    pub(crate) fn extra_rounds(&self) -> super::header::ExtraRounds {
        super::header::ExtraRounds {
            profile_rounds: self.profiling.as_ref().map(|p| p.owed.rounds),
            probe_rounds: self.probing.as_ref().map(|p| p.owed.rounds),
        }
    }

    /// How far a resumed file's extra launches are, after its timed ones in the line
    /// that announces the resume.
    pub(crate) fn resume_note(&self, plan: &Plan) -> String {
        (self.profiling.as_ref()).map_or(String::new(), |p| instrument::resume_note(p, plan))
    }

    /// The options of the report the run prints at its end, in `format`.
    pub(crate) fn report_options(&self, format: Format) -> crate::analyze::Options {
        profile::report_options(self.profiling.is_some(), format)
    }

    /// What the features restore at the run's end, whatever happens ([`end`]).
    pub(crate) fn to_restore(&self) -> Restore {
        Restore(self.settings.clone())
    }
}

impl Features for Parts {
    fn hooks(&self, matrix: &Matrix, app: Option<&App>) -> Vec<Box<dyn LaunchHook>> {
        crate::features::launch::hooks(self.settings.clone(), &matrix.features, app)
    }
}

/// What the features restore at a run's end: the kernel settings it wrote.
pub(crate) struct Restore(Option<Shared>);

/// The extra rounds after the timed launches: the profiled ones, then the probed ones.
/// `Some(exit code)` when a signal stopped them.
pub(crate) fn extra_rounds(
    session: &mut Prepared<Parts>,
    interrupt: Option<&Interrupt>,
) -> anyhow::Result<Option<u8>> {
    if let Some(profiling) = session.features.profiling.take()
        && let Some(code) = instrument::run(session, interrupt, &profiling)?
    {
        return Ok(Some(code));
    }
    if let Some(probing) = session.features.probing.take()
        && let Some(code) = instrument::run(session, interrupt, &probing)?
    {
        return Ok(Some(code));
    }
    Ok(None)
}

/// The features' checks of a fresh run's command line against its matrix, before
/// anything is planned: what only a fresh run can get wrong.
pub(crate) fn check_fresh(args: &RunArgs, matrix: &Matrix) -> anyhow::Result<()> {
    kernels::check_fresh(args, matrix)
}

/// The dry run's lines on the features' rounds after the timed launches of `cells`
/// cells, in the order a run makes them.
pub(crate) fn dry_run_lines(args: &RunArgs, matrix: &Matrix, cells: usize) -> Vec<String> {
    [
        instrument::dry_run_line::<Probing>(args, matrix, cells),
        instrument::dry_run_line::<Profiling>(args, matrix, cells),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// The features' end of a run, whatever happened: the kernel settings the run wrote are
/// restored.
pub(crate) fn end(restore: Restore) {
    settings::end(restore.0);
}
