//! `pretouch run`'s options (clap derive), which a run's session is made from; and the
//! options a run elsewhere (a kernel's guest) gets from them.

use std::path::PathBuf;

use clap::ValueEnum;

use crate::features::options::{RUNS_OWN_LAST, RunOptions};
use crate::render::common::Format;

#[derive(Debug, Clone, clap::Args)]
pub struct RunArgs {
    /// The matrix YAML file.
    ///
    /// Without it, the run uses the built-in matrix of configs/quick.yaml. The axes that
    /// --gc, --heap, --jdk, --rounds and --warmup give replace the file's, or the
    /// built-in matrix's, for this run. The result file stores the matrix as it ran.
    pub matrix: Option<PathBuf>,
    #[command(flatten)]
    pub axes: MatrixArgs,
    /// The name the results are filed and compared under [default: the kernel release]
    #[arg(long)]
    pub label: Option<String>,
    /// The folder of result files. Each run writes DIR/LABEL/NAME-TIME.jsonl.
    #[arg(long, default_value = "results")]
    pub results: PathBuf,
    /// The agent library to load [default: $PRETOUCH_AGENT, or the built-in agent]
    #[arg(long)]
    pub agent: Option<PathBuf>,
    /// Seconds a launch may take to reach main(). A slower launch is killed and
    /// recorded as failed. The limit is a week.
    #[arg(long, default_value_t = 300, value_parser = clap::value_parser!(u64).range(1..=604_800))]
    pub timeout: u64,
    /// The format of the report printed at the end
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Go on with an interrupted run.
    ///
    /// PATH is a result file, a label folder or the session folder of a `--kernel` run.
    /// A label folder goes on with its newest unfinished file. A session folder goes on
    /// at its first unfinished kernel. The run adds exactly the missing launches to that
    /// file. It refuses when the matrix file changed since, or when the kernel release or
    /// the JDKs differ. MATRIX defaults to the file the run was started with.
    #[arg(long, value_name = "PATH", conflicts_with_all = ["label", "results"])]
    pub resume: Option<PathBuf>,
    /// Run a heap larger than this machine's available memory. Such a launch may meet
    /// the OOM killer or swap.
    #[arg(long)]
    pub force: bool,
    /// Stop at the first failed launch instead of going on with the other cells. The
    /// failed launch is recorded, and --resume goes on.
    #[arg(long)]
    pub fail_fast: bool,
    /// Check the matrix and print the launches without starting them.
    ///
    /// It prints their number, their command lines and a rough duration. A matrix that
    /// names ZGC or Shenandoah first asks each JDK which collectors it has, as a run does,
    /// unless the cache of the JDKs' answers holds them.
    #[arg(long, conflicts_with = "resume")]
    pub dry_run: bool,
    /// Do not pass -Xlog:gc+heap=debug,startuptime to the JVMs. The JVM's own account of
    /// its pretouch is then not recorded.
    #[arg(long)]
    pub no_jvm_log: bool,
    /// The features' options, one list (`features::options`).
    #[command(flatten)]
    pub features: RunOptions,
    /// Start every launch from the same guest memory on a VM.
    ///
    /// As root, it stops free page reporting for the run and touches a heap-sized region
    /// once before the first launch. The setting is restored at the end, also after
    /// Ctrl-C. The matrix key `comparable_memory: true` does the same.
    #[arg(long, display_order = RUNS_OWN_LAST)]
    pub comparable_memory: bool,
    /// Give a cell up after N failed launches in a row, so the run goes on with the
    /// other cells. The cell's remaining launches are recorded as skipped, with the
    /// reason. 0 never gives up.
    #[arg(long, value_name = "N", default_value_t = 3, display_order = RUNS_OWN_LAST + 1)]
    pub give_up_after: u32,
    /// Run although _JAVA_OPTIONS, JAVA_TOOL_OPTIONS or JDK_JAVA_OPTIONS is set.
    ///
    /// Their options go on every launch's command line, where each record shows them,
    /// and the variables are not passed on. Without this option a run refuses to start
    /// while one is set, because the JVM would apply options no record names.
    #[arg(long, display_order = RUNS_OWN_LAST + 2)]
    pub pass_java_options: bool,
}

/// The axes of a run: `pretouch run --gc g1,parallel --heap 512m,4g --jdk 25 --rounds 10`.
/// Each replaces that axis of the matrix file, or of the built-in quick matrix without a
/// file, and the result file stores the matrix as it ran ([`crate::matrix::flags`]).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct MatrixArgs {
    /// The collectors to run, separated by commas, in place of the matrix's [default:
    /// g1,parallel]
    ///
    /// They are g1, parallel, serial, zgc, zgc-generational, zgc-nongenerational,
    /// shenandoah and epsilon. The option can be given more than once.
    #[arg(
        long = "gc",
        value_name = "GC",
        value_delimiter = ',',
        conflicts_with = "resume"
    )]
    pub gcs: Vec<String>,
    /// The heap sizes to run, such as 512m,4g, in place of the matrix's [default:
    /// 128m,512m]
    ///
    /// Each is both -Xms and -Xmx. The option can be given more than once.
    #[arg(
        long = "heap",
        value_name = "SIZE",
        value_delimiter = ',',
        allow_hyphen_values = true,
        conflicts_with = "resume"
    )]
    pub heaps: Vec<String>,
    /// The JDKs to run, separated by commas, in place of the matrix's [default:
    /// JAVA_HOME, then java on PATH]
    ///
    /// Each is a JDK home, a java binary, a feature version such as 25, or `auto` for
    /// every JDK installed. The option can be given more than once.
    #[arg(
        long = "jdk",
        value_name = "JDK",
        value_delimiter = ',',
        conflicts_with = "resume"
    )]
    pub jdks: Vec<String>,
    /// The counted rounds of each cell, in place of the matrix's `repetitions` [default:
    /// 20]
    #[arg(
        long,
        value_name = "N",
        value_parser = crate::matrix::flags::count,
        allow_negative_numbers = true,
        conflicts_with = "resume"
    )]
    pub rounds: Option<u32>,
    /// The uncounted rounds before them, in place of the matrix's `warmup` [default: 1]
    #[arg(
        long,
        value_name = "N",
        value_parser = crate::matrix::flags::count,
        allow_negative_numbers = true,
        conflicts_with = "resume"
    )]
    pub warmup: Option<u32>,
}

impl MatrixArgs {
    /// The flags as the matrix stage reads them.
    pub(crate) fn flags(&self) -> crate::matrix::flags::Flags<'_> {
        crate::matrix::flags::Flags {
            gcs: &self.gcs,
            heaps: &self.heaps,
            jdks: &self.jdks,
            rounds: self.rounds,
            warmup: self.warmup,
        }
    }
}

/// The values a run elsewhere gets in place of this command line's own. They are the
/// agent file as an absolute path, or `None` for the built-in one, and the features'
/// values.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct PassedOn {
    pub agent: Option<PathBuf>,
    pub features: crate::session::options::Given,
}

impl RunArgs {
    /// The matrix of a fresh run: MATRIX, or the built-in one, with the axes of the
    /// matrix flags in place of its own ([`crate::matrix::Matrix::of_run`]). A feature
    /// that runs the matrix elsewhere from a file, such as the kernels in VMs, refuses
    /// the flags.
    pub(crate) fn matrix_of_run(&self) -> anyhow::Result<crate::matrix::Matrix> {
        let flags = self.axes.flags();
        let matrix = crate::matrix::Matrix::of_run(self.matrix.as_deref(), &flags)
            .map_err(crate::session::error::bad)?;
        if flags.any() {
            self.features
                .check_matrix_flags(&flags.command_line(), &matrix)?;
        }
        Ok(matrix)
    }

    /// The command line's options that a run of the session elsewhere gets, a kernel's
    /// guest or a campaign's boot ([`RunArgs::passed_on`]). `agent` is the agent file,
    /// `None` for the built-in one. `results` is the folder that run writes into, and
    /// `probe_rounds` and `profile_rounds` are the session's extra rounds.
    pub(crate) fn passed_elsewhere(
        &self,
        agent: Option<PathBuf>,
        results: &std::path::Path,
        probe_rounds: Option<u32>,
        profile_rounds: Option<u32>,
    ) -> anyhow::Result<Vec<String>> {
        let mut features = crate::session::options::Given {
            probe_rounds,
            profile_rounds,
            keep_perf_data: None,
        };
        self.features.given_elsewhere(results, &mut features)?;
        Ok(self.passed_on(&PassedOn { agent, features }))
    }

    /// The command line's options that a run of the same matrix elsewhere gets (the
    /// matrix, label and results are the caller's), with `given`'s values where they
    /// replace this command line's. Every field is named here: a new option is a
    /// compile error until it is passed on or its name is put in the
    /// unit tests' list of options only the host's run reads.
    pub(crate) fn passed_on(&self, given: &PassedOn) -> Vec<String> {
        let RunArgs {
            matrix: _,
            // A run with the matrix flags has no guests: `matrix_of_run` refuses them
            // with --kernel.
            axes:
                MatrixArgs {
                    gcs: _,
                    heaps: _,
                    jdks: _,
                    rounds: _,
                    warmup: _,
                },
            label: _,
            results: _,
            resume: _,
            dry_run: _,
            pass_java_options: _,
            // Replaced by `given`'s.
            agent: _,
            // Each feature says what it passes on.
            features,
            timeout,
            format,
            force,
            fail_fast,
            no_jvm_log,
            comparable_memory,
            give_up_after,
        } = self;
        let mut out = Vec::new();
        let mut switches = Vec::new();
        let value = |out: &mut Vec<String>, flag: &str, value: String| {
            out.extend([flag.to_owned(), value]);
        };
        if let Some(agent) = &given.agent {
            value(&mut out, "--agent", agent.display().to_string());
        }
        value(&mut out, "--timeout", timeout.to_string());
        let format = format
            .to_possible_value()
            .map_or_else(|| "text".to_owned(), |v| v.get_name().to_owned());
        value(&mut out, "--format", format);
        // The features' options with a value come here and their switches after the
        // run's own, where a guest has always found them.
        features.passed_on(&given.features, &mut out, &mut switches);
        value(&mut out, "--give-up-after", give_up_after.to_string());
        for (on, flag) in [
            (*no_jvm_log, "--no-jvm-log"),
            (*force, "--force"),
            (*fail_fast, "--fail-fast"),
            (*comparable_memory, "--comparable-memory"),
        ] {
            if on {
                out.push(flag.to_owned());
            }
        }
        out.extend(switches);
        out
    }
}
