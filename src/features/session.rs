//! The features' parts of a run's life, one function per point of it, each calling the
//! features that take part there, one line per feature. The run's life in `session/`
//! calls these, so it names no feature.

use crate::matrix::Matrix;
use crate::matrix::app::App;
use crate::session::args::RunArgs;

/// The features' checks of the matrix's `app:` before the first JVM. A server's ready
/// check must be one this machine can do.
pub(crate) fn check_app(app: &App, matrix: &Matrix) -> anyhow::Result<()> {
    crate::features::servers::session::check_server(app, matrix)
}

/// The dry run's lines on the features' rounds after the timed launches of `cells`
/// cells, in the order a run makes them.
pub(crate) fn dry_run_lines(args: &RunArgs, matrix: &Matrix, cells: usize) -> Vec<String> {
    [
        crate::features::probe::session::dry_run_line(args, matrix, cells),
        crate::features::profile::session::dry_run_line(args, matrix, cells),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// The features' end of a run, whatever happened: the kernel settings the run wrote are
/// restored.
pub(crate) fn end(settings: Option<crate::features::settings::session::Shared>) {
    crate::features::settings::session::end(settings);
}

/// The features' checks of this machine before a run on it. They only read: the kernel
/// has each file of the `settings:` axis, and offers each value. `need_root`: the run
/// writes them, so it must be root.
pub(crate) fn check_here(matrix: &Matrix, need_root: bool) -> anyhow::Result<()> {
    crate::features::settings::session::check(matrix, need_root)
}
