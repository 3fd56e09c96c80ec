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
use crate::matrix::{Gc, GcThreads, HeapSize, Matrix, Variant};

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
        s
    }
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

impl Plan {
    pub fn new(matrix: &Matrix, jdks: &[Jdk]) -> Plan {
        let mut cells = Vec::new();
        for jdk in jdks {
            for &gc in &matrix.gcs {
                for heap in &matrix.heaps {
                    for variant in &matrix.variants {
                        for &gc_threads in &matrix.gc_threads {
                            for cpus in &matrix.cpus {
                                cells.push(Cell {
                                    jdk: jdk.clone(),
                                    gc,
                                    heap: heap.clone(),
                                    variant: variant.clone(),
                                    gc_threads,
                                    cpus: cpus.clone(),
                                    app: None,
                                });
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
    fn extra_rounds_continue_the_numbering_and_alternation() {
        let extra = round_launches(3, false, &[1, 4], 10);
        let got: Vec<_> = extra.iter().map(|l| (l.seq, l.cell, l.pretouch)).collect();
        assert_eq!(
            got,
            [(10, 1, true), (11, 1, false), (12, 4, true), (13, 4, false)]
        );
    }
}
