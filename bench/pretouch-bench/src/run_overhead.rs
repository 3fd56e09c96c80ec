//! The runner's own time around its launches, which a user waits for but no figure shows: one `pretouch run` of
//! 40 launches (1 warm-up round and 19 counted, with and without pretouch), timed from
//! outside, against the sum of its launches' spawn-to-reap times; and the time from the
//! command's start to its first spawn, less what `java -version` costs on its own.
//!
//! With `--runs N`, so that the JDK's answers asked once show against a range, that is N pairs of runs of one matrix naming one collector,
//! each pair with a cache folder of its own: the first run of a pair finds the cache
//! empty and asks the JDK, the second finds its answers; then the range of each over the
//! pairs.

use anyhow::Context;

use pretouch::machine::jdk::Jdk;
use pretouch::stats::median;
use pretouch::units::Nanos;

use crate::runs::{PretouchRun, jdk, run_pretouch_cached};

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
    /// Pairs of runs, each pair with an empty cache of the JDK's answers: the first run
    /// asks the JDK, the second finds its answers (start to first spawn of each, range)
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=20))]
    pub runs: u32,
}

/// The median of five timings of `java -version`, in seconds: the JDK query every run
/// made before the cache, started here directly (never from the cache).
fn java_version_s(jdk: &Jdk) -> anyhow::Result<f64> {
    let mut times = Vec::new();
    for _ in 0..5 {
        let start = std::time::Instant::now();
        duct::cmd!(&jdk.java, "-version")
            .stdin_null()
            .stdout_null()
            .stderr_null()
            .run()
            .context("java -version")?;
        times.push(start.elapsed().as_secs_f64());
    }
    Ok(median(&times).expect("five timings"))
}

/// One `pretouch run` with its cache in `cache`, and the seconds from its start to its
/// first launch's spawn.
fn timed_run(yaml: &str, cache: &std::path::Path) -> anyhow::Result<(PretouchRun, f64)> {
    let scratch = tempfile::tempdir()?;
    let start = Nanos::monotonic_now();
    let run = run_pretouch_cached(yaml, scratch.path(), Some(cache))?;
    let first = run.file.launches.first().context("no launch")?;
    let to_first_s = first
        .measured
        .spawn_ns
        .since(start)
        .context("spawn before start")?
        .as_ms()
        / 1e3;
    Ok((run, to_first_s))
}

fn range(values: &[f64]) -> String {
    let min = values.iter().copied().fold(f64::INFINITY, f64::min);
    let max = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    format!("{min:.3}-{max:.3} s")
}

pub fn run(args: &Args) -> anyhow::Result<()> {
    let jdk = jdk(args.jdk.as_deref())?;
    let home = jdk.home.display().to_string();
    let yaml = format!(
        "name: overhead\njdks: [{home:?}]\ngcs: [g1]\nheaps: [{}]\nrepetitions: {}\nwarmup: 1\n",
        args.heap, args.rounds
    );
    let mut pairs = Vec::new();
    for _ in 0..args.runs {
        let query = java_version_s(&jdk)?;
        let cache = tempfile::tempdir()?;
        let (_, first_run) = timed_run(&yaml, cache.path())?;
        let (run, second_run) = timed_run(&yaml, cache.path())?;
        pairs.push((query, first_run, second_run, run));
    }
    let (query, _, to_first_s, run) = pairs.last().expect("one pair at least");
    let (query, to_first_s) = (*query, *to_first_s);
    let launches = &run.file.launches;
    let busy_s: f64 = launches.iter().map(|l| l.wall().as_ms() / 1e3).sum();
    let first = launches.first().context("no launch")?;
    let last = launches.last().context("no launch")?;
    let span_s = last
        .measured
        .reaped_ns
        .since(first.measured.spawn_ns)
        .context("order")?
        .as_ms()
        / 1e3;
    let wall_s = run.wall.as_secs_f64();
    println!(
        "Runner overhead: one `pretouch run` of {} launches at {} ({}), the JDK's answers cached",
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
    println!("   java -version alone (median of 5)   {query:>8.3} s");
    println!(
        "   start to first spawn beyond it      {:>8.3} s   (goal <= 0.1)",
        to_first_s - query
    );
    println!(
        "   the machine is shared: other processes ran during {} of {} launches (analyze/disturbance.rs)\n",
        run.report
            .cells
            .iter()
            .map(|c| c.machine.disturbed)
            .sum::<usize>(),
        launches.len()
    );
    if pairs.len() > 1 {
        let column = |f: fn(&(f64, f64, f64, PretouchRun)) -> f64| {
            range(&pairs.iter().map(f).collect::<Vec<_>>())
        };
        println!(
            "Start to first spawn, {} pairs of runs (gcs: [g1]; each pair with an empty cache):",
            pairs.len()
        );
        println!("   java -version alone (median of 5)   {}", column(|p| p.0));
        println!(
            "   first run (asks the JDK)            {}   beyond java -version {}   (goal <= 0.1)",
            column(|p| p.1),
            column(|p| p.1 - p.0)
        );
        println!(
            "   second run (the cache answers)      {}   beyond java -version {}   (goal <= 0.1)",
            column(|p| p.2),
            column(|p| p.2 - p.0)
        );
        println!();
    }
    Ok(())
}
