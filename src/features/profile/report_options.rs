//! The profile's options of `pretouch report`. The features' list of them,
//! `features::report_options`, flattens them into the report's command line, and the
//! profile's section reads them from the report's options.

use std::path::PathBuf;

/// `--profile`, `--flamegraph` and `--profile-csv`: the profile shown in the report, its
/// flame graphs and its figures as CSV beside it.
#[derive(Debug, Clone, Default, PartialEq, Eq, clap::Args)]
pub struct ProfileReportArgs {
    /// Show where the pretouch time goes in the kernel, from `run --profile`'s launches.
    ///
    /// Each cell lists its kernel functions and their categories, and how each moved
    /// against the baseline label.
    #[arg(long)]
    pub profile: bool,
    /// Write flame graphs of the profiled launches into DIR. There is one per cell and
    /// label, and one per cell that shows the change against the baseline.
    #[arg(long, value_name = "DIR")]
    pub flamegraph: Option<PathBuf>,
    /// Write the profile's figures as CSV into FILE, whatever `--format` prints, because
    /// a CSV file holds one table
    #[arg(long, value_name = "FILE", conflicts_with = "calibrate")]
    pub profile_csv: Option<PathBuf>,
}

/// The report a profiled run prints at its end shows the profile, as `pretouch report
/// --profile` shows it.
impl crate::analyze::feature_options::FeatureOptions for ProfileReportArgs {
    fn after_run(profiled: bool) -> ProfileReportArgs {
        ProfileReportArgs {
            profile: profiled,
            ..ProfileReportArgs::default()
        }
    }
}
