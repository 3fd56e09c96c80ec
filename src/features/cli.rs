//! The features' own subcommands, one line per feature. `cmd::cli::Command` flattens
//! this list, so the command line names no feature, and `cmd` runs each through
//! [`FeatureCommand::run`]. The list's order is the order `pretouch --help` shows them
//! in, after the core's `env` and before `generate`.

use crate::features::calibrate::options::CalibrateArgs;
use crate::features::campaign::options::CampaignArgs;

#[derive(Debug, clap::Subcommand)]
pub enum FeatureCommand {
    /// Measure how fast this machine faults in anonymous memory, the ceiling for pretouch
    Calibrate(CalibrateArgs),
    /// Show or stop the campaign across reboots that `pretouch run --boot` started
    Campaign(CampaignArgs),
}

impl FeatureCommand {
    /// Runs the feature's subcommand; `Ok` holds the exit code.
    pub(crate) fn run(self) -> anyhow::Result<u8> {
        match self {
            FeatureCommand::Calibrate(args) => crate::features::calibrate::cli::cmd_calibrate(args),
            FeatureCommand::Campaign(args) => {
                crate::features::campaign::session::cmd_campaign(&args)
            }
        }
    }
}

/// What the features did before any command ran, kept for `pretouch env`.
pub(crate) struct BeforeAny {
    settings: crate::features::settings::launch::Leftover,
}

/// What the features do before any command. A run killed with its kernel settings
/// changed left them so, so every command first restores them.
pub(crate) fn before_any_command() -> BeforeAny {
    BeforeAny {
        settings: crate::features::settings::cli::replay(),
    }
}

impl BeforeAny {
    /// `pretouch env`'s lines on what the features found before the command.
    pub(crate) fn env_lines(&self) -> String {
        crate::features::settings::cli::env_line(&self.settings)
    }
}

/// The comparison of the settings side by side, which `pretouch check
/// --baseline-setting` judges. `None` when the results ran under one setting only.
pub(crate) fn settings_comparison(
    launches: &crate::analyze::document::Launches,
) -> Option<&crate::analyze::compare::Comparison> {
    use crate::features::settings::section::SettingsSection;
    launches.part::<SettingsSection>().map(|s| &s.0)
}
