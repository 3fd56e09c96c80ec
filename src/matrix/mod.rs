//! Stage 1 of the pipeline: the YAML matrix, parsed and checked before any JVM starts.
//!
//! Values are checked while they are deserialized, so that serde_yaml attaches the line
//! and column of the offending value to every error. The file is read key by key
//! (`keys.rs`), and a key the core does not know is one of the features', read through
//! their list, `features::matrix`.

pub mod app;
pub mod cpuset;
pub mod cpuspec;
pub mod flags;
pub mod keys;
pub mod parts;
pub mod repetitions;
pub mod size;

pub use crate::matrix::size::HeapSize;
pub(crate) mod text;

use std::collections::HashSet;
use std::fmt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Deserializer, Serialize, de};

use crate::matrix::cpuset::CpuSet;
use crate::matrix::text::checked_text;

/// The largest matrix file read, 1 MiB. A matrix of every axis a run can take is a few
/// kilobytes, so a larger file is some other file, and reading it whole would cost
/// its size in memory.
pub const MAX_MATRIX: usize = 1 << 20;

/// The matrix shipped in the binary, run by `pretouch run` without a file.
const DEFAULT_MATRIX: &str = include_str!("../../configs/quick.yaml");

/// The matrix file as the user wrote it.
#[derive(Debug)]
struct RawMatrix {
    name: RunName,
    jdks: Option<NonEmpty<JdkEntry>>,
    gcs: NonEmpty<Gc>,
    heaps: NonEmpty<HeapSize>,
    repetitions: crate::matrix::repetitions::RawRepetitions,
    warmup: u32,
    jvm_args: JvmArgs,
    variants: Option<Variants>,
    /// CPU sets, one more axis; absent: `all`.
    cpus: Option<NonEmpty<CpuSet>>,
    /// `-XX:ParallelGCThreads`, one more axis; absent: `auto` (the JVM's choice).
    gc_threads: Option<NonEmpty<GcThreads>>,
    /// A real application whose `main()` is stamped instead of the built-in one.
    app: Option<crate::matrix::app::RawApp>,
    /// Keep guest memory in the guest for the run (`--comparable-memory`).
    comparable_memory: bool,
    /// The features' keys.
    features: crate::features::matrix::MatrixParts,
}

/// The core's keys of a matrix file, in the order an unknown key's message lists them.
const CORE_KEYS: [&str; 12] = [
    "name",
    "jdks",
    "gcs",
    "heaps",
    "repetitions",
    "warmup",
    "jvm_args",
    "variants",
    "cpus",
    "gc_threads",
    "app",
    "comparable_memory",
];

/// The keys of a matrix file, the core's and the features', in the order an unknown
/// key's message has always listed them: each feature's key after the key it follows.
fn matrix_keys() -> &'static [&'static str] {
    fn push(keys: &mut Vec<&'static str>, key: &'static str) {
        keys.push(key);
        for (after, next) in crate::features::matrix::MatrixParts::KEYS {
            if *after == key {
                push(keys, next);
            }
        }
    }
    static KEYS: std::sync::OnceLock<Vec<&'static str>> = std::sync::OnceLock::new();
    KEYS.get_or_init(|| {
        let mut keys = Vec::new();
        for key in CORE_KEYS {
            push(&mut keys, key);
        }
        keys
    })
}

impl<'de> Deserialize<'de> for RawMatrix {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Fields;
        impl<'de> de::Visitor<'de> for Fields {
            type Value = RawMatrix;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("struct RawMatrix")
            }

            fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<RawMatrix, A::Error> {
                use crate::matrix::keys::{KeySeed, Seen};
                let (mut name, mut jdks, mut gcs, mut heaps, mut repetitions) =
                    (None, None, None, None, None);
                let (mut warmup, mut jvm_args, mut variants) = (0, JvmArgs::default(), None);
                let (mut cpus, mut gc_threads, mut app) = (None, None, None);
                let mut comparable_memory = false;
                let mut features = crate::features::matrix::MatrixParts::default();
                let mut seen = Seen::default();
                while let Some(key) = map.next_key_seed(KeySeed(matrix_keys()))? {
                    seen.first::<A::Error>(key)?;
                    match key {
                        "name" => name = Some(map.next_value()?),
                        "jdks" => jdks = map.next_value()?,
                        "gcs" => gcs = Some(map.next_value()?),
                        "heaps" => heaps = Some(map.next_value()?),
                        "repetitions" => repetitions = Some(map.next_value()?),
                        "warmup" => warmup = map.next_value()?,
                        "jvm_args" => jvm_args = map.next_value()?,
                        "variants" => variants = map.next_value()?,
                        "cpus" => cpus = map.next_value()?,
                        "gc_threads" => gc_threads = map.next_value()?,
                        "app" => app = map.next_value()?,
                        "comparable_memory" => comparable_memory = map.next_value()?,
                        _ => features.read(key, &mut map)?,
                    }
                }
                let missing = de::Error::missing_field;
                Ok(RawMatrix {
                    name: name.ok_or_else(|| missing("name"))?,
                    jdks,
                    gcs: gcs.ok_or_else(|| missing("gcs"))?,
                    heaps: heaps.ok_or_else(|| missing("heaps"))?,
                    repetitions: repetitions.ok_or_else(|| missing("repetitions"))?,
                    warmup,
                    jvm_args,
                    variants,
                    cpus,
                    gc_threads,
                    app,
                    comparable_memory,
                    features,
                })
            }
        }
        d.deserialize_struct("RawMatrix", matrix_keys(), Fields)
    }
}

/// A checked matrix: every axis non-empty, every value valid.
#[derive(Debug, Clone)]
pub struct Matrix {
    /// Where the matrix came from, for messages and the result header.
    pub origin: String,
    /// The YAML text as given, stored verbatim in the result header.
    pub text: String,
    pub name: String,
    /// JDKs as written; `None` means "JAVA_HOME, then java on PATH".
    pub jdks: Option<Vec<String>>,
    pub gcs: Vec<Gc>,
    pub heaps: Vec<HeapSize>,
    pub repetitions: u32,
    pub warmup: u32,
    pub jvm_args: Vec<String>,
    pub variants: Vec<Variant>,
    /// The `cpus:` axis; `[all]` when absent.
    pub cpus: Vec<CpuSet>,
    /// The `gc_threads:` axis; `[auto]` when absent.
    pub gc_threads: Vec<GcThreads>,
    /// The application to stamp, paths as written; `None`: the built-in main class.
    pub app: Option<crate::matrix::app::AppSpec>,
    /// `repetitions: {min, max, ci_pct}`; then `repetitions` above is `min`.
    pub adaptive: Option<crate::matrix::repetitions::Adaptive>,
    /// The features' keys, such as the kernels each booted in a VM.
    pub features: crate::features::matrix::MatrixParts,
    /// `comparable_memory: true`: every launch starts from the same guest-memory state
    /// (see `machine/guest_memory.rs`); the same as `pretouch run --comparable-memory`.
    pub comparable_memory: bool,
    /// The axes that flags of `pretouch run` gave in place of the file's, so messages
    /// name the flag and the result header names the flags.
    pub given: Given,
}

/// The axes of a run that flags of `pretouch run` gave, each as the flag and its value
/// as typed: `--heap 256m`. Empty for a matrix file or the built-in matrix run as they
/// are. The flags themselves are read in `flags.rs`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Given(Vec<(&'static str, String)>);

impl Given {
    /// The flag and value that gave `key`, such as `--rounds 4294967295`.
    pub fn of(&self, key: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| v.as_str())
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The flags as one would type them again: `--heap 256m --rounds 5`.
    pub fn command_line(&self) -> String {
        let all: Vec<&str> = self.0.iter().map(|(_, v)| v.as_str()).collect();
        all.join(" ")
    }

    /// Each key a flag gave, with the flag and its value.
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, &str)> {
        self.0.iter().map(|(k, v)| (*k, v.as_str()))
    }

    /// Adds `key`, given by `flag_and_value`.
    pub(crate) fn push(&mut self, key: &'static str, flag_and_value: String) {
        self.0.push((key, flag_and_value));
    }
}

#[derive(Debug, thiserror::Error)]
pub enum MatrixError {
    #[error("cannot read matrix `{}`: {denied}\n  fix: {}", path.display(), denied.fix())]
    Denied {
        path: PathBuf,
        denied: Box<crate::access::Denied>,
    },
    #[error("cannot read matrix `{path}`")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("matrix `{origin}`{}: {message}", location(*.line, *.column))]
    Invalid {
        origin: String,
        line: Option<usize>,
        column: Option<usize>,
        message: String,
    },
    #[error(
        "matrix `{}` is {kind}, not a regular file\n  fix: name the matrix's YAML file",
        path.display()
    )]
    NotRegular { path: PathBuf, kind: &'static str },
    #[error(
        "matrix `{}` is larger than 1 MiB, so it is no matrix\n  fix: name the matrix's YAML file",
        path.display()
    )]
    TooLarge { path: PathBuf },
    /// A value of a matrix flag of `pretouch run`, named by its flag (`--heap`) or by
    /// the flag and its value (`--rounds 4294967295`).
    #[error("{flag}: {message}")]
    Flag { flag: String, message: String },
}

/// The deepest a matrix may nest its lists and maps. The YAML parser takes time that
/// grows with the square of the depth, so a file of 100,000 nested `[` took half a
/// minute to refuse. A matrix nests four levels at most, so the bound costs nothing.
const MAX_DEPTH: usize = 32;

/// The line where `text` first nests its lists and maps deeper than [`MAX_DEPTH`], in
/// flow style (`[`, `{`) and block style (indentation and `- `) together. Brackets
/// inside quotes and comments do not count. It reads the text once, so it answers at
/// once whatever the depth, and it is generous where it cannot tell, because the YAML
/// parser judges the rest.
fn nested_too_deep(text: &str) -> Option<usize> {
    // The columns of the block levels open, each deeper than the one before.
    let mut blocks: Vec<usize> = Vec::new();
    let mut flow = 0usize;
    for (i, line) in text.lines().enumerate() {
        let indent = line.len() - line.trim_start_matches(' ').len();
        let mut rest = &line[indent..];
        if flow == 0 && !rest.is_empty() && !rest.starts_with('#') {
            while blocks.last().is_some_and(|&open| open >= indent) {
                blocks.pop();
            }
            blocks.push(indent);
            // Each `- ` opens a sequence inside the one before, on the same line.
            let mut column = indent;
            while let Some(after) = rest.strip_prefix("- ").or(rest.strip_prefix("-\t")) {
                let spaces = after.len() - after.trim_start().len();
                column += 2 + spaces;
                blocks.push(column);
                rest = after.trim_start();
            }
        }
        match flow_depth(rest, flow, MAX_DEPTH.saturating_sub(blocks.len())) {
            Some(depth) => flow = depth,
            None => return Some(i + 1),
        }
        if blocks.len() + flow > MAX_DEPTH {
            return Some(i + 1);
        }
    }
    None
}

/// The flow lists and maps open after `line`, when `open` were open before it, or
/// `None` when more than `most` are open on the way. A quote opens a quoted value only
/// where a value can start, so that the `'` of `don't` is read as a letter.
fn flow_depth(line: &str, open: usize, most: usize) -> Option<usize> {
    let mut depth = open;
    let mut quote: Option<char> = None;
    let mut previous = ' ';
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match quote {
            Some('"') if c == '\\' => {
                chars.next();
            }
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None => match c {
                '#' if previous.is_whitespace() => break,
                '\'' | '"' if matches!(previous, ' ' | '\t' | '[' | '{' | ',' | ':') => {
                    quote = Some(c)
                }
                '[' | '{' => depth += 1,
                ']' | '}' => depth = depth.saturating_sub(1),
                _ => {}
            },
        }
        previous = c;
        if depth > most {
            return None;
        }
    }
    Some(depth)
}

fn location(line: Option<usize>, column: Option<usize>) -> String {
    match (line, column) {
        (Some(l), Some(c)) => format!(", line {l}, column {c}"),
        (Some(l), None) => format!(", line {l}"),
        _ => String::new(),
    }
}

impl Matrix {
    /// Reads and checks the matrix file `path`. Only a regular file of at most
    /// [`MAX_MATRIX`] bytes is read, because a FIFO would block the run before it starts
    /// and a device such as `/dev/zero` never ends.
    pub fn from_file(path: &Path) -> Result<Matrix, MatrixError> {
        use std::io::Read as _;
        let read_err = |source: std::io::Error| match crate::access::denied(
            path,
            &source,
            crate::access::Need::Read,
        ) {
            Some(denied) => MatrixError::Denied {
                path: path.to_owned(),
                denied,
            },
            None => MatrixError::Read {
                path: path.to_owned(),
                source,
            },
        };
        let file = crate::access::open_regular(path)
            .map_err(read_err)?
            .map_err(|kind| MatrixError::NotRegular {
                path: path.to_owned(),
                kind,
            })?;
        let mut bytes = Vec::new();
        file.take(MAX_MATRIX as u64 + 1)
            .read_to_end(&mut bytes)
            .map_err(read_err)?;
        if bytes.len() > MAX_MATRIX {
            return Err(MatrixError::TooLarge {
                path: path.to_owned(),
            });
        }
        let text = String::from_utf8(bytes)
            .map_err(|e| read_err(std::io::Error::new(std::io::ErrorKind::InvalidData, e)))?;
        Matrix::parse(&path.display().to_string(), &text)
    }

    /// The largest heap of the matrix (zero for none): what the memory checks, the VM's
    /// memory and `--comparable-memory` are sized by.
    pub fn largest_heap(&self) -> crate::units::Bytes {
        self.heaps
            .iter()
            .map(|h| h.bytes)
            .max()
            .unwrap_or(crate::units::Bytes(0))
    }

    pub fn default_matrix() -> Matrix {
        Matrix::parse("<built-in quick matrix>", DEFAULT_MATRIX)
            .expect("the built-in matrix is valid (checked by a unit test)")
    }

    /// Parses and checks a matrix; `origin` names it in error messages.
    pub fn parse(origin: &str, text: &str) -> Result<Matrix, MatrixError> {
        if let Some(line) = nested_too_deep(text) {
            return Err(MatrixError::Invalid {
                origin: origin.to_owned(),
                line: Some(line),
                column: None,
                message: format!(
                    "it nests deeper than {MAX_DEPTH} levels, and a matrix needs four at most\n  fix: write each axis as a list of values, as docs/matrix.md shows"
                ),
            });
        }
        let raw: RawMatrix = serde_yaml::from_str(text).map_err(|e| {
            let loc = e.location();
            MatrixError::Invalid {
                origin: origin.to_owned(),
                line: loc.as_ref().map(|l| l.line()),
                column: loc.as_ref().map(|l| l.column()),
                message: with_fix(strip_location(&e.to_string())),
            }
        })?;
        let invalid = |line: Option<usize>, message: String| MatrixError::Invalid {
            origin: origin.to_owned(),
            line,
            column: None,
            message,
        };
        if let Some((line, message)) = gc_threads_set_twice(&raw, text) {
            return Err(invalid(line, message));
        }
        if let Some((line, message)) = value_twice(&raw, text) {
            return Err(invalid(line, message));
        }
        Ok(Matrix::from_raw(origin, text, raw))
    }

    /// The matrix of a parsed and checked `raw`, its absent keys given their defaults.
    fn from_raw(origin: &str, text: &str, raw: RawMatrix) -> Matrix {
        let (repetitions, adaptive) = raw.repetitions.into_parts();
        Matrix {
            origin: origin.to_owned(),
            text: text.to_owned(),
            name: raw.name.0,
            jdks: raw.jdks.map(|j| j.0.into_iter().map(|e| e.0).collect()),
            gcs: raw.gcs.0,
            heaps: raw.heaps.0,
            repetitions,
            adaptive,
            cpus: raw.cpus.map_or_else(|| vec![CpuSet::All], |c| c.0),
            gc_threads: raw
                .gc_threads
                .map_or_else(|| vec![GcThreads::Auto], |g| g.0),
            app: raw.app.map(|a| a.0),
            comparable_memory: raw.comparable_memory,
            given: Given::default(),
            features: raw.features,
            warmup: raw.warmup,
            jvm_args: raw.jvm_args.0,
            variants: raw.variants.map(|v| v.0).unwrap_or_else(|| {
                vec![Variant {
                    name: "default".to_owned(),
                    jvm_args: Vec::new(),
                }]
            }),
        }
    }
}

/// With `gc_threads:`, a `-XX:ParallelGCThreads` in `jvm_args` (the matrix's or a
/// variant's), as the line it is on and the message.
fn gc_threads_set_twice(raw: &RawMatrix, text: &str) -> Option<(Option<usize>, String)> {
    raw.gc_threads.as_ref()?;
    let all_args = raw.jvm_args.0.iter().chain(
        raw.variants
            .iter()
            .flat_map(|v| v.0.iter().flat_map(|v| v.jvm_args.iter())),
    );
    let arg = all_args
        .into_iter()
        .find(|a| a.starts_with("-XX:ParallelGCThreads"))?;
    Some((
        line_of(text, arg),
        format!("jvm_args must not contain {arg:?}, because `gc_threads` sets it. Remove it here."),
    ))
}

/// An axis of the matrix as the repeat check sees it: each value as it compares (the
/// same however written) and as it was written.
struct AxisValues {
    key: &'static str,
    same: Vec<String>,
    shown: Vec<String>,
}

/// The axes whose values must differ: `gcs`, `heaps`, and `cpus` and `gc_threads` when
/// given.
fn axis_values(raw: &RawMatrix) -> Vec<AxisValues> {
    let mut axes = vec![
        AxisValues {
            key: "gcs",
            same: raw.gcs.0.iter().map(|g| format!("{g:?}")).collect(),
            shown: raw.gcs.0.iter().map(ToString::to_string).collect(),
        },
        AxisValues {
            key: "heaps",
            same: raw.heaps.0.iter().map(|h| h.bytes.0.to_string()).collect(),
            shown: raw.heaps.0.iter().map(|h| h.text.clone()).collect(),
        },
    ];
    if let Some(c) = &raw.cpus {
        // The same CPUs however written; a topology spec is resolved later, by its text.
        let same: Vec<String> =
            c.0.iter()
                .map(|c| match c {
                    CpuSet::All => "all".to_owned(),
                    CpuSet::List { cpus, .. } => format!("{cpus:?}"),
                    CpuSet::Spec { text, .. } => text.clone(),
                })
                .collect();
        axes.push(AxisValues {
            key: "cpus",
            same,
            shown: c.0.iter().map(ToString::to_string).collect(),
        });
    }
    if let Some(g) = &raw.gc_threads {
        axes.push(AxisValues {
            key: "gc_threads",
            same: g.0.iter().map(|g| format!("{g:?}")).collect(),
            shown: g.0.iter().map(ToString::to_string).collect(),
        });
    }
    axes
}

/// The first value an axis lists twice (`64m` and `64M` too), which would run the same
/// cell twice, as the line of its second item and the message.
fn value_twice(raw: &RawMatrix, text: &str) -> Option<(Option<usize>, String)> {
    axis_values(raw).iter().find_map(|axis| {
        let AxisValues { key, same, shown } = axis;
        let (first, again) = repeated(same)?;
        let lines = item_lines(text, key);
        let line = |i: usize| lines.get(i).copied().or_else(|| key_line(text, key));
        let at = |i: usize| line(i).map_or_else(String::new, |l| format!(" (line {l})"));
        let what = if shown[first] == shown[again] {
            format!("`{}` is listed twice", shown[again])
        } else {
            format!("`{}` is `{}` again", shown[again], shown[first])
        };
        Some((
            line(again),
            format!(
                "{key}: {what}: first at item {}{}, again at item {}{}; the same cell \
                 would run twice\n  fix: list each value once",
                first + 1,
                at(first),
                again + 1,
                at(again)
            ),
        ))
    })
}

/// Adds the fix to serde's and the YAML scanner's messages (the matrix's own checks
/// say theirs).
fn with_fix(message: String) -> String {
    let fix = if message.contains("unknown field") {
        "correct the key's spelling (the expected keys are listed), or remove it"
    } else if message.contains("unknown variant") {
        "use one of the expected values listed"
    } else if message.contains("invalid type") {
        "write the value as the expected type"
    } else if message.contains("missing field") {
        "add the key (docs/matrix.md lists every key of a matrix)"
    } else if [
        "while scanning",
        "while parsing",
        "did not find expected",
        "found ",
        "mapping values",
    ]
    .iter()
    .any(|p| message.contains(p))
    {
        "correct the YAML syntax there: indent with spaces, quote values holding `: ` or ` #`"
    } else {
        return message;
    };
    format!("{message}\n  fix: {fix}")
}

/// The first pair of equal values, as (first index, second index).
fn repeated(values: &[String]) -> Option<(usize, usize)> {
    values.iter().enumerate().find_map(|(i, v)| {
        values[..i]
            .iter()
            .position(|w| w == v)
            .map(|first| (first, i))
    })
}

/// The line of a top-level `key:`.
pub(crate) fn key_line(text: &str, key: &str) -> Option<usize> {
    let prefix = format!("{key}:");
    text.lines()
        .position(|l| l.starts_with(&prefix))
        .map(|i| i + 1)
}

/// The line of each item of the top-level list `key:`, in order: a flow list
/// (`[a, b]`, over one line or more) or a block list (`- a` lines). Scalars only, as the
/// axes are; quoted items may hold commas. Empty when the list is not found as expected.
fn item_lines(text: &str, key: &str) -> Vec<usize> {
    let Some(start) = key_line(text, key) else {
        return Vec::new();
    };
    let lines: Vec<&str> = text.lines().collect();
    let rest = lines[start - 1][key.len() + 1..].trim_start();
    let mut items = Vec::new();
    if rest.starts_with('[') {
        let (mut quote, mut expect_item) = (None, true);
        let mut first = true;
        for (n, line) in lines.iter().enumerate().skip(start - 1) {
            let body = if first { rest } else { line };
            first = false;
            for c in body.chars() {
                match (quote, c) {
                    (Some(q), c) if c == q => quote = None,
                    (Some(_), _) => {}
                    (None, '[') => expect_item = true,
                    (None, ']') => return items,
                    (None, ',') => expect_item = true,
                    (None, '#') => break,
                    (None, c) if c.is_whitespace() => {}
                    (None, c) => {
                        if expect_item {
                            items.push(n + 1);
                            expect_item = false;
                        }
                        if c == '"' || c == '\'' {
                            quote = Some(c);
                        }
                    }
                }
            }
        }
        return Vec::new();
    }
    for (n, line) in lines.iter().enumerate().skip(start) {
        let trimmed = line.trim_start();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        if trimmed.starts_with("- ") || trimmed == "-" {
            items.push(n + 1);
        } else if !line.starts_with(char::is_whitespace) {
            break;
        }
    }
    items
}

/// The line a value is written on, for errors found after parsing.
fn line_of(text: &str, value: &str) -> Option<usize> {
    text.lines().position(|l| l.contains(value)).map(|i| i + 1)
}

/// A `jdks:` entry: a path, `auto`, or a feature version written as a number (`17`).
#[derive(Debug)]
struct JdkEntry(String);

impl<'de> Deserialize<'de> for JdkEntry {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        checked_text(d, |s: String| {
            if s.is_empty() {
                Err("empty JDK: give a path, a feature version like 17, or `auto`".to_owned())
            } else {
                Ok(s)
            }
        })
        .map(JdkEntry)
    }
}

/// `-XX:ParallelGCThreads`: a count, or `auto` for the JVM's own choice (from the CPUs
/// it may run on). Pretouch runs on the GC worker threads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GcThreads {
    Auto,
    Count(u32),
}

/// The name a cell without a `gc_threads:` axis has, in records and reports.
pub const GC_THREADS_AUTO: &str = "auto";

impl GcThreads {
    /// The flag this setting adds, if any.
    pub fn flag(self) -> Option<String> {
        match self {
            GcThreads::Auto => None,
            GcThreads::Count(n) => Some(format!("-XX:ParallelGCThreads={n}")),
        }
    }
}

impl fmt::Display for GcThreads {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GcThreads::Auto => f.write_str(GC_THREADS_AUTO),
            GcThreads::Count(n) => write!(f, "{n}"),
        }
    }
}

impl<'de> Deserialize<'de> for GcThreads {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        fn parse(s: &str) -> Result<GcThreads, String> {
            if s == GC_THREADS_AUTO {
                return Ok(GcThreads::Auto);
            }
            match s.parse::<u32>() {
                Ok(n) if n >= 1 => Ok(GcThreads::Count(n)),
                _ => Err(format!(
                    "invalid gc_threads {s:?}: write a count of at least 1, or `auto`"
                )),
            }
        }
        checked_text(d, |s: String| parse(&s).map(|_| s)).map(|s| parse(&s).expect("checked above"))
    }
}

impl<'de> Deserialize<'de> for CpuSet {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        checked_text(d, |s: String| {
            CpuSet::parse(&s)?;
            Ok(s)
        })
        .map(|s| CpuSet::parse(&s).expect("checked above"))
    }
}

/// serde_yaml appends " at line L column C"; the location is already in our own prefix.
fn strip_location(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) if message[i..].contains(" column ") => message[..i].to_owned(),
        _ => message.to_owned(),
    }
}

/// A list that must hold at least one element.
#[derive(Debug)]
struct NonEmpty<T>(Vec<T>);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for NonEmpty<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        checked_seq(d, |_| Ok(())).map(NonEmpty)
    }
}

/// Deserializes a non-empty list and runs `check` on it *inside* the visitor: serde_yaml
/// attaches the list's line and column only to errors raised there.
fn checked_seq<'de, D, T>(d: D, check: fn(&[T]) -> Result<(), String>) -> Result<Vec<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    struct SeqVisitor<T>(fn(&[T]) -> Result<(), String>);

    impl<'de, T: Deserialize<'de>> de::Visitor<'de> for SeqVisitor<T> {
        type Value = Vec<T>;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a list, like [a, b]")
        }

        fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<T>, A::Error> {
            let mut items = Vec::new();
            while let Some(item) = seq.next_element()? {
                items.push(item);
            }
            if items.is_empty() {
                return Err(de::Error::custom(
                    "empty list: give at least one value, or remove the key where it is optional",
                ));
            }
            (self.0)(&items).map_err(de::Error::custom)?;
            Ok(items)
        }
    }

    d.deserialize_seq(SeqVisitor(check))
}

/// Deserializes a scalar of type `T` and checks it inside the visitor (see [`checked_seq`]).
fn checked_scalar<'de, D, T>(d: D, check: fn(T) -> Result<T, String>) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    use serde::de::IntoDeserializer;
    use serde::de::value::{StrDeserializer, U64Deserializer};

    struct ScalarVisitor<T>(fn(T) -> Result<T, String>);

    impl<'de, T: Deserialize<'de>> de::Visitor<'de> for ScalarVisitor<T> {
        type Value = T;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a single value")
        }

        fn visit_u64<E: de::Error>(self, v: u64) -> Result<T, E> {
            let de: U64Deserializer<E> = v.into_deserializer();
            (self.0)(T::deserialize(de)?).map_err(E::custom)
        }

        fn visit_i64<E: de::Error>(self, v: i64) -> Result<T, E> {
            match u64::try_from(v) {
                Ok(v) => self.visit_u64(v),
                Err(_) => Err(E::custom(format!(
                    "invalid value {v}: must not be negative"
                ))),
            }
        }

        fn visit_str<E: de::Error>(self, v: &str) -> Result<T, E> {
            let de: StrDeserializer<E> = v.into_deserializer();
            (self.0)(T::deserialize(de)?).map_err(E::custom)
        }
    }

    d.deserialize_any(ScalarVisitor(check))
}

#[derive(Debug)]
struct RunName(String);

impl<'de> Deserialize<'de> for RunName {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        checked_scalar(d, |s: String| {
            let ok = !s.is_empty()
                && s.chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
                && !s.starts_with('.');
            if ok {
                Ok(s)
            } else {
                Err(format!(
                    "invalid name {s:?}: it names the result file, so use letters, digits, `-`, `_` or `.`"
                ))
            }
        })
        .map(RunName)
    }
}

/// A garbage collector the matrix can select (`gcs:`). Which of them a JDK has is asked
/// of that JDK before the first launch ([`crate::machine::collectors`]).
///
/// `zgc` is ZGC as the JDK runs it by default: non-generational on JDK 11-20 and on 21
/// and 22, generational on 23 and later. `zgc-generational` and `zgc-nongenerational`
/// pick a mode with `-XX:+/-ZGenerational`; they exist only on the JDKs that have both
/// modes (21, 22, 23), where `zgc` is also one of them under its other name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Gc {
    G1,
    Parallel,
    Serial,
    Zgc,
    ZgcGenerational,
    ZgcNongenerational,
    Shenandoah,
    Epsilon,
}

impl Gc {
    /// Every value, in the order `gcs:` lists them in messages.
    pub const ALL: [Gc; 8] = [
        Gc::G1,
        Gc::Parallel,
        Gc::Serial,
        Gc::Zgc,
        Gc::ZgcGenerational,
        Gc::ZgcNongenerational,
        Gc::Shenandoah,
        Gc::Epsilon,
    ];

    /// The HotSpot flag that selects this collector (`UseZGC` for every ZGC value).
    pub fn use_flag(self) -> &'static str {
        match self {
            Gc::G1 => "UseG1GC",
            Gc::Parallel => "UseParallelGC",
            Gc::Serial => "UseSerialGC",
            Gc::Zgc | Gc::ZgcGenerational | Gc::ZgcNongenerational => "UseZGC",
            Gc::Shenandoah => "UseShenandoahGC",
            Gc::Epsilon => "UseEpsilonGC",
        }
    }

    /// The JVM flags that select this collector. `experimental`: the JDK declares its
    /// selection flag experimental (ZGC and Shenandoah on JDK 11, Epsilon everywhere), so
    /// `-XX:+UnlockExperimentalVMOptions` comes first.
    pub fn flags(self, experimental: bool) -> Vec<String> {
        let mut flags = Vec::new();
        if experimental || self == Gc::Epsilon {
            flags.push("-XX:+UnlockExperimentalVMOptions".to_owned());
        }
        flags.push(format!("-XX:+{}", self.use_flag()));
        match self {
            Gc::ZgcGenerational => flags.push("-XX:+ZGenerational".to_owned()),
            Gc::ZgcNongenerational => flags.push("-XX:-ZGenerational".to_owned()),
            _ => {}
        }
        flags
    }

    /// ZGC in any of its modes: its heap is shared memory (a memfd), not anonymous.
    pub fn is_zgc(self) -> bool {
        matches!(self, Gc::Zgc | Gc::ZgcGenerational | Gc::ZgcNongenerational)
    }
}

impl fmt::Display for Gc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Gc::G1 => "g1",
            Gc::Parallel => "parallel",
            Gc::Serial => "serial",
            Gc::Zgc => "zgc",
            Gc::ZgcGenerational => "zgc-generational",
            Gc::ZgcNongenerational => "zgc-nongenerational",
            Gc::Shenandoah => "shenandoah",
            Gc::Epsilon => "epsilon",
        })
    }
}

/// A named set of extra JVM flags: one more axis of the matrix.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Variant {
    pub name: String,
    #[serde(default)]
    pub jvm_args: Vec<String>,
}

#[derive(Debug)]
struct Variants(Vec<Variant>);

impl<'de> Deserialize<'de> for Variants {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        checked_seq(d, |variants: &[Variant]| {
            let mut seen = HashSet::new();
            for v in variants {
                if v.name.is_empty() || v.name.chars().any(|c| c.is_whitespace() || c == ',') {
                    return Err(format!(
                        "invalid variant name {:?}: use a short name without spaces or commas",
                        v.name
                    ));
                }
                if !seen.insert(v.name.as_str()) {
                    return Err(format!(
                        "duplicate variant name {:?}: each variant needs its own name",
                        v.name
                    ));
                }
                check_jvm_args(&v.jvm_args)?;
            }
            Ok(())
        })
        .map(Variants)
    }
}

#[derive(Debug, Default)]
struct JvmArgs(Vec<String>);

impl<'de> Deserialize<'de> for JvmArgs {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        // An empty list is fine here: it is the default.
        struct Visitor;
        impl<'de> de::Visitor<'de> for Visitor {
            type Value = Vec<String>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a list of JVM flags, like [-XX:+UseNUMA]")
            }
            fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<String>, A::Error> {
                let mut args = Vec::new();
                while let Some(arg) = seq.next_element()? {
                    args.push(arg);
                }
                check_jvm_args(&args).map_err(de::Error::custom)?;
                Ok(args)
            }
        }
        d.deserialize_seq(Visitor).map(JvmArgs)
    }
}

/// The `gcs:` value a collector-selection flag in `jvm_args` stands for, if it is one.
fn gc_selected_by(arg: &str) -> Option<&'static str> {
    Some(match arg {
        "-XX:+UseG1GC" => "g1",
        "-XX:+UseParallelGC" | "-XX:+UseParallelOldGC" => "parallel",
        "-XX:+UseSerialGC" => "serial",
        "-XX:+UseZGC" => "zgc",
        "-XX:+ZGenerational" => "zgc-generational",
        "-XX:-ZGenerational" => "zgc-nongenerational",
        "-XX:+UseShenandoahGC" => "shenandoah",
        "-XX:+UseEpsilonGC" => "epsilon",
        _ => return None,
    })
}

/// Flags the runner sets itself: a user's copy would silently override the matrix.
fn check_jvm_args(args: &[String]) -> Result<(), String> {
    for arg in args {
        let owned_by = if arg.starts_with("-Xms")
            || arg.starts_with("-Xmx")
            || arg.starts_with("-XX:InitialHeapSize")
            || arg.starts_with("-XX:MaxHeapSize")
        {
            Some("`heaps`")
        } else if arg.ends_with("AlwaysPreTouch") && arg.starts_with("-XX:") {
            Some("the runner, which runs every cell with and without it,")
        } else if let Some(gc) = gc_selected_by(arg) {
            return Err(format!(
                "jvm_args must not contain {arg:?}, because `gcs` sets the collector. \
                 Remove it here and list `{gc}` in `gcs:`."
            ));
        } else if arg.starts_with("-agentpath:") && arg.contains("pretouch_agent") {
            Some("the runner")
        } else {
            None
        };
        if let Some(owner) = owned_by {
            return Err(format!(
                "jvm_args must not contain {arg:?}, because {owner} sets it. Remove it here."
            ));
        }
        if arg.is_empty() {
            return Err("jvm_args holds an empty string. Remove it.".to_owned());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::Bytes;

    /// The matrix file as serde's derived code read it before the features' keys moved
    /// into the features' list. The keys that features added since are not in it.
    mod derived {
        use super::super::*;
        #[derive(Debug, Deserialize)]
        #[serde(deny_unknown_fields)]
        #[allow(dead_code)]
        pub struct RawMatrix {
            name: RunName,
            #[serde(default)]
            jdks: Option<NonEmpty<JdkEntry>>,
            gcs: NonEmpty<Gc>,
            heaps: NonEmpty<HeapSize>,
            repetitions: crate::matrix::repetitions::RawRepetitions,
            #[serde(default)]
            warmup: u32,
            #[serde(default)]
            jvm_args: JvmArgs,
            #[serde(default)]
            variants: Option<Variants>,
            #[serde(default)]
            cpus: Option<NonEmpty<CpuSet>>,
            #[serde(default)]
            gc_threads: Option<NonEmpty<GcThreads>>,
            #[serde(default)]
            app: Option<crate::matrix::app::RawApp>,
            #[serde(default)]
            profile: bool,
            #[serde(default)]
            probe: bool,
            #[serde(default)]
            pub kernels: Option<crate::features::kernels::matrix::RawKernels>,
            #[serde(default)]
            comparable_memory: bool,
            #[serde(default)]
            pub settings: Option<crate::features::settings::matrix::Settings>,
            #[serde(default)]
            pub memory: Option<crate::features::cgroup::matrix::Limits>,
        }
    }

    /// A message without the keys it lists after "expected one of", and those keys.
    fn split_expected(message: String) -> (String, Vec<String>) {
        let Some(at) = message.find("expected one of ") else {
            return (message, Vec::new());
        };
        let (head, mut rest) = message.split_at(at + "expected one of ".len());
        let mut keys = Vec::new();
        while let Some(quoted) = rest.strip_prefix('`')
            && let Some(end) = quoted.find('`')
        {
            keys.push(quoted[..end].to_owned());
            rest = &quoted[end + 1..];
            rest = rest.strip_prefix(", ").unwrap_or(rest);
        }
        (format!("{head}{rest}"), keys)
    }

    #[test]
    fn a_message_splits_from_its_expected_keys() {
        let (text, keys) =
            split_expected("unknown field `x`, expected one of `a`, `b` at line 2".to_owned());
        assert_eq!(text, "unknown field `x`, expected one of  at line 2");
        assert_eq!(keys, ["a", "b"]);
        let plain = "missing field `name`".to_owned();
        assert_eq!(split_expected(plain.clone()), (plain, Vec::new()));
    }

    #[test]
    fn matrix_errors_are_the_derived_codes_word_for_word() {
        let head = "name: x\ngcs: [g1]\nheaps: [64m]\nrepetitions: 1\n";
        let wrong = [
            format!("{head}kernls: [a]\n"),
            format!("{head}setings: []\n"),
            format!("{head}memory: [1g]\nmemroy: [2g]\n"),
            format!("{head}name: y\n"),
            format!("{head}settings: [{{name: a}}]\nsettings: [{{name: b}}]\n"),
            format!("{head}memory: [1g]\nmemory: [2g]\n"),
            format!("{head}kernels: [a]\nkernels: [b]\n"),
            format!("{head}settings: {{name: a}}\n"),
            format!("{head}settings: [{{name: a, sysfs: {{nope: 1}}}}]\n"),
            format!("{head}memory: [lots]\n"),
            format!("{head}memory: 1g\n"),
            format!("{head}kernels: 3\n"),
            format!("{head}kernels: []\n"),
            format!("{head}warmup: ~\n"),
            format!("{head}probe: maybe\n"),
            format!("{head}app: {{jar: a.jar, mian: X}}\n"),
            "gcs: [g1]\nheaps: [64m]\nrepetitions: 1\n".to_owned(),
            "name: x\nheaps: [64m]\nrepetitions: 1\n".to_owned(),
            "name: x\ngcs: [g1]\nrepetitions: 1\n".to_owned(),
            "name: x\ngcs: [g1]\nheaps: [64m]\n".to_owned(),
            "name: x\nrepetitions: 1\n".to_owned(),
            "[a, b]\n".to_owned(),
            "just text\n".to_owned(),
            "1: x\n".to_owned(),
            "[k]: x\n".to_owned(),
        ];
        for text in wrong {
            let now = serde_yaml::from_str::<RawMatrix>(&text)
                .map(|_| ())
                .map_err(|e| e.to_string());
            let then = serde_yaml::from_str::<derived::RawMatrix>(&text)
                .map(|_| ())
                .map_err(|e| e.to_string());
            assert!(then.is_err(), "{text}");
            let (now, now_keys) = split_expected(now.unwrap_err());
            let (then, then_keys) = split_expected(then.unwrap_err());
            assert_eq!(now, then, "{text}");
            // A feature's key that joined after the copy was made may stand in the list
            // of keys, and the copy's keys keep their order around it.
            let kept: Vec<&String> = now_keys.iter().filter(|k| then_keys.contains(k)).collect();
            assert_eq!(kept, then_keys.iter().collect::<Vec<_>>(), "{text}");
        }
        // A matrix with every key reads the same as well.
        let every = format!(
            "{head}settings: [{{name: a}}]\nmemory: [1g]\nkernels: [{{image: a}}]\nprofile: true\n\
             probe: true\ncomparable_memory: true\n"
        );
        let now = serde_yaml::from_str::<RawMatrix>(&every).unwrap();
        let then = serde_yaml::from_str::<derived::RawMatrix>(&every).unwrap();
        assert_eq!(
            format!("{:?}", now.features.settings),
            format!("{:?}", then.settings.unwrap().0)
        );
        assert_eq!(
            format!("{:?}", now.features.kernels),
            format!("{:?}", then.kernels.unwrap().0)
        );
        assert_eq!(now.features.memory, then.memory.unwrap().0);
        assert_eq!((now.features.profile, now.features.probe), (true, true));
    }

    const GOOD: &str = "\
name: quick
jdks: [/usr/lib/jvm/java-17-openjdk-amd64]
gcs: [g1, parallel]
heaps: [256m, 1g]
repetitions: 10
warmup: 1
jvm_args: [-Xlog:disable]
variants:
  - name: thp
    jvm_args: [-XX:+UseTransparentHugePages]
";

    fn err(text: &str) -> String {
        Matrix::parse("m.yaml", text).unwrap_err().to_string()
    }

    #[test]
    fn parses_every_key() {
        let m = Matrix::parse("m.yaml", GOOD).unwrap();
        assert_eq!(m.name, "quick");
        assert_eq!(
            m.jdks.as_deref(),
            Some(&["/usr/lib/jvm/java-17-openjdk-amd64".to_owned()][..])
        );
        assert_eq!(m.gcs, [Gc::G1, Gc::Parallel]);
        assert_eq!(m.heaps[0].bytes, Bytes(256 << 20));
        assert_eq!(m.heaps[1].text, "1g");
        assert_eq!((m.repetitions, m.warmup), (10, 1));
        assert_eq!(m.variants[0].name, "thp");
        assert_eq!(m.text, GOOD);
    }

    #[test]
    fn every_collector_is_a_gcs_value_with_its_own_flags() {
        let m = Matrix::parse(
            "m.yaml",
            "name: x\ngcs: [g1, parallel, serial, zgc, zgc-generational, zgc-nongenerational, shenandoah, epsilon]\nheaps: [64m]\nrepetitions: 1\n",
        )
        .unwrap();
        assert_eq!(m.gcs, Gc::ALL);
        for gc in Gc::ALL {
            // Display is the YAML spelling, so that messages name a value the user can write.
            let back: Gc = serde_yaml::from_str(&gc.to_string()).unwrap();
            assert_eq!(back, gc);
        }
        assert_eq!(
            Gc::Epsilon.flags(false)[0],
            "-XX:+UnlockExperimentalVMOptions"
        );
        assert_eq!(
            Gc::Zgc.flags(true),
            ["-XX:+UnlockExperimentalVMOptions", "-XX:+UseZGC"]
        );
        assert_eq!(
            Gc::ZgcNongenerational.flags(false),
            ["-XX:+UseZGC", "-XX:-ZGenerational"]
        );
        assert_eq!(Gc::G1.flags(false), ["-XX:+UseG1GC"]);
    }

    #[test]
    fn a_collector_flag_in_jvm_args_names_the_gcs_value() {
        for (flag, value) in [
            ("-XX:+UseZGC", "`zgc`"),
            ("-XX:+UseShenandoahGC", "`shenandoah`"),
            ("-XX:-ZGenerational", "`zgc-nongenerational`"),
            ("-XX:+UseSerialGC", "`serial`"),
        ] {
            let e = err(&format!(
                "name: x\ngcs: [g1]\nheaps: [64m]\nrepetitions: 1\njvm_args: [{flag}]\n"
            ));
            assert!(
                e.contains(flag) && e.contains(value) && e.contains("gcs"),
                "{e}"
            );
        }
    }

    #[test]
    fn defaults_fill_optional_keys() {
        let m = Matrix::parse(
            "m.yaml",
            "name: x\ngcs: [g1]\nheaps: [64m]\nrepetitions: 1\n",
        )
        .unwrap();
        assert_eq!(m.jdks, None);
        assert_eq!(m.warmup, 0);
        assert!(m.jvm_args.is_empty());
        assert_eq!(m.variants.len(), 1);
        assert_eq!(m.variants[0].name, "default");
    }

    #[test]
    fn built_in_matrix_is_valid() {
        let m = Matrix::default_matrix();
        assert_eq!(m.name, "quick");
        // Small enough for any machine.
        assert!(m.heaps.iter().all(|h| h.bytes.0 <= 1 << 30));
    }

    #[test]
    fn parses_the_real_world_axes() {
        let m = Matrix::parse(
            "m.yaml",
            "name: x\njdks: [17, auto, /usr/lib/jvm/x]\ngcs: [g1]\nheaps: [1g]\nrepetitions: {min: 5, max: 30, ci_pct: 2}\ngc_threads: [1, 7, auto]\ncpus: [0, \"0-6\", all]\napp: {classpath: build, main: com.example.Main, args: [--port, 0]}\n",
        )
        .unwrap();
        assert_eq!(
            m.jdks.as_deref(),
            Some(
                &[
                    "17".to_owned(),
                    "auto".to_owned(),
                    "/usr/lib/jvm/x".to_owned()
                ][..]
            )
        );
        assert_eq!(
            m.gc_threads,
            [GcThreads::Count(1), GcThreads::Count(7), GcThreads::Auto]
        );
        let cpus: Vec<String> = m.cpus.iter().map(ToString::to_string).collect();
        assert_eq!(cpus, ["0", "0-6", "all"]);
        assert_eq!(m.repetitions, 5);
        assert_eq!(m.adaptive.unwrap().max, 30);
        let app = m.app.unwrap();
        assert_eq!(app.main.as_deref(), Some("com.example.Main"));
        assert_eq!(app.args, ["--port", "0"]);
        // Absent axes have one default value each.
        let m = Matrix::parse(
            "m.yaml",
            "name: x\ngcs: [g1]\nheaps: [64m]\nrepetitions: 1\n",
        )
        .unwrap();
        assert_eq!(
            (m.gc_threads, m.cpus),
            (vec![GcThreads::Auto], vec![CpuSet::All])
        );
        assert!(m.app.is_none() && m.adaptive.is_none());
    }

    #[test]
    fn bad_axis_values_name_their_line() {
        let base = "name: x\ngcs: [g1]\nheaps: [64m]\nrepetitions: 1\n";
        for (extra, want) in [
            ("gc_threads: [0]\n", "invalid gc_threads \"0\""),
            ("gc_threads: [many]\n", "invalid gc_threads"),
            ("cpus: [\"3-1\"]\n", "invalid CPU set \"3-1\""),
            ("cpus: []\n", "empty list"),
            ("cpus: [0, \"0\"]\n", "`0` is listed twice"),
            ("gc_threads: [auto, 2, auto]\n", "`auto` is listed twice"),
            ("repetitions: {min: 5, max: 3, ci_pct: 2}\n", "below min"),
            ("app: {classpath: b}\n", "needs `main"),
        ] {
            let text = if extra.starts_with("repetitions") {
                base.replace("repetitions: 1\n", extra)
            } else {
                format!("{base}{extra}")
            };
            let e = err(&text);
            assert!(e.contains("line ") && e.contains(want), "{text}: {e}");
        }
        let e = err(&format!(
            "{base}gc_threads: [1]\njvm_args: [-XX:ParallelGCThreads=4]\n"
        ));
        assert!(
            e.contains("line 6") && e.contains("because `gc_threads` sets it"),
            "{e}"
        );
    }

    #[test]
    fn a_value_given_twice_is_refused_naming_both_lines() {
        let base = "name: x\nrepetitions: 1\n";
        for (axes, want) in [
            (
                "gcs: [g1, g1]\nheaps: [64m]\n",
                "line 3: gcs: `g1` is listed twice: first at item 1 (line 3), again at item 2 (line 3)",
            ),
            (
                "gcs: [g1]\nheaps:\n  - 64m\n  # same\n  - 64M\n",
                "line 7: heaps: `64M` is `64m` again: first at item 1 (line 5), again at item 2 (line 7)",
            ),
            (
                "gcs: [g1]\nheaps: [64m, 65536k,\n   128m]\n",
                "line 4: heaps: `65536k` is `64m` again: first at item 1 (line 4)",
            ),
            (
                "gcs: [g1]\nheaps: [64m]\ncpus: [\"0,1\", \"0-1\", 0]\n",
                "cpus: `0-1` is `0,1` again: first at item 1 (line 5), again at item 2 (line 5)",
            ),
            (
                "gcs: [g1]\nheaps: [64m]\ngc_threads: [auto, 2, auto]\n",
                "`auto` is listed twice: first at item 1 (line 5), again at item 3",
            ),
        ] {
            let e = err(&format!("{base}{axes}"));
            assert!(e.contains(want), "{axes}: {e}");
            assert!(e.contains("fix: list each value once"), "{e}");
        }
        // Distinct values pass.
        Matrix::parse(
            "m",
            "name: x\nrepetitions: 1\ngcs: [g1, parallel]\nheaps: [64m, 64g]\n",
        )
        .unwrap();
    }

    #[test]
    fn heap_syntax() {
        assert_eq!(HeapSize::parse("32g").unwrap().bytes, Bytes(32 << 30));
        assert_eq!(HeapSize::parse("512M").unwrap().bytes, Bytes(512 << 20));
        assert_eq!(HeapSize::parse("4194304").unwrap().bytes, Bytes(4 << 20));
        for bad in ["1q", "-1g", "0", "", "g", "1.5g", "1m", "99999999999999t"] {
            assert!(HeapSize::parse(bad).is_err(), "{bad:?} was accepted");
        }
    }

    #[test]
    fn syntax_error_names_line_and_column() {
        let e = err("name: x\ngcs: [g1\nheaps: [64m]\n");
        assert!(e.starts_with("matrix `m.yaml`, line "), "{e}");
    }

    #[test]
    fn unknown_key_names_its_line() {
        let e = err("name: x\ngcs: [g1]\nheap: [64m]\nheaps: [64m]\nrepetitions: 1\n");
        assert!(e.contains("line 3, column 1"), "{e}");
        assert!(e.contains("unknown field `heap`"), "{e}");
        assert!(e.contains("expected one of"), "{e}");
    }

    #[test]
    fn bad_values_name_their_position() {
        let cases = [
            (
                "name: x\ngcs: [g1]\nheaps: [64m, 1q]\nrepetitions: 1\n",
                "line 3",
                "unknown unit `q`",
            ),
            (
                "name: x\ngcs: [g1]\nheaps: [-1g]\nrepetitions: 1\n",
                "line 3",
                "invalid heap size \"-1g\"",
            ),
            (
                "name: x\ngcs: [g1]\nheaps: [0]\nrepetitions: 1\n",
                "line 3",
                "at least 2m",
            ),
            (
                "name: x\ngcs: [g1, cms]\nheaps: [64m]\nrepetitions: 1\n",
                "line 2",
                "unknown variant `cms`",
            ),
            (
                "name: x\ngcs: []\nheaps: [64m]\nrepetitions: 1\n",
                "line 2",
                "empty list",
            ),
            (
                "name: x\ngcs: [g1]\nheaps: [64m]\nrepetitions: 0\n",
                "line 4",
                "at least 1",
            ),
            (
                "name: x\ngcs: [g1]\nheaps: [64m]\nrepetitions: ten\n",
                "line 4",
                "invalid type",
            ),
            (
                "name: a/b\ngcs: [g1]\nheaps: [64m]\nrepetitions: 1\n",
                "line 1",
                "invalid name",
            ),
            (
                "name: x\ngcs: [g1]\nheaps: [64m]\nrepetitions: 1\njvm_args: [-Xmx1g]\n",
                "line 5",
                "because `heaps` sets it",
            ),
            (
                "name: x\ngcs: [g1]\nheaps: [64m]\nrepetitions: 1\njvm_args: [-XX:+AlwaysPreTouch]\n",
                "line 5",
                "because the runner, which runs every cell with and without it, sets it",
            ),
            (
                "name: x\ngcs: [g1]\nheaps: [64m]\nrepetitions: 1\nvariants:\n  - name: a\n  - name: a\n",
                "line 6",
                "duplicate variant name",
            ),
            (
                "name: x\ngcs: [g1]\nheaps: [64m]\nrepetitions: 1\nvariants:\n  - name: a\n    flags: []\n",
                "line 7",
                "unknown field `flags`",
            ),
            (
                "name: x\ngcs: [g1]\nheaps: [64m]\n",
                "line 1",
                "missing field `repetitions`",
            ),
        ];
        for (text, line, what) in cases {
            let e = err(text);
            assert!(e.contains(line) && e.contains(what), "for\n{text}got: {e}");
        }
    }

    #[test]
    fn a_deeply_nested_matrix_is_refused_at_once_naming_its_line() {
        // 100,000 nested lists, in flow and in block style.
        for (text, line) in [
            (format!("name: q\nheaps: {}", "[".repeat(100_000)), 2),
            (
                format!("name: q\n\nheaps:\n{}1g\n", "- ".repeat(100_000)),
                4,
            ),
            (format!("name: q\nheaps: {}", "{a: ".repeat(100_000)), 2),
        ] {
            let started = std::time::Instant::now();
            let e = err(&text);
            assert!(
                started.elapsed() < std::time::Duration::from_secs(1),
                "{:?}",
                started.elapsed()
            );
            assert!(
                e.starts_with(&format!(
                    "matrix `m.yaml`, line {line}: it nests deeper than 32 levels"
                )),
                "{e}"
            );
        }
        // Brackets inside quotes and comments, and a list as deep as a matrix needs, read.
        let deep_enough =
            format!("{GOOD}\n# {}\n", "[".repeat(100)).replacen("jvm_args", "# jvm_args", 1)
                + r#"jvm_args: ['-Da=[[[[', "-Db={{{{"]"#;
        Matrix::parse("m.yaml", &deep_enough).unwrap();
    }

    #[test]
    fn every_shipped_matrix_nests_within_the_bound() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("configs");
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "yaml") {
                let text = std::fs::read_to_string(&path).unwrap();
                assert_eq!(nested_too_deep(&text), None, "{}", path.display());
            }
        }
    }

    #[test]
    fn a_matrix_that_is_no_regular_file_or_too_large_is_refused_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("m.yaml");
        let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: `c` is a NUL-terminated path that lives across the call.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let e = Matrix::from_file(&fifo).unwrap_err().to_string();
        assert!(e.contains("m.yaml` is a FIFO, not a regular file"), "{e}");
        let e = Matrix::from_file(Path::new("/dev/zero"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("/dev/zero` is a character device, not a regular file"),
            "{e}"
        );
        let big = dir.path().join("big.yaml");
        std::fs::write(&big, format!("{GOOD}\n# {}\n", "x".repeat(MAX_MATRIX))).unwrap();
        let e = Matrix::from_file(&big).unwrap_err().to_string();
        assert!(e.contains("big.yaml` is larger than 1 MiB"), "{e}");
    }

    mod fuzz {
        use super::*;
        use proptest::prelude::*;

        /// Cases a property runs: bounded for the test suite; `PRETOUCH_FUZZ_CASES=100000`
        /// for a long session.
        fn fuzz_cases(default: u32) -> u32 {
            std::env::var("PRETOUCH_FUZZ_CASES")
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(default)
        }

        /// Matrix-like YAML: each key present or not, with a good or a bad value, plus a
        /// line of anything; about a third of them are valid matrices.
        fn matrix_like() -> impl Strategy<Value = String> {
            /// A key's value: mostly good, sometimes bad, sometimes absent.
            fn pick(
                good: &'static [&'static str],
                bad: &'static [&'static str],
            ) -> impl Strategy<Value = Option<String>> {
                let value = prop_oneof![
                    4 => prop::sample::select(good),
                    1 => prop::sample::select(bad),
                ];
                prop::option::weighted(0.95, value.prop_map(str::to_owned))
            }
            (
                pick(&["x", "a.b-c_1"], &["", ".x", "a/b", "[x]", "~", "'é'"]),
                pick(
                    &[
                        "[g1]",
                        "[g1, parallel, serial]",
                        "[zgc, shenandoah, epsilon]",
                    ],
                    &["[cms]", "[]", "g1", "[[g1]]"],
                ),
                pick(
                    &["[64m]", "[64m, 1g, 32g]", "[2M]", "[4194304]"],
                    &[
                        "[1q]",
                        "[-1g]",
                        "[0]",
                        "[99999999999999999999t]",
                        "[1.5g]",
                        "[]",
                        "64m",
                    ],
                ),
                pick(
                    &["1", "10"],
                    &["0", "-1", "ten", "4294967296", "1e3", "~", "[1]"],
                ),
                pick(&["0", "2"], &["-1", "x", "4294967296"]),
                pick(
                    &["[]", "[-Xint]"],
                    &[
                        "[-Xmx1g]",
                        "[-XX:+AlwaysPreTouch]",
                        "['']",
                        "-Xint",
                        "[-XX:+UseZGC]",
                    ],
                ),
                pick(
                    &["[{name: a}]", "[{name: a, jvm_args: [-Xint]}]"],
                    &[
                        "[{name: a}, {name: a}]",
                        "[{name: ''}]",
                        "[{name: a b}]",
                        "[{name: a, flags: []}]",
                        "[]",
                        "x",
                    ],
                ),
                prop::option::weighted(0.2, ".{0,16}"),
            )
                .prop_map(|(name, gcs, heaps, reps, warmup, args, variants, junk)| {
                    let mut text = String::new();
                    for (key, value) in [
                        ("name", name),
                        ("gcs", gcs),
                        ("heaps", heaps),
                        ("repetitions", reps),
                        ("warmup", warmup),
                        ("jvm_args", args),
                        ("variants", variants),
                    ] {
                        if let Some(v) = value {
                            text.push_str(&format!("{key}: {v}\n"));
                        }
                    }
                    text + &junk.unwrap_or_default()
                })
        }

        proptest! {
            #![proptest_config(ProptestConfig { cases: fuzz_cases(600), failure_persistence: None, ..ProptestConfig::default() })]

            /// Any text: no panic; an error names the file, an accepted matrix keeps the
            /// invariants the plan relies on.
            #[test]
            fn any_text_parses_or_errs_without_panic(text in ".{0,200}") {
                match Matrix::parse("fuzz.yaml", &text) {
                    Ok(m) => {
                        prop_assert!(!m.gcs.is_empty() && !m.heaps.is_empty() && !m.variants.is_empty());
                        prop_assert!(m.repetitions >= 1);
                    }
                    Err(e) => prop_assert!(e.to_string().starts_with("matrix `fuzz.yaml`"), "{}", e),
                }
            }

            /// Any text: no panic; an accepted heap is at least 2 MiB and keeps its text;
            /// a refused one is quoted in the message with the fix.
            #[test]
            fn any_heap_text_parses_or_errs_without_panic(text in ".{0,24}") {
                match HeapSize::parse(&text) {
                    Ok(h) => {
                        prop_assert!(h.bytes.0 >= 2 << 20);
                        prop_assert_eq!(h.text, text);
                    }
                    Err(e) => prop_assert!(
                        e.starts_with(&format!("invalid heap size {text:?}")),
                        "{}", e
                    ),
                }
            }

            /// A number (of any magnitude up to 2^44) and a unit: the bytes are the number
            /// times the unit, computed here with u128, or refused when too small or too large.
            #[test]
            fn heap_sizes_are_the_number_times_the_unit(n in (1u32..45).prop_flat_map(|bits| 0u64..(1 << bits)), unit in 0usize..9) {
                let (suffix, shift) = [("", 0), ("k", 10), ("K", 10), ("m", 20), ("M", 20), ("g", 30), ("G", 30), ("t", 40), ("T", 40)][unit];
                let want = u128::from(n) << shift;
                match HeapSize::parse(&format!("{n}{suffix}")) {
                    Ok(h) => prop_assert_eq!(u128::from(h.bytes.0), want),
                    Err(e) => prop_assert!(
                        want < 2 << 20 || want > u128::from(u64::MAX),
                        "{}{} refused: {}", n, suffix, e
                    ),
                }
            }
        }

        proptest! {
            #![proptest_config(ProptestConfig { cases: fuzz_cases(200), failure_persistence: None, ..ProptestConfig::default() })]

            /// A good matrix file damaged: cut, a line twice, lists nested up to 100,000
            /// deep in flow or block style, a number too large for any type, a byte that is
            /// no UTF-8, or a byte changed. It is read or refused at once, without a panic,
            /// and a refusal names the file.
            #[test]
            fn a_damaged_matrix_file_is_read_or_refused_at_once(
                cut in proptest::option::of(any::<usize>()),
                twice in proptest::option::of(any::<usize>()),
                deep in proptest::option::of((any::<usize>(), 1usize..100_000, any::<bool>())),
                huge in any::<bool>(),
                bytes in proptest::collection::vec((any::<usize>(), any::<u8>()), 0..3),
            ) {
                let mut lines: Vec<Vec<u8>> = GOOD.lines().map(|l| l.as_bytes().to_vec()).collect();
                if let Some(i) = twice {
                    let line = lines[i % lines.len()].clone();
                    lines.insert(i % lines.len(), line);
                }
                if let Some((at, depth, flow)) = deep {
                    let nest = if flow { "[".repeat(depth) } else { "- ".repeat(depth) };
                    let n = lines.len();
                    let line = &mut lines[at % n];
                    let at = line.iter().position(|&b| b == b' ').map_or(line.len(), |i| i + 1);
                    line.splice(at..at, nest.into_bytes());
                }
                let mut text = lines.join(&b'\n');
                text.push(b'\n');
                if huge {
                    text = String::from_utf8_lossy(&text).replace("10", "99999999999999999999999").into_bytes();
                }
                for (at, byte) in bytes {
                    let at = at % text.len();
                    text[at] = byte;
                }
                if let Some(at) = cut {
                    text.truncate(at % (text.len() + 1));
                }
                let dir = tempfile::tempdir().unwrap();
                let path = dir.path().join("m.yaml");
                std::fs::write(&path, &text).unwrap();
                let started = std::time::Instant::now();
                let read = Matrix::from_file(&path);
                prop_assert!(started.elapsed() < std::time::Duration::from_secs(5), "{:?}", started.elapsed());
                if let Err(e) = read {
                    let e = e.to_string();
                    prop_assert!(e.contains(&format!("matrix `{}`", path.display())), "{}", e);
                }
            }
        }

        /// An error always names the file; an accepted matrix satisfies the invariants the
        /// plan relies on; and the generator does reach valid matrices.
        #[test]
        fn matrix_like_text_is_checked() {
            let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig {
                cases: fuzz_cases(600),
                failure_persistence: None,
                ..ProptestConfig::default()
            });
            let valid = std::cell::Cell::new(0);
            runner
                .run(&matrix_like(), |text| {
                    match Matrix::parse("fuzz.yaml", &text) {
                        Ok(m) => {
                            valid.set(valid.get() + 1);
                            prop_assert!(!m.gcs.is_empty() && !m.heaps.is_empty());
                            prop_assert!(!m.variants.is_empty() && m.repetitions >= 1);
                            prop_assert!(m.heaps.iter().all(|h| h.bytes.0 >= 2 << 20));
                        }
                        Err(e) => prop_assert!(e.to_string().starts_with("matrix `fuzz.yaml`")),
                    }
                    Ok(())
                })
                .unwrap();
            assert!(
                valid.get() >= 20,
                "only {} valid matrices generated",
                valid.get()
            );
        }

        /// Deep nesting and alias expansion must not crash or hang the parser.
        #[test]
        fn hostile_yaml_is_an_error() {
            let deep = format!("name: {}1{}\n", "[".repeat(10_000), "]".repeat(10_000));
            assert!(Matrix::parse("m", &deep).is_err());
            let mut laughs = "a: &a [x, x, x, x, x, x, x, x, x, x]\n".to_owned();
            for i in 0..9 {
                let (prev, next) = (char::from(b'a' + i), char::from(b'b' + i));
                laughs.push_str(&format!("{next}: &{next} [*{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}]\n"));
            }
            assert!(Matrix::parse("m", &laughs).is_err());
        }
    }
}
