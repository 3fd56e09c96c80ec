//! The features that add warnings to the report, one line each, in the order their
//! warnings are given, those that give cells their ceiling, those that wrote a launch's
//! THP mode, and those with figures of a cell: of how its heap was backed, of its heap
//! and pretouch method, and of its row in the report. The report's core asks each
//! through these lists, so it names none.
//!
//! The list is a file of its own, of the analysis stage, because the imports run one
//! way: the report's core reads it, and it reads the features' `analyze.rs` files.

use crate::analyze::ceiling::CeilingSource;
use crate::analyze::figures::figures;
use crate::analyze::method::WrittenThpMode;
use crate::analyze::warning::Warnings;

/// Every feature's warnings of the report.
pub static WARNINGS: &[&dyn Warnings] = &[
    &crate::features::kernels::analyze::WARNINGS,
    &crate::features::campaign::analyze::WARNINGS,
    &crate::features::cds::analyze::WARNINGS,
];

/// The feature that gives cells their ceiling, and the words the explaining tables name
/// it by.
pub const CEILING_SOURCE: CeilingSource = crate::features::calibrate::ceiling::SOURCE;

/// Every feature that may have written the THP mode a launch ran under, the first that
/// names one first.
pub static THP_MODES: &[WrittenThpMode] = &[crate::features::settings::method::thp_mode];

figures! {
    /// The features' figures of how a cell's heap was backed, beside the core's folios,
    /// in the order the cell's explanation and its row in the report write them.
    pub struct Backing, BackingColumns {
        cgroup: crate::features::cgroup::analyze::CgroupFigures,
    }
}

figures! {
    /// The features' figures of a cell's heap and pretouch method, after the method, in
    /// the order the report's JSON writes them.
    pub struct HeapParts, HeapPartsColumns {
        check: crate::features::profile::method::MethodCheck,
    }
}

figures! {
    /// The features' figures of a cell's row in the report, after its ceiling, in the
    /// order the report's JSON writes them.
    pub struct CellParts, CellPartsColumns {
        ready: crate::features::servers::analyze::CellReady,
    }
}
