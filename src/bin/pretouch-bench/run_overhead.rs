//! The runner's own time around its launches (issue 24, item 3): one `pretouch run` of
//! 40 launches (1 warm-up round and 19 counted, with and without pretouch), timed from
//! outside, against the sum of its launches' spawn-to-reap times; and the time from the
//! command's start to its first spawn, less what the JDK query (`java -version`, which
//! `pretouch run` needs to record the JDK) costs on its own.

use anyhow::Context;

use pretouch::machine::jdk::Jdk;
use pretouch::stats::median;
use pretouch::units::Nanos;

use crate::runs::{jdk, run_pretouch};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// JDK (JAVA_HOME) [default: JAVA_HOME, then java on PATH]
    #[arg(long)]
    pub jdk: Option<String>,
    /// Heap of every launch
    #[arg(long, default_value = "512m")]
    pub heap: String,
    /// Counted rounds (each launches once with and once without pretouch; one warm-up
    /// round comes first)
    #[arg(long, default_value_t = 19)]
    pub rounds: usize,
}

/// The median of five timings of the JDK query `pretouch run` makes, in seconds.
fn jdk_query_s(home: &str) -> anyhow::Result<f64> {
    let mut times = Vec::new();
    for _ in 0..5 {
        let start = std::time::Instant::now();
        Jdk::resolve(home)?;
        times.push(start.elapsed().as_secs_f64());
    }
    Ok(median(&times).expect("five timings"))
}

pub fn run(args: &Args) -> anyhow::Result<()> {
    let jdk = jdk(args.jdk.as_deref())?;
    let home = jdk.home.display().to_string();
    let query = jdk_query_s(&home)?;
    let scratch = tempfile::tempdir()?;
    let yaml = format!(
        "name: overhead\njdks: [{home:?}]\ngcs: [g1]\nheaps: [{}]\nrepetitions: {}\nwarmup: 1\n",
        args.heap, args.rounds
    );
    let start = Nanos::monotonic_now();
    let run = run_pretouch(&yaml, scratch.path())?;
    let launches = &run.file.launches;
    let busy_s: f64 = launches.iter().map(|l| l.wall().as_ms() / 1e3).sum();
    let first = launches.first().context("no launch")?;
    let last = launches.last().context("no launch")?;
    let to_first_s = first
        .measured
        .spawn_ns
        .since(start)
        .context("spawn before start")?
        .as_ms()
        / 1e3;
    let span_s = last
        .measured
        .reaped_ns
        .since(first.measured.spawn_ns)
        .context("order")?
        .as_ms()
        / 1e3;
    let wall_s = run.wall.as_secs_f64();
    println!(
        "Runner overhead: one `pretouch run` of {} launches at {} ({})",
        launches.len(),
        args.heap,
        jdk.version
    );
    println!("   launches' spawn-to-reap, summed     {busy_s:>8.3} s");
    println!("   wall time of the command            {wall_s:>8.3} s");
    println!(
        "   wall / sum                          {:>8.4}   (goal <= 1.02)",
        wall_s / busy_s
    );
    println!(
        "   first spawn to last reap / sum      {:>8.4}   (the gaps between launches alone)",
        span_s / busy_s
    );
    println!(
        "   between launches, median gap        {:>8.2} ms",
        median(
            &launches
                .windows(2)
                .filter_map(|w| w[1]
                    .measured
                    .spawn_ns
                    .since(w[0].measured.reaped_ns)
                    .map(|d| d.as_ms()))
                .collect::<Vec<_>>()
        )
        .unwrap_or(f64::NAN)
    );
    println!("   start to first spawn                {to_first_s:>8.3} s");
    println!("   the JDK query alone (median of 5)   {query:>8.3} s");
    println!(
        "   start to first spawn beyond it      {:>8.3} s   (goal <= 0.1)",
        to_first_s - query
    );
    println!(
        "   the machine is shared: other processes ran during {} of {} launches (analyze/disturbance.rs)\n",
        run.report.cells.iter().map(|c| c.disturbed).sum::<usize>(),
        launches.len()
    );
    Ok(())
}
