//! Stage 4: raw records on disk. One JSON object a line, appended and flushed as soon
//! as each launch ends: the first line describes the run, then one line a launch, and a
//! last line when the run ends. This is the file format users keep; fields are only
//! ever added. [`record`] holds the types, [`write`] the writer, [`read`] the reader.

pub mod complete;
pub mod extra;
pub mod feature_files;
pub mod file;
pub mod key_parts;
pub mod read;
pub mod record;
pub mod write;

pub use read::*;
pub use record::*;
pub use write::*;

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::{Path, PathBuf};

    const HEADER: &str = r##"{"record":"run","format":1,"tool_version":"0.1.0","name":"q","label":"k","matrix_origin":"m.yaml","matrix":"name: q\n","host":{"kernel_release":"6.1","kernel_version":"#1","hostname":"h","cpu_model":"c","cpus":2},"started_at":"2026-01-01T00:00:00Z","jdks":[],"agent":"/a.so","planned_launches":2}"##;
    const LAUNCH: &str = r#"{"record":"launch","seq":0,"round":0,"warmup":false,"jdk":"17","gc":"g1","heap":"64m","variant":"default","jdk_home":"/j","heap_bytes":67108864,"pretouch":false,"command":["java"],"started_at":"t","spawn_ns":1,"reaped_ns":9,"exit_code":0,"signal":null,"stamps":{},"time_to_main_ns":5,"failure":null,"output_tail":null}"#;

    #[test]
    fn launches_written_before_the_new_axes_read_as_their_defaults() {
        // LAUNCH has no gc_threads, cpus, app or affinity: a file of an older version.
        let Record::Launch(old) = serde_json::from_str(LAUNCH).unwrap() else {
            panic!("not a launch");
        };
        assert_eq!((&*old.cell.gc_threads, &*old.cell.cpus), ("auto", "all"));
        assert_eq!((old.cell.app, old.measured.affinity), (None, None));
        // Written again, the defaults are explicit, and the absent ones stay absent.
        let mut launch = match serde_json::from_str(LAUNCH).unwrap() {
            Record::Launch(l) => l,
            _ => unreachable!(),
        };
        launch.measured.affinity = Some("0-1".into());
        let mut new = serde_json::to_value(Record::Launch(launch)).unwrap();
        assert_eq!(new["gc_threads"], "auto");
        assert_eq!(new["cpus"], "all");
        assert_eq!(new["affinity"], "0-1");
        assert!(new.as_object_mut().unwrap().remove("app").is_none());
    }

    #[test]
    fn a_newer_format_is_refused_naming_both_versions_and_older_ones_read() {
        let dir = tempfile::tempdir().unwrap();
        let newer = dir.path().join("newer.jsonl");
        let next = FORMAT_VERSION + 1;
        let header = HEADER.replace("\"format\":1", &format!("\"format\":{next}"));
        std::fs::write(&newer, format!("{header}\n{LAUNCH}\n")).unwrap();
        let err = read_results(std::slice::from_ref(&newer)).unwrap_err();
        let text = err.to_string();
        assert!(matches!(err, StoreError::NewerFormat { found, known, .. }
            if found == u64::from(next) && known == FORMAT_VERSION));
        assert!(text.contains(&format!("format {next}")), "{text}");
        assert!(text.contains(&format!("format {FORMAT_VERSION}")), "{text}");
        assert!(text.contains("newer.jsonl"), "{text}");
        // Found inside a folder, it is skipped with a warning that names it, and the
        // other files are read.
        let results = read_results(&[dir.path().to_owned()]).unwrap();
        assert!(results.files.is_empty());
        assert_eq!(results.unread.len(), 1);
        assert!(
            results.warnings[0].contains("newer.jsonl: skipped"),
            "{:?}",
            results.warnings
        );
        // Every format up to this build's reads.
        for format in 1..=FORMAT_VERSION {
            let old = dir.path().join(format!("old-{format}.jsonl"));
            let header = HEADER.replace("\"format\":1", &format!("\"format\":{format}"));
            std::fs::write(&old, format!("{header}\n{LAUNCH}\n")).unwrap();
            let results = read_results(&[old]).unwrap();
            assert_eq!(results.files[0].launches.len(), 1);
        }
    }

    #[test]
    fn a_line_is_read_as_the_kind_its_tag_names_and_an_unknown_tag_is_refused() {
        // Tag first or not, a launch reads the same.
        let moved = LAUNCH.replace(r#""record":"launch","#, "");
        let moved = format!(r#"{},"record":"launch"}}"#, &moved[..moved.len() - 1]);
        for line in [LAUNCH, moved.as_str()] {
            let Record::Launch(l) = parse_record(line).unwrap() else {
                panic!("not a launch: {line}");
            };
            assert_eq!(l.seq, 0);
        }
        assert!(matches!(parse_record(HEADER), Ok(Record::Run(_))));
        // A tag no feature registers is refused, naming every tag this build knows.
        let err = parse_record(r#"{"record":"nonesuch","seq":0}"#)
            .unwrap_err()
            .to_string();
        assert!(err.contains("unknown variant `nonesuch`"), "{err}");
        let known = CORE_TAGS
            .into_iter()
            .chain(crate::features::record::EXTRA_KINDS.iter().map(|k| k.tag));
        for tag in known {
            assert!(err.contains(&format!("`{tag}`")), "{tag}: {err}");
        }
        let err = parse_record(r#"{"seq":0}"#).unwrap_err().to_string();
        assert!(err.contains("missing field `record`"), "{err}");
        // A registered kind's line that is not its record is refused by the timed
        // launches' reader too, so that the report names it.
        for kind in crate::features::record::EXTRA_KINDS {
            let line = format!(r#"{{"record":"{}","seq":0}}"#, kind.tag);
            assert!(parse_record(&line).is_err(), "{line}");
            let (_, warnings) = parse(format!("{HEADER}\n{line}\n").as_bytes());
            assert_eq!(warnings.len(), 1, "{warnings:?}");
        }
    }

    fn parse(text: &[u8]) -> (Option<ResultFile>, Vec<String>) {
        parse_result_file(Path::new("r.jsonl"), text)
    }

    #[test]
    fn a_header_without_the_matrix_hash_still_reads() {
        let (file, warnings) = parse(format!("{HEADER}\n{LAUNCH}\n").as_bytes());
        assert!(warnings.is_empty(), "{warnings:?}");
        let file = file.unwrap();
        assert_eq!(file.header.matrix_sha256, None);
        assert_eq!(file.launches.len(), 1);
    }

    #[test]
    fn files_read_side_by_side_come_back_in_name_order_with_their_warnings() {
        // More files than the machine has CPUs, of different lengths, so that the readers
        // finish out of order; each file has a damaged line naming it.
        let dir = tempfile::tempdir().unwrap();
        let names: Vec<String> = (0..7).map(|i| format!("l{i}")).collect();
        for (i, name) in names.iter().enumerate().rev() {
            let folder = dir.path().join(name);
            std::fs::create_dir_all(&folder).unwrap();
            let header = HEADER.replace(r#""label":"k""#, &format!(r#""label":"{name}""#));
            let n = 1 + 300 * (i % 3) as u64;
            let launches: String = (0..n).map(|seq| launch(seq) + "\n").collect();
            let text = format!("{header}\n{launches}not json\n{}\n", launch(n));
            std::fs::write(folder.join("r.jsonl"), text).unwrap();
        }
        let results = read_results(&[dir.path().to_owned()]).unwrap();
        let labels: Vec<&str> = results
            .files
            .iter()
            .map(|f| f.header.label.as_str())
            .collect();
        assert_eq!(labels, names);
        for (i, f) in results.files.iter().enumerate() {
            assert_eq!(f.launches.len(), 2 + 300 * (i % 3), "{}", f.header.label);
        }
        let named: Vec<String> = results
            .warnings
            .iter()
            .map(|w| w.split('/').rev().nth(1).unwrap().to_owned())
            .collect();
        assert_eq!(named, names, "{:?}", results.warnings);
        // Of files named on the command line, the first failure in name order is the
        // one told, as when read one by one.
        let named: Vec<PathBuf> = ["l5", "l2"]
            .iter()
            .map(|name| dir.path().join(name).join("r.jsonl"))
            .collect();
        for path in &named {
            let newer = HEADER.replace(r#""format":1"#, r#""format":99"#);
            std::fs::write(path, newer + "\n").unwrap();
        }
        let err = read_results(&named).unwrap_err().to_string();
        assert!(err.contains("l2"), "{err}");
    }

    #[test]
    fn a_cut_last_line_is_reported_and_skipped() {
        let text = format!("{HEADER}\n{LAUNCH}\n{}", &LAUNCH[..100]);
        let (file, warnings) = parse(text.as_bytes());
        assert_eq!(file.unwrap().launches.len(), 1);
        assert_eq!(
            warnings,
            [
                "r.jsonl:3: the last line is cut short and skipped, because the run was killed while writing it"
            ]
        );
    }

    #[test]
    fn damaged_lines_are_skipped_even_when_not_utf8() {
        let mut text = format!("{HEADER}\n").into_bytes();
        text.extend_from_slice(b"{\"record\":\"launch\",\xff\xfe\n");
        text.extend_from_slice(format!("{LAUNCH}\n").as_bytes());
        let (file, warnings) = parse(&text);
        assert_eq!(file.unwrap().launches.len(), 1);
        assert_eq!(warnings.len(), 1);
        assert!(warnings[0].starts_with("r.jsonl:2: an unreadable line is skipped"));
        let (file, warnings) = parse(b"\xff\n");
        assert!(file.is_none());
        assert_eq!(warnings.len(), 2, "{warnings:?}");
    }

    #[test]
    fn two_writers_get_two_files() {
        let dir = tempfile::tempdir().unwrap();
        let a = StoreWriter::create(dir.path(), "q", "20260101T000000Z").unwrap();
        let b = StoreWriter::create(dir.path(), "q", "20260101T000000Z").unwrap();
        assert_ne!(a.path(), b.path());
        assert!(b.path().ends_with("q-20260101T000000Z-1.jsonl"));
    }

    #[test]
    fn appending_cuts_a_half_written_line_and_locks_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.jsonl");
        std::fs::write(&path, format!("{HEADER}\n{LAUNCH}\n{}", &LAUNCH[..40])).unwrap();
        let (mut writer, dropped) = StoreWriter::open_append(&path).unwrap();
        assert_eq!(dropped.as_deref(), Some(&LAUNCH[..40]));
        assert!(matches!(
            StoreWriter::open_append(&path),
            Err(StoreError::Locked { .. })
        ));
        writer
            .append(&Record::End(RunEnd {
                finished_at: "t".into(),
                launches: 1,
                failed: 0,
                stops: Vec::new(),
                runner_max_rss: None,
            }))
            .unwrap();
        drop(writer);
        let (file, warnings) = parse(&std::fs::read(&path).unwrap());
        assert!(warnings.is_empty(), "{warnings:?}");
        assert!(file.unwrap().end.is_some());
        // A file that ends cleanly loses nothing.
        let (_, dropped) = StoreWriter::open_append(&path).unwrap();
        assert_eq!(dropped, None);
    }

    /// The launch line of `seq`, as the writer puts it.
    fn launch(seq: u64) -> String {
        LAUNCH.replace(r#""seq":0,"#, &format!(r#""seq":{seq},"#))
    }

    /// A run of `n` launches with its end record, started at `started`.
    fn run(started: &str, n: u64) -> String {
        let header = HEADER.replace("2026-01-01T00:00:00Z", started);
        let launches: String = (0..n).map(|i| launch(i) + "\n").collect();
        let end = format!(r#"{{"record":"end","finished_at":"t","launches":{n},"failed":0}}"#);
        format!("{header}\n{launches}{end}\n")
    }

    #[test]
    fn a_repeated_launch_line_is_counted_once_and_its_line_named() {
        // Every launch line twice, as a careless merge of two copies leaves a file.
        let lines: String = (0..4)
            .map(|i| format!("{}\n{}\n", launch(i), launch(i)))
            .collect();
        let (file, warnings) = parse(format!("{HEADER}\n{lines}").as_bytes());
        assert_eq!(file.unwrap().launches.len(), 4);
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        let w = &warnings[0];
        assert!(w.starts_with("r.jsonl: 4 launch lines left out"), "{w}");
        assert!(w.contains("left out, lines 3, 5, 7, 9, because"), "{w}");
        assert!(w.contains("Line 3 repeats line 2"), "{w}");
        // The launches of another run pasted in repeat this run's seq numbers.
        let (file, warnings) =
            parse(format!("{}{}\n{}\n", run("x", 3), launch(0), launch(1)).as_bytes());
        assert_eq!(file.unwrap().launches.len(), 3);
        assert!(
            warnings[0].contains("left out, lines 6-7, because"),
            "{warnings:?}"
        );
    }

    #[test]
    fn a_launch_without_its_time_or_failure_is_named_and_not_counted_as_failed() {
        let damaged = launch(1).replace(r#","time_to_main_ns":5"#, "");
        let (file, warnings) = parse(format!("{HEADER}\n{}\n{damaged}\n", launch(0)).as_bytes());
        let file = file.unwrap();
        assert_eq!(file.launches.len(), 1);
        assert!(file.launches.iter().all(|l| l.ok()));
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(
            warnings[0].starts_with("r.jsonl:3: a launch record with neither"),
            "{warnings:?}"
        );
        // A failed launch has no time to main() and is read as the failure it is.
        let failed = damaged.replace(r#""failure":null"#, r#""failure":"killed""#);
        let (file, warnings) = parse(format!("{HEADER}\n{failed}\n").as_bytes());
        assert!(warnings.is_empty(), "{warnings:?}");
        assert!(!file.unwrap().launches[0].ok());
    }

    #[test]
    fn a_line_longer_than_the_bound_is_skipped_with_its_line() {
        let long = vec![b'x'; file::MAX_LINE + 10];
        let mut text = format!("{HEADER}\n{}\n", launch(0)).into_bytes();
        text.extend_from_slice(&long);
        text.push(b'\n');
        text.extend_from_slice(format!("{}\n", launch(1)).as_bytes());
        // A long line cut at the end, as a copy of /dev/zero would leave it.
        text.extend_from_slice(&long);
        let (file, warnings) = parse(&text);
        assert_eq!(file.unwrap().launches.len(), 2);
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        assert!(
            warnings[0].starts_with("r.jsonl:3: a line longer than 1 MiB"),
            "{warnings:?}"
        );
        assert!(
            warnings[1].starts_with("r.jsonl:5: a line longer than 1 MiB"),
            "{warnings:?}"
        );
        // A line of just the bound is read.
        let (_, warnings) = parse(format!("{HEADER}\n{}\n", " ".repeat(file::MAX_LINE)).as_bytes());
        assert!(warnings.is_empty(), "{warnings:?}");
    }

    #[test]
    fn a_finished_run_that_lost_a_launch_line_says_how_many() {
        use complete::{Launched, completeness_warnings};
        let warnings_of = |text: &str| {
            let (file, _) = parse(text.as_bytes());
            let file = file.unwrap();
            let launched = Launched::of(&file);
            completeness_warnings(&[(file, launched)])
        };
        assert!(warnings_of(&run("x", 4)).is_empty());
        // A deleted line, and a line whose time was damaged.
        let deleted = run("x", 4).replace(&format!("{}\n", launch(2)), "");
        assert_eq!(
            warnings_of(&deleted),
            [
                "r.jsonl: 1 launch is missing, because its end record counts 4 launches and 3 are read. A line was deleted, or damaged and named above."
            ]
        );
        let no_time = launch(1).replace(r#""time_to_main_ns":5"#, r#""time_to_main_ns":null"#);
        let damaged = run("x", 4).replace(&launch(1), &no_time);
        assert!(
            warnings_of(&damaged)[0].contains("1 launch is missing"),
            "{damaged}"
        );
        let added = run("x", 4).replace(
            &format!("{}\n", launch(3)),
            &format!("{}\n{}\n", launch(3), launch(4)),
        );
        assert!(
            warnings_of(&added)[0]
                .contains("1 more launches are read than its end record counts, 5 against 4")
        );
    }

    #[test]
    fn the_extra_rounds_reader_skips_a_long_line_and_a_fifo_too() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.jsonl");
        let long = "x".repeat(file::MAX_LINE + 1);
        std::fs::write(&path, format!("{}{long}\n", run("x", 1))).unwrap();
        let (file, _) = parse_result_file(&path, &std::fs::read(&path).unwrap());
        let mut file = file.unwrap();
        let read = extra::read_kind(std::slice::from_ref(&file), "probe", |t| Ok(t.len()));
        assert!(read.records.is_empty());
        assert_eq!(read.warnings.len(), 1, "{:?}", read.warnings);
        assert!(read.warnings[0].ends_with("r.jsonl:4: a line longer than 1 MiB is skipped unread, because no record is that long and the file is damaged there"), "{:?}", read.warnings);
        // A file swapped for a FIFO since it was first read is refused, not waited on.
        std::fs::remove_file(&path).unwrap();
        let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: `c` is a NUL-terminated path that lives across the call.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        file.path = path;
        let read = extra::read_kind(std::slice::from_ref(&file), "probe", |t| Ok(t.len()));
        assert!(
            read.warnings[0].contains("it is a FIFO, not a regular file"),
            "{:?}",
            read.warnings
        );
    }

    /// The launches read from `paths`, with the warnings, and the files skipped.
    fn read(paths: &[PathBuf]) -> (usize, Vec<String>, Vec<PathBuf>) {
        let results = read_results(paths).unwrap();
        let launches = results.files.iter().map(|f| f.launches.len()).sum();
        let unread = results.unread.into_iter().map(|(p, _)| p).collect();
        (launches, results.warnings, unread)
    }

    #[test]
    fn copies_and_links_of_a_run_are_read_once_and_each_named() {
        use std::os::unix::fs::symlink;
        let dir = tempfile::tempdir().unwrap();
        let results = dir.path().join("results");
        let label = results.join("k");
        std::fs::create_dir_all(&label).unwrap();
        std::fs::write(label.join("a.jsonl"), run("2026-01-01T00:00:00Z", 4)).unwrap();
        std::fs::write(label.join("b.jsonl"), run("2026-01-02T00:00:00Z", 3)).unwrap();
        let clean = read(std::slice::from_ref(&results));
        assert_eq!((clean.0, clean.1.len()), (7, 0), "{:?}", clean.1);
        // A copy, a shorter copy taken while the run went on, links to the folders and
        // to a file read already.
        std::fs::copy(label.join("a.jsonl"), label.join("a-copy.jsonl")).unwrap();
        std::fs::write(label.join("0-part.jsonl"), run("2026-01-02T00:00:00Z", 2)).unwrap();
        symlink("..", label.join("up")).unwrap();
        symlink(".", label.join("self")).unwrap();
        symlink("a.jsonl", label.join("c.jsonl")).unwrap();
        let (launches, warnings, unread) = read(std::slice::from_ref(&results));
        assert_eq!(launches, 7, "{warnings:?}");
        // Of two copies as long, the first by name is read.
        for name in ["a.jsonl", "0-part.jsonl", "up", "self", "c.jsonl"] {
            let named: Vec<_> = warnings
                .iter()
                .filter(|w| w.contains(&format!("k/{name}:")))
                .collect();
            assert_eq!(named.len(), 1, "{name}: {warnings:?}");
        }
        assert_eq!(warnings.len(), 5, "{warnings:?}");
        assert!(
            warnings.iter().any(|w| w
                .contains("0-part.jsonl: skipped, because it holds the same run as")
                && w.contains("b.jsonl")),
            "{warnings:?}"
        );
        // Links to the folders read and copies hide no launch, a link to a folder
        // elsewhere may.
        assert!(unread.is_empty(), "{unread:?}");
        let other = dir.path().join("other");
        std::fs::create_dir(&other).unwrap();
        symlink(&other, label.join("other")).unwrap();
        let (_, _, unread) = read(std::slice::from_ref(&results));
        assert_eq!(unread, [label.join("other")]);
        std::fs::remove_file(label.join("other")).unwrap();
        // A link to a run kept elsewhere, such as last week's, is read.
        let elsewhere = dir.path().join("old.jsonl");
        std::fs::write(&elsewhere, run("2025-12-01T00:00:00Z", 5)).unwrap();
        symlink(&elsewhere, label.join("last-week.jsonl")).unwrap();
        assert_eq!(read(std::slice::from_ref(&results)).0, 12);
        // Named twice, through the folder and by itself, a file is read once.
        let twice = [results.clone(), label.join("a.jsonl")];
        assert_eq!(read(&twice).0, 12);
    }

    #[test]
    fn a_special_file_is_refused_at_once_and_a_bad_one_costs_only_itself() {
        let dir = tempfile::tempdir().unwrap();
        let label = dir.path().join("k");
        std::fs::create_dir_all(&label).unwrap();
        std::fs::write(label.join("a.jsonl"), run("2026-01-01T00:00:00Z", 4)).unwrap();
        let fifo = label.join("fifo.jsonl");
        let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: `c` is a NUL-terminated path that lives across the call.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        std::os::unix::fs::symlink("/dev/zero", label.join("zero.jsonl")).unwrap();
        let next = FORMAT_VERSION + 1;
        let newer =
            run("2026-01-03T00:00:00Z", 2).replace("\"format\":1", &format!("\"format\":{next}"));
        std::fs::write(label.join("newer.jsonl"), newer).unwrap();
        let started = std::time::Instant::now();
        let (launches, warnings, unread) = read(&[dir.path().to_owned()]);
        assert!(started.elapsed() < std::time::Duration::from_secs(5));
        assert_eq!(launches, 4, "{warnings:?}");
        assert_eq!(unread.len(), 3, "{warnings:?}");
        assert!(
            warnings
                .iter()
                .any(|w| w.contains("fifo.jsonl: skipped, because it is a FIFO")),
            "{warnings:?}"
        );
        assert!(
            warnings.iter().any(|w| w.contains(
                "zero.jsonl: skipped, because it is a symbolic link to a character device"
            )),
            "{warnings:?}"
        );
        assert!(
            warnings.iter().any(|w| w.contains(&format!(
                "newer.jsonl: skipped, because it has record format {next}"
            ))),
            "{warnings:?}"
        );
        // Named on the command line, a FIFO is refused at once with an error.
        let err = read_results(std::slice::from_ref(&fifo))
            .unwrap_err()
            .to_string();
        assert!(err.contains("is a FIFO, not a regular file"), "{err}");
    }

    mod fuzz {
        use super::*;
        use proptest::prelude::*;

        /// Cases a property runs: bounded for the test suite; `PRETOUCH_FUZZ_CASES=100000`
        /// for a long session.
        fn fuzz_cases(default: u32) -> u32 {
            std::env::var("PRETOUCH_FUZZ_CASES")
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(default)
        }

        /// A damage done to a result file's lines, each at a place picked at random.
        #[derive(Debug, Clone)]
        enum Mutation {
            /// The file cut at a byte, as a crash or a full disk leaves it.
            Cut(usize),
            /// A line given twice, as a careless merge leaves it.
            Twice(usize),
            /// A line deleted.
            Delete(usize),
            /// A launch line of this seq inserted, as from another run of the matrix.
            Foreign(usize, u64),
            /// A number made larger than any type holds.
            Huge(usize),
            /// A byte that is no UTF-8 put in.
            NotUtf8(usize, usize),
            /// A line longer than the bound inserted.
            Long(usize),
            /// Ten thousand nested lists inserted in a line.
            Deep(usize, usize),
            /// One byte changed.
            Flip(usize, usize, u8),
        }

        fn mutation() -> impl Strategy<Value = Mutation> {
            let at = any::<usize>();
            prop_oneof![
                at.prop_map(Mutation::Cut),
                at.prop_map(Mutation::Twice),
                at.prop_map(Mutation::Delete),
                (at, 0u64..30).prop_map(|(i, seq)| Mutation::Foreign(i, seq)),
                at.prop_map(Mutation::Huge),
                (at, at).prop_map(|(i, j)| Mutation::NotUtf8(i, j)),
                at.prop_map(Mutation::Long),
                (at, at).prop_map(|(i, j)| Mutation::Deep(i, j)),
                (at, at, any::<u8>()).prop_map(|(i, j, b)| Mutation::Flip(i, j, b)),
            ]
        }

        impl Mutation {
            /// Applies the damage to `lines`, or to `cut`, where the file is cut after its
            /// lines are joined.
            fn apply(&self, lines: &mut Vec<Vec<u8>>, cut: &mut Option<usize>) {
                let n = lines.len().max(1);
                let byte = |line: &[u8], j: usize| j % (line.len() + 1);
                match *self {
                    Mutation::Cut(at) => *cut = Some(at),
                    Mutation::Twice(i) if !lines.is_empty() => {
                        let line = lines[i % n].clone();
                        lines.insert(i % n, line);
                    }
                    Mutation::Delete(i) if !lines.is_empty() => {
                        lines.remove(i % n);
                    }
                    Mutation::Foreign(i, seq) => {
                        lines.insert(i % (n + 1), launch(seq).into_bytes())
                    }
                    Mutation::Huge(i) if !lines.is_empty() => {
                        let text = String::from_utf8_lossy(&lines[i % n])
                            .replace(":5,", ":99999999999999999999999999,");
                        lines[i % n] = text.into_bytes();
                    }
                    Mutation::NotUtf8(i, j) if !lines.is_empty() => {
                        let line = &mut lines[i % n];
                        let at = byte(line, j);
                        line.insert(at, 0xff);
                    }
                    Mutation::Long(i) => lines.insert(i % (n + 1), vec![b'x'; file::MAX_LINE + 1]),
                    Mutation::Deep(i, j) if !lines.is_empty() => {
                        let line = &mut lines[i % n];
                        let at = byte(line, j);
                        line.splice(at..at, b"[".repeat(10_000));
                    }
                    Mutation::Flip(i, j, b) if !lines.is_empty() => {
                        let line = &mut lines[i % n];
                        if !line.is_empty() {
                            let at = j % line.len();
                            line[at] = b;
                        }
                    }
                    _ => {}
                }
            }
        }

        /// How many lines of the file shown as `shown` the warning `w` names: one for a
        /// warning about one line, the count of a warning about repeated launch lines.
        fn lines_named(w: &str, shown: &str) -> usize {
            let Some(rest) = w.strip_prefix(shown) else {
                return 0;
            };
            if let Some(line) = rest.strip_prefix(':')
                && line
                    .split(':')
                    .next()
                    .is_some_and(|n| n.parse::<usize>().is_ok())
            {
                return 1;
            }
            let Some(repeats) = rest.strip_prefix(": ") else {
                return 0;
            };
            match repeats.split_once(" launch line") {
                Some((n, _)) => n.parse().unwrap_or(0),
                None => 0,
            }
        }

        /// How much the peak memory of this test process grew since the first call, KiB.
        fn grown_kib() -> i64 {
            static START: std::sync::OnceLock<i64> = std::sync::OnceLock::new();
            let peak = || {
                // SAFETY: all-zero is a valid `rusage`, which getrusage fills.
                let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
                // SAFETY: `usage` is valid for writes for the whole call.
                unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) };
                usage.ru_maxrss
            };
            let start = *START.get_or_init(peak);
            peak() - start
        }

        proptest! {
            #![proptest_config(ProptestConfig { cases: fuzz_cases(400), failure_persistence: None, ..ProptestConfig::default() })]

            /// Any bytes: no panic, and every line but the header is either read or warned.
            #[test]
            fn any_bytes_read_without_panic(bytes in proptest::collection::vec(any::<u8>(), 0..600)) {
                let (file, warnings) = parse(&bytes);
                let lines = bytes
                    .split(|&b| b == b'\n')
                    .filter(|l| !l.iter().all(u8::is_ascii_whitespace))
                    .count();
                let read = file
                    .as_ref()
                    .map_or(0, |f| 1 + f.launches.len() + usize::from(f.end.is_some()));
                // Random bytes are never a valid resume line (read without a trace) nor
                // two end lines: each line is read or named in a warning; a file without
                // a header adds a warning of its own.
                prop_assert_eq!(read + warnings.len(), lines + usize::from(file.is_none()), "{:?}", warnings);
                prop_assert!(warnings.iter().all(|w| w.starts_with("r.jsonl")), "{:?}", warnings);
            }

            /// A run's file damaged as results folders damage it, with copies, links and a
            /// FIFO beside it: no panic, bounded time and memory, each launch counted once
            /// and every line that is not read named with its file and line.
            #[test]
            fn a_damaged_results_folder_counts_each_launch_once_and_names_what_it_skips(
                mutations in proptest::collection::vec(mutation(), 0..6),
                beside in proptest::collection::vec(any::<bool>(), 5),
            ) {
                let dir = tempfile::tempdir().unwrap();
                let label = dir.path().join("k");
                std::fs::create_dir(&label).unwrap();
                let mut lines: Vec<Vec<u8>> = run("2026-01-01T00:00:00Z", 20)
                    .lines()
                    .map(|l| l.as_bytes().to_vec())
                    .collect();
                let mut cut = None;
                for m in &mutations {
                    m.apply(&mut lines, &mut cut);
                }
                let mut bytes = lines.join(&b'\n');
                bytes.push(b'\n');
                if let Some(at) = cut {
                    bytes.truncate(at % (bytes.len() + 1));
                }
                std::fs::write(label.join("r.jsonl"), &bytes).unwrap();
                let [copy, up, itself, link, fifo] = beside[..] else { unreachable!() };
                if copy {
                    std::fs::write(label.join("r-copy.jsonl"), &bytes).unwrap();
                }
                if up {
                    std::os::unix::fs::symlink("..", label.join("up")).unwrap();
                }
                if itself {
                    std::os::unix::fs::symlink(".", label.join("self")).unwrap();
                }
                if link {
                    std::os::unix::fs::symlink("r.jsonl", label.join("link.jsonl")).unwrap();
                }
                if fifo {
                    let path = label.join("fifo.jsonl");
                    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
                    // SAFETY: `c` is a NUL-terminated path that lives across the call.
                    prop_assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
                }
                let started = std::time::Instant::now();
                let results = read_results(&[dir.path().to_owned()]).unwrap();
                prop_assert!(started.elapsed() < std::time::Duration::from_secs(5), "{:?}", started.elapsed());
                prop_assert!(grown_kib() < 256 << 10, "the reader grew by {} KiB", grown_kib());
                // One run, so one file at most, and each of its launches once.
                prop_assert!(results.files.len() <= 1, "{:?}", results.warnings);
                let mut seqs: Vec<u64> = results.files.iter().flat_map(|f| f.launches.iter().map(|l| l.seq)).collect();
                let n = seqs.len();
                seqs.sort_unstable();
                seqs.dedup();
                prop_assert_eq!(seqs.len(), n);
                let Some(file) = results.files.first() else {
                    // A file not read is named, and said why.
                    prop_assert!(results.warnings.iter().any(|w| w.contains("r.jsonl: skipped")), "{:?}", results.warnings);
                    return Ok(());
                };
                // Every line not read as the header, a launch or an end is named.
                let shown = file.path.display().to_string();
                let named: usize = results.warnings.iter().map(|w| lines_named(w, &shown)).sum();
                let ends = bytes
                    .split(|&b| b == b'\n')
                    .filter(|l| matches!(std::str::from_utf8(l).map(parse_record), Ok(Ok(Record::End(_)))))
                    .count();
                let lines = bytes
                    .split(|&b| b == b'\n')
                    .filter(|l| l.len() > file::MAX_LINE || !l.iter().all(u8::is_ascii_whitespace))
                    .count();
                prop_assert_eq!(1 + file.launches.len() + ends + named, lines, "{:?}", results.warnings);
                // What lies beside the file is named too, the FIFO and links at once.
                for (on, name) in [(copy, "r-copy.jsonl:"), (up, "up:"), (itself, "self:"), (link, "link.jsonl:"), (fifo, "fifo.jsonl:")] {
                    if on {
                        prop_assert!(results.warnings.iter().any(|w| w.contains(name) || (name == "r-copy.jsonl:" && w.contains("r.jsonl: skipped"))), "{}: {:?}", name, results.warnings);
                    }
                }
            }

            /// A valid file cut anywhere and with one byte changed: no panic; the header
            /// survives when the cut is past it and the change is not in it.
            #[test]
            fn a_damaged_file_reads_what_is_intact(cut in 0usize..2000, at in 0usize..2000, byte in any::<u8>()) {
                let text = format!("{HEADER}\n{LAUNCH}\n{LAUNCH}\n");
                let mut bytes = text.into_bytes();
                bytes.truncate(cut.min(bytes.len()));
                if !bytes.is_empty() {
                    let i = at % bytes.len();
                    bytes[i] = byte;
                }
                let (file, _) = parse(&bytes);
                if at % bytes.len().max(1) > HEADER.len() && bytes.len() > HEADER.len() {
                    prop_assert!(file.is_some());
                }
            }
        }
    }
}
