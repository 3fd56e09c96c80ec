//! CPU sets by topology, end to end: `calibrate --cpus` and the matrix's `cpus:` axis
//! resolve specs from sysfs (this machine's, or a fake tree through `PRETOUCH_SYSFS`),
//! refuse what the machine cannot meet before anything runs, and `report --calibrate`
//! sets calibrations side by side. A confined JVM cell reads against its own set.

mod common;

use std::path::Path;

use common::*;
use predicates::prelude::*;
use pretouch::machine::topology::{Topology, fake};

fn this_machine() -> Topology {
    Topology::read(Path::new("/sys/devices/system")).unwrap()
}

fn l3_domains(t: &Topology) -> usize {
    let mut d: Vec<usize> = t.cpus.iter().map(|c| c.l3).collect();
    d.sort_unstable();
    d.dedup();
    d.len()
}

#[test]
fn more_l3_domains_than_the_machine_has_are_refused_before_anything_runs() {
    let dir = tempfile::tempdir().unwrap();
    let n = l3_domains(&this_machine());
    let spec = format!("{} L3 domains, 1 CPU each", n + 1);
    pretouch()
        .args(["calibrate", "--cpus", &spec, "--results"])
        .arg(dir.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains(format!(
            "it asks for {} L3 domains of at least 1 CPU(s), but this machine has {n} such",
            n + 1
        )))
        .stderr(
            predicate::str::contains("this machine has 1 socket")
                .or(predicate::str::contains("this machine has 2 sockets")),
        )
        .stderr(predicate::str::contains("calibrate:").not());
    // Nothing was measured, nothing stored.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    pretouch()
        .args(["calibrate", "--cpus", "3 dies"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("`dies` is not a unit"));
}

#[test]
fn a_fake_epyc_tree_is_read_through_pretouch_sysfs() {
    let dir = tempfile::tempdir().unwrap();
    fake::EPYC_9634.write(dir.path()).unwrap();
    pretouch()
        .env("PRETOUCH_SYSFS", dir.path())
        .args(["calibrate", "--no-save", "--cpus", "13 CCDs, 1 CPU each"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("it asks for 13 L3 domains"))
        .stderr(predicate::str::contains(
            "1 socket, 1 NUMA node, 12 L3 domains, 84 cores, 168 CPUs (2 per core: SMT on)",
        ));
}

#[test]
fn calibrations_of_two_labels_print_side_by_side() {
    let _jvms = jvm_lock();
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("results");
    let two = this_machine().cpus.len() >= 2;
    for label in ["first", "second"] {
        let mut cmd = pretouch();
        cmd.args(["calibrate", "--label", label, "--layout", "shared"])
            .args(["--variant", "zap", "pft", "--size", "32m", "--passes", "4"])
            .args(["--cpus", "1 CPU", "1 L3 domain"]);
        if two {
            cmd.arg("2 CPUs");
        }
        cmd.arg("--results")
            .arg(&results)
            .assert()
            .success()
            .stdout(predicate::str::contains("zap   1 CPU"))
            .stdout(predicate::str::contains("pft   1 L3 domain"));
    }
    // The placement is stored with each configuration.
    let json = only_json(&results.join("first"));
    let first = &json["results"][0];
    assert_eq!(first["placement"]["set"], "1 CPU");
    assert_eq!(first["placement"]["cpus"].as_array().unwrap().len(), 1);
    assert_eq!(
        first["placement"]["l3_domains"].as_array().unwrap().len(),
        1
    );
    let variants: Vec<&str> = json["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["variant"].as_str().unwrap_or("zap"))
        .collect();
    assert_eq!(
        variants.iter().filter(|v| **v == "pft").count(),
        variants.len() / 2
    );
    assert!(json["topology"].as_str().unwrap().contains("L3 domain"));

    let out = pretouch()
        .args(["report", "--calibrate"])
        .arg(&results)
        .assert()
        .success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(text.lines().all(|l| l.chars().count() <= 72), "{text}");
    assert!(text.contains("A  first (baseline)"), "{text}");
    let header = text.lines().find(|l| l.starts_with("CPUs")).unwrap();
    assert!(
        header.ends_with("A       B    gain") || header.contains("gain"),
        "{text}"
    );
    let rows = text
        .lines()
        .filter(|l| l.starts_with("1 CPU ") && l.ends_with('%') || l.ends_with("%*"))
        .filter(|l| l.starts_with("1 CPU "))
        .count();
    assert_eq!(rows, 2, "zap and pft rows for 1 CPU: {text}");
    for format in ["markdown", "csv", "json"] {
        pretouch()
            .args(["report", "--calibrate", "--format", format])
            .arg(&results)
            .assert()
            .success()
            .stdout(predicate::str::contains("1 L3 domain"));
    }
    pretouch()
        .args(["report", "--calibrate", "--baseline", "third"])
        .arg(&results)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "These labels have one: first, second",
        ));
}

#[test]
fn a_confined_cell_is_read_against_the_calibration_of_its_cpus() {
    let _jvms = jvm_lock();
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("results");
    pretouch()
        .args([
            "calibrate",
            "--label",
            "k",
            "--layout",
            "shared",
            "--size",
            "32m",
        ])
        .args([
            "--passes",
            "3",
            "--cpus",
            "1 CPU",
            "--threads",
            "1",
            "--results",
        ])
        .arg(&results)
        .assert()
        .success();
    let jdk = jdks().remove(0);
    let matrix = write_matrix(
        dir.path(),
        &format!(
            "name: confined\njdks: [{}]\ngcs: [g1]\nheaps: [64m]\nrepetitions: 2\nwarmup: 0\ncpus: [\"1 CPU\"]\n",
            yaml_list(&[jdk])
        ),
    );
    run_labelled("k", &results).arg(&matrix).assert().success();
    // The ceiling a cell is read against is a detail of the report.
    let out = pretouch()
        .args(["report", "--details"])
        .arg(&results)
        .assert()
        .success();
    let text = unwrapped(&out.get_output().stdout);
    let cpu = this_machine().cpus[0].id;
    // The zap calibration faults 4 KiB pages: a heap of larger folios (THP `always`,
    // mTHP 64 KiB `always`) is not read against it, and the report says so.
    let expected = match heap_folio() {
        4096 => format!("% ceiling against calibrate zap, 1 CPU (CPUs {cpu})"),
        folio => format!(
            "no calibration of k at {} folios (it has 4 KiB): no % ceiling",
            pretouch::units::Bytes(folio)
        ),
    };
    assert!(text.contains(&expected), "{expected}: {text}");
    // The run header records where the set lies.
    let header = &records(&results)[0];
    let placement = &header["cpu_placements"][0];
    assert_eq!(placement["set"], "1 CPU");
    assert_eq!(placement["cpus"][0], cpu);
    assert_no_java_left();
}

#[test]
fn the_matrix_axis_takes_specs_and_refuses_what_the_machine_lacks() {
    let dir = tempfile::tempdir().unwrap();
    let jdk = yaml_list(&jdks()[..1]);
    let n = l3_domains(&this_machine());
    let matrix = write_matrix(
        dir.path(),
        &format!(
            "name: x\njdks: [{jdk}]\ngcs: [g1]\nheaps: [64m]\nrepetitions: 1\n\
             cpus: [\"1 L3 domain, 1 CPU\", \"{} L3 domains, 1 CPU each\"]\n",
            n + 1
        ),
    );
    pretouch()
        .args(["run", "--dry-run"])
        .arg(&matrix)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(format!(
            "line 6: cpus `{} L3 domains, 1 CPU each`: it asks for",
            n + 1
        )));
    let matrix = write_matrix(
        dir.path(),
        &format!(
            "name: x\njdks: [{jdk}]\ngcs: [g1]\nheaps: [64m]\nrepetitions: 1\n\
             cpus: [\"1 L3 domain, 1 CPU\", all]\n"
        ),
    );
    let cpu = this_machine().cpus[0].id;
    pretouch()
        .args(["run", "--dry-run"])
        .arg(&matrix)
        .assert()
        .success()
        .stdout(predicate::str::contains(format!(
            "cpus=1 L3 domain, 1 CPU\n  confined to CPUs {cpu} (sched_setaffinity"
        )));
}

#[test]
fn calibrate_interleaves_rounds_and_holds_guest_memory_when_asked() {
    let _jvms = jvm_lock();
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("results");
    let knob = Path::new(PAGE_REPORTING_ORDER);
    let before = std::fs::read_to_string(knob).ok();
    let (g, reporting_on) = guest_reporting();
    let root = is_root();
    let out = pretouch()
        .args(["calibrate", "--label", "r", "--layout", "shared"])
        .args(["--variant", "zap", "pft", "--threads", "1", "--size", "32m"])
        .args(["--passes", "2", "--rounds", "3", "--comparable-memory"])
        .arg("--results")
        .arg(&results)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    // Whatever happened, the knob is as it was.
    assert_eq!(std::fs::read_to_string(knob).ok(), before, "{stderr}");
    if reporting_on && !root {
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(
            stderr.contains("needs root") && stderr.contains("fix:"),
            "{stderr}"
        );
        assert!(!results.exists(), "nothing measured, nothing stored");
        skipped(
            "calibrate_interleaves_rounds_and_holds_guest_memory_when_asked",
            "root",
            "the rounds and the stopped reporting are not checked",
        );
        return;
    }
    assert!(out.status.success(), "{stderr}");
    // The first round names each configuration, the later ones a line each.
    assert!(
        stderr.contains("round 1/3: zap shared, 1 worker(s)"),
        "{stderr}"
    );
    assert!(
        stderr.contains("round 1/3: pft shared, 1 worker(s)"),
        "{stderr}"
    );
    assert!(stderr.contains("round 3/3..."), "{stderr}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("over 3 rounds of 2 passes each"),
        "{stdout}"
    );
    let json = only_json(&results.join("r"));
    assert_eq!(
        (json["rounds"].as_u64(), json["passes"].as_u64()),
        (Some(3), Some(2))
    );
    for r in json["results"].as_array().unwrap() {
        // Every round's passes, and each page faulted once a pass.
        assert_eq!(r["faults_per_s"].as_array().unwrap().len(), 6, "{r}");
        let (pages, faults) = (
            r["pages"].as_u64().unwrap(),
            r["faults_per_pass"].as_u64().unwrap(),
        );
        assert!(faults >= pages && faults < pages + pages / 10, "{r}");
    }
    let memory = &json["memory"];
    if reporting_on {
        let max = g["max_page_order"].as_u64().unwrap();
        let order: u64 = before.as_deref().unwrap().trim().parse().unwrap();
        assert_eq!(
            memory["stopped"],
            serde_json::json!([order, max + 1]),
            "{json}"
        );
        assert!(
            stdout.contains("Free page reporting was stopped for the calibration"),
            "{stdout}"
        );
        // It ran with nothing to report: the environment read at its end says so.
        assert!(
            json["env"]["guest"]["page_reporting_order"].as_u64() == Some(max + 1),
            "{json}"
        );
    } else {
        assert!(memory.get("stopped").is_none(), "{json}");
        skipped(
            "calibrate_interleaves_rounds_and_holds_guest_memory_when_asked",
            "free page reporting",
            "stopping it for the calibration is not checked",
        );
    }
}

#[test]
fn an_interrupted_calibration_keeps_its_whole_rounds_and_restores_the_knob() {
    use std::io::BufRead;
    let _jvms = jvm_lock();
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("results");
    let knob = Path::new(PAGE_REPORTING_ORDER);
    let before = std::fs::read_to_string(knob).ok();
    let root = is_root();
    let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("pretouch"));
    cmd.args([
        "calibrate",
        "--label",
        "i",
        "--layout",
        "shared",
        "--threads",
        "1",
    ])
    .args(["--size", "16m", "--passes", "1", "--rounds", "1000"])
    .arg("--results")
    .arg(&results)
    .stdout(std::process::Stdio::piped())
    .stderr(std::process::Stdio::piped());
    if root {
        cmd.arg("--comparable-memory");
    }
    let mut child = cmd.spawn().unwrap();
    let mut lines = std::io::BufReader::new(child.stderr.take().unwrap()).lines();
    let mut seen = Vec::new();
    for line in lines.by_ref() {
        let line = line.unwrap();
        let third = line.contains("round 3/1000");
        seen.push(line);
        if third {
            break;
        }
    }
    // SAFETY: signals a child this test spawned and has not reaped.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let rest: Vec<String> = lines.map(Result::unwrap).collect();
    let status = child.wait().unwrap();
    let stderr = [seen, rest].concat().join("\n");
    assert_eq!(status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("SIGINT after"), "{stderr}");
    assert!(stderr.contains("stored the whole rounds"), "{stderr}");
    assert_eq!(std::fs::read_to_string(knob).ok(), before, "{stderr}");
    let json = only_json(&results.join("i"));
    let rounds = json["rounds"].as_u64().unwrap();
    assert!((2..1000).contains(&rounds), "{json}");
    let passes = json["results"][0]["faults_per_s"].as_array().unwrap().len() as u64;
    assert_eq!(passes, rounds, "one pass a round, whole rounds only");
}
