//! The NUMA instrument end to end with a real JVM on this machine: a matrix with
//! `numa: true` records, for each launch, the heap's pages per node at `main()`. On a
//! machine of one node every page is on node 0, a pretouched heap is there whole, and a
//! heap without pretouch has few pages. `report --details` shows the spread, and the
//! JSON report carries each launch's pages. Skipped when the kernel has no numa_maps.

mod common;

use common::*;

#[test]
fn each_launch_records_its_heap_per_node_and_the_report_shows_them() {
    let test = "each_launch_records_its_heap_per_node_and_the_report_shows_them";
    if !std::path::Path::new("/proc/self/numa_maps").exists() {
        return skipped(test, "a kernel built with NUMA", "no /proc/PID/numa_maps");
    }
    let nodes = std::fs::read_to_string("/sys/devices/system/node/online").unwrap_or_default();
    if nodes.trim() != "0" {
        return skipped(
            test,
            "a machine of one NUMA node",
            "the guest test checks several nodes",
        );
    }
    let _jvm = jvm_lock();
    let dir = tempfile::tempdir().unwrap();
    let heap: u64 = 128 << 20;
    let matrix = write_matrix(
        dir.path(),
        &format!(
            "name: n\njdks: [{}]\ngcs: [g1, parallel]\nheaps: [128m]\nrepetitions: 2\nnuma: true\n",
            yaml_list(&jdks()[..1])
        ),
    );
    let results = dir.path().join("results");
    let out = run_labelled("n", &results).arg(&matrix).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let records = records(&results);
    let launches: Vec<&serde_json::Value> = records
        .iter()
        .filter(|r| r["record"] == "launch" && r["warmup"] == false)
        .collect();
    assert_eq!(launches.len(), 8, "2 collectors x 2 rounds x with/without");
    for l in &launches {
        assert!(l["failure"].is_null(), "{l}");
        let numa = &l["numa"];
        let pages = numa["pages"].as_object().unwrap_or_else(|| panic!("{l}"));
        assert!(
            pages.keys().all(|node| node == "0"),
            "one node, so every page is on node 0: {numa}"
        );
        let page_size = numa["page_size"].as_u64().unwrap();
        let bytes = pages.values().map(|p| p.as_u64().unwrap()).sum::<u64>() * page_size;
        // The heap's memory read from smaps at the same moment counts the same pages.
        let resident = l["heap_memory"]["resident"].as_u64().unwrap();
        if l["pretouch"] == true {
            assert!(
                bytes >= heap * 95 / 100 && bytes <= heap + (4 << 20),
                "a pretouched heap is resident whole: {bytes} of {heap}, {numa}"
            );
        } else {
            assert!(
                bytes < heap / 4,
                "without pretouch few of the heap's pages are touched: {bytes}, {numa}"
            );
        }
        assert!(
            bytes.abs_diff(resident) <= heap / 50,
            "numa_maps and smaps count the same heap: {bytes} against {resident}"
        );
    }
    // The details show the spread; the short report does not.
    let details = pretouch()
        .args(["report", "--details"])
        .arg(&results)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&details.stdout);
    assert!(text.contains("Heap per NUMA node at main()"), "{text}");
    assert!(text.contains("node 0"), "{text}");
    let short = pretouch().arg("report").arg(&results).output().unwrap();
    assert!(
        !String::from_utf8_lossy(&short.stdout).contains("Heap per NUMA node"),
        "the spread is a detail"
    );
    let json = pretouch()
        .args(["report", "--format", "json"])
        .arg(&results)
        .output()
        .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let numa = &json["numa"];
    assert_eq!(numa["nodes"], serde_json::json!([0]), "{numa}");
    let cells = numa["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 4, "2 collectors x with/without: {numa}");
    for c in cells {
        assert_eq!(c["launches"].as_array().unwrap().len(), 2, "{c}");
        let mib = c["median_mib"]["0"].as_f64().unwrap();
        if c["pretouch"] == true {
            assert!(mib >= 120.0, "{c}");
        } else {
            assert!(mib < 32.0, "{c}");
        }
    }
}

#[test]
fn a_run_without_numa_records_nothing_of_it() {
    let _jvm = jvm_lock();
    let dir = tempfile::tempdir().unwrap();
    let matrix = first_jdk_matrix(dir.path(), "serial", "64m", 1);
    let results = dir.path().join("results");
    let out = run_labelled("plain", &results)
        .arg(&matrix)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let records = records(&results);
    let launches: Vec<_> = records.iter().filter(|r| r["record"] == "launch").collect();
    assert!(!launches.is_empty());
    for l in launches {
        assert!(l.get("numa").is_none(), "{l}");
        let command = l["command"].as_array().unwrap();
        assert!(
            !command
                .iter()
                .any(|w| w.as_str().unwrap().contains("copy=")),
            "the agent copies nothing more: {command:?}"
        );
    }
}
