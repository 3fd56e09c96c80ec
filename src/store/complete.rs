//! What a report says of result files left incomplete: a run interrupted (or still
//! running) before its end record, and profiled or probed rounds cut short after it. Judged when a
//! file is read whole ([`Launched::of`]), so that the warnings can still be given once
//! its launches are dropped ([`completeness_warnings`]).

use crate::store::read::ResultFile;

/// What a report says of a file read whole, about its launches, once they are dropped:
/// how many were read, and how many of its profiled and probed launches are missing.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Launched {
    pub launches: usize,
    pub missing_profiles: u64,
    pub missing_probes: u64,
}

impl Launched {
    /// Of `file` read whole ([`crate::store::read::Catalog::read`]). Its profile and
    /// probe records are read again, in one pass, only when its run planned such rounds.
    pub fn of(file: &ResultFile) -> Launched {
        let planned = file.header.profile_rounds.is_some() || file.header.probe_rounds.is_some();
        let (missing_profiles, missing_probes) = if planned {
            crate::store::extra::missing_extras(file)
        } else {
            (0, 0)
        };
        Launched {
            launches: file.launches.len(),
            missing_profiles,
            missing_probes,
        }
    }
}

/// A warning for each run left unfinished, then one for each file whose profiled or
/// probed rounds are (`files` in name order, each with what [`Launched::of`] found in
/// it).
pub fn completeness_warnings(files: &[(ResultFile, Launched)]) -> Vec<String> {
    let mut out = Vec::new();
    for (file, launched) in files.iter().filter(|(f, _)| f.end.is_none()) {
        out.push(format!(
            "{}: the run is unfinished, with {} of {} launches. It was interrupted or is still running, and `pretouch run --resume {}` completes it.",
            file.path.display(),
            launched.launches,
            file.header.planned_launches,
            file.path.display()
        ));
    }
    // Timed launches complete, extra rounds cut short (the end record comes between).
    for (file, launched) in files.iter().filter(|(f, _)| f.end.is_some()) {
        for (missing, kind) in [
            (launched.missing_profiles, "profiled"),
            (launched.missing_probes, "probed"),
        ] {
            if missing > 0 {
                out.push(format!(
                    "{}: the {kind} rounds are unfinished, with {missing} {kind} launches missing. `pretouch run --resume {}` completes them.",
                    file.path.display(),
                    file.path.display()
                ));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::record::Record;

    #[test]
    fn a_run_whose_probed_rounds_were_cut_short_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let mut file = crate::fixtures::one_cell_file("k");
        file.header.probe_rounds = Some(2);
        file.path = dir.path().join("r.jsonl");
        // The timed launches ended.
        file.end = Some(crate::store::RunEnd {
            finished_at: "2026-01-01T00:01:00Z".into(),
            launches: 2,
            failed: 0,
            stops: Vec::new(),
            runner_max_rss: None,
        });
        let cell = file.launches[0].cell.clone();
        let probe = crate::fixtures::probe_record(&cell, 0, false, 50.0, &[1000], 1, Vec::new());
        let mut bytes = Vec::new();
        for record in [
            Record::Run(file.header.clone()),
            Record::Probe(Box::new(probe)),
        ] {
            bytes.extend(serde_json::to_vec(&record).unwrap());
            bytes.push(b'\n');
        }
        std::fs::write(&file.path, bytes).unwrap();
        let launched = Launched::of(&file);
        // Two rounds of one cell plan four probed launches; one is here.
        assert_eq!((launched.missing_probes, launched.missing_profiles), (3, 0));
        let warnings = completeness_warnings(&[(file.clone(), launched)]);
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(
            warnings[0].contains("probed rounds are unfinished, with 3 probed launches missing"),
            "{warnings:?}"
        );
        // All four there: no warning.
        let full = Launched {
            missing_probes: 0,
            ..launched
        };
        assert!(completeness_warnings(&[(file, full)]).is_empty());
    }
}
