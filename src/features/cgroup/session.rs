//! The `memory:` axis in a run's session, checked before the first JVM.

use crate::matrix::Matrix;
use crate::session::error::bad;

/// Checks the matrix's `memory:` against this machine, reading only: the memory
/// controller is there, and a real run (`need_root`) can make cgroups. What the check
/// finds doubtful is said as a warning.
pub(crate) fn check(matrix: &Matrix, need_root: bool) -> anyhow::Result<()> {
    let warnings = crate::features::cgroup::launch::check(matrix, need_root)
        .map_err(|e| bad(anyhow::anyhow!(e)))?;
    for warning in warnings {
        eprintln!("warning: {warning}");
    }
    Ok(())
}
