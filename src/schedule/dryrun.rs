//! Stage 6, scheduling: `pretouch run --dry-run`, the plan (`schedule::plan`) printed
//! instead of launched: how many launches, each cell's command lines, and a rough
//! duration estimated from the heap sizes. No JVM starts.

use std::fmt::Write as _;
use std::time::Duration;

use crate::matrix::cpuset::CpuSet;
use crate::matrix::{GcThreads, Matrix};
use crate::schedule::plan::{Cell, Plan};

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
        "dry run of `{}` (name: {}): no JVM is started",
        matrix.origin, matrix.name
    );
    let _ = writeln!(
        out,
        "{} launches: {counted} counted ({cells} cells x {} rounds x with/without pretouch) + {warmups} warm-up ({} round(s))",
        plan.launches.len(),
        matrix.repetitions,
        matrix.warmup
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
    if let Some(ready) = matrix.app.as_ref().and_then(|a| a.ready.as_ref()) {
        let _ = writeln!(
            out,
            "  not counted: each launch runs the server until ready ({}), the after_ready command if any, and its stop",
            ready.probe
        );
    }
    let _ = writeln!(
        out,
        "\nCommand lines, one pair per cell; every round repeats them (the pair's order alternates):"
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
        dry run of `cover.yaml` (name: cover): no JVM is started
        44 launches: 40 counted (2 cells x 10 rounds x with/without pretouch) + 4 warm-up (1 round(s))
        estimated duration: 46s
          (rough, for 84 CPUs: 0.1 s a launch, plus the heap pretouched at 1.3 GiB/s per GC thread, at most 13 threads' worth)

        Command lines, one pair per cell; every round repeats them (the pair's order alternates):
        cell 1: 25.0.3+9-LTS g1 32g default
          without /jdk/bin/java -Xms32g -Xmx32g -XX:+UseG1GC -XX:-AlwaysPreTouch
          with    /jdk/bin/java -Xms32g -Xmx32g -XX:+UseG1GC -XX:+AlwaysPreTouch
        cell 2: 25.0.3+9-LTS parallel 32g default
          without /jdk/bin/java -Xms32g -Xmx32g -XX:+UseParallelGC -XX:-AlwaysPreTouch
          with    /jdk/bin/java -Xms32g -Xmx32g -XX:+UseParallelGC -XX:+AlwaysPreTouch
        ");
    }
}
