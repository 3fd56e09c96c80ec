//! The features that add warnings to the report, one line each, in the order their
//! warnings are given, and those that give cells their ceiling. The report's core asks
//! each through these lists, so it names none.
//!
//! The list is a file of its own, of the analysis stage, because the imports run one
//! way: the report's core reads it, and it reads the features' `analyze.rs` files.

use crate::analyze::ceiling::Ceilings;
use crate::analyze::warning::Warnings;

/// Every feature's warnings of the report.
pub static WARNINGS: &[&dyn Warnings] = &[
    &crate::features::kernels::analyze::WARNINGS,
    &crate::features::cds::analyze::WARNINGS,
];

/// Every feature that gives cells their ceiling, the first that has one for a cell
/// first.
pub static CEILINGS: &[&dyn Ceilings] = &[&crate::features::calibrate::ceiling::CEILINGS];
