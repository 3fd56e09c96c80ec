//! The warnings a feature adds to the report, such as the labels run under emulation or
//! the JDKs of a label that differ in class data sharing. `features::analyze::WARNINGS`
//! lists the features that add some, so the report's core names none.

use crate::analyze::options::Options;
use crate::store::{ResultFile, Results};

/// A feature's warnings of the report. Each method has a default of none.
pub trait Warnings: Sync {
    /// Warnings that go before every other, because no one should read past them.
    fn first(&self, _results: &Results) -> Vec<String> {
        Vec::new()
    }

    /// Warnings of the whole results, after the report's own.
    fn last(&self, _results: &Results, _options: &Options) -> Vec<String> {
        Vec::new()
    }

    /// The warning of one label, from its files with their launches. A report reads
    /// one label's launches at a time, so this is asked while they are in memory. The
    /// labels' warnings come after every [`Warnings::last`], in the labels' order.
    fn of_label(&self, _label: &str, _files: &[&ResultFile]) -> Option<String> {
        None
    }
}
