//! Stage 5, analysis of the profiled launches (`run --profile`): which samples belong to
//! the JVM's pretouch, which kernel functions they spend their time in (self time), the
//! same grouped into categories a kernel developer reads at a glance, estimated in ms
//! of the cell's pretouch cost, and each one's shift against the baseline label.
//!
//! Attribution of one sample (a folded stack, root to leaf):
//! - **pretouch** when a frame is `os::pretouch_memory`, `os::pd_pretouch_memory` or
//!   `PretouchTask::*` (the names in JDK 17 and 25 libjvm, G1 and Parallel; the heap's
//!   and the code cache's, metaspace's and CDS archive's pretouch alike);
//! - its **function** is the leaf: `[k] name` for the kernel (`_[k]` frames), `[.] name`
//!   for user space (the JVM writing the page itself);
//! - its **category**: walking from the leaf towards the root past lock and helper
//!   frames (`_raw_spin_*`, paravirt unlock, `__rcu_read_*`, return thunks), the first
//!   other frame's category, by name (a lock is charged to who takes it). Zeroing under a
//!   huge-page fault or populate (`do_huge_pmd_anonymous_page`, ...) is huge-page
//!   zeroing.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::analyze::report::{CellReport, Report};
use crate::features::profile::launch::{KERNEL_SUFFIX, split_folded};
use crate::features::profile::record::LabelledProfile;
use crate::stats::median;
use crate::store::CellKey;
use crate::store::extra::ExtraRecord;

/// What a kernel developer reads a pretouch profile by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Category {
    /// Clearing 4 KiB pages (`clear_page_erms`, ...).
    PageZeroing,
    /// Clearing huge pages (zeroing under a THP fault or populate).
    HugePageZeroing,
    /// Exception and syscall entry and exit, the fault handler's own code
    /// (`exc_page_fault`, `handle_mm_fault`, `do_anonymous_page`, madvise's populate).
    FaultEntryExit,
    /// The page allocator (`get_page_from_freelist`, the per-CPU lists, NUMA policy).
    PageAllocator,
    /// Memory cgroup charging and its statistics.
    MemcgCharge,
    /// LRU list batching (`folio_batch_move_lru`, ...).
    Lru,
    /// Page tables and the anon rmap (`__pte_offset_map_lock`, `set_ptes`, ...).
    PageTables,
    /// Finding and locking the VMA (`lock_vma_under_rcu`, the maple tree, mmap_lock).
    VmaLookupLocks,
    /// Huge-page handling other than zeroing.
    Thp,
    /// The shared-memory (shmem, memfd) fault and allocation path ZGC's heap takes:
    /// `do_fault`/`do_shared_fault`, `shmem_fault`, `shmem_get_folio_gfp`,
    /// `shmem_alloc_and_add_folio`, the page cache (`filemap_get_entry`, the xarray),
    /// `finish_fault`, and `fallocate`, with which ZGC commits its memfd.
    Shmem,
    /// Kernel code in none of the above (scheduler, interrupts, ...).
    OtherKernel,
    /// The JVM's own code (the pretouch loop itself), no kernel frame.
    UserSpace,
}

impl Category {
    pub const ALL: [Category; 12] = [
        Category::PageZeroing,
        Category::HugePageZeroing,
        Category::FaultEntryExit,
        Category::PageAllocator,
        Category::MemcgCharge,
        Category::Lru,
        Category::PageTables,
        Category::VmaLookupLocks,
        Category::Thp,
        Category::Shmem,
        Category::OtherKernel,
        Category::UserSpace,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Category::PageZeroing => "page zeroing",
            Category::HugePageZeroing => "huge-page zeroing",
            Category::FaultEntryExit => "fault entry/exit",
            Category::PageAllocator => "page allocator",
            Category::MemcgCharge => "memcg charge",
            Category::Lru => "LRU",
            Category::PageTables => "page tables",
            Category::VmaLookupLocks => "VMA lookup and locks",
            Category::Thp => "THP",
            Category::Shmem => "shmem fault and fallocate",
            Category::OtherKernel => "other kernel",
            Category::UserSpace => "JVM (user space)",
        }
    }
}

/// Frames that mark a sample as the JVM's pretouch.
fn is_pretouch_frame(frame: &str) -> bool {
    matches!(frame, "os::pretouch_memory" | "os::pd_pretouch_memory")
        || frame.starts_with("PretouchTask::")
}

/// Frames that mark the heap's pretouch (the GC workers' task), as against the code
/// cache's, metaspace's or the CDS archive's.
fn is_heap_pretouch_frame(frame: &str) -> bool {
    matches!(
        frame,
        "PretouchTask::work"
            | "PretouchTask::pretouch"
            | "ZPreTouchTask::work"
            | "GangWorker::loop"
            | "WorkerThread::run"
    )
}

/// The kernel function a frame names, without inferno's `_[k]`; `None` for user frames.
fn kernel_name(frame: &str) -> Option<&str> {
    frame.strip_suffix(KERNEL_SUFFIX)
}

/// Lock and helper functions whose time belongs to their caller's category.
fn is_helper(name: &str) -> bool {
    const PREFIXES: [&str; 12] = [
        "_raw_spin_",
        "_raw_read_",
        "_raw_write_",
        "__raw_callee_save___pv_queued_spin",
        "__pv_queued_spin",
        "queued_spin_lock_slowpath",
        "native_queued_spin_lock_slowpath",
        "__rcu_read_lock",
        "__rcu_read_unlock",
        "its_return_thunk",
        "__x86_return_thunk",
        "preempt_count_",
    ];
    PREFIXES.iter().any(|p| name.starts_with(p))
}

/// Functions of a huge-page fault or populate: zeroing below them is huge-page zeroing.
fn is_thp(name: &str) -> bool {
    const PREFIXES: [&str; 10] = [
        "do_huge_pmd_anonymous_page",
        "__do_huge_pmd_anonymous_page",
        "vma_alloc_anon_folio_pmd",
        "map_anon_folio_pmd",
        "thp_",
        "__thp_",
        "pgtable_trans_huge_deposit",
        "set_pmd_at",
        "prep_compound_page",
        "clear_huge_page",
    ];
    PREFIXES.iter().any(|p| name.starts_with(p))
}

/// The category of a kernel function by its name (`.isra.0`-style suffixes ignored);
/// `None` when no category claims it.
pub fn category_of(name: &str) -> Option<Category> {
    let name = name.split_once('.').map_or(name, |(n, _)| n);
    let any = |list: &[&str]| list.iter().any(|p| name.starts_with(p));
    if any(&[
        "clear_page",
        "folio_zero_user",
        "clear_user",
        "clear_subpage",
        "process_huge_page",
    ]) {
        return Some(Category::PageZeroing);
    }
    if is_thp(name) {
        return Some(Category::Thp);
    }
    if any(&[
        "asm_exc_page_fault",
        "exc_page_fault",
        "do_user_addr_fault",
        "handle_mm_fault",
        "__handle_mm_fault",
        "do_anonymous_page",
        "do_pte_missing",
        "access_error",
        "irqentry_",
        "entry_SYSCALL_64",
        "do_syscall_64",
        "syscall_exit_to_user_mode",
        "__x64_sys_madvise",
        "do_madvise",
        "madvise_",
        "faultin_page",
        "__get_user_pages",
        "populate_vma_page_range",
        "error_entry",
        "error_return",
    ]) {
        return Some(Category::FaultEntryExit);
    }
    if any(&[
        "memcg",
        "__memcg",
        "mem_cgroup",
        "__mem_cgroup",
        "get_mem_cgroup",
        "charge_memcg",
        "try_charge_memcg",
        "page_counter_",
        "mod_memcg",
        "__mod_memcg",
        "count_memcg",
        "__count_memcg",
        "obj_cgroup",
        "__folio_throttle_swaprate",
        "lruvec_stat_mod_folio",
        "__lruvec_stat_mod_folio",
        "mod_lruvec",
        "__mod_lruvec",
        "percpu_counter_add_batch",
        "refill_stock",
        "consume_stock",
    ]) {
        return Some(Category::MemcgCharge);
    }
    if any(&[
        "folio_batch_move_lru",
        "__folio_batch_add_and_move",
        "folio_batch_add_and_move",
        "folio_add_lru",
        "folio_lruvec_lock",
        "folios_put_refs",
        "lru_add",
        "lru_gen_",
        "lruvec_add_folio",
        "lru_note_cost",
    ]) {
        return Some(Category::Lru);
    }
    if any(&[
        "get_page_from_freelist",
        "__alloc_frozen_pages",
        "__alloc_pages",
        "alloc_pages",
        "vma_alloc_folio",
        "folio_alloc",
        "__folio_alloc",
        "__rmqueue",
        "rmqueue",
        "__list_del_entry_valid",
        "get_vma_policy",
        "policy_nodemask",
        "deferred_grow_zone",
        "__mod_node_page_state",
        "__mod_zone_page_state",
        "mod_node_page_state",
        "prep_new_page",
        "post_alloc_hook",
        "free_unref",
        "__free_pages",
        "free_pcppages_bulk",
        "_find_first_bit",
        "__zone_watermark_ok",
        "zone_watermark_fast",
        "expand",
        "__del_page_from_free_list",
    ]) {
        return Some(Category::PageAllocator);
    }
    if any(&[
        "__pte_offset_map",
        "___pte_offset_map",
        "pte_offset_map",
        "set_ptes",
        "native_set_pte",
        "pfn_pte",
        "pte_mkwrite",
        "pmd_val",
        "pgd_none",
        "folio_add_new_anon_rmap",
        "__folio_add_anon_rmap",
        "__folio_mod_stat",
        "__pte_alloc",
        "pte_alloc_one",
        "__pmd_alloc",
        "__pud_alloc",
        "pmd_install",
        "__anon_vma_prepare",
        "update_mmu_cache",
        "set_pte_range",
        "folio_add_file_rmap",
    ]) {
        return Some(Category::PageTables);
    }
    if any(&[
        "do_fault",
        "__do_fault",
        "do_shared_fault",
        "do_read_fault",
        "finish_fault",
        "fault_dirty_shared_page",
        "shmem_",
        "__shmem_",
        "filemap_",
        "__filemap_",
        "xas_",
        "xa_",
        "__xa_",
        "vfs_fallocate",
        "ksys_fallocate",
        "__x64_sys_fallocate",
        "file_modified",
        "file_update_time",
        "inode_needs_update_time",
        "folio_mark_dirty",
        "folio_mark_accessed",
        "__folio_mark_dirty",
        "noop_dirty_folio",
    ]) {
        return Some(Category::Shmem);
    }
    if any(&[
        "lock_vma_under_rcu",
        "vma_start_read",
        "vma_end_read",
        "vma_refcount",
        "__refcount_",
        "mas_",
        "mtree_load",
        "find_vma",
        "mmap_read_lock",
        "mmap_read_unlock",
        "mmap_read_trylock",
        "lock_mm_and_find_vma",
        "down_read",
        "up_read",
        "rwsem_",
    ]) {
        return Some(Category::VmaLookupLocks);
    }
    None
}

/// The category of one sample's stack (frames root to leaf).
fn categorize(frames: &[&str]) -> Category {
    let Some(leaf) = frames.last() else {
        return Category::OtherKernel;
    };
    if kernel_name(leaf).is_none() {
        return Category::UserSpace;
    }
    let owner = frames
        .iter()
        .rev()
        .map_while(|f| kernel_name(f))
        .find(|name| !is_helper(name));
    let category = owner.and_then(category_of).unwrap_or(Category::OtherKernel);
    let under_thp = || frames.iter().filter_map(|f| kernel_name(f)).any(is_thp);
    match category {
        Category::PageZeroing if under_thp() => Category::HugePageZeroing,
        c => c,
    }
}

/// A sample's function by self time: the leaf, `[k] name` or `[.] name`.
fn self_function(frames: &[&str]) -> String {
    match frames.last() {
        Some(leaf) => match kernel_name(leaf) {
            Some(name) => format!("[k] {name}"),
            None => format!("[.] {leaf}"),
        },
        None => "[.] [unknown]".to_owned(),
    }
}

/// The samples of one or more profiled launches, counted.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub(crate) struct Attribution {
    /// Every sample.
    pub samples: u64,
    /// Samples whose stack passes through a pretouch frame.
    pub pretouch: u64,
    /// Of those, the heap's pretouch (GC workers' pretouch task).
    pub heap_pretouch: u64,
    /// Pretouch samples by self function (`[k] name`, `[.] name`).
    pub functions: BTreeMap<String, u64>,
    /// Pretouch samples by category.
    pub categories: BTreeMap<Category, u64>,
    /// Heap pretouch samples with a page-fault entry (`exc_page_fault`) and those under
    /// `madvise` (a populate): what [`crate::features::profile::method::check_against_profile`]
    /// reads.
    pub evidence: crate::features::profile::method::ProfileEvidence,
}

impl Attribution {
    /// Counts folded lines (`root;...;leaf count`); lines that do not parse are skipped.
    pub fn add<'a>(&mut self, lines: impl IntoIterator<Item = &'a str>) {
        for line in lines {
            let Some((stack, count)) = split_folded(line) else {
                continue;
            };
            let frames: Vec<&str> = stack.split(';').collect();
            self.samples += count;
            if !frames.iter().any(|f| is_pretouch_frame(f)) {
                continue;
            }
            self.pretouch += count;
            if frames.iter().any(|f| is_heap_pretouch_frame(f)) {
                self.heap_pretouch += count;
                let kernel = || frames.iter().filter_map(|f| kernel_name(f));
                if kernel().any(|k| matches!(k, "asm_exc_page_fault" | "exc_page_fault")) {
                    self.evidence.fault_entry_samples += count;
                } else if kernel().any(|k| k.starts_with("__x64_sys_madvise") || k == "do_madvise")
                {
                    self.evidence.populate_samples += count;
                }
            }
            *self.functions.entry(self_function(&frames)).or_default() += count;
            *self.categories.entry(categorize(&frames)).or_default() += count;
        }
    }
}

/// One function's or category's part of the pretouch samples.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Share {
    pub name: String,
    /// Pretouch samples it holds, over all profiled launches of the cell.
    pub samples: u64,
    /// `samples` as % of the pretouch samples.
    pub pct: f64,
    /// `pct` x the cell's pretouch cost (timed launches), ms; absent without a cost.
    pub est_ms: Option<f64>,
}

/// Where one cell's pretouch time goes, for one label.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CellProfile {
    pub label: String,
    #[serde(flatten)]
    pub cell: CellKey,
    /// The cell as tables name it: JDK, GC, heap, variant with its axes.
    #[serde(skip)]
    pub key: [String; 4],
    /// Profiled launches with pretouch whose samples count.
    pub launches_on: usize,
    /// Profiled launches without pretouch whose samples count.
    pub launches_off: usize,
    /// Profiled launches that failed or have no samples (left out).
    pub failed: usize,
    /// Samples of the launches with pretouch; of those without.
    pub samples_on: u64,
    pub samples_off: u64,
    /// Samples of the launches with pretouch whose stack passes through pretouch frames;
    /// of those, the heap's.
    pub pretouch_samples: u64,
    pub heap_pretouch_samples: u64,
    /// Of the heap's pretouch samples, those with a fault entry and those under madvise:
    /// the cell's pretouch method is checked against them
    /// ([`crate::features::profile::method::check_against_profile`]).
    pub evidence: crate::features::profile::method::ProfileEvidence,
    /// Sampling period, ms (1000 / frequency).
    pub period_ms: f64,
    /// CPU time in pretouch frames per launch: pretouch samples / launches x period.
    pub pretouch_cpu_ms: Option<f64>,
    /// CPU time a launch with pretouch takes beyond one without: the difference of
    /// their samples per launch x period. Against `pretouch_cpu_ms`: how much of the
    /// extra time the pretouch frames account for.
    pub extra_cpu_ms: Option<f64>,
    /// The cell's pretouch cost from the timed launches, in ms. It is the median with
    /// pretouch less the median without.
    pub cost_ms: Option<f64>,
    /// Median time to main of the profiled launches with pretouch, and of the timed ones.
    pub profiled_on_ms: Option<f64>,
    pub timed_on_ms: Option<f64>,
    /// The same without pretouch.
    pub profiled_off_ms: Option<f64>,
    pub timed_off_ms: Option<f64>,
    /// By category, largest first (only those with samples).
    pub categories: Vec<Share>,
    /// By self function, largest first.
    pub functions: Vec<Share>,
    /// Every sample of the launches with pretouch, folded, equal stacks added up: what a
    /// flame graph draws.
    #[serde(skip)]
    pub stacks: Vec<String>,
    /// Each launch with pretouch on its own, those with pretouch samples only: the units
    /// whose spread tells a mover from noise.
    #[serde(skip)]
    pub(crate) per_launch: Vec<Attribution>,
}

impl CellProfile {
    /// perf's overhead on a launch with pretouch: profiled median - timed median, ms.
    pub fn overhead_on_ms(&self) -> Option<f64> {
        Some(self.profiled_on_ms? - self.timed_on_ms?)
    }

    pub fn overhead_off_ms(&self) -> Option<f64> {
        Some(self.profiled_off_ms? - self.timed_off_ms?)
    }

    /// The share of the samples of the launches with pretouch that pass through
    /// pretouch frames, in % (0 without samples).
    pub fn pretouch_share_pct(&self) -> f64 {
        100.0 * self.pretouch_samples as f64 / self.samples_on.max(1) as f64
    }
}

/// One function's or category's change against the baseline.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Shift {
    pub name: String,
    /// Estimated ms in the baseline's cost, and in this label's; 0 where it has no
    /// samples; absent without a cost.
    pub base_ms: Option<f64>,
    pub ms: Option<f64>,
    /// `ms - base_ms`.
    pub delta_ms: Option<f64>,
    /// % of the pretouch samples, baseline and label, and the change in points.
    pub base_pct: f64,
    pub pct: f64,
    pub delta_pp: f64,
    /// The mean of the launches' own shares on each side, and the interval of their
    /// change; absent where the shift was not tested (too few launches, or a function
    /// under [`TESTED_SHARE_PCT`] on both sides).
    pub interval: Option<ShiftInterval>,
    /// Whether the change exceeds what the profiled launches of each label vary: its
    /// interval leaves out 0.
    pub mover: bool,
}

/// One shift's change between the launches' mean shares, with its interval, in points.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ShiftInterval {
    /// The mean over the baseline's launches of each launch's share, %.
    pub base_pct: f64,
    /// The same over the label's launches, %.
    pub pct: f64,
    /// `pct - base_pct`, points.
    pub change_pp: f64,
    /// The interval of `change_pp`, at 95% for every tested shift of the cell together.
    pub low_pp: f64,
    pub high_pp: f64,
}

/// One cell's profile against the baseline label's.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CellShift {
    pub label: String,
    pub baseline: String,
    #[serde(flatten)]
    pub cell: CellKey,
    #[serde(skip)]
    pub key: [String; 4],
    /// Biggest shifts first (by |delta ms|, else |delta pp|).
    pub categories: Vec<Shift>,
    pub functions: Vec<Shift>,
    /// Profiled launches with pretouch samples in the baseline and in the label: the
    /// launches the intervals rest on.
    pub base_launches: usize,
    pub launches: usize,
    /// Whether both sides had [`MIN_LAUNCHES`] such launches, so that the shifts were
    /// tested; otherwise no shift is a mover.
    pub tested: bool,
}

/// Every profiled cell, and the shifts against the baseline.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProfileReport {
    pub baseline: String,
    pub cells: Vec<CellProfile>,
    pub shifts: Vec<CellShift>,
}

/// The cell key as [`CellReport::key`] writes it.
fn key_of(cell: &CellKey) -> [String; 4] {
    let mut variant = cell.variant.to_string();
    if &*cell.gc_threads != crate::matrix::GC_THREADS_AUTO {
        variant += &format!(" gc_threads={}", cell.gc_threads);
    }
    if &*cell.cpus != crate::matrix::cpuset::ALL {
        variant += &format!(" cpus={}", cell.cpus);
    }
    if let Some(app) = &cell.app {
        variant += &format!(" app={app}");
    }
    [
        cell.jdk.to_string(),
        cell.gc.to_string(),
        cell.heap.to_string(),
        variant,
    ]
}

fn shares(counts: &BTreeMap<String, u64>, total: u64, cost_ms: Option<f64>) -> Vec<Share> {
    let mut v: Vec<Share> = counts
        .iter()
        .filter(|(_, n)| **n > 0)
        .map(|(name, &samples)| {
            let share = samples as f64 / total.max(1) as f64;
            Share {
                name: name.clone(),
                samples,
                pct: 100.0 * share,
                est_ms: cost_ms.map(|c| share * c),
            }
        })
        .collect();
    v.sort_by(|a, b| b.samples.cmp(&a.samples).then(a.name.cmp(&b.name)));
    v
}

fn median_ms(values: impl Iterator<Item = f64>) -> Option<f64> {
    let mut v: Vec<f64> = values.collect();
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    median(&v)
}

/// One label's profile of one cell, from its profiled launches and its timed report row.
fn cell_profile(
    label: &str,
    cell: &CellKey,
    records: &[&crate::features::profile::record::ProfileRecord],
    timed: Option<&CellReport>,
) -> CellProfile {
    let ok: Vec<_> = records.iter().filter(|r| r.ok() && r.samples > 0).collect();
    let on: Vec<_> = ok.iter().filter(|r| r.at.pretouch).collect();
    let off: Vec<_> = ok.iter().filter(|r| !r.at.pretouch).collect();
    let mut with = Attribution::default();
    for r in &on {
        with.add(r.folded.iter().map(String::as_str));
    }
    let samples_off: u64 = off.iter().map(|r| r.samples).sum();
    let frequency = ok
        .first()
        .map_or(crate::features::profile::launch::FREQUENCY_HZ, |r| {
            r.frequency_hz
        });
    let period_ms = 1000.0 / f64::from(frequency.max(1));
    let per_launch = |samples: u64, n: usize| (n > 0).then(|| samples as f64 / n as f64);
    let cost_ms = timed.and_then(|t| t.times.pretouch_ms);
    let categories: BTreeMap<String, u64> = with
        .categories
        .iter()
        .map(|(c, n)| (c.name().to_owned(), *n))
        .collect();
    let ttm = |side: &[&&&crate::features::profile::record::ProfileRecord]| {
        median_ms(
            side.iter()
                .filter_map(|r| r.launched.time_to_main_ns)
                .map(|n| n.0 as f64 / 1e6),
        )
    };
    CellProfile {
        label: label.to_owned(),
        cell: cell.clone(),
        key: key_of(cell),
        launches_on: on.len(),
        launches_off: off.len(),
        failed: records.len() - ok.len(),
        samples_on: with.samples,
        samples_off,
        pretouch_samples: with.pretouch,
        heap_pretouch_samples: with.heap_pretouch,
        evidence: with.evidence,
        period_ms,
        pretouch_cpu_ms: per_launch(with.pretouch, on.len()).map(|s| s * period_ms),
        extra_cpu_ms: per_launch(with.samples, on.len())
            .zip(per_launch(samples_off, off.len()))
            .map(|(a, b)| (a - b) * period_ms),
        cost_ms,
        profiled_on_ms: ttm(&on),
        timed_on_ms: timed.and_then(|t| t.times.median_on_ms),
        profiled_off_ms: ttm(&off),
        timed_off_ms: timed.and_then(|t| t.times.median_off_ms),
        categories: shares(&categories, with.pretouch, cost_ms),
        functions: shares(&with.functions, with.pretouch, cost_ms),
        stacks: crate::features::profile::launch::merge_threads(
            on.iter().flat_map(|r| r.folded.iter().map(String::as_str)),
        ),
        per_launch: on
            .iter()
            .map(|r| {
                let mut one = Attribution::default();
                one.add(r.folded.iter().map(String::as_str));
                one
            })
            .filter(|a| a.pretouch > 0)
            .collect(),
    }
}

fn shift(base: &[Share], new: &[Share]) -> Vec<Shift> {
    let mut names: Vec<&str> = base.iter().chain(new).map(|s| s.name.as_str()).collect();
    names.sort_unstable();
    names.dedup();
    let both_costed = base.iter().chain(new).all(|s| s.est_ms.is_some());
    let find = |v: &[Share], name: &str| v.iter().find(|s| s.name == name).cloned();
    let mut shifts: Vec<Shift> = names
        .into_iter()
        .map(|name| {
            let b = find(base, name);
            let n = find(new, name);
            let ms = |s: &Option<Share>| {
                both_costed.then(|| s.as_ref().and_then(|s| s.est_ms).unwrap_or(0.0))
            };
            let pct = |s: &Option<Share>| s.as_ref().map_or(0.0, |s| s.pct);
            Shift {
                name: name.to_owned(),
                base_ms: ms(&b),
                ms: ms(&n),
                delta_ms: ms(&n).zip(ms(&b)).map(|(n, b)| n - b),
                base_pct: pct(&b),
                pct: pct(&n),
                delta_pp: pct(&n) - pct(&b),
                interval: None,
                mover: false,
            }
        })
        .collect();
    let size = |s: &Shift| s.delta_ms.unwrap_or(s.delta_pp).abs();
    shifts.sort_by(|a, b| size(b).total_cmp(&size(a)).then(a.name.cmp(&b.name)));
    shifts
}

/// Profiled launches with pretouch each label needs before its shifts are tested: with
/// fewer, no interval is given and no shift is called a mover.
pub const MIN_LAUNCHES: usize = crate::stats::permutation::MIN_PER_GROUP;

/// A function is tested when it holds at least this share, in %, of the pretouch
/// samples of the two labels together. Rarer functions are a sample or two a launch,
/// and testing them would only widen every other interval.
pub const TESTED_SHARE_PCT: f64 = 1.0;

/// The level of the intervals, for all tested shifts of a cell together.
pub const MOVER_LEVEL: f64 = 0.95;

/// Tests every category's shift and every common function's, against what the profiled
/// launches of each label vary: each launch's own share of each, then the max-T
/// intervals of the change of the mean shares ([`crate::stats::permutation`]), at 95%
/// for the whole list at once. Fills each tested shift's interval and whether it is a
/// mover; false, and nothing filled, with fewer than [`MIN_LAUNCHES`] launches a side.
fn test_shifts(
    base: &CellProfile,
    new: &CellProfile,
    categories: &mut [Shift],
    functions: &mut [Shift],
) -> bool {
    // Each tested shift: which list, its index there, and its name.
    struct Tested {
        category: bool,
        index: usize,
        name: String,
    }
    let count = |a: &Attribution, t: &Tested| -> u64 {
        if t.category {
            a.categories
                .iter()
                .find(|(c, _)| c.name() == t.name)
                .map_or(0, |(_, n)| *n)
        } else {
            a.functions.get(&t.name).copied().unwrap_or(0)
        }
    };
    let pooled = |t: &Tested| {
        let samples: u64 = base
            .per_launch
            .iter()
            .chain(&new.per_launch)
            .map(|a| count(a, t))
            .sum();
        samples as f64 / (base.pretouch_samples + new.pretouch_samples).max(1) as f64
    };
    let mut tested: Vec<Tested> = Vec::new();
    for (index, c) in categories.iter().enumerate() {
        tested.push(Tested {
            category: true,
            index,
            name: c.name.clone(),
        });
    }
    for (index, f) in functions.iter().enumerate() {
        let t = Tested {
            category: false,
            index,
            name: f.name.clone(),
        };
        if 100.0 * pooled(&t) >= TESTED_SHARE_PCT {
            tested.push(t);
        }
    }
    let rows = |launches: &[Attribution]| -> Vec<Vec<f64>> {
        launches
            .iter()
            .map(|a| {
                tested
                    .iter()
                    .map(|t| 100.0 * count(a, t) as f64 / a.pretouch as f64)
                    .collect()
            })
            .collect()
    };
    // The least variance of a launch's share in points squared: a count's own binomial
    // noise at the pooled share, over the mean pretouch samples of a launch.
    let units = (base.per_launch.len() + new.per_launch.len()).max(1);
    let mean_samples = (base.pretouch_samples + new.pretouch_samples) as f64 / units as f64;
    let floors: Vec<f64> = tested
        .iter()
        .map(|t| {
            let p = pooled(t);
            1e4 * p * (1.0 - p) / mean_samples.max(1.0)
        })
        .collect();
    let Some(result) = crate::stats::permutation::max_t_intervals(
        &rows(&base.per_launch),
        &rows(&new.per_launch),
        &floors,
        MOVER_LEVEL,
    ) else {
        return false;
    };
    for (t, d) in tested.iter().zip(&result.differences) {
        let shift = if t.category {
            &mut categories[t.index]
        } else {
            &mut functions[t.index]
        };
        shift.interval = Some(ShiftInterval {
            base_pct: d.mean_x,
            pct: d.mean_y,
            change_pp: d.estimate,
            low_pp: d.low,
            high_pp: d.high,
        });
        shift.mover = d.marked;
    }
    true
}

/// Whether a folded stack (frames root to leaf, without its count) belongs to a mover
/// of `shift`: it passes through pretouch frames, and its leaf function or its
/// category is a mover. The differential flame graph colours only these.
pub fn stack_of_mover(stack: &str, shift: &CellShift) -> bool {
    let frames: Vec<&str> = stack.split(';').collect();
    if !frames.iter().any(|f| is_pretouch_frame(f)) {
        return false;
    }
    let function = self_function(&frames);
    let category = categorize(&frames).name();
    shift
        .functions
        .iter()
        .any(|f| f.mover && f.name == function)
        || shift
            .categories
            .iter()
            .any(|c| c.mover && c.name == category)
}

/// One cell's shifts from the baseline's profile `b` to the label's `c`, tested against
/// the launches' noise; `None` when either side has no pretouch sample.
fn cell_shift(b: &CellProfile, c: &CellProfile) -> Option<CellShift> {
    if b.pretouch_samples == 0 || c.pretouch_samples == 0 {
        return None;
    }
    let mut s = CellShift {
        label: c.label.clone(),
        baseline: b.label.clone(),
        cell: c.cell.clone(),
        key: c.key.clone(),
        categories: shift(&b.categories, &c.categories),
        functions: shift(&b.functions, &c.functions),
        base_launches: b.per_launch.len(),
        launches: c.per_launch.len(),
        tested: false,
    };
    s.tested = test_shifts(b, c, &mut s.categories, &mut s.functions);
    Some(s)
}

/// The profile report: every (label, cell) with profiled launches, in the order of
/// `labels` then of the cells' first profiled launch; the shifts of every other label
/// against `baseline`, for the cells both have.
pub fn build(
    report: &Report,
    profiles: &[LabelledProfile],
    labels: &[String],
    baseline: &str,
) -> ProfileReport {
    let mut groups: Vec<(
        (String, CellKey),
        Vec<&crate::features::profile::record::ProfileRecord>,
    )> = Vec::new();
    for p in profiles {
        if !labels.contains(&p.label) {
            continue;
        }
        let id = (p.label.clone(), p.record.at.cell.clone());
        match groups.iter_mut().find(|(k, _)| *k == id) {
            Some((_, v)) => v.push(&p.record),
            None => groups.push((id, vec![&p.record])),
        }
    }
    groups.sort_by_key(|((label, _), _)| labels.iter().position(|l| l == label));
    let cells: Vec<CellProfile> = groups
        .iter()
        .map(|((label, cell), records)| {
            let key = key_of(cell);
            let timed = report
                .cells
                .iter()
                .find(|c| &c.id.label == label && c.key() == key);
            cell_profile(label, cell, records, timed)
        })
        .collect();
    let mut shifts = Vec::new();
    for c in cells.iter().filter(|c| c.label != baseline) {
        let Some(b) = cells.iter().find(|b| b.label == baseline && b.key == c.key) else {
            continue;
        };
        shifts.extend(cell_shift(b, c));
    }
    ProfileReport {
        baseline: baseline.to_owned(),
        cells,
        shifts,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames(s: &str) -> Vec<&str> {
        s.split(';').collect()
    }

    /// A 4 KiB pretouch fault under a GC worker, JDK 17's frame-pointer shape.
    const FAULT: &str = "GC_Thread;start_thread;thread_native_entry;Thread::call_run;[libjvm.so];GangWorker::loop;os::pretouch_memory;asm_exc_page_fault_[k];exc_page_fault_[k];handle_mm_fault_[k];__handle_mm_fault_[k];do_anonymous_page_[k]";

    #[test]
    fn zeroing_is_zeroing_and_under_a_huge_page_fault_huge_page_zeroing() {
        let small =
            format!("{FAULT};vma_alloc_folio_noprof_[k];folio_zero_user_[k];clear_page_erms_[k]");
        assert_eq!(categorize(&frames(&small)), Category::PageZeroing);
        // JDK 25 with THP: madvise(MADV_POPULATE_WRITE), no fault entry.
        let huge = "GC_Thread;WorkerThread::run;PretouchTask::work;os::pretouch_memory;__madvise;entry_SYSCALL_64_after_hwframe_[k];do_syscall_64_[k];__x64_sys_madvise_[k];do_madvise_[k];madvise_do_behavior_[k];faultin_page_range_[k];__get_user_pages_[k];handle_mm_fault_[k];__handle_mm_fault_[k];do_huge_pmd_anonymous_page_[k];vma_alloc_anon_folio_pmd_[k];folio_zero_user_[k];clear_page_erms_[k]";
        assert_eq!(categorize(&frames(huge)), Category::HugePageZeroing);
        assert_eq!(self_function(&frames(huge)), "[k] clear_page_erms");
        // The THP path's own code is THP, its syscall entry fault entry/exit.
        let thp_own = "x;os::pretouch_memory;do_huge_pmd_anonymous_page_[k]";
        assert_eq!(categorize(&frames(thp_own)), Category::Thp);
        let entry = "x;os::pretouch_memory;entry_SYSCALL_64_after_hwframe_[k];do_syscall_64_[k]";
        assert_eq!(categorize(&frames(entry)), Category::FaultEntryExit);
    }

    #[test]
    fn zgcs_shared_memory_fault_and_fallocate_are_their_own_category() {
        // JDK 17 ZGC 512m, `perf record -e cpu-clock -g` here (2026-12-01).
        let zgc = "ZWorker;start_thread;thread_native_entry;Thread::call_run;[libjvm.so];GangWorker::loop;ZTask::GangTask::work;ZPreTouchTask::work;os::pretouch_memory;asm_exc_page_fault_[k];exc_page_fault_[k];handle_mm_fault_[k];__handle_mm_fault_[k];do_fault_[k];__do_fault_[k];shmem_fault_[k];shmem_get_folio_gfp_[k]";
        assert_eq!(categorize(&frames(zgc)), Category::Shmem);
        let alloc = format!("{zgc};shmem_alloc_and_add_folio_[k];filemap_get_entry_[k]");
        assert_eq!(categorize(&frames(&alloc)), Category::Shmem);
        // Zeroing stays zeroing, the allocator the allocator, under the shmem path.
        let zero = format!("{zgc};shmem_alloc_and_add_folio_[k];clear_page_erms_[k]");
        assert_eq!(categorize(&frames(&zero)), Category::PageZeroing);
        let fallocate = "java;ZPhysicalMemoryBacking::fallocate_fill_hole;syscall;entry_SYSCALL_64_after_hwframe_[k];do_syscall_64_[k];__x64_sys_fallocate_[k];vfs_fallocate_[k];shmem_fallocate_[k]";
        assert_eq!(categorize(&frames(fallocate)), Category::Shmem);
        assert_eq!(category_of("finish_fault"), Some(Category::Shmem));
        let mut a = Attribution::default();
        a.add([format!("{zgc} 8").as_str()]);
        assert_eq!((a.pretouch, a.heap_pretouch), (8, 8));
        assert_eq!(a.evidence.fault_entry_samples, 8);
    }

    #[test]
    fn a_populate_is_told_from_a_fault_by_its_frames() {
        let populate = "GC_Thread;WorkerThread::run;PretouchTask::work;os::pretouch_memory;__madvise;entry_SYSCALL_64_after_hwframe_[k];do_syscall_64_[k];__x64_sys_madvise_[k];do_madvise_[k];clear_page_erms_[k] 5";
        let mut a = Attribution::default();
        a.add([populate, format!("{FAULT} 1").as_str()]);
        assert_eq!(a.evidence.populate_samples, 5);
        assert_eq!(a.evidence.fault_entry_samples, 1);
    }

    #[test]
    fn a_lock_is_charged_to_the_function_that_takes_it() {
        let pte = format!("{FAULT};__pte_offset_map_lock_[k];_raw_spin_lock_[k]");
        assert_eq!(categorize(&frames(&pte)), Category::PageTables);
        assert_eq!(self_function(&frames(&pte)), "[k] _raw_spin_lock");
        let lru = format!(
            "{FAULT};folio_add_lru_vma_[k];__folio_batch_add_and_move_[k];folio_batch_move_lru_[k];_raw_spin_unlock_irqrestore_[k]"
        );
        assert_eq!(categorize(&frames(&lru)), Category::Lru);
        let pcp = format!(
            "{FAULT};alloc_pages_mpol_[k];get_page_from_freelist_[k];__rmqueue_pcplist_[k];__raw_callee_save___pv_queued_spin_unlock_[k];its_return_thunk_[k]"
        );
        assert_eq!(categorize(&frames(&pcp)), Category::PageAllocator);
        let memcg = format!(
            "{FAULT};__mem_cgroup_charge_[k];get_mem_cgroup_from_mm_[k];__rcu_read_lock_[k]"
        );
        assert_eq!(categorize(&frames(&memcg)), Category::MemcgCharge);
        let vma = "x;os::pretouch_memory;asm_exc_page_fault_[k];exc_page_fault_[k];lock_vma_under_rcu_[k];mas_walk_[k]";
        assert_eq!(categorize(&frames(vma)), Category::VmaLookupLocks);
        // Suffixes of clones do not hide a name.
        assert_eq!(
            category_of("lruvec_stat_mod_folio.constprop.0"),
            Some(Category::MemcgCharge)
        );
        assert_eq!(category_of("finish_task_switch.isra.0"), None);
        let sched = format!("{FAULT};finish_task_switch.isra.0_[k]");
        assert_eq!(categorize(&frames(&sched)), Category::OtherKernel);
        // Only helpers up to user space: nobody to charge.
        assert_eq!(
            categorize(&frames("x;os::pretouch_memory;_raw_spin_lock_[k]")),
            Category::OtherKernel
        );
        // The JVM's own loop writing the page.
        assert_eq!(
            categorize(&frames("GC_Thread;GangWorker::loop;os::pretouch_memory")),
            Category::UserSpace
        );
        assert_eq!(
            self_function(&frames("GC_Thread;GangWorker::loop;os::pretouch_memory")),
            "[.] os::pretouch_memory"
        );
    }

    #[test]
    fn only_stacks_through_pretouch_frames_are_attributed() {
        let zero = format!("{FAULT};clear_page_erms_[k] 6");
        let lock = format!("{FAULT};__pte_offset_map_lock_[k];_raw_spin_lock_[k] 3");
        let lines = [
            zero.as_str(),
            lock.as_str(),
            // Code cache pretouch on the main thread: pretouch, not the heap's.
            "java;init_globals;CodeCache::initialize;CodeHeap::reserve;os::pretouch_memory;asm_exc_page_fault_[k];exc_page_fault_[k] 1",
            // Class loading: startup, not pretouch.
            "java;JavaMain;ClassLoader::load_class;asm_exc_page_fault_[k];clear_page_erms_[k] 4",
            "C2_CompilerThre;Compile::Compile 2",
            "garbage",
        ];
        let mut a = Attribution::default();
        a.add(lines);
        assert_eq!(a.samples, 16);
        assert_eq!(a.pretouch, 10);
        assert_eq!(a.heap_pretouch, 9);
        assert_eq!(a.functions["[k] clear_page_erms"], 6);
        assert_eq!(a.functions["[k] _raw_spin_lock"], 3);
        assert_eq!(a.functions["[k] exc_page_fault"], 1);
        assert_eq!(a.categories[&Category::PageZeroing], 6);
        assert_eq!(a.categories[&Category::PageTables], 3);
        assert_eq!(a.categories[&Category::FaultEntryExit], 1);
        assert_eq!(a.categories.values().sum::<u64>(), a.pretouch);
    }

    fn record(
        pretouch: bool,
        ttm_ms: u64,
        folded: &[&str],
    ) -> crate::features::profile::record::ProfileRecord {
        let folded: Vec<String> = folded.iter().map(|s| (*s).to_owned()).collect();
        crate::features::profile::record::ProfileRecord {
            at: crate::store::PlannedAs {
                seq: 0,
                round: 0,
                cell: CellKey {
                    jdk: "17".into(),
                    gc: crate::matrix::Gc::G1,
                    heap: "1g".into(),
                    variant: "default".into(),
                    gc_threads: "auto".into(),
                    cpus: "all".into(),
                    app: None,
                    features: Default::default(),
                },
                pretouch,
            },
            launched: crate::store::Launched {
                command: Vec::new(),
                started_at: String::new(),
                time_to_main_ns: Some(crate::units::Nanos(ttm_ms * 1_000_000)),
                failure: None,
            },
            wall_ns: crate::units::Nanos(0),
            event: "cpu-clock".into(),
            frequency_hz: 1000,
            call_graph: "fp".into(),
            samples: crate::features::profile::launch::folded_samples(&folded),
            folded,
            perf_data: None,
        }
    }

    #[test]
    fn shares_and_estimates_add_up_to_the_cost() {
        let zero = format!("{FAULT};clear_page_erms_[k] 300");
        let fault = format!("{FAULT} 60");
        let lock = format!("{FAULT};__pte_offset_map_lock_[k];_raw_spin_lock_[k] 40");
        let on1 = record(true, 500, &[&zero, &fault, "java;JavaMain 50"]);
        let on2 = record(true, 520, &[&lock, "java;JavaMain 50"]);
        let off = record(false, 60, &["java;JavaMain 40"]);
        let mut failed = record(true, 1, &[]);
        failed.launched.failure = Some("x".into());
        let p = cell_profile(
            "a",
            &on1.at.cell.clone(),
            &[&on1, &on2, &off, &failed],
            None,
        );
        assert_eq!((p.launches_on, p.launches_off, p.failed), (2, 1, 1));
        assert_eq!(
            (p.samples_on, p.pretouch_samples, p.samples_off),
            (500, 400, 40)
        );
        assert_eq!(p.pretouch_share_pct(), 80.0);
        // 400 pretouch samples over 2 launches at 1 ms: 200 ms; extra: 250 - 40 = 210.
        assert!((p.pretouch_cpu_ms.unwrap() - 200.0).abs() < 1e-9);
        assert!((p.extra_cpu_ms.unwrap() - 210.0).abs() < 1e-9);
        assert_eq!(p.profiled_on_ms, Some(510.0));
        assert_eq!(p.categories[0].name, "page zeroing");
        assert!((p.categories[0].pct - 75.0).abs() < 1e-9);
        assert_eq!(p.functions[0].name, "[k] clear_page_erms");
        assert_eq!(p.categories[0].est_ms, None, "no timed cost, no estimate");
        // With a cost, the estimates split it.
        let timed = CellReport {
            times: crate::analyze::report::CellTimes {
                pretouch_ms: Some(200.0),
                ..Default::default()
            },
            ..CellReport::default()
        };
        let p = cell_profile("a", &on1.at.cell.clone(), &[&on1, &on2, &off], Some(&timed));
        let sum: f64 = p.categories.iter().filter_map(|s| s.est_ms).sum();
        assert!((sum - 200.0).abs() < 1e-9);
        assert!((p.categories[0].est_ms.unwrap() - 150.0).abs() < 1e-9);
    }

    fn share(name: &str, pct: f64, cost: f64) -> Share {
        Share {
            name: name.into(),
            samples: pct as u64,
            pct,
            est_ms: Some(pct / 100.0 * cost),
        }
    }

    #[test]
    fn shifts_put_the_biggest_movers_first() {
        let base = [
            share("page zeroing", 75.0, 200.0),
            share("page tables", 25.0, 200.0),
        ];
        let new = [
            share("page zeroing", 50.0, 100.0),
            share("fault entry/exit", 50.0, 100.0),
        ];
        let s = shift(&base, &new);
        let got: Vec<(&str, f64, f64)> = s
            .iter()
            .map(|s| (s.name.as_str(), s.delta_ms.unwrap(), s.delta_pp))
            .collect();
        assert_eq!(
            got,
            [
                ("page zeroing", -100.0, -25.0),
                ("fault entry/exit", 50.0, 50.0),
                ("page tables", -50.0, -25.0),
            ]
        );
        // A side without a cost: points only, no ms.
        let uncosted = [Share {
            est_ms: None,
            ..share("page zeroing", 100.0, 0.0)
        }];
        let s = shift(&base, &uncosted);
        assert!(s.iter().all(|s| s.delta_ms.is_none()));
        assert_eq!(s[0].name, "page tables");
        assert_eq!(s[0].delta_pp, -25.0);
    }

    /// A huge-page fault's zeroing, JDK 17 with THP.
    const HUGE: &str = "GC_Thread;start_thread;GangWorker::loop;os::pretouch_memory;asm_exc_page_fault_[k];exc_page_fault_[k];handle_mm_fault_[k];__handle_mm_fault_[k];do_huge_pmd_anonymous_page_[k];vma_alloc_anon_folio_pmd_[k];folio_zero_user_[k];clear_page_erms_[k]";

    /// One profiled launch with pretouch: samples of 4 KiB zeroing, of huge-page
    /// zeroing, of the fault handler's own code and of the page-table lock.
    fn launch(
        zero: u64,
        huge: u64,
        fault: u64,
        tables: u64,
    ) -> crate::features::profile::record::ProfileRecord {
        let lines = [
            format!("{FAULT};clear_page_erms_[k] {zero}"),
            format!("{HUGE} {huge}"),
            format!("{FAULT} {fault}"),
            format!("{FAULT};__pte_offset_map_lock_[k];_raw_spin_lock_[k] {tables}"),
            "java;JavaMain 50".to_owned(),
        ];
        let lines: Vec<&str> = lines
            .iter()
            .map(String::as_str)
            .filter(|l| !l.ends_with(" 0"))
            .collect();
        record(true, 500, &lines)
    }

    fn compare(
        base: &[crate::features::profile::record::ProfileRecord],
        new: &[crate::features::profile::record::ProfileRecord],
    ) -> CellShift {
        let cell = base[0].at.cell.clone();
        let profile = |label: &str, records: &[crate::features::profile::record::ProfileRecord]| {
            let refs: Vec<&crate::features::profile::record::ProfileRecord> =
                records.iter().collect();
            cell_profile(label, &cell, &refs, None)
        };
        cell_shift(&profile("a", base), &profile("b", new)).unwrap()
    }

    /// Five launches a side whose shares wander by several points from launch to
    /// launch, as they do on a shared VM.
    fn noisy_a() -> Vec<crate::features::profile::record::ProfileRecord> {
        [
            (260, 70, 40),
            (340, 45, 30),
            (300, 60, 55),
            (280, 80, 35),
            (330, 50, 45),
        ]
        .iter()
        .map(|&(z, f, t)| launch(z, 0, f, t))
        .collect()
    }

    fn movers(s: &CellShift) -> Vec<&str> {
        s.categories
            .iter()
            .chain(&s.functions)
            .filter(|x| x.mover)
            .map(|x| x.name.as_str())
            .collect()
    }

    #[test]
    fn a_noisy_a_a_comparison_names_no_mover() {
        let b: Vec<_> = [
            (320, 50, 50),
            (270, 75, 35),
            (350, 55, 30),
            (290, 65, 45),
            (310, 70, 40),
        ]
        .iter()
        .map(|&(z, f, t)| launch(z, 0, f, t))
        .collect();
        let s = compare(&noisy_a(), &b);
        assert!(s.tested);
        assert_eq!((s.base_launches, s.launches), (5, 5));
        // The launches are noisy: one launch's share of zeroing against another's
        // differs by more than 8 points, so a plain threshold of a few points between
        // two single launches would have called it a mover.
        let zeroing = |z: f64, f: f64, t: f64| 100.0 * z / (z + f + t);
        assert!(zeroing(340.0, 45.0, 30.0) - zeroing(260.0, 70.0, 40.0) > 8.0);
        assert!(movers(&s).is_empty(), "{:?}", movers(&s));
        // Every category and every common function was tested, each interval holds 0.
        for x in s.categories.iter().chain(&s.functions) {
            let i = x.interval.expect("tested");
            assert!(i.low_pp < 0.0 && i.high_pp > 0.0, "{}: {i:?}", x.name);
            assert!(i.low_pp <= i.change_pp && i.change_pp <= i.high_pp);
        }
    }

    #[test]
    fn half_the_zeroing_gone_to_huge_pages_is_named_and_the_rest_is_not() {
        let b: Vec<_> = [
            (150, 160, 50, 50),
            (170, 150, 75, 35),
            (140, 170, 55, 30),
            (160, 140, 65, 45),
            (155, 150, 70, 40),
        ]
        .iter()
        .map(|&(z, h, f, t)| launch(z, h, f, t))
        .collect();
        let s = compare(&noisy_a(), &b);
        assert!(s.tested);
        let mut named = movers(&s);
        named.sort_unstable();
        assert_eq!(named, ["huge-page zeroing", "page zeroing"]);
        let huge = s
            .categories
            .iter()
            .find(|x| x.name == "huge-page zeroing")
            .unwrap();
        let i = huge.interval.unwrap();
        // From none to about 37% of a launch's pretouch samples.
        assert_eq!(i.base_pct, 0.0);
        assert!(i.low_pp > 0.0 && i.low_pp < i.change_pp && i.change_pp < i.high_pp);
        assert!((30.0..45.0).contains(&i.change_pp), "{i:?}");
        // The same leaf zeroes both page sizes, so the function did not move.
        let leaf = s
            .functions
            .iter()
            .find(|x| x.name == "[k] clear_page_erms")
            .unwrap();
        assert!(!leaf.mover);
    }

    #[test]
    fn too_few_launches_give_no_interval_and_no_mover() {
        let a = noisy_a();
        let b: Vec<_> = [(0, 300, 5, 5), (0, 310, 4, 6), (0, 290, 6, 4)]
            .iter()
            .map(|&(z, h, f, t)| launch(z, h, f, t))
            .collect();
        let s = compare(&a[..MIN_LAUNCHES - 1], &b);
        assert!(!s.tested);
        assert_eq!((s.base_launches, s.launches), (3, 3));
        // The change is plain to see, and still nothing is called a mover.
        assert!(s.categories.iter().any(|x| x.delta_pp.abs() > 50.0));
        assert!(movers(&s).is_empty());
        assert!(s.categories.iter().all(|x| x.interval.is_none()));
        // One launch more on each side and the same change is tested and named.
        let b4: Vec<_> = b.iter().chain(&b[..1]).cloned().collect();
        let s = compare(&a[..MIN_LAUNCHES], &b4);
        assert!(s.tested);
        assert!(movers(&s).contains(&"huge-page zeroing"));
    }
}
