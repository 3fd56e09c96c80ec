//! What a report says of result files left incomplete: a run interrupted (or still
//! running) before its end record, and extra rounds cut short after it, of each kind
//! the features register (`features::record`). Judged when a file is read whole
//! ([`Launched::of`]), so that the warnings can still be given once its launches are
//! dropped ([`completeness_warnings`]).

use crate::features::record::EXTRA_KINDS;
use crate::store::extra::{missing, stored};
use crate::store::read::ResultFile;

/// What a report says of a file read whole, about its launches, once they are dropped:
/// how many were read, and how many launches of each kind of extra round are missing.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Launched {
    pub launches: usize,
    /// The launches missing of each kind of [`EXTRA_KINDS`], in its order.
    pub missing: [u64; EXTRA_KINDS.len()],
}

impl Launched {
    /// Of `file` read whole ([`crate::store::read::Catalog::read`]). Its extra rounds'
    /// records are read again, in one pass, only when its run planned such rounds.
    pub fn of(file: &ResultFile) -> Launched {
        Launched {
            launches: file.launches.len(),
            missing: missing_extras(file),
        }
    }
}

/// The launches of each kind of extra round that `file`'s header plans and that no
/// record of the file holds, in the order of [`EXTRA_KINDS`], from one pass over the
/// file; no pass when its run planned none.
pub fn missing_extras(file: &ResultFile) -> [u64; EXTRA_KINDS.len()] {
    let mut out = [0; EXTRA_KINDS.len()];
    let planned: Vec<_> = EXTRA_KINDS
        .iter()
        .filter(|k| (k.rounds)(&file.header).is_some())
        .collect();
    if planned.is_empty() {
        return out;
    }
    for (kind, stored) in planned.iter().zip(stored(file, &planned)) {
        let at = EXTRA_KINDS
            .iter()
            .position(|k| k.tag == kind.tag)
            .expect("a kind of the list");
        out[at] = missing(
            file,
            (kind.rounds)(&file.header),
            stored.into_iter().map(|p| (p.cell, p.round, p.pretouch)),
        );
    }
    out
}

/// Whether every launch of the extra rounds `file`'s header plans is stored: with its
/// end record, what makes a run finished (`schedule::resume::finished`).
pub fn all_extras_stored(file: &ResultFile) -> bool {
    missing_extras(file).iter().all(|&m| m == 0)
}

/// The warning for `file`, whose end record counts `ended` launches of which `read`
/// were read, when the two differ.
fn count_warning(file: &ResultFile, ended: u64, read: u64) -> Option<String> {
    let path = file.path.display();
    if read < ended {
        let missing = ended - read;
        let launches = if missing == 1 {
            "launch is"
        } else {
            "launches are"
        };
        Some(format!(
            "{path}: {missing} {launches} missing, because its end record counts {ended} launches and {read} are read. A line was deleted, or damaged and named above."
        ))
    } else if read > ended {
        Some(format!(
            "{path}: {} more launches are read than its end record counts, {read} against {ended}, so launch lines were added to it after the run ended.",
            read - ended
        ))
    } else {
        None
    }
}

/// A warning for each run left unfinished, then one for each file whose extra rounds
/// of a kind are (`files` in name order, each with what [`Launched::of`] found in it).
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
    // A finished run whose launches do not add up to what its end record counts lost
    // lines, or gained some, after it ended. Either changes the figures, so it is said.
    for (file, launched) in files.iter() {
        let Some(end) = &file.end else { continue };
        out.extend(count_warning(file, end.launches, launched.launches as u64));
    }
    // Timed launches complete, extra rounds cut short (the end record comes between).
    for (file, launched) in files.iter().filter(|(f, _)| f.end.is_some()) {
        for (&missing, kind) in launched.missing.iter().zip(EXTRA_KINDS) {
            let kind = kind.launches;
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
