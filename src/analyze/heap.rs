//! Stage 5, analysis: what a cell's heap is and how its JVM pretouches it. From the
//! cell's launches with pretouch, the heap's memory at `main()` (kind, views, page
//! size, huge-page bytes, the median resident against the heap); from the JDK and the
//! command, the pretouch method ([`crate::analyze::method`]) and what the collector
//! logs of it; and the features' figures of them, such as the method checked against a
//! kernel profile.

use std::borrow::Borrow;

use serde::Serialize;

use crate::analyze::method::{CellMethod, PretouchLogging, feature_update, pretouch_method};
use crate::features::analyze::{HeapParts, HeapPartsColumns};
use crate::launch::heap_memory::{HeapMemory, MemoryKind};
use crate::matrix::Gc;
use crate::stats::median;
use crate::store::LaunchRecord;
use crate::units::Bytes;

/// The heap's memory over a cell's launches with pretouch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CellMemory {
    /// What backs the heap, as the launches agree on it; `None`: they differ (`mixed`).
    pub kind: Option<MemoryKind>,
    /// Mappings of the same memory (3 for JDK 11/17 ZGC); `None`: mixed.
    pub views: Option<u32>,
    /// The kernel's page size of the heap's mappings; `None`: mixed.
    pub page_size: Option<Bytes>,
    /// Median bytes of the heap mapped by transparent huge pages.
    pub huge: Bytes,
    /// Median memory of the heap resident at `main()`, each page once.
    pub resident: Bytes,
    /// The heap the matrix asked for (`-Xms`).
    pub heap: Bytes,
    /// Launches with pretouch whose record has the heap's memory.
    pub launches: usize,
}

impl CellMemory {
    /// `anonymous`, `shared-memfd x3`, `mixed`; with the huge-page bytes when there are
    /// any (`anonymous, 60 MiB huge`).
    pub fn summary(&self) -> String {
        let mut s = match (self.kind, self.views) {
            (Some(kind), Some(views)) if views > 1 => format!("{kind} x{views}"),
            (Some(kind), Some(_)) => kind.to_string(),
            _ => "mixed".to_owned(),
        };
        if self.huge.0 > 0 {
            s += &format!(", {} huge", self.huge);
        }
        s
    }

    /// The median resident against the heap: `64 MiB of 64 MiB`.
    pub fn resident_of_heap(&self) -> String {
        format!("{} of {}", self.resident, self.heap)
    }
}

/// A cell's heap and pretouch method, as the report shows them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CellHeap {
    /// The heap's memory; `None` when no launch with pretouch recorded it (records
    /// before the heap's memory was read, or no launch reached `main()`).
    pub memory: Option<CellMemory>,
    /// How the JVM pretouches, from its version and flags.
    pub method: CellMethod,
    /// The features' figures of the heap and method, each feature's key after the
    /// method's, as the JSON has always written them.
    #[serde(flatten)]
    pub parts: HeapParts,
    /// What the collector logs of its pretouch.
    pub logging: PretouchLogging,
    /// The sentence a report prints for a JVM log without a pretouch line.
    pub missing_log_line: String,
}

fn memory_of<L: Borrow<LaunchRecord>>(on: &[L]) -> Option<CellMemory> {
    let measured: Vec<(&LaunchRecord, &HeapMemory)> = on
        .iter()
        .map(Borrow::borrow)
        .filter_map(|l: &LaunchRecord| Some((l, l.measured.heap_memory.as_ref()?)))
        .collect();
    let (first, m0) = measured.first()?;
    let same = |a: &HeapMemory, b: &HeapMemory| {
        (a.kind, a.views, a.page_size) == (b.kind, b.views, b.page_size)
    };
    let mixed = !measured.iter().all(|(_, m)| same(m, m0));
    let med = |f: fn(&HeapMemory) -> u64| {
        median(
            &measured
                .iter()
                .map(|(_, m)| f(m) as f64)
                .collect::<Vec<_>>(),
        )
        .map_or(0, |x| x.round() as u64)
    };
    Some(CellMemory {
        kind: (!mixed).then_some(m0.kind),
        views: (!mixed).then_some(m0.views),
        page_size: (!mixed).then_some(m0.page_size),
        huge: Bytes(med(|m| m.huge.0)),
        resident: Bytes(med(|m| m.resident.0)),
        heap: first.heap_bytes,
        launches: measured.len(),
    })
}

/// The heap and method of a cell of `jdk` and `gc`, from its counted launches with
/// (`on`) and without (`off`) pretouch that reached `main()`.
pub fn cell_heap<L: Borrow<LaunchRecord>>(
    jdk: &str,
    gc: Gc,
    on: &[L],
    off: &[L],
    thp_mode: Option<&str>,
) -> CellHeap {
    let command = on
        .iter()
        .chain(off)
        .next()
        .map_or(&[][..], |l| l.borrow().measured.command.as_slice());
    let logging = PretouchLogging::of(gc, feature_update(jdk).map(|(f, _)| f));
    CellHeap {
        memory: memory_of(on),
        method: pretouch_method(jdk, gc, command, thp_mode),
        parts: HeapParts::default(),
        logging,
        missing_log_line: logging.explain(gc),
    }
}

/// The flat columns of a cell's heap and method in the CSV of cells.
#[derive(Debug, Clone, Default, Serialize)]
pub struct HeapColumns {
    /// [`CellMemory::summary`]; empty without a record of the heap's memory.
    pub heap_memory: String,
    pub heap_views: Option<u32>,
    pub heap_page_size_bytes: Option<u64>,
    pub heap_huge_bytes: Option<u64>,
    pub heap_resident_bytes: Option<u64>,
    pub pretouch_method: String,
    pub method_source: String,
    /// Space-separated JDK bug ids.
    pub method_bugs: String,
    /// `; `-separated.
    pub method_notes: String,
    /// The features' columns of the heap and method, such as the method's check
    /// against a kernel profile.
    #[serde(flatten)]
    pub parts: HeapPartsColumns,
    pub pretouch_logging: String,
}

impl HeapColumns {
    pub fn of(h: &CellHeap) -> HeapColumns {
        let m = h.memory.as_ref();
        HeapColumns {
            heap_memory: m.map(CellMemory::summary).unwrap_or_default(),
            heap_views: m.and_then(|m| m.views),
            heap_page_size_bytes: m.and_then(|m| m.page_size).map(|b| b.0),
            heap_huge_bytes: m.map(|m| m.huge.0),
            heap_resident_bytes: m.map(|m| m.resident.0),
            pretouch_method: h.method.method.name().to_owned(),
            method_source: h.method.source.clone(),
            method_bugs: h.method.bugs.join(" "),
            method_notes: h.method.notes.join("; "),
            parts: h.parts.columns(),
            pretouch_logging: serde_json::to_value(h.logging)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyze::method::PretouchMethod;

    const MIB: u64 = 1 << 20;

    fn zgc17(resident: u64, page: u64) -> LaunchRecord {
        let mut l = crate::fixtures::launch(0, true, 300.0);
        l.cell.gc = Gc::Zgc;
        l.heap_bytes = Bytes(64 * MIB);
        l.measured.heap_memory = Some(HeapMemory {
            kind: MemoryKind::SharedMemfd,
            page_size: Bytes(page),
            huge: Bytes(0),
            mapped: Bytes(3 * 64 * MIB),
            resident: Bytes(resident),
            resident_mapped: Bytes(3 * resident),
            mappings: 3,
            views: 3,
        });
        l
    }

    #[test]
    fn a_cell_says_its_memory_its_method_and_its_log() {
        let on = [
            zgc17(64 * MIB, 4096),
            zgc17(62 * MIB, 4096),
            zgc17(60 * MIB, 4096),
        ];
        let h = cell_heap("17.0.15+6-Debian", Gc::Zgc, &on, &[], None);
        let m = h.memory.clone().unwrap();
        assert_eq!(m.summary(), "shared-memfd x3");
        assert_eq!(m.resident_of_heap(), "62 MiB of 64 MiB");
        assert_eq!(m.launches, 3);
        assert_eq!(h.method.method, PretouchMethod::Store);
        assert!(
            h.missing_log_line
                .starts_with("zgc logs its pretouch only as a gc+task line")
        );
        assert_eq!(h.parts, HeapParts::default());
        assert_eq!(HeapColumns::of(&h).pretouch_logging, "task-line-only");
    }

    #[test]
    fn launches_that_differ_are_mixed_and_huge_pages_are_named() {
        let mut thp = zgc17(64 * MIB, 4096);
        if let Some(m) = &mut thp.measured.heap_memory {
            m.huge = Bytes(60 * MIB);
        }
        let h = cell_heap("17.0.15", Gc::Zgc, &[thp.clone()], &[], None);
        assert_eq!(h.memory.unwrap().summary(), "shared-memfd x3, 60 MiB huge");
        let h = cell_heap(
            "17.0.15",
            Gc::Zgc,
            &[thp, zgc17(64 * MIB, 2 * MIB)],
            &[],
            None,
        );
        let m = h.memory.unwrap();
        assert_eq!(
            (m.kind, m.summary()),
            (None, "mixed, 30 MiB huge".to_owned())
        );
        // Older records: no memory, the method still from the JDK.
        let old = crate::fixtures::launch(0, true, 300.0);
        let h = cell_heap("25.0.3", Gc::G1, &[old], &[], None);
        assert_eq!(h.memory, None);
        assert_eq!(h.method.method, PretouchMethod::AtomicAdd);
    }

    /// The features' columns sit between the method's and the logging's, as the CSV
    /// of cells has always written them.
    #[test]
    fn the_features_columns_follow_the_methods() {
        let h = cell_heap::<LaunchRecord>("25.0.3", Gc::G1, &[], &[], None);
        let json = serde_json::to_string(&HeapColumns::of(&h)).unwrap();
        let at = |key: &str| json.find(&format!("\"{key}\"")).unwrap();
        assert!(at("method_notes") < at("method_check"), "{json}");
        assert!(at("method_check") < at("method_check_detail"), "{json}");
        assert!(at("method_check_detail") < at("pretouch_logging"), "{json}");
    }
}
