//! The features that add warnings to the report, one line each, in the order their
//! warnings are given, those that give cells their ceiling, and those with figures of a
//! cell: of how its heap was backed, of its heap and pretouch method, and of its row in
//! the report. The report's core asks each through these lists, so it names none.
//!
//! The list is a file of its own, of the analysis stage, because the imports run one
//! way: the report's core reads it, and it reads the features' `analyze.rs` files.

use serde::Serialize;

use crate::analyze::ceiling::{CeilingWords, Ceilings};
use crate::analyze::warning::Warnings;
use crate::store::LaunchRecord;

/// Every feature's warnings of the report.
pub static WARNINGS: &[&dyn Warnings] = &[
    &crate::features::kernels::analyze::WARNINGS,
    &crate::features::campaign::analyze::WARNINGS,
    &crate::features::cds::analyze::WARNINGS,
];

/// Every feature that gives cells their ceiling, the first that has one for a cell
/// first.
pub static CEILINGS: &[&dyn Ceilings] = &[&crate::features::calibrate::ceiling::CEILINGS];

/// How the explaining tables name where the cells' ceilings come from: in the words of
/// the feature in [`CEILINGS`], the only one there.
pub const CEILING_WORDS: CeilingWords = crate::features::calibrate::ceiling::WORDS;

/// The features' figures of how a cell's heap was backed, beside the core's folios: each
/// feature's own key, in the order the cell's explanation and its row in the report
/// write them. A cell without a feature's figures has no key of it.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Backing {
    /// A `memory:` cell's cgroups: the limit, the peak charge, the hits at the limit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cgroup: Option<crate::features::cgroup::analyze::CgroupFigures>,
}

impl Backing {
    /// The features' figures of a cell, from its launches with (`on`) and without
    /// (`off`) pretouch that reached `main()`.
    pub fn of(on: &[&LaunchRecord], off: &[&LaunchRecord]) -> Backing {
        Backing {
            cgroup: crate::features::cgroup::analyze::figures(on, off),
        }
    }

    /// No feature has figures of the cell.
    pub fn is_empty(&self) -> bool {
        self.cgroup.is_none()
    }

    /// The features' figures as flat columns of the CSV of cells, after the folios'
    /// (a CSV row holds no nested object): every feature's columns, empty where the
    /// cell has no figures of it.
    pub fn columns(&self) -> impl Serialize + use<> {
        crate::features::cgroup::analyze::CgroupColumns::of(self.cgroup.as_ref())
    }
}

/// The features' figures of a cell's heap and pretouch method, after the method: each
/// feature's own key, in the order the report's JSON writes them.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct HeapParts {
    /// The method against the cell's profile (`report --profile`); `None`: no profile.
    /// The JSON writes it as `null` then, as it always has.
    pub check: Option<crate::features::profile::method::MethodCheck>,
}

impl HeapParts {
    /// The features' figures as flat columns of the CSV of cells, after the method's,
    /// because a CSV row holds no nested object. Every feature has its columns, and
    /// they are empty where the cell has no figures of it.
    pub fn columns(&self) -> HeapPartsColumns {
        HeapPartsColumns {
            check: crate::features::profile::method::CheckColumns::of(self.check.as_ref()),
        }
    }
}

/// [`HeapParts`] as flat columns, which the heap's columns of the CSV of cells flatten
/// after the method's.
#[derive(Debug, Clone, Default, Serialize)]
pub struct HeapPartsColumns {
    #[serde(flatten)]
    check: crate::features::profile::method::CheckColumns,
}

/// The features' figures of a cell's row in the report, after its ceiling: each
/// feature's own key, in the order the report's JSON writes them. A cell without a
/// feature's figures has no key of it.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct CellParts {
    /// A server cell (`app:` with `ready:`): time to ready, pretouch's share of it, the
    /// `after_ready` workload with and without pretouch.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ready: Option<crate::features::servers::analyze::CellReady>,
}

impl CellParts {
    /// The features' figures of a cell, from its launches without (`off`) and with
    /// (`on`) pretouch that entered its statistics.
    pub fn of(off: &[&LaunchRecord], on: &[&LaunchRecord]) -> CellParts {
        CellParts {
            ready: crate::features::servers::analyze::cell_ready(off, on),
        }
    }

    /// No feature has figures of the cell.
    pub fn is_empty(&self) -> bool {
        self.ready.is_none()
    }

    /// The features' figures as flat columns of the CSV of cells, after the heap's (a
    /// CSV row holds no nested object): every feature's columns, empty where the cell
    /// has no figures of it.
    pub fn columns(&self) -> impl Serialize + use<> {
        self.ready.clone().unwrap_or_default()
    }
}
