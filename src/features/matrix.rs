//! The features' keys of the matrix, one line per feature that takes part. The matrix
//! reads a key it does not know through this list, so it names no feature.

use serde::de::MapAccess;

/// The features' part of an `app:` block: the keys a feature adds to it, as read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AppParts {
    pub servers: crate::features::servers::matrix::AppKeys,
}

impl AppParts {
    /// The features' keys of `app:`, in the order an unknown key's message lists them.
    pub const KEYS: &'static [&'static str] = crate::features::servers::matrix::AppKeys::KEYS;

    /// Reads the value of `key`, one of [`AppParts::KEYS`].
    pub fn read<'de, A: MapAccess<'de>>(&mut self, key: &str, map: &mut A) -> Result<(), A::Error> {
        self.servers.read(key, map)
    }

    /// The features' checks of the block once it is read, with `exit_at_main` as written.
    pub fn check(&self, exit_at_main: Option<bool>) -> Result<(), String> {
        self.servers.check(exit_at_main)
    }

    /// Whether the application runs on past `main()`, so that `exit_at_main` is false
    /// unless written.
    pub fn runs_past_main(&self) -> bool {
        self.servers.runs_past_main()
    }

    /// What the dry run's estimate of the time leaves out, one line each.
    pub fn not_counted(&self) -> Vec<String> {
        self.servers.not_counted().into_iter().collect()
    }
}

/// The features' keys of the matrix: their axes, each empty when its key is absent, and
/// their switches, each false when its key is absent.
#[derive(Debug, Clone, Default)]
pub struct MatrixParts {
    /// `profile: true`: profiled rounds after the timed launches, as `run --profile`.
    pub profile: bool,
    /// `probe: true`: probed rounds after the timed launches, as `run --probe`.
    pub probe: bool,
    /// The kernels of `kernels:`, each booted in a VM that runs the matrix. Without
    /// them, the run runs on this machine's kernel.
    pub kernels: Vec<crate::features::kernels::matrix::KernelSpec>,
    /// The named sets of kernel writes of `settings:`. Without them, the machine's
    /// settings stay as they are.
    pub settings: Vec<crate::features::settings::matrix::Setting>,
    /// The memory cgroup limits of `memory:`, each launch running under one. Without
    /// them, a launch runs in the runner's cgroup.
    pub memory: Vec<crate::features::cgroup::matrix::MemoryLimit>,
}

/// The features' axes that multiply the cells, in the order a message about the number
/// of cells names them.
pub const CELL_AXES: &[&str] = &["settings", "memory"];

impl MatrixParts {
    /// The features' keys of a matrix file, each after the key it follows in the order
    /// an unknown key's message has always listed them.
    pub const KEYS: &'static [(&'static str, &'static str)] = &[
        ("app", "profile"),
        ("profile", "probe"),
        ("probe", "kernels"),
        ("comparable_memory", "settings"),
        ("settings", "memory"),
    ];

    /// Reads the value of `key`, one of the second halves of [`MatrixParts::KEYS`].
    pub fn read<'de, A: MapAccess<'de>>(&mut self, key: &str, map: &mut A) -> Result<(), A::Error> {
        match key {
            "profile" => self.profile = map.next_value()?,
            "probe" => self.probe = map.next_value()?,
            "kernels" => {
                let kernels =
                    map.next_value::<Option<crate::features::kernels::matrix::RawKernels>>()?;
                self.kernels = kernels.map(|k| k.0).unwrap_or_default();
            }
            "settings" => {
                let settings =
                    map.next_value::<Option<crate::features::settings::matrix::Settings>>()?;
                self.settings = settings.map(|s| s.0).unwrap_or_default();
            }
            "memory" => {
                let memory = map.next_value::<Option<crate::features::cgroup::matrix::Limits>>()?;
                self.memory = memory.map(|m| m.0).unwrap_or_default();
            }
            _ => unreachable!("`{key}` is none of the features' keys of a matrix"),
        }
        Ok(())
    }

    /// The number of values of each of [`CELL_AXES`], 1 for an absent axis.
    pub fn cell_axes_lengths(&self) -> [usize; 2] {
        [self.settings.len().max(1), self.memory.len().max(1)]
    }

    /// The values of the axes a plan runs outermost, one a cell: each setting, so that
    /// the kernel's knobs change as seldom as a round allows.
    pub fn outer_values(&self) -> Vec<CellAxes> {
        if self.settings.is_empty() {
            return vec![CellAxes::default()];
        }
        (self.settings.iter().enumerate())
            .map(|(index, s)| CellAxes {
                setting: Some(Box::new(crate::features::settings::matrix::SettingRef {
                    index,
                    name: s.name.clone(),
                })),
                memory: None,
            })
            .collect()
    }

    /// The values of the axes a plan runs innermost, one a cell: each memory limit.
    pub fn inner_values(&self) -> Vec<CellAxes> {
        if self.memory.is_empty() {
            return vec![CellAxes::default()];
        }
        (self.memory.iter())
            .map(|m| CellAxes {
                setting: None,
                memory: Some(Box::new(m.clone())),
            })
            .collect()
    }
}

/// A cell's values of the features' axes. Each is boxed, so that a cell stays small.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CellAxes {
    /// The `settings:` value the cell runs under; `None`: no settings axis.
    pub setting: Option<Box<crate::features::settings::matrix::SettingRef>>,
    /// The `memory:` limit the cell's launches run under, each in a cgroup of its own;
    /// `None`: no memory axis, the runner's cgroup.
    pub memory: Option<Box<crate::features::cgroup::matrix::MemoryLimit>>,
}

impl CellAxes {
    /// The values of `outer` with those of `inner`.
    pub fn and(&self, inner: &CellAxes) -> CellAxes {
        CellAxes {
            setting: self.setting.clone().or_else(|| inner.setting.clone()),
            memory: self.memory.clone().or_else(|| inner.memory.clone()),
        }
    }

    /// The cell's description after its core axes, as ` setting=NAME memory=NAME`.
    pub fn describe(&self) -> String {
        let mut s = String::new();
        if let Some(setting) = &self.setting {
            s += &format!(" setting={}", setting.name);
        }
        if let Some(memory) = &self.memory {
            s += &format!(" memory={}", memory.name);
        }
        s
    }

    /// The name of the cell's setting, as its key in the result file holds it.
    pub fn setting_name(&self) -> Option<String> {
        self.setting.as_ref().map(|s| s.name.clone())
    }

    /// The name of the cell's memory limit, as its key in the result file holds it.
    pub fn memory_name(&self) -> Option<String> {
        self.memory.as_ref().map(|m| m.name.clone())
    }
}
