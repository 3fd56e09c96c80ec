//! End to end, with real JVMs: JDK discovery, the gc_threads and cpus axes, real applications,
//! dry runs and adaptive repetitions, on small heaps.

mod common;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::*;
use predicates::prelude::*;
use serde_json::Value;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

fn launches(records: &[Value]) -> Vec<&Value> {
    records.iter().filter(|r| r["record"] == "launch").collect()
}

/// The feature version of a JDK home, from its `release` file.
fn feature(home: &Path) -> u32 {
    let release = std::fs::read_to_string(home.join("release")).unwrap();
    let v = release
        .lines()
        .find_map(|l| l.strip_prefix("JAVA_VERSION="))
        .unwrap()
        .trim_matches('"');
    v.split('.').next().unwrap().parse().unwrap()
}

#[test]
fn jdks_lists_every_installed_jdk_once() {
    let out = pretouch().arg("jdks").assert().success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    let installed = jdks();
    // Also `java` on PATH, which may lead outside /usr/lib/jvm: at least these.
    assert!(text.lines().count() > installed.len(), "{text}");
    for home in &installed {
        let rows: Vec<&str> = text
            .lines()
            .filter(|l| l.contains(&format!("  {}  ", home.display())))
            .collect();
        assert_eq!(rows.len(), 1, "{} listed once:\n{text}", home.display());
        let row = rows[0];
        assert!(
            row.starts_with(&format!("{} ", feature(home))),
            "feature version first: {row}"
        );
    }
}

#[test]
fn a_missing_jdk_version_lists_what_is_installed() {
    let dir = tempfile::tempdir().unwrap();
    let matrix = write_matrix(
        dir.path(),
        "name: x\njdks: [17, 99]\ngcs: [g1]\nheaps: [64m]\nrepetitions: 1\n",
    );
    let installed = jdks();
    let mut assert = pretouch()
        .args(["run", "--dry-run"])
        .arg(&matrix)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("line 2: jdks"))
        .stderr(predicate::str::contains("no JDK 99 is installed"));
    for home in &installed {
        assert = assert.stderr(predicate::str::contains(home.display().to_string()));
    }
}

#[test]
fn a_cpu_set_this_machine_lacks_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let matrix = write_matrix(
        dir.path(),
        "name: x\ngcs: [g1]\nheaps: [64m]\nrepetitions: 1\ncpus: [all, \"0-1023\"]\n",
    );
    pretouch()
        .args(["run", "--results"])
        .arg(dir.path().join("results"))
        .arg(&matrix)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "line 5: cpus `0-1023` names CPU(s)",
        ))
        .stderr(predicate::str::contains("this machine does not have"));
    assert!(!dir.path().join("results").exists());
}

/// Plans `matrix` with `--dry-run` and checks the cover letter's plan: 44 launches, the
/// four command lines at 32g with `java` of `jdk_home`, and nothing written.
fn check_cover_letter_plan(mut cmd: assert_cmd::Command, matrix: &Path, jdk_home: &Path) {
    let dir = tempfile::tempdir().unwrap();
    // --force, because the plan is the point here, and a 32g heap does not fit on
    // every machine the tests run on, where the dry run exits 2 without it.
    let out = cmd
        .current_dir(dir.path())
        .args(["run", "--dry-run", "--force"])
        .arg(matrix)
        .assert()
        .success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(
        text.contains(
            "44 launches. 40 are counted, 2 cells x 10 rounds x with and without pretouch, \
             and 4 warm-ups in 1 round."
        ),
        "{text}"
    );
    assert!(text.contains("estimated duration: "), "{text}");
    let java = format!("{}/bin/java ", jdk_home.display());
    let commands: Vec<&str> = text
        .lines()
        .filter(|l| l.trim_start().starts_with("with") && l.contains(&java))
        .collect();
    assert_eq!(commands.len(), 4, "no 4 command lines of {java}:\n{text}");
    for gc in ["-XX:+UseG1GC", "-XX:+UseParallelGC"] {
        for flag in ["-XX:+AlwaysPreTouch", "-XX:-AlwaysPreTouch"] {
            assert!(
                commands
                    .iter()
                    .any(|c| c.contains("-Xms32g -Xmx32g") && c.contains(gc) && c.contains(flag)),
                "{gc} {flag} missing:\n{text}"
            );
        }
    }
    assert!(
        std::fs::read_dir(dir.path()).unwrap().next().is_none(),
        "a dry run wrote files"
    );
}

fn cover_letter() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/cover-letter.yaml")
}

/// The reference matrix needs 32 GiB heaps and `jdks: [25]`: it must plan here without
/// running. With no JDK 25 installed, a fake one at JAVA_HOME stands in (a dry run only
/// reads its `release` file; its `java` would leave a mark if started).
#[test]
fn dry_run_of_the_cover_letter_lists_its_launches() {
    let fake = tempfile::tempdir().unwrap();
    let (fake_home, mark) = fake_jdk(fake.path(), 25);
    let mut cmd = pretouch();
    let home = match jdks().into_iter().find(|j| feature(j) == 25) {
        Some(real) => real,
        None => {
            cmd.env("JAVA_HOME", &fake_home);
            fake_home
        }
    };
    check_cover_letter_plan(cmd, &cover_letter(), &home);
    assert!(!mark.exists(), "the dry run started java");
}

/// The same plan with a fake JDK 25 named by path, whatever is installed: what a
/// machine without JDK 25 checks of it, run on every machine.
#[test]
fn dry_run_of_the_cover_letter_with_a_fake_jdk_25() {
    let fake = tempfile::tempdir().unwrap();
    let (fake_home, mark) = fake_jdk(fake.path(), 25);
    let text = std::fs::read_to_string(cover_letter()).unwrap();
    assert!(text.contains("\njdks: [25]"), "{text}");
    let matrix = fake.path().join("cover-letter.yaml");
    std::fs::write(
        &matrix,
        text.replace(
            "\njdks: [25]",
            &format!("\njdks: [{:?}]", fake_home.display().to_string()),
        ),
    )
    .unwrap();
    check_cover_letter_plan(pretouch(), &matrix, &fake_home);
    assert!(!mark.exists(), "the dry run started java");
}

/// A JDK whose `java` leaves a mark when it is started, for proving that none is.
fn marking_jdk(root: &Path) -> (PathBuf, PathBuf) {
    use std::os::unix::fs::PermissionsExt;
    let home = root.join("fake-jdk");
    let mark = root.join("java-was-started");
    std::fs::create_dir_all(home.join("bin")).unwrap();
    let java = home.join("bin/java");
    std::fs::write(
        &java,
        format!("#!/bin/sh\necho \"$@\" >> '{}'\nexit 1\n", mark.display()),
    )
    .unwrap();
    std::fs::set_permissions(&java, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::write(
        home.join("release"),
        "IMPLEMENTOR=\"Test\"\nJAVA_RUNTIME_VERSION=\"25.0.0+1\"\nJAVA_VERSION=\"25.0.0\"\n",
    )
    .unwrap();
    (home, mark)
}

#[test]
fn dry_run_starts_no_jvm() {
    let dir = tempfile::tempdir().unwrap();
    let (home, mark) = marking_jdk(dir.path());
    // Proves the mark works: a real run starts this java (and fails).
    let matrix = write_matrix(
        dir.path(),
        &format!(
            "name: dry\njdks: [{:?}]\ngcs: [g1, parallel]\nheaps: [64m]\nrepetitions: {{min: 5, max: 7, ci_pct: 2}}\nwarmup: 1\ngc_threads: [1, auto]\ncpus: [\"0\", all]\napp: {{jar: hello.jar, sources: {:?}, main: example.Hello, args: [a]}}\n",
            home.display().to_string(),
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("configs/app/src")
                .display()
                .to_string()
        ),
    );
    let out = pretouch()
        .args(["run", "--dry-run", "--agent"])
        .arg(agent())
        .arg("--results")
        .arg(dir.path().join("results"))
        .arg(&matrix)
        .assert()
        .success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(!mark.exists(), "the dry run started java");
    assert!(!dir.path().join("results").exists());
    // 2 GCs x 2 gc_threads x 2 cpus = 8 cells; 6 rounds (1 warm-up + min 5).
    assert!(
        text.contains("96 launches. 80 are counted, 8 cells x 5 rounds"),
        "{text}"
    );
    assert!(
        text.contains("5 to 7 rounds a cell")
            && text.contains("never checked (no interval under 10 rounds)")
            && text.contains("up to 32 more launches"),
        "{text}"
    );
    assert!(text.contains("confined to CPUs 0"), "{text}");
    assert!(text.contains("-XX:ParallelGCThreads=1"), "{text}");
    assert!(
        text.contains("=main=example.Hello,exit_at_main=1,out=$SCRATCH/stamps -cp "),
        "{text}"
    );
    assert!(
        !dir.path().join("hello.jar").exists(),
        "the dry run built the app's jar"
    );

    // A jar newer than its sources is not rebuilt (this JDK has no javac anyway).
    std::fs::File::create(dir.path().join("hello.jar"))
        .unwrap()
        .set_modified(std::time::SystemTime::now() + std::time::Duration::from_secs(3600))
        .unwrap();
    pretouch()
        .args(["run", "--agent"])
        .arg(agent())
        .arg("--results")
        .arg(dir.path().join("results"))
        .arg(&matrix)
        .assert()
        .failure();
    assert!(
        mark.exists(),
        "the marking java was not started by a real run"
    );
}

/// The GC-threads and CPU-set matrix at 512m (bench/results/2026-11-30-gc-threads-cpus.md
/// shows it at 1g). The JVM's own log
/// shows the pretouch workers each cell asked for, and the affinity is recorded. The
/// times are printed, not asserted: with other JVMs running on this 2-core machine,
/// two workers are not reliably faster than one.
#[test]
fn gc_threads_and_cpu_sets_set_the_pretouch_workers() {
    let _jvms = jvm_lock();
    let available = std::fs::read_to_string("/proc/self/status")
        .unwrap()
        .lines()
        .find_map(|l| {
            l.strip_prefix("Cpus_allowed_list:")
                .map(|v| v.trim().to_owned())
        })
        .unwrap();
    let ncpus = std::thread::available_parallelism().unwrap().get();
    let dir = tempfile::tempdir().unwrap();
    let installed = few_jdks();
    let matrix = write_matrix(
        dir.path(),
        &format!(
            "name: axes\njdks: [{}]\ngcs: [g1, parallel]\nheaps: [512m]\nrepetitions: 2\nwarmup: 1\ngc_threads: [1, auto]\ncpus: [\"0\", all]\njvm_args: [\"-Xlog:gc+heap=debug:stdout\"]\n",
            yaml_list(&installed)
        ),
    );
    run_labelled("k", dir.path())
        .arg(&matrix)
        .assert()
        .success()
        .stdout(predicate::str::contains("default gc_threads=1 cpus=0"));
    assert_no_java_left();
    let records = records(dir.path());
    let launches = launches(&records);
    assert_eq!(launches.len(), installed.len() * 8 * 3 * 2);
    let mut times: HashMap<(String, String, String, String, bool), Vec<f64>> = HashMap::new();
    let mut oracle: HashMap<(PathBuf, String), u64> = HashMap::new();
    for l in &launches {
        assert_eq!(l["failure"], Value::Null, "{l}");
        let command: Vec<&str> = l["command"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_str().unwrap())
            .collect();
        let threads_flag = command.contains(&"-XX:ParallelGCThreads=1");
        assert_eq!(threads_flag, l["gc_threads"] == "1", "{command:?}");
        let want_affinity = if l["cpus"] == "0" { "0" } else { &available };
        assert_eq!(l["affinity"], want_affinity, "{l}");
        if l["pretouch"] == true {
            // One worker with one GC thread or one CPU; else the count HotSpot itself
            // reports for this JDK and GC on all the CPUs (-XX:+PrintFlagsFinal), not
            // the runner's own formula.
            let workers = if l["gc_threads"] == "1" || l["cpus"] == "0" {
                1
            } else {
                let gc = l["gc"].as_str().unwrap().to_owned();
                let home = PathBuf::from(l["jdk_home"].as_str().unwrap());
                *oracle.entry((home.clone(), gc.clone())).or_insert_with(|| {
                    let flag = match gc.as_str() {
                        "g1" => "-XX:+UseG1GC",
                        "parallel" => "-XX:+UseParallelGC",
                        other => panic!("no flag for gc {other}"),
                    };
                    hotspot_flag(&home, &[flag], "ParallelGCThreads")
                })
            };
            assert_eq!(
                workers as usize,
                if l["gc_threads"] == "1" || l["cpus"] == "0" {
                    1
                } else {
                    pretouch::schedule::preview::default_gc_threads(ncpus)
                },
                "the runner's worker count differs from HotSpot's: {l}"
            );
            let log = l["output_tail"].as_str().unwrap_or("");
            let first = log
                .lines()
                .find(|line| line.contains("PreTouch"))
                .unwrap_or_else(|| panic!("no pretouch in the JVM's log: {log}"));
            assert!(
                first.contains(&format!("with {workers} workers")),
                "{} gc_threads={} cpus={}: {first}",
                l["gc"],
                l["gc_threads"],
                l["cpus"]
            );
        }
        if l["warmup"] == false {
            times
                .entry((
                    l["jdk"].as_str().unwrap().to_owned(),
                    l["gc"].as_str().unwrap().to_owned(),
                    l["gc_threads"].as_str().unwrap().to_owned(),
                    l["cpus"].as_str().unwrap().to_owned(),
                    l["pretouch"].as_bool().unwrap(),
                ))
                .or_default()
                .push(l["time_to_main_ns"].as_f64().unwrap() / 1e6);
        }
    }
    let mut cells: Vec<(String, String)> =
        times.keys().map(|k| (k.0.clone(), k.1.clone())).collect();
    cells.sort();
    cells.dedup();
    for (jdk, gc) in cells {
        let cost = |threads: &str, cpus: &str| {
            let t = |on| {
                median(times[&(jdk.clone(), gc.clone(), threads.into(), cpus.into(), on)].clone())
            };
            t(true) - t(false)
        };
        eprintln!(
            "{jdk} {gc}: pretouch {:.1} ms; one GC thread {:.1}; one CPU {:.1}",
            cost("auto", "all"),
            cost("1", "all"),
            cost("auto", "0")
        );
    }
}

/// Compiles a tiny application for the JDK (its own javac, or another's, `--release`): `static main(String[])` on
/// JDK 17, an instance `void main()` on JDK 25 (JEP 512), which the agent also stamps.
fn build_app(jdk: &Path, dir: &Path) -> (PathBuf, bool) {
    let instance_main = feature(jdk) >= 25;
    let src = dir.join("src/com/example");
    std::fs::create_dir_all(&src).unwrap();
    let body = if instance_main {
        "void main() { System.out.println(\"app body ran: instance main\"); }"
    } else {
        "public static void main(String[] args) { System.out.println(\"app body ran: \" + String.join(\" \", args)); }"
    };
    std::fs::write(
        src.join("Main.java"),
        format!("package com.example;\npublic class Main {{\n    {body}\n}}\n"),
    )
    .unwrap();
    let classes = dir.join("classes");
    let status = javac_for(jdk)
        .arg("-d")
        .arg(&classes)
        .arg(src.join("Main.java"))
        .status()
        .unwrap();
    assert!(status.success(), "javac failed");
    (classes, instance_main)
}

#[test]
fn an_app_main_is_stamped_on_every_jdk() {
    let _jvms = jvm_lock();
    if !jdks().iter().any(|j| feature(j) >= 25) {
        skipped(
            "an_app_main_is_stamped_on_every_jdk",
            "jdk 25",
            "JEP 512's instance `void main()` is not stamped: no JDK 25 or later installed",
        );
    }
    for jdk in jdks() {
        let dir = tempfile::tempdir().unwrap();
        let (classes, instance_main) = build_app(&jdk, dir.path());
        // JDK 25 runs it from a jar (Main-Class read from the manifest), 17 from classes.
        let app = if instance_main {
            let jar = dir.path().join("app.jar");
            let status = Command::new(jdk.join("bin/jar"))
                .args(["--create", "--file"])
                .arg(&jar)
                .args(["--main-class", "com.example.Main", "-C"])
                .arg(&classes)
                .arg(".")
                .status()
                .unwrap();
            assert!(status.success(), "jar failed");
            "jar: app.jar".to_owned()
        } else {
            "classpath: classes\n  main: com.example.Main".to_owned()
        };
        for exit_at_main in [true, false] {
            let results = dir.path().join(format!("results-{exit_at_main}"));
            let matrix = write_matrix(
                dir.path(),
                &format!(
                    "name: app\njdks: [{:?}]\ngcs: [g1]\nheaps: [128m]\nrepetitions: 2\napp:\n  {app}\n  args: [x, y]\n  exit_at_main: {exit_at_main}\n",
                    jdk.display().to_string()
                ),
            );
            run_labelled("k", &results)
                .arg(&matrix)
                .assert()
                .success()
                .stdout(predicate::str::contains("app=com.example.Main"));
            let records = records(&results);
            let launches = launches(&records);
            assert_eq!(launches.len(), 4);
            for l in launches {
                assert_eq!(l["failure"], Value::Null, "{l}");
                assert_eq!(l["app"], "com.example.Main");
                assert_eq!(l["stamps"]["mechanism"], "breakpoint", "{l}");
                let main = l["stamps"]["main"]["ns"].as_u64().unwrap();
                assert!(l["stamps"]["vm_init"]["ns"].as_u64().unwrap() < main);
                assert!(main < l["reaped_ns"].as_u64().unwrap());
                let output = l["output_tail"].as_str().unwrap_or("");
                if exit_at_main {
                    assert!(!output.contains("app body ran"), "{jdk:?}: {output}");
                } else {
                    assert_eq!(l["exit_code"], 0);
                    let want = if instance_main {
                        "app body ran: instance main"
                    } else {
                        "app body ran: x y"
                    };
                    assert!(output.contains(want), "{jdk:?}: {output}");
                }
            }
        }
    }
    assert_no_java_left();
}

/// Real launches under an unreachable target (±0.01%): every cell runs to max, the extra
/// rounds keep alternating, and the report and the end record say why. (Stopping early
/// is tested with a scripted launcher in src/schedule/adaptive.rs: on a shared 2-core
/// machine no real target is met reliably.)
#[test]
fn adaptive_repetitions_run_to_max_and_say_why() {
    let _jvms = jvm_lock();
    let dir = tempfile::tempdir().unwrap();
    let jdk = &jdks()[0];
    let matrix = write_matrix(
        dir.path(),
        &format!(
            "name: adaptive\njdks: [{:?}]\ngcs: [parallel]\nheaps: [128m]\nrepetitions: {{min: 10, max: 12, ci_pct: 0.01}}\n",
            jdk.display().to_string()
        ),
    );
    run_labelled("k", dir.path())
        .arg(&matrix)
        .assert()
        .success();
    // The stops are details of the report: read them unwrapped (72 columns).
    let out = pretouch()
        .args(["report", "--details"])
        .arg(dir.path())
        .assert()
        .success();
    let text = unwrapped(&out.get_output().stdout);
    assert!(text.contains("ran all 12 rounds: 95% interval ["), "{text}");
    assert!(text.contains("(each of 2 looks at 97.50%)"), "{text}");
    let records = records(dir.path());
    let launches = launches(&records);
    assert_eq!(launches.len(), 24);
    // Rounds 10 and 11 were added, the pair's order still alternating.
    let extra: Vec<(u64, bool)> = launches[20..]
        .iter()
        .map(|l| {
            (
                l["round"].as_u64().unwrap(),
                l["pretouch"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(extra, [(10, false), (10, true), (11, true), (11, false)]);
    let end = records.last().unwrap();
    assert_eq!(end["stops"][0]["reason"], "max_reached", "{end}");
    assert_eq!(end["stops"][0]["rounds"], 12);
    // The interval at the stop is the one the report states, recomputed here from the
    // raw launches: each round's with - without, in round order, into the drift-aware
    // interval of `stats::interval` (2 batches of 6 rounds), at the level of each of the
    // policy's 2 looks (rounds 10 and 12): 1 - 0.05 / 2.
    let mut pairs: HashMap<u64, [Option<f64>; 2]> = HashMap::new();
    for l in launches.iter().filter(|l| l["warmup"] == false) {
        let ms = l["time_to_main_ns"].as_f64().unwrap() / 1e6;
        pairs.entry(l["round"].as_u64().unwrap()).or_default()
            [usize::from(l["pretouch"].as_bool().unwrap())] = Some(ms);
    }
    let costs: Vec<f64> = (0..12)
        .map(|r| {
            let [off, on] = pairs[&r];
            on.unwrap() - off.unwrap()
        })
        .collect();
    // The report's default estimator, the median, is the one the stop checks.
    let want = pretouch::stats::interval::cost_interval_by(
        &costs,
        pretouch::stats::interval::Estimator::Median,
        0.975,
    )
    .unwrap();
    let stop = &end["stops"][0];
    let close = |key: &str, v: f64| {
        let got = stop[key].as_f64().unwrap();
        assert!((got - v).abs() < 1e-6, "{key} {got} vs {v}: {stop}");
    };
    close("cost_ms", want.estimate_ms);
    close("ci_low_ms", want.low_ms);
    close("ci_high_ms", want.high_ms);
    assert_eq!(stop["ci_batches"], 12, "the rounds the error is from");
    assert_eq!(stop["looks"], 2);
    assert_no_java_left();
}
