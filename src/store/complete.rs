//! What a report says of result files left incomplete: a run interrupted (or still
//! running) before its end record, and profiled rounds cut short after it. Judged when a
//! file is read whole ([`Launched::of`]), so that the warnings can still be given once
//! its launches are dropped ([`completeness_warnings`]).

use crate::store::read::ResultFile;

/// What a report says of a file read whole, about its launches, once they are dropped:
/// how many were read, and how many of its profiled launches are missing.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Launched {
    pub launches: usize,
    pub missing_profiles: u64,
}

impl Launched {
    /// Of `file` read whole ([`crate::store::read::Catalog::read`]). Its profile records are read again
    /// only when its run planned profiled rounds.
    pub fn of(file: &ResultFile) -> Launched {
        Launched {
            launches: file.launches.len(),
            missing_profiles: if file.header.profile_rounds.is_some() {
                crate::store::profile::missing_profiles(file)
            } else {
                0
            },
        }
    }
}

/// A warning for each run left unfinished, then one for each file whose profiled
/// rounds are (`files` in name order, each with what [`Launched::of`] found in it).
pub fn completeness_warnings(files: &[(ResultFile, Launched)]) -> Vec<String> {
    let mut out = Vec::new();
    for (file, launched) in files.iter().filter(|(f, _)| f.end.is_none()) {
        out.push(format!(
            "{}: unfinished run, {} of {} launches (interrupted, or still running); `pretouch run --resume {}` completes it",
            file.path.display(),
            launched.launches,
            file.header.planned_launches,
            file.path.display()
        ));
    }
    // Timed launches complete, profiled rounds cut short (the end record comes between).
    for (file, launched) in files.iter().filter(|(f, _)| f.end.is_some()) {
        let missing = launched.missing_profiles;
        if missing > 0 {
            out.push(format!(
                "{}: profiled rounds unfinished, {missing} profiled launches missing; `pretouch run --resume {}` completes them",
                file.path.display(),
                file.path.display()
            ));
        }
    }
    out
}
