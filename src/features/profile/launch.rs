//! Stage 3, profiled: one JVM launched under `perf record`, its samples collapsed into
//! folded stacks (inferno). Also the check that perf can see the kernel, made before any
//! JVM starts.
//!
//! Sampling: `perf record -e cpu-clock -F 999 -g --no-bpf-event`. `cpu-clock` is the
//! software timer event (no hardware PMU needed, which VMs often lack); `-g` walks frame
//! pointers (kernel and libjvm have them); `--no-bpf-event` spares perf 6.1's side-band
//! thread, which makes every `perf record` take a second longer at exit.

use std::path::{Path, PathBuf};

use crate::launch::{JvmLauncher, LaunchOptions, LaunchOutcome, Launcher};

/// The sampling event.
pub const EVENT: &str = "cpu-clock";
/// Samples per second and thread (a period of about 1 ms).
pub const FREQUENCY_HZ: u32 = 999;
/// How perf walks the stacks: frame pointers (`-g`).
pub const CALL_GRAPH: &str = "fp";
/// Suffix inferno gives kernel frames (`annotate_kernel`).
pub const KERNEL_SUFFIX: &str = "_[k]";

/// Why perf cannot profile the kernel here; every message says the fix.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum PerfError {
    #[error(
        "--profile needs `perf`, which is not on PATH\n  fix: apt-get install linux-perf \
         (Debian; Ubuntu: linux-tools-$(uname -r)), or run without --profile"
    )]
    Missing,
    #[error(
        "`{perf} --version` failed: {output}\n  fix: install the perf matching this kernel \
         (Debian: apt-get install linux-perf), or run without --profile"
    )]
    Broken { perf: String, output: String },
    #[error(
        "kernel.perf_event_paranoid is {value}: perf would record user-space stacks only \
         (this runner is not root)\n  fix: sysctl -w kernel.perf_event_paranoid=1 (as root), \
         or run pretouch as root"
    )]
    Paranoid { value: i64 },
    #[error(
        "kernel.kptr_restrict is {value}: perf cannot resolve kernel symbols{who}\n  fix: \
         sysctl -w kernel.kptr_restrict=0 (as root)"
    )]
    KptrRestrict { value: i64, who: &'static str },
    #[error(
        "/proc/sys/kernel/perf_event_paranoid does not exist: this kernel has no perf events\n  \
         fix: a kernel built with CONFIG_PERF_EVENTS, or run without --profile"
    )]
    NoPerfEvents,
}

/// What decides whether perf can sample the kernel: read from the machine by
/// [`PerfSetting::read`], or made up in tests.
#[derive(Debug, Clone, PartialEq, Eq)]
struct PerfSetting {
    /// `perf` found on PATH.
    pub perf: Option<PathBuf>,
    /// The runner's effective user is root.
    pub root: bool,
    /// `kernel.perf_event_paranoid`; `None` when the file is missing.
    pub paranoid: Option<i64>,
    /// `kernel.kptr_restrict`; `None` when the file is missing (no restriction).
    pub kptr_restrict: Option<i64>,
}

impl PerfSetting {
    pub fn read() -> PerfSetting {
        let sysctl = |name: &str| {
            std::fs::read_to_string(format!("/proc/sys/kernel/{name}"))
                .ok()
                .and_then(|t| t.trim().parse().ok())
        };
        PerfSetting {
            perf: crate::machine::host::find_on_path("perf"),
            root: crate::machine::host::is_root(),
            paranoid: sysctl("perf_event_paranoid"),
            kptr_restrict: sysctl("kptr_restrict"),
        }
    }

    /// The perf binary to run, or why the kernel cannot be profiled. Pure: the settings
    /// as perf 6.1 treats them (a non-root perf at paranoid 2 falls back to user space
    /// without a word; kptr_restrict 2 hides kernel symbols even from root).
    pub fn check(&self) -> Result<PathBuf, PerfError> {
        let perf = self.perf.clone().ok_or(PerfError::Missing)?;
        match self.paranoid {
            None => return Err(PerfError::NoPerfEvents),
            Some(value) if value >= 2 && !self.root => return Err(PerfError::Paranoid { value }),
            _ => {}
        }
        match self.kptr_restrict {
            Some(value @ 2..) => Err(PerfError::KptrRestrict {
                value,
                who: " (at 2 not even for root)",
            }),
            Some(value @ 1) if !self.root => Err(PerfError::KptrRestrict {
                value,
                who: " for a runner that is not root",
            }),
            _ => Ok(perf),
        }
    }
}

/// Checks the machine for profiling and that `perf --version` runs: the perf binary.
pub fn preflight() -> Result<PathBuf, PerfError> {
    let perf = PerfSetting::read().check()?;
    let output = std::process::Command::new(&perf).arg("--version").output();
    match output {
        Ok(o) if o.status.success() => Ok(perf),
        Ok(o) => Err(PerfError::Broken {
            perf: perf.display().to_string(),
            output: String::from_utf8_lossy(&[o.stdout, o.stderr].concat())
                .trim()
                .to_owned(),
        }),
        Err(e) => Err(PerfError::Broken {
            perf: perf.display().to_string(),
            output: e.to_string(),
        }),
    }
}

/// `perf record` in front of a command: its arguments up to and including `--`.
fn record_prefix(perf: &Path, data: &Path) -> Vec<String> {
    let mut v = vec![perf.display().to_string()];
    v.extend(
        [
            "record",
            "-q",
            "--no-bpf-event",
            "-e",
            EVENT,
            "-F",
            &FREQUENCY_HZ.to_string(),
            "-g",
            "-o",
        ]
        .map(str::to_owned),
    );
    v.push(data.display().to_string());
    v.push("--".to_owned());
    v
}

/// One profiled launch: what the launch measured, and its samples.
#[derive(Debug, Clone, Default)]
pub struct ProfiledOutcome {
    pub outcome: LaunchOutcome,
    /// Folded stacks (`root;...;leaf count`), kernel frames ending in `_[k]`, thread
    /// numbers dropped from the root frame (`GC_Thread#1` -> `GC_Thread`).
    pub folded: Vec<String>,
    /// Samples in `folded`.
    pub samples: u64,
    /// Why the samples could not be read, when they could not.
    pub problem: Option<String>,
    /// Where perf.data was kept, when asked to.
    pub perf_data: Option<PathBuf>,
}

/// Launches JVMs under `perf record`, then reads their samples with `perf script`.
pub struct PerfLauncher {
    inner: JvmLauncher,
    perf: PathBuf,
    scratch: tempfile::TempDir,
    /// Folder perf.data files are kept in (`--keep-perf-data`); `None`: deleted.
    keep: Option<PathBuf>,
}

impl PerfLauncher {
    pub fn new(
        inner: JvmLauncher,
        perf: PathBuf,
        keep: Option<PathBuf>,
    ) -> std::io::Result<PerfLauncher> {
        if let Some(dir) = &keep {
            std::fs::create_dir_all(dir)?;
        }
        Ok(PerfLauncher {
            inner,
            perf,
            scratch: tempfile::Builder::new()
                .prefix("pretouch-perf-")
                .tempdir()?,
            keep,
        })
    }

    /// Launches one JVM under perf; `name` names its perf.data when kept.
    pub fn launch(
        &mut self,
        java: &Path,
        jvm_args: &[String],
        options: &LaunchOptions,
        name: &str,
    ) -> ProfiledOutcome {
        let data = match &self.keep {
            Some(dir) => dir.join(format!("{name}.data")),
            None => self.scratch.path().join("perf.data"),
        };
        let _ = std::fs::remove_file(&data);
        self.inner.set_wrapper(record_prefix(&self.perf, &data));
        let outcome = self.inner.launch_with(java, jvm_args, options);
        self.inner.set_wrapper(Vec::new());
        let mut profiled = ProfiledOutcome {
            outcome,
            ..ProfiledOutcome::default()
        };
        match script(&self.perf, &data).and_then(|text| collapse(&text)) {
            Ok(folded) => {
                profiled.samples = folded_samples(&folded);
                if profiled.samples > 0 && !folded.iter().any(|l| l.contains(KERNEL_SUFFIX)) {
                    profiled.problem = Some(
                        "no kernel frames in the samples: perf recorded user space only \
                         (kernel.perf_event_paranoid, kernel.kptr_restrict)"
                            .to_owned(),
                    );
                }
                profiled.folded = folded;
            }
            Err(e) => profiled.problem = Some(e),
        }
        if self.keep.is_some() && data.exists() {
            profiled.perf_data = Some(data);
        } else {
            let _ = std::fs::remove_file(&data);
        }
        profiled
    }
}

/// `perf script` of a recording, in the fields inferno's perf collapser reads; no
/// `period`, so that each sample counts 1.
fn script(perf: &Path, data: &Path) -> Result<Vec<u8>, String> {
    if !data.exists() {
        return Err(format!("perf wrote no `{}`", data.display()));
    }
    let output = std::process::Command::new(perf)
        .args(["script", "-i"])
        .arg(data)
        .args(["-F", "comm,pid,tid,time,event,ip,sym,dso"])
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| format!("cannot run `{} script`: {e}", perf.display()))?;
    if !output.status.success() {
        return Err(format!(
            "`perf script` failed: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    Ok(output.stdout)
}

/// perf script text into folded stacks, kernel frames marked `_[k]`, thread numbers
/// dropped from the root frame so that a pool's threads make one tower.
pub fn collapse(perf_script: &[u8]) -> Result<Vec<String>, String> {
    use inferno::collapse::Collapse;
    use inferno::collapse::perf::{Folder, Options};
    let mut options = Options::default();
    options.annotate_kernel = true;
    let mut out = Vec::new();
    Folder::from(options)
        .collapse(perf_script, &mut out)
        .map_err(|e| format!("collapsing perf samples: {e}"))?;
    let text = String::from_utf8_lossy(&out);
    Ok(merge_threads(text.lines()))
}

/// Drops `#N` from each stack's root frame (the thread name) and adds up the stacks that
/// become equal; sorted.
pub fn merge_threads<'a>(lines: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let mut merged = std::collections::BTreeMap::<String, u64>::new();
    for line in lines {
        let Some((stack, count)) = split_folded(line) else {
            continue;
        };
        let (root, rest) = stack.split_once(';').unwrap_or((stack, ""));
        let root = match root.rsplit_once('#') {
            Some((name, n)) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => name,
            _ => root,
        };
        let stack = if rest.is_empty() {
            root.to_owned()
        } else {
            format!("{root};{rest}")
        };
        *merged.entry(stack).or_default() += count;
    }
    merged
        .into_iter()
        .map(|(stack, count)| format!("{stack} {count}"))
        .collect()
}

/// A folded line's stack and count (`a;b;c 12`).
pub fn split_folded(line: &str) -> Option<(&str, u64)> {
    let (stack, count) = line.trim_end().rsplit_once(' ')?;
    Some((stack, count.parse().ok()?))
}

/// Samples in folded lines.
pub fn folded_samples(lines: &[String]) -> u64 {
    lines
        .iter()
        .filter_map(|l| split_folded(l))
        .map(|(_, n)| n)
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setting() -> PerfSetting {
        PerfSetting {
            perf: Some(PathBuf::from("/usr/bin/perf")),
            root: false,
            paranoid: Some(1),
            kptr_restrict: Some(0),
        }
    }

    #[test]
    fn the_check_refuses_what_hides_the_kernel_and_says_the_fix() {
        assert_eq!(setting().check(), Ok(PathBuf::from("/usr/bin/perf")));
        let missing = PerfSetting {
            perf: None,
            ..setting()
        };
        assert_eq!(missing.check(), Err(PerfError::Missing));
        assert!(
            PerfError::Missing
                .to_string()
                .contains("apt-get install linux-perf")
        );
        let paranoid = PerfSetting {
            paranoid: Some(2),
            ..setting()
        };
        let e = paranoid.check().unwrap_err();
        assert!(
            e.to_string()
                .contains("sysctl -w kernel.perf_event_paranoid=1")
        );
        // Root is not bound by perf_event_paranoid.
        let root = PerfSetting {
            root: true,
            ..paranoid
        };
        assert!(root.check().is_ok());
        // kptr_restrict 1 hides symbols from non-root only; 2 from everyone.
        let k1 = PerfSetting {
            kptr_restrict: Some(1),
            ..setting()
        };
        assert!(k1.check().is_err());
        assert!(
            PerfSetting {
                root: true,
                ..k1.clone()
            }
            .check()
            .is_ok()
        );
        let k2 = PerfSetting {
            root: true,
            kptr_restrict: Some(2),
            ..setting()
        };
        assert!(
            k2.check()
                .unwrap_err()
                .to_string()
                .contains("sysctl -w kernel.kptr_restrict=0")
        );
        let none = PerfSetting {
            paranoid: None,
            ..setting()
        };
        assert_eq!(none.check(), Err(PerfError::NoPerfEvents));
    }

    #[test]
    fn threads_of_a_pool_merge_into_one_root() {
        let merged = merge_threads([
            "GC_Thread#0;start_thread;os::pretouch_memory;clear_page_erms_[k] 5",
            "GC_Thread#1;start_thread;os::pretouch_memory;clear_page_erms_[k] 7",
            "java;main 2",
            "C2_CompilerThre;x 1",
            "odd#x;y 1",
            "not a folded line",
        ]);
        assert_eq!(
            merged,
            [
                "C2_CompilerThre;x 1",
                "GC_Thread;start_thread;os::pretouch_memory;clear_page_erms_[k] 12",
                "java;main 2",
                "odd#x;y 1",
            ]
        );
        assert_eq!(folded_samples(&merged), 16);
    }

    #[test]
    fn perf_script_text_collapses_with_kernel_frames_marked() {
        // The shape of `perf script -F comm,pid,tid,time,event,ip,sym,dso` (perf 6.1).
        let text = "GC Thread#1 18386/18386   409.050358: cpu-clock: \n\
            \tffffffff82203249 clear_page_erms ([kernel.kallsyms])\n\
            \tffffffff82203000 asm_exc_page_fault ([kernel.kallsyms])\n\
            \t          c23e90 os::pretouch_memory (/usr/lib/jvm/x/lib/server/libjvm.so)\n\
            \t          c23000 start_thread (/usr/lib/x86_64-linux-gnu/libc.so.6)\n\
            \n\
            GC Thread#0 18385/18385   409.051358: cpu-clock: \n\
            \tffffffff82203249 clear_page_erms ([kernel.kallsyms])\n\
            \tffffffff82203000 asm_exc_page_fault ([kernel.kallsyms])\n\
            \t          c23e90 os::pretouch_memory (/usr/lib/jvm/x/lib/server/libjvm.so)\n\
            \t          c23000 start_thread (/usr/lib/x86_64-linux-gnu/libc.so.6)\n\
            \n";
        let folded = collapse(text.as_bytes()).unwrap();
        assert_eq!(
            folded,
            [
                "GC_Thread;start_thread;os::pretouch_memory;asm_exc_page_fault_[k];clear_page_erms_[k] 2"
            ]
        );
    }

    #[test]
    fn the_record_prefix_ends_where_the_command_starts() {
        let p = record_prefix(Path::new("/usr/bin/perf"), Path::new("/t/x.data"));
        assert_eq!(p.first().unwrap(), "/usr/bin/perf");
        assert_eq!(p.last().unwrap(), "--");
        assert!(p.windows(2).any(|w| w == ["-e", "cpu-clock"]));
        assert!(p.contains(&"--no-bpf-event".to_owned()));
    }
}
