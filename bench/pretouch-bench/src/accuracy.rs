//! Accuracy against the JVM's own account: per cell, the growth of the agent's
//! agent-load -> VM-init phase with pretouch (median with minus median without) against
//! the pretouch time the JVM's `-Xlog:gc+heap=debug` lines give.

use pretouch::analyze::explain::explain_cell;
use pretouch::store::{CellKey, LaunchRecord};

use crate::runs::{jdk, run_pretouch};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// JDK (JAVA_HOME) [default: JAVA_HOME, then java on PATH]
    #[arg(long)]
    pub jdk: Option<String>,
    #[arg(long, value_delimiter = ',', default_value = "512m,1g")]
    pub heaps: Vec<String>,
    /// Counted launches per cell and setting
    #[arg(long, default_value_t = 5)]
    pub runs: usize,
}

impl Default for Args {
    fn default() -> Args {
        Args {
            jdk: None,
            heaps: ["512m", "1g"].map(String::from).to_vec(),
            runs: 5,
        }
    }
}

pub fn run(args: &Args) -> anyhow::Result<()> {
    let jdk = jdk(args.jdk.as_deref())?;
    let scratch = tempfile::tempdir()?;
    let yaml = format!(
        "name: accuracy\njdks: [{:?}]\ngcs: [g1, parallel]\nheaps: [{}]\nrepetitions: {}\nwarmup: 1\n",
        jdk.home.display().to_string(),
        args.heaps.join(", "),
        args.runs
    );
    let run = run_pretouch(&yaml, scratch.path())?;
    let mut cells: Vec<(CellKey, Vec<LaunchRecord>, Vec<LaunchRecord>)> = Vec::new();
    for l in run.file.launches.iter().filter(|l| !l.warmup && l.ok()) {
        let i = match cells.iter().position(|c| c.0 == l.cell) {
            Some(i) => i,
            None => {
                cells.push((l.cell.clone(), Vec::new(), Vec::new()));
                cells.len() - 1
            }
        };
        if l.pretouch {
            &mut cells[i].1
        } else {
            &mut cells[i].2
        }
        .push(l.clone());
    }
    println!(
        "4. Accuracy against the JVM's own log: {} counted launches per cell and setting",
        args.runs
    );
    println!(
        "   {:<10} {:>6} {:>22} {:>17} {:>7}",
        "gc", "heap", "agent load->init +ms", "JVM pretouch ms", "ratio"
    );
    for (key, on, off) in &cells {
        // Only the times are read here, not the faults the folio sizes would set.
        let x = explain_cell(on, off, &Some(Vec::new()));
        let (agent, jvm) = (x.init_growth_ms(), x.jvm_pretouch_ms);
        let fmt = |v: Option<f64>| v.map_or("-".to_owned(), |v| format!("{v:.1}"));
        let ratio = agent
            .zip(jvm)
            .map_or("-".to_owned(), |(a, j)| format!("{:.3}", a / j));
        println!(
            "   {:<10} {:>6} {:>22} {:>17} {ratio:>7}",
            key.gc.to_string(),
            key.heap,
            fmt(agent),
            fmt(jvm)
        );
    }
    println!(
        "   the JVM's figure runs from its pretouch log line to the next line: an upper bound\n"
    );
    Ok(())
}
