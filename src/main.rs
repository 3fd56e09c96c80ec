//! `pretouch`: matrix -> plan -> launches -> store -> report. Parses the command line,
//! dispatches to [`pretouch::cmd`], and maps errors to exit codes.

use std::process::ExitCode;

use clap::Parser;

use pretouch::cmd::{self, cli::Cli};
// Never panics on a closed stderr (`pretouch report | head`, a dropped ssh session).
use pretouch::eprintln;

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cmd::dispatch(cli.command) {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(cmd::error::exit_code(&e))
        }
    }
}
