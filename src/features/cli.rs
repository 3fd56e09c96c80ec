//! The features' own subcommands, one line per feature. `cmd::cli::Command` flattens
//! this list, so the command line names no feature, and `cmd` runs each through
//! [`FeatureCommand::run`]. The list's order is the order `pretouch --help` shows them
//! in, after the core's `env` and before `generate`. The features' options of
//! `pretouch check` are a list here too, [`CheckOptions`].

use crate::analyze::document::Launches;
use crate::analyze::verdict::Judging;
use crate::cmd::feature::Before;
use crate::features::report_options::CompareOptions;

crate::cmd::feature::feature_commands! {
    /// Measure how fast this machine faults in anonymous memory, the ceiling for pretouch
    Calibrate(crate::features::calibrate::options::CalibrateArgs),
    /// Show or stop the campaign across reboots that `pretouch run --boot` started
    Campaign(crate::features::campaign::options::CampaignArgs),
}

/// What the features do before any command, one line per feature. A run killed with
/// its kernel settings changed left them so, so every command first restores them.
pub(crate) fn before_any_command() -> Before {
    Before(vec![Box::new(crate::features::settings::cli::replay())])
}

/// The features' options of `pretouch check`, one line per feature. `cmd::cli::CheckArgs`
/// flattens this list after its `--labels`, where `--help` and the shell completions
/// always showed them, so the check's command line names no feature. A feature's
/// options here ask the check to judge its comparison in place of the labels side by
/// side, as `--baseline-setting` asks for the settings'.
#[derive(Debug, Clone, Default, PartialEq, Eq, clap::Args)]
pub struct CheckOptions {
    #[command(flatten)]
    pub settings: crate::features::settings::cli::SettingsCheckArgs,
}

impl CheckOptions {
    /// What the report's analysis needs of these options, so that it builds the
    /// comparisons the check judges.
    pub(crate) fn compare(&self) -> CompareOptions {
        CompareOptions {
            settings: self.settings.report_args(),
        }
    }

    /// The feature's comparison that these options ask the check to judge in place of
    /// the labels side by side, or an error that says why it cannot be judged. `None`
    /// when they ask for none.
    pub(crate) fn judging(&self, launches: &Launches) -> Option<anyhow::Result<Judging<'_>>> {
        self.settings.judging(launches)
    }
}
