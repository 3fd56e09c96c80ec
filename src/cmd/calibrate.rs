//! `pretouch calibrate`: this machine's anonymous-fault ceiling.

use anyhow::Context;

use crate::cmd::checks::check_label;
use crate::cmd::cli::CalibrateArgs;
use crate::cmd::error::bad;
use crate::machine::calibrate::{self, Layout};
use crate::machine::host;

pub(crate) fn cmd_calibrate(args: CalibrateArgs) -> anyhow::Result<u8> {
    let label = args
        .label
        .clone()
        .unwrap_or_else(|| host::host_info().kernel_release);
    check_label(&label).map_err(bad)?;
    let mut threads: Vec<usize> = if args.threads.is_empty() {
        vec![1, host::host_info().cpus]
    } else {
        args.threads.iter().map(|&t| usize::from(t)).collect()
    };
    threads.dedup();
    let layouts = if args.layout.is_empty() {
        vec![Layout::Shared, Layout::PerThread, Layout::Processes]
    } else {
        args.layout.clone()
    };
    let started = std::time::SystemTime::now();
    let c = calibrate::run(
        &label,
        &threads,
        &layouts,
        args.size,
        args.passes,
        |l, w| {
            eprintln!("calibrate: {l}, {w} worker(s)...");
        },
    )
    .map_err(|e| match e {
        calibrate::CalibrateError::TooSmall { .. } => bad(e),
        e => e.into(),
    })?;
    print!("{}", calibrate::to_text(&c));
    if !args.no_save {
        let utc = humantime::format_rfc3339_seconds(started).to_string();
        let stamp: String = utc.chars().filter(|c| *c != '-' && *c != ':').collect();
        let path = calibrate::save(&c, &args.results.join(&label), &stamp)
            .context("writing the calibration")?;
        eprintln!("stored: {}", path.display());
    }
    Ok(0)
}
