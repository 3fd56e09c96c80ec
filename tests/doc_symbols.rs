//! The docs that describe the code's shape name only symbols that exist: every
//! backticked Rust path in docs/architecture.md and CONTRIBUTING.md
//! (`schedule::run::drive`, `Catalog::read`, `compare::ChangeColumns`) resolves to a
//! `fn`, `struct`, `enum`, `trait`, `type`, `const`, `static` or `mod` in `src/`.
//!
//! A path's leading lowercase words are modules, read as the end of a file's module path
//! (`compare` is `src/analyze/compare.rs`); a capitalised word before the last is a type
//! the same file declares (its methods are in that file); the last word is declared
//! there, or re-exported there by a `pub use`.

use std::collections::BTreeMap;
use std::path::Path;

use regex::Regex;

const PAGES: [&str; 2] = ["docs/architecture.md", "CONTRIBUTING.md"];

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Each library file under `src/` by its module path (`analyze::compare`; `` for lib.rs).
fn modules() -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let src = root().join("src");
    let mut folders = vec![src.clone()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap().flatten() {
            let path = entry.path();
            let relative = path
                .strip_prefix(&src)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            if path.is_dir() {
                if relative != "bin" {
                    folders.push(path);
                }
            } else if let Some(module) = relative.strip_suffix(".rs") {
                let module = match module {
                    "lib" => String::new(),
                    m => m.trim_end_matches("/mod").replace('/', "::"),
                };
                out.insert(module, std::fs::read_to_string(&path).unwrap());
            }
        }
    }
    out
}

/// Whether `code` declares `name`, or re-exports it with a `pub use`.
fn declares(code: &str, name: &str) -> bool {
    let item = Regex::new(&format!(
        r"\b(fn|struct|enum|trait|type|const|static|mod)\s+{name}\b"
    ))
    .unwrap();
    let reexport = Regex::new(&format!(r"pub(\(crate\))? use [^;]*\b{name}\b[^;]*;")).unwrap();
    item.is_match(code) || reexport.is_match(code)
}

/// Why `path` does not resolve, or `None` when it does.
fn unresolved(path: &str, modules: &BTreeMap<String, String>) -> Option<String> {
    let words: Vec<&str> = path.split("::").collect();
    let (last, before) = words.split_last().unwrap();
    let (ty, module_words) = match before.split_last() {
        Some((w, rest)) if w.starts_with(|c: char| c.is_ascii_uppercase()) => (Some(*w), rest),
        _ => (None, before),
    };
    let in_module = |module: &str| {
        let segments: Vec<&str> = module.split("::").filter(|s| !s.is_empty()).collect();
        segments.ends_with(module_words)
    };
    // A glob re-export (`pub use record::*;` in `store`) makes the child's items the
    // module's.
    let globs = Regex::new(r"pub use (\w+)::\*;").unwrap();
    let mut candidates: Vec<&String> = Vec::new();
    for (module, code) in modules {
        if in_module(module) {
            candidates.push(code);
            for glob in globs.captures_iter(code) {
                let child = if module.is_empty() {
                    glob[1].to_owned()
                } else {
                    format!("{module}::{}", &glob[1])
                };
                candidates.extend(modules.get(&child));
            }
        }
    }
    if candidates.is_empty() {
        return Some(format!("no module `{}`", module_words.join("::")));
    }
    let found = candidates
        .iter()
        .any(|code| ty.is_none_or(|ty| declares(code, ty)) && declares(code, last));
    (!found).then(|| format!("no `{last}` declared where the path says"))
}

#[test]
fn the_architecture_docs_name_only_symbols_that_exist() {
    let modules = modules();
    let first_words: std::collections::BTreeSet<String> = modules
        .keys()
        .flat_map(|m| m.split("::").map(str::to_owned).collect::<Vec<_>>())
        .collect();
    let backticked = Regex::new(r"`([^`\n]+)`").unwrap();
    let rust_path =
        Regex::new(r"^(crate::)?([A-Za-z_][A-Za-z0-9_]*)(::[A-Za-z_][A-Za-z0-9_]*)+$").unwrap();
    let mut checked = 0;
    let mut missing = Vec::new();
    for page in PAGES {
        let text = std::fs::read_to_string(root().join(page)).unwrap();
        for word in backticked.captures_iter(&text) {
            let word = &word[1];
            let Some(path) = rust_path.captures(word) else {
                continue;
            };
            let first = &path[2];
            // A path into another crate (`std::`, `serde::`) is not ours to check.
            if !first_words.contains(first) && !first.starts_with(|c: char| c.is_ascii_uppercase())
            {
                continue;
            }
            let path = word.trim_start_matches("crate::");
            checked += 1;
            if let Some(why) = unresolved(path, &modules) {
                missing.push(format!("{page}: `{path}`: {why}"));
            }
        }
    }
    assert!(missing.is_empty(), "{missing:#?}");
    assert!(
        checked >= 20,
        "only {checked} paths checked: is the pattern right?"
    );
}

#[test]
fn the_check_finds_a_symbol_that_is_gone() {
    let modules = modules();
    assert_eq!(unresolved("schedule::run::drive", &modules), None);
    assert_eq!(unresolved("Catalog::read", &modules), None);
    assert_eq!(unresolved("store::PlannedAs", &modules), None);
    assert!(unresolved("schedule::run::launch_one", &modules).is_some());
    assert!(unresolved("nowhere::drive", &modules).is_some());
    assert!(unresolved("Catalog::no_such_method", &modules).is_some());
}
