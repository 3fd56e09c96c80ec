//! `pretouch check` on fixed result files: each exit code (0 pass, 1 regression, 125
//! undecided from an interval across the threshold and from too few rounds, 2 bad
//! input), its lines, and its agreement with the interval `pretouch report` prints.

use std::path::Path;

use assert_cmd::Command;
use predicates::prelude::*;
use pretouch::fixtures::{
    FakeCell, file, host, rounds_costing as cell, write_g1_label as label,
    write_result_file as write,
};
use pretouch::matrix::Gc;

fn pretouch() -> Command {
    let mut cmd = Command::cargo_bin("pretouch").unwrap();
    cmd.env_remove("PRETOUCH_AGENT");
    cmd
}

/// A baseline `base` of 400 ms over 20 rounds, and these patches: `same` (400 ms),
/// `grew` (600 ms), `fell` (250 ms), `near` (420 ms: 5% more, the threshold itself) and
/// `short` (800 ms, over 5 rounds only).
fn results() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    label(d, "base", "2026-12-01T08:00:00Z", 400.0, 20);
    label(d, "same", "2026-12-01T09:00:00Z", 400.0, 20);
    label(d, "grew", "2026-12-01T10:00:00Z", 600.0, 20);
    label(d, "fell", "2026-12-01T11:00:00Z", 250.0, 20);
    label(d, "near", "2026-12-01T12:00:00Z", 420.0, 20);
    label(d, "short", "2026-12-01T13:00:00Z", 800.0, 5);
    dir
}

fn check(dir: &Path, patch: &str, extra: &[&str]) -> assert_cmd::assert::Assert {
    pretouch()
        .arg("check")
        .arg(dir)
        .args(["--baseline", "base", "--label", patch, "--max-change", "5%"])
        .args(extra)
        .assert()
}

#[test]
fn no_change_passes_with_exit_0() {
    let dir = results();
    check(dir.path(), "same", &[])
        .code(0)
        .stdout(predicate::str::starts_with("pass: 17."))
        .stdout(predicate::str::contains(
            " g1 1g default `same` against `base`: change ",
        ))
        .stdout(predicate::str::contains("wholly below +5.0%"))
        .stdout(predicate::str::contains(
            "verdict: pass, because the change of the one cell against `base` lies below +5% with its whole interval (exit 0)",
        ));
}

#[test]
fn a_growth_beyond_the_threshold_is_a_regression_with_exit_1() {
    let dir = results();
    let out = check(dir.path(), "grew", &[]).code(1).get_output().clone();
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines.len(),
        2,
        "one line per deciding cell, then the verdict: {text}"
    );
    assert!(lines[0].starts_with("regression: 17."), "{text}");
    assert!(
        lines[0].contains(" g1 1g default `grew` against `base`: "),
        "{text}"
    );
    assert!(lines[0].ends_with("wholly above +5.0%"), "{text}");
    let (change, low, high) = figures(lines[0]);
    assert!(5.0 < low && low < change && change < high, "{text}");
    assert!(lines[1].starts_with("verdict: regression,"), "{text}");
    assert!(lines[1].contains("grew by more than 5%"), "{text}");
}

#[test]
fn a_fall_passes_unless_both_directions_count() {
    let dir = results();
    check(dir.path(), "fell", &[]).code(0);
    check(dir.path(), "fell", &["--direction", "both"])
        .code(1)
        .stdout(predicate::str::contains("wholly beyond +-5%"))
        .stdout(predicate::str::contains(
            "changed by more than 5% either way",
        ));
    check(dir.path(), "same", &["--direction", "both"]).code(0);
}

#[test]
fn an_interval_across_the_threshold_is_undecided_with_exit_125() {
    let dir = results();
    check(dir.path(), "near", &[])
        .code(125)
        .stdout(predicate::str::contains("straddles +5.0%"))
        .stdout(predicate::str::contains(
            "exit 125, which `git bisect run` reads as skip",
        ));
    // The same change against a threshold in ms far from it decides.
    pretouch()
        .arg("check")
        .arg(dir.path())
        .args(["--baseline", "base", "--labels", "near"])
        .args(["--max-change", "100ms"])
        .assert()
        .code(0)
        .stdout(predicate::str::contains(" ms to +"))
        .stdout(predicate::str::contains("wholly below +100.0 ms"));
}

#[test]
fn too_few_rounds_for_an_interval_is_undecided_with_exit_125() {
    let dir = results();
    let out = check(dir.path(), "short", &[])
        .code(125)
        .get_output()
        .clone();
    let text = String::from_utf8(out.stdout).unwrap();
    let line = text.lines().next().unwrap();
    assert!(
        line.contains("too few rounds for an interval (5 rounds here"),
        "{text}"
    );
    assert!(!line.contains("interval +"), "no interval: {text}");
    // The change is still shown, and it is far beyond the threshold: rounds decide.
    let change: f64 = number_after(line, "change ");
    assert!(change > 50.0, "{text}");
}

#[test]
fn a_regression_decides_over_undecided_and_passing_labels() {
    let dir = results();
    let out = pretouch()
        .arg("check")
        .arg(dir.path())
        .args(["--baseline", "base", "--max-change", "5%"])
        .assert()
        .code(1)
        .get_output()
        .clone();
    let text = String::from_utf8(out.stdout).unwrap();
    // Only the deciding cell is named: the regression, not the others.
    assert!(text.contains("`grew` against `base`"), "{text}");
    for other in ["same", "near", "short", "fell"] {
        assert!(!text.contains(&format!("`{other}`")), "{text}");
    }
    assert!(text.contains("1 of 5 cells"), "{text}");
}

#[test]
fn bad_input_exits_2_never_1_or_125() {
    let dir = results();
    check(dir.path(), "nope", &[])
        .code(2)
        .stderr(predicate::str::contains("no results are labelled `nope`"));
    check(dir.path(), "base", &[])
        .code(2)
        .stderr(predicate::str::contains(
            "--labels `base` is the baseline itself",
        ));
    pretouch()
        .arg("check")
        .arg(dir.path().join("missing"))
        .args(["--max-change", "5%"])
        .assert()
        .code(2);
    let junk = dir.path().join("junk.jsonl");
    std::fs::write(&junk, "not a result file\n").unwrap();
    pretouch()
        .arg("check")
        .arg(&junk)
        .args(["--max-change", "5%"])
        .assert()
        .code(2);
    // A threshold without its unit.
    check(dir.path(), "grew", &["--max-change", "5"]).code(2);
    // One label alone: nothing to hold against the baseline.
    let one = tempfile::tempdir().unwrap();
    label(one.path(), "base", "2026-12-01T08:00:00Z", 400.0, 20);
    pretouch()
        .arg("check")
        .arg(one.path())
        .args(["--max-change", "5%"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("only the label `base`"));
}

#[test]
fn copies_links_and_repeated_lines_leave_the_verdict_as_it_was() {
    let dir = results();
    let near = dir.path().join("near");
    let file = std::fs::read_dir(&near)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    // A copy, links back to the folders, and a copy whose every launch line is twice.
    std::fs::copy(&file, near.join("copy.jsonl")).unwrap();
    std::os::unix::fs::symlink("..", near.join("up")).unwrap();
    std::os::unix::fs::symlink(".", near.join("self")).unwrap();
    let text = std::fs::read_to_string(&file).unwrap();
    let doubled: String = text
        .lines()
        .flat_map(|l| {
            let twice = l.contains(r#""record":"launch""#);
            std::iter::repeat_n(l, 1 + usize::from(twice))
        })
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(near.join("doubled.jsonl"), doubled).unwrap();
    check(dir.path(), "near", &[])
        .code(125)
        .stdout(predicate::str::contains("straddles +5.0%"));
}

#[test]
fn a_file_it_cannot_read_makes_the_verdict_exit_2_at_once() {
    let dir = results();
    let fifo = dir.path().join("near").join("fifo.jsonl");
    let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: `c` is a NUL-terminated path that lives across the call.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    check(dir.path(), "grew", &[])
        .code(2)
        .stderr(predicate::str::contains(
            "fifo.jsonl` is skipped, so a verdict would leave its launches out",
        ))
        .stderr(predicate::str::contains("it is a FIFO, not a regular file"));
    std::fs::remove_file(&fifo).unwrap();
    // A file of a newer format is skipped, and the verdict is not given.
    let newer = dir.path().join("same").join("newer.jsonl");
    std::fs::write(&newer, r#"{"record":"run","format":99}"#.to_owned() + "\n").unwrap();
    check(dir.path(), "grew", &[])
        .code(2)
        .stderr(predicate::str::contains("has record format 99"));
}

/// The verdict reads the interval the report's JSON holds for the same files.
#[test]
fn the_verdict_agrees_with_the_reports_interval() {
    let dir = results();
    for (patch, code) in [("same", 0), ("grew", 1), ("near", 125)] {
        let json = pretouch()
            .arg("report")
            .arg(dir.path())
            .args(["--labels", &format!("base,{patch}"), "--format", "json"])
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        let v: serde_json::Value = serde_json::from_slice(&json).unwrap();
        let (low, high) = interval(&v).expect("the report's JSON has the change's interval");
        let expected = if low > 5.0 {
            1
        } else if high < 5.0 {
            0
        } else {
            125
        };
        assert_eq!(expected, code, "{patch}: {low} to {high}");
        check(dir.path(), patch, &[]).code(code);
    }
}

/// The number that follows `after` in `line`, with its sign: `+12.5` of `change +12.5%`.
fn number_after(line: &str, after: &str) -> f64 {
    let rest = &line[line
        .find(after)
        .unwrap_or_else(|| panic!("{after:?} in {line}"))
        + after.len()..];
    let end = rest
        .find(|c: char| !(c.is_ascii_digit() || "+-.".contains(c)))
        .unwrap_or(rest.len());
    rest[..end]
        .parse()
        .unwrap_or_else(|e| panic!("{e}: {line}"))
}

/// A cell line's change and its interval's bounds.
fn figures(line: &str) -> (f64, f64, f64) {
    let low = number_after(line, "% interval ");
    let high = number_after(line, "% to ");
    (number_after(line, "change "), low, high)
}

/// The first `change_percent_low` and `change_percent_high` in the JSON.
fn interval(v: &serde_json::Value) -> Option<(f64, f64)> {
    match v {
        serde_json::Value::Object(m) => {
            if let (Some(l), Some(h)) = (
                m.get("change_percent_low").and_then(|x| x.as_f64()),
                m.get("change_percent_high").and_then(|x| x.as_f64()),
            ) {
                return Some((l, h));
            }
            m.values().find_map(interval)
        }
        serde_json::Value::Array(a) => a.iter().find_map(interval),
        _ => None,
    }
}

/// One label whose G1 1g cell ran under the settings `never` (400 ms) and `always`
/// (150 ms), as a matrix with a `settings:` axis stores it.
fn settings_file(dir: &Path) {
    let (never, always) = (cell(400.0, 20), cell(150.0, 20));
    let mut f = file(
        "thp",
        "2026-12-01T08:00:00Z",
        host("vm"),
        &[
            FakeCell {
                gc: Gc::G1,
                heap: "1g",
                rounds: &never,
            },
            FakeCell {
                gc: Gc::G1,
                heap: "1g",
                rounds: &always,
            },
        ],
    );
    let half = f.launches.len() / 2;
    for (i, l) in f.launches.iter_mut().enumerate() {
        l.cell.features.setting = Some(if i < half { "never" } else { "always" }.into());
    }
    write(dir, &f);
}

#[test]
fn judges_the_settings_axis_in_either_direction() {
    let dir = tempfile::tempdir().unwrap();
    settings_file(dir.path());
    let setting = |base: &str, extra: &[&str]| {
        pretouch()
            .arg("check")
            .arg(dir.path())
            .args(["--baseline-setting", base, "--max-change", "5%"])
            .args(extra)
            .assert()
    };
    setting("never", &[])
        .code(0)
        .stdout(predicate::str::contains("`always` against `never`"));
    setting("always", &[])
        .code(1)
        .stdout(predicate::str::contains("`never` against `always`"));
    setting("never", &["--direction", "both"]).code(1);
    setting("never", &["--setting", "always"]).code(0);
    setting("never", &["--setting", "sometimes"])
        .code(2)
        .stderr(predicate::str::contains(
            "--setting `sometimes`: there is no such setting",
        ));
    setting("sometimes", &[]).code(2);
    // Results without a settings axis.
    let plain = results();
    pretouch()
        .arg("check")
        .arg(plain.path())
        .args(["--baseline-setting", "never", "--max-change", "5%"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "--baseline-setting `never`: the results shown have no `settings:` axis",
        ));
}

/// The settings' options of the check are refused with the labels' options, `--setting`
/// is refused without `--baseline-setting`, and one setting alone is nothing to judge.
#[test]
fn the_settings_options_are_refused_where_they_cannot_judge() {
    let dir = tempfile::tempdir().unwrap();
    let check = |argv: &[&str]| {
        pretouch()
            .arg("check")
            .arg(dir.path())
            .args(["--max-change", "5%"])
            .args(argv)
            .assert()
            .code(2)
    };
    check(&["--setting", "always"]).stderr(predicate::str::contains(
        "the following required arguments were not provided:\n  --baseline-setting <NAME>",
    ));
    check(&["--baseline-setting", "never", "--baseline", "thp"]).stderr(predicate::str::contains(
        "'--baseline-setting <NAME>' cannot be used with '--baseline",
    ));
    let never = cell(400.0, 20);
    let mut f = file(
        "thp",
        "2026-12-01T08:00:00Z",
        host("vm"),
        &[FakeCell {
            gc: Gc::G1,
            heap: "1g",
            rounds: &never,
        }],
    );
    for l in &mut f.launches {
        l.cell.features.setting = Some("never".into());
    }
    write(dir.path(), &f);
    check(&["--baseline-setting", "never"]).stderr(predicate::str::contains(
        "--baseline-setting `never`: the results shown ran under one setting only, so there is \
         nothing to hold against it\n  fix: name results of a matrix with two settings or more",
    ));
}

#[test]
fn help_lists_the_verdicts_exit_codes() {
    let out = pretouch().args(["check", "--help"]).assert().success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let codes = text
        .split("Exit codes:")
        .nth(1)
        .expect("an Exit codes section");
    for code in [
        "0    pass",
        "1    regression",
        "2    bad input",
        "125  undecided",
    ] {
        assert!(codes.contains(code), "{code}: {text}");
    }
    assert!(codes.contains("git bisect run"), "{text}");
}

#[test]
fn report_help_lists_its_exit_codes_as_check_help_does() {
    let out = pretouch().args(["report", "--help"]).assert().success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let codes = text
        .split("Exit codes:")
        .nth(1)
        .expect("an Exit codes section");
    for code in [
        "0    The report was printed",
        "1    An error",
        "2    Bad input",
    ] {
        assert!(codes.contains(code), "{code}: {text}");
    }
}

#[test]
fn check_takes_labels_as_report_does_and_the_old_label_still() {
    let dir = results();
    for flag in ["--labels", "--label"] {
        pretouch()
            .arg("check")
            .arg(dir.path())
            .args(["--baseline", "base", flag, "same", "--max-change", "5%"])
            .assert()
            .code(0);
    }
}
