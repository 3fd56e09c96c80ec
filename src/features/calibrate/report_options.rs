//! The calibrations' option of `pretouch report`. The features' list of them,
//! `features::report_options`, flattens it into the report's command line, and the
//! calibrations' section reads it from the report's options.

/// `--calibrate`: the calibrations side by side instead of the launches' report.
#[derive(Debug, Clone, Default, PartialEq, Eq, clap::Args)]
pub struct CalibrateReportArgs {
    /// Compare the labels' `pretouch calibrate` results instead of their runs
    #[arg(long, conflicts_with_all = ["phases", "plot", "exclude_outliers"])]
    pub calibrate: bool,
}

impl crate::analyze::feature_options::FeatureOptions for CalibrateReportArgs {
    fn instead_of_launches(&self) -> bool {
        self.calibrate
    }
}
