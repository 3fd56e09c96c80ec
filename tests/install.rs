//! One file to copy: the agent library travels inside `pretouch` (build.rs, then
//! `launch::agent`), so the binary alone in an empty folder measures as the built tree
//! does; `--agent` and PRETOUCH_AGENT still override; each result file names the agent's
//! hash, and so does `--version`.

mod common;

use std::path::Path;

use common::*;
use pretouch::launch::agent::{EMBEDDED, EMBEDDED_SHA256, sha256_hex};
use serde_json::Value;

/// The names a JVM looks up in an agent library (`Agent_OnLoad`, JNI natives).
fn exported_entry_points(bytes: &[u8]) -> Vec<String> {
    let mut names: Vec<String> = bytes
        .split(|b| !(b.is_ascii_alphanumeric() || *b == b'_'))
        .filter(|w| w.starts_with(b"Agent_On") || w.starts_with(b"Java_"))
        .map(|w| String::from_utf8_lossy(w).into_owned())
        .collect();
    names.sort();
    names.dedup();
    names
}

#[test]
fn the_embedded_agent_is_the_cdylib_the_build_made() {
    let built = std::fs::read(env!("PRETOUCH_AGENT_LIB")).unwrap();
    assert!(
        built == EMBEDDED,
        "the embedded bytes are not build.rs's cdylib"
    );
    assert_eq!(sha256_hex(EMBEDDED), EMBEDDED_SHA256);
    assert_eq!(&EMBEDDED[..4], b"\x7fELF");
    assert_eq!(
        u16::from_le_bytes([EMBEDDED[16], EMBEDDED[17]]),
        3,
        "not ET_DYN"
    );
    let entry_points = exported_entry_points(EMBEDDED);
    assert!(
        entry_points.contains(&"Agent_OnLoad".to_owned()),
        "{entry_points:?}"
    );
    // `cargo build -p pretouch-agent`, as a user would build the file for --agent,
    // makes the same bytes: build.rs builds that crate alone, with the same profile.
    let file = std::fs::read(agent()).unwrap();
    assert!(
        file == EMBEDDED,
        "{} (sha256 {}) differs from the embedded agent (sha256 {EMBEDDED_SHA256})",
        agent().display(),
        sha256_hex(&file)
    );
}

#[test]
fn version_names_the_version_the_commit_and_the_agent_hash() {
    let out = pretouch().arg("--version").assert().success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(
        text.starts_with(&format!("pretouch {} ", env!("CARGO_PKG_VERSION"))),
        "{text}"
    );
    assert!(
        text.contains(&format!("agent sha256 {EMBEDDED_SHA256}")),
        "{text}"
    );
    let head = std::process::Command::new("git")
        .args([
            "-C",
            env!("CARGO_MANIFEST_DIR"),
            "rev-parse",
            "--short=12",
            "HEAD",
        ])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned());
    let commit = head.as_deref().unwrap_or("unknown");
    assert!(
        text.contains(&format!("(commit {commit},")),
        "{text} (HEAD is {commit})"
    );
}

fn tiny_matrix(dir: &Path) -> std::path::PathBuf {
    let jdk = jdks()[0].display().to_string();
    write_matrix(
        dir,
        &format!(
            "name: tiny\njdks: [{jdk:?}]\ngcs: [serial]\nheaps: [64m]\nrepetitions: 1\nwarmup: 0\n"
        ),
    )
}

/// The header and the launches of the one run under `results`.
fn only_result(results: &Path) -> (Value, Vec<Value>) {
    let records = records(results);
    let headers: Vec<&Value> = records.iter().filter(|r| r["record"] == "run").collect();
    assert_eq!(headers.len(), 1, "{records:?}");
    let launches = records.iter().filter(|r| r["record"] == "launch").cloned();
    (headers[0].clone(), launches.collect())
}

#[test]
fn a_copied_binary_runs_alone_in_an_empty_folder() {
    let _jvms = jvm_lock();
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("pretouch");
    std::fs::copy(env!("CARGO_BIN_EXE_pretouch"), &copy).unwrap();
    let matrix = tiny_matrix(dir.path());
    assert_cmd::Command::new(&copy)
        .current_dir(dir.path())
        .env_remove("PRETOUCH_AGENT")
        .arg("run")
        .arg(matrix.file_name().unwrap())
        .assert()
        .success();
    let (header, launches) = only_result(&dir.path().join("results"));
    let agent = header["agent"].as_str().unwrap();
    assert!(
        agent.starts_with("/proc/self/fd/"),
        "loaded {agent}, not the memfd"
    );
    assert_eq!(header["agent_sha256"], EMBEDDED_SHA256);
    assert_eq!(launches.len(), 2);
    for launch in &launches {
        assert_eq!(launch["exit_code"], 0, "{launch}");
        assert!(
            launch["stamps"]["main"]["ns"].is_u64(),
            "no main stamp: {launch}"
        );
    }
    // Nothing beside the binary was needed, and nothing but results was left.
    let mut left: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(left, ["matrix.yaml", "pretouch", "results"]);
}

#[test]
fn an_agent_file_overrides_the_built_in_one_and_its_hash_is_recorded() {
    let _jvms = jvm_lock();
    let file = agent();
    let file_sha = sha256_hex(&std::fs::read(file).unwrap());
    for by_env in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let matrix = tiny_matrix(dir.path());
        let mut cmd = pretouch();
        cmd.arg("run")
            .arg("--results")
            .arg(dir.path().join("results"));
        match by_env {
            true => cmd.env("PRETOUCH_AGENT", file),
            false => cmd.arg("--agent").arg(file),
        };
        cmd.arg(&matrix).assert().success();
        let (header, _) = only_result(&dir.path().join("results"));
        assert_eq!(
            header["agent"],
            file.canonicalize().unwrap().display().to_string()
        );
        assert_eq!(header["agent_sha256"], file_sha.as_str(), "by_env {by_env}");
    }
}

/// The `key = value` lines of one `[table]` of a manifest, comments and blanks left out.
fn table(manifest: &str, name: &str) -> Vec<(String, String)> {
    let heading = format!("[{name}]");
    manifest
        .lines()
        .skip_while(|l| l.trim() != heading)
        .skip(1)
        .take_while(|l| !l.starts_with('['))
        .filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.trim().to_owned(), v.trim().to_owned()))
        .collect()
}

#[test]
fn the_packaged_agent_manifest_names_the_workspace_dependencies() {
    // The published crate builds the agent from `jvm-agent/packaged.toml` (build.rs),
    // the workspace from `jvm-agent/crate/Cargo.toml`: the same crates, at the versions
    // the workspace pins, so both builds link the same code.
    let read = |path: &str| {
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(path)).unwrap()
    };
    let packaged = table(&read("jvm-agent/packaged.toml"), "dependencies");
    let in_workspace = table(&read("jvm-agent/crate/Cargo.toml"), "dependencies");
    let pinned = table(&read("Cargo.toml"), "workspace.dependencies");
    let names = |t: &[(String, String)]| t.iter().map(|(k, _)| k.clone()).collect::<Vec<_>>();
    let workspace_names: Vec<String> = names(&in_workspace)
        .iter()
        .map(|k| k.trim_end_matches(".workspace").to_owned())
        .collect();
    assert_eq!(names(&packaged), workspace_names);
    for (name, version) in &packaged {
        let pin = pinned.iter().find(|(k, _)| k == name);
        assert_eq!(
            pin.map(|(_, v)| v),
            Some(version),
            "jvm-agent/packaged.toml has {name} = {version}, the workspace {pin:?}"
        );
    }
}

#[test]
fn help_lists_generate() {
    let out = pretouch().arg("--help").assert().success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(
        text.lines()
            .any(|l| l.trim_start().starts_with("generate ")),
        "{text}"
    );
}

#[test]
fn generates_the_man_pages_and_each_shell_completion() {
    for shell in ["bash", "zsh", "fish"] {
        let out = pretouch().args(["generate", shell]).assert().success();
        assert!(
            out.get_output().stdout.len() > 1000,
            "`pretouch generate {shell}` printed almost nothing"
        );
    }
    let dir = tempfile::tempdir().unwrap();
    pretouch()
        .args(["generate", "man"])
        .arg(dir.path().join("man1"))
        .assert()
        .success();
    for page in ["pretouch.1", "pretouch-run.1", "pretouch-report.1"] {
        let text = std::fs::read_to_string(dir.path().join("man1").join(page)).unwrap();
        assert!(text.starts_with(".ie"), "{page} is not roff");
    }
}

#[test]
fn a_resume_with_another_agent_says_so_and_records_its_hash() {
    let _jvms = jvm_lock();
    let dir = tempfile::tempdir().unwrap();
    let matrix = tiny_matrix(dir.path());
    let results = dir.path().join("results");
    // Another agent: the same library with bytes after its end, which the loader ignores.
    let other = dir.path().join("other-agent.so");
    let mut bytes = EMBEDDED.to_vec();
    bytes.extend_from_slice(b"\0another build");
    std::fs::write(&other, &bytes).unwrap();
    pretouch()
        .arg("run")
        .arg("--agent")
        .arg(&other)
        .arg("--results")
        .arg(&results)
        .arg(&matrix)
        .assert()
        .success();
    // As if stopped after the first launch: the second launch and the end record gone.
    let file = jsonl_files(&results).pop().unwrap();
    let text = std::fs::read_to_string(&file).unwrap();
    let kept: Vec<&str> = text
        .lines()
        .filter(|l| !l.contains(r#""record":"end""#))
        .collect();
    let launches: Vec<usize> = (0..kept.len())
        .filter(|i| kept[*i].contains(r#""record":"launch""#))
        .collect();
    assert_eq!(launches.len(), 2, "{text}");
    let cut = kept[..launches[1]].join("\n") + "\n";
    std::fs::write(&file, cut).unwrap();

    let out = pretouch()
        .args(["run", "--resume"])
        .arg(&file)
        .assert()
        .success();
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(
        stderr.contains(&format!(
            "was started with another agent, sha256 {}.",
            sha256_hex(&bytes)
        )),
        "{stderr}"
    );
    let records = records(&results);
    let resume = records.iter().find(|r| r["record"] == "resume").unwrap();
    assert_eq!(resume["agent_sha256"], EMBEDDED_SHA256);
    assert_eq!(
        records.iter().filter(|r| r["record"] == "launch").count(),
        2
    );
}
