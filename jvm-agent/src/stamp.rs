//! Stamps: CLOCK_MONOTONIC time, then this process's page-fault counts and resident set, taken at
//! each startup phase and kept in static atomics (no allocation, one small read of /proc).

use core::sync::atomic::{AtomicU8, AtomicU64, Ordering};

/// One stamp.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sample {
    /// `clock_gettime(CLOCK_MONOTONIC)` in nanoseconds: the clock of `System.nanoTime()`.
    pub ns: u64,
    /// `getrusage(RUSAGE_SELF).ru_minflt`.
    pub minflt: u64,
    /// `getrusage(RUSAGE_SELF).ru_majflt`.
    pub majflt: u64,
    /// Resident set from `/proc/self/statm` times the page size; 0 if it could not be read.
    pub rss_bytes: u64,
}

/// Takes a stamp now: the clock first, then the counters.
pub fn take() -> Sample {
    let ns = monotonic_ns();
    let (minflt, majflt) = faults();
    let rss_bytes = resident_bytes().unwrap_or(0);
    Sample {
        ns,
        minflt,
        majflt,
        rss_bytes,
    }
}

fn monotonic_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: ts is a valid, writable timespec; CLOCK_MONOTONIC always exists on Linux.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    let secs = u64::try_from(ts.tv_sec).unwrap_or(0);
    let nanos = u64::try_from(ts.tv_nsec).unwrap_or(0);
    secs.saturating_mul(1_000_000_000).saturating_add(nanos)
}

fn faults() -> (u64, u64) {
    let mut usage = core::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: usage is a valid, writable rusage; RUSAGE_SELF is always accepted.
    let rc = unsafe { libc::getrusage(libc::RUSAGE_SELF, usage.as_mut_ptr()) };
    if rc != 0 {
        return (0, 0);
    }
    // SAFETY: getrusage succeeded, so it filled usage (and it was zeroed before anyway).
    let usage = unsafe { usage.assume_init() };
    (
        u64::try_from(usage.ru_minflt).unwrap_or(0),
        u64::try_from(usage.ru_majflt).unwrap_or(0),
    )
}

fn resident_bytes() -> Option<u64> {
    let mut buf = [0u8; 128];
    // SAFETY: the path is a NUL-terminated literal.
    let fd = unsafe {
        libc::open(
            c"/proc/self/statm".as_ptr(),
            libc::O_RDONLY | libc::O_CLOEXEC,
        )
    };
    if fd < 0 {
        return None;
    }
    // SAFETY: fd is open for reading; buf is writable for buf.len() bytes.
    let n = unsafe { libc::read(fd, buf.as_mut_ptr().cast(), buf.len()) };
    // SAFETY: fd was opened above and is closed once.
    unsafe { libc::close(fd) };
    let text = buf.get(..usize::try_from(n).ok()?)?;
    // SAFETY: sysconf has no preconditions.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    Some(parse_statm_resident(text)?.saturating_mul(u64::try_from(page).ok()?))
}

/// The second field of `/proc/self/statm`: resident pages.
pub fn parse_statm_resident(statm: &[u8]) -> Option<u64> {
    let mut fields = statm
        .split(|b| b.is_ascii_whitespace())
        .filter(|f| !f.is_empty());
    let resident = fields.nth(1)?;
    let mut pages: u64 = 0;
    for &b in resident {
        if !b.is_ascii_digit() {
            return None;
        }
        pages = pages.checked_mul(10)?.checked_add(u64::from(b - b'0'))?;
    }
    Some(pages)
}

const EMPTY: u8 = 0;
const WRITING: u8 = 1;
const SET: u8 = 2;

/// A stamp recorded at most once, readable from any thread.
pub struct StampCell {
    state: AtomicU8,
    ns: AtomicU64,
    minflt: AtomicU64,
    majflt: AtomicU64,
    rss_bytes: AtomicU64,
}

impl Default for StampCell {
    fn default() -> Self {
        Self::new()
    }
}

impl StampCell {
    pub const fn new() -> Self {
        Self {
            state: AtomicU8::new(EMPTY),
            ns: AtomicU64::new(0),
            minflt: AtomicU64::new(0),
            majflt: AtomicU64::new(0),
            rss_bytes: AtomicU64::new(0),
        }
    }

    /// Records `sample` if nothing was recorded yet; returns whether it did.
    pub fn record(&self, sample: Sample) -> bool {
        if self
            .state
            .compare_exchange(EMPTY, WRITING, Ordering::Acquire, Ordering::Relaxed)
            .is_err()
        {
            return false;
        }
        self.ns.store(sample.ns, Ordering::Relaxed);
        self.minflt.store(sample.minflt, Ordering::Relaxed);
        self.majflt.store(sample.majflt, Ordering::Relaxed);
        self.rss_bytes.store(sample.rss_bytes, Ordering::Relaxed);
        self.state.store(SET, Ordering::Release);
        true
    }

    /// The recorded stamp, if one was fully recorded.
    pub fn get(&self) -> Option<Sample> {
        (self.state.load(Ordering::Acquire) == SET).then(|| Sample {
            ns: self.ns.load(Ordering::Relaxed),
            minflt: self.minflt.load(Ordering::Relaxed),
            majflt: self.majflt.load(Ordering::Relaxed),
            rss_bytes: self.rss_bytes.load(Ordering::Relaxed),
        })
    }
}

pub static AGENT_LOAD: StampCell = StampCell::new();
pub static VM_INIT: StampCell = StampCell::new();
pub static MAIN: StampCell = StampCell::new();

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statm_second_field() {
        assert_eq!(
            parse_statm_resident(b"1289473 5123 2311 1 0 77123 0\n"),
            Some(5123)
        );
        assert_eq!(parse_statm_resident(b"12"), None);
        assert_eq!(parse_statm_resident(b"12 x3 4"), None);
    }

    #[test]
    fn take_reads_real_values() {
        let a = take();
        let b = take();
        assert!(a.ns > 0 && b.ns >= a.ns);
        assert!(a.minflt > 0, "a test process has taken page faults");
        assert!(a.rss_bytes > 0, "/proc/self/statm readable");
    }

    #[test]
    fn cell_records_once() {
        let cell = StampCell::new();
        assert_eq!(cell.get(), None);
        let first = Sample {
            ns: 1,
            minflt: 2,
            majflt: 3,
            rss_bytes: 4,
        };
        assert!(cell.record(first));
        assert!(!cell.record(Sample::default()));
        assert_eq!(cell.get(), Some(first));
    }
}
