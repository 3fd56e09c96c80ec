//! pretouch against hyperfine on the same pair of configurations (with and without
//! pretouch), the same number of launches each: wall time, the pretouch cost, its
//! spread and 95% interval, and the time each would need for a +-5% interval. Also the
//! runner's overhead: its wall time over the sum of its launches' own wall times.

use std::time::Instant;

use anyhow::{Context, bail};

use pretouch::classfile::NANOTIME_CLASS;
use pretouch::reference::ReferenceClasses;

use crate::runs::{CostFigures, cost_figures, jdk, run_pretouch};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// JDK (JAVA_HOME) [default: JAVA_HOME, then java on PATH]
    #[arg(long)]
    pub jdk: Option<String>,
    #[arg(long, default_value = "2g")]
    pub heap: String,
    /// Counted launches per setting, for each tool
    #[arg(long, default_value_t = 10)]
    pub runs: usize,
}

impl Default for Args {
    fn default() -> Args {
        Args {
            jdk: None,
            heap: "2g".into(),
            runs: 10,
        }
    }
}

/// The interval half-width the comparison asks for, in %.
const TARGET_PCT: f64 = 5.0;

struct ToolFigures {
    wall_s: f64,
    launches: usize,
    figures: CostFigures,
}

impl ToolFigures {
    /// Launches scale with the square of the interval's width.
    fn launches_for_target(&self) -> f64 {
        self.figures.n as f64 * (self.figures.ci_half_pct / TARGET_PCT).powi(2)
    }

    fn seconds_for_target(&self) -> f64 {
        self.wall_s / self.launches as f64 * 2.0 * self.launches_for_target()
    }
}

pub fn run(args: &Args) -> anyhow::Result<()> {
    let jdk = jdk(args.jdk.as_deref())?;
    let scratch = tempfile::tempdir()?;
    let heap = &args.heap;
    let n = args.runs;

    // pretouch run: G1 at the heap, `runs` counted launches per setting, one warm-up round.
    let yaml = format!(
        "name: versus\njdks: [{:?}]\ngcs: [g1]\nheaps: [{heap}]\nrepetitions: {n}\nwarmup: 1\n",
        jdk.home.display().to_string()
    );
    let run = run_pretouch(&yaml, scratch.path())?;
    let counted = |pretouch: bool| -> Vec<f64> {
        run.file
            .launches
            .iter()
            .filter(|l| !l.warmup && l.pretouch == pretouch)
            .filter_map(|l| l.time_to_main_ns.map(|t| t.as_ms()))
            .collect()
    };
    let launch_wall_s: f64 = run
        .file
        .launches
        .iter()
        .map(|l| l.wall().as_ms() / 1e3)
        .sum();
    let pretouch = ToolFigures {
        wall_s: run.wall.as_secs_f64(),
        launches: run.file.launches.len(),
        figures: cost_figures(&counted(true), &counted(false))?,
    };

    // hyperfine -N: whole-process times of a plain class, the JVM's exit and the freeing
    // of the heap included; one warm-up per command, as pretouch's one warm-up round.
    let classes = ReferenceClasses::new()?;
    let command = |flag: &str| {
        format!(
            "{} -Xms{heap} -Xmx{heap} -XX:+UseG1GC {flag} -cp {} {NANOTIME_CLASS}",
            jdk.java.display(),
            classes.classpath().display()
        )
    };
    let json = scratch.path().join("hyperfine.json");
    let start = Instant::now();
    let out = duct::cmd!(
        "hyperfine",
        "-N",
        "--style",
        "none",
        "--warmup",
        "1",
        "--runs",
        n.to_string(),
        "--export-json",
        &json,
        command("-XX:+AlwaysPreTouch"),
        command("-XX:-AlwaysPreTouch")
    )
    .stdout_null()
    .stderr_capture()
    .unchecked()
    .run()
    .context("running hyperfine (Debian: apt-get install -y hyperfine)")?;
    let hyperfine_wall = start.elapsed().as_secs_f64();
    if !out.status.success() {
        bail!("hyperfine failed: {}", String::from_utf8_lossy(&out.stderr));
    }
    let exported: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json)?)?;
    let times = |i: usize| -> Vec<f64> {
        exported["results"][i]["times"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|t| t.as_f64())
                    .map(|s| s * 1e3)
                    .collect()
            })
            .unwrap_or_default()
    };
    let hyperfine = ToolFigures {
        wall_s: hyperfine_wall,
        launches: 2 * (n + 1),
        figures: cost_figures(&times(0), &times(1))?,
    };

    println!(
        "2. Runner overhead: `pretouch run` wall time / sum of its launches' wall times = {:.3} (goal <= 1.03)",
        run.wall.as_secs_f64() / launch_wall_s
    );
    println!(
        "   ({:.2} s for {} launches whose own wall times add up to {:.2} s)\n",
        run.wall.as_secs_f64(),
        run.file.launches.len(),
        launch_wall_s
    );
    println!(
        "3. Time to a trusted result: G1 -Xms{heap}, with and without pretouch, {n} counted launches each (+1 warm-up)"
    );
    println!(
        "   pretouch: time from exec to main(); hyperfine -N: whole process (exit and heap teardown included)"
    );
    println!(
        "   {:<10} {:>7} {:>10} {:>11} {:>10} {:>12} {:>13}",
        "tool", "wall s", "cost ms", "IQR/median", "95% CI +-", "launches +-5%", "time +-5% (s)"
    );
    for (name, t) in [("pretouch", &pretouch), ("hyperfine", &hyperfine)] {
        println!(
            "   {name:<10} {:>7.1} {:>10.1} {:>10.1}% {:>9.1}% {:>12.0} {:>13.1}",
            t.wall_s,
            t.figures.cost,
            t.figures.rel_spread * 100.0,
            t.figures.ci_half_pct,
            t.launches_for_target().max(1.0),
            t.seconds_for_target()
        );
    }
    println!(
        "   time to a +-5% interval, pretouch / hyperfine = {:.2} (goal <= 0.6)",
        pretouch.seconds_for_target() / hyperfine.seconds_for_target()
    );
    println!(
        "   plain wall time for the same launches, pretouch / hyperfine = {:.2} (goal <= 1.05)\n",
        pretouch.wall_s / hyperfine.wall_s
    );
    Ok(())
}
