//! Below every stage, as `units` is: why a path the runner opens cannot be reached.
//!
//! `stat` fails with `EACCES` when a folder on the way is not searchable, and code that
//! asks only "does it exist?" then tells a user that a file they can see as root does
//! not exist. The matrix, the JDKs, the agent and the results folder are checked here
//! instead, so that a permission problem reads as one: `permission denied`, with the
//! user, the path, and the folder or file that stops it (its mode and owner).

use std::ffi::{CStr, CString};
use std::fmt;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// What a user needs to do to a path to use it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Need {
    /// Go through a folder (its `x` bit).
    Search,
    /// Read a file or list a folder.
    Read,
    /// Create or change an entry in a folder, or write a file.
    Write,
    /// Run a file.
    Execute,
}

impl Need {
    fn mode(self) -> libc::c_int {
        match self {
            Need::Search | Need::Execute => libc::X_OK,
            Need::Read => libc::R_OK,
            Need::Write => libc::W_OK,
        }
    }
}

impl fmt::Display for Need {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Need::Search => "search",
            Need::Read => "read",
            Need::Write => "write",
            Need::Execute => "execute",
        })
    }
}

/// A user, by number and (where the password database has it) name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct User {
    /// The numeric id.
    pub uid: u32,
    /// The login name, when the password database knows the id.
    pub name: Option<String>,
}

impl User {
    /// The effective user of this process, whose rights the kernel checks.
    pub fn current() -> User {
        // SAFETY: geteuid has no preconditions and cannot fail.
        let uid = unsafe { libc::geteuid() };
        User::from_uid(uid)
    }

    fn from_uid(uid: u32) -> User {
        User {
            uid,
            name: user_name(uid),
        }
    }
}

impl fmt::Display for User {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.name {
            Some(name) => write!(f, "{name} (uid {})", self.uid),
            None => write!(f, "uid {}", self.uid),
        }
    }
}

/// A path this process's user may not reach, and what stops it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("permission denied: user {user} cannot {need} `{}`{}{}", blocker.display(), self.on_the_way(), self.mode_owner())]
pub struct Denied {
    /// The path asked for.
    pub path: PathBuf,
    /// The first folder on the way that the user may not search, or else the path itself
    /// (or, for a path to create, the folder it goes in).
    pub blocker: PathBuf,
    /// What the user may not do to `blocker`.
    pub need: Need,
    /// `blocker`'s permission bits, when they can be read.
    pub mode: Option<u32>,
    /// `blocker`'s owner.
    pub owner: Option<User>,
    /// The user refused.
    pub user: User,
}

impl Denied {
    /// Why `user` may not `need` `path`: the first folder on the way it may not search,
    /// else the path itself (else the nearest folder above it, for a path not there yet).
    pub fn diagnose(path: &Path, need: Need) -> Denied {
        let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_owned());
        let mut folders: Vec<&Path> = absolute.ancestors().collect();
        folders.reverse();
        let mut blocker = (PathBuf::from("/"), Need::Write);
        for (i, at) in folders.iter().enumerate() {
            let last = i + 1 == folders.len();
            if at.symlink_metadata().is_err() {
                // Not there: what stops it is the folder it goes in (kept in `blocker`).
                break;
            }
            if last {
                blocker = (at.to_path_buf(), need);
            } else if !allowed(at, Need::Search) {
                blocker = (at.to_path_buf(), Need::Search);
                break;
            } else {
                blocker = (at.to_path_buf(), Need::Write);
            }
        }
        let (blocker, need) = blocker;
        let meta = blocker.metadata().ok();
        Denied {
            path: path.to_owned(),
            mode: meta.as_ref().map(|m| m.mode() & 0o7777),
            owner: meta.map(|m| User::from_uid(m.uid())),
            blocker,
            need,
            user: User::current(),
        }
    }

    /// The `fix:` line's advice.
    pub fn fix(&self) -> String {
        let who = match &self.user.name {
            Some(name) => name.clone(),
            None => format!("uid {}", self.user.uid),
        };
        format!(
            "let {who} {} `{}` (chmod, or a group it is in), run as a user who can, or move it to a folder {who} can reach",
            self.need,
            self.blocker.display()
        )
    }

    fn on_the_way(&self) -> String {
        let absolute = std::path::absolute(&self.path).unwrap_or_else(|_| self.path.clone());
        if absolute == self.blocker {
            String::new()
        } else if self.need == Need::Write {
            format!(", to create `{}`", self.path.display())
        } else {
            format!(", on the way to `{}`", self.path.display())
        }
    }

    fn mode_owner(&self) -> String {
        match (&self.mode, &self.owner) {
            (Some(mode), Some(owner)) => match &owner.name {
                Some(name) => format!(" (mode {mode:04o}, owner {name})"),
                None => format!(" (mode {mode:04o}, owner uid {})", owner.uid),
            },
            _ => String::new(),
        }
    }
}

/// Whether `path` is there for this process: `Ok(false)` when it does not exist, the
/// denial when a folder on the way, or the path, refuses this user `need`.
pub fn reach(path: &Path, need: Need) -> Result<bool, Box<Denied>> {
    match path.metadata() {
        Ok(_) if allowed(path, need) => Ok(true),
        Ok(_) => Err(Box::new(Denied::diagnose(path, need))),
        Err(e) => match denied(path, &e, need) {
            Some(d) => Err(d),
            None => Ok(false),
        },
    }
}

/// The denial behind an I/O error on `path`, when it was one.
pub fn denied(path: &Path, error: &std::io::Error, need: Need) -> Option<Box<Denied>> {
    (error.kind() == std::io::ErrorKind::PermissionDenied)
        .then(|| Box::new(Denied::diagnose(path, need)))
}

/// Opens `path` for reading only when it is a regular file, and says what it is when
/// it is not. It is opened without blocking, because opening a FIFO for reading waits
/// for a writer that may never come. The check is made on the file opened, so a path
/// swapped for a FIFO after a first look cannot block the reader either. A device such
/// as `/dev/zero` is refused too, because it never ends.
pub fn open_regular(path: &Path) -> std::io::Result<Result<std::fs::File, &'static str>> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)?;
    let kind = file.metadata()?.file_type();
    if kind.is_file() {
        return Ok(Ok(file));
    }
    Ok(Err(what_kind(kind)))
}

/// What a file that is not a regular file is, in the words of `ls -l`'s manual.
pub fn what_kind(kind: std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if kind.is_dir() {
        "a folder"
    } else if kind.is_fifo() {
        "a FIFO"
    } else if kind.is_socket() {
        "a socket"
    } else if kind.is_char_device() {
        "a character device"
    } else if kind.is_block_device() {
        "a block device"
    } else if kind.is_symlink() {
        "a symbolic link"
    } else if kind.is_file() {
        "a regular file"
    } else {
        "no regular file"
    }
}

/// Whether this process's effective user may `need` `path` (`faccessat` with
/// `AT_EACCESS`, so that the effective ids decide, as they do for an open).
fn allowed(path: &Path, need: Need) -> bool {
    let Ok(c) = CString::new(path.as_os_str().as_bytes()) else {
        return false;
    };
    // SAFETY: `c` is a NUL-terminated path that lives across the call; AT_FDCWD and the
    // flags are valid arguments.
    unsafe { libc::faccessat(libc::AT_FDCWD, c.as_ptr(), need.mode(), libc::AT_EACCESS) == 0 }
}

/// The login name of `uid`, from the password database.
fn user_name(uid: u32) -> Option<String> {
    let mut buf = vec![0 as libc::c_char; 4096];
    // SAFETY: all-zero is a valid `passwd` (null pointers, zero ids); getpwuid_r fills it.
    let mut pwd: libc::passwd = unsafe { std::mem::zeroed() };
    let mut result: *mut libc::passwd = std::ptr::null_mut();
    // SAFETY: `pwd`, `buf` (with its length) and `result` are valid for writes for the
    // whole call; getpwuid_r writes the strings into `buf` only.
    let rc = unsafe { libc::getpwuid_r(uid, &mut pwd, buf.as_mut_ptr(), buf.len(), &mut result) };
    if rc != 0 || result.is_null() || pwd.pw_name.is_null() {
        return None;
    }
    // SAFETY: on success `pw_name` points to a NUL-terminated string inside `buf`, which
    // is alive here.
    let name = unsafe { CStr::from_ptr(pwd.pw_name) };
    Some(name.to_string_lossy().into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_that_is_there_is_reached_and_one_that_is_not_is_missing() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f");
        std::fs::write(&file, "x").unwrap();
        assert_eq!(reach(&file, Need::Read), Ok(true));
        assert_eq!(reach(&dir.path().join("nope"), Need::Read), Ok(false));
    }

    #[test]
    fn root_is_named_from_the_password_database() {
        assert_eq!(User::from_uid(0).to_string(), "root (uid 0)");
    }

    #[test]
    fn a_denial_names_the_user_the_blocking_folder_its_mode_and_the_path() {
        let denied = Denied {
            path: PathBuf::from("/tmp/x/c/lib.so"),
            blocker: PathBuf::from("/tmp/x"),
            need: Need::Search,
            mode: Some(0o700),
            owner: Some(User::from_uid(0)),
            user: User {
                uid: 65534,
                name: Some("nobody".into()),
            },
        };
        assert_eq!(
            denied.to_string(),
            "permission denied: user nobody (uid 65534) cannot search `/tmp/x`, on the way to \
             `/tmp/x/c/lib.so` (mode 0700, owner root)"
        );
        assert!(denied.fix().starts_with("let nobody search `/tmp/x`"));
        let itself = Denied {
            blocker: PathBuf::from("/tmp/x/c/lib.so"),
            need: Need::Read,
            ..denied
        };
        assert_eq!(
            itself.to_string(),
            "permission denied: user nobody (uid 65534) cannot read `/tmp/x/c/lib.so` \
             (mode 0700, owner root)"
        );
    }
}
