//! The `-agentpath:...=<options>` string: parsed without allocating, then copied into a fixed-size
//! `Config` that the callbacks read for the rest of the JVM's life.

use core::ffi::CStr;
use core::fmt;

/// Longest `out=` path accepted, in bytes (Linux `PATH_MAX` includes the NUL).
pub const MAX_OUT_PATH: usize = 4095;
/// Longest `main=` class name accepted, in bytes.
pub const MAX_MAIN_CLASS: usize = 1024;
/// Longest `copy=` list accepted, in bytes.
pub const MAX_COPY: usize = 64;

/// How `main` is stamped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mechanism {
    /// The runner's `PretouchMain` calls the native `mark()` first thing in `main`.
    Jni,
    /// A JVMTI breakpoint at bytecode 0 of the user's `main` (`main=` given).
    Breakpoint,
}

impl Mechanism {
    /// The word on the stamps file's `mechanism` line.
    pub const fn as_str(self) -> &'static str {
        match self {
            Mechanism::Jni => "jni",
            Mechanism::Breakpoint => "breakpoint",
        }
    }
}

/// The parsed options, borrowing from the option string.
#[derive(Debug, PartialEq, Eq)]
pub struct Options<'a> {
    pub out: &'a [u8],
    pub main: Option<&'a [u8]>,
    pub exit_at_main: bool,
    /// The files of `/proc/self` to copy at `main`, such as `numa_maps`, joined by `+`.
    pub copy: Option<&'a [u8]>,
}

#[derive(Debug, PartialEq, Eq)]
pub enum OptionsError<'a> {
    MissingOut,
    NotKeyValue(&'a [u8]),
    UnknownKey(&'a [u8]),
    Duplicate(&'static str),
    Empty(&'static str),
    BadExitAtMain(&'a [u8]),
    BadCopy(&'a [u8]),
    TooLong(&'static str, usize),
}

/// Shows possibly non-UTF-8 bytes (options, class names), replacing invalid sequences.
pub struct Lossy<'a>(pub &'a [u8]);

impl fmt::Display for Lossy<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for chunk in self.0.utf8_chunks() {
            f.write_str(chunk.valid())?;
            if !chunk.invalid().is_empty() {
                f.write_str("\u{fffd}")?;
            }
        }
        Ok(())
    }
}

impl fmt::Display for OptionsError<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OptionsError::MissingOut => write!(
                f,
                "missing out=<path> (required, and must be the last option)"
            ),
            OptionsError::NotKeyValue(s) => write!(f, "option `{}` is not key=value", Lossy(s)),
            OptionsError::UnknownKey(k) => {
                write!(
                    f,
                    "unknown option `{}` (known: main, exit_at_main, copy, out)",
                    Lossy(k)
                )
            }
            OptionsError::Duplicate(k) => write!(f, "option {k}= given twice"),
            OptionsError::Empty(k) => write!(f, "option {k}= has an empty value"),
            OptionsError::BadExitAtMain(v) => {
                write!(f, "exit_at_main must be 0 or 1, not `{}`", Lossy(v))
            }
            OptionsError::BadCopy(v) => write!(
                f,
                "copy must name files of /proc/self in lowercase letters, digits and `_`, \
                 joined by `+`, not `{}`",
                Lossy(v)
            ),
            OptionsError::TooLong(k, max) => write!(f, "option {k}= is longer than {max} bytes"),
        }
    }
}

/// Parses `key=value,...,out=<path>`. `out=` must come last: its value is the rest of the
/// string, so the path may contain commas.
pub fn parse(options: &[u8]) -> Result<Options<'_>, OptionsError<'_>> {
    let mut main = None;
    let mut exit_at_main = None;
    let mut copy = None;
    let mut rest = options;
    loop {
        if let Some(out) = rest.strip_prefix(b"out=") {
            if out.is_empty() {
                return Err(OptionsError::Empty("out"));
            }
            return Ok(Options {
                out,
                main,
                exit_at_main: exit_at_main.unwrap_or(true),
                copy,
            });
        }
        if rest.is_empty() {
            return Err(OptionsError::MissingOut);
        }
        let (pair, tail) = match rest.iter().position(|&b| b == b',') {
            Some(i) => (&rest[..i], &rest[i + 1..]),
            None => (rest, &rest[rest.len()..]),
        };
        let Some(eq) = pair.iter().position(|&b| b == b'=') else {
            return Err(OptionsError::NotKeyValue(pair));
        };
        let (key, value) = (&pair[..eq], &pair[eq + 1..]);
        match key {
            b"main" => {
                if main.is_some() {
                    return Err(OptionsError::Duplicate("main"));
                }
                if value.is_empty() {
                    return Err(OptionsError::Empty("main"));
                }
                main = Some(value);
            }
            b"exit_at_main" => {
                if exit_at_main.is_some() {
                    return Err(OptionsError::Duplicate("exit_at_main"));
                }
                exit_at_main = Some(match value {
                    b"0" => false,
                    b"1" => true,
                    _ => return Err(OptionsError::BadExitAtMain(value)),
                });
            }
            b"copy" => {
                if copy.is_some() {
                    return Err(OptionsError::Duplicate("copy"));
                }
                if !is_copy_list(value) {
                    return Err(OptionsError::BadCopy(value));
                }
                copy = Some(value);
            }
            _ => return Err(OptionsError::UnknownKey(key)),
        }
        rest = tail;
    }
}

/// Whether `value` names files of `/proc/self` joined by `+`, each of lowercase letters,
/// digits and `_`, so that no name climbs out of `/proc/self` or into another folder.
fn is_copy_list(value: &[u8]) -> bool {
    value.split(|&b| b == b'+').all(|name| {
        !name.is_empty()
            && name
                .iter()
                .all(|&b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
    })
}

/// The options, copied out of the JVM's string into fixed buffers (no allocation).
pub struct Config {
    /// The `out=` path, NUL-terminated.
    out: [u8; MAX_OUT_PATH + 1],
    main: [u8; MAX_MAIN_CLASS],
    main_len: usize,
    pub exit_at_main: bool,
    copy: [u8; MAX_COPY],
    copy_len: usize,
}

impl Config {
    pub fn new(options: &Options<'_>) -> Result<Self, OptionsError<'static>> {
        if options.out.len() > MAX_OUT_PATH {
            return Err(OptionsError::TooLong("out", MAX_OUT_PATH));
        }
        let main = options.main.unwrap_or_default();
        if main.len() > MAX_MAIN_CLASS {
            return Err(OptionsError::TooLong("main", MAX_MAIN_CLASS));
        }
        let copy = options.copy.unwrap_or_default();
        if copy.len() > MAX_COPY {
            return Err(OptionsError::TooLong("copy", MAX_COPY));
        }
        let mut config = Config {
            out: [0; MAX_OUT_PATH + 1],
            main: [0; MAX_MAIN_CLASS],
            main_len: 0,
            exit_at_main: options.exit_at_main,
            copy: [0; MAX_COPY],
            copy_len: copy.len(),
        };
        config.copy[..copy.len()].copy_from_slice(copy);
        config.out[..options.out.len()].copy_from_slice(options.out);
        config.main[..main.len()].copy_from_slice(main);
        config.main_len = main.len();
        Ok(config)
    }

    pub fn out_path(&self) -> &CStr {
        // The option string came from a C string, so it has no interior NUL, and out[] ends in
        // at least one NUL; from_bytes_until_nul cannot fail, but fall back to "" rather than panic.
        CStr::from_bytes_until_nul(&self.out).unwrap_or_default()
    }

    /// The `main=` class's binary name (`com.example.Main`), if given.
    pub fn main_class(&self) -> Option<&[u8]> {
        (self.main_len > 0).then(|| &self.main[..self.main_len])
    }

    /// The names of the files of `/proc/self` to copy at `main`, in the order given.
    pub fn copies(&self) -> impl Iterator<Item = &[u8]> {
        self.copy[..self.copy_len]
            .split(|&b| b == b'+')
            .filter(|name| !name.is_empty())
    }

    pub fn mechanism(&self) -> Mechanism {
        if self.main_class().is_some() {
            Mechanism::Breakpoint
        } else {
            Mechanism::Jni
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(s: &str) -> Options<'_> {
        parse(s.as_bytes()).unwrap()
    }

    fn err(s: &str) -> String {
        parse(s.as_bytes()).unwrap_err().to_string()
    }

    #[test]
    fn out_alone() {
        assert_eq!(
            ok("out=/tmp/s.txt"),
            Options {
                out: b"/tmp/s.txt",
                main: None,
                exit_at_main: true,
                copy: None
            }
        );
    }

    #[test]
    fn out_is_the_rest_of_the_string() {
        let o = ok("main=com.example.Main,exit_at_main=0,out=/tmp/a,b=c,out=d");
        assert_eq!(
            o,
            Options {
                out: b"/tmp/a,b=c,out=d",
                main: Some(b"com.example.Main"),
                exit_at_main: false,
                copy: None
            }
        );
    }

    #[test]
    fn exit_at_main_values() {
        assert!(ok("exit_at_main=1,out=x").exit_at_main);
        assert!(!ok("exit_at_main=0,out=x").exit_at_main);
        assert_eq!(
            err("exit_at_main=yes,out=x"),
            "exit_at_main must be 0 or 1, not `yes`"
        );
    }

    #[test]
    fn errors() {
        assert_eq!(
            err(""),
            "missing out=<path> (required, and must be the last option)"
        );
        assert_eq!(err("main=A"), err(""));
        assert_eq!(err("main=A,"), err(""));
        assert_eq!(err("out="), "option out= has an empty value");
        assert_eq!(err("main=,out=x"), "option main= has an empty value");
        assert_eq!(err("verbose,out=x"), "option `verbose` is not key=value");
        assert_eq!(
            err("foo=1,out=x"),
            "unknown option `foo` (known: main, exit_at_main, copy, out)"
        );
        assert_eq!(err("main=A,main=B,out=x"), "option main= given twice");
        assert_eq!(
            err("exit_at_main=1,exit_at_main=0,out=x"),
            "option exit_at_main= given twice"
        );
        assert_eq!(
            parse(b"\xff=1,out=x").unwrap_err().to_string(),
            "unknown option `\u{fffd}` (known: main, exit_at_main, copy, out)"
        );
    }

    #[test]
    fn copy_names_files_of_proc_self() {
        let config = Config::new(&ok("copy=numa_maps+status,out=x")).unwrap();
        let names: Vec<&[u8]> = config.copies().collect();
        assert_eq!(names, [&b"numa_maps"[..], b"status"]);
        assert_eq!(Config::new(&ok("out=x")).unwrap().copies().count(), 0);
        let bad = "copy must name files of /proc/self in lowercase letters, digits and `_`, \
                   joined by `+`, not";
        assert_eq!(err("copy=../etc,out=x"), format!("{bad} `../etc`"));
        assert_eq!(err("copy=a++b,out=x"), format!("{bad} `a++b`"));
        assert_eq!(err("copy=,out=x"), format!("{bad} ``"));
        assert_eq!(err("copy=a,copy=b,out=x"), "option copy= given twice");
        let too_long = format!("copy={},out=x", "a".repeat(MAX_COPY + 1));
        assert!(matches!(
            Config::new(&ok(&too_long)),
            Err(OptionsError::TooLong("copy", _))
        ));
    }

    #[test]
    fn config_copies_and_limits() {
        let config = Config::new(&ok("main=com.example.Main,out=/tmp/s,1.txt")).unwrap();
        assert_eq!(config.out_path().to_bytes(), b"/tmp/s,1.txt");
        assert_eq!(config.main_class(), Some(&b"com.example.Main"[..]));
        assert_eq!(config.mechanism(), Mechanism::Breakpoint);
        assert!(config.exit_at_main);

        let config = Config::new(&ok("out=/tmp/s")).unwrap();
        assert_eq!(config.main_class(), None);
        assert_eq!(config.mechanism(), Mechanism::Jni);

        let long = format!("out={}", "a".repeat(MAX_OUT_PATH));
        assert!(Config::new(&ok(&long)).is_ok());
        let too_long = format!("out={}", "a".repeat(MAX_OUT_PATH + 1));
        assert!(matches!(
            Config::new(&ok(&too_long)),
            Err(OptionsError::TooLong("out", _))
        ));
    }
}
