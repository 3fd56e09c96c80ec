//! `pretouch calibrate`: the machine's ceiling for anonymous write faults, the number a
//! cell's pretouch fault rate is read against.
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

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Barrier};

use serde::{Deserialize, Serialize};

use crate::machine::env::Environment;
use crate::stats::{Summary, summarize};
use crate::units::{Bytes, Nanos};

/// How the workers share memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum Layout {
    /// Threads of one process, one shared anonymous mapping, a slice each (the JVM's case).
    Shared,
    /// Threads of one process, one mapping each.
    PerThread,
    /// Processes, one mapping each.
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
}

impl ConfigResult {
    pub fn summary(&self) -> Option<Summary> {
        summarize(&self.faults_per_s)
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
    /// Counted passes per configuration (after one uncounted warm-up pass).
    pub passes: u32,
    /// One entry per (layout, workers), in the order measured.
    pub results: Vec<ConfigResult>,
}

impl Calibration {
    /// The ceiling: the best median rate of the shared-mapping configurations (the
    /// JVM's shape), with the configuration that reached it.
    pub fn ceiling(&self) -> Option<(f64, &ConfigResult)> {
        self.results
            .iter()
            .filter(|r| r.layout == Layout::Shared)
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

impl Mapping {
    fn new(len: usize) -> Result<Mapping, CalibrateError> {
        // SAFETY: a fresh anonymous mapping; no existing memory is touched.
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                -1,
                0,
            )
        };
        if ptr == libc::MAP_FAILED {
            return Err(sys("mmap"));
        }
        let m = Mapping {
            ptr: ptr.cast(),
            len,
        };
        // 4 KiB faults whatever the system's THP mode; the system setting is not touched.
        // SAFETY: the range is exactly the mapping just created.
        if unsafe { libc::madvise(ptr, len, libc::MADV_NOHUGEPAGE) } != 0 {
            return Err(sys("madvise(MADV_NOHUGEPAGE)"));
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

/// Splits `size` into `workers` page-aligned slices: (offset, length).
fn slices(size: u64, workers: usize, page: u64) -> Vec<(usize, usize)> {
    let pages = size / page;
    (0..workers as u64)
        .map(|i| {
            let start = pages * i / workers as u64;
            let end = pages * (i + 1) / workers as u64;
            ((start * page) as usize, ((end - start) * page) as usize)
        })
        .collect()
}

/// Measures one configuration: one uncounted pass, then `passes` counted ones.
pub fn measure(
    layout: Layout,
    workers: usize,
    size: Bytes,
    passes: u32,
) -> Result<ConfigResult, CalibrateError> {
    let page = page_size();
    let pages = size.0 / page;
    if workers == 0 || pages < workers as u64 {
        return Err(CalibrateError::TooSmall { size, workers });
    }
    let (times, faults) = match layout {
        Layout::Shared | Layout::PerThread => threads(layout, workers, size.0, page, passes)?,
        Layout::Processes => processes(workers, size.0, page, passes)?,
    };
    let pages = slices(size.0, workers, page)
        .iter()
        .map(|(_, len)| *len as u64 / page)
        .sum::<u64>();
    Ok(ConfigResult {
        layout,
        workers,
        faults_per_s: times
            .iter()
            .map(|t| pages as f64 / (t.0.max(1) as f64 / 1e9))
            .collect(),
        pages,
        faults_per_pass: faults / u64::from(passes.max(1)),
    })
}

/// Threads: returns the counted passes' wall times and the minor faults they took.
fn threads(
    layout: Layout,
    workers: usize,
    size: u64,
    page: u64,
    passes: u32,
) -> Result<(Vec<Nanos>, u64), CalibrateError> {
    let parts = slices(size, workers, page);
    // (mapping, offset, length) per worker.
    let mut work: Vec<(Arc<Mapping>, usize, usize)> = Vec::new();
    match layout {
        Layout::Shared => {
            let m = Arc::new(Mapping::new(size as usize)?);
            work.extend(parts.iter().map(|&(off, len)| (m.clone(), off, len)));
        }
        _ => {
            for &(_, len) in &parts {
                work.push((Arc::new(Mapping::new(len)?), 0, len));
            }
        }
    }
    let rounds = passes + 1;
    let start = Arc::new(Barrier::new(workers + 1));
    let done = Arc::new(Barrier::new(workers + 1));
    // Faults the workers took in the counted passes, each counted by its own thread.
    let faults = AtomicU64::new(0);
    std::thread::scope(|scope| {
        for (m, off, len) in &work {
            let (start, done, faults) = (start.clone(), done.clone(), &faults);
            scope.spawn(move || {
                for round in 0..rounds {
                    start.wait();
                    let f0 = minflt(libc::RUSAGE_THREAD);
                    m.touch(*off, *len, page as usize);
                    if round > 0 {
                        faults.fetch_add(minflt(libc::RUSAGE_THREAD) - f0, Ordering::Relaxed);
                    }
                    done.wait();
                }
            });
        }
        let mut times = Vec::new();
        // A failed zap is reported after the last pass: the workers wait at the barriers
        // for every pass, so leaving early would leave them waiting.
        let mut zap_error = None;
        for round in 0..rounds {
            let t0 = Nanos::monotonic_now();
            start.wait();
            done.wait();
            let t = Nanos::monotonic_now().since(t0).unwrap_or_default();
            if round > 0 {
                times.push(t);
            }
            let mut zapped: Vec<*const Mapping> = Vec::new();
            for (m, _, _) in &work {
                if !zapped.contains(&Arc::as_ptr(m)) {
                    if let Err(e) = m.zap() {
                        zap_error.get_or_insert(e);
                    }
                    zapped.push(Arc::as_ptr(m));
                }
            }
        }
        match zap_error {
            Some(e) => Err(e),
            None => Ok((times, faults.load(Ordering::Relaxed))),
        }
    })
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

/// Processes: each forked child maps its own slice; pipes start and collect the passes.
fn processes(
    workers: usize,
    size: u64,
    page: u64,
    passes: u32,
) -> Result<(Vec<Nanos>, u64), CalibrateError> {
    let parts = slices(size, workers, page);
    if workers > 512 {
        return Err(CalibrateError::Sys {
            what: "processes",
            source: std::io::Error::other("at most 512 processes"),
        });
    }
    let (go, done, ready, counts) = (Pipe::new()?, Pipe::new()?, Pipe::new()?, Pipe::new()?);
    let rounds = passes + 1;
    let mut children = Vec::new();
    for &(_, len) in &parts {
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
            let code = match Mapping::new(len) {
                Ok(m) => {
                    let mut ok = true;
                    let mut faults = 0;
                    for round in 0..rounds {
                        ok &= go.read_byte();
                        let f0 = minflt(libc::RUSAGE_SELF);
                        m.touch(0, len, page as usize);
                        if round > 0 {
                            faults += minflt(libc::RUSAGE_SELF) - f0;
                        }
                        ok &= done.write_bytes(1);
                        ok &= m.zap().is_ok();
                        ok &= ready.write_bytes(1);
                    }
                    ok &= counts.write_all(&u64::to_ne_bytes(faults));
                    if ok { 0 } else { 1 }
                }
                Err(_) => 1,
            };
            // SAFETY: ends the child without running the parent's destructors twice.
            unsafe { libc::_exit(code) };
        }
        children.push(pid);
    }
    let mut times = Vec::new();
    let mut failed = false;
    for round in 0..rounds {
        let t0 = Nanos::monotonic_now();
        failed |= !go.write_bytes(workers);
        for _ in 0..workers {
            failed |= !done.read_byte();
        }
        let t = Nanos::monotonic_now().since(t0).unwrap_or_default();
        for _ in 0..workers {
            failed |= !ready.read_byte();
        }
        if round > 0 {
            times.push(t);
        }
    }
    let mut faults = 0;
    for _ in 0..workers {
        let mut n = [0u8; 8];
        failed |= !counts.read_exact(&mut n);
        faults += u64::from_ne_bytes(n);
    }
    for pid in children {
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
    Ok((times, faults))
}

/// Runs every (layout, workers) configuration and returns the calibration.
pub fn run(
    label: &str,
    threads: &[usize],
    layouts: &[Layout],
    size: Bytes,
    passes: u32,
    mut progress: impl FnMut(Layout, usize),
) -> Result<Calibration, CalibrateError> {
    let started = humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string();
    let mut results = Vec::new();
    for &layout in layouts {
        for &workers in threads {
            progress(layout, workers);
            results.push(measure(layout, workers, size, passes)?);
        }
    }
    Ok(Calibration {
        record: "calibrate".to_owned(),
        label: label.to_owned(),
        started_at: started,
        env: Environment::read(),
        size,
        page_size: Bytes(page_size()),
        passes,
        results,
    })
}

/// `1234567.0` -> `1.23M`.
pub fn rate(per_s: f64) -> String {
    if per_s >= 1e6 {
        format!("{:.2}M", per_s / 1e6)
    } else {
        format!("{:.0}k", per_s / 1e3)
    }
}

/// The table `pretouch calibrate` prints.
pub fn to_text(c: &Calibration) -> String {
    use std::fmt::Write as _;
    let mut out = format!(
        "label: {}  ({} per configuration, {} pages, median of {} passes)\n",
        c.label, c.size, c.page_size, c.passes
    );
    let _ = writeln!(
        out,
        "{:<11} {:>7}  {:>24}  {:>11}",
        "layout", "workers", "faults/s (min-max)", "faults/pass"
    );
    for r in &c.results {
        let s = r.summary();
        let cell = s.map_or("-".to_owned(), |s| {
            format!("{} ({}-{})", rate(s.median), rate(s.min), rate(s.max))
        });
        let _ = writeln!(
            out,
            "{:<11} {:>7}  {:>24}  {:>11}",
            r.layout.to_string(),
            r.workers,
            cell,
            r.faults_per_pass
        );
    }
    if let Some((best, r)) = c.ceiling() {
        let _ = writeln!(
            out,
            "ceiling: {} faults/s (shared mapping, {} thread(s); each pass writes {} pages)",
            rate(best),
            r.workers,
            r.pages
        );
    }
    out
}

/// File name of a calibration taken at `utc_stamp`.
pub fn file_name(utc_stamp: &str) -> String {
    format!("calibrate-{utc_stamp}.json")
}

/// Whether a file is a calibration file.
pub fn is_calibration_file(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.starts_with("calibrate-") && n.ends_with(".json"))
}

/// Writes `dir/calibrate-<stamp>.json`; never overwrites.
pub fn save(c: &Calibration, dir: &Path, utc_stamp: &str) -> std::io::Result<PathBuf> {
    std::fs::create_dir_all(dir)?;
    let path = dir.join(file_name(utc_stamp));
    let text = serde_json::to_string_pretty(c).expect("a calibration always serializes");
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path)?;
    std::io::Write::write_all(&mut file, text.as_bytes())?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slices_cover_the_mapping_once() {
        let s = slices(10 * 4096, 3, 4096);
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
    fn ceiling_is_the_best_shared_configuration() {
        let r = |layout, workers, f: f64| ConfigResult {
            layout,
            workers,
            faults_per_s: vec![f],
            pages: 1,
            faults_per_pass: 1,
        };
        let c = Calibration {
            record: "calibrate".into(),
            label: "k".into(),
            started_at: String::new(),
            env: Environment::default(),
            size: Bytes(1),
            page_size: Bytes(4096),
            passes: 1,
            results: vec![
                r(Layout::Shared, 1, 1e6),
                r(Layout::Shared, 2, 1.8e6),
                r(Layout::PerThread, 2, 5e6),
            ],
        };
        let (best, at) = c.ceiling().unwrap();
        assert_eq!((best, at.workers), (1.8e6, 2));
        assert_eq!(rate(1.8e6), "1.80M");
        assert_eq!(rate(950e3), "950k");
    }
}
