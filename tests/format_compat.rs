//! Result files users keep must read for years. `tests/data/format-1-before-restructure.jsonl`
//! was written by `pretouch run` before the source moved into stage folders (commit
//! 36287a0, JDK 17, G1/Parallel 64m, a THP variant, 2 rounds); the figures below are what
//! `pretouch report --format json` of that same binary printed for it.

use std::path::PathBuf;

use assert_cmd::Command;
use pretouch::store::extra::ExtraRecord;
use pretouch::store::read_results;

fn old_file() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/format-1-before-restructure.jsonl")
}

/// (gc, variant, median on ms, median off ms, cost ms, extra faults), as the binary
/// before the move reported them. The extra faults are counted up to main() (the
/// agent's stamp) since the report stopped counting a server's faults after main();
/// for these launches, which end at main(), that moved two cells by a few faults
/// (parallel default 18062 -> 18074, parallel thp 95 -> 95.5).
const BEFORE: [(&str, &str, f64, f64, f64, f64); 4] = [
    (
        "g1",
        "default",
        145.9600615,
        104.302009,
        41.6580525,
        18719.5,
    ),
    ("g1", "thp", 198.509469, 126.889492, 71.619977, 638.5),
    (
        "parallel",
        "default",
        143.3501515,
        103.4092405,
        39.940911,
        18074.0,
    ),
    ("parallel", "thp", 300.46354, 98.0818325, 202.3817075, 95.5),
];

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-6
}

#[test]
fn a_file_written_before_the_move_reads_and_reports_the_same_figures() {
    let results = read_results(&[old_file()]).unwrap();
    assert!(results.warnings.is_empty(), "{:?}", results.warnings);
    assert_eq!(results.files.len(), 1);
    assert_eq!(results.files[0].launches.len(), 16);
    let report = pretouch::analyze::build(&results);
    assert_eq!(report.cells.len(), BEFORE.len());
    for (gc, variant, on, off, cost, faults) in BEFORE {
        let cell = report
            .cells
            .iter()
            .find(|c| c.id.gc == gc && c.id.variant == variant)
            .unwrap_or_else(|| panic!("no cell {gc} {variant}"));
        let got = (
            cell.times.median_on_ms.unwrap(),
            cell.times.median_off_ms.unwrap(),
            cell.times.pretouch_ms.unwrap(),
            cell.faults.pretouch_faults.unwrap(),
        );
        assert!(
            close(got.0, on) && close(got.1, off) && close(got.2, cost) && close(got.3, faults),
            "{gc} {variant}: {got:?}, before the move: {:?}",
            (on, off, cost, faults)
        );
    }
}

/// The same medians from the raw lines, read as plain JSON, not through the store's
/// types: the file holds what the figures say.
#[test]
fn the_raw_lines_hold_those_medians() {
    let text = std::fs::read_to_string(old_file()).unwrap();
    for (gc, variant, on, off, _, _) in BEFORE {
        let median = |pretouch: bool| {
            let mut ms: Vec<f64> = text
                .lines()
                .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
                .filter(|v| {
                    v["record"] == "launch"
                        && v["gc"] == gc
                        && v["variant"] == variant
                        && v["pretouch"] == pretouch
                        && v["warmup"] == false
                })
                .map(|v| v["time_to_main_ns"].as_f64().unwrap() / 1e6)
                .collect();
            ms.sort_by(f64::total_cmp);
            assert_eq!(ms.len(), 2, "{gc} {variant}");
            (ms[0] + ms[1]) / 2.0
        };
        assert!(close(median(true), on), "{gc} {variant} on");
        assert!(close(median(false), off), "{gc} {variant} off");
    }
}

#[test]
fn report_reads_it_in_every_format() {
    for format in ["text", "markdown", "csv", "json"] {
        Command::cargo_bin("pretouch")
            .unwrap()
            .args(["report", "--format", format])
            .arg(old_file())
            .assert()
            .success();
    }
}

#[test]
fn a_file_without_heap_memory_reads_and_one_with_it_round_trips() {
    let results = read_results(&[old_file()]).unwrap();
    let launches = &results.files[0].launches;
    assert!(!launches.is_empty());
    assert!(launches.iter().all(|l| l.measured.heap_memory.is_none()));
    // Written by this binary: the field as `pretouch run` writes it for JDK 17 ZGC.
    let mut line: serde_json::Value = serde_json::to_value(&launches[0]).unwrap();
    assert!(
        line.get("heap_memory").is_none(),
        "absent, not null: {line}"
    );
    line["heap_memory"] = serde_json::json!({"kind": "shared-memfd", "page_size": 4096,
        "huge": 0, "mapped": 402653184, "resident": 134215680,
        "resident_mapped": 402653184, "mappings": 3, "views": 3});
    let back: pretouch::store::LaunchRecord = serde_json::from_value(line.clone()).unwrap();
    let memory = back.measured.heap_memory.unwrap();
    assert_eq!((memory.views, memory.kind.name()), (3, "shared-memfd"));
    assert_eq!(
        serde_json::to_value(&back).unwrap()["heap_memory"],
        line["heap_memory"]
    );
}

#[test]
fn a_file_without_cds_reads_and_one_with_it_round_trips() {
    let results = read_results(&[old_file()]).unwrap();
    let launches = &results.files[0].launches;
    assert!(launches.iter().all(|l| l.measured.features.cds.is_none()));
    let mut line: serde_json::Value = serde_json::to_value(&launches[0]).unwrap();
    assert!(line.get("cds").is_none(), "absent, not null: {line}");
    for state in ["off", "default-archive", "no-archive", "custom-archive"] {
        line["cds"] = serde_json::json!(state);
        let back: pretouch::store::LaunchRecord = serde_json::from_value(line.clone()).unwrap();
        assert!(back.measured.features.cds.is_some());
        assert_eq!(serde_json::to_value(&back).unwrap()["cds"], state);
    }
}

/// Every profile and probe line of the kept report inputs, parsed and written again, is
/// the same bytes: the core those records share ([`PlannedAs`] and [`Launched`], read
/// flattened, written by each record among its own fields) keeps every field where the
/// file has it. (Their launch lines are of older versions: they read, but a record
/// writes the fields added since.)
///
/// [`PlannedAs`]: pretouch::store::PlannedAs
/// [`Launched`]: pretouch::store::Launched
#[test]
fn profile_and_probe_records_write_back_byte_for_byte() {
    use pretouch::features::probe::record::ProbeRecord;
    use pretouch::features::profile::record::ProfileRecord;
    let inputs = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/report-golden/inputs");
    let files = [
        inputs.join("probe/6.18.0-base/fixed.jsonl"),
        inputs.join("probe/6.18.0-new/fixed.jsonl"),
        inputs.join("real/results/k1/golden-20261201T082402Z.jsonl"),
    ];
    let mut kinds = std::collections::BTreeMap::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        for (i, line) in text.lines().enumerate() {
            let kind: serde_json::Value = serde_json::from_str(line).unwrap();
            let kind = kind["record"].as_str().unwrap().to_owned();
            if kind != "profile" && kind != "probe" {
                continue;
            }
            // Read as its feature's type and written back as the writer writes it.
            let at = || format!("{}:{}", file.display(), i + 1);
            let record = if kind == "profile" {
                serde_json::from_str::<ProfileRecord>(line).map(|r| r.as_record())
            } else {
                serde_json::from_str::<ProbeRecord>(line).map(|r| r.as_record())
            }
            .unwrap_or_else(|e| panic!("{}: {e}", at()));
            assert_eq!(
                serde_json::to_string(&record).unwrap(),
                line,
                "{}:{}",
                file.display(),
                i + 1
            );
            // The store, which knows no feature's type, keeps the line as it read it.
            let kept: pretouch::store::Record = serde_json::from_str(line).unwrap();
            assert_eq!(serde_json::to_string(&kept).unwrap(), line, "{}", at());
            *kinds.entry(kind).or_insert(0) += 1;
        }
    }
    assert!(
        kinds.contains_key("profile") && kinds.contains_key("probe"),
        "{kinds:?}"
    );
}
