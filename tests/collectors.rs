//! Every collector on every installed JDK (11, 17, 21, 25 where present): `gcs:` values
//! the JDK has run and record what the heap's memory is; a value it lacks is refused
//! before any launch, naming the JDK and what it has. Real JVMs, 64m heaps.

mod common;

use common::*;
use serde_json::Value;

#[test]
fn every_collector_runs_and_its_heap_memory_is_recorded_on_every_jdk() {
    let _jvms = jvm_lock();
    let dir = tempfile::tempdir().unwrap();
    let jdks = jdks();
    let matrix = write_matrix(
        dir.path(),
        &format!(
            "name: gcs\njdks: [{}]\ngcs: [zgc, shenandoah, epsilon]\nheaps: [64m]\nrepetitions: 1\n",
            yaml_list(&jdks)
        ),
    );
    let results = dir.path().join("results");
    run_labelled("k", &results).arg(&matrix).assert().success();
    assert_no_java_left();
    let launches: Vec<Value> = records(&results)
        .into_iter()
        .filter(|r| r["record"] == "launch")
        .collect();
    assert_eq!(launches.len(), jdks.len() * 3 * 2);
    for l in &launches {
        assert_eq!(l["failure"], Value::Null, "{l}");
        let memory = &l["heap_memory"];
        let views = memory["views"].as_u64().unwrap();
        let resident = memory["resident"].as_u64().unwrap();
        let kind = memory["kind"].as_str().unwrap();
        let jdk = l["jdk"].as_str().unwrap();
        let feature: u32 = jdk.split('.').next().unwrap().parse().unwrap();
        if l["gc"] == "zgc" {
            assert_eq!(kind, "shared-memfd", "{l}");
            // Multi-mapped before generational ZGC (the default from JDK 23 on).
            assert_eq!(views, if feature < 23 { 3 } else { 1 }, "{l}");
        } else {
            assert_eq!((kind, views), ("anonymous", 1), "{l}");
        }
        // JDK 11's ZGC maps only what it has committed, less than -Xms at main() (28 MiB
        // of a 64m heap, 220 MiB of 256m, here); every other heap is mapped whole.
        let heap = memory["mapped"].as_u64().unwrap() / views;
        if feature == 11 && l["gc"] == "zgc" {
            assert!((16 << 20..=64 << 20).contains(&heap), "{l}");
        } else {
            assert!(heap >= 64 << 20, "{l}");
        }
        if l["pretouch"] == true {
            // Touched once, whatever the views: resident counts each page once.
            assert!(resident * 10 >= heap.min(64 << 20) * 9, "{l}");
            assert!(resident <= 66 << 20, "{l}");
            // Pss rounds to the kB per mapping, so the ratio is views within that.
            let ratio = memory["resident_mapped"].as_u64().unwrap() as f64 / resident as f64;
            assert_eq!(ratio.round() as u64, views, "{l}");
        } else {
            assert!(
                resident < 32 << 20,
                "without pretouch the heap is mostly untouched: {l}"
            );
        }
        // Epsilon is experimental everywhere: the runner unlocks it.
        if l["gc"] == "epsilon" {
            let command: Vec<&str> = l["command"]
                .as_array()
                .unwrap()
                .iter()
                .map(|a| a.as_str().unwrap())
                .collect();
            let unlock = command
                .iter()
                .position(|a| *a == "-XX:+UnlockExperimentalVMOptions");
            let select = command.iter().position(|a| *a == "-XX:+UseEpsilonGC");
            assert!(unlock.is_some() && unlock < select, "{command:?}");
        }
    }
}

#[test]
fn a_collector_a_jdk_lacks_is_refused_before_any_launch() {
    let Some(jdk) = jdks().into_iter().find(|j| jdk_feature(j) == Some(17)) else {
        skipped(
            "a_collector_a_jdk_lacks_is_refused_before_any_launch",
            "jdk 17",
            "refusal of zgc-generational on a JDK with one ZGC mode",
        );
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let matrix = write_matrix(
        dir.path(),
        &format!(
            "name: x\njdks: [{:?}]\ngcs: [g1, zgc-generational]\nheaps: [64m]\nrepetitions: 1\n",
            jdk.display().to_string()
        ),
    );
    let results = dir.path().join("results");
    let out = run_labelled("k", &results).arg(&matrix).assert().code(2);
    let stderr = unwrapped(&out.get_output().stderr);
    assert!(
        stderr.contains("line 3")
            && stderr.contains("has no `zgc-generational`")
            && stderr.contains("it has: g1, parallel, serial, zgc")
            && stderr.contains(&jdk.display().to_string())
            && stderr.contains("fix:"),
        "{stderr}"
    );
    assert!(
        jsonl_files(&results).is_empty(),
        "nothing launched, nothing stored"
    );
}
