//! Every `--help` and `-h` of every command, the shell completions and the man pages,
//! byte for byte,
//! against the outputs kept in `tests/data/help-golden/`. Options move between files
//! when a feature takes its own, and clap prints an option where its struct is
//! flattened. So a move can reorder the help or the completions without any test of the
//! options' meaning noticing. A difference here is either a bug or a deliberate change,
//! which the commit that makes it names.
//!
//! `PRETOUCH_GOLDEN=write cargo test --test help_golden` rewrites the outputs. Then read
//! the diff.

mod common;

use std::path::PathBuf;

use clap::CommandFactory;
use pretouch::cmd::cli::Cli;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/help-golden")
}

/// The path of every command below `cmd` that shows in the help, `cmd`'s own first,
/// such as `["campaign", "status"]`.
fn command_paths(cmd: &clap::Command, path: Vec<String>, out: &mut Vec<Vec<String>>) {
    out.push(path.clone());
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        if sub.get_name() == "help" {
            continue;
        }
        let mut below = path.clone();
        below.push(sub.get_name().to_string());
        command_paths(sub, below, out);
    }
}

/// What the binary prints for `args`, with its exit code, at the width of a terminal
/// 100 columns wide.
fn output(args: &[String]) -> String {
    let out = common::pretouch()
        .args(args)
        .env("COLUMNS", "100")
        .output()
        .unwrap();
    format!(
        "exit {}\n{}{}",
        out.status.code().map_or("signal".into(), |c| c.to_string()),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Each kept output's file name and the arguments that print it.
fn cases() -> Vec<(String, Vec<String>)> {
    let mut paths = Vec::new();
    command_paths(&Cli::command(), Vec::new(), &mut paths);
    let mut cases = Vec::new();
    for path in paths {
        let name = if path.is_empty() {
            "pretouch".to_string()
        } else {
            format!("pretouch-{}", path.join("-"))
        };
        for (flag, suffix) in [("--help", "long"), ("-h", "short")] {
            let mut args = path.clone();
            args.push(flag.to_string());
            cases.push((format!("{name}.{suffix}.txt"), args));
        }
    }
    for shell in ["bash", "zsh", "fish"] {
        let args = vec!["generate".to_string(), shell.to_string()];
        cases.push((format!("completions.{shell}"), args));
    }
    cases
}

/// Each kept output's file name and what the binary prints now: the cases above, then
/// each man page that `pretouch generate man` writes. The man pages' header holds the
/// version, whose commit and agent's hash change with every commit, so it is kept as
/// `VERSION`.
fn outputs() -> Vec<(String, String)> {
    let version = common::pretouch().arg("--version").output().unwrap().stdout;
    let version = String::from_utf8(version).unwrap();
    let version = version.trim().trim_start_matches("pretouch ");
    assert!(!version.is_empty());
    let mut outputs: Vec<(String, String)> = cases()
        .into_iter()
        .map(|(name, args)| (name, output(&args)))
        .collect();
    let pages = tempfile::tempdir().unwrap();
    common::pretouch()
        .args(["generate", "man"])
        .arg(pages.path())
        .assert()
        .success();
    let mut names: Vec<String> = std::fs::read_dir(pages.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    for name in names {
        let page = std::fs::read_to_string(pages.path().join(&name)).unwrap();
        outputs.push((name, page.replace(version, "VERSION")));
    }
    outputs
}

#[test]
fn help_completions_and_man_pages_match_the_kept_outputs() {
    let write = std::env::var("PRETOUCH_GOLDEN").is_ok_and(|m| m == "write");
    let dir = root();
    std::fs::create_dir_all(&dir).unwrap();
    let outputs = outputs();
    let mut differ = Vec::new();
    for (name, got) in &outputs {
        let path = dir.join(name);
        if write {
            std::fs::write(&path, got).unwrap();
            continue;
        }
        let want =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        if &want != got {
            differ.push(name.clone());
            std::fs::write(dir.join(format!("{name}.got")), got).unwrap();
        }
    }
    assert!(
        differ.is_empty(),
        "{} of {} outputs differ from tests/data/help-golden (the new output is beside each, as .got; diff them): {differ:?}",
        differ.len(),
        outputs.len()
    );
}

/// The kept outputs are every command's, and a file no command prints any more is not
/// left behind to look pinned.
#[test]
fn every_kept_output_belongs_to_a_command() {
    let names: Vec<String> = outputs().into_iter().map(|(name, _)| name).collect();
    let mut stale = Vec::new();
    for entry in std::fs::read_dir(root()).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if !name.ends_with(".got") && !names.contains(&name) {
            stale.push(name);
        }
    }
    assert!(stale.is_empty(), "kept outputs of no command: {stale:?}");
    assert!(names.len() > 10, "the walk found only {names:?}");
}
