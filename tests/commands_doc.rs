//! docs/commands.md against the command line itself: every subcommand `--help` shows
//! has its section (`## \`pretouch NAME`), and that section names every option its
//! `--help` lists (hidden ones aside), so that a new option fails here until the page
//! says what it is for. The options come from walking the clap command tree the binary
//! parses with (`pretouch::cmd::cli::Cli`), the same definitions `--help` prints.

use std::path::PathBuf;

use clap::CommandFactory;
use pretouch::cmd::cli::Cli;

fn commands_md() -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("docs/commands.md");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The section of `doc` under `## \`pretouch NAME`, up to the next `## ` heading.
fn section<'a>(doc: &'a str, name: &str) -> Option<&'a str> {
    let heading = format!("\n## `pretouch {name}");
    let start = doc.find(&heading)? + heading.len();
    let rest = &doc[start..];
    Some(&rest[..rest.find("\n## ").unwrap_or(rest.len())])
}

/// `--long` of every option `--help` shows for `cmd`, its subcommands' too (`campaign
/// status`), without `--help` and `--version`.
fn shown_options(cmd: &clap::Command) -> Vec<String> {
    let mut out: Vec<String> = cmd
        .get_arguments()
        .filter(|a| !a.is_hide_set())
        .filter_map(|a| a.get_long())
        .filter(|l| !matches!(*l, "help" | "version"))
        .map(|l| format!("--{l}"))
        .collect();
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        out.extend(shown_options(sub));
    }
    out
}

#[test]
fn commands_md_lists_every_option_of_every_subcommand() {
    let doc = commands_md();
    let mut cli = Cli::command();
    cli.build();
    let mut missing = Vec::new();
    let mut checked = 0;
    for sub in cli.get_subcommands().filter(|s| !s.is_hide_set()) {
        let name = sub.get_name();
        if name == "help" {
            continue;
        }
        let Some(text) = section(&doc, name) else {
            missing.push(format!("no section `## `pretouch {name}`"));
            continue;
        };
        for option in shown_options(sub) {
            checked += 1;
            // Named as the page writes options: in backticks, alone or with its value
            // (`--runs N`), or in a list of them (`--vm-cpus`, `--threads N...`).
            let named = [
                format!("`{option}`"),
                format!("`{option} "),
                format!("`{option}="),
            ]
            .iter()
            .any(|form| text.contains(form.as_str()))
                || text.contains(&format!(", {option}"))
                || text.contains(&format!("`{option},"));
            if !named {
                missing.push(format!("pretouch {name} {option}"));
            }
        }
        // A subcommand of a subcommand (`campaign status`) is named in its section.
        for action in sub.get_subcommands().filter(|s| !s.is_hide_set()) {
            if action.get_name() != "help" && !text.contains(action.get_name()) {
                missing.push(format!("pretouch {name} {}", action.get_name()));
            }
        }
    }
    // The run and report commands alone have more than 30 options between them.
    assert!(checked > 30, "only {checked} options walked");
    assert!(
        missing.is_empty(),
        "docs/commands.md does not name: {missing:#?}"
    );
}

/// Every option of `pretouch report --help` is the tree's: the walk above reads what the
/// binary prints, not a copy of it.
#[test]
fn the_walked_options_are_what_help_prints() {
    let out = assert_cmd::Command::cargo_bin("pretouch")
        .unwrap()
        .args(["report", "--help"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let help = String::from_utf8(out.stdout).unwrap();
    let mut cli = Cli::command();
    cli.build();
    let report = cli.find_subcommand("report").unwrap();
    let walked = shown_options(report);
    for option in &walked {
        assert!(help.contains(option.as_str()), "{option} not in:\n{help}");
    }
    // The options' own lines: `  -h, --help` and `      --format <FORMAT>`.
    let printed: std::collections::BTreeSet<String> = help
        .lines()
        // Descriptions wrap far to the right of the options (`--probe` mentioned in
        // one's text starts no line of its own at 6 spaces or fewer).
        .filter(|l| l.len() - l.trim_start().len() <= 6)
        .filter_map(|l| {
            let t = l.trim_start();
            let t = match t.strip_prefix('-') {
                Some(short) if !short.starts_with('-') => short.split_once(", ")?.1,
                _ => t,
            };
            t.starts_with("--")
                .then(|| t.split([' ', '=']).next().unwrap_or(t).to_owned())
        })
        .filter(|w| w != "--help" && w != "--version")
        .collect();
    for option in printed {
        assert!(
            walked.contains(&option),
            "{option} printed by --help but not walked"
        );
    }
}

/// The quoted lines (`> ...`) of a section, each one whole, with runs of spaces made one.
fn quoted(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| l.strip_prefix("> "))
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect()
}

/// A command's summary as `--help` prints it, on one line.
fn summary(cmd: &clap::Command) -> String {
    cmd.get_about()
        .map(|a| a.to_string())
        .unwrap_or_default()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// Each subcommand's `--help` summary is quoted, word for word, in its section of
/// docs/commands.md, and so is the summary of each action under it (`campaign status`).
/// So the page and the tool cannot say two different things about what a command does.
#[test]
fn commands_md_quotes_every_help_summary() {
    let doc = commands_md();
    let mut cli = Cli::command();
    cli.build();
    let mut wrong = Vec::new();
    let mut checked = 0;
    for sub in cli.get_subcommands().filter(|s| !s.is_hide_set()) {
        let name = sub.get_name();
        if name == "help" {
            continue;
        }
        let Some(text) = section(&doc, name) else {
            wrong.push(format!("no section `## `pretouch {name}`"));
            continue;
        };
        let quotes = quoted(text);
        let mut expect = vec![(name.to_owned(), summary(sub))];
        for action in sub.get_subcommands().filter(|s| !s.is_hide_set()) {
            if action.get_name() != "help" {
                expect.push((format!("{name} {}", action.get_name()), summary(action)));
            }
        }
        for (command, about) in expect {
            checked += 1;
            assert!(!about.is_empty(), "pretouch {command} has no summary");
            if !quotes.contains(&about) {
                wrong.push(format!(
                    "pretouch {command}: --help says\n  {about}\nbut the section quotes\n  {quotes:?}"
                ));
            }
        }
    }
    assert!(checked >= 8, "only {checked} summaries checked");
    assert!(
        wrong.is_empty(),
        "docs/commands.md does not quote these --help summaries (copy the summary into \
         the section as a `> ` line, or fix the help):\n{}",
        wrong.join("\n")
    );
}

/// The summary the test compares is the one `--help` prints: the first lines of
/// `pretouch report --help`, joined.
#[test]
fn the_compared_summary_is_what_help_prints() {
    let out = assert_cmd::Command::cargo_bin("pretouch")
        .unwrap()
        .args(["report", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8(out.stdout).unwrap();
    let printed = help
        .split("\n\n")
        .next()
        .unwrap()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let mut cli = Cli::command();
    cli.build();
    assert_eq!(printed, summary(cli.find_subcommand("report").unwrap()));
    assert!(printed.contains("several labels side by side"), "{printed}");
}
