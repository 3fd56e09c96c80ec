//! The features' checks that the core's checks before the first JVM call
//! (`session/checks.rs`), one line per feature. It is a list of its own, apart from
//! `src/features/session.rs`, because the kernels and the campaign call the core's
//! checks, and `src/features/session.rs` calls the kernels.

use crate::matrix::Matrix;
use crate::matrix::app::App;

/// The features' checks of the matrix's `app:` before the first JVM. A server's ready
/// check must be one this machine can do.
pub(crate) fn check_app(app: &App, matrix: &Matrix) -> anyhow::Result<()> {
    crate::features::servers::session::check_server(app, matrix)
}

/// The features' checks of this machine before a run on it, one line per feature. They
/// only read, so nothing on the machine changes before every check passed. `need_root`:
/// the run writes to the kernel and makes cgroups, so it must be root.
pub(crate) fn check_here(matrix: &Matrix, need_root: bool) -> anyhow::Result<()> {
    crate::features::settings::session::check(matrix, need_root)?;
    crate::features::cgroup::session::check(matrix, need_root)
}
