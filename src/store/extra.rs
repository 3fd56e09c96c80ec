//! Records of the extra rounds (`--profile`, `--probe`) read back: each kind's records
//! are lines of their own tag in the run's result file, after its timed launches. What
//! the kinds share is here, reading them with their file's label ([`read`]) and counting
//! the planned ones a file lacks ([`missing`]); [`super::profile`] and [`super::probe`]
//! name their tag and record.

use std::collections::BTreeSet;

use crate::store::read::ResultFile;
use crate::store::record::{CellKey, Record};

/// A record of the extra rounds and the label of the file it was read from.
#[derive(Debug, Clone)]
pub struct Labelled<T> {
    pub label: String,
    pub record: T,
}

/// The records tagged `"record":"<tag>"` of result files already read, each as `pick`
/// takes it from its line (their lines are read again, a line at a time because the
/// files' launch records may be gigabytes; lines that do not parse were warned about
/// when the files were read).
pub fn read<T>(
    files: &[ResultFile],
    tag: &str,
    pick: impl Fn(Record) -> Option<T>,
) -> Vec<Labelled<T>> {
    use std::io::BufRead as _;
    let tag = format!(r#""record":"{tag}""#);
    let mut out = Vec::new();
    for file in files {
        let Ok(f) = std::fs::File::open(&file.path) else {
            continue;
        };
        out.extend(
            std::io::BufReader::new(f)
                .split(b'\n')
                .map_while(Result::ok)
                .filter_map(|l| String::from_utf8(l).ok())
                .filter(|l| l.contains(&tag))
                .filter_map(|l| serde_json::from_str::<Record>(&l).ok().and_then(&pick))
                .map(|record| Labelled {
                    label: file.header.label.clone(),
                    record,
                }),
        );
    }
    out
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
}
