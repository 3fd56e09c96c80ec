//! The preparation of a run on this machine, fresh or resumed, into the one value the
//! run needs. A fresh run's matrix is checked against the command line, every part is
//! resolved and checked against this machine before the first JVM, the machine held,
//! the kernel settings written and the result file created. A resumed run
//! (`pretouch run --resume`) takes the file's matrix and extra rounds, has its parts
//! resolved and checked against the file's, holds the machine, and appends a resume
//! record.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context;

use crate::features::session::Parts;
use crate::launch::agent;
use crate::machine::env::Environment;
use crate::machine::host;
use crate::machine::jdk::Jdk;
use crate::matrix::app::App;
use crate::matrix::{Matrix, MatrixError};
use crate::schedule::plan::Plan;
use crate::schedule::prepared::{self, Prepared};
use crate::schedule::resume;
use crate::session::args::RunArgs;
use crate::session::checks::{
    self, check_cpus, check_label, check_memory, resolve_app, resolve_jdks,
};
use crate::session::error::bad;
use crate::session::finish::run_and_restore;
use crate::session::preflight;
use crate::store::{FORMAT_VERSION, Record, ResultFile, RunHeader, RunResume, StoreWriter};

/// The matrix of a fresh run, checked against the command line: what only a fresh run
/// can get wrong.
pub(super) fn fresh_matrix(args: &RunArgs) -> anyhow::Result<Matrix> {
    let mut matrix = args.matrix_of_run()?;
    Parts::check_fresh(args, &matrix)?;
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

impl Resolved {
    /// The run as one value, from what was resolved, the result file's `store`, what a
    /// resumed file holds already and the features' parts.
    fn prepared(
        self,
        args: &RunArgs,
        store: StoreWriter,
        resumed: prepared::Resumed,
        features: Parts,
    ) -> Prepared<Parts> {
        Prepared {
            matrix: self.matrix,
            jdks: self.jdks,
            plan: self.plan,
            agent: self.agent.path,
            app: self.app,
            store,
            options: session_options(args),
            resumed,
            features,
        }
    }
}

/// The run's options, as the session holds them.
pub(super) fn session_options(args: &RunArgs) -> prepared::Options {
    prepared::Options {
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
    features.check_with_agent(args, &agent.path)?;
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
) -> anyhow::Result<(Prepared<Parts>, preflight::Held)> {
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
    let resumed = prepared::Resumed::default();
    Ok((r.prepared(args, store, resumed, features), machine))
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

/// `pretouch run --resume PATH [MATRIX]`: the missing launches of an unfinished run,
/// appended to its file.
pub(super) fn run_resumed(args: &RunArgs, path: &Path) -> anyhow::Result<u8> {
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
        // A matrix made or changed by flags is the header's text, because no file
        // holds it.
        None if header.matrix_origin == crate::matrix::flags::ORIGIN
            || !crate::matrix::flags::split_origin(&header.matrix_origin)
                .1
                .is_empty() =>
        {
            Matrix::from_header(&header.matrix_origin, &header.matrix).map_err(bad)?
        }
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

/// The session of a resumed run: the file's matrix and extra rounds, its parts resolved
/// and checked against the file's, the machine held, a resume record appended.
pub(super) fn prepare_resume(
    args: &RunArgs,
    path: &Path,
) -> anyhow::Result<(Prepared<Parts>, preflight::Held)> {
    let unfinished = resume::find(path).map_err(bad)?;
    for warning in &unfinished.warnings {
        eprintln!("warning: {warning}");
    }
    let file = unfinished.file;
    let header = &file.header;
    let matrix = resumed_matrix(args, path, &file)?;
    crate::features::checks::check_here(&matrix, true)?;
    let mut features = Parts::resumed(args, &matrix, &file)?;
    let host = host::host_info();
    let matrix_file = args.matrix.clone().unwrap_or_else(|| {
        let (file, _) = crate::matrix::flags::split_origin(&header.matrix_origin);
        PathBuf::from(file.unwrap_or(&header.matrix_origin))
    });
    let same = |matrix: &Matrix, jdks: &[Jdk]| {
        resume::check_same(&file.path, header, &matrix.text, &host, jdks).map_err(bad)
    };
    let r = resolve(args, matrix, Some(&matrix_file), &mut features, &same)?;
    warn_of_another_agent(&file, &r.agent);
    let done = match r.matrix.adaptive {
        None => resume::done_launches(&r.plan, &file).map_err(bad)?,
        // Adaptive rounds go past the plan: the replay checks each launch against the
        // policy's (see `adaptive::execute`).
        Some(_) => file.launches.iter().map(|l| l.seq).collect(),
    };
    features.owed_by(&r.plan, &file)?;
    let comparable =
        args.comparable_memory || r.matrix.comparable_memory || header.comparable_memory.is_some();
    let machine = preflight::hold(comparable, &r.matrix)?;
    features.begin(&r.matrix)?;
    features.note_result(args, &file.path)?;
    let store = append_resume_record(&file, host, &r.agent, &features)?;
    announce_resume(&file, &done, &r.plan, &features);
    let resumed = prepared::Resumed {
        done,
        failed_before: file.launches.iter().filter(|l| !l.ok()).count() as u64,
        // The end record follows the timed launches: only extra ones are missing.
        timed_ended: file.end.is_some(),
        earlier: file.launches,
    };
    Ok((r.prepared(args, store, resumed, features), machine))
}

/// The resumed file opened to append, a cut last line dropped (and said), and the
/// resume record appended: when, by which pretouch, agent and host, after how many
/// launches.
fn append_resume_record(
    file: &ResultFile,
    host: host::HostInfo,
    agent: &agent::Agent,
    features: &Parts,
) -> anyhow::Result<StoreWriter> {
    let (mut store, dropped_tail) = StoreWriter::open_append(&file.path).map_err(bad)?;
    if let Some(tail) = &dropped_tail {
        eprintln!(
            "warning: removed the cut last line of `{}`, {} bytes. The resume record keeps it.",
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
            features: features.header(),
        }))
        .context("writing the resume record")?;
    Ok(store)
}

/// Says how far the resumed file is: its timed launches recorded and to go, then the
/// features' extra ones.
fn announce_resume(
    file: &ResultFile,
    done: &std::collections::BTreeSet<u64>,
    plan: &Plan,
    features: &Parts,
) {
    eprintln!(
        "pretouch: resuming `{}`: {} of {} launches recorded, {} to go{}, label `{}`",
        file.path.display(),
        done.len(),
        plan.launches.len(),
        plan.launches.len().saturating_sub(done.len()),
        features.resume_note(plan),
        file.header.label
    );
}

/// Launches of one file measured by two agents are worth a word: the stamps are taken
/// by the agent's code.
fn warn_of_another_agent(file: &ResultFile, agent: &agent::Agent) {
    if let Some(before) = (file.header.agent_sha256.as_ref()).filter(|h| **h != agent.sha256) {
        eprintln!(
            "warning: `{}` was started with another agent, sha256 {before}. Its launches from here on use {}, sha256 {}, as its resume record says.",
            file.path.display(),
            agent.path.display(),
            agent.sha256
        );
    }
}
