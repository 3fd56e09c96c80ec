//! The `settings:` axis's part of a launch: the cell's setting written, and read back,
//! just before the spawn. The hook lives in a file of its own because the launcher's
//! measurement names `SettingsRead`, so the file that defines it cannot also name the
//! launcher without an import circle.

use std::sync::{Arc, Mutex, PoisonError};

use crate::features::settings::launch::Applied;
use crate::features::settings::matrix::SettingRef;
use crate::launch::{LaunchHook, RunValues, Spawn};

/// Writes each launch's setting through the settings applied to the machine, and
/// records what the kernel held just before the spawn. A matrix without a `settings:`
/// axis applies none, so the hook does nothing.
pub struct SettingsHook {
    session: Option<Arc<Mutex<Applied>>>,
}

impl SettingsHook {
    /// The hook of a run whose parts hold `run`, among them the settings applied to the
    /// machine when the matrix has a `settings:` axis.
    pub fn new(run: &RunValues) -> SettingsHook {
        SettingsHook {
            session: run.shared::<Mutex<Applied>>(),
        }
    }
}

impl LaunchHook for SettingsHook {
    fn before_spawn(&mut self, spawn: &mut Spawn<'_>) -> Result<(), String> {
        // The cell's `settings:` value, found by its place in the list of the run's
        // applied settings. The schedule puts it in the launch's `LaunchOptions::cell`.
        let (Some(session), Some(SettingRef { index, .. })) =
            (&self.session, spawn.options.cell.get::<SettingRef>())
        else {
            return Ok(());
        };
        let read = session
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .apply(*index)
            .map_err(|e| e.to_string())?;
        spawn.measured.features.settings = Some(Box::new(read));
        Ok(())
    }
}
