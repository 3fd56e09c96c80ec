//! The preparation of a resumed run's session (`pretouch run --resume`): the file's
//! matrix and extra rounds, its parts resolved and checked against the file's, the
//! machine held, and a resume record appended.

use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::features::kernels::machine::VmShape;
use crate::features::kernels::session as kernels;
use crate::features::probe::session as probe;
use crate::launch::agent;
use crate::machine::host;
use crate::machine::jdk::Jdk;
use crate::matrix::{Matrix, MatrixError};
use crate::schedule::extra::Owed;
use crate::schedule::plan::Plan;
use crate::schedule::resume;
use crate::schedule::session::{self, Probing, Profiling, Session};
use crate::session::args::RunArgs;
use crate::session::checks;
use crate::session::error::bad;
use crate::session::finish::run_and_restore;
use crate::session::preflight;
use crate::session::prepare::{guest_vm_shape, resolve, session_options};
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
        // A matrix made from flags has no file: the header's text is the matrix.
        None if header.matrix_origin == crate::matrix::flags::ORIGIN => {
            Matrix::parse(&header.matrix_origin, &header.matrix).map_err(bad)?
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
        args.features.profiling.profile,
        args.features.profiling.profile_rounds,
    )
    .map_err(bad)?;
    if let Some(rounds) = profile_rounds {
        if !(args.features.profiling.profile || matrix.profile) {
            eprintln!(
                "note: `{}` was started with --profile ({rounds} profiled rounds per cell): the resume runs its missing profiled launches too",
                file.path.display()
            );
        } else if args.features.profiling.profile
            && args.features.profiling.profile_rounds != rounds
        {
            eprintln!(
                "note: `{}` was started with --profile-rounds {rounds}: the resume keeps them (--profile-rounds {} does not change a resumed run)",
                file.path.display(),
                args.features.profiling.profile_rounds
            );
        }
    }
    // A resume adds no probed rounds to a run without.
    if args.features.probing.probe && header.probe_rounds.is_none() {
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
pub(super) fn prepare_resume(
    args: &RunArgs,
    path: &Path,
) -> anyhow::Result<(Session, preflight::Held)> {
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
            keep_perf_data: args.features.profiling.keep_perf_data.clone(),
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
    if let Some(work) = &args.features.kernels.in_vm {
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
            features: crate::features::header::RunParts {
                vm: vm_shape.map(Box::new),
            },
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
                ", then {} of {all} profiled launches recorded, {} to go",
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
            "warning: `{}` was started with another agent, sha256 {before}. Its launches from here on use {}, sha256 {}, as its resume record says.",
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
