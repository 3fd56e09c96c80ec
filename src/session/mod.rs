//! Stage 7, a run's session: the life of one `pretouch run` below its command. It
//! checks the matrix and the machine before the first JVM, prepares the machine and
//! the result file, runs the schedule, restores the machine's settings and prints the
//! final report. `cmd::run` only parses the arguments into it.
//!
//! [`Session::new`] decides how the run goes: a fresh run or a resumed one on this
//! machine, a dry run, kernels in VMs, or a campaign across reboots. The kernels and
//! the campaign make their guests' and boots' command lines from the same options
//! ([`args::RunArgs::passed_on`]).

pub(crate) mod args;
pub(crate) mod checks;
mod dry_run;
pub mod error;
pub(crate) mod extra;
mod finish;
pub(crate) mod preflight;
mod prepare;
pub(crate) mod report;
mod resume;

use std::path::PathBuf;

use crate::features::campaign::boot::BootMethod;
use crate::features::campaign::session as campaign;
use crate::features::kernels::session as kernels;
use crate::matrix::Matrix;
use crate::session::args::RunArgs;
use crate::session::dry_run::dry_run;
use crate::session::error::bad;
use crate::session::finish::run_and_restore;
use crate::session::prepare::{fresh_matrix, prepare_fresh};
use crate::session::resume::run_resumed;

/// One `pretouch run`, made from its command line: [`Session::new`] checks what the
/// options and the matrix decide, and [`Session::run`] lives the run through.
pub(crate) struct Session {
    args: RunArgs,
    way: Way,
}

/// How a run goes, as its options and its matrix decide.
enum Way {
    /// `--resume` of a kernel session's file: its kernels again, in VMs.
    ResumeKernels(PathBuf),
    /// `--resume` of a result file: its missing launches, on this machine.
    Resume(PathBuf),
    /// Kernels booted on this machine, one boot a run.
    Campaign(Matrix, BootMethod),
    /// Kernels booted in VMs, the matrix run inside each.
    Kernels(Matrix),
    /// The plan and its command lines, nothing launched.
    DryRun(Matrix),
    /// A fresh run on this machine's kernel.
    Fresh(Matrix),
}

impl Session {
    /// The session of the run `args` asks for. Everything the user can get wrong on the
    /// command line or in the matrix is checked here, before the first JVM starts; a
    /// resume is checked against its file when it runs.
    pub(crate) fn new(args: RunArgs) -> anyhow::Result<Session> {
        let way = way_of(&args)?;
        Ok(Session { args, way })
    }

    /// Runs the session to its end: the preparation, the launches, the restore of the
    /// machine's settings and the report. `Ok` holds the exit code.
    pub(crate) fn run(self) -> anyhow::Result<u8> {
        let Session { args, way } = self;
        match way {
            Way::ResumeKernels(session) => kernels::cmd_resume_kernels(&args, &session),
            Way::Resume(path) => run_resumed(&args, &path),
            Way::Campaign(matrix, method) => campaign::cmd_start(&args, matrix, method),
            Way::Kernels(matrix) => kernels::cmd_run_kernels(&args, matrix),
            Way::DryRun(matrix) => dry_run(&args, matrix),
            Way::Fresh(matrix) => {
                let (session, machine) = prepare_fresh(&args, matrix)?;
                run_and_restore(&args, session, machine)
            }
        }
    }
}

/// How the run `args` asks for goes ([`Way`]), its command line and matrix checked.
fn way_of(args: &RunArgs) -> anyhow::Result<Way> {
    if let Some(path) = &args.resume {
        if let Some(session) = crate::features::kernels::record::session_file(path) {
            return Ok(Way::ResumeKernels(session));
        }
        return Ok(Way::Resume(path.clone()));
    }
    // Everything the user can get wrong is checked before the first JVM starts.
    let matrix = fresh_matrix(args)?;
    let kernels = !args.features.kernels.kernel.is_empty() || !matrix.kernels.is_empty();
    let bare_metal = || {
        crate::machine::guest::GuestInfo::read()
            .virtualization()
            .is_none()
    };
    let boot = boot_of(
        args.features.campaign.boot,
        kernels && args.features.kernels.in_vm.is_none(),
        bare_metal,
    );
    if let Some(method) = boot {
        if args.features.campaign.boot.is_none() {
            eprintln!(
                "pretouch: this machine is not a VM: the kernels boot on it, one boot a run, \
                 by kexec (the default on bare metal; --boot vm runs them in VMs instead)"
            );
        }
        return Ok(Way::Campaign(matrix, method));
    }
    for (given, flag) in [
        (args.features.campaign.yes, "--yes"),
        (
            args.features.campaign.calibrate_per_boot.is_some(),
            "--calibrate-per-boot",
        ),
        (
            args.features.campaign.campaign_root().is_some(),
            "--campaign-root",
        ),
    ] {
        if given {
            return Err(bad(anyhow::anyhow!(
                "{flag} applies to a campaign across reboots only\n  fix: add --boot kexec \
                 (or reboot) with the kernels, or leave {flag} out"
            )));
        }
    }
    if args.features.kernels.in_vm.is_none() && kernels {
        return Ok(Way::Kernels(matrix));
    }
    // Read only: the kernel has each file, and offers each value.
    crate::features::settings::session::check(&matrix, !args.dry_run)?;
    if args.dry_run {
        return Ok(Way::DryRun(matrix));
    }
    Ok(Way::Fresh(matrix))
}

/// How the kernels boot: as `--boot` says; without it, by kexec on bare metal and in
/// VMs on a VM. `None`: in VMs (or no kernels at all). `kernels`: the run has kernels
/// to boot (and is not itself a guest's).
fn boot_of(
    choice: Option<crate::features::campaign::options::BootChoice>,
    kernels: bool,
    bare_metal: impl FnOnce() -> bool,
) -> Option<BootMethod> {
    match choice {
        Some(choice) => choice.method(),
        None if kernels && bare_metal() => Some(BootMethod::Kexec),
        None => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::campaign::options::BootChoice;

    #[test]
    fn kernels_boot_by_kexec_on_bare_metal_and_in_vms_on_a_vm_unless_boot_says() {
        let never = || -> bool { panic!("not asked: --boot decides") };
        assert_eq!(boot_of(None, true, || true), Some(BootMethod::Kexec));
        assert_eq!(boot_of(None, true, || false), None);
        assert_eq!(
            boot_of(None, false, || true),
            None,
            "no kernels: no campaign"
        );
        assert_eq!(boot_of(Some(BootChoice::Vm), true, never), None);
        assert_eq!(
            boot_of(Some(BootChoice::Reboot), true, never),
            Some(BootMethod::Reboot)
        );
        assert_eq!(
            boot_of(Some(BootChoice::Kexec), true, never),
            Some(BootMethod::Kexec)
        );
    }
}
