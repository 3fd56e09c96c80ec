//! Before the first launch: does the largest heap of the matrix, pretouched, fit in this
//! machine's memory? Pretouch makes the JVM touch every page of its heap: a heap larger
//! than the available memory invokes the OOM killer (or swaps), and measures nothing.

use crate::matrix::Matrix;
use crate::units::Bytes;

/// The memory a JVM needs besides its heap, pretouched, up to `main()`: a fixed part
/// (code, metaspace, threads, CDS) plus a share of the heap (card table, mark bitmaps,
/// remembered sets).
///
/// Measured with the agent's RSS stamp at `main()` (OpenJDK 17.0.15 and Temurin 25.0.3,
/// G1/Parallel/Serial): 42-51 MiB over the heap at 256m, 48-122 MiB at 2g, G1 the
/// largest (about 4% of the heap). The estimate, 64 MiB + 1/16 of the heap, is above
/// every measurement.
pub fn jvm_overhead(heap: Bytes) -> Bytes {
    Bytes((64 << 20) + heap.0 / 16)
}

/// `MemAvailable` from the text of /proc/meminfo.
fn parse_mem_available(meminfo: &str) -> Option<Bytes> {
    meminfo.lines().find_map(|line| {
        let rest = line.strip_prefix("MemAvailable:")?.trim();
        let kib: u64 = rest.strip_suffix("kB")?.trim().parse().ok()?;
        Some(Bytes(kib.checked_mul(1024)?))
    })
}

/// This machine's available memory now (`MemAvailable` of /proc/meminfo).
pub fn mem_available() -> Option<Bytes> {
    parse_mem_available(&std::fs::read_to_string("/proc/meminfo").ok()?)
}

#[derive(Debug, thiserror::Error)]
#[error(
    "{}: heap {heap} needs about {needed} with the JVM's own memory, \
     but this machine has {available} available (MemAvailable): pretouching it would \
     invoke the OOM killer or swap, and measure nothing\n  \
     fix: use heaps up to {largest_fitting} on this machine, or pass --force to run anyway",
    at
)]
pub struct TooLarge {
    /// Where the heap is: the matrix's line, or the flag that gave it.
    pub at: String,
    pub heap: String,
    pub needed: Bytes,
    pub available: Bytes,
    /// The largest heap whose estimate fits.
    pub largest_fitting: Bytes,
}

/// Refuses a matrix whose largest heap, with [`jvm_overhead`], exceeds `available`.
/// Launches never overlap, so only the largest heap matters.
pub fn check(matrix: &Matrix, available: Bytes) -> Result<(), TooLarge> {
    let Some(heap) = matrix.heaps.iter().max_by_key(|h| h.bytes) else {
        return Ok(());
    };
    let needed = Bytes(heap.bytes.0.saturating_add(jvm_overhead(heap.bytes).0));
    if needed <= available {
        return Ok(());
    }
    // heap + 64 MiB + heap/16 <= available  <=>  heap <= (available - 64 MiB) * 16/17
    // Rounded down to whole MiB.
    let fitting = available.0.saturating_sub(64 << 20) / 17 * 16;
    let largest_fitting = Bytes(fitting & !((1 << 20) - 1));
    Err(TooLarge {
        at: matrix.place_at("heaps", line_of_heap(&matrix.text, &heap.text)),
        heap: heap.text.clone(),
        needed,
        available,
        largest_fitting,
    })
}

/// The line of the `heaps` key's value holding `heap`.
fn line_of_heap(text: &str, heap: &str) -> Option<usize> {
    let start = text
        .lines()
        .position(|l| l.trim_start().starts_with("heaps"))?;
    text.lines()
        .enumerate()
        .skip(start)
        .find(|(_, l)| {
            l.split(|c: char| !c.is_ascii_alphanumeric())
                .any(|word| word == heap)
        })
        .map(|(i, _)| i + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MEMINFO: &str = "MemTotal:       24594124 kB\nMemFree:         1000000 kB\nMemAvailable:   22345678 kB\nBuffers:           1 kB\n";

    fn matrix(heaps: &str) -> Matrix {
        Matrix::parse(
            "m.yaml",
            &format!("name: x\ngcs: [g1]\nheaps:\n  - 64m\n  - {heaps}\nrepetitions: 1\n"),
        )
        .unwrap()
    }

    #[test]
    fn reads_mem_available() {
        assert_eq!(parse_mem_available(MEMINFO), Some(Bytes(22_345_678 * 1024)));
        assert_eq!(parse_mem_available("MemTotal: 5 kB\n"), None);
        assert!(mem_available().is_some_and(|b| b.0 > 0));
    }

    #[test]
    fn overhead_covers_the_measured_rss() {
        // RSS at main() over the heap, measured: G1 2g on JDK 17 took 122 MiB.
        assert!(jvm_overhead(Bytes(2 << 30)) >= Bytes(122 << 20));
        assert!(jvm_overhead(Bytes(256 << 20)) >= Bytes(51 << 20));
    }

    #[test]
    fn a_heap_too_large_is_refused_with_its_line_and_the_fix() {
        let available = Bytes(24 << 30);
        check(&matrix("16g"), available).unwrap();
        let e = check(&matrix("32g"), available).unwrap_err();
        assert_eq!(e.at, "matrix `m.yaml`, line 5");
        assert_eq!(e.needed, Bytes((32 << 30) + (64 << 20) + (2 << 30)));
        let message = e.to_string();
        assert!(
            message.starts_with("matrix `m.yaml`, line 5: heap 32g needs about 34.1 GiB"),
            "{message}"
        );
        assert!(message.contains("--force"), "{message}");
        // The suggested heap fits, and 1 MiB... a few MiB more would not.
        let fit = e.largest_fitting;
        assert!(fit.0 + jvm_overhead(fit).0 <= available.0);
        let over = Bytes(fit.0 + (4 << 20));
        assert!(over.0 + jvm_overhead(over).0 > available.0);
    }
}
