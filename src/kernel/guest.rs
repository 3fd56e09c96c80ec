//! The `pretouch` command a guest runs: a kernel booted in a VM, or this machine booted
//! into a kernel under test. It is made from the host's run, so the guest runs the same
//! matrix with the same options and writes into the same results folder.

use std::path::{Path, PathBuf};

/// The `pretouch` command each guest runs; the guest sees the host's files at the same
/// paths, so the host's binary, agent and matrix file serve as they are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GuestCommand {
    /// This `pretouch` binary.
    pub program: PathBuf,
    /// The matrix file (absolute); `None`: the built-in matrix.
    pub matrix: Option<PathBuf>,
    /// Passed to every guest run: `--agent`, `--timeout`, `--format`, ...
    pub options: Vec<String>,
}

impl GuestCommand {
    /// A new run of the matrix, under `label` (absent: the guest's kernel release).
    pub fn fresh(&self, label: Option<&str>, results: &Path, work: &Path) -> Vec<String> {
        self.fresh_in(label, results, Some(work))
    }

    /// The rest of an interrupted run of the matrix, appended to its result file.
    pub fn resume(&self, file: &Path, work: &Path) -> Vec<String> {
        self.resume_in(file, Some(work))
    }

    /// [`GuestCommand::fresh`] in a VM (`work`: its work folder) or, with `None`, on
    /// this machine (a campaign's boot).
    pub fn fresh_in(
        &self,
        label: Option<&str>,
        results: &Path,
        work: Option<&Path>,
    ) -> Vec<String> {
        let mut args = vec![self.program.display().to_string(), "run".to_owned()];
        args.extend(self.matrix.iter().map(|m| m.display().to_string()));
        if let Some(label) = label {
            args.extend(["--label".to_owned(), label.to_owned()]);
        }
        args.extend(["--results".to_owned(), results.display().to_string()]);
        self.finish(args, work)
    }

    /// [`GuestCommand::resume`] in a VM or, with `None`, on this machine.
    pub fn resume_in(&self, file: &Path, work: Option<&Path>) -> Vec<String> {
        let mut args = vec![
            self.program.display().to_string(),
            "run".to_owned(),
            "--resume".to_owned(),
            file.display().to_string(),
        ];
        args.extend(self.matrix.iter().map(|m| m.display().to_string()));
        self.finish(args, work)
    }

    fn finish(&self, mut args: Vec<String>, work: Option<&Path>) -> Vec<String> {
        args.extend(self.options.iter().cloned());
        if let Some(work) = work {
            args.extend(["--in-vm".to_owned(), work.display().to_string()]);
        }
        args
    }
}
