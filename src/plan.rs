//! Stage 2: the matrix expanded into cells and the launches, in the order they run.
//!
//! Order: the warm-up rounds, then the counted rounds. A round launches every cell once
//! without and once with pretouch, cells in matrix order (JDK, GC, heap, variant). The
//! pair's order alternates from round to round (off/on, then on/off), so that neither
//! setting always follows the other's heap teardown. Drift over the run (thermal,
//! the host) then falls on every cell and both settings alike.

use serde::{Deserialize, Serialize};

use crate::jdk::Jdk;
use crate::matrix::{Gc, HeapSize, Matrix, Variant};

/// One configuration: everything but the pretouch setting.
#[derive(Debug, Clone)]
pub struct Cell {
    pub jdk: Jdk,
    pub gc: Gc,
    pub heap: HeapSize,
    pub variant: Variant,
}

impl Cell {
    /// The JVM flags of this cell, without the agent and the main class.
    pub fn jvm_args(&self, matrix_args: &[String], pretouch: bool) -> Vec<String> {
        let mut args = vec![
            format!("-Xms{}", self.heap.text),
            format!("-Xmx{}", self.heap.text),
            self.gc.flag().to_owned(),
            if pretouch {
                "-XX:+AlwaysPreTouch"
            } else {
                "-XX:-AlwaysPreTouch"
            }
            .to_owned(),
        ];
        args.extend(matrix_args.iter().cloned());
        args.extend(self.variant.jvm_args.iter().cloned());
        args
    }

    pub fn describe(&self) -> String {
        format!(
            "{} {} {} {}",
            self.jdk.version, self.gc, self.heap, self.variant.name
        )
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
                        cells.push(Cell {
                            jdk: jdk.clone(),
                            gc,
                            heap: heap.clone(),
                            variant: variant.clone(),
                        });
                    }
                }
            }
        }
        let rounds = matrix.warmup + matrix.repetitions;
        let mut launches = Vec::new();
        for round in 0..rounds {
            let order = if round % 2 == 0 {
                [false, true]
            } else {
                [true, false]
            };
            for cell in 0..cells.len() {
                for pretouch in order {
                    launches.push(PlannedLaunch {
                        seq: launches.len() as u64,
                        round,
                        warmup: round < matrix.warmup,
                        cell,
                        pretouch,
                    });
                }
            }
        }
        Plan { cells, launches }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn fake_jdk(name: &str) -> Jdk {
        Jdk {
            spec: name.into(),
            home: PathBuf::from(name),
            java: PathBuf::from(name).join("bin/java"),
            version: name.into(),
            vendor: None,
            version_output: String::new(),
        }
    }

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
}
