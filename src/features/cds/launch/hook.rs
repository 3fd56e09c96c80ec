//! Class data sharing's part of a launch: whether it runs with an archive, said from its
//! command and the JDK home before the spawn. The hook lives in a file of its own because
//! the launcher's measurement names `Cds`, so the file that defines it cannot also name
//! the launcher without an import circle.

use std::path::Path;

use crate::launch::{LaunchHook, Spawn};

/// Says for every launch whether it uses a CDS archive.
pub struct CdsHook;

impl LaunchHook for CdsHook {
    fn before_spawn(&mut self, spawn: &mut Spawn<'_>) -> Result<(), String> {
        // Before the spawn, so the stat costs the launch nothing it is measured by.
        let java = spawn.java;
        let real_java = std::fs::canonicalize(java).unwrap_or_else(|_| java.to_path_buf());
        if let Some(home) = real_java.parent().and_then(Path::parent) {
            spawn.measured.features.cds = Some(crate::features::cds::launch::of(home, spawn.args));
        }
        Ok(())
    }
}
