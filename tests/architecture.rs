//! The layout's promise, checked: imports run one way, from the commands down to the
//! units, and no two files import each other, however indirectly.
//!
//! Reads every file under `src/` (the library; `main.rs` and `src/bin/` are front ends
//! above `cmd`), takes each `crate::` path in code outside `#[cfg(test)]` modules and
//! comments, and resolves it to the file that defines it. Test fixtures are test
//! support and left out: the core's (`fixtures`) and each feature's
//! (`features::<feature>::fixtures`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Stages in pipeline order, lowest first. A file may import its own stage's files
/// and those of lower stages, never a stage of the same rank or above.
const STAGES: &[(&str, u8)] = &[
    // `features/mod.rs`, the features' list: it names their folders and imports nothing.
    ("features", 0),
    ("units", 0),
    ("stats", 0),
    ("access", 0),
    // A kernel under test: its image, its session record and its guest's command, which
    // the runs that boot kernels share. Plain data that imports nothing of the crate.
    ("kernel", 0),
    ("matrix", 1),
    ("machine", 2),
    ("launch", 3),
    ("store", 4),
    ("analyze", 5),
    ("schedule", 6),
    ("render", 6),
    ("session", 7),
    ("cmd", 8),
];

/// A feature's files (`src/features/<feature>/<file>.rs`) are named after the stage they
/// plug into, so that the stage order holds inside a feature's folder as it does between
/// the stage folders. Each file name here, and the stage it stands for.
const FEATURE_FILES: &[(&str, &str)] = &[
    ("cli", "cmd"),
    ("options", "session"),
    ("session", "session"),
    ("elsewhere", "session"),
    ("checks", "session"),
    ("sections", "features"),
    ("matrix", "matrix"),
    ("machine", "machine"),
    ("boot", "machine"),
    ("unit", "machine"),
    ("launch", "launch"),
    ("measurement", "launch"),
    ("record", "store"),
    ("header", "store"),
    ("key", "store"),
    ("schedule", "schedule"),
    ("analyze", "analyze"),
    ("ceiling", "analyze"),
    ("method", "analyze"),
    ("section", "analyze"),
    ("report_options", "analyze"),
    ("render", "render"),
    ("report", "render"),
    ("plot", "render"),
    ("flamegraph", "render"),
];

/// The stage a module belongs to: its top folder, or for a feature's file the stage its
/// name stands for. A file beside the features' folders named after a stage, such as
/// `features/record.rs`, is that stage's list of the features, so it is of that stage
/// too. A feature's own `mod.rs` only declares its files, so it is the feature's and no
/// stage's.
fn stage_of(module: &str) -> String {
    let parts: Vec<&str> = module.split("::").collect();
    let stage_of_file = |file: &str| {
        FEATURE_FILES
            .iter()
            .find(|(name, _)| *name == file)
            .map(|(_, stage)| (*stage).to_owned())
    };
    match parts.as_slice() {
        ["features", file] => stage_of_file(file).unwrap_or_else(|| format!("features::{file}")),
        ["features", _, file, ..] => {
            stage_of_file(file).unwrap_or_else(|| format!("features::*::{file}"))
        }
        [top, ..] => (*top).to_owned(),
        [] => String::new(),
    }
}

/// Modules that are not part of the library proper.
const LEFT_OUT: &[&str] = &["fixtures", "main", "lib"];

/// Whether `module` is left out of the checks: one of [`LEFT_OUT`], or a feature's test
/// fixtures (`features::<feature>::fixtures`). A feature's fixtures build that feature's
/// records for tests, so they are test support as the core's fixtures are, compiled only
/// for tests, and no stage of the pipeline. A library file that imports them outside its
/// tests is still seen, because the import's stage is then none.
fn left_out(module: &str) -> bool {
    LEFT_OUT.contains(&module)
        || matches!(
            module.split("::").collect::<Vec<_>>().as_slice(),
            ["features", _, "fixtures"]
        )
}

fn rank(stage: &str) -> Option<u8> {
    STAGES.iter().find(|(s, _)| *s == stage).map(|(_, r)| *r)
}

/// The code of a file, without comments and without its `#[cfg(test)]` modules.
fn code(text: &str) -> String {
    let mut out = String::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("#[cfg(test)]")
            && lines.peek().is_some_and(|next| {
                let next = next.trim_start();
                ["mod ", "pub mod ", "pub(crate) mod "]
                    .iter()
                    .any(|m| next.starts_with(m))
            })
        {
            // Skip the module: up to the line that closes it at its own indentation.
            let indent = line.len() - trimmed.len();
            let closing = format!("{}}}", " ".repeat(indent));
            for l in lines.by_ref() {
                if l == closing {
                    break;
                }
            }
            continue;
        }
        if trimmed.starts_with("//") {
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// Every path `crate::a::b::c` in `code`, with brace groups expanded
/// (`crate::a::{b, c::d}` gives `a::b` and `a::c::d`).
fn crate_paths(code: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("crate::") {
        let before = rest[..at].chars().last();
        rest = &rest[at + "crate::".len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue; // e.g. `pretouch_crate::`
        }
        expand(rest, Vec::new(), &mut out);
    }
    out
}

/// Every path `super::a::b` in `code`, as the number of `super::` it climbs and the rest
/// (`super::super::a` gives `(2, [a])`), with brace groups expanded as in [`crate_paths`].
fn super_paths(code: &str) -> Vec<(usize, Vec<String>)> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("super::") {
        let before = rest[..at].chars().last();
        rest = &rest[at + "super::".len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
            continue; // the second `super::` of `super::super::`, or `not_super::`
        }
        let mut ups = 1;
        while let Some(r) = rest.strip_prefix("super::") {
            rest = r;
            ups += 1;
        }
        let mut paths = Vec::new();
        expand(rest, Vec::new(), &mut paths);
        out.extend(paths.into_iter().map(|p| (ups, p)));
    }
    out
}

fn expand(text: &str, prefix: Vec<String>, out: &mut Vec<Vec<String>>) {
    let mut path = prefix;
    let mut rest = text;
    loop {
        let mut ident: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        // A macro's `$feature`, in `crate::features::$feature::analyze`, stands for each
        // feature of the features' list: `*`.
        if let Some(var) = rest.strip_prefix('$').filter(|_| ident.is_empty()) {
            let name = var
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .count();
            rest = &rest[name..];
            ident = "*".to_owned();
        }
        if ident.is_empty() {
            if let Some(group) = rest.strip_prefix('{') {
                for part in top_level_parts(group) {
                    expand(part.trim_start(), path.clone(), out);
                }
                return;
            }
            break;
        }
        rest = &rest[ident.len()..];
        path.push(ident);
        match rest.strip_prefix("::") {
            Some(r) => rest = r,
            None => break,
        }
    }
    if !path.is_empty() {
        out.push(path);
    }
}

/// The comma-separated parts of a brace group, up to its closing brace.
fn top_level_parts(group: &str) -> Vec<&str> {
    let (mut depth, mut start, mut parts) = (0usize, 0usize, Vec::new());
    for (i, c) in group.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => {
                parts.push(&group[start..i]);
                return parts;
            }
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&group[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts
}

/// Module path (`analyze::report`) -> file text, for every library file under `src`.
fn library_files(src: &Path) -> BTreeMap<String, String> {
    let mut files = BTreeMap::new();
    let mut stack = vec![src.to_owned()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let rel = path.strip_prefix(src).unwrap();
            if path.is_dir() {
                if rel != Path::new("bin") {
                    stack.push(path);
                }
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let mut parts: Vec<String> = rel
                .with_extension("")
                .iter()
                .map(|p| p.to_string_lossy().into_owned())
                .collect();
            if parts.last().is_some_and(|p| p == "mod") {
                parts.pop();
            }
            let module = parts.join("::");
            if left_out(&parts[0]) || left_out(&module) {
                continue;
            }
            files.insert(module, std::fs::read_to_string(&path).unwrap());
        }
    }
    files
}

/// File -> the files it imports (outside tests), each resolved to the longest module
/// path that is a file. Imports of a file's own items are left out.
fn import_graph(files: &BTreeMap<String, String>) -> BTreeMap<String, BTreeSet<String>> {
    let mut graph = BTreeMap::new();
    for (module, text) in files {
        let mut targets = BTreeSet::new();
        let code = code(text);
        let parent: Vec<String> = module.split("::").map(str::to_owned).collect();
        let relative = super_paths(&code).into_iter().filter_map(|(ups, path)| {
            // `super::` in `a::b` (the file a/b.rs) names `a`'s items; in `a` (a/mod.rs),
            // the crate root's. A `mod.rs` is the module itself, so one level less.
            let keep = parent.len().checked_sub(ups)?;
            Some(
                parent[..keep]
                    .iter()
                    .cloned()
                    .chain(path)
                    .collect::<Vec<_>>(),
            )
        });
        for path in crate_paths(&code).into_iter().chain(relative) {
            let target = (1..=path.len())
                .rev()
                .map(|n| path[..n].join("::"))
                .find(|m| files.contains_key(m) || left_out(m) || every_feature(m).is_some());
            if let Some(target) = target
                && target != *module
            {
                targets.insert(target);
            }
        }
        graph.insert(module.clone(), targets);
    }
    // `features::*::analyze` imports what every feature's `analyze` imports, so that a
    // cycle through the features' list is seen.
    let every: BTreeSet<String> = graph.values().flatten().cloned().collect();
    for m in every.iter().filter(|m| every_feature(m).is_some()) {
        let file = every_feature(m).unwrap_or_default();
        let imports: BTreeSet<String> = graph
            .iter()
            .filter(|(k, _)| {
                k.strip_prefix("features::")
                    .and_then(|k| k.split_once("::"))
                    .is_some_and(|(_, f)| f == file)
            })
            .flat_map(|(_, v)| v.iter().cloned())
            .collect();
        graph.insert(m.clone(), imports);
    }
    graph
}

/// The file name of `features::*::FILE`, each feature's file of that name, which a
/// macro reaches through the features' list.
fn every_feature(module: &str) -> Option<&str> {
    module
        .strip_prefix("features::*::")
        .filter(|file| !file.contains("::"))
}

/// Every import against the stage order, as `from -> to (why)`.
fn order_violations(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<String> {
    let stage = stage_of;
    let mut out = Vec::new();
    for (from, targets) in graph {
        for to in targets {
            let (a, b) = (stage(from), stage(to));
            if a == b {
                continue;
            }
            let why = match (rank(&a), rank(&b)) {
                (None, _) if a.starts_with("features::*::") => format!(
                    "`{from}` is a feature's file named after no stage: rename it, or add \
                     its name to FEATURE_FILES"
                ),
                (None, _) => format!("`{a}` is no stage: add it to STAGES"),
                (_, None) => format!("`{b}` is no stage (test support?)"),
                (Some(ra), Some(rb)) if rb >= ra => {
                    format!("stage `{a}` ({ra}) may not import `{b}` ({rb})")
                }
                _ => continue,
            };
            out.push(format!("{from} -> {to}: {why}"));
        }
    }
    out
}

/// Every cycle of imports between files, each as `a -> b -> ... -> a`.
fn cycles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<String> {
    // A file is on a cycle when it can reach itself; report each cycle once, from its
    // smallest file, along a shortest way back.
    let mut out = BTreeSet::new();
    for start in graph.keys() {
        let mut parent: BTreeMap<&str, &str> = BTreeMap::new();
        let mut queue = std::collections::VecDeque::from([start.as_str()]);
        let mut found = None;
        while let Some(m) = queue.pop_front() {
            for next in graph.get(m).into_iter().flatten() {
                if next == start {
                    found = Some(m);
                    break;
                }
                if !parent.contains_key(next.as_str()) && next.as_str() > start.as_str() {
                    parent.insert(next, m);
                    queue.push_back(next);
                }
            }
            if found.is_some() {
                break;
            }
        }
        if let Some(mut m) = found {
            let mut way = vec![start.as_str()];
            while m != start {
                way.push(m);
                m = parent[m];
            }
            way.push(start);
            let last = way.len() - 1;
            way[1..last].reverse();
            out.insert(way.join(" -> "));
        }
    }
    out.into_iter().collect()
}

#[test]
fn imports_run_one_way_and_no_file_imports_itself_round_about() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let files = library_files(&src);
    assert!(
        files.len() > 30 && files.contains_key("analyze::report"),
        "read {} files: {:?}",
        files.len(),
        files.keys()
    );
    let graph = import_graph(&files);
    let edges: usize = graph.values().map(BTreeSet::len).sum();
    assert!(
        edges > 50,
        "only {edges} imports found: the parser reads nothing"
    );
    let violations = order_violations(&graph);
    assert!(
        violations.is_empty(),
        "imports against the stage order (move the type to the stage that owns it):\n{}",
        violations.join("\n")
    );
    let cycles = cycles(&graph);
    assert!(
        cycles.is_empty(),
        "import cycles between files:\n{}",
        cycles.join("\n")
    );
}

#[test]
fn the_check_sees_cycles_and_imports_up_the_pipeline() {
    let files: BTreeMap<String, String> = [
        ("units", "pub struct Nanos;"),
        ("matrix", "use crate::units::Nanos;\nuse crate::store::Record;"),
        (
            "store",
            "use crate::{units::Nanos, matrix::{self, Gc}};\n// crate::cmd in a comment\n",
        ),
        (
            "analyze::report",
            "use crate::analyze::compare::Row;\n#[cfg(test)]\nmod tests {\n    use crate::cmd::x;\n}\n",
        ),
        ("analyze::compare", "fn f() { crate::analyze::report::build(); }"),
        ("cmd", ""),
    ]
    .into_iter()
    .map(|(m, t)| (m.to_owned(), t.to_owned()))
    .collect();
    let graph = import_graph(&files);
    assert_eq!(
        graph["store"],
        BTreeSet::from(["units".to_owned(), "matrix".to_owned()])
    );
    assert_eq!(
        order_violations(&graph),
        ["matrix -> store: stage `matrix` (1) may not import `store` (4)"]
    );
    assert_eq!(
        cycles(&graph),
        [
            "analyze::compare -> analyze::report -> analyze::compare",
            "matrix -> store -> matrix"
        ]
    );
}

#[test]
fn imports_through_super_count_as_their_files() {
    let files: BTreeMap<String, String> = [
        (
            "render::document",
            "mod charts;\nmod html;\nuse super::table::Table;",
        ),
        (
            "render::document::charts",
            "use super::html::{Figure, Picture};",
        ),
        ("render::document::html", "use super::charts;"),
        ("render::table", ""),
    ]
    .into_iter()
    .map(|(m, t)| (m.to_owned(), t.to_owned()))
    .collect();
    let graph = import_graph(&files);
    assert!(
        graph["render::document"].contains("render::table"),
        "{graph:?}"
    );
    assert_eq!(
        cycles(&graph),
        ["render::document::charts -> render::document::html -> render::document::charts"]
    );
}

#[test]
fn a_features_files_keep_the_stage_order_of_the_names_they_bear() {
    let files: BTreeMap<String, String> = [
        ("matrix", ""),
        ("features::probe", ""),
        (
            "features::probe::cli",
            "use crate::features::probe::launch::ProbeLauncher;",
        ),
        (
            "features::probe::launch",
            "use crate::matrix::Matrix;\nuse crate::features::probe::render::table;",
        ),
        ("features::probe::render", ""),
        ("features::probe::helpers", "use crate::matrix::Matrix;"),
    ]
    .into_iter()
    .map(|(m, t)| (m.to_owned(), t.to_owned()))
    .collect();
    let violations = order_violations(&import_graph(&files));
    assert_eq!(violations.len(), 2, "{violations:#?}");
    assert_eq!(
        violations[0],
        "features::probe::helpers -> matrix: `features::probe::helpers` is a feature's file \
         named after no stage: rename it, or add its name to FEATURE_FILES"
    );
    assert_eq!(
        violations[1],
        "features::probe::launch -> features::probe::render: stage `launch` (3) may not \
         import `render` (6)"
    );
}

#[test]
fn a_list_of_the_features_beside_their_folders_is_of_the_stage_it_is_named_after() {
    // `features/record.rs` lists the features' records for the store: the store may
    // read it and it may read the features' `record.rs`, but not their later files.
    let files: BTreeMap<String, String> = [
        ("store::complete", "use crate::features::record::KINDS;"),
        (
            "features::record",
            "use crate::features::probe::record::KIND;\nuse crate::features::probe::render::x;",
        ),
        ("features::probe::record", ""),
        ("features::probe::render", ""),
        ("features::probe", ""),
    ]
    .into_iter()
    .map(|(m, t)| (m.to_owned(), t.to_owned()))
    .collect();
    assert_eq!(stage_of("features::record"), "store");
    assert_eq!(stage_of("features::probe"), "features::probe");
    assert_eq!(
        order_violations(&import_graph(&files)),
        [
            "features::record -> features::probe::render: stage `store` (4) may not import `render` (6)"
        ]
    );
}

#[test]
fn a_features_fixtures_are_left_out_as_the_cores_are() {
    // The walker of `src/` leaves out the core's fixtures and each feature's, and no
    // other file of a feature.
    let temp = tempfile::tempdir().unwrap();
    let dir = temp.path();
    let probe = dir.join("features/probe");
    std::fs::create_dir_all(&probe).unwrap();
    for file in [
        "fixtures.rs",
        "lib.rs",
        "features/mod.rs",
        "features/probe/mod.rs",
        "features/probe/fixtures.rs",
        "features/probe/record.rs",
    ] {
        std::fs::write(dir.join(file), "").unwrap();
    }
    let files = library_files(dir);
    assert_eq!(
        files.keys().collect::<Vec<_>>(),
        ["features", "features::probe", "features::probe::record"]
    );
    // A library file that imports a feature's fixtures outside its tests imports test
    // support; inside its tests it may.
    let files: BTreeMap<String, String> = [
        ("features::probe", ""),
        ("features::probe::record", ""),
        (
            "features::probe::render",
            "use crate::features::probe::fixtures::probe_record;",
        ),
        (
            "features::probe::analyze",
            "#[cfg(test)]\nmod tests {\n    use crate::features::probe::fixtures::probe_record;\n}\n",
        ),
    ]
    .into_iter()
    .map(|(m, t)| (m.to_owned(), t.to_owned()))
    .collect();
    assert_eq!(
        order_violations(&import_graph(&files)),
        [
            "features::probe::render -> features::probe::fixtures: `features::*::fixtures` is no \
             stage (test support?)"
        ]
    );
    assert!(left_out("fixtures") && left_out("features::servers::fixtures"));
    assert!(!left_out("features::fixtures") && !left_out("features::probe::fixtures::x"));
}

#[test]
fn a_macro_over_the_features_list_imports_each_features_file_of_that_name() {
    let files: BTreeMap<String, String> = [
        ("features", "macro_rules! report_sections { () => {} }"),
        (
            "analyze::document",
            "crate::features::report_sections!(halves);\n\
             [$(&crate::features::$feature::analyze::SECTION as &dyn Section,)*]",
        ),
        (
            "analyze::late",
            "[$(&crate::features::$feature::report::SECTION as &dyn Section,)*]",
        ),
        ("features::probe", ""),
        (
            "features::probe::analyze",
            "use crate::analyze::document::Launches;",
        ),
        ("features::probe::report", ""),
    ]
    .into_iter()
    .map(|(m, t)| (m.to_owned(), t.to_owned()))
    .collect();
    let graph = import_graph(&files);
    assert_eq!(
        graph["analyze::document"],
        BTreeSet::from(["features".to_owned(), "features::*::analyze".to_owned()])
    );
    assert_eq!(
        order_violations(&graph),
        ["analyze::late -> features::*::report: stage `analyze` (5) may not import `render` (6)"]
    );
    assert_eq!(
        cycles(&graph),
        ["analyze::document -> features::*::analyze -> analyze::document"]
    );
}

/// Lines of every function in `files` outside their `#[cfg(test)]` modules, as
/// `(lines, module, name)`, longest first: from the `fn` line to the `}` at its
/// indentation. A declaration without a body (`fn f();`) is none.
fn function_lengths(files: &BTreeMap<String, String>) -> Vec<(usize, String, String)> {
    let mut out = Vec::new();
    for (module, text) in files {
        let lines: Vec<&str> = text.lines().collect();
        let mut i = 0;
        while i < lines.len() {
            let line = lines[i];
            let trimmed = line.trim_start();
            let indent = line.len() - trimmed.len();
            let closing = format!("{}}}", " ".repeat(indent));
            if trimmed.starts_with("#[cfg(test)]")
                && lines
                    .get(i + 1)
                    .is_some_and(|next| next.trim_start().starts_with("mod "))
            {
                i += 1;
                while i < lines.len() && lines[i] != closing {
                    i += 1;
                }
                i += 1;
                continue;
            }
            let words: Vec<&str> = trimmed.split_whitespace().collect();
            let at_fn = words.iter().position(|w| *w == "fn").filter(|&n| {
                words[..n].iter().all(|w| {
                    w.starts_with("pub") || ["const", "unsafe", "extern", "\"C\""].contains(w)
                })
            });
            let (Some(at), false) = (at_fn, trimmed.starts_with("//")) else {
                i += 1;
                continue;
            };
            let name: String = words
                .get(at + 1)
                .unwrap_or(&"")
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if trimmed.ends_with('}') && trimmed.contains('{') {
                out.push((1, module.clone(), name));
                i += 1;
                continue;
            }
            // The signature ends at `{` (a body) or `;` (none).
            let mut end = i;
            while end < lines.len() && !lines[end].trim_end().ends_with(['{', ';']) {
                end += 1;
            }
            if end >= lines.len() || lines[end].trim_end().ends_with(';') {
                i = end + 1;
                continue;
            }
            let mut close = end + 1;
            while close < lines.len() && lines[close] != closing {
                close += 1;
            }
            out.push((close - i + 1, module.clone(), name));
            i += 1;
        }
    }
    out.sort_unstable_by(|a, b| b.cmp(a));
    out
}

/// The functions longer than 120 lines when this check was written, with their
/// lengths: a name table (`category_of`), and what is still to be split. None may
/// grow, and no other may join them.
const LONG: &[(&str, &str, usize)] = &[("features::profile::analyze", "category_of", 181)];

/// The share of the library's functions over 80 lines may not pass this (3.5% when
/// the check was written; 3.24% once the launch loops were one, with the HTML page's
/// charts; 2.80% once the report's longest were split into named steps, 2.65% with
/// launch_with and calibration::processes too; 2.0% once the campaign's start and
/// boot, the run's preparation, the matrix's parse, the settings' checks, the
/// calibration threads, the kernel session, the probe launch and the server tables
/// were split).
const OVER_80_PERCENT: f64 = 2.0;

#[test]
fn no_function_grows_past_120_lines_and_few_pass_80() {
    let files = library_files(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"));
    let lengths = function_lengths(&files);
    assert!(lengths.len() > 500, "{} functions found", lengths.len());
    let mut too_long = Vec::new();
    for (lines, module, name) in lengths.iter().filter(|(l, _, _)| *l > 120) {
        let allowed = LONG
            .iter()
            .find(|(m, n, _)| m == module && n == name)
            .map_or(120, |(_, _, l)| *l);
        if *lines > allowed {
            too_long.push(format!(
                "{module}::{name}: {lines} lines (at most {allowed})"
            ));
        }
    }
    assert!(too_long.is_empty(), "split these: {too_long:#?}");
    // A function split below 120 lines leaves the list, so that it cannot grow back.
    let stale: Vec<_> = LONG
        .iter()
        .filter(|(m, n, _)| {
            !lengths
                .iter()
                .any(|(l, module, name)| *l > 120 && module == m && name == n)
        })
        .collect();
    assert!(
        stale.is_empty(),
        "no longer over 120 lines, drop from LONG: {stale:?}"
    );
    let over_80 = lengths.iter().filter(|(l, _, _)| *l > 80).count();
    let percent = 100.0 * over_80 as f64 / lengths.len() as f64;
    eprintln!(
        "{over_80} of {} functions ({percent:.2}%) are over 80 lines",
        lengths.len()
    );
    assert!(
        percent <= OVER_80_PERCENT,
        "{over_80} of {} functions ({percent:.1}%) are over 80 lines: {:#?}",
        lengths.len(),
        lengths
            .iter()
            .filter(|(l, _, _)| *l > 80)
            .collect::<Vec<_>>()
    );
}

#[test]
fn function_lengths_run_from_fn_to_its_closing_brace_outside_tests() {
    let files: BTreeMap<String, String> = [(
        "m".to_owned(),
        "pub(crate) fn a(\n    x: u8,\n) -> u8 {\n    x\n}\ntrait T {\n    fn d();\n    fn e() {}\n}\n\
         #[cfg(test)]\nmod tests {\n    fn long() {\n    }\n}\n"
            .to_owned(),
    )]
    .into_iter()
    .collect();
    assert_eq!(
        function_lengths(&files),
        [
            (5, "m".to_owned(), "a".to_owned()),
            (1, "m".to_owned(), "e".to_owned())
        ]
    );
}

/// Each core file that imports a feature's files, and the features it imports.
fn core_imports_of_features(
    graph: &BTreeMap<String, BTreeSet<String>>,
) -> BTreeMap<String, BTreeSet<String>> {
    // A feature is a folder under features/, so it has files below it. A file beside the
    // folders, such as features/record.rs, is one of the lists, and `features::*::` is
    // what a macro over the features' list reaches.
    let is_feature = |name: &str| {
        let folder = format!("features::{name}::");
        if name == "*" {
            return false;
        }
        graph.keys().any(|m| m.starts_with(&folder))
    };
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (from, targets) in graph {
        if from.starts_with("features") {
            continue;
        }
        for to in targets {
            if let ["features", feature, ..] = to.split("::").collect::<Vec<_>>().as_slice()
                && is_feature(feature)
            {
                out.entry(from.clone())
                    .or_default()
                    .insert((*feature).to_owned());
            }
        }
    }
    out
}

/// The core reaches the features only through the lists beside the feature folders,
/// such as `src/features/record.rs`, which a core file may import. A core file that
/// imports a feature's own files fails this test, naming the file and the features.
#[test]
fn the_core_imports_no_feature() {
    let graph = import_graph(&library_files(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
    ));
    let wrong: Vec<String> = core_imports_of_features(&graph)
        .iter()
        .map(|(file, features)| {
            format!(
                "{file} imports the features {features:?}. Plug them into the core through \
                 one of the lists beside the feature folders in src/features/ instead."
            )
        })
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn the_check_of_the_core_sees_a_core_file_import_a_feature() {
    let files: BTreeMap<String, String> = [
        ("features", "pub fn all() {}"),
        ("features::record", "pub const KINDS: &[u8] = &[];"),
        ("features::probe::launch", ""),
        ("launch", "use crate::features::probe::launch::Probe;"),
        ("store", "fn f() { crate::features::all(); }"),
        ("store::read", "use crate::features::record::KINDS;"),
        (
            "features::probe::render",
            "use crate::features::probe::launch::Probe;",
        ),
    ]
    .into_iter()
    .map(|(m, t)| (m.to_owned(), t.to_owned()))
    .collect();
    let found = core_imports_of_features(&import_graph(&files));
    let expected: BTreeMap<String, BTreeSet<String>> =
        [("launch".to_owned(), BTreeSet::from(["probe".to_owned()]))].into();
    assert_eq!(found, expected);
}

/// The files of a test of a check, module path -> text.
fn files_of(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(m, t)| ((*m).to_owned(), (*t).to_owned()))
        .collect()
}

/// The most code lines the lists beside the feature folders hold together, so that each
/// list stays a line per feature and every decision about a feature stays in its folder.
const MOST_LIST_LINES: usize = 250;

/// The code lines of `text`: its lines that are neither blank nor a `//` comment, doc
/// comments included among the comments.
fn code_lines(text: &str) -> usize {
    text.lines()
        .map(str::trim_start)
        .filter(|l| !l.is_empty() && !l.starts_with("//"))
        .count()
}

#[test]
fn the_lists_beside_the_feature_folders_stay_short() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/features");
    let mut lists: Vec<(usize, String)> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == "rs"))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (code_lines(&std::fs::read_to_string(&p).unwrap()), name)
        })
        .collect();
    lists.sort_unstable_by(|a, b| b.cmp(a));
    let total: usize = lists.iter().map(|(n, _)| n).sum();
    println!("src/features/*.rs: {total} code lines, at most {MOST_LIST_LINES}");
    assert!(
        total <= MOST_LIST_LINES,
        "src/features/*.rs holds {total} code lines, more than {MOST_LIST_LINES}: {lists:?}. \
         Move what decides about a feature into its folder, so each list is a line per feature."
    );
}

#[test]
fn code_lines_leave_out_blank_lines_and_comments() {
    assert_eq!(
        code_lines("//! a\n\nuse x;\n  /// b\n  // c\n  fn f() {}\n\t\n"),
        2
    );
}

/// Each feature whose folder imports another feature's folder, as `from -> to`, from
/// the import graph of the library's files outside their tests.
fn features_importing_features(graph: &BTreeMap<String, BTreeSet<String>>) -> BTreeSet<String> {
    let folder = |module: &str| match module.split("::").collect::<Vec<_>>().as_slice() {
        ["features", feature, _, ..] if *feature != "*" => Some((*feature).to_owned()),
        _ => None,
    };
    let mut out = BTreeSet::new();
    for (from, targets) in graph {
        let Some(a) = folder(from) else { continue };
        for b in targets.iter().filter_map(|to| folder(to)) {
            if a != b {
                out.insert(format!("{a} -> {b}"));
            }
        }
    }
    out
}

/// A feature's folder imports no other feature's folder, so that a feature is read,
/// changed and removed on its own. What two features share belongs to the core.
#[test]
fn no_feature_folder_imports_another_features_folder() {
    let graph = import_graph(&library_files(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
    ));
    let found = features_importing_features(&graph);
    assert!(
        found.is_empty(),
        "feature folders import other features' folders: {found:?}. Move what they share \
         into the core, or the decision into the folder that owns it."
    );
}

#[test]
fn the_check_of_the_features_sees_a_folder_import_another() {
    // Before the campaign's warnings moved to its folder, the kernels' analysis imported
    // the campaign's record.
    let files = files_of(&[
        (
            "features::kernels::analyze",
            "use crate::features::campaign::record::Campaign;\n\
             use crate::features::kernels::record::KernelStatus;",
        ),
        ("features::kernels::record", ""),
        ("features::campaign::record", ""),
        (
            "features::analyze",
            "&crate::features::kernels::analyze::WARNINGS,",
        ),
    ]);
    assert_eq!(
        features_importing_features(&import_graph(&files)),
        BTreeSet::from(["kernels -> campaign".to_owned()])
    );
}

/// Each place in a core file's code, outside its tests, that reads a field of a feature's
/// part through one of the lists, such as `args.features.kernels.kernel`: `features.`
/// and a name that is not a method's call. The core asks the lists' methods instead, so
/// a feature's setting is read in its folder.
fn core_reads_of_features_fields(files: &BTreeMap<String, String>) -> Vec<String> {
    let mut out = Vec::new();
    for (module, text) in files.iter().filter(|(m, _)| !m.starts_with("features")) {
        for line in code(text).lines() {
            for (at, _) in line.match_indices("features.") {
                let before = line[..at].chars().next_back();
                if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                    continue;
                }
                let rest = &line[at + "features.".len()..];
                let end = rest
                    .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .unwrap_or(rest.len());
                let (name, after) = rest.split_at(end);
                if !name.is_empty() && !after.starts_with('(') && !after.starts_with("::") {
                    out.push(format!("{module}: `features.{name}` in `{}`", line.trim()));
                }
            }
        }
    }
    out
}

/// No core file reads a feature's setting: it asks a list's method, and the feature
/// answers from its folder.
#[test]
fn no_core_file_reads_a_features_setting() {
    let found = core_reads_of_features_fields(&library_files(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
    ));
    assert!(
        found.is_empty(),
        "core files read features' settings: {found:#?}. Ask a method of the list, and \
         let the feature answer it in its folder."
    );
}

#[test]
fn the_check_of_the_core_sees_it_read_a_features_setting() {
    // Before the campaign decided where a run goes, the list of the runs elsewhere read
    // the kernels' and the campaign's options. The same lines in a core file are seen.
    let files = files_of(&[
        (
            "session::way",
            "let kernels = !args.features.kernels.kernel.is_empty() || \
             !matrix.features.kernels.is_empty();\n\
             if args.features.campaign.boot.is_none() {}\n",
        ),
        (
            "session::fine",
            "let hooks = self.features.hooks(app);\nuse crate::features::key::KeyParts;\n\
             results.features = found.features.beside_each_run();\n",
        ),
        ("features::elsewhere", "args.features.kernels.in_vm"),
    ]);
    let found = core_reads_of_features_fields(&files);
    assert_eq!(found.len(), 3, "{found:#?}");
    assert!(found.iter().all(|f| f.starts_with("session::way: ")));
    assert!(found[2].contains("`features.campaign`"), "{found:#?}");
}

/// The items of a list's `text` outside its tests, each as the numbers and text of its
/// code lines: a `use` line, a `static`, a function, a macro's call. An item starts at a
/// line that is not indented, unless an attribute or a closing bracket starts that line
/// or the line before it was an attribute.
fn items(text: &str) -> Vec<Vec<(usize, &str)>> {
    let code = text.split("#[cfg(test)]").next().unwrap_or("");
    let mut items: Vec<Vec<(usize, &str)>> = Vec::new();
    let mut after_attribute = false;
    for (i, line) in code.lines().enumerate() {
        let trimmed = line.trim_start();
        if trimmed.is_empty() || trimmed.starts_with("//") {
            continue;
        }
        let top = line.len() == trimmed.len();
        let closing = trimmed.starts_with(['}', ']', ')']);
        if (top && !closing && !after_attribute) || items.is_empty() {
            items.push(Vec::new());
        }
        after_attribute = top && trimmed.starts_with("#[");
        items.last_mut().unwrap().push((i + 1, line));
    }
    items
}

/// The lines of `item` that name `feature`, by a path through its folder such as
/// `crate::features::probe::record::KIND` or `super::numa::launch::hook::NumaHook`.
fn lines_naming(item: &[(usize, &str)], feature: &str) -> Vec<usize> {
    let path = format!("::{feature}::");
    item.iter()
        .filter(|(_, l)| l.contains(&path))
        .map(|(n, _)| *n)
        .collect()
}

/// The recipe for a new instrument in docs/architecture.md, from its heading to the next.
fn recipe() -> String {
    let doc =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/architecture.md"))
            .unwrap();
    let start = doc
        .find("## Adding an instrument")
        .expect("docs/architecture.md has the recipe for an instrument");
    let rest = &doc[start + 3..];
    rest[..rest.find("\n## ").unwrap_or(rest.len())].to_owned()
}

/// What a list beside the feature folders asks of a feature beyond one line: the lines
/// of each item that name it, when there are more than one, and a `use` line that names
/// it, since the list's own line would then name it again.
fn more_than_a_line(list: &str, text: &str, features: &[String]) -> Vec<String> {
    let mut found = Vec::new();
    for item in items(text) {
        let is_use = item[0].1.starts_with("use ") || item[0].1.starts_with("pub use ");
        for feature in features {
            let lines = lines_naming(&item, feature);
            if lines.len() > 1 || (is_use && !lines.is_empty()) {
                found.push(format!("{list} names {feature} on lines {lines:?}"));
            }
        }
    }
    found
}

/// The recipe in docs/architecture.md stays the one a new instrument follows. It names
/// every list beside the feature folders, and each list names a feature on one line at
/// most, so a feature joins a list with one line and its logic stays in its folder.
#[test]
fn the_recipe_names_every_list_and_a_feature_joins_each_with_one_line() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/features");
    let recipe = recipe();
    let paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    let features: Vec<String> = paths
        .iter()
        .filter(|p| p.is_dir())
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert!(features.len() > 5, "the feature folders: {features:?}");
    let mut unnamed = Vec::new();
    let mut more = Vec::new();
    for path in paths
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
    {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if !recipe.contains(&format!("`src/features/{name}`")) {
            unnamed.push(name.clone());
        }
        let text = std::fs::read_to_string(path).unwrap();
        more.extend(more_than_a_line(&name, &text, &features));
    }
    assert!(
        unnamed.is_empty(),
        "docs/architecture.md's recipe for an instrument does not name these lists: \
         {unnamed:?}. Say there what of an instrument joins each."
    );
    assert!(
        more.is_empty(),
        "a list asks more than one line of a feature: {more:?}. Let the list's one line \
         name the feature's part, and move what decides about it into its folder."
    );
}

#[test]
fn the_check_of_the_lists_sees_a_feature_named_twice() {
    let list = "use crate::features::settings::cli::Args;\n\
                \n\
                pub fn before() -> Before {\n\
                \x20   // crate::features::settings::cli in a comment\n\
                \x20   Before(vec![Box::new(crate::features::settings::cli::replay())])\n\
                }\n\
                #[derive(Debug)]\n\
                pub struct Options {\n\
                \x20   pub settings: crate::features::settings::cli::Args,\n\
                \x20   pub probe: crate::features::probe::cli::Args,\n\
                \x20   pub again: crate::features::probe::cli::More,\n\
                }\n\
                #[cfg(test)]\n\
                mod tests { use crate::features::cds::x; }\n";
    let features = ["settings", "probe", "cds"].map(str::to_owned);
    assert_eq!(items(list).len(), 3, "{:?}", items(list));
    assert_eq!(
        more_than_a_line("cli.rs", list, &features),
        [
            "cli.rs names settings on lines [1]",
            "cli.rs names probe on lines [10, 11]"
        ]
    );
}
