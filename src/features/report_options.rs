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

use crate::features::calibrate::report_options::CalibrateReportArgs;
use crate::features::probe::report_options::ProbeReportArgs;
use crate::features::profile::report_options::{ProfileCsvArgs, ProfileReportArgs};
use crate::features::settings::report_options::SettingsReportArgs;

/// The features' options of `pretouch report`, in the order `--help` and the shell
/// completions show them. `--calibrate` sits between the profile's options, so the
/// profile gives two parts.
#[derive(Debug, Clone, Default, PartialEq, Eq, clap::Args)]
pub struct ReportOptions {
    #[command(flatten)]
    pub profile: ProfileReportArgs,
    #[command(flatten)]
    pub calibrate: CalibrateReportArgs,
    #[command(flatten)]
    pub profile_csv: ProfileCsvArgs,
    #[command(flatten)]
    pub probe: ProbeReportArgs,
}

impl ReportOptions {
    /// The options of the report a run prints at its end: the profile shown when the
    /// run was `profiled`, as `pretouch report --profile` shows it.
    pub fn after_run(profiled: bool) -> ReportOptions {
        ReportOptions {
            profile: ProfileReportArgs {
                profile: profiled,
                ..ProfileReportArgs::default()
            },
            ..ReportOptions::default()
        }
    }

    /// A feature's report is asked for instead of the launches' report, so the results
    /// need not hold launches (`--calibrate`).
    pub fn instead_of_launches(&self) -> bool {
        self.calibrate.calibrate
    }
}

/// The features' options that pick what a comparison of their own holds the others
/// against, as `--baseline-setting` does for the settings side by side.
/// `cmd::cli::ReportArgs` flattens this list after its `--baseline`, where `--help` and
/// the shell completions always showed them. The value rides in `analyze::Options`.
#[derive(Debug, Clone, Default, PartialEq, Eq, clap::Args)]
pub struct CompareOptions {
    #[command(flatten)]
    pub settings: SettingsReportArgs,
}
