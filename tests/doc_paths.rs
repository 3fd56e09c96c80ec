//! The docs name only files that exist. Every repository path in README.md,
//! CONTRIBUTING.md, docs/ and the lab notebook in bench/results/ is checked against the
//! tree, whether it is backticked (inline or in a code block) or linked.
//!
//! A repository path is a word that starts with one of the repository's folders
//! (`src/`, `tests/`, `configs/`, ...) or is a top-level file name (`Cargo.toml`,
//! `METHOD.md`); a link's target is read relative to the page, a backticked path
//! relative to the repository. Placeholders are not paths: a word with `<`, `$`, `*`,
//! `{` or `...`, and anything below `results/` (`results/<label>/quick-<UTC>.jsonl`).

use std::path::{Path, PathBuf};

use regex::Regex;

const FOLDERS: &[&str] = &[
    "src/",
    "tests/",
    "configs/",
    "docs/",
    "scripts/",
    "bench/",
    "jvm-agent/",
    ".ci/",
    "results/",
    "lab/",
];

/// Files the build makes, which a fresh clone lacks: named in the docs as outputs.
const BUILT: &[&str] = &["configs/app/hello.jar", "configs/app/server.jar"];

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// README.md, CONTRIBUTING.md and every Markdown page under docs/ and bench/results/.
fn pages() -> Vec<PathBuf> {
    let mut pages = vec![root().join("README.md"), root().join("CONTRIBUTING.md")];
    let mut folders = vec![root().join("docs"), root().join("bench/results")];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                pages.push(path);
            }
        }
    }
    pages.sort();
    pages
}

fn is_top_level_file_name(word: &str) -> bool {
    let upper_md = word.ends_with(".md") && word.starts_with(|c: char| c.is_ascii_uppercase());
    upper_md
        || word.starts_with("LICENSE")
        || ["Cargo.toml", "Cargo.lock", "build.rs"].contains(&word)
}

/// The word without what prose puts around a path: quotes, brackets, a trailing `:`,
/// `,` or `.` (after a bracket too: `(docs/x.md).`), a `:LINE` suffix, a `#anchor`.
fn trim(word: &str) -> &str {
    let around = |c: char| "`\"'(),;:[]".contains(c);
    let word = word.trim_matches(around);
    let word = word.trim_end_matches(['.', ':']).trim_end_matches(around);
    let word = word.split('#').next().unwrap_or(word);
    match word.rsplit_once(':') {
        Some((path, line)) if line.chars().all(|c| c.is_ascii_digit()) => path,
        _ => word,
    }
}

fn is_placeholder(word: &str) -> bool {
    word.contains(['<', '$', '*', '{', '|']) || word.contains("...") || {
        word.strip_prefix("results/")
            .is_some_and(|rest| !rest.is_empty())
    }
}

/// The byte ranges of Markdown's inline code spans, backticks included: a run of N
/// backticks up to the next run of exactly N (``a `b` c`` is one span), within a
/// paragraph; an unclosed run is literal text.
fn code_spans(text: &str) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    let run_at = |i: usize| bytes[i..].iter().take_while(|b| **b == b'`').count();
    let mut spans = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'`' {
            i += 1;
            continue;
        }
        let n = run_at(i);
        let paragraph_end = text[i..].find("\n\n").map_or(bytes.len(), |e| i + e);
        let mut j = i + n;
        let mut close = None;
        while j < paragraph_end {
            if bytes[j] == b'`' {
                let m = run_at(j);
                if m == n {
                    close = Some(j + m);
                    break;
                }
                j += m;
            } else {
                j += 1;
            }
        }
        match close {
            Some(end) => {
                spans.push((i, end));
                i = end;
            }
            None => i += n,
        }
    }
    spans
}

/// Where the repository paths named in `text` point: (line, word, resolved path).
fn named_paths(page: &Path, text: &str) -> Vec<(usize, String, PathBuf)> {
    let page_dir = page.parent().unwrap();
    // (line of the span's start, text): code blocks line by line; the prose between
    // them kept whole, because an inline code span may wrap onto the next line.
    let mut code = Vec::new();
    let mut prose = String::new();
    let mut in_block = false;
    for (i, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            in_block = !in_block;
            prose.push('\n');
            continue;
        }
        if in_block {
            code.push((i + 1, line));
            prose.push('\n');
        } else {
            prose.push_str(line);
            prose.push('\n');
        }
    }
    let line_of = |offset: usize| prose[..offset].matches('\n').count() + 1;
    let link = Regex::new(r"\]\(([^)\s]+)\)").unwrap();
    // Top-level pages named in plain prose too: `see METHOD.md`.
    let bare_page = Regex::new(r"\b[A-Z][A-Z_-]+\.md\b").unwrap();
    let mut spans = code;
    let mut without_code = String::new();
    let mut rest = 0;
    for (start, end) in code_spans(&prose) {
        spans.push((line_of(start), prose[start..end].trim_matches('`')));
        without_code.push_str(&prose[rest..start]);
        without_code.push_str(&"\n".repeat(prose[start..end].matches('\n').count()));
        rest = end;
    }
    without_code.push_str(&prose[rest..]);
    let mut found = Vec::new();
    let named = |line: usize, word: &str, found: &mut Vec<(usize, String, PathBuf)>| {
        if is_placeholder(word) {
            return;
        }
        if FOLDERS.iter().any(|f| word.starts_with(f)) {
            found.push((line, word.to_owned(), root().join(word)));
        } else if is_top_level_file_name(word) {
            // A page beside this one (docs/install.md names `lab.md`) or the root.
            let beside = page_dir.join(word);
            let path = if beside.exists() {
                beside
            } else {
                root().join(word)
            };
            found.push((line, word.to_owned(), path));
        }
    };
    for (line, span) in spans {
        for word in span.split_whitespace().map(trim) {
            named(line, word, &mut found);
        }
    }
    for m in bare_page.find_iter(&without_code) {
        let line = without_code[..m.start()].matches('\n').count() + 1;
        named(line, m.as_str(), &mut found);
    }
    for c in link.captures_iter(&without_code) {
        let target = c.get(1).unwrap();
        let t = target.as_str();
        if t.contains("://") || t.starts_with(['#', '/']) || t.starts_with("mailto:") {
            continue;
        }
        let line = without_code[..target.start()].matches('\n').count() + 1;
        let t = trim(t);
        if !is_placeholder(t) {
            found.push((line, t.to_owned(), page_dir.join(t)));
        }
    }
    found.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
    found
}

#[test]
fn every_path_the_docs_name_exists() {
    let mut missing = Vec::new();
    let mut checked = 0;
    for page in pages() {
        let text = std::fs::read_to_string(&page).unwrap();
        let shown = page.strip_prefix(root()).unwrap().display().to_string();
        for (line, word, path) in named_paths(&page, &text) {
            checked += 1;
            let built = BUILT.iter().any(|b| root().join(b) == path);
            if !built && !path.exists() {
                missing.push(format!("{shown}:{line}: `{word}` does not exist"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "paths named in the docs that are not in the repository (fix the path or drop the mention):\n{}",
        missing.join("\n")
    );
    // The README alone names dozens; a parser that finds none checks nothing.
    assert!(checked > 20, "only {checked} paths found");
}

#[test]
fn the_check_sees_what_it_must_and_skips_placeholders() {
    let page = root().join("docs/example.md");
    let text = "\
See `src/store.rs` and `METHOD.md:12`, run `bash scripts/nope.sh --x`,\n\
read [the lab](lab.md) and [ripgrep](https://example.org/x.md).\n\
`results/<label>/quick-<UTC>.jsonl`, `results/6.1/a.jsonl`, `src/{a,b}.rs`, `$HOME/x`.\n\
```sh\n\
bench/gone.sh\n\
```\n\
a span that wraps: `cargo run\n\
tests/wrapped.rs` (see GUIDE.md), ``a `tests/x.rs` in doubles``.\n\
```text\n\
output whose sentence ends on a bracketed path\n\
(docs/statistics.md).\n\
```\n";
    let mut words: Vec<(usize, String)> = named_paths(&page, text)
        .into_iter()
        .map(|(line, word, _)| (line, word))
        .collect();
    words.sort();
    assert_eq!(
        words,
        [
            (1, "METHOD.md".to_owned()),
            (1, "scripts/nope.sh".to_owned()),
            (1, "src/store.rs".to_owned()),
            (2, "lab.md".to_owned()),
            (5, "bench/gone.sh".to_owned()),
            (7, "tests/wrapped.rs".to_owned()),
            (8, "GUIDE.md".to_owned()),
            (8, "tests/x.rs".to_owned()),
            (11, "docs/statistics.md".to_owned()),
        ]
    );
}

/// The README's test command is the one CI runs, word for word: a user who runs the
/// README's command gets CI's verdict. Both pass `--no-fail-fast`, so that one failing
/// test binary does not hide the others.
#[test]
fn the_readme_s_test_command_is_the_one_ci_runs() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let command = readme
        .lines()
        .find(|l| l.starts_with("cargo test") && l.contains("# the test suite"))
        .and_then(|l| l.split('#').next())
        .map(str::trim)
        .expect("README.md's install block has a `cargo test ... # the test suite` line");
    let ci = std::fs::read_to_string(root().join(".ci/run")).unwrap();
    let runs = ci
        .lines()
        .map(str::trim)
        .filter(|l| !l.starts_with('#'))
        .any(|l| {
            l.split_whitespace()
                .collect::<Vec<_>>()
                .windows(command.split_whitespace().count())
                .any(|w| w.join(" ") == command)
        });
    assert!(
        runs,
        "`.ci/run` does not run README.md's test command `{command}`"
    );
    assert!(
        command.contains("--no-fail-fast"),
        "one failing test binary would hide the others' results: `{command}`"
    );
}
