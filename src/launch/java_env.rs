//! Stage 3 (launch): the environment variables every JVM reads options from. Set in the
//! runner's environment, one would change the flags of every launch behind the command
//! line the record shows (`_JAVA_OPTIONS=-XX:-AlwaysPreTouch` turned every "with
//! pretouch" launch into one without), so a run refuses to start while one is set, or,
//! when asked, moves its options onto every launch's command line, where they are recorded.

/// The variables HotSpot reads options from, in the order it applies them:
/// `JDK_JAVA_OPTIONS` (the `java` launcher, JDK 9 and later) and `JAVA_TOOL_OPTIONS`
/// before the command line, `_JAVA_OPTIONS` after it (so it overrides the command line).
const VARIABLES: [&str; 3] = ["JDK_JAVA_OPTIONS", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS"];

/// The options of the variables that are set, placed as the JVM would place them.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct JavaOptions {
    /// The variables set (name, value), in [`VARIABLES`] order.
    pub set: Vec<(String, String)>,
    /// Options the JVM reads before the command line's.
    pub front: Vec<String>,
    /// Options the JVM reads after the command line's (`_JAVA_OPTIONS`).
    pub back: Vec<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum JavaEnvError {
    #[error(
        "{name} is set ({value:?}): every JVM reads it, so the launches would not run the \
         flags their command lines show (an -XX:-AlwaysPreTouch there turns pretouch off)\n  \
         fix: unset it (`unset {name}`), or pass --pass-java-options to put its options on \
         every launch's command line, where they are recorded"
    )]
    Set { name: String, value: String },
    #[error(
        "{name} holds quotes ({value:?}), which cannot be passed on as separate options\n  \
         fix: unset it and put its options in the matrix's jvm_args"
    )]
    Quoted { name: String, value: String },
}

/// Reads the variables through `get` (the process environment in a run). Without
/// `pass`, the first one set is refused; with it, their options are returned, split at
/// whitespace as the JVM splits them. Unset and empty variables are ignored.
pub fn read(get: impl Fn(&str) -> Option<String>, pass: bool) -> Result<JavaOptions, JavaEnvError> {
    let mut options = JavaOptions::default();
    for name in VARIABLES {
        let Some(value) = get(name).filter(|v| !v.trim().is_empty()) else {
            continue;
        };
        let err = |e: fn(String, String) -> JavaEnvError| Err(e(name.to_owned(), value.clone()));
        if !pass {
            return err(|name, value| JavaEnvError::Set { name, value });
        }
        if value.contains(['"', '\'']) {
            return err(|name, value| JavaEnvError::Quoted { name, value });
        }
        let words = value.split_whitespace().map(str::to_owned);
        match name {
            "_JAVA_OPTIONS" => options.back.extend(words),
            _ => options.front.extend(words),
        }
        options.set.push((name.to_owned(), value));
    }
    Ok(options)
}

/// The JVM's `Picked up <VARIABLE>: <options>` line in a launch's output, if any: the
/// cause to name when the launch did not do what its command line says.
pub fn picked_up(output: &str) -> Option<&str> {
    output
        .lines()
        .map(str::trim)
        .find(|l| l.starts_with("Picked up ") && VARIABLES.iter().any(|v| l[10..].starts_with(v)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(vars: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let vars: Vec<(String, String)> = vars
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        move |name| vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone())
    }

    #[test]
    fn a_set_variable_is_refused_naming_it_and_the_fix() {
        for name in VARIABLES {
            let e = read(env(&[(name, "-XX:-AlwaysPreTouch")]), false).unwrap_err();
            let text = e.to_string();
            assert!(
                text.starts_with(&format!("{name} is set (\"-XX:-AlwaysPreTouch\")")),
                "{text}"
            );
            assert!(text.contains(&format!("unset {name}")), "{text}");
            assert!(text.contains("--pass-java-options"), "{text}");
        }
        assert_eq!(read(env(&[]), false).unwrap(), JavaOptions::default());
        assert_eq!(
            read(env(&[("_JAVA_OPTIONS", "  ")]), false).unwrap(),
            JavaOptions::default()
        );
    }

    #[test]
    fn passed_options_go_where_the_jvm_reads_them() {
        let got = read(
            env(&[
                ("_JAVA_OPTIONS", "-XX:-AlwaysPreTouch  -Xshare:off"),
                ("JAVA_TOOL_OPTIONS", "-Dx=1"),
                ("JDK_JAVA_OPTIONS", "-Dy=2"),
            ]),
            true,
        )
        .unwrap();
        assert_eq!(got.front, ["-Dy=2", "-Dx=1"]);
        assert_eq!(got.back, ["-XX:-AlwaysPreTouch", "-Xshare:off"]);
        assert_eq!(got.set.len(), 3);
        assert!(matches!(
            read(env(&[("JAVA_TOOL_OPTIONS", "-Dx=\"a b\"")]), true),
            Err(JavaEnvError::Quoted { .. })
        ));
    }

    #[test]
    fn the_jvm_s_picked_up_line_is_found() {
        let out = "Picked up _JAVA_OPTIONS: -XX:-AlwaysPreTouch\nhello\n";
        assert_eq!(
            picked_up(out),
            Some("Picked up _JAVA_OPTIONS: -XX:-AlwaysPreTouch")
        );
        assert_eq!(
            picked_up("NOTE: Picked up JDK_JAVA_OPTIONS: -Dy=2"),
            None,
            "only the line HotSpot writes"
        );
        assert_eq!(picked_up("Picked up nothing\n"), None);
    }
}
