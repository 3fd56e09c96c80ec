//! The reports users see, byte for byte: every stored input under
//! `tests/data/report-golden/inputs/` (fixed-number fixtures, two real runs with a
//! profile and two calibrations, the format-1 file of before the restructure) in every
//! format and sub-report, against the outputs kept in `tests/data/report-golden/out/`.
//! They were written before the report pipeline was rebuilt. So a difference is either
//! a bug or a deliberate change, which the commit that makes it must name.
//!
//! `PRETOUCH_GOLDEN=write cargo test --test report_golden` rewrites the outputs (then
//! read the diff); `PRETOUCH_GOLDEN=inputs` also rewrites the fixture inputs from
//! `pretouch::fixtures` and the probe's and the servers' fixtures in their folders.

mod common;

use std::path::{Path, PathBuf};

use pretouch::features::probe::fixtures::{append_probes, lock_wait, probe_record};
use pretouch::features::servers::fixtures::server_launch;
use pretouch::fixtures::{
    FakeCell, file, g1_and_parallel, host, rounds, write_result_file, write_result_file_as,
};
use pretouch::matrix::Gc;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/report-golden")
}

/// The fixture inputs: two labels of fixed numbers (one with a failed launch and a slow
/// one), and two labels of server launches (time to ready, pay-back).
fn write_inputs(inputs: &Path) {
    let fixed = inputs.join("fixed");
    let _ = std::fs::remove_dir_all(&fixed);
    let slow = rounds(50.0, 420.0, true);
    let fast = rounds(50.0, 105.0, false);
    let mut par = rounds(52.0, 430.0, false);
    par[3].1 = f64::NAN;
    let par_fast = rounds(52.0, 110.0, false);
    write_result_file(
        &fixed,
        &file(
            "thp-madvise",
            "2026-11-30T08:00:00Z",
            host("vm"),
            &g1_and_parallel(&slow, &par),
        ),
    );
    write_result_file(
        &fixed,
        &file(
            "thp-always",
            "2026-11-30T08:10:00Z",
            host("vm"),
            &g1_and_parallel(&fast, &par_fast),
        ),
    );
    let server = inputs.join("server");
    let _ = std::fs::remove_dir_all(&server);
    for (label, started, faster) in [
        ("6.18.0-base", "2026-11-30T07:00:00Z", 0.0),
        ("6.18.0-new", "2026-11-30T07:30:00Z", 100.0),
    ] {
        let mut f = file(label, started, host("vm"), &[]);
        for round in 0..5u32 {
            let w = f64::from(round);
            for (pretouch, main, ready, work) in [
                (false, 90.0 + w, 560.0 + w, 240.0 - w),
                (
                    true,
                    320.0 + w - faster,
                    790.0 + 2.0 * w - faster,
                    200.0 + w,
                ),
            ] {
                let mut l = server_launch(pretouch, main, ready, Some(work));
                l.round = round;
                l.seq = f.launches.len() as u64;
                f.launches.push(l);
            }
        }
        f.header.planned_launches = f.launches.len() as u64;
        write_result_file(&server, &f);
    }
    write_probe_inputs(&inputs.join("probe"));
    write_runs_inputs(&inputs.join("runs"));
    write_settings_inputs(&inputs.join("settings"));
    write_three_inputs(&inputs.join("three"));
}

/// The cover letter's shape: three labels (a base kernel and two patches, each about
/// 11% cheaper at pretouch) of a G1 and a Parallel cell, 10 rounds each, nothing
/// wrong: no failure, no slow launch. Each launch records its peak RSS, about the 1g
/// heap and the JVM's own with pretouch and far less without.
fn write_three_inputs(dir: &Path) {
    let _ = std::fs::remove_dir_all(dir);
    for (label, started, g1, parallel) in [
        ("base", "2026-11-30T07:00:00Z", 420.0, 430.0),
        ("patch1", "2026-11-30T07:10:00Z", 374.0, 381.0),
        ("patch2", "2026-11-30T07:20:00Z", 375.0, 384.0),
    ] {
        let mut f = file(
            label,
            started,
            host("vm"),
            &g1_and_parallel(&rounds(50.0, g1, false), &rounds(52.0, parallel, false)),
        );
        for l in &mut f.launches {
            let mib = if l.pretouch { 1090 } else { 46 } + u64::from(l.round % 3);
            l.measured.rusage = Some(pretouch::launch::rusage::LaunchUsage {
                minflt: 0,
                majflt: 0,
                utime_ns: pretouch::units::Nanos(0),
                stime_ns: pretouch::units::Nanos(0),
                maxrss: None,
                peak_rss: Some(pretouch::units::Bytes(mib << 20)),
            });
        }
        write_result_file(dir, &f);
    }
}

/// One label run with a `settings:` axis of three values, rounds interleaved: under
/// `mthp-64k` the G1 cost is a third of `4k`'s, under `thp` a tenth; Parallel's moves
/// less. 12 rounds a cell, so that each change has its interval.
fn write_settings_inputs(dir: &Path) {
    let _ = std::fs::remove_dir_all(dir);
    let mut cells = Vec::new();
    let per: Vec<_> = [
        ("4k", 420.0, 430.0),
        ("mthp-64k", 160.0, 300.0),
        ("thp", 90.0, 428.0),
    ]
    .into_iter()
    .map(|(s, g1, par)| {
        let mut g1 = rounds(50.0, g1, false);
        let mut par = rounds(52.0, par, false);
        g1.extend(g1.clone()[..2].to_vec());
        par.extend(par.clone()[..2].to_vec());
        (s, g1, par)
    })
    .collect();
    for (setting, g1, par) in &per {
        cells.push((*setting, g1_and_parallel(g1, par)));
    }
    let mut f = file("vm-settings", "2026-11-30T09:00:00Z", host("vm"), &[]);
    for (setting, pair) in &cells {
        let one = file("vm-settings", "2026-11-30T09:00:00Z", host("vm"), pair);
        for mut l in one.launches {
            l.cell.features.setting = Some((*setting).to_owned());
            l.seq = f.launches.len() as u64;
            f.launches.push(l);
        }
    }
    f.header.planned_launches = f.launches.len() as u64;
    write_result_file(dir, &f);
}

/// Two labels of three runs each, in turn (base, patch, base, ...), 10 rounds a run:
/// each cell's interval is over its label's runs. The patch's G1 cost is 40 ms lower in
/// every run; its Parallel cost the same as the base's, a run's level moving by a few ms.
fn write_runs_inputs(dir: &Path) {
    let _ = std::fs::remove_dir_all(dir);
    for run in 0..3u32 {
        let drift = [0.0, 6.0, -4.0][run as usize];
        for (k, (label, g1_on)) in [("6.18.0-base", 420.0), ("6.18.0-patch", 380.0)]
            .into_iter()
            .enumerate()
        {
            let g1 = rounds(50.0, g1_on + drift, false);
            let par = rounds(52.0, 430.0 - drift, false);
            let started = format!("2026-11-30T0{}:{}0:00Z", 7 + run, 3 * k);
            let f = file(label, &started, host("vm"), &g1_and_parallel(&g1, &par));
            write_result_file_as(dir, &f, &format!("run-{run}.jsonl"));
        }
    }
}

/// Two labels of probed launches (`run --probe`) beside their timed ones: the new
/// kernel faults faster with pretouch and waits less on the zone lock; one of its probed
/// launches failed, and one of the base's counts 5% fewer faults than its agent.
fn write_probe_inputs(dir: &Path) {
    let _ = std::fs::remove_dir_all(dir);
    for (label, started, on_ms, base) in [
        ("6.18.0-base", "2026-11-30T09:00:00Z", 420.0, true),
        ("6.18.0-new", "2026-11-30T09:30:00Z", 300.0, false),
    ] {
        let timed = rounds(50.0, on_ms, false);
        let mut f = file(
            label,
            started,
            host("vm"),
            &[FakeCell {
                gc: Gc::G1,
                heap: "1g",
                rounds: &timed[..4],
            }],
        );
        f.header.extra_rounds.probe_rounds = Some(3);
        write_result_file(dir, &f);
        let cell = f.launches[0].cell.clone();
        let probes: Vec<_> = (0..6u64)
            .map(|seq| {
                let pretouch = seq % 2 == 1;
                let values: Vec<u64> = match (pretouch, base) {
                    (false, _) => (0..800)
                        .map(|j| 2_500 + (j * 37 + seq * 11) % 1_500)
                        .collect(),
                    (true, true) => (0..3_000)
                        .map(|j| match j % 50 {
                            0 => 40_000 + j * 10,
                            _ => 1_800 + seq * 60 + (j * 37) % 900,
                        })
                        .collect(),
                    (true, false) => (0..3_000)
                        .map(|j| match j % 50 {
                            0 => 20_000 + j * 5,
                            _ => 1_300 + seq * 40 + (j * 37) % 600,
                        })
                        .collect(),
                };
                let agent = if base && seq == 5 {
                    (values.len() as f64 * 1.05) as u64
                } else {
                    values.len() as u64 + 3 + seq
                };
                let ms = match (pretouch, base, seq) {
                    (_, false, 4) => f64::NAN,
                    (false, _, _) => 55.0 + seq as f64,
                    (true, _, _) => on_ms * 1.15 + seq as f64,
                };
                let locks = match (pretouch, base) {
                    (false, _) => Vec::new(),
                    (true, true) => vec![
                        lock_wait(
                            "0xffff88810a1c2d40",
                            "rmqueue_bulk+0x5b",
                            40,
                            400_000 + seq * 1_000,
                            30_000,
                        ),
                        lock_wait(
                            "contig_page_data",
                            "free_pcppages_bulk+0x46",
                            5,
                            20_000,
                            8_000,
                        ),
                    ],
                    (true, false) => vec![lock_wait(
                        "0xffff88810b2e4a00",
                        "rmqueue_bulk+0x5b",
                        10,
                        60_000 + seq * 500,
                        9_000,
                    )],
                };
                probe_record(&cell, seq, pretouch, ms, &values, agent, locks)
            })
            .collect();
        append_probes(dir, label, &probes);
    }
}

/// Every report kept: a name, and `pretouch report`'s arguments (run in the inputs folder).
fn cases() -> Vec<(String, Vec<String>)> {
    let mut cases = Vec::new();
    let sets: [(&str, &[&str]); 13] = [
        ("fixed-one", &["fixed/thp-madvise"]),
        ("fixed", &["fixed"]),
        ("server-one", &["server/6.18.0-base"]),
        ("server", &["server"]),
        ("real-one", &["real/results/k1"]),
        ("real", &["real/results"]),
        ("format1", &["../../format-1-before-restructure.jsonl"]),
        ("probe-one", &["probe/6.18.0-base"]),
        ("probe", &["probe"]),
        ("runs-one", &["runs/6.18.0-base"]),
        ("runs", &["runs"]),
        ("settings", &["settings"]),
        ("three", &["three"]),
    ];
    let formats = ["text", "markdown", "csv", "json"];
    for (set, paths) in sets {
        for format in formats {
            let mut args: Vec<String> = paths.iter().map(|p| p.to_string()).collect();
            args.extend(["--format".into(), format.into()]);
            cases.push((format!("{set}.{format}"), args.clone()));
            let extra: &[&[&str]] = &[&["--phases"], &["--exclude-outliers"], &["--details"]];
            for flags in extra {
                let mut a = args.clone();
                a.extend(flags.iter().map(|f| f.to_string()));
                cases.push((format!("{set}{}.{format}", flags.join("")), a));
            }
        }
    }
    // The HTML page of each set, the profile's flame graphs in it when there is one.
    for (set, paths) in sets {
        let mut args: Vec<String> = paths.iter().map(|p| p.to_string()).collect();
        args.extend(["--format".into(), "html".into()]);
        cases.push((format!("{set}.html"), args));
    }
    for format in formats {
        let f = |rest: &[&str]| -> Vec<String> {
            rest.iter()
                .map(|s| s.to_string())
                .chain(["--format".into(), format.into()])
                .collect()
        };
        cases.push((
            format!("real--profile.{format}"),
            f(&["real/results", "--profile"]),
        ));
        cases.push((
            format!("real-one--profile.{format}"),
            f(&["real/results/k1", "--profile"]),
        ));
        cases.push((
            format!("real--baseline-k2.{format}"),
            f(&["real/results", "--baseline", "k2"]),
        ));
        cases.push((
            format!("fixed--labels.{format}"),
            f(&["fixed", "--labels", "thp-always,thp-madvise"]),
        ));
        cases.push((
            format!("real-cal.{format}"),
            f(&["real/results", "real/calibrations"]),
        ));
        cases.push((
            format!("real-cal-k1.{format}"),
            f(&["real/results", "real/calibrations/k1"]),
        ));
        cases.push((
            format!("calibrate.{format}"),
            f(&["real/calibrations", "--calibrate"]),
        ));
        cases.push((
            format!("calibrate--labels.{format}"),
            f(&["real/calibrations", "--calibrate", "--labels", "k2,k1"]),
        ));
        cases.push((
            format!("calibrate-one.{format}"),
            f(&["real/calibrations/k1", "--calibrate"]),
        ));
        cases.push((
            format!("real--profile-csv.{format}"),
            f(&["real/results", "--profile-csv", "/dev/stdout"]),
        ));
        cases.push((
            format!("probe--probe-csv.{format}"),
            f(&["probe", "--probe-csv", "/dev/stdout"]),
        ));
    }
    cases.push((
        "three--labels--estimator.text".into(),
        vec![
            "three".into(),
            "--labels".into(),
            "base,patch1,patch2".into(),
            "--estimator".into(),
            "trimmed-mean".into(),
        ],
    ));
    cases.push((
        "bad-label.text".into(),
        vec!["fixed".into(), "--labels".into(), "nope".into()],
    ));
    cases.push(("empty.text".into(), vec!["fixed/none".into()]));
    cases.push((
        "settings--baseline-setting-thp.text".into(),
        vec!["settings".into(), "--baseline-setting".into(), "thp".into()],
    ));
    cases.push((
        "settings--baseline-setting-nope.text".into(),
        vec![
            "settings".into(),
            "--baseline-setting".into(),
            "nope".into(),
        ],
    ));
    cases.push((
        "fixed--probe-csv.text".into(),
        vec!["fixed".into(), "--probe-csv".into(), "/dev/null".into()],
    ));
    cases
}

fn run(inputs: &Path, args: &[String]) -> String {
    let out = common::pretouch()
        .current_dir(inputs)
        .arg("report")
        .args(args)
        .output()
        .unwrap();
    format!(
        "$ pretouch report {}\nexit: {}\n--- stdout\n{}--- stderr\n{}",
        args.join(" "),
        out.status.code().map_or("signal".into(), |c| c.to_string()),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[test]
fn reports_match_the_kept_outputs() {
    let mode = std::env::var("PRETOUCH_GOLDEN").unwrap_or_default();
    let inputs = root().join("inputs");
    if mode == "inputs" {
        write_inputs(&inputs);
    }
    let out = root().join("out");
    std::fs::create_dir_all(&out).unwrap();
    let mut differ = Vec::new();
    let cases = cases();
    for (name, args) in &cases {
        let got = run(&inputs, args);
        let path = out.join(name);
        if mode.is_empty() {
            let want = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            if want != got {
                differ.push(name.clone());
                std::fs::write(out.join(format!("{name}.got")), &got).unwrap();
            }
        } else {
            std::fs::write(&path, &got).unwrap();
        }
    }
    assert!(
        differ.is_empty(),
        "{} of {} reports differ from tests/data/report-golden/out (the new output is beside each, as .got; diff them): {differ:?}",
        differ.len(),
        cases.len()
    );
}

/// The fixture inputs are what `pretouch::fixtures` writes: the builder and the file
/// format still agree, record by record and key by key (the order of keys in a line is
/// no part of the format).
#[test]
fn fixture_inputs_are_what_the_fixtures_write() {
    let dir = tempfile::tempdir().unwrap();
    write_inputs(dir.path());
    let records = |path: PathBuf| -> Vec<serde_json::Value> {
        std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    };
    for sub in [
        "fixed/thp-madvise",
        "fixed/thp-always",
        "server/6.18.0-base",
        "server/6.18.0-new",
        "probe/6.18.0-base",
        "probe/6.18.0-new",
    ] {
        let kept = records(root().join("inputs").join(sub).join("fixed.jsonl"));
        let now = records(dir.path().join(sub).join("fixed.jsonl"));
        assert_eq!(kept, now, "{sub}");
    }
}

/// Every line a text report prints, in every kept text output, fits a patch email:
/// at most 72 characters and plain ASCII (`+-`, `us`), so that it pastes into a cover
/// letter unchanged. The kept outputs are what `reports_match_the_kept_outputs`
/// checks the program still prints, so this holds for the program, not only the files.
#[test]
fn text_reports_are_72_columns_of_ascii() {
    let out = root().join("out");
    let mut texts = 0;
    let mut bad = Vec::new();
    for entry in std::fs::read_dir(&out).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "text") {
            continue;
        }
        texts += 1;
        let kept = std::fs::read_to_string(&path).unwrap();
        // The report's own lines: what it printed on stdout and stderr, not the
        // `$ pretouch report ...` line the test writes above them.
        // A CSV asked for on stdout (`--probe-csv /dev/stdout`) is no text: its
        // rows, from its header to its last line of commas, are left out.
        let mut in_csv = false;
        let printed = kept
            .lines()
            .skip_while(|l| *l != "--- stdout")
            .skip(1)
            .filter(|l| *l != "--- stderr")
            // An error is one line, never wrapped, so that the path it names pastes
            // whole into a shell.
            .filter(|l| !l.starts_with("error: "))
            .filter(|l| {
                in_csv = if in_csv {
                    l.contains(',')
                } else {
                    l.starts_with("section,label,")
                };
                !in_csv
            });
        for (n, line) in printed.enumerate() {
            if line.chars().count() > 72 || !line.is_ascii() {
                bad.push(format!(
                    "{}:{}: {line}",
                    path.file_name().unwrap().to_string_lossy(),
                    n + 1
                ));
            }
        }
    }
    assert!(texts > 40, "only {texts} text outputs in {}", out.display());
    assert!(
        bad.is_empty(),
        "{} lines too wide or not ASCII:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

/// The report's stdout in a kept output.
fn stdout_of(name: &str) -> String {
    let kept = std::fs::read_to_string(root().join("out").join(name)).unwrap();
    kept.split_once("--- stdout\n")
        .and_then(|(_, rest)| rest.split_once("--- stderr"))
        .map(|(out, _)| out.to_owned())
        .unwrap()
}

/// The default report is the cover letter's table: with 2 cells x 3 labels and nothing
/// wrong, at most 15 lines of at most 72 plain ASCII columns; a column per label in the
/// order given, each change in % with its interval, the mark explained once. The kept
/// outputs are what `reports_match_the_kept_outputs` checks the program still prints.
#[test]
fn the_cover_letters_table_is_15_lines_of_72_columns() {
    for name in ["three.text", "three--labels--estimator.text"] {
        let stdout = stdout_of(name);
        let lines: Vec<&str> = stdout.lines().collect();
        assert!(
            lines.len() <= 15,
            "{name}: {} lines:\n{stdout}",
            lines.len()
        );
        for l in &lines {
            assert!(l.chars().count() <= 72 && l.is_ascii(), "{name}: {l}");
        }
        // The labels' columns, in the order given, over one table or more when they
        // do not fit 72 columns side by side.
        let headers: Vec<&str> = lines
            .iter()
            .filter(|l| l.starts_with("gc "))
            .copied()
            .collect();
        assert!(!headers.is_empty(), "{name}: no header:\n{stdout}");
        let order: String = headers.join(" ");
        let at = |label: &str| order.find(label).unwrap();
        assert!(
            at("base") < at("patch1") && at("patch1") < at("patch2"),
            "{order}"
        );
        for row in ["g1 ", "parallel "] {
            let rows: Vec<&&str> = lines.iter().filter(|l| l.starts_with(row)).collect();
            let changes: usize = rows.iter().map(|r| r.matches('%').count()).sum();
            let intervals: usize = rows.iter().map(|r| r.matches(" [").count()).sum();
            assert_eq!((changes, intervals), (2, 2), "{rows:?}");
        }
        assert!(stdout.contains("* marks"), "{stdout}");
    }
    assert!(stdout_of("three.text").starts_with("AlwaysPreTouch startup cost, ms (median of 10"));
    assert!(stdout_of("three--labels--estimator.text").contains("(20% trimmed mean of 10)"));
}

/// Each warning the default report gives is at most two lines and names where its
/// detail is; `--details` adds the spread, the outliers and the explaining tables,
/// each explaining table once for both labels.
#[test]
fn warnings_are_two_lines_and_details_come_on_request() {
    for name in ["fixed.text", "runs.text", "real.text", "fixed--labels.text"] {
        let stdout = stdout_of(name);
        // Each note: its first line, then at most one line indented by 2.
        let lines: Vec<&str> = stdout.lines().collect();
        let mut notes = 0;
        for (i, l) in lines.iter().enumerate() {
            if !(l.starts_with("warning: ")
                || l.starts_with("note: ")
                || l.starts_with("machine: "))
            {
                continue;
            }
            notes += 1;
            let more = lines[i + 1..]
                .iter()
                .take_while(|x| x.starts_with("  "))
                .count();
            assert!(more <= 1, "{name}: a note of more than 2 lines:\n{stdout}");
            let whole = lines[i..=i + more].join(" ");
            assert!(whole.contains("--"), "{name}: names no option: {whole}");
        }
        assert!(!stdout.contains("pretouch explained"), "{name}");
        assert!(notes <= 8, "{name}");
    }
    let details = stdout_of("fixed--details.text");
    assert!(
        details.contains("min-max ms") && details.contains("outliers"),
        "{details}"
    );
    assert_eq!(
        details.matches("expected is the heap").count(),
        1,
        "the explaining table and its legend once:\n{details}"
    );
}

/// docs/json.md names, in backticks, every key the kept golden reports' JSON holds, at
/// any depth: a key the program emits and the docs do not list fails here.
#[test]
fn json_md_lists_every_key() {
    fn keys(v: &serde_json::Value, into: &mut std::collections::BTreeSet<String>) {
        match v {
            serde_json::Value::Object(m) => {
                for (k, x) in m {
                    into.insert(k.clone());
                    keys(x, into);
                }
            }
            serde_json::Value::Array(a) => a.iter().for_each(|x| keys(x, into)),
            _ => {}
        }
    }
    let doc =
        std::fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("docs/json.md"))
            .unwrap();
    let mut all = std::collections::BTreeSet::new();
    let mut reports = 0;
    for entry in std::fs::read_dir(root().join("out")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "json") {
            continue;
        }
        let kept = std::fs::read_to_string(&path).unwrap();
        let stdout = kept
            .split_once("--- stdout\n")
            .and_then(|(_, rest)| rest.split_once("--- stderr"))
            .map(|(out, _)| out)
            .unwrap();
        // `--profile-csv /dev/stdout` and the like print a CSV, no JSON.
        let Ok(value) = serde_json::from_str::<serde_json::Value>(stdout) else {
            continue;
        };
        reports += 1;
        keys(&value, &mut all);
    }
    assert!(reports > 30, "only {reports} JSON reports");
    let missing: Vec<&String> = all
        .iter()
        .filter(|k| !doc.contains(&format!("`{k}`")))
        .collect();
    assert!(missing.is_empty(), "docs/json.md lacks: {missing:?}");
}
