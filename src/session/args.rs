//! `pretouch run`'s options (clap derive), which a run's session is made from; and the
//! options a run elsewhere (a kernel's guest) gets from them.

use std::path::PathBuf;

use clap::ValueEnum;

use crate::features::campaign::options::BootArgs;
use crate::features::kernels::options::KernelArgs;
use crate::features::probe::options::ProbeArgs;
use crate::features::profile::options::ProfileArgs;
use crate::render::common::Format;

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
