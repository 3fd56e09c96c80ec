//! The `settings:` axis in a run's session. It is checked before the first JVM, its
//! settings are applied to the machine around the launches, and they are restored at
//! the run's end.

use std::any::Any;
use std::sync::{Arc, Mutex};

use crate::features::settings::launch::{Applied, Paths};
use crate::matrix::Matrix;
use crate::session::args::RunArgs;
use crate::session::error::bad;
use crate::session::part::RunPart;
use crate::store::ResultFile;

/// The settings applied to the machine, shared by the launchers of the timed and extra
/// rounds.
pub(crate) type Shared = Arc<Mutex<Applied>>;

/// Checks the matrix's `settings:` against this kernel, reading only: nothing on the
/// machine changes before every check passed. `need_root`: a real run (not a dry run).
pub(crate) fn check(matrix: &Matrix, need_root: bool) -> anyhow::Result<()> {
    crate::features::settings::launch::check(matrix, &Paths::from_env(), need_root).map_err(bad)
}

/// The settings' part of a run: the kernel settings applied to the machine, once
/// written, which the hooks around each launch write each cell's setting through. `None`
/// without a `settings:` axis.
pub(crate) struct Settings(Option<Shared>);

impl RunPart for Settings {
    fn fresh(_args: &RunArgs, _matrix: &Matrix) -> anyhow::Result<Settings> {
        Ok(Settings(None))
    }

    fn resumed(_args: &RunArgs, _matrix: &Matrix, _file: &ResultFile) -> anyhow::Result<Settings> {
        Ok(Settings(None))
    }

    /// Writes the matrix's kernel settings, the originals journalled, once the machine is
    /// held. They are restored at the run's end, or when the last handle is dropped on a
    /// panic. After a kill, the next pretouch restores them.
    fn begin(&mut self, matrix: &Matrix) -> anyhow::Result<()> {
        self.0 = begin(matrix)?;
        Ok(())
    }

    fn held(&self) -> Option<Arc<dyn Any + Send + Sync>> {
        self.0
            .clone()
            .map(|shared| shared as Arc<dyn Any + Send + Sync>)
    }

    fn restore(&self) -> Option<Box<dyn FnOnce()>> {
        let shared = self.0.clone()?;
        Some(Box::new(move || end(shared)))
    }
}

/// Journals the originals and tries each setting once (see [`Applied::begin`]);
/// `None` without a `settings:` axis.
fn begin(matrix: &Matrix) -> anyhow::Result<Option<Shared>> {
    if matrix.features.settings.is_empty() {
        return Ok(None);
    }
    let paths = Paths::from_env();
    let session = Applied::begin(&paths, &matrix.features.settings).map_err(bad)?;
    eprintln!(
        "pretouch: {} kernel settings changed ({}). The originals are journalled in {} and restored when the run ends.",
        matrix.features.settings.len(),
        matrix
            .features
            .settings
            .iter()
            .map(|s| s.name.as_str())
            .collect::<Vec<_>>()
            .join(", "),
        paths.journal().display()
    );
    Ok(Some(Arc::new(Mutex::new(session))))
}

/// Puts the originals back and says what changed back; a failure is said, and the
/// journal stays for the next `pretouch`.
fn end(session: Shared) {
    let restored = session
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .restore();
    match restored {
        Ok(lines) if lines.is_empty() => {
            eprintln!("pretouch: kernel settings restored (they held the originals already)")
        }
        Ok(lines) => eprintln!(
            "pretouch: kernel settings restored:{}",
            lines.iter().map(|l| format!("\n  {l}")).collect::<String>()
        ),
        Err(e) => eprintln!(
            "pretouch: {e}\n  The journal stays, and the next pretouch run as root tries again."
        ),
    }
}
