//! Crosscheck: re-measure every cell of a result file without the agent (a class
//! printing `System.nanoTime()` at main), interleaved like `pretouch run`, and compare
//! the pretouch costs.

use std::path::PathBuf;

use anyhow::bail;

use pretouch::reference::{ReferenceClasses, nanotime_time_to_main};
use pretouch::stats::median;
use pretouch::store::read_results;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// A result file written by `pretouch run`
    pub results: PathBuf,
    /// Launches per cell and setting, interleaved
    #[arg(long, default_value_t = 10)]
    pub runs: usize,
    /// Largest difference accepted, in % of the reference cost
    #[arg(long, default_value_t = 10.0)]
    pub tolerance_pct: f64,
}

fn ms(samples: &[f64]) -> f64 {
    median(samples).unwrap_or(f64::NAN)
}

pub fn run(args: &Args) -> anyhow::Result<()> {
    let (path, runs, tolerance_pct) = (args.results.as_path(), args.runs, args.tolerance_pct);
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
