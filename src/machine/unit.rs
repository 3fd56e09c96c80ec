//! Where a campaign lives on this machine and the systemd unit that continues it at
//! each boot. Everything the unit runs as root is root's alone: the campaign folder is
//! root-owned and 0700 and holds the copy of `pretouch`, the matrix and the state that
//! the unit runs, so the unit's command line names no path another user controls.
//! Every path is under a root folder (`/` on a real machine; a test installs into a
//! folder of its own and checks the unit with `systemd-analyze verify --root`).

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// The unit's name.
const UNIT_NAME: &str = "pretouch-campaign.service";
/// The campaign folder, under the root.
const CAMPAIGN_DIR: &str = "var/lib/pretouch-campaign";
/// The copy of `pretouch` the unit runs, in the campaign folder.
pub const BINARY: &str = "pretouch";
/// The copy of the matrix, in the campaign folder.
pub const MATRIX: &str = "matrix.yaml";
/// Made by `pretouch campaign stop`: the campaign boots nothing more.
pub const STOP_FILE: &str = "stop";
/// The process id of the `campaign continue` under way.
pub const PID_FILE: &str = "continue.pid";

/// The paths of one installation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    /// `/`, or a test's root folder.
    pub root: PathBuf,
}

impl Layout {
    pub fn new(root: &Path) -> Layout {
        Layout {
            root: root.to_owned(),
        }
    }

    /// A path of the installed system, as the machine sees it, under this root.
    pub fn under(&self, path: &Path) -> PathBuf {
        self.root.join(path.strip_prefix("/").unwrap_or(path))
    }

    /// The campaign folder as the booted machine sees it (the unit names this).
    pub fn dir_in_system() -> PathBuf {
        Path::new("/").join(CAMPAIGN_DIR)
    }

    pub fn dir(&self) -> PathBuf {
        self.root.join(CAMPAIGN_DIR)
    }

    pub fn unit(&self) -> PathBuf {
        self.root.join("etc/systemd/system").join(UNIT_NAME)
    }

    /// What `systemctl enable` makes: the unit wanted by multi-user.target.
    pub fn wants_link(&self) -> PathBuf {
        self.root
            .join("etc/systemd/system/multi-user.target.wants")
            .join(UNIT_NAME)
    }
}

/// The unit: after the boot settled (multi-user.target), root's copy of `pretouch`
/// runs `campaign continue`, which checks the kernel, runs the step and boots the next
/// kernel. It runs only while the campaign's state exists.
fn unit_text() -> String {
    let dir = Layout::dir_in_system();
    let binary = dir.join(BINARY);
    let state = dir.join(crate::machine::unit::STATE_FILE);
    format!(
        "# Installed by `pretouch run --boot`; removed at the campaign's end and by\n\
         # `pretouch campaign stop`.\n\
         [Unit]\n\
         Description=pretouch campaign: check the kernel, run this boot's step, boot the next\n\
         After=multi-user.target\n\
         ConditionPathExists={state}\n\
         \n\
         [Service]\n\
         Type=exec\n\
         User=root\n\
         ExecStart={binary} campaign continue\n\
         WorkingDirectory={dir}\n\
         TimeoutStartSec=infinity\n\
         KillMode=control-group\n\
         StandardOutput=journal+console\n\
         StandardError=journal+console\n\
         \n\
         [Install]\n\
         WantedBy=multi-user.target\n",
        state = state.display(),
        binary = binary.display(),
        dir = dir.display(),
    )
}

/// The state file's name in the campaign folder.
pub const STATE_FILE: &str = "campaign.json";

/// Writes the unit and enables it (the link `systemctl enable` would make), so that
/// it starts at the next boot.
pub fn install(layout: &Layout) -> std::io::Result<()> {
    let unit = layout.unit();
    std::fs::create_dir_all(unit.parent().expect("a unit folder"))?;
    write_synced(&unit, &mut unit_text().as_bytes(), 0o644)?;
    let link = layout.wants_link();
    std::fs::create_dir_all(link.parent().expect("a wants folder"))?;
    match std::fs::remove_file(&link) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
        _ => {}
    }
    std::os::unix::fs::symlink(Path::new("/etc/systemd/system").join(UNIT_NAME), &link)?;
    sync_dir(link.parent().expect("a wants folder"))
}

/// Removes the unit and its link; what is already gone is no error.
pub fn remove(layout: &Layout) -> std::io::Result<()> {
    for path in [layout.wants_link(), layout.unit()] {
        match std::fs::remove_file(&path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
    }
    Ok(())
}

/// The running binary itself: opening this names the file the process was started
/// from, even after someone renamed, replaced or removed that file's path.
pub const RUNNING_BINARY: &str = "/proc/self/exe";

/// Makes the campaign folder, root's and 0700, with `binary` (the campaign's start
/// passes [`RUNNING_BINARY`]) and the matrix copied in; an earlier folder is refused.
pub fn make_dir(layout: &Layout, binary: &Path, matrix: &[u8]) -> std::io::Result<()> {
    let dir = layout.dir();
    std::fs::create_dir_all(dir.parent().expect("a campaign folder's parent"))?;
    std::fs::create_dir(&dir)?;
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700))?;
    let mut binary = std::fs::File::open(binary)?;
    write_synced(&dir.join(BINARY), &mut binary, 0o700)?;
    write_synced(&dir.join(MATRIX), &mut &matrix[..], 0o600)?;
    sync_dir(&dir)
}

/// Writes what `from` reads to `path` through a temporary file, synced, then renamed.
/// From a file, `std::io::copy` lets the kernel copy (`copy_file_range`).
fn write_synced(path: &Path, from: &mut impl std::io::Read, mode: u32) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    std::io::copy(from, tmp.as_file_mut())?;
    tmp.as_file()
        .set_permissions(std::fs::Permissions::from_mode(mode))?;
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    sync_dir(dir)
}

/// fsync of a folder, so that a rename in it survives a power cut.
fn sync_dir(dir: &Path) -> std::io::Result<()> {
    std::fs::File::open(dir)?.sync_all()
}

/// `Err` naming the first of `path` and its parents that a user other than root could
/// change: owned by someone else, or writable by group or others (a sticky folder such
/// as /tmp excepted, where no one can move what root owns). A missing tail is skipped.
/// Where `path` is a link, every link on the way and the file it names are checked too,
/// and so is the real folder behind a linked folder on the way.
pub fn root_only(path: &Path) -> Result<(), String> {
    let mut path = std::path::absolute(path).unwrap_or_else(|_| path.to_owned());
    // 40: the kernel's own limit on links followed in one lookup.
    for _ in 0..40 {
        nobody_else_can_change(&path)?;
        match std::fs::read_link(&path) {
            Ok(target) => path = path.parent().unwrap_or(Path::new("/")).join(target),
            Err(_) => break,
        }
    }
    // A folder on the way may be a link too, and the tail may not exist yet (results).
    let Some(existing) = path.ancestors().find(|p| p.exists()) else {
        return Ok(());
    };
    match std::fs::canonicalize(existing) {
        Ok(real) if real != existing => nobody_else_can_change(&real),
        _ => Ok(()),
    }
}

/// [`root_only`] of `path` as named: it and its parents, links not followed.
fn nobody_else_can_change(path: &Path) -> Result<(), String> {
    for p in path.ancestors() {
        let Ok(meta) = std::fs::symlink_metadata(p) else {
            continue;
        };
        let what = if meta.uid() != 0 {
            Some(format!("is owned by uid {}", meta.uid()))
        } else if meta.file_type().is_symlink() {
            None
        } else {
            let writable = meta.mode() & 0o022 != 0;
            let sticky = meta.is_dir() && meta.mode() & 0o1000 != 0;
            (writable && !(sticky && p != path))
                .then(|| format!("is writable by others (mode {:o})", meta.mode() & 0o7777))
        };
        if let Some(what) = what {
            return Err(format!("`{}` {what}", p.display()));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_unit_runs_root_s_copy_from_the_campaign_folder() {
        let text = unit_text();
        assert!(text.contains("ExecStart=/var/lib/pretouch-campaign/pretouch campaign continue\n"));
        assert!(text.contains("ConditionPathExists=/var/lib/pretouch-campaign/campaign.json\n"));
        // No path outside the campaign folder and systemd's own.
        for word in text.split_whitespace() {
            if let Some(at) = word.find('/') {
                let path = &word[at..];
                assert!(
                    path.starts_with("/var/lib/pretouch-campaign")
                        || path.starts_with("/etc/systemd")
                        || path == "/",
                    "{path}"
                );
            }
        }
    }

    #[test]
    fn a_folder_others_can_write_is_not_root_s_alone() {
        let dir = tempfile::tempdir().unwrap();
        let open = dir.path().join("open");
        std::fs::create_dir(&open).unwrap();
        std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o777)).unwrap();
        let err = root_only(&open.join("results")).unwrap_err();
        assert!(err.contains("writable by others"), "{err}");
        std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o1777)).unwrap();
        // Sticky as a parent (as /tmp is): root's folder in it is root's.
        let inner = open.join("results");
        std::fs::create_dir(&inner).unwrap();
        std::fs::set_permissions(&inner, std::fs::Permissions::from_mode(0o755)).unwrap();
        if nix_uid() == 0 {
            root_only(&inner).unwrap();
        }
    }

    #[test]
    fn a_link_into_a_folder_others_can_write_is_not_root_s_alone() {
        if nix_uid() != 0 {
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let open = dir.path().join("open");
        std::fs::create_dir(&open).unwrap();
        std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o777)).unwrap();
        let file = open.join("initrd");
        std::fs::write(&file, b"").unwrap();
        let closed = dir.path().join("closed");
        std::fs::create_dir(&closed).unwrap();
        std::fs::write(closed.join("real"), b"").unwrap();
        root_only(&closed.join("real")).unwrap();
        // Straight to it, and through a second link.
        std::os::unix::fs::symlink(&file, closed.join("link")).unwrap();
        std::os::unix::fs::symlink("link", closed.join("link2")).unwrap();
        for link in ["link", "link2"] {
            let err = root_only(&closed.join(link)).unwrap_err();
            assert!(
                err.contains("open") && err.contains("writable by others"),
                "{err}"
            );
        }
        std::os::unix::fs::symlink("real", closed.join("fine")).unwrap();
        root_only(&closed.join("fine")).unwrap();
        // A linked folder, with a tail that does not exist yet.
        std::os::unix::fs::symlink(&open, closed.join("results")).unwrap();
        let err = root_only(&closed.join("results").join("campaign-x")).unwrap_err();
        assert!(err.contains("writable by others"), "{err}");
    }

    fn nix_uid() -> u32 {
        // SAFETY: geteuid has no preconditions and cannot fail.
        unsafe { libc::geteuid() }
    }
}
