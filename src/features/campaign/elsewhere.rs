//! Whether a run with kernels goes across reboots of this machine. The campaign is asked
//! before the kernels' VMs, because it boots the kernels on bare metal unless `--boot`
//! says otherwise. It refuses its own options for a run that is not a campaign.

use crate::features::campaign::boot::BootMethod;
use crate::matrix::Matrix;
use crate::session::args::RunArgs;
use crate::session::elsewhere::{Elsewhere, Where};

/// Kernels booted on this machine, one boot a run.
struct Campaign(Matrix, BootMethod);

impl Elsewhere for Campaign {
    fn run(self: Box<Self>, args: &RunArgs) -> anyhow::Result<u8> {
        crate::features::campaign::session::cmd_start(args, self.0, self.1)
    }
}

/// Takes the fresh run of `matrix` that `args` asks for across reboots, when its kernels
/// boot on this machine. Otherwise it hands the matrix back, and refuses the options that
/// apply only to a campaign.
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
        return Ok(Where::Elsewhere(Box::new(Campaign(matrix, method))));
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
    Ok(Where::Here(Box::new(matrix)))
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
