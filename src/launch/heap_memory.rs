//! Stage 3: what the Java heap's memory is at `main()`, read from the JVM's
//! `/proc/self/smaps`.
//!
//! The agent copies `/proc/self/smaps` to `<stamps file>.smaps` right after it has
//! written the `main` stamp, so the copy costs nothing the launch is measured by, and the
//! JVM is alive with its heap mapped. The runner reads the copy after the reap. Reading
//! it from the runner instead would need the JVM to wait for the runner at `main`, which
//! adds a handshake to every launch; a copy made by the process itself cannot race its
//! exit.
//!
//! Which mappings are the heap:
//! - ZGC keeps the heap in shared memory: mappings of a file named `java_heap` (a memfd,
//!   `/memfd:java_heap (deleted)`, or a hugetlbfs file with large pages). JDK 11 and 17
//!   map the same memory three times (the colour views; JDK 21+ generational ZGC once):
//!   `views` counts the mappings of the same file offset, and `resident` sums Pss, in
//!   which a page mapped three times counts a third in each view, so once in all.
//! - The other collectors keep it in private anonymous memory, reserved as one range of
//!   the heap's size. The CDS archive may map its heap objects from `classes.jsa` at the
//!   top of that range, and the kernel merges adjacent anonymous mappings, so the heap is
//!   taken as the smallest run of address-adjacent writable private mappings (anonymous
//!   or the `.jsa`) at least as large as the heap. `mapped` says how large that run was.

use serde::{Deserialize, Serialize};

use crate::units::Bytes;

/// What backs the heap.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MemoryKind {
    /// Private anonymous memory: its faults take `do_anonymous_page`.
    Anonymous,
    /// A memfd (shmem): its faults take `shmem_fault`, which a patch to anonymous faults
    /// does not reach.
    SharedMemfd,
    /// Other shared memory (`/dev/shm`, SysV, `/dev/zero`): shmem as well.
    Shmem,
    /// hugetlbfs: faults of reserved huge pages.
    Hugetlbfs,
}

impl MemoryKind {
    /// The name in records and reports.
    pub fn name(self) -> &'static str {
        match self {
            MemoryKind::Anonymous => "anonymous",
            MemoryKind::SharedMemfd => "shared-memfd",
            MemoryKind::Shmem => "shmem",
            MemoryKind::Hugetlbfs => "hugetlbfs",
        }
    }

    /// Shared memory of any kind: its faults do not take the anonymous-fault path.
    pub fn is_shared(self) -> bool {
        self != MemoryKind::Anonymous
    }
}

impl std::fmt::Display for MemoryKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The heap's memory at `main()` of one launch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct HeapMemory {
    /// What backs the heap: anonymous, shared-memfd, shmem or hugetlbfs.
    pub kind: MemoryKind,
    /// The kernel's page size for the heap's mappings (`KernelPageSize`; 2 MiB for
    /// hugetlbfs). Transparent huge pages do not change it: see `huge`.
    pub page_size: Bytes,
    /// Bytes of the heap mapped by transparent huge pages (`AnonHugePages`,
    /// `ShmemPmdMapped`, `FilePmdMapped`), summed over the mappings.
    pub huge: Bytes,
    /// Address space of the heap's mappings, every view counted.
    pub mapped: Bytes,
    /// Memory of the heap resident at `main()`, each page once (`Pss` summed).
    pub resident: Bytes,
    /// Resident memory as each mapping counts it (`Rss` summed): `views` times
    /// `resident` for a multi-mapped heap touched through every view.
    pub resident_mapped: Bytes,
    /// How many mappings (VMAs) hold the heap.
    pub mappings: u32,
    /// How many mappings map the same memory: 3 for JDK 11/17 ZGC, else 1. The kernel
    /// takes a fault per page per view that touches it.
    pub views: u32,
}

/// One mapping of `/proc/<pid>/smaps`, with the fields read here (kB values in bytes).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Mapping {
    start: u64,
    end: u64,
    writable: bool,
    shared: bool,
    offset: u64,
    inode: u64,
    path: String,
    kernel_page: u64,
    rss: u64,
    pss: u64,
    huge: u64,
}

fn parse(smaps: &str) -> Vec<Mapping> {
    let mut out: Vec<Mapping> = Vec::new();
    for line in smaps.lines() {
        let mut words = line.split_whitespace();
        let Some(first) = words.next() else { continue };
        if let Some((start, end)) = first.split_once('-')
            && let (Ok(start), Ok(end)) =
                (u64::from_str_radix(start, 16), u64::from_str_radix(end, 16))
        {
            let perms = words.next().unwrap_or("");
            let offset = words
                .next()
                .and_then(|o| u64::from_str_radix(o, 16).ok())
                .unwrap_or(0);
            let _dev = words.next();
            let inode = words.next().and_then(|i| i.parse().ok()).unwrap_or(0);
            let path = words.collect::<Vec<_>>().join(" ");
            out.push(Mapping {
                start,
                end,
                writable: perms.as_bytes().get(1) == Some(&b'w'),
                shared: perms.as_bytes().get(3) == Some(&b's'),
                offset,
                inode,
                path,
                ..Mapping::default()
            });
            continue;
        }
        let Some(current) = out.last_mut() else {
            continue;
        };
        let kb = || -> u64 {
            line.split_whitespace()
                .nth(1)
                .and_then(|v| v.parse::<u64>().ok())
                .unwrap_or(0)
                * 1024
        };
        match first {
            "KernelPageSize:" => current.kernel_page = kb(),
            "Rss:" => current.rss = kb(),
            "Pss:" => current.pss = kb(),
            "AnonHugePages:" | "ShmemPmdMapped:" | "FilePmdMapped:" => current.huge += kb(),
            _ => {}
        }
    }
    out
}

/// The heap's memory from a copy of `/proc/<pid>/smaps`, for a heap of `heap` bytes.
/// `None` when no mapping looks like the heap (a truncated copy, a JVM that reserved
/// its heap differently).
pub fn read(smaps: &str, heap: Bytes) -> Option<HeapMemory> {
    let maps = parse(smaps);
    let (kind, found, views) = find(&maps, heap)?;
    Some(summary(kind, &found, views))
}

/// Where the heap lies at `main()`, from the same copy of smaps as [`read`]: the start
/// of each of its mappings, as a file that lists mappings by their start, such as
/// `/proc/<pid>/numa_maps`, names them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeapPlace {
    /// The start address of each of the heap's mappings, every view's.
    pub starts: Vec<u64>,
    /// How many mappings map the same memory, as [`HeapMemory::views`] says.
    pub views: u32,
}

/// Where the heap of `heap` bytes lies in a copy of smaps, found as [`read`] finds it.
pub fn place(smaps: &str, heap: Bytes) -> Option<HeapPlace> {
    let maps = parse(smaps);
    let (_, found, views) = find(&maps, heap)?;
    Some(HeapPlace {
        starts: found.iter().map(|m| m.start).collect(),
        views: views.max(1),
    })
}

/// The heap's mappings among `maps`, what backs them and how many views map the same
/// memory.
fn find(maps: &[Mapping], heap: Bytes) -> Option<(MemoryKind, Vec<&Mapping>, u32)> {
    let shared: Vec<&Mapping> = maps
        .iter()
        .filter(|m| m.shared && m.writable && m.path.contains("java_heap"))
        .collect();
    if !shared.is_empty() {
        let hugetlb = shared
            .iter()
            .any(|m| m.kernel_page > 4096 || m.path.contains("hugetlb"));
        let kind = if hugetlb {
            MemoryKind::Hugetlbfs
        } else if shared.iter().all(|m| m.path.contains("memfd:")) {
            MemoryKind::SharedMemfd
        } else {
            MemoryKind::Shmem
        };
        let views = shared
            .iter()
            .map(|m| {
                shared
                    .iter()
                    .filter(|o| o.inode == m.inode && o.offset == m.offset)
                    .count()
            })
            .max()
            .unwrap_or(1);
        return Some((kind, shared, views as u32));
    }
    // Runs of address-adjacent writable private mappings, anonymous or the CDS archive.
    let candidate =
        |m: &Mapping| m.writable && !m.shared && (m.path.is_empty() || m.path.ends_with(".jsa"));
    let mut runs: Vec<Vec<&Mapping>> = Vec::new();
    for m in maps.iter().filter(|m| candidate(m)) {
        match runs.last_mut() {
            Some(run) if run.last().is_some_and(|l| l.end == m.start) => run.push(m),
            _ => runs.push(vec![m]),
        }
    }
    let size = |run: &[&Mapping]| run.iter().map(|m| m.end - m.start).sum::<u64>();
    let heap_run = runs
        .into_iter()
        .filter(|run| size(run) >= heap.0)
        .min_by_key(|run| size(run))?;
    Some((MemoryKind::Anonymous, heap_run, 1))
}

fn summary(kind: MemoryKind, maps: &[&Mapping], views: u32) -> HeapMemory {
    let sum = |f: fn(&Mapping) -> u64| Bytes(maps.iter().map(|m| f(m)).sum());
    HeapMemory {
        kind,
        page_size: Bytes(maps.iter().map(|m| m.kernel_page).max().unwrap_or(0)),
        huge: sum(|m| m.huge),
        mapped: sum(|m| m.end - m.start),
        resident: sum(|m| m.pss),
        resident_mapped: sum(|m| m.rss),
        mappings: maps.len() as u32,
        views: views.max(1),
    }
}

/// The heap's size from the JVM flags (the last `-Xmx` wins, as in HotSpot).
pub fn heap_of(jvm_args: &[String]) -> Option<Bytes> {
    jvm_args
        .iter()
        .rev()
        .find_map(|a| a.strip_prefix("-Xmx"))
        .and_then(|text| crate::matrix::HeapSize::parse(text).ok())
        .map(|h| h.bytes)
}

/// Where the agent writes its copy of smaps, beside the stamps file `stamps`.
pub fn copy_path(stamps: &std::path::Path) -> std::path::PathBuf {
    let mut name = stamps.as_os_str().to_owned();
    name.push(".smaps");
    name.into()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mapping(range: &str, perms: &str, inode: u64, path: &str, fields: &str) -> String {
        format!(
            "{range} {perms} 00000000 00:01 {inode}    {path}\nSize: 1 kB\n{fields}VmFlags: rd wr\n"
        )
    }

    /// JDK 17 ZGC, 256m, pretouched: three views of one memfd (as read on this machine).
    fn zgc17() -> String {
        let view = "KernelPageSize: 4 kB\nRss: 262144 kB\nPss: 87381 kB\nShmemPmdMapped: 0 kB\n";
        [
            mapping(
                "40000000000-40010000000",
                "rw-s",
                32,
                "/memfd:java_heap (deleted)",
                view,
            ),
            mapping("40010000000-40100000000", "---p", 0, "", "Rss: 0 kB\n"),
            mapping(
                "80000000000-80010000000",
                "rw-s",
                32,
                "/memfd:java_heap (deleted)",
                view,
            ),
            mapping(
                "100000000000-100010000000",
                "rw-s",
                32,
                "/memfd:java_heap (deleted)",
                view,
            ),
        ]
        .concat()
    }

    #[test]
    fn a_multi_mapped_zgc_heap_counts_once() {
        let m = read(&zgc17(), Bytes(256 << 20)).unwrap();
        assert_eq!(m.kind, MemoryKind::SharedMemfd);
        assert_eq!((m.mappings, m.views), (3, 3));
        assert_eq!(m.mapped, Bytes(3 * (256 << 20)));
        assert_eq!(m.resident_mapped, Bytes(3 * (256 << 20)));
        // Pss: each page a third in each view, so the heap once (to the kB rounding).
        assert!(m.resident.0.abs_diff(256 << 20) < 4096, "{:?}", m.resident);
        assert!(m.kind.is_shared());
    }

    #[test]
    fn an_anonymous_heap_is_the_smallest_run_that_holds_it() {
        let anon = |rss| {
            format!("KernelPageSize: 4 kB\nRss: {rss} kB\nPss: {rss} kB\nAnonHugePages: 2048 kB\n")
        };
        // JDK 17 G1 256m: the CDS archive's heap objects sit at the top of the range.
        let smaps = [
            mapping("7f00000000-7f00100000", "rw-p", 0, "", &anon(1024)),
            mapping("f0000000-ffe00000", "rw-p", 0, "", &anon(260096)),
            mapping(
                "ffe00000-ffe75000",
                "rw-p",
                9,
                "/jdk/lib/server/classes.jsa",
                &anon(468),
            ),
            mapping("ffe75000-100000000", "rw-p", 0, "", &anon(1580)),
            mapping("800000000-900000000", "rw-p", 0, "", &anon(10)),
        ]
        .concat();
        let m = read(&smaps, Bytes(256 << 20)).unwrap();
        assert_eq!(m.kind, MemoryKind::Anonymous);
        assert_eq!((m.mappings, m.views), (3, 1));
        assert_eq!(m.mapped, Bytes(256 << 20));
        assert_eq!(m.resident, Bytes((260096 + 468 + 1580) << 10));
        assert_eq!(m.huge, Bytes(3 * (2048 << 10)));
        assert_eq!(m.page_size, Bytes(4096));
        let found = place(&smaps, Bytes(256 << 20)).unwrap();
        assert_eq!(found.starts, [0xf0000000, 0xffe00000, 0xffe75000]);
        assert_eq!(found.views, 1);
        // Nothing large enough: not guessed.
        assert_eq!(read(&smaps, Bytes(8 << 30)), None);
        assert_eq!(read("", Bytes(256 << 20)), None);
    }

    #[test]
    fn hugetlbfs_is_named_by_its_page_size() {
        let smaps = mapping(
            "40000000000-40010000000",
            "rw-s",
            5,
            "/memfd:java_heap.hugetlb (deleted)",
            "KernelPageSize: 2048 kB\nRss: 0 kB\nPss: 0 kB\n",
        );
        let m = read(&smaps, Bytes(256 << 20)).unwrap();
        assert_eq!(m.kind, MemoryKind::Hugetlbfs);
        assert_eq!(m.page_size, Bytes(2 << 20));
    }

    #[test]
    fn the_heap_size_is_the_last_xmx() {
        let args = [
            "-Xmx1g".to_owned(),
            "-Xms64m".to_owned(),
            "-Xmx256m".to_owned(),
        ];
        assert_eq!(heap_of(&args), Some(Bytes(256 << 20)));
        assert_eq!(heap_of(&[]), None);
    }
}
