//! `pretouch run`'s options for a campaign across reboots, flattened into its command
//! line, and the options of `pretouch campaign`.

use std::path::PathBuf;

use clap::Subcommand;

use crate::session::options::{Given, RunOptionsPart};

/// `run --boot`: where the kernels boot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum BootChoice {
    /// Each kernel in a VM, the default on a VM
    Vm,
    /// This machine boots each kernel with kexec, the default on bare metal
    Kexec,
    /// This machine reboots into each kernel through grub-reboot
    Reboot,
    /// Tests only: record each boot asked for in a file, boot nothing. It exists only in
    /// builds with the `test-support` feature, which `cargo test` turns on.
    #[cfg(feature = "test-support")]
    #[value(hide = true)]
    Fake,
}

impl BootChoice {
    /// How a campaign boots; `None` for VMs.
    pub fn method(self) -> Option<crate::features::campaign::boot::BootMethod> {
        use crate::features::campaign::boot::BootMethod;
        match self {
            BootChoice::Vm => None,
            BootChoice::Kexec => Some(BootMethod::Kexec),
            BootChoice::Reboot => Some(BootMethod::Reboot),
            #[cfg(feature = "test-support")]
            BootChoice::Fake => Some(BootMethod::Fake),
        }
    }
}

/// What `pretouch run` is asked about how the kernels boot.
#[derive(Debug, Clone, clap::Args)]
pub struct BootArgs {
    /// Where the kernels boot.
    ///
    /// With kexec or reboot, this machine boots each kernel in turn and a systemd unit
    /// goes on with the campaign at each boot, so it runs unattended. Use reboot where
    /// kexec is not safe. Both need root. They check everything, print the plan and ask
    /// before the first boot. `pretouch campaign` shows or stops the campaign.
    #[arg(long, value_enum, value_name = "HOW", conflicts_with_all = ["resume", "in_vm"])]
    pub boot: Option<BootChoice>,
    /// Start a campaign without asking. Without a terminal this is needed.
    #[arg(long)]
    pub yes: bool,
    /// Calibrate each kernel at each boot of a campaign, with N passes, before its run.
    /// The report then reads each cost against its kernel's ceiling.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub calibrate_per_boot: Option<u32>,
    /// With a campaign: install it under this folder instead of `/`. Tests only, so it
    /// exists only in builds with the `test-support` feature.
    #[cfg(feature = "test-support")]
    #[arg(long, hide = true, value_name = "DIR")]
    pub campaign_root: Option<PathBuf>,
}

impl RunOptionsPart for BootArgs {
    /// A run elsewhere gets none of these options, because they start the campaign on
    /// the host.
    fn passed_on(&self, _given: &Given, _values: &mut Vec<String>, _switches: &mut Vec<String>) {
        let BootArgs {
            boot: _,
            yes: _,
            calibrate_per_boot: _,
            #[cfg(feature = "test-support")]
                campaign_root: _,
        } = self;
    }
}

impl BootArgs {
    /// The folder a campaign is installed under, when a test gave one instead of `/`.
    pub fn campaign_root(&self) -> Option<&std::path::Path> {
        #[cfg(feature = "test-support")]
        return self.campaign_root.as_deref();
        #[cfg(not(feature = "test-support"))]
        None
    }
}

#[derive(Debug, clap::Args)]
pub struct CampaignArgs {
    #[command(subcommand)]
    pub action: CampaignAction,
    /// The folder the campaign is installed under instead of `/`. Tests only, so it
    /// exists only in builds with the `test-support` feature.
    #[cfg(feature = "test-support")]
    #[arg(
        long,
        hide = true,
        global = true,
        value_name = "DIR",
        default_value = "/"
    )]
    pub campaign_root: PathBuf,
}

impl CampaignArgs {
    /// The folder the campaign is installed under: `/`, unless a test said otherwise.
    pub fn root(&self) -> PathBuf {
        #[cfg(feature = "test-support")]
        return self.campaign_root.clone();
        #[cfg(not(feature = "test-support"))]
        PathBuf::from("/")
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Subcommand)]
pub enum CampaignAction {
    /// Show where the campaign stands, with its boots and the time left
    Status,
    /// End the campaign now and restore the default boot.
    ///
    /// The run under way stops, and its finished launches are kept. The report of what
    /// ran is written beside the results.
    Stop,
    /// What the campaign's systemd unit runs at each boot
    #[command(hide = true)]
    Continue,
}
