//! The settings' option of `pretouch report`. The features' list of the report's
//! comparisons, `features::report_options::CompareOptions`, flattens it into the
//! report's command line, and the settings' section reads it from the report's options.

/// `--baseline-setting`: the setting the others are compared with in the settings side
/// by side.
#[derive(Debug, Clone, Default, PartialEq, Eq, clap::Args)]
pub struct SettingsReportArgs {
    /// The setting of the `settings:` axis the others are compared with [default: the
    /// matrix's first]
    #[arg(long, value_name = "NAME")]
    pub baseline_setting: Option<String>,
}

impl crate::analyze::feature_options::FeatureOptions for SettingsReportArgs {}
