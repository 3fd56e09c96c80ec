//! `pretouch report --calibrate`: the labels' calibrations side by side.

use std::path::PathBuf;

use crate::analyze::calibration::{self, Options};
use crate::cmd::cli::ReportArgs;
use crate::cmd::error::bad;
use crate::cmd::report::write_output;
use crate::render::calibration as render;
use crate::store::read_results;

pub(crate) fn cmd_report_calibrate(args: &ReportArgs, paths: &[PathBuf]) -> anyhow::Result<u8> {
    let results = read_results(paths).map_err(bad)?;
    for w in &results.warnings {
        eprintln!("warning: {w}");
    }
    let options = Options {
        labels: args.labels.clone(),
        baseline: args.baseline.clone(),
    };
    let cmp = calibration::compare(&results.calibrations, &options).map_err(bad)?;
    let text = render::render(&cmp, args.format);
    match &args.output {
        Some(path) => write_output(path, &text)?,
        None => print!("{text}"),
    }
    Ok(0)
}
