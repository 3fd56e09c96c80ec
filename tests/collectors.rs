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
            && stderr.contains("It has g1, parallel, serial, zgc")
            && stderr.contains(&jdk.display().to_string())
            && stderr.contains("fix:"),
        "{stderr}"
    );
    assert!(
        jsonl_files(&results).is_empty(),
        "nothing launched, nothing stored"
    );
}

/// One real run, ZGC and G1 at 64m on one JDK, read back end to end: the report names
/// each cell's heap memory and pretouch method in every format, and each launch
/// records its CDS state.
#[test]
fn a_real_run_reports_each_cells_heap_memory_and_method() {
    let _jvms = jvm_lock();
    let jdk = jdks().into_iter().next().unwrap();
    let feature = jdk_feature(&jdk).expect("the JDK's feature version");
    let dir = tempfile::tempdir().unwrap();
    let matrix = write_matrix(
        dir.path(),
        &format!(
            "name: heap\njdks: [{}]\ngcs: [zgc, g1]\nheaps: [64m]\nrepetitions: 2\n",
            yaml_list(std::slice::from_ref(&jdk))
        ),
    );
    let results = dir.path().join("results");
    run_labelled("k", &results).arg(&matrix).assert().success();
    assert_no_java_left();
    // Each launch says whether it had CDS, as the JDK home has its default archive.
    let archive = jdk.join("lib/server/classes.jsa").is_file();
    for l in records(&results)
        .into_iter()
        .filter(|r| r["record"] == "launch")
    {
        let want = if archive {
            "default-archive"
        } else {
            "no-archive"
        };
        assert_eq!(l["cds"], want, "{l}");
    }
    let report = |format: &str| {
        let out = pretouch()
            // The heap and method tables are details of the text and Markdown.
            .args(["report", "--details", "--format", format])
            .arg(&results)
            .assert()
            .success();
        String::from_utf8(out.get_output().stdout.clone()).unwrap()
    };
    let zgc_views = if feature < 23 { 3 } else { 1 };
    let method = if feature < 18 { "store" } else { "atomic add" };
    let json: Value = serde_json::from_str(&report("json")).unwrap();
    let cells = json["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 2, "{json}");
    for c in cells {
        let h = &c["heap_and_method"];
        let m = &h["memory"];
        let (kind, views) = if c["gc"] == "zgc" {
            ("shared-memfd", zgc_views)
        } else {
            ("anonymous", 1)
        };
        assert_eq!(
            (m["kind"].as_str(), m["views"].as_u64()),
            (Some(kind), Some(views)),
            "{c}"
        );
        assert_eq!(m["page_size"], 4096, "{c}");
        assert_eq!(m["launches"], 2, "{c}");
        assert_eq!(m["heap"], 64 << 20, "{c}");
        // Touched once, whatever the views; JDK 11's ZGC has committed less than -Xms.
        let resident = m["resident"].as_u64().unwrap();
        assert!(resident <= 66 << 20, "{c}");
        if !(feature == 11 && c["gc"] == "zgc") {
            assert!(resident * 10 >= (64 << 20) * 9, "{c}");
        }
        assert_eq!(h["method"]["method"], method.replace(' ', "-"), "{c}");
        assert!(
            h["method"]["bugs"]
                .as_array()
                .unwrap()
                .contains(&Value::from("JDK-8272807")),
            "{c}"
        );
        // No profile was taken, so there is no check.
        assert_eq!(h["check"], Value::Null, "{c}");
        let logging = if c["gc"] == "zgc" {
            "task-line-only"
        } else {
            "running-pre-touch-lines"
        };
        assert_eq!(h["logging"], logging, "{c}");
    }
    let zgc_memory = if zgc_views > 1 {
        format!("shared-memfd x{zgc_views}")
    } else {
        "shared-memfd".to_owned()
    };
    for (format, section) in [
        ("text", "pretouch explained"),
        ("markdown", "heap and pretouch method"),
    ] {
        let out = report(format);
        for want in [zgc_memory.as_str(), "anonymous", method, section] {
            assert!(out.contains(want), "{format} lacks `{want}`:\n{out}");
        }
    }
    let rows = csv_rows(&report("csv"));
    let zgc = rows.iter().find(|r| r["gc"] == "zgc").unwrap();
    let g1 = rows.iter().find(|r| r["gc"] == "g1").unwrap();
    assert_eq!(zgc["heap_memory"], zgc_memory, "{zgc:?}");
    assert_eq!(
        g1["heap_memory"].split(',').next(),
        Some("anonymous"),
        "{g1:?}"
    );
    assert_eq!(
        (
            zgc["pretouch_method"].as_str(),
            g1["pretouch_method"].as_str()
        ),
        (method, method)
    );
}

/// A dry run asks each JDK for its collectors as a real run does, so the command lines
/// it shows are those a run launches: JDK 11's ZGC is experimental (a product from 15).
#[test]
fn a_dry_run_shows_the_collector_flags_a_run_launches() {
    let dir = tempfile::tempdir().unwrap();
    for jdk in jdks() {
        let feature = jdk_feature(&jdk).unwrap();
        let matrix = write_matrix(
            dir.path(),
            &format!(
                "name: d\njdks: [{}]\ngcs: [zgc]\nheaps: [64m]\nrepetitions: 1\n",
                yaml_list(std::slice::from_ref(&jdk))
            ),
        );
        let out = pretouch()
            .args(["run", "--dry-run"])
            .arg(&matrix)
            .assert()
            .success();
        let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
        let line = text
            .lines()
            .find(|l| l.contains("-XX:+UseZGC"))
            .unwrap_or_else(|| panic!("no ZGC command line:\n{text}"));
        assert_eq!(
            line.contains("-XX:+UnlockExperimentalVMOptions -XX:+UseZGC"),
            feature < 15,
            "JDK {feature}: {line}"
        );
    }
}
