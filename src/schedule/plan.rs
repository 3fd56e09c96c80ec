//! Stage 6: the matrix expanded into cells and the launches, in the order they run.
//!
//! Order: the warm-up rounds, then the counted rounds. A round launches every cell once
//! without and once with pretouch, cells in matrix order (JDK, GC, heap, variant, GC
//! threads, CPU set). The pair's order alternates from round to round (off/on, then
//! on/off), so that neither setting always follows the other's heap teardown. Drift over the run (thermal,
//! the host) then falls on every cell and both settings alike.

use serde::{Deserialize, Serialize};

use crate::machine::jdk::Jdk;
use crate::matrix::cpuset::CpuSet;
use crate::matrix::{Gc, GcThreads, HeapSize, Matrix, MatrixError, Variant};

/// One configuration: everything but the pretouch setting.
#[derive(Debug, Clone)]
pub struct Cell {
    pub jdk: Jdk,
    pub gc: Gc,
    pub heap: HeapSize,
    pub variant: Variant,
    /// `-XX:ParallelGCThreads`, or the JVM's choice.
    pub gc_threads: GcThreads,
    /// The CPUs the JVM is confined to.
    pub cpus: CpuSet,
    /// Main class of the `app:` stamped; `None`: the built-in main class.
    pub app: Option<String>,
    /// The cell's values of the features' axes.
    pub features: crate::features::matrix::CellAxes,
}

impl Cell {
    /// The JVM flags of this cell, without the agent and the main class.
    pub fn jvm_args(&self, matrix_args: &[String], pretouch: bool) -> Vec<String> {
        let mut args = vec![
            format!("-Xms{}", self.heap.text),
            format!("-Xmx{}", self.heap.text),
        ];
        args.extend(self.jdk.gc_flags(self.gc));
        args.push(
            if pretouch {
                "-XX:+AlwaysPreTouch"
            } else {
                "-XX:-AlwaysPreTouch"
            }
            .to_owned(),
        );
        args.extend(self.gc_threads.flag());
        args.extend(matrix_args.iter().cloned());
        args.extend(self.variant.jvm_args.iter().cloned());
        args
    }

    pub fn describe(&self) -> String {
        let mut s = format!(
            "{} {} {} {}",
            self.jdk.version, self.gc, self.heap, self.variant.name
        );
        if self.gc_threads != GcThreads::Auto {
            s += &format!(" gc_threads={}", self.gc_threads);
        }
        if self.cpus != CpuSet::All {
            s += &format!(" cpus={}", self.cpus);
        }
        s += &self.features.describe();
        s
    }
}

/// Every pair of `a` and `b`, `a` outer.
fn pairs<'a, A, B>(a: &'a [A], b: &'a [B]) -> impl Iterator<Item = (&'a A, &'a B)> {
    a.iter().flat_map(move |x| b.iter().map(move |y| (x, y)))
}

/// One launch to make.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlannedLaunch {
    /// Position in the run, from 0.
    pub seq: u64,
    /// Round number, from 0; the first `warmup` rounds are warm-ups.
    pub round: u32,
    /// An uncounted warm-up launch.
    pub warmup: bool,
    /// Index of the cell in `Plan::cells`.
    pub cell: usize,
    pub pretouch: bool,
}

#[derive(Debug, Clone)]
pub struct Plan {
    pub cells: Vec<Cell>,
    pub launches: Vec<PlannedLaunch>,
}

/// The most launches a run plans. The plan is built whole before the first launch, 32
/// bytes a launch (about 3 MiB here); at 100 ms a launch, the fastest a JVM starts, this
/// many take 2.8 hours at least, so a larger count is far more likely a typo (an extra
/// digit in `repetitions:`) than a plan, and building it could take the machine's memory
/// from everything else on it.
const MAX_LAUNCHES: u128 = 100_000;

/// The most cells a run plans: each is 344 bytes plus the text of its JDK and variant,
/// so this many stay a few MiB.
pub const MAX_CELLS: u128 = 10_000;

/// The fewest milliseconds a launch takes: the JVM's start and exit, without pretouch.
const FASTEST_LAUNCH_MS: u128 = 100;

/// Refuses a matrix whose plan would exceed [`MAX_LAUNCHES`] with `jdks` JDKs, before
/// anything is allocated for it: counted in `u128`, so no product of axes overflows.
pub fn check_size(matrix: &Matrix, jdks: usize) -> Result<(), MatrixError> {
    let cells = [
        jdks.max(1),
        matrix.gcs.len(),
        matrix.heaps.len(),
        matrix.variants.len(),
        matrix.gc_threads.len(),
        matrix.cpus.len(),
    ]
    .into_iter()
    .chain(matrix.features.cell_axes_lengths())
    .map(|n| n as u128)
    .product::<u128>();
    if cells > MAX_CELLS {
        let axes: Vec<&str> = ["JDKs", "gcs", "heaps", "variants", "gc_threads", "cpus"]
            .into_iter()
            .chain(crate::features::matrix::CELL_AXES.iter().copied())
            .collect();
        return Err(MatrixError::Invalid {
            origin: matrix.origin.clone(),
            line: None,
            column: None,
            message: format!(
                "this matrix has {cells} cells ({}); a run has at most {MAX_CELLS}\n  fix: list fewer values on its \
                 axes, or split the matrix into several runs",
                axes.join(" x ")
            ),
        });
    }
    let max_rounds = matrix.adaptive.map_or(matrix.repetitions, |a| a.max);
    let rounds = u128::from(matrix.warmup) + u128::from(max_rounds);
    let launches = cells * rounds * 2;
    if launches <= MAX_LAUNCHES {
        return Ok(());
    }
    let seconds = launches * FASTEST_LAUNCH_MS / 1000;
    let at_least = match u64::try_from(seconds) {
        Ok(s) if s < 100 * 365 * 86_400 => {
            humantime::format_duration(std::time::Duration::from_secs(s)).to_string()
        }
        _ => "over a century".to_owned(),
    };
    let key = if matrix.warmup > max_rounds {
        "warmup"
    } else {
        "repetitions"
    };
    // The flag that gave the count, such as `--rounds 4294967295`, or the file's line.
    let lower = match matrix.given.of(key) {
        Some(given) => given.split(' ').next().unwrap_or(key).to_owned(),
        None => format!("`{key}`"),
    };
    Err(MatrixError::Flag {
        flag: matrix.place(key),
        message: format!(
            "this matrix plans {launches} launches, {} x {} x with and without \
             pretouch. They would take {at_least} at least, at {FASTEST_LAUNCH_MS} ms a \
             launch, and a run plans at most {MAX_LAUNCHES}.\n  \
             fix: lower {lower} or the axes, or split the matrix into several runs",
            crate::units::count_of(cells, "cell"),
            crate::units::count_of(rounds, "round"),
        ),
    })
}

impl Plan {
    pub fn new(matrix: &Matrix, jdks: &[Jdk]) -> Plan {
        // The features' outer axes outermost: a round runs every cell of one setting
        // before the next, so that the kernel's knobs change as seldom as a round allows.
        let outer = matrix.features.outer_values();
        let inner = matrix.features.inner_values();
        let mut cells = Vec::new();
        for outer in &outer {
            for jdk in jdks {
                for &gc in &matrix.gcs {
                    for heap in &matrix.heaps {
                        for variant in &matrix.variants {
                            for &gc_threads in &matrix.gc_threads {
                                for (cpus, inner) in pairs(&matrix.cpus, &inner) {
                                    cells.push(Cell {
                                        jdk: jdk.clone(),
                                        gc,
                                        heap: heap.clone(),
                                        variant: variant.clone(),
                                        gc_threads,
                                        cpus: cpus.clone(),
                                        app: None,
                                        features: outer.and(inner),
                                    });
                                }
                            }
                        }
                    }
                }
            }
        }
        let rounds = matrix.warmup + matrix.repetitions;
        let all: Vec<usize> = (0..cells.len()).collect();
        let mut launches = Vec::new();
        for round in 0..rounds {
            let next = round_launches(round, round < matrix.warmup, &all, launches.len() as u64);
            launches.extend(next);
        }
        Plan { cells, launches }
    }

    /// Names the application every cell stamps (the resolved `app:` main class).
    pub fn with_app(mut self, main_class: Option<&str>) -> Plan {
        for cell in &mut self.cells {
            cell.app = main_class.map(str::to_owned);
        }
        self
    }
}

/// One round over `cells` (indices, in matrix order), numbered from `first_seq`: each
/// cell without and with pretouch, the pair's order alternating with the round.
pub fn round_launches(
    round: u32,
    warmup: bool,
    cells: &[usize],
    first_seq: u64,
) -> Vec<PlannedLaunch> {
    let order = if round.is_multiple_of(2) {
        [false, true]
    } else {
        [true, false]
    };
    let mut launches = Vec::new();
    for &cell in cells {
        for pretouch in order {
            launches.push(PlannedLaunch {
                seq: first_seq + launches.len() as u64,
                round,
                warmup,
                cell,
                pretouch,
            });
        }
    }
    launches
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::fake_jdk;

    #[test]
    fn rounds_interleave_cells_and_alternate_settings() {
        let m = Matrix::parse(
            "m",
            "name: x\ngcs: [g1, parallel]\nheaps: [64m]\nrepetitions: 2\nwarmup: 1\n",
        )
        .unwrap();
        let plan = Plan::new(&m, &[fake_jdk("17")]);
        assert_eq!(plan.cells.len(), 2);
        let order: Vec<_> = plan
            .launches
            .iter()
            .map(|l| (l.round, l.warmup, l.cell, l.pretouch))
            .collect();
        assert_eq!(
            order,
            [
                (0, true, 0, false),
                (0, true, 0, true),
                (0, true, 1, false),
                (0, true, 1, true),
                (1, false, 0, true),
                (1, false, 0, false),
                (1, false, 1, true),
                (1, false, 1, false),
                (2, false, 0, false),
                (2, false, 0, true),
                (2, false, 1, false),
                (2, false, 1, true),
            ]
        );
        assert!(
            plan.launches
                .iter()
                .enumerate()
                .all(|(i, l)| l.seq == i as u64)
        );
    }

    #[test]
    fn settings_go_outermost_and_memory_limits_innermost() {
        let m = Matrix::parse(
            "m",
            "name: x\ngcs: [g1, parallel]\nheaps: [64m]\nrepetitions: 1\n\
             settings: [{name: a}, {name: b}]\nmemory: [1g, 2g]\n",
        )
        .unwrap();
        let plan = Plan::new(&m, &[fake_jdk("17")]);
        let cells: Vec<String> = plan.cells.iter().map(Cell::describe).collect();
        assert_eq!(
            cells,
            [
                "17 g1 64m default setting=a memory=1g",
                "17 g1 64m default setting=a memory=2g",
                "17 parallel 64m default setting=a memory=1g",
                "17 parallel 64m default setting=a memory=2g",
                "17 g1 64m default setting=b memory=1g",
                "17 g1 64m default setting=b memory=2g",
                "17 parallel 64m default setting=b memory=1g",
                "17 parallel 64m default setting=b memory=2g",
            ]
        );
        let keys: Vec<_> = (plan.cells.iter().map(crate::schedule::run::cell_key))
            .map(|k| k.features.words())
            .collect();
        assert_eq!(keys[5], " setting=b memory=2g");
    }

    #[test]
    fn too_many_cells_names_every_axis() {
        let heaps: Vec<String> = (2..=102).map(|n| format!("{n}m")).collect();
        let settings: Vec<String> = (1..=100).map(|n| format!("{{name: s{n}}}")).collect();
        let text = format!(
            "name: x\ngcs: [g1]\nheaps: [{}]\nrepetitions: 1\nsettings: [{}]\n",
            heaps.join(", "),
            settings.join(", ")
        );
        let m = Matrix::parse("m", &text).unwrap();
        let e = check_size(&m, 1).unwrap_err().to_string();
        assert!(
            e.contains(
                "this matrix has 10100 cells (JDKs x gcs x heaps x variants x gc_threads x \
                 cpus x settings x memory); a run has at most 10000\n"
            ),
            "{e}"
        );
    }

    #[test]
    fn counted_launches_are_repetitions_per_cell_and_setting() {
        let m = Matrix::parse(
            "m",
            "name: x\ngcs: [g1, parallel]\nheaps: [64m, 128m]\nrepetitions: 10\nwarmup: 1\nvariants: [{name: a}, {name: b}]\n",
        )
        .unwrap();
        let plan = Plan::new(&m, &[fake_jdk("17"), fake_jdk("25")]);
        assert_eq!(plan.cells.len(), 16);
        for cell in 0..16 {
            for pretouch in [false, true] {
                let n = plan
                    .launches
                    .iter()
                    .filter(|l| !l.warmup && l.cell == cell && l.pretouch == pretouch)
                    .count();
                assert_eq!(n, 10);
            }
        }
        assert_eq!(plan.launches.len(), 16 * 2 * 11);
    }

    #[test]
    fn flags_put_the_matrix_before_the_variant() {
        let m = Matrix::parse(
            "m",
            "name: x\ngcs: [parallel]\nheaps: [1g]\nrepetitions: 1\njvm_args: [-Xshare:auto]\nvariants: [{name: thp, jvm_args: [-XX:+UseTransparentHugePages]}]\n",
        )
        .unwrap();
        let plan = Plan::new(&m, &[fake_jdk("17")]);
        assert_eq!(
            plan.cells[0].jvm_args(&m.jvm_args, true),
            [
                "-Xms1g",
                "-Xmx1g",
                "-XX:+UseParallelGC",
                "-XX:+AlwaysPreTouch",
                "-Xshare:auto",
                "-XX:+UseTransparentHugePages"
            ]
        );
        assert_eq!(plan.cells[0].jvm_args(&[], false)[3], "-XX:-AlwaysPreTouch");
    }

    #[test]
    fn gc_threads_and_cpus_are_axes() {
        let m = Matrix::parse(
            "m",
            "name: x\ngcs: [g1, parallel]\nheaps: [1g]\nrepetitions: 1\ngc_threads: [1, auto]\ncpus: [\"0\", all]\n",
        )
        .unwrap();
        let plan = Plan::new(&m, &[fake_jdk("17"), fake_jdk("25")]);
        assert_eq!(plan.cells.len(), 2 * 2 * 2 * 2);
        let first: Vec<String> = plan.cells[..4].iter().map(Cell::describe).collect();
        assert_eq!(
            first,
            [
                "17 g1 1g default gc_threads=1 cpus=0",
                "17 g1 1g default gc_threads=1",
                "17 g1 1g default cpus=0",
                "17 g1 1g default",
            ]
        );
        let args = plan.cells[0].jvm_args(&[], true);
        assert!(
            args.contains(&"-XX:ParallelGCThreads=1".to_owned()),
            "{args:?}"
        );
        assert!(
            !plan.cells[3]
                .jvm_args(&[], true)
                .iter()
                .any(|a| a.contains("ParallelGCThreads"))
        );
        assert_eq!(plan.launches.len(), 16 * 2);
    }

    #[test]
    fn an_absurd_count_is_refused_before_anything_is_planned() {
        let parse = |text: &str| Matrix::parse("m.yaml", text).unwrap();
        let m = parse("name: x\ngcs: [g1]\nheaps: [64m]\nrepetitions: 1000000000\n");
        let e = check_size(&m, 1).unwrap_err().to_string();
        assert!(e.contains("m.yaml`, line 4"), "{e}");
        assert!(e.contains("plans 2000000000 launches"), "{e}");
        assert!(e.contains("They would take 6years"), "{e}");
        assert!(e.contains("fix: lower `repetitions`"), "{e}");
        let m = parse("name: x\ngcs: [g1]\nheaps: [64m]\nrepetitions: 1\nwarmup: 100000000\n");
        let e = check_size(&m, 2).unwrap_err().to_string();
        assert!(e.contains("line 5") && e.contains("lower `warmup`"), "{e}");
        let m = parse(
            "name: x\ngcs: [g1]\nheaps: [64m]\nrepetitions: {min: 5, max: 4000000000, ci_pct: 2}\n",
        );
        assert!(check_size(&m, 1).is_err());
        // The largest plan allowed stays a few MiB.
        let m = parse("name: x\ngcs: [g1]\nheaps: [64m]\nrepetitions: 50000\n");
        check_size(&m, 1).unwrap();
        assert!(check_size(&m, 2).is_err());
        let bytes = std::mem::size_of::<PlannedLaunch>() as u128 * MAX_LAUNCHES;
        assert!(bytes <= 4 << 20, "{bytes} bytes");
        // Axes whose product is absurd are refused by their cell count.
        let many: Vec<String> = (0..110).map(|i| format!("{}m", 64 + i)).collect();
        let m = parse(&format!(
            "name: x\ngcs: [g1]\nheaps: [{}]\nrepetitions: 1\ngc_threads: [{}]\n",
            many.join(", "),
            (1..=100)
                .map(|i| i.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ));
        let e = check_size(&m, 1).unwrap_err().to_string();
        assert!(e.contains("has 11000 cells"), "{e}");
        assert!(std::mem::size_of::<Cell>() as u128 * MAX_CELLS <= 4 << 20);
    }

    #[test]
    fn extra_rounds_continue_the_numbering_and_alternation() {
        let extra = round_launches(3, false, &[1, 4], 10);
        let got: Vec<_> = extra.iter().map(|l| (l.seq, l.cell, l.pretouch)).collect();
        assert_eq!(
            got,
            [(10, 1, true), (11, 1, false), (12, 4, true), (13, 4, false)]
        );
    }
}
