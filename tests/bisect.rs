//! scripts/bisect-kernel.sh driving a real `git bisect run` over a small history made
//! here, with prepared result files instead of kernels: each commit's `kind` file names
//! the results its step gets, so no kernel is built or booted and nothing needs a
//! network. The exit codes of `pretouch check` must lead bisect to the first bad
//! commit, and its 125 must make bisect skip.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use pretouch::fixtures::write_g1_label as label;

fn script() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scripts/bisect-kernel.sh")
}

/// The prepared results, a folder per kind, each with the labels `good` and `bisect`:
/// `same` costs what good does, `slow` 50% more, `few` 50% more over too few rounds
/// for an interval. `broken` has none, because its build fails.
fn fixtures(dir: &Path) {
    for (kind, cost, n) in [("same", 400.0, 20), ("slow", 600.0, 20), ("few", 600.0, 5)] {
        let d = dir.join(kind);
        label(&d, "good", "2026-12-05T08:00:00Z", 400.0, 20);
        label(&d, "bisect", "2026-12-05T08:10:00Z", cost, n);
    }
}

fn git(repo: &Path, args: &[&str]) -> Output {
    let out = Command::new("git")
        .current_dir(repo)
        .args(args)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", repo)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .output()
        .expect("running git");
    assert!(
        out.status.success() || args[0] == "bisect",
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// A history of one commit a kind, in order, each writing `kind`; the hashes.
fn history(repo: &Path, kinds: &[&str]) -> Vec<String> {
    git(repo, &["init", "-q", "-b", "main"]);
    kinds
        .iter()
        .enumerate()
        .map(|(i, kind)| {
            std::fs::write(repo.join("kind"), kind).unwrap();
            git(repo, &["add", "kind"]);
            git(
                repo,
                &[
                    "commit",
                    "-q",
                    "--allow-empty",
                    "-m",
                    &format!("step {i}: {kind}"),
                ],
            );
            let out = git(repo, &["rev-parse", "HEAD"]);
            String::from_utf8(out.stdout).unwrap().trim().to_owned()
        })
        .collect()
}

/// The script's settings for a step: the build fails for `broken`, and the run copies
/// the kind's prepared results.
fn fake(cmd: &mut Command, fix: &Path, results: &Path) {
    cmd.env("PRETOUCH", env!("CARGO_BIN_EXE_pretouch"))
        .env_remove("PRETOUCH_AGENT")
        .env("BISECT_FIXTURES", fix)
        .env("BISECT_RESULTS", results)
        .env("BISECT_BUILD_CMD", r#"test "$(cat kind)" != broken"#)
        .env(
            "BISECT_RUN_CMD",
            r#"cp -r "$BISECT_FIXTURES/$(cat kind)/." "$BISECT_RESULTS_DIR/""#,
        );
}

#[test]
fn each_kind_of_commit_gets_its_exit_code() {
    let tmp = tempfile::tempdir().unwrap();
    let (fix, repo) = (tmp.path().join("fix"), tmp.path().join("repo"));
    std::fs::create_dir_all(&repo).unwrap();
    fixtures(&fix);
    let commits = history(&repo, &["same", "slow", "few", "broken"]);
    for (commit, expected) in commits.iter().zip([0, 1, 125, 125]) {
        git(&repo, &["checkout", "-q", commit]);
        let mut cmd = Command::new(script());
        cmd.current_dir(&repo);
        fake(&mut cmd, &fix, &tmp.path().join("results"));
        let out = cmd.output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout).into_owned()
            + &String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(expected), "{commit}: {text}");
        if expected == 125 && text.contains("build failed") {
            assert!(
                !text.contains("verdict:"),
                "no check after a failed build: {text}"
            );
        } else {
            assert!(text.contains("verdict: "), "{text}");
        }
    }
    // A run that refuses its input stops the bisection, because every commit would.
    git(&repo, &["checkout", "-q", &commits[0]]);
    let mut cmd = Command::new(script());
    cmd.current_dir(&repo);
    fake(&mut cmd, &fix, &tmp.path().join("results"));
    cmd.env("BISECT_RUN_CMD", "exit 2");
    let out = cmd.output().unwrap();
    assert_eq!(out.status.code(), Some(128));
    // A good kernel that left no results this once only skips the commit.
    cmd.env("BISECT_RUN_CMD", "true");
    let out = cmd.output().unwrap();
    assert_eq!(out.status.code(), Some(125));
    // So does a run that failed for this commit's kernel.
    cmd.env("BISECT_RUN_CMD", "exit 3");
    let out = cmd.output().unwrap();
    assert_eq!(out.status.code(), Some(125));
}

#[test]
fn git_bisect_run_finds_the_first_bad_commit_and_skips_the_undecided_ones() {
    let tmp = tempfile::tempdir().unwrap();
    let (fix, repo) = (tmp.path().join("fix"), tmp.path().join("repo"));
    std::fs::create_dir_all(&repo).unwrap();
    fixtures(&fix);
    // Undecided and broken commits in the middle, where bisect looks first.
    let kinds = [
        "same", "same", "same", "few", "broken", "few", "same", "slow", "slow", "slow",
    ];
    let commits = history(&repo, &kinds);
    let first_bad = &commits[7];
    git(&repo, &["bisect", "start", &commits[9], &commits[0]]);
    let mut cmd = Command::new("git");
    cmd.current_dir(&repo)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", &repo)
        .args(["bisect", "run"])
        .arg(script());
    fake(&mut cmd, &fix, &tmp.path().join("results"));
    let out = cmd.output().unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains(&format!("{first_bad} is the first bad commit")),
        "{text}"
    );
    let log = String::from_utf8(git(&repo, &["bisect", "log"]).stdout).unwrap();
    let skipped: Vec<&str> = log
        .lines()
        .filter_map(|l| l.strip_prefix("git bisect skip "))
        .collect();
    assert!(!skipped.is_empty(), "bisect skipped nothing: {log}");
    for s in &skipped {
        let i = commits.iter().position(|c| c == s).unwrap();
        assert!(
            matches!(kinds[i], "few" | "broken"),
            "skipped {s}, a `{}` commit: {log}",
            kinds[i]
        );
    }
    // Every commit bisect called good or bad was judged as its kind says.
    for (verb, want) in [("good", "same"), ("bad", "slow")] {
        for c in log
            .lines()
            .filter_map(|l| l.strip_prefix(&format!("git bisect {verb} ")))
        {
            let i = commits.iter().position(|x| x == c).unwrap();
            assert_eq!(kinds[i], want, "{verb} {c}: {log}");
        }
    }
}
