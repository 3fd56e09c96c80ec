//! What `pretouch run` does about the machine before the first launch: restore a
//! setting a killed runner left changed, hold guest memory in the guest when asked
//! (`--comparable-memory`), and warn when the machine hands memory back to its host.
//! Whether it is busy is judged over the run's first launch (`schedule::progress`).

use anyhow::Context;

use crate::launch::interrupt::Interrupt;
use crate::machine::guest::GuestInfo;
use crate::machine::guest_memory::{self, ComparableMemory, Knob, OrderGuard};
use crate::machine::lock::{self, MachineLock};
use crate::matrix::Matrix;
use crate::session::error::bad;
use crate::units::Bytes;

/// Restores a `page_reporting_order` left changed by a runner that was killed.
pub(crate) fn restore_leftover() {
    if let Some(message) = guest_memory::restore_leftover(&Knob::default()) {
        eprintln!("warning: {message}");
    }
}

/// With `wanted`, stops free page reporting for the run and touches the largest heap
/// once; the guard restores the setting when dropped. Refuses (bad input) without root
/// when reporting is on.
pub(crate) fn comparable_memory(
    wanted: bool,
    matrix: &Matrix,
) -> anyhow::Result<(Option<OrderGuard>, Option<ComparableMemory>)> {
    restore_leftover();
    if !wanted {
        return Ok((None, None));
    }
    let guest = GuestInfo::read();
    let largest = matrix.largest_heap();
    let threads = crate::matrix::cpuset::available().map_or(1, |c| c.len());
    let (guard, record) = guest_memory::hold(&Knob::default(), &guest, largest, threads, |size| {
        eprintln!("pretouch: --comparable-memory: touching {size} once before the first launch")
    })
    .map_err(bad)?;
    eprintln!("  {}", record.note);
    Ok((guard, Some(record)))
}

/// What `--comparable-memory` would do on this machine, for `--dry-run` (which changes
/// nothing).
pub(crate) fn comparable_memory_plan(matrix: &Matrix) -> String {
    let guest = GuestInfo::read();
    let largest = matrix.largest_heap();
    let touch = Bytes(largest.0 + (256 << 20));
    match (guest.reporting_on(), guest.max_page_order) {
        (true, Some(max)) if crate::machine::host::is_root() => format!(
            "--comparable-memory: a real run would set page_reporting_order {} -> {} for the run (restored afterwards) and touch {touch} before the first launch",
            guest.page_reporting_order.unwrap_or(max),
            max + 1
        ),
        (true, _) => format!(
            "note: a real run would stop here: --comparable-memory needs root on this machine (free page reporting: {})",
            guest.reporting()
        ),
        (false, _) => format!(
            "--comparable-memory: free page reporting is not on ({}), so a real run would only touch {touch} before the first launch",
            guest.reporting()
        ),
    }
}

/// Warns when free page reporting is on without `--comparable-memory`.
pub(crate) fn warn_about_the_machine(comparable: bool) {
    let guest = GuestInfo::read();
    if guest.reporting_on() && !comparable {
        eprintln!(
            "{}",
            textwrap::fill(
                &format!(
                    "warning: this machine is a VM, {}. Its free page reporting is on, so memory freed between launches goes back to the host within seconds. Launches that touch that memory again pay the host's faults too, which makes them several times slower. The report marks such launches. --comparable-memory stops the reporting for the run, as root.",
                    crate::analyze::env::virtualization(guest.virtualization().as_ref())
                ),
                80
            )
            .replace('\n', "\n  ")
        );
    }
    // Whether the machine is busy is judged over the first launch (a warm-up, when the
    // matrix has one) instead of a sample before it: see `schedule::progress`.
}

/// What a run holds while its JVMs run: the signal handlers, the one-run-at-a-time
/// lock and, with `--comparable-memory`, free page reporting stopped (restored when
/// dropped: at the end, on SIGINT/SIGTERM, as the run returns, and on a panic).
pub(crate) struct Held {
    pub interrupt: Interrupt,
    _lock: MachineLock,
    _reporting: Option<OrderGuard>,
    /// What `--comparable-memory` did, for the run header.
    pub comparable_memory: Option<ComparableMemory>,
}

/// Holds the machine for a run ([`Held`]), `comparable` asking for comparable memory,
/// and warns about what the machine does behind the run.
pub(crate) fn hold(comparable: bool, matrix: &Matrix) -> anyhow::Result<Held> {
    let interrupt = Interrupt::new();
    interrupt
        .install_signal_handlers()
        .context("installing the SIGINT/SIGTERM handlers")?;
    let lock = lock::acquire_or_warn();
    let (reporting, comparable_memory) = comparable_memory(comparable, matrix)?;
    warn_about_the_machine(comparable);
    Ok(Held {
        interrupt,
        _lock: lock,
        _reporting: reporting,
        comparable_memory,
    })
}
