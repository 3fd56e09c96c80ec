//! Stage 2, the machine: which garbage collectors a JDK has, asked of that JDK once per
//! run.
//!
//! Nothing here is keyed on the version number. The JDK prints its flags
//! (`-XX:+UnlockExperimentalVMOptions -XX:+PrintFlagsFinal -version`), which says which
//! selection flags it declares, whether each is experimental, and whether it has
//! `ZGenerational` (JDK 21-23, the JDKs with both ZGC modes) and its default. A declared
//! flag is not proof that the collector was built in (a build without Shenandoah still
//! declares `UseShenandoahGC` and refuses it at start), so each declared collector is then
//! started once, `-Xmx64m -version`, and kept only if that start succeeds without ignoring a flag.

use serde::{Deserialize, Serialize};

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
pub struct FlagLine {
    pub value: bool,
    pub experimental: bool,
}

/// The line for boolean flag `name` in `-XX:+PrintFlagsFinal` output, e.g.
/// `     bool UseZGC      = false      {product} {default}` (JDK 11: `{experimental}`).
pub fn flag_line(print_flags_final: &str, name: &str) -> Option<FlagLine> {
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

/// Asks `java` which collectors it has: one flag listing, then one `-version` start per
/// declared collector. Errors name the JDK and what it printed.
pub fn probe(java: &std::path::Path) -> Result<Collectors, String> {
    let flags = run(
        java,
        &[
            "-XX:+UnlockExperimentalVMOptions",
            "-XX:+PrintFlagsFinal",
            "-version",
        ],
    )?;
    let (declared, zgc_generational_default) = declared(&flags);
    let mut collectors = Collectors {
        available: Vec::new(),
        experimental: Vec::new(),
        zgc_generational_default,
    };
    for (gc, experimental) in declared {
        let mut args = gc.flags(experimental);
        args.extend(["-Xmx64m".to_owned(), "-version".to_owned()]);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        // A collector the build lacks fails here ("Option -XX:+UseShenandoahGC not
        // supported"); a removed flag is ignored with a warning ("Ignoring option
        // ZGenerational; support was removed"), which counts as absent. Other warnings
        // (Epsilon's advice to pretouch) do not.
        if run(java, &args).is_ok_and(|out| !out.contains("Ignoring option")) {
            collectors.available.push(gc);
            if experimental {
                collectors.experimental.push(gc);
            }
        }
    }
    Ok(collectors)
}

/// Runs `java args`, returning stdout and stderr together when it exits 0.
fn run(java: &std::path::Path, args: &[&str]) -> Result<String, String> {
    let out = duct::cmd(java, args)
        .stdin_null()
        .stderr_to_stdout()
        .stdout_capture()
        .unchecked()
        .run()
        .map_err(|e| format!("cannot run `{}`: {e}", java.display()))?;
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    if out.status.success() {
        Ok(text)
    } else {
        Err(format!(
            "`{} {}` failed: {}",
            java.display(),
            args.join(" "),
            text.trim()
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
