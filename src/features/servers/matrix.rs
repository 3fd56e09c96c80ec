//! `app: {ready: ..., after_ready: ..., stop_grace: ...}`: when a server counts as ready,
//! what runs against it then, and how it is stopped. Parsed with the matrix (stage 1) and
//! checked for shape here; the launcher (stage 3, `features/servers/launch.rs`) checks, runs and
//! stops.
//!
//! ```yaml
//! app:
//!   classpath: "lib/*"
//!   main: com.example.Server
//!   ready: {port: 8080}                  # a TCP connect to 127.0.0.1:8080 succeeds
//!   # ready: {http: "http://127.0.0.1:8080/health", status: 200}
//!   # ready: {log: "Server startup in", port: 8080}  # a line of the JVM's output
//!   #   matches; `port` (optional) is kept free between launches
//!   #   each also takes `timeout: 120s` (default: --timeout)
//!   stop_grace: 10s                      # SIGTERM, then SIGKILL after this long
//!   after_ready: {command: [ab, -n, "2000", "http://127.0.0.1:8080/"], timeout: 60s}
//!   # The first requests, each timed: GET the URL `count` times, `concurrency` at once,
//!   # all within `timeout` (default 60s). The URL must be on this machine.
//!   requests: {url: "http://127.0.0.1:8080/work", count: 40, concurrency: 1, timeout: 60s}
//! ```

use std::fmt;
use std::time::Duration;

use serde::{Deserialize, Deserializer};

/// How long a stopped server has after SIGTERM before SIGKILL, unless `stop_grace:` says.
pub const DEFAULT_STOP_GRACE: Duration = Duration::from_secs(10);

/// What makes the application ready.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadyCheck {
    /// A TCP connect to 127.0.0.1 on this port succeeds.
    Port(u16),
    /// An HTTP GET of `url` answers with `status`.
    Http {
        url: String,
        status: u16,
        /// The URL's port when its host is this machine (checked free before a launch).
        local_port: Option<u16>,
    },
    /// A line of the JVM's stdout or stderr matches `regex` (checked to compile when
    /// parsed). `port`, when given, is the server's port: checked free before a launch and
    /// waited for after the stop.
    Log { regex: String, port: Option<u16> },
}

impl ReadyCheck {
    /// The port the server listens on, when the check names one on this machine: it must
    /// be free before a launch and is waited for after the stop.
    pub fn port(&self) -> Option<u16> {
        match self {
            ReadyCheck::Port(p) => Some(*p),
            ReadyCheck::Http { local_port, .. } => *local_port,
            ReadyCheck::Log { port, .. } => *port,
        }
    }
}

impl fmt::Display for ReadyCheck {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadyCheck::Port(p) => write!(f, "port {p}"),
            ReadyCheck::Http { url, status, .. } => write!(f, "http {url} status {status}"),
            ReadyCheck::Log { regex, .. } => write!(f, "log /{regex}/"),
        }
    }
}

/// `ready:` checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ready {
    pub check: ReadyCheck,
    /// Give up when not ready this long after the spawn; `None`: the run's `--timeout`.
    pub timeout: Option<Duration>,
}

/// `after_ready:` checked: a command run against the ready server, timed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AfterReady {
    /// Program and arguments (no shell); the program is looked up on PATH.
    pub command: Vec<String>,
    /// Killed, and recorded as failed, when it runs longer.
    pub timeout: Duration,
}

/// The most requests a launch may send: more would keep every server launch busy for
/// minutes, which no study of the first requests needs.
pub const MAX_REQUESTS: u32 = 10_000;

/// The most requests a launch may have under way at once.
pub const MAX_CONCURRENCY: u32 = 64;

/// How long one request may take before it counts as failed.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);

/// `requests:` checked: the first requests sent to the ready server, each timed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Requests {
    /// An `http://` URL on this machine (127.0.0.1, localhost or ::1), fetched with GET.
    pub url: String,
    /// How many requests, 1 to [`MAX_REQUESTS`].
    pub count: u32,
    /// How many are under way at once, 1 to [`MAX_CONCURRENCY`] and at most `count`.
    pub concurrency: u32,
    /// All the requests of a launch must be answered within this, from the first one's
    /// start; the rest are not sent and the launch fails.
    pub timeout: Duration,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRequests {
    url: String,
    count: u64,
    #[serde(default)]
    concurrency: Option<u64>,
    #[serde(default)]
    timeout: Option<String>,
}

impl<'de> Deserialize<'de> for Requests {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let raw = RawRequests::deserialize(d)?;
        let url_text = &raw.url;
        if check_url(url_text)
            .map_err(|e| D::Error::custom(e.replace("ready.http", "requests.url")))?
            .is_none()
        {
            return Err(D::Error::custom(format!(
                "requests.url: {url_text:?} is not on this machine. The first requests go only to the server under test, such as http://127.0.0.1:8080/."
            )));
        }
        if raw.count == 0 || raw.count > u64::from(MAX_REQUESTS) {
            return Err(D::Error::custom(format!(
                "requests.count: {} is not a number of requests from 1 to {MAX_REQUESTS}. Give how many first requests to time, such as 40.",
                raw.count
            )));
        }
        let count = raw.count as u32;
        let concurrency = raw.concurrency.unwrap_or(1);
        if concurrency == 0 || concurrency > u64::from(MAX_CONCURRENCY.min(count)) {
            return Err(D::Error::custom(format!(
                "requests.concurrency: {concurrency} is not from 1 to {} (at most {MAX_CONCURRENCY}, and at most `count`)",
                MAX_CONCURRENCY.min(count)
            )));
        }
        let timeout = match raw.timeout.as_deref() {
            Some(t) => parse_duration("requests.timeout", t).map_err(D::Error::custom)?,
            None => Duration::from_secs(60),
        };
        Ok(Requests {
            url: raw.url,
            count,
            concurrency: concurrency as u32,
            timeout,
        })
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawReady {
    #[serde(default)]
    port: Option<u16>,
    #[serde(default)]
    http: Option<String>,
    #[serde(default)]
    status: Option<u16>,
    #[serde(default)]
    log: Option<String>,
    #[serde(default)]
    timeout: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawAfterReady {
    command: Vec<String>,
    #[serde(default)]
    timeout: Option<String>,
}

/// A duration as humantime writes it (`90s`, `2m`, `1500ms`); not zero.
fn parse_duration(what: &str, text: &str) -> Result<Duration, String> {
    match humantime::parse_duration(text) {
        Ok(d) if !d.is_zero() => Ok(d),
        Ok(_) => Err(format!("{what}: must be longer than 0")),
        Err(e) => Err(format!(
            "{what}: {text:?} is not a duration. Write one such as 90s, 2m or 1500ms. {e}"
        )),
    }
}

impl<'de> Deserialize<'de> for Ready {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let raw = RawReady::deserialize(d)?;
        let timeout = raw
            .timeout
            .as_deref()
            .map(|t| parse_duration("ready.timeout", t))
            .transpose()
            .map_err(D::Error::custom)?;
        if raw.status.is_some() && raw.http.is_none() {
            return Err(D::Error::custom(
                "ready: `status` goes with `http: URL` only",
            ));
        }
        let check = match (raw.port, raw.http, raw.log) {
            (Some(0), None, None) => {
                return Err(D::Error::custom(
                    "ready: port 0 is no port to connect to. Give the port the server listens on.",
                ));
            }
            (Some(port), None, None) => ReadyCheck::Port(port),
            (None, Some(url), None) => {
                let status = raw.status.unwrap_or(200);
                let local_port = check_url(&url).map_err(D::Error::custom)?;
                ReadyCheck::Http {
                    url,
                    status,
                    local_port,
                }
            }
            (port, None, Some(regex)) => {
                regex::Regex::new(&regex).map_err(|e| {
                    D::Error::custom(format!("ready.log: not a regular expression: {e}"))
                })?;
                ReadyCheck::Log { regex, port }
            }
            _ => {
                return Err(D::Error::custom(
                    "ready: give exactly one of `port: N`, `http: URL` (with `status`, default 200) or `log: REGEX` (with `port: N` to wait for that port after a stop)",
                ));
            }
        };
        Ok(Ready { check, timeout })
    }
}

/// Checks an `http://` URL and returns its port when its host is this machine.
fn check_url(url: &str) -> Result<Option<u16>, String> {
    let uri: ureq::http::Uri = url
        .parse()
        .map_err(|e| format!("ready.http: {url:?} is not a URL ({e})"))?;
    if uri.scheme_str() != Some("http") {
        return Err(format!(
            "ready.http: {url:?}: only http:// is probed, because the probe has no TLS. Give one such as http://127.0.0.1:8080/."
        ));
    }
    let host = uri.host().unwrap_or_default();
    let local = matches!(host, "127.0.0.1" | "localhost" | "[::1]" | "::1");
    Ok(local.then(|| uri.port_u16().unwrap_or(80)))
}

impl<'de> Deserialize<'de> for AfterReady {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let raw = RawAfterReady::deserialize(d)?;
        if raw.command.first().is_none_or(String::is_empty) {
            return Err(D::Error::custom(
                "after_ready.command: give the program and its arguments, e.g. [ab, -n, \"1000\", \"http://127.0.0.1:8080/\"]",
            ));
        }
        let timeout = match raw.timeout.as_deref() {
            Some(t) => parse_duration("after_ready.timeout", t).map_err(D::Error::custom)?,
            None => Duration::from_secs(300),
        };
        Ok(AfterReady {
            command: raw.command,
            timeout,
        })
    }
}

/// `stop_grace:` as written.
#[derive(Debug)]
pub struct Grace(pub Duration);

impl<'de> Deserialize<'de> for Grace {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let text = String::deserialize(d)?;
        parse_duration("stop_grace", &text)
            .map(Grace)
            .map_err(D::Error::custom)
    }
}

/// The servers' keys of `app:`, as read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AppKeys {
    /// When the application counts as ready (a server); then it is stopped by the runner.
    pub ready: Option<Ready>,
    /// A command run against the ready application, timed (the pay-back workload).
    pub after_ready: Option<AfterReady>,
    /// The first requests sent to the ready application, each timed (before
    /// `after_ready`).
    pub requests: Option<Requests>,
    /// `stop_grace:` as written; [`AppKeys::stop_grace`] says how long it is.
    pub stop_grace_written: Option<Duration>,
}

impl AppKeys {
    /// After SIGTERM, how long the runner waits before SIGKILL.
    pub fn stop_grace(&self) -> Duration {
        self.stop_grace_written.unwrap_or(DEFAULT_STOP_GRACE)
    }
}

impl crate::matrix::parts::AppPart for AppKeys {
    /// The keys, in the order an unknown key's message lists them.
    const KEYS: &'static [&'static str] = &["ready", "after_ready", "requests", "stop_grace"];

    /// Reads the value of `key`, one of `KEYS`.
    fn read<'de, A: serde::de::MapAccess<'de>>(
        &mut self,
        key: &str,
        map: &mut A,
    ) -> Result<(), A::Error> {
        match key {
            "ready" => self.ready = map.next_value()?,
            "after_ready" => self.after_ready = map.next_value()?,
            "requests" => self.requests = map.next_value()?,
            "stop_grace" => {
                self.stop_grace_written = map.next_value::<Option<Grace>>()?.map(|g| g.0)
            }
            _ => unreachable!("`{key}` is not one of the servers' keys of app:"),
        }
        Ok(())
    }

    /// The checks of the keys together, once the block is read.
    fn check(&self, exit_at_main: Option<bool>) -> Result<(), String> {
        if self.ready.is_some() && exit_at_main == Some(true) {
            return Err(
                "app: `ready` needs the application to run past main(): remove `exit_at_main: true`"
                    .to_owned(),
            );
        }
        if self.ready.is_none()
            && (self.after_ready.is_some()
                || self.stop_grace_written.is_some()
                || self.requests.is_some())
        {
            return Err(
                "app: `after_ready`, `requests` and `stop_grace` need `ready: {port: N}`, `{http: URL}` or `{log: REGEX}`"
                    .to_owned(),
            );
        }
        Ok(())
    }

    /// A server runs on past `main()` until it is ready.
    fn runs_past_main(&self) -> bool {
        self.ready.is_some()
    }

    /// What the dry run's estimate of the time leaves out of a server's launches.
    fn not_counted(&self) -> Option<String> {
        let ready = self.ready.as_ref()?;
        Some(format!(
            "  not counted: each launch runs the server until ready ({}), the after_ready command if any, and its stop",
            ready.check
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ready(text: &str) -> Result<Ready, String> {
        serde_yaml::from_str(text).map_err(|e| e.to_string())
    }

    #[test]
    fn checks() {
        assert_eq!(ready("{port: 8080}").unwrap().check, ReadyCheck::Port(8080));
        // With a log check, `port` names the port to keep free, not a check.
        let r = ready("{log: started, port: 8080}").unwrap();
        assert_eq!(
            (r.check.to_string().as_str(), r.check.port()),
            ("log /started/", Some(8080))
        );
        let r = ready("{http: 'http://127.0.0.1:9000/ok', timeout: 90s}").unwrap();
        assert_eq!(
            r.check,
            ReadyCheck::Http {
                url: "http://127.0.0.1:9000/ok".into(),
                status: 200,
                local_port: Some(9000)
            }
        );
        assert_eq!(r.timeout, Some(Duration::from_secs(90)));
        assert_eq!(
            r.check.to_string(),
            "http http://127.0.0.1:9000/ok status 200"
        );
        let r = ready("{http: 'http://localhost/', status: 204}").unwrap();
        assert_eq!(r.check.port(), Some(80));
        assert_eq!(
            ready("{http: 'http://example.com:81/'}")
                .unwrap()
                .check
                .port(),
            None
        );
        assert_eq!(
            ready("{log: 'Server startup in \\d+'}").unwrap().check,
            ReadyCheck::Log {
                regex: "Server startup in \\d+".into(),
                port: None
            }
        );
    }

    #[test]
    fn bad_checks_are_named() {
        for (text, want) in [
            ("{port: 1, http: 'http://x/'}", "exactly one"),
            ("{}", "exactly one"),
            ("{port: 0}", "port 0"),
            ("{port: 70000}", "u16"),
            ("{port: 1, status: 200}", "`status` goes with `http"),
            ("{http: 'https://127.0.0.1/'}", "only http://"),
            ("{http: 'not a url'}", "not a URL"),
            ("{log: '(unclosed'}", "not a regular expression"),
            ("{port: 1, timeout: soon}", "not a duration"),
            ("{port: 1, timeout: 0s}", "longer than 0"),
            ("{port: 1, wait: 3}", "unknown field `wait`"),
        ] {
            let e = ready(text).unwrap_err();
            assert!(e.contains(want), "{text}: {e}");
        }
    }

    #[test]
    fn requests_are_checked() {
        let r: Requests =
            serde_yaml::from_str("{url: 'http://127.0.0.1:9000/work', count: 40}").unwrap();
        assert_eq!((r.count, r.concurrency), (40, 1));
        assert_eq!(r.timeout, Duration::from_secs(60));
        for (text, want) in [
            (
                "{url: 'http://127.0.0.1:1/', count: 0}",
                "requests.count: 0 is not",
            ),
            (
                "{url: 'http://127.0.0.1:1/', count: 1000000000}",
                "requests.count: 1000000000 is not",
            ),
            (
                "{url: 'http://example.com/', count: 5}",
                "not on this machine",
            ),
            ("{url: 'https://127.0.0.1/', count: 5}", "requests.url"),
            (
                "{url: 'http://127.0.0.1:1/', count: 5, concurrency: 6}",
                "requests.concurrency: 6",
            ),
            (
                "{url: 'http://127.0.0.1:1/', count: 5, concurrency: 0}",
                "requests.concurrency: 0",
            ),
            (
                "{url: 'http://127.0.0.1:1/', count: 5, timeout: 0s}",
                "longer than 0",
            ),
            ("{url: 'http://127.0.0.1:1/'}", "missing field `count`"),
        ] {
            let e = serde_yaml::from_str::<Requests>(text)
                .unwrap_err()
                .to_string();
            assert!(e.contains(want), "{text}: {e}");
        }
    }

    #[test]
    fn after_ready_commands() {
        let a: AfterReady = serde_yaml::from_str("{command: [curl, -s, x], timeout: 2m}").unwrap();
        assert_eq!(a.command, ["curl", "-s", "x"]);
        assert_eq!(a.timeout, Duration::from_secs(120));
        let e = serde_yaml::from_str::<AfterReady>("{command: []}")
            .unwrap_err()
            .to_string();
        assert!(e.contains("give the program"), "{e}");
        let g: Grace = serde_yaml::from_str("1500ms").unwrap();
        assert_eq!(g.0, Duration::from_millis(1500));
    }
}
