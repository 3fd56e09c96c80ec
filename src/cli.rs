//! Command-line options (clap derive), turned into runtime settings by `main`.

use std::path::PathBuf;

use clap::{Parser, Subcommand};

use crate::export::Format;

const EXIT_CODES: &str = "\
Exit codes:
  0  success
  1  an error while running (I/O, a JDK that cannot be queried)
  2  bad input: command line, matrix, JDK or agent path; nothing was started
  3  the run completed but some launches failed (they are recorded, and in no median)";

#[derive(Debug, Parser)]
#[command(
    name = "pretouch",
    version,
    about = "Measure what -XX:+AlwaysPreTouch costs a JVM at startup, and how a kernel change moves it",
    after_help = EXIT_CODES
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Launch every cell of a matrix with and without -XX:+AlwaysPreTouch and store each launch
    Run(RunArgs),
    /// Print the median pretouch cost per cell from stored results
    Report(ReportArgs),
}

#[derive(Debug, clap::Args)]
pub struct RunArgs {
    /// Matrix YAML file; without it, the built-in `quick` matrix (configs/quick.yaml)
    pub matrix: Option<PathBuf>,
    /// Name the results are compared under [default: the kernel release, `uname -r`]
    #[arg(long)]
    pub label: Option<String>,
    /// Folder of result files; each run writes <DIR>/<label>/<name>-<UTC time>.jsonl
    #[arg(long, default_value = "results")]
    pub results: PathBuf,
    /// Agent library [default: $PRETOUCH_AGENT, else libpretouch_agent.so beside this binary]
    #[arg(long)]
    pub agent: Option<PathBuf>,
    /// Seconds a launch may take to reach main() before it is killed and recorded as failed
    #[arg(long, default_value_t = 300)]
    pub timeout: u64,
    /// Format of the table printed at the end
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

#[derive(Debug, clap::Args)]
pub struct ReportArgs {
    /// Result files or folders of them [default: results]
    pub paths: Vec<PathBuf>,
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Write the report to FILE instead of stdout
    #[arg(long)]
    pub output: Option<PathBuf>,
}

#[cfg(test)]
mod tests {
    #[test]
    fn verify_cli() {
        use clap::CommandFactory;
        super::Cli::command().debug_assert();
    }
}
