//! Crosscheck: re-measure every cell of a result file without the agent (a class
//! printing `System.nanoTime()` at main), interleaved like `pretouch run` and confined
//! to the same CPUs, and compare the pretouch costs.

use std::path::PathBuf;

use anyhow::bail;

use pretouch::launch::reference::{ReferenceClasses, nanotime_time_to_main};
use pretouch::stats::median;
use pretouch::store::{CellKey, read_results};

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

/// A cell of the file, with what is needed to launch it again without the agent.
struct Cell {
    key: CellKey,
    java: PathBuf,
    /// The stored command line without pretouch flag, agent, class path and main class.
    flags: Vec<String>,
    cpus: Option<Vec<usize>>,
    /// Counted times-to-main from the file, ms.
    stored: [Vec<f64>; 2],
    /// The reference's, ms.
    reference: [Vec<f64>; 2],
}

fn cost(samples: &[Vec<f64>; 2]) -> f64 {
    let m = |s: &Vec<f64>| median(s).unwrap_or(f64::NAN);
    m(&samples[1]) - m(&samples[0])
}

pub fn run(args: &Args) -> anyhow::Result<()> {
    let results = read_results(std::slice::from_ref(&args.results))?;
    let Some(file) = results.files.first() else {
        bail!("{}: not a pretouch result file", args.results.display());
    };
    let mut cells: Vec<Cell> = Vec::new();
    for launch in file.launches.iter().filter(|l| !l.warmup) {
        if launch.cell.app.is_some() {
            continue; // an application's own main: no agent-free stamp to compare with
        }
        let index = match cells.iter().position(|c| c.key == launch.cell) {
            Some(i) => i,
            None => {
                // The command ends with `-agentpath:... -cp <scratch> PretouchMain`; the
                // runner's own arguments (agent, JVM log) all name its scratch folder.
                let command = &launch.measured.command;
                let scratch = command[command.len().saturating_sub(2)].clone();
                cells.push(Cell {
                    key: launch.cell.clone(),
                    java: PathBuf::from(&command[0]),
                    flags: command[1..command.len().saturating_sub(3)]
                        .iter()
                        .filter(|a| !a.contains(&scratch) && !a.ends_with("AlwaysPreTouch"))
                        .cloned()
                        .collect(),
                    cpus: launch
                        .measured
                        .affinity
                        .as_deref()
                        .and_then(|a| pretouch::matrix::cpuset::parse_list(a).ok()),
                    stored: Default::default(),
                    reference: Default::default(),
                });
                cells.len() - 1
            }
        };
        if let Some(t) = launch.time_to_main_ns.filter(|_| launch.ok()) {
            cells[index].stored[usize::from(launch.pretouch)].push(t.as_ms());
        }
    }
    println!(
        "crosscheck of {} against an agent-free measurement ({} launches per cell and setting)",
        args.results.display(),
        args.runs
    );
    let classes = ReferenceClasses::new()?;
    // Interleaved exactly as `pretouch run` does (rounds over all cells, the on/off order
    // alternating), since the order of launches changes what the kernel has at hand.
    for round in 0..args.runs {
        let order = if round % 2 == 0 {
            [false, true]
        } else {
            [true, false]
        };
        for cell in &mut cells {
            for pretouch in order {
                let mut flags = cell.flags.clone();
                flags.push(
                    if pretouch {
                        "-XX:+AlwaysPreTouch"
                    } else {
                        "-XX:-AlwaysPreTouch"
                    }
                    .to_owned(),
                );
                let t = nanotime_time_to_main(
                    &cell.java,
                    &flags,
                    &classes,
                    cell.cpus.as_deref(),
                    crate::interrupt(),
                )
                .map_err(anyhow::Error::msg)?;
                cell.reference[usize::from(pretouch)].push(t.as_ms());
            }
        }
    }
    println!(
        "{:<52} {:>11} {:>11} {:>8}",
        "cell", "pretouch ms", "reference", "diff"
    );
    let mut worst: f64 = 0.0;
    for cell in &cells {
        let (measured, reference) = (cost(&cell.stored), cost(&cell.reference));
        let diff = (measured - reference) / reference * 100.0;
        worst = worst.max(diff.abs());
        let k = &cell.key;
        let name = format!(
            "{} {} {} {} gc_threads={} cpus={}",
            k.jdk.split('-').next().unwrap_or(""),
            k.gc,
            k.heap,
            k.variant,
            k.gc_threads,
            k.cpus
        );
        println!("{name:<52} {measured:>11.1} {reference:>11.1} {diff:>+7.1}%");
    }
    let verdict = if worst <= args.tolerance_pct {
        "agree"
    } else {
        "DISAGREE"
    };
    println!(
        "largest difference {worst:.1}% (tolerance {}%): {verdict}",
        args.tolerance_pct
    );
    if worst > args.tolerance_pct {
        std::process::exit(1);
    }
    Ok(())
}
