//! The NUMA feature's part of a launch: it asks the agent for a copy of the JVM's
//! `/proc/self/numa_maps` at `main()`, and reads the heap's pages per node from it after
//! the reap. The hook lives in a file of its own because the launcher's measurement
//! names `HeapNodes`, so the file that defines it cannot also name the launcher without
//! an import circle.

use crate::features::numa::launch::heap_nodes;
use crate::launch::{AtMain, LaunchHook, Measurement, Spawn};

/// The file of `/proc/self` the agent copies at `main()` for this feature.
const NUMA_MAPS: &str = "numa_maps";

/// Records the heap's pages per NUMA node at `main()` of each launch. It asks for the
/// copy only when the run's matrix says `numa: true`, so no other run asks the agent for
/// it.
pub struct NumaHook {
    on: bool,
}

impl NumaHook {
    /// The hook of a run whose matrix's `numa:` is `on`.
    pub fn new(on: bool) -> NumaHook {
        NumaHook { on }
    }
}

impl LaunchHook for NumaHook {
    fn before_spawn(&mut self, _spawn: &mut Spawn<'_>) -> Result<(), String> {
        Ok(())
    }

    fn files_at_main(&self) -> &'static [&'static str] {
        if self.on { &[NUMA_MAPS] } else { &[] }
    }

    /// No part when the JVM did not reach `main()`, when no mapping looked like the heap,
    /// or when the kernel has no numa_maps.
    fn at_main(&mut self, copies: &AtMain<'_>, measured: &mut Measurement) {
        if !self.on {
            return;
        }
        measured.features.numa = copies
            .file(NUMA_MAPS)
            .zip(copies.heap)
            .and_then(|(text, place)| heap_nodes(text, place))
            .map(Box::new);
    }
}
