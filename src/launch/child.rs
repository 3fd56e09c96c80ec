//! What every child the launcher starts shares (stage 3): it dies with the runner, and
//! the end of its output is kept.

use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

/// How much of a child's output a record keeps.
const OUTPUT_TAIL_BYTES: u64 = 2048;

/// Asks the kernel to SIGKILL the JVM when the runner dies, even by `kill -9`: no JVM
/// outlives the runner holding its pretouched heap. (The signal follows the death of the
/// spawning thread; the scheduler launches from the main thread.)
pub fn die_with_the_runner(command: &mut std::process::Command) -> std::io::Result<()> {
    use std::os::unix::process::CommandExt;
    let parent = std::process::id();
    // SAFETY: the closure runs in the forked child before exec and calls only
    // async-signal-safe functions (prctl, getppid, _exit); it allocates nothing.
    unsafe {
        command.pre_exec(move || {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            // The runner died between fork and prctl: follow it.
            if libc::getppid() as u32 != parent {
                libc::_exit(1);
            }
            Ok(())
        });
    }
    Ok(())
}

/// The last [`OUTPUT_TAIL_BYTES`] of a file, trimmed; `None` when empty or unreadable.
pub fn read_tail(path: &Path) -> Option<String> {
    let mut file = std::fs::File::open(path).ok()?;
    let len = file.metadata().ok()?.len();
    let start = len.saturating_sub(OUTPUT_TAIL_BYTES);
    file.seek(SeekFrom::Start(start)).ok()?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes).ok()?;
    let text = String::from_utf8_lossy(&bytes).trim().to_owned();
    (!text.is_empty()).then_some(text)
}
