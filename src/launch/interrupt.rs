//! Interruption, beside the scheduler: SIGINT and SIGTERM stop a run between launches,
//! and kill the JVM under way so that no process keeps gigabytes of pretouched heap.
//!
//! The signal handler only stores the signal's number (async-signal-safe); a thread
//! woken by the same signal kills the running JVM. The scheduler checks the number
//! before each launch, and the launcher after it registered its child, so a JVM
//! started just as the signal came is killed too.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// Shared between the signal thread, the scheduler and the launcher.
#[derive(Clone, Default)]
pub struct Interrupt(Arc<Inner>);

#[derive(Default)]
struct Inner {
    /// The signal received, 0 while none was.
    signal: Arc<AtomicUsize>,
    /// 1 once SIGCONT came since [`Interrupt::take_continued`] last looked: the run was
    /// stopped (Ctrl-Z, SIGTSTP or SIGSTOP) and continued (`fg`), and a launch under way
    /// then has the stop in its times.
    continued: Arc<AtomicUsize>,
    /// The children under way (the JVM, a server's `after_ready` command), each with how
    /// a signal stops it.
    running: Mutex<Vec<(Arc<duct::Handle>, StopBy)>>,
}

/// How a signal stops the tracked child.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopBy {
    /// SIGKILL: a JVM, which must not keep its pretouched heap a moment longer.
    Kill,
    /// SIGINT, passed on: a child that stops its own children first (`pretouch run`,
    /// hyperfine), which SIGKILL would leave running as orphans.
    Forward,
    /// SIGTERM to the child's process group: a child started as a group leader whose
    /// own children do the work (`vng`, whose QEMU is a grandchild; QEMU ends the guest
    /// at once on SIGTERM, and `vng` ignores SIGINT).
    Group,
    /// SIGKILL to the child's process group: a JVM under a wrapper that forked it
    /// (`perf record`), which SIGKILL to the wrapper alone would leave running.
    KillGroup,
}

/// Keeps a child registered as running until dropped.
pub struct Tracked<'a> {
    interrupt: &'a Interrupt,
    child: Arc<duct::Handle>,
}

impl Drop for Tracked<'_> {
    fn drop(&mut self) {
        self.interrupt
            .lock()
            .retain(|(c, _)| !Arc::ptr_eq(c, &self.child));
    }
}

impl Interrupt {
    pub fn new() -> Interrupt {
        Interrupt::default()
    }

    /// Routes SIGINT and SIGTERM here for the rest of the process's life: they no longer
    /// end it, the scheduler does. SIGHUP is ignored (see [`ignore_hangup`]).
    pub fn install_signal_handlers(&self) -> std::io::Result<()> {
        use signal_hook::consts::{SIGCONT, SIGINT, SIGTERM};
        ignore_hangup()?;
        signal_hook::flag::register_usize(SIGCONT, Arc::clone(&self.0.continued), 1)?;
        for signal in [SIGINT, SIGTERM] {
            signal_hook::flag::register_usize(signal, Arc::clone(&self.0.signal), signal as usize)?;
        }
        let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM])?;
        let this = self.clone();
        std::thread::Builder::new()
            .name("pretouch-signals".to_owned())
            .spawn(move || {
                for _ in signals.forever() {
                    this.kill_running();
                }
            })?;
        Ok(())
    }

    /// What a signal does, without one: for tests and for callers that stop a run.
    pub fn raise(&self, signal: i32) {
        self.0
            .signal
            .store(usize::try_from(signal).unwrap_or(1), Ordering::SeqCst);
        self.kill_running();
    }

    /// Whether the run was continued after a stop since the last call (and forgets it).
    pub fn take_continued(&self) -> bool {
        self.0.continued.swap(0, Ordering::SeqCst) != 0
    }

    /// The signal received, if any.
    pub fn signal(&self) -> Option<i32> {
        match self.0.signal.load(Ordering::SeqCst) {
            0 => None,
            n => Some(i32::try_from(n).unwrap_or(i32::MAX)),
        }
    }

    /// Registers `child` as the running JVM, and kills it at once when a signal already
    /// came (the signal thread may have looked before it was registered).
    pub fn track(&self, child: Arc<duct::Handle>) -> Tracked<'_> {
        self.track_as(child, StopBy::Kill)
    }

    /// [`Interrupt::track`], stopping the child as `by` says.
    pub fn track_as(&self, child: Arc<duct::Handle>, by: StopBy) -> Tracked<'_> {
        self.lock().push((Arc::clone(&child), by));
        if self.signal().is_some() {
            self.kill_running();
        }
        Tracked {
            interrupt: self,
            child,
        }
    }

    /// Runs `expression` to its end like duct's `run`, stopped as `by` says when a signal
    /// comes; then fails with the signal's name, so that a caller never takes an
    /// interrupted child's output for a measurement.
    pub fn run(
        &self,
        expression: &duct::Expression,
        by: StopBy,
    ) -> std::io::Result<std::process::Output> {
        let child = Arc::new(expression.start()?);
        let output = {
            let _tracked = self.track_as(Arc::clone(&child), by);
            child.wait()?.clone()
        };
        match self.signal() {
            Some(signal) => Err(std::io::Error::other(format!(
                "interrupted by {}",
                signal_name(signal)
            ))),
            None => Ok(output),
        }
    }

    fn kill_running(&self) {
        for (child, by) in self.lock().iter() {
            let (to_group, signal) = match by {
                StopBy::Kill => {
                    // An error means the child was already reaped: nothing left to kill.
                    let _ = child.kill();
                    continue;
                }
                StopBy::Forward => (false, libc::SIGINT),
                StopBy::Group => (true, libc::SIGTERM),
                StopBy::KillGroup => (true, libc::SIGKILL),
            };
            signal_children(child, signal, to_group);
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<(Arc<duct::Handle>, StopBy)>> {
        self.0.running.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Sends `signal` to each of `child`'s processes, or with `to_group` to the process group
/// each leads (a child started with `process_group(0)`).
pub fn signal_children(child: &duct::Handle, signal: i32, to_group: bool) {
    for pid in child.pids() {
        if let Ok(pid) = libc::pid_t::try_from(pid) {
            let target = if to_group { -pid } else { pid };
            // SAFETY: kill(2) has no memory effects; a reaped pid or a gone group gives
            // ESRCH.
            unsafe { libc::kill(target, signal) };
        }
    }
}

/// A hang-up (the ssh session or terminal of an overnight run went away) does not stop
/// the run: it goes on without a terminal, as under `nohup`. SIGHUP is set to
/// `SIG_IGN`, which the JVMs inherit through exec, and HotSpot leaves an ignored SIGHUP
/// ignored, so the JVM under way is not ended either. Output to the lost terminal
/// fails from then on and is dropped (see `console.rs`); every launch is still in the
/// result file, which ends as usual. SIGINT and SIGTERM still stop the run.
fn ignore_hangup() -> std::io::Result<()> {
    // SAFETY: signal(2) with a valid signal number and SIG_IGN installs no handler, so
    // nothing runs in signal context; it touches no memory of ours.
    let previous = unsafe { libc::signal(libc::SIGHUP, libc::SIG_IGN) };
    if previous == libc::SIG_ERR {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// The shell's convention: 128 + the signal's number (130 for SIGINT, 143 for SIGTERM).
pub fn exit_code(signal: i32) -> u8 {
    u8::try_from(128 + signal).unwrap_or(u8::MAX)
}

/// `SIGINT`, `SIGTERM`, or the number.
pub fn signal_name(signal: i32) -> String {
    match signal {
        libc::SIGINT => "SIGINT".to_owned(),
        libc::SIGTERM => "SIGTERM".to_owned(),
        libc::SIGKILL => "SIGKILL".to_owned(),
        libc::SIGABRT => "SIGABRT".to_owned(),
        libc::SIGSEGV => "SIGSEGV".to_owned(),
        libc::SIGBUS => "SIGBUS".to_owned(),
        n => format!("signal {n}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    #[test]
    fn exit_codes_follow_the_shell() {
        assert_eq!(exit_code(libc::SIGINT), 130);
        assert_eq!(exit_code(libc::SIGTERM), 143);
        assert_eq!(signal_name(libc::SIGTERM), "SIGTERM");
    }

    #[test]
    fn a_raise_kills_the_tracked_child_and_one_started_after() {
        let interrupt = Interrupt::new();
        assert_eq!(interrupt.signal(), None);
        let child = Arc::new(duct::cmd!("sleep", "30").unchecked().start().unwrap());
        let start = Instant::now();
        {
            let _tracked = interrupt.track(Arc::clone(&child));
            interrupt.raise(libc::SIGINT);
            let status = child.wait().unwrap().status;
            assert_eq!(
                std::os::unix::process::ExitStatusExt::signal(&status),
                Some(9)
            );
        }
        assert_eq!(interrupt.signal(), Some(libc::SIGINT));
        // A child registered after the signal is killed on registration.
        let late = Arc::new(duct::cmd!("sleep", "30").unchecked().start().unwrap());
        let _tracked = interrupt.track(Arc::clone(&late));
        late.wait().unwrap();
        assert!(start.elapsed() < Duration::from_secs(20));
    }

    #[test]
    fn a_forwarded_signal_lets_the_child_stop_itself() {
        // The shell traps SIGINT, as `pretouch run` does, and says so before it exits.
        let interrupt = Interrupt::new();
        let dir = tempfile::tempdir().unwrap();
        let (said, armed) = (dir.path().join("said"), dir.path().join("armed"));
        let script = format!(
            "trap 'echo stopped cleanly > {}; exit 3' INT; : > {}; while :; do sleep 0.05; done",
            said.display(),
            armed.display()
        );
        let expression = duct::cmd!("sh", "-c", script)
            .before_spawn(|command| {
                // A shell cannot trap a signal ignored when it started, and a test run
                // from a non-interactive shell's background job inherits SIGINT ignored.
                // SAFETY: signal(2) is async-signal-safe, as pre_exec requires.
                unsafe {
                    std::os::unix::process::CommandExt::pre_exec(command, || {
                        libc::signal(libc::SIGINT, libc::SIG_DFL);
                        Ok(())
                    });
                }
                Ok(())
            })
            .unchecked();
        let raiser = {
            let interrupt = interrupt.clone();
            std::thread::spawn(move || {
                // Only once the trap is set: before, SIGINT would end the shell unheard.
                let start = Instant::now();
                while !armed.exists() && start.elapsed() < Duration::from_secs(20) {
                    std::thread::sleep(Duration::from_millis(10));
                }
                interrupt.raise(libc::SIGINT);
            })
        };
        let start = Instant::now();
        let err = interrupt.run(&expression, StopBy::Forward).unwrap_err();
        raiser.join().unwrap();
        assert!(err.to_string().contains("interrupted by SIGINT"), "{err}");
        assert!(start.elapsed() < Duration::from_secs(20));
        // SIGKILL would have left no word: the trap ran.
        assert_eq!(std::fs::read_to_string(&said).unwrap(), "stopped cleanly\n");
    }

    #[test]
    fn run_without_a_signal_returns_the_output() {
        let interrupt = Interrupt::new();
        let expression = duct::cmd!("sh", "-c", "echo hi").stdout_capture();
        let out = interrupt.run(&expression, StopBy::Kill).unwrap();
        assert_eq!(out.stdout, b"hi\n");
    }
}
