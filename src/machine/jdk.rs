//! Finding the JDKs a matrix names, and what they are (vendor, full version).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::access::{self, Need};
use crate::machine::collectors;
use crate::machine::jdk_cache::JdkCache;
use crate::matrix::Gc;

/// The package that provides a JDK on Debian, for messages.
pub const DEBIAN_JDK_INSTALL: &str = "sudo apt-get install -y openjdk-17-jdk-headless";

/// One JDK as found on disk.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Jdk {
    /// The JDK as the matrix wrote it (or where it was found).
    pub spec: String,
    /// JAVA_HOME of the JDK, symlinks resolved.
    pub home: PathBuf,
    /// The `java` launcher that is executed.
    pub java: PathBuf,
    /// `JAVA_RUNTIME_VERSION` of its `release` file (or `java -version`), e.g. `17.0.15+6-Debian-1deb12u1`.
    pub version: String,
    /// `IMPLEMENTOR` of its `release` file, when present.
    pub vendor: Option<String>,
    /// The full output of `java -version` (asked once per JDK binary: see
    /// [`crate::machine::jdk_cache`]).
    pub version_output: String,
    /// The collectors of the matrix this JDK has, asked of it before the first launch
    /// where the cache does not hold them (see [`crate::machine::collectors`]); `None` in
    /// dry runs and in older files. Boxed, so that a plan's cells stay small (see
    /// `schedule::plan::MAX_CELLS`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub collectors: Option<Box<crate::machine::collectors::Collectors>>,
}

/// What resolving a JDK asks of it, before a run.
#[derive(Debug, Clone, Copy)]
pub enum Ask<'a> {
    /// Nothing: its `release` file is all that is read, and no JVM starts (dry runs).
    Nothing,
    /// Its `java -version`.
    Version,
    /// Its `java -version`, and which of these collectors it has
    /// ([`collectors::ask`]): a run asks about its matrix's `gcs:` only.
    Collectors(&'a [Gc]),
}

#[derive(Debug, thiserror::Error)]
pub enum JdkError {
    #[error(
        "no JDK found: JAVA_HOME is not set and there is no `java` on PATH\n  \
         fix: name an installed one with --jdk or the matrix's `jdks:`, set JAVA_HOME, or \
         install one with `{DEBIAN_JDK_INSTALL}`. These are installed: {installed}"
    )]
    NoneFound {
        /// The JDKs this machine has, as a list for the message.
        installed: String,
    },
    #[error(
        "JDK `{spec}` {origin} does not exist\n  fix: {}. These are installed: {installed}",
        origin.fix()
    )]
    Missing {
        spec: String,
        origin: JdkOrigin,
        /// The JDKs this machine has, as a list for the message.
        installed: String,
    },
    #[error("JDK `{spec}`: {denied}\n  fix: {}", denied.fix())]
    Denied {
        spec: String,
        denied: Box<crate::access::Denied>,
    },
    #[error(
        "JDK `{spec}` {origin} is not a JDK: no executable `bin/java` in `{home}`\n  fix: {}",
        origin.fix()
    )]
    NotAJdk {
        spec: String,
        origin: JdkOrigin,
        home: PathBuf,
    },
    #[error("JDK {}: cannot list its collectors: {detail}", home.display())]
    Collectors { home: PathBuf, detail: String },
    #[error("JDK `{spec}`: `{java} -version` failed: {detail}")]
    VersionFailed {
        spec: String,
        java: PathBuf,
        detail: String,
    },
}

/// Where the path of a JDK came from, so that an error about it names the place to fix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JdkOrigin {
    /// A `jdks:` entry of the matrix.
    Matrix,
    /// A `--jdk` value of `pretouch run`.
    Flag,
    /// The `JAVA_HOME` variable, for a matrix without `jdks:`.
    JavaHome,
    /// The `java` found on PATH, for a matrix without `jdks:` and no `JAVA_HOME`.
    Path,
    /// A path given some other way (a command-line flag, a test).
    Given,
}

impl JdkOrigin {
    /// How to give a JDK that exists, in the place this one came from.
    fn fix(self) -> &'static str {
        match self {
            JdkOrigin::Matrix => {
                "give a JAVA_HOME folder (it holds bin/java), a `java` binary or a feature version such as 17 in the matrix's `jdks:`"
            }
            JdkOrigin::Flag => {
                "give --jdk a JAVA_HOME folder (it holds bin/java), a `java` binary or a feature version such as 17"
            }
            JdkOrigin::JavaHome => {
                "set JAVA_HOME to a JDK's folder (it holds bin/java), unset it to run the `java` on PATH, or list `jdks:` in the matrix"
            }
            JdkOrigin::Path => {
                "put a JDK's bin folder first on PATH, set JAVA_HOME, or list `jdks:` in the matrix"
            }
            JdkOrigin::Given => "give a JAVA_HOME folder (it holds bin/java) or a `java` binary",
        }
    }
}

impl std::fmt::Display for JdkOrigin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            JdkOrigin::Matrix => "from the matrix",
            JdkOrigin::Flag => "from --jdk",
            JdkOrigin::JavaHome => "from JAVA_HOME",
            JdkOrigin::Path => "from `java` on PATH",
            JdkOrigin::Given => "given",
        })
    }
}

impl JdkError {
    /// The same error, naming `origin` as where the JDK's path came from.
    pub fn from_origin(self, origin: JdkOrigin) -> JdkError {
        match self {
            JdkError::Missing {
                spec, installed, ..
            } => JdkError::Missing {
                spec,
                origin,
                installed,
            },
            JdkError::NotAJdk { spec, home, .. } => JdkError::NotAJdk { spec, origin, home },
            other => other,
        }
    }

    /// The same error, listing `installed` (every JDK the machine has, as `pretouch
    /// jdks` finds them) where it lists what is installed.
    pub fn listing(self, installed: String) -> JdkError {
        match self {
            JdkError::Missing { spec, origin, .. } => JdkError::Missing {
                spec,
                origin,
                installed,
            },
            JdkError::NoneFound { .. } => JdkError::NoneFound { installed },
            other => other,
        }
    }
}

impl Jdk {
    /// Resolves a JDK written as a JAVA_HOME folder or as a `java` binary. Its `java
    /// -version` comes from the cache ([`JdkCache::from_environment`]) where the JDK's
    /// binaries are unchanged since it answered, else from a start of it.
    pub fn resolve(spec: &str) -> Result<Jdk, JdkError> {
        Jdk::resolve_asking(spec, Ask::Version, &JdkCache::from_environment())
    }

    /// Resolves a JDK and asks it what `ask` says, from `cache` where its binaries are
    /// unchanged since it answered; what it answers now is kept there.
    pub fn resolve_asking(spec: &str, ask: Ask<'_>, cache: &JdkCache) -> Result<Jdk, JdkError> {
        let gcs = match ask {
            Ask::Nothing => return Jdk::resolve_without_jvm(spec),
            Ask::Version => None,
            Ask::Collectors(gcs) => Some(gcs),
        };
        let (home, java) = locate(spec)?;
        let mut entry = cache.open(&java);
        let asked = gcs.map(|gcs| collectors::ask(&java, gcs, &mut entry.answers));
        let version_output = match entry.answers.version_output.clone() {
            Some(output) => output,
            // Asked alone where the collectors' first start did not say it (it failed):
            // a JDK that cannot even print its version is refused for that.
            None => {
                let output = version_output(spec, &java)?;
                entry.answers.version_output = Some(output.clone());
                output
            }
        };
        entry.save_or_warn();
        let collectors = asked.transpose().map_err(|detail| JdkError::Collectors {
            home: home.clone(),
            detail,
        })?;
        let release = std::fs::read_to_string(home.join("release")).unwrap_or_default();
        let version = release_value(&release, "JAVA_RUNTIME_VERSION")
            .or_else(|| version_from_output(&version_output))
            .unwrap_or_else(|| "unknown".to_owned());
        Ok(Jdk {
            spec: spec.to_owned(),
            home,
            java,
            version,
            vendor: release_value(&release, "IMPLEMENTOR"),
            version_output,
            collectors: collectors.map(Box::new),
        })
    }

    /// Like [`Jdk::resolve`], but reads only the `release` file: no `java -version`, so no
    /// JVM starts (dry runs). `version_output` stays empty.
    pub fn resolve_without_jvm(spec: &str) -> Result<Jdk, JdkError> {
        let (home, java) = locate(spec)?;
        let release = std::fs::read_to_string(home.join("release")).unwrap_or_default();
        Ok(Jdk {
            spec: spec.to_owned(),
            version: release_value(&release, "JAVA_RUNTIME_VERSION")
                .or_else(|| release_value(&release, "JAVA_VERSION"))
                .unwrap_or_else(|| "unknown".to_owned()),
            vendor: release_value(&release, "IMPLEMENTOR"),
            home,
            java,
            version_output: String::new(),
            collectors: None,
        })
    }

    /// The JDK the environment selects: JAVA_HOME, then `java` on PATH.
    pub fn from_environment() -> Result<Jdk, JdkError> {
        Jdk::from_environment_asking(Ask::Version, &JdkCache::from_environment())
    }

    /// [`Jdk::from_environment`], asking it what `ask` says (see [`Jdk::resolve_asking`]).
    pub fn from_environment_asking(ask: Ask<'_>, cache: &JdkCache) -> Result<Jdk, JdkError> {
        if let Some(home) = std::env::var_os("JAVA_HOME").filter(|h| !h.is_empty()) {
            return Jdk::resolve_asking(&home.to_string_lossy(), ask, cache)
                .map_err(|e| e.from_origin(JdkOrigin::JavaHome));
        }
        let path = std::env::var_os("PATH").unwrap_or_default();
        std::env::split_paths(&path)
            .map(|dir| dir.join("java"))
            .find(|java| is_executable(java))
            // The caller lists what is installed ([`JdkError::listing`]), because the
            // discovery of installed JDKs reads this file.
            .ok_or_else(|| JdkError::NoneFound {
                installed: "see `pretouch jdks`".to_owned(),
            })
            .and_then(|java| {
                Jdk::resolve_asking(&java.to_string_lossy(), ask, cache)
                    .map_err(|e| e.from_origin(JdkOrigin::Path))
            })
    }
}

/// What `java -version` prints, from a start of `java`.
fn version_output(spec: &str, java: &Path) -> Result<String, JdkError> {
    let output = duct::cmd!(java, "-version")
        .stdin_null()
        .stdout_capture()
        .stderr_capture()
        .unchecked()
        .run()
        .map_err(|e| JdkError::VersionFailed {
            spec: spec.to_owned(),
            java: java.to_owned(),
            detail: e.to_string(),
        })?;
    let version_output = String::from_utf8_lossy(&output.stderr).trim().to_owned();
    if !output.status.success() {
        return Err(JdkError::VersionFailed {
            spec: spec.to_owned(),
            java: java.to_owned(),
            detail: version_output,
        });
    }
    Ok(version_output)
}

/// JAVA_HOME (symlinks resolved) and `java` launcher of a JDK written as a JAVA_HOME
/// folder or as a `java` binary.
fn locate(spec: &str) -> Result<(PathBuf, PathBuf), JdkError> {
    let path = Path::new(spec);
    let denied = |denied| JdkError::Denied {
        spec: spec.to_owned(),
        denied,
    };
    if !access::reach(path, Need::Read).map_err(denied)? {
        return Err(JdkError::Missing {
            spec: spec.to_owned(),
            origin: JdkOrigin::Given,
            installed: installed_jdks(),
        });
    }
    let real = path.canonicalize().unwrap_or_else(|_| path.to_owned());
    let home = if real.is_dir() {
        real
    } else {
        // .../bin/java -> ...
        real.parent()
            .and_then(Path::parent)
            .map(Path::to_owned)
            .unwrap_or(real)
    };
    let java = home.join("bin").join("java");
    // There, but not this user's to run: say so, not "not a JDK".
    if java.is_file() {
        access::reach(&java, Need::Execute).map_err(denied)?;
    }
    if !is_executable(&java) {
        return Err(JdkError::NotAJdk {
            spec: spec.to_owned(),
            origin: JdkOrigin::Given,
            home,
        });
    }
    Ok((home, java))
}

pub(crate) fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata()
        .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}

/// `KEY="value"` from a JDK `release` file.
pub(crate) fn release_value(release: &str, key: &str) -> Option<String> {
    release.lines().find_map(|line| {
        let value = line.strip_prefix(key)?.strip_prefix('=')?;
        Some(value.trim().trim_matches('"').to_owned()).filter(|v| !v.is_empty())
    })
}

/// The build from `OpenJDK Runtime Environment (build 17.0.15+6-Debian-1deb12u1)`.
fn version_from_output(output: &str) -> Option<String> {
    output.lines().find_map(|line| {
        let start = line.find("(build ")? + "(build ".len();
        let rest = &line[start..];
        Some(rest[..rest.find(')')?].to_owned())
    })
}

/// What `/usr/lib/jvm` holds, for the message about a missing JDK where no discovery of
/// every JDK ran: a run replaces it by the list `pretouch jdks` prints
/// ([`JdkError::listing`]).
fn installed_jdks() -> String {
    let mut homes: Vec<String> = std::fs::read_dir("/usr/lib/jvm")
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| is_executable(&p.join("bin/java")) && !p.is_symlink())
        .map(|p| p.display().to_string())
        .collect();
    homes.sort();
    if homes.is_empty() {
        format!("none under /usr/lib/jvm (`{DEBIAN_JDK_INSTALL}` installs one)")
    } else {
        homes.join(", ")
    }
}

impl Jdk {
    /// The flags that select `gc` on this JDK (`-XX:+UnlockExperimentalVMOptions` first
    /// where this JDK declares its flag experimental).
    pub fn gc_flags(&self, gc: crate::matrix::Gc) -> Vec<String> {
        let experimental = self
            .collectors
            .as_ref()
            .is_some_and(|c| c.is_experimental(gc));
        gc.flags(experimental)
    }
}

/// Short JDK name for tables: `17.0.15+6-Debian-1deb12u1` -> `17.0.15+6`.
pub fn short_jdk(version: &str) -> &str {
    version.split_once('-').map_or(version, |(v, _)| v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_release_files() {
        let release = "IMPLEMENTOR=\"Debian\"\nJAVA_RUNTIME_VERSION=\"17.0.15+6-Debian-1deb12u1\"\nJAVA_VERSION=\"17.0.15\"\n";
        assert_eq!(
            release_value(release, "JAVA_RUNTIME_VERSION").as_deref(),
            Some("17.0.15+6-Debian-1deb12u1")
        );
        assert_eq!(
            release_value(release, "IMPLEMENTOR").as_deref(),
            Some("Debian")
        );
        assert_eq!(release_value(release, "JAVA"), None);
    }

    #[test]
    fn reads_version_output() {
        let out = "openjdk version \"25.0.3\" 2026-04-21 LTS\nOpenJDK Runtime Environment Temurin-25.0.3+9 (build 25.0.3+9-LTS)\n";
        assert_eq!(version_from_output(out).as_deref(), Some("25.0.3+9-LTS"));
    }

    #[test]
    fn missing_jdk_is_reported_with_the_fix() {
        let e = Jdk::resolve("/nonexistent/jdk").unwrap_err().to_string();
        assert!(e.contains("/nonexistent/jdk") && e.contains("fix:"), "{e}");
    }

    #[test]
    fn a_folder_without_java_is_not_a_jdk() {
        let dir = tempfile::tempdir().unwrap();
        let e = Jdk::resolve(&dir.path().to_string_lossy()).unwrap_err();
        assert!(matches!(e, JdkError::NotAJdk { .. }), "{e}");
    }
}
