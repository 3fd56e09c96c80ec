//! What a JDK answers before a run (its version, its flag table, the collectors that
//! start) is asked once per JDK binary and kept in the cache folder: a run asks only
//! about the matrix's collectors, a second run asks nothing, a changed binary is asked
//! again, and a damaged or foreign entry is ignored and rewritten. Real JVMs, 64m heaps,
//! behind a `java` that logs every start before it runs the real one.

mod common;

use std::path::{Path, PathBuf};

use common::*;
use serde_json::Value;

/// A JDK home whose `bin/java` logs its arguments (one line a start) to `starts`, then
/// runs `real`'s java; its `lib/server/libjvm.so` is a small file of its own, so that a
/// test can change it.
struct LoggingJdk {
    home: PathBuf,
    starts: PathBuf,
}

impl LoggingJdk {
    fn new(root: &Path, real: &Path) -> LoggingJdk {
        use std::os::unix::fs::PermissionsExt;
        let home = root.join("logging-jdk");
        let starts = root.join("java-starts");
        std::fs::create_dir_all(home.join("bin")).unwrap();
        std::fs::create_dir_all(home.join("lib/server")).unwrap();
        std::fs::write(home.join("lib/server/libjvm.so"), "a stand-in").unwrap();
        std::fs::copy(real.join("release"), home.join("release")).unwrap();
        let java = home.join("bin/java");
        std::fs::write(
            &java,
            format!(
                "#!/bin/sh\necho \"$*\" >> '{}'\nexec '{}' \"$@\"\n",
                starts.display(),
                real.join("bin/java").display()
            ),
        )
        .unwrap();
        std::fs::set_permissions(&java, std::fs::Permissions::from_mode(0o755)).unwrap();
        LoggingJdk { home, starts }
    }

    /// The starts that asked the JDK something (they end with `-version`), not the
    /// launches measured; the log is emptied.
    fn questions(&self) -> Vec<String> {
        let text = std::fs::read_to_string(&self.starts).unwrap_or_default();
        std::fs::write(&self.starts, "").unwrap();
        text.lines()
            .filter(|l| l.ends_with("-version"))
            .map(str::to_owned)
            .collect()
    }
}

/// The cache's entries: (file, parsed).
fn entries(cache: &Path) -> Vec<(PathBuf, Value)> {
    std::fs::read_dir(cache.join("jdks"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| {
            let text = std::fs::read_to_string(e.path()).unwrap();
            (e.path(), serde_json::from_str(&text).unwrap_or(Value::Null))
        })
        .collect()
}

#[test]
fn a_jdk_is_asked_once_per_binary_and_only_about_the_matrixs_collectors() {
    let _jvms = jvm_lock();
    let dir = tempfile::tempdir().unwrap();
    let jdk = LoggingJdk::new(dir.path(), &jdks()[0]);
    let cache = dir.path().join("cache");
    let matrix = write_matrix(
        dir.path(),
        &format!(
            "name: c\njdks: [{:?}]\ngcs: [g1]\nheaps: [64m]\nrepetitions: 1\nwarmup: 0\n",
            jdk.home.display().to_string()
        ),
    );
    let results = dir.path().join("results");
    let run = || {
        run_labelled("k", &results)
            .env("PRETOUCH_CACHE_DIR", &cache)
            .arg(&matrix)
            .assert()
            .success();
        assert_no_java_left();
    };

    // First run: one start prints the version and the flag table and tries G1; no
    // other collector is tried.
    run();
    let asked = jdk.questions();
    assert_eq!(
        asked,
        ["-XX:+UnlockExperimentalVMOptions -XX:+PrintFlagsFinal -XX:+UseG1GC -Xmx64m -version"]
    );
    let stored = entries(&cache);
    assert_eq!(stored.len(), 1, "{stored:?}");
    let (file, entry) = &stored[0];
    assert_eq!(entry["format"], 1, "{entry}");
    assert_eq!(
        entry["answers"]["started"],
        serde_json::json!(["g1"]),
        "{entry}"
    );
    // The header records what was asked, and that nothing else was.
    let header = records(&results)
        .into_iter()
        .find(|r| r["record"] == "run")
        .unwrap();
    let collectors = &header["jdks"][0]["collectors"];
    assert_eq!(
        collectors["asked"],
        serde_json::json!(["g1"]),
        "{collectors}"
    );
    assert_eq!(
        collectors["available"],
        serde_json::json!(["g1"]),
        "{collectors}"
    );
    // The version text is what `java -version` alone prints.
    let alone = std::process::Command::new(jdks()[0].join("bin/java"))
        .arg("-version")
        .output()
        .unwrap();
    assert_eq!(
        header["jdks"][0]["version_output"],
        String::from_utf8_lossy(&alone.stderr).trim(),
        "{header}"
    );

    // Second run, the binaries unchanged: no JVM starts before the launches.
    run();
    assert_eq!(jdk.questions(), Vec::<String>::new());

    // A changed libjvm.so (a JDK update): asked again, entry rewritten.
    std::thread::sleep(std::time::Duration::from_millis(20));
    std::fs::write(jdk.home.join("lib/server/libjvm.so"), "a newer one").unwrap();
    run();
    assert_eq!(jdk.questions().len(), 1);
    // So is a touched `java`.
    std::thread::sleep(std::time::Duration::from_millis(20));
    let java = std::fs::read(jdk.home.join("bin/java")).unwrap();
    std::fs::write(jdk.home.join("bin/java"), java).unwrap();
    run();
    assert_eq!(jdk.questions().len(), 1);
    run();
    assert_eq!(jdk.questions().len(), 0, "and kept again");

    // A damaged entry is not trusted: asked again, rewritten whole.
    let good = std::fs::read_to_string(file).unwrap();
    std::fs::write(file, &good[..good.len() / 2]).unwrap();
    run();
    assert_eq!(jdk.questions().len(), 1);
    let rewritten = &entries(&cache)[0].1;
    assert_eq!(
        (&rewritten["format"], &rewritten["answers"]),
        (&entry["format"], &entry["answers"])
    );

    // A foreign entry (another format; another binary's key) is ignored and rewritten.
    for foreign in [
        good.replace("\"format\": 1", "\"format\": 2"),
        good.replace(&dir.path().display().to_string(), "/another/place"),
    ] {
        std::fs::write(file, &foreign).unwrap();
        run();
        assert_eq!(jdk.questions().len(), 1, "{foreign}");
        assert_eq!(entries(&cache)[0].1["format"], 1);
        run();
        assert_eq!(jdk.questions().len(), 0, "rewritten: {foreign}");
    }
}

#[test]
fn a_collector_the_jdk_lacks_is_still_refused_with_every_collector_it_has() {
    let _jvms = jvm_lock();
    let dir = tempfile::tempdir().unwrap();
    // A JDK with one ZGC mode (all but 21-23) lacks `zgc-generational`.
    let Some(real) = jdks()
        .into_iter()
        .find(|j| jdk_feature(j).is_some_and(|f| !(21..=23).contains(&f)))
    else {
        skipped(
            "a_collector_the_jdk_lacks_is_still_refused_with_every_collector_it_has",
            "jdk 17",
            "a JDK with one ZGC mode",
        );
        return;
    };
    let jdk = LoggingJdk::new(dir.path(), &real);
    let cache = dir.path().join("cache");
    let matrix = write_matrix(
        dir.path(),
        &format!(
            "name: c\njdks: [{:?}]\ngcs: [g1, zgc-generational]\nheaps: [64m]\nrepetitions: 1\n",
            jdk.home.display().to_string()
        ),
    );
    let results = dir.path().join("results");
    for _ in 0..2 {
        let out = run_labelled("k", &results)
            .env("PRETOUCH_CACHE_DIR", &cache)
            .arg(&matrix)
            .assert()
            .code(2);
        let stderr = unwrapped(&out.get_output().stderr);
        assert!(
            stderr.contains("has no `zgc-generational`")
                && stderr.contains("It has g1, parallel, serial"),
            "{stderr}"
        );
    }
    assert!(jsonl_files(&results).is_empty());
}

/// The suite's runs keep their answers under the build folder (`.cargo/config.toml`),
/// never in the user's cache folder.
#[test]
fn the_suite_never_writes_the_users_cache() {
    let dir = std::env::var_os("PRETOUCH_CACHE_DIR").expect("set by .cargo/config.toml");
    let dir = std::path::PathBuf::from(dir);
    assert!(
        dir.starts_with(Path::new(env!("CARGO_MANIFEST_DIR"))),
        "{dir:?}"
    );
    assert_eq!(jdk_cache(), dir);
}
