//! Stage 8, the commands: one file per subcommand, each reading its arguments and
//! calling the stages below (session, schedule, analyze, render) in pipeline order.
//! Nothing below `cmd` imports it.
pub(crate) mod check;
pub mod cli;
mod env;
pub(crate) mod feature;
mod generate;
mod jdks;
pub(crate) mod report;
mod run;

pub use crate::session::error;

use cli::Command;

/// Runs one subcommand; `Ok` holds the exit code.
pub fn dispatch(command: Command) -> anyhow::Result<u8> {
    // Before anything else: a run killed with its kernel settings changed left them so.
    let before = crate::features::cli::before_any_command();
    match command {
        Command::Run(args) => run::cmd_run(args),
        Command::Report(args) => report::cmd_report(args),
        Command::Check(args) => check::cmd_check(&args),
        Command::Jdks(args) => jdks::cmd_jdks(&args),
        Command::Env(args) => env::cmd_env(args, &before),
        Command::Feature(command) => command.run(),
        Command::Generate(args) => generate::cmd_generate(&args),
    }
}
