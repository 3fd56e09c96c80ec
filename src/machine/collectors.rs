//! Stage 2, the machine: which garbage collectors a JDK has, asked of that JDK for the
//! collectors a run names, once per JDK binary (the answers are kept by
//! [`crate::machine::jdk_cache`]).
//!
//! Nothing here is keyed on the version number. The JDK prints its flags
//! (`-XX:+UnlockExperimentalVMOptions -XX:+PrintFlagsFinal -version`), which says which
//! selection flags it declares, whether each is experimental, and whether it has
//! `ZGenerational` (JDK 21-23, the JDKs with both ZGC modes) and its default. A declared
//! flag is not proof that the collector was built in (a build without Shenandoah still
//! declares `UseShenandoahGC` and refuses it at start), so each declared collector the
//! run names is then started once, `-Xmx64m -version`, and kept only if that start
//! succeeds without ignoring a flag. The first of those starts prints the flag table too.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::machine::jdk_cache::{Answers, DeclaredFlags, JdkCache};
use crate::matrix::Gc;

/// The collectors one JDK has, as that JDK answered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Collectors {
    /// The `gcs:` values this JDK starts with, in [`Gc::ALL`] order.
    pub available: Vec<Gc>,
    /// Those whose selection flag the JDK declares experimental: the runner passes
    /// `-XX:+UnlockExperimentalVMOptions` before it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub experimental: Vec<Gc>,
    /// `ZGenerational`'s default, on a JDK that has the flag: what plain `zgc` is there.
    /// `None`: one ZGC mode only (non-generational before JDK 21, generational from 24).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zgc_generational_default: Option<bool>,
    /// The collectors the runner asked about (the matrix's `gcs:`, in [`Gc::ALL`]
    /// order): `available` says nothing of the others. `None`: every one was asked
    /// (so were they all in files of pretouch 0.1 before this field).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub asked: Option<Vec<Gc>>,
}

impl Collectors {
    pub fn has(&self, gc: Gc) -> bool {
        self.available.contains(&gc)
    }

    pub fn is_experimental(&self, gc: Gc) -> bool {
        self.experimental.contains(&gc)
    }

    /// `g1, parallel, ...`: for messages.
    pub fn list(&self) -> String {
        self.available
            .iter()
            .map(Gc::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Whether this JDK's ZGC runs generational under `gc` (`None` for other collectors).
    /// `feature` decides only where the JDK has one mode, hence no `ZGenerational` flag:
    /// generational from JDK 24 (JEP 490 removed the other), non-generational before 21.
    pub fn zgc_generational(&self, gc: Gc, feature: Option<u32>) -> Option<bool> {
        match gc {
            Gc::ZgcGenerational => Some(true),
            Gc::ZgcNongenerational => Some(false),
            Gc::Zgc => self
                .zgc_generational_default
                .or_else(|| feature.map(|f| f >= 24)),
            _ => None,
        }
    }
}

/// One boolean flag of `-XX:+PrintFlagsFinal`: its value and whether it is experimental.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct FlagLine {
    pub value: bool,
    pub experimental: bool,
}

/// The line for boolean flag `name` in `-XX:+PrintFlagsFinal` output, e.g.
/// `     bool UseZGC      = false      {product} {default}` (JDK 11: `{experimental}`).
fn flag_line(print_flags_final: &str, name: &str) -> Option<FlagLine> {
    print_flags_final.lines().find_map(|line| {
        let mut words = line.split_whitespace();
        if words.next()? != "bool" || words.next()? != name || words.next()? != "=" {
            return None;
        }
        let value = match words.next()? {
            "true" => true,
            "false" => false,
            _ => return None,
        };
        Some(FlagLine {
            value,
            experimental: words.any(|w| w.contains("experimental")),
        })
    })
}

/// The collectors the flag table declares, before any trial start: (collector,
/// experimental). The ZGC mode values appear only beside a `ZGenerational` flag.
pub fn declared(print_flags_final: &str) -> (Vec<(Gc, bool)>, Option<bool>) {
    let generational = flag_line(print_flags_final, "ZGenerational").map(|f| f.value);
    let declared = Gc::ALL
        .into_iter()
        .filter(|gc| {
            !matches!(gc, Gc::ZgcGenerational | Gc::ZgcNongenerational) || generational.is_some()
        })
        .filter_map(|gc| flag_line(print_flags_final, gc.use_flag()).map(|f| (gc, f.experimental)))
        .collect();
    (declared, generational)
}

/// Asks `java` about the collectors in `wanted`, and only those, completing `answers`
/// (what the JDK answered before, from [`crate::machine::jdk_cache`]): the flag table
/// once per JDK, then one `-version` start per wanted collector that the table declares
/// and that has not started before. Where the table is still unknown, the first
/// collector's start prints it, and the `java -version` text too where that is unknown,
/// so that a run naming one collector starts one JVM before its first launch. Errors
/// name the JDK and what it printed.
pub fn ask(java: &Path, wanted: &[Gc], answers: &mut Answers) -> Result<Collectors, String> {
    let wanted: Vec<Gc> = Gc::ALL.into_iter().filter(|g| wanted.contains(g)).collect();
    if answers.flags.is_none() {
        // A ZGC mode sets ZGenerational on the command line, which hides its default.
        let first = wanted.iter().copied().find(|gc| {
            !answers.started.contains(gc)
                && !matches!(gc, Gc::ZgcGenerational | Gc::ZgcNongenerational)
        });
        let mut args = args_of(&FLAGS_ONLY[..2]);
        if let Some(gc) = first {
            args.push(format!("-XX:+{}", gc.use_flag()));
            args.push("-Xmx64m".to_owned());
        }
        args.push("-version".to_owned());
        let together = run_split(java, &args);
        let table = match (&together, first) {
            (Ok((table, _)), _) => table.clone(),
            // The collector did not start, or the JDK does not know its flag: the table
            // alone, then that collector's own start below says which.
            (Err(_), Some(_)) => run(java, &args_of(&FLAGS_ONLY))?,
            (Err(e), None) => return Err(e.clone()),
        };
        let (collectors, zgc_generational_default) = declared(&table);
        if let Ok((_, stderr)) = &together {
            if let Some(gc) = first
                && started_cleanly(stderr)
                && collectors.iter().any(|(g, _)| *g == gc)
            {
                answers.started.push(gc);
            }
            // `-version` prints to stderr, as alone; the VM's warnings, if any, are not
            // part of that text.
            if answers.version_output.is_none() {
                let version: Vec<&str> = stderr
                    .lines()
                    .filter(|l| !l.contains(" VM warning: "))
                    .collect();
                answers.version_output = Some(version.join("\n").trim().to_owned());
            }
        }
        answers.flags = Some(DeclaredFlags {
            collectors,
            zgc_generational_default,
        });
    }
    let flags = answers.flags.clone().expect("asked above");
    for &(gc, experimental) in &flags.collectors {
        if !wanted.contains(&gc) || answers.started.contains(&gc) {
            continue;
        }
        let mut args = gc.flags(experimental);
        args.extend(["-Xmx64m".to_owned(), "-version".to_owned()]);
        if run(java, &args).is_ok_and(|out| started_cleanly(&out)) {
            answers.started.push(gc);
        }
    }
    answers
        .started
        .sort_by_key(|gc| Gc::ALL.iter().position(|g| g == gc));
    let available: Vec<Gc> = wanted
        .iter()
        .copied()
        .filter(|gc| answers.started.contains(gc))
        .collect();
    Ok(Collectors {
        experimental: flags
            .collectors
            .iter()
            .filter(|(gc, experimental)| *experimental && available.contains(gc))
            .map(|(gc, _)| *gc)
            .collect(),
        available,
        zgc_generational_default: flags.zgc_generational_default,
        asked: (wanted != Gc::ALL).then_some(wanted),
    })
}

/// [`ask`], with the answers read from and kept in `cache`: a JDK whose binaries are
/// unchanged since it answered is not started again. A cache that cannot be written
/// costs the next run the questions again, and a warning says so.
pub fn ask_cached(java: &Path, wanted: &[Gc], cache: &JdkCache) -> Result<Collectors, String> {
    let mut entry = cache.open(java);
    let collectors = ask(java, wanted, &mut entry.answers)?;
    entry.save_or_warn();
    Ok(collectors)
}

/// Every collector `java` has (the dry run and the message for a collector a JDK lacks
/// list them all).
pub fn probe(java: &Path, cache: &JdkCache) -> Result<Collectors, String> {
    ask_cached(java, &Gc::ALL, cache)
}

const FLAGS_ONLY: [&str; 3] = [
    "-XX:+UnlockExperimentalVMOptions",
    "-XX:+PrintFlagsFinal",
    "-version",
];

fn args_of(args: &[&str]) -> Vec<String> {
    args.iter().map(|a| (*a).to_owned()).collect()
}

/// A collector's start counts when it exited 0 without ignoring a flag. A collector the
/// build lacks fails ("Option -XX:+UseShenandoahGC not supported"); a removed flag is
/// ignored with a warning ("Ignoring option ZGenerational; support was removed"), which
/// counts as absent. Other warnings (Epsilon's advice to pretouch) do not.
fn started_cleanly(output: &str) -> bool {
    !output.contains("Ignoring option")
}

/// Runs `java args`, returning stdout and stderr together when it exits 0.
fn run(java: &Path, args: &[String]) -> Result<String, String> {
    let (stdout, stderr) = run_split(java, args)?;
    Ok(stdout + &stderr)
}

/// Runs `java args`, returning stdout and stderr apart when it exits 0.
fn run_split(java: &Path, args: &[String]) -> Result<(String, String), String> {
    let out = duct::cmd(java, args)
        .stdin_null()
        .stdout_capture()
        .stderr_capture()
        .unchecked()
        .run()
        .map_err(|e| format!("cannot run `{}`: {e}", java.display()))?;
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    if out.status.success() {
        Ok((stdout, stderr))
    } else {
        Err(format!(
            "`{} {}` failed: {}",
            java.display(),
            args.join(" "),
            (stdout + &stderr).trim()
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lines as JDK 11, 21 and 25 print them (trimmed to the flags read here).
    const JDK11: &str = "\
     bool UseEpsilonGC                             = false                                {experimental} {default}
     bool UseG1GC                                  = true                                    {product} {ergonomic}
     bool UseParallelGC                            = false                                   {product} {default}
     bool UseSerialGC                              = false                                   {product} {default}
     bool UseShenandoahGC                          = false                                {experimental} {default}
     bool UseZGC                                   = false                                {experimental} {default}
";
    const JDK21: &str = "\
     bool UseEpsilonGC                             = false                                {experimental} {default}
     bool UseG1GC                                  = true                                    {product} {ergonomic}
     bool UseParallelGC                            = false                                   {product} {default}
     bool UseSerialGC                              = false                                   {product} {default}
     bool UseShenandoahGC                          = false                                   {product} {default}
     bool UseZGC                                   = false                                   {product} {default}
     bool ZGenerational                            = false                                   {product} {default}
";

    #[test]
    fn reads_the_flag_table() {
        assert_eq!(
            flag_line(JDK11, "UseZGC"),
            Some(FlagLine {
                value: false,
                experimental: true
            })
        );
        assert_eq!(flag_line(JDK21, "UseG1GC").map(|f| f.value), Some(true));
        assert_eq!(flag_line(JDK21, "UseZ"), None);
    }

    #[test]
    fn zgc_modes_are_declared_only_beside_zgenerational() {
        let (jdk11, generational) = declared(JDK11);
        assert_eq!(generational, None);
        assert!(jdk11.contains(&(Gc::Zgc, true)) && jdk11.contains(&(Gc::Epsilon, true)));
        assert!(!jdk11.iter().any(|(gc, _)| *gc == Gc::ZgcGenerational));
        let (jdk21, generational) = declared(JDK21);
        assert_eq!(generational, Some(false));
        assert!(jdk21.contains(&(Gc::ZgcGenerational, false)));
        assert!(jdk21.contains(&(Gc::ZgcNongenerational, false)));
        assert!(jdk21.contains(&(Gc::Shenandoah, false)));
    }

    #[test]
    fn plain_zgc_is_the_jdks_default_mode() {
        let c = |default| Collectors {
            available: vec![Gc::Zgc],
            experimental: vec![],
            zgc_generational_default: default,
            asked: None,
        };
        assert_eq!(
            c(Some(false)).zgc_generational(Gc::Zgc, Some(21)),
            Some(false)
        );
        assert_eq!(
            c(Some(true)).zgc_generational(Gc::Zgc, Some(23)),
            Some(true)
        );
        assert_eq!(c(None).zgc_generational(Gc::Zgc, Some(17)), Some(false));
        assert_eq!(c(None).zgc_generational(Gc::Zgc, Some(25)), Some(true));
        assert_eq!(c(None).zgc_generational(Gc::G1, Some(25)), None);
    }
}

#[cfg(test)]
mod asking {
    use super::*;

    /// A `java` that answers like JDK 21 (both ZGC modes, no Shenandoah built in) and
    /// logs every start, one line of arguments each, to `starts`.
    fn fake_java(dir: &Path) -> (std::path::PathBuf, std::path::PathBuf) {
        use std::os::unix::fs::PermissionsExt;
        let starts = dir.join("starts");
        let table = dir.join("table");
        std::fs::write(&table, tests_table()).unwrap();
        let java = dir.join("java");
        std::fs::write(
            &java,
            format!(
                "#!/bin/sh\necho \"$*\" >> '{starts}'\n\
                 case \"$*\" in *UseShenandoahGC*) echo 'Option -XX:+UseShenandoahGC not supported'; exit 1;; esac\n\
                 case \"$*\" in *PrintFlagsFinal*) cat '{table}';; esac\n\
                 echo 'openjdk version \"21.0.8\"' >&2\nexit 0\n",
                starts = starts.display(),
                table = table.display()
            ),
        )
        .unwrap();
        std::fs::set_permissions(&java, std::fs::Permissions::from_mode(0o755)).unwrap();
        (java, starts)
    }

    fn tests_table() -> &'static str {
        "     bool UseEpsilonGC = false {experimental} {default}\n\
         \x20    bool UseG1GC = true {product} {ergonomic}\n\
         \x20    bool UseParallelGC = false {product} {default}\n\
         \x20    bool UseSerialGC = false {product} {default}\n\
         \x20    bool UseShenandoahGC = false {product} {default}\n\
         \x20    bool UseZGC = false {product} {default}\n\
         \x20    bool ZGenerational = false {product} {default}\n"
    }

    fn starts(file: &Path) -> Vec<String> {
        std::fs::read_to_string(file)
            .unwrap_or_default()
            .lines()
            .map(str::to_owned)
            .collect()
    }

    #[test]
    fn one_named_collector_is_one_start_and_the_others_are_not_asked() {
        let dir = tempfile::tempdir().unwrap();
        let (java, log) = fake_java(dir.path());
        let mut answers = Answers::default();
        let c = ask(&java, &[Gc::G1], &mut answers).unwrap();
        assert_eq!(
            starts(&log),
            ["-XX:+UnlockExperimentalVMOptions -XX:+PrintFlagsFinal -XX:+UseG1GC -Xmx64m -version"]
        );
        assert_eq!(c.available, [Gc::G1]);
        assert_eq!(c.asked.as_deref(), Some(&[Gc::G1][..]));
        assert_eq!(c.zgc_generational_default, Some(false));
        assert_eq!(
            answers.version_output.as_deref(),
            Some("openjdk version \"21.0.8\"")
        );
        // Asked again with those answers: nothing starts.
        let again = ask(&java, &[Gc::G1], &mut answers).unwrap();
        assert_eq!((starts(&log).len(), again), (1, c));
        // Another collector: its start alone.
        let c = ask(&java, &[Gc::Epsilon, Gc::G1], &mut answers).unwrap();
        assert_eq!(starts(&log).len(), 2);
        assert_eq!(
            starts(&log)[1],
            "-XX:+UnlockExperimentalVMOptions -XX:+UseEpsilonGC -Xmx64m -version"
        );
        assert_eq!(
            (c.available, c.experimental),
            (vec![Gc::G1, Gc::Epsilon], vec![Gc::Epsilon])
        );
    }

    #[test]
    fn a_collector_that_fails_to_start_is_absent_and_asked_again_next_time() {
        let dir = tempfile::tempdir().unwrap();
        let (java, log) = fake_java(dir.path());
        let mut answers = Answers::default();
        let c = ask(&java, &[Gc::Shenandoah], &mut answers).unwrap();
        // The shared start failed: the table alone, then the collector's own start.
        assert_eq!(starts(&log).len(), 3, "{:?}", starts(&log));
        assert!(c.available.is_empty() && !c.has(Gc::Shenandoah));
        assert!(answers.flags.is_some() && answers.started.is_empty());
        ask(&java, &[Gc::Shenandoah], &mut answers).unwrap();
        assert_eq!(starts(&log).len(), 4, "only the collector's start again");
    }

    #[test]
    fn a_zgc_mode_does_not_share_the_start_that_reads_zgenerationals_default() {
        let dir = tempfile::tempdir().unwrap();
        let (java, log) = fake_java(dir.path());
        let mut answers = Answers::default();
        let c = ask(&java, &[Gc::ZgcGenerational], &mut answers).unwrap();
        let log = starts(&log);
        assert_eq!(log.len(), 2, "{log:?}");
        assert!(!log[0].contains("UseZGC"), "{log:?}");
        assert!(log[1].contains("-XX:+UseZGC -XX:+ZGenerational"), "{log:?}");
        assert_eq!(c.available, [Gc::ZgcGenerational]);
        assert_eq!(c.zgc_generational_default, Some(false));
    }

    #[test]
    fn every_collector_asked_is_no_asked_list() {
        let dir = tempfile::tempdir().unwrap();
        let (java, _log) = fake_java(dir.path());
        let c = ask(&java, &Gc::ALL, &mut Answers::default()).unwrap();
        assert_eq!(c.asked, None);
        assert_eq!(
            c.list(),
            "g1, parallel, serial, zgc, zgc-generational, zgc-nongenerational, epsilon"
        );
    }
}
