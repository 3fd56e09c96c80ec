//! The probe's options of `pretouch report`, the files it writes beside the report. The
//! features' list of them, `features::report_options`, flattens them into the report's
//! command line, and the probe's section reads them from the report's options.

use std::path::PathBuf;

/// `--probe-csv` and `--probe-svg`.
#[derive(Debug, Clone, Default, PartialEq, Eq, clap::Args)]
pub struct ProbeReportArgs {
    /// Write the figures of `run --probe`'s launches as CSV into FILE, whatever
    /// `--format` prints
    #[arg(long, value_name = "FILE", conflicts_with = "calibrate")]
    pub probe_csv: Option<PathBuf>,
    /// Draw the fault latency of `run --probe`'s launches into DIR, as one SVG per cell
    /// with every label's histogram
    #[arg(long, value_name = "DIR", conflicts_with = "calibrate")]
    pub probe_svg: Option<PathBuf>,
}

impl crate::analyze::feature_options::FeatureOptions for ProbeReportArgs {}
