//! pretouch against hyperfine on the same pair of configurations (with and without
//! pretouch), the same number of launches each: wall time, the pretouch cost, its
//! spread and 95% interval, and the time each would need for a 95% interval of the
//! same half-width in ms. The same unit for both: the two figures differ (pretouch's
//! ends at main(), hyperfine's includes the JVM's exit and the heap's teardown), so a
//! width in % of each tool's own figure would compare different quantities. Also the
//! runner's overhead: its wall time over the sum of its launches' own wall times.
//!
//! With `--comparable-memory` (root, on a VM with free page reporting) the benchmark
//! stops free page reporting for its whole duration, both tools alike, and restores it.

use std::time::Instant;

use anyhow::{Context, bail};

use pretouch::launch::classfile::NANOTIME_CLASS;
use pretouch::launch::interrupt::StopBy;
use pretouch::launch::reference::ReferenceClasses;
use pretouch::machine::jdk::Jdk;

use crate::runs::{CostFigures, cost_figures, jdk, run_pretouch};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// JDK (JAVA_HOME) [default: JAVA_HOME, then java on PATH]
    #[arg(long)]
    pub jdk: Option<String>,
    #[arg(long, default_value = "2g")]
    pub heap: String,
    /// Counted launches per setting and block, for each tool
    #[arg(long, default_value_t = 5)]
    pub runs: usize,
    /// Blocks, in ABBA order (pretouch, hyperfine, hyperfine, pretouch, ...), so that
    /// drift of a shared machine falls on both tools alike
    #[arg(long, default_value_t = 4)]
    pub blocks: usize,
    /// The interval half-width both tools are timed to, ms
    #[arg(long, default_value_t = 10.0)]
    pub half_width_ms: f64,
    /// Stop free page reporting for the whole comparison, both tools alike (root; see
    /// `pretouch run --comparable-memory`)
    #[arg(long)]
    pub comparable_memory: bool,
}

impl Default for Args {
    fn default() -> Args {
        Args {
            jdk: None,
            heap: "2g".into(),
            runs: 5,
            blocks: 4,
            half_width_ms: 10.0,
            comparable_memory: false,
        }
    }
}

struct ToolFigures {
    wall_s: f64,
    launches: usize,
    figures: CostFigures,
}

impl ToolFigures {
    /// Launches a setting needs for a 95% interval of +-`half_ms`: the width of the
    /// interval shrinks with the square root of the launches.
    fn launches_for(&self, half_ms: f64) -> f64 {
        self.figures.n as f64 * (self.figures.ci_half_ms / half_ms).powi(2)
    }

    /// Seconds of this tool's own pace (wall time a launch, warm-ups included) for
    /// those launches, both settings.
    fn seconds_for(&self, half_ms: f64) -> f64 {
        self.wall_s / self.launches as f64 * 2.0 * self.launches_for(half_ms)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tool {
    Pretouch,
    Hyperfine,
}

/// The tools of block `block` in the order they run: ABBA (pretouch, hyperfine, then
/// hyperfine, pretouch, ...), so that a drift of the machine over the comparison falls
/// on both tools alike.
fn block_order(block: usize) -> [Tool; 2] {
    if block.is_multiple_of(2) {
        [Tool::Pretouch, Tool::Hyperfine]
    } else {
        [Tool::Hyperfine, Tool::Pretouch]
    }
}

/// The samples of hyperfine's `--export-json` file, in ms: (with pretouch, without),
/// the first command being the one with `-XX:+AlwaysPreTouch`, as `hyperfine_block`
/// passes them. Refuses a file whose commands are not in that order.
fn hyperfine_samples(json: &str) -> anyhow::Result<(Vec<f64>, Vec<f64>)> {
    let exported: serde_json::Value =
        serde_json::from_str(json).context("hyperfine's JSON does not parse")?;
    let mut samples = [Vec::new(), Vec::new()];
    for (i, (flag, out)) in ["-XX:+AlwaysPreTouch", "-XX:-AlwaysPreTouch"]
        .iter()
        .zip(&mut samples)
        .enumerate()
    {
        let result = &exported["results"][i];
        let command = result["command"].as_str().unwrap_or_default();
        if !command.split_whitespace().any(|w| w == *flag) {
            bail!("hyperfine's result {i} is not the command with {flag}: `{command}`");
        }
        let times = result["times"]
            .as_array()
            .context("hyperfine JSON without times")?;
        for t in times {
            out.push(t.as_f64().context("a time that is not a number")? * 1e3);
        }
    }
    let [on, off] = samples;
    Ok((on, off))
}

/// Samples of one tool, pooled over blocks.
#[derive(Default)]
struct Pool {
    on: Vec<f64>,
    off: Vec<f64>,
    wall_s: f64,
    launches: usize,
    /// pretouch's counted launches whose machine counters show a disturbance.
    disturbed: usize,
    /// pretouch's counted launches.
    counted: usize,
    /// pretouch's blocks, each one `pretouch run`'s scratch folder (its matrix and
    /// results), kept until the end so that the tool's own report reads them all as one
    /// label.
    blocks: Vec<tempfile::TempDir>,
    /// pretouch's launches with pretouch: time from the `main` stamp to the reap, ms
    /// (the smaps copy, the `_exit` and the kernel's teardown of the heap).
    after_main_ms: Vec<f64>,
}

impl Pool {
    fn figures(&self) -> anyhow::Result<ToolFigures> {
        Ok(ToolFigures {
            wall_s: self.wall_s,
            launches: self.launches,
            figures: cost_figures(&self.on, &self.off)?,
        })
    }
}

pub fn run(args: &Args) -> anyhow::Result<()> {
    let jdk = jdk(args.jdk.as_deref())?;
    let heap = &args.heap;
    let n = args.runs;
    let classes = ReferenceClasses::new()?;
    // Held for the whole comparison: both tools see the same guest-memory state.
    let _reporting = if args.comparable_memory {
        use pretouch::machine::guest::GuestInfo;
        use pretouch::machine::guest_memory::{Knob, hold};
        let heap_bytes = pretouch::matrix::HeapSize::parse(heap)
            .map_err(|e| anyhow::anyhow!("--heap {heap}: {e}"))?
            .bytes;
        let cpus = pretouch::matrix::cpuset::available().map_or(1, |c| c.len());
        let (guard, record) = hold(
            &Knob::default(),
            &GuestInfo::read(),
            heap_bytes,
            cpus,
            |_| (),
        )?;
        println!("   --comparable-memory, for both tools: {}", record.note);
        guard
    } else {
        None
    };
    let (mut p, mut h) = (Pool::default(), Pool::default());
    let mut launch_wall_s = 0.0;
    for block in 0..args.blocks {
        for tool in block_order(block) {
            match tool {
                Tool::Pretouch => launch_wall_s += pretouch_block(&jdk, heap, n, &mut p)?,
                Tool::Hyperfine => hyperfine_block(&jdk, heap, n, &classes, &mut h)?,
            }
        }
    }
    let mut pretouch = p.figures()?;
    let mut hyperfine = h.figures()?;
    // The interval each tool states, in ms. For pretouch the one its own report states
    // for the cell, all blocks read as one label: the trimmed mean of the per-round
    // costs, batch means widened for drift (docs/statistics.md); never the narrower
    // Mann-Whitney one of the pooled launches, and no figure at all without it. For
    // hyperfine the better of the Mann-Whitney interval and Welch's of the mean
    // difference (what its output gives a user), as the dated measurements in bench/results/ did.
    let mann_whitney = [pretouch.figures.ci_half_ms, hyperfine.figures.ci_half_ms];
    let stated = stated_interval(&p.blocks, n * args.blocks)?;
    pretouch.figures.cost = stated.estimate_ms;
    pretouch.figures.ci_half_ms = stated.half_width_ms();
    pretouch.figures.ci_half_pct = 100.0 * stated.half_width_ms() / stated.estimate_ms.abs();
    let welch = welch_half_ms(&h.on, &h.off);
    if let Some(w) = welch {
        hyperfine.figures.ci_half_ms = hyperfine.figures.ci_half_ms.min(w);
        hyperfine.figures.ci_half_pct =
            100.0 * hyperfine.figures.ci_half_ms / hyperfine.figures.cost.abs();
    }
    println!(
        "   95% half-widths, ms: pretouch as its report states it {:.1} (trimmed mean {:.1} ms, {} rounds, {} batches), Mann-Whitney of the pooled launches {:.1}; hyperfine Mann-Whitney {:.1}, Welch {}",
        stated.half_width_ms(),
        stated.estimate_ms,
        stated.rounds,
        stated.batches,
        mann_whitney[0],
        mann_whitney[1],
        welch.map_or("-".into(), |w| format!("{w:.1}"))
    );
    println!(
        "   pretouch, launches with pretouch: main() stamp to reap (smaps copy, _exit, the heap's teardown) median {:.1} ms",
        pretouch::stats::median(&p.after_main_ms).unwrap_or(f64::NAN)
    );
    let n = n * args.blocks;

    println!(
        "2. Runner overhead: `pretouch run` wall time / sum of its launches' wall times = {:.3} (goal <= 1.03)",
        p.wall_s / launch_wall_s
    );
    println!(
        "   ({:.2} s for {} launches whose own wall times add up to {:.2} s)\n",
        p.wall_s, p.launches, launch_wall_s
    );
    println!(
        "3. Time to a trusted result: G1 -Xms{heap}, with and without pretouch, {n} counted launches each,"
    );
    println!(
        "   in {} ABBA blocks of {} (+1 warm-up each)",
        args.blocks, args.runs
    );
    println!(
        "   pretouch: time from exec to main(); hyperfine -N: whole process (exit and heap teardown included)"
    );
    let half = args.half_width_ms;
    let target = format!("+-{half:.0}ms");
    println!(
        "   {:<10} {:>7} {:>8} {:>11} {:>13} {:>10} {:>10}",
        "tool",
        "wall s",
        "cost ms",
        "IQR/median",
        "95% CI +-ms",
        format!("n {target}"),
        format!("s {target}")
    );
    for (name, t) in [("pretouch", &pretouch), ("hyperfine", &hyperfine)] {
        println!(
            "   {name:<10} {:>7.1} {:>8.1} {:>10.1}% {:>13} {:>10.0} {:>10.1}",
            t.wall_s,
            t.figures.cost,
            t.figures.rel_spread * 100.0,
            format!(
                "{:.1} ({:.1}%)",
                t.figures.ci_half_ms, t.figures.ci_half_pct
            ),
            t.launches_for(half).max(1.0),
            t.seconds_for(half)
        );
    }
    println!(
        "   time to a 95% interval of +-{half} ms, pretouch / hyperfine = {:.2} (goal <= 0.5)",
        pretouch.seconds_for(half) / hyperfine.seconds_for(half)
    );
    println!(
        "   pretouch's launches disturbed by the machine (analyze/disturbance.rs): {} of {}",
        p.disturbed, p.counted
    );
    println!(
        "   plain wall time for the same launches, pretouch / hyperfine = {:.2} (goal <= 1.05)\n",
        pretouch.wall_s / hyperfine.wall_s
    );
    Ok(())
}

/// Half-width of Welch's (1947) 95% interval of `mean(on) - mean(off)`, ms: what
/// hyperfine's mean +- sd output lets a user compute.
fn welch_half_ms(on: &[f64], off: &[f64]) -> Option<f64> {
    let var = |v: &[f64]| {
        let n = v.len() as f64;
        let m = v.iter().sum::<f64>() / n;
        v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (n - 1.0)
    };
    if on.len() < 2 || off.len() < 2 {
        return None;
    }
    let (a, b) = (var(on) / on.len() as f64, var(off) / off.len() as f64);
    let df = (a + b).powi(2) / (a * a / (on.len() - 1) as f64 + b * b / (off.len() - 1) as f64);
    Some(pretouch::stats::interval::t_quantile(0.975, df) * (a + b).sqrt())
}

/// The cost interval pretouch's own report states for the one cell of `blocks` (each a
/// `pretouch run`'s scratch folder, read together as one label), as `pretouch report`
/// would print it; an error without one, or when the report does not hold exactly the
/// one cell with `rounds` rounds.
fn stated_interval(
    blocks: &[tempfile::TempDir],
    rounds: usize,
) -> anyhow::Result<pretouch::stats::interval::CostInterval> {
    let dirs: Vec<std::path::PathBuf> = blocks.iter().map(|b| b.path().join("results")).collect();
    let results = pretouch::store::read_results(&dirs)?;
    let report = pretouch::analyze::build(&results);
    let [cell] = &report.cells[..] else {
        bail!(
            "pretouch's report of the blocks has {} cells, not 1",
            report.cells.len()
        );
    };
    if cell.cost.rounds != rounds {
        bail!(
            "pretouch's report of the blocks has {} rounds, not {rounds}",
            cell.cost.rounds
        );
    }
    let (Some((estimate_ms, low_ms, high_ms)), Some(batches)) =
        (cell.cost_interval(), cell.cost.cost_ci_batches)
    else {
        bail!(
            "pretouch's report states no interval for the cell ({} rounds)",
            cell.cost.rounds
        );
    };
    Ok(pretouch::stats::interval::CostInterval {
        estimate_ms,
        low_ms,
        high_ms,
        confidence: 0.95,
        rounds: cell.cost.rounds,
        batches,
        runs: 1,
        // The report does not carry the degrees of freedom; nothing here reads them.
        df: f64::NAN,
    })
}

/// One `pretouch run` of `n` counted launches per setting; returns the sum of its
/// launches' own wall times.
fn pretouch_block(jdk: &Jdk, heap: &str, n: usize, pool: &mut Pool) -> anyhow::Result<f64> {
    let scratch = tempfile::tempdir()?;
    let yaml = format!(
        "name: versus\njdks: [{:?}]\ngcs: [g1]\nheaps: [{heap}]\nrepetitions: {n}\nwarmup: 1\n",
        jdk.home.display().to_string()
    );
    let run = run_pretouch(&yaml, scratch.path())?;
    pool.blocks.push(scratch);
    for l in run.file.launches.iter().filter(|l| !l.warmup) {
        let t = l.time_to_main_ns.context("a launch failed")?.as_ms();
        if l.pretouch {
            if let Some(main) = l.measured.stamps.main {
                pool.after_main_ms
                    .push(l.measured.reaped_ns.0.saturating_sub(main.ns.0) as f64 / 1e6);
            }
            &mut pool.on
        } else {
            &mut pool.off
        }
        .push(t);
    }
    pool.wall_s += run.wall.as_secs_f64();
    pool.launches += run.file.launches.len();
    pool.disturbed += run
        .report
        .cells
        .iter()
        .map(|c| c.machine.disturbed)
        .sum::<usize>();
    pool.counted += run.report.cells.iter().map(|c| c.times.runs).sum::<usize>();
    Ok(run
        .file
        .launches
        .iter()
        .map(|l| l.wall().as_ms() / 1e3)
        .sum())
}

/// One `hyperfine -N` of `n` runs per command (+1 warm-up): whole-process times of a
/// plain class, the JVM's exit and the freeing of the heap included.
fn hyperfine_block(
    jdk: &Jdk,
    heap: &str,
    n: usize,
    classes: &ReferenceClasses,
    pool: &mut Pool,
) -> anyhow::Result<()> {
    let scratch = tempfile::tempdir()?;
    let command = |flag: &str| {
        format!(
            "{} -Xms{heap} -Xmx{heap} -XX:+UseG1GC {flag} -cp {} {NANOTIME_CLASS}",
            jdk.java.display(),
            classes.classpath().display()
        )
    };
    let json = scratch.path().join("hyperfine.json");
    let start = Instant::now();
    let out = crate::interrupt()
        .run(
            &duct::cmd!(
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
            .unchecked(),
            StopBy::Forward,
        )
        .context("running hyperfine (Debian: apt-get install -y hyperfine)")?;
    pool.wall_s += start.elapsed().as_secs_f64();
    if !out.status.success() {
        bail!("hyperfine failed: {}", String::from_utf8_lossy(&out.stderr));
    }
    let (on, off) = hyperfine_samples(&std::fs::read_to_string(&json)?)?;
    pool.on.extend(on);
    pool.off.extend(off);
    pool.launches += 2 * (n + 1);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Written by `hyperfine -N --warmup 1 --runs 3 --export-json` (1.15.0) for two
    /// commands, the command strings then replaced by the two this benchmark passes.
    const FIXTURE: &str = include_str!("testdata/hyperfine-1.15.json");

    #[test]
    fn hyperfine_json_gives_each_setting_its_times_in_ms() {
        let (on, off) = hyperfine_samples(FIXTURE).unwrap();
        let close = |a: &[f64], b: &[f64]| a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-9);
        assert!(close(&on, &[23.831235, 28.425038, 21.054747]), "{on:?}");
        assert!(close(&off, &[10.956634, 11.083242, 10.940039]), "{off:?}");
        // Swapped commands, or a file without times, are refused rather than misread.
        let swapped = FIXTURE
            .replace("+AlwaysPreTouch", "=swap=")
            .replace("-XX:-AlwaysPreTouch", "-XX:+AlwaysPreTouch")
            .replace("=swap=", "-AlwaysPreTouch");
        let e = hyperfine_samples(&swapped).unwrap_err().to_string();
        assert!(
            e.contains("is not the command with -XX:+AlwaysPreTouch"),
            "{e}"
        );
        assert!(hyperfine_samples(r#"{"results": []}"#).is_err());
        assert!(hyperfine_samples("not json").is_err());
    }

    #[test]
    fn blocks_run_in_abba_order() {
        use Tool::{Hyperfine as H, Pretouch as P};
        let order: Vec<Tool> = (0..4).flat_map(block_order).collect();
        assert_eq!(order, [P, H, H, P, P, H, H, P]);
    }

    #[test]
    fn the_launches_for_a_target_width_grow_with_the_square_of_the_ratio() {
        let tool = ToolFigures {
            wall_s: 30.0,
            launches: 60,
            figures: CostFigures {
                n: 20,
                cost: 100.0,
                rel_spread: 0.1,
                ci_half_pct: 20.0,
                ci_half_ms: 20.0,
            },
        };
        // Half as wide an interval needs four times the launches.
        assert!((tool.launches_for(10.0) - 80.0).abs() < 1e-9);
        assert!((tool.launches_for(20.0) - 20.0).abs() < 1e-9);
        assert!((tool.launches_for(40.0) - 5.0).abs() < 1e-9);
        // At this tool's pace, 0.5 s a launch, for both settings: 80 x 2 x 0.5 s.
        assert!((tool.seconds_for(10.0) - 80.0).abs() < 1e-9);
    }
}
