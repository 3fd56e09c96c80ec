//! Stage 1 of the pipeline: the axes that `pretouch run`'s flags give (`--gc g1,parallel
//! --heap 512m --jdk 25 --rounds 10`), over the built-in quick matrix or over a matrix
//! file.
//!
//! Each flag replaces one axis of the matrix for this run. The matrix value is built from
//! the checked values themselves, so a value can never add a key of its own. The text the
//! result file stores is written from those values too. It is the file's text with each
//! replaced key's lines marked, or without a file a short matrix of the flags' axes, so
//! `--resume` and `report` read it as a file's. An error names the flag and its value,
//! because the user never saw that text.

use std::path::Path;

use crate::matrix::{Gc, Given, HeapSize, Matrix, MatrixError, key_line};

/// The origin a matrix made from flags alone has, in messages and in the result header.
/// A resumed run reads such a matrix from the header's text, because there is no file.
pub const ORIGIN: &str = "<command line>";

/// What joins a matrix file's name and the flags that changed it, in the result header's
/// origin: `m.yaml with --heap 256m`. A resumed run reads the header's text then.
const WITH: &str = " with --";

/// Each matrix flag of `pretouch run` and the matrix key it replaces.
const FLAG_KEYS: [(&str, &str); 5] = [
    ("--gc", "gcs"),
    ("--heap", "heaps"),
    ("--jdk", "jdks"),
    ("--rounds", "repetitions"),
    ("--warmup", "warmup"),
];

/// The flag of `pretouch run` that gives the matrix key `key`, if one does.
fn flag_of(key: &str) -> Option<&'static str> {
    FLAG_KEYS.iter().find(|(_, k)| *k == key).map(|(f, _)| *f)
}

/// The flags of a command line that [`Given::command_line`] wrote, for a resumed
/// run's messages. A flag's value runs to the next flag.
fn parse_given(command_line: &str) -> Given {
    let mut given = Given::default();
    let mut rest = command_line;
    while let Some((flag, key)) = FLAG_KEYS
        .iter()
        .find(|(f, _)| rest.starts_with(&format!("{f} ")))
    {
        let end = rest[flag.len()..]
            .find(" --")
            .map_or(rest.len(), |i| i + flag.len());
        given.push(key, rest[..end].to_owned());
        rest = rest[end..].trim_start();
    }
    given
}

/// Where a stored origin points: the matrix file, and the flags that changed some of
/// its axes. A run from flags alone has no file, and a run of a file as it is, no flags.
pub fn split_origin(origin: &str) -> (Option<&str>, Given) {
    if origin == ORIGIN {
        return (None, Given::default());
    }
    match origin.find(WITH) {
        Some(i) => (
            Some(&origin[..i]),
            parse_given(&origin[i + " with ".len()..]),
        ),
        None => (Some(origin), Given::default()),
    }
}

impl Matrix {
    /// The origin the result header stores: the file, followed by the flags that
    /// changed it (`m.yaml with --heap 256m`), so a resumed run knows that the header's
    /// text, not the file's, is the matrix it ran.
    pub fn stored_origin(&self) -> String {
        match self.given.is_empty() || self.origin == ORIGIN {
            true => self.origin.clone(),
            false => format!("{} with {}", self.origin, self.given.command_line()),
        }
    }

    /// The matrix named for people: `` `m.yaml` ``, or `` `m.yaml` with --heap 256m ``
    /// when flags changed it, or the flags alone for a matrix made from them.
    pub fn described(&self) -> String {
        match (self.origin == ORIGIN, self.given.is_empty()) {
            (true, false) => format!(
                "the built-in quick matrix with {}",
                self.given.command_line()
            ),
            (_, true) => format!("`{}`", self.origin),
            (false, false) => format!("`{}` with {}", self.origin, self.given.command_line()),
        }
    }

    /// Whether a flag of `pretouch run` gave `key`, so messages say the flag's name
    /// rather than the key's. A resumed run from flags alone knows only that.
    pub fn by_flag(&self, key: &str) -> bool {
        self.given.of(key).is_some() || (self.origin == ORIGIN && flag_of(key).is_some())
    }

    /// Where the value of `key` is, for a message that goes on after it: ``matrix
    /// `m.yaml`, line 5``, or the flag that gave it, such as `--rounds 4294967295`,
    /// because the user never saw that value's line.
    pub fn place(&self, key: &str) -> String {
        self.place_at(key, key_line(&self.text, key))
    }

    /// As [`Matrix::place`], for a value found on `line`.
    pub fn place_at(&self, key: &str, line: Option<usize>) -> String {
        if let Some(given) = self.given.of(key) {
            return given.to_owned();
        }
        match (self.origin == ORIGIN, flag_of(key), line) {
            (true, Some(flag), _) => flag.to_owned(),
            (_, _, Some(line)) => format!("matrix `{}`, line {line}", self.origin),
            (_, _, None) => format!("matrix `{}`", self.origin),
        }
    }
}

/// The matrix flags of `pretouch run`, each value as typed. An empty list or `None`
/// keeps the value of the file, or of the built-in matrix without a file.
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
        self.given().command_line()
    }

    /// Each flag given with its value as typed, in the order `--help` lists them.
    fn given(&self) -> Given {
        let mut given = Given::default();
        for (flag, key, values) in [
            ("--gc", "gcs", self.gcs),
            ("--heap", "heaps", self.heaps),
            ("--jdk", "jdks", self.jdks),
        ] {
            if !values.is_empty() {
                let shown: Vec<String> = values.iter().map(|v| shown(v)).collect();
                given.push(key, format!("{flag} {}", shown.join(",")));
            }
        }
        for (flag, key, value) in [
            ("--rounds", "repetitions", self.rounds),
            ("--warmup", "warmup", self.warmup),
        ] {
            if let Some(n) = value {
                given.push(key, format!("{flag} {n}"));
            }
        }
        given
    }
}

/// A value as a command line shows it: as typed, or quoted with its special characters
/// escaped when it holds a space, a quote or a `#`, so it stays one word on one line.
fn shown(value: &str) -> String {
    let plain = !value.is_empty()
        && value
            .chars()
            .all(|c| c.is_alphanumeric() || "/._-+:=@%~".contains(c));
    match plain {
        true => value.to_owned(),
        false => format!("{value:?}"),
    }
}

/// The value of `--rounds` or `--warmup`, read by clap: a whole number. A negative one
/// gets this message rather than clap's advice to put it after `--`, which would make
/// it the matrix file.
pub fn count(value: &str) -> Result<u32, String> {
    let fix = "fix: give a whole number of rounds, such as 10";
    if let Some(rest) = value.strip_prefix('-')
        && !rest.is_empty()
        && rest.bytes().all(|b| b.is_ascii_digit())
    {
        return Err(format!("`{value}` is negative\n  {fix}"));
    }
    if value.is_empty() || !value.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("`{value}` is not a whole number\n  {fix}"));
    }
    value
        .parse()
        .map_err(|_| format!("`{value}` is more than {}\n  {fix}", u32::MAX))
}

/// A flag's value that fails its check, with the message that names the flag.
fn refused(flag: &str, message: String) -> MatrixError {
    MatrixError::Flag {
        flag: flag.to_owned(),
        message,
    }
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
        if value.chars().any(char::is_control) {
            return Err(refused(
                flag,
                format!(
                    "{value:?} holds a control character, which no path or version holds\n  \
                     fix: give the value without it"
                ),
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

/// A list flag's values, `None` when the flag is not given.
fn some<T>(values: Vec<T>) -> Option<Vec<T>> {
    Some(values).filter(|v| !v.is_empty())
}

/// The checked values of the flags given, each axis `None` when its flag is not.
struct Axes {
    gcs: Option<Vec<Gc>>,
    heaps: Option<Vec<HeapSize>>,
    jdks: Option<Vec<String>>,
    rounds: Option<u32>,
    warmup: Option<u32>,
    given: Given,
}

impl Axes {
    /// Checks each flag's values, naming the flag in an error.
    fn check(flags: &Flags<'_>) -> Result<Axes, MatrixError> {
        let gcs = some(checked("--gc", flags.gcs, collector, |g| *g)?);
        let heaps = some(checked("--heap", flags.heaps, HeapSize::parse, |h| {
            h.bytes
        })?);
        let jdks = some(checked("--jdk", flags.jdks, jdk, Clone::clone)?);
        if flags.rounds == Some(0) {
            return Err(refused(
                "--rounds",
                "0 rounds measure nothing\n  fix: give at least 1 (10 gives a stable median)"
                    .to_owned(),
            ));
        }
        Ok(Axes {
            gcs,
            heaps,
            jdks,
            rounds: flags.rounds,
            warmup: flags.warmup,
            given: flags.given(),
        })
    }
}

/// A list of YAML scalars: `[g1, parallel]`.
fn flow_list(items: impl IntoIterator<Item = String>) -> String {
    format!("[{}]", items.into_iter().collect::<Vec<_>>().join(", "))
}

/// The value of `key` of `matrix` as YAML, for a key a flag gives. A JDK is quoted as
/// JSON quotes it, which YAML reads the same, so a path holding `,`, `#` or `: ` stays
/// one value. The collectors and heaps are checked words and need no quotes.
fn yaml_value(matrix: &Matrix, key: &str) -> String {
    match key {
        "gcs" => flow_list(matrix.gcs.iter().map(ToString::to_string)),
        "heaps" => flow_list(matrix.heaps.iter().map(|h| h.text.clone())),
        "jdks" => flow_list(
            matrix
                .jdks
                .iter()
                .flatten()
                .map(|j| serde_json::to_string(j).expect("a string serializes")),
        ),
        "repetitions" => matrix.repetitions.to_string(),
        "warmup" => matrix.warmup.to_string(),
        _ => unreachable!("no flag gives `{key}`"),
    }
}

/// The text of a matrix made from flags alone: the built-in matrix's axes, the flags'
/// in place of its own, under a line that says which flags made it.
fn text_of_flags(matrix: &Matrix) -> String {
    let mut text = format!(
        "# pretouch run {}\n# The built-in quick matrix, with the axes these flags give.\nname: {}\n",
        matrix.given.command_line(),
        matrix.name
    );
    if matrix.jdks.is_some() {
        text += &format!("jdks: {}\n", yaml_value(matrix, "jdks"));
    }
    for key in ["gcs", "heaps", "repetitions", "warmup"] {
        text += &format!("{key}: {}\n", yaml_value(matrix, key));
    }
    text
}

/// A matrix file's text with the keys the flags give replaced, line for line, so every
/// other key keeps its line for messages. A replaced key's first line holds the new
/// value and, in a comment, the flag and the line it replaces. Its other lines become
/// comments. A key the file lacks goes at the end.
fn text_of_file(text: &str, matrix: &Matrix) -> String {
    let mut lines: Vec<String> = text.split_inclusive('\n').map(str::to_owned).collect();
    let mut appended = String::new();
    for (key, flag) in matrix.given.iter() {
        let value = yaml_value(matrix, key);
        let Some(start) = key_line(text, key).map(|l| l - 1) else {
            appended += &format!("{key}: {value} # {flag}\n");
            continue;
        };
        let ending = |line: &str| {
            let body = line.trim_end_matches(['\n', '\r']);
            (body.to_owned(), line[body.len()..].to_owned())
        };
        let (body, end) = ending(&lines[start]);
        lines[start] = format!("{key}: {value} # {flag}, in place of: {body}{end}");
        for line in lines.iter_mut().skip(start + 1) {
            let (body, end) = ending(line);
            let trimmed = body.trim_start();
            let inside = body.starts_with([' ', '\t'])
                || body.starts_with('#')
                || trimmed.is_empty()
                || body == "-"
                || body.starts_with("- ");
            if !inside {
                break;
            }
            if !trimmed.is_empty() && !trimmed.starts_with('#') {
                *line = format!("# {body}{end}");
            }
        }
    }
    let mut out = lines.concat();
    if !appended.is_empty() {
        if !out.is_empty() && !out.ends_with('\n') {
            out.push('\n');
        }
        out += &appended;
    }
    out
}

impl Matrix {
    /// The matrix of a fresh run: the file's, or the built-in matrix without a file,
    /// with each axis that `flags` give in place of its own.
    pub fn of_run(file: Option<&Path>, flags: &Flags<'_>) -> Result<Matrix, MatrixError> {
        if !flags.any() {
            return match file {
                Some(path) => Matrix::from_file(path),
                None => Ok(Matrix::default_matrix()),
            };
        }
        // The flags first, because their check needs no file.
        let axes = Axes::check(flags)?;
        let base = match file {
            Some(path) => Matrix::from_file(path)?,
            None => Matrix::default_matrix(),
        };
        base.with_axes(axes, file.is_none())
    }

    /// The built-in quick matrix with the axes `flags` give.
    pub fn from_flags(flags: &Flags<'_>) -> Result<Matrix, MatrixError> {
        Matrix::default_matrix().with_axes(Axes::check(flags)?, true)
    }

    /// This matrix with the checked axes in place of its own, and its text written to
    /// match. The text is read back and must give the same axes, because a resumed run
    /// and the report read the matrix from it. A layout the replacement cannot follow,
    /// such as a whole matrix written on one line, is refused naming the flags.
    fn with_axes(mut self, axes: Axes, built_in: bool) -> Result<Matrix, MatrixError> {
        if let Some(gcs) = axes.gcs {
            self.gcs = gcs;
        }
        if let Some(heaps) = axes.heaps {
            self.heaps = heaps;
        }
        if let Some(jdks) = axes.jdks {
            self.jdks = Some(jdks);
        }
        if let Some(rounds) = axes.rounds {
            // Fixed rounds in place of an adaptive policy too, as `repetitions: N` is.
            self.repetitions = rounds;
            self.adaptive = None;
        }
        if let Some(warmup) = axes.warmup {
            self.warmup = warmup;
        }
        self.given = axes.given;
        if built_in {
            self.origin = ORIGIN.to_owned();
            self.text = text_of_flags(&self);
        } else {
            self.text = text_of_file(&self.text, &self);
        }
        let unreadable = |why: String| {
            refused(
                &self.given.command_line(),
                format!(
                    "cannot write these values into matrix `{}`: {why}\n  \
                     fix: write each top-level key of the file on a line of its own, or \
                     change the axes in the file",
                    self.origin
                ),
            )
        };
        let again =
            Matrix::parse(&self.origin, &self.text).map_err(|e| unreadable(e.to_string()))?;
        let heap_bytes = |m: &Matrix| m.heaps.iter().map(|h| h.bytes).collect::<Vec<_>>();
        let same = again.gcs == self.gcs
            && heap_bytes(&again) == heap_bytes(&self)
            && again.jdks == self.jdks
            && again.repetitions == self.repetitions
            && again.adaptive == self.adaptive
            && again.warmup == self.warmup;
        if !same {
            return Err(unreadable(
                "its text, read back, gives other axes than the flags".to_owned(),
            ));
        }
        Ok(self)
    }

    /// The matrix a resumed run reads from its result header: the header's text, with
    /// the flags its stored origin names, for messages.
    pub fn from_header(stored_origin: &str, text: &str) -> Result<Matrix, MatrixError> {
        let (file, given) = split_origin(stored_origin);
        let mut matrix = Matrix::parse(file.unwrap_or(ORIGIN), text)?;
        matrix.given = given;
        Ok(matrix)
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

    /// A matrix file in a scratch folder.
    fn file(text: &str) -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.yaml");
        std::fs::write(&path, text).unwrap();
        (dir, path)
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
                "# pretouch run --gc g1,parallel --heap 512m,4g --jdk 25,\"/opt/a jdk, #2: x\" --rounds 10 --warmup 0\n"
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
    fn no_flag_value_adds_a_key_to_the_matrix() {
        // A value holding a line break would be a second line of YAML if the matrix were
        // written as text and read back: it is refused, naming the flag.
        let jdks = strings(&["17\nwarmup: 5"]);
        let e = refusal(&Flags {
            jdks: &jdks,
            ..Flags::default()
        });
        assert!(
            e.starts_with("--jdk: \"17\\nwarmup: 5\" holds a control character"),
            "{e}"
        );
        // Quotes, `#`, `: ` and braces stay inside the one JDK they belong to.
        let jdks = strings(&["/opt/x\", warmup: 5, y: \"", "a: b # c", "{warmup: 9}"]);
        let m = Matrix::from_flags(&Flags {
            jdks: &jdks,
            ..Flags::default()
        })
        .unwrap();
        assert_eq!(m.jdks.as_deref(), Some(&jdks[..]));
        assert_eq!(m.warmup, Matrix::default_matrix().warmup);
        let again = Matrix::from_header(ORIGIN, &m.text).unwrap();
        assert_eq!((again.jdks, again.warmup), (m.jdks.clone(), m.warmup));
    }

    #[test]
    fn flags_beside_a_file_replace_its_axes_and_keep_its_other_lines() {
        let (_dir, path) = file(
            "name: server\n\
             # a comment\n\
             gcs: [g1]\n\
             heaps:\n  - 512m\n  # the larger\n  - 2g\n\
             repetitions: {min: 10, max: 30, ci_pct: 5}\n\
             app:\n  jar: a.jar\n  main: A\n",
        );
        let (heaps, jdks) = (strings(&["256m"]), strings(&["17"]));
        let flags = Flags {
            heaps: &heaps,
            jdks: &jdks,
            rounds: Some(4),
            ..Flags::default()
        };
        let m = Matrix::of_run(Some(&path), &flags).unwrap();
        assert_eq!(m.origin, path.display().to_string());
        assert_eq!(m.heaps.len(), 1);
        assert_eq!(m.heaps[0].bytes, Bytes(256 << 20));
        assert_eq!((m.repetitions, m.adaptive), (4, None));
        assert_eq!(m.jdks, Some(jdks.clone()));
        // The file's other keys stay, the app too.
        assert_eq!(m.gcs, [Gc::G1]);
        assert!(m.app.is_some());
        assert_eq!(
            m.text,
            "name: server\n\
             # a comment\n\
             gcs: [g1]\n\
             heaps: [256m] # --heap 256m, in place of: heaps:\n#   - 512m\n  # the larger\n#   - 2g\n\
             repetitions: 4 # --rounds 4, in place of: repetitions: {min: 10, max: 30, ci_pct: 5}\n\
             app:\n  jar: a.jar\n  main: A\n\
             jdks: [\"17\"] # --jdk 17\n"
        );
        // Every key the flags left keeps its line.
        assert_eq!(key_line(&m.text, "app"), Some(9));
        assert_eq!(
            m.place("app"),
            format!("matrix `{}`, line 9", path.display())
        );
        assert_eq!(m.place("heaps"), "--heap 256m");
        assert_eq!(
            m.stored_origin(),
            format!("{} with --heap 256m --jdk 17 --rounds 4", path.display())
        );
        assert_eq!(
            m.described(),
            format!("`{}` with --heap 256m --jdk 17 --rounds 4", path.display())
        );
        // A resumed run reads the header's text and knows the flags again.
        let again = Matrix::from_header(&m.stored_origin(), &m.text).unwrap();
        assert_eq!(again.origin, m.origin);
        assert_eq!(again.given, m.given);
        assert_eq!(again.place("repetitions"), "--rounds 4");
    }

    #[test]
    fn a_file_the_replacement_cannot_follow_is_refused_naming_the_flags() {
        let (_dir, path) = file("{name: x, gcs: [g1], heaps: [64m], repetitions: 1}\n");
        let heaps = strings(&["128m"]);
        let e = Matrix::of_run(
            Some(&path),
            &Flags {
                heaps: &heaps,
                ..Flags::default()
            },
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.starts_with("--heap 128m: cannot write these values into matrix")
                && e.contains("fix: write each top-level key of the file on a line of its own"),
            "{e}"
        );
    }

    #[test]
    fn without_flags_the_file_or_the_built_in_runs_as_it_is() {
        let none = Flags::default();
        assert_eq!(
            Matrix::of_run(None, &none).unwrap().text,
            Matrix::default_matrix().text
        );
        let gcs = strings(&["g1"]);
        let flags = Flags {
            gcs: &gcs,
            ..Flags::default()
        };
        assert_eq!(Matrix::of_run(None, &flags).unwrap().origin, ORIGIN);
        let e = Matrix::of_run(Some(Path::new("/nonexistent/m.yaml")), &none)
            .unwrap_err()
            .to_string();
        assert!(e.contains("/nonexistent/m.yaml"), "{e}");
        // A bad flag is named before a missing file.
        let bad = strings(&["cms"]);
        let e = Matrix::of_run(
            Some(Path::new("/nonexistent/m.yaml")),
            &Flags {
                gcs: &bad,
                ..Flags::default()
            },
        )
        .unwrap_err()
        .to_string();
        assert!(e.starts_with("--gc: unknown collector `cms`"), "{e}");
    }

    #[test]
    fn a_place_is_the_flag_for_a_matrix_from_flags_and_the_line_for_a_file() {
        let rounds = Flags {
            rounds: Some(4_294_967_295),
            ..Flags::default()
        };
        let m = Matrix::from_flags(&rounds).unwrap();
        assert_eq!(m.place("repetitions"), "--rounds 4294967295");
        // A resumed run from flags alone knows the flag's name.
        let resumed = Matrix::parse(ORIGIN, &m.text).unwrap();
        assert_eq!(resumed.place_at("heaps", Some(5)), "--heap");
        let file = Matrix::parse("m.yaml", &m.text).unwrap();
        assert_eq!(file.place_at("heaps", Some(5)), "matrix `m.yaml`, line 5");
        assert_eq!(file.place_at("gcs", None), "matrix `m.yaml`");
        // A key no flag gives keeps its line, which the text holds.
        assert_eq!(
            resumed.place_at("cpus", Some(3)),
            "matrix `<command line>`, line 3"
        );
    }

    #[test]
    fn a_count_is_a_whole_number_and_a_negative_one_gets_its_own_message() {
        assert_eq!(count("10"), Ok(10));
        assert_eq!(count("4294967295"), Ok(u32::MAX));
        for (value, says) in [
            (
                "-1",
                "`-1` is negative\n  fix: give a whole number of rounds",
            ),
            ("ten", "`ten` is not a whole number"),
            ("", "`` is not a whole number"),
            ("4294967296", "`4294967296` is more than 4294967295"),
        ] {
            let e = count(value).unwrap_err();
            assert!(e.starts_with(says), "{value}: {e}");
        }
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
