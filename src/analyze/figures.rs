//! A feature's figures of a cell: of how its heap was backed, as a `memory:` cell's
//! cgroup limit and peak charge are, of its heap and pretouch method, as the method
//! checked against a kernel profile is, or of its row in the report, as a server's time
//! to ready is. `features::analyze` lists the features with figures, one line each in
//! the list of their kind, and [`figures!`] makes each list one struct. The report's
//! core holds those structs, so it names no feature.

use serde::Serialize;

use crate::store::LaunchRecord;

/// A feature's figures of a cell. The report's JSON writes them as the feature's own
/// key, and the CSV of cells as the feature's flat columns.
pub trait Figures: Serialize + Clone + PartialEq + std::fmt::Debug + Sized {
    /// The figures as flat columns of the CSV of cells, because a CSV row holds no
    /// nested object. It is a struct, so the list's columns flatten it.
    type Columns: Serialize + Clone + Default + std::fmt::Debug;

    /// Whether the JSON writes the feature's key as `null` for a cell without its
    /// figures, rather than leaving the key out.
    const NULL_WHEN_ABSENT: bool = false;

    /// The figures of a cell, from its counted launches with (`on`) and without
    /// (`off`) pretouch that entered its statistics. `None` where the cell has none, as
    /// for figures that a section of the report fills in later.
    fn of(_on: &[&LaunchRecord], _off: &[&LaunchRecord]) -> Option<Self> {
        None
    }

    /// The columns of a cell's figures, which are empty where the cell has none.
    fn columns(figures: Option<&Self>) -> Self::Columns;
}

/// Whether the JSON leaves a feature's key out of a cell without its figures.
pub fn left_out<F: Figures>(figures: &Option<F>) -> bool {
    figures.is_none() && !F::NULL_WHEN_ABSENT
}

/// A list of the features' figures of one kind: `$list` holds each feature's figures
/// of a cell in its field `$feature`, and `$columns` their columns in the CSV of cells,
/// in the list's order. So a feature with figures is one line of the list.
macro_rules! figures {
    ($(#[$doc:meta])* pub struct $list:ident, $columns:ident { $($feature:ident: $figures:ty,)* }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
        pub struct $list {
            $(
                #[serde(skip_serializing_if = "crate::analyze::figures::left_out")]
                pub $feature: Option<$figures>,
            )*
        }

        impl $list {
            /// The features' figures of a cell, from its counted launches with (`on`)
            /// and without (`off`) pretouch that entered its statistics.
            pub fn of(
                on: &[&crate::store::LaunchRecord],
                off: &[&crate::store::LaunchRecord],
            ) -> $list {
                $list {
                    $($feature: <$figures as crate::analyze::figures::Figures>::of(on, off),)*
                }
            }

            /// No feature has figures of the cell.
            pub fn is_empty(&self) -> bool {
                true $(&& self.$feature.is_none())*
            }

            /// The features' figures as flat columns of the CSV of cells: every
            /// feature's columns, empty where the cell has no figures of it.
            pub fn columns(&self) -> $columns {
                $columns {
                    $($feature: <$figures as crate::analyze::figures::Figures>::columns(self.$feature.as_ref()),)*
                }
            }
        }

        /// The features' columns in the CSV of cells, each feature's flattened in the
        /// list's order.
        #[derive(Debug, Clone, Default, serde::Serialize)]
        pub struct $columns {
            $(
                #[serde(flatten)]
                $feature: <$figures as crate::analyze::figures::Figures>::Columns,
            )*
        }
    };
}
pub(crate) use figures;
