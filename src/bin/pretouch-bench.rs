//! Benchmarks of pretouch itself, measured side by side in one run and printed as
//! ratios: `agent-overhead` (does the agent move time-to-main?) and `crosscheck` (does a
//! result file agree with an agent-free measurement of the same configurations?).

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, bail};
use clap::{Parser, Subcommand};

use pretouch::agent::{agent_arg, locate_agent};
use pretouch::jdk::Jdk;
use pretouch::launch::{JvmLauncher, Launcher};
use pretouch::reference::{ReferenceClasses, nanotime_time_to_main};
use pretouch::stats::median;
use pretouch::store::read_results;

#[derive(Debug, Parser)]
#[command(
    name = "pretouch-bench",
    about = "Benchmarks of the pretouch profiler itself"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Median time-to-main without the agent, with it loaded, and as pretouch measures it
    AgentOverhead {
        /// JDKs (JAVA_HOME folders) [default: every JDK under /usr/lib/jvm]
        #[arg(long)]
        jdk: Vec<String>,
        /// Heap of every launch
        #[arg(long, default_value = "64m")]
        heap: String,
        /// Launches per variant, interleaved
        #[arg(long, default_value_t = 30)]
        runs: usize,
        #[arg(long)]
        agent: Option<PathBuf>,
    },
    /// Re-measure every cell of a result file without the agent (a class printing
    /// System.nanoTime() at main) and compare the pretouch costs
    Crosscheck {
        /// A result file written by `pretouch run`
        results: PathBuf,
        /// Launches per cell and setting, interleaved
        #[arg(long, default_value_t = 10)]
        runs: usize,
        /// Largest difference accepted, in % of the reference cost
        #[arg(long, default_value_t = 10.0)]
        tolerance_pct: f64,
    },
}

fn main() -> anyhow::Result<()> {
    match Cli::parse().command {
        Command::AgentOverhead {
            jdk,
            heap,
            runs,
            agent,
        } => agent_overhead(jdk, &heap, runs, agent.as_deref()),
        Command::Crosscheck {
            results,
            runs,
            tolerance_pct,
        } => crosscheck(&results, runs, tolerance_pct),
    }
}

fn installed_jdks() -> Vec<String> {
    let mut homes: Vec<PathBuf> = std::fs::read_dir("/usr/lib/jvm")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| e.path().canonicalize().ok())
        .filter(|p| p.join("bin/java").exists())
        .collect();
    homes.sort();
    homes.dedup();
    homes.into_iter().map(|p| p.display().to_string()).collect()
}

fn ms(samples: &[f64]) -> f64 {
    median(samples).unwrap_or(f64::NAN)
}

fn agent_overhead(
    jdks: Vec<String>,
    heap: &str,
    runs: usize,
    agent: Option<&Path>,
) -> anyhow::Result<()> {
    let agent = locate_agent(agent)?;
    let jdks = if jdks.is_empty() {
        installed_jdks()
    } else {
        jdks
    };
    let classes = ReferenceClasses::new()?;
    let mut launcher = JvmLauncher::new(agent.clone(), Duration::from_secs(120))?;
    let base = vec![format!("-Xms{heap}"), format!("-Xmx{heap}")];
    println!(
        "agent overhead: median time from exec to main(), {runs} interleaved launches each, -Xms{heap}"
    );
    println!("  A = class printing System.nanoTime() at main, no agent (the reference)");
    println!("  B = the same class with the agent loaded (its load and VMInit stamps)");
    println!("  C = what pretouch measures: built-in main, agent, JNI main stamp");
    println!(
        "{:<28} {:>8} {:>8} {:>8} {:>9} {:>9} {:>7}",
        "jdk", "A ms", "B ms", "C ms", "B-A ms", "C-A ms", "C/A"
    );
    for home in jdks {
        let jdk = Jdk::resolve(&home)?;
        let mut with_agent = base.clone();
        with_agent.push(agent_arg(&agent, &classes.scratch("stamps")));
        let (mut a, mut b, mut c) = (Vec::new(), Vec::new(), Vec::new());
        // One warm-up of each, then rotate the order every round.
        for round in 0..=runs {
            let mut order = [0, 1, 2];
            order.rotate_left(round % 3);
            for variant in order {
                let t = match variant {
                    0 => nanotime_time_to_main(&jdk.java, &base, &classes)
                        .map_err(anyhow::Error::msg)?,
                    1 => nanotime_time_to_main(&jdk.java, &with_agent, &classes)
                        .map_err(anyhow::Error::msg)?,
                    _ => {
                        let outcome = launcher.launch(&jdk.java, &base);
                        outcome
                            .time_to_main()
                            .with_context(|| format!("launch failed: {:?}", outcome.failure))?
                    }
                };
                if round > 0 {
                    [&mut a, &mut b, &mut c][variant].push(t.as_ms());
                }
            }
        }
        let (ma, mb, mc) = (ms(&a), ms(&b), ms(&c));
        println!(
            "{:<28} {ma:>8.2} {mb:>8.2} {mc:>8.2} {:>+9.2} {:>+9.2} {:>7.3}",
            jdk.version,
            mb - ma,
            mc - ma,
            mc / ma
        );
    }
    println!("goal: C-A under 1 ms and under 2% (C/A < 1.02)");
    Ok(())
}

fn crosscheck(path: &Path, runs: usize, tolerance_pct: f64) -> anyhow::Result<()> {
    let results = read_results(&[path.to_owned()])?;
    let Some(file) = results.files.first() else {
        bail!("{}: not a pretouch result file", path.display());
    };
    let report = pretouch::report::build(&results);
    let classes = ReferenceClasses::new()?;
    println!(
        "crosscheck of {} against an agent-free measurement ({runs} launches per cell and setting)",
        path.display()
    );
    println!(
        "{:<40} {:>11} {:>11} {:>8}",
        "cell", "pretouch ms", "reference", "diff"
    );
    // The cells' flags, from one stored launch each, without the agent and the class.
    let mut cells = Vec::new();
    for cell in &report.cells {
        let Some(launch) = file.launches.iter().find(|l| {
            l.cell.jdk == cell.jdk
                && l.cell.gc.to_string() == cell.gc
                && l.cell.heap == cell.heap
                && l.cell.variant == cell.variant
        }) else {
            continue;
        };
        let java = PathBuf::from(&launch.command[0]);
        let flags: Vec<String> = launch.command[1..launch.command.len() - 3]
            .iter()
            .filter(|a| !a.starts_with("-agentpath:") && !a.ends_with("AlwaysPreTouch"))
            .cloned()
            .collect();
        cells.push((cell, java, flags, Vec::new(), Vec::new()));
    }
    // Interleaved exactly as `pretouch run` does (rounds over all cells, the on/off order
    // alternating), since the order of launches changes what the kernel has at hand.
    for round in 0..runs {
        let order = if round % 2 == 0 {
            [false, true]
        } else {
            [true, false]
        };
        for (_, java, flags, on, off) in &mut cells {
            for pretouch in order {
                let mut args = flags.clone();
                args.push(
                    if pretouch {
                        "-XX:+AlwaysPreTouch"
                    } else {
                        "-XX:-AlwaysPreTouch"
                    }
                    .to_owned(),
                );
                let t = nanotime_time_to_main(java, &args, &classes).map_err(anyhow::Error::msg)?;
                if pretouch { &mut *on } else { &mut *off }.push(t.as_ms());
            }
        }
    }
    let mut worst: f64 = 0.0;
    for (cell, _, _, on, off) in &cells {
        let reference = ms(on) - ms(off);
        let Some(measured) = cell.pretouch_ms else {
            continue;
        };
        let diff = (measured - reference) / reference * 100.0;
        worst = worst.max(diff.abs());
        println!(
            "{:<40} {measured:>11.1} {reference:>11.1} {diff:>+7.1}%",
            format!(
                "{} {} {} {}",
                cell.jdk.split('-').next().unwrap_or(""),
                cell.gc,
                cell.heap,
                cell.variant
            )
        );
    }
    println!(
        "largest difference {worst:.1}% (tolerance {tolerance_pct}%): {}",
        if worst <= tolerance_pct {
            "agree"
        } else {
            "DISAGREE"
        }
    );
    if worst > tolerance_pct {
        std::process::exit(1);
    }
    Ok(())
}
