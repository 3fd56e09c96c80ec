//! `pretouch calibrate`: this machine's anonymous-fault ceiling.

use anyhow::Context;

use crate::features::calibrate::machine::{
    self as calibration, Layout, MemoryDuring, Plan, Setup, Variant,
};
use crate::features::calibrate::options::CalibrateArgs;
use crate::launch::interrupt::{self, Interrupt};
use crate::machine::guest::GuestInfo;
use crate::machine::guest_memory::{self, Knob, OrderGuard};
use crate::machine::host;
use crate::machine::topology::{self, Topology};
use crate::matrix::cpuset::CpuSet;
use crate::session::checks::check_label;
use crate::session::error::bad;

pub(crate) fn cmd_calibrate(args: CalibrateArgs) -> anyhow::Result<u8> {
    let label = args
        .label
        .clone()
        .unwrap_or_else(|| host::host_info().kernel_release);
    check_label(&label).map_err(bad)?;
    let machine = Topology::read(&topology::sysfs_root())
        .ok()
        .map(|t| t.summary());
    let plan = Plan {
        setups: setups(&args)?,
        size: args.size,
        passes: args.passes,
        rounds: args.rounds,
    };
    // Refused before anything runs: a configuration with less than a page per worker.
    plan.check().map_err(bad)?;
    crate::session::preflight::restore_leftover();
    // From here a signal stops the calibration between two configurations, so that the
    // guard below is dropped and restores page_reporting_order.
    let interrupt = Interrupt::new();
    interrupt
        .install_signal_handlers()
        .context("installing the signal handlers")?;
    // Held to the end of the calibration: dropping it restores page_reporting_order.
    let (memory, _guard) = hold_memory(&args)?;
    let started = std::time::SystemTime::now();
    let rounds = plan.rounds;
    let mut announced = 0;
    let c = calibration::run(
        &label,
        &plan,
        machine,
        Some(memory),
        |round, s| announce(round, s, rounds, &mut announced),
        || interrupt.signal().is_some(),
    );
    let c = match c {
        Ok(c) => c,
        Err(calibration::RunError::Calibrate(e @ calibration::CalibrateError::TooSmall { .. })) => {
            return Err(bad(e));
        }
        Err(calibration::RunError::Stopped { rounds, whole }) => {
            let signal = interrupt.signal().unwrap_or(libc::SIGINT);
            eprintln!(
                "calibrate: {} after {rounds} whole round(s) of {}",
                interrupt::signal_name(signal),
                plan.rounds
            );
            if let Some(c) = whole {
                print!("{}", crate::features::calibrate::render::run_text(&c));
                if !args.no_save {
                    let path = save(&c, &args, started)?;
                    eprintln!("stored the whole rounds: {}", path.display());
                }
            }
            return Ok(interrupt::exit_code(signal));
        }
        Err(e) => return Err(e.into()),
    };
    print!("{}", crate::features::calibrate::render::run_text(&c));
    if !args.no_save {
        let path = save(&c, &args, started)?;
        eprintln!("stored: {}", path.display());
    }
    Ok(0)
}

/// The configurations to measure: every variant, layout and worker count or CPU set
/// asked for. Every CPU set is resolved, and refused if this machine cannot meet it,
/// before anything is measured.
fn setups(args: &CalibrateArgs) -> anyhow::Result<Vec<Setup>> {
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
    Ok(setups)
}

/// The guest's free page reporting during the calibration: stopped with
/// `--comparable-memory` (the guard restores it when dropped), else warned about when on.
fn hold_memory(args: &CalibrateArgs) -> anyhow::Result<(MemoryDuring, Option<OrderGuard>)> {
    let guest = GuestInfo::read();
    let mut memory = MemoryDuring {
        reporting: guest.reporting().to_string(),
        reporting_on: guest.reporting_on(),
        stopped: None,
        reported_kib: None,
    };
    if !args.comparable_memory {
        if guest.reporting_on() {
            eprintln!(
                "warning: free page reporting is {}: memory freed between passes and rounds \
                 can go back to the VM host, and the pass that takes it again pays the \
                 host's faults too\n  fix: --comparable-memory stops it for the calibration \
                 (root; restored afterwards)",
                guest.reporting().to_string()
            );
        }
        return Ok((memory, None));
    }
    let threads = crate::matrix::cpuset::available().map_or(1, |c| c.len());
    let (guard, record) =
        guest_memory::hold(&Knob::default(), &guest, args.size, threads, |size| {
            eprintln!("calibrate: --comparable-memory: touching {size} once first")
        })
        .map_err(bad)?;
    memory.stopped = record
        .order_before
        .zip(record.order_during)
        .map(|(a, b)| [a, b]);
    eprintln!(
        "  {}. {} touched in {}.",
        match memory.stopped {
            Some([before, during]) => format!(
                "free page reporting stopped for the calibration, with page_reporting_order \
                 {before} -> {during} until it ends"
            ),
            None => format!("free page reporting was not on ({})", memory.reporting),
        },
        record.touched,
        record.touch_ns
    );
    Ok((memory, guard))
}

/// Progress on stderr: each configuration by name in the first round; a line a round
/// after it.
fn announce(round: u32, s: &Setup, rounds: u32, announced: &mut u32) {
    if round > 0 {
        if *announced < round {
            *announced = round;
            eprintln!("calibrate: round {}/{rounds}...", round + 1);
        }
        return;
    }
    match &s.placement {
        Some(p) => eprintln!(
            "calibrate: round 1/{rounds}: {} {}, `{}` (CPUs {})...",
            s.variant,
            s.layout,
            p.set,
            crate::matrix::cpuset::format_list(&p.cpus)
        ),
        None => eprintln!(
            "calibrate: round 1/{rounds}: {} {}, {} worker(s)...",
            s.variant, s.layout, s.workers
        ),
    }
}

/// Stores a calibration under `<results>/<label>/calibrate-<UTC start>.json`.
fn save(
    c: &calibration::Calibration,
    args: &CalibrateArgs,
    started: std::time::SystemTime,
) -> anyhow::Result<std::path::PathBuf> {
    let utc = humantime::format_rfc3339_seconds(started).to_string();
    let stamp: String = utc.chars().filter(|c| *c != '-' && *c != ':').collect();
    crate::features::calibrate::record::save(c, &args.results.join(&c.label), &stamp)
        .context("writing the calibration")
}

impl crate::cmd::feature::FeatureSubcommand for CalibrateArgs {
    fn run(self) -> anyhow::Result<u8> {
        cmd_calibrate(self)
    }
}
