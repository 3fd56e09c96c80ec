//! The probe section of the report on the kept probe inputs
//! (`tests/data/report-golden/inputs/probe/`, written by `tests/report_golden.rs`):
//! the SVG per cell, parsed, with one series per label in each panel; the text within
//! 80 columns; the files refused when there is no probe record.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use predicates::prelude::*;
use quick_xml::events::Event;

fn inputs() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/report-golden/inputs")
}

/// The SVG's polylines with more than two points (axis ticks and the mesh have two),
/// counted by stroke colour; and the text of every `<text>` element.
fn series_and_texts(svg: &Path) -> (BTreeMap<String, usize>, Vec<String>) {
    let text = std::fs::read_to_string(svg).unwrap();
    let mut reader = quick_xml::Reader::from_str(&text);
    let mut series = BTreeMap::new();
    let mut texts = Vec::new();
    let mut in_text = false;
    loop {
        match reader.read_event().unwrap() {
            Event::Eof => break,
            Event::Empty(e) | Event::Start(e) if e.name().as_ref() == b"polyline" => {
                let attr = |name: &[u8]| {
                    e.attributes()
                        .map(Result::unwrap)
                        .find(|a| a.key.as_ref() == name)
                        .map(|a| String::from_utf8(a.value.to_vec()).unwrap())
                        .unwrap_or_default()
                };
                if attr(b"points").split_whitespace().count() > 2 {
                    *series.entry(attr(b"stroke")).or_insert(0) += 1;
                }
            }
            Event::Start(e) if e.name().as_ref() == b"text" => in_text = true,
            Event::End(e) if e.name().as_ref() == b"text" => in_text = false,
            Event::Text(t) if in_text => texts.push(t.decode().unwrap().into_owned()),
            _ => {}
        }
    }
    (series, texts)
}

fn draw(set: &str) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("svg");
    common::pretouch()
        .current_dir(inputs())
        .args(["report", set, "--probe-svg"])
        .arg(&dir)
        .assert()
        .success()
        .stderr(predicate::str::contains("fault latency: 1 files in"));
    let files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(files.len(), 1, "one cell probed: one SVG, {files:?}");
    (tmp, files.into_iter().next().unwrap())
}

#[test]
fn the_svg_overlays_one_series_per_label_in_each_panel() {
    let (_tmp, svg) = draw("probe");
    let (series, texts) = series_and_texts(&svg);
    // Two labels, two panels (without and with pretouch): each label's colour twice.
    assert_eq!(series.len(), 2, "{series:?}");
    assert!(series.values().all(|n| *n == 2), "{series:?}");
    for label in ["6.18.0-base", "6.18.0-new"] {
        assert!(
            texts.iter().any(|t| t.contains(label)),
            "{label} in the legend: {texts:?}"
        );
    }
    assert!(texts.iter().any(|t| t.contains("with -XX:+AlwaysPreTouch")));
    let (_tmp, svg) = draw("probe/6.18.0-base");
    let (one, _) = series_and_texts(&svg);
    assert_eq!(one.len(), 1, "{one:?}");
    assert_eq!(one.values().sum::<usize>(), 2);
}

#[test]
fn the_probe_section_fits_80_columns_and_names_each_label() {
    for set in ["probe", "probe/6.18.0-base"] {
        let out = common::pretouch()
            .current_dir(inputs())
            .args(["report", set])
            .output()
            .unwrap();
        assert!(out.status.success());
        let text = String::from_utf8(out.stdout).unwrap();
        let section = text
            .split_once("fault latency and lock waits")
            .unwrap_or_else(|| panic!("no probe section: {text}"))
            .1;
        for line in section.lines() {
            assert!(line.chars().count() <= 80, "{} columns: {line}", line.len());
        }
        assert!(section.contains("6.18.0-base  on"));
        assert_eq!(
            set == "probe",
            section.contains("6.18.0-new against 6.18.0-base")
        );
    }
}

#[test]
fn probe_files_without_probe_records_are_refused_with_the_fix() {
    let dir = tempfile::tempdir().unwrap();
    for flag in ["--probe-csv", "--probe-svg"] {
        common::pretouch()
            .current_dir(inputs())
            .args(["report", "fixed", flag])
            .arg(dir.path().join("out"))
            .assert()
            .code(2)
            .stderr(
                predicate::str::contains(format!("{flag}: no probed launches"))
                    .and(predicate::str::contains("pretouch run --probe")),
            );
    }
    // A report without probe records has no probe section.
    common::pretouch()
        .current_dir(inputs())
        .args(["report", "fixed"])
        .assert()
        .success()
        .stdout(predicate::str::contains("fault latency").not());
}

#[test]
fn the_json_report_holds_the_probes_beside_the_cells() {
    let out = common::pretouch()
        .current_dir(inputs())
        .args(["report", "probe", "--format", "json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let probes = &v["probes"];
    let cells = probes["cells"].as_array().unwrap();
    // Two labels x without/with pretouch, the baseline first in each pair.
    assert_eq!(cells.len(), 4);
    assert_eq!(cells[0]["label"], "6.18.0-base");
    assert_eq!(cells[1]["label"], "6.18.0-new");
    for c in cells {
        assert!(c["locks"].is_array(), "measured here: {c}");
        let l = &c["latency"];
        assert!(l["p50"]["low"].as_u64() <= l["p99"]["low"].as_u64());
        let sum: u64 = l["histogram"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b["count"].as_u64().unwrap())
            .sum();
        assert_eq!(sum, l["count"].as_u64().unwrap());
    }
    assert_eq!(probes["shifts"].as_array().unwrap().len(), 2);
    assert_eq!(probes["disagreeing"], 1);
    assert_eq!(
        probes["labels"],
        serde_json::json!(["6.18.0-base", "6.18.0-new"])
    );
    // Without probe records, no key.
    let out = common::pretouch()
        .current_dir(inputs())
        .args(["report", "fixed", "--format", "json"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v.get("probes").is_none());
}

#[test]
fn a_label_split_by_machine_names_its_probes_as_its_launches() {
    use pretouch::features::probe::fixtures::{append_probes, probe_record};
    use pretouch::fixtures::{FakeCell, file, host, rounds};
    let dir = tempfile::tempdir().unwrap();
    let timed = rounds(50.0, 400.0, false);
    for machine in ["vm-a", "vm-b"] {
        let f = file(
            "k",
            "2026-12-01T08:00:00Z",
            host(machine),
            &[FakeCell {
                gc: pretouch::matrix::Gc::G1,
                heap: "1g",
                rounds: &timed[..3],
            }],
        );
        let sub = dir.path().join(machine);
        pretouch::fixtures::write_result_file(&sub, &f);
        let cell = f.launches[0].cell.clone();
        let values: Vec<u64> = (0..100).map(|j| 1_000 + j * 10).collect();
        let probes: Vec<_> = (0..2)
            .map(|seq| probe_record(&cell, seq, seq == 1, 60.0, &values, 103, Vec::new()))
            .collect();
        append_probes(&sub, "k", &probes);
    }
    let out = common::pretouch()
        .current_dir(dir.path())
        .args(["report", "vm-a", "vm-b"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let section = text.split_once("fault latency and lock waits").unwrap().1;
    for label in ["k@vm-a", "k@vm-b"] {
        assert!(section.contains(&format!("{label}  on")), "{section}");
    }
    assert!(section.contains("k@vm-b against k@vm-a"), "{section}");
}
