//! Boot one kernel in a VM and run one command inside it: virtme-ng (`vng`), which boots
//! the image in QEMU over a copy-on-write view of this machine's root filesystem, so the
//! guest finds this `pretouch`, the agent and the JDKs at the same paths. Behind the
//! [`VmRunner`] seam, so that the orchestration over kernels is tested without a VM.
//!
//! A boot's files live in one work folder, which the guest can write: the script the
//! guest runs, `booted` (the guest's `uname -r`, written first thing: the kernel booted),
//! `exit` (the command's exit code: it ran to its end) and `console.log` (the kernel's
//! console and the command's output, for the tail shown when something failed).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::features::kernels::machine::Accel;
use crate::launch::interrupt::{Interrupt, StopBy};
use crate::units::Bytes;

/// Written by the guest before its command: its kernel release.
pub const BOOTED_FILE: &str = "booted";
/// Written by the guest after its command: the command's exit code.
pub const EXIT_FILE: &str = "exit";
/// The console and the command's output.
pub const CONSOLE_FILE: &str = "console.log";
/// The shell script the guest runs.
const SCRIPT_FILE: &str = "guest.sh";
/// Where virtme-ng is installed by `scripts/setup-vm.sh`.
const VNG_DEFAULT: &str = "/opt/virtme-ng/bin/vng";
/// Lines of the console kept in an outcome.
const CONSOLE_TAIL_LINES: usize = 25;

/// One boot: which kernel, the VM's shape, and the command the guest runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VmRequest {
    /// The kernel image.
    pub image: PathBuf,
    /// Boot parameters added to virtme-ng's own.
    pub cmdline: Option<String>,
    pub cpus: u32,
    /// Guest memory, preallocated by QEMU before boot.
    pub memory: Bytes,
    /// `tcg`: emulate (`vng --disable-kvm`); `kvm`: hardware virtualization.
    pub accel: Accel,
    /// Host folders the guest may write, at the same paths (results, the work folder).
    pub rwdirs: Vec<PathBuf>,
    /// This boot's files; inside one of `rwdirs`.
    pub work: PathBuf,
    /// The command the guest runs, program first.
    pub command: Vec<String>,
    /// The guest must have written [`BOOTED_FILE`] by then, or the VM is stopped and the
    /// boot counted as failed (a kernel that hangs).
    pub boot_timeout: Duration,
}

/// How one boot went.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct VmOutcome {
    /// The guest's kernel release, when it booted far enough to run the command.
    pub booted: Option<String>,
    /// The command's exit code, when it ran to its end.
    pub exit_code: Option<i32>,
    /// The guest did not boot within the request's timeout, and was stopped.
    pub boot_timed_out: bool,
    /// A SIGINT or SIGTERM stopped the VM (its number).
    pub interrupted: Option<i32>,
    /// The VM could not be started, or how `vng` ended when that says more than the rest.
    pub error: Option<String>,
    /// The last lines of the console.
    pub console_tail: String,
    /// Start of `vng` to its end.
    pub elapsed: Duration,
}

/// Boots a kernel, runs the request's command in it, and says how that went.
pub trait VmRunner {
    fn run(&mut self, request: &VmRequest) -> VmOutcome;
}

/// The markers a guest left in `work`: its release, and its command's exit code.
fn read_markers(work: &Path) -> (Option<String>, Option<i32>) {
    let read = |name: &str| {
        std::fs::read_to_string(work.join(name))
            .ok()
            .map(|t| t.trim().to_owned())
            .filter(|t| !t.is_empty())
    };
    (
        read(BOOTED_FILE),
        read(EXIT_FILE).and_then(|t| t.parse().ok()),
    )
}

/// The last `CONSOLE_TAIL_LINES` lines of the console, without carriage returns.
pub fn console_tail(work: &Path) -> String {
    let bytes = std::fs::read(work.join(CONSOLE_FILE)).unwrap_or_default();
    let text = String::from_utf8_lossy(&bytes).replace('\r', "");
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(CONSOLE_TAIL_LINES)..].join("\n")
}

/// `vng`: `$PRETOUCH_VNG` (if it is a file), else `vng` on PATH, else where `scripts/setup-vm.sh` puts it.
pub fn locate_vng() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("PRETOUCH_VNG") {
        let p = PathBuf::from(p);
        return p.is_file().then_some(p);
    }
    locate_on_path("vng").or_else(|| Some(PathBuf::from(VNG_DEFAULT)).filter(|p| p.is_file()))
}

/// `program` in the first folder of PATH that has it.
pub fn locate_on_path(program: &str) -> Option<PathBuf> {
    let paths = std::env::var_os("PATH")?;
    std::env::split_paths(&paths)
        .map(|d| d.join(program))
        .find(|p| p.is_file())
}

/// `program` and its arguments as one line of `sh`, each word single-quoted.
fn shell_words(words: &[String]) -> String {
    words
        .iter()
        .map(|w| format!("'{}'", w.replace('\'', r"'\''")))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The real runner: `vng --run IMAGE ... -- /bin/sh WORK/guest.sh`.
pub struct VngRunner {
    vng: PathBuf,
    interrupt: Option<Interrupt>,
}

impl VngRunner {
    pub fn new(vng: PathBuf) -> VngRunner {
        VngRunner {
            vng,
            interrupt: None,
        }
    }

    /// A SIGINT or SIGTERM then stops the VM (SIGTERM to `vng`'s process group: QEMU ends).
    pub fn with_interrupt(mut self, interrupt: Interrupt) -> VngRunner {
        self.interrupt = Some(interrupt);
        self
    }

    pub fn vng(&self) -> &Path {
        &self.vng
    }

    /// `vng`'s arguments for a request. `--verbose` puts the kernel's console on stderr
    /// (without it a boot failure leaves nothing to show); memory is preallocated.
    pub fn arguments(&self, request: &VmRequest) -> Vec<String> {
        let mut args = vec![
            "--run".to_owned(),
            request.image.display().to_string(),
            "--verbose".to_owned(),
            "--cpus".to_owned(),
            request.cpus.to_string(),
            "--memory".to_owned(),
            format!("{}M", request.memory.0.div_ceil(1 << 20)),
            "--qemu-opts=-mem-prealloc".to_owned(),
        ];
        if request.accel == Accel::Tcg {
            args.push("--disable-kvm".to_owned());
            // Under emulation a loaded host delays the guest's timer ticks, and the
            // kernel's boot check of the IO-APIC timer then panics ("IO-APIC + timer
            // doesn't work!"; seen beside stress-ng). The check only looks for broken
            // timer hardware, which QEMU's is not.
            args.push("--append".to_owned());
            args.push("no_timer_check".to_owned());
        }
        if let Some(cmdline) = &request.cmdline {
            args.push("--append".to_owned());
            args.push(cmdline.clone());
        }
        for dir in &request.rwdirs {
            args.push("--rwdir".to_owned());
            args.push(dir.display().to_string());
        }
        args.push("--".to_owned());
        args.push("/bin/sh".to_owned());
        args.push(request.work.join(SCRIPT_FILE).display().to_string());
        args
    }

    /// The script the guest runs: say it booted, run the command, say how it ended.
    pub fn script(request: &VmRequest) -> String {
        let work = |name: &str| shell_words(&[request.work.join(name).display().to_string()]);
        format!(
            "#!/bin/sh\n# Written by pretouch for one boot; runs inside the guest.\nuname -r > {booted}\n{command}\necho $? > {exit}\n",
            booted = work(BOOTED_FILE),
            command = shell_words(&request.command),
            exit = work(EXIT_FILE),
        )
    }

    fn start(&self, request: &VmRequest) -> std::io::Result<duct::Handle> {
        std::fs::create_dir_all(&request.work)?;
        std::fs::write(request.work.join(SCRIPT_FILE), Self::script(request))?;
        let console = std::fs::File::create(request.work.join(CONSOLE_FILE))?;
        // vng runs `virtme-run` from PATH: put vng's own folder (a venv's bin) first.
        let mut path = self
            .vng
            .parent()
            .map(|d| vec![d.to_owned()])
            .unwrap_or_default();
        if let Some(old) = std::env::var_os("PATH") {
            path.extend(std::env::split_paths(&old));
        }
        let path = std::env::join_paths(path).map_err(std::io::Error::other)?;
        duct::cmd(&self.vng, self.arguments(request))
            .env("PATH", path)
            .stdin_null()
            .stderr_to_stdout()
            .stdout_file(console)
            .unchecked()
            .before_spawn(|command| {
                use std::os::unix::process::CommandExt;
                // Its own process group: SIGTERM reaches QEMU, a grandchild.
                command.process_group(0);
                Ok(())
            })
            .start()
    }
}

/// SIGTERM, or SIGKILL, to the process group `child` leads.
fn signal_group(child: &duct::Handle, signal: libc::c_int) {
    for pid in child.pids() {
        if let Ok(pid) = libc::pid_t::try_from(pid) {
            // SAFETY: kill(2) has no memory effects; a gone group gives ESRCH.
            unsafe { libc::kill(-pid, signal) };
        }
    }
}

impl VmRunner for VngRunner {
    fn run(&mut self, request: &VmRequest) -> VmOutcome {
        let start = Instant::now();
        let child = match self.start(request) {
            Ok(child) => Arc::new(child),
            Err(e) => {
                return VmOutcome {
                    error: Some(format!("cannot start `{}`: {e}", self.vng.display())),
                    elapsed: start.elapsed(),
                    ..VmOutcome::default()
                };
            }
        };
        let tracked = self
            .interrupt
            .as_ref()
            .map(|i| i.track_as(Arc::clone(&child), StopBy::Group));
        let booted_file = request.work.join(BOOTED_FILE);
        let mut timed_out_at: Option<Instant> = None;
        let status = loop {
            match child.try_wait() {
                Ok(Some(output)) => break Some(output.status),
                Ok(None) => {}
                Err(_) => break None,
            }
            match timed_out_at {
                None if start.elapsed() > request.boot_timeout && !booted_file.exists() => {
                    signal_group(&child, libc::SIGTERM);
                    timed_out_at = Some(Instant::now());
                }
                Some(at) if at.elapsed() > Duration::from_secs(10) => {
                    signal_group(&child, libc::SIGKILL);
                }
                _ => {}
            }
            std::thread::sleep(Duration::from_millis(200));
        };
        drop(tracked);
        let (booted, exit_code) = read_markers(&request.work);
        let interrupted = self.interrupt.as_ref().and_then(Interrupt::signal);
        let error = match status {
            None => Some("lost track of `vng`".to_owned()),
            Some(s) if exit_code.is_none() && !s.success() && interrupted.is_none() => {
                Some(format!("`vng` ended with {s}"))
            }
            _ => None,
        };
        VmOutcome {
            booted,
            exit_code,
            boot_timed_out: timed_out_at.is_some(),
            interrupted,
            error,
            console_tail: console_tail(&request.work),
            elapsed: start.elapsed(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(work: &Path, accel: Accel) -> VmRequest {
        VmRequest {
            image: "/boot/vmlinuz-6.12".into(),
            cmdline: Some("transparent_hugepage=always".into()),
            cpus: 2,
            memory: Bytes(1536 << 20),
            accel,
            rwdirs: vec![work.parent().unwrap().to_owned()],
            work: work.to_owned(),
            command: vec!["/x/pretouch".into(), "run".into(), "it's".into()],
            boot_timeout: Duration::from_secs(5),
        }
    }

    #[test]
    fn arguments_ask_for_the_shape_and_emulate_only_under_tcg() {
        let runner = VngRunner::new("vng".into());
        let work = Path::new("/r/vm/w");
        let tcg = runner.arguments(&request(work, Accel::Tcg));
        let text = tcg.join(" ");
        assert!(text.starts_with("--run /boot/vmlinuz-6.12 --verbose --cpus 2 --memory 1536M"));
        assert!(tcg.contains(&"--qemu-opts=-mem-prealloc".to_owned()));
        assert!(tcg.contains(&"--disable-kvm".to_owned()));
        assert!(text.contains("--append transparent_hugepage=always --rwdir /r/vm"));
        assert!(text.ends_with("-- /bin/sh /r/vm/w/guest.sh"), "{text}");
        assert!(text.contains("--disable-kvm --append no_timer_check --append"));
        let kvm = runner.arguments(&request(work, Accel::Kvm));
        assert!(!kvm.contains(&"--disable-kvm".to_owned()));
        assert!(!kvm.contains(&"no_timer_check".to_owned()));
    }

    #[test]
    fn the_script_marks_boot_and_exit_and_quotes_every_word() {
        let script = VngRunner::script(&request(Path::new("/r/w"), Accel::Tcg));
        assert!(script.contains("uname -r > '/r/w/booted'\n"));
        assert!(
            script.contains("'/x/pretouch' 'run' 'it'\\''s'\n"),
            "{script}"
        );
        assert!(script.ends_with("echo $? > '/r/w/exit'\n"));
    }

    /// A stand-in for `vng` that runs the guest script on this machine: the runner's
    /// process handling, markers and console, without QEMU.
    fn fake_vng(dir: &Path, before: &str) -> PathBuf {
        let vng = dir.join("vng");
        std::fs::write(
            &vng,
            format!(
                "#!/bin/sh\necho 'fake vng: booting'\n{before}\nfor last; do :; done\nexec /bin/sh \"$last\"\n"
            ),
        )
        .unwrap();
        std::fs::set_permissions(&vng, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .unwrap();
        vng
    }

    #[test]
    fn a_guest_that_runs_reports_its_release_exit_and_console() {
        let dir = tempfile::tempdir().unwrap();
        let work = dir.path().join("w");
        let mut req = request(&work, Accel::Tcg);
        req.command = vec!["sh".into(), "-c".into(), "echo inside; exit 3".into()];
        let outcome = VngRunner::new(fake_vng(dir.path(), "")).run(&req);
        assert!(outcome.booted.is_some(), "{outcome:?}");
        assert_eq!(outcome.exit_code, Some(3));
        assert_eq!(outcome.error, None);
        assert!(outcome.console_tail.contains("fake vng: booting\ninside"));
    }

    #[test]
    fn a_kernel_that_never_boots_is_stopped_at_the_boot_timeout() {
        let dir = tempfile::tempdir().unwrap();
        let work = dir.path().join("w");
        let mut req = request(&work, Accel::Tcg);
        req.boot_timeout = Duration::from_millis(500);
        let start = Instant::now();
        let outcome =
            VngRunner::new(fake_vng(dir.path(), "echo 'Kernel panic'; sleep 60")).run(&req);
        assert!(start.elapsed() < Duration::from_secs(30));
        assert!(outcome.boot_timed_out);
        assert_eq!(outcome.booted, None);
        assert!(outcome.console_tail.contains("Kernel panic"));
    }

    #[test]
    fn an_interrupt_stops_the_whole_vm_process_group() {
        let dir = tempfile::tempdir().unwrap();
        let work = dir.path().join("w");
        let mut req = request(&work, Accel::Tcg);
        // The "QEMU" is a grandchild of the runner, as with the real vng.
        req.command = vec!["sh".into(), "-c".into(), "sleep 60 & wait".into()];
        let interrupt = Interrupt::new();
        let raiser = {
            let interrupt = interrupt.clone();
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(800));
                interrupt.raise(libc::SIGINT);
            })
        };
        let start = Instant::now();
        let outcome = VngRunner::new(fake_vng(dir.path(), ""))
            .with_interrupt(interrupt)
            .run(&req);
        raiser.join().unwrap();
        assert!(start.elapsed() < Duration::from_secs(30));
        assert_eq!(outcome.interrupted, Some(libc::SIGINT));
        assert_eq!(outcome.exit_code, None);
    }

    #[test]
    fn a_missing_vng_is_an_error_not_a_panic() {
        let dir = tempfile::tempdir().unwrap();
        let outcome = VngRunner::new(dir.path().join("no-vng"))
            .run(&request(&dir.path().join("w"), Accel::Tcg));
        assert!(outcome.error.unwrap().contains("cannot start"));
        assert_eq!(outcome.booted, None);
    }
}
