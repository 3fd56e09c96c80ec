//! Stage 3, beside the launcher: the `settings:` axis on the machine. Checks a matrix's
//! writes against this kernel before anything changes, journals the original values,
//! writes and reads back each launch's setting, and restores the originals, at the
//! run's end or, after a `kill -9` or a power loss, in the next `pretouch`.
//!
//! The journal (`/var/lib/pretouch/kernel-settings.json`) is written and fsynced, file
//! and folder, before the first change, and removed once every original is back. Its
//! folder is root's, mode 0700: replaying a journal writes kernel settings as root, so
//! one owned by another user, or writable by others, is refused and never replayed. A
//! run holds an advisory lock beside it while the journal is live (the kernel drops it
//! when the run dies, even by `kill -9`), so the next `pretouch` tells a run still
//! going from one that died. `PRETOUCH_KERNEL_ROOT` (a folder holding `sys/kernel/mm`
//! and `proc/sys`) and `PRETOUCH_STATE_DIR` point both at a fake tree, for tests.

pub mod hook;

use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::Write as _;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt};
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::features::settings::matrix::{Knob, Setting, knobs};
use crate::matrix::{Matrix, MatrixError};

/// Where the knobs and the journal are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Paths {
    /// `/`, or a fake tree holding `sys/kernel/mm` and `proc/sys`.
    pub root: PathBuf,
    /// The root-owned 0700 folder of the journal and its lock.
    pub state_dir: PathBuf,
}

/// The journal's folder: /var/lib survives a power loss, which /run does not.
const STATE_DIR: &str = "/var/lib/pretouch";
const JOURNAL: &str = "kernel-settings.json";
const LOCK: &str = "kernel-settings.lock";
const JOURNAL_FORMAT: u32 = 1;

impl Paths {
    /// The real machine's, unless `PRETOUCH_KERNEL_ROOT` / `PRETOUCH_STATE_DIR` say
    /// otherwise (tests).
    pub fn from_env() -> Paths {
        let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
        Paths {
            root: crate::machine::kernel_root::kernel_root(),
            state_dir: var("PRETOUCH_STATE_DIR")
                .map_or_else(|| PathBuf::from(STATE_DIR), PathBuf::from),
        }
    }

    /// Whether the knobs are the real ones (writing them needs root).
    pub fn real(&self) -> bool {
        self.root == Path::new("/")
    }

    pub fn file(&self, knob: &Knob) -> PathBuf {
        self.root.join(knob.relative_path())
    }

    pub fn journal(&self) -> PathBuf {
        self.state_dir.join(JOURNAL)
    }

    fn lock(&self) -> PathBuf {
        self.state_dir.join(LOCK)
    }
}

#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    #[error(
        "settings: writing kernel settings (under /sys/kernel/mm and /proc/sys) needs root, \
         and this runs as uid {uid}\n  fix: run as root (sudo -E pretouch run ...), or \
         remove `settings:` from the matrix"
    )]
    NotRoot { uid: u32 },
    #[error("settings: cannot write `{value}` to {file}: {source}")]
    Write {
        file: String,
        value: String,
        #[source]
        source: std::io::Error,
    },
    #[error("settings: cannot read {file}: {source}")]
    Read {
        file: String,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "settings: the kernel did not take `{value}` in {file} (setting `{setting}`): it holds `{held}`"
    )]
    NotTaken {
        setting: String,
        file: String,
        value: String,
        held: String,
    },
    #[error("settings: the journal {path}: {message}")]
    Journal { path: String, message: String },
    #[error(
        "settings: another pretouch run{} has kernel settings changed (it holds {lock}); \
         runs that change settings cannot overlap\n  fix: wait for it to end",
        pid.map_or_else(String::new, |p| format!(" (pid {p})"))
    )]
    Busy { pid: Option<u32>, lock: String },
}

/// What a knob holds: the active word of a choice file (`always [madvise] never` holds
/// `madvise`), else its text with runs of blanks as one space.
pub fn held(text: &str) -> String {
    let text = text.trim();
    if let (Some(open), Some(close)) = (text.find('['), text.find(']'))
        && open < close
    {
        return text[open + 1..close].to_owned();
    }
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The values a choice file offers (`always [madvise] never`), brackets dropped; `None`
/// for a file that is not a list of choices.
fn choices(text: &str) -> Option<Vec<String>> {
    if !text.contains('[') {
        return None;
    }
    Some(
        text.split_whitespace()
            .map(|w| w.trim_start_matches('[').trim_end_matches(']').to_owned())
            .collect(),
    )
}

fn is_numbers(text: &str) -> bool {
    let words: Vec<&str> = text.split_whitespace().collect();
    !words.is_empty()
        && words.iter().all(|w| {
            w.strip_prefix('-')
                .unwrap_or(w)
                .bytes()
                .all(|b| b.is_ascii_digit())
                && !w.is_empty()
        })
}

fn read_knob(path: &Path) -> Result<String, SettingsError> {
    std::fs::read_to_string(path).map_err(|source| SettingsError::Read {
        file: path.display().to_string(),
        source,
    })
}

/// The mTHP sizes this kernel has (`hugepages-16kB`...), smallest first.
fn mthp_sizes(root: &Path) -> Vec<String> {
    let dir = root
        .join(crate::machine::kernel_root::SYSFS_MM)
        .join("transparent_hugepage");
    let mut sizes: Vec<(u64, String)> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            let kb = name
                .strip_prefix("hugepages-")?
                .strip_suffix("kB")?
                .parse()
                .ok()?;
            Some((kb, name))
        })
        .collect();
    sizes.sort();
    sizes.into_iter().map(|(_, n)| n).collect()
}

/// Checks every write of the matrix's `settings:` against this kernel, reading only:
/// each file exists, a choice file offers the value, a number file gets a number; and
/// that the runner may write them (root). Errors name the matrix line and the fix.
pub fn check(matrix: &Matrix, paths: &Paths, need_root: bool) -> Result<(), MatrixError> {
    if matrix.features.settings.is_empty() {
        return Ok(());
    }
    let line_of = |needle: &str| {
        matrix
            .text
            .lines()
            .position(|l| l.contains(needle))
            .map(|i| i + 1)
    };
    let invalid = |line: Option<usize>, message: String| MatrixError::Invalid {
        origin: matrix.origin.clone(),
        line,
        column: None,
        message,
    };
    if need_root && paths.real() {
        // SAFETY: geteuid has no preconditions.
        let uid = unsafe { libc::geteuid() };
        if uid != 0 {
            return Err(invalid(
                line_of("settings:"),
                SettingsError::NotRoot { uid }.to_string(),
            ));
        }
    }
    for setting in &matrix.features.settings {
        for write in &setting.writes {
            check_write(setting, write, paths)
                .map_err(|message| invalid(line_of(write.knob.key()), message))?;
        }
    }
    Ok(())
}

/// Checks one write of `setting` against this kernel: its file exists and takes the
/// value. The error is the message, with its fix.
fn check_write(
    setting: &Setting,
    write: &crate::features::settings::matrix::Write,
    paths: &Paths,
) -> Result<(), String> {
    let file = paths.file(&write.knob);
    let text = match std::fs::read_to_string(&file) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(no_such_knob(setting, &write.knob, &file, paths));
        }
        Err(e) => {
            return Err(format!(
                "setting `{}`: cannot read {}: {e}",
                setting.name,
                file.display()
            ));
        }
    };
    if let Some(offered) = choices(&text) {
        if !offered.contains(&write.value) {
            return Err(format!(
                "setting `{}`: {} does not take `{}`: this kernel offers {}\n  fix: use one of those",
                setting.name,
                write.knob.shown(),
                write.value,
                offered.join(", ")
            ));
        }
    } else if is_numbers(&text) && !is_numbers(&write.value) {
        return Err(format!(
            "setting `{}`: {} holds a number (`{}`) and `{}` is not one\n  fix: write a number",
            setting.name,
            write.knob.shown(),
            held(&text),
            write.value
        ));
    }
    Ok(())
}

/// What to say of a knob's `file` this kernel does not have: an mTHP size it lacks
/// (and the sizes it has), or a knob it lacks.
fn no_such_knob(setting: &Setting, knob: &Knob, file: &Path, paths: &Paths) -> String {
    match knob.mthp_size() {
        Some(size)
            if !paths
                .root
                .join(format!(
                    "{}/transparent_hugepage/{size}",
                    crate::machine::kernel_root::SYSFS_MM
                ))
                .is_dir() =>
        {
            let sizes = mthp_sizes(&paths.root);
            format!(
                "setting `{}`: this kernel has no {size} (no {})\n  fix: use one of the sizes it has: {}",
                setting.name,
                file.display(),
                if sizes.is_empty() {
                    "none (no multi-size THP)".to_owned()
                } else {
                    sizes.join(", ")
                }
            )
        }
        _ => format!(
            "setting `{}`: this kernel has no {} (no {})\n  fix: remove it, \
             or run on a kernel that has it",
            setting.name,
            knob.shown(),
            file.display()
        ),
    }
}

/// The settings a launch ran under, as read back from the kernel just before it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SettingsRead {
    /// The setting's name in the matrix's `settings:`.
    pub name: String,
    /// Every knob any setting of the run writes, as the kernel held it before the
    /// spawn: sysfs paths relative to /sys/kernel/mm, sysctls dotted. A knob this
    /// setting does not name holds the machine's value from before the run.
    pub values: BTreeMap<String, String>,
}

impl crate::launch::parts::LaunchPart for SettingsRead {
    fn kernel_values(&self) -> Option<&BTreeMap<String, String>> {
        Some(&self.values)
    }

    /// The environment with the THP and mTHP modes that the setting wrote before the
    /// launch laid over it, by their path under /sys/kernel/mm, as the kernel held them.
    /// So the folio sizes and the method follow the modes each launch ran under, not the
    /// machine's modes at the run's start.
    fn environment(
        &self,
        env: &crate::machine::env::Environment,
    ) -> Option<crate::machine::env::Environment> {
        let mut env = env.clone();
        for (key, value) in &self.values {
            let Some(rest) = key.strip_prefix("transparent_hugepage/") else {
                continue;
            };
            match rest.split_once('/') {
                None if rest == "enabled" => env.thp_enabled = Some(value.clone()),
                None if rest == "defrag" => env.thp_defrag = Some(value.clone()),
                None if rest == "shmem_enabled" => env.thp_shmem_enabled = Some(value.clone()),
                Some((dir, file)) => {
                    let Some(size) = dir.strip_prefix("hugepages-") else {
                        continue;
                    };
                    let modes = match file {
                        "enabled" => &mut env.mthp,
                        "shmem_enabled" => &mut env.mthp_shmem,
                        _ => continue,
                    };
                    modes.insert(size.to_owned(), value.clone());
                }
                None => {}
            }
        }
        Some(env)
    }
}

/// The journal's content: what to write back.
#[derive(Debug, Serialize, Deserialize)]
struct Journal {
    format: u32,
    /// The run that changed the settings.
    pid: u32,
    /// When it journalled them, UTC.
    started_at: String,
    /// The tree the knobs are in (`/` on a real machine).
    root: PathBuf,
    /// Each knob's value before the run, by [`Knob`]'s journal spelling.
    originals: Vec<JournalEntry>,
}

#[derive(Debug, Serialize, Deserialize)]
struct JournalEntry {
    knob: String,
    value: String,
}

/// The settings of a run, applied to the machine. It restores the originals when
/// [`Applied::restore`] is called. Otherwise it restores them when dropped, after a panic
/// or an error. It is not the run's session, which holds it among the features' parts.
pub struct Applied {
    paths: Paths,
    settings: Vec<Setting>,
    knobs: Vec<Knob>,
    originals: BTreeMap<Knob, String>,
    /// Held while the journal is live.
    _lock: File,
    restored: bool,
}

/// Makes the journal's folder (root's, 0700) or checks the one there.
fn state_dir(paths: &Paths) -> Result<(), SettingsError> {
    let dir = &paths.state_dir;
    if !dir.exists() {
        if let Some(parent) = dir.parent() {
            let _ = std::fs::create_dir_all(parent);
        }
        std::fs::DirBuilder::new()
            .mode(0o700)
            .create(dir)
            .map_err(|e| SettingsError::Journal {
                path: dir.display().to_string(),
                message: format!("cannot make the folder: {e}"),
            })?;
    }
    trusted(dir, true).map_err(|message| SettingsError::Journal {
        path: dir.display().to_string(),
        message,
    })
}

/// Why `path` cannot be trusted to replay as this user: not owned by it, writable by
/// others (a folder: any access by others), or a symbolic link.
fn trusted(path: &Path, folder: bool) -> Result<(), String> {
    let meta = std::fs::symlink_metadata(path).map_err(|e| format!("cannot stat it: {e}"))?;
    // SAFETY: geteuid has no preconditions.
    let uid = unsafe { libc::geteuid() };
    if meta.file_type().is_symlink() {
        return Err("it is a symbolic link".to_owned());
    }
    if meta.uid() != uid {
        return Err(format!(
            "it is owned by uid {}, not by uid {uid} that would replay it",
            meta.uid()
        ));
    }
    let loose = if folder { 0o077 } else { 0o022 };
    if meta.mode() & loose != 0 {
        return Err(format!(
            "its mode {:o} lets other users {}",
            meta.mode() & 0o777,
            if folder { "in" } else { "write it" }
        ));
    }
    Ok(())
}

/// Takes the journal's lock without waiting: `None` when a live run holds it.
fn try_lock(paths: &Paths) -> Result<Option<File>, SettingsError> {
    let path = paths.lock();
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW)
        .open(&path)
        .map_err(|e| SettingsError::Journal {
            path: path.display().to_string(),
            message: format!("cannot open the lock: {e}"),
        })?;
    // SAFETY: flock on a file descriptor this File owns, for as long as it lives.
    let locked = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0;
    Ok(locked.then_some(file))
}

/// Writes `bytes` to `path` durably: a temporary file, fsynced, renamed over, then the
/// folder fsynced, so that after a power loss the file is whole or absent.
fn write_durably(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("/"));
    let tmp = path.with_extension("tmp");
    let _ = std::fs::remove_file(&tmp);
    let mut file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&tmp)?;
    file.write_all(bytes)?;
    file.sync_all()?;
    drop(file);
    std::fs::rename(&tmp, path)?;
    File::open(dir)?.sync_all()
}

fn remove_durably(path: &Path) -> std::io::Result<()> {
    std::fs::remove_file(path)?;
    File::open(path.parent().unwrap_or(Path::new("/")))?.sync_all()
}

fn pid_of_lock(paths: &Paths) -> Option<u32> {
    let text = std::fs::read_to_string(paths.journal()).ok()?;
    serde_json::from_str::<Journal>(&text).ok().map(|j| j.pid)
}

impl Applied {
    /// Journals the originals of every knob `settings` write, then writes each
    /// setting once and reads it back (so that a value the kernel refuses or rewrites
    /// stops the run before the first launch), and puts the originals back. The
    /// journal stays until [`Applied::restore`].
    pub fn begin(paths: &Paths, settings: &[Setting]) -> Result<Applied, SettingsError> {
        state_dir(paths)?;
        let Some(lock) = try_lock(paths)? else {
            return Err(SettingsError::Busy {
                pid: pid_of_lock(paths),
                lock: paths.lock().display().to_string(),
            });
        };
        let journal = paths.journal();
        if std::fs::symlink_metadata(&journal).is_ok() {
            return Err(SettingsError::Journal {
                path: journal.display().to_string(),
                message: "a run that ended without restoring its settings left it, and it \
                          was not replayed (see the warning above)\n  fix: check the values \
                          it holds against the machine, then remove it"
                    .to_owned(),
            });
        }
        let knobs = knobs(settings);
        let mut originals = BTreeMap::new();
        for knob in &knobs {
            originals.insert(knob.clone(), held(&read_knob(&paths.file(knob))?));
        }
        let record = Journal {
            format: JOURNAL_FORMAT,
            pid: std::process::id(),
            started_at: crate::units::utc_now_millis(),
            root: paths.root.clone(),
            originals: originals
                .iter()
                .map(|(k, v)| JournalEntry {
                    knob: k.to_string(),
                    value: v.clone(),
                })
                .collect(),
        };
        let bytes = serde_json::to_vec_pretty(&record).expect("a journal serializes");
        write_durably(&journal, &bytes).map_err(|e| SettingsError::Journal {
            path: journal.display().to_string(),
            message: format!("cannot write it: {e}"),
        })?;
        let mut session = Applied {
            paths: paths.clone(),
            settings: settings.to_vec(),
            knobs,
            originals,
            _lock: lock,
            restored: false,
        };
        for i in 0..settings.len() {
            session.apply(i)?;
        }
        session.put_back()?;
        Ok(session)
    }

    /// Writes setting `index` (the knobs it does not name get their originals back)
    /// and reads every knob back.
    pub fn apply(&mut self, index: usize) -> Result<SettingsRead, SettingsError> {
        let setting = &self.settings[index];
        let mut values = BTreeMap::new();
        for knob in &self.knobs {
            let want = setting
                .writes
                .iter()
                .find(|w| &w.knob == knob)
                .map_or(&self.originals[knob], |w| &w.value);
            let file = self.paths.file(knob);
            if held(&read_knob(&file)?) != *want {
                write_knob(&file, want)?;
            }
            let now = held(&read_knob(&file)?);
            if now != *want {
                return Err(SettingsError::NotTaken {
                    setting: setting.name.clone(),
                    file: file.display().to_string(),
                    value: want.clone(),
                    held: now,
                });
            }
            values.insert(knob.key().to_owned(), now);
        }
        Ok(SettingsRead {
            name: setting.name.clone(),
            values,
        })
    }

    /// Writes every original back and reads it back; what it restored, one line a knob.
    fn put_back(&mut self) -> Result<Vec<String>, SettingsError> {
        let mut lines = Vec::new();
        let mut first_error = None;
        for (knob, value) in &self.originals {
            let file = self.paths.file(knob);
            let result = read_knob(&file).and_then(|text| {
                let was = held(&text);
                if was != *value {
                    write_knob(&file, value)?;
                    lines.push(format!("{}: {was} -> {value}", knob.shown()));
                }
                let now = held(&read_knob(&file)?);
                if now == *value {
                    Ok(())
                } else {
                    Err(SettingsError::NotTaken {
                        setting: "(the original)".to_owned(),
                        file: file.display().to_string(),
                        value: value.clone(),
                        held: now,
                    })
                }
            });
            // Every knob is tried, whatever one of them did.
            if let Err(e) = result {
                first_error.get_or_insert(e);
            }
        }
        match first_error {
            Some(e) => Err(e),
            None => Ok(lines),
        }
    }

    /// Puts every original back, then removes the journal; what it changed back, one
    /// line a knob. The journal stays when a knob could not be restored, for the next
    /// `pretouch` to try again.
    pub fn restore(&mut self) -> Result<Vec<String>, SettingsError> {
        if self.restored {
            return Ok(Vec::new());
        }
        let lines = self.put_back()?;
        let journal = self.paths.journal();
        remove_durably(&journal).map_err(|e| SettingsError::Journal {
            path: journal.display().to_string(),
            message: format!("cannot remove it: {e}"),
        })?;
        self.restored = true;
        Ok(lines)
    }
}

impl Drop for Applied {
    fn drop(&mut self) {
        if self.restored {
            return;
        }
        match self.restore() {
            Ok(lines) => crate::eprintln!(
                "pretouch: restored the kernel settings{}",
                lines.iter().map(|l| format!("\n  {l}")).collect::<String>()
            ),
            Err(e) => crate::eprintln!(
                "pretouch: {e}\n  The journal {} stays, and the next pretouch tries again.",
                self.paths.journal().display()
            ),
        }
    }
}

fn write_knob(file: &Path, value: &str) -> Result<(), SettingsError> {
    let wrote = OpenOptions::new()
        .write(true)
        .truncate(true)
        .open(file)
        .and_then(|mut f| f.write_all(value.as_bytes()));
    wrote.map_err(|source| SettingsError::Write {
        file: file.display().to_string(),
        value: value.to_owned(),
        source,
    })
}

/// What the next `pretouch` found of a journal left behind.
#[derive(Debug, PartialEq, Eq)]
pub enum Leftover {
    /// No journal.
    None,
    /// A run still going holds it.
    Live { pid: Option<u32> },
    /// Its run had died; its originals are back.
    Restored {
        pid: u32,
        started_at: String,
        lines: Vec<String>,
    },
    /// Not replayed, and why (its owner or mode, its content, no root).
    Refused { why: String },
    /// Replayed, but a knob could not be written back.
    Failed { why: String },
}

impl Leftover {
    /// One message for the user, `None` when there is nothing to say.
    pub fn message(&self, paths: &Paths) -> Option<String> {
        let journal = paths.journal().display().to_string();
        match self {
            Leftover::None => None,
            Leftover::Live { pid } => Some(format!(
                "kernel settings journal {journal}: a pretouch run{} has settings changed; it \
                 restores them when it ends",
                pid.map_or_else(String::new, |p| format!(" (pid {p})"))
            )),
            Leftover::Restored {
                pid,
                started_at,
                lines,
            } => Some(format!(
                "restored the kernel settings that a pretouch run (pid {pid}, started {started_at}) \
                 left changed when it ended without restoring them (killed, or a power loss), \
                 from {journal}:{}",
                if lines.is_empty() {
                    "\n  nothing had to change".to_owned()
                } else {
                    lines.iter().map(|l| format!("\n  {l}")).collect()
                }
            )),
            Leftover::Refused { why } => Some(format!(
                "kernel settings journal {journal} left by a run that ended without restoring \
                 them is NOT replayed: {why}\n  fix: check its values against the machine \
                 and write them back by hand, then remove it"
            )),
            Leftover::Failed { why } => Some(format!(
                "kernel settings journal {journal}: restoring failed: {why}; it stays for the \
                 next pretouch"
            )),
        }
    }
}

/// Replays a journal that a run left behind when it died (`kill -9`, power loss):
/// writes its originals back and removes it. Never one a live run holds, nor one that
/// is not this user's and private, nor one naming a knob a matrix may not write.
pub fn replay_leftover(paths: &Paths) -> Leftover {
    let journal = paths.journal();
    if std::fs::symlink_metadata(&journal).is_err() {
        return Leftover::None;
    }
    if let Err(why) = may_replay(paths, &journal) {
        return Leftover::Refused { why };
    }
    let lock = match try_lock(paths) {
        Ok(Some(lock)) => lock,
        Ok(None) => {
            return Leftover::Live {
                pid: pid_of_lock(paths),
            };
        }
        Err(e) => return Leftover::Failed { why: e.to_string() },
    };
    let (record, originals) = match read_journal(&journal, paths) {
        Ok(read) => read,
        Err(why) => return Leftover::Refused { why },
    };
    let mut session = Applied {
        paths: paths.clone(),
        settings: Vec::new(),
        knobs: originals.keys().cloned().collect(),
        originals,
        _lock: lock,
        restored: false,
    };
    match session.restore() {
        Ok(lines) => Leftover::Restored {
            pid: record.pid,
            started_at: record.started_at,
            lines,
        },
        Err(e) => {
            // Not dropped with `restored: false`: its Drop would try again at once.
            session.restored = true;
            Leftover::Failed { why: e.to_string() }
        }
    }
}

/// Whether this user may replay the `journal`: it and its folder are this user's and
/// private, and the real knobs are written as root. The error is why not.
fn may_replay(paths: &Paths, journal: &Path) -> Result<(), String> {
    trusted(&paths.state_dir, true)
        .map_err(|why| format!("its folder {}: {why}", paths.state_dir.display()))?;
    trusted(journal, false)?;
    // SAFETY: geteuid has no preconditions.
    if paths.real() && unsafe { libc::geteuid() } != 0 {
        return Err(
            "restoring kernel settings needs root\n  fix: run pretouch as root once".to_owned(),
        );
    }
    Ok(())
}

/// The journal read and checked (its format, the knobs it is for) with its originals,
/// each a knob a setting may write and a value of one line. The error is why it is not
/// replayed.
fn read_journal(
    journal: &Path,
    paths: &Paths,
) -> Result<(Journal, BTreeMap<Knob, String>), String> {
    let parsed = std::fs::read_to_string(journal)
        .map_err(|e| e.to_string())
        .and_then(|t| serde_json::from_str::<Journal>(&t).map_err(|e| e.to_string()));
    let record = match parsed {
        Ok(j) if j.format == JOURNAL_FORMAT => j,
        Ok(j) => return Err(format!("its format {} is not {JOURNAL_FORMAT}", j.format)),
        Err(e) => return Err(format!("it does not read as a journal: {e}")),
    };
    if record.root != paths.root {
        return Err(format!(
            "it is for the knobs under {}, not {}",
            record.root.display(),
            paths.root.display()
        ));
    }
    let mut originals = BTreeMap::new();
    for entry in &record.originals {
        match Knob::parse(&entry.knob) {
            Ok(knob) if !entry.value.contains(['\n', '\0']) => {
                originals.insert(knob, entry.value.clone());
            }
            Ok(_) => {
                return Err(format!(
                    "the value for {} is more than one line",
                    entry.knob
                ));
            }
            Err(e) => return Err(format!("it names a knob a setting may not write: {e}")),
        }
    }
    Ok((record, originals))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::settings::matrix::Write;

    /// A fake tree with THP's files as this kernel shows them.
    fn tree() -> (tempfile::TempDir, Paths) {
        let dir = tempfile::tempdir().unwrap();
        let thp = dir.path().join("sys/kernel/mm/transparent_hugepage");
        std::fs::create_dir_all(thp.join("hugepages-64kB")).unwrap();
        std::fs::create_dir_all(thp.join("khugepaged")).unwrap();
        std::fs::create_dir_all(dir.path().join("proc/sys/vm")).unwrap();
        std::fs::write(thp.join("enabled"), "always [madvise] never\n").unwrap();
        std::fs::write(
            thp.join("hugepages-64kB/enabled"),
            "always inherit madvise [never]\n",
        )
        .unwrap();
        std::fs::write(thp.join("khugepaged/pages_to_scan"), "4096\n").unwrap();
        std::fs::write(dir.path().join("proc/sys/vm/overcommit_memory"), "0\n").unwrap();
        let paths = Paths {
            root: dir.path().to_owned(),
            state_dir: dir.path().join("state"),
        };
        (dir, paths)
    }

    fn setting(name: &str, writes: &[(&str, &str)]) -> Setting {
        Setting {
            name: name.to_owned(),
            writes: writes
                .iter()
                .map(|(k, v)| Write {
                    knob: Knob::parse(k).unwrap(),
                    value: (*v).to_owned(),
                })
                .collect(),
        }
    }

    fn value(paths: &Paths, knob: &str) -> String {
        held(&std::fs::read_to_string(paths.file(&Knob::parse(knob).unwrap())).unwrap())
    }

    #[test]
    fn reads_the_bracketed_choice() {
        assert_eq!(held("always [madvise] never\n"), "madvise");
        assert_eq!(
            held("always defer defer+madvise [madvise] never"),
            "madvise"
        );
        assert_eq!(held("4096\n"), "4096");
        assert_eq!(held("256\t256\t32\t0\n"), "256 256 32 0");
        assert_eq!(
            choices("always inherit madvise [never]").unwrap(),
            ["always", "inherit", "madvise", "never"]
        );
        assert_eq!(choices("4096"), None);
    }

    #[test]
    fn a_session_journals_first_applies_and_restores() {
        let (_dir, paths) = tree();
        let settings = [
            setting(
                "mthp",
                &[(
                    "sysfs:transparent_hugepage/hugepages-64kB/enabled",
                    "always",
                )],
            ),
            setting(
                "thp",
                &[
                    ("sysfs:transparent_hugepage/enabled", "always"),
                    ("sysctl:vm.overcommit_memory", "1"),
                ],
            ),
        ];
        let mut session = Applied::begin(&paths, &settings).unwrap();
        // The trial pass left the originals, and the journal holds them.
        assert_eq!(
            value(&paths, "sysfs:transparent_hugepage/enabled"),
            "madvise"
        );
        let journal = std::fs::read_to_string(paths.journal()).unwrap();
        assert!(journal.contains("\"madvise\"") && journal.contains("sysctl:vm.overcommit_memory"));
        let mode = std::fs::metadata(&paths.state_dir).unwrap().mode() & 0o777;
        assert_eq!(mode, 0o700);
        let read = session.apply(1).unwrap();
        assert_eq!(read.name, "thp");
        assert_eq!(read.values["transparent_hugepage/enabled"], "always");
        assert_eq!(
            read.values["transparent_hugepage/hugepages-64kB/enabled"],
            "never"
        );
        assert_eq!(read.values["vm.overcommit_memory"], "1");
        // The next setting puts back what it does not name.
        let read = session.apply(0).unwrap();
        assert_eq!(read.values["transparent_hugepage/enabled"], "madvise");
        assert_eq!(read.values["vm.overcommit_memory"], "0");
        assert_eq!(
            value(&paths, "sysfs:transparent_hugepage/hugepages-64kB/enabled"),
            "always"
        );
        let lines = session.restore().unwrap();
        assert_eq!(
            lines,
            ["/sys/kernel/mm/transparent_hugepage/hugepages-64kB/enabled: always -> never"]
        );
        assert!(!paths.journal().exists());
        assert_eq!(
            value(&paths, "sysfs:transparent_hugepage/hugepages-64kB/enabled"),
            "never"
        );
    }

    #[test]
    fn a_panic_restores_through_drop() {
        let (_dir, paths) = tree();
        let settings = [setting(
            "thp",
            &[("sysfs:transparent_hugepage/enabled", "always")],
        )];
        let caught = std::panic::catch_unwind(|| {
            let mut session = Applied::begin(&paths, &settings).unwrap();
            session.apply(0).unwrap();
            assert_eq!(
                value(&paths, "sysfs:transparent_hugepage/enabled"),
                "always"
            );
            panic!("the runner panics");
        });
        assert!(caught.is_err());
        assert_eq!(
            value(&paths, "sysfs:transparent_hugepage/enabled"),
            "madvise"
        );
        assert!(!paths.journal().exists());
    }

    #[test]
    fn a_left_journal_is_replayed_once_and_a_live_one_never() {
        let (_dir, paths) = tree();
        let settings = [setting(
            "thp",
            &[("sysfs:transparent_hugepage/enabled", "always")],
        )];
        let mut session = Applied::begin(&paths, &settings).unwrap();
        session.apply(0).unwrap();
        // While the run lives, its journal is left alone, and a second run is refused.
        assert!(matches!(
            replay_leftover(&paths),
            Leftover::Live { pid: Some(_) }
        ));
        assert!(matches!(
            Applied::begin(&paths, &settings),
            Err(SettingsError::Busy { .. })
        ));
        // A run killed: its lock is gone, its journal and its writes stay.
        session.restored = true;
        drop(session);
        assert_eq!(
            value(&paths, "sysfs:transparent_hugepage/enabled"),
            "always"
        );
        let found = replay_leftover(&paths);
        let Leftover::Restored { lines, .. } = &found else {
            panic!("{found:?}")
        };
        assert_eq!(
            lines,
            &["/sys/kernel/mm/transparent_hugepage/enabled: always -> madvise"]
        );
        assert!(found.message(&paths).unwrap().contains("restored"));
        assert_eq!(
            value(&paths, "sysfs:transparent_hugepage/enabled"),
            "madvise"
        );
        assert_eq!(replay_leftover(&paths), Leftover::None);
    }

    #[test]
    fn a_journal_others_may_write_or_naming_other_files_is_never_replayed() {
        use std::os::unix::fs::PermissionsExt;
        let (_dir, paths) = tree();
        let settings = [setting(
            "thp",
            &[("sysfs:transparent_hugepage/enabled", "always")],
        )];
        let mut session = Applied::begin(&paths, &settings).unwrap();
        session.apply(0).unwrap();
        session.restored = true;
        drop(session);
        let journal = paths.journal();
        std::fs::set_permissions(&journal, std::fs::Permissions::from_mode(0o666)).unwrap();
        let found = replay_leftover(&paths);
        assert!(
            matches!(&found, Leftover::Refused { why } if why.contains("mode 666")),
            "{found:?}"
        );
        assert_eq!(
            value(&paths, "sysfs:transparent_hugepage/enabled"),
            "always"
        );
        // A later run refuses to start over it.
        assert!(matches!(
            Applied::begin(&paths, &settings),
            Err(SettingsError::Journal { .. })
        ));
        std::fs::set_permissions(&journal, std::fs::Permissions::from_mode(0o600)).unwrap();
        std::fs::set_permissions(&paths.state_dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        assert!(
            matches!(replay_leftover(&paths), Leftover::Refused { why } if why.contains("its folder"))
        );
        std::fs::set_permissions(&paths.state_dir, std::fs::Permissions::from_mode(0o700)).unwrap();
        // A tampered journal naming a file outside the allowed knobs.
        let text = std::fs::read_to_string(&journal).unwrap().replace(
            "sysfs:transparent_hugepage/enabled",
            "sysfs:../../../etc/passwd",
        );
        std::fs::write(&journal, text).unwrap();
        assert!(
            matches!(replay_leftover(&paths), Leftover::Refused { why } if why.contains("may not write"))
        );
    }

    #[test]
    fn a_value_the_kernel_does_not_hold_stops_the_run_before_the_first_launch() {
        let (_dir, paths) = tree();
        // A knob that takes every write and holds nothing: the kernel's answer to a
        // value it rounds or ignores.
        let knob = "sysfs:transparent_hugepage/khugepaged/pages_to_scan";
        let file = paths.file(&Knob::parse(knob).unwrap());
        std::fs::remove_file(&file).unwrap();
        std::os::unix::fs::symlink("/dev/null", &file).unwrap();
        let settings = [setting("s", &[(knob, "100")])];
        let e = Applied::begin(&paths, &settings).err().unwrap().to_string();
        assert!(
            e.contains(&file.display().to_string())
                && e.contains("`100`")
                && e.contains("holds ``"),
            "{e}"
        );
        // The failed start put the originals back and removed its journal.
        assert!(!paths.journal().exists());
    }
}
