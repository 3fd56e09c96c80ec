//! README.md's sample report is real: the block between its sample markers is, byte for
//! byte, what `pretouch report` prints today, its table on stdout and then its notes on
//! stderr, for the result file kept in
//! `bench/results/sample/`. When the report's format changes, this test fails and
//! says so; `PRETOUCH_README=write cargo test --test readme_sample` then rewrites the
//! block from the new output (read the diff before committing it).

mod common;

use std::path::{Path, PathBuf};

/// The result file of the sample run, relative to the repository.
const SAMPLE: &str = "bench/results/sample/6.18.44-fc-v669/quick-20261201T102457Z.jsonl";
const START: &str = "<!-- sample report: ";
const END: &str = "<!-- end of sample report -->";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// README.md split around the sample block: (before, the block's text, after); the
/// block is the fenced code between the two markers.
fn split(readme: &str) -> (&str, &str, &str) {
    let start = readme
        .find(START)
        .expect("README.md has no sample marker `<!-- sample report: `");
    let open = start
        + readme[start..]
            .find("```\n")
            .expect("no ``` after the marker")
        + 4;
    let end = open + readme[open..].find(END).expect("no end-of-sample marker");
    let close = open + readme[open..end].rfind("```").expect("no closing ```");
    (&readme[..open], &readme[open..close], &readme[close..])
}

fn report() -> String {
    let out = common::pretouch()
        .current_dir(root())
        .args(["report", SAMPLE])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "pretouch report {SAMPLE} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The whole report as a terminal shows it: the table on stdout, then the notes,
    // which go to stderr so that stdout can be pasted.
    String::from_utf8(out.stdout).unwrap() + &String::from_utf8(out.stderr).unwrap()
}

#[test]
fn readme_sample_is_the_report_of_the_kept_result_file() {
    let path: PathBuf = root().join("README.md");
    let readme = std::fs::read_to_string(&path).unwrap();
    let (before, block, after) = split(&readme);
    assert!(
        before.contains(&format!("`pretouch report {SAMPLE}`")),
        "the sample marker in README.md names another file than {SAMPLE}"
    );
    let got = report();
    if std::env::var("PRETOUCH_README").as_deref() == Ok("write") {
        std::fs::write(&path, format!("{before}{got}{after}")).unwrap();
        return;
    }
    assert!(
        block == got,
        "README.md's sample report differs from `pretouch report {SAMPLE}` (the report \
         changed?). Rewrite it with `PRETOUCH_README=write cargo test --test readme_sample` \
         and read the diff.\n--- README.md\n{block}--- pretouch report\n{got}"
    );
}

#[test]
fn the_block_is_found_between_its_markers() {
    let text = "a\n<!-- sample report: `x` -->\n```\nline 1\nline 2\n```\n<!-- end of sample report -->\nb\n";
    let (before, block, after) = split(text);
    assert_eq!(block, "line 1\nline 2\n");
    assert!(before.ends_with("```\n"));
    assert!(after.starts_with("```\n<!-- end"));
}

/// README.md's first screen shows the main table of the same sample report: the lines
/// between its first-table markers are, in order and whole, lines the report prints.
#[test]
fn readme_first_table_is_the_sample_report_s() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let start = readme
        .find("<!-- first table: ")
        .expect("README.md has no `<!-- first table: ` marker");
    let open = start + readme[start..].find("```\n").expect("no ``` after it") + 4;
    let close = open + readme[open..].find("```").expect("no closing ```");
    let table = &readme[open..close];
    assert!(
        start < readme.find(START).unwrap(),
        "the first table comes before the long sample"
    );
    assert!(table.lines().count() >= 3, "{table}");
    let got = report();
    assert!(
        got.contains(table),
        "README.md's first table is not in `pretouch report {SAMPLE}`:\n{table}--- report\n{got}"
    );
}

/// Every `pretouch` command in README.md's shell blocks is one the tool accepts, because
/// a reader copies them as written. Each is parsed by the same clap definitions the
/// binary uses, so a renamed option or subcommand fails here. Parsing starts nothing.
#[test]
fn every_pretouch_command_in_the_readme_parses() {
    use clap::Parser;
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let mut in_sh = false;
    let mut commands = Vec::new();
    for line in readme.lines() {
        let trimmed = line.trim();
        if trimmed.starts_with("```") {
            in_sh = trimmed == "```sh";
            continue;
        }
        if !in_sh {
            continue;
        }
        let code = trimmed.split(" #").next().unwrap_or(trimmed);
        for part in code.split("&&").map(str::trim) {
            let words: Vec<&str> = part.split_whitespace().collect();
            if let Some(at) = words.iter().position(|w| w.ends_with("pretouch")) {
                commands.push(words[at..].to_vec());
            }
        }
    }
    assert!(
        commands.len() >= 5,
        "only {} commands found",
        commands.len()
    );
    for words in commands {
        if let Err(e) = pretouch::cmd::cli::Cli::try_parse_from(&words) {
            panic!("README.md's `{}` does not parse: {e}", words.join(" "));
        }
        // A matrix or result path it names is in the repository or made by a run.
        for word in &words[1..] {
            if word.starts_with("configs/") {
                assert!(root().join(word).exists(), "{word} does not exist");
            }
        }
    }
}
