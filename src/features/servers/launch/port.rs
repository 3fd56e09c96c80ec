//! Ports of `app:` servers (stage 3): whether one is free before a launch, who holds it
//! when it is not (from /proc), and waiting until a stopped server has let it go.

use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr, TcpListener};
use std::time::{Duration, Instant};

/// Whether a server could listen on `port` now: nothing listens on it on any address.
/// Tried by binding the wildcard addresses (IPv4, then IPv6 where the kernel has it);
/// like the JVM's `ServerSocket`, std sets SO_REUSEADDR, so connections of a stopped
/// server left in TIME_WAIT do not count as bound.
pub fn is_free(port: u16) -> bool {
    let v4 = TcpListener::bind(SocketAddr::from((Ipv4Addr::UNSPECIFIED, port)));
    if v4.is_err() {
        return false;
    }
    drop(v4);
    match TcpListener::bind(SocketAddr::from((Ipv6Addr::UNSPECIFIED, port))) {
        Ok(_) => true,
        Err(e) => e.kind() != std::io::ErrorKind::AddrInUse,
    }
}

/// Polls until `port` is free or `limit` passed; true when it became free.
pub fn wait_free(port: u16, limit: Duration) -> bool {
    let start = Instant::now();
    loop {
        if is_free(port) {
            return true;
        }
        if start.elapsed() >= limit {
            return false;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Why a launch cannot start on `port`: who listens on it, as far as /proc shows.
pub fn in_use_message(port: u16) -> String {
    let who = match listeners(port).as_slice() {
        [] => "a process this runner cannot see in /proc (another network namespace, or no permission)".to_owned(),
        found => found
            .iter()
            .map(|(pid, cmd)| format!("pid {pid} ({cmd})"))
            .collect::<Vec<_>>()
            .join(", "),
    };
    format!(
        "port {port} is already in use by {who}. The server could not listen on it, or the probe would see that process.\n  fix: stop that process, or move the application and its `ready:` probe to a free port"
    )
}

/// Processes with a socket listening on `port` (TCP, IPv4 or IPv6): pid and command line.
fn listeners(port: u16) -> Vec<(u32, String)> {
    let inodes = listening_inodes(port);
    if inodes.is_empty() {
        return Vec::new();
    }
    let mut found = Vec::new();
    let Ok(procs) = std::fs::read_dir("/proc") else {
        return found;
    };
    for entry in procs.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(fds) = std::fs::read_dir(entry.path().join("fd")) else {
            continue;
        };
        let holds = fds.flatten().any(|fd| {
            std::fs::read_link(fd.path()).is_ok_and(|target| {
                let t = target.to_string_lossy();
                t.strip_prefix("socket:[")
                    .and_then(|t| t.strip_suffix(']'))
                    .and_then(|n| n.parse::<u64>().ok())
                    .is_some_and(|n| inodes.contains(&n))
            })
        });
        if holds {
            found.push((pid, command_line(pid)));
        }
    }
    found
}

/// Socket inodes listening on `port`, from /proc/net/tcp and tcp6.
fn listening_inodes(port: u16) -> Vec<u64> {
    let mut inodes = Vec::new();
    for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
        if let Ok(text) = std::fs::read_to_string(table) {
            inodes.extend(parse_listening(&text, port));
        }
    }
    inodes
}

/// The inodes of the LISTEN sockets (state 0A) on `port` in a /proc/net/tcp table:
/// `sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode ...`,
/// addresses as `HEXADDR:HEXPORT`.
fn parse_listening(table: &str, port: u16) -> Vec<u64> {
    table
        .lines()
        .skip(1)
        .filter_map(|line| {
            let f: Vec<&str> = line.split_whitespace().collect();
            let local_port = f.get(1)?.rsplit_once(':')?.1;
            let matches = u16::from_str_radix(local_port, 16).ok()? == port && *f.get(3)? == "0A";
            matches.then(|| f.get(9)?.parse().ok()).flatten()
        })
        .collect()
}

/// A process's command line, arguments joined by spaces, cut to 120 characters.
fn command_line(pid: u32) -> String {
    one_line(&std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default())
}

/// A command line as /proc holds it, NUL between arguments, on one line cut to 120
/// characters. An argument may hold line breaks, as a `bash -c` script does, so every
/// run of white space becomes one space, or the message would run over many lines.
fn one_line(raw: &[u8]) -> String {
    let text = String::from_utf8_lossy(raw)
        .split(['\0', ' ', '\t', '\n', '\r'])
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    if text.chars().count() > 120 {
        text.chars().take(117).collect::<String>() + "..."
    } else if text.is_empty() {
        "command line unknown".to_owned()
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_proc_net_tcp() {
        let table = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n   0: 00000000:07E8 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 12345 1 0000000000000000 100 0 0 10 0\n   1: 0100007F:1F90 0100007F:D2F0 01 00000000:00000000 00:00000000 00000000     0        0 777 1\n   2: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 999 1\n";
        assert_eq!(parse_listening(table, 8080), [999]);
        assert_eq!(parse_listening(table, 2024), [12345]);
        assert!(parse_listening(table, 1).is_empty());
    }

    #[test]
    fn a_holders_command_line_is_one_line() {
        let raw = b"bash\0-c\0while true; do\n  sleep 1\ndone\n\0";
        assert_eq!(one_line(raw), "bash -c while true; do sleep 1 done");
        let long = format!("java\0{}\0", "x".repeat(200));
        let line = one_line(long.as_bytes());
        assert_eq!(line.chars().count(), 120);
        assert!(line.ends_with("..."));
        assert_eq!(one_line(b""), "command line unknown");
    }

    #[test]
    fn a_bound_port_is_not_free_and_its_holder_is_named() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        assert!(!is_free(port));
        let message = in_use_message(port);
        assert!(
            message.contains(&format!("pid {}", std::process::id())),
            "{message}"
        );
        drop(listener);
        assert!(wait_free(port, Duration::from_secs(5)));
    }
}
