//! The `app:` key: stamp a real application's `main()` instead of the built-in main class.
//! Parsed with the matrix (stage 1), resolved against the disk before any JVM starts
//! (paths, the jar's `Main-Class`), and turned into the tail of the command line and the
//! agent's `main=` option by the launcher (stage 3).
//!
//! The agent sets a JVMTI breakpoint at bytecode 0 of the class's `main` (see
//! `jvm-agent/src/breakpoint.rs`); with `exit_at_main: true` (the default) it ends the JVM
//! there, so the application body never runs.

use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};

use serde::de::{MapAccess, Visitor};
use serde::{Deserialize, Deserializer};

use crate::features::matrix::AppParts;
use crate::matrix::keys::{KeySeed, Seen};

/// `app:` as written.
#[derive(Debug, Default)]
struct RawAppFields {
    classpath: Option<String>,
    jar: Option<String>,
    main: Option<String>,
    args: Vec<String>,
    exit_at_main: Option<bool>,
    sources: Option<String>,
    /// The features' keys.
    features: AppParts,
}

/// The keys of `app:`: the core's, the features' and `sources`, in the order an unknown
/// key's message has always listed them.
fn app_keys() -> &'static [&'static str] {
    static KEYS: std::sync::OnceLock<Vec<&'static str>> = std::sync::OnceLock::new();
    KEYS.get_or_init(|| {
        let mut keys = vec!["classpath", "jar", "main", "args", "exit_at_main"];
        keys.extend(AppParts::keys());
        keys.push("sources");
        keys
    })
}

impl<'de> Deserialize<'de> for RawAppFields {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Fields;
        impl<'de> Visitor<'de> for Fields {
            type Value = RawAppFields;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("struct RawAppFields")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawAppFields, A::Error> {
                let mut raw = RawAppFields::default();
                let mut seen = Seen::default();
                while let Some(key) = map.next_key_seed(KeySeed(app_keys()))? {
                    seen.first::<A::Error>(key)?;
                    match key {
                        "classpath" => raw.classpath = map.next_value()?,
                        "jar" => raw.jar = map.next_value()?,
                        "main" => raw.main = map.next_value()?,
                        "args" => raw.args = map.next_value()?,
                        "exit_at_main" => raw.exit_at_main = map.next_value()?,
                        "sources" => raw.sources = map.next_value()?,
                        _ => raw.features.read(key, &mut map)?,
                    }
                }
                Ok(raw)
            }
        }
        d.deserialize_struct("RawAppFields", app_keys(), Fields)
    }
}

/// `app:` parsed and checked for shape (not yet against the disk).
#[derive(Debug)]
pub struct RawApp(pub AppSpec);

/// Where the application's classes are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AppKind {
    /// `classpath:`, entries separated by `:`.
    Classpath(String),
    /// `jar:`, run with `java -jar`.
    Jar(String),
}

/// The application as the matrix wrote it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AppSpec {
    pub kind: AppKind,
    /// Binary name of the main class; for a jar, absent means its manifest's `Main-Class`
    /// (run with `java -jar`), given means that class (run with `-cp <jar>`).
    pub main: Option<String>,
    /// Arguments passed to `main`.
    pub args: Vec<String>,
    /// End the JVM when `main()` is entered (the application body never runs).
    pub exit_at_main: bool,
    /// The features' keys, such as when a server counts as ready.
    pub features: AppParts,
    /// With `jar`: a folder of `.java` files the jar is built from (the JDK's `javac`
    /// and `jar`, see `machine/app_build.rs`) when it is missing or older than a source.
    pub sources: Option<String>,
}

impl<'de> Deserialize<'de> for RawApp {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let raw = RawAppFields::deserialize(d)?;
        let kind = match (raw.classpath, raw.jar) {
            (Some(cp), None) if !cp.is_empty() => AppKind::Classpath(cp),
            (None, Some(jar)) if !jar.is_empty() => AppKind::Jar(jar),
            (Some(_), Some(_)) => {
                return Err(D::Error::custom(
                    "app: give either `classpath` (with `main`) or `jar`, not both",
                ));
            }
            _ => {
                return Err(D::Error::custom(
                    "app: give `classpath: <dirs or jars>` with `main: <class>`, or `jar: <file>`",
                ));
            }
        };
        if matches!(kind, AppKind::Classpath(_)) && raw.main.is_none() {
            return Err(D::Error::custom(
                "app: `classpath` needs `main: <class>` (e.g. com.example.Main)",
            ));
        }
        if let Some(main) = &raw.main {
            check_class_name(main).map_err(D::Error::custom)?;
        }
        raw.features
            .check(raw.exit_at_main)
            .map_err(D::Error::custom)?;
        if raw.sources.is_some() && !matches!(kind, AppKind::Jar(_)) {
            return Err(D::Error::custom(
                "app: `sources` builds a `jar`: give `jar: <file>` with it, not `classpath`",
            ));
        }
        if raw.sources.is_some() && raw.main.is_none() {
            return Err(D::Error::custom(
                "app: `sources` needs `main: <class>`, the Main-Class of the jar it builds",
            ));
        }
        Ok(RawApp(AppSpec {
            kind,
            main: raw.main,
            args: raw.args,
            exit_at_main: raw.exit_at_main.unwrap_or(!raw.features.runs_past_main()),
            sources: raw.sources,
            features: raw.features,
        }))
    }
}

/// A binary class name the agent's `main=` option can carry.
fn check_class_name(name: &str) -> Result<(), String> {
    let ok = !name.is_empty()
        && !name.contains([',', '/', ' '])
        && name
            .split('.')
            .all(|part| !part.is_empty() && !part.starts_with(|c: char| c.is_ascii_digit()));
    if ok {
        Ok(())
    } else {
        Err(format!(
            "app: invalid main class {name:?}: give its binary name, like com.example.Main"
        ))
    }
}

/// The application resolved against the disk: absolute paths and a known main class.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct App {
    pub kind: ResolvedKind,
    /// Binary name of the class whose `main` is stamped.
    pub main: String,
    pub args: Vec<String>,
    pub exit_at_main: bool,
    /// See [`AppSpec::features`].
    pub features: AppParts,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResolvedKind {
    Classpath(String),
    Jar(PathBuf),
}

#[derive(Debug, thiserror::Error)]
pub enum AppError {
    #[error("app: classpath entry `{0}` does not exist")]
    MissingEntry(PathBuf),
    #[error("app: jar `{0}` does not exist")]
    MissingJar(PathBuf),
    #[error("app: cannot read the manifest of `{path}`")]
    Manifest {
        path: PathBuf,
        #[source]
        source: zip::result::ZipError,
    },
    #[error(
        "app: jar `{0}` names no Main-Class in its manifest\n  fix: give `main: <class>` beside `jar:`"
    )]
    NoMainClass(PathBuf),
    #[error(transparent)]
    BadMainClass(#[from] BadMainClass),
}

#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct BadMainClass(String);

impl AppSpec {
    /// Makes relative paths relative to `base` (the matrix's folder), checks they exist,
    /// and reads the jar's `Main-Class` when `main` is not given.
    pub fn resolve(&self, base: &Path) -> Result<App, AppError> {
        let absolute = |p: &str| {
            let p = Path::new(p);
            if p.is_absolute() {
                p.to_owned()
            } else {
                base.join(p)
            }
        };
        let (kind, main) = match &self.kind {
            AppKind::Classpath(cp) => {
                let mut entries = Vec::new();
                for entry in cp.split(':').filter(|e| !e.is_empty()) {
                    // `dir/*` is the JVM's wildcard for every jar in dir.
                    let path = absolute(entry);
                    let check = path
                        .to_str()
                        .and_then(|s| s.strip_suffix("/*"))
                        .map_or(path.clone(), PathBuf::from);
                    if !check.exists() {
                        return Err(AppError::MissingEntry(path));
                    }
                    entries.push(path.display().to_string());
                }
                let main = self.main.clone().expect("checked when parsed");
                (ResolvedKind::Classpath(entries.join(":")), main)
            }
            AppKind::Jar(jar) => {
                let path = absolute(jar);
                // A jar built from `sources` may not exist yet: the run builds it.
                if !path.is_file() && self.sources.is_none() {
                    return Err(AppError::MissingJar(path));
                }
                match &self.main {
                    // `java -jar` would run the manifest's class, not this one.
                    Some(main) => (
                        ResolvedKind::Classpath(path.display().to_string()),
                        main.clone(),
                    ),
                    None => {
                        let main = jar_main_class(&path)?
                            .ok_or_else(|| AppError::NoMainClass(path.clone()))?;
                        check_class_name(&main).map_err(BadMainClass)?;
                        (ResolvedKind::Jar(path), main)
                    }
                }
            }
        };
        Ok(App {
            kind,
            main,
            args: self.args.clone(),
            exit_at_main: self.exit_at_main,
            features: self.features.clone(),
        })
    }
}

impl AppSpec {
    /// `(sources, jar, main)`, absolute, when the jar is built from sources.
    pub fn build_from(&self, base: &Path) -> Option<(PathBuf, PathBuf, &str)> {
        let (AppKind::Jar(jar), Some(sources), Some(main)) =
            (&self.kind, &self.sources, &self.main)
        else {
            return None;
        };
        Some((base.join(sources), base.join(jar), main))
    }
}

impl App {
    /// The files the JVM loads the application from: the jar, or each classpath entry
    /// (a `dir/*` entry's folder).
    pub fn files(&self) -> Vec<PathBuf> {
        match &self.kind {
            ResolvedKind::Jar(jar) => vec![jar.clone()],
            ResolvedKind::Classpath(cp) => (cp.split(':'))
                .filter(|e| !e.is_empty())
                .map(|e| PathBuf::from(e.strip_suffix("/*").unwrap_or(e)))
                .collect(),
        }
    }

    /// What follows the JVM flags on the command line: `-cp <cp> <main> <args>` or
    /// `-jar <jar> <args>`.
    pub fn command_tail(&self) -> Vec<String> {
        let mut tail = match &self.kind {
            ResolvedKind::Classpath(cp) => vec!["-cp".to_owned(), cp.clone(), self.main.clone()],
            ResolvedKind::Jar(jar) => vec!["-jar".to_owned(), jar.display().to_string()],
        };
        tail.extend(self.args.iter().cloned());
        tail
    }
}

impl fmt::Display for App {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.main)
    }
}

/// `Main-Class` of a jar's `META-INF/MANIFEST.MF`, if it has one.
fn jar_main_class(jar: &Path) -> Result<Option<String>, AppError> {
    let err = |source| AppError::Manifest {
        path: jar.to_owned(),
        source,
    };
    let file = std::fs::File::open(jar).map_err(|e| err(e.into()))?;
    let mut archive = zip::ZipArchive::new(file).map_err(err)?;
    let mut manifest = match archive.by_name("META-INF/MANIFEST.MF") {
        Ok(m) => m,
        Err(zip::result::ZipError::FileNotFound) => return Ok(None),
        Err(e) => return Err(err(e)),
    };
    let mut text = String::new();
    manifest
        .read_to_string(&mut text)
        .map_err(|e| err(e.into()))?;
    Ok(manifest_value(&text, "Main-Class"))
}

/// A main attribute of a manifest (JAR File Specification: `Name: value`, lines of at
/// most 72 bytes continued by a line starting with one space).
fn manifest_value(text: &str, key: &str) -> Option<String> {
    let mut value: Option<String> = None;
    for line in text.lines() {
        let line = line.trim_end_matches('\r');
        if line.is_empty() {
            break; // End of the main section.
        }
        match (&mut value, line.strip_prefix(' ')) {
            (Some(v), Some(more)) => v.push_str(more),
            (Some(_), None) => break,
            (None, _) => {
                if let Some((name, v)) = line.split_once(':')
                    && name.eq_ignore_ascii_case(key)
                {
                    value = Some(v.trim_start().to_owned());
                }
            }
        }
    }
    value.map(|v| v.trim().to_owned()).filter(|v| !v.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `app:` as serde's derived code read it before the features' keys moved out.
    mod derived {
        use crate::features::servers::matrix::{AfterReady, Grace, Ready, Requests};
        #[derive(Debug, serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        #[allow(dead_code)]
        pub struct RawAppFields {
            #[serde(default)]
            classpath: Option<String>,
            #[serde(default)]
            jar: Option<String>,
            #[serde(default)]
            main: Option<String>,
            #[serde(default)]
            args: Vec<String>,
            #[serde(default)]
            exit_at_main: Option<bool>,
            #[serde(default)]
            ready: Option<Ready>,
            #[serde(default)]
            after_ready: Option<AfterReady>,
            #[serde(default)]
            requests: Option<Requests>,
            #[serde(default)]
            stop_grace: Option<Grace>,
            #[serde(default)]
            sources: Option<String>,
        }
    }

    #[test]
    fn app_errors_are_the_derived_codes_word_for_word() {
        #[derive(Debug, serde::Deserialize)]
        #[allow(dead_code)]
        struct Now {
            name: String,
            app: RawAppFields,
        }
        #[derive(Debug, serde::Deserialize)]
        #[allow(dead_code)]
        struct Then {
            name: String,
            app: derived::RawAppFields,
        }
        for app in [
            "{jar: a.jar, mian: X}",
            "\n  jar: a.jar\n  readdy: {port: 1}\n",
            "\n  jar: a.jar\n  jar: b.jar\n",
            "\n  jar: a.jar\n  ready: {port: 1}\n  ready: {port: 2}\n",
            "\n  jar: a.jar\n  ready: {port: x}\n",
            "\n  jar: a.jar\n  stop_grace: 0s\n",
            "\n  jar: a.jar\n  stop_grace: soon\n",
            "\n  jar: a.jar\n  requests: {url: 'http://example.com/', count: 1}\n",
            "\n  jar: a.jar\n  after_ready: {command: x}\n",
            "\n  jar: a.jar\n  args: a\n",
            "\n  jar: a.jar\n  exit_at_main: maybe\n",
            "\n  jar: [a]\n",
            "\n  [x]: 1\n",
            "\n  1: 1\n",
            "a.jar",
            "[a.jar]",
            "",
            "~",
        ] {
            let text = format!("name: x\napp: {app}");
            let now = serde_yaml::from_str::<Now>(&text)
                .map(|_| ())
                .map_err(|e| e.to_string());
            let then = serde_yaml::from_str::<Then>(&text)
                .map(|_| ())
                .map_err(|e| e.to_string());
            assert!(then.is_err() || app.is_empty(), "{text}");
            assert_eq!(now, then, "{text}");
        }
    }

    fn parse(text: &str) -> Result<AppSpec, String> {
        serde_yaml::from_str::<RawApp>(text)
            .map(|r| r.0)
            .map_err(|e| e.to_string())
    }

    #[test]
    fn app_shapes() {
        let a = parse("{classpath: build, main: com.example.Main, args: [a, b]}").unwrap();
        assert_eq!(a.kind, AppKind::Classpath("build".into()));
        assert_eq!(a.main.as_deref(), Some("com.example.Main"));
        assert!(a.exit_at_main);
        let a = parse("{jar: app.jar, exit_at_main: false}").unwrap();
        assert_eq!(a.kind, AppKind::Jar("app.jar".into()));
        assert!(!a.exit_at_main && a.main.is_none());
        // A ready probe runs the application on past main(), and stops it after.
        let a = parse("{jar: s.jar, ready: {port: 8080}, stop_grace: 3s}").unwrap();
        assert!(!a.exit_at_main);
        let server = &a.features.servers;
        assert_eq!(server.stop_grace(), std::time::Duration::from_secs(3));
        assert!(server.ready.is_some() && server.after_ready.is_none());
        let a = parse("{jar: s.jar, ready: {port: 8080}}").unwrap();
        assert_eq!(
            a.features.servers.stop_grace(),
            crate::features::servers::matrix::DEFAULT_STOP_GRACE
        );
        assert!(!parse("{jar: s.jar}").unwrap().features.runs_past_main());
        for (text, want) in [
            ("{classpath: build}", "needs `main"),
            ("{jar: a.jar, classpath: b}", "not both"),
            ("{args: [x]}", "give `classpath"),
            ("{jar: a.jar, mian: X}", "unknown field `mian`"),
            ("{classpath: b, main: 'a,b'}", "invalid main class"),
            (
                "{jar: a.jar, ready: {port: 1}, exit_at_main: true}",
                "remove `exit_at_main: true`",
            ),
            ("{jar: a.jar, after_ready: {command: [x]}}", "need `ready"),
            (
                "{classpath: b, main: com/example/Main}",
                "invalid main class",
            ),
        ] {
            let e = parse(text).unwrap_err();
            assert!(e.contains(want), "{text}: {e}");
        }
    }

    #[test]
    fn manifests() {
        let m = "Manifest-Version: 1.0\r\nMain-Class: com.example.VeryLongPackageName.AndAnEvenLongerClassNa\r\n meThatWraps\r\nCreated-By: 17\r\n\r\nName: x\r\nMain-Class: wrong\r\n";
        assert_eq!(
            manifest_value(m, "Main-Class").as_deref(),
            Some("com.example.VeryLongPackageName.AndAnEvenLongerClassNameThatWraps")
        );
        assert_eq!(
            manifest_value("Manifest-Version: 1.0\n", "Main-Class"),
            None
        );
    }

    #[test]
    fn resolves_against_the_matrix_folder() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("build")).unwrap();
        let spec = parse("{classpath: 'build:/nonexistent-dir/*', main: M}").unwrap();
        let e = spec.resolve(dir.path()).unwrap_err().to_string();
        assert!(e.contains("/nonexistent-dir"), "{e}");
        let spec = parse("{classpath: build, main: M, args: [x]}").unwrap();
        let app = spec.resolve(dir.path()).unwrap();
        assert_eq!(
            app.command_tail(),
            [
                "-cp",
                &dir.path().join("build").display().to_string(),
                "M",
                "x"
            ]
        );
        let e = parse("{jar: none.jar}")
            .unwrap()
            .resolve(dir.path())
            .unwrap_err();
        assert!(matches!(e, AppError::MissingJar(_)), "{e}");
    }

    #[test]
    fn reads_main_class_from_a_jar() {
        use std::io::Write;
        let dir = tempfile::tempdir().unwrap();
        let jar = dir.path().join("app.jar");
        let mut zip = zip::ZipWriter::new(std::fs::File::create(&jar).unwrap());
        let stored = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Stored);
        zip.start_file("META-INF/MANIFEST.MF", stored).unwrap();
        zip.write_all(b"Manifest-Version: 1.0\r\nMain-Class: example.Hello\r\n\r\n")
            .unwrap();
        zip.finish().unwrap();
        let app = parse("{jar: app.jar, args: [a]}")
            .unwrap()
            .resolve(dir.path())
            .unwrap();
        assert_eq!(app.main, "example.Hello");
        assert_eq!(
            app.command_tail(),
            ["-jar", &jar.display().to_string(), "a"]
        );
        // A main class given beside the jar is run from it as a classpath.
        let app = parse("{jar: app.jar, main: example.Other}")
            .unwrap()
            .resolve(dir.path())
            .unwrap();
        assert_eq!(
            app.command_tail(),
            ["-cp", &jar.display().to_string(), "example.Other"]
        );
    }
}
