//! `app: {jar, sources, main}`: the jar is built from its sources with the matrix's
//! JDK when missing or stale, and not rebuilt when current: configs/app.yaml's
//! hello.jar is not kept in git. Real JVMs, every installed JDK.

mod common;

use std::path::Path;

use common::*;
use serde_json::Value;

#[test]
fn the_example_app_is_built_from_its_sources_and_stamped_on_every_jdk() {
    let _jvms = jvm_lock();
    let sources = Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/app/src");
    for jdk in jdks() {
        let dir = tempfile::tempdir().unwrap();
        let matrix = write_matrix(
            dir.path(),
            &format!(
                "name: app\njdks: [{:?}]\ngcs: [g1]\nheaps: [64m]\nrepetitions: 1\nwarmup: 0\n\
                 app:\n  jar: build/hello.jar\n  sources: {:?}\n  main: example.Hello\n  args: [--greeting, hi]\n",
                jdk.display().to_string(),
                sources.display().to_string()
            ),
        );
        let jar = dir.path().join("build/hello.jar");
        let results = dir.path().join("results");
        let out = run_labelled("k", &results).arg(&matrix).assert().success();
        let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
        assert!(stderr.contains("building `"), "{stderr}");
        assert!(jar.is_file(), "{jdk:?}: no jar built");
        let built = std::fs::metadata(&jar).unwrap().modified().unwrap();
        for l in records(&results).iter().filter(|r| r["record"] == "launch") {
            assert_eq!(l["failure"], Value::Null, "{jdk:?}: {l}");
            assert_eq!(l["app"], "example.Hello");
        }
        // Current: not built again.
        let out = run_labelled("k", &results).arg(&matrix).assert().success();
        let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
        assert!(!stderr.contains("building `"), "{stderr}");
        assert_eq!(std::fs::metadata(&jar).unwrap().modified().unwrap(), built);
    }
    assert_no_java_left();
    // Not kept in git: `git ls-files` names nothing (where this is a git checkout).
    if let Ok(out) = std::process::Command::new("git")
        .args(["ls-files", "configs/app/hello.jar"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
    {
        assert!(
            out.stdout.is_empty(),
            "configs/app/hello.jar is kept in git"
        );
    }
}
