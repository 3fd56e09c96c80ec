//! The features' options of `pretouch report`, one line per feature.
//! `cmd::cli::ReportArgs` flattens this list once, so the report's command line names no
//! feature. The same value rides in `analyze::Options` and in
//! `render::section::SideRequest`, and each feature's section reads its own part.
//! The options that pick the baseline of a feature's comparison are a second list,
//! [`CompareOptions`], because `--help` shows them beside the report's `--baseline`.
//!
//! The list is a file of its own, of the analysis stage, because the imports run one
//! way: the analysis and the render read it, and it reads the features'
//! `report_options.rs` files.

use crate::analyze::feature_options::feature_options;

feature_options! {
    /// The features' options of `pretouch report`, in the order `--help` and the shell
    /// completions show them.
    pub struct ReportOptions {
        profile: crate::features::profile::report_options::ProfileReportArgs,
        calibrate: crate::features::calibrate::report_options::CalibrateReportArgs,
        probe: crate::features::probe::report_options::ProbeReportArgs,
    }
}

feature_options! {
    /// The features' options that pick what a comparison of their own holds the others
    /// against, as `--baseline-setting` does for the settings side by side.
    /// `cmd::cli::ReportArgs` flattens this list after its `--baseline`, where `--help`
    /// and the shell completions always showed them. The value rides in
    /// `analyze::Options`.
    pub struct CompareOptions {
        settings: crate::features::settings::report_options::SettingsReportArgs,
    }
}
