//! Stage 3: launch one JVM and return what it measured. Behind the [`Launcher`] seam, so
//! that the scheduler, store and statistics are tested without a JVM.

pub mod agent;
pub mod child;
pub mod classfile;
pub mod crash;
pub mod heap_memory;
pub mod interrupt;
pub mod java_env;
pub mod jvmlog;
pub mod machine_counters;
pub mod mthp;
pub mod parts;
pub mod reference;
pub mod rusage;

use std::any::Any;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::launch::agent::{Stamps, agent_arg, agent_arg_for_main, copy_path, parse_stamps};
use crate::launch::child::{die_with_the_runner, read_tail};
use crate::launch::interrupt::{Interrupt, StopBy, signal_children, signal_name};
use crate::launch::jvmlog::{JvmLog, unloggable, xlog_arg};
use crate::launch::machine_counters::{MachineCounters, MachineWatch};
use crate::launch::rusage::{ChildrenUsage, LaunchUsage};
use crate::matrix::app::App;
use crate::matrix::cpuset;
use crate::units::Nanos;

/// What one launch measured: the one type a launch's data has, from the launcher to
/// the file. [`crate::store::LaunchRecord`] embeds it (`#[serde(flatten)]`), so its
/// fields are the record's keys: a new per-launch counter is one field here, read by the
/// launcher and shown by the report, and its key in the launch record's reader in
/// `store/record.rs`, which the compiler asks for.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Measurement {
    /// The full command line, program first.
    pub command: Vec<String>,
    /// UTC wall-clock time of the spawn, RFC 3339 with milliseconds.
    pub started_at: String,
    /// CLOCK_MONOTONIC read just before the spawn.
    pub spawn_ns: Nanos,
    /// CLOCK_MONOTONIC read once the process was reaped.
    pub reaped_ns: Nanos,
    /// Exit code, when the JVM exited.
    pub exit_code: Option<i32>,
    /// Terminating signal, when the JVM was killed.
    pub signal: Option<i32>,
    /// The agent's stamps.
    pub stamps: Stamps,
    /// Why the launch failed; absent when it succeeded.
    pub failure: Option<String>,
    /// The end of the JVM's stdout and stderr (kept for failed launches).
    pub output_tail: Option<String>,
    /// The CPUs the JVM was allowed to run on, in the kernel's list syntax (`0-1`): the
    /// `cpus:` set it was confined to, or for `all` the runner's own. Absent in files
    /// written before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub affinity: Option<String>,
    /// The kernel's counters for the whole process, exec to exit: the difference of
    /// `getrusage(RUSAGE_CHILDREN)` read just before the spawn and just after the reap
    /// (launches never overlap). Absent in files written before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rusage: Option<LaunchUsage>,
    /// The JVM's own log (`-Xlog:gc+heap=debug,startuptime` with `tn`), parsed: pretouch
    /// lines, Genesis and Create VM times. Absent when the run did not ask for it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jvm_log: Option<JvmLog>,
    /// What the whole machine did while this JVM ran: CPU time by state (steal, other
    /// processes), selected /proc/vmstat counters, PSI stalls, the JVM's context
    /// switches, the idle gap before it and the memory handed back to the hypervisor
    /// (see `launch/machine_counters.rs`). A counter the kernel lacks is absent inside
    /// it; the whole field is absent in files written before it was recorded, and
    /// `None` from launchers that do not read it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub machine: Option<MachineCounters>,
    /// The JVM's crash files (`hs_err_pid*.log`, `replay_pid*.log`), kept beside the
    /// result file in `<result file stem>-crashes/`. Each launch points them into the
    /// runner's scratch folder (`-XX:ErrorFile`, `-XX:ReplayDataFile`), never the
    /// current folder (see [`crash`]). Empty (and not written) when the JVM did not crash.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub crash_files: Vec<PathBuf>,
    /// What the heap's memory was at `main()`: anonymous or shared (memfd, shmem,
    /// hugetlbfs), its page size, how much was resident (each page once) and in how many
    /// mappings and views, from the JVM's `/proc/self/smaps` copied by the agent after
    /// the `main` stamp (see [`heap_memory`]). Absent when the JVM did not reach
    /// `main()`, when no mapping looked like the heap, and in files written before it
    /// was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub heap_memory: Option<heap_memory::HeapMemory>,
    /// Folios allocated (and fallbacks) per multi-size THP size over the launch, from
    /// `transparent_hugepage/hugepages-*/stats` (see [`mthp`]); only the sizes whose
    /// counters moved. Absent when none moved, on kernels without them, and in files
    /// written before it was recorded. Boxed: rare beside a launch's other fields.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mthp: Option<Box<[mthp::MthpCounts]>>,
    /// The features' parts of the launch, each written by its feature's hook, such as a
    /// server's ready time or the memory cgroup's peak. Their keys follow the core's in
    /// the record, and each is absent when its feature took no part.
    #[serde(flatten)]
    pub features: crate::features::measurement::LaunchParts,
}

impl Measurement {
    /// Time from the spawn to `main()`, when the launch succeeded.
    pub fn time_to_main(&self) -> Option<Nanos> {
        if self.failure.is_some() {
            return None;
        }
        self.stamps.main?.ns.since(self.spawn_ns)
    }
}

/// What one launch produced, before it becomes a record.
#[derive(Debug, Clone, Default)]
pub struct LaunchOutcome {
    /// What was measured, stored as it is.
    pub measured: Measurement,
    /// The run was interrupted (SIGINT, SIGTERM) while this JVM ran, and the launch
    /// failed (killed by the runner, or by the terminal's SIGINT): not a measurement, and
    /// not recorded (a resume runs it again).
    pub interrupted: bool,
}

/// What a launch needs beyond the JVM flags.
#[derive(Debug, Clone, Default)]
pub struct LaunchOptions {
    /// Confine the JVM to these CPUs (`sched_setaffinity` before exec); `None`: inherit
    /// the runner's.
    pub cpus: Option<Vec<usize>>,
    /// The cell's values that the features' hooks read, such as its kernel settings or
    /// its memory limit.
    pub cell: CellValues,
}

/// Values that only a feature reads, at most one of each type. The launcher carries them
/// to its hooks without knowing them, and each hook takes its own by its type, so a new
/// feature adds a value without a new field here. A cell's values and the run's are each
/// one of these.
#[derive(Clone, Default)]
pub struct Values(Vec<Arc<dyn Any + Send + Sync>>);

/// The values of one cell, such as its kernel settings or its memory limit.
pub type CellValues = Values;

/// The values the run's parts hold for the hooks around each launch, such as the kernel
/// settings applied to the machine, so the launcher's callers name no feature's value.
pub type RunValues = Values;

impl Values {
    /// The values `values`, each of a type of its own.
    pub fn of(values: Vec<Arc<dyn Any + Send + Sync>>) -> Values {
        Values(values)
    }

    /// These values with `value`, in place of the one of its type if there was one.
    pub fn with<T: Any + Send + Sync>(mut self, value: T) -> Values {
        self.0.retain(|held| !(**held).is::<T>());
        self.0.push(Arc::new(value));
        self
    }

    /// The value of type `T`, if there is one.
    pub fn get<T: Any>(&self) -> Option<&T> {
        self.0.iter().find_map(|held| (**held).downcast_ref::<T>())
    }

    /// The value of type `T`, shared, if there is one, for a hook that keeps it.
    pub fn shared<T: Any + Send + Sync>(&self) -> Option<Arc<T>> {
        self.0
            .iter()
            .find_map(|held| held.clone().downcast::<T>().ok())
    }
}

impl std::fmt::Debug for Values {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Values({} values)", self.0.len())
    }
}

/// A feature's part of one launch, such as writing the cell's kernel settings before it
/// or running it in a memory cgroup. The launcher holds a list of hooks, made in one
/// place (`features::launch::hooks`), and calls them in the list's order. A hook may keep
/// what it needs from its `before_spawn` to its `after_reap`, because the launcher runs
/// one launch at a time.
pub trait LaunchHook: Send {
    /// Called before the spawn, once the command is known. The hook may fill its part of
    /// the measurement and change the command. An error refuses the launch and is its
    /// failure. A refused launch ends there, so the hooks after the one that refused are
    /// not called, and no hook's `after_reap` is. So a hook that holds something for the
    /// launch, such as a cgroup, comes after the hooks that may refuse.
    fn before_spawn(&mut self, spawn: &mut Spawn<'_>) -> Result<(), String>;

    /// Called right after the reap, with the spawn and reap times measured but before the
    /// launcher reads the exit status, the output and the stamps. The hook fills its part
    /// of the measurement.
    fn after_reap(&mut self, measured: &mut Measurement) {
        let _ = measured;
    }

    /// A better reason for a failed launch than the launcher's own, from the hook's part
    /// of the measurement. The first hook that has one wins.
    fn explain(&self, measured: &Measurement) -> Option<String> {
        let _ = measured;
        None
    }

    /// The files of `/proc/self` the hook reads as the JVM had them at `main()`, such as
    /// `numa_maps`. The agent copies each right after it has written the `main` stamp,
    /// as it copies `smaps`, so the copy enters no stamp and no time to `main()`. None
    /// by default, so the agent copies nothing more for a run whose hooks read nothing.
    fn files_at_main(&self) -> &'static [&'static str] {
        &[]
    }

    /// Called after the reap, once the launcher has read the stamps and the heap's
    /// memory, with the copies of the files [`LaunchHook::files_at_main`] names. The hook
    /// fills its part of the measurement. Only hooks that name a file are called.
    fn at_main(&mut self, copies: &AtMain<'_>, measured: &mut Measurement) {
        let _ = (copies, measured);
    }

    /// Waits for the started JVM in place of the launcher's wait for its exit, as a
    /// server's launch waits until ready, runs its workload and stops the JVM. `None`
    /// leaves the wait to the launcher. The first hook that waits is the only one.
    fn wait(
        &mut self,
        started: &Started<'_>,
        measured: &mut Measurement,
    ) -> Option<std::io::Result<Ended>> {
        let _ = (started, measured);
        None
    }

    /// Why a launch this hook waited for measured nothing, in place of the launcher's
    /// test ([`judge`]), which the default keeps. The launcher asks only the hook that
    /// waited, and only when nothing failed before.
    fn judge(&self, outcome: &LaunchOutcome) -> Option<String> {
        judge(outcome)
    }
}

/// A started JVM, as a hook that waits for it sees it.
pub struct Started<'a> {
    pub handle: &'a Arc<duct::Handle>,
    /// CLOCK_MONOTONIC read just before the spawn.
    pub spawn_ns: Nanos,
    /// The launch's timeout, for a hook whose own has none.
    pub timeout: Duration,
    /// Where the JVM's stdout and stderr go.
    pub output: &'a Path,
    /// The launcher's scratch folder.
    pub scratch: &'a Path,
    /// The signal that stops the run, if the launcher has one.
    pub interrupt: Option<&'a Interrupt>,
}

/// What the agent copied at `main()` for the hooks, read after the reap.
pub struct AtMain<'a> {
    /// Each file a hook named, with the text of its copy. The text is `None` when the
    /// JVM did not reach `main()` or the copy failed.
    pub files: &'a [(&'static str, Option<String>)],
    /// Where the heap lay at `main()`, from the agent's copy of smaps, found as the
    /// heap's memory is ([`heap_memory::place`]). `None` when no mapping looked like the
    /// heap, or the flags name no heap size.
    pub heap: Option<&'a heap_memory::HeapPlace>,
}

impl AtMain<'_> {
    /// The text of the copy of `name`, when the agent made it.
    pub fn file(&self, name: &str) -> Option<&str> {
        self.files
            .iter()
            .find(|(n, _)| *n == name)
            .and_then(|(_, text)| text.as_deref())
    }
}

/// How a JVM that a hook waited for ended.
pub struct Ended {
    /// Its exit status once reaped.
    pub status: std::process::ExitStatus,
    /// CLOCK_MONOTONIC once it was reaped.
    pub reaped_ns: Nanos,
    /// Why the launch measured nothing, if the hook knows already.
    pub failure: Option<String>,
}

/// A change to the command before it is spawned, such as a step its child runs between
/// fork and exec (`CommandExt::pre_exec`).
pub type CommandChange =
    Box<dyn Fn(&mut std::process::Command) -> std::io::Result<()> + Send + Sync>;

/// One launch as its hooks see it before the spawn.
pub struct Spawn<'a> {
    /// The `java` started, which a wrapper such as `perf record` may start in turn.
    pub java: &'a Path,
    /// The arguments after `java`.
    pub args: &'a [String],
    /// The launch's options, with the cell's values for the features.
    pub options: &'a LaunchOptions,
    /// What is measured so far. A hook fills its part.
    pub measured: &'a mut Measurement,
    /// The hooks' changes to the command, applied in the order they were added.
    pub command: Vec<CommandChange>,
}

/// Launches one JVM, waits until it is reaped, and reports what it measured.
pub trait Launcher {
    fn launch(&mut self, java: &Path, jvm_args: &[String]) -> LaunchOutcome;

    /// [`Launcher::launch`] with options (a CPU set). Launchers that cannot honour the
    /// options (test doubles) keep this default, which ignores them.
    fn launch_with(
        &mut self,
        java: &Path,
        jvm_args: &[String],
        options: &LaunchOptions,
    ) -> LaunchOutcome {
        let _ = options;
        self.launch(java, jvm_args)
    }
}

/// The real launcher: the built-in main class, the agent, and duct.
pub struct JvmLauncher {
    agent: PathBuf,
    /// Holds the class file, and the stamps and output of the launch under way.
    workdir: tempfile::TempDir,
    timeout: Duration,
    /// Kills the JVM under way on SIGINT/SIGTERM.
    interrupt: Option<Interrupt>,
    /// The application whose `main` is stamped; `None`: the built-in main class.
    app: Option<App>,
    /// Pass `-Xlog` (see [`crate::launch::jvmlog`]) and parse the JVM's log after each launch.
    jvm_log: bool,
    /// A command the JVM is started under (`perf record ... --`); empty: none.
    wrapper: Vec<String>,
    /// The machine's counters around each launch, and the reading at the last reap.
    watch: MachineWatch,
    /// Where a crashed launch's `hs_err`/`replay` files are moved (see [`crash`]).
    crash_dir: Option<PathBuf>,
    /// The mTHP sizes' folio counters around each launch.
    mthp: mthp::MthpWatch,
    /// The features' parts of each launch, called in this order.
    hooks: Vec<Box<dyn LaunchHook>>,
}

/// The launcher's scratch folder (the built-in main class, each launch's stamps,
/// output and JVM log): under `$TMPDIR` when the user set it, else in `/dev/shm` (RAM)
/// when it takes one, else in the system's temporary folder. On a disk, removing and
/// rewriting those small files between two launches waits on the file system's
/// journal: on the development VM's ext4 the gap from one reap to the next spawn was
/// 4.6 ms with the folder in /tmp and 0.5 ms in /dev/shm (`pretouch-bench
/// run-overhead`, bench/results/2026-12-01-run-overhead.md).
fn scratch_folder() -> std::io::Result<tempfile::TempDir> {
    let builder = || {
        let mut b = tempfile::Builder::new();
        b.prefix("pretouch-");
        b
    };
    let shm = Path::new("/dev/shm");
    if std::env::var_os("TMPDIR").is_none()
        && shm.is_dir()
        && let Ok(dir) = builder().tempdir_in(shm)
    {
        return Ok(dir);
    }
    builder().tempdir()
}

impl JvmLauncher {
    pub fn new(agent: PathBuf, timeout: Duration) -> std::io::Result<JvmLauncher> {
        let workdir = scratch_folder()?;
        std::fs::write(
            workdir
                .path()
                .join(format!("{}.class", classfile::MAIN_CLASS)),
            classfile::main_class(),
        )?;
        Ok(JvmLauncher {
            agent,
            workdir,
            timeout,
            interrupt: None,
            app: None,
            jvm_log: false,
            wrapper: Vec::new(),
            watch: MachineWatch::default(),
            crash_dir: None,
            mthp: mthp::MthpWatch::default(),
            hooks: Vec::new(),
        })
    }

    /// Lets a signal kill the JVM under way (see [`Interrupt`]).
    pub fn with_interrupt(mut self, interrupt: Interrupt) -> JvmLauncher {
        self.interrupt = Some(interrupt);
        self
    }

    /// The scratch folder: the built-in main class, the stamps file, the JVM's output.
    pub fn scratch(&self) -> &Path {
        self.workdir.path()
    }

    /// Stamps `app`'s `main` (JVMTI breakpoint) instead of the built-in main class's.
    pub fn with_app(mut self, app: Option<App>) -> JvmLauncher {
        self.app = app;
        self
    }

    /// The arguments after `java`: the JVM flags, the agent, and the main class or the
    /// application.
    pub fn arguments(&self, jvm_args: &[String]) -> Vec<String> {
        let stamps_path = self.workdir.path().join("stamps");
        let copy = self.files_at_main();
        let mut args = jvm_args.to_vec();
        args.extend(crash::crash_file_args(self.workdir.path()));
        if self.jvm_log
            && let Some(arg) = xlog_arg(&self.workdir.path().join("jvm.log"))
        {
            args.push(arg);
        }
        match &self.app {
            None => {
                args.push(agent_arg(&self.agent, &stamps_path, &copy));
                args.push("-cp".to_owned());
                args.push(self.workdir.path().display().to_string());
                args.push(classfile::MAIN_CLASS.to_owned());
            }
            Some(app) => {
                args.push(agent_arg_for_main(
                    &self.agent,
                    &stamps_path,
                    &app.main,
                    app.exit_at_main,
                    &copy,
                ));
                args.extend(app.command_tail());
            }
        }
        args
    }
    /// The files of `/proc/self` that the hooks read at `main()`, each once, in the order
    /// the hooks name them.
    fn files_at_main(&self) -> Vec<&'static str> {
        let mut names: Vec<&'static str> = Vec::new();
        for name in self.hooks.iter().flat_map(|h| h.files_at_main()) {
            if !names.contains(name) {
                names.push(name);
            }
        }
        names
    }

    /// Starts the next JVMs under this command (`perf record ... --`, see
    /// [`crate::features::profile::launch`]); its spawn is then the launch's start. Empty: none.
    pub fn set_wrapper(&mut self, wrapper: Vec<String>) {
        self.wrapper = wrapper;
    }

    /// Keep crash files of crashed launches in `dir` (made when the first one crashes).
    pub fn with_crash_dir(mut self, dir: PathBuf) -> JvmLauncher {
        self.crash_dir = Some(dir);
        self
    }

    /// Calls these hooks around each launch, in this order (see [`LaunchHook`]).
    pub fn with_hooks(mut self, hooks: Vec<Box<dyn LaunchHook>>) -> JvmLauncher {
        self.hooks = hooks;
        self
    }

    /// Also ask every JVM for its own log (`-Xlog`, see [`crate::launch::jvmlog`]) and keep it.
    pub fn with_jvm_log(mut self, on: bool) -> JvmLauncher {
        self.jvm_log = on;
        self
    }
}

impl Launcher for JvmLauncher {
    fn launch(&mut self, java: &Path, jvm_args: &[String]) -> LaunchOutcome {
        self.launch_with(java, jvm_args, &LaunchOptions::default())
    }

    fn launch_with(
        &mut self,
        java: &Path,
        jvm_args: &[String],
        options: &LaunchOptions,
    ) -> LaunchOutcome {
        let scratch = self.clear_scratch();
        let args = self.arguments(jvm_args);
        let mut outcome = self.planned(java, &args, options);
        let changes = match self.before_spawn(java, &args, options, &mut outcome) {
            Ok(changes) => changes,
            Err(failure) => {
                outcome.measured.started_at = utc_now_millis();
                outcome.measured.failure = Some(failure);
                return outcome;
            }
        };
        let (expression, grouped) = self.expression(java, &args, &scratch.output, options, changes);
        let mthp_before = self.mthp.read();
        let oom_kills_before = oom_kills();
        // Only a stop during this launch counts against it.
        if let Some(i) = &self.interrupt {
            i.take_continued();
        }
        outcome.measured.started_at = utc_now_millis();
        let machine_before = self.watch.before_spawn();
        let usage_before = ChildrenUsage::now();
        outcome.measured.spawn_ns = Nanos::monotonic_now();
        let waited = self.wait(&expression, grouped, &scratch.output, &mut outcome);
        // A hook's reap came before the rest of its wait, such as a server's port.
        outcome.measured.reaped_ns = waited.hook_reaped.unwrap_or_else(Nanos::monotonic_now);
        let waited_by = waited.by;
        let oom_killed = oom_kills_before
            .zip(oom_kills())
            .map(|(before, after)| after > before);
        for hook in &mut self.hooks {
            hook.after_reap(&mut outcome.measured);
        }
        outcome.measured.rusage = Some(LaunchUsage {
            peak_rss: waited.peak_rss,
            ..ChildrenUsage::now().since(&usage_before)
        });
        outcome.measured.machine = Some(self.watch.after_reap(&machine_before));
        let folios = self.mthp.read().since(&mthp_before);
        outcome.measured.mthp = (!folios.is_empty()).then(|| folios.into_boxed_slice());
        if self.jvm_log {
            outcome.measured.jvm_log = Some(match xlog_arg(&scratch.log) {
                Some(_) => JvmLog::read(&scratch.log),
                None => unloggable(&scratch.log),
            });
        }
        self.ended(java, jvm_args, &scratch, waited, &mut outcome);
        self.at_main(jvm_args, &scratch, &mut outcome);
        self.judged(oom_killed, waited_by, &mut outcome);
        outcome
    }
}

/// The files a launch leaves in the launcher's scratch folder.
struct ScratchFiles {
    stamps: PathBuf,
    output: PathBuf,
    log: PathBuf,
    smaps: PathBuf,
}

/// How the wait for a launched JVM ended.
struct Waited {
    /// Its exit status; `None` when it was killed at the timeout.
    status: std::io::Result<Option<std::process::ExitStatus>>,
    /// The hook that waited in place of the launcher, by its place in the list.
    by: Option<usize>,
    /// Why the launch failed, as the hook that waited judged it.
    hook_failure: Option<String>,
    /// When the JVM was reaped, if a hook waited (a server's reap comes before the wait
    /// for its port to close).
    hook_reaped: Option<Nanos>,
    /// The JVM's own peak RSS, read as it exited ([`rusage::peak_at_exit`]).
    peak_rss: Option<crate::units::Bytes>,
}

impl JvmLauncher {
    /// The scratch files of the last launch removed, so that none is read twice.
    fn clear_scratch(&self) -> ScratchFiles {
        let stamps = self.workdir.path().join("stamps");
        let scratch = ScratchFiles {
            smaps: heap_memory::copy_path(&stamps),
            stamps,
            output: self.workdir.path().join("output"),
            log: self.workdir.path().join("jvm.log"),
        };
        let _ = std::fs::remove_file(&scratch.stamps);
        let _ = std::fs::remove_file(&scratch.smaps);
        let _ = std::fs::remove_file(&scratch.log);
        for name in self.files_at_main() {
            let _ = std::fs::remove_file(copy_path(&scratch.stamps, name));
        }
        crash::clear(self.workdir.path());
        scratch
    }

    /// Gives the hooks that read files at `main()` the agent's copies of them, and where
    /// the heap lay. Nothing is read when no hook names a file.
    fn at_main(
        &mut self,
        jvm_args: &[String],
        scratch: &ScratchFiles,
        outcome: &mut LaunchOutcome,
    ) {
        let names = self.files_at_main();
        if names.is_empty() {
            return;
        }
        let files: Vec<(&'static str, Option<String>)> = names
            .into_iter()
            .map(|name| {
                let text = std::fs::read_to_string(copy_path(&scratch.stamps, name)).ok();
                (name, text)
            })
            .collect();
        let heap = std::fs::read_to_string(&scratch.smaps)
            .ok()
            .zip(heap_memory::heap_of(jvm_args))
            .and_then(|(smaps, heap)| heap_memory::place(&smaps, heap));
        let copies = AtMain {
            files: &files,
            heap: heap.as_ref(),
        };
        for hook in &mut self.hooks {
            if !hook.files_at_main().is_empty() {
                hook.at_main(&copies, &mut outcome.measured);
            }
        }
    }

    /// The outcome as known before the spawn: the command line and the CPUs.
    fn planned(&self, java: &Path, args: &[String], options: &LaunchOptions) -> LaunchOutcome {
        LaunchOutcome {
            measured: Measurement {
                command: self
                    .wrapper
                    .iter()
                    .cloned()
                    .chain(std::iter::once(java.display().to_string()))
                    .chain(args.iter().cloned())
                    .collect(),
                affinity: match &options.cpus {
                    Some(cpus) => Some(cpuset::format_list(cpus)),
                    None => cpuset::available()
                        .ok()
                        .map(|cpus| cpuset::format_list(&cpus)),
                },
                ..Measurement::default()
            },
            interrupted: false,
        }
    }

    /// The JVM's command (under the wrapper, if any), its output to `output`, and
    /// whether it runs in a process group of its own.
    fn expression(
        &self,
        java: &Path,
        args: &[String],
        output: &Path,
        options: &LaunchOptions,
        changes: Vec<CommandChange>,
    ) -> (duct::Expression, bool) {
        let mut expression = match self.wrapper.split_first() {
            None => duct::cmd(java, args),
            Some((program, wrapper_args)) => duct::cmd(
                program,
                wrapper_args
                    .iter()
                    .map(std::ffi::OsString::from)
                    .chain(std::iter::once(java.as_os_str().to_owned()))
                    .chain(args.iter().map(std::ffi::OsString::from)),
            ),
        }
        .stdin_null()
        // Outermost first: stdout goes to the file, then stderr joins it.
        .stderr_to_stdout()
        .stdout_path(output)
        .unchecked()
        .before_spawn(die_with_the_runner);
        if let Some(cpus) = options.cpus.clone() {
            expression = expression.before_spawn(move |command| {
                cpuset::confine(command, &cpus);
                Ok(())
            });
        }
        // duct applies the last step given first: reversed, the hooks' changes apply in
        // the order they were added.
        for change in changes.into_iter().rev() {
            expression = expression.before_spawn(change);
        }
        // A wrapper (perf record) forks the JVM: both go in a process group of their
        // own, so that a timeout or a signal ends the JVM too, not the wrapper alone.
        let grouped = !self.wrapper.is_empty();
        if grouped {
            expression = expression.before_spawn(|command| {
                use std::os::unix::process::CommandExt;
                command.process_group(0);
                Ok(())
            });
        }
        (expression, grouped)
    }

    /// Each hook's part before the spawn: the hooks' changes to the command, or why the
    /// launch is refused.
    fn before_spawn(
        &mut self,
        java: &Path,
        args: &[String],
        options: &LaunchOptions,
        outcome: &mut LaunchOutcome,
    ) -> Result<Vec<CommandChange>, String> {
        let mut spawn = Spawn {
            java,
            args,
            options,
            measured: &mut outcome.measured,
            command: Vec::new(),
        };
        for hook in &mut self.hooks {
            hook.before_spawn(&mut spawn)?;
        }
        Ok(spawn.command)
    }

    /// Starts the JVM and waits for it: to its exit or the timeout, or as a hook waits,
    /// such as a server's through its ready probe, its workload and its stop.
    fn wait(
        &mut self,
        expression: &duct::Expression,
        grouped: bool,
        output: &Path,
        outcome: &mut LaunchOutcome,
    ) -> Waited {
        let mut by = None;
        let mut hook_failure = None;
        let mut hook_reaped = None;
        let mut peak_rss = None;
        let status = expression.start().and_then(|handle| {
            let handle = std::sync::Arc::new(handle);
            let stop = if grouped {
                StopBy::KillGroup
            } else {
                StopBy::Kill
            };
            let _tracked = self
                .interrupt
                .as_ref()
                .map(|i| i.track_as(std::sync::Arc::clone(&handle), stop));
            let started = Started {
                handle: &handle,
                spawn_ns: outcome.measured.spawn_ns,
                timeout: self.timeout,
                output,
                scratch: self.workdir.path(),
                interrupt: self.interrupt.as_ref(),
            };
            for (i, hook) in self.hooks.iter_mut().enumerate() {
                if let Some(ended) = hook.wait(&started, &mut outcome.measured) {
                    by = Some(i);
                    let ended = ended?;
                    hook_failure = ended.failure;
                    hook_reaped = Some(ended.reaped_ns);
                    return Ok(Some(ended.status));
                }
            }
            // The peak is read from the exited child before duct reaps it, within the
            // same timeout; with a wrapper (perf) it is the wrapper's, which counts the
            // JVM it reaped.
            let started = std::time::Instant::now();
            peak_rss = handle
                .pids()
                .first()
                .and_then(|&pid| rusage::peak_at_exit(pid, self.timeout));
            let left = self.timeout.saturating_sub(started.elapsed());
            match handle.wait_timeout(left)? {
                Some(output) => Ok(Some(output.status)),
                None => {
                    if grouped {
                        signal_children(&handle, libc::SIGKILL, true);
                    }
                    handle.kill()?;
                    handle.wait()?;
                    Ok(None)
                }
            }
        });
        Waited {
            status,
            by,
            hook_failure,
            hook_reaped,
            peak_rss,
        }
    }

    /// What the ended JVM left: how it ended, its output, its heap's memory and its
    /// stamps, and the failure they show.
    fn ended(
        &self,
        java: &Path,
        jvm_args: &[String],
        scratch: &ScratchFiles,
        waited: Waited,
        outcome: &mut LaunchOutcome,
    ) {
        match waited.status {
            Err(e) => {
                outcome.measured.failure = Some(format!("cannot run `{}`: {e}", java.display()))
            }
            Ok(None) => {
                outcome.measured.failure = Some(format!(
                    "main() not reached within {}s: killed (raise --timeout if this heap needs longer)",
                    self.timeout.as_secs()
                ));
            }
            Ok(Some(status)) => {
                outcome.measured.exit_code = status.code();
                outcome.measured.signal = status.signal();
            }
        }
        outcome.measured.output_tail = read_tail(&scratch.output);
        // The agent's copy of /proc/self/smaps, made after the main stamp.
        outcome.measured.heap_memory = std::fs::read_to_string(&scratch.smaps)
            .ok()
            .zip(heap_memory::heap_of(jvm_args))
            .and_then(|(smaps, heap)| heap_memory::read(&smaps, heap));
        match std::fs::read_to_string(&scratch.stamps) {
            Ok(text) => match parse_stamps(&text) {
                Ok(stamps) => outcome.measured.stamps = stamps,
                Err(e) => {
                    outcome
                        .measured
                        .failure
                        .get_or_insert(format!("agent protocol: {e}"));
                }
            },
            Err(_)
                if outcome.measured.failure.is_none() && outcome.measured.exit_code == Some(0) =>
            {
                outcome.measured.failure =
                    Some("exited without writing stamps (did the agent load?)".to_owned());
            }
            Err(_) => {}
        }
        if let Some(failure) = waited.hook_failure {
            outcome.measured.failure.get_or_insert(failure);
        }
    }

    /// The launch judged: its failure (if any) found and explained, its crash files
    /// kept, and whether a signal to the runner cut it short. `waited_by`: the hook that
    /// waited in place of the launcher, if one did.
    fn judged(
        &self,
        oom_killed: Option<bool>,
        waited_by: Option<usize>,
        outcome: &mut LaunchOutcome,
    ) {
        if outcome.measured.failure.is_none() {
            outcome.measured.failure = match waited_by.and_then(|i| self.hooks.get(i)) {
                Some(hook) => hook.judge(outcome),
                None => judge(outcome),
            };
        }
        // Stopped and continued meanwhile (Ctrl-Z, then `fg`): the JVM, in the runner's
        // process group, stood still with it, so its times hold the stop.
        if outcome.measured.failure.is_none()
            && self
                .interrupt
                .as_ref()
                .is_some_and(Interrupt::take_continued)
        {
            outcome.measured.failure = Some(
                "the run was stopped (Ctrl-Z or SIGSTOP) and continued during this launch: \
                 its times include the stop, so it is not counted"
                    .to_owned(),
            );
        }
        let signalled = self
            .interrupt
            .as_ref()
            .is_some_and(|i| i.signal().is_some());
        outcome.measured.crash_files = crash::keep(self.workdir.path(), self.crash_dir.as_deref());
        let hook_explained = self
            .hooks
            .iter()
            .find_map(|hook| hook.explain(&outcome.measured));
        if let Some(failure) = &mut outcome.measured.failure {
            if let Some(better) = hook_explained.or_else(|| {
                explain_failure(
                    &outcome.measured.output_tail,
                    outcome.measured.signal,
                    oom_killed,
                )
            }) {
                *failure = better;
            }
            // The JVM named its report in the scratch folder; it was moved since.
            for kept in &outcome.measured.crash_files {
                if let Some(name) = kept.file_name() {
                    let scratch = self.workdir.path().join(name);
                    *failure = failure
                        .replace(&scratch.display().to_string(), &kept.display().to_string());
                }
            }
            outcome.interrupted = signalled;
        }
        // A JVM that a hook waited for and stopped, such as a server stopped by the
        // signal or whose workload the signal cut short, measured nothing either, though
        // it did not fail.
        if waited_by.is_some() && signalled {
            outcome.interrupted = true;
        }
    }
}

/// The kernel's count of OOM kills since boot (`oom_kill` in /proc/vmstat, Linux 4.13+).
fn oom_kills() -> Option<u64> {
    let vmstat = std::fs::read_to_string("/proc/vmstat").ok()?;
    vmstat
        .lines()
        .find_map(|l| l.strip_prefix("oom_kill ")?.trim().parse().ok())
}

/// A more precise reason for a failure, from what the JVM printed and how it ended.
/// `oom_killed`: whether the kernel's OOM-kill count rose during the launch, when known.
fn explain_failure(
    output_tail: &Option<String>,
    signal: Option<i32>,
    oom_killed: Option<bool>,
) -> Option<String> {
    match (signal, oom_killed) {
        (Some(libc::SIGKILL), Some(true)) => return Some(
            "killed by the OOM killer, because the heap does not fit in this machine's memory. The kernel's oom_kill count rose during this launch, and `dmesg` tells more.".to_owned(),
        ),
        (Some(libc::SIGKILL), Some(false)) => return Some(
            "killed by signal 9 (SIGKILL, not by the OOM killer: the kernel's oom_kill count did not change)".to_owned(),
        ),
        _ => {}
    }
    let tail = output_tail.as_deref()?;
    // HotSpot's fatal error handler: "An error report file ... is saved as:\n# <path>".
    let lines: Vec<&str> = tail.lines().collect();
    if let Some(i) = lines.iter().position(|l| l.contains("error report file")) {
        let how = signal.map_or_else(String::new, |s| format!(", {}", signal_name(s)));
        let report = lines
            .get(i + 1)
            .map(|l| l.trim_start_matches(['#', ' ']).trim())
            .filter(|l| !l.is_empty())
            .map_or_else(String::new, |p| format!("; its report: {p}"));
        return Some(format!("the JVM crashed (fatal error{how}){report}"));
    }
    let line = |needle: &str| {
        tail.lines()
            .find(|l| l.contains(needle))
            .map(|l| l.trim().to_owned())
    };
    if let Some(l) = line("Could not find agent library")
        .or_else(|| line("Agent_OnLoad"))
        .or_else(|| line("agent library failed"))
    {
        return Some(format!("the agent did not load: {l}"));
    }
    if let Some(l) = line("Unrecognized VM option")
        .or_else(|| line("Improperly specified VM option"))
        .or_else(|| line("Unrecognized option"))
        .or_else(|| line("must be enabled via -XX:+Unlock"))
    {
        return Some(format!("the JVM rejected a flag: {l}"));
    }
    None
}

/// Why a launch that ran to its end did not measure anything, if it did not.
pub fn judge(outcome: &LaunchOutcome) -> Option<String> {
    if let Some(signal) = outcome.measured.signal {
        let hint = if signal == libc::SIGKILL {
            " (SIGKILL: the OOM killer? see `dmesg`)"
        } else {
            ""
        };
        return Some(format!("killed by signal {signal}{hint}"));
    }
    match outcome.measured.exit_code {
        Some(0) => {}
        // An application run on past main() (`exit_at_main: false`) can fail after it.
        Some(code) if outcome.measured.stamps.main.is_some() => {
            return Some(format!(
                "the application exited with code {code} after main()"
            ));
        }
        Some(code) => {
            return Some(format!(
                "exited with code {code} before main(){}",
                how_far(&outcome.measured.stamps)
            ));
        }
        None => return Some("no exit status".to_owned()),
    }
    let s = &outcome.measured.stamps;
    let Some(main) = s.main else {
        return Some(format!("exited without reaching main(){}", how_far(s)));
    };
    let order = [
        Some(outcome.measured.spawn_ns),
        s.agent_load.map(|x| x.ns),
        s.vm_init.map(|x| x.ns),
        Some(main.ns),
    ];
    if order.iter().any(Option::is_none) {
        return Some("stamps incomplete: agent load or VM init missing".to_owned());
    }
    if !order.is_sorted() {
        return Some(format!("stamps out of order: {order:?}"));
    }
    None
}

/// How far a JVM that never reached `main()` got, from the stamps the agent left (it
/// writes the file at agent load, so a JVM that dies before VM init leaves that stamp).
fn how_far(stamps: &Stamps) -> &'static str {
    match (stamps.agent_load, stamps.vm_init) {
        (None, _) => " (no stamps: the agent did not load)",
        (Some(_), None) => " (it got past agent load, not to VM init)",
        (Some(_), Some(_)) => " (it got past VM init)",
    }
}

pub use crate::units::utc_now_millis;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::stamp;

    fn outcome() -> LaunchOutcome {
        LaunchOutcome {
            measured: crate::launch::Measurement {
                spawn_ns: Nanos(100),
                exit_code: Some(0),
                stamps: Stamps {
                    mechanism: None,
                    agent_load: stamp(110),
                    vm_init: stamp(120),
                    main: stamp(130),
                },
                ..crate::launch::Measurement::default()
            },
            ..LaunchOutcome::default()
        }
    }

    /// The state letter of a process (`Z`: a zombie), or `None` when it is gone.
    fn state(pid: i32) -> Option<char> {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        stat.rsplit_once(')')?.1.trim_start().chars().next()
    }

    /// A `java` that never reaches main() and writes its pid to `pid`, and a launcher
    /// that starts it under a wrapper that forks it and waits, as `perf record` does.
    /// The pid file appears whole (written aside, then renamed): a test that waited for
    /// it to exist and then signalled once read it empty, the signal having come between
    /// the shell's open and its write (seen under load).
    fn wrapped_sleeper(dir: &Path, timeout: Duration) -> (JvmLauncher, PathBuf, PathBuf) {
        use std::os::unix::fs::PermissionsExt;
        let pid_file = dir.join("pid");
        let java = dir.join("java");
        std::fs::write(
            &java,
            format!(
                "#!/bin/sh\necho $$ > '{tmp}'\nmv '{tmp}' '{pid}'\nexec sleep 300\n",
                tmp = dir.join("pid.tmp").display(),
                pid = pid_file.display()
            ),
        )
        .unwrap();
        std::fs::set_permissions(&java, std::fs::Permissions::from_mode(0o755)).unwrap();
        let mut launcher = JvmLauncher::new(dir.join("agent.so"), timeout).unwrap();
        launcher.set_wrapper(
            ["/bin/sh", "-c", "\"$@\"; exit $?", "wrapper"]
                .map(str::to_owned)
                .to_vec(),
        );
        (launcher, java, pid_file)
    }

    /// Waits until the process in `pid_file` is gone, or a zombie until init reaps it.
    fn assert_ends(pid_file: &Path) {
        let pid: i32 = std::fs::read_to_string(pid_file)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        while matches!(state(pid), Some(s) if s != 'Z') {
            assert!(
                std::time::Instant::now() < deadline,
                "the JVM under the wrapper still runs: pid {pid}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    #[test]
    fn a_timeout_ends_the_jvm_a_wrapper_forked() {
        let dir = tempfile::tempdir().unwrap();
        let (mut launcher, java, pid_file) = wrapped_sleeper(dir.path(), Duration::from_secs(1));
        let outcome = launcher.launch(&java, &[]);
        assert!(
            outcome
                .measured
                .failure
                .as_deref()
                .is_some_and(|f| f.contains("not reached within 1s")),
            "{outcome:?}"
        );
        assert_ends(&pid_file);
    }

    #[test]
    fn a_signal_ends_the_jvm_a_wrapper_forked() {
        let dir = tempfile::tempdir().unwrap();
        let (launcher, java, pid_file) = wrapped_sleeper(dir.path(), Duration::from_secs(60));
        let interrupt = Interrupt::new();
        let mut launcher = launcher.with_interrupt(interrupt.clone());
        let started = std::time::Instant::now();
        let raised = std::thread::spawn({
            let pid_file = pid_file.clone();
            move || {
                while !pid_file.exists() {
                    std::thread::sleep(Duration::from_millis(20));
                }
                interrupt.raise(libc::SIGINT);
            }
        });
        let outcome = launcher.launch(&java, &[]);
        raised.join().unwrap();
        assert!(started.elapsed() < Duration::from_secs(30), "{outcome:?}");
        assert_ends(&pid_file);
    }

    #[test]
    fn cell_values_hold_one_value_of_each_type() {
        #[derive(Debug, PartialEq)]
        struct Index(usize);
        let values = CellValues::default()
            .with(Index(1))
            .with("limit".to_owned())
            .with(Index(2));
        assert_eq!(values.get::<Index>(), Some(&Index(2)));
        assert_eq!(values.get::<String>().map(String::as_str), Some("limit"));
        assert_eq!(values.get::<u32>(), None);
    }

    /// A hook that writes what it was asked into `calls`, and refuses when told to.
    struct Recording {
        name: &'static str,
        refuse: bool,
        calls: Arc<std::sync::Mutex<Vec<String>>>,
    }

    impl LaunchHook for Recording {
        fn before_spawn(&mut self, spawn: &mut Spawn<'_>) -> Result<(), String> {
            self.calls
                .lock()
                .unwrap()
                .push(format!("{} before", self.name));
            if self.refuse {
                return Err(format!("{} refused", self.name));
            }
            let name = self.name;
            spawn.command.push(Box::new(move |command| {
                command.env("PRETOUCH_HOOK", name);
                Ok(())
            }));
            Ok(())
        }

        fn after_reap(&mut self, measured: &mut Measurement) {
            let reaped = measured.reaped_ns > measured.spawn_ns;
            (self.calls.lock().unwrap()).push(format!("{} after, reaped {reaped}", self.name));
        }
    }

    /// A shell in place of `java`, and the flags that make it write the hook's variable
    /// to `seen` and exit, whatever the launcher appends. No script is written, because
    /// writing an executable while another test forks makes its exec fail (ETXTBSY).
    fn shell_java(dir: &Path) -> (PathBuf, Vec<String>, PathBuf) {
        let seen = dir.join("seen");
        let script = format!("echo \"$PRETOUCH_HOOK\" > '{}'", seen.display());
        let flags = ["-c", &script, "sh"].map(str::to_owned).to_vec();
        ("/bin/sh".into(), flags, seen)
    }

    #[test]
    fn hooks_run_in_order_around_the_launch_and_change_its_command() {
        let dir = tempfile::tempdir().unwrap();
        let (java, flags, seen) = shell_java(dir.path());
        let calls = Arc::new(std::sync::Mutex::new(Vec::new()));
        let hook = |name| -> Box<dyn LaunchHook> {
            Box::new(Recording {
                name,
                refuse: false,
                calls: Arc::clone(&calls),
            })
        };
        let mut launcher = JvmLauncher::new(dir.path().join("agent.so"), Duration::from_secs(10))
            .unwrap()
            .with_hooks(vec![hook("first"), hook("second")]);
        let outcome = launcher.launch(&java, &flags);
        assert_eq!(outcome.measured.exit_code, Some(0), "{outcome:?}");
        assert_eq!(
            *calls.lock().unwrap(),
            [
                "first before",
                "second before",
                "first after, reaped true",
                "second after, reaped true"
            ]
        );
        // The later change to the command wins.
        assert_eq!(std::fs::read_to_string(&seen).unwrap().trim(), "second");
    }

    /// A hook that reads `status` at `main()` and keeps what it read in the output tail.
    struct ReadsAtMain;

    impl LaunchHook for ReadsAtMain {
        fn before_spawn(&mut self, _spawn: &mut Spawn<'_>) -> Result<(), String> {
            Ok(())
        }

        fn files_at_main(&self) -> &'static [&'static str] {
            &["status"]
        }

        fn at_main(&mut self, copies: &AtMain<'_>, measured: &mut Measurement) {
            measured.output_tail = copies.file("status").map(str::to_owned);
        }
    }

    #[test]
    fn a_hook_gets_the_files_it_names_as_the_agent_copied_them_at_main() {
        let dir = tempfile::tempdir().unwrap();
        // A shell in place of `java` that writes the copy where the agent would, beside
        // the stamps file its `-agentpath` names, if it is asked for one.
        let script = r#"for a in "$@"; do case "$a" in -agentpath:*copy=status,*) echo copied > "${a##*out=}.status";; esac; done"#;
        let flags = ["-c", script, "sh"].map(str::to_owned).to_vec();
        let java = Path::new("/bin/sh");
        let agent = dir.path().join("agent.so");
        let mut plain = JvmLauncher::new(agent.clone(), Duration::from_secs(10)).unwrap();
        assert!(!plain.arguments(&[]).iter().any(|a| a.contains("copy=")));
        let outcome = plain.launch(java, &flags);
        assert_eq!(outcome.measured.exit_code, Some(0), "{outcome:?}");
        let mut launcher = JvmLauncher::new(agent, Duration::from_secs(10))
            .unwrap()
            .with_hooks(vec![Box::new(ReadsAtMain), Box::new(ReadsAtMain)]);
        // Each file once, however many hooks name it.
        let args = launcher.arguments(&[]);
        assert_eq!(
            args.iter().filter(|a| a.contains("copy=status,")).count(),
            1
        );
        let outcome = launcher.launch(java, &flags);
        assert_eq!(outcome.measured.output_tail.as_deref(), Some("copied\n"));
        // The next launch does not read the last one's copy.
        let outcome = launcher.launch(java, &["-c".to_owned(), "true".to_owned()]);
        assert_eq!(outcome.measured.output_tail, None);
    }

    #[test]
    fn a_hook_that_refuses_stops_the_launch_before_the_spawn() {
        let dir = tempfile::tempdir().unwrap();
        let (java, flags, seen) = shell_java(dir.path());
        let calls = Arc::new(std::sync::Mutex::new(Vec::new()));
        let hook = |name, refuse| -> Box<dyn LaunchHook> {
            Box::new(Recording {
                name,
                refuse,
                calls: Arc::clone(&calls),
            })
        };
        let mut launcher = JvmLauncher::new(dir.path().join("agent.so"), Duration::from_secs(10))
            .unwrap()
            .with_hooks(vec![
                hook("first", false),
                hook("second", true),
                hook("third", false),
            ]);
        let outcome = launcher.launch(&java, &flags);
        assert_eq!(outcome.measured.failure.as_deref(), Some("second refused"));
        assert_eq!(*calls.lock().unwrap(), ["first before", "second before"]);
        assert!(!seen.exists(), "the JVM was started");
        assert_eq!(outcome.measured.spawn_ns, Nanos(0), "never spawned");
    }

    #[test]
    fn a_complete_launch_measures_from_the_spawn() {
        let o = outcome();
        assert_eq!(judge(&o), None);
        assert_eq!(o.measured.time_to_main(), Some(Nanos(30)));
    }

    #[test]
    fn failures_are_named() {
        let mut o = outcome();
        o.measured.exit_code = Some(1);
        assert!(judge(&o).unwrap().contains("code 1"));
        o.measured.stamps.main = None;
        assert!(judge(&o).unwrap().contains("code 1 before main"));
        let mut o = outcome();
        o.measured.exit_code = Some(2);
        assert!(judge(&o).unwrap().contains("code 2 after main"));
        let mut o = outcome();
        o.measured.exit_code = None;
        o.measured.signal = Some(9);
        assert!(judge(&o).unwrap().contains("OOM killer"));
        let mut o = outcome();
        o.measured.stamps.main = None;
        assert!(judge(&o).unwrap().contains("without reaching main"));
        let mut o = outcome();
        o.measured.stamps.vm_init = stamp(200);
        assert!(judge(&o).unwrap().contains("out of order"));
        let mut o = outcome();
        o.measured.failure = Some("x".into());
        assert_eq!(o.measured.time_to_main(), None);
    }

    #[test]
    fn failures_are_explained_from_the_output_and_the_kernel() {
        let tail = |t: &str| Some(t.to_owned());
        assert_eq!(
            explain_failure(&None, Some(libc::SIGKILL), Some(true)).unwrap(),
            "killed by the OOM killer, because the heap does not fit in this machine's memory. The kernel's oom_kill count rose during this launch, and `dmesg` tells more."
        );
        assert!(
            explain_failure(&None, Some(libc::SIGKILL), Some(false))
                .unwrap()
                .contains("not by the OOM killer")
        );
        assert_eq!(explain_failure(&None, Some(libc::SIGKILL), None), None);
        assert_eq!(
            explain_failure(
                &tail("Error occurred during initialization of VM\nCould not find agent library /x.so in absolute path, with error: /x.so: file too short\n"),
                None,
                None
            )
            .unwrap(),
            "the agent did not load: Could not find agent library /x.so in absolute path, with error: /x.so: file too short"
        );
        assert_eq!(
            explain_failure(
                &tail("Unrecognized VM option 'NoSuchFlag'\nError: Could not create the Java Virtual Machine."),
                None,
                None
            )
            .unwrap(),
            "the JVM rejected a flag: Unrecognized VM option 'NoSuchFlag'"
        );
        assert_eq!(explain_failure(&tail("anything else"), None, None), None);
        // Temurin 25 crashing on a library that is not an agent.
        let crash = "#\n# A fatal error has been detected by the Java Runtime Environment:\n#\n#  SIGSEGV (0xb) at pc=0x0, pid=11702, tid=11704\n#\n# An error report file with more information is saved as:\n# /tmp/w4/hs_err_pid11702.log\n#\n";
        assert_eq!(
            explain_failure(&tail(crash), Some(libc::SIGABRT), Some(false)).unwrap(),
            "the JVM crashed (fatal error, SIGABRT); its report: /tmp/w4/hs_err_pid11702.log"
        );
        assert!(
            oom_kills().is_some(),
            "/proc/vmstat has oom_kill since Linux 4.13"
        );
    }
}
