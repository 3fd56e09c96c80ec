//! The `settings:` axis in the commands: the replay of a journal a killed run left
//! behind, which every `pretouch` command tries first, and `pretouch env`'s line on it.

use crate::features::settings::launch::{Leftover, Paths, replay_leftover};

/// Replays a journal a killed run left, and says what it restored or why not. A
/// journal a live run holds is that run's, and not worth a word here (`pretouch env`
/// names it).
pub(crate) fn replay() -> Leftover {
    let paths = Paths::from_env();
    let found = replay_leftover(&paths);
    if !matches!(found, Leftover::Live { .. })
        && let Some(message) = found.message(&paths)
    {
        eprintln!("pretouch: {message}");
    }
    found
}

/// `pretouch env`'s line on the journal, after [`replay`] ran.
pub(crate) fn env_line(found: &Leftover) -> String {
    let paths = Paths::from_env();
    match found.message(&paths) {
        Some(message) if !matches!(found, Leftover::Restored { .. }) => {
            format!("kernel settings journal: {message}\n")
        }
        _ if paths.journal().exists() => format!(
            "kernel settings journal: {} is left behind\n",
            paths.journal().display()
        ),
        _ => format!(
            "kernel settings journal: none ({} holds none)\n",
            paths.state_dir.display()
        ),
    }
}
