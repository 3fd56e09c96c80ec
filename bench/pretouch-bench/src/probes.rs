//! Probe figures of result files written with `pretouch run --probe`, one line a cell:
//! the fault latency, the probe's count against the agent's, what the probes cost
//! (probed against timed time to main, same cell) and the locks waited on most. A plain
//! printout of `pretouch::features::probe::analyze` for the measurements in `bench/results/`,
//! until `pretouch report` renders the probes.

use std::path::PathBuf;

use pretouch::features::probe::analyze::{self as probe, Quantile};
use pretouch::features::probe::record::ProbeRecord;
use pretouch::store::extra::read_records;
use pretouch::store::read_results;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Result files or folders of them
    #[arg(required = true)]
    pub results: Vec<PathBuf>,
    /// Locks shown per cell, most total wait first
    #[arg(long, default_value_t = 3)]
    pub locks: usize,
}

fn us(q: &Quantile) -> String {
    format!("{:.1}-{:.1}", q.low.0 as f64 / 1e3, q.high.0 as f64 / 1e3)
}

pub fn run(args: &Args) -> anyhow::Result<()> {
    let results = read_results(&args.results)?;
    for w in &results.warnings {
        eprintln!("warning: {w}");
    }
    let probes = read_records::<ProbeRecord>(&results.files);
    let baseline = results
        .files
        .first()
        .map(|f| f.header.label.clone())
        .unwrap_or_default();
    let analysis = probe::build(&results.files, &probes, &baseline);
    println!(
        "label | jdk gc heap variant threads | pretouch | launches | faults/launch | p50 us | p90 us | p99 us | max us | probe vs agent | probed ms | timed ms | cost"
    );
    for c in &analysis.cells {
        let cell = format!(
            "{} {} {} {} {}",
            pretouch::machine::jdk::short_jdk(&c.cell.jdk),
            c.cell.gc,
            c.cell.heap,
            c.cell.variant,
            c.cell.gc_threads
        );
        let latency = c
            .latency
            .as_ref()
            .map_or("no faults timed".to_owned(), |l| {
                format!(
                    "{:.0} | {} | {} | {} | {:.1}",
                    l.faults_per_launch,
                    us(&l.p50),
                    us(&l.p90),
                    us(&l.p99),
                    l.max.0 as f64 / 1e3
                )
            });
        let agreement = c
            .worst_agreement
            .map_or("-".to_owned(), |a| format!("{:+.2}%", a.diff_pct));
        let cost = c.cost.map_or("- | - | -".to_owned(), |k| {
            format!(
                "{:.0} | {:.0} | {:+.0} ms ({:+.1}%)",
                k.probed_ms,
                k.timed_ms,
                k.delta_ms(),
                k.pct()
            )
        });
        println!(
            "{} | {cell} | {} | {}{} | {latency} | {agreement} | {cost}",
            c.label,
            if c.pretouch { "with" } else { "without" },
            c.launches - c.failed,
            match c.failed {
                0 => String::new(),
                n => format!(" ({n} failed)"),
            }
        );
        if let Ok(locks) = &c.locks {
            for l in locks.iter().take(args.locks) {
                println!(
                    "    lock {} ({}) at {}: {} waits, total {:.1} us, max {:.1} us, {:.1} us a launch",
                    l.lock,
                    l.kind,
                    l.caller,
                    l.count,
                    l.total.0 as f64 / 1e3,
                    l.max.0 as f64 / 1e3,
                    l.per_launch_ns / 1e3
                );
            }
        }
    }
    if let Some(why) = &analysis.locks_unsupported {
        println!("lock contention not measured: {why}");
    }
    match &analysis.c2c {
        Some(pretouch::features::probe::launch::C2cSupport::Available { events }) => println!(
            "perf c2c: available ({}); `perf c2c record -g -- <a probe record's command>`",
            events.join(", ")
        ),
        Some(pretouch::features::probe::launch::C2cSupport::Unavailable { why }) => {
            println!("perf c2c: not run, {why}")
        }
        None => {}
    }
    for s in &analysis.shifts {
        let f = |s: Option<&pretouch::stats::Shift>| {
            s.map_or("-".to_owned(), |s| {
                format!(
                    "{:+.2} us [{:+.2}, {:+.2}]{}",
                    s.estimate / 1e3,
                    s.low / 1e3,
                    s.high / 1e3,
                    probe::LatencyShift::mark(Some(s))
                )
            })
        };
        println!(
            "shift {} -> {} | {} {} {} {} | {} | p50 {} | p99 {}",
            s.baseline,
            s.label,
            s.cell.gc,
            s.cell.heap,
            s.cell.variant,
            s.cell.gc_threads,
            if s.pretouch { "with" } else { "without" },
            f(s.p50.as_ref()),
            f(s.p99.as_ref())
        );
    }
    println!(
        "{} launches whose count is more than {}% from the agent's",
        analysis.disagreeing,
        probe::AGREEMENT_PCT
    );
    Ok(())
}
