//! `pretouch report --calibrate`: the labels' calibrations side by side. `cmd::report`
//! hands over to it; it imports nothing of `cmd::report` (no cycle).

use std::path::PathBuf;

use anyhow::Context;

use crate::analyze::calibration::{self, Options};
use crate::cmd::cli::ReportArgs;
use crate::cmd::error::bad;
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
        Some(path) => {
            std::fs::write(path, &text).with_context(|| format!("writing `{}`", path.display()))?
        }
        None => print!("{text}"),
    }
    Ok(0)
}
