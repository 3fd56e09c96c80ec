//! JVM crash files: HotSpot writes `hs_err_pid<pid>.log` (fatal error) and
//! `replay_pid<pid>.log` (a JIT compiler crash) into its working folder, which is the
//! user's. Each launch instead points them into the launcher's scratch folder
//! (`-XX:ErrorFile`, `-XX:ReplayDataFile`, product flags on JDK 17 and 25); after a
//! launch that left any, they are moved beside the result file, and the launch record
//! names them.

use std::path::{Path, PathBuf};

/// The flags that send a launch's crash files to `scratch` (`%p`: the JVM's pid).
pub fn crash_file_args(scratch: &Path) -> [String; 2] {
    [
        format!(
            "-XX:ErrorFile={}",
            scratch.join("hs_err_pid%p.log").display()
        ),
        format!(
            "-XX:ReplayDataFile={}",
            scratch.join("replay_pid%p.log").display()
        ),
    ]
}

/// Whether `name` is a file HotSpot writes when it crashes.
fn is_crash_file(name: &str) -> bool {
    (name.starts_with("hs_err_pid") || name.starts_with("replay_pid")) && name.ends_with(".log")
}

/// The crash files in `scratch`, by name.
fn crash_files(scratch: &Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(scratch)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.file_name().to_str().is_some_and(is_crash_file))
        .map(|e| e.path())
        .collect();
    found.sort();
    found
}

/// Removes crash files a previous launch left in `scratch` (they were kept already).
pub fn clear(scratch: &Path) {
    for file in crash_files(scratch) {
        let _ = std::fs::remove_file(file);
    }
}

/// Moves the crash files of the launch that just ended from `scratch` into `keep`
/// (created when needed) and returns where they are now. A file that cannot be moved
/// stays where it is, and that path is returned (the scratch folder is removed at the
/// end of the run, so a warning is worth more than nothing). `keep: None`: they stay in
/// the scratch folder.
pub fn keep(scratch: &Path, keep: Option<&Path>) -> Vec<PathBuf> {
    let found = crash_files(scratch);
    let Some(dir) = keep else {
        return found;
    };
    if found.is_empty() || std::fs::create_dir_all(dir).is_err() {
        return found;
    }
    found
        .into_iter()
        .map(|file| {
            let Some(name) = file.file_name() else {
                return file;
            };
            let mut target = dir.join(name);
            // A pid can come again in a long run: never overwrite an earlier report.
            let mut n = 1;
            while target.exists() {
                target = dir.join(format!("{}.{n}", name.to_string_lossy()));
                n += 1;
            }
            match std::fs::rename(&file, &target).or_else(|_| {
                std::fs::copy(&file, &target).and_then(|_| std::fs::remove_file(&file))
            }) {
                Ok(()) => target,
                Err(_) => file,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crash_files_move_to_the_keep_folder_and_never_overwrite() {
        let scratch = tempfile::tempdir().unwrap();
        let results = tempfile::tempdir().unwrap();
        let keep_dir = results.path().join("run-crashes");
        std::fs::write(scratch.path().join("hs_err_pid12.log"), "a").unwrap();
        std::fs::write(scratch.path().join("replay_pid12.log"), "r").unwrap();
        std::fs::write(scratch.path().join("stamps"), "s").unwrap();
        let kept = keep(scratch.path(), Some(&keep_dir));
        assert_eq!(
            kept,
            [
                keep_dir.join("hs_err_pid12.log"),
                keep_dir.join("replay_pid12.log")
            ]
        );
        assert!(scratch.path().join("stamps").exists());
        assert!(crash_files(scratch.path()).is_empty());
        // The same pid again: a second file beside the first.
        std::fs::write(scratch.path().join("hs_err_pid12.log"), "b").unwrap();
        let kept = keep(scratch.path(), Some(&keep_dir));
        assert_eq!(kept, [keep_dir.join("hs_err_pid12.log.1")]);
        assert_eq!(
            std::fs::read_to_string(keep_dir.join("hs_err_pid12.log")).unwrap(),
            "a"
        );
        // Nothing crashed: no folder is made.
        let empty = tempfile::tempdir().unwrap();
        assert!(keep(empty.path(), Some(&empty.path().join("x"))).is_empty());
        assert!(!empty.path().join("x").exists());
    }

    #[test]
    fn the_flags_point_into_the_scratch_folder() {
        let [error, replay] = crash_file_args(Path::new("/s"));
        assert_eq!(error, "-XX:ErrorFile=/s/hs_err_pid%p.log");
        assert_eq!(replay, "-XX:ReplayDataFile=/s/replay_pid%p.log");
    }
}
