//! lab/playbook.yml, run for real with Ansible (scripts/setup-ansible.sh installs it) on
//! this machine through a local connection: two inventory hosts copy the binary, run a
//! tiny matrix and fetch their result files apart, into results/<host>/<label>/.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::*;
use serde_json::Value;

/// ansible-playbook from scripts/setup-ansible.sh's venv, or PATH.
fn ansible_playbook() -> Option<PathBuf> {
    let venv = std::env::var_os("PRETOUCH_ANSIBLE_VENV")
        .map_or_else(|| PathBuf::from("/opt/pretouch-ansible"), PathBuf::from);
    let in_venv = venv.join("bin/ansible-playbook");
    if in_venv.exists() {
        return Some(in_venv);
    }
    let on_path = Command::new("ansible-playbook").arg("--version").output();
    on_path
        .is_ok_and(|o| o.status.success())
        .then(|| PathBuf::from("ansible-playbook"))
}

fn jsonl_under(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut folders = vec![dir.to_owned()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|e| e == "jsonl") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

fn host_name() -> String {
    let out = Command::new("uname").arg("-n").output().unwrap();
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

#[test]
fn the_playbook_runs_the_matrix_on_each_host_and_fetches_the_files_apart() {
    let Some(playbook) = ansible_playbook() else {
        return skipped(
            "lab::the_playbook_runs_the_matrix_on_each_host_and_fetches_the_files_apart",
            "ansible",
            "lab/playbook.yml is not run (scripts/setup-ansible.sh installs Ansible)",
        );
    };
    let _jvms = jvm_lock();
    let dir = tempfile::tempdir().unwrap();
    let jdk = jdks()[0].display().to_string();
    let matrix = write_matrix(
        dir.path(),
        &format!(
            "name: lab\njdks: [{jdk:?}]\ngcs: [serial]\nheaps: [64m]\nrepetitions: 1\nwarmup: 0\n"
        ),
    );
    let remote = |host: &str| dir.path().join("hosts").join(host);
    let inventory = dir.path().join("inventory");
    std::fs::write(
        &inventory,
        format!(
            "lab-a ansible_connection=local pretouch_remote_dir={}\n\
             lab-b ansible_connection=local pretouch_remote_dir={}\n\
             [all:vars]\nansible_python_interpreter={{{{ ansible_playbook_python }}}}\n",
            remote("lab-a").display(),
            remote("lab-b").display(),
        ),
    )
    .unwrap();
    let results = dir.path().join("results");
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new(&playbook)
        // One host at a time: both are this machine, and two runs at once would disturb
        // each other's timings (a lab's hosts run in parallel).
        .args(["--forks", "1", "-i"])
        .arg(&inventory)
        .arg(repo.join("lab/playbook.yml"))
        .arg("-e")
        .arg(format!(
            "pretouch_binary={}",
            env!("CARGO_BIN_EXE_pretouch")
        ))
        .arg("-e")
        .arg(format!("pretouch_matrix={}", matrix.display()))
        .arg("-e")
        .arg(format!("pretouch_results={}", results.display()))
        .args(["-e", "pretouch_label=lab-kernel"])
        .env("ANSIBLE_NOCOLOR", "1")
        .env_remove("PRETOUCH_AGENT")
        .output()
        .unwrap();
    let log = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "ansible-playbook failed:\n{log}");

    // Each host ran the binary it was given, from its own folder, and kept its file;
    // here each file is under its host's name, the same label in both.
    for host in ["lab-a", "lab-b"] {
        assert!(
            remote(host).join("pretouch").exists(),
            "{host}: no binary copied"
        );
        let kept = jsonl_under(&remote(host).join("results"));
        let fetched = jsonl_under(&results.join(host).join("lab-kernel"));
        assert_eq!(kept.len(), 1, "{host}: {kept:?}");
        assert_eq!(fetched.len(), 1, "{host}: {fetched:?}\n{log}");
        assert_eq!(
            std::fs::read(&kept[0]).unwrap(),
            std::fs::read(&fetched[0]).unwrap()
        );
        let header: Value = serde_json::from_str(
            std::fs::read_to_string(&fetched[0])
                .unwrap()
                .lines()
                .next()
                .unwrap(),
        )
        .unwrap();
        assert_eq!(header["label"], "lab-kernel");
        assert!(
            header["agent"]
                .as_str()
                .unwrap()
                .starts_with("/proc/self/fd/")
        );
    }
    assert_eq!(jsonl_under(&results).len(), 2);

    // Both hosts are this machine. Standing in for a second machine, lab-b's file
    // names another host: the report keeps the one label apart per machine.
    let b = &jsonl_under(&results.join("lab-b"))[0];
    let text = std::fs::read_to_string(b).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let mut header: Value = serde_json::from_str(&lines[0]).unwrap();
    header["host"]["hostname"] = "second-machine".into();
    lines[0] = header.to_string();
    std::fs::write(b, lines.join("\n") + "\n").unwrap();
    let report = pretouch()
        .args(["report", "--format", "json"])
        .arg(&results)
        .assert()
        .success();
    let doc: Value = serde_json::from_slice(&report.get_output().stdout).unwrap();
    let labels = &doc["labels"];
    eprintln!("labels: {labels}");
    let this = host_name();
    assert_eq!(
        labels,
        &serde_json::json!([format!("lab-kernel@{this}"), "lab-kernel@second-machine"])
    );
}
