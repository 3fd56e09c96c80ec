//! `pretouch`: matrix -> plan -> launches -> store -> report.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use clap::Parser;

use pretouch::app::App;
use pretouch::calibrate::{self, Layout};
use pretouch::cli::{CalibrateArgs, Cli, Command, EnvArgs, ReportArgs, RunArgs};
use pretouch::env::Environment;
use pretouch::export::{Format, render_explained};
use pretouch::interrupt::{self, Interrupt};
use pretouch::jdk::Jdk;
use pretouch::launch::JvmLauncher;
use pretouch::matrix::{Matrix, MatrixError};
use pretouch::plan::Plan;
use pretouch::progress::Progress;
use pretouch::run::Stop;
use pretouch::store::{FORMAT_VERSION, Record, RunHeader, RunResume, StoreWriter, read_results};
use pretouch::{
    adaptive, agent, compare, cpuset, discover, dryrun, export_compare, host, machine_lock, memory,
    plot, report, resume, run,
};

/// Exit codes, as `pretouch --help` lists them.
mod exit {
    pub const ERROR: u8 = 1;
    pub const BAD_INPUT: u8 = 2;
    pub const FAILED_LAUNCHES: u8 = 3;
}

/// An error the user caused and can fix: exit code 2.
#[derive(Debug, thiserror::Error)]
#[error(transparent)]
struct BadInput(anyhow::Error);

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Run(args) => cmd_run(args),
        Command::Report(args) => cmd_report(args),
        Command::Jdks => cmd_jdks(),
        Command::Env(args) => cmd_env(args),
        Command::Calibrate(args) => cmd_calibrate(args),
    };
    match result {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("error: {e:#}");
            if e.downcast_ref::<BadInput>().is_some() {
                ExitCode::from(exit::BAD_INPUT)
            } else {
                ExitCode::from(exit::ERROR)
            }
        }
    }
}

fn bad(e: impl Into<anyhow::Error>) -> anyhow::Error {
    BadInput(e.into()).into()
}

fn cmd_run(args: RunArgs) -> anyhow::Result<u8> {
    if let Some(path) = &args.resume {
        return cmd_resume(&args, path);
    }
    // Everything the user can get wrong is checked before the first JVM starts.
    let matrix = match &args.matrix {
        Some(path) => Matrix::from_file(path).map_err(bad)?,
        None => Matrix::default_matrix(),
    };
    let jdks = resolve_jdks(&matrix, !args.dry_run).map_err(bad)?;
    check_cpus(&matrix).map_err(bad)?;
    let app = resolve_app(&matrix, args.matrix.as_deref()).map_err(bad)?;
    if args.dry_run {
        return dry_run(&args, &matrix, &jdks, app);
    }
    let agent = agent::locate_agent(args.agent.as_deref()).map_err(bad)?;
    let host = host::host_info();
    let label = args
        .label
        .clone()
        .unwrap_or_else(|| host.kernel_release.clone());
    check_label(&label).map_err(bad)?;
    check_memory(&matrix, args.force)?;
    let plan = Plan::new(&matrix, &jdks).with_app(app.as_ref().map(|a| a.main.as_str()));

    let interrupt = Interrupt::new();
    interrupt
        .install_signal_handlers()
        .context("installing the SIGINT/SIGTERM handlers")?;
    let _machine = machine_lock::acquire_or_warn();
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
            agent: agent.clone(),
            planned_launches: plan.launches.len() as u64,
            env: Some(Environment::read()),
        }))
        .context("writing the run header")?;
    eprintln!(
        "pretouch: {} launches ({} cells x {} rounds x with/without pretouch), label `{label}`\n  recording to {}",
        plan.launches.len(),
        plan.cells.len(),
        matrix.warmup + matrix.repetitions,
        store.path().display()
    );
    if let Some(a) = matrix.adaptive {
        eprintln!(
            "  adaptive: then more rounds for the cells whose 95% interval is wider than ±{}%, up to {} rounds",
            a.ci_pct, a.max
        );
    }
    let options = run::Options {
        interrupt: Some(&interrupt),
        fail_fast: args.fail_fast,
        ..run::Options::default()
    };
    execute_and_report(&args, &plan, &matrix, agent, app, &mut store, &options)
}

/// `pretouch run --resume PATH [MATRIX]`: the missing launches of an unfinished run,
/// appended to its file.
fn cmd_resume(args: &RunArgs, path: &Path) -> anyhow::Result<u8> {
    let unfinished = resume::find(path).map_err(bad)?;
    for warning in &unfinished.warnings {
        eprintln!("warning: {warning}");
    }
    let file = &unfinished.file;
    let header = &file.header;
    let built_in = Matrix::default_matrix();
    let matrix = match &args.matrix {
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
    if matrix.adaptive.is_some() {
        return Err(bad(anyhow::anyhow!(
            "`{}` was run with adaptive repetitions, which --resume does not support yet: the \
             rounds it adds depend on every launch before\n  fix: start the run again",
            file.path.display()
        )));
    }
    let host = host::host_info();
    let jdks = resolve_jdks(&matrix, true).map_err(bad)?;
    resume::check_same(&file.path, header, &matrix.text, &host, &jdks).map_err(bad)?;
    check_cpus(&matrix).map_err(bad)?;
    let matrix_file = args
        .matrix
        .clone()
        .unwrap_or_else(|| PathBuf::from(&header.matrix_origin));
    let app = resolve_app(&matrix, Some(&matrix_file)).map_err(bad)?;
    let agent = agent::locate_agent(args.agent.as_deref()).map_err(bad)?;
    check_memory(&matrix, args.force)?;
    let plan = Plan::new(&matrix, &jdks).with_app(app.as_ref().map(|a| a.main.as_str()));
    let done = resume::done_launches(&plan, file).map_err(bad)?;
    let failed_before = file.launches.iter().filter(|l| !l.ok()).count() as u64;

    let interrupt = Interrupt::new();
    interrupt
        .install_signal_handlers()
        .context("installing the SIGINT/SIGTERM handlers")?;
    let _machine = machine_lock::acquire_or_warn();
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
            resumed_at: pretouch::launch::utc_now_millis(),
            tool_version: env!("CARGO_PKG_VERSION").to_owned(),
            host,
            agent: agent.clone(),
            launches_before: file.launches.len() as u64,
            dropped_tail,
        }))
        .context("writing the resume record")?;
    eprintln!(
        "pretouch: resuming `{}`: {} of {} launches recorded, {} to go, label `{}`",
        file.path.display(),
        done.len(),
        plan.launches.len(),
        plan.launches.len() - done.len(),
        header.label
    );
    let options = run::Options {
        interrupt: Some(&interrupt),
        fail_fast: args.fail_fast,
        launches_before: file.launches.len() as u64,
        failed_before,
        done,
    };
    execute_and_report(args, &plan, &matrix, agent, app, &mut store, &options)
}

/// Runs the plan's launches, then says how it ended: the report, or how to resume.
fn execute_and_report(
    args: &RunArgs,
    plan: &Plan,
    matrix: &Matrix,
    agent: PathBuf,
    app: Option<App>,
    store: &mut StoreWriter,
    options: &run::Options<'_>,
) -> anyhow::Result<u8> {
    let mut launcher = JvmLauncher::new(agent, Duration::from_secs(args.timeout))
        .context("creating the launcher's scratch folder")?
        .with_app(app)
        .with_jvm_log(!args.no_jvm_log);
    if let Some(interrupt) = options.interrupt {
        launcher = launcher.with_interrupt(interrupt.clone());
    }
    let summary = match matrix.adaptive {
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
            result?.0
        }
    };
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

    let mut results = read_results(&[store.path().to_owned()])?;
    // This label's calibrations (beside the result file), for the report's % of the ceiling.
    if let Some(label_dir) = store.path().parent()
        && let Ok(found) = read_results(&[label_dir.to_owned()])
    {
        results.calibrations = found.calibrations;
    }
    print!(
        "{}",
        render_explained(&report::build(&results), args.format, false)
    );
    eprintln!("results: {}", store.path().display());
    if failed > 0 {
        eprintln!("{failed} of {recorded} launches failed; see the warnings above");
        return Ok(exit::FAILED_LAUNCHES);
    }
    Ok(0)
}

/// Refuses (bad input) a matrix whose largest heap does not fit in the available
/// memory, unless `force`.
fn check_memory(matrix: &Matrix, force: bool) -> anyhow::Result<()> {
    let Some(available) = memory::mem_available() else {
        eprintln!("warning: cannot read MemAvailable from /proc/meminfo; heap sizes not checked");
        return Ok(());
    };
    match memory::check(matrix, available) {
        Ok(()) => Ok(()),
        Err(e) if force => {
            eprintln!("warning: {e}\n  --force: running anyway");
            Ok(())
        }
        Err(e) => Err(bad(e)),
    }
}

fn resolve_jdks(matrix: &Matrix, probe: bool) -> anyhow::Result<Vec<Jdk>> {
    let Some(specs) = &matrix.jdks else {
        return Ok(vec![if probe {
            Jdk::from_environment()?
        } else {
            discover::environment_jdk_without_jvm()?
        }]);
    };
    let installed = discover::discover(&discover::Sources::from_environment());
    discover::resolve_specs(specs, &installed, probe).map_err(|(spec, e)| {
        e.context(match line_of(&matrix.text, &spec) {
            Some(line) => format!("matrix `{}`, line {line}: jdks", matrix.origin),
            None => format!("matrix `{}`: jdks", matrix.origin),
        })
    })
}

/// Refuses CPU sets naming CPUs this runner cannot use (offline, absent, or outside
/// its own affinity): the JVM could not be confined to them.
fn check_cpus(matrix: &Matrix) -> anyhow::Result<()> {
    let available = cpuset::available().context("reading this process's CPU affinity")?;
    for set in &matrix.cpus {
        let missing = set.missing(&available);
        if !missing.is_empty() {
            let text = set.to_string();
            let at = match line_of(&matrix.text, &text) {
                Some(line) => format!("matrix `{}`, line {line}", matrix.origin),
                None => format!("matrix `{}`", matrix.origin),
            };
            anyhow::bail!(
                "{at}: cpus `{text}` names CPU(s) {} that this machine does not have\n  available: {} ({} CPUs)",
                cpuset::format_list(&missing),
                cpuset::format_list(&available),
                available.len()
            );
        }
    }
    Ok(())
}

/// The matrix's `app:`, with paths relative to the matrix file's folder.
fn resolve_app(matrix: &Matrix, file: Option<&Path>) -> anyhow::Result<Option<App>> {
    let Some(spec) = &matrix.app else {
        return Ok(None);
    };
    let base = file
        .and_then(Path::parent)
        .filter(|p| !p.as_os_str().is_empty())
        .map_or_else(|| PathBuf::from("."), Path::to_owned);
    let base = std::path::absolute(&base).unwrap_or(base);
    let app = spec
        .resolve(&base)
        .with_context(|| format!("matrix `{}`", matrix.origin))?;
    Ok(Some(app))
}

fn dry_run(args: &RunArgs, matrix: &Matrix, jdks: &[Jdk], app: Option<App>) -> anyhow::Result<u8> {
    // The agent need not be built yet to see the plan.
    let agent = agent::locate_agent(args.agent.as_deref())
        .unwrap_or_else(|_| PathBuf::from(agent::AGENT_FILE));
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
    if let Some(available) = memory::mem_available()
        && let Err(e) = memory::check(matrix, available)
    {
        println!("note: a real run on this machine would stop here: {e}");
    }
    Ok(0)
}

fn cmd_jdks() -> anyhow::Result<u8> {
    let installed = discover::discover(&discover::Sources::from_environment());
    if installed.is_empty() {
        return Err(bad(anyhow::anyhow!(
            "no JDK found under {}, at JAVA_HOME or on PATH\n  fix: `{}`",
            discover::JVM_DIR,
            pretouch::jdk::DEBIAN_JDK_INSTALL
        )));
    }
    print!("{}", discover::render_table(&installed));
    Ok(0)
}

/// The line a value is written on, for messages about values checked after parsing.
fn line_of(text: &str, value: &str) -> Option<usize> {
    text.lines().position(|l| l.contains(value)).map(|i| i + 1)
}

fn check_label(label: &str) -> anyhow::Result<()> {
    if label.is_empty() || label.contains('/') || label.starts_with('.') {
        anyhow::bail!("invalid label {label:?}: it names a folder, so no `/` and no leading `.`");
    }
    Ok(())
}

fn cmd_report(args: ReportArgs) -> anyhow::Result<u8> {
    let paths = if args.paths.is_empty() {
        vec![PathBuf::from("results")]
    } else {
        args.paths
    };
    let mut results = read_results(&paths).map_err(bad)?;
    for file in results.files.iter().filter(|f| f.end.is_none()) {
        results.warnings.push(format!(
            "{}: unfinished run, {} of {} launches (interrupted, or still running); `pretouch run --resume {}` completes it",
            file.path.display(),
            file.launches.len(),
            file.header.planned_launches,
            file.path.display()
        ));
    }
    if results.files.is_empty() {
        return Err(bad(anyhow::anyhow!(
            "no result files in {}\n  fix: run `pretouch run` first, or name the files or folders to report",
            paths
                .iter()
                .map(|p| format!("`{}`", p.display()))
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    if let Some(wanted) = &args.labels {
        // Only the labels asked for: their environment is compared, their runs checked.
        // `label@host` names a label split by machine.
        let names = |w: &str, label: &str| {
            w == label || w.strip_prefix(label).is_some_and(|r| r.starts_with('@'))
        };
        let mut known: Vec<String> = results
            .files
            .iter()
            .map(|f| f.header.label.clone())
            .collect();
        known.sort();
        known.dedup();
        if let Some(missing) = wanted.iter().find(|w| !known.iter().any(|k| names(w, k))) {
            return Err(bad(compare::CompareError::UnknownLabel {
                label: missing.clone(),
                known: known.join(", "),
            }));
        }
        results
            .files
            .retain(|f| wanted.iter().any(|w| names(w, &f.header.label)));
    }
    let report = report::build_with(
        &results,
        report::Options {
            exclude_outliers: args.exclude_outliers,
        },
    );
    let options = compare::Options {
        labels: args.labels.clone(),
        baseline: args.baseline.clone(),
    };
    // Checks --labels and --baseline whether one label is shown or several.
    let comparison = compare::compare(&report, &options).map_err(bad)?;
    let text = if comparison.columns.len() > 1 {
        // The explaining tables (faults, phases, environment differences) follow, as
        // after a single label's table.
        let explained = match args.format {
            Format::Text => pretouch::export_explain::text(&report, args.phases),
            Format::Markdown => pretouch::export_explain::markdown(&report, args.phases),
            Format::Csv | Format::Json => String::new(),
        };
        export_compare::render(&comparison, args.format) + &explained
    } else {
        render_explained(
            &report.only(&comparison.baseline).map_err(bad)?,
            args.format,
            args.phases,
        )
    };
    if let Some(path) = &args.plot {
        plot::draw(&comparison, path).with_context(|| format!("drawing `{}`", path.display()))?;
        eprintln!("plot: {}", path.display());
    }
    match &args.output {
        Some(path) => write_output(path, &text)?,
        None => print!("{text}"),
    }
    Ok(0)
}

fn write_output(path: &Path, text: &str) -> anyhow::Result<()> {
    std::fs::write(path, text).with_context(|| format!("writing `{}`", path.display()))
}

fn cmd_env(args: EnvArgs) -> anyhow::Result<u8> {
    let env = Environment::read();
    if args.json {
        println!("{}", serde_json::to_string_pretty(&env)?);
        return Ok(0);
    }
    print!("{}", env.to_text());
    // The JDK a run without `jdks:` would use.
    match Jdk::from_environment() {
        Ok(jdk) => println!(
            "{:<18} {} {} ({})",
            "jdk",
            jdk.vendor.as_deref().unwrap_or("unknown vendor"),
            jdk.version,
            jdk.home.display()
        ),
        Err(e) => println!("{:<18} none: {}", "jdk", e.to_string().replace('\n', " ")),
    }
    Ok(0)
}

fn cmd_calibrate(args: CalibrateArgs) -> anyhow::Result<u8> {
    let label = args
        .label
        .clone()
        .unwrap_or_else(|| host::host_info().kernel_release);
    check_label(&label).map_err(bad)?;
    let mut threads: Vec<usize> = if args.threads.is_empty() {
        vec![1, host::host_info().cpus]
    } else {
        args.threads.iter().map(|&t| usize::from(t)).collect()
    };
    threads.dedup();
    let layouts = if args.layout.is_empty() {
        vec![Layout::Shared, Layout::PerThread, Layout::Processes]
    } else {
        args.layout.clone()
    };
    let started = std::time::SystemTime::now();
    let c = calibrate::run(
        &label,
        &threads,
        &layouts,
        args.size,
        args.passes,
        |l, w| {
            eprintln!("calibrate: {l}, {w} worker(s)...");
        },
    )
    .map_err(|e| match e {
        calibrate::CalibrateError::TooSmall { .. } => bad(e),
        e => e.into(),
    })?;
    print!("{}", calibrate::to_text(&c));
    if !args.no_save {
        let utc = humantime::format_rfc3339_seconds(started).to_string();
        let stamp: String = utc.chars().filter(|c| *c != '-' && *c != ':').collect();
        let path = calibrate::save(&c, &args.results.join(&label), &stamp)
            .context("writing the calibration")?;
        eprintln!("stored: {}", path.display());
    }
    Ok(0)
}
