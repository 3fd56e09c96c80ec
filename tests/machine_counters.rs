//! Real JVMs: each launch record keeps what the machine did meanwhile, and the report
//! reads it back, so that a slow launch is not read as the kernel's doing.

mod common;

use common::*;
use serde_json::Value;

#[test]
fn every_launch_stores_the_machine_s_counters() {
    let _jvms = jvm_lock();
    let dir = tempfile::tempdir().unwrap();
    let jdk = jdks()[0].clone();
    let matrix = write_matrix(
        dir.path(),
        &format!(
            "name: counters\njdks: [{}]\ngcs: [g1]\nheaps: [128m]\nrepetitions: 2\nwarmup: 1\n",
            yaml_list(&[jdk])
        ),
    );
    run_labelled("counters", dir.path().join("results"))
        .arg(&matrix)
        .assert()
        .success();
    assert_no_java_left();

    let records = records(dir.path());
    let header = &records[0];
    assert!(
        header["env"]["guest"].is_object(),
        "the environment says whether this is a VM: {header}"
    );
    assert!(header.get("comparable_memory").is_none(), "not asked for");
    let launches: Vec<&Value> = records.iter().filter(|r| r["record"] == "launch").collect();
    assert_eq!(launches.len(), 6);
    for (i, l) in launches.iter().enumerate() {
        let m = &l["machine"];
        assert!(m.is_object(), "no machine counters: {l}");
        // The whole machine faulted at least as often as the JVM did.
        let faults = m["vmstat"]["pgfault"]
            .as_u64()
            .expect("pgfault on every Linux");
        let jvm = l["rusage"]["minflt"].as_u64().unwrap() + l["rusage"]["majflt"].as_u64().unwrap();
        assert!(faults >= jvm, "pgfault {faults} < the JVM's {jvm}: {m}");
        // CPU time by state, steal among them.
        let cpu = &m["cpu"];
        assert!(cpu["steal_ns"].is_u64() && cpu["user_ns"].is_u64(), "{m}");
        // A JVM blocks at least once (it waits for its threads).
        assert!(m["voluntary_switches"].as_u64().unwrap() > 0, "{m}");
        // The idle gap is known from the second launch of the session on, and it is
        // shorter than the whole run.
        match i {
            0 => assert!(m.get("idle_before_ns").is_none(), "{m}"),
            _ => {
                let gap = m["idle_before_ns"].as_u64().unwrap();
                assert!(gap < 60_000_000_000, "{gap}");
            }
        }
        // Counters this kernel lacks are absent, never zero: whatever is there is a
        // number.
        for (name, value) in m["vmstat"].as_object().unwrap() {
            assert!(value.is_u64(), "{name}: {value}");
        }
    }

    // The report reads them back: JSON carries the disturbance columns.
    let out = pretouch()
        .args(["report", "--format", "json"])
        .arg(dir.path().join("results"))
        .output()
        .unwrap();
    assert!(out.status.success());
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let cell = &report["cells"][0];
    assert!(cell["disturbed"].is_u64(), "{cell}");
    assert!(cell["outlier_causes"].is_string(), "{cell}");
}

#[test]
fn env_names_the_virtualization_and_free_page_reporting() {
    // `env` starts each JDK's `java` to read its version.
    let _jvms = jvm_lock();
    let out = pretouch().arg("env").output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    for field in ["virtualization", "page_reporting", "ksm"] {
        assert!(text.contains(field), "{field} missing:\n{text}");
    }
    let (guest, reporting_on) = guest_reporting();
    // The words follow the flags read: a VM is named, bare metal is not.
    let vm = cpuinfo_flag("hypervisor");
    assert_eq!(guest["hypervisor_flag"], vm, "{guest}");
    assert_eq!(!text.contains("none detected"), vm, "{text}");
    if reporting_on {
        assert!(text.contains("free page reporting"), "{text}");
    }
}

#[test]
fn comparable_memory_is_refused_without_root_before_anything_starts() {
    let _jvms = jvm_lock();
    let (_, reporting_on) = guest_reporting();
    if !reporting_on || !is_root() || !std::path::Path::new("/usr/bin/setpriv").exists() {
        skipped(
            "comparable_memory_is_refused_without_root_before_anything_starts",
            "root, setpriv and free page reporting on",
            "the refusal as another user is not checked",
        );
        return;
    }
    // The runner, the agent and the matrix where `nobody` can read them, wherever this
    // checkout is (a clone in a folder only root can read is not).
    let copies = AsNobody::new();
    let dir = copies.dir();
    let matrix = write_matrix(
        dir,
        "name: cm\ngcs: [g1]\nheaps: [64m]\nrepetitions: 1\ncomparable_memory: true\n",
    );
    let before = std::fs::read_to_string(PAGE_REPORTING_ORDER).unwrap();
    // As `nobody`: the matrix key asks for it, the runner refuses with the fix.
    let out = copies
        .command()
        .arg("run")
        .arg(&matrix)
        .arg("--agent")
        .arg(&copies.agent)
        .arg("--results")
        .arg(dir.join("results"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("needs root") && stderr.contains("fix:"),
        "{stderr}"
    );
    assert!(!stderr.contains("touching"), "nothing was done: {stderr}");
    assert!(jsonl_files(&dir.join("results")).is_empty());
    let after = std::fs::read_to_string(PAGE_REPORTING_ORDER).unwrap();
    assert_eq!(before, after);
}
