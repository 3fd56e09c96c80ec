//! A feature's part of what one launch measured, and the macro that makes the value
//! holding every feature's part from their list in `features/measurement.rs`. The
//! launch's `Measurement` holds that value, and the store reads and writes each part by
//! its feature's key, so the core names no feature.

use std::collections::BTreeMap;

use crate::machine::env::Environment;

/// A feature's part of what one launch measured. Each method has a default of none.
pub trait LaunchPart {
    /// The kernel settings the launch ran under, as read back before its spawn, by
    /// their sysfs path under /sys/kernel/mm or their dotted sysctl.
    fn kernel_values(&self) -> Option<&BTreeMap<String, String>> {
        None
    }

    /// The machine's environment `env` as the launch ran under it, where the part
    /// changed it, such as the THP modes a feature wrote before the launch.
    fn environment(&self, _env: &Environment) -> Option<Environment> {
        None
    }
}

impl<T: LaunchPart + ?Sized> LaunchPart for Box<T> {
    fn kernel_values(&self) -> Option<&BTreeMap<String, String>> {
        (**self).kernel_values()
    }

    fn environment(&self, env: &Environment) -> Option<Environment> {
        (**self).environment(env)
    }
}

/// Makes `LaunchParts` from the features' parts, `key: Type,` one a line, in the order
/// the launch record writes their keys. Each type is a [`LaunchPart`].
macro_rules! launch_parts {
    ($($key:ident: $part:ty,)*) => {
        /// The features' parts of what one launch measured, each written by its
        /// feature's hook and kept in the launch record beside the core's keys. A
        /// feature's key is written only when its part is there.
        #[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
        pub struct LaunchParts {
            $(
                #[serde(default, skip_serializing_if = "Option::is_none")]
                pub $key: Option<$part>,
            )*
        }

        impl LaunchParts {
            $crate::units::optional_keys_reader!($($key),*);

            /// The features' keys, in the list's order.
            #[cfg(test)]
            pub const KEYS: &[&str] = &[$(stringify!($key)),*];

            /// The parts the launch has, in the list's order.
            fn parts(&self) -> impl Iterator<Item = &dyn crate::launch::parts::LaunchPart> {
                [$(self.$key.as_ref().map(|p| p as &dyn crate::launch::parts::LaunchPart),)*]
                    .into_iter()
                    .flatten()
            }

            /// The kernel settings the launch ran under, as read back before its spawn.
            /// `None` when no feature set any.
            pub fn kernel_values(&self) -> Option<&std::collections::BTreeMap<String, String>> {
                self.parts().find_map(|p| p.kernel_values())
            }

            /// The machine's environment `env` as the launch ran under it, or `None` when
            /// no feature changed it.
            pub fn environment(
                &self,
                env: &crate::machine::env::Environment,
            ) -> Option<crate::machine::env::Environment> {
                self.parts().find_map(|p| p.environment(env))
            }
        }
    };
}
pub(crate) use launch_parts;
