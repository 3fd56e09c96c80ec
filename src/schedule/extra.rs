//! Extra rounds (`pretouch run --profile`, `--probe`): after the timed launches, a few
//! rounds in which every cell is launched once without and once with pretouch under an
//! instrument (perf, bpftrace). Their records are of their own type and enter no timing
//! statistic; the timed launches are the same as without them.
//!
//! This file holds what the kinds share. [`planned`] orders the launches, and
//! [`execute`] runs them into the store. For a resumed run, [`done`] and [`done_in`] say
//! which of them the file already holds. Each kind, such as the profile's in
//! [`crate::features::profile::schedule`], supplies only what differs as a [`Rounds`]. That
//! is what wraps the launch, and the record it stores.

use std::collections::BTreeSet;
use std::path::PathBuf;

use crate::launch::Measurement;
use crate::launch::interrupt::Interrupt;
use crate::schedule::plan::{Cell, Plan};
use crate::schedule::run::{Stop, Strategy, cell_key, drive};
use crate::store::extra::{ExtraRecord, read_records};
use crate::store::{CellKey, Launched, PlannedAs, ResultFile, StoreError, StoreWriter};

/// One launch of the extra rounds: `seq` is its position among the run's launches of
/// its kind, as stored in its record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Planned {
    pub seq: u64,
    pub round: u32,
    /// Index into the plan's cells.
    pub cell: usize,
    pub pretouch: bool,
}

impl Planned {
    /// The core of this launch of `cell`'s record, whichever its kind: where it stands,
    /// as its record stores it, and what `measured` launched and reached (failed when it
    /// failed, or else when the instrument had a `problem`).
    pub fn stored(
        &self,
        cell: &Cell,
        measured: Measurement,
        problem: Option<String>,
    ) -> (PlannedAs, Launched) {
        let at = PlannedAs {
            seq: self.seq,
            round: self.round,
            cell: cell_key(cell),
            pretouch: self.pretouch,
        };
        (at, Launched::new(measured, problem))
    }
}

/// The launches of `rounds` rounds, in order: round by round, cells in plan order, the
/// pair's order alternating by round (as in the timed rounds).
pub fn planned(plan: &Plan, rounds: u32) -> Vec<Planned> {
    let mut out = Vec::new();
    for round in 0..rounds {
        for cell in 0..plan.cells.len() {
            let order = if round % 2 == 0 {
                [false, true]
            } else {
                [true, false]
            };
            for pretouch in order {
                out.push(Planned {
                    seq: out.len() as u64,
                    round,
                    cell,
                    pretouch,
                });
            }
        }
    }
    out
}

/// The launches `rounds` rounds plan: every cell once without and once with pretouch
/// a round.
pub fn count(plan: &Plan, rounds: u32) -> u64 {
    u64::from(rounds) * plan.cells.len() as u64 * 2
}

/// The extra launches of one kind a run owes: the rounds per cell, and (resumed) the
/// seqs of those the file already holds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Owed {
    pub rounds: u32,
    pub done: BTreeSet<u64>,
}

impl Owed {
    /// A new run's: every launch of `rounds` rounds.
    pub fn all(rounds: u32) -> Owed {
        Owed {
            rounds,
            done: BTreeSet::new(),
        }
    }
}

/// What a run's command line and matrix ask of one instrument's rounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Asked {
    /// The command line's switch, such as `--profile`.
    pub switch: bool,
    /// The matrix's key, such as `profile: true`.
    pub in_matrix: bool,
    /// The rounds per cell the command line asks for, or its default.
    pub rounds: u32,
}

impl Asked {
    /// Whether the run asks for the rounds, on its command line or in its matrix.
    pub fn wanted(&self) -> bool {
        self.switch || self.in_matrix
    }

    /// The rounds per cell a fresh run makes, `None` when it asks for none.
    pub fn fresh(&self) -> Option<u32> {
        self.wanted().then_some(self.rounds)
    }
}

/// How the extra rounds ended.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    pub launches: u64,
    /// Launches that failed, or whose instrument read nothing.
    pub failed: u64,
    /// The signal that stopped them, when one did.
    pub interrupted: Option<i32>,
}

/// A launcher under an instrument, as its rounds call it for one planned launch. It is a
/// seam, so that an instrument's rounds are tested with a fake launcher.
pub trait Instrumented {
    /// What one launch under the instrument gives: what the launch measured and what
    /// the instrument read.
    type Outcome;

    /// Launches `cell` as `at` plans, with `jvm_args`, under the instrument.
    fn launch_planned(&mut self, at: &Planned, cell: &Cell, jvm_args: &[String]) -> Self::Outcome;
}

/// What one kind of extra round supplies: how a planned launch is made, and its record.
pub trait Rounds {
    type Record: ExtraRecord;

    /// Launches `cell` as `at` plans, with `jvm_args`. `None` when the launch was
    /// interrupted (killed by us on a signal): not a measurement, not stored.
    fn launch(&mut self, at: &Planned, cell: &Cell, jvm_args: &[String]) -> Option<Self::Record>;
}

/// The extra rounds of one kind as a [`Strategy`] of the one launch loop: the launches
/// [`planned`] hands out, those in `done` skipped, each made by `kind` and stored.
struct Extra<'a, R: Rounds> {
    plan: &'a Plan,
    matrix_args: &'a [String],
    planned: std::vec::IntoIter<Planned>,
    done: &'a BTreeSet<u64>,
    kind: &'a mut R,
    store: &'a mut StoreWriter,
    each: &'a mut dyn FnMut(&R::Record),
}

impl<R: Rounds> Strategy for Extra<'_, R> {
    type Planned = Planned;
    type Record = R::Record;
    type Error = StoreError;

    fn next(&mut self) -> Option<Planned> {
        self.planned.next()
    }

    fn already_done(&mut self, at: &Planned) -> Result<bool, StoreError> {
        Ok(self.done.contains(&at.seq))
    }

    fn launch(&mut self, at: &Planned) -> Result<Option<R::Record>, StoreError> {
        let cell = &self.plan.cells[at.cell];
        let jvm_args = cell.jvm_args(self.matrix_args, at.pretouch);
        let Some(record) = self.kind.launch(at, cell, &jvm_args) else {
            return Ok(None);
        };
        self.store.append(&record.as_record())?;
        (self.each)(&record);
        Ok(Some(record))
    }

    fn outcome(record: &R::Record) -> (u64, bool) {
        (record.planned_as().seq, record.ok())
    }
}

/// Runs the launches of `rounds` rounds over the plan's cells ([`planned`]) but those
/// whose seq is in `done` (a resumed run), appending a record per launch. `each` sees
/// every record once stored (progress).
#[expect(
    clippy::too_many_arguments,
    reason = "the run's parts, passed down once"
)]
pub fn execute<R: Rounds>(
    plan: &Plan,
    matrix_args: &[String],
    rounds: u32,
    done: &BTreeSet<u64>,
    kind: &mut R,
    store: &mut StoreWriter,
    interrupt: Option<&Interrupt>,
    each: &mut dyn FnMut(&R::Record),
) -> Result<Summary, StoreError> {
    let mut extra = Extra {
        plan,
        matrix_args,
        planned: planned(plan, rounds).into_iter(),
        done,
        kind,
        store,
        each,
    };
    let summary = drive(&mut extra, interrupt, false)?;
    Ok(Summary {
        launches: summary.launches,
        failed: summary.failed,
        interrupted: match summary.stopped {
            Some(Stop::Interrupted(signal)) => Some(signal),
            Some(Stop::FailFast { .. }) | None => None,
        },
    })
}

/// Why a stored extra record is not the planned launch of its seq.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mismatch {
    /// Its seq is past the plan's `planned` launches.
    Unplanned { seq: u64, planned: usize },
    /// Its round, cell or pretouch (`recorded`) are not those planned for its seq.
    Misplaced {
        seq: u64,
        recorded: Box<(u32, CellKey, bool)>,
        planned: Box<(u32, CellKey, bool)>,
    },
    /// Its seq is stored twice (`round` as recorded).
    Twice { seq: u64, round: u32 },
}

/// The seqs of the extra launches of `rounds` rounds that `records` (one file's, of one
/// kind) already hold. Every record must be the planned one of its seq (round, cell,
/// pretouch), and appear once: else the file does not match its own matrix and rounds,
/// and is not resumed.
pub fn done<'a, T: ExtraRecord + 'a>(
    plan: &Plan,
    rounds: u32,
    records: impl IntoIterator<Item = &'a T>,
) -> Result<BTreeSet<u64>, Mismatch> {
    let planned = planned(plan, rounds);
    let mut done = BTreeSet::new();
    for record in records {
        let PlannedAs {
            seq,
            round,
            ref cell,
            pretouch,
        } = *record.planned_as();
        let p = usize::try_from(seq)
            .ok()
            .and_then(|i| planned.get(i))
            .ok_or(Mismatch::Unplanned {
                seq,
                planned: planned.len(),
            })?;
        let key = cell_key(&plan.cells[p.cell]);
        if (round, pretouch, cell) != (p.round, p.pretouch, &key) {
            return Err(Mismatch::Misplaced {
                seq,
                recorded: Box::new((round, cell.clone(), pretouch)),
                planned: Box::new((p.round, key, p.pretouch)),
            });
        }
        if !done.insert(seq) {
            return Err(Mismatch::Twice { seq, round });
        }
    }
    Ok(done)
}

/// Why a file's extra launches of one kind are not resumed: one of its records is not
/// the launch its plan puts at its seq.
#[derive(Debug, thiserror::Error)]
#[error(
    "`{path}`, {launches} launch {seq}: {detail}; the file does not match its own matrix and \
     --{tag}-rounds, so it is not resumed"
)]
pub struct NotResumed {
    pub path: PathBuf,
    /// What the kind's launches are called, such as `profiled`.
    pub launches: &'static str,
    /// The kind's tag, which names its option of rounds.
    pub tag: &'static str,
    pub seq: u64,
    pub detail: String,
}

/// The seqs of the launches of kind `R` that `file` already holds ([`done`]), or which
/// record is not the planned one of its seq and why.
pub fn done_in<R: ExtraRecord>(
    plan: &Plan,
    rounds: u32,
    file: &ResultFile,
) -> Result<BTreeSet<u64>, NotResumed> {
    let records = read_records::<R>(std::slice::from_ref(file));
    let launches = R::KIND.launches;
    done(plan, rounds, records.iter().map(|r| &r.record)).map_err(|e| {
        let (seq, detail) = match e {
            Mismatch::Unplanned { seq, planned } => (
                seq,
                format!("the run plans only {planned} {launches} launches"),
            ),
            Mismatch::Misplaced {
                seq,
                recorded,
                planned,
            } => {
                let (round, cell, pretouch) = *recorded;
                let (p_round, key, p_pretouch) = *planned;
                (
                    seq,
                    format!(
                        "recorded as round {round} {cell:?} pretouch {pretouch}, planned as round {p_round} {key:?} pretouch {p_pretouch}"
                    ),
                )
            }
            Mismatch::Twice { seq, .. } => (seq, "recorded twice".to_owned()),
        };
        NotResumed {
            path: file.path.clone(),
            launches,
            tag: R::KIND.tag,
            seq,
            detail,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A record that only says where it stands and whether its launch failed. Its line
    /// holds only where it stands.
    #[derive(Debug, Clone, serde::Deserialize)]
    struct Stood {
        #[serde(flatten)]
        at: PlannedAs,
        #[serde(flatten)]
        launched: Launched,
    }

    impl Stood {
        fn new(at: PlannedAs, fail: bool) -> Stood {
            let launched = Launched {
                command: Vec::new(),
                started_at: String::new(),
                time_to_main_ns: Some(crate::units::Nanos(1)),
                failure: fail.then(|| "failed".to_owned()),
            };
            Stood { at, launched }
        }
    }

    impl serde::Serialize for Stood {
        fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            self.at.serialize(serializer)
        }
    }

    impl ExtraRecord for Stood {
        const KIND: crate::store::extra::ExtraKind = crate::store::extra::ExtraKind {
            tag: "stood",
            launches: "stood",
            rounds: |_| None,
            read: |line| serde_json::from_str(line),
        };
        fn parts(&self) -> (&PlannedAs, &Launched) {
            (&self.at, &self.launched)
        }
    }

    /// Launches what it is asked, failing every launch with pretouch in round 1, and
    /// is interrupted at its `stop`th launch when told to.
    struct Fake {
        seen: Vec<(u64, bool)>,
        stop: Option<usize>,
    }

    impl Rounds for Fake {
        type Record = Stood;
        fn launch(&mut self, at: &Planned, cell: &Cell, jvm_args: &[String]) -> Option<Stood> {
            if self.stop == Some(self.seen.len()) {
                return None;
            }
            let on = jvm_args.iter().any(|a| a == "-XX:+AlwaysPreTouch");
            assert_eq!(on, at.pretouch);
            self.seen.push((at.seq, on));
            let stood = PlannedAs {
                seq: at.seq,
                round: at.round,
                cell: cell_key(cell),
                pretouch: at.pretouch,
            };
            Some(Stood::new(stood, at.round == 1 && at.pretouch))
        }
    }

    #[test]
    fn extra_rounds_alternate_by_round_and_resume_under_their_planned_seq() {
        let plan = crate::fixtures::two_cell_plan();
        let dir = tempfile::tempdir().unwrap();
        let mut store = StoreWriter::create(dir.path(), "t", "x").unwrap();
        let mut fake = Fake {
            seen: Vec::new(),
            stop: None,
        };
        let mut each = Vec::new();
        let summary = execute(
            &plan,
            &[],
            2,
            &BTreeSet::from([0, 1, 2]),
            &mut fake,
            &mut store,
            None,
            &mut |r| each.push(r.at.seq),
        )
        .unwrap();
        // Seq 3 is cell 1 with pretouch in round 0; round 1 starts with pretouch.
        assert_eq!(
            fake.seen,
            [(3, true), (4, true), (5, false), (6, true), (7, false)]
        );
        assert_eq!(each, [3, 4, 5, 6, 7]);
        assert_eq!(
            summary,
            Summary {
                launches: 5,
                failed: 2,
                interrupted: None
            }
        );
        let written = std::fs::read_to_string(store.path()).unwrap();
        assert_eq!(written.lines().count(), 5);
        let all = planned(&plan, 2);
        assert_eq!(all.len() as u64, count(&plan, 2));
        assert!(all.iter().enumerate().all(|(i, p)| p.seq == i as u64));
    }

    #[test]
    fn an_interrupted_launch_stops_the_rounds_and_is_not_stored() {
        let plan = crate::fixtures::two_cell_plan();
        let dir = tempfile::tempdir().unwrap();
        let mut store = StoreWriter::create(dir.path(), "t", "x").unwrap();
        let mut fake = Fake {
            seen: Vec::new(),
            stop: Some(2),
        };
        let none = BTreeSet::new();
        let summary = execute(
            &plan,
            &[],
            2,
            &none,
            &mut fake,
            &mut store,
            None,
            &mut |_| {},
        )
        .unwrap();
        assert_eq!(
            (summary.launches, summary.interrupted),
            (2, Some(libc::SIGINT))
        );
        let written = std::fs::read_to_string(store.path()).unwrap();
        assert_eq!(written.lines().count(), 2);
    }

    #[test]
    fn done_takes_each_planned_launch_once_and_names_what_does_not_match() {
        let plan = crate::fixtures::two_cell_plan();
        let at = |seq: u64| {
            let p = planned(&plan, 2)[seq as usize];
            let stood = PlannedAs {
                seq,
                round: p.round,
                cell: cell_key(&plan.cells[p.cell]),
                pretouch: p.pretouch,
            };
            Stood::new(stood, false)
        };
        assert_eq!(
            done(&plan, 2, &[at(0), at(5)]).unwrap(),
            BTreeSet::from([0, 5])
        );
        assert_eq!(
            done(&plan, 1, &[at(5)]).unwrap_err(),
            Mismatch::Unplanned { seq: 5, planned: 4 }
        );
        assert_eq!(
            done(&plan, 2, &[at(1), at(1)]).unwrap_err(),
            Mismatch::Twice { seq: 1, round: 0 }
        );
        let mut moved = at(0);
        moved.at.pretouch = true;
        let key = cell_key(&plan.cells[0]);
        assert_eq!(
            done(&plan, 2, &[moved]).unwrap_err(),
            Mismatch::Misplaced {
                seq: 0,
                recorded: Box::new((0, key.clone(), true)),
                planned: Box::new((0, key, false))
            }
        );
    }
}
