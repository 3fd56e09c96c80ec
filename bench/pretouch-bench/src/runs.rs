//! Shared by the benchmarks: running `pretouch run` as a user would, and small figures.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};

use pretouch::analyze::build;
use pretouch::analyze::report::Report;
use pretouch::launch::interrupt::StopBy;
use pretouch::machine::jdk::Jdk;
use pretouch::stats::{hodges_lehmann, median, quartiles};
use pretouch::store::{ResultFile, read_results};

/// One `pretouch run`, timed from outside.
pub struct PretouchRun {
    pub wall: Duration,
    pub file: ResultFile,
    pub report: Report,
}

/// The `pretouch` binary built beside this one.
pub fn pretouch_binary() -> PathBuf {
    let exe = std::env::current_exe().expect("own path");
    exe.with_file_name("pretouch")
}

/// Runs `pretouch run` on `matrix_yaml` into a scratch folder and reads the result.
pub fn run_pretouch(matrix_yaml: &str, scratch: &Path) -> anyhow::Result<PretouchRun> {
    run_pretouch_cached(matrix_yaml, scratch, None)
}

/// [`run_pretouch`], with what the JDKs answered kept in `cache` (`PRETOUCH_CACHE_DIR`)
/// instead of the user's cache folder.
pub fn run_pretouch_cached(
    matrix_yaml: &str,
    scratch: &Path,
    cache: Option<&Path>,
) -> anyhow::Result<PretouchRun> {
    let matrix = scratch.join("matrix.yaml");
    std::fs::write(&matrix, matrix_yaml)?;
    let results = scratch.join("results");
    let mut command = duct::cmd!(
        pretouch_binary(),
        "run",
        "--label",
        "bench",
        "--results",
        &results,
        &matrix
    );
    if let Some(cache) = cache {
        command = command.env(pretouch::machine::jdk_cache::CACHE_DIR_VAR, cache);
    }
    let start = Instant::now();
    let output = crate::interrupt()
        .run(
            &command.stdout_null().stderr_capture().unchecked(),
            StopBy::Forward,
        )
        .context("running pretouch")?;
    let wall = start.elapsed();
    if !output.status.success() {
        bail!(
            "pretouch run failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let results = read_results(&[results])?;
    let report = build(&results);
    let Some(file) = results.files.into_iter().next() else {
        bail!("pretouch run wrote no result file");
    };
    Ok(PretouchRun { wall, file, report })
}

pub fn jdk(spec: Option<&str>) -> anyhow::Result<Jdk> {
    Ok(match spec {
        Some(s) => Jdk::resolve(s)?,
        None => Jdk::from_environment()?,
    })
}

/// What a sample of one setting pair says about the pretouch cost.
pub struct CostFigures {
    pub n: usize,
    /// Hodges-Lehmann estimate of on - off, ms.
    pub cost: f64,
    /// IQR / median of the pretouch-on times.
    pub rel_spread: f64,
    /// Half-width of the 95% Mann-Whitney interval of the cost, in % of the cost.
    pub ci_half_pct: f64,
    /// The same half-width in ms: the unit two tools with different figures (exec to
    /// main, or the whole process) can be compared in.
    pub ci_half_ms: f64,
}

pub fn cost_figures(on: &[f64], off: &[f64]) -> anyhow::Result<CostFigures> {
    let shift = hodges_lehmann(on, off, 0.95).context("empty sample")?;
    let (q1, q3) = quartiles(on).context("empty sample")?;
    Ok(CostFigures {
        n: on.len().min(off.len()),
        cost: shift.estimate,
        rel_spread: (q3 - q1) / median(on).unwrap_or(f64::NAN),
        ci_half_pct: (shift.high - shift.low) / 2.0 / shift.estimate.abs() * 100.0,
        ci_half_ms: (shift.high - shift.low) / 2.0,
    })
}

pub fn print_machine(jdk_spec: Option<&str>) -> anyhow::Result<()> {
    let host = pretouch::machine::host::host_info();
    let jdk = jdk(jdk_spec)?;
    println!(
        "pretouch-bench, {}, {} ({} CPUs), kernel {}, JDK {}",
        humantime::format_rfc3339_seconds(std::time::SystemTime::now()),
        host.cpu_model,
        host.cpus,
        host.kernel_release,
        jdk.version
    );
    println!();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cost_is_the_median_pairwise_difference_and_its_width_in_both_units() {
        // Every on - off difference: 8, 9, 9, 10, 10, 10, 11, 11, 12; their median is 10.
        let f = cost_figures(&[11.0, 12.0, 13.0], &[1.0, 2.0, 3.0]).unwrap();
        assert_eq!(f.n, 3);
        assert!((f.cost - 10.0).abs() < 1e-9, "{}", f.cost);
        assert!(f.ci_half_ms > 0.0);
        assert!((f.ci_half_pct - f.ci_half_ms / 10.0 * 100.0).abs() < 1e-9);
        assert!(f.rel_spread > 0.0 && f.rel_spread < 2.0 / 12.0 + 1e-9);
        assert!(cost_figures(&[], &[1.0]).is_err());
    }
}
