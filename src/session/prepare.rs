//! The preparation of a fresh run's session: the matrix checked against the command
//! line, every part resolved and checked against this machine before the first JVM,
//! the machine held, the kernel settings written and the result file created.

use std::path::Path;
use std::time::Duration;

use anyhow::Context;

use crate::features::session::Parts;
use crate::launch::agent;
use crate::machine::env::Environment;
use crate::machine::host;
use crate::machine::jdk::Jdk;
use crate::matrix::Matrix;
use crate::matrix::app::App;
use crate::schedule::plan::Plan;
use crate::schedule::resume;
use crate::schedule::session::{self, Session};
use crate::session::args::RunArgs;
use crate::session::checks::{
    self, check_cpus, check_label, check_memory, resolve_app, resolve_jdks,
};
use crate::session::error::bad;
use crate::session::preflight;
use crate::store::{FORMAT_VERSION, Record, RunHeader, StoreWriter};

/// The matrix of a fresh run, checked against the command line: what only a fresh run
/// can get wrong.
pub(super) fn fresh_matrix(args: &RunArgs) -> anyhow::Result<Matrix> {
    let mut matrix = args.matrix_of_run()?;
    crate::features::session::check_fresh(args, &matrix)?;
    checks::check_java_env(&mut matrix, args.pass_java_options)?;
    // Before anything is planned or started: each `jdks:` entry is one JDK at least.
    let entries = matrix.jdks.as_ref().map_or(1, Vec::len);
    crate::schedule::plan::check_size(&matrix, entries).map_err(bad)?;
    Ok(matrix)
}

/// What a run resolves and checks against this machine before its first JVM, fresh or
/// resumed: the agent, the JDKs, the CPU sets, the app, the memory, and the plan. The
/// features' checks, such as perf and bpftrace when the extra rounds need them, complete
/// the features' parts of the run.
pub(super) struct Resolved {
    pub(super) matrix: Matrix,
    pub(super) jdks: Vec<Jdk>,
    pub(super) plan: Plan,
    pub(super) app: Option<App>,
    pub(super) agent: agent::Agent,
    pub(super) cpu_placements: Vec<crate::machine::topology::Placement>,
}

/// The run's options, as the session holds them.
pub(super) fn session_options(args: &RunArgs) -> session::Options {
    session::Options {
        timeout: Duration::from_secs(args.timeout),
        jvm_log: !args.no_jvm_log,
        fail_fast: args.fail_fast,
        give_up_after: args.give_up_after,
    }
}

/// Resolves the run's parts ([`Resolved`]); `same` checks the JDKs found against a
/// resumed file's.
pub(super) fn resolve(
    args: &RunArgs,
    mut matrix: Matrix,
    matrix_file: Option<&Path>,
    features: &mut Parts,
    same: &dyn Fn(&Matrix, &[Jdk]) -> anyhow::Result<()>,
) -> anyhow::Result<Resolved> {
    // The features' checks before any JVM starts (resolving the JDKs runs them).
    features.check_before_agent(args)?;
    let agent = agent::locate_agent(args.agent.as_deref()).map_err(bad)?;
    features.check_with_agent(&agent.path)?;
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
        cpu_placements,
    })
}

/// The session of a fresh run: its parts resolved, the machine held, the result file
/// created with its header.
pub(super) fn prepare_fresh(
    args: &RunArgs,
    matrix: Matrix,
) -> anyhow::Result<(Session<Parts>, preflight::Held)> {
    let mut features = Parts::fresh(args, &matrix)?;
    let r = resolve(
        args,
        matrix,
        args.matrix.as_deref(),
        &mut features,
        &|_, _| Ok(()),
    )?;
    let host = host::host_info();
    let label = fresh_label(args, &host, &features)?;
    let machine = preflight::hold(
        args.comparable_memory || r.matrix.comparable_memory,
        &r.matrix,
    )?;
    // Restored at the end (SIGINT and SIGTERM end the run there too), or when the last
    // handle is dropped on a panic; after a kill, by the next pretouch.
    features.begin(&r.matrix)?;
    let store = create_result_file(args, &r, &label, host, &features, &machine)?;
    features.note_result(args, store.path())?;
    announce_fresh(&r, &label, store.path());
    let session = Session {
        matrix: r.matrix,
        jdks: r.jdks,
        plan: r.plan,
        agent: r.agent.path,
        app: r.app,
        store,
        options: session_options(args),
        resumed: session::Resumed::default(),
        features,
    };
    Ok((session, machine))
}

/// The label a fresh run files its results under: `--label`, else the kernel's release;
/// marked by the features, such as when the VM it runs in is emulated.
fn fresh_label(args: &RunArgs, host: &host::HostInfo, features: &Parts) -> anyhow::Result<String> {
    let label = args
        .label
        .clone()
        .unwrap_or_else(|| host.kernel_release.clone());
    let label = features.mark_label(&label);
    check_label(&label).map_err(bad)?;
    Ok(label)
}

/// A fresh run's result file, under its label's folder, its header written.
fn create_result_file(
    args: &RunArgs,
    r: &Resolved,
    label: &str,
    host: host::HostInfo,
    features: &Parts,
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
            matrix_origin: matrix.stored_origin(),
            matrix: matrix.text.clone(),
            matrix_sha256: Some(resume::matrix_sha256(&matrix.text)),
            host,
            started_at: utc,
            jdks: r.jdks.clone(),
            agent: r.agent.path.clone(),
            agent_sha256: Some(r.agent.sha256.clone()),
            planned_launches: r.plan.launches.len() as u64,
            env: Some(Environment::read()),
            features: features.header(),
            cpu_placements: r.cpu_placements.clone(),
            comparable_memory: machine.comparable_memory.clone(),
            extra_rounds: features.extra_rounds(),
        }))
        .context("writing the run header")?;
    Ok(store)
}

/// Says what a fresh run launches, under which label, and where it records them.
fn announce_fresh(r: &Resolved, label: &str, file: &Path) {
    let matrix = &r.matrix;
    eprintln!(
        "pretouch: {} launches of {}, {} x {} x with and without pretouch, and {}, label `{label}`\n  recording to {}",
        r.plan.launches.len(),
        matrix.described(),
        crate::units::count_of(r.plan.cells.len(), "cell"),
        crate::units::count_of(matrix.repetitions, "round"),
        crate::units::count_of(matrix.warmup, "warm-up round"),
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
