//! `pretouch run --resume`, before the scheduler: finds the unfinished result file,
//! checks that the run may go on (same matrix, kernel release and JDKs) and which
//! launches of the plan it already holds, matched by `seq`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::jdk::Jdk;
use crate::plan::Plan;
use crate::run::cell_key;
use crate::store::{HostInfo, ResultFile, RunHeader, StoreError, read_results};

/// SHA-256 of a matrix's text, hex, as stored in the run header.
pub fn matrix_sha256(text: &str) -> String {
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[derive(Debug, thiserror::Error)]
pub enum ResumeError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(
        "no unfinished run in `{path}`: every result file there has its end record\n  \
         fix: name the file to resume, or start a new run with `pretouch run MATRIX`"
    )]
    NoneUnfinished { path: PathBuf },
    #[error(
        "`{path}` ran to its end: nothing to resume\n  fix: start a new run with `pretouch run MATRIX`"
    )]
    Finished { path: PathBuf },
    #[error("`{path}` is not a pretouch result file: {detail}")]
    NotResults { path: PathBuf, detail: String },
    #[error(
        "matrix `{origin}` changed since `{path}` was started (sha256 {then} then, {now} now)\n  \
         fix: restore the matrix as it was (the header of the result file holds its text), \
         or start a new run with `pretouch run {origin}`"
    )]
    MatrixChanged {
        path: PathBuf,
        origin: String,
        then: String,
        now: String,
    },
    #[error(
        "`{path}` was taken on kernel {then}, and this is {now}: the launches of one run must share a kernel\n  \
         fix: boot {then} to resume, or start a new run on this kernel with `pretouch run MATRIX`"
    )]
    KernelChanged {
        path: PathBuf,
        then: String,
        now: String,
    },
    #[error(
        "the JDKs differ from those `{path}` was started with (then: {then}; now: {now})\n  \
         fix: resume with the same JAVA_HOME and JDK installations, or start a new run"
    )]
    JdksChanged {
        path: PathBuf,
        then: String,
        now: String,
    },
    #[error(
        "`{path}`, launch {seq}: {detail}; the file does not match its own matrix, so it is not resumed"
    )]
    PlanMismatch {
        path: PathBuf,
        seq: u64,
        detail: String,
    },
}

/// An unfinished result file, read back.
#[derive(Debug)]
pub struct Unfinished {
    pub file: ResultFile,
    /// Lines that could not be read (a cut last line, say), naming file and line.
    pub warnings: Vec<String>,
}

/// The file to resume: `path` itself, or the newest unfinished result file under the
/// folder `path` (newest by the start time in its header).
pub fn find(path: &Path) -> Result<Unfinished, ResumeError> {
    let results = read_results(&[path.to_owned()])?;
    let warnings_of = |file: &Path| -> Vec<String> {
        let prefix = format!("{}:", file.display());
        results
            .warnings
            .iter()
            .filter(|w| w.starts_with(&prefix))
            .cloned()
            .collect()
    };
    if path.is_file() {
        let Some(file) = results.files.first() else {
            return Err(ResumeError::NotResults {
                path: path.to_owned(),
                detail: results.warnings.join("; "),
            });
        };
        if file.end.is_some() {
            return Err(ResumeError::Finished {
                path: path.to_owned(),
            });
        }
        return Ok(Unfinished {
            warnings: warnings_of(&file.path),
            file: file.clone(),
        });
    }
    let newest = results
        .files
        .iter()
        .filter(|f| f.end.is_none())
        .max_by(|a, b| (&a.header.started_at, &a.path).cmp(&(&b.header.started_at, &b.path)))
        .ok_or_else(|| ResumeError::NoneUnfinished {
            path: path.to_owned(),
        })?;
    Ok(Unfinished {
        warnings: warnings_of(&newest.path),
        file: newest.clone(),
    })
}

/// Refuses to resume when the matrix text, the kernel release or the JDKs differ from
/// those the run started with.
pub fn check_same(
    path: &Path,
    header: &RunHeader,
    matrix_text: &str,
    host: &HostInfo,
    jdks: &[Jdk],
) -> Result<(), ResumeError> {
    let now = matrix_sha256(matrix_text);
    let then = header
        .matrix_sha256
        .clone()
        .unwrap_or_else(|| matrix_sha256(&header.matrix));
    if now != then {
        return Err(ResumeError::MatrixChanged {
            path: path.to_owned(),
            origin: header.matrix_origin.clone(),
            then: then[..12].to_owned(),
            now: now[..12].to_owned(),
        });
    }
    if host.kernel_release != header.host.kernel_release {
        return Err(ResumeError::KernelChanged {
            path: path.to_owned(),
            then: header.host.kernel_release.clone(),
            now: host.kernel_release.clone(),
        });
    }
    let describe = |jdks: &[Jdk]| {
        jdks.iter()
            .map(|j| format!("{} {}", j.home.display(), j.version))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let same = header.jdks.len() == jdks.len()
        && header
            .jdks
            .iter()
            .zip(jdks)
            .all(|(a, b)| a.home == b.home && a.version == b.version);
    if !same {
        return Err(ResumeError::JdksChanged {
            path: path.to_owned(),
            then: describe(&header.jdks),
            now: describe(jdks),
        });
    }
    Ok(())
}

/// The seqs of the plan's launches the file already holds. Every stored launch must be
/// the plan's launch of the same seq (round, cell, setting), and appear once.
pub fn done_launches(plan: &Plan, file: &ResultFile) -> Result<BTreeSet<u64>, ResumeError> {
    let mut done = BTreeSet::new();
    for record in &file.launches {
        let mismatch = |detail: String| ResumeError::PlanMismatch {
            path: file.path.clone(),
            seq: record.seq,
            detail,
        };
        let planned = usize::try_from(record.seq)
            .ok()
            .and_then(|i| plan.launches.get(i))
            .ok_or_else(|| {
                mismatch(format!(
                    "the plan has only {} launches",
                    plan.launches.len()
                ))
            })?;
        let key = cell_key(&plan.cells[planned.cell]);
        if (record.round, record.warmup, record.pretouch, &record.cell)
            != (planned.round, planned.warmup, planned.pretouch, &key)
        {
            return Err(mismatch(format!(
                "recorded as round {} {:?} pretouch {}, planned as round {} {:?} pretouch {}",
                record.round, record.cell, record.pretouch, planned.round, key, planned.pretouch
            )));
        }
        if !done.insert(record.seq) {
            return Err(mismatch("recorded twice".to_owned()));
        }
    }
    Ok(done)
}
