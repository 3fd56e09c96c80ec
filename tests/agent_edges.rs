//! The agent's edge cases, on every installed JDK with real JVMs: a JVM that dies before
//! VM init still leaves the stamps it reached, a `main` inherited from a superclass is
//! stamped, and on JDK 25 (JEP 512) the `main` stamped is the one the launcher runs.

mod common;

use std::path::Path;

use common::*;
use serde_json::Value;

/// The JDK's feature version, from its `release` file.
fn feature(home: &Path) -> u32 {
    let release = std::fs::read_to_string(home.join("release")).unwrap();
    let line = release
        .lines()
        .find_map(|l| l.strip_prefix("JAVA_VERSION=\""))
        .unwrap();
    line.split(['.', '"']).next().unwrap().parse().unwrap()
}

fn launches(results: &Path) -> Vec<Value> {
    records(results)
        .into_iter()
        .filter(|r| r["record"] == "launch")
        .collect()
}

#[test]
fn a_jvm_that_dies_before_vm_init_says_how_far_it_got() {
    let _jvms = jvm_lock();
    for jdk in jdks() {
        let dir = tempfile::tempdir().unwrap();
        // The system class loader is set up inside VM creation, after the agent loaded
        // and before VMInit: the JVM ends with "Error occurred during initialization of VM".
        let matrix = write_matrix(
            dir.path(),
            &format!(
                "name: early\njdks: [{:?}]\ngcs: [g1]\nheaps: [64m]\nrepetitions: 1\nwarmup: 0\n\
                 jvm_args: [-Djava.system.class.loader=NoSuchLoader]\n",
                jdk.display().to_string()
            ),
        );
        let results = dir.path().join("results");
        run_labelled("k", &results).arg(&matrix).assert().code(3);
        let launches = launches(&results);
        assert_eq!(launches.len(), 2);
        for l in &launches {
            let why = l["failure"].as_str().unwrap();
            assert!(
                why.contains(
                    "exited with code 1 before main() (it got past agent load, not to VM init)"
                ),
                "{jdk:?}: {why}"
            );
            assert!(l["stamps"]["agent_load"]["ns"].is_u64(), "{jdk:?}: {l}");
            assert!(l["stamps"]["vm_init"].is_null(), "{jdk:?}: {l}");
        }
    }
    assert_no_java_left();
}

/// A class and what it prints when the launcher runs it.
struct Case {
    class: &'static str,
    source: &'static str,
    runs: &'static str,
    /// Runs on JDK 17 (only `public static main(String[])` there).
    jdk17: bool,
}

const CASES: &[Case] = &[
    Case {
        class: "Inherited",
        source: "class Base { public static void main(String[] a) { System.out.println(\"ran: Base static main(String[])\"); } }\n\
                 public class Inherited extends Base {}\n",
        runs: "ran: Base static main(String[])",
        jdk17: true,
    },
    Case {
        class: "StaticBoth",
        source: "public class StaticBoth { public static void main(String[] a) { System.out.println(\"ran: static main(String[])\"); }\n\
                 static void main() { System.out.println(\"ran: static main()\"); } }\n",
        runs: "ran: static main(String[])",
        jdk17: true,
    },
    // JEP 512 as delivered in JDK 25: a main(String[]), static or instance, before any
    // main(); the launcher's own choice is what the output shows.
    Case {
        class: "StaticNoArgsInstanceArgs",
        source: "public class StaticNoArgsInstanceArgs { static void main() { System.out.println(\"ran: static main()\"); }\n\
                 void main(String[] a) { System.out.println(\"ran: instance main(String[])\"); } }\n",
        runs: "ran: instance main(String[])",
        jdk17: false,
    },
    Case {
        class: "InstanceBoth",
        source: "public class InstanceBoth { void main(String[] a) { System.out.println(\"ran: instance main(String[])\"); }\n\
                 void main() { System.out.println(\"ran: instance main()\"); } }\n",
        runs: "ran: instance main(String[])",
        jdk17: false,
    },
    Case {
        class: "StaticArgsInstanceNoArgs",
        source: "public class StaticArgsInstanceNoArgs { static void main(String[] a) { System.out.println(\"ran: static main(String[])\"); }\n\
                 void main() { System.out.println(\"ran: instance main()\"); } }\n",
        runs: "ran: static main(String[])",
        jdk17: false,
    },
    Case {
        class: "InstanceNoArgsOnly",
        source: "public class InstanceNoArgsOnly { void main() { System.out.println(\"ran: instance main()\"); } }\n",
        runs: "ran: instance main()",
        jdk17: false,
    },
    Case {
        class: "InheritedInstanceArgs",
        source: "class Parent { void main(String[] a) { System.out.println(\"ran: Parent instance main(String[])\"); } }\n\
                 public class InheritedInstanceArgs extends Parent { static void main() { System.out.println(\"ran: static main()\"); } }\n",
        runs: "ran: Parent instance main(String[])",
        jdk17: false,
    },
];

#[test]
fn the_main_the_launcher_runs_is_the_one_stamped() {
    let _jvms = jvm_lock();
    for jdk in jdks() {
        let version = feature(&jdk);
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("src");
        std::fs::create_dir_all(&src).unwrap();
        let cases: Vec<&Case> = CASES.iter().filter(|c| version >= 25 || c.jdk17).collect();
        let mut javac = javac_for(&jdk);
        javac.arg("-d").arg(dir.path().join("classes"));
        for case in &cases {
            let file = src.join(format!("{}.java", case.class));
            std::fs::write(&file, case.source).unwrap();
            javac.arg(file);
        }
        let out = javac.output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        for case in cases {
            let results = dir.path().join(format!("results-{}", case.class));
            // The application runs on after main() is stamped, so its output shows which
            // main the launcher ran; a breakpoint on another main never fires.
            let matrix = write_matrix(
                dir.path(),
                &format!(
                    "name: m\njdks: [{:?}]\ngcs: [serial]\nheaps: [64m]\nrepetitions: 1\nwarmup: 0\n\
                     app:\n  classpath: classes\n  main: {}\n  exit_at_main: false\n",
                    jdk.display().to_string(),
                    case.class
                ),
            );
            run_labelled("k", &results).arg(&matrix).assert().success();
            for l in launches(&results) {
                assert_eq!(l["failure"], Value::Null, "{jdk:?} {}: {l}", case.class);
                assert!(l["stamps"]["main"]["ns"].is_u64());
                let output = l["output_tail"].as_str().unwrap_or("");
                assert!(
                    output.contains(case.runs),
                    "{jdk:?} {}: {output}",
                    case.class
                );
            }
        }
    }
    assert_no_java_left();
}
