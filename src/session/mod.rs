//! Stage 7, a run's session: the life of one `pretouch run` below its command. It
//! checks the matrix and the machine before the first JVM, prepares the machine and
//! the result file, runs the schedule, restores the machine's settings and prints the
//! final report. `cmd::run` only parses the arguments into it.
//!
//! [`Session::new`] decides how the run goes: a fresh run or a resumed one on this
//! machine, a dry run, kernels in VMs, or a campaign across reboots. The kernels and
//! the campaign make their guests' and boots' command lines from the same options
//! ([`args::RunArgs::passed_on`]).

pub(crate) mod args;
pub(crate) mod checks;
mod dry_run;
pub(crate) mod elsewhere;
pub mod error;
mod finish;
pub(crate) mod instrument;
pub(crate) mod options;
pub(crate) mod part;
pub(crate) mod preflight;
mod prepare;

use std::path::PathBuf;

use crate::features::elsewhere as features;
use crate::matrix::Matrix;
use crate::session::args::RunArgs;
use crate::session::dry_run::dry_run;
use crate::session::finish::run_and_restore;
use crate::session::prepare::{fresh_matrix, prepare_fresh, run_resumed};

/// One `pretouch run`, made from its command line: [`Session::new`] checks what the
/// options and the matrix decide, and [`Session::run`] lives the run through.
pub(crate) struct Session {
    args: RunArgs,
    way: Way,
}

/// How a run goes, as its options and its matrix decide.
enum Way {
    /// Elsewhere than on this machine's kernel, as a feature runs it: kernels in VMs or
    /// booted on this machine, or the resume of a kernel session.
    Elsewhere(Box<dyn crate::session::elsewhere::Elsewhere>),
    /// `--resume` of a result file: its missing launches, on this machine.
    Resume(PathBuf),
    /// The plan and its command lines, nothing launched.
    DryRun(Matrix),
    /// A fresh run on this machine's kernel.
    Fresh(Matrix),
}

impl Session {
    /// The session of the run `args` asks for. Everything the user can get wrong on the
    /// command line or in the matrix is checked here, before the first JVM starts; a
    /// resume is checked against its file when it runs.
    pub(crate) fn new(args: RunArgs) -> anyhow::Result<Session> {
        let way = way_of(&args)?;
        Ok(Session { args, way })
    }

    /// Runs the session to its end: the preparation, the launches, the restore of the
    /// machine's settings and the report. `Ok` holds the exit code.
    pub(crate) fn run(self) -> anyhow::Result<u8> {
        let Session { args, way } = self;
        match way {
            Way::Elsewhere(elsewhere) => elsewhere.run(&args),
            Way::Resume(path) => run_resumed(&args, &path),
            Way::DryRun(matrix) => dry_run(&args, matrix),
            Way::Fresh(matrix) => {
                let (session, machine) = prepare_fresh(&args, matrix)?;
                run_and_restore(&args, session, machine)
            }
        }
    }
}

/// How the run `args` asks for goes ([`Way`]), its command line and matrix checked.
fn way_of(args: &RunArgs) -> anyhow::Result<Way> {
    if let Some(path) = &args.resume {
        if let Some(elsewhere) = features::resumed_elsewhere(path) {
            return Ok(Way::Elsewhere(elsewhere));
        }
        return Ok(Way::Resume(path.clone()));
    }
    // Everything the user can get wrong is checked before the first JVM starts.
    let matrix = match crate::session::elsewhere::fresh(features::FRESH, args, fresh_matrix(args)?)?
    {
        crate::session::elsewhere::Where::Elsewhere(elsewhere) => {
            return Ok(Way::Elsewhere(elsewhere));
        }
        crate::session::elsewhere::Where::Here(matrix) => *matrix,
    };
    // Read only: the features' checks of this machine, such as the kernel settings.
    crate::features::checks::check_here(&matrix, !args.dry_run)?;
    if args.dry_run {
        return Ok(Way::DryRun(matrix));
    }
    Ok(Way::Fresh(matrix))
}
