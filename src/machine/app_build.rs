//! Building an `app:` jar from its sources (`app: {jar, sources, main}`) with a JDK's
//! own `javac` and `jar`, when the jar is missing or older than a source file. So the
//! example application (`configs/app/src`) needs no binary kept in git.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::SystemTime;

/// Classes are compiled for this release, so that the jar runs on every supported JDK
/// (11 is the oldest the suite runs).
pub const RELEASE: &str = "11";

#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    #[error("app: sources folder `{0}` holds no .java file")]
    NoSources(PathBuf),
    #[error(
        "app: no JDK of the matrix has `bin/javac` to build `{jar}` from its sources\n  \
         fix: install a full JDK (sudo apt-get install -y openjdk-17-jdk-headless), or build the jar yourself"
    )]
    NoJavac { jar: PathBuf },
    #[error("app: building `{jar}`: `{command}` failed\n{output}")]
    Tool {
        jar: PathBuf,
        command: String,
        output: String,
    },
    #[error("app: building `{jar}`")]
    Io {
        jar: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// Every `.java` file under `dir`, sorted.
fn java_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(java_files(&path));
        } else if path.extension().is_some_and(|e| e == "java") {
            out.push(path);
        }
    }
    out.sort();
    out
}

fn modified(path: &Path) -> Option<SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

/// Whether `jar` must be (re)built: it is missing, or a source is newer.
pub fn needs_build(sources: &Path, jar: &Path) -> bool {
    let Some(built) = modified(jar) else {
        return true;
    };
    java_files(sources)
        .iter()
        .any(|f| modified(f).is_none_or(|m| m > built))
}

/// Builds `jar` from the `.java` files under `sources`, with `Main-Class: main`, using
/// the first of `jdk_homes` that has `javac`. Writes a temporary file first, so that a
/// failed build leaves no broken jar.
pub fn build(
    jdk_homes: &[&Path],
    sources: &Path,
    jar: &Path,
    main: &str,
) -> Result<(), BuildError> {
    let files = java_files(sources);
    if files.is_empty() {
        return Err(BuildError::NoSources(sources.to_owned()));
    }
    let home = jdk_homes
        .iter()
        .find(|h| h.join("bin/javac").is_file() && h.join("bin/jar").is_file())
        .ok_or_else(|| BuildError::NoJavac {
            jar: jar.to_owned(),
        })?;
    let io = |source| BuildError::Io {
        jar: jar.to_owned(),
        source,
    };
    let scratch = tempfile::Builder::new()
        .prefix("pretouch-app-")
        .tempdir()
        .map_err(io)?;
    let classes = scratch.path().join("classes");
    let mut javac = Command::new(home.join("bin/javac"));
    javac
        .args(["--release", RELEASE, "-d"])
        .arg(&classes)
        .args(&files);
    run(javac, jar)?;
    let folder = jar.parent().filter(|p| !p.as_os_str().is_empty());
    if let Some(folder) = folder {
        std::fs::create_dir_all(folder).map_err(io)?;
    }
    let partial = jar.with_extension("jar.partial");
    let mut tool = Command::new(home.join("bin/jar"));
    tool.args(["--create", "--file"])
        .arg(&partial)
        .args(["--main-class", main, "-C"])
        .arg(&classes)
        .arg(".");
    run(tool, jar)?;
    std::fs::rename(&partial, jar).map_err(io)
}

fn run(mut command: Command, jar: &Path) -> Result<(), BuildError> {
    let shown = format!("{command:?}");
    let out = command.output().map_err(|source| BuildError::Io {
        jar: jar.to_owned(),
        source,
    })?;
    if out.status.success() {
        return Ok(());
    }
    Err(BuildError::Tool {
        jar: jar.to_owned(),
        command: shown,
        output: String::from_utf8_lossy(&[out.stdout, out.stderr].concat())
            .trim()
            .to_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_jar_is_stale_when_missing_or_older_than_a_source() {
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("src/example");
        std::fs::create_dir_all(&src).unwrap();
        let java = src.join("A.java");
        std::fs::write(&java, "class A {}").unwrap();
        let jar = dir.path().join("a.jar");
        assert!(needs_build(&dir.path().join("src"), &jar));
        std::fs::write(&jar, "").unwrap();
        let old = SystemTime::now() - std::time::Duration::from_secs(60);
        std::fs::File::options()
            .write(true)
            .open(&java)
            .unwrap()
            .set_modified(old)
            .unwrap();
        assert!(!needs_build(&dir.path().join("src"), &jar));
        std::fs::File::options()
            .write(true)
            .open(&java)
            .unwrap()
            .set_modified(SystemTime::now() + std::time::Duration::from_secs(60))
            .unwrap();
        assert!(needs_build(&dir.path().join("src"), &jar));
    }

    #[test]
    fn no_javac_is_said_with_the_fix() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("A.java"), "class A {}").unwrap();
        let e = build(
            &[Path::new("/nonexistent")],
            dir.path(),
            &dir.path().join("a.jar"),
            "A",
        )
        .unwrap_err();
        assert!(e.to_string().contains("openjdk-17-jdk-headless"), "{e}");
    }
}
