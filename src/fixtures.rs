//! Test support: result files made of fixed numbers, to test the report, the comparison
//! and every export format on known data without a JVM.

use std::path::PathBuf;

use crate::analyze::labels::{Change, Column, Comparison, Entry, Row};
use crate::launch::Measurement;
use crate::launch::agent::{Stamp, Stamps};
use crate::machine::jdk::Jdk;
use crate::matrix::Gc;
use crate::store::{CellKey, HostInfo, LaunchRecord, ResultFile, RunHeader};
use crate::units::{Bytes, Nanos};

pub const JDK: &str = "17.0.15+6-Debian-1deb12u1";
pub const MATRIX: &str = "name: fixed\ngcs: [g1, parallel]\nheaps: [1g]\nrepetitions: 10\n";

/// A JDK that is never launched: `version` names it, and its home is `/<version>`.
pub fn fake_jdk(version: &str) -> Jdk {
    Jdk {
        spec: version.into(),
        home: PathBuf::from(format!("/{version}")),
        java: PathBuf::from(format!("/{version}/bin/java")),
        version: version.into(),
        vendor: None,
        version_output: String::new(),
        collectors: None,
    }
}

/// An agent stamp at `ns`, with zero counters.
pub fn stamp(ns: u64) -> Option<Stamp> {
    Some(Stamp {
        ns: Nanos(ns),
        minflt: 0,
        majflt: 0,
        rss: Bytes(0),
    })
}

/// A launch that exited 0 after reaching `main()` (spawned at 10 ns, stamps at 11-13,
/// reaped at 50), judged as the launcher judges it: what a fake launcher answers.
pub fn reached_main() -> crate::launch::LaunchOutcome {
    let mut outcome = crate::launch::LaunchOutcome {
        measured: Measurement {
            spawn_ns: Nanos(10),
            reaped_ns: Nanos(50),
            exit_code: Some(0),
            stamps: Stamps {
                mechanism: None,
                agent_load: stamp(11),
                vm_init: stamp(12),
                main: stamp(13),
            },
            ..Measurement::default()
        },
        ..crate::launch::LaunchOutcome::default()
    };
    outcome.measured.failure = crate::launch::judge(&outcome);
    outcome
}

pub fn host(hostname: &str) -> HostInfo {
    HostInfo {
        kernel_release: "6.18.0".into(),
        kernel_version: "#1 SMP".into(),
        hostname: hostname.into(),
        cpu_model: "AMD EPYC 9B14".into(),
        cpus: 2,
    }
}

/// The one builder of launch records in tests: a counted launch of the fixtures' cell
/// (JDK [`JDK`], G1, 1g, no variant) in `round`, reaching main() after `ms` ms; NaN = a
/// failed launch. Tests set what else they need on the result (`seq`, the cell,
/// `measured.rusage`...), so that a new field of the record is written here once.
pub fn launch(round: u32, pretouch: bool, ms: f64) -> LaunchRecord {
    let ok = !ms.is_nan();
    LaunchRecord {
        seq: 0,
        round,
        warmup: false,
        cell: CellKey {
            jdk: JDK.into(),
            gc: Gc::G1,
            heap: "1g".into(),
            variant: "default".into(),
            gc_threads: crate::matrix::GC_THREADS_AUTO.into(),
            cpus: crate::matrix::cpuset::ALL.into(),
            app: None,
            features: Default::default(),
        },
        jdk_home: PathBuf::from("/usr/lib/jvm/java-17-openjdk-amd64"),
        heap_bytes: Bytes(1 << 30),
        pretouch,
        measured: Measurement {
            exit_code: Some(if ok { 0 } else { 1 }),
            failure: (!ok).then(|| "exited with code 1 before main()".to_owned()),
            ..Measurement::default()
        },
        time_to_main_ns: ok.then(|| Nanos((ms * 1e6).round() as u64)),
        skipped: false,
    }
}

/// One cell's counted rounds: (without, with) time to main in ms; NaN = a failed launch.
pub struct FakeCell<'a> {
    pub gc: Gc,
    pub heap: &'a str,
    pub rounds: &'a [(f64, f64)],
}

/// A G1 and a Parallel cell at 1g with these rounds: the two cells most fixtures hold.
pub fn g1_and_parallel<'a>(g1: &'a [(f64, f64)], par: &'a [(f64, f64)]) -> [FakeCell<'a>; 2] {
    [
        FakeCell {
            gc: Gc::G1,
            heap: "1g",
            rounds: g1,
        },
        FakeCell {
            gc: Gc::Parallel,
            heap: "1g",
            rounds: par,
        },
    ]
}

/// A result file of `label` holding one round of one cell (G1 1g, 40 ms without and
/// 400 ms with pretouch), for the tests of what follows the timed launches.
pub fn one_cell_file(label: &str) -> ResultFile {
    file(
        label,
        "2026-01-01T00:00:00Z",
        host("h"),
        &[FakeCell {
            gc: Gc::G1,
            heap: "1g",
            rounds: &[(40.0, 400.0)],
        }],
    )
}

pub fn file(label: &str, started_at: &str, host: HostInfo, cells: &[FakeCell<'_>]) -> ResultFile {
    let mut launches = Vec::new();
    for c in cells {
        for (round, (off, on)) in c.rounds.iter().enumerate() {
            for (pretouch, ms) in [(false, *off), (true, *on)] {
                let mut launch = launch(round as u32, pretouch, ms);
                launch.seq = launches.len() as u64;
                launch.cell.gc = c.gc;
                launch.cell.heap = c.heap.into();
                launch.measured.started_at = started_at.into();
                launches.push(launch);
            }
        }
    }
    ResultFile {
        path: PathBuf::from(format!("results/{label}/fixed.jsonl")),
        header: RunHeader {
            format: crate::store::FORMAT_VERSION,
            tool_version: "0.1.0".into(),
            name: "fixed".into(),
            label: label.into(),
            matrix_origin: "fixed.yaml".into(),
            matrix: MATRIX.into(),
            matrix_sha256: None,
            env: None,
            features: Default::default(),
            cpu_placements: Vec::new(),
            comparable_memory: None,
            extra_rounds: Default::default(),
            host,
            started_at: started_at.into(),
            jdks: vec![Jdk {
                spec: "17".into(),
                home: PathBuf::from("/usr/lib/jvm/java-17-openjdk-amd64"),
                java: PathBuf::from("/usr/lib/jvm/java-17-openjdk-amd64/bin/java"),
                version: JDK.into(),
                vendor: None,
                version_output: String::new(),
                collectors: None,
            }],
            agent: PathBuf::from("libpretouch_agent.so"),
            agent_sha256: None,
            planned_launches: launches.len() as u64,
        },
        launches,
        end: None,
    }
}

/// Writes `f` as `<dir>/<label>/fixed.jsonl`: its header, launches and an end record,
/// as `pretouch run` would have.
pub fn write_result_file(dir: &std::path::Path, f: &ResultFile) {
    write_result_file_as(dir, f, "fixed.jsonl");
}

/// [`write_result_file`] under the file name `name`, so that a label can hold several.
pub fn write_result_file_as(dir: &std::path::Path, f: &ResultFile, name: &str) {
    let folder = dir.join(&f.header.label);
    std::fs::create_dir_all(&folder).unwrap();
    let mut text =
        serde_json::to_string(&crate::store::Record::Run(f.header.clone())).unwrap() + "\n";
    for l in &f.launches {
        text += &(serde_json::to_string(&crate::store::Record::Launch(l.clone())).unwrap() + "\n");
    }
    let end = crate::store::RunEnd {
        finished_at: f.header.started_at.clone(),
        launches: f.launches.len() as u64,
        failed: 0,
        runner_max_rss: None,
        stops: Vec::new(),
    };
    text += &(serde_json::to_string(&crate::store::Record::End(end)).unwrap() + "\n");
    std::fs::write(folder.join(name), text).unwrap();
}

pub use crate::stats::noise::uniform;

/// Ten rounds around `off` and `on`, with a fixed small wobble, and one slow launch
/// with pretouch in round 7 when `slow` is set.
pub fn rounds(off: f64, on: f64, slow: bool) -> Vec<(f64, f64)> {
    const WOBBLE: [f64; 10] = [0.0, 1.5, -1.0, 2.5, -2.0, 0.5, 3.0, -1.5, 1.0, -0.5];
    (0..10)
        .map(|i| {
            let w = WOBBLE[i];
            let on = on + w * on / 100.0 + if slow && i == 7 { on * 2.0 } else { 0.0 };
            (off + w / 2.0, on)
        })
        .collect()
}

/// `n` rounds of a cell costing about `cost` ms, the wobble of [`rounds`] repeated.
pub fn rounds_costing(cost: f64, n: usize) -> Vec<(f64, f64)> {
    rounds(50.0, 50.0 + cost, false)
        .into_iter()
        .cycle()
        .take(n)
        .collect()
}

/// Writes the label `label` into `dir`: one G1 1g cell of [`rounds_costing`], its run
/// started at `at`, so that the label written with the earliest `at` is the oldest.
pub fn write_g1_label(dir: &std::path::Path, label: &str, at: &str, cost: f64, n: usize) {
    let r = rounds_costing(cost, n);
    let cell = FakeCell {
        gc: crate::matrix::Gc::G1,
        heap: "1g",
        rounds: &r,
    };
    write_result_file(dir, &file(label, at, host("vm"), &[cell]));
}

/// Two labels `a` (the baseline) and `b` side by side, a row per `marked`: `b`'s change
/// in it marked or not, or none.
pub fn two_labels(marked: &[Option<bool>]) -> Comparison<usize, (), f64> {
    let column = |i, label: &str| Column::new(i, label, "a", ());
    Comparison {
        columns: vec![column(0, "a"), column(1, "b")],
        baseline: "a".into(),
        confidence: 0.95,
        rows: marked
            .iter()
            .enumerate()
            .map(|(key, m)| Row {
                key,
                entries: vec![
                    Some(Entry {
                        measured: 1.0,
                        change: None,
                        not_compared: None,
                    }),
                    Some(Entry {
                        measured: 2.0,
                        change: m.map(|significant| Change {
                            delta: 1.0,
                            percent: Some(100.0),
                            interval: None,
                            percent_interval: None,
                            testable: true,
                            significant,
                        }),
                        not_compared: None,
                    }),
                ],
            })
            .collect(),
        warnings: Vec::new(),
        run_to_run: Vec::new(),
        env_differences: Vec::new(),
        machine_notes: Vec::new(),
        outliers_excluded: false,
    }
}

thread_local! {
    /// Whether the test on this thread takes minutes a run, so CI reruns it under THP
    /// `always` alone ([`slow_thp_test`]).
    static SLOW: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Marks the test on this thread as one that takes minutes a run. CI then reruns it
/// under THP `always` only, rather than under every THP mode, to keep CI's time.
pub fn slow_thp_test() {
    SLOW.with(|s| s.set(true));
}

/// Says that the test on this thread reads the THP and mTHP modes, because its
/// expectations follow them. When `PRETOUCH_THP_TESTS` names a file, the test's binary
/// and name go into it, one line each, as `binary <TAB> test <TAB> speed`. So `.ci/run`
/// finds the tests to run again under each other mode, and nobody keeps a list by hand.
/// The test harness names each test's thread after the test, which gives its name.
pub fn reads_thp_mode() {
    use std::io::Write;
    let Some(path) = std::env::var_os("PRETOUCH_THP_TESTS") else {
        return;
    };
    let Some(test) = std::thread::current().name().map(str::to_owned) else {
        return;
    };
    // `server-0123abcd` for tests/server.rs, `pretouch-0123abcd` for the unit tests.
    let stem = std::env::current_exe()
        .ok()
        .and_then(|e| e.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .unwrap_or_default();
    let binary = match stem.rsplit_once('-') {
        Some((name, hash)) if hash.bytes().all(|b| b.is_ascii_hexdigit()) => name.to_owned(),
        _ => stem,
    };
    let binary = match binary.as_str() {
        "pretouch" => "--lib".to_owned(),
        name => name.to_owned(),
    };
    let speed = if SLOW.with(std::cell::Cell::get) {
        "slow"
    } else {
        "quick"
    };
    let written = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .and_then(|mut f| writeln!(f, "{binary}\t{test}\t{speed}"));
    if let Err(e) = written {
        panic!("PRETOUCH_THP_TESTS={path:?}: {e}");
    }
}

/// A launcher under an instrument that never launches: it keeps the pretouch side of
/// each launch it is asked for, in order, and answers with what `answer` makes of that
/// side. The tests of an instrument's rounds use it in place of perf or bpftrace.
pub struct FakeInstrumented<O> {
    /// Whether each launch asked for ran with pretouch, in order.
    pub sides: Vec<bool>,
    answer: fn(pretouch: bool) -> O,
}

impl<O> FakeInstrumented<O> {
    pub fn new(answer: fn(pretouch: bool) -> O) -> FakeInstrumented<O> {
        FakeInstrumented {
            sides: Vec::new(),
            answer,
        }
    }
}

impl<O> crate::schedule::extra::Instrumented for FakeInstrumented<O> {
    type Outcome = O;

    fn launch_planned(
        &mut self,
        _at: &crate::schedule::extra::Planned,
        _cell: &crate::schedule::plan::Cell,
        jvm_args: &[String],
    ) -> O {
        let on = jvm_args.iter().any(|a| a == "-XX:+AlwaysPreTouch");
        self.sides.push(on);
        (self.answer)(on)
    }
}

/// Two cells of JDK 17, g1 and parallel with a 64m heap, as the tests of the extra
/// rounds plan them.
pub fn two_cell_plan() -> crate::schedule::plan::Plan {
    let matrix = crate::matrix::Matrix::parse(
        "m",
        "name: t\ngcs: [g1, parallel]\nheaps: [64m]\nrepetitions: 1\n",
    )
    .unwrap();
    crate::schedule::plan::Plan::new(&matrix, &[fake_jdk("17")])
}

/// What [`run_rounds`] saw: how the rounds ended, what `each` made of each record once
/// stored, and the text of the result file they were stored in.
pub struct RoundsRun<T> {
    pub summary: crate::schedule::extra::Summary,
    pub seen: Vec<T>,
    pub written: String,
}

/// Runs `rounds` rounds of `kind` over [`two_cell_plan`] into a new result file, but
/// the launches in `done`, as a run's extra rounds run. Each launch must be stored as
/// one line, a record of the kind.
pub fn run_rounds<R: crate::schedule::extra::Rounds, T>(
    kind: &mut R,
    rounds: u32,
    done: &std::collections::BTreeSet<u64>,
    mut each: impl FnMut(&R::Record) -> T,
) -> RoundsRun<T> {
    let plan = two_cell_plan();
    let dir = tempfile::tempdir().unwrap();
    let mut store = crate::store::StoreWriter::create(dir.path(), "t", "x").unwrap();
    let mut seen = Vec::new();
    let summary = crate::schedule::extra::execute(
        &plan,
        &[],
        rounds,
        done,
        kind,
        &mut store,
        None,
        &mut |r| seen.push(each(r)),
    )
    .unwrap();
    let written = std::fs::read_to_string(store.path()).unwrap();
    use crate::store::extra::ExtraRecord as _;
    let tag = format!(r#""record":"{}""#, R::Record::KIND.tag);
    assert_eq!(written.lines().count() as u64, summary.launches);
    assert!(written.lines().all(|l| l.contains(&tag)), "{written}");
    RoundsRun {
        summary,
        seen,
        written,
    }
}

/// Where the one launch of the extra rounds that a fixture stores stands, and what it
/// did: seq 0 of round 0 of `cell` with pretouch, run by `command`, which reached
/// `main()` after 5 ns.
pub fn extra_launch(
    cell: CellKey,
    command: &str,
) -> (crate::store::PlannedAs, crate::store::Launched) {
    let at = crate::store::PlannedAs {
        seq: 0,
        round: 0,
        cell,
        pretouch: true,
    };
    let launched = crate::store::Launched {
        command: vec![command.into()],
        started_at: "t".into(),
        time_to_main_ns: Some(Nanos(5)),
        failure: None,
    };
    (at, launched)
}

/// Stores `record` after the launches of `file` as `<dir>/r.jsonl`, without an end
/// record, and reads the file back. It must read without warnings, and its one record
/// of the kind must be `record`, labelled as the file is. Returns the file as read.
pub fn read_back_extra<R>(dir: &std::path::Path, file: &ResultFile, record: &R) -> ResultFile
where
    R: crate::store::extra::ExtraRecord + PartialEq + std::fmt::Debug,
{
    use crate::store::Record;
    let path = dir.join("r.jsonl");
    let mut text = serde_json::to_string(&Record::Run(file.header.clone())).unwrap() + "\n";
    for launch in &file.launches {
        text += &(serde_json::to_string(&Record::Launch(launch.clone())).unwrap() + "\n");
    }
    text += &(serde_json::to_string(&record.as_record()).unwrap() + "\n");
    std::fs::write(&path, text).unwrap();
    let mut results = crate::store::read_results(&[path]).unwrap();
    assert!(results.warnings.is_empty(), "{:?}", results.warnings);
    let read = crate::store::extra::read_records::<R>(&results.files);
    assert_eq!(read.len(), 1);
    assert_eq!(
        (read[0].label.as_str(), &read[0].record),
        (file.header.label.as_str(), record)
    );
    results.files.remove(0)
}

/// Writes at `path` a result file of `label` started at `started_at` that holds no
/// launch: its header, then its end record when `end` is set. A guest or a boot whose
/// run ended leaves such a file, and one that was stopped leaves it without its end.
pub fn write_empty_run(path: &std::path::Path, label: &str, started_at: &str, end: bool) {
    use crate::store::{Record, RunEnd};
    let fake = file(label, started_at, host("vm"), &[]);
    let mut text = serde_json::to_string(&Record::Run(fake.header)).unwrap() + "\n";
    if end {
        let end = RunEnd {
            finished_at: "t".into(),
            launches: 0,
            failed: 0,
            runner_max_rss: None,
            stops: vec![],
        };
        text += &(serde_json::to_string(&Record::End(end)).unwrap() + "\n");
    }
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}
