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
    Ok(pages)
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
