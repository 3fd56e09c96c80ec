//! The `memory:` axis's part of a launch: a memory cgroup made with the cell's limit
//! before the spawn, joined by the child before exec, and read and removed after the
//! reap. The hook lives in a file of its own because the launcher's measurement names
//! `CgroupRun`, so the file that defines it cannot also name the launcher without an
//! import circle.

use std::cell::OnceCell;

use crate::features::cgroup::launch::{CgroupRun, Hierarchy, Transient, join_before_exec};
use crate::features::cgroup::matrix::MemoryLimit;
use crate::launch::{LaunchHook, Measurement, Spawn};

/// Runs each launch of a cell with a memory limit in a cgroup of its own. A cell without
/// one (its `LaunchOptions::cell` holds no [`MemoryLimit`]) runs in the runner's cgroup.
#[derive(Default)]
pub struct CgroupHook {
    /// Where the cgroups are made, found at the first launch that needs one.
    hierarchy: OnceCell<Result<Hierarchy, String>>,
    /// Memory cgroups made so far: the next one's number.
    made: u64,
    /// The cgroup of the launch under way, until its reap.
    current: Option<Transient>,
}

impl LaunchHook for CgroupHook {
    fn before_spawn(&mut self, spawn: &mut Spawn<'_>) -> Result<(), String> {
        let Some(limit) = spawn.options.cell.get::<MemoryLimit>() else {
            return Ok(());
        };
        let hierarchy = self
            .hierarchy
            .get_or_init(|| Hierarchy::find().and_then(|h| h.prepare().map(|()| h)))
            .clone()?;
        self.made += 1;
        let cgroup = Transient::create(&hierarchy, limit, self.made)?;
        let procs = cgroup.procs().clone();
        spawn.command.push(Box::new(move |command| {
            join_before_exec(command, procs.clone());
            Ok(())
        }));
        self.current = Some(cgroup);
        Ok(())
    }

    fn after_reap(&mut self, measured: &mut Measurement) {
        if let Some(cgroup) = self.current.take() {
            measured.features.cgroup = Some(Box::new(cgroup.finish()));
        }
    }

    /// The cgroup's OOM kill, when the JVM died of SIGKILL and the cgroup counted one.
    fn explain(&self, measured: &Measurement) -> Option<String> {
        measured
            .features
            .cgroup
            .as_deref()
            .and_then(CgroupRun::oom_killed)
            .filter(|_| measured.signal == Some(libc::SIGKILL))
    }
}
