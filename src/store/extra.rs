//! Records of the extra rounds read back. Each kind is a feature's (`features::record`
//! lists them): its lines have a tag of their own in the run's result file, after its
//! timed launches, and its feature knows their type. What every kind shares is here:
//! what the store knows of a kind ([`ExtraKind`]), what it needs of a kind's record
//! ([`ExtraRecord`]), reading the lines of a kind with their file's label
//! ([`read_kind`], [`read_records`]) and counting the planned ones a file lacks
//! ([`missing`], [`missing_records`]).

use std::collections::BTreeSet;

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::store::file::{
    LAUNCH_LINE_START, Line, ResultFile, damaged_line, long_line, next_line, tag_of,
};
use crate::store::record::{
    CellKey, ExtraLine, LaunchCore, Launched, PlannedAs, Record, RunHeader,
};

/// The record of one launch of an instrument's extra rounds, as the store, the rounds
/// and the resume read it. An instrument's record implements it in its `record.rs`, with
/// the two parts every such record holds and what the instrument adds to "it counts".
/// The rest is the same for every instrument, so it is written here once.
pub trait ExtraRecord: Serialize + DeserializeOwned {
    /// What the store knows of the kind, which `features::record::EXTRA_KINDS` lists.
    const KIND: ExtraKind;

    /// The two parts every such record holds: where the launch stands in its plan (seq,
    /// round, cell and pretouch), and what it did (its command, start, time to `main()`
    /// and failure).
    fn parts(&self) -> (&PlannedAs, &Launched);

    /// Seq, round, cell and pretouch: where the launch stands in its plan.
    fn planned_as(&self) -> &PlannedAs {
        self.parts().0
    }

    /// What the launch did: its command, start, time to `main()` and failure.
    fn launched(&self) -> &Launched {
        self.parts().1
    }

    /// Whether the instrument read what it measures. The launch's own failure is asked
    /// apart, so an instrument that always reads something keeps this default.
    fn read_by_instrument(&self) -> bool {
        true
    }

    /// The launch's core, as every kind of launch record gives it.
    fn core(&self) -> LaunchCore<'_> {
        let (at, launched) = self.parts();
        LaunchCore::of(at, launched)
    }

    /// Whether the record counts: launched, measured and read by its instrument.
    fn ok(&self) -> bool {
        self.core().ok() && self.read_by_instrument()
    }

    /// Why the launch failed or its instrument read nothing, when so.
    fn failure(&self) -> Option<&str> {
        self.launched().failure.as_deref()
    }

    /// The line of the result file that holds it.
    fn as_record(&self) -> Record {
        Record::Extra(ExtraLine::of(Self::KIND.tag, self))
    }
}

/// Where the record of kind `R` on `line` stands in its plan, for its [`ExtraKind`].
pub fn read_at<R: ExtraRecord>(line: &str) -> serde_json::Result<PlannedAs> {
    serde_json::from_str::<R>(line).map(|r| r.planned_as().clone())
}

/// The records of kind `R` of result files already read. A line that does not parse was
/// warned about when the files were read.
pub fn read_records<R: ExtraRecord>(files: &[ResultFile]) -> Vec<Labelled<R>> {
    read_kind(files, R::KIND.tag, |line| serde_json::from_str::<R>(line)).records
}

/// The launches of kind `R` that `file` still lacks: those its header's rounds plan and
/// that no record of the kind holds. 0 for a run started without them, or by a version
/// that did not record its rounds.
pub fn missing_records<R: ExtraRecord>(file: &ResultFile) -> u64 {
    missing_of(file, &R::KIND)
}

/// What the store knows of a kind of record of the extra rounds: its tag, what its
/// launches are called, how many rounds a run planned, and how a line of it is read.
/// A feature gives one as a constant, and `features::record` lists them.
#[derive(Debug, Clone, Copy)]
pub struct ExtraKind {
    /// The record's tag: its lines start `{"record":"<tag>",`.
    pub tag: &'static str,
    /// What a report calls its launches, as in "the <launches> rounds are unfinished".
    pub launches: &'static str,
    /// The rounds per cell `header`'s run planned of this kind; absent when it planned
    /// none, or was written by a version that did not record them.
    pub rounds: fn(header: &RunHeader) -> Option<u32>,
    /// A line of this kind read whole as its record, which says where the launch
    /// stands in its plan; an error when the line is no such record.
    pub read: fn(line: &str) -> serde_json::Result<PlannedAs>,
}

impl ExtraKind {
    /// The kind of the records `R`, with its `tag`, the word for its `launches` and its
    /// `rounds` from the run header. Its lines are read as `R`.
    pub const fn of<R: ExtraRecord>(
        tag: &'static str,
        launches: &'static str,
        rounds: fn(header: &RunHeader) -> Option<u32>,
    ) -> ExtraKind {
        ExtraKind {
            tag,
            launches,
            rounds,
            read: read_at::<R>,
        }
    }
}

/// A record of the extra rounds and the label of the file it was read from.
#[derive(Debug, Clone)]
pub struct Labelled<T> {
    pub label: String,
    pub record: T,
}

/// The records of one kind read from result files, and what could not be read.
#[derive(Debug, Clone)]
pub struct Read<T> {
    pub records: Vec<Labelled<T>>,
    /// The lines that could not be read, each naming its file and line as the timed
    /// launches' reader does ([`damaged_line`]), and the files that could not be
    /// opened or read to their end.
    pub warnings: Vec<String>,
}

/// Every record of kind `tag` of result files already read, each read by `parse`,
/// from one pass over each file (a line at a time, because the files' launch records
/// may be gigabytes). A timed launch's line as the writer puts it (its tag first) is
/// skipped unread, because a long run's files hold millions of them and the timed
/// launches' reader already read each one and named it if it was damaged. Reading them
/// twice made a report of such files twice as slow. The tag of every other line is
/// read, whatever its spacing. Nothing is skipped silently: a line whose tag cannot be
/// read, a line of this kind that `parse` refuses, a file that cannot be opened and a
/// read that fails midway are each named in [`Read::warnings`].
pub fn read_kind<T>(
    files: &[ResultFile],
    tag: &str,
    parse: impl Fn(&str) -> serde_json::Result<T>,
) -> Read<T> {
    let mut out = Read {
        records: Vec::new(),
        warnings: Vec::new(),
    };
    for file in files {
        let records = &mut out.records;
        each_line(file, tag, &mut out.warnings, |line_tag, text| {
            if line_tag == tag {
                let record = parse(text)?;
                records.push(Labelled {
                    label: file.header.label.clone(),
                    record,
                });
            }
            Ok(())
        });
    }
    out
}

/// Calls `each` with the tag and text of every line of `file` but a timed launch's as
/// the writer puts it (see [`read_kind`]); a line whose tag cannot be read, or that
/// `each` refuses, is named in `warnings`, as is a file that cannot be read. `what`
/// names the records read, for those warnings.
pub fn each_line(
    file: &ResultFile,
    what: &str,
    warnings: &mut Vec<String>,
    mut each: impl FnMut(&str, &str) -> serde_json::Result<()>,
) {
    let path = &file.path;
    let opened = crate::access::open_regular(path).and_then(|f| {
        f.map_err(|kind| std::io::Error::other(format!("it is {kind}, not a regular file")))
    });
    let f = match opened {
        Ok(f) => f,
        Err(e) => {
            warnings.push(format!(
                "{}: its {what} records are skipped, because the file could not be read. {e}",
                path.display()
            ));
            return;
        }
    };
    let mut reader = std::io::BufReader::with_capacity(1 << 16, f);
    let mut line = Vec::new();
    let mut number = 0;
    loop {
        match next_line(&mut reader, &mut line) {
            Ok(Line::End) => break,
            Ok(Line::Read) => {}
            Ok(Line::TooLong) => {
                number += 1;
                warnings.push(long_line(path, number));
                continue;
            }
            Err(e) => {
                warnings.push(format!(
                    "{}: reading stopped after line {number}, so the rest of its {what} records is skipped. {e}",
                    path.display()
                ));
                break;
            }
        }
        number += 1;
        let cut = line.last() != Some(&b'\n');
        if !cut {
            line.pop();
        }
        if line.iter().all(u8::is_ascii_whitespace)
            || line.starts_with(LAUNCH_LINE_START.as_bytes())
        {
            continue;
        }
        let read = std::str::from_utf8(&line)
            .map_err(|e| e.to_string())
            .and_then(|text| {
                let tag = tag_of(text).map_err(|e| e.to_string())?;
                each(&tag, text).map_err(|e| e.to_string())
            });
        if let Err(e) = read {
            warnings.push(damaged_line(path, number, cut, &e));
        }
    }
}

/// Where each stored record of `kinds` in `file` stands in its plan, by kind, from one
/// pass over the file. A line that its kind refuses counts as no record.
pub fn stored(file: &ResultFile, kinds: &[&ExtraKind]) -> Vec<Vec<PlannedAs>> {
    let mut out = vec![Vec::new(); kinds.len()];
    let mut warnings = Vec::new();
    each_line(file, "extra", &mut warnings, |tag, text| {
        if let Some(i) = kinds.iter().position(|k| k.tag == tag) {
            out[i].push((kinds[i].read)(text)?);
        }
        Ok(())
    });
    out
}

/// The launches of `kind` that `file` still lacks ([`missing`] of its stored records).
pub fn missing_of(file: &ResultFile, kind: &ExtraKind) -> u64 {
    let rounds = (kind.rounds)(&file.header);
    if rounds.is_none() {
        return 0;
    }
    let stored = stored(file, &[kind]).pop().unwrap_or_default();
    missing(
        file,
        rounds,
        stored.into_iter().map(|p| (p.cell, p.round, p.pretouch)),
    )
}

/// Extra launches a file still lacks: those `rounds` plan (every cell of its launches,
/// each round once without and once with pretouch) and that none of `present` (cell,
/// round, pretouch of each stored record) holds. 0 for `rounds` `None`: a run started
/// without them, or by a version that did not record its rounds.
pub fn missing(
    file: &ResultFile,
    rounds: Option<u32>,
    present: impl IntoIterator<Item = (CellKey, u32, bool)>,
) -> u64 {
    let Some(rounds) = rounds else {
        return 0;
    };
    let cells: BTreeSet<&CellKey> = file.launches.iter().map(|l| &l.cell).collect();
    let present: BTreeSet<(CellKey, u32, bool)> = present
        .into_iter()
        .filter(|(cell, round, _)| *round < rounds && cells.contains(cell))
        .collect();
    (cells.len() as u64 * u64::from(rounds) * 2).saturating_sub(present.len() as u64)
}
