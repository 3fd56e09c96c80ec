//! `pretouch run`: check the matrix and the machine, then plan, launch, store and
//! print the report; `--resume` and `--dry-run` too.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context;

use crate::analyze::document;
use crate::cmd::checks::{self, check_cpus, check_label, check_memory, resolve_app, resolve_jdks};
use crate::cmd::cli::RunArgs;
use crate::cmd::error::{bad, exit};
use crate::cmd::extra;
use crate::cmd::kernels;
use crate::cmd::preflight;
use crate::cmd::probe;
use crate::cmd::profile;
use crate::launch::interrupt::{self, Interrupt};
use crate::launch::{JvmLauncher, agent};
use crate::machine::env::Environment;
use crate::machine::jdk::Jdk;
use crate::machine::{host, lock, memory};
use crate::matrix::app::App;
use crate::matrix::cpuset;
use crate::matrix::{Matrix, MatrixError};
use crate::render::common::Format;
use crate::schedule::plan::Plan;
use crate::schedule::progress::Progress;
use crate::schedule::run::Stop;
use crate::schedule::{adaptive, dryrun, resume, run};
use crate::store::{FORMAT_VERSION, Record, RunHeader, RunResume, StoreWriter, read_for_report};

pub(crate) fn cmd_run(args: RunArgs) -> anyhow::Result<u8> {
    if let Some(path) = &args.resume {
        if let Some(session) = crate::store::kernels::session_file(path) {
            return kernels::cmd_resume_kernels(&args, &session);
        }
        return cmd_resume(&args, path);
    }
    // Everything the user can get wrong is checked before the first JVM starts.
    let mut matrix = match &args.matrix {
        Some(path) => Matrix::from_file(path).map_err(bad)?,
        None => Matrix::default_matrix(),
    };
    if args.pass_java_options
        && args.in_vm.is_none()
        && (!args.kernel.is_empty() || !matrix.kernels.is_empty())
    {
        return Err(bad(anyhow::anyhow!(
            "--pass-java-options does not reach the JVMs in a kernel's VM\n  \
             fix: unset the variable and put its options in the matrix's jvm_args"
        )));
    }
    if args.runs > 1 && args.in_vm.is_none() && args.kernel.is_empty() && matrix.kernels.is_empty()
    {
        return Err(bad(anyhow::anyhow!(
            "--runs {n} repeats the kernels of a `--kernel` run, and none is given\n  \
             fix: on this machine's own kernel, run `pretouch run` {n} times: each run is a \
             result file of its label, and `pretouch report` reads them as one label of {n} runs",
            n = args.runs
        )));
    }
    checks::check_java_env(&mut matrix, args.pass_java_options)?;
    // Before anything is planned or started: each `jdks:` entry is one JDK at least.
    let entries = matrix.jdks.as_ref().map_or(1, Vec::len);
    crate::schedule::plan::check_size(&matrix, entries).map_err(bad)?;
    if args.boot.is_some() {
        return crate::cmd::campaign::cmd_start(&args, matrix);
    }
    if args.in_vm.is_none() && (!args.kernel.is_empty() || !matrix.kernels.is_empty()) {
        return kernels::cmd_run_kernels(&args, matrix);
    }
    // Read only: the kernel has each file, and offers each value.
    crate::cmd::settings::check(&matrix, !args.dry_run)?;
    // Inside a VM that `--kernel` booted: the VM's shape, and the label marked if emulated.
    let vm_shape = args
        .in_vm
        .as_deref()
        .map(kernels::guest_shape)
        .transpose()
        .map_err(bad)?;
    // perf, before any JVM starts (resolving the JDKs runs them).
    let perf = match args.dry_run {
        true => None,
        false => profile::preflight(&args, &matrix)?,
    };
    // bpftrace, BTF, tracepoints and permissions, as well.
    let probes = match args.dry_run || !probe::wanted(&args, &matrix) {
        true => None,
        false => {
            let agent = agent::locate_agent(args.agent.as_deref()).map_err(bad)?;
            probe::preflight(true, &agent.path)?
        }
    };
    let mut jdks = resolve_jdks(&matrix, !args.dry_run).map_err(bad)?;
    let dry_notes = if args.dry_run {
        crate::cmd::checks::dry_run_collectors(&matrix, &mut jdks)?
    } else {
        Vec::new()
    };
    crate::schedule::plan::check_size(&matrix, jdks.len()).map_err(bad)?;
    let cpu_placements = check_cpus(&mut matrix).map_err(bad)?;
    let app = resolve_app(&matrix, args.matrix.as_deref(), &jdks, !args.dry_run).map_err(bad)?;
    if args.dry_run {
        for note in &dry_notes {
            println!("{note}");
        }
        return dry_run(&args, &matrix, &jdks, app);
    }
    let agent = agent::locate_agent(args.agent.as_deref()).map_err(bad)?;
    let host = host::host_info();
    let label = args
        .label
        .clone()
        .unwrap_or_else(|| host.kernel_release.clone());
    let label =
        crate::machine::kernels::mark_label(&label, vm_shape.as_ref().is_some_and(|v| v.emulated));
    check_label(&label).map_err(bad)?;
    check_memory(&matrix, args.force)?;
    let plan = Plan::new(&matrix, &jdks).with_app(app.as_ref().map(|a| a.main.as_str()));

    let interrupt = Interrupt::new();
    interrupt
        .install_signal_handlers()
        .context("installing the SIGINT/SIGTERM handlers")?;
    let _machine = lock::acquire_or_warn();
    // Restored at the end (SIGINT and SIGTERM end the run there too), or when the last
    // handle is dropped on a panic; after a kill, by the next pretouch.
    let settings = crate::cmd::settings::begin(&matrix)?;
    // Restored when dropped: at the end, on SIGINT/SIGTERM (the run returns), on a panic.
    let comparable = args.comparable_memory || matrix.comparable_memory;
    let (_reporting, comparable_memory) = preflight::comparable_memory(comparable, &matrix)?;
    preflight::warn_about_the_machine(comparable);
    let started = std::time::SystemTime::now();
    let utc = humantime::format_rfc3339_seconds(started).to_string();
    let file_stamp: String = utc.chars().filter(|c| *c != '-' && *c != ':').collect();
    let mut store =
        StoreWriter::create(&args.results.join(&label), &matrix.name, &file_stamp).map_err(bad)?;
    store
        .append(&Record::Run(RunHeader {
            format: FORMAT_VERSION,
            tool_version: env!("CARGO_PKG_VERSION").to_owned(),
            name: matrix.name.clone(),
            label: label.clone(),
            matrix_origin: matrix.origin.clone(),
            matrix: matrix.text.clone(),
            matrix_sha256: Some(resume::matrix_sha256(&matrix.text)),
            host,
            started_at: utc,
            jdks: jdks.clone(),
            agent: agent.path.clone(),
            agent_sha256: Some(agent.sha256.clone()),
            planned_launches: plan.launches.len() as u64,
            env: Some(Environment::read()),
            vm: vm_shape.map(Box::new),
            cpu_placements,
            comparable_memory,
            profile_rounds: perf.as_ref().map(|_| args.profile_rounds),
            probe_rounds: probes.as_ref().map(|_| args.probe_rounds),
        }))
        .context("writing the run header")?;
    if let Some(work) = &args.in_vm {
        kernels::note_result(work, store.path())?;
    }
    eprintln!(
        "pretouch: {} launches ({} cells x {} rounds x with/without pretouch), label `{label}`\n  recording to {}",
        plan.launches.len(),
        plan.cells.len(),
        matrix.warmup + matrix.repetitions,
        store.path().display()
    );
    if let Some(a) = matrix.adaptive {
        eprintln!(
            "  adaptive: then more rounds for the cells whose 95% interval is wider than {}, up to {} rounds",
            a.target(),
            a.max
        );
    }
    let options = run::Options {
        interrupt: Some(&interrupt),
        fail_fast: args.fail_fast,
        give_up_after: args.give_up_after,
        settings: settings.clone(),
        ..run::Options::default()
    };
    let profiling = perf.map(|perf| profile::Profiling {
        perf,
        owed: extra::Owed::all(args.profile_rounds),
        keep_perf_data: args.keep_perf_data.clone(),
    });
    let probing = probes.map(|support| probe::Probing {
        support,
        owed: extra::Owed::all(args.probe_rounds),
    });
    let result = execute_and_report(
        &args, &plan, &matrix, agent.path, app, &mut store, &options, profiling, probing, false,
    );
    drop(options);
    crate::cmd::settings::end(settings);
    result
}

/// `pretouch run --resume PATH [MATRIX]`: the missing launches of an unfinished run,
/// appended to its file.
pub(crate) fn cmd_resume(args: &RunArgs, path: &Path) -> anyhow::Result<u8> {
    let unfinished = resume::find(path).map_err(bad)?;
    for warning in &unfinished.warnings {
        eprintln!("warning: {warning}");
    }
    let file = &unfinished.file;
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
    // The profiled rounds are the first run's, whatever this command line says.
    let profile_rounds =
        resume::profile_rounds(file, matrix.profile, args.profile, args.profile_rounds)
            .map_err(bad)?;
    if let Some(rounds) = profile_rounds {
        if !(args.profile || matrix.profile) {
            eprintln!(
                "note: `{}` was started with --profile ({rounds} profiled rounds per cell): the resume runs its missing profiled launches too",
                file.path.display()
            );
        } else if args.profile && args.profile_rounds != rounds {
            eprintln!(
                "note: `{}` was started with --profile-rounds {rounds}: the resume keeps them (--profile-rounds {} does not change a resumed run)",
                file.path.display(),
                args.profile_rounds
            );
        }
    }
    let perf = match profile_rounds {
        Some(_) => Some(crate::launch::profile::preflight().map_err(bad)?),
        None => None,
    };
    // The probed rounds too are the first run's; a resume adds none to a run without.
    if args.probe && file.header.probe_rounds.is_none() {
        return Err(bad(anyhow::anyhow!(
            "`{}` was started without --probe: a resume runs only the launches its run planned \
             (its header plans no probed rounds, so nothing would tell the probed launches owed \
             from those done)\n  \
             fix: resume without --probe, then probe in a run of its own: `pretouch run {} --probe`",
            file.path.display(),
            header.matrix_origin
        )));
    }
    let probe_support = match file.header.probe_rounds {
        Some(rounds) => {
            if !probe::wanted(args, &matrix) {
                eprintln!(
                    "note: `{}` was started with --probe ({rounds} probed rounds per cell): the resume runs its missing probed launches too",
                    file.path.display()
                );
            }
            let agent = agent::locate_agent(args.agent.as_deref()).map_err(bad)?;
            probe::preflight(true, &agent.path)?
        }
        None => None,
    };
    let host = host::host_info();
    let jdks = resolve_jdks(&matrix, true).map_err(bad)?;
    resume::check_same(&file.path, header, &matrix.text, &host, &jdks).map_err(bad)?;
    check_cpus(&mut matrix).map_err(bad)?;
    let matrix_file = args
        .matrix
        .clone()
        .unwrap_or_else(|| PathBuf::from(&header.matrix_origin));
    let app = resolve_app(&matrix, Some(&matrix_file), &jdks, true).map_err(bad)?;
    let agent = agent::locate_agent(args.agent.as_deref()).map_err(bad)?;
    // Launches of one file measured by two agents are worth a word: the stamps are
    // taken by the agent's code.
    if let Some(before) = (header.agent_sha256.as_ref()).filter(|h| **h != agent.sha256) {
        eprintln!(
            "warning: `{}` was started with another agent (sha256 {before}); its launches from here on use {} (sha256 {}), as its resume record says",
            file.path.display(),
            agent.path.display(),
            agent.sha256
        );
    }
    check_memory(&matrix, args.force)?;
    crate::schedule::plan::check_size(&matrix, jdks.len()).map_err(bad)?;
    crate::cmd::settings::check(&matrix, true)?;
    let plan = Plan::new(&matrix, &jdks).with_app(app.as_ref().map(|a| a.main.as_str()));
    let done = match matrix.adaptive {
        None => resume::done_launches(&plan, file).map_err(bad)?,
        // Adaptive rounds go past the plan: the replay checks each launch against the
        // policy's (see `adaptive::execute`).
        Some(_) => file.launches.iter().map(|l| l.seq).collect(),
    };
    let failed_before = file.launches.iter().filter(|l| !l.ok()).count() as u64;
    let profiling = match (perf, profile_rounds) {
        (Some(perf), Some(rounds)) => Some(profile::Profiling {
            perf,
            owed: extra::Owed {
                rounds,
                done: resume::done_profiles(&plan, rounds, file).map_err(bad)?,
            },
            keep_perf_data: args.keep_perf_data.clone(),
        }),
        _ => None,
    };
    let probing = match (probe_support, header.probe_rounds) {
        (Some(support), Some(rounds)) => Some(probe::Probing {
            support,
            owed: extra::Owed {
                rounds,
                done: crate::schedule::probe::done_probes(&plan, rounds, file)
                    .map_err(|e| bad(anyhow::anyhow!("`{}`, {e}", file.path.display())))?,
            },
        }),
        _ => None,
    };
    // The end record follows the timed launches: only profiled or probed ones are missing.
    let timed_ended = file.end.is_some();

    let interrupt = Interrupt::new();
    interrupt
        .install_signal_handlers()
        .context("installing the SIGINT/SIGTERM handlers")?;
    let _machine = lock::acquire_or_warn();
    let settings = crate::cmd::settings::begin(&matrix)?;
    let vm_shape = args
        .in_vm
        .as_deref()
        .map(kernels::guest_shape)
        .transpose()
        .map_err(bad)?;
    if let Some(work) = &args.in_vm {
        kernels::note_result(work, &file.path)?;
    }
    let comparable =
        args.comparable_memory || matrix.comparable_memory || header.comparable_memory.is_some();
    let (_reporting, _) = preflight::comparable_memory(comparable, &matrix)?;
    preflight::warn_about_the_machine(comparable);
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
    eprintln!(
        "pretouch: resuming `{}`: {} of {} launches recorded, {} to go{}, label `{}`",
        file.path.display(),
        done.len(),
        plan.launches.len(),
        plan.launches.len().saturating_sub(done.len()),
        profiling.as_ref().map_or(String::new(), |p| {
            let all = crate::schedule::extra::count(&plan, p.owed.rounds);
            format!(
                "; then {} of {all} profiled launches recorded, {} to go",
                p.owed.done.len(),
                all.saturating_sub(p.owed.done.len() as u64)
            )
        }),
        header.label
    );
    let options = run::Options {
        interrupt: Some(&interrupt),
        fail_fast: args.fail_fast,
        launches_before: file.launches.len() as u64,
        failed_before,
        done,
        give_up_after: args.give_up_after,
        earlier: &file.launches,
        settings: settings.clone(),
    };
    let result = execute_and_report(
        args,
        &plan,
        &matrix,
        agent.path,
        app,
        &mut store,
        &options,
        profiling,
        probing,
        timed_ended,
    );
    drop(options);
    crate::cmd::settings::end(settings);
    result
}

/// Runs the plan's launches (none when `timed_ended`: a resumed run that stopped in its
/// extra rounds), then with `profiling` the profiled rounds and with `probing` the
/// probed ones, then says how it ended: the report, or how to resume.
#[expect(
    clippy::too_many_arguments,
    reason = "the run's parts, passed down once"
)]
pub(crate) fn execute_and_report(
    args: &RunArgs,
    plan: &Plan,
    matrix: &Matrix,
    agent: PathBuf,
    app: Option<App>,
    store: &mut StoreWriter,
    options: &run::Options<'_>,
    profiling: Option<profile::Profiling>,
    probing: Option<probe::Probing>,
    timed_ended: bool,
) -> anyhow::Result<u8> {
    let extra_app = app.clone();
    let mut launcher = JvmLauncher::new(agent.clone(), Duration::from_secs(args.timeout))
        .context("creating the launcher's scratch folder")?
        .with_app(app)
        .with_jvm_log(!args.no_jvm_log)
        .with_crash_dir(crate::store::crash_dir(store.path()))
        .with_settings(options.settings.clone());
    if let Some(interrupt) = options.interrupt {
        launcher = launcher.with_interrupt(interrupt.clone());
    }
    let summary = match matrix.adaptive {
        _ if timed_ended => run::RunSummary {
            launches: 0,
            failed: 0,
            stopped: None,
        },
        None => {
            let mut progress = Progress::new(plan.launches.len() as u64);
            progress.set_done(options.done.len() as u64);
            let summary = run::execute_with(
                plan,
                &matrix.jvm_args,
                &mut launcher,
                store,
                &mut progress,
                options,
            );
            progress.finish();
            summary?
        }
        Some(policy) => {
            // The bar counts up to the most launches the policy allows.
            let most = plan.launches.len() as u64
                + u64::from(policy.max - policy.min) * plan.cells.len() as u64 * 2;
            let mut progress = Progress::new(most);
            progress.set_done(options.done.len() as u64);
            let result = adaptive::execute(
                plan,
                &matrix.jvm_args,
                policy,
                &mut launcher,
                store,
                &mut progress,
                options,
            );
            progress.finish();
            result
                .map_err(|e| match e {
                    adaptive::AdaptiveError::Mismatch { .. } => {
                        bad(anyhow::anyhow!("`{}`, {e}", store.path().display()))
                    }
                    adaptive::AdaptiveError::Store(e) => anyhow::Error::new(e),
                })?
                .0
        }
    };
    if summary.stopped.is_none() {
        // The profiled rounds, then the probed ones; a signal in either ends the run.
        let mut stopped = None;
        if let Some(profiling) = &profiling {
            stopped = extra::run(
                args,
                plan,
                matrix,
                &agent,
                extra_app.clone(),
                store,
                options,
                profiling,
            )?;
        }
        if let Some(probing) = probing.as_ref().filter(|_| stopped.is_none()) {
            stopped = extra::run(
                args, plan, matrix, &agent, extra_app, store, options, probing,
            )?;
        }
        if let Some(code) = stopped {
            return Ok(code);
        }
    }
    let recorded = options.done.len() as u64 + summary.launches;
    let failed = options.failed_before + summary.failed;
    let resume_hint = format!(
        "every finished launch is in {}\n  resume: pretouch run --resume {}",
        store.path().display(),
        store.path().display()
    );
    match summary.stopped {
        Some(Stop::Interrupted(signal)) => {
            eprintln!(
                "pretouch: interrupted by {} after {recorded} of {} launches; the JVM under way was killed and not recorded\n  {resume_hint}",
                interrupt::signal_name(signal),
                plan.launches.len()
            );
            return Ok(interrupt::exit_code(signal));
        }
        Some(Stop::FailFast { seq }) => {
            eprintln!(
                "pretouch: stopped after launch {seq} failed (--fail-fast), {recorded} of {} launches recorded\n  {resume_hint}",
                plan.launches.len()
            );
            return Ok(exit::FAILED_LAUNCHES);
        }
        None => {}
    }

    let mut results = read_for_report(&[store.path().to_owned()])?;
    // This label's calibrations (beside the result file), for the report's % of the ceiling;
    // the label's other result files are read up to their headers only.
    if let Some(label_dir) = store.path().parent()
        && let Ok(found) = crate::store::read::catalog_for_report(&[label_dir.to_owned()])
    {
        results.calibrations = found.results.calibrations;
    }
    // The profile follows the text table only; `pretouch report --profile` has it in
    // every format.
    let profiled = profiling.is_some() && args.format == Format::Text;
    let options = document::Options {
        profile: profiled,
        show_profile: profiled,
        ..document::Options::default()
    };
    let doc = document::build(results, &options)?;
    print!("{}", crate::render::document::render(&doc, args.format));
    eprintln!("results: {}", store.path().display());
    if failed > 0 {
        eprintln!("{failed} of {recorded} launches failed; see the warnings above");
        return Ok(exit::FAILED_LAUNCHES);
    }
    Ok(0)
}

pub(crate) fn dry_run(
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
            args.runs as usize,
            &planned_noise(args)
        )
    );
    if probe::wanted(args, matrix) {
        println!(
            "then {} probed launches ({} cells x {} rounds x with/without pretouch) while bpftrace times each page fault and lock wait, in no median; a real run checks bpftrace first",
            plan.cells.len() as u32 * args.probe_rounds * 2,
            plan.cells.len(),
            args.probe_rounds
        );
    }
    if args.profile || matrix.profile {
        println!(
            "then {} profiled launches ({} cells x {} rounds x with/without pretouch) under `perf record -e cpu-clock -g`, in no median; a real run checks perf first",
            plan.cells.len() as u32 * args.profile_rounds * 2,
            plan.cells.len(),
            args.profile_rounds
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
