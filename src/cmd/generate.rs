//! `pretouch generate man|bash|zsh|fish`: the man pages and the shell completions, made
//! from the clap definitions of `cli` (clap_mangen, clap_complete) so that they never
//! drift from the options. Listed in `--help`; docs/install.md has the install lines.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;
use clap::CommandFactory;
use clap_complete::Shell;

use super::cli::{Cli, GenerateArgs, Generated};

pub(crate) fn cmd_generate(args: &GenerateArgs) -> anyhow::Result<u8> {
    let shell = match args.what {
        Generated::Man => {
            for page in man_pages(&args.dir)? {
                println!("{}", page.display());
            }
            return Ok(0);
        }
        Generated::Bash => Shell::Bash,
        Generated::Zsh => Shell::Zsh,
        Generated::Fish => Shell::Fish,
    };
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "pretouch", &mut out);
    std::io::stdout().lock().write_all(&out)?;
    Ok(0)
}

/// Writes pretouch.1 and a page per visible command into `dir`; returns their paths.
fn man_pages(dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    clap_mangen::generate_to(Cli::command(), dir)
        .with_context(|| format!("writing man pages into {}", dir.display()))?;
    let mut pages: Vec<PathBuf> = std::fs::read_dir(dir)?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()?;
    pages.retain(|p| {
        let name = p.file_name().unwrap_or_default().to_string_lossy();
        name.starts_with("pretouch") && name.ends_with(".1")
    });
    pages.sort();
    for page in &pages {
        let text =
            std::fs::read_to_string(page).with_context(|| format!("reading {}", page.display()))?;
        std::fs::write(page, polished(&text))
            .with_context(|| format!("writing {}", page.display()))?;
    }
    Ok(pages)
}

/// A page as `man` should show it. clap_mangen puts the help's exit codes in a section
/// `EXTRA` that `man` fills like prose, which runs the table's lines together, so they
/// become `EXIT STATUS` kept line for line. It also puts the whole version in the
/// header, which `man` prints in the footer's middle, and this version, with its
/// commit and the agent's hash, runs over the page's name at the footer's end. So the
/// header keeps the version number alone, and the `VERSION` section keeps the rest,
/// left adjusted.
fn polished(page: &str) -> String {
    let mut out = String::new();
    let mut kept = false;
    for line in page.lines() {
        if line.starts_with(".TH ") {
            out += &line.replace(super::cli::VERSION, env!("CARGO_PKG_VERSION"));
        } else if line == ".SH EXTRA" {
            out += ".SH \"EXIT STATUS\"\n.nf";
            kept = true;
        } else if kept && line == "Exit codes:" {
            continue;
        } else if kept && line.starts_with(".SH ") {
            out += ".fi\n";
            out += line;
            kept = false;
        } else if line == ".SH VERSION" {
            // Left adjusted, because the long words of the commit and the hash would
            // otherwise be spaced out across the line.
            out += ".SH VERSION\n.ad l";
        } else {
            out += line;
        }
        out.push('\n');
    }
    if kept {
        out += ".fi\n";
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_man_page_per_command_with_its_options() {
        let dir = tempfile::tempdir().unwrap();
        let pages = man_pages(dir.path()).unwrap();
        let names: Vec<String> = pages
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        // `generate` is listed in --help, so it has its page like every other command.
        for command in ["run", "report", "jdks", "env", "calibrate", "generate"] {
            assert!(
                names.contains(&format!("pretouch-{command}.1")),
                "{names:?}"
            );
        }
        let main = std::fs::read_to_string(dir.path().join("pretouch.1")).unwrap();
        assert!(main.contains(".TH pretouch 1"));
        // The exit codes are kept line for line, and the footer holds the version
        // number alone, so it does not run over the page's name.
        assert!(
            main.contains(".SH \"EXIT STATUS\"\n.nf\n  0    Success.\n"),
            "{main}"
        );
        let header = main.lines().find(|l| l.starts_with(".TH ")).unwrap();
        assert!(
            header.contains(&format!("\"pretouch {}\"", env!("CARGO_PKG_VERSION")))
                && !header.contains("commit"),
            "{header}"
        );
        assert!(!main.contains(".SH EXTRA"), "{main}");
        let report = std::fs::read_to_string(dir.path().join("pretouch-report.1")).unwrap();
        assert!(report.contains(".SH \"EXIT STATUS\""), "{report}");
        assert!(
            main.contains("130"),
            "the exit codes of --help are in the page"
        );
        let run = std::fs::read_to_string(dir.path().join("pretouch-run.1")).unwrap();
        for option in ["resume", "label", "agent"] {
            assert!(
                run.contains(&format!("\\-\\-{option}")),
                "pretouch-run.1 lacks --{option}"
            );
        }
    }

    #[test]
    fn each_shell_completes_the_commands_and_their_options() {
        for (shell, marker) in [
            (Shell::Bash, "complete -F _pretouch"),
            (Shell::Zsh, "#compdef pretouch"),
            (Shell::Fish, "complete -c pretouch"),
        ] {
            let mut out = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "pretouch", &mut out);
            let script = String::from_utf8(out).unwrap();
            assert!(script.contains(marker), "{shell}: no `{marker}`");
            for word in ["calibrate", "report", "resume", "label", "profile-rounds"] {
                assert!(script.contains(word), "{shell} lacks {word}");
            }
        }
    }
}
