//! The runs that the features take elsewhere than this machine's kernel, kernels in VMs
//! and campaigns across reboots, one line per way. The run's life in `session/` asks
//! this list where a run goes, so it names no feature. It is a list of its own, apart
//! from `features/session.rs`, because the kernels and the campaign run the core's
//! checks, which call that list.

use std::path::{Path, PathBuf};

use crate::features::campaign::boot::BootMethod;
use crate::matrix::Matrix;
use crate::session::args::RunArgs;

/// A run that a feature takes elsewhere than this machine's kernel.
pub(crate) enum Elsewhere {
    /// `--resume` of a kernel session's file: its kernels again, in VMs.
    ResumeKernels(PathBuf),
    /// Kernels booted on this machine, one boot a run.
    Campaign(Matrix, BootMethod),
    /// Kernels booted in VMs, the matrix run inside each.
    Kernels(Matrix),
}

impl Elsewhere {
    /// Runs it to its end; `Ok` holds the exit code.
    pub(crate) fn run(self, args: &RunArgs) -> anyhow::Result<u8> {
        match self {
            Elsewhere::ResumeKernels(session) => {
                crate::features::kernels::session::cmd_resume_kernels(args, &session)
            }
            Elsewhere::Campaign(matrix, method) => {
                crate::features::campaign::session::cmd_start(args, matrix, method)
            }
            Elsewhere::Kernels(matrix) => {
                crate::features::kernels::session::cmd_run_kernels(args, matrix)
            }
        }
    }
}

/// Where a fresh run goes: elsewhere, as a feature runs it, or on this machine's kernel
/// with its matrix.
pub(crate) enum Where {
    Elsewhere(Elsewhere),
    Here(Matrix),
}

/// The run elsewhere that `--resume PATH` asks for, when PATH is a feature's own file,
/// such as a kernel session's.
pub(crate) fn resumed_elsewhere(path: &Path) -> Option<Elsewhere> {
    crate::features::kernels::record::session_file(path).map(Elsewhere::ResumeKernels)
}

/// Where the fresh run of `matrix` that `args` asks for goes. The options that apply
/// only to a run elsewhere are refused for a run here.
pub(crate) fn elsewhere(args: &RunArgs, matrix: Matrix) -> anyhow::Result<Where> {
    let kernels = !args.features.kernels.kernel.is_empty() || !matrix.features.kernels.is_empty();
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
        return Ok(Where::Elsewhere(Elsewhere::Campaign(matrix, method)));
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
            return Err(crate::session::error::bad(anyhow::anyhow!(
                "{flag} applies to a campaign across reboots only\n  fix: add --boot kexec \
                 (or reboot) with the kernels, or leave {flag} out"
            )));
        }
    }
    if args.features.kernels.in_vm.is_none() && kernels {
        return Ok(Where::Elsewhere(Elsewhere::Kernels(matrix)));
    }
    Ok(Where::Here(matrix))
}

/// How the kernels boot. `--boot` says so, and without it they boot by kexec on bare
/// metal and in VMs on a VM. `None` means in VMs, or that there are no kernels at all.
/// `kernels` says the run has kernels to boot, so it is not itself a guest's.
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
