//! Stage 5, beside the report: where a cell's pretouch cost went. Per launch, the
//! startup phases from the agent's stamps and the check that the heap really was
//! touched; per cell, the extra faults, their rate against the machine's ceiling, the
//! phase that grew, and the JVM's own pretouch time. Pure functions over stored records.

use std::borrow::Borrow;

use serde::Serialize;

use crate::launch::jvmlog::JvmLog;
use crate::stats::median;
use crate::store::LaunchRecord;
use crate::units::{Bytes, Nanos};

/// The page size the expected fault count assumes without THP (x86-64 and most arm64
/// kernels).
pub const BASE_PAGE: u64 = crate::machine::folio::BASE_PAGE.0;

/// Share of the heap that must become resident during VM creation (beyond what a
/// launch without pretouch adds) for the heap to count as touched.
const TOUCHED_SHARE: f64 = 0.8;

/// The three startup phases of one launch, from the spawn and the agent's stamps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
struct Phases {
    /// exec -> `Agent_OnLoad`: the launcher and the VM's early start.
    pub to_agent: Nanos,
    /// `Agent_OnLoad` -> VMInit: heap creation, and its pretouch.
    pub agent_to_init: Nanos,
    /// VMInit -> `main()`: class loading up to the main method.
    pub init_to_main: Nanos,
}

/// The phase names, in order, as reports print them.
pub const PHASE_NAMES: [&str; 3] = ["exec->agent", "agent->init", "init->main"];

impl Phases {
    pub fn of(launch: &LaunchRecord) -> Option<Phases> {
        let s = &launch.measured.stamps;
        let (load, init, main) = (s.agent_load?.ns, s.vm_init?.ns, s.main?.ns);
        Some(Phases {
            to_agent: load.since(launch.measured.spawn_ns)?,
            agent_to_init: init.since(load)?,
            init_to_main: main.since(init)?,
        })
    }

    pub fn as_array(&self) -> [Nanos; 3] {
        [self.to_agent, self.agent_to_init, self.init_to_main]
    }
}

/// Minor faults of a launch up to `main()`: the agent's count at its `main()` stamp.
/// Not the kernel's count for the whole process (rusage), because a server keeps
/// running after `main()` and its workload's faults would enter that count: a launch
/// without pretouch takes the faults that pretouch took at startup while it serves, so
/// the difference pretouch makes would shrink by them.
fn faults_at_main(launch: &LaunchRecord) -> Option<u64> {
    launch.measured.stamps.main.map(|m| m.minflt)
}

/// RSS the process gained between agent load and VM init (the heap's creation).
fn init_rss_growth(launch: &LaunchRecord) -> Option<u64> {
    let s = &launch.measured.stamps;
    Some(s.vm_init?.rss.0.saturating_sub(s.agent_load?.rss.0))
}

/// Why a launch with pretouch does not look touched. Where the record has the heap's
/// memory at `main()` ([`HeapMemory`](crate::launch::heap_memory::HeapMemory)), about the
/// heap (as far as it is mapped, one view) must be resident, each page counted once: JDK 17 ZGC's three views of one memfd
/// triple its RSS, so RSS alone would pass a heap touched a third of the way. Otherwise
/// (older records) RSS must grow by about the heap during VM creation, beyond `baseline`
/// (the median growth without pretouch in the same cell, which holds the JVM's other
/// start-up memory). Faults are not required: with huge pages one fault maps 2 MiB, and
/// RSS still counts every byte. Returns `None` when the heap was touched (or the launch
/// has no pretouch, or no stamps).
pub fn untouched(launch: &LaunchRecord, baseline: Option<u64>) -> Option<String> {
    if !launch.pretouch {
        return None;
    }
    if let Some(memory) = &launch.measured.heap_memory {
        // ZGC maps only the memory it has committed, which on JDK 11 is less than -Xms
        // at main() (28 MiB of a 64m heap, 220 MiB of 256m): that is the heap there is to touch.
        let views = u64::from(memory.views.max(1));
        let heap = launch.heap_bytes.0.min(memory.mapped.0 / views);
        // Pss and Rss, one view's worth, are two readings of the same pages. Either
        // reaching the heap is enough, so that an undercount of one, such as Pss split
        // between sharers, is no false warning.
        let resident = memory.resident.0.max(memory.resident_mapped.0 / views);
        if (resident as f64) < TOUCHED_SHARE * heap as f64 {
            return Some(format!(
                "{} of the {} heap mapped ({} memory, {} view(s)) was resident at main(), expected about all of it",
                memory.resident,
                Bytes(heap),
                memory.kind,
                memory.views
            ));
        }
        return None;
    }
    let growth = init_rss_growth(launch)?;
    let heap = launch.heap_bytes.0;
    let net = growth.saturating_sub(baseline.unwrap_or(0));
    if (net as f64) < TOUCHED_SHARE * heap as f64 {
        return Some(format!(
            "RSS grew {} during VM creation ({} beyond a launch without pretouch), expected about the heap, {}",
            Bytes(growth),
            Bytes(net),
            Bytes(heap)
        ));
    }
    None
}

/// Whether a launch with too little of its heap resident still took the faults of a
/// whole pretouch: beyond `faults_off`, the median without pretouch, at least
/// [`TOUCHED_SHARE`] of `expected`, the fewest faults a whole pretouch takes, at the
/// largest folio the THP modes allow. Its heap was then touched, and memory that left it
/// by `main()` says nothing against pretouch. One launch under mTHP 64 KiB `always` had
/// 201.5 MiB of its 256 MiB resident at `main()` and was called untouched, though its
/// cost was that of a whole pretouch. Anonymous memory only, because a shared heap's
/// faults count each of its views and would pass a heap touched in part.
fn faulted_the_heap(launch: &LaunchRecord, faults_off: Option<f64>, expected: u64) -> bool {
    let anonymous = launch
        .measured
        .heap_memory
        .as_ref()
        .is_some_and(|m| !m.kind.is_shared());
    let beyond = faults_at_main(launch)
        .zip(faults_off)
        .map(|(on, off)| on as f64 - off);
    anonymous && expected > 0 && beyond.is_some_and(|b| b >= TOUCHED_SHARE * expected as f64)
}

/// A cell's explanation, from its counted launches that reached `main()`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CellExplain {
    /// Median of each phase without pretouch, ms ([`PHASE_NAMES`] order).
    pub phases_off_ms: [Option<f64>; 3],
    /// Median of each phase with pretouch, ms.
    pub phases_on_ms: [Option<f64>; 3],
    /// Median minor faults up to `main()` (the agent's stamp) with pretouch, less the same
    /// without.
    pub pretouch_faults: Option<f64>,
    /// heap / `expected_folio_bytes`, times the heap's views (3 for JDK 17 ZGC): the
    /// faults a pretouch takes when every fault gets a folio of the largest size the
    /// kernel's THP modes allowed the heap (one fault a base page without THP).
    pub expected_faults: u64,
    /// The folio size `expected_faults` counts by: the largest the run's THP and mTHP
    /// modes allowed the heap ([`crate::machine::folio`]), else the base page (4 KiB).
    pub expected_folio_bytes: u64,
    /// Where that folio is larger than the base page: the faults when the kernel falls
    /// back to base pages all along (no free block of any allowed size), the most a
    /// pretouch takes.
    pub expected_faults_4k: Option<u64>,
    /// The smaller allowed folio sizes the kernel tries before base pages when the
    /// largest is not at hand, largest first (bytes).
    pub fallback_folio_bytes: Vec<u64>,
    /// The cell's runs were taken under different THP modes, so no one folio size holds:
    /// `expected_faults` then counts base pages.
    pub thp_modes_differ: bool,
    /// pretouch_faults over the agent->init growth: faults per second of wall time.
    pub fault_rate_per_s: Option<f64>,
    /// Median JVM-logged pretouch time over the launches with pretouch, ms.
    pub jvm_pretouch_ms: Option<f64>,
    /// How much longer the median Genesis phase takes with pretouch, from the JVM log, ms.
    pub jvm_genesis_growth_ms: Option<f64>,
    /// Launches with pretouch whose heap does not look touched.
    pub untouched: usize,
    /// The first such launch's reason.
    pub untouched_reason: Option<String>,
    /// Indices into the `on` launches of those launches, in order.
    pub untouched_launches: Vec<usize>,
    /// Launches with pretouch whose JVM log had no pretouch line (JDKs that log
    /// differently, or Serial GC, which logs none).
    pub jvm_log_missing: usize,
    /// Launches whose JVM log had lines the parser could not read (or no log file).
    pub jvm_log_warnings: usize,
    /// The first such warning.
    pub first_jvm_log_warning: Option<String>,
    /// How the heap was backed: per folio size above the base page, the median folios
    /// a launch with pretouch got (`mthp` records: anonymous and shmem allocations),
    /// largest first; sizes at 0 left out. Not less the launches without pretouch: ZGC
    /// commits its shared-memory heap with `fallocate`, which allocates its folios
    /// without a touch, so that the difference would say 0 for its whole heap.
    pub folios: Vec<FolioCount>,
    /// The median fallbacks (a wanted folio size not at hand, a smaller one taken) of a
    /// launch with pretouch, summed over sizes; `None` when no launch recorded `mthp`
    /// counters.
    pub folio_fallbacks: Option<f64>,
    /// The features' figures of how the heap was backed (a `memory:` cell's cgroups).
    pub backing: crate::features::analyze::Backing,
}

/// Folios of one size a launch's heap got.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FolioCount {
    /// The size, bytes.
    pub bytes: u64,
    /// Median over the launches with pretouch.
    pub per_launch: f64,
}

impl CellExplain {
    /// How much longer agent load to VM init takes with pretouch, ms. Pretouch lands there.
    pub fn init_growth_ms(&self) -> Option<f64> {
        Some(self.phases_on_ms[1]? - self.phases_off_ms[1]?)
    }

    /// The phase whose median grew most with pretouch.
    pub fn grew_most(&self) -> Option<&'static str> {
        (0..3)
            .filter_map(|i| Some((i, self.phases_on_ms[i]? - self.phases_off_ms[i]?)))
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(i, _)| PHASE_NAMES[i])
    }
}

fn log(l: &LaunchRecord) -> Option<&JvmLog> {
    l.measured.jvm_log.as_ref()
}

fn med(values: impl Iterator<Item = f64>) -> Option<f64> {
    median(&values.collect::<Vec<_>>())
}

/// The folio sizes a cell's heap may get, largest first (see [`crate::machine::folio`]),
/// or `None` when its runs were taken under THP modes that give different ones.
pub type CellFolios = Option<Vec<Bytes>>;

/// Explains one cell from its launches with (`on`) and without (`off`) pretouch; only
/// launches that reached `main()` should be passed (records, or references to them).
/// `folios`: the sizes above the base page its heap may get.
pub fn explain_cell<R: Borrow<LaunchRecord>>(
    on: &[R],
    off: &[R],
    folios: &CellFolios,
) -> CellExplain {
    let on: Vec<&LaunchRecord> = on.iter().map(Borrow::borrow).collect();
    let off: Vec<&LaunchRecord> = off.iter().map(Borrow::borrow).collect();
    let (on, off) = (on.as_slice(), off.as_slice());
    let phases = |ls: &[&LaunchRecord]| -> [Option<f64>; 3] {
        let p: Vec<Phases> = ls.iter().filter_map(|l| Phases::of(l)).collect();
        [0, 1, 2].map(|i| med(p.iter().map(|x| x.as_array()[i].as_ms())))
    };
    let faults = |ls: &[&LaunchRecord]| {
        med(ls
            .iter()
            .filter_map(|l| faults_at_main(l))
            .map(|f| f as f64))
    };
    let mut x = CellExplain {
        phases_off_ms: phases(off),
        phases_on_ms: phases(on),
        ..CellExplain::default()
    };
    expect_faults(&mut x, on.iter().chain(off).next().copied(), folios);
    x.pretouch_faults = faults(on).zip(faults(off)).map(|(a, b)| a - b);
    x.fault_rate_per_s = x
        .pretouch_faults
        .zip(x.init_growth_ms())
        .filter(|(faults, ms)| *faults > 0.0 && *ms > 0.0)
        .map(|(f, ms)| f / (ms / 1e3));
    x.jvm_pretouch_ms = med(on
        .iter()
        .filter_map(|l| log(l)?.pretouch_ns())
        .map(Nanos::as_ms));
    let genesis = |ls: &[&LaunchRecord]| {
        med(ls
            .iter()
            .filter_map(|l| log(l)?.genesis_ns)
            .map(Nanos::as_ms))
    };
    x.jvm_genesis_growth_ms = genesis(on).zip(genesis(off)).map(|(a, b)| a - b);
    x.jvm_log_missing = on
        .iter()
        .filter(|l| log(l).is_some_and(|j| j.pretouches.is_empty()))
        .count();
    for j in on.iter().chain(off).filter_map(|l| log(l)) {
        if let Some(w) = j.warnings.first() {
            x.jvm_log_warnings += 1;
            x.first_jvm_log_warning.get_or_insert_with(|| w.clone());
        }
    }
    let baseline = median(
        &off.iter()
            .filter_map(|l| init_rss_growth(l))
            .map(|g| g as f64)
            .collect::<Vec<_>>(),
    )
    .map(|g| g as u64);
    let faults_off = faults(off);
    for (i, l) in on.iter().enumerate() {
        if let Some(why) = untouched(l, baseline)
            && !faulted_the_heap(l, faults_off, x.expected_faults)
        {
            x.untouched += 1;
            x.untouched_launches.push(i);
            x.untouched_reason.get_or_insert(why);
        }
    }
    (x.folios, x.folio_fallbacks) = folio_figures(on);
    x.backing = crate::features::analyze::Backing::of(on, off);
    x
}

/// The folios per size and the fallbacks of a cell's launches with pretouch.
fn folio_figures(on: &[&LaunchRecord]) -> (Vec<FolioCount>, Option<f64>) {
    use crate::launch::mthp::MthpCounts;
    fn counts(l: &LaunchRecord) -> &[MthpCounts] {
        l.measured.mthp.as_deref().unwrap_or(&[])
    }
    if !on.iter().any(|l| l.measured.mthp.is_some()) {
        return (Vec::new(), None);
    }
    let mut sizes: Vec<(Bytes, &str)> = (on.iter())
        .flat_map(|l| counts(l))
        .filter_map(|c| Some((crate::machine::folio::size_bytes(&c.size)?, c.size.as_str())))
        .collect();
    sizes.sort_by(|a, b| b.cmp(a));
    sizes.dedup();
    let of = |pick: &dyn Fn(&MthpCounts) -> u64| {
        med(on
            .iter()
            .map(|l| counts(l).iter().map(pick).sum::<u64>() as f64))
        .unwrap_or(0.0)
    };
    let folios = sizes
        .iter()
        .map(|&(bytes, name)| FolioCount {
            bytes: bytes.0,
            per_launch: of(&|c: &MthpCounts| {
                if c.size == name {
                    c.anon_fault_alloc + c.shmem_alloc
                } else {
                    0
                }
            }),
        })
        .filter(|f| f.per_launch > 0.0)
        .collect();
    (
        folios,
        Some(of(&|c: &MthpCounts| {
            c.anon_fault_fallback + c.shmem_fallback
        })),
    )
}

/// The flat columns of a cell's folios in the CSV of cells (a CSV row holds no nested
/// object): `folios` as `SIZE:COUNT` pairs, `16K:68600 2M:3`. The features' figures of
/// the backing follow them ([`crate::features::analyze::Backing::columns`]).
#[derive(Debug, Clone, Default, Serialize)]
pub struct FolioColumns {
    pub folios: String,
    pub folio_fallbacks: Option<f64>,
}

impl FolioColumns {
    pub fn of(folios: &[FolioCount], fallbacks: Option<f64>) -> FolioColumns {
        FolioColumns {
            folios: (folios.iter())
                .map(|f| format!("{}K:{}", f.bytes / 1024, f.per_launch))
                .collect::<Vec<_>>()
                .join(" "),
            folio_fallbacks: fallbacks,
        }
    }
}

/// The expected faults of `x`'s cell, from one of its launches (the heap's size and
/// views) and the folio sizes its heap may get: a fault per folio per view, since JDK 17
/// ZGC touches its heap through three.
fn expect_faults(x: &mut CellExplain, launch: Option<&LaunchRecord>, folios: &CellFolios) {
    let largest = folios.as_ref().and_then(|f| f.first().copied());
    x.expected_folio_bytes = largest.map_or(BASE_PAGE, |b| b.0);
    x.thp_modes_differ = folios.is_none();
    x.fallback_folio_bytes = folios.iter().flatten().skip(1).map(|b| b.0).collect();
    let Some(l) = launch else {
        return;
    };
    let views = l.measured.heap_memory.map_or(1, |m| u64::from(m.views));
    let per = |folio: u64| l.heap_bytes.0.div_ceil(folio) * views;
    x.expected_faults = per(x.expected_folio_bytes);
    x.expected_faults_4k = largest.map(|_| per(BASE_PAGE));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::launch::agent::{Stamp, Stamps};
    use crate::launch::jvmlog::PretouchLine;
    use crate::launch::rusage::LaunchUsage;

    const MIB: u64 = 1 << 20;

    /// A launch of a 1 GiB heap: phases in ms, faults up to `main()` (the whole
    /// process's too), RSS growth.
    fn launch(pretouch: bool, phases: [u64; 3], faults: u64, rss_growth: u64) -> LaunchRecord {
        let ms = 1_000_000;
        let stamp = |ns: u64, rss: u64| Stamp {
            ns: Nanos(ns),
            minflt: 0,
            majflt: 0,
            rss: Bytes(rss),
        };
        let at_main = |ns: u64| Stamp {
            minflt: faults,
            ..stamp(ns, 0)
        };
        let load = 1000 * ms + phases[0] * ms;
        let init = load + phases[1] * ms;
        let mut launch =
            crate::fixtures::launch(1, pretouch, (phases.iter().sum::<u64>() * ms) as f64 / 1e6);
        launch.cell.jdk = "25".into();
        launch.jdk_home = "/jdk".into();
        launch.heap_bytes = Bytes(1024 * MIB);
        launch.measured = crate::launch::Measurement {
            spawn_ns: Nanos(1000 * ms),
            reaped_ns: Nanos(init + phases[2] * ms + ms),
            exit_code: Some(0),
            stamps: Stamps {
                mechanism: None,
                agent_load: Some(stamp(load, 20 * MIB)),
                vm_init: Some(stamp(init, 20 * MIB + rss_growth)),
                main: Some(at_main(init + phases[2] * ms)),
            },
            rusage: Some(LaunchUsage {
                minflt: faults,
                majflt: 0,
                utime_ns: Nanos(0),
                stime_ns: Nanos(0),
                maxrss: None,
                peak_rss: None,
            }),
            jvm_log: pretouch.then(|| JvmLog {
                pretouches: vec![PretouchLine {
                    at_ns: Nanos(load + ms),
                    what: "G1 PreTouch".into(),
                    workers: 2,
                    work_units: 256,
                    bytes: Bytes(1024 * MIB),
                    took_ns: Some(Nanos((phases[1] - 20) * ms)),
                }],
                ..JvmLog::default()
            }),
            ..Default::default()
        };
        launch
    }

    #[test]
    fn a_touched_g1_heap_explains_its_cost() {
        let off = [
            launch(false, [10, 20, 25], 12_000, 30 * MIB),
            launch(false, [12, 22, 27], 12_100, 30 * MIB),
            launch(false, [11, 21, 26], 12_200, 30 * MIB),
        ];
        let on = [
            launch(true, [10, 420, 25], 274_000, 1060 * MIB),
            launch(true, [11, 430, 26], 274_300, 1060 * MIB),
            launch(true, [12, 440, 27], 274_500, 1060 * MIB),
        ];
        let x = explain_cell(&on, &off, &Some(Vec::new()));
        assert_eq!(x.phases_off_ms, [Some(11.0), Some(21.0), Some(26.0)]);
        assert_eq!(x.phases_on_ms, [Some(11.0), Some(430.0), Some(26.0)]);
        assert_eq!(x.init_growth_ms(), Some(409.0));
        assert_eq!(x.grew_most(), Some("agent->init"));
        assert_eq!(x.expected_faults, 262_144);
        assert_eq!(x.pretouch_faults, Some(274_300.0 - 12_100.0));
        // 262200 faults in 0.409 s
        let rate = x.fault_rate_per_s.unwrap();
        assert!((rate - 262_200.0 / 0.409).abs() < 1e-6, "{rate}");
        assert_eq!(x.jvm_pretouch_ms, Some(410.0));
        assert_eq!(x.untouched, 0);
        assert_eq!(x.jvm_log_missing, 0);
    }

    #[test]
    fn a_servers_faults_are_counted_at_main_not_over_its_whole_life() {
        // A server whose workload allocates after ready: without pretouch the workload
        // touches 200k heap pages for the first time, with pretouch they were touched
        // at startup. The whole-life count (rusage) holds those faults, the count at
        // main() does not.
        let server = |pretouch: bool, at_main: u64, after_main: u64| {
            let mut l = launch(
                pretouch,
                [10, if pretouch { 420 } else { 20 }, 25],
                at_main,
                30 * MIB,
            );
            if let Some(r) = &mut l.measured.rusage {
                r.minflt = at_main + after_main;
            }
            l
        };
        let off = [server(false, 12_000, 200_000 + 5_000)];
        let on = [server(true, 274_000, 5_000)];
        let x = explain_cell(&on, &off, &Some(Vec::new()));
        assert_eq!(x.pretouch_faults, Some(262_000.0));
        assert!(x.pretouch_faults.unwrap() >= 0.9 * x.expected_faults as f64);
        let rate = x.fault_rate_per_s.unwrap();
        assert!((rate - 262_000.0 / 0.4).abs() < 1e-6, "{rate}");
    }

    #[test]
    fn huge_pages_take_fewer_faults_and_are_not_flagged() {
        let off = [launch(false, [10, 20, 25], 12_000, 30 * MIB)];
        // 1 GiB in 2 MiB pages: 512 faults, RSS still grows by the heap.
        let on = [launch(true, [10, 150, 25], 12_000 + 512 + 200, 1050 * MIB)];
        let x = explain_cell(&on, &off, &Some(Vec::new()));
        assert_eq!(x.pretouch_faults, Some(712.0));
        assert_eq!(x.untouched, 0, "{:?}", x.untouched_reason);
    }

    #[test]
    fn the_expected_faults_count_the_folios_the_thp_modes_allow() {
        let off = [launch(false, [10, 20, 25], 12_000, 30 * MIB)];
        // mTHP 64 KiB `always`: a 1 GiB heap is 16384 folios, 262144 base pages if the
        // kernel falls back all along.
        let on = [launch(true, [10, 90, 25], 12_000 + 17_900, 1050 * MIB)];
        let x = explain_cell(&on, &off, &Some(vec![Bytes(64 << 10)]));
        assert_eq!(
            (
                x.expected_faults,
                x.expected_folio_bytes,
                x.expected_faults_4k
            ),
            (16_384, 64 << 10, Some(262_144))
        );
        assert!(x.fallback_folio_bytes.is_empty() && !x.thp_modes_differ);
        // An advised heap under the same modes: 2 MiB first, then 64 KiB, then 4 KiB.
        let x = explain_cell(&on, &off, &Some(vec![Bytes(2 << 20), Bytes(64 << 10)]));
        assert_eq!(
            (x.expected_faults, x.fallback_folio_bytes),
            (512, vec![64 << 10])
        );
        // No THP: a fault a base page, and no fallback to speak of.
        let x = explain_cell(&on, &off, &Some(Vec::new()));
        assert_eq!((x.expected_faults, x.expected_faults_4k), (262_144, None));
        // Runs under different modes: base pages, and said so.
        let x = explain_cell(&on, &off, &None);
        assert_eq!(x.expected_faults, 262_144);
        assert!(x.thp_modes_differ);
    }

    #[test]
    fn a_heap_pretouched_in_part_is_flagged() {
        // JDK-8324817: Parallel GC pretouched only part of the heap.
        let off = [launch(false, [10, 20, 25], 12_000, 30 * MIB)];
        let on = [
            launch(true, [10, 200, 25], 140_000, 30 * MIB + 512 * MIB),
            launch(true, [10, 400, 25], 274_000, 1060 * MIB),
        ];
        let x = explain_cell(&on, &off, &Some(Vec::new()));
        assert_eq!(x.untouched, 1);
        assert_eq!(x.untouched_launches, [0]);
        let why = x.untouched_reason.unwrap();
        assert!(why.contains("542 MiB") && why.contains("1 GiB"), "{why}");
        // Without pretouch nothing is checked.
        assert_eq!(untouched(&off[0], None), None);
    }
    #[test]
    fn a_heap_short_of_resident_is_touched_when_rss_or_its_faults_say_so() {
        use crate::launch::heap_memory::{HeapMemory, MemoryKind};
        // 256m under mTHP 64 KiB `always`: a whole pretouch takes 4096 faults or more.
        let heap = 256 * MIB;
        let g1 = |pss: u64, rss: u64, faults: u64| {
            let mut l = launch(true, [10, 100, 25], 12_000 + faults, 30 * MIB + pss);
            l.heap_bytes = Bytes(heap);
            l.measured.heap_memory = Some(HeapMemory {
                kind: MemoryKind::Anonymous,
                page_size: Bytes(4096),
                huge: Bytes(0),
                mapped: Bytes(heap),
                resident: Bytes(pss),
                resident_mapped: Bytes(rss),
                mappings: 1,
                views: 1,
            });
            l
        };
        let mut off = launch(false, [10, 20, 25], 12_000, 30 * MIB);
        off.heap_bytes = Bytes(heap);
        let folios = Some(vec![Bytes(64 << 10)]);
        let short = 201 * MIB + MIB / 2;
        // Pss short, Rss whole: the same pages read two ways, so touched.
        let x = explain_cell(&[g1(short, heap, 10)], &[off.clone()], &folios);
        assert_eq!(x.untouched, 0, "{:?}", x.untouched_reason);
        // Both short, but the faults of a whole pretouch at 64 KiB folios: touched.
        let x = explain_cell(&[g1(short, short, 4096)], &[off.clone()], &folios);
        assert_eq!(x.expected_faults, 4096);
        assert_eq!(x.untouched, 0, "{:?}", x.untouched_reason);
        // Both short and few faults: the heap was not pretouched.
        let x = explain_cell(&[g1(short, short, 100)], &[off], &folios);
        assert_eq!(x.untouched, 1);
        assert!(x.untouched_reason.unwrap().contains("201.5 MiB"));
    }

    #[test]
    fn a_multi_mapped_heap_counts_once_in_the_touched_check_and_the_faults() {
        use crate::launch::heap_memory::{HeapMemory, MemoryKind};
        let zgc17 = |resident: u64, rss_growth: u64| {
            let mut l = launch(true, [10, 400, 25], 800_000, rss_growth);
            l.measured.heap_memory = Some(HeapMemory {
                kind: MemoryKind::SharedMemfd,
                page_size: Bytes(4096),
                huge: Bytes(0),
                mapped: Bytes(3 << 30),
                resident: Bytes(resident),
                resident_mapped: Bytes(3 * resident),
                mappings: 3,
                views: 3,
            });
            l
        };
        let off = [launch(false, [10, 20, 25], 12_000, 30 * MIB)];
        // RSS grew by the heap, but through three views: a third of the heap is resident.
        let third = [zgc17((1 << 30) / 3, 1060 * MIB)];
        let x = explain_cell(&third, &off, &Some(Vec::new()));
        assert_eq!(
            x.untouched, 1,
            "RSS over three views hid a heap touched in part"
        );
        assert!(x.untouched_reason.unwrap().contains("3 view(s)"));
        let whole = [zgc17(1 << 30, 3 * 1060 * MIB)];
        let x = explain_cell(&whole, &off, &Some(Vec::new()));
        assert_eq!(x.untouched, 0, "{:?}", x.untouched_reason);
        assert_eq!(x.expected_faults, 3 * 262_144, "a fault per page per view");
        // JDK 11 ZGC maps only what it committed: 860 MiB of 1g, all resident, is touched.
        let mut jdk11 = zgc17(860 * MIB, 3 * 860 * MIB);
        if let Some(m) = &mut jdk11.measured.heap_memory {
            m.mapped = Bytes(3 * 860 * MIB);
        }
        assert_eq!(untouched(&jdk11, None), None);
    }
}
