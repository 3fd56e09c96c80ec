//! The preparation of a resumed run's session (`pretouch run --resume`): the file's
//! matrix and extra rounds, its parts resolved and checked against the file's, the
//! machine held, and a resume record appended.

use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::features::session::Parts;
use crate::launch::agent;
use crate::machine::host;
use crate::machine::jdk::Jdk;
use crate::matrix::{Matrix, MatrixError};
use crate::schedule::plan::Plan;
use crate::schedule::resume;
use crate::schedule::session::{self, Session};
use crate::session::args::RunArgs;
use crate::session::checks;
use crate::session::error::bad;
use crate::session::finish::run_and_restore;
use crate::session::preflight;
use crate::session::prepare::{resolve, session_options};
use crate::store::{Record, ResultFile, RunResume, StoreWriter};

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
) -> anyhow::Result<(Session<Parts>, preflight::Held)> {
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
        store,
        options: session_options(args),
        resumed,
        features,
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
