//! `pretouch calibrate`: this machine's anonymous-fault ceiling.

use anyhow::Context;

use crate::cmd::checks::check_label;
use crate::cmd::cli::CalibrateArgs;
use crate::cmd::error::bad;
use crate::machine::calibrate::{self, Layout, Setup, Variant};
use crate::machine::host;
use crate::machine::topology::{self, Topology};
use crate::matrix::cpuset::CpuSet;

pub(crate) fn cmd_calibrate(args: CalibrateArgs) -> anyhow::Result<u8> {
    let label = args
        .label
        .clone()
        .unwrap_or_else(|| host::host_info().kernel_release);
    check_label(&label).map_err(bad)?;
    // Every CPU set is resolved, and refused if this machine cannot meet it, before
    // anything is measured.
    let mut placements = Vec::new();
    for text in &args.cpus {
        let set = CpuSet::parse(text).map_err(|e| bad(anyhow::anyhow!("--cpus: {e}")))?;
        let (_, placement) =
            topology::resolve_here(&set).map_err(|e| bad(anyhow::anyhow!("--cpus: {e}")))?;
        placements.push(placement);
    }
    let mut threads: Vec<usize> = if args.threads.is_empty() && args.cpus.is_empty() {
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
    let variants = if args.variant.is_empty() {
        vec![Variant::Zap]
    } else {
        args.variant.clone()
    };
    let mut setups = Vec::new();
    for &variant in &variants {
        for &layout in &layouts {
            for &workers in &threads {
                setups.push(Setup {
                    variant,
                    ..Setup::threads(layout, workers)
                });
            }
            for p in &placements {
                setups.push(Setup {
                    variant,
                    layout,
                    workers: p.cpus.len(),
                    placement: Some(p.clone()),
                });
            }
        }
    }
    let machine = Topology::read(&topology::sysfs_root())
        .ok()
        .map(|t| t.summary());
    let started = std::time::SystemTime::now();
    let c = calibrate::run(
        &label,
        &setups,
        args.size,
        args.passes,
        machine,
        |s| match &s.placement {
            Some(p) => eprintln!(
                "calibrate: {} {}, `{}` (CPUs {})...",
                s.variant,
                s.layout,
                p.set,
                crate::matrix::cpuset::format_list(&p.cpus)
            ),
            None => eprintln!(
                "calibrate: {} {}, {} worker(s)...",
                s.variant, s.layout, s.workers
            ),
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
