//! Stage 6, scheduling: the plan's preview, which `pretouch run --dry-run` prints
//! instead of launching the plan (`schedule::plan`): how many launches, each cell's command lines, and a rough
//! duration estimated from the heap sizes. No launch starts; a JDK whose answers are not
//! cached is asked which collectors it has (`machine::jdk_cache`).

use std::fmt::Write as _;
use std::time::Duration;

use crate::matrix::cpuset::CpuSet;
use crate::matrix::{GcThreads, Matrix};
use crate::schedule::plan::{Cell, Plan};
use crate::stats::power::{RoundNoise, detectable_change_by};

/// Time of one launch apart from pretouch: exec to `main()` is 40-60 ms on the 2-core
/// development machine (METHOD.md); with the spawn, the reap and the heap's release,
/// about 0.1 s.
const LAUNCH_BASE: Duration = Duration::from_millis(100);
/// Bytes one GC worker pretouches per second: 1g costs about 380 ms with 2 workers on
/// the 2-core development machine (METHOD.md), about 1.3 GiB/s each.
const PRETOUCH_BYTES_PER_THREAD_SEC: f64 = 1.3 * (1u64 << 30) as f64;
/// Workers beyond this do not add speed: on the 84-core reference 32g took 1.87 s, about
/// what 13 workers at the rate above would give; the kernel's fault path is the limit.
const MAX_USEFUL_THREADS: f64 = 13.0;

/// HotSpot's default `ParallelGCThreads` for `ncpus` CPUs: all up to 8, then 5/8 of
/// the rest (`VM_Version::nof_parallel_worker_threads`).
pub fn default_gc_threads(ncpus: usize) -> usize {
    if ncpus <= 8 {
        ncpus.max(1)
    } else {
        8 + (ncpus - 8) * 5 / 8
    }
}

/// The estimated duration of one launch of `cell`.
pub fn estimate_launch(cell: &Cell, pretouch: bool, available_cpus: usize) -> Duration {
    if !pretouch {
        return LAUNCH_BASE;
    }
    let cpus = match &cell.cpus {
        CpuSet::All => available_cpus,
        set => set.cpus(&[]).len(),
    }
    .max(1);
    let threads = match cell.gc_threads {
        GcThreads::Count(n) => n as usize,
        GcThreads::Auto => default_gc_threads(cpus),
    };
    // Threads beyond the CPUs only take turns.
    let working = (threads.min(cpus) as f64).min(MAX_USEFUL_THREADS);
    let seconds = cell.heap.bytes.0 as f64 / (PRETOUCH_BYTES_PER_THREAD_SEC * working);
    LAUNCH_BASE + Duration::from_secs_f64(seconds)
}

/// The dry run's text. `command` gives the full command line of a launch of a cell.
pub fn render(
    matrix: &Matrix,
    plan: &Plan,
    available_cpus: usize,
    command: &dyn Fn(&Cell, bool) -> Vec<String>,
) -> String {
    let mut out = String::new();
    let warmups = plan.launches.iter().filter(|l| l.warmup).count();
    let counted = plan.launches.len() - warmups;
    let cells = plan.cells.len();
    let per_round: Duration = plan
        .cells
        .iter()
        .map(|c| {
            estimate_launch(c, false, available_cpus) + estimate_launch(c, true, available_cpus)
        })
        .sum();
    let _ = writeln!(
        out,
        "dry run of {} (name: {}): no launch is made",
        matrix.described(),
        matrix.name
    );
    let _ = writeln!(
        out,
        "{} launches. {counted} are counted, {} x {} x with and without pretouch, and {} in {}.",
        plan.launches.len(),
        crate::units::count_of(cells, "cell"),
        crate::units::count_of(matrix.repetitions, "round"),
        crate::units::count_of(warmups, "warm-up"),
        crate::units::count_of(matrix.warmup, "round"),
    );
    let rounds = matrix.warmup + matrix.repetitions;
    let mut estimate = format!("estimated duration: {}", human(per_round * rounds));
    if let Some(a) = matrix.adaptive {
        let extra = (a.max - a.min) as usize * cells * 2;
        let looks: Vec<String> = a.looks().iter().map(u32::to_string).collect();
        let checks = match looks.is_empty() {
            true => "never checked (no interval under 10 rounds)".to_owned(),
            false => format!(
                "checked at rounds {} (each at {:.2}%)",
                looks.join(", "),
                100.0 * a.level()
            ),
        };
        let _ = writeln!(
            out,
            "adaptive repetitions: {} to {} rounds a cell, until its 95% interval is within {}, {checks}: up to {extra} more launches",
            a.min,
            a.max,
            a.target(),
        );
        estimate += &format!(
            " (up to {} if every cell runs {} rounds)",
            human(per_round * (matrix.warmup + a.max)),
            a.max
        );
    }
    let _ = writeln!(out, "{estimate}");
    let _ = writeln!(
        out,
        "  (rough, for {available_cpus} CPUs: 0.1 s a launch, plus the heap pretouched at 1.3 GiB/s per GC thread, at most {MAX_USEFUL_THREADS} threads' worth)"
    );
    for line in matrix.app.iter().flat_map(|a| a.features.not_counted()) {
        let _ = writeln!(out, "{line}");
    }
    let _ = writeln!(
        out,
        "\nThe command lines, one pair per cell. Every round repeats them, and the pair's order alternates."
    );
    for (i, cell) in plan.cells.iter().enumerate() {
        let _ = writeln!(out, "cell {}: {}", i + 1, cell.describe());
        if let CpuSet::List { cpus, .. } | CpuSet::Spec { cpus, .. } = &cell.cpus {
            let _ = writeln!(
                out,
                "  confined to CPUs {} (sched_setaffinity before exec)",
                crate::matrix::cpuset::format_list(cpus)
            );
        }
        for pretouch in [false, true] {
            let _ = writeln!(
                out,
                "  {:<7} {}",
                if pretouch { "with" } else { "without" },
                command(cell, pretouch).join(" ")
            );
        }
    }
    out
}

/// The per-round noise a planned cell's change is judged against ([`detectable`]).
#[derive(Debug, Clone, PartialEq)]
pub struct PlannedNoise {
    /// Where the figures come from, as printed.
    pub source: String,
    /// Cells measured before, by (GC, heap, variant) as the report names them: the
    /// noise of their per-round costs and their cost, ms.
    pub measured: Vec<([String; 3], RoundNoise, f64)>,
}

/// The development VM's noise as measured on 2026-12-03 (`stats::noise::Noise::run_shifts`,
/// which a test below checks these against): per-round sd as a share of the cost, its
/// lag-1 autocorrelation, the run-level shift as a share of the cost and the share of
/// it a run's cells have in common.
const DEFAULT_SD_SHARE: f64 = 0.0805;
const DEFAULT_RHO: f64 = 0.45;
const DEFAULT_RUN_SHIFT: f64 = 0.08;
const DEFAULT_RUN_SHARED: f64 = 0.92;

/// The stated defaults for a cell of `cost` ms.
fn default_noise(cost: f64) -> RoundNoise {
    RoundNoise {
        sd_ms: DEFAULT_SD_SHARE * cost,
        rho: DEFAULT_RHO,
        between_sd_ms: DEFAULT_RUN_SHIFT * cost,
        shared: DEFAULT_RUN_SHARED,
    }
}

impl PlannedNoise {
    /// The stated defaults alone.
    pub fn defaults() -> PlannedNoise {
        let d = default_noise(1.0);
        PlannedNoise {
            source: format!(
                "stated defaults (the development VM's noise measured on 2026-12-03: per-round sd {:.1}% of the cost, lag-1 autocorrelation {}, runs shifted by {:.0}% of the cost, {:.0}% of that shared by a run's cells)",
                100.0 * d.sd_ms,
                d.rho,
                100.0 * d.between_sd_ms,
                100.0 * d.shared
            ),
            measured: Vec::new(),
        }
    }

    /// The noise of the cells of `report`'s newest label: each cell's sd of its per-round
    /// costs within runs, the label's drift and the share of the runs' spread its cells
    /// have in common (`stats::interval::Drift::of_cells`), and the spread of its runs'
    /// trimmed means beyond the drift when it has several.
    pub fn from_report(report: &crate::analyze::report::Report, from: &str) -> PlannedNoise {
        use crate::stats::interval::{Drift, TRIM, trimmed_mean};
        let Some(label) = report.labels.last() else {
            return PlannedNoise::defaults();
        };
        let cells: Vec<_> = report
            .cells
            .iter()
            .filter(|c| c.id.label == *label)
            .collect();
        let runs: Vec<Vec<Vec<f64>>> = cells.iter().map(|c| c.run_costs()).collect();
        let by_cell: Vec<Vec<&[f64]>> = runs
            .iter()
            .map(|r| crate::stats::interval::as_runs(r))
            .collect();
        let drift = Drift::of_cells(&by_cell);
        // Unknown (one run, or one cell): as if the cells moved as one.
        let shared = drift
            .runs
            .filter(|s| s.cells >= 2)
            .map_or(1.0, |s| s.shared);
        let measured = cells
            .iter()
            .zip(&runs)
            .filter_map(|(c, runs)| {
                let within: Vec<f64> = runs
                    .iter()
                    .filter(|r| r.len() >= 2)
                    .map(|r| crate::stats::interval::sd_of(r).powi(2))
                    .collect();
                if within.is_empty() {
                    return None;
                }
                let sd = (within.iter().sum::<f64>() / within.len() as f64).sqrt();
                let means: Vec<f64> = runs.iter().filter_map(|r| trimmed_mean(r, TRIM)).collect();
                let cost = means.iter().sum::<f64>() / means.len() as f64;
                // The runs' spread beyond what their rounds give: a run's trimmed mean
                // of n rounds varies by about TRIM_SE sd / sqrt(n), times the drift's
                // long-run factor (`stats::power`).
                let between = if means.len() >= 2 {
                    let n = runs.iter().map(Vec::len).sum::<usize>() as f64 / runs.len() as f64;
                    let rho = drift.rho.clamp(0.0, 0.9);
                    let rounds_var =
                        (1.0 + rho) / (1.0 - rho) * (crate::stats::power::TRIM_SE * sd).powi(2) / n;
                    (crate::stats::interval::sd_of(&means).powi(2) - rounds_var)
                        .max(0.0)
                        .sqrt()
                } else {
                    0.0
                };
                let noise = RoundNoise {
                    sd_ms: sd,
                    rho: drift.rho.max(0.0),
                    between_sd_ms: between,
                    shared,
                };
                Some((
                    [c.id.gc.clone(), c.id.heap.clone(), c.id.variant.clone()],
                    noise,
                    cost,
                ))
            })
            .collect();
        PlannedNoise {
            source: format!("the figures of label `{label}` in {from}"),
            measured,
        }
    }
}

/// Most runs a label the dry run looks at for a 10% change.
const MOST_RUNS: usize = 100;

/// Per cell, the smallest change in its pretouch cost that the median marks with 80%
/// power, by `stats::power::detectable_change_by`, when two labels of `runs` runs of the
/// matrix's rounds each are compared in turn. The noise is `noise`, measured where the
/// cell was measured and else the stated defaults on the estimated cost. It is also
/// given for 3 runs a label when fewer are planned, with how many runs a label find a
/// 10% change.
pub fn detectable(
    matrix: &Matrix,
    plan: &Plan,
    available_cpus: usize,
    runs: usize,
    noise: &PlannedNoise,
) -> String {
    let mut out = String::new();
    let rounds = matrix.adaptive.map_or(matrix.repetitions, |a| a.min) as usize;
    let cells = plan.cells.len();
    let _ = writeln!(
        out,
        "\nThe smallest change in a cell's pretouch cost that the report marks with 80% power, comparing two labels of {runs} run(s) x {rounds} rounds in turn, {cells} cell(s) a column. The noise is from {}.",
        noise.source
    );
    let mut any_default = false;
    for cell in &plan.cells {
        let key = [
            cell.gc.to_string(),
            cell.heap.to_string(),
            cell.variant.name.to_string(),
        ];
        let (round_noise, cost, from) = match noise.measured.iter().find(|m| m.0 == key) {
            Some((_, n, cost)) => (*n, *cost, "measured"),
            None => {
                any_default = true;
                let cost = (estimate_launch(cell, true, available_cpus)
                    - estimate_launch(cell, false, available_cpus))
                .as_secs_f64()
                    * 1e3;
                let n = default_noise(cost);
                (n, cost, "defaults, estimated cost")
            }
        };
        // The report's default estimator, because that is the figure the plan is for.
        let estimator = crate::stats::interval::Estimator::default();
        let found =
            |runs: usize| detectable_change_by(round_noise, rounds, runs, cells, 0.8, estimator);
        let shown = |d: Option<f64>| match d {
            Some(d) => format!("{d:.1} ms ({:.1}% of {cost:.0} ms)", 100.0 * d / cost),
            None => "none (fewer than 10 rounds: no interval)".to_owned(),
        };
        let name = match key[2].as_str() {
            "default" => format!("{} {}", key[0], key[1]),
            variant => format!("{} {} {variant}", key[0], key[1]),
        };
        let mut line = format!("{name}: {} [{from}]", shown(found(runs)));
        if runs < 3 {
            line += &format!("; with 3 runs a label {}", shown(found(3)));
        }
        // What a plan needs for the change a cover letter reports (about 10%): more
        // runs, since a run's level is one draw of the machine's (docs/statistics.md).
        let tenth = (2..=MOST_RUNS).find(|&r| found(r).is_some_and(|d| d <= 0.1 * cost));
        if found(runs).is_some() {
            line += &match tenth {
                Some(r) => format!("; a 10% change needs {r} runs a label"),
                None => format!("; a 10% change needs more than {MOST_RUNS} runs a label"),
            };
        }
        let _ = writeln!(out, "  {line}");
    }
    if any_default && !noise.measured.is_empty() {
        let _ = writeln!(out, "  (cells not in those results: the stated defaults)");
    }
    if runs < 3 && rounds >= crate::stats::interval::MIN_ROUNDS {
        let _ = writeln!(out, "{THREE_RUNS}");
    }
    out
}

/// Why the figure with 3 runs a label can be larger than one run's: it is the honest
/// one, because it sees how runs differ (`stats::power`).
const THREE_RUNS: &str = "  One run's figure counts only the noise between its rounds. Runs \
    differ by more than their rounds do, and one run cannot see that, so its figure is a \
    best case. The figure with 3 runs a label counts how runs differ, from few runs, so \
    it can be the larger one. Plan by it. A label gets 3 runs from --runs 3 with \
    --kernel or --boot, or from three runs of `pretouch run` under one label, taken in \
    turn with the other label's.";

/// `1h 02m 03s`, `4m 05s`, `6s`.
fn human(d: Duration) -> String {
    let s = d.as_secs();
    match (s / 3600, s / 60 % 60, s % 60) {
        (0, 0, s) => format!("{s}s"),
        (0, m, s) => format!("{m}m {s:02}s"),
        (h, m, s) => format!("{h}h {m:02}m {s:02}s"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::machine::jdk::Jdk;
    use std::path::PathBuf;

    fn jdk() -> Jdk {
        Jdk {
            spec: "25".into(),
            home: PathBuf::from("/jdk"),
            java: PathBuf::from("/jdk/bin/java"),
            version: "25.0.3+9-LTS".into(),
            vendor: None,
            version_output: String::new(),
            collectors: None,
        }
    }

    #[test]
    fn hotspot_default_gc_threads() {
        // HotSpot: 8 CPUs -> 8, 84 -> 8 + 76 * 5/8 = 55, 1 -> 1.
        assert_eq!(default_gc_threads(1), 1);
        assert_eq!(default_gc_threads(8), 8);
        assert_eq!(default_gc_threads(84), 55);
    }

    #[test]
    fn estimates_grow_with_the_heap_and_shrink_with_threads() {
        let m = Matrix::parse(
            "m.yaml",
            "name: x\ngcs: [g1]\nheaps: [1g, 32g]\nrepetitions: 10\nwarmup: 1\ngc_threads: [1, auto]\n",
        )
        .unwrap();
        let plan = Plan::new(&m, &[jdk()]);
        let est = |i: usize| estimate_launch(&plan.cells[i], true, 2).as_secs_f64();
        // cells: 1g/1 thread, 1g/auto, 32g/1 thread, 32g/auto
        assert!(est(0) > est(1) && est(2) > est(3) && est(3) > est(1));
        // 1g with 2 threads on 2 CPUs: about the 380 ms measured there.
        assert!((est(1) - 0.1 - 0.385).abs() < 0.01, "{}", est(1));
        assert_eq!(estimate_launch(&plan.cells[2], false, 2), LAUNCH_BASE);
    }

    #[test]
    fn prints_counts_and_command_lines() {
        let m = Matrix::parse(
            "cover.yaml",
            "name: cover\ngcs: [g1, parallel]\nheaps: [32g]\nrepetitions: 10\nwarmup: 1\n",
        )
        .unwrap();
        let plan = Plan::new(&m, &[jdk()]);
        let text = render(&m, &plan, 84, &|cell, pretouch| {
            let mut c = vec![cell.jdk.java.display().to_string()];
            c.extend(cell.jvm_args(&[], pretouch));
            c
        });
        insta::assert_snapshot!(text, @"
        dry run of `cover.yaml` (name: cover): no launch is made
        44 launches. 40 are counted, 2 cells x 10 rounds x with and without pretouch, and 4 warm-ups in 1 round.
        estimated duration: 46s
          (rough, for 84 CPUs: 0.1 s a launch, plus the heap pretouched at 1.3 GiB/s per GC thread, at most 13 threads' worth)

        The command lines, one pair per cell. Every round repeats them, and the pair's order alternates.
        cell 1: 25.0.3+9-LTS g1 32g default
          without /jdk/bin/java -Xms32g -Xmx32g -XX:+UseG1GC -XX:-AlwaysPreTouch
          with    /jdk/bin/java -Xms32g -Xmx32g -XX:+UseG1GC -XX:+AlwaysPreTouch
        cell 2: 25.0.3+9-LTS parallel 32g default
          without /jdk/bin/java -Xms32g -Xmx32g -XX:+UseParallelGC -XX:-AlwaysPreTouch
          with    /jdk/bin/java -Xms32g -Xmx32g -XX:+UseParallelGC -XX:+AlwaysPreTouch
        ");
    }

    #[test]
    fn a_server_says_its_time_to_ready_is_not_counted() {
        let text = "name: s\ngcs: [g1]\nheaps: [64m]\nrepetitions: 1\n\
                    app: {classpath: lib, main: a.Main, ready: {port: 8080}}\n";
        let m = Matrix::parse("s.yaml", text).unwrap();
        let plan = Plan::new(&m, &[jdk()]);
        let text = render(&m, &plan, 2, &|_, _| Vec::new());
        assert!(
            text.contains(
                "\n  not counted: each launch runs the server until ready (port 8080), the \
                 after_ready command if any, and its stop\n"
            ),
            "{text}"
        );
        let m = Matrix::parse(
            "q.yaml",
            "name: q\ngcs: [g1]\nheaps: [64m]\nrepetitions: 1\n",
        )
        .unwrap();
        let plan = Plan::new(&m, &[jdk()]);
        assert!(!render(&m, &plan, 2, &|_, _| Vec::new()).contains("not counted"));
    }

    #[test]
    fn says_what_change_each_cell_can_show_and_from_what() {
        let m = Matrix::parse(
            "cover.yaml",
            "name: cover\ngcs: [g1, parallel]\nheaps: [1g]\nrepetitions: 10\nwarmup: 1\n",
        )
        .unwrap();
        let plan = Plan::new(&m, &[jdk()]);
        let text = detectable(&m, &plan, 2, 1, &PlannedNoise::defaults());
        assert!(text.contains("The noise is from stated defaults"), "{text}");
        assert_eq!(
            text.matches("[defaults, estimated cost]").count(),
            2,
            "{text}"
        );
        assert!(text.contains("; with 3 runs a label "), "{text}");
        // Why 3 runs can look worse than one: the one run's figure is a best case.
        assert!(
            text.contains("so its figure is a best case") && text.contains("Plan by it."),
            "{text}"
        );
        assert!(text.contains("\n  g1 1g: "), "cells by name: {text}");
        assert!(text.contains("; a 10% change needs "), "{text}");
        // Measured figures for G1 replace the defaults for that cell only, and a
        // noisier cell needs a larger change.
        let quiet = RoundNoise {
            sd_ms: 1.0,
            rho: 0.0,
            between_sd_ms: 0.0,
            shared: 1.0,
        };
        let measured = PlannedNoise {
            source: "the figures of label `k` in results".into(),
            measured: vec![(["g1".into(), "1g".into(), "default".into()], quiet, 380.0)],
        };
        let keys: Vec<String> = plan.cells.iter().map(|c| c.gc.to_string()).collect();
        let text = detectable(&m, &plan, 2, 3, &measured);
        assert!(text.contains("label `k` in results"), "{text}");
        assert_eq!(text.matches("[measured]").count(), 1, "{keys:?} {text}");
        assert!(!text.contains("with 3 runs a label"), "{text}");
        assert!(!text.contains("best case"), "{text}");
        let ms = |line: &str| -> f64 {
            line.split(": ")
                .nth(1)
                .unwrap()
                .split(' ')
                .next()
                .unwrap()
                .parse()
                .unwrap()
        };
        let lines: Vec<&str> = text.lines().filter(|l| l.contains(" ms (")).collect();
        let (m1, m2) = (ms(lines[0]), ms(lines[1]));
        assert!(m1 < m2, "{text}");
        // The quiet cell finds 10% with the fewest runs; the defaults need more.
        let runs_for = |line: &str| -> usize {
            line.split("a 10% change needs ")
                .nth(1)
                .and_then(|t| t.split(' ').next())
                .and_then(|n| n.parse().ok())
                .unwrap_or(usize::MAX)
        };
        assert!(runs_for(lines[0]) < runs_for(lines[1]), "{text}");
    }

    #[test]
    fn the_defaults_are_the_run_shift_model() {
        let n = crate::stats::noise::Noise::run_shifts();
        let d = default_noise(n.cost_ms);
        assert!(
            (d.sd_ms - n.sd_on_ms.hypot(n.sd_off_ms)).abs() < 0.1,
            "{d:?}"
        );
        assert_eq!(d.rho, n.rho);
        assert!((d.between_sd_ms - n.run_shift * n.cost_ms).abs() < 1e-9);
        assert_eq!(d.shared, n.run_shift_shared);
    }
}
