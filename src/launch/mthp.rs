//! Stage 3, beside the launcher: how the kernel backed a launch's memory by folio size.
//! Each multi-size THP size (`/sys/kernel/mm/transparent_hugepage/hugepages-64kB/`,
//! the PMD size `hugepages-2048kB` too) counts its folios in `stats/`; the counts read
//! just before the spawn and just after the reap differ by the launch's own (launches
//! never overlap), plus whatever the rest of the machine faulted meanwhile.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The counters of one folio size over a launch.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MthpCounts {
    /// The folio size as the kernel names its folder, e.g. `64kB`.
    pub size: String,
    /// Anonymous faults that got a folio of this size (`anon_fault_alloc`).
    pub anon_fault_alloc: u64,
    /// Anonymous faults that wanted this size, failed to allocate it and fell back to a
    /// smaller one (`anon_fault_fallback`).
    pub anon_fault_fallback: u64,
    /// Of those, the ones where the memory cgroup's charge failed
    /// (`anon_fault_fallback_charge`).
    pub anon_fault_fallback_charge: u64,
    /// Shared-memory (shmem, memfd: ZGC's heap) folios of this size allocated
    /// (`shmem_alloc`).
    pub shmem_alloc: u64,
    /// Shared-memory allocations of this size that fell back (`shmem_fallback`).
    pub shmem_fallback: u64,
    /// Folios of this size split into smaller ones (`split`).
    pub split: u64,
}

const COUNTERS: [&str; 6] = [
    "anon_fault_alloc",
    "anon_fault_fallback",
    "anon_fault_fallback_charge",
    "shmem_alloc",
    "shmem_fallback",
    "split",
];

/// A reading of every size's counters; a counter the kernel lacks reads 0.
#[derive(Debug, Clone, Default)]
pub struct Reading(Vec<(u64, String, [u64; 6])>);

/// Where the sizes' folders are: under `PRETOUCH_KERNEL_ROOT` (tests) or `/`.
#[derive(Debug, Clone)]
pub struct MthpWatch {
    dir: PathBuf,
}

impl Default for MthpWatch {
    fn default() -> MthpWatch {
        MthpWatch::at(&crate::machine::kernel_root::kernel_root())
    }
}

impl MthpWatch {
    pub fn at(root: &Path) -> MthpWatch {
        MthpWatch {
            dir: root
                .join(crate::machine::kernel_root::SYSFS_MM)
                .join("transparent_hugepage"),
        }
    }

    pub fn read(&self) -> Reading {
        let mut sizes = Vec::new();
        for entry in std::fs::read_dir(&self.dir).into_iter().flatten().flatten() {
            let Ok(name) = entry.file_name().into_string() else {
                continue;
            };
            let Some(size) = name.strip_prefix("hugepages-") else {
                continue;
            };
            let Some(kb) = size.strip_suffix("kB").and_then(|n| n.parse::<u64>().ok()) else {
                continue;
            };
            let stats = entry.path().join("stats");
            let mut values = [0; 6];
            for (value, counter) in values.iter_mut().zip(COUNTERS) {
                *value = std::fs::read_to_string(stats.join(counter))
                    .ok()
                    .and_then(|t| t.trim().parse().ok())
                    .unwrap_or(0);
            }
            sizes.push((kb, size.to_owned(), values));
        }
        sizes.sort();
        Reading(sizes)
    }
}

impl Reading {
    /// The counts from `before` to this reading, for the sizes where any counter moved,
    /// smallest first.
    pub fn since(&self, before: &Reading) -> Vec<MthpCounts> {
        self.0
            .iter()
            .filter_map(|(kb, size, after)| {
                let (_, _, was) = before.0.iter().find(|(k, _, _)| k == kb)?;
                let d: Vec<u64> = after
                    .iter()
                    .zip(was)
                    .map(|(a, b)| a.saturating_sub(*b))
                    .collect();
                d.iter().any(|&n| n > 0).then(|| MthpCounts {
                    size: size.clone(),
                    anon_fault_alloc: d[0],
                    anon_fault_fallback: d[1],
                    anon_fault_fallback_charge: d[2],
                    shmem_alloc: d[3],
                    shmem_fallback: d[4],
                    split: d[5],
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(root: &Path, size: &str, counter: &str, n: u64) {
        let dir = root.join(format!(
            "sys/kernel/mm/transparent_hugepage/hugepages-{size}/stats"
        ));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(counter), format!("{n}\n")).unwrap();
    }

    #[test]
    fn counts_per_size_over_a_launch() {
        let root = tempfile::tempdir().unwrap();
        write(root.path(), "64kB", "anon_fault_alloc", 10);
        write(root.path(), "2048kB", "anon_fault_alloc", 5);
        write(root.path(), "16kB", "anon_fault_alloc", 7);
        let watch = MthpWatch::at(root.path());
        let before = watch.read();
        write(root.path(), "64kB", "anon_fault_alloc", 16394);
        write(root.path(), "64kB", "anon_fault_fallback", 3);
        write(root.path(), "2048kB", "anon_fault_alloc", 6);
        let counts = watch.read().since(&before);
        // Sizes that did not move are left out; smallest first, not in name order.
        let sizes: Vec<&str> = counts.iter().map(|c| c.size.as_str()).collect();
        assert_eq!(sizes, ["64kB", "2048kB"]);
        assert_eq!(
            (counts[0].anon_fault_alloc, counts[0].anon_fault_fallback),
            (16384, 3)
        );
        assert_eq!(counts[1].anon_fault_alloc, 1);
    }
}
