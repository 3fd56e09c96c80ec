//! A campaign across reboots (`pretouch run --boot kexec|reboot`): the boot loaders,
//! the systemd unit that continues the run at each boot, and the campaign's state.
//!
//! One file per stage of the pipeline, named after the stage folder it plugs into.

pub mod analyze;
pub mod boot;
pub mod cli;
pub mod elsewhere;
pub mod options;
pub mod record;
pub mod schedule;
pub mod session;
pub mod unit;
