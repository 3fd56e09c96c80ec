//! The stamps file, the agent's only output: formatted into a stack buffer and written with one
//! `write`; plus the one-line stderr message for fatal errors.

use core::ffi::CStr;
use core::fmt::{self, Write as _};
use std::io;

use crate::options::Mechanism;
use crate::stamp::Sample;

/// First line of the file: the protocol name and version.
pub const HEADER: &str = "pretouch-agent 1";

/// Large enough for the whole file with every number at `u64::MAX` (checked by a test).
pub const FILE_CAPACITY: usize = 1024;

/// A fixed-capacity byte buffer that formats without allocating; a write that does not fit
/// fails and leaves the buffer as it was.
pub struct FixedBuf<const N: usize> {
    bytes: [u8; N],
    len: usize,
}

impl<const N: usize> Default for FixedBuf<N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize> FixedBuf<N> {
    pub const fn new() -> Self {
        Self {
            bytes: [0; N],
            len: 0,
        }
    }

    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..self.len]
    }
}

impl<const N: usize> fmt::Write for FixedBuf<N> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let end = self
            .len
            .checked_add(s.len())
            .filter(|&end| end <= N)
            .ok_or(fmt::Error)?;
        self.bytes[self.len..end].copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

/// Formats the stamps file: the header, the mechanism, then four lines per stamp reached, in
/// the order given; stamps not reached (`None`) are left out.
pub fn format<const N: usize>(
    buf: &mut FixedBuf<N>,
    mechanism: Mechanism,
    stamps: &[(&str, Option<Sample>)],
) -> fmt::Result {
    writeln!(buf, "{HEADER}")?;
    writeln!(buf, "mechanism {}", mechanism.as_str())?;
    for (name, sample) in stamps {
        let Some(s) = sample else { continue };
        writeln!(buf, "{name}_ns {}", s.ns)?;
        writeln!(buf, "{name}_minflt {}", s.minflt)?;
        writeln!(buf, "{name}_majflt {}", s.majflt)?;
        writeln!(buf, "{name}_rss_bytes {}", s.rss_bytes)?;
    }
    Ok(())
}

/// Creates or truncates `path` (mode 0644 before umask) and writes `bytes` to it.
pub fn write_file(path: &CStr, bytes: &[u8]) -> io::Result<()> {
    let flags = libc::O_WRONLY | libc::O_CREAT | libc::O_TRUNC | libc::O_CLOEXEC;
    // SAFETY: path is NUL-terminated; the mode argument is what O_CREAT requires.
    let fd = unsafe { libc::open(path.as_ptr(), flags, 0o644 as libc::c_uint) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    let mut rest = bytes;
    let mut result = Ok(());
    while !rest.is_empty() {
        // SAFETY: fd is open for writing; rest is readable for rest.len() bytes.
        let n = unsafe { libc::write(fd, rest.as_ptr().cast(), rest.len()) };
        match usize::try_from(n) {
            Ok(0) => {
                result = Err(io::ErrorKind::WriteZero.into());
                break;
            }
            Ok(n) => rest = &rest[n.min(rest.len())..],
            Err(_) => {
                let err = io::Error::last_os_error();
                if err.kind() != io::ErrorKind::Interrupted {
                    result = Err(err);
                    break;
                }
            }
        }
    }
    // SAFETY: fd was opened above and is closed once.
    if unsafe { libc::close(fd) } != 0 && result.is_ok() {
        result = Err(io::Error::last_os_error());
    }
    result
}

/// Writes `pretouch-agent: <message>` and a newline to stderr with one `write`.
pub fn print_error(message: fmt::Arguments<'_>) {
    let mut line = FixedBuf::<1024>::new();
    // A message too long for the buffer is cut rather than lost.
    if write!(line, "pretouch-agent: {message}").is_err() {
        let _ = line.write_str(" ...");
    }
    let mut bytes = [0u8; 1025];
    let text = line.as_bytes();
    bytes[..text.len()].copy_from_slice(text);
    bytes[text.len()] = b'\n';
    // SAFETY: bytes is readable for text.len() + 1 bytes; fd 2 may be closed, then write fails
    // harmlessly.
    unsafe { libc::write(2, bytes.as_ptr().cast(), text.len() + 1) };
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(base: u64) -> Sample {
        Sample {
            ns: base,
            minflt: base + 1,
            majflt: base + 2,
            rss_bytes: base + 3,
        }
    }

    fn formatted(mechanism: Mechanism, stamps: &[(&str, Option<Sample>)]) -> String {
        let mut buf = FixedBuf::<FILE_CAPACITY>::new();
        format(&mut buf, mechanism, stamps).unwrap();
        String::from_utf8(buf.as_bytes().to_vec()).unwrap()
    }

    #[test]
    fn all_stamps() {
        let text = formatted(
            Mechanism::Jni,
            &[
                ("agent_load", Some(sample(10))),
                ("vm_init", Some(sample(20))),
                ("main", Some(sample(30))),
            ],
        );
        assert_eq!(
            text,
            "pretouch-agent 1\n\
             mechanism jni\n\
             agent_load_ns 10\nagent_load_minflt 11\nagent_load_majflt 12\nagent_load_rss_bytes 13\n\
             vm_init_ns 20\nvm_init_minflt 21\nvm_init_majflt 22\nvm_init_rss_bytes 23\n\
             main_ns 30\nmain_minflt 31\nmain_majflt 32\nmain_rss_bytes 33\n"
        );
    }

    #[test]
    fn stamps_not_reached_are_absent() {
        let text = formatted(
            Mechanism::Breakpoint,
            &[
                ("agent_load", Some(sample(1))),
                ("vm_init", Some(sample(5))),
                ("main", None),
            ],
        );
        assert_eq!(
            text,
            "pretouch-agent 1\nmechanism breakpoint\n\
             agent_load_ns 1\nagent_load_minflt 2\nagent_load_majflt 3\nagent_load_rss_bytes 4\n\
             vm_init_ns 5\nvm_init_minflt 6\nvm_init_majflt 7\nvm_init_rss_bytes 8\n"
        );
    }

    #[test]
    fn largest_file_fits() {
        let max = Some(Sample {
            ns: u64::MAX,
            minflt: u64::MAX,
            majflt: u64::MAX,
            rss_bytes: u64::MAX,
        });
        let mut buf = FixedBuf::<FILE_CAPACITY>::new();
        format(
            &mut buf,
            Mechanism::Breakpoint,
            &[("agent_load", max), ("vm_init", max), ("main", max)],
        )
        .unwrap();
        assert!(buf.as_bytes().len() < FILE_CAPACITY);
    }

    #[test]
    fn fixed_buf_refuses_overflow_whole() {
        let mut buf = FixedBuf::<8>::new();
        buf.write_str("abcde").unwrap();
        assert!(buf.write_str("fghi").is_err());
        assert_eq!(buf.as_bytes(), b"abcde");
        buf.write_str("fgh").unwrap();
        assert_eq!(buf.as_bytes(), b"abcdefgh");
    }

    #[test]
    fn write_file_creates_and_truncates() {
        let dir = std::env::temp_dir().join(format!("pretouch-agent-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("stamps, with comma.txt");
        let cpath = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
        write_file(&cpath, b"a long first version\n").unwrap();
        write_file(&cpath, b"short\n").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"short\n");
        let missing = std::ffi::CString::new(dir.join("no/such/dir").to_str().unwrap()).unwrap();
        assert_eq!(
            write_file(&missing, b"x").unwrap_err().kind(),
            io::ErrorKind::NotFound
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
