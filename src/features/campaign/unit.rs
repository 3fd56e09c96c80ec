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
    let state = dir.join(crate::features::campaign::unit::STATE_FILE);
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

/// `Err` naming the first entry on the way to `path` that a user other than root could
/// change, as the kernel resolves it: each folder, each link (and where it leads) and
/// the file itself must be root's, and no folder writable by others, but for a sticky
/// one on the way (as /tmp is, where no one can move what root owns). Where the tail
/// does not exist yet (a results folder root makes later), the folder it would be made
/// in must not let others make it first.
pub fn root_only(path: &Path) -> Result<(), String> {
    let path = std::path::absolute(path).unwrap_or_else(|_| path.to_owned());
    // The names still to walk, the next last.
    let mut rest = names_reversed(&path);
    let mut at = PathBuf::from("/");
    let mut links = 0;
    if let Ok(meta) = std::fs::symlink_metadata(&at) {
        check_entry(&at, &meta, true)?;
    }
    while let Some(name) = rest.pop() {
        if name == ".." {
            at.pop();
            continue;
        }
        let next = at.join(&name);
        let Ok(meta) = std::fs::symlink_metadata(&next) else {
            let mode = std::fs::metadata(&at).map_or(0, |m| m.mode());
            return match mode & 0o022 != 0 {
                true => Err(format!(
                    "`{}` is writable by others (mode {:o}), who could make `{}` first",
                    at.display(),
                    mode & 0o7777,
                    next.display()
                )),
                false => Ok(()),
            };
        };
        check_entry(&next, &meta, rest.is_empty())?;
        if meta.file_type().is_symlink() {
            // 40: the kernel's own limit on links followed in one lookup.
            links += 1;
            let target =
                std::fs::read_link(&next).map_err(|e| format!("`{}`: {e}", next.display()))?;
            if links > 40 {
                return Err(format!("`{}`: too many levels of links", path.display()));
            }
            if target.is_absolute() {
                at = PathBuf::from("/");
            }
            rest.extend(names_reversed(&target));
            continue;
        }
        at = next;
    }
    Ok(())
}

/// The names of `path` past its root, last first (`.` left out, `..` kept).
fn names_reversed(path: &Path) -> Vec<std::ffi::OsString> {
    use std::path::Component;
    let mut names: Vec<_> = path
        .components()
        .filter_map(|c| match c {
            Component::Normal(name) => Some(name.to_owned()),
            Component::ParentDir => Some("..".into()),
            _ => None,
        })
        .collect();
    names.reverse();
    names
}

/// `Err` when `entry` (its `meta`, links not followed) is not root's, or is writable by
/// others: a sticky folder is allowed on the way, not as the end (`last`); a link's own
/// mode means nothing.
fn check_entry(entry: &Path, meta: &std::fs::Metadata, last: bool) -> Result<(), String> {
    if meta.uid() != 0 {
        return Err(format!(
            "`{}` is owned by uid {}",
            entry.display(),
            meta.uid()
        ));
    }
    if meta.file_type().is_symlink() {
        return Ok(());
    }
    let writable = meta.mode() & 0o022 != 0;
    let sticky_on_the_way = !last && meta.is_dir() && meta.mode() & 0o1000 != 0;
    match writable && !sticky_on_the_way {
        true => Err(format!(
            "`{}` is writable by others (mode {:o})",
            entry.display(),
            meta.mode() & 0o7777
        )),
        false => Ok(()),
    }
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
        // A link reached through another link: root's link to a sticky folder, in which
        // someone else's link leads on (it could be repointed at any time).
        let sticky = dir.path().join("sticky");
        std::fs::create_dir(&sticky).unwrap();
        std::fs::set_permissions(&sticky, std::fs::Permissions::from_mode(0o1777)).unwrap();
        std::os::unix::fs::symlink(&closed, sticky.join("theirs")).unwrap();
        std::os::unix::fs::lchown(sticky.join("theirs"), Some(1000), None).unwrap();
        std::os::unix::fs::symlink(&sticky, closed.join("via")).unwrap();
        let err = root_only(&closed.join("via").join("theirs").join("real")).unwrap_err();
        assert!(
            err.contains("theirs") && err.contains("owned by uid 1000"),
            "{err}"
        );
        // Root's link there is root's: fine.
        std::os::unix::fs::symlink(&closed, sticky.join("ours")).unwrap();
        root_only(&closed.join("via").join("ours").join("real")).unwrap();
        // A name not made yet, right in a sticky folder: someone else could make it first.
        let err = root_only(&sticky.join("results")).unwrap_err();
        assert!(err.contains("could make"), "{err}");
        // Deeper, under a root folder in it: only root can make it.
        root_only(&sticky.join("ours").join("new-results")).unwrap();
    }

    fn nix_uid() -> u32 {
        // SAFETY: geteuid has no preconditions and cannot fail.
        unsafe { libc::geteuid() }
    }
}
