//! `pretouch run`: check the matrix and the machine, then plan, launch, store and
//! print the report; `--resume` and `--dry-run` too.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context;

use crate::analyze::document;
use crate::features::kernels::machine::VmShape;
use crate::features::kernels::session as kernels;
use crate::features::probe::launch::ProbeSupport;
use crate::features::probe::session as probe;
use crate::launch::interrupt;
use crate::launch::{JvmLauncher, agent};
use crate::machine::env::Environment;
use crate::machine::jdk::Jdk;
use crate::machine::{host, memory};
use crate::matrix::app::App;
use crate::matrix::cpuset;
use crate::matrix::{Matrix, MatrixError};
use crate::render::common::Format;
use crate::schedule::adaptive::AdaptiveError;
use crate::schedule::extra::Owed;
use crate::schedule::plan::Plan;
use crate::schedule::run::Stop;
use crate::schedule::session::{self, Probing, Profiling, Session};
use crate::schedule::{dryrun, resume};
use crate::session::args::RunArgs;
use crate::session::checks::{
    self, check_cpus, check_label, check_memory, resolve_app, resolve_jdks,
};
use crate::session::error::{bad, exit};
use crate::session::extra;
use crate::session::preflight;
use crate::store::{
    FORMAT_VERSION, Record, ResultFile, RunHeader, RunResume, StoreWriter, read_for_report,
};

pub(crate) fn cmd_run(args: RunArgs) -> anyhow::Result<u8> {
    if let Some(path) = &args.resume {
        if let Some(session) = crate::store::kernels::session_file(path) {
            return kernels::cmd_resume_kernels(&args, &session);
        }
        return cmd_resume(&args, path);
    }
    // Everything the user can get wrong is checked before the first JVM starts.
    let matrix = fresh_matrix(&args)?;
    let kernels = !args.kernels.kernel.is_empty() || !matrix.kernels.is_empty();
    let bare_metal = || {
        crate::machine::guest::GuestInfo::read()
            .virtualization()
            .is_none()
    };
    let boot = boot_of(
        args.campaign.boot,
        kernels && args.kernels.in_vm.is_none(),
        bare_metal,
    );
    if let Some(method) = boot {
        if args.campaign.boot.is_none() {
            eprintln!(
                "pretouch: this machine is not a VM: the kernels boot on it, one boot a run, \
                 by kexec (the default on bare metal; --boot vm runs them in VMs instead)"
            );
        }
        return crate::features::campaign::session::cmd_start(&args, matrix, method);
    }
    for (given, flag) in [
        (args.campaign.yes, "--yes"),
        (
            args.campaign.calibrate_per_boot.is_some(),
            "--calibrate-per-boot",
        ),
        (args.campaign.campaign_root().is_some(), "--campaign-root"),
    ] {
        if given {
            return Err(bad(anyhow::anyhow!(
                "{flag} applies to a campaign across reboots only\n  fix: add --boot kexec \
                 (or reboot) with the kernels, or leave {flag} out"
            )));
        }
    }
    if args.kernels.in_vm.is_none() && kernels {
        return kernels::cmd_run_kernels(&args, matrix);
    }
    // Read only: the kernel has each file, and offers each value.
    crate::features::settings::session::check(&matrix, !args.dry_run)?;
    if args.dry_run {
        return dry_run(&args, matrix);
    }
    let (session, machine) = prepare_fresh(&args, matrix)?;
    run_and_restore(&args, session, machine)
}

/// How the kernels boot: as `--boot` says; without it, by kexec on bare metal and in
/// VMs on a VM. `None`: in VMs (or no kernels at all). `kernels`: the run has kernels
/// to boot (and is not itself a guest's).
fn boot_of(
    choice: Option<crate::features::campaign::options::BootChoice>,
    kernels: bool,
    bare_metal: impl FnOnce() -> bool,
) -> Option<crate::features::campaign::boot::BootMethod> {
    match choice {
        Some(choice) => choice.method(),
        None if kernels && bare_metal() => Some(crate::features::campaign::boot::BootMethod::Kexec),
        None => None,
    }
}

/// Runs the session ([`execute_and_report`]), then restores the kernel settings it
/// wrote, whatever happened.
fn run_and_restore(
    args: &RunArgs,
    session: Session,
    machine: preflight::Held,
) -> anyhow::Result<u8> {
    let settings = session.settings.clone();
    let result = execute_and_report(args, session, &machine);
    crate::features::settings::session::end(settings);
    result
}

/// The matrix of a fresh run, checked against the command line: what only a fresh run
/// can get wrong.
fn fresh_matrix(args: &RunArgs) -> anyhow::Result<Matrix> {
    let mut matrix = match &args.matrix {
        Some(path) => Matrix::from_file(path).map_err(bad)?,
        None => Matrix::default_matrix(),
    };
    let kernels = args.kernels.in_vm.is_none()
        && (!args.kernels.kernel.is_empty() || !matrix.kernels.is_empty());
    if args.pass_java_options && kernels {
        return Err(bad(anyhow::anyhow!(
            "--pass-java-options does not reach the JVMs in a kernel's VM\n  \
             fix: unset the variable and put its options in the matrix's jvm_args"
        )));
    }
    if args.kernels.runs > 1 && args.kernels.in_vm.is_none() && !kernels {
        return Err(bad(anyhow::anyhow!(
            "--runs {n} repeats the kernels of a `--kernel` run, and none is given\n  \
             fix: on this machine's own kernel, run `pretouch run` {n} times: each run is a \
             result file of its label, and `pretouch report` reads them as one label of {n} runs",
            n = args.kernels.runs
        )));
    }
    checks::check_java_env(&mut matrix, args.pass_java_options)?;
    // Before anything is planned or started: each `jdks:` entry is one JDK at least.
    let entries = matrix.jdks.as_ref().map_or(1, Vec::len);
    crate::schedule::plan::check_size(&matrix, entries).map_err(bad)?;
    Ok(matrix)
}

/// What a run resolves and checks against this machine before its first JVM, fresh or
/// resumed: perf and bpftrace when its extra rounds need them, the agent, the JDKs, the
/// CPU sets, the app, the memory, and the plan.
struct Resolved {
    matrix: Matrix,
    jdks: Vec<Jdk>,
    plan: Plan,
    app: Option<App>,
    agent: agent::Agent,
    perf: Option<PathBuf>,
    probes: Option<ProbeSupport>,
    cpu_placements: Vec<crate::machine::topology::Placement>,
}

/// The run's options, as the session holds them.
fn session_options(args: &RunArgs) -> session::Options {
    session::Options {
        timeout: Duration::from_secs(args.timeout),
        jvm_log: !args.no_jvm_log,
        fail_fast: args.fail_fast,
        give_up_after: args.give_up_after,
    }
}

/// Resolves the run's parts ([`Resolved`]); `same` checks the JDKs found against a
/// resumed file's.
fn resolve(
    args: &RunArgs,
    mut matrix: Matrix,
    matrix_file: Option<&Path>,
    (profile, probe): (bool, bool),
    same: &dyn Fn(&Matrix, &[Jdk]) -> anyhow::Result<()>,
) -> anyhow::Result<Resolved> {
    // perf and bpftrace before any JVM starts (resolving the JDKs runs them).
    let perf = match profile {
        true => Some(crate::features::profile::launch::preflight().map_err(bad)?),
        false => None,
    };
    let agent = agent::locate_agent(args.agent.as_deref()).map_err(bad)?;
    let probes = probe::preflight(probe, &agent.path)?;
    let jdks = resolve_jdks(&matrix, true).map_err(bad)?;
    same(&matrix, &jdks)?;
    crate::schedule::plan::check_size(&matrix, jdks.len()).map_err(bad)?;
    let cpu_placements = check_cpus(&mut matrix).map_err(bad)?;
    let app = resolve_app(&matrix, matrix_file, &jdks, true).map_err(bad)?;
    check_memory(&matrix, args.force)?;
    let plan = Plan::new(&matrix, &jdks).with_app(app.as_ref().map(|a| a.main.as_str()));
    Ok(Resolved {
        matrix,
        jdks,
        plan,
        app,
        agent,
        perf,
        probes,
        cpu_placements,
    })
}

/// Inside a VM that `--kernel` booted (`--in-vm`): the VM's shape.
fn guest_vm_shape(args: &RunArgs) -> anyhow::Result<Option<VmShape>> {
    args.kernels
        .in_vm
        .as_deref()
        .map(kernels::guest_shape)
        .transpose()
        .map_err(bad)
}

/// The session of a fresh run: its parts resolved, the machine held, the result file
/// created with its header.
fn prepare_fresh(args: &RunArgs, matrix: Matrix) -> anyhow::Result<(Session, preflight::Held)> {
    let vm_shape = guest_vm_shape(args)?;
    let extra = (
        args.profiling.profile || matrix.profile,
        probe::wanted(args, &matrix),
    );
    let r = resolve(args, matrix, args.matrix.as_deref(), extra, &|_, _| Ok(()))?;
    let host = host::host_info();
    let label = fresh_label(args, &host, vm_shape.as_ref())?;
    let machine = preflight::hold(
        args.comparable_memory || r.matrix.comparable_memory,
        &r.matrix,
    )?;
    // Restored at the end (SIGINT and SIGTERM end the run there too), or when the last
    // handle is dropped on a panic; after a kill, by the next pretouch.
    let settings = crate::features::settings::session::begin(&r.matrix)?;
    let store = create_result_file(args, &r, &label, host, vm_shape, &machine)?;
    if let Some(work) = &args.kernels.in_vm {
        kernels::note_result(work, store.path())?;
    }
    announce_fresh(&r, &label, store.path());
    let session = Session {
        matrix: r.matrix,
        jdks: r.jdks,
        plan: r.plan,
        agent: r.agent.path,
        app: r.app,
        profiling: r.perf.map(|perf| Profiling {
            perf,
            owed: Owed::all(args.profiling.profile_rounds),
            keep_perf_data: args.profiling.keep_perf_data.clone(),
        }),
        probing: r.probes.map(|support| Probing {
            support,
            owed: Owed::all(args.probing.probe_rounds),
        }),
        store,
        options: session_options(args),
        resumed: session::Resumed::default(),
        settings,
    };
    Ok((session, machine))
}

/// The label a fresh run files its results under: `--label`, else the kernel's release;
/// marked when the VM it runs in is emulated.
fn fresh_label(
    args: &RunArgs,
    host: &host::HostInfo,
    vm_shape: Option<&VmShape>,
) -> anyhow::Result<String> {
    let label = args
        .label
        .clone()
        .unwrap_or_else(|| host.kernel_release.clone());
    let label =
        crate::features::kernels::machine::mark_label(&label, vm_shape.is_some_and(|v| v.emulated));
    check_label(&label).map_err(bad)?;
    Ok(label)
}

/// A fresh run's result file, under its label's folder, its header written.
fn create_result_file(
    args: &RunArgs,
    r: &Resolved,
    label: &str,
    host: host::HostInfo,
    vm_shape: Option<VmShape>,
    machine: &preflight::Held,
) -> anyhow::Result<StoreWriter> {
    let matrix = &r.matrix;
    let started = std::time::SystemTime::now();
    let utc = humantime::format_rfc3339_seconds(started).to_string();
    let file_stamp: String = utc.chars().filter(|c| *c != '-' && *c != ':').collect();
    let mut store =
        StoreWriter::create(&args.results.join(label), &matrix.name, &file_stamp).map_err(bad)?;
    store
        .append(&Record::Run(RunHeader {
            format: FORMAT_VERSION,
            tool_version: env!("CARGO_PKG_VERSION").to_owned(),
            name: matrix.name.clone(),
            label: label.to_owned(),
            matrix_origin: matrix.origin.clone(),
            matrix: matrix.text.clone(),
            matrix_sha256: Some(resume::matrix_sha256(&matrix.text)),
            host,
            started_at: utc,
            jdks: r.jdks.clone(),
            agent: r.agent.path.clone(),
            agent_sha256: Some(r.agent.sha256.clone()),
            planned_launches: r.plan.launches.len() as u64,
            env: Some(Environment::read()),
            vm: vm_shape.map(Box::new),
            cpu_placements: r.cpu_placements.clone(),
            comparable_memory: machine.comparable_memory.clone(),
            profile_rounds: r.perf.as_ref().map(|_| args.profiling.profile_rounds),
            probe_rounds: r.probes.as_ref().map(|_| args.probing.probe_rounds),
        }))
        .context("writing the run header")?;
    Ok(store)
}

/// Says what a fresh run launches, under which label, and where it records them.
fn announce_fresh(r: &Resolved, label: &str, file: &Path) {
    let matrix = &r.matrix;
    eprintln!(
        "pretouch: {} launches ({} cells x {} rounds x with/without pretouch), label `{label}`\n  recording to {}",
        r.plan.launches.len(),
        r.plan.cells.len(),
        matrix.warmup + matrix.repetitions,
        file.display()
    );
    if let Some(a) = matrix.adaptive {
        eprintln!(
            "  adaptive: then more rounds for the cells whose 95% interval is wider than {}, up to {} rounds",
            a.target(),
            a.max
        );
    }
}

/// `pretouch run --resume PATH [MATRIX]`: the missing launches of an unfinished run,
/// appended to its file.
pub(crate) fn cmd_resume(args: &RunArgs, path: &Path) -> anyhow::Result<u8> {
    let (session, machine) = prepare_resume(args, path)?;
    run_and_restore(args, session, machine)
}

/// The matrix a resumed file was started with: MATRIX when given, else the file's own.
fn resumed_matrix(args: &RunArgs, path: &Path, file: &ResultFile) -> anyhow::Result<Matrix> {
    let header = &file.header;
    let built_in = Matrix::default_matrix();
    let mut matrix = match &args.matrix {
        Some(path) => Matrix::from_file(path).map_err(bad)?,
        None if header.matrix_origin == built_in.origin => built_in,
        None => match Matrix::from_file(Path::new(&header.matrix_origin)) {
            Ok(matrix) => matrix,
            Err(MatrixError::Read { source, .. }) => {
                return Err(bad(anyhow::anyhow!(
                    "cannot read matrix `{}`, which `{}` was started with: {source}\n  \
                     fix: run from the folder the run was started in, or name the matrix: \
                     pretouch run --resume {} MATRIX",
                    header.matrix_origin,
                    file.path.display(),
                    path.display()
                )));
            }
            Err(e) => return Err(bad(e)),
        },
    };
    checks::check_java_env(&mut matrix, args.pass_java_options)?;
    Ok(matrix)
}

/// The extra rounds a resumed file owes, as its first run planned them, whatever this
/// command line says: `(profile rounds, probe rounds)`.
fn resumed_extra(
    args: &RunArgs,
    matrix: &Matrix,
    file: &ResultFile,
) -> anyhow::Result<(Option<u32>, Option<u32>)> {
    let header = &file.header;
    let profile_rounds = resume::profile_rounds(
        file,
        matrix.profile,
        args.profiling.profile,
        args.profiling.profile_rounds,
    )
    .map_err(bad)?;
    if let Some(rounds) = profile_rounds {
        if !(args.profiling.profile || matrix.profile) {
            eprintln!(
                "note: `{}` was started with --profile ({rounds} profiled rounds per cell): the resume runs its missing profiled launches too",
                file.path.display()
            );
        } else if args.profiling.profile && args.profiling.profile_rounds != rounds {
            eprintln!(
                "note: `{}` was started with --profile-rounds {rounds}: the resume keeps them (--profile-rounds {} does not change a resumed run)",
                file.path.display(),
                args.profiling.profile_rounds
            );
        }
    }
    // A resume adds no probed rounds to a run without.
    if args.probing.probe && header.probe_rounds.is_none() {
        return Err(bad(anyhow::anyhow!(
            "`{}` was started without --probe: a resume runs only the launches its run planned \
             (its header plans no probed rounds, so nothing would tell the probed launches owed \
             from those done)\n  \
             fix: resume without --probe, then probe in a run of its own: `pretouch run {} --probe`",
            file.path.display(),
            header.matrix_origin
        )));
    }
    if let Some(rounds) = header.probe_rounds
        && !probe::wanted(args, matrix)
    {
        eprintln!(
            "note: `{}` was started with --probe ({rounds} probed rounds per cell): the resume runs its missing probed launches too",
            file.path.display()
        );
    }
    Ok((profile_rounds, header.probe_rounds))
}

/// The session of a resumed run: the file's matrix and extra rounds, its parts resolved
/// and checked against the file's, the machine held, a resume record appended.
fn prepare_resume(args: &RunArgs, path: &Path) -> anyhow::Result<(Session, preflight::Held)> {
    let unfinished = resume::find(path).map_err(bad)?;
    for warning in &unfinished.warnings {
        eprintln!("warning: {warning}");
    }
    let file = unfinished.file;
    let header = &file.header;
    let matrix = resumed_matrix(args, path, &file)?;
    crate::features::settings::session::check(&matrix, true)?;
    let (profile_rounds, probe_rounds) = resumed_extra(args, &matrix, &file)?;
    let host = host::host_info();
    let matrix_file = args
        .matrix
        .clone()
        .unwrap_or_else(|| PathBuf::from(&header.matrix_origin));
    let same = |matrix: &Matrix, jdks: &[Jdk]| {
        resume::check_same(&file.path, header, &matrix.text, &host, jdks).map_err(bad)
    };
    let extra = (profile_rounds.is_some(), probe_rounds.is_some());
    let r = resolve(args, matrix, Some(&matrix_file), extra, &same)?;
    warn_of_another_agent(&file, &r.agent);
    let done = match r.matrix.adaptive {
        None => resume::done_launches(&r.plan, &file).map_err(bad)?,
        // Adaptive rounds go past the plan: the replay checks each launch against the
        // policy's (see `adaptive::execute`).
        Some(_) => file.launches.iter().map(|l| l.seq).collect(),
    };
    let profiling = match (r.perf, profile_rounds) {
        (Some(perf), Some(rounds)) => Some(Profiling {
            perf,
            owed: owed(&r.plan, &file, rounds, true)?,
            keep_perf_data: args.profiling.keep_perf_data.clone(),
        }),
        _ => None,
    };
    let probing = match (r.probes, probe_rounds) {
        (Some(support), Some(rounds)) => Some(Probing {
            support,
            owed: owed(&r.plan, &file, rounds, false)?,
        }),
        _ => None,
    };
    let vm_shape = guest_vm_shape(args)?;
    let comparable =
        args.comparable_memory || r.matrix.comparable_memory || header.comparable_memory.is_some();
    let machine = preflight::hold(comparable, &r.matrix)?;
    let settings = crate::features::settings::session::begin(&r.matrix)?;
    if let Some(work) = &args.kernels.in_vm {
        kernels::note_result(work, &file.path)?;
    }
    let store = append_resume_record(&file, host, &r.agent, vm_shape)?;
    announce_resume(&file, &done, &r.plan, profiling.as_ref());
    let resumed = session::Resumed {
        done,
        failed_before: file.launches.iter().filter(|l| !l.ok()).count() as u64,
        // The end record follows the timed launches: only extra ones are missing.
        timed_ended: file.end.is_some(),
        earlier: file.launches,
    };
    let session = Session {
        matrix: r.matrix,
        jdks: r.jdks,
        plan: r.plan,
        agent: r.agent.path,
        app: r.app,
        profiling,
        probing,
        store,
        options: session_options(args),
        resumed,
        settings,
    };
    Ok((session, machine))
}

/// The resumed file opened to append, a cut last line dropped (and said), and the
/// resume record appended: when, by which pretouch, agent and host, after how many
/// launches.
fn append_resume_record(
    file: &ResultFile,
    host: host::HostInfo,
    agent: &agent::Agent,
    vm_shape: Option<VmShape>,
) -> anyhow::Result<StoreWriter> {
    let (mut store, dropped_tail) = StoreWriter::open_append(&file.path).map_err(bad)?;
    if let Some(tail) = &dropped_tail {
        eprintln!(
            "warning: removed the cut last line of `{}` ({} bytes; kept in the resume record)",
            file.path.display(),
            tail.len()
        );
    }
    store
        .append(&Record::Resume(RunResume {
            resumed_at: crate::launch::utc_now_millis(),
            tool_version: env!("CARGO_PKG_VERSION").to_owned(),
            host,
            agent: agent.path.clone(),
            agent_sha256: Some(agent.sha256.clone()),
            launches_before: file.launches.len() as u64,
            dropped_tail,
            vm: vm_shape.map(Box::new),
        }))
        .context("writing the resume record")?;
    Ok(store)
}

/// Says how far the resumed file is: its timed launches recorded and to go, then its
/// profiled ones.
fn announce_resume(
    file: &ResultFile,
    done: &std::collections::BTreeSet<u64>,
    plan: &Plan,
    profiling: Option<&Profiling>,
) {
    eprintln!(
        "pretouch: resuming `{}`: {} of {} launches recorded, {} to go{}, label `{}`",
        file.path.display(),
        done.len(),
        plan.launches.len(),
        plan.launches.len().saturating_sub(done.len()),
        profiling.map_or(String::new(), |p| {
            let all = crate::schedule::extra::count(plan, p.owed.rounds);
            format!(
                "; then {} of {all} profiled launches recorded, {} to go",
                p.owed.done.len(),
                all.saturating_sub(p.owed.done.len() as u64)
            )
        }),
        file.header.label
    );
}

/// Launches of one file measured by two agents are worth a word: the stamps are taken
/// by the agent's code.
fn warn_of_another_agent(file: &ResultFile, agent: &agent::Agent) {
    if let Some(before) = (file.header.agent_sha256.as_ref()).filter(|h| **h != agent.sha256) {
        eprintln!(
            "warning: `{}` was started with another agent (sha256 {before}); its launches from here on use {} (sha256 {}), as its resume record says",
            file.path.display(),
            agent.path.display(),
            agent.sha256
        );
    }
}

/// The profiled (`profiled`) or probed launches of `rounds` rounds a resumed file
/// owes: the seqs it holds, each checked to be the one planned.
fn owed(plan: &Plan, file: &ResultFile, rounds: u32, profiled: bool) -> anyhow::Result<Owed> {
    let done = match profiled {
        true => resume::done_profiles(plan, rounds, file).map_err(bad)?,
        false => crate::features::probe::schedule::done_probes(plan, rounds, file)
            .map_err(|e| bad(anyhow::anyhow!("`{}`, {e}", file.path.display())))?,
    };
    Ok(Owed { rounds, done })
}

/// Runs the session's timed launches, then its profiled rounds and its probed ones,
/// then says how it ended: the report, or how to resume.
fn execute_and_report(
    args: &RunArgs,
    mut session: Session,
    machine: &preflight::Held,
) -> anyhow::Result<u8> {
    let interrupt = Some(&machine.interrupt);
    let mut launcher = session
        .launcher(interrupt)
        .context("creating the launcher's scratch folder")?
        .with_crash_dir(crate::store::crash_dir(session.store.path()));
    let summary = session
        .run_timed(&mut launcher, interrupt)
        .map_err(|e| match e {
            AdaptiveError::Mismatch { .. } => {
                bad(anyhow::anyhow!("`{}`, {e}", session.store.path().display()))
            }
            AdaptiveError::Store(e) => anyhow::Error::new(e),
        })?;
    drop(launcher);
    let profiled = session.profiling.is_some();
    if summary.stopped.is_none() {
        // The profiled rounds, then the probed ones; a signal in either ends the run.
        if let Some(profiling) = session.profiling.take()
            && let Some(code) = extra::run(&mut session, interrupt, &profiling)?
        {
            return Ok(code);
        }
        if let Some(probing) = session.probing.take()
            && let Some(code) = extra::run(&mut session, interrupt, &probing)?
        {
            return Ok(code);
        }
    }
    let recorded = session.resumed.done.len() as u64 + summary.launches;
    let failed = session.resumed.failed_before + summary.failed;
    if let Some(stop) = &summary.stopped {
        return Ok(say_stopped(stop, &session, recorded));
    }
    let path = session.store.path();
    print_report(args, path, profiled)?;
    eprintln!("results: {}", path.display());
    if failed > 0 {
        eprintln!("{failed} of {recorded} launches failed; see the warnings above");
        return Ok(exit::FAILED_LAUNCHES);
    }
    Ok(0)
}

/// Says why the timed launches stopped before their end (`recorded` of them in the
/// file) and how to resume; the exit code.
fn say_stopped(stop: &Stop, session: &Session, recorded: u64) -> u8 {
    let path = session.store.path();
    let planned = session.plan.launches.len();
    let resume_hint = format!(
        "every finished launch is in {}\n  resume: pretouch run --resume {}",
        path.display(),
        path.display()
    );
    match *stop {
        Stop::Interrupted(signal) => {
            eprintln!(
                "pretouch: interrupted by {} after {recorded} of {planned} launches; the JVM under way was killed and not recorded\n  {resume_hint}",
                interrupt::signal_name(signal),
            );
            interrupt::exit_code(signal)
        }
        Stop::FailFast { seq } => {
            eprintln!(
                "pretouch: stopped after launch {seq} failed (--fail-fast), {recorded} of {planned} launches recorded\n  {resume_hint}",
            );
            exit::FAILED_LAUNCHES
        }
    }
}

/// Prints the report of the result file at `path`, in `--format`, with this label's
/// calibrations; with the profile after the text table when the run was `profiled`.
fn print_report(args: &RunArgs, path: &Path, profiled: bool) -> anyhow::Result<()> {
    let mut results = read_for_report(&[path.to_owned()])?;
    // This label's calibrations (beside the result file), for the report's % of the ceiling;
    // the label's other result files are read up to their headers only.
    if let Some(label_dir) = path.parent()
        && let Ok(found) = crate::store::read::catalog_for_report(&[label_dir.to_owned()])
    {
        results.calibrations = found.results.calibrations;
    }
    // The profile follows the text table only; `pretouch report --profile` has it in
    // every format.
    let profiled = profiled && args.format == Format::Text;
    let options = crate::analyze::Options {
        profile: profiled,
        show_profile: profiled,
        ..crate::analyze::Options::default()
    };
    let doc = document::build(results, &options)?;
    print!("{}", crate::render::document::render(&doc, args.format));
    Ok(())
}

/// `pretouch run --dry-run`: the plan and its command lines, checked as a run checks
/// them, but nothing launched (a matrix naming ZGC or Shenandoah still asks each JDK
/// for its collectors).
fn dry_run(args: &RunArgs, mut matrix: Matrix) -> anyhow::Result<u8> {
    let mut jdks = resolve_jdks(&matrix, false).map_err(bad)?;
    let notes = checks::dry_run_collectors(&matrix, &mut jdks)?;
    crate::schedule::plan::check_size(&matrix, jdks.len()).map_err(bad)?;
    check_cpus(&mut matrix).map_err(bad)?;
    let app = resolve_app(&matrix, args.matrix.as_deref(), &jdks, false).map_err(bad)?;
    for note in &notes {
        println!("{note}");
    }
    show_plan(args, &matrix, &jdks, app)
}

fn show_plan(
    args: &RunArgs,
    matrix: &Matrix,
    jdks: &[Jdk],
    app: Option<App>,
) -> anyhow::Result<u8> {
    // A missing --agent file need not stop the plan from being shown.
    let agent = agent::locate_agent(args.agent.as_deref())
        .map_or_else(|_| PathBuf::from(agent::AGENT_FILE), |a| a.path);
    let main = app.as_ref().map(|a| a.main.clone());
    let launcher = JvmLauncher::new(agent, Duration::from_secs(args.timeout))
        .context("creating a scratch folder")?
        .with_app(app)
        .with_jvm_log(!args.no_jvm_log);
    let plan = Plan::new(matrix, jdks).with_app(main.as_deref());
    let scratch = launcher.scratch().display().to_string();
    let available = cpuset::available().map_or(1, |c| c.len());
    let text = dryrun::render(matrix, &plan, available, &|cell, pretouch| {
        std::iter::once(cell.jdk.java.display().to_string())
            .chain(
                launcher
                    .arguments(&cell.jvm_args(&matrix.jvm_args, pretouch))
                    .into_iter()
                    .map(|a| a.replace(&scratch, "$SCRATCH")),
            )
            .collect()
    });
    print!("{text}");
    println!(
        "($SCRATCH: a temporary folder made for the run; it holds the stamps file and the main class)"
    );
    print!(
        "{}",
        dryrun::detectable(
            matrix,
            &plan,
            available,
            args.kernels.runs as usize,
            &planned_noise(args)
        )
    );
    if probe::wanted(args, matrix) {
        println!(
            "then {} probed launches ({} cells x {} rounds x with/without pretouch) while bpftrace times each page fault and lock wait, in no median; a real run checks bpftrace first",
            plan.cells.len() as u32 * args.probing.probe_rounds * 2,
            plan.cells.len(),
            args.probing.probe_rounds
        );
    }
    if args.profiling.profile || matrix.profile {
        println!(
            "then {} profiled launches ({} cells x {} rounds x with/without pretouch) under `perf record -e cpu-clock -g`, in no median; a real run checks perf first",
            plan.cells.len() as u32 * args.profiling.profile_rounds * 2,
            plan.cells.len(),
            args.profiling.profile_rounds
        );
    }
    if let Some(available) = memory::mem_available()
        && let Err(e) = memory::check(matrix, available)
    {
        println!("note: a real run on this machine would stop here: {e}");
    }
    if args.comparable_memory || matrix.comparable_memory {
        println!("{}", preflight::comparable_memory_plan(matrix));
    }
    Ok(0)
}

/// The noise the dry run judges the plan's power by: the last runs in `--results`
/// when it holds any, else the stated defaults.
fn planned_noise(args: &RunArgs) -> dryrun::PlannedNoise {
    match crate::store::read_results(std::slice::from_ref(&args.results)) {
        Ok(r) if !r.files.is_empty() => dryrun::PlannedNoise::from_report(
            &crate::analyze::build(&r),
            &args.results.display().to_string(),
        ),
        _ => dryrun::PlannedNoise::defaults(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::campaign::boot::BootMethod;
    use crate::features::campaign::options::BootChoice;

    #[test]
    fn kernels_boot_by_kexec_on_bare_metal_and_in_vms_on_a_vm_unless_boot_says() {
        let never = || -> bool { panic!("not asked: --boot decides") };
        assert_eq!(boot_of(None, true, || true), Some(BootMethod::Kexec));
        assert_eq!(boot_of(None, true, || false), None);
        assert_eq!(
            boot_of(None, false, || true),
            None,
            "no kernels: no campaign"
        );
        assert_eq!(boot_of(Some(BootChoice::Vm), true, never), None);
        assert_eq!(
            boot_of(Some(BootChoice::Reboot), true, never),
            Some(BootMethod::Reboot)
        );
        assert_eq!(
            boot_of(Some(BootChoice::Kexec), true, never),
            Some(BootMethod::Kexec)
        );
    }
}
