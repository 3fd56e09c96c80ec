//! Agent overhead: median time-to-main of a plain class printing `System.nanoTime()` at
//! `main` (the agent-free reference), against the same launch with the agent, for both
//! of the agent's mechanisms.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;

use pretouch::launch::agent::{agent_arg, locate_agent, parse_stamps};
use pretouch::launch::classfile::NANOTIME_CLASS;
use pretouch::launch::interrupt::StopBy;
use pretouch::launch::reference::{ReferenceClasses, nanotime_time_to_main};
use pretouch::launch::{JvmLauncher, Launcher};
use pretouch::machine::jdk::Jdk;
use pretouch::stats::median;
use pretouch::units::Nanos;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// JDKs (JAVA_HOME folders) [default: every JDK under /usr/lib/jvm]
    #[arg(long)]
    pub jdk: Vec<String>,
    /// Heap of every launch
    #[arg(long, default_value = "64m")]
    pub heap: String,
    /// Launches per variant, interleaved
    #[arg(long, default_value_t = 30)]
    pub runs: usize,
    #[arg(long)]
    pub agent: Option<PathBuf>,
}

impl Default for Args {
    fn default() -> Args {
        Args {
            jdk: Vec::new(),
            heap: "64m".into(),
            runs: 30,
            agent: None,
        }
    }
}

/// The breakpoint mechanism on the reference class: `main=` makes the agent stamp the
/// class's own `main` with a JVMTI breakpoint and exit there.
fn breakpoint_time_to_main(
    java: &std::path::Path,
    args: &[String],
    classes: &ReferenceClasses,
) -> anyhow::Result<Nanos> {
    let stamps = classes.scratch("bp-stamps");
    let mut argv = args.to_vec();
    let agent = args
        .iter()
        .find(|a| a.starts_with("-agentpath:"))
        .context("agent")?;
    argv.retain(|a| !a.starts_with("-agentpath:"));
    let library = agent
        .trim_start_matches("-agentpath:")
        .split('=')
        .next()
        .unwrap_or("");
    argv.push(format!(
        "-agentpath:{library}=main={NANOTIME_CLASS},out={}",
        stamps.display()
    ));
    argv.extend([
        "-cp".to_owned(),
        classes.classpath().display().to_string(),
        NANOTIME_CLASS.to_owned(),
    ]);
    let spawn = Nanos::monotonic_now();
    let out = crate::interrupt().run(
        &duct::cmd(java, &argv)
            .stdout_null()
            .stderr_capture()
            .unchecked(),
        StopBy::Kill,
    )?;
    anyhow::ensure!(
        out.status.success(),
        "breakpoint launch failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stamps = parse_stamps(&std::fs::read_to_string(&stamps)?)?;
    stamps
        .main
        .context("no main stamp")?
        .ns
        .since(spawn)
        .context("main before spawn")
}

pub fn run(args: &Args) -> anyhow::Result<()> {
    let agent = locate_agent(args.agent.as_deref())?.path;
    let jdks: Vec<String> = if args.jdk.is_empty() {
        super::installed_jdks()
            .iter()
            .map(|p| p.display().to_string())
            .collect()
    } else {
        args.jdk.clone()
    };
    let classes = ReferenceClasses::new()?;
    let mut launcher = JvmLauncher::new(agent.clone(), Duration::from_secs(120))?
        .with_interrupt(crate::interrupt().clone());
    let base = vec![format!("-Xms{}", args.heap), format!("-Xmx{}", args.heap)];
    let mut with_agent = base.clone();
    with_agent.push(agent_arg(&agent, &classes.scratch("stamps"), &[]));
    println!(
        "1. Agent overhead: median time from exec to main() in ms, -Xms{}, {} launches of each, interleaved",
        args.heap, args.runs
    );
    println!("   ref = class printing System.nanoTime() at main, no agent");
    println!("   jni = as pretouch measures: built-in main, agent, JNI main stamp");
    println!("   bp  = the reference class stamped by the agent's JVMTI breakpoint (main=)");
    println!(
        "   +agent = reference class printing nanoTime, agent loaded (its load and VMInit stamps)"
    );
    println!(
        "   {:<26} {:>7} {:>7} {:>7} {:>7} {:>8} {:>8} {:>8}",
        "jdk", "ref", "+agent", "jni", "bp", "jni-ref", "bp-ref", "jni/ref"
    );
    for home in jdks {
        let jdk = Jdk::resolve(&home)?;
        let mut samples: [Vec<f64>; 4] = Default::default();
        // One uncounted round first, then the order rotates every round.
        for round in 0..=args.runs {
            let mut order = [0, 1, 2, 3];
            order.rotate_left(round % 4);
            for variant in order {
                let t = match variant {
                    0 => {
                        nanotime_time_to_main(&jdk.java, &base, &classes, None, crate::interrupt())
                            .map_err(anyhow::Error::msg)?
                    }
                    1 => nanotime_time_to_main(
                        &jdk.java,
                        &with_agent,
                        &classes,
                        None,
                        crate::interrupt(),
                    )
                    .map_err(anyhow::Error::msg)?,
                    2 => {
                        let outcome = launcher.launch(&jdk.java, &base);
                        outcome.measured.time_to_main().with_context(|| {
                            format!("launch failed: {:?}", outcome.measured.failure)
                        })?
                    }
                    _ => breakpoint_time_to_main(&jdk.java, &with_agent, &classes)?,
                };
                if round > 0 {
                    samples[variant].push(t.as_ms());
                }
            }
        }
        let [r, a, j, b] = samples.map(|s| median(&s).unwrap_or(f64::NAN));
        println!(
            "   {:<26} {r:>7.2} {a:>7.2} {j:>7.2} {b:>7.2} {:>+8.2} {:>+8.2} {:>8.3}",
            jdk.version,
            j - r,
            b - r,
            j / r
        );
    }
    println!("   goal: jni-ref under 1 ms and jni/ref under 1.02\n");
    Ok(())
}
