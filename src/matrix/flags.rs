//! Stage 1 of the pipeline: a matrix from `pretouch run`'s flags (`--gc g1,parallel
//! --heap 512m --jdk 25 --rounds 10`), for a run without a matrix file.
//!
//! The flags replace axes of the built-in quick matrix, and the result is written out as
//! the YAML a file would hold. That text is then parsed like a file's, so the result
//! file stores it, and `--resume` and `report` read it, exactly as a file's. Each value
//! is checked first with the check a file's value gets, so that a bad one is named by
//! its flag rather than by a line of YAML the user never wrote.

use std::path::Path;

use crate::matrix::{Gc, HeapSize, Matrix, MatrixError};

/// The origin a matrix made from flags has, in messages and in the result header. A
/// resumed run reads such a matrix from the header's text, because there is no file.
pub const ORIGIN: &str = "<command line>";

/// The flag of `pretouch run` that gives the matrix key `key`, if one does.
fn flag_of(key: &str) -> Option<&'static str> {
    Some(match key {
        "gcs" => "--gc",
        "heaps" => "--heap",
        "jdks" => "--jdk",
        "repetitions" => "--rounds",
        "warmup" => "--warmup",
        _ => return None,
    })
}

/// Where the value of `key` on `line` of a matrix is, for a message that goes on after
/// it: ``matrix `m.yaml`, line 5``. For a matrix made from flags it is the flag that
/// gave the value (`--heap`), because the user never saw that matrix's lines.
pub fn place(origin: &str, key: &str, line: Option<usize>) -> String {
    match (origin == ORIGIN, flag_of(key), line) {
        (true, Some(flag), _) => flag.to_owned(),
        (_, _, Some(line)) => format!("matrix `{origin}`, line {line}"),
        (_, _, None) => format!("matrix `{origin}`"),
    }
}

/// The matrix flags of `pretouch run`, each value as typed. An empty list or `None`
/// keeps the built-in matrix's value.
#[derive(Debug, Clone, Copy, Default)]
pub struct Flags<'a> {
    /// `--gc`: the `gcs:` axis.
    pub gcs: &'a [String],
    /// `--heap`: the `heaps:` axis.
    pub heaps: &'a [String],
    /// `--jdk`: the `jdks:` axis.
    pub jdks: &'a [String],
    /// `--rounds`: `repetitions:`.
    pub rounds: Option<u32>,
    /// `--warmup`: `warmup:`.
    pub warmup: Option<u32>,
}

impl Flags<'_> {
    /// Whether any matrix flag is given.
    pub fn any(&self) -> bool {
        !self.gcs.is_empty()
            || !self.heaps.is_empty()
            || !self.jdks.is_empty()
            || self.rounds.is_some()
            || self.warmup.is_some()
    }

    /// The flags given, as one would type them again: `--gc g1,parallel --rounds 2`.
    pub fn command_line(&self) -> String {
        let mut out = Vec::new();
        for (flag, values) in [
            ("--gc", self.gcs),
            ("--heap", self.heaps),
            ("--jdk", self.jdks),
        ] {
            if !values.is_empty() {
                out.push(format!("{flag} {}", values.join(",")));
            }
        }
        for (flag, value) in [("--rounds", self.rounds), ("--warmup", self.warmup)] {
            if let Some(n) = value {
                out.push(format!("{flag} {n}"));
            }
        }
        out.join(" ")
    }
}

/// A flag's value that fails its check, with the message that names the flag.
fn refused(flag: &'static str, message: String) -> MatrixError {
    MatrixError::Flag { flag, message }
}

/// The values of a list flag, each checked by `check`, and no two the same by `same`
/// (`64m` and `65536k` are one heap), so that no cell would run twice.
fn checked<T, K: PartialEq>(
    flag: &'static str,
    values: &[String],
    check: impl Fn(&str) -> Result<T, String>,
    same: impl Fn(&T) -> K,
) -> Result<Vec<T>, MatrixError> {
    let mut out: Vec<T> = Vec::new();
    for value in values {
        if value.is_empty() {
            return Err(refused(
                flag,
                "an empty value\n  fix: give a value between each two commas".to_owned(),
            ));
        }
        let item = check(value).map_err(|message| refused(flag, message))?;
        if let Some(first) = out.iter().position(|o| same(o) == same(&item)) {
            let what = if values[first] == *value {
                format!("`{value}` is given twice")
            } else {
                format!("`{value}` is `{}` again", values[first])
            };
            return Err(refused(
                flag,
                format!("{what}, so the same cell would run twice\n  fix: give each value once"),
            ));
        }
        out.push(item);
    }
    Ok(out)
}

/// A `--gc` value: one of the `gcs:` values, spelled as the matrix spells them.
fn collector(value: &str) -> Result<Gc, String> {
    Gc::ALL
        .into_iter()
        .find(|gc| gc.to_string() == value)
        .ok_or_else(|| {
            let all: Vec<String> = Gc::ALL.iter().map(ToString::to_string).collect();
            format!(
                "unknown collector `{value}`\n  fix: use one of {}",
                all.join(", ")
            )
        })
}

/// A `--jdk` value: a JDK home, a java binary, a feature version such as 25, or `auto`.
/// Which JDK it names is found later, as for a file's `jdks:`.
fn jdk(value: &str) -> Result<String, String> {
    Ok(value.to_owned())
}

/// A YAML flow list of `values`, each a double-quoted string (JSON's quoting is YAML's),
/// so that a path holding `,`, `#` or `: ` stays one value.
fn quoted_list(values: &[String]) -> String {
    let quoted: Vec<String> = values
        .iter()
        .map(|v| serde_json::to_string(v).expect("a string serializes"))
        .collect();
    format!("[{}]", quoted.join(", "))
}

impl Matrix {
    /// The matrix of a fresh run: the file's, or without a file the built-in matrix with
    /// the axes `flags` give. Flags beside a file are refused rather than merged, because
    /// the file's text is what the result file stores and `--resume` checks.
    pub fn of_run(file: Option<&Path>, flags: &Flags<'_>) -> Result<Matrix, MatrixError> {
        match (file, flags.any()) {
            (Some(path), true) => Err(MatrixError::FlagsBesideFile {
                flags: flags.command_line(),
                path: path.to_owned(),
            }),
            (Some(path), false) => Matrix::from_file(path),
            (None, true) => Matrix::from_flags(flags),
            (None, false) => Ok(Matrix::default_matrix()),
        }
    }

    /// The built-in quick matrix with the axes `flags` give, checked value by value
    /// (an error names the flag), then written as YAML and parsed as a file's text.
    pub fn from_flags(flags: &Flags<'_>) -> Result<Matrix, MatrixError> {
        let built_in = Matrix::default_matrix();
        let gcs = checked("--gc", flags.gcs, collector, |g| *g)?;
        let heaps = checked("--heap", flags.heaps, HeapSize::parse, |h| h.bytes)?;
        let jdks = checked("--jdk", flags.jdks, jdk, Clone::clone)?;
        if flags.rounds == Some(0) {
            return Err(refused(
                "--rounds",
                "0 rounds measure nothing\n  fix: give at least 1 (10 gives a stable median)"
                    .to_owned(),
            ));
        }
        let gcs: Vec<String> = match gcs.is_empty() {
            true => built_in.gcs.iter().map(ToString::to_string).collect(),
            false => gcs.iter().map(ToString::to_string).collect(),
        };
        let heaps: Vec<String> = match heaps.is_empty() {
            true => built_in.heaps.iter().map(|h| h.text.clone()).collect(),
            false => heaps.into_iter().map(|h| h.text).collect(),
        };
        let mut text = format!(
            "# pretouch run {}\n\
             # The built-in quick matrix, with the axes these flags give.\n\
             name: {}\n",
            flags.command_line(),
            built_in.name
        );
        if !jdks.is_empty() {
            text.push_str(&format!("jdks: {}\n", quoted_list(&jdks)));
        }
        text.push_str(&format!(
            "gcs: [{}]\nheaps: [{}]\nrepetitions: {}\nwarmup: {}\n",
            gcs.join(", "),
            heaps.join(", "),
            flags.rounds.unwrap_or(built_in.repetitions),
            flags.warmup.unwrap_or(built_in.warmup),
        ));
        Matrix::parse(ORIGIN, &text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::Bytes;

    fn strings(values: &[&str]) -> Vec<String> {
        values.iter().map(|s| (*s).to_owned()).collect()
    }

    fn refusal(flags: &Flags<'_>) -> String {
        Matrix::from_flags(flags).unwrap_err().to_string()
    }

    #[test]
    fn the_flags_give_the_axes_and_the_text_is_the_files() {
        let (gcs, heaps, jdks) = (
            strings(&["g1", "parallel"]),
            strings(&["512m", "4g"]),
            strings(&["25", "/opt/a jdk, #2: x"]),
        );
        let flags = Flags {
            gcs: &gcs,
            heaps: &heaps,
            jdks: &jdks,
            rounds: Some(10),
            warmup: Some(0),
        };
        let m = Matrix::from_flags(&flags).unwrap();
        assert_eq!(m.origin, ORIGIN);
        assert_eq!(m.gcs, [Gc::G1, Gc::Parallel]);
        let bytes: Vec<Bytes> = m.heaps.iter().map(|h| h.bytes).collect();
        assert_eq!(bytes, [Bytes(512 << 20), Bytes(4 << 30)]);
        assert_eq!(m.jdks, Some(jdks.clone()));
        assert_eq!((m.repetitions, m.warmup), (10, 0));
        // The text is a matrix file's: parsed as one, it gives the same matrix.
        let again = Matrix::parse("m.yaml", &m.text).unwrap();
        assert_eq!(
            (again.gcs, again.jdks, again.repetitions, again.warmup),
            (m.gcs.clone(), m.jdks.clone(), 10, 0)
        );
        assert!(
            m.text.starts_with(
                "# pretouch run --gc g1,parallel --heap 512m,4g --jdk 25,/opt/a jdk, #2: x --rounds 10 --warmup 0\n"
            ),
            "{}",
            m.text
        );
        // The same flags give the same text, so a resume's check of the text holds.
        assert_eq!(Matrix::from_flags(&flags).unwrap().text, m.text);
    }

    #[test]
    fn an_axis_without_its_flag_keeps_the_built_in_value() {
        let heaps = strings(&["64m"]);
        let m = Matrix::from_flags(&Flags {
            heaps: &heaps,
            ..Flags::default()
        })
        .unwrap();
        let built_in = Matrix::default_matrix();
        assert_eq!(m.gcs, built_in.gcs);
        assert_eq!(m.jdks, None);
        assert_eq!(
            (m.repetitions, m.warmup),
            (built_in.repetitions, built_in.warmup)
        );
        assert_eq!(m.heaps.len(), 1);
        assert_ne!(m.text, built_in.text);
        assert!(!Flags::default().any());
        assert!(
            Flags {
                rounds: Some(1),
                ..Flags::default()
            }
            .any()
        );
    }

    #[test]
    fn flags_beside_a_file_are_refused_and_without_either_the_built_in_runs() {
        let gcs = strings(&["g1"]);
        let flags = Flags {
            gcs: &gcs,
            rounds: Some(2),
            ..Flags::default()
        };
        // Refused before the file is read, so a missing file does not hide the reason.
        let e = Matrix::of_run(Some(Path::new("m.yaml")), &flags)
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("--gc g1 --rounds 2 beside the matrix file `m.yaml`")
                && e.contains("fix: change the axes in the file, or leave the file out")
                && e.ends_with("pretouch run --gc g1 --rounds 2"),
            "{e}"
        );
        let none = Flags::default();
        assert_eq!(
            Matrix::of_run(None, &none).unwrap().text,
            Matrix::default_matrix().text
        );
        assert_eq!(Matrix::of_run(None, &flags).unwrap().origin, ORIGIN);
        let e = Matrix::of_run(Some(Path::new("/nonexistent/m.yaml")), &none)
            .unwrap_err()
            .to_string();
        assert!(e.contains("/nonexistent/m.yaml"), "{e}");
    }

    #[test]
    fn a_place_is_the_flag_for_a_matrix_from_flags_and_the_line_for_a_file() {
        assert_eq!(place(ORIGIN, "heaps", Some(5)), "--heap");
        assert_eq!(place(ORIGIN, "jdks", None), "--jdk");
        assert_eq!(place("m.yaml", "heaps", Some(5)), "matrix `m.yaml`, line 5");
        assert_eq!(place("m.yaml", "gcs", None), "matrix `m.yaml`");
        // A key no flag gives keeps its line, which the text holds.
        assert_eq!(
            place(ORIGIN, "cpus", Some(3)),
            "matrix `<command line>`, line 3"
        );
    }

    #[test]
    fn a_bad_value_is_refused_naming_its_flag() {
        let list = |values: &[&str]| strings(values);
        for (gcs, heaps, jdks, rounds, want) in [
            (
                list(&[]),
                list(&["5x"]),
                list(&[]),
                None,
                "--heap: invalid heap size \"5x\": unknown unit `x`",
            ),
            (
                list(&[]),
                list(&["1m"]),
                list(&[]),
                None,
                "--heap: invalid heap size \"1m\": the JVM needs at least 2m",
            ),
            (
                list(&[]),
                list(&["-1g"]),
                list(&[]),
                None,
                "--heap: invalid heap size \"-1g\"",
            ),
            (
                list(&[]),
                list(&["64m", "65536k"]),
                list(&[]),
                None,
                "--heap: `65536k` is `64m` again, so the same cell would run twice",
            ),
            (
                list(&["cms"]),
                list(&[]),
                list(&[]),
                None,
                "--gc: unknown collector `cms`\n  fix: use one of g1, parallel, serial, zgc",
            ),
            (
                list(&["G1"]),
                list(&[]),
                list(&[]),
                None,
                "--gc: unknown collector `G1`",
            ),
            (
                list(&["g1", "g1"]),
                list(&[]),
                list(&[]),
                None,
                "--gc: `g1` is given twice",
            ),
            (
                list(&["g1", ""]),
                list(&[]),
                list(&[]),
                None,
                "--gc: an empty value",
            ),
            (
                list(&[]),
                list(&[]),
                list(&["17", "17"]),
                None,
                "--jdk: `17` is given twice",
            ),
            (
                list(&[]),
                list(&[]),
                list(&[""]),
                None,
                "--jdk: an empty value",
            ),
            (
                list(&[]),
                list(&[]),
                list(&[]),
                Some(0),
                "--rounds: 0 rounds measure nothing",
            ),
        ] {
            let e = refusal(&Flags {
                gcs: &gcs,
                heaps: &heaps,
                jdks: &jdks,
                rounds,
                warmup: None,
            });
            assert!(e.starts_with(want), "want {want:?}, got {e:?}");
            assert!(!e.contains("line "), "names a YAML line: {e}");
            assert!(
                e.contains("fix") || e.contains("write a whole number"),
                "no fix: {e}"
            );
        }
    }
}
