//! The features' parts of what one launch measured, as one value that the launch's
//! measurement holds. It is a file of its own beside the feature folders because the
//! launcher's `Measurement` holds it, and the list of the hooks in `launch.rs` imports
//! the launcher.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::units::{SeenKeys, read_optional_once};

/// The features' parts of what one launch measured, each written by its feature's hook
/// and kept in the launch record beside the core's keys. A feature's key is written
/// only when its part is there.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct LaunchParts {
    /// A server launch (`app:` with `ready:`): when the ready probe succeeded, the
    /// `after_ready` workload's time, the stop and when the port was free again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<Box<super::servers::launch::ServerRun>>,
    /// Whether the launch ran with class data sharing: off, the JDK's default archive,
    /// none, or a custom archive. Absent in files written before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cds: Option<super::cds::launch::Cds>,
    /// The `settings:` value the launch ran under, every knob of the run's settings as
    /// read back from the kernel just before the spawn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settings: Option<Box<super::settings::launch::SettingsRead>>,
    /// The memory cgroup of a `memory:` cell's launch: the limit as read back, the peak
    /// charge, the events and the fault counters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cgroup: Option<Box<super::cgroup::launch::CgroupRun>>,
}

impl LaunchParts {
    /// Reads the value of `key` into its part when the key is a feature's, and says
    /// whether it was. A key given twice is refused, naming it, as the record's reader
    /// refuses its own keys, and `seen` remembers the keys read. A `null` reads as no
    /// part, as the derived reader read it.
    pub fn read_key<'de, A: serde::de::MapAccess<'de>>(
        &mut self,
        key: &str,
        map: &mut A,
        seen: &mut SeenKeys,
    ) -> Result<bool, A::Error> {
        match key {
            "server" => read_optional_once(&mut self.server, "server", map, seen)?,
            "cds" => read_optional_once(&mut self.cds, "cds", map, seen)?,
            "settings" => read_optional_once(&mut self.settings, "settings", map, seen)?,
            "cgroup" => read_optional_once(&mut self.cgroup, "cgroup", map, seen)?,
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// The kernel settings the launch ran under, as read back before its spawn, by
    /// their sysfs path under /sys/kernel/mm or their dotted sysctl. `None` when no
    /// feature set any.
    pub fn kernel_values(&self) -> Option<&BTreeMap<String, String>> {
        self.settings.as_deref().map(|s| &s.values)
    }
}
