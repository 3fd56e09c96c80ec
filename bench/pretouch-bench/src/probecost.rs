//! What `pretouch run --probe` costs a launch: the same JVM launched in pairs, once
//! plain and once while bpftrace probes it (the pair's order alternating), so that a
//! machine whose load drifts moves both alike; the median of the pairs' differences.

use std::path::PathBuf;
use std::time::Duration;

use pretouch::features::probe::launch::{self as probe, ProbeLauncher};
use pretouch::launch::agent::locate_agent;
use pretouch::launch::{JvmLauncher, LaunchOptions, Launcher};
use pretouch::stats::{median, summarize};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// JDK (JAVA_HOME) [default: the first under /usr/lib/jvm]
    #[arg(long)]
    pub jdk: Option<PathBuf>,
    /// Heap of every launch (G1, -XX:+AlwaysPreTouch)
    #[arg(long, default_value = "1g")]
    pub heap: String,
    /// Pairs of launches
    #[arg(long, default_value_t = 10)]
    pub runs: usize,
    #[arg(long)]
    pub agent: Option<PathBuf>,
}

pub fn run(args: &Args) -> anyhow::Result<()> {
    let agent = locate_agent(args.agent.as_deref())?.path;
    let support = probe::preflight(&agent)?;
    let home = match &args.jdk {
        Some(home) => home.clone(),
        None => super::installed_jdks()
            .into_iter()
            .next()
            .ok_or_else(|| anyhow::anyhow!("no JDK under /usr/lib/jvm"))?,
    };
    let java = home.join("bin/java");
    let jvm_args: Vec<String> = [
        format!("-Xms{}", args.heap),
        format!("-Xmx{}", args.heap),
        "-XX:+UseG1GC".into(),
        "-XX:+AlwaysPreTouch".into(),
    ]
    .into();
    let timeout = Duration::from_secs(300);
    let mut plain =
        JvmLauncher::new(agent.clone(), timeout)?.with_interrupt(crate::interrupt().clone());
    let mut probed = ProbeLauncher::new(
        JvmLauncher::new(agent.clone(), timeout)?.with_interrupt(crate::interrupt().clone()),
        support,
        agent,
    )?;
    let (mut plain_ms, mut probed_ms, mut diffs, mut faults) = (vec![], vec![], vec![], vec![]);
    for i in 0..args.runs {
        let mut one = |probe_it: bool| -> anyhow::Result<f64> {
            let ns = if probe_it {
                let p = probed.launch(&java, &jvm_args, &LaunchOptions::default());
                if let Some(problem) = p.problem {
                    anyhow::bail!("probed launch: {problem}");
                }
                faults.push(p.reading.map_or(0, |r| r.faults.count) as f64);
                p.outcome.measured.time_to_main()
            } else {
                plain.launch(&java, &jvm_args).measured.time_to_main()
            };
            Ok(ns
                .ok_or_else(|| anyhow::anyhow!("a launch failed"))?
                .as_ms())
        };
        let (a, b) = if i % 2 == 0 {
            let a = one(false)?;
            (a, one(true)?)
        } else {
            let b = one(true)?;
            (one(false)?, b)
        };
        plain_ms.push(a);
        probed_ms.push(b);
        diffs.push(b - a);
    }
    let s = |v: &[f64]| {
        summarize(v).map_or("-".to_owned(), |s| {
            format!("{:.0} ({:.0}-{:.0})", s.median, s.min, s.max)
        })
    };
    println!(
        "probe cost: {} -Xmx{} G1 pretouch, {} pairs (plain, probed), order alternating",
        home.display(),
        args.heap,
        args.runs
    );
    println!(
        "  plain  time to main, ms: median (min-max) {}",
        s(&plain_ms)
    );
    println!(
        "  probed time to main, ms: median (min-max) {}",
        s(&probed_ms)
    );
    println!("  probed - plain, ms:      median (min-max) {}", s(&diffs));
    if let (Some(d), Some(f)) = (median(&diffs), median(&faults)) {
        println!(
            "  faults timed a launch: {f:.0}; the median difference is {:.2} us a fault",
            d * 1e3 / f
        );
    }
    Ok(())
}
