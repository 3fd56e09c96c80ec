//! End to end: `app:` servers with ready probes, on the small server built from
//! configs/app/src/example/Server.java (compiled here with javac; 127.0.0.1 only). The
//! probes, the stop sequence, a probe that never succeeds, a port already in use, the
//! pay-back command, and an interruption while the server is up.

mod common;

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use common::*;
use predicates::prelude::*;
use serde_json::Value;

/// A JDK with javac, and the folder holding example/Server.class compiled by it.
fn server_classes() -> (&'static Path, &'static Path) {
    static BUILT: OnceLock<(PathBuf, tempfile::TempDir)> = OnceLock::new();
    let (jdk, dir) = BUILT.get_or_init(|| {
        let jdk = jdks()
            .into_iter()
            .find(|j| j.join("bin/javac").exists())
            .expect("the server tests need a JDK with javac: apt-get install -y openjdk-17-jdk-headless");
        let dir = tempfile::tempdir().unwrap();
        let source =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/app/src/example/Server.java");
        let status = Command::new(jdk.join("bin/javac"))
            .args(["--release", "17", "-d"])
            .arg(dir.path())
            .arg(&source)
            .status()
            .unwrap();
        assert!(status.success(), "javac {}", source.display());
        (jdk, dir)
    });
    (jdk, dir.path())
}

/// A port nothing listens on now, and that nothing else is likely to take before the
/// server binds it: one below the kernel's ephemeral range, from which every
/// `connect()` and `bind(0)` on the machine draws (so a port the kernel handed this
/// test and took back could go to any of them in between), distinct within this test
/// binary, and spread by process id between binaries run at once.
fn free_port() -> u16 {
    use std::sync::atomic::{AtomicU16, Ordering};
    static NEXT: AtomicU16 = AtomicU16::new(0);
    let ephemeral_low: u16 = std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range")
        .ok()
        .and_then(|r| r.split_whitespace().next()?.parse().ok())
        .unwrap_or(32768);
    assert!(
        ephemeral_low > 12000,
        "ip_local_port_range starts at {ephemeral_low}: no room below it for the test ports"
    );
    let span = ephemeral_low - 11000;
    let base = 10000 + (std::process::id() % u32::from(span / 64)) as u16 * 64;
    (0..64)
        .map(|_| base + NEXT.fetch_add(1, Ordering::Relaxed) % 64)
        .find(|&port| TcpListener::bind(("127.0.0.1", port)).is_ok())
        .unwrap_or_else(|| panic!("ports {base}-{}: all 64 in use", base + 63))
}

/// A one-cell server matrix (serial GC, 64m, one round) with `app` lines added.
fn server_matrix(dir: &Path, port: u16, server_args: &str, app: &str) -> PathBuf {
    let (jdk, classes) = server_classes();
    write_matrix(
        dir,
        &format!(
            "name: srv\njdks: [{:?}]\ngcs: [serial]\nheaps: [64m]\nrepetitions: 1\napp:\n  classpath: {:?}\n  main: example.Server\n  args: [--port, \"{port}\"{server_args}]\n{app}",
            jdk.display().to_string(),
            classes.display().to_string()
        ),
    )
}

fn launches(dir: &Path) -> Vec<Value> {
    records(dir)
        .into_iter()
        .filter(|r| r["record"] == "launch")
        .collect()
}

fn ns(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not a time: {v}"))
}

/// Server JVMs on `port` still alive (their command line names it).
fn servers_left(port: u16) -> Vec<String> {
    let mut left = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let cmdline = std::fs::read(e.path().join("cmdline")).unwrap_or_default();
        let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        if cmdline.contains("example.Server --port") && cmdline.contains(&format!(" {port}")) {
            left.push(cmdline);
        }
    }
    left
}

fn port_is_free(port: u16) -> bool {
    TcpListener::bind(("0.0.0.0", port)).is_ok()
}

/// Every launch: ready after main(), stopped by SIGTERM alone, reaped, then the port free.
fn assert_clean_server_launch(l: &Value) {
    let s = &l["server"];
    assert!(l["failure"].is_null(), "{l}");
    let main = ns(&l["stamps"]["main"]["ns"]);
    let ready = ns(&s["ready_ns"]);
    assert!(ns(&l["spawn_ns"]) < main && main <= ready, "{l}");
    assert_eq!(ns(&s["time_to_ready_ns"]), ready - ns(&l["spawn_ns"]));
    let term = ns(&s["sigterm_ns"]);
    assert!(ready < term && term < ns(&l["reaped_ns"]), "{l}");
    assert!(s["sigkill_ns"].is_null(), "SIGTERM sufficed: {l}");
    assert!(ns(&s["port_free_ns"]) >= ns(&l["reaped_ns"]), "{l}");
    // The JVM's answer to SIGTERM: shutdown hooks, then exit code 128 + 15.
    assert_eq!(l["exit_code"], 143, "{l}");
}

#[test]
fn each_probe_sees_the_server_ready_after_main() {
    let _lock = jvm_lock();
    for probe in [
        "{port: PORT}",
        "{http: \"http://127.0.0.1:PORT/\", status: 200}",
        "{log: \"^Server ready on port \\\\d+$\", port: PORT}",
    ] {
        let dir = tempfile::tempdir().unwrap();
        let port = free_port();
        let probe = probe.replace("PORT", &port.to_string());
        // The server waits 300 ms after main() before it listens and says so.
        let matrix = server_matrix(
            dir.path(),
            port,
            ", --delay-ms, \"300\"",
            &format!("  ready: {probe}\n"),
        );
        let out = run_labelled("t", dir.path().join("results"))
            .arg(&matrix)
            .timeout(Duration::from_secs(120))
            .assert()
            .success();
        let text = unwrapped(&out.get_output().stdout);
        let ls = launches(&dir.path().join("results"));
        assert_eq!(ls.len(), 2, "{probe}");
        for l in &ls {
            assert_clean_server_launch(l);
            let main = ns(&l["stamps"]["main"]["ns"]);
            let ready = ns(&l["server"]["ready_ns"]);
            assert!(ready - main >= 300_000_000, "{probe}: ready too early: {l}");
        }
        assert!(text.contains("time to ready, label: t"), "{text}");
        assert!(
            text.contains(&format!(
                "ready probe: {}",
                ls[0]["server"]["probe"].as_str().unwrap()
            )),
            "{text}"
        );
        assert!(servers_left(port).is_empty() && port_is_free(port));
    }
}

#[test]
fn a_server_that_ignores_sigterm_is_killed_after_the_grace_period() {
    let _lock = jvm_lock();
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let matrix = server_matrix(
        dir.path(),
        port,
        ", --ignore-term",
        &format!("  ready: {{port: {port}}}\n  stop_grace: 700ms\n"),
    );
    let out = run_labelled("t", dir.path().join("results"))
        .arg(&matrix)
        .timeout(Duration::from_secs(120))
        .assert()
        .success();
    let text = unwrapped(&out.get_output().stdout);
    for l in launches(&dir.path().join("results")) {
        let s = &l["server"];
        assert!(
            l["failure"].is_null(),
            "a forced stop is no failed launch: {l}"
        );
        let (term, kill) = (ns(&s["sigterm_ns"]), ns(&s["sigkill_ns"]));
        assert!(
            kill - term >= 700_000_000,
            "SIGKILL only after the grace: {l}"
        );
        assert!(ns(&l["reaped_ns"]) >= kill, "{l}");
        assert_eq!(l["signal"], libc::SIGKILL, "{l}");
        assert!(ns(&s["port_free_ns"]) >= ns(&l["reaped_ns"]), "{l}");
    }
    assert!(
        text.contains(
            "2 launch(es) outlived the grace period after SIGTERM and were killed (SIGKILL)"
        ),
        "{text}"
    );
    assert!(servers_left(port).is_empty() && port_is_free(port));
}

#[test]
fn a_probe_that_never_succeeds_is_a_failed_launch_with_its_reason() {
    let _lock = jvm_lock();
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let matrix = server_matrix(
        dir.path(),
        port,
        ", --never-ready",
        &format!("  ready: {{port: {port}, timeout: 2s}}\n  stop_grace: 5s\n"),
    );
    let out = run_labelled("t", dir.path().join("results"))
        .arg(&matrix)
        .timeout(Duration::from_secs(120))
        .assert()
        .code(3);
    let ls = launches(&dir.path().join("results"));
    assert_eq!(ls.len(), 2);
    for l in &ls {
        let failure = l["failure"].as_str().unwrap();
        assert!(
            failure.starts_with(&format!(
                "not ready within 2s (port {port}), so it was stopped. Its last probe said: Connection refused"
            )),
            "{failure}"
        );
        assert!(l["server"]["ready_ns"].is_null() && l["time_to_main_ns"].is_null());
        assert!(
            l["output_tail"]
                .as_str()
                .unwrap()
                .contains("Server never listens"),
            "{l}"
        );
        // Given up at the timeout, then stopped like any server.
        let given_up = ns(&l["server"]["sigterm_ns"]) - ns(&l["spawn_ns"]);
        assert!(given_up >= 2_000_000_000, "{l}");
        assert!(l["server"]["sigkill_ns"].is_null(), "{l}");
    }
    let stderr = unwrapped(&out.get_output().stderr);
    assert!(stderr.contains("2 of 2 launches failed"), "{stderr}");
    assert!(servers_left(port).is_empty() && port_is_free(port));
}

#[test]
fn a_port_in_use_is_refused_naming_its_process() {
    // The run reads the JDK's version with `java` before it refuses the port.
    let _lock = jvm_lock();
    let dir = tempfile::tempdir().unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let matrix = server_matrix(
        dir.path(),
        port,
        "",
        &format!("  ready: {{port: {port}}}\n"),
    );
    run_labelled("t", dir.path().join("results"))
        .arg(&matrix)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(format!(
            "line 10: ready: port {port} is already in use by pid {} (",
            std::process::id()
        )))
        .stderr(predicate::str::contains("fix: stop that process"));
    assert!(launches(&dir.path().join("results")).is_empty());
    drop(listener);
}

/// The cause of an old flake: on a loaded machine `disturbances` reads "memory returned
/// to host 2, other processes 1", which the CSV writer quotes; the test split rows on ','
/// and every later column shifted. The same row, read the old way and the new.
#[test]
fn a_csv_field_with_a_comma_does_not_shift_the_later_columns() {
    let csv =
        "label,disturbances,net_ms\nt,\"memory returned to host 2, other processes 1\",12.5\n";
    let old_way: Vec<&str> = csv.lines().nth(1).unwrap().split(',').collect();
    assert_ne!(old_way[2], "12.5", "the fixture no longer holds the comma");
    let rows = csv_rows(csv);
    assert_eq!(rows[0]["net_ms"], "12.5");
    assert_eq!(
        rows[0]["disturbances"],
        "memory returned to host 2, other processes 1"
    );
}

#[test]
fn the_pay_back_command_runs_against_the_ready_server() {
    let _lock = jvm_lock();
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let url = format!("http://127.0.0.1:{port}/work");
    // Four requests that each allocate 64 MiB, sent with bash's /dev/tcp: no curl needed.
    let script = format!(
        "for i in 1 2 3 4; do exec 3<>/dev/tcp/127.0.0.1/{port}; printf 'GET /work HTTP/1.0\\r\\n\\r\\n' >&3; cat <&3; exec 3<&-; done"
    );
    let matrix = server_matrix(
        dir.path(),
        port,
        "",
        &format!(
            "  ready: {{http: {url:?}}}\n  after_ready: {{command: [bash, -c, {script:?}], timeout: 60s}}\n"
        ),
    );
    let out = run_labelled("t", dir.path().join("results"))
        .arg(&matrix)
        .arg("--format")
        .arg("csv")
        .timeout(Duration::from_secs(120))
        .assert()
        .success();
    let ls = launches(&dir.path().join("results"));
    for l in &ls {
        assert_clean_server_launch(l);
        let w = &l["server"]["after_ready"];
        assert!(w["failure"].is_null(), "{w}");
        assert_eq!(w["exit_code"], 0);
        assert!(w["output_tail"].as_str().unwrap().contains("200 OK"), "{w}");
        // The workload ran between ready and the stop.
        let start = ns(&w["start_ns"]);
        assert!(ns(&l["server"]["ready_ns"]) <= start, "{l}");
        assert!(
            start + ns(&w["wall_ns"]) <= ns(&l["server"]["sigterm_ns"]),
            "{l}"
        );
    }
    // CSV: the plain columns, then the server's, with both workload figures.
    let csv = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    let rows = csv_rows(&csv);
    let col = |name: &str| rows[0][name].as_str();
    assert_eq!(
        (col("workload_runs_off"), col("workload_runs_on")),
        ("1", "1")
    );
    let (off, on, change) = (
        col("workload_off_ms"),
        col("workload_on_ms"),
        col("workload_change_ms"),
    );
    // The CSV rounds each figure to the microsecond, so three of them agree within
    // their rounding, 1.5 us.
    let f = |s: &str| s.parse::<f64>().unwrap();
    assert!((f(on) - f(off) - f(change)).abs() < 0.0015 + 1e-9, "{csv}");
    let net = f(col("net_ms"));
    assert!(
        (net - f(col("ready_cost_ms")) - f(change)).abs() < 0.0015 + 1e-9,
        "{csv}"
    );
    assert!(servers_left(port).is_empty() && port_is_free(port));

    // Two labels compared (the same launches under a second label): CSV and JSON keep
    // the server's figures for every label's row.
    let results = dir.path().join("results");
    let file = &jsonl_files(&results)[0];
    let text = std::fs::read_to_string(file).unwrap();
    let (head, rest) = text.split_once('\n').unwrap();
    let mut head: serde_json::Value = serde_json::from_str(head).unwrap();
    head["label"] = "t2".into();
    std::fs::create_dir_all(results.join("t2")).unwrap();
    std::fs::write(
        results.join("t2").join(file.file_name().unwrap()),
        format!("{head}\n{rest}"),
    )
    .unwrap();
    let report = |format: &str| {
        let out = pretouch()
            .args(["report", "--format", format])
            .arg(&results)
            .assert()
            .success();
        String::from_utf8_lossy(&out.get_output().stdout).into_owned()
    };
    let compared = report("csv");
    let rows = csv_rows(&compared);
    let col =
        |row: &std::collections::HashMap<String, String>, name: &str| row[name].parse::<f64>();
    assert_eq!(rows.len(), 2, "{compared}");
    assert!(rows[0].contains_key("change_ms"), "{compared}");
    for row in &rows {
        assert_eq!(col(row, "net_ms").unwrap(), net, "{compared}");
        assert!(col(row, "ready_off_ms").is_ok(), "{compared}");
    }
    let json: Value = serde_json::from_str(&report("json")).unwrap();
    let cells = json["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 2);
    assert!(json["comparison"].is_object());
    for c in cells {
        // `net` comes from the CSV, which rounds to the microsecond; the JSON does not.
        let got = c["ready"]["net_ms"].as_f64().unwrap();
        assert!((got - net).abs() < 0.0005 + 1e-9, "{c}");
    }
}

/// The explaining table's faults are the faults up to main(), for a server as for a
/// plain launch. A server whose workload allocates after ready takes, without pretouch,
/// the heap faults that pretouch took at startup: counted over each process's whole
/// life (rusage), the difference with minus without came out well short of the heap.
#[test]
fn a_servers_pretouch_faults_are_counted_at_main_not_over_its_whole_life() {
    let _lock = jvm_lock();
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    // Sixteen requests that each allocate 64 MiB: a young generation's worth of heap
    // pages touched for the first time, unless pretouch touched them at startup.
    let script = format!(
        "for i in $(seq 16); do exec 3<>/dev/tcp/127.0.0.1/{port}; printf 'GET /work HTTP/1.0\\r\\n\\r\\n' >&3; cat <&3 >/dev/null; exec 3<&-; done"
    );
    let matrix = server_matrix(
        dir.path(),
        port,
        "",
        &format!(
            "  ready: {{port: {port}}}\n  after_ready: {{command: [bash, -c, {script:?}], timeout: 120s}}\n"
        ),
    );
    // G1 at 256m without -XX:+UseTransparentHugePages: a fault a folio of the largest
    // size the THP and mTHP modes give the heap, 4 KiB pages unless THP or mTHP is
    // `always`.
    let yaml = std::fs::read_to_string(&matrix)
        .unwrap()
        .replace("gcs: [serial]\nheaps: [64m]", "gcs: [g1]\nheaps: [256m]");
    std::fs::write(&matrix, yaml).unwrap();
    let out = run_labelled("t", dir.path().join("results"))
        .arg(&matrix)
        .args(["--format", "json"])
        .timeout(Duration::from_secs(300))
        .assert()
        .success();
    let ls = launches(&dir.path().join("results"));
    assert_eq!(ls.len(), 2);
    for l in &ls {
        assert_clean_server_launch(l);
        assert!(l["server"]["after_ready"]["failure"].is_null(), "{l}");
    }
    let of = |pretouch: bool, f: &dyn Fn(&Value) -> u64| {
        let l = ls.iter().find(|l| l["pretouch"] == pretouch).unwrap();
        f(l) as f64
    };
    let at_main = |l: &Value| ns(&l["stamps"]["main"]["minflt"]);
    let whole_life = |l: &Value| ns(&l["rusage"]["minflt"]);
    let json: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    let c = &json["cells"][0];
    let expected = c["expected_faults"].as_f64().unwrap();
    assert_eq!(expected, min_pretouch_faults(256 << 20), "{c}");
    let faults = c["pretouch_faults"].as_f64().unwrap();
    assert_eq!(faults, of(true, &at_main) - of(false, &at_main), "{c}");
    assert!(faults > 0.9 * expected, "{faults} faults up to main(): {c}");
    // The premise: the workload did take faults that the whole-life count would have
    // subtracted, so that this test tells the two counts apart. With 2 MiB folios, as
    // under THP `always`, the heap takes 128 faults, fewer than the JVM's other faults
    // vary by from launch to launch, so no workload can show the difference there.
    // The count up to main() is still checked above.
    let whole = of(true, &whole_life) - of(false, &whole_life);
    if expected >= 1024.0 {
        assert!(
            whole < faults - 0.1 * expected,
            "the workload took too few faults to tell the counts apart: {whole} whole life, {faults} up to main()"
        );
    }
    // The rate is those faults over the agent->init growth.
    let growth =
        c["agent_to_init_on_ms"].as_f64().unwrap() - c["agent_to_init_off_ms"].as_f64().unwrap();
    if growth > 0.0 {
        let rate = c["fault_rate_per_s"].as_f64().unwrap();
        assert!((rate - faults / (growth / 1e3)).abs() < 1e-6 * rate, "{c}");
    }
    assert!(servers_left(port).is_empty() && port_is_free(port));
}

/// The first requests: each launch times every request, the report gives the first,
/// the p50 and p99 with and without pretouch, JSON and CSV carry every request; a
/// URL nobody answers fails the launch with its reason and keeps what was measured.
#[test]
fn the_first_requests_are_timed_each_and_reported() {
    let _lock = jvm_lock();
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let matrix = server_matrix(
        dir.path(),
        port,
        "",
        &format!(
            "  ready: {{port: {port}}}\n  requests: {{url: \"http://127.0.0.1:{port}/work\", count: 6, concurrency: 2}}\n"
        ),
    );
    let out = run_labelled("t", dir.path().join("results"))
        .arg(&matrix)
        .args(["--format", "json"])
        .timeout(Duration::from_secs(120))
        .assert()
        .success();
    let ls = launches(&dir.path().join("results"));
    assert_eq!(ls.len(), 2);
    for l in &ls {
        assert_clean_server_launch(l);
        let q = &l["server"]["requests"];
        assert!(q["failure"].is_null(), "{q}");
        assert_eq!(
            (q["count"].as_u64(), q["concurrency"].as_u64()),
            (Some(6), Some(2))
        );
        let lat = q["latencies_ns"].as_array().unwrap();
        assert_eq!(lat.len(), 6, "{q}");
        // The requests ran between ready and the stop.
        let start = ns(&q["start_ns"]);
        assert!(ns(&l["server"]["ready_ns"]) <= start, "{l}");
        let longest = lat.iter().map(ns).max().unwrap();
        assert!(start + longest <= ns(&l["server"]["sigterm_ns"]), "{l}");
    }
    let json: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    let r = &json["cells"][0]["ready"];
    assert_eq!(r["requests_count"], 6, "{r}");
    assert_eq!(
        (
            r["requests_runs_off"].as_u64(),
            r["requests_runs_on"].as_u64()
        ),
        (Some(1), Some(1))
    );
    for side in ["off", "on"] {
        let p50 = r[format!("requests_p50_{side}_ms")].as_f64().unwrap();
        let p99 = r[format!("requests_p99_{side}_ms")].as_f64().unwrap();
        assert!(0.0 < p50 && p50 <= p99, "{r}");
        let every = r[format!("requests_{side}_ms")].as_str().unwrap();
        assert_eq!(every.split(' ').count(), 6, "{r}");
    }
    // One launch a side: no noise to judge agreement by.
    assert!(r["requests_agree_from"].is_null() && r["requests_never_agree"] == false);
    let text = pretouch()
        .args(["report"])
        .arg(dir.path().join("results"))
        .assert()
        .success();
    let text = unwrapped(&text.get_output().stdout);
    assert!(text.contains("first requests, label: t"), "{text}");
    assert!(servers_left(port).is_empty() && port_is_free(port));

    // A URL nobody answers: each launch fails with the reason, its startup kept.
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let nobody = free_port();
    let matrix = server_matrix(
        dir.path(),
        port,
        "",
        &format!(
            "  ready: {{port: {port}}}\n  requests: {{url: \"http://127.0.0.1:{nobody}/\", count: 3}}\n"
        ),
    );
    run_labelled("t", dir.path().join("results"))
        .arg(&matrix)
        .timeout(Duration::from_secs(120))
        .assert()
        .code(3);
    for l in launches(&dir.path().join("results")) {
        let failure = l["failure"].as_str().unwrap();
        assert!(
            failure.contains(&format!(
                "the first requests to http://127.0.0.1:{nobody}/ failed: request 1 of 3"
            )),
            "{failure}"
        );
        assert!(
            l["server"]["ready_ns"].is_u64() && l["stamps"]["main"]["ns"].is_u64(),
            "{l}"
        );
        assert_eq!(
            l["server"]["requests"]["latencies_ns"],
            serde_json::json!([null]),
            "{l}"
        );
    }
    assert!(servers_left(port).is_empty() && port_is_free(port));
}

#[test]
fn absurd_request_counts_are_refused_before_the_first_launch() {
    let dir = tempfile::tempdir().unwrap();
    for (count, key) in [
        ("0", "requests.count: 0"),
        ("1000000000", "requests.count: 1000000000"),
    ] {
        let matrix = server_matrix(
            dir.path(),
            8080,
            "",
            &format!(
                "  ready: {{port: 8080}}\n  requests: {{url: \"http://127.0.0.1:8080/\", count: {count}}}\n"
            ),
        );
        run_labelled("t", dir.path().join("results"))
            .arg(&matrix)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(format!(
                "matrix `{}`",
                matrix.display()
            )))
            .stderr(predicate::str::contains(key));
        assert!(launches(&dir.path().join("results")).is_empty());
    }
}

#[test]
fn interrupting_while_the_server_is_up_leaves_no_jvm_and_no_port_then_resume_finishes() {
    let _lock = jvm_lock();
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    // The workload keeps each server up for 3 s: time to interrupt it while it serves.
    let matrix = server_matrix(
        dir.path(),
        port,
        "",
        &format!("  ready: {{port: {port}}}\n  after_ready: {{command: [sleep, \"3\"]}}\n"),
    );
    let results = dir.path().join("results");
    let child = Command::new(env!("CARGO_BIN_EXE_pretouch"))
        .args(["run", "--label", "t", "--agent"])
        .arg(agent())
        .arg("--results")
        .arg(&results)
        .arg(&matrix)
        .env_remove("PRETOUCH_AGENT")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until the first server listens, then interrupt the runner.
    let start = Instant::now();
    while port_is_free(port) {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "the server never came up"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(servers_left(port).len(), 1);
    // SAFETY: kill(2) of the runner this test started.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGINT) }, 0);
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(
        stderr.contains("interrupted by SIGINT after 0 of 2 launches"),
        "{stderr}"
    );
    assert!(servers_left(port).is_empty(), "{:?}", servers_left(port));
    assert!(port_is_free(port), "port {port} still bound");
    assert!(
        launches(&results).is_empty(),
        "the interrupted launch is not recorded"
    );

    let file = jsonl_files(&results).pop().unwrap();
    pretouch()
        .args(["run", "--agent"])
        .arg(agent())
        .arg("--resume")
        .arg(&file)
        .timeout(Duration::from_secs(120))
        .assert()
        .success()
        .stdout(predicate::str::contains("time to ready, label: t"));
    let ls = launches(&results);
    assert_eq!(ls.len(), 2);
    for l in &ls {
        assert_clean_server_launch(l);
        assert!(
            ns(&l["server"]["after_ready"]["wall_ns"]) >= 3_000_000_000,
            "{l}"
        );
    }
    assert!(servers_left(port).is_empty() && port_is_free(port));
}
