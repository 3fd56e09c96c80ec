//! Stage 2, the machine: what each JDK answered (its `java -version`, its flag table,
//! the collectors that started), kept on disk so that the next run asks nothing of an
//! unchanged JDK.
//!
//! One JSON file per JDK, in `$PRETOUCH_CACHE_DIR`, else `$XDG_CACHE_HOME/pretouch`,
//! else `~/.cache/pretouch` (under `jdks/`). An entry is keyed on the `java` binary and
//! on `libjvm.so`: their real paths, sizes, modification and change times. An entry is
//! used only when that key and [`FORMAT`] match; one that does not parse, is of another
//! format, or names another binary is ignored, and rewritten once the JDK has answered
//! again. Entries are written to a temporary file and renamed, so a reader never sees
//! half of one.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::matrix::Gc;

/// The version of an entry's layout: an entry of another is ignored and rewritten.
pub const FORMAT: u32 = 1;

/// The variable that names the cache folder, before `XDG_CACHE_HOME` and `HOME`.
pub const CACHE_DIR_VAR: &str = "PRETOUCH_CACHE_DIR";

/// What one JDK answered, as far as it was asked.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Answers {
    /// The full output of `java -version`, once asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version_output: Option<String>,
    /// What `-XX:+PrintFlagsFinal` declares, once asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flags: Option<DeclaredFlags>,
    /// The collectors that started (`-version` with their flags), in [`Gc::ALL`] order.
    /// Only successes are kept: a collector that failed to start is asked again, since
    /// a start can fail for a reason of the moment (memory, limits).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub started: Vec<Gc>,
}

/// The collector flags one JDK's flag table declares.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeclaredFlags {
    /// The collectors whose selection flag the table has, with whether it is experimental.
    pub collectors: Vec<(Gc, bool)>,
    /// `ZGenerational`'s default, where the JDK has the flag.
    pub zgc_generational_default: Option<bool>,
}

/// One file of the key: where it is and what its inode says about its contents.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileStamp {
    /// The real path (symlinks resolved).
    pub path: PathBuf,
    /// Size in bytes.
    pub size: u64,
    /// Modification time, ns since the epoch.
    pub mtime_ns: i128,
    /// Inode change time, ns since the epoch: a file replaced with its old mtime kept
    /// (package managers do) still changes it.
    pub ctime_ns: i128,
}

impl FileStamp {
    fn of(path: &Path) -> Option<FileStamp> {
        use std::os::unix::fs::MetadataExt;
        let path = path.canonicalize().ok()?;
        let meta = path.metadata().ok()?;
        let ns = |s: i64, n: i64| i128::from(s) * 1_000_000_000 + i128::from(n);
        Some(FileStamp {
            size: meta.size(),
            mtime_ns: ns(meta.mtime(), meta.mtime_nsec()),
            ctime_ns: ns(meta.ctime(), meta.ctime_nsec()),
            path,
        })
    }
}

/// What an entry is valid for: the JDK's `java` and its `libjvm.so`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Key {
    pub java: FileStamp,
    /// `None` where the JDK has no `libjvm.so` where JDKs keep it.
    pub libjvm: Option<FileStamp>,
}

impl Key {
    /// The key of the JDK whose launcher is `java` (`<home>/bin/java`), if it can be read.
    pub fn of(java: &Path) -> Option<Key> {
        let java = FileStamp::of(java)?;
        let home = java.path.parent()?.parent()?;
        let libjvm = ["lib/server/libjvm.so", "jre/lib/amd64/server/libjvm.so"]
            .iter()
            .find_map(|rel| FileStamp::of(&home.join(rel)));
        Some(Key { java, libjvm })
    }
}

/// An entry as stored.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Stored {
    format: u32,
    key: Key,
    answers: Answers,
}

/// What was found where a JDK's entry should be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Found {
    /// No cache folder (no `HOME`), or the JDK's files cannot be read.
    NoCache,
    /// No entry yet.
    Missing,
    /// An entry of this binary: its answers are used.
    Hit,
    /// An entry of this JDK's path whose binary has changed since.
    Stale,
    /// An entry of another format, or of another binary.
    Foreign,
    /// A file that does not parse.
    Damaged,
}

/// Where entries are kept.
#[derive(Debug, Clone)]
pub struct JdkCache {
    dir: Option<PathBuf>,
}

impl JdkCache {
    /// `$PRETOUCH_CACHE_DIR`, else `$XDG_CACHE_HOME/pretouch` (an absolute one), else
    /// `$HOME/.cache/pretouch`; none without any of them.
    pub fn from_environment() -> JdkCache {
        JdkCache::from_vars(|name| std::env::var_os(name))
    }

    fn from_vars(var: impl Fn(&str) -> Option<std::ffi::OsString>) -> JdkCache {
        let var = |name: &str| var(name).filter(|v| !v.is_empty());
        let dir = var(CACHE_DIR_VAR)
            .map(PathBuf::from)
            .or_else(|| {
                var("XDG_CACHE_HOME")
                    .map(PathBuf::from)
                    .filter(|p| p.is_absolute())
                    .map(|p| p.join("pretouch"))
            })
            .or_else(|| var("HOME").map(|h| PathBuf::from(h).join(".cache/pretouch")));
        JdkCache { dir }
    }

    /// A cache in `dir` (tests).
    pub fn at(dir: impl Into<PathBuf>) -> JdkCache {
        JdkCache {
            dir: Some(dir.into()),
        }
    }

    /// The folder entries are kept in.
    pub fn dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    /// The file for the JDK whose real `java` is `java`: the JDK folder's name, for
    /// people, and a hash of the whole path, so that two JDKs never share a file.
    fn file(&self, java: &Path) -> Option<PathBuf> {
        use sha2::Digest;
        let hash = sha2::Sha256::digest(java.as_os_str().as_encoded_bytes());
        let hex: String = hash[..8].iter().map(|b| format!("{b:02x}")).collect();
        let name = java
            .parent()
            .and_then(Path::parent)
            .and_then(Path::file_name)
            .map_or_else(|| "jdk".to_owned(), |n| n.to_string_lossy().into_owned());
        Some(
            self.dir
                .as_ref()?
                .join("jdks")
                .join(format!("{name}-{hex}.json")),
        )
    }

    /// The entry of the JDK whose launcher is `java`: its answers where it is a hit,
    /// none otherwise.
    pub fn open(&self, java: &Path) -> Entry {
        let key = Key::of(java);
        let file = key.as_ref().and_then(|k| self.file(&k.java.path));
        let (found, answers) = match (&key, &file) {
            (Some(key), Some(file)) => read(file, key),
            _ => (Found::NoCache, Answers::default()),
        };
        Entry {
            file,
            key,
            found,
            saved: (found == Found::Hit).then(|| answers.clone()),
            answers,
        }
    }
}

/// Reads the entry in `file` and judges it against `key`.
fn read(file: &Path, key: &Key) -> (Found, Answers) {
    let text = match std::fs::read(file) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return (Found::Missing, Answers::default());
        }
        Err(_) => return (Found::Damaged, Answers::default()),
    };
    // The format first, so that an entry of another layout is foreign, not damaged.
    #[derive(Deserialize)]
    struct Format {
        format: u32,
    }
    match serde_json::from_slice::<Format>(&text) {
        Ok(f) if f.format != FORMAT => return (Found::Foreign, Answers::default()),
        Ok(_) => {}
        Err(_) => return (Found::Damaged, Answers::default()),
    }
    match serde_json::from_slice::<Stored>(&text) {
        Err(_) => (Found::Damaged, Answers::default()),
        Ok(stored) if stored.key == *key => (Found::Hit, stored.answers),
        Ok(stored) if stored.key.java.path == key.java.path => (Found::Stale, Answers::default()),
        Ok(_) => (Found::Foreign, Answers::default()),
    }
}

/// One JDK's entry, open: its answers so far, to be completed and saved.
#[derive(Debug)]
pub struct Entry {
    file: Option<PathBuf>,
    key: Option<Key>,
    /// What was found on disk.
    pub found: Found,
    /// The answers: the stored ones on a hit, else none yet.
    pub answers: Answers,
    saved: Option<Answers>,
}

impl Entry {
    /// Writes the answers when they differ from the file's (always after a miss, a
    /// stale, foreign or damaged entry): to a temporary file beside it, then renamed over
    /// it. `Ok(None)` when nothing needed writing or there is no cache folder.
    pub fn save(&mut self) -> std::io::Result<Option<&Path>> {
        let (Some(file), Some(key)) = (&self.file, &self.key) else {
            return Ok(None);
        };
        if self.saved.as_ref() == Some(&self.answers) {
            return Ok(None);
        }
        let dir = file.parent().expect("an entry's file is in jdks/");
        std::fs::create_dir_all(dir)?;
        let stored = Stored {
            format: FORMAT,
            key: key.clone(),
            answers: self.answers.clone(),
        };
        // No fsync: an entry a crash leaves empty or cut does not parse, so it is
        // asked again, never trusted.
        let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
        serde_json::to_writer_pretty(&mut tmp, &stored)?;
        tmp.write_all(b"\n")?;
        tmp.persist(file).map_err(|e| e.error)?;
        self.saved = Some(self.answers.clone());
        Ok(Some(file))
    }

    /// [`Entry::save`], with a warning when the entry cannot be written (the next run
    /// then asks the JDK again) and a note when it replaces a damaged one.
    pub fn save_or_warn(&mut self) {
        static WARNED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
        let damaged = self.found == Found::Damaged;
        match self.save() {
            Ok(Some(file)) => {
                if damaged {
                    eprintln!(
                        "note: the cache entry {} did not parse: the JDK was asked again and the entry rewritten",
                        file.display()
                    );
                }
                self.found = Found::Hit;
            }
            Ok(None) => {}
            // Once a run: every JDK's entry would say the same.
            Err(e) if !WARNED.swap(true, std::sync::atomic::Ordering::Relaxed) => eprintln!(
                "warning: cannot keep what the JDKs answered in {}: {e}\n  \
                 the next run asks them again; set {CACHE_DIR_VAR} to a writable folder to keep it",
                self.file
                    .as_deref()
                    .and_then(Path::parent)
                    .unwrap_or(Path::new("?"))
                    .display()
            ),
            Err(_) => {}
        }
    }

    /// The file this entry is kept in.
    pub fn file(&self) -> Option<&Path> {
        self.file.as_deref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fake_java(dir: &Path) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let bin = dir.join("jdk/bin");
        std::fs::create_dir_all(&bin).unwrap();
        std::fs::create_dir_all(dir.join("jdk/lib/server")).unwrap();
        std::fs::write(dir.join("jdk/lib/server/libjvm.so"), "not really").unwrap();
        let java = bin.join("java");
        std::fs::write(&java, "#!/bin/sh\nexit 1\n").unwrap();
        std::fs::set_permissions(&java, std::fs::Permissions::from_mode(0o755)).unwrap();
        java
    }

    fn answered() -> Answers {
        Answers {
            version_output: Some("openjdk version \"25\"".into()),
            flags: Some(DeclaredFlags {
                collectors: vec![(Gc::G1, false), (Gc::Epsilon, true)],
                zgc_generational_default: None,
            }),
            started: vec![Gc::G1],
        }
    }

    #[test]
    fn an_entry_is_kept_and_found_again() {
        let dir = tempfile::tempdir().unwrap();
        let java = fake_java(dir.path());
        let cache = JdkCache::at(dir.path().join("cache"));
        let mut entry = cache.open(&java);
        assert_eq!(entry.found, Found::Missing);
        entry.answers = answered();
        let file = entry.save().unwrap().unwrap().to_owned();
        assert!(file.starts_with(dir.path().join("cache/jdks")), "{file:?}");
        assert!(
            file.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("jdk-"),
            "{file:?}"
        );
        let mut again = cache.open(&java);
        assert_eq!((again.found, &again.answers), (Found::Hit, &answered()));
        assert_eq!(again.save().unwrap(), None, "unchanged: not rewritten");
        // No temporary file is left beside the entry.
        assert_eq!(
            std::fs::read_dir(file.parent().unwrap()).unwrap().count(),
            1
        );
    }

    #[test]
    fn a_changed_binary_is_stale() {
        let dir = tempfile::tempdir().unwrap();
        let java = fake_java(dir.path());
        let cache = JdkCache::at(dir.path().join("cache"));
        let mut entry = cache.open(&java);
        entry.answers = answered();
        entry.save().unwrap();
        // Same size, other contents: the times change.
        std::thread::sleep(std::time::Duration::from_millis(10));
        std::fs::write(dir.path().join("jdk/lib/server/libjvm.so"), "not Really").unwrap();
        let entry = cache.open(&java);
        assert_eq!(
            (entry.found, entry.answers),
            (Found::Stale, Answers::default())
        );
    }

    #[test]
    fn damaged_and_foreign_entries_are_ignored_and_rewritten() {
        let dir = tempfile::tempdir().unwrap();
        let java = fake_java(dir.path());
        let cache = JdkCache::at(dir.path().join("cache"));
        let mut entry = cache.open(&java);
        entry.answers = answered();
        let file = entry.save().unwrap().unwrap().to_owned();
        let good = std::fs::read_to_string(&file).unwrap();
        for (text, found) in [
            (good[..good.len() / 2].to_owned(), Found::Damaged),
            (String::new(), Found::Damaged),
            (good.replace("\"g1\"", "\"g7\""), Found::Damaged),
            (
                good.replace("\"format\": 1", "\"format\": 999"),
                Found::Foreign,
            ),
            (
                good.replace(&dir.path().display().to_string(), "/elsewhere"),
                Found::Foreign,
            ),
        ] {
            std::fs::write(&file, &text).unwrap();
            let mut entry = cache.open(&java);
            assert_eq!(
                (entry.found, &entry.answers),
                (found, &Answers::default()),
                "{text}"
            );
            entry.answers = answered();
            assert!(entry.save().unwrap().is_some(), "rewritten after {found:?}");
            assert_eq!(cache.open(&java).found, Found::Hit);
        }
    }

    #[test]
    fn the_folder_comes_from_the_environment_in_order() {
        let dir = |vars: &[(&str, &str)]| {
            let vars: Vec<(String, String)> = vars
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
            JdkCache::from_vars(|name| vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.into()))
                .dir
        };
        let all = [
            ("PRETOUCH_CACHE_DIR", "/p"),
            ("XDG_CACHE_HOME", "/x"),
            ("HOME", "/h"),
        ];
        assert_eq!(dir(&all), Some("/p".into()));
        assert_eq!(dir(&all[1..]), Some("/x/pretouch".into()));
        assert_eq!(dir(&all[2..]), Some("/h/.cache/pretouch".into()));
        // The XDG rules: an empty or relative XDG_CACHE_HOME is ignored.
        assert_eq!(
            dir(&[
                ("PRETOUCH_CACHE_DIR", ""),
                ("XDG_CACHE_HOME", "rel"),
                ("HOME", "/h")
            ]),
            Some("/h/.cache/pretouch".into())
        );
        assert_eq!(dir(&[]), None);
        assert_eq!(
            JdkCache { dir: None }.open(Path::new("/bin/sh")).found,
            Found::NoCache
        );
    }
}
