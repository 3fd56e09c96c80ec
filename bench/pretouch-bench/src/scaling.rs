//! Scaling: the pretouch cost over heap sizes (it should grow linearly with the heap)
//! and the runner's own peak memory (it must stay flat: launches' output is never held
//! in memory).

use crate::runs::{jdk, run_pretouch};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// JDK (JAVA_HOME) [default: JAVA_HOME, then java on PATH]
    #[arg(long)]
    pub jdk: Option<String>,
    /// Heaps, smallest first
    #[arg(long, value_delimiter = ',', default_value = "256m,512m,1g,2g,4g")]
    pub heaps: Vec<String>,
    /// Counted launches per heap and setting
    #[arg(long, default_value_t = 5)]
    pub runs: usize,
}

impl Default for Args {
    fn default() -> Args {
        Args {
            jdk: None,
            heaps: ["256m", "512m", "1g", "2g", "4g"]
                .map(String::from)
                .to_vec(),
            runs: 5,
        }
    }
}

pub fn run(args: &Args) -> anyhow::Result<()> {
    let jdk = jdk(args.jdk.as_deref())?;
    println!(
        "5. Scaling: G1, {} counted launches per heap and setting; one `pretouch run` per heap",
        args.runs
    );
    println!(
        "   {:>6} {:>10} {:>12} {:>16}",
        "heap", "cost ms", "ms per GiB", "runner max RSS"
    );
    let mut per_gib = Vec::new();
    for heap in &args.heaps {
        let scratch = tempfile::tempdir()?;
        let yaml = format!(
            "name: scaling\njdks: [{:?}]\ngcs: [g1]\nheaps: [{heap}]\nrepetitions: {}\nwarmup: 1\n",
            jdk.home.display().to_string(),
            args.runs
        );
        let run = run_pretouch(&yaml, scratch.path())?;
        let cell = run
            .report
            .cells
            .first()
            .ok_or_else(|| anyhow::anyhow!("no cell"))?;
        let cost = cell.times.pretouch_ms.unwrap_or(f64::NAN);
        let gib = gib(heap)?;
        per_gib.push(cost / gib);
        let rss = run.file.end.as_ref().and_then(|e| e.runner_max_rss);
        println!(
            "   {heap:>6} {cost:>10.1} {:>12.1} {:>16}",
            cost / gib,
            rss.map_or("-".to_owned(), |r| r.to_string())
        );
    }
    let (lo, hi) = range(&per_gib);
    println!(
        "   cost per GiB ranges {lo:.0}-{hi:.0} ms (linear growth: the same cost per GiB at every heap)\n"
    );
    Ok(())
}

/// A heap size in GiB (`512m` is 0.5).
fn gib(heap: &str) -> anyhow::Result<f64> {
    let bytes = pretouch::matrix::HeapSize::parse(heap)
        .map_err(anyhow::Error::msg)?
        .bytes;
    Ok(bytes.0 as f64 / (1u64 << 30) as f64)
}

/// The smallest and largest of `xs` (NaN, a heap whose cost is missing, is left out).
fn range(xs: &[f64]) -> (f64, f64) {
    xs.iter()
        .filter(|x| !x.is_nan())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &x| {
            (lo.min(x), hi.max(x))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cost_per_gib_and_its_range() {
        assert_eq!(gib("512m").unwrap(), 0.5);
        assert_eq!(gib("4g").unwrap(), 4.0);
        assert!(gib("4x").is_err());
        let per_gib = [100.0 / 0.5, 800.0 / 4.0, f64::NAN, 330.0 / 1.0];
        assert_eq!(range(&per_gib), (200.0, 330.0));
    }
}
