//! Stage 2, the machine: `--comparable-memory`, every launch starting from the same
//! guest-memory state on a VM with free page reporting.
//!
//! With reporting on, memory a JVM frees goes back to the host within seconds of idling
//! (2 MiB blocks, a pass about every 2 s); the next launch that touches it pays the
//! host's faults as well, 8-16x the cost. Measured on the development VM (Firecracker,
//! 2 vCPUs, 2026-11-30), G1 2g with THP and pretouch:
//!
//! | what | after 20 s idle | back to back |
//! |---|---|---|
//! | reporting on (order 9) | 5.2-7.2 s | 0.44-1.09 s |
//! | order 10 | 3.0-7.8 s | 0.42-0.80 s |
//! | order 11 (nothing qualifies) | 0.27-0.48 s | 0.24-0.25 s |
//! | a heap-sized region touched before each launch (no root) | 0.33-0.38 s, +3.7 s a launch | |
//! | gaps kept at 1 s (no root) | 0.29-1.69 s | |
//!
//! So this option raises `page_reporting_order` above the largest buddy order for the
//! run (no free block qualifies: nothing is reported) and restores it afterwards, and
//! touches a region the size of the largest heap once before the first launch, so that
//! memory reported before the run is back in the guest. It needs root. Unbinding the
//! balloon driver would stop reporting too, but resets the virtio device, which older
//! Firecracker hosts do not support; it is not used.
//!
//! The previous value is restored when the guard drops: at the end of the run, after
//! SIGINT/SIGTERM (the scheduler stops and the run returns), and on a panic (unwinding).
//! A runner killed with SIGKILL cannot restore: its state file (pid and old value) lets
//! the next `pretouch run` or `pretouch env` restore it.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::machine::guest::{GuestInfo, PAGE_REPORTING, Reporting};
use crate::units::{Bytes, Nanos};

/// What `--comparable-memory` did, stored in the run header.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ComparableMemory {
    /// `page_reporting_order` found before the run; absent without free page reporting.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order_before: Option<u32>,
    /// The value written for the run (above the largest buddy order: nothing is
    /// reported); absent when nothing had to change.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order_during: Option<u32>,
    /// The region touched once before the first launch (largest heap + 256 MiB).
    pub touched: Bytes,
    /// How long touching it took (long when the host had taken the memory back).
    pub touch_ns: Nanos,
    /// What was done, in words.
    pub note: String,
}

/// Why `--comparable-memory` cannot be honoured.
#[derive(Debug, thiserror::Error)]
pub enum GuestMemoryError {
    #[error(
        "--comparable-memory must write {path} (free page reporting: {reporting}), which needs root\n  fix: run as root (sudo), or leave out --comparable-memory / `comparable_memory: true` and read the report's `disturbed` notes"
    )]
    NotRoot { path: String, reporting: Reporting },
    #[error("--comparable-memory: cannot write {value} to {path}: {source}")]
    Write {
        path: String,
        value: String,
        #[source]
        source: std::io::Error,
    },
    #[error("--comparable-memory: cannot touch {size} before the run: {message}")]
    Touch { size: Bytes, message: String },
}

/// Where the knob and the runner's state file are (tests use a fake tree).
#[derive(Debug, Clone)]
pub struct Knob {
    /// `page_reporting_order`.
    pub order_file: PathBuf,
    /// Holds `<pid> <old value>` while a run has the order changed.
    pub state_file: PathBuf,
}

impl Default for Knob {
    fn default() -> Knob {
        let state_dir = if Path::new("/run").is_dir() {
            PathBuf::from("/run")
        } else {
            std::env::temp_dir()
        };
        Knob {
            order_file: Path::new("/")
                .join(PAGE_REPORTING)
                .join("page_reporting_order"),
            state_file: state_dir.join("pretouch-page-reporting-order"),
        }
    }
}

/// Restores `page_reporting_order` when dropped.
#[derive(Debug)]
pub struct OrderGuard {
    knob: Knob,
    old: String,
}

impl Drop for OrderGuard {
    fn drop(&mut self) {
        match std::fs::write(&self.knob.order_file, &self.old) {
            Ok(()) => {
                let _ = std::fs::remove_file(&self.knob.state_file);
            }
            Err(e) => eprintln!(
                "pretouch: could not restore {} to {}: {e}\n  restore it by hand: echo {} > {}",
                self.knob.order_file.display(),
                self.old,
                self.old,
                self.knob.order_file.display()
            ),
        }
    }
}

/// Restores a value left behind by a runner that died without restoring it (SIGKILL,
/// power loss); returns what it did, for a warning. Does nothing while that runner lives.
pub fn restore_leftover(knob: &Knob) -> Option<String> {
    let text = std::fs::read_to_string(&knob.state_file).ok()?;
    let (pid, old) = text.trim().split_once(' ')?;
    let pid: i32 = pid.parse().ok()?;
    // A live runner: the process exists and is a `pretouch` (pids are recycled).
    let alive = std::fs::read_to_string(format!("/proc/{pid}/comm"))
        .is_ok_and(|comm| comm.starts_with("pretouch"));
    if alive && pid != std::process::id() as i32 {
        return None;
    }
    match std::fs::write(&knob.order_file, old) {
        Ok(()) => {
            let _ = std::fs::remove_file(&knob.state_file);
            Some(format!(
                "restored {} to {old}, because the runner that changed it, pid {pid}, ended without restoring it",
                knob.order_file.display()
            ))
        }
        Err(e) => Some(format!(
            "{} was changed by a runner that ended, pid {pid}. Restoring it to {old} failed: {e}",
            knob.order_file.display()
        )),
    }
}

/// Stops free page reporting for the life of the returned guard, when it is on.
/// `Ok(None)` when nothing had to change (no reporting, or already idle).
fn stop_reporting(
    knob: &Knob,
    guest: &GuestInfo,
    is_root: bool,
) -> Result<Option<(OrderGuard, u32, u32)>, GuestMemoryError> {
    if !guest.reporting_on() {
        return Ok(None);
    }
    let (Some(before), Some(max)) = (guest.page_reporting_order, guest.max_page_order) else {
        return Ok(None);
    };
    let path = knob.order_file.display().to_string();
    if !is_root {
        return Err(GuestMemoryError::NotRoot {
            path,
            reporting: guest.reporting(),
        });
    }
    let old = before.to_string();
    let during = max + 1;
    std::fs::write(&knob.state_file, format!("{} {old}\n", std::process::id())).map_err(
        |source| GuestMemoryError::Write {
            path: knob.state_file.display().to_string(),
            value: old.clone(),
            source,
        },
    )?;
    let guard = OrderGuard {
        knob: knob.clone(),
        old,
    };
    std::fs::write(&knob.order_file, during.to_string()).map_err(|source| {
        GuestMemoryError::Write {
            path,
            value: during.to_string(),
            source,
        }
    })?;
    Ok(Some((guard, before, during)))
}

/// Touches `size` bytes of fresh anonymous memory from `threads` threads (with THP
/// where allowed, MADV_POPULATE_WRITE where the kernel has it), then frees it: memory
/// the host had taken back is backed again, and the next allocations get it.
fn touch_region(size: Bytes, threads: usize) -> Result<Nanos, GuestMemoryError> {
    const HUGE: usize = 2 << 20;
    let start = Nanos::monotonic_now();
    let len = usize::try_from(size.0).map_err(|_| GuestMemoryError::Touch {
        size,
        message: "too large for this machine".to_owned(),
    })?;
    let map_len = len + HUGE;
    // SAFETY: an anonymous private mapping with no fixed address; checked below.
    let base = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            map_len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
            -1,
            0,
        )
    };
    if base == libc::MAP_FAILED {
        return Err(GuestMemoryError::Touch {
            size,
            message: std::io::Error::last_os_error().to_string(),
        });
    }
    let aligned = (base as usize).next_multiple_of(HUGE);
    // SAFETY: [aligned, aligned + len) lies inside the mapping (map_len = len + HUGE).
    unsafe { libc::madvise(aligned as *mut libc::c_void, len, libc::MADV_HUGEPAGE) };
    let threads = threads.max(1);
    let chunk = (len / threads).next_multiple_of(HUGE);
    std::thread::scope(|scope| {
        for i in 0..threads {
            let from = i * chunk;
            if from >= len {
                break;
            }
            let n = chunk.min(len - from);
            let at = aligned + from;
            scope.spawn(move || {
                const MADV_POPULATE_WRITE: libc::c_int = 23;
                // SAFETY: [at, at + n) lies inside the mapping, which outlives the scope.
                let populated =
                    unsafe { libc::madvise(at as *mut libc::c_void, n, MADV_POPULATE_WRITE) } == 0;
                if !populated {
                    // Kernels before 5.14: one write a page.
                    for offset in (0..n).step_by(4096) {
                        // SAFETY: inside the mapping, writable, and no one else touches it.
                        unsafe { std::ptr::write_volatile((at + offset) as *mut u8, 1) };
                    }
                }
            });
        }
    });
    // SAFETY: unmaps exactly the mapping made above.
    unsafe { libc::munmap(base, map_len) };
    Ok(Nanos::monotonic_now().since(start).unwrap_or_default())
}

/// Holds guest memory in the guest for a run: stops free page reporting (root) and
/// touches `largest_heap` + 256 MiB once (`before_touch` is told its size first). The
/// guard restores the order when dropped.
pub fn hold(
    knob: &Knob,
    guest: &GuestInfo,
    largest_heap: Bytes,
    threads: usize,
    before_touch: impl FnOnce(Bytes),
) -> Result<(Option<OrderGuard>, ComparableMemory), GuestMemoryError> {
    let stopped = stop_reporting(knob, guest, crate::machine::host::is_root())?;
    let touched = Bytes(largest_heap.0 + (256 << 20));
    before_touch(touched);
    let touch_ns = touch_region(touched, threads)?;
    let (guard, record) = match stopped {
        Some((guard, before, during)) => (
            Some(guard),
            ComparableMemory {
                order_before: Some(before),
                order_during: Some(during),
                touched,
                touch_ns,
                note: format!(
                    "free page reporting stopped for the run, with page_reporting_order {before} -> {during} until it ends. {touched} touched before the first launch, in {touch_ns}."
                ),
            },
        ),
        None => (
            None,
            ComparableMemory {
                order_before: guest.page_reporting_order,
                order_during: None,
                touched,
                touch_ns,
                note: format!(
                    "free page reporting was not on ({}), so nothing changed. {touched} touched before the first launch, in {touch_ns}.",
                    guest.reporting()
                ),
            },
        ),
    };
    Ok((guard, record))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fake(dir: &Path, order: &str) -> (Knob, GuestInfo) {
        let knob = Knob {
            order_file: dir.join("page_reporting_order"),
            state_file: dir.join("state"),
        };
        std::fs::write(&knob.order_file, order).unwrap();
        let guest = GuestInfo {
            hypervisor_flag: true,
            balloon: true,
            balloon_reporting: true,
            page_reporting_order: order.trim().parse().ok(),
            max_page_order: Some(10),
            ..GuestInfo::default()
        };
        (knob, guest)
    }

    fn order(knob: &Knob) -> String {
        std::fs::read_to_string(&knob.order_file).unwrap()
    }

    #[test]
    fn the_order_is_raised_for_the_guard_s_life_and_restored() {
        let dir = tempfile::tempdir().unwrap();
        let (knob, guest) = fake(dir.path(), "9\n");
        let (guard, before, during) = stop_reporting(&knob, &guest, true).unwrap().unwrap();
        assert_eq!((before, during), (9, 11));
        assert_eq!(order(&knob), "11");
        assert!(knob.state_file.exists());
        drop(guard);
        assert_eq!(order(&knob), "9");
        assert!(!knob.state_file.exists());
    }

    #[test]
    fn a_panic_restores_too() {
        let dir = tempfile::tempdir().unwrap();
        let (knob, guest) = fake(dir.path(), "9\n");
        let k = knob.clone();
        let result = std::panic::catch_unwind(move || {
            let _guard = stop_reporting(&k, &guest, true).unwrap();
            panic!("a bug mid-run");
        });
        assert!(result.is_err());
        assert_eq!(order(&knob), "9");
    }

    #[test]
    fn without_root_it_refuses_and_changes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let (knob, guest) = fake(dir.path(), "9\n");
        let err = stop_reporting(&knob, &guest, false)
            .unwrap_err()
            .to_string();
        assert!(err.contains("needs root") && err.contains("fix:"), "{err}");
        assert_eq!(order(&knob), "9\n");
        assert!(!knob.state_file.exists());
    }

    #[test]
    fn nothing_to_do_when_reporting_is_off() {
        let dir = tempfile::tempdir().unwrap();
        let (knob, guest) = fake(dir.path(), "11\n");
        assert!(stop_reporting(&knob, &guest, false).unwrap().is_none());
        let no_balloon = GuestInfo::default();
        assert!(stop_reporting(&knob, &no_balloon, false).unwrap().is_none());
    }

    #[test]
    fn a_dead_runner_s_value_is_restored_a_live_one_s_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let (knob, _) = fake(dir.path(), "11\n");
        // Another live runner's value is left alone (a runner: its name starts with
        // `pretouch`; a recycled pid of another program is not one).
        let runner = dir.path().join("pretouch-test");
        std::fs::copy("/bin/sleep", &runner).unwrap();
        let child = std::process::Command::new(&runner)
            .arg("30")
            .spawn()
            .unwrap();
        // Until its exec completes, the child still bears the test thread's name.
        let comm = format!("/proc/{}/comm", child.id());
        for _ in 0..200 {
            if std::fs::read_to_string(&comm).is_ok_and(|c| c.starts_with("pretouch-test")) {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        std::fs::write(&knob.state_file, format!("{} 9\n", child.id())).unwrap();
        assert_eq!(restore_leftover(&knob), None);
        assert_eq!(order(&knob), "11\n");
        let mut child = child;
        child.kill().unwrap();
        child.wait().unwrap();
        // A live process of another name holding a recycled pid is not a runner.
        let other = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .unwrap();
        std::fs::write(&knob.state_file, format!("{} 9\n", other.id())).unwrap();
        let said = restore_leftover(&knob).unwrap();
        assert!(said.contains("restored") && said.contains("to 9"), "{said}");
        let mut other = other;
        other.kill().unwrap();
        other.wait().unwrap();
        assert_eq!(order(&knob), "9");
        assert!(!knob.state_file.exists());
        assert_eq!(restore_leftover(&knob), None, "nothing left");
    }

    #[test]
    fn the_matrix_key_asks_for_it() {
        let m = |extra: &str| {
            crate::matrix::Matrix::parse(
                "m.yaml",
                &format!("name: x\ngcs: [g1]\nheaps: [64m]\nrepetitions: 1\n{extra}"),
            )
        };
        assert!(m("comparable_memory: true\n").unwrap().comparable_memory);
        assert!(!m("").unwrap().comparable_memory);
        let e = m("comparable_memory: maybe\n").unwrap_err().to_string();
        assert!(e.contains("line 5"), "{e}");
    }

    #[test]
    fn touching_a_region_takes_time_and_frees_it() {
        let t = touch_region(Bytes(64 << 20), 2).unwrap();
        assert!(t > Nanos(0));
    }
}
