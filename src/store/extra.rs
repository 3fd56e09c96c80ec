//! Records of the extra rounds (`--profile`, `--probe`) read back: each kind's records
//! are lines of their own tag in the run's result file, after its timed launches. What
//! the kinds share is here, reading every kind in one pass with their file's label
//! ([`read_all`]) and counting the planned ones a file lacks ([`missing`],
//! [`missing_extras`]); [`super::profile`] and [`super::probe`] name their record.

use std::collections::BTreeSet;

use crate::store::read::{LAUNCH_LINE_START, ResultFile, damaged_line, parse_record};
use crate::store::record::{CellKey, ProbeRecord, ProfileRecord, Record};

/// A record of the extra rounds and the label of the file it was read from.
#[derive(Debug, Clone)]
pub struct Labelled<T> {
    pub label: String,
    pub record: T,
}

/// The extra rounds' records of result files already read, every kind from one pass
/// over each file ([`read_all`]), each with its file's label.
#[derive(Debug, Clone, Default)]
pub struct Extras {
    pub profiles: Vec<Labelled<ProfileRecord>>,
    pub probes: Vec<Labelled<ProbeRecord>>,
    /// The lines that could not be read, each naming its file and line as the timed
    /// launches' reader does ([`crate::store::read::damaged_line`]), and the files that
    /// could not be opened or read to their end.
    pub warnings: Vec<String>,
}

/// Every profile and probe record of result files already read, from one pass over each
/// file (a line at a time, because the files' launch records may be gigabytes). Every
/// line is parsed, whatever its spacing, but for a timed launch's line as the writer
/// puts it (its tag first): that one is skipped unread, because a campaign's files hold
/// millions of them and the timed launches' reader already read each one and named it
/// if it was damaged. Reading them twice made a report of such files twice as slow.
/// Nothing else is skipped silently: a line that does not parse, a file that cannot be
/// opened and a read that fails midway are each counted and named in
/// [`Extras::warnings`].
pub fn read_all(files: &[ResultFile]) -> Extras {
    let mut out = Extras::default();
    for file in files {
        read_one(file, &mut out);
    }
    out
}

/// [`read_all`] of one file, added to `out`.
fn read_one(file: &ResultFile, out: &mut Extras) {
    use std::io::BufRead as _;
    let path = &file.path;
    let f = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) => {
            out.warnings.push(format!(
                "{}: its profile and probe records are skipped, because they could not be read. {e}",
                path.display()
            ));
            return;
        }
    };
    let mut reader = std::io::BufReader::with_capacity(1 << 16, f);
    let mut line = Vec::new();
    let mut number = 0;
    loop {
        line.clear();
        match reader.read_until(b'\n', &mut line) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) => {
                out.warnings.push(format!(
                    "{}: reading stopped after line {number}, so the rest of its profile and probe records is skipped. {e}",
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
        let record = std::str::from_utf8(&line)
            .map_err(|e| e.to_string())
            .and_then(|text| parse_record(text).map_err(|e| e.to_string()));
        let label = || file.header.label.clone();
        match record {
            Ok(Record::Profile(record)) => out.profiles.push(Labelled {
                label: label(),
                record,
            }),
            Ok(Record::Probe(record)) => out.probes.push(Labelled {
                label: label(),
                record: *record,
            }),
            Ok(_) => {}
            Err(e) => out.warnings.push(damaged_line(path, number, cut, &e)),
        }
    }
}

/// Profiled and probed launches `file` still lacks ([`missing`] of each kind), from one
/// pass over it.
pub fn missing_extras(file: &ResultFile) -> (u64, u64) {
    let extras = read_all(std::slice::from_ref(file));
    let at = |cell: &CellKey, round, pretouch| (cell.clone(), round, pretouch);
    (
        missing(
            file,
            file.header.profile_rounds,
            extras
                .profiles
                .iter()
                .map(|p| at(&p.record.at.cell, p.record.at.round, p.record.at.pretouch)),
        ),
        missing(
            file,
            file.header.probe_rounds,
            extras
                .probes
                .iter()
                .map(|p| at(&p.record.at.cell, p.record.at.round, p.record.at.pretouch)),
        ),
    )
}

/// Whether every profiled and probed launch `file`'s header plans is stored: with its
/// end record, what makes a run finished (`schedule::resume::finished`,
/// `features::kernels::schedule::finished`).
pub fn all_extras_stored(file: &ResultFile) -> bool {
    missing_extras(file) == (0, 0)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_reads_its_own_lines_past_a_damaged_one_and_counts_what_is_missing() {
        let dir = tempfile::tempdir().unwrap();
        let mut file = crate::fixtures::one_cell_file("k");
        file.header.probe_rounds = Some(2);
        file.path = dir.path().join("r.jsonl");
        let cell = file.launches[0].cell.clone();
        let probe = crate::fixtures::probe_record(&cell, 1, true, 50.0, &[1000], 1, Vec::new());
        let mut bytes = Vec::new();
        for record in [
            Record::Run(file.header.clone()),
            Record::Probe(Box::new(probe.clone())),
        ] {
            bytes.extend(serde_json::to_vec(&record).unwrap());
            bytes.push(b'\n');
        }
        // A cut, non-UTF-8 line among them (a crash mid-write, say) hides nothing else.
        bytes.extend(b"{\"record\":\"probe\",\xff\n");
        let mut again = probe.clone();
        again.at.seq = 2;
        again.at.round = 1;
        bytes.extend(serde_json::to_vec(&Record::Probe(Box::new(again))).unwrap());
        bytes.push(b'\n');
        std::fs::write(&file.path, bytes).unwrap();
        let probes = crate::store::probe::read_probes(std::slice::from_ref(&file));
        assert_eq!(
            probes
                .iter()
                .map(|p| (p.label.as_str(), p.record.at.seq))
                .collect::<Vec<_>>(),
            [("k", 1), ("k", 2)]
        );
        assert!(crate::store::profile::read_profiles(std::slice::from_ref(&file)).is_empty());
        // Two rounds of one cell plan four; two are here.
        assert_eq!(crate::store::probe::missing_probes(&file), 2);
        assert_eq!(crate::store::profile::missing_profiles(&file), 0);
        let present = probes
            .into_iter()
            .map(|p| (p.record.at.cell, p.record.at.round, p.record.at.pretouch));
        assert_eq!(
            missing(&file, Some(1), present),
            1,
            "round 1 is past one round"
        );
    }

    #[test]
    fn one_pass_reads_every_kind_and_names_each_damaged_line() {
        let dir = tempfile::tempdir().unwrap();
        let mut file = crate::fixtures::one_cell_file("k");
        file.path = dir.path().join("r.jsonl");
        let cell = file.launches[0].cell.clone();
        let probe = crate::fixtures::probe_record(&cell, 0, false, 50.0, &[1000], 1, Vec::new());
        let mut bytes = serde_json::to_vec(&Record::Run(file.header.clone())).unwrap();
        bytes.push(b'\n');
        // A probe record written with other spacing is still a probe record.
        let spaced = serde_json::to_string_pretty(&Record::Probe(Box::new(probe))).unwrap();
        bytes.extend(spaced.replace('\n', " ").as_bytes());
        bytes.push(b'\n');
        bytes.extend(b"{\"record\":\"profile\",\"seq\":\n");
        bytes.extend(b"{\"record\":\"probe\",\"seq\":1");
        std::fs::write(&file.path, bytes).unwrap();
        let extras = read_all(std::slice::from_ref(&file));
        assert_eq!(extras.probes.len(), 1);
        assert!(extras.profiles.is_empty());
        let path = file.path.display().to_string();
        assert_eq!(extras.warnings.len(), 2, "{:?}", extras.warnings);
        assert!(
            extras.warnings[0].starts_with(&format!("{path}:3: an unreadable line is skipped. ")),
            "{:?}",
            extras.warnings
        );
        assert!(
            extras.warnings[1].starts_with(&format!("{path}:4: the last line is cut short")),
            "{:?}",
            extras.warnings
        );
        // The timed launches' reader names the same lines the same way.
        let (_, timed) =
            crate::store::parse_result_file(&file.path, &std::fs::read(&file.path).unwrap());
        assert_eq!(timed, extras.warnings);
        // A file gone since it was first read is named too, not passed over.
        std::fs::remove_file(&file.path).unwrap();
        let gone = read_all(std::slice::from_ref(&file));
        assert_eq!(gone.warnings.len(), 1);
        assert!(
            gone.warnings[0].contains("could not be read"),
            "{:?}",
            gone.warnings
        );
    }
    #[test]
    fn the_timed_launches_are_left_to_their_reader() {
        // A launch line is the timed launches' reader's: one pass here skips it unread,
        // so that a damaged one is named once, by that reader.
        let dir = tempfile::tempdir().unwrap();
        let mut file = crate::fixtures::one_cell_file("k");
        file.path = dir.path().join("r.jsonl");
        let cell = file.launches[0].cell.clone();
        let probe = crate::fixtures::probe_record(&cell, 0, false, 50.0, &[1000], 1, Vec::new());
        let mut bytes = serde_json::to_vec(&Record::Run(file.header.clone())).unwrap();
        bytes.push(b'\n');
        for launch in &file.launches {
            bytes.extend(serde_json::to_vec(&Record::Launch(launch.clone())).unwrap());
            bytes.push(b'\n');
        }
        bytes.extend(b"{\"record\":\"launch\",\"seq\":\n");
        bytes.extend(serde_json::to_vec(&Record::Probe(Box::new(probe))).unwrap());
        bytes.push(b'\n');
        std::fs::write(&file.path, &bytes).unwrap();
        let extras = read_all(std::slice::from_ref(&file));
        assert_eq!(extras.probes.len(), 1);
        assert!(extras.warnings.is_empty(), "{:?}", extras.warnings);
        let (read, timed) = crate::store::parse_result_file(&file.path, &bytes);
        assert_eq!(read.unwrap().launches.len(), file.launches.len());
        let damaged = format!(
            "r.jsonl:{}: an unreadable line is skipped",
            file.launches.len() + 2
        );
        assert!(timed.len() == 1 && timed[0].contains(&damaged), "{timed:?}");
    }
}
