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
