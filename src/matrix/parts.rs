//! The traits a feature's keys of the matrix implement, and the macros that make the
//! matrix's features' part and a cell's features' axes from their lists in
//! `features/matrix.rs`. The matrix reads a key it does not know through that part, and
//! the plan multiplies the cells by those axes, so neither names a feature.

use serde::de::MapAccess;

/// A feature's key at the top of a matrix file, such as `settings:`.
pub trait MatrixKey {
    /// The key's value as read, and its default when the key is absent.
    type Value: std::fmt::Debug + Clone + Default;

    /// The key this one follows in the order an unknown key's message has always listed
    /// them, one of the core's keys or another feature's.
    const AFTER: &'static str;

    /// Reads the key's value.
    fn read<'de, A: MapAccess<'de>>(map: &mut A) -> Result<Self::Value, A::Error>;
}

/// Reads a key's value in its written form `W`, made the key's value by `value`, or the
/// default when the key is null. Most keys are a list that a type of their own checks as
/// it is read.
pub fn read_as<'de, W, V, A>(map: &mut A, value: fn(W) -> V) -> Result<V, A::Error>
where
    W: serde::Deserialize<'de>,
    V: Default,
    A: MapAccess<'de>,
{
    Ok(map
        .next_value::<Option<W>>()?
        .map(value)
        .unwrap_or_default())
}

/// A feature's switch at the top of a matrix file, such as `probe: true`, false when
/// absent. [`Switch`] makes it a [`MatrixKey`].
pub trait SwitchKey {
    /// The key this one follows in the order an unknown key's message has always listed
    /// them.
    const AFTER: &'static str;
}

/// The [`MatrixKey`] of the switch `K`.
pub struct Switch<K>(std::marker::PhantomData<K>);

impl<K: SwitchKey> MatrixKey for Switch<K> {
    type Value = bool;
    const AFTER: &'static str = K::AFTER;

    fn read<'de, A: MapAccess<'de>>(map: &mut A) -> Result<bool, A::Error> {
        map.next_value()
    }
}

/// A feature's key that is an axis of the cells, such as `memory:`, so that each cell
/// runs under one of its values.
pub trait CellAxis: MatrixKey {
    /// A cell's value of the axis. The launch's hooks find it among the cell's values
    /// by its type.
    type Cell: std::fmt::Debug + Clone + PartialEq + Eq + Send + Sync + 'static;

    /// The plan runs the axis outermost, so that its values change as seldom as a round
    /// allows. Otherwise it runs the axis innermost.
    const OUTER: bool;

    /// The axis's values, one a cell, from the key's value. None when the key is absent.
    fn cells(value: &Self::Value) -> Vec<Self::Cell>;

    /// The name of a cell's value, as the cell's key in the result file holds it.
    fn name(cell: &Self::Cell) -> &str;
}

/// A feature's keys of an `app:` block.
pub trait AppPart: std::fmt::Debug + Clone + Default + PartialEq + Eq {
    /// The keys, in the order an unknown key's message lists them.
    const KEYS: &'static [&'static str];

    /// Reads the value of `key`, one of [`AppPart::KEYS`].
    fn read<'de, A: MapAccess<'de>>(&mut self, key: &str, map: &mut A) -> Result<(), A::Error>;

    /// The checks of the keys together once the block is read, with `exit_at_main` as
    /// written.
    fn check(&self, exit_at_main: Option<bool>) -> Result<(), String>;

    /// The application runs on past `main()`, so that `exit_at_main` is false unless
    /// written.
    fn runs_past_main(&self) -> bool;

    /// What the dry run's estimate of the time leaves out.
    fn not_counted(&self) -> Option<String>;
}

/// Makes `AppParts`, the features' part of an `app:` block, from the features' keys of
/// it, `name: Type,` one a line, each type an [`AppPart`].
macro_rules! app_parts {
    ($($name:ident: $part:ty,)*) => {
        /// The features' part of an `app:` block: the keys a feature adds to it, as read.
        #[derive(Debug, Clone, Default, PartialEq, Eq)]
        pub struct AppParts {
            $(pub $name: $part,)*
        }

        impl AppParts {
            /// The features' keys of `app:`, in the order an unknown key's message lists
            /// them.
            pub fn keys() -> impl Iterator<Item = &'static str> {
                use $crate::matrix::parts::AppPart;
                [$(<$part>::KEYS,)*].into_iter().flatten().copied()
            }

            /// Reads the value of `key`, one of [`AppParts::keys`].
            pub fn read<'de, A: serde::de::MapAccess<'de>>(
                &mut self,
                key: &str,
                map: &mut A,
            ) -> Result<(), A::Error> {
                use $crate::matrix::parts::AppPart;
                $(if <$part>::KEYS.contains(&key) {
                    return self.$name.read(key, map);
                })*
                unreachable!("`{key}` is none of the features' keys of app:")
            }

            /// The features' checks of the block once it is read, with `exit_at_main` as
            /// written.
            pub fn check(&self, exit_at_main: Option<bool>) -> Result<(), String> {
                use $crate::matrix::parts::AppPart;
                $(self.$name.check(exit_at_main)?;)*
                Ok(())
            }

            /// Whether the application runs on past `main()`, so that `exit_at_main` is
            /// false unless written.
            pub fn runs_past_main(&self) -> bool {
                use $crate::matrix::parts::AppPart;
                false $(|| self.$name.runs_past_main())*
            }

            /// What the dry run's estimate of the time leaves out, one line each.
            pub fn not_counted(&self) -> Vec<String> {
                use $crate::matrix::parts::AppPart;
                [$(self.$name.not_counted(),)*].into_iter().flatten().collect()
            }
        }
    };
}
pub(crate) use app_parts;

/// Makes `MatrixParts`, the features' keys of the matrix, and `CellAxes`, a cell's
/// values of the features' axes, from the features' keys, `key: Type,` one a line, each
/// type a [`MatrixKey`]. A key that is an axis of the cells is written
/// `key: Type => axis,`, its type a [`CellAxis`] too, and `axis` is the name of the
/// cell's key in the result file.
macro_rules! matrix_parts {
    ($($key:ident: $ty:ty $(=> $axis:ident)?,)*) => {
        /// The features' keys of the matrix, each its default when its key is absent.
        #[derive(Debug, Clone, Default)]
        pub struct MatrixParts {
            $(pub $key: <$ty as $crate::matrix::parts::MatrixKey>::Value,)*
        }

        /// The features' axes that multiply the cells, in the order a message about the
        /// number of cells names them.
        pub const CELL_AXES: &[&str] = &[$($({
            let _ = stringify!($axis);
            stringify!($key)
        },)?)*];

        impl MatrixParts {
            /// The features' keys of a matrix file, each after the key it follows in the
            /// order an unknown key's message has always listed them.
            pub const KEYS: &'static [(&'static str, &'static str)] = &[$((
                <$ty as $crate::matrix::parts::MatrixKey>::AFTER,
                stringify!($key),
            ),)*];

            /// Reads the value of `key`, one of the second halves of
            /// [`MatrixParts::KEYS`].
            pub fn read<'de, A: serde::de::MapAccess<'de>>(
                &mut self,
                key: &str,
                map: &mut A,
            ) -> Result<(), A::Error> {
                match key {
                    $(stringify!($key) => {
                        self.$key = <$ty as $crate::matrix::parts::MatrixKey>::read(map)?
                    })*
                    _ => unreachable!("`{key}` is none of the features' keys of a matrix"),
                }
                Ok(())
            }

            /// The number of values of each of [`CELL_AXES`], 1 for an absent axis.
            pub fn cell_axes_lengths(&self) -> Vec<usize> {
                vec![$($({
                    let _ = stringify!($axis);
                    <$ty as $crate::matrix::parts::CellAxis>::cells(&self.$key).len().max(1)
                },)?)*]
            }

            /// The values of the axes a plan runs outermost, one a cell, such as each
            /// setting, so that the kernel's knobs change as seldom as a round allows.
            pub fn outer_values(&self) -> Vec<CellAxes> {
                self.values(true)
            }

            /// The values of the axes a plan runs innermost, one a cell, such as each
            /// memory limit.
            pub fn inner_values(&self) -> Vec<CellAxes> {
                self.values(false)
            }

            /// Every combination of the values of the axes that run outermost (`outer`)
            /// or innermost, the first axis of the list slowest.
            fn values(&self, outer: bool) -> Vec<CellAxes> {
                use $crate::matrix::parts::CellAxis;
                let mut cells = vec![CellAxes::default()];
                $($(if <$ty>::OUTER == outer {
                    let values = <$ty>::cells(&self.$key);
                    if !values.is_empty() {
                        cells = (cells.iter())
                            .flat_map(|cell| {
                                values.iter().map(|value| CellAxes {
                                    $axis: Some(Box::new(value.clone())),
                                    ..cell.clone()
                                })
                            })
                            .collect();
                    }
                })?)*
                cells
            }
        }

        /// A cell's values of the features' axes, each `None` when the matrix has no
        /// such axis. Each is boxed, so that a cell stays small.
        #[derive(Debug, Clone, Default, PartialEq, Eq)]
        pub struct CellAxes {
            $($(pub $axis: Option<Box<<$ty as $crate::matrix::parts::CellAxis>::Cell>>,)?)*
        }

        impl CellAxes {
            /// The values of `self` with those of `inner`.
            pub fn and(&self, inner: &CellAxes) -> CellAxes {
                CellAxes {
                    $($($axis: self.$axis.clone().or_else(|| inner.$axis.clone()),)?)*
                }
            }

            /// The cell's description after its core axes, as ` setting=NAME memory=NAME`.
            pub fn describe(&self) -> String {
                let mut s = String::new();
                $($(if let Some(value) = &self.$axis {
                    let name = <$ty as $crate::matrix::parts::CellAxis>::name(value);
                    s += &format!(" {}={name}", stringify!($axis));
                })?)*
                s
            }

            /// The name of the cell's value of `axis`, as its key in the result file
            /// holds it.
            pub fn name_of(&self, axis: &str) -> Option<String> {
                match axis {
                    $($(stringify!($axis) => self.$axis.as_deref().map(|value| {
                        <$ty as $crate::matrix::parts::CellAxis>::name(value).to_owned()
                    }),)?)*
                    _ => None,
                }
            }

            /// The cell's values, each for the launch's hooks to find by its type.
            pub fn values(&self) -> Vec<std::sync::Arc<dyn std::any::Any + Send + Sync>> {
                let mut values: Vec<std::sync::Arc<dyn std::any::Any + Send + Sync>> =
                    Vec::new();
                $($(if let Some(value) = &self.$axis {
                    values.push(std::sync::Arc::new((**value).clone()));
                })?)*
                values
            }
        }
    };
}
pub(crate) use matrix_parts;
