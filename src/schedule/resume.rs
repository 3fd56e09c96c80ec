//! `pretouch run --resume`, before the scheduler: finds the unfinished result file,
//! checks that the run may go on (same matrix, kernel release and JDKs) and which
//! launches of the plan it already holds, matched by `seq`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::machine::jdk::Jdk;
use crate::schedule::plan::Plan;
use crate::schedule::run::cell_key;
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
        "`{path}`, launch {seq}: {detail}. The file does not match its own matrix, so it is not resumed"
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
        if finished(file) {
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
        .filter(|f| !finished(f))
        .max_by(|a, b| (&a.header.started_at, &a.path).cmp(&(&b.header.started_at, &b.path)))
        .ok_or_else(|| ResumeError::NoneUnfinished {
            path: path.to_owned(),
        })?;
    Ok(Unfinished {
        warnings: warnings_of(&newest.path),
        file: newest.clone(),
    })
}

/// A file that ran to its end: its end record is written, and so is every extra launch
/// its header plans, such as the profiled ones (the end record comes after the timed
/// launches, before the extra ones).
pub fn finished(file: &ResultFile) -> bool {
    file.end.is_some() && crate::store::complete::all_extras_stored(file)
}

/// The result file at `path` ran to its end, as [`finished`] says: a file that cannot be
/// read did not.
pub fn file_finished(path: &Path) -> bool {
    std::fs::read(path).is_ok_and(|bytes| {
        crate::store::parse_result_file(path, &bytes)
            .0
            .is_some_and(|f| finished(&f))
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::profile::record::ProfileRecord;
    use crate::matrix::Matrix;
    use crate::schedule::extra::done_in;
    use crate::store::LaunchRecord;
    use crate::store::extra::ExtraRecord;
    use crate::units::{Bytes, Nanos};

    const MATRIX: &str = "name: x\ngcs: [g1, parallel]\nheaps: [64m]\nrepetitions: 1\n";

    fn jdk() -> Jdk {
        crate::fixtures::fake_jdk("17")
    }

    fn host(kernel: &str) -> HostInfo {
        HostInfo {
            kernel_release: kernel.into(),
            kernel_version: "#1".into(),
            hostname: "h".into(),
            cpu_model: "c".into(),
            cpus: 2,
        }
    }

    fn header() -> RunHeader {
        RunHeader {
            format: 1,
            tool_version: "0".into(),
            name: "x".into(),
            label: "k".into(),
            matrix_origin: "m.yaml".into(),
            matrix: MATRIX.into(),
            matrix_sha256: Some(matrix_sha256(MATRIX)),
            host: host("6.1"),
            started_at: "2026-01-01T00:00:00Z".into(),
            jdks: vec![jdk()],
            agent: "/a.so".into(),
            agent_sha256: None,
            planned_launches: 4,
            env: None,
            features: Default::default(),
            cpu_placements: Vec::new(),
            comparable_memory: None,
            extra_rounds: Default::default(),
        }
    }

    fn launch(seq: u64, gc: crate::matrix::Gc, pretouch: bool) -> LaunchRecord {
        let mut launch = crate::fixtures::launch(0, pretouch, f64::NAN);
        launch.seq = seq;
        launch.cell.jdk = "17".into();
        launch.cell.gc = gc;
        launch.cell.heap = "64m".into();
        launch.jdk_home = "/17".into();
        launch.heap_bytes = Bytes(64 << 20);
        launch.measured = crate::launch::Measurement {
            spawn_ns: Nanos(1),
            reaped_ns: Nanos(2),
            exit_code: Some(0),
            ..Default::default()
        };
        // The launch reached main(), because the reader leaves out as damaged a record
        // with neither a time to main() nor a failure.
        launch.time_to_main_ns = Some(Nanos(1));
        launch
    }

    fn file(launches: Vec<LaunchRecord>) -> ResultFile {
        ResultFile {
            path: "r.jsonl".into(),
            header: header(),
            launches,
            end: None,
        }
    }

    #[test]
    fn sha256_matches_the_standard() {
        // FIPS 180-2, appendix B.1.
        assert_eq!(
            matrix_sha256("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn done_launches_are_matched_by_seq() {
        use crate::matrix::Gc::{G1, Parallel};
        let plan = Plan::new(&Matrix::parse("m", MATRIX).unwrap(), &[jdk()]);
        let done = done_launches(
            &plan,
            &file(vec![launch(0, G1, false), launch(2, Parallel, false)]),
        )
        .unwrap();
        assert_eq!(done, BTreeSet::from([0, 2]));
        let err = |launches| {
            done_launches(&plan, &file(launches))
                .unwrap_err()
                .to_string()
        };
        assert!(err(vec![launch(1, G1, false)]).contains("launch 1: recorded as round 0"));
        assert!(err(vec![launch(0, G1, false), launch(0, G1, false)]).contains("recorded twice"));
        assert!(err(vec![launch(4, G1, false)]).contains("only 4 launches"));
    }

    #[test]
    fn a_changed_matrix_kernel_or_jdk_is_refused() {
        let path = Path::new("r.jsonl");
        let h = header();
        check_same(path, &h, MATRIX, &host("6.1"), &[jdk()]).unwrap();
        let e = check_same(
            path,
            &h,
            &MATRIX.replace("1\n", "2\n"),
            &host("6.1"),
            &[jdk()],
        );
        assert!(matches!(e, Err(ResumeError::MatrixChanged { .. })), "{e:?}");
        let e = check_same(path, &h, MATRIX, &host("6.2"), &[jdk()]).unwrap_err();
        assert!(e.to_string().contains("kernel 6.1, and this is 6.2"), "{e}");
        let mut other = jdk();
        other.version = "17.0.16".into();
        let e = check_same(path, &h, MATRIX, &host("6.1"), &[other]);
        assert!(matches!(e, Err(ResumeError::JdksChanged { .. })), "{e:?}");
        // A header written before the hash existed is checked against its text.
        let old = RunHeader {
            matrix_sha256: None,
            ..header()
        };
        check_same(path, &old, MATRIX, &host("6.1"), &[jdk()]).unwrap();
        assert!(check_same(path, &old, "name: y\n", &host("6.1"), &[jdk()]).is_err());
    }

    #[test]
    fn a_folder_resumes_its_newest_unfinished_file() {
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, started: &str, end: bool| {
            let header = RunHeader {
                started_at: started.into(),
                ..header()
            };
            let mut text = serde_json::to_string(&crate::store::Record::Run(header)).unwrap();
            text.push('\n');
            if end {
                text.push_str(r#"{"record":"end","finished_at":"t","launches":0,"failed":0}"#);
                text.push('\n');
            }
            std::fs::write(dir.path().join(name), text).unwrap();
        };
        write("a.jsonl", "2026-01-01T00:00:00Z", false);
        write("b.jsonl", "2026-01-02T00:00:00Z", false);
        write("c.jsonl", "2026-01-03T00:00:00Z", true);
        let found = find(dir.path()).unwrap();
        assert!(found.file.path.ends_with("b.jsonl"));
        assert!(matches!(
            find(&dir.path().join("c.jsonl")),
            Err(ResumeError::Finished { .. })
        ));
        std::fs::remove_file(dir.path().join("a.jsonl")).unwrap();
        std::fs::remove_file(dir.path().join("b.jsonl")).unwrap();
        assert!(matches!(
            find(dir.path()),
            Err(ResumeError::NoneUnfinished { .. })
        ));
    }

    fn profile(seq: u64, round: u32, gc: crate::matrix::Gc, pretouch: bool) -> String {
        let record = crate::features::profile::record::ProfileRecord {
            at: crate::store::PlannedAs {
                seq,
                round,
                cell: launch(0, gc, pretouch).cell,
                pretouch,
            },
            launched: crate::store::Launched {
                command: vec![],
                started_at: String::new(),
                time_to_main_ns: None,
                failure: None,
            },
            wall_ns: Nanos(1),
            event: "cpu-clock".into(),
            frequency_hz: 999,
            call_graph: "fp".into(),
            samples: 0,
            folded: vec![],
            perf_data: None,
        };
        serde_json::to_string(&record.as_record()).unwrap()
    }

    #[test]
    fn a_run_stopped_in_its_profiled_rounds_owes_exactly_the_missing_ones() {
        use crate::matrix::Gc::{G1, Parallel};
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.jsonl");
        let plan = Plan::new(&Matrix::parse("m", MATRIX).unwrap(), &[jdk()]);
        let write = |rounds: Option<u32>, profiles: &[String]| -> Result<ResultFile, ResumeError> {
            let mut header = header();
            header.extra_rounds.profile_rounds = rounds;
            let mut lines =
                vec![serde_json::to_string(&crate::store::Record::Run(header)).unwrap()];
            for (seq, (gc, pretouch)) in
                [(G1, false), (G1, true), (Parallel, false), (Parallel, true)]
                    .into_iter()
                    .enumerate()
            {
                let l = launch(seq as u64, gc, pretouch);
                lines.push(serde_json::to_string(&crate::store::Record::Launch(l)).unwrap());
            }
            lines.push(r#"{"record":"end","finished_at":"t","launches":4,"failed":0}"#.into());
            lines.extend(profiles.iter().cloned());
            std::fs::write(&path, lines.join("\n") + "\n").unwrap();
            find(&path).map(|u| u.file)
        };
        // Round 0: g1 off, g1 on, parallel off, parallel on; round 1 on before off.
        let file = write(
            Some(2),
            &[profile(0, 0, G1, false), profile(1, 0, G1, true)],
        )
        .unwrap();
        assert!(!finished(&file));
        assert_eq!(
            crate::store::extra::missing_records::<ProfileRecord>(&file),
            6
        );
        assert_eq!(
            done_in::<ProfileRecord>(&plan, 2, &file).unwrap(),
            BTreeSet::from([0, 1])
        );
        // Stored under another seq than planned, twice, or past the rounds: refused.
        let file = write(Some(2), &[profile(0, 0, G1, true)]).unwrap();
        let e = done_in::<ProfileRecord>(&plan, 2, &file)
            .unwrap_err()
            .to_string();
        assert!(e.contains("profiled launch 0: recorded as round 0"), "{e}");
        let file = write(
            Some(2),
            &[profile(0, 0, G1, false), profile(0, 0, G1, false)],
        )
        .unwrap();
        assert!(
            done_in::<ProfileRecord>(&plan, 2, &file)
                .unwrap_err()
                .to_string()
                .contains("recorded twice")
        );
        let file = write(Some(1), &[profile(4, 1, G1, true)]).unwrap();
        assert!(
            done_in::<ProfileRecord>(&plan, 1, &file)
                .unwrap_err()
                .to_string()
                .contains("only 4 profiled")
        );
        // Every planned profiled launch stored: finished, refused as such.
        let all: Vec<String> = [(G1, false), (G1, true), (Parallel, false), (Parallel, true)]
            .into_iter()
            .enumerate()
            .map(|(seq, (gc, on))| profile(seq as u64, 0, gc, on))
            .collect();
        let e = write(Some(1), &all);
        assert!(matches!(e, Err(ResumeError::Finished { .. })), "{e:?}");
        // A header without profile rounds (unprofiled, or older): its end record ends it.
        let e = write(None, &[]);
        assert!(matches!(e, Err(ResumeError::Finished { .. })), "{e:?}");
    }
}
