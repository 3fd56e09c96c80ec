//! Stage 2, the machine: `pretouch calibrate`, the machine's ceiling for anonymous write
//! faults, the number a cell's pretouch fault rate is read against.
//!
//! The shape of the microbenchmark the reference measurement quotes: threads write one
//! byte in each 4 KiB page of one shared anonymous mapping, each thread its own slice,
//! and the mapping is zapped with `MADV_DONTNEED` between passes (untimed), so every pass
//! takes every fault again. Two controls: one mapping per thread (no shared VMA), and
//! processes (no shared mm). The mappings are `MADV_NOHUGEPAGE`, so that 4 KiB faults are
//! measured whatever the system's THP mode (which is never changed). A pass's rate is the
//! pages faulted over its wall time, from the release of all workers to the last one
//! done: faults per wall-second, as pft reports. The kernel's own count of the faults
//! (getrusage) is kept beside it, to show that each page really faulted once.
//!
//! Three variants ([`Variant`]): `zap` (the above), `pft` (a fresh mapping every pass,
//! never zapped, as pft does: the old one is unmapped after the pass, untimed) and `huge`
//! (the zap loop on a `MADV_HUGEPAGE` mapping, 2 MiB aligned, each worker's slice whole
//! huge pages: 2 MiB faults when THP allows them, else 4 KiB ones). Workers run
//! unpinned (`--threads N`) or pinned one per CPU of a set (`--cpus`, a CPU list or a
//! topology spec such as `1 L3 domain, 7 CPUs`); the set's CPUs and domains are recorded.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Barrier};

use serde::{Deserialize, Serialize};

use crate::machine::env::Environment;
use crate::machine::topology::Placement;
use crate::stats::{Summary, summarize};
use crate::units::{Bytes, Nanos};

/// How the workers share memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum Layout {
    /// Threads of one process sharing one mapping, a slice each, as a JVM does.
    Shared,
    /// Threads of one process with one mapping each.
    PerThread,
    /// Processes with one mapping each.
    Processes,
}

impl std::fmt::Display for Layout {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Layout::Shared => "shared",
            Layout::PerThread => "per-thread",
            Layout::Processes => "processes",
        })
    }
}

/// What each pass does to the memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum Variant {
    /// One mapping without huge pages, emptied with MADV_DONTNEED between passes. The
    /// reference series measured this.
    #[default]
    Zap,
    /// A fresh mapping without huge pages for every pass, as the pft benchmark does.
    Pft,
    /// The zap loop on a mapping with MADV_HUGEPAGE. It is the ceiling of a JVM run with
    /// -XX:+UseTransparentHugePages.
    Huge,
}

impl Variant {
    fn is_zap(&self) -> bool {
        *self == Variant::Zap
    }
}

impl std::fmt::Display for Variant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Variant::Zap => "zap",
            Variant::Pft => "pft",
            Variant::Huge => "huge",
        })
    }
}

/// One configuration to measure.
#[derive(Debug, Clone, PartialEq)]
pub struct Setup {
    pub variant: Variant,
    pub layout: Layout,
    /// Threads or processes; with `placement`, one per CPU of it.
    pub workers: usize,
    /// The CPUs the workers are pinned to, one each; `None`: unpinned.
    pub placement: Option<Placement>,
}

impl Setup {
    /// Unpinned workers, the zap loop.
    pub fn threads(layout: Layout, workers: usize) -> Setup {
        Setup {
            variant: Variant::Zap,
            layout,
            workers,
            placement: None,
        }
    }
}

/// One configuration measured.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConfigResult {
    /// How the workers share memory.
    pub layout: Layout,
    /// Threads or processes faulting at once.
    pub workers: usize,
    /// Faults per second of wall time, one per counted pass, in pass order.
    pub faults_per_s: Vec<f64>,
    /// Pages each pass writes (mapping size / page size).
    pub pages: u64,
    /// Minor faults the kernel counted for the counted passes, divided by their number
    /// (getrusage; about `pages` when every page faulted once).
    pub faults_per_pass: u64,
    /// What each pass did to the memory; absent (zap) in files written before variants.
    #[serde(default, skip_serializing_if = "Variant::is_zap")]
    pub variant: Variant,
    /// The CPUs the workers were pinned to, one each, and their domains; absent for
    /// unpinned workers (`--threads`) and in files written before it existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub placement: Option<Placement>,
    /// The workers' CPU time (user and system) over their own time in the counted
    /// passes, summed over workers: 1.0 when each had a CPU all along; lower when other
    /// work, or the VM host (steal), took it. Absent in files written before it existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_share: Option<f64>,
}

impl ConfigResult {
    pub fn summary(&self) -> Option<Summary> {
        summarize(&self.faults_per_s)
    }

    /// Bytes the kernel mapped per fault: the pages written over the faults it counted
    /// (4 KiB, or about 2 MiB with huge pages).
    pub fn fault_bytes(&self, page: Bytes) -> Option<f64> {
        (self.faults_per_pass > 0)
            .then(|| (self.pages * page.0) as f64 / self.faults_per_pass as f64)
    }

    /// The kernel's faults per wall-second: the median rate of pages written, scaled by
    /// the faults the kernel counted per page (the same as that rate for 4 KiB faults).
    pub fn kernel_faults_per_s(&self) -> Option<f64> {
        let median = self.summary()?.median;
        (self.pages > 0).then(|| median * self.faults_per_pass as f64 / self.pages as f64)
    }

    /// The CPUs as a row names them: the set asked for, or `N threads` (unpinned).
    pub fn cpus_name(&self) -> String {
        match &self.placement {
            Some(p) => p.set.clone(),
            None => format!(
                "{} {}",
                self.workers,
                match (self.layout, self.workers) {
                    (Layout::Processes, 1) => "process",
                    (Layout::Processes, _) => "processes",
                    (_, 1) => "thread",
                    _ => "threads",
                }
            ),
        }
    }

    /// The test as a row names it: `zap`, `pft`, `huge`, with the layout unless shared.
    pub fn test_name(&self) -> String {
        match self.layout {
            Layout::Shared => self.variant.to_string(),
            layout => format!("{} {layout}", self.variant),
        }
    }
}

/// A calibration file: `results/<label>/calibrate-<UTC>.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Calibration {
    /// Always `"calibrate"`: tells this file from others.
    pub record: String,
    /// The label the results of this kernel are filed under (`uname -r` by default).
    pub label: String,
    /// UTC wall-clock time at the start, RFC 3339.
    pub started_at: String,
    /// The machine and kernel it ran on.
    pub env: Environment,
    /// Total mapping size per configuration, split between the workers.
    pub size: Bytes,
    /// The page size faulted.
    pub page_size: Bytes,
    /// Counted passes per configuration and round (after one uncounted warm-up pass).
    pub passes: u32,
    /// Rounds: every configuration was measured this many times, the configurations
    /// interleaved (round 1 in order, round 2 in reverse, ...), each time `passes`
    /// counted passes. A configuration's `faults_per_s` holds round 1's passes, then
    /// round 2's, .... 1 in files written before rounds existed.
    #[serde(default = "one_round")]
    pub rounds: u32,
    /// One entry per configuration, in the order of the first round.
    pub results: Vec<ConfigResult>,
    /// The machine's CPU topology in one line (`1 socket, 1 NUMA node, 1 L3 domain, ...`);
    /// absent in files written before it was recorded, or when sysfs could not be read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub topology: Option<String>,
    /// Free page reporting during the calibration; absent in files written before it was
    /// recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory: Option<MemoryDuring>,
}

fn one_round() -> u32 {
    1
}

/// What the guest did with free memory while it calibrated. With free page reporting
/// on, memory freed between passes and rounds can go back to the host, and the next pass
/// pays the host's faults too: the rates then measure the host as much as the kernel.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemoryDuring {
    /// Free page reporting at the start, in words (`on (...)`, `offered but idle: ...`,
    /// `no balloon device`).
    pub reporting: String,
    /// Free page reporting was on at the start (before `--comparable-memory` stopped it).
    #[serde(default)]
    pub reporting_on: bool,
    /// `--comparable-memory`: `page_reporting_order` before the calibration and the
    /// value it ran with (nothing reported); restored afterwards.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped: Option<[u32; 2]>,
    /// KiB the guest reported to the host during the calibration, where the kernel counts
    /// it (`page_reporting/reported_kib`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reported_kib: Option<u64>,
}

impl MemoryDuring {
    /// Memory may have gone to the host during the calibration: reporting was on, and
    /// either the kernel counted some or it cannot say.
    pub fn host_may_have_faulted(&self) -> bool {
        self.stopped.is_none() && self.reporting_on && self.reported_kib.is_none_or(|k| k > 0)
    }
}

impl Calibration {
    /// A configuration's passes, round by round.
    pub fn rounds_of<'a>(&self, r: &'a ConfigResult) -> Vec<&'a [f64]> {
        r.faults_per_s
            .chunks(usize::try_from(self.passes.max(1)).unwrap_or(usize::MAX))
            .collect()
    }

    /// A configuration's median rate per round, in round order.
    pub fn round_medians(&self, r: &ConfigResult) -> Vec<f64> {
        self.rounds_of(r)
            .into_iter()
            .filter_map(crate::stats::median)
            .collect()
    }

    /// The lowest and highest of a configuration's round medians; `None` without rounds.
    pub fn round_median_range(&self, r: &ConfigResult) -> Option<(f64, f64)> {
        let medians = self.round_medians(r);
        let low = medians.iter().copied().reduce(f64::min)?;
        let high = medians.iter().copied().reduce(f64::max)?;
        Some((low, high))
    }

    /// The ceiling: the best median rate of the shared-mapping zap configurations (the
    /// JVM's shape, 4 KiB pages), with the configuration that reached it.
    pub fn ceiling(&self) -> Option<(f64, &ConfigResult)> {
        self.results
            .iter()
            .filter(|r| r.layout == Layout::Shared && r.variant == Variant::Zap)
            .filter_map(|r| Some((r.summary()?.median, r)))
            .max_by(|a, b| a.0.total_cmp(&b.0))
    }
}

#[derive(Debug, thiserror::Error)]
pub enum CalibrateError {
    #[error("--size {size} is smaller than one page per worker ({workers} workers)")]
    TooSmall { size: Bytes, workers: usize },
    #[error("{what} failed")]
    Sys {
        what: &'static str,
        #[source]
        source: std::io::Error,
    },
}

fn sys(what: &'static str) -> CalibrateError {
    CalibrateError::Sys {
        what,
        source: std::io::Error::last_os_error(),
    }
}

pub fn page_size() -> u64 {
    // SAFETY: sysconf has no preconditions.
    let p = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if p > 0 { p as u64 } else { 4096 }
}

/// CPU time (user and system) of the calling thread, ns.
fn thread_cpu_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// What the counted passes gave: their wall times, the faults the kernel counted, and
/// the workers' CPU time over their own time in the passes (summed over workers).
#[derive(Clone)]
struct Counts {
    times: Vec<Nanos>,
    faults: u64,
    cpu_ns: u64,
    busy_ns: u64,
}

/// Minor faults of this thread (RUSAGE_THREAD) or process (RUSAGE_SELF).
fn minflt(who: libc::c_int) -> u64 {
    // SAFETY: rusage is plain old data; all-zero is valid and getrusage fills it.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `ru` is valid and writable; `who` is RUSAGE_THREAD or RUSAGE_SELF.
    unsafe { libc::getrusage(who, &mut ru) };
    ru.ru_minflt as u64
}

/// An anonymous private mapping, unmapped on drop.
struct Mapping {
    ptr: *mut u8,
    len: usize,
}

// SAFETY: the mapping is plain memory; the workers write disjoint pages of it, and only
// between barriers that order those writes against the zap.
unsafe impl Send for Mapping {}
// SAFETY: as above.
unsafe impl Sync for Mapping {}

/// The huge page size THP maps (x86-64, arm64 with 4 KiB pages).
pub const HUGE_PAGE: u64 = 2 << 20;

impl Mapping {
    /// A mapping of `len` bytes: `MADV_NOHUGEPAGE` (4 KiB faults whatever the system's
    /// THP mode, which is never touched), or with `huge`, `MADV_HUGEPAGE` and aligned to
    /// [`HUGE_PAGE`] so that every whole 2 MiB of it can be one huge page.
    fn new(len: usize, huge: bool) -> Result<Mapping, CalibrateError> {
        let extra = if huge { HUGE_PAGE as usize } else { 0 };
        // SAFETY: a fresh anonymous mapping; no existing memory is touched.
        let raw = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len + extra,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                -1,
                0,
            )
        };
        if raw == libc::MAP_FAILED {
            return Err(sys("mmap"));
        }
        let raw: *mut u8 = raw.cast();
        let ptr = if huge {
            let head =
                (HUGE_PAGE as usize - raw as usize % HUGE_PAGE as usize) % HUGE_PAGE as usize;
            // SAFETY: head <= extra, so both ranges lie inside the mapping just made and
            // outside the part kept; unmapping them leaves exactly [ptr, ptr + len).
            unsafe {
                if head > 0 {
                    libc::munmap(raw.cast(), head);
                }
                if extra - head > 0 {
                    libc::munmap(raw.add(head + len).cast(), extra - head);
                }
                raw.add(head)
            }
        } else {
            raw
        };
        let m = Mapping { ptr, len };
        let (advice, what) = if huge {
            (libc::MADV_HUGEPAGE, "madvise(MADV_HUGEPAGE)")
        } else {
            (libc::MADV_NOHUGEPAGE, "madvise(MADV_NOHUGEPAGE)")
        };
        // SAFETY: the range is exactly the mapping kept.
        if unsafe { libc::madvise(ptr.cast(), len, advice) } != 0 {
            return Err(sys(what));
        }
        Ok(m)
    }

    /// Writes one byte in each page of `[offset, offset + len)`.
    fn touch(&self, offset: usize, len: usize, page: usize) {
        let mut at = offset;
        while at < offset + len {
            // SAFETY: `at` is inside the mapping (offset + len <= self.len) and the page
            // is written by this worker alone.
            unsafe { self.ptr.add(at).write_volatile(1) };
            at += page;
        }
    }

    /// Frees every page, so that the next pass faults them again.
    fn zap(&self) -> Result<(), CalibrateError> {
        // SAFETY: the range is exactly this mapping; no worker writes it meanwhile.
        if unsafe { libc::madvise(self.ptr.cast(), self.len, libc::MADV_DONTNEED) } != 0 {
            return Err(sys("madvise(MADV_DONTNEED)"));
        }
        Ok(())
    }
}

impl Drop for Mapping {
    fn drop(&mut self) {
        // SAFETY: unmaps exactly the mapping this value owns.
        unsafe { libc::munmap(self.ptr.cast(), self.len) };
    }
}

/// Splits `size` into `workers` slices aligned to `granule` (a page, or a huge page
/// when every worker can have one): (offset, length).
fn slices(size: u64, workers: usize, granule: u64) -> Vec<(usize, usize)> {
    let units = size / granule;
    (0..workers as u64)
        .map(|i| {
            let start = units * i / workers as u64;
            let end = units * (i + 1) / workers as u64;
            (
                (start * granule) as usize,
                ((end - start) * granule) as usize,
            )
        })
        .collect()
}

/// The slices' granule: whole huge pages for the huge variant when each worker gets at
/// least one, else pages.
fn granule(variant: Variant, size: u64, workers: usize, page: u64) -> u64 {
    if variant == Variant::Huge && size / HUGE_PAGE >= workers as u64 {
        HUGE_PAGE
    } else {
        page
    }
}

/// Pins the calling thread (or process) to `cpu`.
fn pin(cpu: usize) -> bool {
    // SAFETY: cpu_set_t is plain old data; all-zero is the empty set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    if cpu >= 8 * std::mem::size_of::<libc::cpu_set_t>() {
        return false;
    }
    // SAFETY: `set` is a valid cpu_set_t and cpu < CPU_SETSIZE (checked above).
    unsafe { libc::CPU_SET(cpu, &mut set) };
    // SAFETY: `set` is valid for its size; pid 0 is the calling thread.
    unsafe { libc::sched_setaffinity(0, std::mem::size_of_val(&set), &set) == 0 }
}

/// Measures one configuration: one uncounted pass, then `passes` counted ones (the zap
/// loop, unpinned workers).
pub fn measure(
    layout: Layout,
    workers: usize,
    size: Bytes,
    passes: u32,
) -> Result<ConfigResult, CalibrateError> {
    measure_setup(&Setup::threads(layout, workers), size, passes)
}

/// Measures one configuration: one uncounted pass, then `passes` counted ones.
fn measure_setup(setup: &Setup, size: Bytes, passes: u32) -> Result<ConfigResult, CalibrateError> {
    let (pages, counts) = measure_round(setup, size, passes)?;
    Ok(config_result(setup, pages, counts, passes))
}

/// Refuses a size with less than one page per worker.
fn check_size(size: Bytes, workers: usize) -> Result<(), CalibrateError> {
    if workers == 0 || size.0 / page_size() < workers as u64 {
        return Err(CalibrateError::TooSmall { size, workers });
    }
    Ok(())
}

/// One round of one configuration: the pages each pass writes, and what the counted
/// passes gave.
fn measure_round(setup: &Setup, size: Bytes, passes: u32) -> Result<(u64, Counts), CalibrateError> {
    check_size(size, setup.workers)?;
    let page = page_size();
    let workers = setup.workers;
    let pins: Option<Vec<usize>> = setup.placement.as_ref().map(|p| p.cpus.clone());
    let granule = granule(setup.variant, size.0, workers, page);
    let parts = slices(size.0, workers, granule);
    let counts = match setup.layout {
        Layout::Shared | Layout::PerThread => {
            threads(setup, &parts, size.0, page, passes, pins.as_deref())?
        }
        Layout::Processes => processes(setup.variant, &parts, page, passes, pins.as_deref())?,
    };
    let pages = parts.iter().map(|(_, len)| *len as u64 / page).sum::<u64>();
    Ok((pages, counts))
}

impl Counts {
    /// The counts of two rounds of one configuration, the later one's passes after.
    fn merge(mut self, later: Counts) -> Counts {
        self.times.extend(later.times);
        self.faults += later.faults;
        self.cpu_ns += later.cpu_ns;
        self.busy_ns += later.busy_ns;
        self
    }
}

/// A configuration's result from its counted passes (`counted` of them, all rounds).
fn config_result(setup: &Setup, pages: u64, counts: Counts, counted: u32) -> ConfigResult {
    let Counts {
        times,
        faults,
        cpu_ns,
        busy_ns,
    } = counts;
    ConfigResult {
        layout: setup.layout,
        workers: setup.workers,
        faults_per_s: times
            .iter()
            .map(|t| pages as f64 / (t.0.max(1) as f64 / 1e9))
            .collect(),
        pages,
        faults_per_pass: faults / u64::from(counted.max(1)),
        variant: setup.variant,
        placement: setup.placement.clone(),
        cpu_share: (busy_ns > 0).then(|| cpu_ns as f64 / busy_ns as f64),
    }
}

/// Each worker's memory: (mapping, offset, length).
type Work = Vec<(Arc<Mapping>, usize, usize)>;

/// The mappings of one pass.
fn map_work(
    layout: Layout,
    parts: &[(usize, usize)],
    size: u64,
    huge: bool,
) -> Result<Work, CalibrateError> {
    let mut work = Vec::new();
    match layout {
        Layout::Shared => {
            let m = Arc::new(Mapping::new(size as usize, huge)?);
            work.extend(parts.iter().map(|&(off, len)| (m.clone(), off, len)));
        }
        _ => {
            for &(_, len) in parts {
                work.push((Arc::new(Mapping::new(len, huge)?), 0, len));
            }
        }
    }
    Ok(work)
}

/// Threads: returns the counted passes' wall times and the minor faults they took.
fn threads(
    setup: &Setup,
    parts: &[(usize, usize)],
    size: u64,
    page: u64,
    passes: u32,
    pins: Option<&[usize]>,
) -> Result<Counts, CalibrateError> {
    let huge = setup.variant == Variant::Huge;
    let fresh = setup.variant == Variant::Pft;
    let workers = parts.len();
    let shared = Passes::new(
        map_work(setup.layout, parts, size, huge)?,
        workers,
        passes + 1,
        page,
    );
    std::thread::scope(|scope| {
        for i in 0..workers {
            let shared = &shared;
            let cpu = pins.and_then(|p| p.get(i).copied());
            scope.spawn(move || shared.worker(i, cpu));
        }
        let mut times = Vec::new();
        // A failed zap or mmap is reported after the last pass: the workers wait at the
        // barriers for every pass, so leaving early would leave them waiting.
        let mut error = None;
        for round in 0..shared.rounds {
            let t0 = Nanos::monotonic_now();
            shared.start.wait();
            shared.done.wait();
            let t = Nanos::monotonic_now().since(t0).unwrap_or_default();
            if round > 0 {
                times.push(t);
            }
            let ready = match fresh {
                // The old mappings go (unmapped, untimed); new ones for the next pass.
                true if round + 1 < shared.rounds => {
                    map_work(setup.layout, parts, size, huge).map(|new| shared.replace(new))
                }
                true => Ok(()),
                false => shared.zap_all(),
            };
            if let Err(e) = ready {
                error.get_or_insert(e);
            }
        }
        if shared.unpinned.load(Ordering::Relaxed) > 0 {
            error.get_or_insert(sys("sched_setaffinity (pinning a worker)"));
        }
        match error {
            Some(e) => Err(e),
            None => Ok(shared.counts(times)),
        }
    })
}

/// What the workers of [`threads`] share with the thread that times their passes.
struct Passes {
    /// The mappings of the pass under way: set by the timing thread before it releases
    /// the workers, read by each worker after the release.
    work: std::sync::RwLock<Work>,
    /// Passes, the uncounted first one included.
    rounds: u32,
    page: u64,
    /// Where the workers wait to be released into a pass, and to end it.
    start: Barrier,
    done: Barrier,
    /// Faults the workers took in the counted passes, each counted by its own thread.
    faults: AtomicU64,
    /// CPU time the workers got, and their own time from release to done.
    cpu_ns: AtomicU64,
    busy_ns: AtomicU64,
    /// Workers that could not be pinned.
    unpinned: AtomicU64,
}

impl Passes {
    fn new(work: Work, workers: usize, rounds: u32, page: u64) -> Passes {
        Passes {
            work: std::sync::RwLock::new(work),
            rounds,
            page,
            start: Barrier::new(workers + 1),
            done: Barrier::new(workers + 1),
            faults: AtomicU64::new(0),
            cpu_ns: AtomicU64::new(0),
            busy_ns: AtomicU64::new(0),
            unpinned: AtomicU64::new(0),
        }
    }

    /// Worker `i`: pinned to `cpu` when given, then its part touched in every pass,
    /// counted after the first.
    fn worker(&self, i: usize, cpu: Option<usize>) {
        if let Some(cpu) = cpu
            && !pin(cpu)
        {
            self.unpinned.fetch_add(1, Ordering::Relaxed);
        }
        for round in 0..self.rounds {
            self.start.wait();
            let (m, off, len) = self
                .work
                .read()
                .map(|w| w[i].clone())
                .expect("never poisoned");
            // The CPU-time readings go inside the wall-time ones, so that a
            // worker's CPU time never counts the clock reads around it.
            let f0 = minflt(libc::RUSAGE_THREAD);
            let t0 = Nanos::monotonic_now();
            let c0 = thread_cpu_ns();
            m.touch(off, len, self.page as usize);
            let c1 = thread_cpu_ns();
            let t = Nanos::monotonic_now().since(t0).unwrap_or_default();
            if round > 0 {
                self.busy_ns.fetch_add(t.0, Ordering::Relaxed);
                self.cpu_ns.fetch_add(c1 - c0, Ordering::Relaxed);
                self.faults
                    .fetch_add(minflt(libc::RUSAGE_THREAD) - f0, Ordering::Relaxed);
            }
            drop(m);
            self.done.wait();
        }
    }

    /// New mappings for the next pass, the old ones unmapped as they go.
    fn replace(&self, new: Work) {
        *self.work.write().expect("never poisoned") = new;
    }

    /// Each mapping zapped once for the next pass, every one even when one fails; the
    /// error is the first.
    fn zap_all(&self) -> Result<(), CalibrateError> {
        let w = self.work.write().expect("never poisoned");
        let mut error = None;
        let mut zapped: Vec<*const Mapping> = Vec::new();
        for (m, _, _) in w.iter() {
            if !zapped.contains(&Arc::as_ptr(m)) {
                if let Err(e) = m.zap() {
                    error.get_or_insert(e);
                }
                zapped.push(Arc::as_ptr(m));
            }
        }
        error.map_or(Ok(()), Err)
    }

    /// The counts of the passes ended, with their wall `times`.
    fn counts(&self, times: Vec<Nanos>) -> Counts {
        Counts {
            times,
            faults: self.faults.load(Ordering::Relaxed),
            cpu_ns: self.cpu_ns.load(Ordering::Relaxed),
            busy_ns: self.busy_ns.load(Ordering::Relaxed),
        }
    }
}

/// A pipe, both ends closed on drop.
struct Pipe([libc::c_int; 2]);

impl Pipe {
    fn new() -> Result<Pipe, CalibrateError> {
        let mut fds = [0; 2];
        // SAFETY: `fds` has room for the two descriptors.
        if unsafe { libc::pipe(fds.as_mut_ptr()) } != 0 {
            return Err(sys("pipe"));
        }
        Ok(Pipe(fds))
    }
    fn read_byte(&self) -> bool {
        let mut b = [0u8; 1];
        self.read_exact(&mut b)
    }
    fn read_exact(&self, buf: &mut [u8]) -> bool {
        // SAFETY: reads at most buf.len() bytes into `buf` from our own pipe. Writes of
        // up to PIPE_BUF bytes are atomic, and every message here is smaller.
        unsafe { libc::read(self.0[0], buf.as_mut_ptr().cast(), buf.len()) == buf.len() as isize }
    }
    /// Writes `n` one-bytes (n <= 512, so one atomic write; no allocation after fork).
    fn write_bytes(&self, n: usize) -> bool {
        let bytes = [1u8; 512];
        self.write_all(&bytes[..n.min(512)])
    }
    fn write_all(&self, buf: &[u8]) -> bool {
        // SAFETY: writes `buf` to our own pipe.
        unsafe { libc::write(self.0[1], buf.as_ptr().cast(), buf.len()) == buf.len() as isize }
    }
}

impl Drop for Pipe {
    fn drop(&mut self) {
        // SAFETY: closes the descriptors this value owns.
        unsafe {
            libc::close(self.0[0]);
            libc::close(self.0[1]);
        }
    }
}

/// The pipes between the calibration's processes: `go` starts a pass in every child,
/// `done` says a child's pass ended, `ready` that its mapping is fresh again, `counts`
/// carries each child's totals at the end.
struct Pipes {
    go: Pipe,
    done: Pipe,
    ready: Pipe,
    counts: Pipe,
}

/// Processes: each forked child maps its own slice; pipes start and collect the passes.
fn processes(
    variant: Variant,
    parts: &[(usize, usize)],
    page: u64,
    passes: u32,
    pins: Option<&[usize]>,
) -> Result<Counts, CalibrateError> {
    let workers = parts.len();
    if workers > 512 {
        return Err(CalibrateError::Sys {
            what: "processes",
            source: std::io::Error::other("at most 512 processes"),
        });
    }
    let pipes = Pipes {
        go: Pipe::new()?,
        done: Pipe::new()?,
        ready: Pipe::new()?,
        counts: Pipe::new()?,
    };
    let rounds = passes + 1;
    let mut children = Vec::new();
    for (i, &(_, len)) in parts.iter().enumerate() {
        let cpu = pins.and_then(|p| p.get(i).copied());
        // SAFETY: this command runs no other thread, so the child may run ordinary code;
        // it uses only its own mapping and the pipes, and leaves with _exit.
        let pid = unsafe { libc::fork() };
        if pid < 0 {
            let e = sys("fork");
            for &child in &children {
                // SAFETY: kills and reaps a child this function forked (it waits on a pipe).
                unsafe {
                    libc::kill(child, libc::SIGKILL);
                    libc::waitpid(child, std::ptr::null_mut(), 0);
                }
            }
            return Err(e);
        }
        if pid == 0 {
            let code = if cpu.is_none_or(pin) {
                child_passes(variant, len, page, rounds, &pipes)
            } else {
                1
            };
            // SAFETY: ends the child without running the parent's destructors twice.
            unsafe { libc::_exit(code) };
        }
        children.push(pid);
    }
    collect_children(&pipes, &children, rounds)
}

/// A forked child's passes over its own mapping of `len` bytes, each started by the
/// parent; its totals (faults, CPU time, busy time of the counted passes) are sent at
/// the end. The child's exit code: 0 when every step worked.
fn child_passes(variant: Variant, len: usize, page: u64, rounds: u32, pipes: &Pipes) -> i32 {
    let huge = variant == Variant::Huge;
    let Ok(mut m) = Mapping::new(len, huge) else {
        return 1;
    };
    let mut ok = true;
    let (mut faults, mut cpu, mut busy) = (0, 0, 0);
    for round in 0..rounds {
        ok &= pipes.go.read_byte();
        // CPU-time readings inside the wall-time ones, as for threads.
        let f0 = minflt(libc::RUSAGE_SELF);
        let t0 = Nanos::monotonic_now();
        let c0 = thread_cpu_ns();
        m.touch(0, len, page as usize);
        let c1 = thread_cpu_ns();
        let t = Nanos::monotonic_now().since(t0).unwrap_or_default();
        if round > 0 {
            busy += t.0;
            cpu += c1 - c0;
            faults += minflt(libc::RUSAGE_SELF) - f0;
        }
        ok &= pipes.done.write_bytes(1);
        if variant == Variant::Pft {
            // A fresh mapping for the next pass; the old one is unmapped.
            match Mapping::new(len, huge) {
                Ok(new) => m = new,
                Err(_) => ok = false,
            }
        } else {
            ok &= m.zap().is_ok();
        }
        ok &= pipes.ready.write_bytes(1);
    }
    let mut message = [0u8; 24];
    for (at, v) in [faults, cpu, busy].into_iter().enumerate() {
        message[8 * at..8 * at + 8].copy_from_slice(&v.to_ne_bytes());
    }
    ok &= pipes.counts.write_all(&message);
    if ok { 0 } else { 1 }
}

/// The parent's side of [`processes`]: starts each of `rounds` passes in every child
/// and times it to the last child's end, then sums the children's totals and reaps them.
fn collect_children(
    pipes: &Pipes,
    children: &[i32],
    rounds: u32,
) -> Result<Counts, CalibrateError> {
    let workers = children.len();
    let mut times = Vec::new();
    let mut failed = false;
    for round in 0..rounds {
        let t0 = Nanos::monotonic_now();
        failed |= !pipes.go.write_bytes(workers);
        for _ in 0..workers {
            failed |= !pipes.done.read_byte();
        }
        let t = Nanos::monotonic_now().since(t0).unwrap_or_default();
        for _ in 0..workers {
            failed |= !pipes.ready.read_byte();
        }
        if round > 0 {
            times.push(t);
        }
    }
    let (mut faults, mut cpu_ns, mut busy_ns) = (0, 0, 0);
    for _ in 0..workers {
        let mut n = [0u8; 24];
        failed |= !pipes.counts.read_exact(&mut n);
        let v = |at: usize| u64::from_ne_bytes(n[8 * at..8 * at + 8].try_into().expect("8 bytes"));
        faults += v(0);
        cpu_ns += v(1);
        busy_ns += v(2);
    }
    for &pid in children {
        let mut status = 0;
        // SAFETY: waits for a child this function forked.
        unsafe { libc::waitpid(pid, &mut status, 0) };
        failed |= !(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0);
    }
    if failed {
        return Err(CalibrateError::Sys {
            what: "a calibration process",
            source: std::io::Error::other("a child failed or a pipe broke"),
        });
    }
    Ok(Counts {
        times,
        faults,
        cpu_ns,
        busy_ns,
    })
}

/// What to measure: every setup, `rounds` times, `passes` counted passes each time.
#[derive(Debug, Clone)]
pub struct Plan {
    pub setups: Vec<Setup>,
    pub size: Bytes,
    pub passes: u32,
    pub rounds: u32,
}

impl Plan {
    /// Refuses, before anything is measured, a configuration with less than a page per
    /// worker.
    pub fn check(&self) -> Result<(), CalibrateError> {
        self.setups
            .iter()
            .try_for_each(|s| check_size(self.size, s.workers))
    }

    /// The setups in the order round `round` (0-based) measures them: forward in even
    /// rounds, backward in odd ones, so that no configuration always runs first, or
    /// always right after the same other one.
    pub fn order(&self, round: u32) -> Vec<usize> {
        let mut order: Vec<usize> = (0..self.setups.len()).collect();
        if round % 2 == 1 {
            order.reverse();
        }
        order
    }
}

/// Why a calibration did not finish.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error(transparent)]
    Calibrate(#[from] CalibrateError),
    /// `stop` said so between two configurations (a signal arrived). `whole` is the
    /// calibration of the rounds finished before it, when there was one.
    #[error("stopped after {rounds} whole round(s)")]
    Stopped {
        rounds: u32,
        whole: Option<Box<Calibration>>,
    },
}

/// Runs the plan, round by round, and returns the calibration. `progress` hears of each
/// configuration as it starts (round, 0-based, and setup); `stop` is asked before each
/// and ends the calibration when it says so; `memory` is the free page reporting state
/// it runs in (the calibration adds what the guest reported meanwhile).
pub fn run(
    label: &str,
    plan: &Plan,
    topology: Option<String>,
    memory: Option<MemoryDuring>,
    mut progress: impl FnMut(u32, &Setup),
    stop: impl Fn() -> bool,
) -> Result<Calibration, RunError> {
    let started = humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string();
    let reported_before = crate::machine::guest::GuestInfo::read().reported_kib;
    let finish = |measured: Vec<Option<(u64, Counts)>>, rounds: u32| {
        // The environment at the end reads the guest, and with it the memory reported.
        let env = Environment::read();
        let reported_after = env.guest.as_ref().and_then(|g| g.reported_kib);
        let memory = memory.clone().map(|m| MemoryDuring {
            reported_kib: reported_before
                .zip(reported_after)
                .map(|(a, b)| b.saturating_sub(a)),
            ..m
        });
        let results = plan
            .setups
            .iter()
            .zip(measured)
            .filter_map(|(setup, m)| {
                m.map(|(pages, counts)| config_result(setup, pages, counts, plan.passes * rounds))
            })
            .collect();
        Calibration {
            record: "calibrate".to_owned(),
            label: label.to_owned(),
            started_at: started.clone(),
            env,
            size: plan.size,
            page_size: Bytes(page_size()),
            passes: plan.passes,
            rounds,
            results,
            topology: topology.clone(),
            memory,
        }
    };
    let mut measured: Vec<Option<(u64, Counts)>> = plan.setups.iter().map(|_| None).collect();
    // What the whole rounds gave, kept for a stop in the middle of the next one.
    let mut whole = measured.clone();
    for round in 0..plan.rounds.max(1) {
        for i in plan.order(round) {
            if stop() {
                return Err(RunError::Stopped {
                    rounds: round,
                    whole: (round > 0).then(|| Box::new(finish(whole, round))),
                });
            }
            let setup = &plan.setups[i];
            progress(round, setup);
            let (pages, counts) = measure_round(setup, plan.size, plan.passes)?;
            measured[i] = Some(match measured[i].take() {
                Some((_, before)) => (pages, before.merge(counts)),
                None => (pages, counts),
            });
        }
        whole = measured.clone();
    }
    Ok(finish(measured, plan.rounds.max(1)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A calibration of one round of `passes` passes.
    fn calibration(passes: u32, results: Vec<ConfigResult>) -> Calibration {
        Calibration {
            record: "calibrate".into(),
            label: "k".into(),
            started_at: String::new(),
            env: Environment::default(),
            size: Bytes(1),
            page_size: Bytes(4096),
            passes,
            rounds: 1,
            memory: None,
            results,
            topology: None,
        }
    }

    #[test]
    fn rounds_interleave_the_configurations_and_keep_every_pass() {
        let plan = Plan {
            setups: vec![
                Setup::threads(Layout::Shared, 1),
                Setup {
                    variant: Variant::Pft,
                    ..Setup::threads(Layout::Shared, 1)
                },
            ],
            size: Bytes(4 << 20),
            passes: 2,
            rounds: 3,
        };
        let mut seen = Vec::new();
        let c = run(
            "k",
            &plan,
            None,
            None,
            |round, s| seen.push((round, s.variant)),
            || false,
        )
        .unwrap();
        use Variant::{Pft, Zap};
        assert_eq!(
            seen,
            [(0, Zap), (0, Pft), (1, Pft), (1, Zap), (2, Zap), (2, Pft)]
        );
        assert_eq!((c.rounds, c.passes), (3, 2));
        assert_eq!(c.results.len(), 2);
        for r in &c.results {
            assert_eq!(r.faults_per_s.len(), 6);
            assert_eq!(c.rounds_of(r).len(), 3);
            assert_eq!(c.round_medians(r).len(), 3);
            // Faults per pass over all rounds: each of the 1024 pages once a pass.
            assert!(
                r.faults_per_pass >= 1024 && r.faults_per_pass < 1100,
                "{r:?}"
            );
        }
        assert_eq!(c.results[1].variant, Pft);
        // A stop between configurations ends it, saying how many rounds were whole.
        let asked = std::cell::Cell::new(0);
        let stopped = run(
            "k",
            &plan,
            None,
            None,
            |_, _| {},
            || {
                asked.set(asked.get() + 1);
                asked.get() > 3
            },
        );
        // The whole round is kept: every configuration once, and nothing of the next.
        let Err(RunError::Stopped {
            rounds: 1,
            whole: Some(c),
        }) = stopped
        else {
            panic!("not stopped after one round");
        };
        assert_eq!((c.rounds, c.results.len()), (1, 2));
        assert!(c.results.iter().all(|r| r.faults_per_s.len() == 2));
    }

    #[test]
    fn files_from_before_rounds_read_as_one_round() {
        let mut c = calibration(5, Vec::new());
        let mut json = serde_json::to_value(&c).unwrap();
        json.as_object_mut().unwrap().remove("rounds");
        c = serde_json::from_value(json).unwrap();
        assert_eq!(c.rounds, 1);
        let r = ConfigResult {
            layout: Layout::Shared,
            workers: 1,
            faults_per_s: vec![3.0, 1.0, 2.0, 5.0, 4.0],
            pages: 1,
            faults_per_pass: 1,
            variant: Variant::Zap,
            placement: None,
            cpu_share: None,
        };
        assert_eq!(c.round_medians(&r), [3.0]);
    }

    #[test]
    fn slices_cover_the_mapping_once() {
        let s = slices(10 * 4096, 3, 4096);
        assert_eq!(granule(Variant::Huge, 8 << 20, 4, 4096), HUGE_PAGE);
        assert_eq!(granule(Variant::Huge, 8 << 20, 5, 4096), 4096);
        assert_eq!(granule(Variant::Zap, 8 << 20, 1, 4096), 4096);
        assert_eq!(
            s,
            [(0, 3 * 4096), (3 * 4096, 3 * 4096), (6 * 4096, 4 * 4096)]
        );
    }

    #[test]
    fn every_layout_faults_every_page_once_per_pass() {
        let size = Bytes(16 << 20);
        let pages = size.0 / page_size();
        for layout in [Layout::Shared, Layout::PerThread, Layout::Processes] {
            let r = measure(layout, 2, size, 3).unwrap();
            assert_eq!(r.pages, pages);
            assert_eq!(r.faults_per_s.len(), 3);
            assert!(r.faults_per_s.iter().all(|f| f.is_finite() && *f > 0.0));
            // The kernel counted about one fault a page: no huge pages, no missed zap.
            let ratio = r.faults_per_pass as f64 / pages as f64;
            assert!(
                (0.95..1.2).contains(&ratio),
                "{layout}: {ratio} faults a page: {r:?}"
            );
        }
    }

    #[test]
    fn pft_and_huge_fault_every_pass_and_pinned_workers_stay_put() {
        let size = Bytes(16 << 20);
        let pages = size.0 / page_size();
        let cpus = crate::matrix::cpuset::available().unwrap();
        let placement = Placement {
            set: "test".into(),
            cpus: cpus.iter().copied().take(2).collect(),
            l3_domains: vec![0],
            nodes: vec![0],
            sockets: vec![0],
            cores: 2,
        };
        for layout in [Layout::Shared, Layout::Processes] {
            let setup = Setup {
                variant: Variant::Pft,
                layout,
                workers: placement.cpus.len(),
                placement: Some(placement.clone()),
            };
            let r = measure_setup(&setup, size, 3).unwrap();
            // A fresh mapping each pass: every page faults again, without a zap.
            let ratio = r.faults_per_pass as f64 / pages as f64;
            assert!((0.95..1.2).contains(&ratio), "{layout}: {ratio}: {r:?}");
            assert_eq!(r.placement.as_ref(), Some(&placement));
        }
        let thp = std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled")
            .unwrap_or_default();
        // The kernel's count of huge page faults that fell back to 4 KiB pages (no free
        // 2 MiB block: a machine whose memory another load churns, as stress-ng's does).
        let fallbacks = || {
            std::fs::read_to_string("/proc/vmstat")
                .unwrap_or_default()
                .lines()
                .find_map(|l| l.strip_prefix("thp_fault_fallback ")?.parse::<u64>().ok())
        };
        let fallbacks_before = fallbacks();
        let huge = measure_setup(
            &Setup {
                variant: Variant::Huge,
                ..Setup::threads(Layout::Shared, 2)
            },
            size,
            3,
        )
        .unwrap();
        assert!(huge.faults_per_pass > 0 && huge.faults_per_pass as f64 <= 1.2 * pages as f64);
        let fell_back = fallbacks() != fallbacks_before;
        if !thp.contains("[never]") && !fell_back {
            // THP allowed for MADV_HUGEPAGE, and the kernel had the 2 MiB blocks: most
            // of the 8 huge pages came as one fault.
            let bytes = huge.fault_bytes(Bytes(page_size())).unwrap();
            assert!(
                bytes > 64.0 * 1024.0,
                "{bytes} bytes a fault with THP {thp}"
            );
        }
        // A pinned thread runs where it was put.
        let cpu = *cpus.last().unwrap();
        let allowed = std::thread::spawn(move || {
            assert!(pin(cpu));
            crate::matrix::cpuset::available().unwrap()
        })
        .join()
        .unwrap();
        assert_eq!(allowed, [cpu]);
    }

    #[test]
    fn ceiling_is_the_best_shared_configuration() {
        let r = |layout, workers, f: f64| ConfigResult {
            layout,
            workers,
            faults_per_s: vec![f],
            pages: 1,
            faults_per_pass: 1,
            variant: Variant::Zap,
            placement: None,
            cpu_share: None,
        };
        let c = calibration(
            1,
            vec![
                r(Layout::Shared, 1, 1e6),
                r(Layout::Shared, 2, 1.8e6),
                r(Layout::PerThread, 2, 5e6),
            ],
        );
        let (best, at) = c.ceiling().unwrap();
        assert_eq!((best, at.workers), (1.8e6, 2));
    }
}
