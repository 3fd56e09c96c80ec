//! The `settings:` axis in the commands: the replay of a journal a killed run left
//! behind, which every `pretouch` command tries first, `pretouch env`'s line on it, and
//! `pretouch check`'s options that judge the settings side by side.

use crate::analyze::document::Launches;
use crate::analyze::verdict::Judging;
use crate::features::settings::launch::{Leftover, Paths, replay_leftover};
use crate::features::settings::report_options::SettingsReportArgs;
use crate::features::settings::section::SettingsSection;

/// Replays a journal a killed run left, and says what it restored or why not. A
/// journal a live run holds is that run's, and not worth a word here (`pretouch env`
/// names it).
pub(crate) fn replay() -> Leftover {
    let paths = Paths::from_env();
    let found = replay_leftover(&paths);
    if !matches!(found, Leftover::Live { .. })
        && let Some(message) = found.message(&paths)
    {
        eprintln!("pretouch: {message}");
    }
    found
}

/// `pretouch env`'s line on the journal, after [`replay`] ran.
pub(crate) fn env_line(found: &Leftover) -> String {
    let paths = Paths::from_env();
    match found.message(&paths) {
        Some(message) if !matches!(found, Leftover::Restored { .. }) => {
            format!("kernel settings journal: {message}\n")
        }
        _ if paths.journal().exists() => format!(
            "kernel settings journal: {} is left behind\n",
            paths.journal().display()
        ),
        _ => format!(
            "kernel settings journal: none ({} holds none)\n",
            paths.state_dir.display()
        ),
    }
}

impl crate::cmd::feature::BeforeAny for Leftover {
    fn env_line(&self) -> String {
        env_line(self)
    }
}

/// `--baseline-setting` and `--setting` of `pretouch check`: the settings side by side
/// judged in place of the labels. The features' list of the check's options,
/// `features::cli::CheckOptions`, flattens them into the check's command line.
#[derive(Debug, Clone, Default, PartialEq, Eq, clap::Args)]
pub struct SettingsCheckArgs {
    /// Judge the `settings:` axis instead of labels, each other setting against this
    /// one, as the report sets them side by side
    #[arg(long, value_name = "NAME", conflicts_with_all = ["baseline", "label"])]
    pub baseline_setting: Option<String>,
    /// The settings judged against --baseline-setting, separated by commas [default:
    /// every other setting]
    #[arg(
        long,
        value_name = "NAME",
        value_delimiter = ',',
        requires = "baseline_setting"
    )]
    pub setting: Vec<String>,
}

impl SettingsCheckArgs {
    /// The report's option that sets the settings side by side against the check's
    /// baseline setting.
    pub(crate) fn report_args(&self) -> SettingsReportArgs {
        SettingsReportArgs {
            baseline_setting: self.baseline_setting.clone(),
        }
    }

    /// The settings side by side and the settings named to judge, when
    /// `--baseline-setting` asks the check to judge them. `None` otherwise. It is an
    /// error when the results shown ran under one setting only, because then the report
    /// has no settings side by side.
    pub(crate) fn judging(&self, launches: &Launches) -> Option<anyhow::Result<Judging<'_>>> {
        let name = self.baseline_setting.as_ref()?;
        let judging = match launches.part::<SettingsSection>() {
            Some(section) => Ok(Judging {
                comparison: section.0.clone(),
                judged: &self.setting,
                what: "setting",
            }),
            None => Err(anyhow::anyhow!(
                "--baseline-setting `{name}`: the results shown ran under one setting only, so there is nothing to hold against it\n  fix: name results of a matrix with two settings or more"
            )),
        };
        Some(judging)
    }
}
