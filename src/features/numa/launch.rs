//! Stage 3, NUMA: the heap's pages per NUMA node at `main()` of one launch, read from the
//! agent's copy of the JVM's `/proc/self/numa_maps`.
//!
//! numa_maps has a line per mapping, named by its start address alone, with the mapping's
//! memory policy and a count of its pages on each node (`N0=`, `N1=`, ...). A line gives
//! no end, so the heap cannot be told from the other mappings by its size there. The
//! heap's mappings are the ones the launcher found in the copy of smaps that the agent
//! made a moment before (`launch::heap_memory::place`), which has each mapping's size,
//! permissions and name, and their starts pick the lines here. So the heap is the same
//! one that the heap's memory of the launch record describes.
//!
//! numa_maps counts the pages that the process's page tables map, in the mapping's
//! kernel page size (`kernelpagesize_kB`): a base page of 4 KiB for anonymous memory,
//! even where a transparent huge page maps it, and a huge page for hugetlbfs.

pub mod hook;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::launch::heap_memory::HeapPlace;
use crate::units::Bytes;

/// The heap's pages on each NUMA node at `main()` of one launch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HeapNodes {
    /// Pages of the heap on each node, by the node's number, as numa_maps counts them
    /// (`N0=`, `N1=`, ...) summed over the heap's mappings. A multi-mapped heap, as JDK
    /// 11 and 17 ZGC's three views of one memfd are, counts its sum over the views
    /// divided by their number, as Pss counts it. A node without a page of the heap is
    /// absent.
    pub pages: BTreeMap<u32, u64>,
    /// The size of the pages counted: the smallest `kernelpagesize_kB` of the heap's
    /// mappings, into which larger pages are counted.
    pub page_size: Bytes,
    /// The memory policies of the heap's mappings as numa_maps names them (`default`,
    /// `bind:0`, `interleave:0-1`, ...), each once, in address order.
    pub policies: Vec<String>,
    /// How many of the heap's mappings numa_maps listed.
    pub mappings: u32,
}

/// No kernel values and no change to the environment: the copy only reads.
impl crate::launch::parts::LaunchPart for HeapNodes {}

impl HeapNodes {
    /// The heap's bytes on `node`.
    pub fn bytes_on(&self, node: u32) -> Bytes {
        Bytes(self.pages.get(&node).copied().unwrap_or(0) * self.page_size.0)
    }

    /// The heap's bytes on every node together.
    pub fn bytes(&self) -> Bytes {
        Bytes(self.pages.values().sum::<u64>() * self.page_size.0)
    }
}

/// One line of numa_maps, with the fields read here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NumaMapping {
    /// The mapping's start address.
    pub start: u64,
    /// Its memory policy, the line's second word.
    pub policy: String,
    /// Its pages on each node (`N<node>=<pages>`).
    pub nodes: BTreeMap<u32, u64>,
    /// Its kernel page size (`kernelpagesize_kB`), 4 KiB when the line has none.
    pub page_size: Bytes,
}

/// The mappings of a copy of `/proc/<pid>/numa_maps`. A line whose first word is not a
/// hexadecimal address is skipped, and so is a word that is not `key=value`, such as
/// `huge`, `stack` or `heap`.
pub fn parse(numa_maps: &str) -> Vec<NumaMapping> {
    let mut out = Vec::new();
    for line in numa_maps.lines() {
        let mut words = line.split_whitespace();
        let Some(start) = words.next().and_then(|w| u64::from_str_radix(w, 16).ok()) else {
            continue;
        };
        let mut mapping = NumaMapping {
            start,
            policy: words.next().unwrap_or_default().to_owned(),
            nodes: BTreeMap::new(),
            page_size: Bytes(4096),
        };
        for (key, value) in words.filter_map(|w| w.split_once('=')) {
            if key == "kernelpagesize_kB" {
                if let Ok(kb) = value.parse::<u64>() {
                    mapping.page_size = Bytes(kb * 1024);
                }
            } else if let Some(node) = key.strip_prefix('N')
                && let (Ok(node), Ok(pages)) = (node.parse::<u32>(), value.parse::<u64>())
            {
                *mapping.nodes.entry(node).or_default() += pages;
            }
        }
        out.push(mapping);
    }
    out
}

/// The heap's pages per node from a copy of numa_maps, the heap's mappings being those
/// that start where `place` says. `None` when numa_maps lists none of them, as when the
/// copy is empty or the kernel was built without NUMA, which has no numa_maps.
pub fn heap_nodes(numa_maps: &str, place: &HeapPlace) -> Option<HeapNodes> {
    let heap: Vec<NumaMapping> = parse(numa_maps)
        .into_iter()
        .filter(|m| place.starts.contains(&m.start))
        .collect();
    let page_size = heap.iter().map(|m| m.page_size).min()?;
    let mut pages = BTreeMap::<u32, u64>::new();
    let mut policies: Vec<String> = Vec::new();
    for m in &heap {
        let scale = m.page_size.0 / page_size.0.max(1);
        for (node, count) in &m.nodes {
            *pages.entry(*node).or_default() += count * scale;
        }
        if !policies.contains(&m.policy) {
            policies.push(m.policy.clone());
        }
    }
    let views = u64::from(place.views.max(1));
    pages.retain(|_, count| {
        *count /= views;
        *count > 0
    });
    Some(HeapNodes {
        pages,
        page_size,
        policies,
        mappings: heap.len() as u32,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A JDK 21 process's numa_maps on a two-node machine, cut to a few lines of each
    /// kind: the heap split by G1's `-XX:+UseNUMA` into regions bound to each node, a
    /// file-backed mapping, the CDS archive, a hugetlbfs mapping and the stack.
    const NUMA_MAPS: &str = "\
55d0c0a00000 default file=/usr/lib/jvm/java-21/bin/java mapped=2 mapcount=1 N0=1 N1=1 kernelpagesize_kB=4
c0000000 bind:0 anon=16384 dirty=16384 active=0 N0=16384 kernelpagesize_kB=4
c4000000 bind:1 anon=16000 dirty=16000 active=0 N1=16000 kernelpagesize_kB=4
c8000000 bind:0 anon=12 dirty=12 N0=10 N1=2 kernelpagesize_kB=4
7f3c00000000 default file=/usr/lib/jvm/java-21/lib/server/classes.jsa dirty=3 mapped=40 N0=40 kernelpagesize_kB=4
7f4000000000 default file=/anon_hugepage\\040(deleted) huge anon=3 dirty=3 N0=1 N1=2 kernelpagesize_kB=2048
7ffd1a2b3000 default stack anon=9 dirty=9 N1=9 kernelpagesize_kB=4
not a mapping
";

    #[test]
    fn every_kind_of_line_is_read() {
        let maps = parse(NUMA_MAPS);
        assert_eq!(maps.len(), 7);
        assert_eq!(maps[0].start, 0x55d0c0a00000);
        assert_eq!(maps[0].nodes, BTreeMap::from([(0, 1), (1, 1)]));
        assert_eq!(maps[1].policy, "bind:0");
        assert_eq!(maps[3].nodes, BTreeMap::from([(0, 10), (1, 2)]));
        assert_eq!(maps[5].page_size, Bytes(2 << 20));
        assert_eq!(maps[5].nodes, BTreeMap::from([(0, 1), (1, 2)]));
        assert_eq!(maps[6].policy, "default");
        assert_eq!(maps[6].page_size, Bytes(4096));
    }

    #[test]
    fn the_heap_is_the_mappings_smaps_placed() {
        let place = HeapPlace {
            starts: vec![0xc0000000, 0xc4000000, 0xc8000000],
            views: 1,
        };
        let heap = heap_nodes(NUMA_MAPS, &place).unwrap();
        assert_eq!(heap.pages, BTreeMap::from([(0, 16394), (1, 16002)]));
        assert_eq!(heap.page_size, Bytes(4096));
        assert_eq!(heap.policies, ["bind:0", "bind:1"]);
        assert_eq!(heap.mappings, 3);
        assert_eq!(heap.bytes_on(1), Bytes(16002 * 4096));
        assert_eq!(heap.bytes_on(7), Bytes(0));
        assert_eq!(heap.bytes(), Bytes((16394 + 16002) * 4096));
        // No line starts where the heap does: not guessed.
        let elsewhere = HeapPlace {
            starts: vec![0x1000],
            views: 1,
        };
        assert_eq!(heap_nodes(NUMA_MAPS, &elsewhere), None);
        assert_eq!(heap_nodes("", &place), None);
    }

    #[test]
    fn huge_pages_count_in_their_own_size() {
        let place = HeapPlace {
            starts: vec![0x7f4000000000],
            views: 1,
        };
        let heap = heap_nodes(NUMA_MAPS, &place).unwrap();
        assert_eq!(heap.page_size, Bytes(2 << 20));
        assert_eq!(heap.pages, BTreeMap::from([(0, 1), (1, 2)]));
        assert_eq!(heap.bytes(), Bytes(3 * (2 << 20)));
    }

    #[test]
    fn a_multi_mapped_heap_counts_once() {
        // JDK 17 ZGC: three views of one memfd, each touched whole, all on node 0.
        let view = |start: &str| {
            format!(
                "{start} default file=/memfd:java_heap\\040(deleted) dirty=65536 mapmax=3 N0=65536 kernelpagesize_kB=4\n"
            )
        };
        let maps = [
            view("40000000000"),
            view("80000000000"),
            view("100000000000"),
        ]
        .concat();
        let place = HeapPlace {
            starts: vec![0x40000000000, 0x80000000000, 0x100000000000],
            views: 3,
        };
        let heap = heap_nodes(&maps, &place).unwrap();
        assert_eq!(heap.pages, BTreeMap::from([(0, 65536)]));
        assert_eq!(heap.mappings, 3);
    }

    #[test]
    fn an_untouched_heap_has_no_pages_on_any_node() {
        // numa_maps prints a mapping without pages as its start and policy alone.
        let maps = "c0000000 default\n";
        let place = HeapPlace {
            starts: vec![0xc0000000],
            views: 1,
        };
        let heap = heap_nodes(maps, &place).unwrap();
        assert!(heap.pages.is_empty());
        assert_eq!(heap.bytes(), Bytes(0));
    }
}
