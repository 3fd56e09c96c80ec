//! The checks a server matrix (`app:` with `ready:`) makes before the first JVM starts:
//! its port is free, and the `after_ready` program exists.

use std::path::Path;

use crate::features::servers::launch as ready;
use crate::matrix::Matrix;
use crate::matrix::app::App;

/// Refuses a server whose port something else already listens on (naming the process),
/// and an `after_ready` program that cannot be found.
pub(crate) fn check_server(app: &App, matrix: &Matrix) -> anyhow::Result<()> {
    // The line of a key (`ready:`), not of a comment that mentions it.
    let line_of = |key: &str| {
        let mut lines = matrix.text.lines();
        let found = lines.position(|l| l.trim_start().starts_with(&format!("{key}:")));
        found.map(|i| i + 1)
    };
    let at = |key: &str| match line_of(key) {
        Some(line) => format!("matrix `{}`, line {line}", matrix.origin),
        None => format!("matrix `{}`", matrix.origin),
    };
    if let Some(ready) = &app.features.servers.ready
        && let Err(e) = ready::check_port(ready)
    {
        anyhow::bail!("{}: ready: {e}", at("ready"));
    }
    if let Some(after) = &app.features.servers.after_ready {
        let program = &after.command[0];
        if find_program(program).is_none() {
            anyhow::bail!(
                "{}: after_ready: program `{program}` not found{}\n  fix: install it (e.g. `apt-get install apache2-utils` for ab) or give its path",
                at("after_ready"),
                if program.contains('/') {
                    String::new()
                } else {
                    " on PATH".to_owned()
                }
            );
        }
    }
    Ok(())
}

/// A program as `execvp` finds it: a path when it holds a `/`, else the first executable
/// file of that name in a PATH folder.
fn find_program(program: &str) -> Option<std::path::PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let executable = |p: &Path| {
        p.metadata()
            .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    };
    if program.contains('/') {
        let p = Path::new(program);
        return executable(p).then(|| p.to_owned());
    }
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join(program))
        .find(|p| executable(p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn programs_are_found_as_execvp_would() {
        assert!(find_program("sh").is_some());
        assert!(find_program("/bin/sh").is_some());
        assert!(find_program("no-such-program-pretouch").is_none());
        assert!(find_program("/etc/passwd").is_none(), "not executable");
    }
}
