//! Stage 5, analysis: stored records into figures. Per cell the medians, spreads and
//! outliers ([`report`]), where the cost went ([`explain`]), and labels set side by
//! side with intervals ([`compare`]). Reads the store; computes, never prints.

pub mod calibration;
pub mod cds;
pub mod ceiling;
pub mod compare;
pub mod disturbance;
pub mod document;
pub mod env;
pub mod explain;
pub mod heap;
pub mod interval;
pub mod kernels;
pub mod labels;
pub mod method;
pub mod outliers;
pub mod probe;
pub mod profile;
pub mod ready;
pub mod report;

use crate::store::Results;

/// The report of stored results with default options: every cell's row, and the
/// run-to-run check of labels run more than once.
pub fn build(results: &Results) -> report::Report {
    build_with(results, report::Options::default())
}

/// [`build`] with options (outliers left out).
pub fn build_with(results: &Results, options: report::Options) -> report::Report {
    let mut report = report::build_rows(results, options);
    report.run_to_run = compare::run_to_run(results, options);
    // Emulated labels first: no one should read past that.
    report.warnings.splice(0..0, kernels::warnings(results));
    report.warnings.extend(cds::warnings(results));
    report
}
