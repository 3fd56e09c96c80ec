//! The features' columns of the explaining tables, one line per feature: the figures of
//! how a cell's heap was backed, such as a `memory:` cell's cgroup limit, and those of
//! its heap and pretouch method, such as the method checked against a kernel profile,
//! with the remarks under the heap's table. The explaining tables join them to the
//! core's columns, so `render::explain` and `render::heap` name no feature.
//!
//! The list is a file of its own, of the render stage, because the imports run one way:
//! the explaining tables read it, and it reads the features' `render.rs` files.

use crate::analyze::heap::CellHeap;
use crate::analyze::report::CellReport;
use crate::render::table::Explaining;

/// Every feature's columns of how a cell's heap was backed, after the folios', in this
/// order. They are one group with the folios', so the text's tables keep them together.
pub static BACKING: &[&[Explaining<CellReport>]] = &[&crate::features::cgroup::render::COLUMNS];

/// Every feature's columns of a cell's heap and pretouch method, after the method's,
/// in this order.
pub static HEAP: &[&[Explaining<CellReport>]] = &[&crate::features::profile::render::HEAP_COLUMNS];

/// Every feature's remark on a cell's heap and method under the heap's table, given the
/// cell's name, in this order after the core's lines.
pub static HEAP_REMARKS: &[fn(&CellHeap, &str) -> Option<String>] =
    &[crate::features::profile::render::heap_remark];
