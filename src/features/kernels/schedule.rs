//! One matrix, several kernels: each kernel booted in a VM ([`VmRunner`]) that runs the
//! same matrix with this `pretouch` (`pretouch run --in-vm WORK`), writing its result
//! file into the shared results folder. A kernel that does not boot, or whose run fails,
//! is recorded with its console tail and the next one goes on; the session file
//! ([`KernelSession`]) says where each kernel stands, so `--resume` continues at the
//! first unfinished kernel (and resumes that kernel's own result file inside the guest).
//! Emits [`KernelEvent`]s; never prints.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::features::kernels::launch::{
    BOOTED_FILE, CONSOLE_FILE, EXIT_FILE, VmOutcome, VmRequest, VmRunner,
};
use crate::features::kernels::machine::{Accel, VmShape};
use crate::kernel::guest::GuestCommand;
use crate::kernel::session::{KernelSession, KernelState, KernelStatus};
use crate::launch::interrupt::Interrupt;
use crate::schedule::resume::file_finished;
use crate::units::Bytes;

/// Written by `pretouch run --in-vm WORK` inside the guest: the result file it writes
/// (as soon as it exists, so an interrupted run can be resumed).
pub const RESULT_FILE: &str = "result";
/// Written by the host before each boot, read by the guest: the VM's [`VmShape`].
pub const SHAPE_FILE: &str = "vm.json";

/// The VM every kernel gets.
#[derive(Debug, Clone)]
pub struct VmPlan {
    pub cpus: u32,
    pub memory: Bytes,
    pub accel: Accel,
    /// The shape stored with each label; image and cmdline are set per kernel.
    pub shape: VmShape,
    pub boot_timeout: Duration,
}

/// What happened, for the command to print.
#[derive(Debug)]
pub enum KernelEvent<'a> {
    /// A kernel is about to boot (`index` of `total`, from 0).
    Booting {
        index: usize,
        total: usize,
        kernel: &'a KernelState,
        resuming: bool,
    },
    /// Its result file had already run to its end: nothing to boot.
    AlreadyDone {
        index: usize,
        kernel: &'a KernelState,
    },
    /// The kernel's VM ended; `kernel.status` says how.
    Ended {
        index: usize,
        kernel: &'a KernelState,
        outcome: &'a VmOutcome,
    },
}

/// How a session ended.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct SessionSummary {
    /// Kernels done (now and before).
    pub done: usize,
    /// Kernels that failed to boot or whose run failed.
    pub failed: usize,
    /// Kernels done whose run had failed launches (the guest's exit code 3).
    pub with_failed_launches: usize,
    /// The signal that stopped the session; the kernels after it did not run.
    pub interrupted: Option<i32>,
}

/// Runs every unfinished kernel of `session` in order, saving the session file after
/// each change.
pub fn run_session(
    session: &mut KernelSession,
    session_path: &Path,
    runner: &mut dyn VmRunner,
    guest: &GuestCommand,
    vm: &VmPlan,
    interrupt: Option<&Interrupt>,
    events: &mut dyn FnMut(KernelEvent<'_>),
) -> std::io::Result<SessionSummary> {
    let dir = session_path.parent().unwrap_or(Path::new(".")).to_owned();
    let total = session.kernels.len();
    let mut summary = SessionSummary::default();
    let todo: Vec<usize> = session.unfinished().collect();
    for index in todo {
        if let Some(signal) = interrupt.and_then(Interrupt::signal) {
            summary.interrupted = Some(signal);
            break;
        }
        let work = dir.join(format!("k{}", index + 1));
        let kernel = &mut session.kernels[index];
        // A run that reached its end (the host stopped before it noted so) is done.
        if kernel.result_file.as_deref().is_some_and(file_finished) {
            kernel.status = KernelStatus::Done;
            session.save(session_path)?;
            events(KernelEvent::AlreadyDone {
                index,
                kernel: &session.kernels[index],
            });
            continue;
        }
        let boot = next_boot(session, index, guest, vm, &work);
        prepare_work(&work, &boot.shape)?;
        session.save(session_path)?;
        events(KernelEvent::Booting {
            index,
            total,
            kernel: &session.kernels[index],
            resuming: boot.resuming,
        });

        let outcome = runner.run(&boot.request);

        note_outcome(&mut session.kernels[index], &work, &outcome);
        session.save(session_path)?;
        let kernel = &session.kernels[index];
        summary.count(kernel, &outcome);
        events(KernelEvent::Ended {
            index,
            kernel,
            outcome: &outcome,
        });
        if summary.interrupted.is_some() {
            break;
        }
    }
    summary.done = session
        .kernels
        .iter()
        .filter(|k| k.status == KernelStatus::Done)
        .count();
    Ok(summary)
}

/// One kernel's boot, as prepared: what its VM runs, the shape its work folder is
/// given, and whether its run resumes a result file.
struct KernelBoot {
    request: VmRequest,
    shape: VmShape,
    resuming: bool,
}

/// Kernel `index` marked running for one more boot, and that boot prepared in `work`:
/// the guest resumes the kernel's result file when it has one unfinished, else runs
/// fresh.
fn next_boot(
    session: &mut KernelSession,
    index: usize,
    guest: &GuestCommand,
    vm: &VmPlan,
    work: &Path,
) -> KernelBoot {
    let kernel = &mut session.kernels[index];
    let resume_file = kernel
        .result_file
        .clone()
        .filter(|f| f.is_file() && !file_finished(f));
    kernel.status = KernelStatus::Running;
    kernel.boots += 1;
    kernel.console = Some(work.join(CONSOLE_FILE));
    let command = match &resume_file {
        Some(file) => guest.resume(file, work),
        None => guest.fresh(kernel.label.as_deref(), &session.results, work),
    };
    let request = VmRequest {
        image: kernel.image.clone(),
        cmdline: kernel.cmdline.clone(),
        cpus: vm.cpus,
        memory: vm.memory,
        accel: vm.accel,
        rwdirs: vec![session.results.clone()],
        work: work.to_owned(),
        command,
        boot_timeout: vm.boot_timeout,
    };
    let shape = VmShape {
        image: kernel.image.clone(),
        kernel_cmdline: kernel.cmdline.clone(),
        ..vm.shape.clone()
    };
    KernelBoot {
        request,
        shape,
        resuming: resume_file.is_some(),
    }
}

/// What the kernel's VM left: the result file its guest named in `work`, the release
/// that came up, and its status from how the VM ended.
fn note_outcome(kernel: &mut KernelState, work: &Path, outcome: &VmOutcome) {
    if let Some(file) = read_result_path(work) {
        kernel.result_file = Some(file);
    }
    if outcome.booted.is_some() {
        kernel.release.clone_from(&outcome.booted);
    }
    classify(kernel, outcome);
}

impl SessionSummary {
    /// Counts a kernel whose VM ended (`kernel.status` says how): done with failed
    /// launches, interrupted (the session stops), or failed.
    fn count(&mut self, kernel: &KernelState, outcome: &VmOutcome) {
        match kernel.status {
            KernelStatus::Done => {
                self.with_failed_launches += usize::from(outcome.exit_code == Some(3));
            }
            KernelStatus::Interrupted => {
                self.interrupted = outcome.interrupted.or(Some(libc::SIGINT));
            }
            _ => self.failed += 1,
        }
    }
}

/// Sets the kernel's status and message from how its VM ended.
fn classify(kernel: &mut KernelState, outcome: &VmOutcome) {
    let finished_file = kernel.result_file.as_deref().is_some_and(file_finished);
    let (status, message) = if let Some(signal) = outcome.interrupted {
        (
            KernelStatus::Interrupted,
            Some(format!(
                "interrupted by {}",
                crate::launch::interrupt::signal_name(signal)
            )),
        )
    } else if outcome.booted.is_none() {
        let why = if outcome.boot_timed_out {
            format!(
                "did not boot within {} s, so the VM was stopped",
                outcome.elapsed.as_secs()
            )
        } else if let Some(e) = &outcome.error {
            format!("did not boot: {e}")
        } else {
            "did not boot: the guest never ran its command".to_owned()
        };
        (KernelStatus::BootFailed, Some(why))
    } else {
        match outcome.exit_code {
            Some(0) if finished_file => (KernelStatus::Done, None),
            Some(3) if finished_file => (
                KernelStatus::Done,
                Some("some launches failed (recorded, in no median)".to_owned()),
            ),
            Some(130 | 143) => (
                KernelStatus::Interrupted,
                Some("the run inside the guest was interrupted".to_owned()),
            ),
            Some(code) => (
                KernelStatus::RunFailed,
                Some(format!("pretouch in the guest exited with code {code}")),
            ),
            None => (
                KernelStatus::RunFailed,
                Some(
                    "the guest stopped before its run ended (kernel panic, out of memory, \
                     or a power-off?)"
                        .to_owned(),
                ),
            ),
        }
    };
    kernel.status = status;
    kernel.message = message;
}

/// The result file a guest named in `work`, if any.
fn read_result_path(work: &Path) -> Option<PathBuf> {
    let text = std::fs::read_to_string(work.join(RESULT_FILE)).ok()?;
    Some(PathBuf::from(text.trim())).filter(|p| !p.as_os_str().is_empty())
}

/// A clean work folder for one boot: no markers of an earlier boot, and the VM's shape.
fn prepare_work(work: &Path, shape: &VmShape) -> std::io::Result<()> {
    std::fs::create_dir_all(work)?;
    for name in [BOOTED_FILE, EXIT_FILE, RESULT_FILE] {
        match std::fs::remove_file(work.join(name)) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
    }
    std::fs::write(
        work.join(SHAPE_FILE),
        serde_json::to_string_pretty(shape).map_err(std::io::Error::other)?,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::session::SESSION_FORMAT;
    use std::collections::VecDeque;

    /// What the fake VM does on its next boot.
    #[derive(Debug, Clone)]
    enum Boot {
        /// The kernel does not boot: the console says why.
        Panics,
        /// Boots; the run writes its file and ends with this code.
        Runs { code: i32 },
        /// Boots; the run writes part of its file, then the host is interrupted.
        Interrupted,
        /// Boots; the run exits 1 before writing anything.
        Fails,
    }

    /// A VM that plays what the guest would do: a result file in the results folder,
    /// named in `work/result`, with the label the command asked for.
    struct FakeVm {
        boots: VecDeque<Boot>,
        requests: Vec<VmRequest>,
    }

    fn arg_after<'a>(command: &'a [String], flag: &str) -> Option<&'a str> {
        let at = command.iter().position(|a| a == flag)?;
        command.get(at + 1).map(String::as_str)
    }

    fn write_file(path: &Path, label: &str, end: bool) {
        crate::fixtures::write_empty_run(path, label, "2026-11-30T10:00:00Z", end);
    }

    impl VmRunner for FakeVm {
        fn run(&mut self, request: &VmRequest) -> VmOutcome {
            self.requests.push(request.clone());
            // The host wrote the shape for the guest.
            let shape: VmShape = serde_json::from_str(
                &std::fs::read_to_string(request.work.join(SHAPE_FILE)).unwrap(),
            )
            .unwrap();
            assert_eq!(shape.image, request.image);
            let boot = self.boots.pop_front().expect("an unexpected boot");
            let release = request
                .image
                .file_name()
                .unwrap()
                .to_string_lossy()
                .into_owned();
            let label = arg_after(&request.command, "--label")
                .unwrap_or(&release)
                .to_owned();
            let file = match arg_after(&request.command, "--resume") {
                Some(f) => PathBuf::from(f),
                None => PathBuf::from(arg_after(&request.command, "--results").unwrap())
                    .join(&label)
                    .join("quick.jsonl"),
            };
            let mut outcome = VmOutcome {
                booted: Some(release),
                console_tail: "[ 1.0] virtme-ng-init: starting script".into(),
                ..VmOutcome::default()
            };
            match boot {
                Boot::Panics => {
                    outcome.booted = None;
                    outcome.console_tail = "Kernel panic - not syncing: VFS".into();
                    outcome.error = Some("`vng` ended with exit status: 255".into());
                }
                Boot::Runs { code } => {
                    write_file(&file, &label, true);
                    std::fs::write(request.work.join(RESULT_FILE), file.display().to_string())
                        .unwrap();
                    outcome.exit_code = Some(code);
                }
                Boot::Interrupted => {
                    write_file(&file, &label, false);
                    std::fs::write(request.work.join(RESULT_FILE), file.display().to_string())
                        .unwrap();
                    outcome.interrupted = Some(libc::SIGINT);
                }
                Boot::Fails => outcome.exit_code = Some(1),
            }
            outcome
        }
    }

    fn session(results: &Path, images: &[&str]) -> KernelSession {
        KernelSession {
            format: SESSION_FORMAT,
            name: "quick".into(),
            matrix_origin: "m.yaml".into(),
            matrix_sha256: "00".into(),
            started_at: "2026-11-30T10:00:00Z".into(),
            results: results.to_owned(),
            kernels: images
                .iter()
                .map(|i| KernelState::pending(PathBuf::from("/boot").join(i), None, None))
                .collect(),
            probe_rounds: None,
            profile_rounds: None,
            runs: None,
        }
    }

    fn plan() -> VmPlan {
        VmPlan {
            cpus: 1,
            memory: Bytes(1 << 30),
            accel: Accel::Tcg,
            shape: VmShape {
                accel: Accel::Tcg,
                emulated: true,
                accel_reason: "test".into(),
                qemu_version: None,
                vng_version: None,
                vcpus: 1,
                memory: Bytes(1 << 30),
                prealloc: true,
                image: PathBuf::new(),
                kernel_cmdline: None,
                host_kernel_release: "6.18".into(),
                host_kernel_version: "#1".into(),
                host_hostname: "h".into(),
                host_cpu_model: "c".into(),
            },
            boot_timeout: Duration::from_secs(60),
        }
    }

    fn guest() -> GuestCommand {
        GuestCommand {
            program: "/bin/pretouch".into(),
            matrix: Some("/m.yaml".into()),
            options: vec!["--timeout".into(), "300".into()],
        }
    }

    fn run(
        s: &mut KernelSession,
        path: &Path,
        vm: &mut FakeVm,
        interrupt: Option<&Interrupt>,
    ) -> (SessionSummary, Vec<String>) {
        let mut said = Vec::new();
        let summary = run_session(s, path, vm, &guest(), &plan(), interrupt, &mut |e| {
            said.push(match e {
                KernelEvent::Booting {
                    index, resuming, ..
                } => format!("boot {index} resuming={resuming}"),
                KernelEvent::AlreadyDone { index, .. } => format!("done already {index}"),
                KernelEvent::Ended { index, kernel, .. } => {
                    format!("ended {index} {:?}", kernel.status)
                }
            })
        })
        .unwrap();
        (summary, said)
    }

    #[test]
    fn a_kernel_that_does_not_boot_or_whose_run_fails_does_not_stop_the_others() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("vm-runs/s/session.json");
        let mut s = session(dir.path(), &["a", "b", "c", "d"]);
        let mut vm = FakeVm {
            boots: [
                Boot::Runs { code: 0 },
                Boot::Panics,
                Boot::Fails,
                Boot::Runs { code: 3 },
            ]
            .into(),
            requests: vec![],
        };
        let (summary, said) = run(&mut s, &path, &mut vm, None);
        assert_eq!(
            said,
            [
                "boot 0 resuming=false",
                "ended 0 Done",
                "boot 1 resuming=false",
                "ended 1 BootFailed",
                "boot 2 resuming=false",
                "ended 2 RunFailed",
                "boot 3 resuming=false",
                "ended 3 Done"
            ]
        );
        assert_eq!(
            summary,
            SessionSummary {
                done: 2,
                failed: 2,
                with_failed_launches: 1,
                interrupted: None
            }
        );
        let saved = KernelSession::load(&path).unwrap();
        assert_eq!(saved, s);
        assert!(
            saved.kernels[1]
                .message
                .as_deref()
                .unwrap()
                .contains("did not boot")
        );
        assert!(
            saved.kernels[2]
                .message
                .as_deref()
                .unwrap()
                .contains("exited with code 1")
        );
        assert_eq!(
            saved.kernels[0].result_file,
            Some(dir.path().join("a/quick.jsonl"))
        );
        assert_eq!(saved.kernels[0].release.as_deref(), Some("a"));
        // Each kernel booted in its own work folder, with the same VM shape.
        let works: Vec<&Path> = vm.requests.iter().map(|r| r.work.as_path()).collect();
        assert_eq!(works[0], dir.path().join("vm-runs/s/k1"));
        assert!(
            vm.requests
                .iter()
                .all(|r| r.cpus == 1 && r.rwdirs == [dir.path()])
        );
        assert!(vm.requests[0].command.ends_with(&[
            "--timeout".into(),
            "300".into(),
            "--in-vm".into(),
            dir.path().join("vm-runs/s/k1").display().to_string()
        ]));
    }

    #[test]
    fn an_interrupted_session_resumes_at_the_first_unfinished_kernel() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("vm-runs/s/session.json");
        let mut s = session(dir.path(), &["a", "b", "c"]);
        s.kernels[1].label = Some("patched".into());
        let mut vm = FakeVm {
            boots: [Boot::Runs { code: 0 }, Boot::Interrupted].into(),
            requests: vec![],
        };
        let (summary, said) = run(&mut s, &path, &mut vm, None);
        assert_eq!(summary.interrupted, Some(libc::SIGINT));
        assert_eq!(said.last().unwrap(), "ended 1 Interrupted");
        assert_eq!(vm.requests.len(), 2, "c must not boot after the interrupt");
        let partial = dir.path().join("patched/quick.jsonl");
        assert!(!file_finished(&partial));

        // The resume reads the session back, skips a, and resumes b's own file.
        let mut s = KernelSession::load(&path).unwrap();
        assert_eq!(s.unfinished().collect::<Vec<_>>(), [1, 2]);
        let mut vm = FakeVm {
            boots: [Boot::Runs { code: 0 }, Boot::Runs { code: 0 }].into(),
            requests: vec![],
        };
        let (summary, said) = run(&mut s, &path, &mut vm, None);
        assert_eq!(said[0], "boot 1 resuming=true");
        assert_eq!(
            arg_after(&vm.requests[0].command, "--resume"),
            Some(partial.to_str().unwrap())
        );
        assert_eq!(arg_after(&vm.requests[1].command, "--resume"), None);
        assert_eq!(summary.done, 3);
        assert_eq!(s.kernels[1].boots, 2);
        assert!(file_finished(&partial));
    }

    #[test]
    fn a_signal_before_a_boot_starts_no_vm_and_a_finished_file_needs_no_boot() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s/session.json");
        let mut s = session(dir.path(), &["a", "b"]);
        // a's guest finished, but the host was killed before it noted so.
        let file = dir.path().join("a/quick.jsonl");
        write_file(&file, "a", true);
        s.kernels[0].status = KernelStatus::Running;
        s.kernels[0].result_file = Some(file);
        let interrupt = Interrupt::new();
        let mut vm = FakeVm {
            boots: VecDeque::new(),
            requests: vec![],
        };
        interrupt.raise(libc::SIGTERM);
        let (summary, said) = run(&mut s, &path, &mut vm, Some(&interrupt));
        assert!(said.is_empty() && vm.requests.is_empty());
        assert_eq!(summary.interrupted, Some(libc::SIGTERM));
        let (summary, said) = run(
            &mut s,
            &path,
            &mut FakeVm {
                boots: [Boot::Runs { code: 0 }].into(),
                requests: vec![],
            },
            None,
        );
        assert_eq!(
            said,
            ["done already 0", "boot 1 resuming=false", "ended 1 Done"]
        );
        assert_eq!(summary.done, 2);
    }

    #[test]
    fn guest_commands_carry_the_label_results_and_work_folder() {
        let g = guest();
        let fresh = g.fresh(Some("base"), Path::new("/r"), Path::new("/r/w"));
        assert_eq!(
            fresh.join(" "),
            "/bin/pretouch run /m.yaml --label base --results /r --timeout 300 --in-vm /r/w"
        );
        let resume = g.resume(Path::new("/r/base/q.jsonl"), Path::new("/r/w"));
        assert_eq!(
            resume.join(" "),
            "/bin/pretouch run --resume /r/base/q.jsonl /m.yaml --timeout 300 --in-vm /r/w"
        );
    }
}
