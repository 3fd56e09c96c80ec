//! Benchmarks of pretouch itself, measured side by side in one run and printed as
//! ratios, because a tool that measures startup must show its own cost. `bench/run.sh`
//! runs them all.
//!
//! - `agent-overhead`: does the agent move time-to-main?
//! - `versus-hyperfine`: runner overhead, and time to a trusted result against hyperfine.
//! - `accuracy`: the agent's pretouch phase against the JVM's own log.
//! - `scaling`: pretouch cost and the runner's memory over heap sizes.
//! - `crosscheck`: does a result file agree with an agent-free measurement?
//! - `probes`: the fault latency, lock waits and probe cost of `run --probe` results.
//! - `probe-cost`: plain against probed launches in alternating pairs.
//! - `aa-intervals`: the same cells run twice in a row: do their stated intervals agree?
//! - `found`: is a change made on purpose marked at the cover letter's budget?

mod aa;
mod accuracy;
mod crosscheck;
mod found;
mod overhead;
mod probecost;
mod probes;
mod run_overhead;
mod runs;
mod scaling;
mod versus;

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::OnceLock;

use clap::{Parser, Subcommand};
use pretouch::launch::interrupt::{self, Interrupt};

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
    /// Everything below, in one run, with the defaults (what bench/run.sh runs; dated runs are in bench/results/)
    All {
        /// JDK (JAVA_HOME) for the runner, hyperfine and scaling benchmarks
        /// [default: JAVA_HOME, then java on PATH]
        #[arg(long)]
        jdk: Option<String>,
        /// Stop free page reporting during the hyperfine comparison, both tools alike
        /// (root; restored afterwards)
        #[arg(long)]
        comparable_memory: bool,
    },
    /// Median time-to-main without the agent, with it, and as pretouch measures it
    AgentOverhead(overhead::Args),
    /// pretouch run against hyperfine -N on the same pair of configurations
    VersusHyperfine(versus::Args),
    /// The agent's pretouch phase growth against the JVM's own -Xlog pretouch time
    Accuracy(accuracy::Args),
    /// Pretouch cost and the runner's own memory over heap sizes
    Scaling(scaling::Args),
    /// Re-measure every cell of a result file without the agent and compare
    Crosscheck(crosscheck::Args),
    /// `pretouch run`'s own time: wall over its launches' sum, start to first spawn
    RunOverhead(run_overhead::Args),
    /// Fault latency, lock waits and the probes' cost of `pretouch run --probe` results
    Probes(probes::Args),
    /// What --probe costs: plain against probed launches of one cell, in alternating pairs
    ProbeCost(probecost::Args),
    /// The same cells as A and A', run after each other: do their 95% intervals agree?
    AaIntervals(aa::Args),
    /// Labels a and b run in turn by bench/in-turn.sh: is b's change marked, A/A pairs not?
    Found(found::Args),
}

/// SIGINT and SIGTERM, handled as `pretouch run` handles them: the child under way is
/// stopped (a JVM killed, a `pretouch run` or hyperfine told to stop its own), and the
/// benchmark exits 130 or 143 instead of printing figures from a cut run.
fn interrupt() -> &'static Interrupt {
    static INTERRUPT: OnceLock<Interrupt> = OnceLock::new();
    INTERRUPT.get_or_init(Interrupt::new)
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    if let Err(e) = interrupt().install_signal_handlers() {
        eprintln!("error: installing the SIGINT/SIGTERM handlers: {e}");
        return ExitCode::FAILURE;
    }
    let result = run(cli.command);
    if let Some(signal) = interrupt().signal() {
        eprintln!(
            "pretouch-bench: stopped by {}; no figures from the cut benchmark",
            interrupt::signal_name(signal)
        );
        return ExitCode::from(interrupt::exit_code(signal));
    }
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(command: Command) -> anyhow::Result<()> {
    match command {
        Command::All {
            jdk,
            comparable_memory,
        } => {
            runs::print_machine(jdk.as_deref())?;
            overhead::run(&overhead::Args::default())?;
            versus::run(&versus::Args {
                jdk: jdk.clone(),
                comparable_memory,
                ..versus::Args::default()
            })?;
            accuracy::run(&accuracy::Args {
                jdk: jdk.clone(),
                ..accuracy::Args::default()
            })?;
            scaling::run(&scaling::Args {
                jdk,
                ..scaling::Args::default()
            })
        }
        Command::AgentOverhead(args) => overhead::run(&args),
        Command::VersusHyperfine(args) => versus::run(&args),
        Command::Accuracy(args) => accuracy::run(&args),
        Command::Scaling(args) => scaling::run(&args),
        Command::Crosscheck(args) => crosscheck::run(&args),
        Command::RunOverhead(args) => run_overhead::run(&args),
        Command::Probes(args) => probes::run(&args),
        Command::ProbeCost(args) => probecost::run(&args),
        Command::AaIntervals(args) => aa::run(&args),
        Command::Found(args) => found::run(&args),
    }
}

/// Installed JDKs under /usr/lib/jvm, deduplicated by real path.
fn installed_jdks() -> Vec<PathBuf> {
    let mut homes: Vec<PathBuf> = std::fs::read_dir("/usr/lib/jvm")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| e.path().canonicalize().ok())
        .filter(|p| p.join("bin/java").exists())
        .collect();
    homes.sort();
    homes.dedup();
    homes
}
