//! Probe records (`pretouch run --probe`): one JVM launched while bpftrace timed its page
//! faults and lock waits from exec to `main()`, apart from the timed launches and in no
//! timing statistic. Stored as `"record":"probe"` lines in the run's result file, after
//! its timed launches, like the profile records; the store reads and counts them
//! through [`KIND`], listed in `features::record`.

use serde::{Deserialize, Serialize};

use crate::features::probe::launch::{C2cSupport, Contention, FaultLatency};
use crate::store::extra::{ExtraKind, ExtraRecord, Labelled};
use crate::store::record::{Launched, PlannedAs};
use crate::units::Nanos;

/// What the store knows of probe records.
pub const KIND: ExtraKind =
    ExtraKind::of::<ProbeRecord>("probe", "probed", |header| header.extra_rounds.probe_rounds);

/// One probed launch (`"record":"probe"`), its fields in the order of `ProbeLine`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ProbeRecord {
    /// Where the launch stands among the run's probed launches.
    #[serde(flatten)]
    pub at: PlannedAs,
    /// The JVM's command line, as in a launch record (the JVM is not under a wrapper),
    /// its spawn and its time to `main()`: set against the timed launches of the same
    /// cell, the probes' cost. Failed when the launch or its probe failed.
    #[serde(flatten)]
    pub launched: Launched,
    /// The bpftrace command that probed it, started before the JVM and stopped after it.
    pub probe_command: Vec<String>,
    /// The agent's fault count at its main stamp (`getrusage` minor + major, exec to
    /// main, the forked child's few included): what `faults` must agree with.
    pub main_faults: Option<u64>,
    /// The faults, timed one by one; absent when the probe read nothing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub faults: Option<FaultLatency>,
    /// The lock waits, or why this kernel cannot tell them; absent when the probe read
    /// nothing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contention: Option<Contention>,
    /// Whether `perf c2c` could run on this machine (it needs the PMU's memory-sampling
    /// events); with them, `perf c2c record -g -- <command>` profiles the same launch.
    pub c2c: C2cSupport,
}

/// A probe record as its line holds it: the fields in the order files have always had,
/// [`Launched`]'s around `probe_command` and `main_faults`.
#[derive(Serialize)]
struct ProbeLine<'a> {
    #[serde(flatten)]
    at: &'a PlannedAs,
    command: &'a [String],
    probe_command: &'a [String],
    started_at: &'a str,
    time_to_main_ns: Option<Nanos>,
    main_faults: Option<u64>,
    failure: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    faults: Option<&'a FaultLatency>,
    #[serde(skip_serializing_if = "Option::is_none")]
    contention: Option<&'a Contention>,
    c2c: &'a C2cSupport,
}

impl Serialize for ProbeRecord {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        ProbeLine {
            at: &self.at,
            command: &self.launched.command,
            probe_command: &self.probe_command,
            started_at: &self.launched.started_at,
            time_to_main_ns: self.launched.time_to_main_ns,
            main_faults: self.main_faults,
            failure: self.launched.failure.as_deref(),
            faults: self.faults.as_ref(),
            contention: self.contention.as_ref(),
            c2c: &self.c2c,
        }
        .serialize(serializer)
    }
}

impl ExtraRecord for ProbeRecord {
    const KIND: ExtraKind = KIND;

    fn parts(&self) -> (&PlannedAs, &Launched) {
        (&self.at, &self.launched)
    }

    fn read_by_instrument(&self) -> bool {
        self.faults.is_some()
    }
}

/// A probe record and the label of the file it was read from.
pub type LabelledProbe = Labelled<ProbeRecord>;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::extra;
    use crate::store::file::ResultFile;
    use crate::store::record::Record;

    use crate::features::probe::fixtures::probe_record;
    use crate::features::profile::record::ProfileRecord;
    use crate::store::complete::{Launched, completeness_warnings};

    /// Where probed launches are among the kinds the store counts.
    fn probed() -> usize {
        crate::features::record::EXTRA_KINDS
            .iter()
            .position(|k| k.tag == KIND.tag)
            .unwrap()
    }

    /// Every probe record of `files`, with the warnings of reading them.
    fn read_kind(files: &[ResultFile]) -> extra::Read<ProbeRecord> {
        extra::read_kind(files, KIND.tag, |line| {
            serde_json::from_str::<ProbeRecord>(line)
        })
    }

    /// Where each of `keys` starts in `line`, which must be in this order.
    fn in_order(line: &str, keys: &[&str]) {
        let at: Vec<usize> = keys
            .iter()
            .map(|k| {
                line.find(&format!("\"{k}\":"))
                    .unwrap_or_else(|| panic!("{k}"))
            })
            .collect();
        assert!(at.is_sorted(), "{keys:?} at {at:?} in {line}");
    }

    #[test]
    fn each_kind_reads_its_own_lines_past_a_damaged_one_and_counts_what_is_missing() {
        let dir = tempfile::tempdir().unwrap();
        let mut file = crate::fixtures::one_cell_file("k");
        file.header.extra_rounds.probe_rounds = Some(2);
        file.path = dir.path().join("r.jsonl");
        let cell = file.launches[0].cell.clone();
        let probe = probe_record(&cell, 1, true, 50.0, &[1000], 1, Vec::new());
        let mut bytes = Vec::new();
        for record in [Record::Run(file.header.clone()), probe.as_record()] {
            bytes.extend(serde_json::to_vec(&record).unwrap());
            bytes.push(b'\n');
        }
        // A cut, non-UTF-8 line among them (a crash mid-write, say) hides nothing else.
        bytes.extend(b"{\"record\":\"probe\",\xff\n");
        let mut again = probe.clone();
        again.at.seq = 2;
        again.at.round = 1;
        bytes.extend(serde_json::to_vec(&again.as_record()).unwrap());
        bytes.push(b'\n');
        std::fs::write(&file.path, bytes).unwrap();
        let probes = extra::read_records::<ProbeRecord>(std::slice::from_ref(&file));
        assert_eq!(
            probes
                .iter()
                .map(|p| (p.label.as_str(), p.record.at.seq))
                .collect::<Vec<_>>(),
            [("k", 1), ("k", 2)]
        );
        assert!(
            crate::store::extra::read_records::<crate::features::profile::record::ProfileRecord>(
                std::slice::from_ref(&file)
            )
            .is_empty()
        );
        // Two rounds of one cell plan four; two are here.
        assert_eq!(extra::missing_records::<ProbeRecord>(&file), 2);
        assert_eq!(
            crate::store::extra::missing_records::<crate::features::profile::record::ProfileRecord>(
                &file
            ),
            0
        );
        let present = probes
            .into_iter()
            .map(|p| (p.record.at.cell, p.record.at.round, p.record.at.pretouch));
        assert_eq!(
            extra::missing(&file, Some(1), present),
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
        let probe = probe_record(&cell, 0, false, 50.0, &[1000], 1, Vec::new());
        let mut bytes = serde_json::to_vec(&Record::Run(file.header.clone())).unwrap();
        bytes.push(b'\n');
        // A probe record written with other spacing is still a probe record.
        let spaced = serde_json::to_string_pretty(&probe.as_record()).unwrap();
        bytes.extend(spaced.replace('\n', " ").as_bytes());
        bytes.push(b'\n');
        bytes.extend(b"{\"record\":\"profile\",\"seq\":\n");
        bytes.extend(b"{\"record\":\"probe\",\"seq\":1");
        std::fs::write(&file.path, bytes).unwrap();
        let extras = read_kind(std::slice::from_ref(&file));
        assert_eq!(extras.records.len(), 1);
        assert!(
            crate::store::extra::read_records::<crate::features::profile::record::ProfileRecord>(
                std::slice::from_ref(&file)
            )
            .is_empty()
        );
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
        let gone = read_kind(std::slice::from_ref(&file));
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
        let probe = probe_record(&cell, 0, false, 50.0, &[1000], 1, Vec::new());
        let mut bytes = serde_json::to_vec(&Record::Run(file.header.clone())).unwrap();
        bytes.push(b'\n');
        for launch in &file.launches {
            bytes.extend(serde_json::to_vec(&Record::Launch(launch.clone())).unwrap());
            bytes.push(b'\n');
        }
        bytes.extend(b"{\"record\":\"launch\",\"seq\":\n");
        bytes.extend(serde_json::to_vec(&probe.as_record()).unwrap());
        bytes.push(b'\n');
        std::fs::write(&file.path, &bytes).unwrap();
        let extras = read_kind(std::slice::from_ref(&file));
        assert_eq!(extras.records.len(), 1);
        assert!(extras.warnings.is_empty(), "{:?}", extras.warnings);
        let (read, timed) = crate::store::parse_result_file(&file.path, &bytes);
        assert_eq!(read.unwrap().launches.len(), file.launches.len());
        let damaged = format!(
            "r.jsonl:{}: an unreadable line is skipped",
            file.launches.len() + 2
        );
        assert!(timed.len() == 1 && timed[0].contains(&damaged), "{timed:?}");
    }

    #[test]
    fn a_run_whose_probed_rounds_were_cut_short_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let mut file = crate::fixtures::one_cell_file("k");
        file.header.extra_rounds.probe_rounds = Some(2);
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
        let probe = probe_record(&cell, 0, false, 50.0, &[1000], 1, Vec::new());
        let mut bytes = Vec::new();
        for record in [Record::Run(file.header.clone()), probe.as_record()] {
            bytes.extend(serde_json::to_vec(&record).unwrap());
            bytes.push(b'\n');
        }
        std::fs::write(&file.path, bytes).unwrap();
        let launched = Launched::of(&file);
        // Two rounds of one cell plan four probed launches; one is here.
        assert_eq!(launched.missing[probed()], 3);
        assert_eq!(
            launched.missing.iter().sum::<u64>(),
            3,
            "none of the other kinds"
        );
        let warnings = completeness_warnings(&[(file.clone(), launched)]);
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(
            warnings[0].contains("probed rounds are unfinished, with 3 probed launches missing"),
            "{warnings:?}"
        );
        // All four there: no warning.
        let full = Launched {
            missing: Default::default(),
            ..launched
        };
        assert!(completeness_warnings(&[(file, full)]).is_empty());
    }

    #[test]
    fn the_extra_records_write_their_core_where_files_have_it_and_read_it_back() {
        let cell = crate::fixtures::launch(0, true, 1.0).cell;
        let probe = probe_record(&cell, 3, true, 50.0, &[1000], 1, Vec::new());
        let line = serde_json::to_string(&probe.as_record()).unwrap();
        in_order(
            &line,
            &[
                "record",
                "seq",
                "round",
                "jdk",
                "cpus",
                "pretouch",
                "command",
                "probe_command",
                "started_at",
                "time_to_main_ns",
                "main_faults",
                "failure",
                "faults",
                "c2c",
            ],
        );
        assert_eq!(serde_json::from_str::<ProbeRecord>(&line).unwrap(), probe);
        match crate::store::read::parse_record(&line).unwrap() {
            Record::Extra(e) => assert_eq!((e.tag(), e.line()), ("probe", line.as_str())),
            other => panic!("not a probe: {other:?}"),
        }
        let (at, launched) = (probe.at.clone(), probe.launched.clone());
        let profile = crate::features::profile::record::ProfileRecord {
            at,
            launched,
            wall_ns: Nanos(9),
            event: "cpu-clock".into(),
            frequency_hz: 999,
            call_graph: "fp".into(),
            samples: 1,
            folded: vec!["a;b 1".into()],
            perf_data: Some("p.data".into()),
        };
        let line = serde_json::to_string(&profile.as_record()).unwrap();
        in_order(
            &line,
            &[
                "record",
                "seq",
                "round",
                "jdk",
                "cpus",
                "pretouch",
                "command",
                "started_at",
                "time_to_main_ns",
                "wall_ns",
                "failure",
                "event",
                "folded",
                "perf_data",
            ],
        );
        assert_eq!(
            serde_json::from_str::<ProfileRecord>(&line).unwrap(),
            profile
        );
        // One core, whichever kind holds it.
        assert_eq!(profile.core(), probe.core());
        assert!(probe.core().ok());
    }
}
