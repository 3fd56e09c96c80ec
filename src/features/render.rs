//! The features' columns of the explaining tables, one line per feature: the figures of
//! how a cell's heap was backed, such as a `memory:` cell's cgroup limit. The
//! explaining tables join them to the core's columns, so `render::explain` names no
//! feature.
//!
//! The list is a file of its own, of the render stage, because the imports run one way:
//! the explaining tables read it, and it reads the features' `render.rs` files.

use crate::analyze::report::CellReport;
use crate::render::table::Explaining;

/// Every feature's columns of how a cell's heap was backed, after the folios', in this
/// order. They are one group with the folios', so the text's tables keep them together.
pub static BACKING: &[&[Explaining<CellReport>]] = &[&crate::features::cgroup::render::COLUMNS];
