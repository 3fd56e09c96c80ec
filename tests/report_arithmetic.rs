//! The report's arithmetic on small hand-made record sets, each expected figure worked
//! out by hand in the comments: medians, min-max, the per-round costs and their
//! quartiles (R's type 8), outliers (modified z-score), failed launches and warm-ups,
//! pooling of files and the order of labels, and the figures that explain a cost
//! (phases, extra faults, fault rate, % of the calibrated ceiling, the JVM's own
//! pretouch time, the touched check). The inline snapshots in `src/render/` pin how
//! these numbers are printed; this file pins the numbers themselves, without a JVM.

use std::path::PathBuf;

use pretouch::analyze::report::{CellReport, Report};
use pretouch::analyze::{Options, build, build_with};
use pretouch::features::calibrate::machine::{Calibration, ConfigResult, Layout};
use pretouch::launch::Measurement;
use pretouch::launch::agent::{Stamp, Stamps};
use pretouch::launch::jvmlog::{JvmLog, PretouchLine};
use pretouch::launch::rusage::LaunchUsage;
use pretouch::matrix::Gc;
use pretouch::store::{CellKey, LaunchRecord, ResultFile, Results, RunHeader};
use pretouch::units::{Bytes, Nanos};

const MS: u64 = 1_000_000;
const MIB: u64 = 1 << 20;

fn cell(gc: Gc) -> CellKey {
    CellKey {
        jdk: "17.0.15+6".into(),
        gc,
        heap: "256m".into(),
        variant: "default".into(),
        gc_threads: "auto".into(),
        cpus: "all".into(),
        app: None,
        features: Default::default(),
    }
}

/// A launch whose time to main is `ms` (NaN: it failed before main), without stamps.
fn timed(seq: u64, round: u32, warmup: bool, pretouch: bool, ms: f64) -> LaunchRecord {
    let mut launch = pretouch::fixtures::launch(round, pretouch, ms);
    launch.seq = seq;
    launch.warmup = warmup;
    launch.cell = cell(Gc::G1);
    launch.jdk_home = PathBuf::from("/jdk");
    launch.heap_bytes = Bytes(256 * MIB);
    launch.measured.started_at = "2026-01-01T00:00:00.000Z".into();
    if ms.is_nan() {
        launch.measured.failure = Some(format!("launch {seq} exited with code 1 before main()"));
    }
    launch
}

/// Counted rounds `(without, with)` in ms, launches numbered in file order.
fn rounds(pairs: &[(f64, f64)]) -> Vec<LaunchRecord> {
    let mut out = Vec::new();
    for (round, (off, on)) in pairs.iter().enumerate() {
        for (pretouch, ms) in [(false, *off), (true, *on)] {
            out.push(timed(out.len() as u64, round as u32, false, pretouch, ms));
        }
    }
    out
}

fn file(label: &str, name: &str, started_at: &str, launches: Vec<LaunchRecord>) -> ResultFile {
    ResultFile {
        path: PathBuf::from(format!("results/{label}/{name}.jsonl")),
        header: RunHeader {
            format: 1,
            tool_version: "0.1.0".into(),
            name: name.into(),
            label: label.into(),
            matrix_origin: "m.yaml".into(),
            matrix: "name: m\ngcs: [g1]\nheaps: [256m]\nrepetitions: 4\n".into(),
            matrix_sha256: None,
            host: pretouch::fixtures::host("h"),
            started_at: started_at.into(),
            jdks: Vec::new(),
            agent: PathBuf::from("/a.so"),
            agent_sha256: None,
            planned_launches: launches.len() as u64,
            env: None,
            features: Default::default(),
            cpu_placements: Vec::new(),
            comparable_memory: None,
            extra_rounds: Default::default(),
        },
        launches,
        end: None,
    }
}

fn results(files: Vec<ResultFile>) -> Results {
    Results {
        files,
        ..Results::default()
    }
}

fn close(a: Option<f64>, b: f64) -> bool {
    a.is_some_and(|a| (a - b).abs() < 1e-9)
}

#[track_caller]
fn assert_close(what: &str, got: Option<f64>, want: f64) {
    assert!(close(got, want), "{what}: got {got:?}, want {want}");
}

/// One cell: four full rounds, a fifth whose launch with pretouch failed, warm-ups.
///
/// | round | without | with   | cost (with - without) |
/// |-------|---------|--------|-----------------------|
/// | 0     | 40      | 400    | 360                   |
/// | 1     | 50      | 420    | 370                   |
/// | 2     | 45      | 390    | 345                   |
/// | 3     | 60      | 2000   | 1940                  |
/// | 4     | 55      | failed | (no pair)             |
fn one_cell() -> Results {
    let mut launches = vec![
        timed(0, 0, true, false, 9999.0),
        timed(1, 0, true, true, 9999.0),
    ];
    for mut l in rounds(&[
        (40.0, 400.0),
        (50.0, 420.0),
        (45.0, 390.0),
        (60.0, 2000.0),
        (55.0, f64::NAN),
    ]) {
        l.seq += 2;
        l.round += 1;
        if l.measured.failure.is_some() {
            l.measured.failure = Some(format!("launch {} exited with code 1 before main()", l.seq));
        }
        launches.push(l);
    }
    results(vec![file("k", "one", "2026-01-01T00:00:00Z", launches)])
}

#[test]
fn medians_spreads_and_costs_of_one_cell() {
    let report = build(&one_cell());
    assert_eq!(report.cells.len(), 1, "{:?}", report.cells);
    let c = &report.cells[0];
    // Warm-ups (9999 ms) enter nothing; the failed launch is counted apart.
    assert_eq!(
        (
            c.times.runs,
            c.times.runs_on,
            c.times.runs_off,
            c.times.failed
        ),
        (9, 4, 5, 1)
    );
    assert_eq!(
        c.times.first_failure.as_deref(),
        Some("launch 11 exited with code 1 before main()")
    );
    // With: 390 400 420 2000 -> median (400 + 420) / 2 = 410.
    assert_close("median on", c.times.median_on_ms, 410.0);
    assert_close("min on", c.times.min_on_ms, 390.0);
    assert_close("max on", c.times.max_on_ms, 2000.0);
    // Without: 40 45 50 55 60 -> 50 (the failed round's launch without pretouch counts).
    assert_close("median off", c.times.median_off_ms, 50.0);
    assert_close("min off", c.times.min_off_ms, 40.0);
    assert_close("max off", c.times.max_off_ms, 60.0);
    assert_close("pretouch", c.times.pretouch_ms, 360.0);
    // Per-round costs 360 370 345 1940, in round order; round 4 has no pair.
    let costs: Vec<f64> = c.costs.iter().map(|r| r.ms).collect();
    assert_eq!(costs, [360.0, 370.0, 345.0, 1940.0]);
    assert_eq!(c.cost.rounds, 4);
    assert_close("cost min", c.cost.cost_min_ms, 345.0);
    assert_close("cost max", c.cost.cost_max_ms, 1940.0);
    // Type 8 on 345 360 370 1940 (n = 4): h = (n + 1/3) p + 1/3.
    // p = .25: h = 1.41667 -> 345 + 0.41667 * (360 - 345) = 351.25
    // p = .75: h = 3.58333 -> 370 + 0.58333 * (1940 - 370) = 1285.8333...
    assert_close("q1", c.cost.cost_q1_ms, 351.25);
    assert_close("q3", c.cost.cost_q3_ms, 370.0 + 7.0 / 12.0 * 1570.0);
    // 20% trimmed mean of 4 costs: floor(0.8) = 0 cut, the plain mean 753.75; 4 rounds
    // are too few for an interval (10 at least).
    assert_close("trimmed mean", c.cost.cost_tmean_ms, 3015.0 / 4.0);
    assert_eq!(c.cost_interval(), None);
    // Outliers, within each setting. With: median 410, |x - 410| = 20 10 10 1590, MAD
    // 15; 2000 scores 0.6745 * 1590 / 15 = 71.5 > 3.5; 390 scores 0.9. Without: median
    // 50, MAD 5; 60 scores 0.6745 * 10 / 5 = 1.35. One outlier: round 3 with pretouch.
    assert_eq!(c.outliers, 1);
    let flagged: Vec<bool> = c.costs.iter().map(|r| r.outlier).collect();
    assert_eq!(flagged, [false, false, false, true]);
}

#[test]
fn leaving_outliers_out_recomputes_every_figure() {
    let report = build_with(
        &one_cell(),
        &Options {
            exclude_outliers: true,
            ..Options::default()
        },
    );
    assert!(report.outliers_excluded);
    let c = &report.cells[0];
    // The 2000 ms launch goes; its round loses its pair.
    assert_eq!(
        (
            c.times.runs,
            c.times.runs_on,
            c.times.runs_off,
            c.times.failed
        ),
        (8, 3, 5, 1)
    );
    assert_eq!(c.outliers, 1, "still counted");
    // With: 390 400 420 -> 400; cost 400 - 50 = 350.
    assert_close("median on", c.times.median_on_ms, 400.0);
    assert_close("max on", c.times.max_on_ms, 420.0);
    assert_close("pretouch", c.times.pretouch_ms, 350.0);
    // Costs 360 370 345; type 8 (n = 3): p = .25: h = 1.16667 -> 345 + 15 / 6 = 347.5;
    // p = .75: h = 2.83333 -> 360 + 10 * 5 / 6 = 368.333...
    assert_eq!(c.cost.rounds, 3);
    assert_close("cost max", c.cost.cost_max_ms, 370.0);
    assert_close("q1", c.cost.cost_q1_ms, 347.5);
    assert_close("q3", c.cost.cost_q3_ms, 360.0 + 50.0 / 6.0);
    assert_close("trimmed mean", c.cost.cost_tmean_ms, 1075.0 / 3.0);
}

#[test]
fn a_cell_whose_launches_all_failed_on_one_side_has_no_cost() {
    let r = results(vec![file(
        "k",
        "f",
        "2026-01-01T00:00:00Z",
        rounds(&[(40.0, f64::NAN), (44.0, f64::NAN)]),
    )]);
    let c = &build(&r).cells[0];
    assert_eq!(
        (
            c.times.runs,
            c.times.runs_on,
            c.times.runs_off,
            c.times.failed
        ),
        (2, 0, 2, 2)
    );
    assert_close("median off", c.times.median_off_ms, 42.0);
    assert_eq!((c.times.median_on_ms, c.times.pretouch_ms), (None, None));
    assert_eq!(
        (c.cost.rounds, c.cost.cost_q1_ms, c.cost.cost_min_ms),
        (0, None, None)
    );
}

/// Two files of label `base` (rounds numbered from 0 in each) and an older label.
fn two_labels() -> Results {
    let mut parallel = rounds(&[(100.0, 300.0)]);
    for l in &mut parallel {
        l.cell = cell(Gc::Parallel);
    }
    let mut first = rounds(&[(10.0, 110.0), (20.0, 130.0)]);
    first.extend(parallel);
    results(vec![
        file("base", "b1", "2026-01-02T00:00:00Z", first),
        file(
            "base",
            "b2",
            "2026-01-03T00:00:00Z",
            rounds(&[(30.0, 125.0)]),
        ),
        file(
            "patched",
            "p1",
            "2026-01-01T00:00:00Z",
            rounds(&[(12.0, 100.0)]),
        ),
    ])
}

fn find<'a>(report: &'a Report, label: &str, gc: &str) -> &'a CellReport {
    report
        .cells
        .iter()
        .find(|c| c.id.label == label && c.id.gc == gc)
        .unwrap_or_else(|| panic!("no {label} {gc} in {:?}", report.cells))
}

#[test]
fn files_of_one_label_pool_and_labels_come_oldest_first() {
    let report = build(&two_labels());
    // `patched` ran first (2026-01-01): it leads, and its cell comes first.
    assert_eq!(report.labels, ["patched", "base"]);
    let order: Vec<(&str, &str)> = report
        .cells
        .iter()
        .map(|c| (c.id.label.as_str(), c.id.gc.as_str()))
        .collect();
    assert_eq!(
        order,
        [("patched", "g1"), ("base", "g1"), ("base", "parallel")]
    );
    assert_eq!(report.label_info[1].files, 2);
    assert_eq!(report.label_info[1].oldest_run, "2026-01-02T00:00:00Z");
    // base g1 pools both files. With: 110 130 125 -> 125; without: 10 20 30 -> 20.
    let c = find(&report, "base", "g1");
    assert_eq!((c.times.runs_on, c.times.runs_off), (3, 3));
    assert_close("median on", c.times.median_on_ms, 125.0);
    assert_close("median off", c.times.median_off_ms, 20.0);
    assert_close("pretouch", c.times.pretouch_ms, 105.0);
    // Round 0 of each file is its own pair: costs 100, 110 (b1) and 95 (b2). Pairing by
    // round number alone would make two rounds of four launches.
    let costs: Vec<f64> = c.costs.iter().map(|r| r.ms).collect();
    assert_eq!(costs, [100.0, 110.0, 95.0]);
    assert_close("cost min", c.cost.cost_min_ms, 95.0);
    // The Parallel cell is kept apart: 300 - 100.
    assert_close(
        "parallel",
        find(&report, "base", "parallel").times.pretouch_ms,
        200.0,
    );
    assert_close(
        "patched",
        find(&report, "patched", "g1").times.pretouch_ms,
        88.0,
    );
    // The run-to-run check compares base's two runs on the one cell they share.
    assert_eq!(report.run_to_run.len(), 1, "{:?}", report.run_to_run);
    assert_eq!(
        (
            report.run_to_run[0].label.as_str(),
            report.run_to_run[0].runs
        ),
        ("base", 2)
    );
    assert_eq!(report.run_to_run[0].cells, 1);
}

fn stamp(ms: u64, minflt: u64, rss_mib: u64) -> Option<Stamp> {
    Some(Stamp {
        ns: Nanos(ms * MS),
        minflt,
        majflt: 0,
        rss: Bytes(rss_mib * MIB),
    })
}

/// A launch with stamps at `phases` ms (exec->agent, agent->init, init->main), `faults`
/// in the whole process, the RSS growing `rss_growth_mib` during VM creation, and the
/// JVM's log saying pretouch took `took_ms` and Genesis `genesis_ms`.
fn explained(
    seq: u64,
    pretouch: bool,
    phases: [u64; 3],
    faults: u64,
    rss_growth_mib: u64,
    took_ms: Option<u64>,
    genesis_ms: u64,
) -> LaunchRecord {
    let spawn = 1000;
    let (load, init) = (spawn + phases[0], spawn + phases[0] + phases[1]);
    let main = init + phases[2];
    let mut launch = timed(seq, (seq / 2) as u32, false, pretouch, 0.0);
    launch.time_to_main_ns = Some(Nanos((main - spawn) * MS));
    launch.measured = Measurement {
        spawn_ns: Nanos(spawn * MS),
        reaped_ns: Nanos((main + 5) * MS),
        stamps: Stamps {
            mechanism: Some("jni".into()),
            agent_load: stamp(load, 1000, 20),
            vm_init: stamp(init, 1000 + faults / 2, 20 + rss_growth_mib),
            main: stamp(main, faults, 30 + rss_growth_mib),
        },
        rusage: Some(LaunchUsage {
            minflt: faults,
            majflt: 0,
            utime_ns: Nanos(0),
            stime_ns: Nanos(0),
            maxrss: None,
            peak_rss: None,
        }),
        jvm_log: Some(JvmLog {
            pretouches: took_ms
                .map(|t| PretouchLine {
                    at_ns: Nanos((load + 1) * MS),
                    what: "G1 PreTouch".into(),
                    workers: 2,
                    work_units: 64,
                    bytes: Bytes(256 * MIB),
                    took_ns: Some(Nanos(t * MS)),
                })
                .into_iter()
                .collect(),
            genesis_ns: Some(Nanos(genesis_ms * MS)),
            create_vm_ns: Some(Nanos(genesis_ms * MS + 5 * MS)),
            warnings: Vec::new(),
        }),
        ..launch.measured
    };
    launch
}

fn calibration(label: &str, shared_1: Vec<f64>) -> Calibration {
    let result = |layout, workers, faults_per_s| ConfigResult {
        layout,
        workers,
        faults_per_s,
        pages: 16384,
        faults_per_pass: 16384,
        variant: Default::default(),
        placement: None,
        cpu_share: None,
    };
    Calibration {
        record: "calibrate".into(),
        label: label.into(),
        started_at: "2026-01-01T00:00:00Z".into(),
        env: Default::default(),
        size: Bytes(64 * MIB),
        page_size: Bytes(4096),
        passes: 3,
        rounds: 1,
        memory: None,
        topology: None,
        results: vec![
            result(Layout::Shared, 1, shared_1),
            result(Layout::Shared, 2, vec![300_000.0]),
            // Not the JVM's shape: never the ceiling, however fast.
            result(Layout::PerThread, 2, vec![900_000.0]),
        ],
    }
}

#[test]
fn the_explanation_of_a_cost_from_stamps_counters_and_the_jvm_log() {
    let launches = vec![
        // without: phases 18/20/30 and 20/28/30, 4482 faults, RSS +2 MiB and +4 MiB
        explained(0, false, [18, 20, 30], 4482, 2, None, 10),
        explained(1, true, [20, 270, 30], 70000, 260, Some(240), 260),
        explained(2, true, [22, 290, 34], 70036, 10, Some(250), 270),
        explained(3, false, [20, 28, 30], 4482, 4, None, 12),
    ];
    let mut r = results(vec![file("k", "x", "2026-01-01T00:00:00Z", launches)]);
    let calibrations = r
        .features
        .get_or_insert_with(pretouch::features::calibrate::record::FILES, Vec::new);
    calibrations.push(calibration("k", vec![400_000.0, 600_000.0, 512_000.0]));
    calibrations.push(calibration("other", vec![1e9]));
    let c = &build(&r).cells[0];
    // Phase medians: exec->agent off (18 + 20) / 2 = 19, on 21; agent->init off 24,
    // on 280; init->main off 30, on 32.
    assert_close("exec->agent off", c.phases.exec_to_agent_off_ms, 19.0);
    assert_close("exec->agent on", c.phases.exec_to_agent_on_ms, 21.0);
    assert_close("agent->init off", c.phases.agent_to_init_off_ms, 24.0);
    assert_close("agent->init on", c.phases.agent_to_init_on_ms, 280.0);
    assert_close("init->main off", c.phases.init_to_main_off_ms, 30.0);
    assert_close("init->main on", c.phases.init_to_main_on_ms, 32.0);
    assert_eq!(c.explain.grew_most(), Some("agent->init"));
    // Faults: median with (70000 + 70036) / 2 = 70018, without 4482: 65536 extra, the
    // 256 MiB heap in 4 KiB pages. Over the agent->init growth, 280 - 24 = 256 ms:
    // 65536 / 0.256 s = 256000 faults/s.
    assert_close("faults", c.faults.pretouch_faults, 65536.0);
    assert_eq!(c.faults.expected_faults, 65536);
    assert_close("rate", c.rate.fault_rate_per_s, 256_000.0);
    // The ceiling: the best median over shared mappings (512000, not the per-thread 900000,
    // not the other label's): 256000 is 50% of it.
    assert_close("ceiling", c.rate.ceiling_per_s, 512_000.0);
    assert_close("ceiling %", c.rate.ceiling_pct, 50.0);
    // The JVM's log: pretouch 240 and 250 -> 245; Genesis (260 + 270) / 2 - 11 = 254.
    assert_close("jvm pretouch", c.jvm_log.jvm_pretouch_ms, 245.0);
    assert_close("genesis growth", c.jvm_log.jvm_genesis_growth_ms, 254.0);
    // Touched: RSS growth beyond the median without (3 MiB) must reach 80% of 256 MiB
    // (204.8 MiB). Launch 1 grew 257 MiB beyond it; launch 2 grew 7 MiB: not touched.
    assert_eq!(c.touched.untouched, 1);
    assert_eq!(c.touched.untouched_launches, "x.jsonl#2");
    let why = c.touched.untouched_reason.as_deref().unwrap();
    assert!(
        why.contains("RSS grew 10 MiB during VM creation (7 MiB beyond"),
        "{why}"
    );
    assert!(why.contains("expected about the heap, 256 MiB"), "{why}");
}
