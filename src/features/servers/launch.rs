//! An `app:` server's life in one launch (stage 3): check until ready, run the pay-back
//! command against it, stop it (SIGTERM, then SIGKILL after the grace period), and wait
//! until it is reaped and its port is free, so that the next launch finds the machine as
//! this one did. [`ServerRun`] is what the launch record keeps of it.

pub mod hook;
pub mod port;

use std::io::{Read, Seek, SeekFrom};
use std::net::{Ipv4Addr, SocketAddr, TcpStream};
use std::path::Path;
use std::process::ExitStatus;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::features::servers::matrix::{AfterReady, REQUEST_TIMEOUT, Ready, ReadyCheck, Requests};
use crate::launch::interrupt::Interrupt;
use crate::units::Nanos;

/// How often the ready check is tried while the server starts. The time to ready is late
/// by at most this plus one check.
const CHECK_INTERVAL: Duration = Duration::from_millis(2);

/// How long a stopped server's port may stay bound after its JVM was reaped.
const PORT_RELEASE_LIMIT: Duration = Duration::from_secs(10);

/// What a launch record keeps of a server launch (`app:` with `ready:`). Times are
/// CLOCK_MONOTONIC, as the launch's `spawn_ns` and stamps.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ServerRun {
    /// The ready check as the matrix gave it (stored as `probe`, the key of files
    /// written before the bpftrace probe took that word): `port 8080`, `http <URL> status 200`,
    /// `log /<regex>/`.
    #[serde(rename = "probe")]
    pub check: String,
    /// When the check first succeeded; absent when it never did (a failed launch).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ready_ns: Option<Nanos>,
    /// `ready_ns - spawn_ns`: exec to ready, the figure of a server launch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_to_ready_ns: Option<Nanos>,
    /// Checks tried, the successful one included (stored as `probes`).
    #[serde(rename = "probes")]
    pub checks: u64,
    /// What the last unsuccessful check saw (`connection refused`, `status 503`...);
    /// stored as `last_probe`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(rename = "last_probe")]
    pub last_check: Option<String>,
    /// The first requests sent to the ready server (`requests:`), each timed; absent
    /// without `requests:`, or when the server never became ready. Sent before the
    /// `after_ready` command.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requests: Option<RequestRun>,
    /// The `after_ready` command's run against the ready server; absent without one, or
    /// when the server never became ready.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after_ready: Option<Workload>,
    /// When the runner sent SIGTERM; absent when the JVM had ended by itself first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sigterm_ns: Option<Nanos>,
    /// When the runner sent SIGKILL because the JVM outlived the grace period after
    /// SIGTERM; absent when SIGTERM sufficed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sigkill_ns: Option<Nanos>,
    /// The grace period between SIGTERM and SIGKILL (`stop_grace:`).
    pub grace_ns: Nanos,
    /// The server's port (from the check), checked free before the launch and waited for
    /// after the reap; absent for a `log` check or a URL on another host.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub port: Option<u16>,
    /// When `port` was free again after the reap; absent when it stayed bound (then the
    /// launch failed) or there is no port.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub port_free_ns: Option<Nanos>,
}

/// Its part of what a launch measured sets nothing the core reads.
impl crate::launch::parts::LaunchPart for ServerRun {}

/// The first requests of one server launch (`requests:`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RequestRun {
    /// The URL, fetched with GET.
    pub url: String,
    /// Requests asked for (`requests.count`).
    pub count: u32,
    /// Requests under way at once (`requests.concurrency`).
    pub concurrency: u32,
    /// CLOCK_MONOTONIC just before the first request was sent.
    pub start_ns: Nanos,
    /// Each request's latency, from just before it was sent to the end of its answer,
    /// in the order the requests were started (the first request first). `null` for a
    /// request that got no answer in time or no 2xx answer; requests never started
    /// (after a failure, the timeout or an interruption) are not listed.
    pub latencies_ns: Vec<Option<Nanos>>,
    /// Why not every request was answered with a 2xx status (the first failure, with
    /// the request's number); absent when all were. Then the launch failed too.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
}

impl RequestRun {
    /// Whether every request asked for was answered with a 2xx status.
    pub fn ok(&self) -> bool {
        self.failure.is_none()
            && self.latencies_ns.len() == self.count as usize
            && self.latencies_ns.iter().all(Option::is_some)
    }
}

/// One run of the `after_ready` command.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Workload {
    /// The command line, program first.
    pub command: Vec<String>,
    /// CLOCK_MONOTONIC just before its spawn.
    pub start_ns: Nanos,
    /// Spawn to reap: the workload's time, what pretouch may pay back.
    pub wall_ns: Nanos,
    /// Exit code, when it exited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// Terminating signal, when it was killed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signal: Option<i32>,
    /// Why its time is no figure (non-zero exit, timeout, cannot run); absent when it
    /// succeeded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
    /// The end of its stdout and stderr.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_tail: Option<String>,
}

impl Workload {
    pub fn ok(&self) -> bool {
        self.failure.is_none()
    }
}

/// What the launcher needs to run a server.
pub struct ServerPlan<'a> {
    pub ready: &'a Ready,
    pub after_ready: Option<&'a AfterReady>,
    /// The first requests to send once ready, before `after_ready`.
    pub requests: Option<&'a Requests>,
    pub grace: Duration,
    /// Used when `ready.timeout` is not given.
    pub default_timeout: Duration,
    /// Where the JVM's stdout and stderr go (the `log` check reads it).
    pub output: &'a Path,
    /// Scratch space for the workload's output.
    pub scratch: &'a Path,
    pub spawn_ns: Nanos,
    pub interrupt: Option<&'a Interrupt>,
}

/// How a server launch went, for the launcher's verdict.
pub struct Served {
    /// The JVM's exit status once reaped.
    pub status: ExitStatus,
    /// CLOCK_MONOTONIC once the JVM was reaped (before the wait for its port).
    pub reaped_ns: Nanos,
    /// Why the launch measured nothing (never ready, port stuck), if so.
    pub failure: Option<String>,
}

/// Checks `ready`'s port before a launch: `Err` names who holds it.
pub fn check_port(ready: &Ready) -> Result<(), String> {
    match ready.check.port() {
        Some(p) if !port::is_free(p) => Err(port::in_use_message(p)),
        _ => Ok(()),
    }
}

/// Checks the started JVM until ready, runs the workload, stops the JVM and waits for
/// its port. Fills `run`; returns the reaped JVM's status.
pub fn serve(
    handle: &Arc<duct::Handle>,
    plan: &ServerPlan<'_>,
    run: &mut ServerRun,
) -> std::io::Result<Served> {
    let timeout = plan.ready.timeout.unwrap_or(plan.default_timeout);
    let deadline = Instant::now() + timeout;
    let mut checker = Checker::new(&plan.ready.check, plan.output);
    let interrupted = || plan.interrupt.is_some_and(|i| i.signal().is_some());
    let mut failure = None;
    loop {
        if let Some(out) = handle.try_wait()? {
            // Ended before ready: a crash, a bad flag, main() returning, or our kill.
            run.last_check = checker.last.take();
            return Ok(Served {
                status: out.status,
                reaped_ns: Nanos::monotonic_now(),
                failure: Some(format!(
                    "the JVM ended before it was ready, {}. The last probe said {}.",
                    plan.ready.check,
                    run.last_check.as_deref().unwrap_or("none made")
                )),
            });
        }
        if interrupted() {
            break;
        }
        run.checks += 1;
        if checker.check() {
            let now = Nanos::monotonic_now();
            run.ready_ns = Some(now);
            run.time_to_ready_ns = now.since(plan.spawn_ns);
            break;
        }
        if Instant::now() >= deadline {
            failure = Some(format!(
                "not ready within {} ({}), so it was stopped. Its last probe said: {}. Raise `ready: {{timeout: ...}}` or --timeout if it needs longer.",
                humantime::format_duration(timeout),
                plan.ready.check,
                checker.last.as_deref().unwrap_or("none")
            ));
            break;
        }
        std::thread::sleep(CHECK_INTERVAL);
    }
    run.last_check = checker.last.take();
    if run.ready_ns.is_some()
        && let Some(requests) = plan.requests
        && !interrupted()
    {
        let sent = send_requests(requests, plan.interrupt);
        if let Some(why) = &sent.failure {
            failure = Some(format!(
                "the first requests to {} failed: {why}. The server stays in the record. Check `requests.url`, and that the server answers it with 2xx.",
                requests.url
            ));
        }
        run.requests = Some(sent);
    }
    if run.ready_ns.is_some()
        && failure.is_none()
        && let Some(after) = plan.after_ready
        && !interrupted()
    {
        run.after_ready = Some(workload(after, plan.scratch, plan.interrupt));
    }
    let status = stop(handle, plan.grace, run)?;
    let reaped_ns = Nanos::monotonic_now();
    if let Some(p) = run.port {
        if port::wait_free(p, PORT_RELEASE_LIMIT) {
            run.port_free_ns = Some(Nanos::monotonic_now());
        } else if failure.is_none() {
            failure = Some(format!(
                "port {p} still bound {} after the JVM was reaped: {}",
                humantime::format_duration(PORT_RELEASE_LIMIT),
                port::in_use_message(p)
            ));
        }
    }
    Ok(Served {
        status,
        reaped_ns,
        failure,
    })
}

/// SIGTERM, then SIGKILL when the JVM outlives `grace`; waits until it is reaped.
fn stop(
    handle: &Arc<duct::Handle>,
    grace: Duration,
    run: &mut ServerRun,
) -> std::io::Result<ExitStatus> {
    run.grace_ns = Nanos(u64::try_from(grace.as_nanos()).unwrap_or(u64::MAX));
    if let Some(out) = handle.try_wait()? {
        return Ok(out.status);
    }
    if let Some(&pid) = handle.pids().first() {
        run.sigterm_ns = Some(Nanos::monotonic_now());
        // SAFETY: kill has no memory preconditions. The pid is our child and not yet
        // reaped (try_wait above saw it running; only this thread waits), so it cannot
        // name another process.
        unsafe { libc::kill(pid as libc::pid_t, libc::SIGTERM) };
    }
    if let Some(out) = handle.wait_timeout(grace)? {
        return Ok(out.status);
    }
    run.sigkill_ns = Some(Nanos::monotonic_now());
    handle.kill()?;
    Ok(handle.wait()?.status)
}

/// Runs the `after_ready` command, timed, killed after its timeout.
fn workload(after: &AfterReady, scratch: &Path, interrupt: Option<&Interrupt>) -> Workload {
    let output = scratch.join("after_ready.out");
    let mut w = Workload {
        command: after.command.clone(),
        ..Workload::default()
    };
    let expression = duct::cmd(&after.command[0], &after.command[1..])
        .stdin_null()
        .stderr_to_stdout()
        .stdout_path(&output)
        .unchecked()
        .before_spawn(crate::launch::child::die_with_the_runner);
    // One clock for both ends: an `Instant` read beside the stamp would put the end
    // `start_ns + wall_ns` after the workload's real end by the time between the reads.
    w.start_ns = Nanos::monotonic_now();
    let waited = expression.start().and_then(|handle| {
        let handle = Arc::new(handle);
        let _tracked = interrupt.map(|i| i.track(Arc::clone(&handle)));
        match handle.wait_timeout(after.timeout)? {
            Some(out) => Ok(Some(out.status)),
            None => {
                handle.kill()?;
                handle.wait()?;
                Ok(None)
            }
        }
    });
    w.wall_ns = Nanos::monotonic_now().since(w.start_ns).unwrap_or_default();
    w.output_tail = crate::launch::child::read_tail(&output);
    match waited {
        Err(e) => w.failure = Some(format!("cannot run `{}`: {e}", after.command[0])),
        Ok(None) => {
            w.failure = Some(format!(
                "did not finish within {}: killed",
                humantime::format_duration(after.timeout)
            ));
        }
        Ok(Some(status)) => {
            use std::os::unix::process::ExitStatusExt;
            w.exit_code = status.code();
            w.signal = status.signal();
            if !status.success() {
                w.failure = Some(match (status.code(), status.signal()) {
                    (Some(c), _) => format!("exited with code {c}"),
                    (_, Some(s)) => format!("killed by signal {s}"),
                    _ => "no exit status".to_owned(),
                });
            }
        }
    }
    w
}

/// Sends `requests.count` GETs of `requests.url`, `requests.concurrency` at once, each
/// timed; stops at the first failure, at the timeout or on an interruption.
fn send_requests(requests: &Requests, interrupt: Option<&Interrupt>) -> RequestRun {
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
    let count = requests.count;
    let next = AtomicU32::new(0);
    let stop = AtomicBool::new(false);
    // Per request, by number: its latency, or why it failed.
    let results: Mutex<Vec<Option<Result<Nanos, String>>>> = Mutex::new(vec![None; count as usize]);
    let start = Instant::now();
    let deadline = start + requests.timeout;
    let start_ns = Nanos::monotonic_now();
    let worker = || {
        loop {
            if stop.load(Ordering::Relaxed) || interrupt.is_some_and(|i| i.signal().is_some()) {
                return;
            }
            let i = next.fetch_add(1, Ordering::Relaxed);
            if i >= count {
                return;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            let answer = if left.is_zero() {
                Err(format!(
                    "not all {count} requests were answered within {} (raise `requests.timeout`)",
                    humantime::format_duration(requests.timeout)
                ))
            } else {
                one_request(&requests.url, left.min(REQUEST_TIMEOUT))
            };
            if answer.is_err() {
                stop.store(true, Ordering::Relaxed);
            }
            let mut all = results.lock().unwrap_or_else(|p| p.into_inner());
            all[i as usize] = Some(answer);
        }
    };
    std::thread::scope(|scope| {
        for _ in 0..requests.concurrency {
            scope.spawn(worker);
        }
    });
    let all = results.into_inner().unwrap_or_else(|p| p.into_inner());
    let started = all.iter().rposition(Option::is_some).map_or(0, |i| i + 1);
    let failure = all.iter().enumerate().find_map(|(i, r)| match r {
        Some(Err(why)) => Some(format!("request {} of {count}: {why}", i + 1)),
        _ => None,
    });
    let failure = failure.or_else(|| {
        (started < count as usize)
            .then(|| format!("interrupted after {started} of {count} requests"))
    });
    RequestRun {
        url: requests.url.clone(),
        count,
        concurrency: requests.concurrency,
        start_ns,
        latencies_ns: all[..started]
            .iter()
            .map(|r| r.as_ref().and_then(|r| r.as_ref().ok().copied()))
            .collect(),
        failure,
    }
}

/// One GET of `url`, timed from just before it is sent to the end of its answer's
/// body; an answer other than 2xx is an error naming its status.
fn one_request(url: &str, timeout: Duration) -> Result<Nanos, String> {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .proxy(None)
        .max_redirects(0)
        .timeout_global(Some(timeout))
        .build()
        .into();
    let sent = Instant::now();
    let mut response = agent.get(url).call().map_err(|e| e.to_string())?;
    let status = response.status().as_u16();
    let body = response.body_mut().read_to_vec().map_err(|e| e.to_string());
    let took = Nanos(u64::try_from(sent.elapsed().as_nanos()).unwrap_or(u64::MAX));
    if !(200..300).contains(&status) {
        return Err(format!("status {status}"));
    }
    body.map(|_| took)
}

/// One kind of ready check, with what it keeps between tries.
struct Checker<'a> {
    check: &'a ReadyCheck,
    /// What the last unsuccessful try saw.
    last: Option<String>,
    /// `log`: the compiled expression, the output file, how far it was read, and the
    /// start of a line not yet ended.
    log: Option<(regex::Regex, &'a Path, u64, Vec<u8>)>,
    http: Option<ureq::Agent>,
}

impl<'a> Checker<'a> {
    fn new(check: &'a ReadyCheck, output: &'a Path) -> Checker<'a> {
        let log = match check {
            ReadyCheck::Log { regex, .. } => Some((
                regex::Regex::new(regex).expect("checked when the matrix was parsed"),
                output,
                0,
                Vec::new(),
            )),
            _ => None,
        };
        let http = matches!(check, ReadyCheck::Http { .. }).then(|| {
            ureq::Agent::config_builder()
                .http_status_as_error(false)
                .proxy(None)
                .max_redirects(0)
                .timeout_global(Some(Duration::from_secs(2)))
                .build()
                .new_agent()
        });
        Checker {
            check,
            last: None,
            log,
            http,
        }
    }

    /// One try: true when the application is ready.
    fn check(&mut self) -> bool {
        let seen = match self.check {
            ReadyCheck::Port(p) => {
                let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, *p));
                match TcpStream::connect_timeout(&addr, Duration::from_millis(500)) {
                    Ok(_) => return true,
                    Err(e) => e.to_string(),
                }
            }
            ReadyCheck::Http { url, status, .. } => {
                let agent = self.http.as_ref().expect("made for http probes");
                match agent.get(url).call() {
                    Ok(response) if response.status().as_u16() == *status => return true,
                    Ok(response) => format!("status {}", response.status().as_u16()),
                    Err(e) => e.to_string(),
                }
            }
            ReadyCheck::Log { .. } => {
                let (re, path, offset, partial) = self.log.as_mut().expect("made for log probes");
                if read_lines(path, offset, partial).any(|line| re.is_match(&line)) {
                    return true;
                }
                "no matching line yet".to_owned()
            }
        };
        self.last = Some(seen);
        false
    }
}

/// The complete lines appended to `path` since `offset`; a line not yet ended is kept
/// in `partial` for the next call.
fn read_lines(path: &Path, offset: &mut u64, partial: &mut Vec<u8>) -> std::vec::IntoIter<String> {
    let mut lines = Vec::new();
    if let Ok(mut file) = std::fs::File::open(path)
        && file.seek(SeekFrom::Start(*offset)).is_ok()
    {
        let mut bytes = Vec::new();
        if let Ok(n) = file.read_to_end(&mut bytes) {
            *offset += n as u64;
            partial.extend_from_slice(&bytes);
            while let Some(end) = partial.iter().position(|&b| b == b'\n') {
                let line: Vec<u8> = partial.drain(..=end).collect();
                lines.push(String::from_utf8_lossy(&line).trim_end().to_owned());
            }
        }
    }
    lines.into_iter()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn log_lines_are_read_once_and_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out");
        let mut file = std::fs::File::create(&path).unwrap();
        let (mut offset, mut partial) = (0, Vec::new());
        file.write_all(b"one\ntw").unwrap();
        assert_eq!(
            read_lines(&path, &mut offset, &mut partial).collect::<Vec<_>>(),
            ["one"]
        );
        file.write_all(b"o\r\nthree\n").unwrap();
        assert_eq!(
            read_lines(&path, &mut offset, &mut partial).collect::<Vec<_>>(),
            ["two", "three"]
        );
        assert_eq!(read_lines(&path, &mut offset, &mut partial).count(), 0);
    }

    #[test]
    fn a_port_check_sees_a_listener() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let check = ReadyCheck::Port(port);
        let mut checker = Checker::new(&check, Path::new("/nonexistent"));
        assert!(checker.check());
        // A port nobody listens on, held so that no other test's `bind(0)` takes it:
        // the local end of a connection. (Dropping the listener and probing its port
        // again failed in 2 of 6 runs beside this module's other tests and in none of
        // 20 alone: a test binding port 0 beside it can be given the freed port.)
        let held = std::net::TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let closed = ReadyCheck::Port(held.local_addr().unwrap().port());
        let mut checker = Checker::new(&closed, Path::new("/nonexistent"));
        assert!(!checker.check());
        assert!(
            checker.last.as_deref().unwrap().contains("refused"),
            "{:?}",
            checker.last
        );
    }

    #[test]
    fn an_http_check_wants_its_status() {
        use std::io::Write as _;
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        // Answers the first request 503, the second 200.
        let server = std::thread::spawn(move || {
            for status in ["503 Service Unavailable", "200 OK"] {
                let (mut conn, _) = listener.accept().unwrap();
                let mut request = [0u8; 1024];
                let _ = conn.read(&mut request).unwrap();
                write!(
                    conn,
                    "HTTP/1.1 {status}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                )
                .unwrap();
            }
        });
        let check = ReadyCheck::Http {
            url: format!("http://127.0.0.1:{port}/health"),
            status: 200,
            local_port: Some(port),
        };
        let mut checker = Checker::new(&check, Path::new("/nonexistent"));
        assert!(!checker.check());
        assert_eq!(checker.last.as_deref(), Some("status 503"));
        assert!(checker.check());
        server.join().unwrap();
    }

    #[test]
    fn a_workload_is_timed_and_its_failures_named() {
        let dir = tempfile::tempdir().unwrap();
        let ok = workload(
            &AfterReady {
                command: vec!["sh".into(), "-c".into(), "echo hi; sleep 0.2".into()],
                timeout: Duration::from_secs(30),
            },
            dir.path(),
            None,
        );
        assert!(ok.ok(), "{ok:?}");
        assert!(ok.wall_ns >= Nanos(200_000_000), "{ok:?}");
        // The span lies inside the call, on the clock the launch's other stamps use.
        let before = Nanos::monotonic_now();
        let w = workload(
            &AfterReady {
                command: vec!["true".into()],
                timeout: Duration::from_secs(30),
            },
            dir.path(),
            None,
        );
        let after = Nanos::monotonic_now();
        assert!(before <= w.start_ns, "{w:?}");
        assert!(Nanos(w.start_ns.0 + w.wall_ns.0) <= after, "{w:?}");
        assert_eq!(ok.output_tail.as_deref(), Some("hi"));
        let slow = workload(
            &AfterReady {
                command: vec!["sleep".into(), "30".into()],
                timeout: Duration::from_millis(200),
            },
            dir.path(),
            None,
        );
        assert!(
            slow.failure.as_deref().unwrap().contains("killed"),
            "{slow:?}"
        );
        assert!(slow.wall_ns < Nanos(20_000_000_000));
        let bad = workload(
            &AfterReady {
                command: vec!["sh".into(), "-c".into(), "exit 3".into()],
                timeout: Duration::from_secs(30),
            },
            dir.path(),
            None,
        );
        assert_eq!(bad.failure.as_deref(), Some("exited with code 3"));
    }
}
