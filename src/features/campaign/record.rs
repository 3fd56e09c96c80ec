//! A campaign's state (`pretouch run --boot kexec|reboot`): a kernel session whose
//! entries are the campaign's steps, one boot each, plus what a boot needs to know
//! where it stands: which step it was booted for (and by which token), the boots that
//! failed and what came up instead, and the time spent. One JSON file in the
//! root-owned campaign folder, rewritten whole after every change (write, fsync,
//! rename, fsync of the folder), so a power cut leaves the last state or the one
//! before, never half of one.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::features::campaign::boot::{BootMethod, BootTarget};
use crate::kernel::session::{KernelSession, KernelStatus, save_json};
use crate::store::feature_files::{FileKind, Part};

/// Version of the campaign format.
pub const CAMPAIGN_FORMAT: u32 = 1;

/// The name of the campaign's state copied into its results folder when it ends: what
/// `pretouch report` of the folder reads for the boots that failed.
pub const STATE_COPY: &str = "campaign.json";

/// Whether `path` is a campaign's state copied into its results folder.
pub fn is_state_copy(path: &Path) -> bool {
    path.file_name().is_some_and(|n| n == STATE_COPY)
}

/// The states of ended campaigns among the result files, as the store finds and reads
/// them: their failed boots are reported.
pub const FILES: FileKind = FileKind {
    is_one: is_state_copy,
    read: read_state_copies,
    beside_each_run: false,
};

/// Every campaign state of `paths`, a `Vec<Campaign>`. A state that cannot be read is
/// skipped with a warning that names it.
fn read_state_copies(paths: &[PathBuf], warnings: &mut Vec<String>) -> Box<dyn Part> {
    let mut campaigns: Vec<Campaign> = Vec::new();
    for path in paths {
        match Campaign::load(path) {
            Ok(c) => campaigns.push(c),
            Err(e) => warnings.push(format!("{e}. Its failed boots are not reported.")),
        }
    }
    Box::new(campaigns)
}

/// Boots a step may take: a step cut by a power loss or a hang mid-run is booted
/// again (its run resumed) until then, and is then given up.
pub const MAX_BOOTS: u32 = 3;

/// A campaign.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Campaign {
    /// Campaign format version ([`CAMPAIGN_FORMAT`]).
    pub format: u32,
    /// The steps, in the order they boot: each a run of its kernel's label
    /// (`kernels[i].label` always set, `run` its run of the label).
    pub session: KernelSession,
    /// How the kernels are booted.
    pub boot: BootMethod,
    /// The kernels, once each.
    pub targets: Vec<BootTarget>,
    /// The kernel (index into `targets`) each step boots.
    pub order: Vec<usize>,
    /// The `pretouch` each boot runs: root's copy in the campaign folder.
    pub program: PathBuf,
    /// The matrix each boot runs: root's copy in the campaign folder.
    pub matrix: PathBuf,
    /// The options each boot's run gets (`--timeout`, `--probe`, ...).
    pub options: Vec<String>,
    /// The kernel that ran when the campaign started: the default one, which comes up
    /// when a one-shot boot fails.
    pub default_release: String,
    /// The boot under way, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub in_flight: Option<InFlight>,
    /// Each boot that did not bring up the kernel asked for.
    #[serde(default)]
    pub failed_boots: Vec<FailedBoot>,
    /// Per step: when its run started (RFC 3339), to find the result file it wrote.
    #[serde(default)]
    pub spawned_at: Vec<Option<String>>,
    /// The time spent, for `campaign status` and the cost of the campaign itself.
    #[serde(default)]
    pub time: TimeSpent,
    /// Estimated seconds of one step's run and of one boot, from the plan.
    /// `--calibrate-per-boot N`: each step runs `pretouch calibrate --passes N` of its
    /// kernel before its run; absent: none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub calibrate_passes: Option<u32>,
    pub estimate_run_secs: f64,
    pub estimate_boot_secs: f64,
    /// When the last step ended (RFC 3339); the campaign is then cleaned up.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finished_at: Option<String>,
    /// `campaign stop` ended it (RFC 3339).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped_at: Option<String>,
}

/// A boot the campaign asked for, and how far the step it was asked for got.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InFlight {
    /// The step (index into `session.kernels`).
    pub step: usize,
    pub phase: Phase,
    /// `Booting`: the boot id when the boot was asked for (the same id later means no
    /// boot happened); `Running`: the boot the step runs in.
    pub boot_id: String,
    /// The `pretouch.campaign=` token its command line carries (kexec).
    pub token: String,
    /// When the boot was asked for, seconds since the epoch.
    pub asked_at: f64,
}

/// Where the step in flight stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Its kernel was asked for and has not been seen yet.
    Booting,
    /// Its kernel came up and its run started.
    Running,
}

/// A boot that brought up another kernel than the one asked for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FailedBoot {
    /// The step, from 0.
    pub step: usize,
    pub label: String,
    /// The release asked for.
    pub expected: String,
    /// The release that came up.
    pub found: String,
    /// What that means.
    pub why: String,
    /// When it was found (RFC 3339).
    pub at: String,
}

impl FailedBoot {
    /// `expected A, found B: why`, as `campaign status` and the report say it.
    pub fn what_came_up(&self) -> String {
        format!(
            "expected {}, found {}: {}",
            self.expected, self.found, self.why
        )
    }
}

/// Seconds spent, summed over the boots.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TimeSpent {
    /// In the steps' runs (`pretouch run` of the matrix).
    pub runs: f64,
    /// From a boot asked for to the campaign's next start.
    pub boots: f64,
    /// The campaign's own: its checks, state writes, the report, outside the runs.
    pub own: f64,
    /// Of `own`, the part before the first boot: the checks, the plan and root's
    /// copies (not the time the confirmation waited for an answer).
    #[serde(default)]
    pub start: f64,
    /// Of `own`, the end's: the state copied beside the results and the report.
    #[serde(default)]
    pub end: f64,
    /// Runs done, for the average step.
    pub steps_timed: u32,
}

impl TimeSpent {
    /// The campaign's whole time: its runs, its boots and its own.
    pub fn whole(&self) -> f64 {
        self.runs + self.boots + self.own
    }

    /// Of `own`, the part spent at the boots: checking the kernel that came up, finding
    /// a step's results, the state writes between a run and the next boot.
    pub fn own_at_boots(&self) -> f64 {
        (self.own - self.start - self.end).max(0.0)
    }
}

impl Campaign {
    pub fn load(path: &Path) -> Result<Campaign, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
        serde_json::from_str(&text)
            .map_err(|e| format!("`{}` is not a pretouch campaign ({e})", path.display()))
    }

    /// Writes the state whole, synced (see the module's header).
    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        save_json(path, self)
    }

    /// The step's label.
    pub fn label(&self, step: usize) -> &str {
        self.session.kernels[step].label.as_deref().unwrap_or("?")
    }

    /// The kernel a step boots.
    pub fn target(&self, step: usize) -> &BootTarget {
        &self.targets[self.order[step]]
    }

    /// The next step to boot: the first not yet run (or cut, with boots left), then a
    /// step whose boot failed once, tried again at the end.
    pub fn next_step(&self) -> Option<usize> {
        let k = &self.session.kernels;
        (0..k.len())
            .find(|&i| k[i].status != KernelStatus::BootFailed && self.still_to_run(i))
            .or_else(|| (0..k.len()).find(|&i| self.still_to_run(i)))
    }

    /// Whether a step is still to be booted: not run yet, cut with boots left, or a
    /// failed boot not yet tried again.
    pub fn still_to_run(&self, step: usize) -> bool {
        let k = &self.session.kernels[step];
        match k.status {
            KernelStatus::Pending | KernelStatus::Running | KernelStatus::Interrupted => {
                k.boots < MAX_BOOTS
            }
            KernelStatus::BootFailed => k.boots < 2,
            KernelStatus::Done | KernelStatus::RunFailed => false,
        }
    }

    /// Steps done, of all.
    pub fn done(&self) -> usize {
        self.session
            .kernels
            .iter()
            .filter(|k| k.status == KernelStatus::Done)
            .count()
    }

    /// Estimated seconds left: the steps still open, each at the mean of the steps
    /// timed so far (or the plan's estimate) plus a boot.
    pub fn seconds_left(&self) -> f64 {
        let open = (0..self.session.kernels.len())
            .filter(|&i| self.still_to_run(i))
            .count() as f64;
        let per_run = match self.time.steps_timed {
            0 => self.estimate_run_secs,
            n => self.time.runs / f64::from(n),
        };
        let boots_seen = self.session.kernels.iter().map(|k| k.boots).sum::<u32>();
        let per_boot = match boots_seen {
            0 | 1 => self.estimate_boot_secs,
            n => self.time.boots / f64::from(n - 1),
        };
        open * (per_run + per_boot)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::kernel::session::{KernelState, SESSION_FORMAT};

    pub(crate) fn campaign(labels: &[&str], runs: u32) -> Campaign {
        let targets: Vec<BootTarget> = labels
            .iter()
            .map(|l| BootTarget {
                image: format!("/boot/vmlinuz-{l}").into(),
                initrd: None,
                cmdline: "ro".into(),
                release: (*l).into(),
                image_sha256: "00".into(),
                entry: None,
            })
            .collect();
        let mut kernels = Vec::new();
        let mut order = Vec::new();
        for run in 1..=runs {
            for (i, t) in targets.iter().enumerate() {
                kernels.push(KernelState {
                    run: Some(run),
                    ..KernelState::pending(t.image.clone(), None, Some(labels[i].into()))
                });
                order.push(i);
            }
        }
        Campaign {
            format: CAMPAIGN_FORMAT,
            session: KernelSession {
                format: SESSION_FORMAT,
                name: "quick".into(),
                matrix_origin: "m.yaml".into(),
                matrix_sha256: "00".into(),
                started_at: "2026-12-01T00:00:00Z".into(),
                results: "/r".into(),
                kernels,
                probe_rounds: None,
                profile_rounds: None,
                runs: Some(runs),
            },
            boot: BootMethod::Fake,
            targets,
            spawned_at: vec![],
            order,
            program: "/var/lib/pretouch-campaign/pretouch".into(),
            matrix: "/var/lib/pretouch-campaign/matrix.yaml".into(),
            options: vec![],
            default_release: "default".into(),
            in_flight: None,
            failed_boots: vec![],
            time: TimeSpent::default(),
            calibrate_passes: None,
            estimate_run_secs: 60.0,
            estimate_boot_secs: 30.0,
            finished_at: None,
            stopped_at: None,
        }
    }

    #[test]
    fn next_step_runs_in_turn_then_retries_a_failed_boot_once() {
        let mut c = campaign(&["a", "b"], 2);
        assert_eq!(c.next_step(), Some(0));
        c.session.kernels[0].status = KernelStatus::Done;
        c.session.kernels[1].status = KernelStatus::BootFailed;
        c.session.kernels[1].boots = 1;
        assert_eq!(c.next_step(), Some(2));
        c.session.kernels[2].status = KernelStatus::Done;
        c.session.kernels[3].status = KernelStatus::Done;
        assert_eq!(c.next_step(), Some(1), "the failed boot, once more");
        c.session.kernels[1].boots = 2;
        assert_eq!(c.next_step(), None);
        // A run cut by a power loss is booted again until MAX_BOOTS.
        c.session.kernels[3].status = KernelStatus::Interrupted;
        c.session.kernels[3].boots = MAX_BOOTS;
        assert_eq!(c.next_step(), None);
    }

    #[test]
    fn saves_whole_and_reads_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("campaign.json");
        let c = campaign(&["a", "b"], 3);
        c.save(&path).unwrap();
        assert_eq!(Campaign::load(&path).unwrap(), c);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn the_store_reads_each_state_copy_and_names_the_one_it_cannot_read() {
        let dir = tempfile::tempdir().unwrap();
        let good = dir.path().join("a").join(STATE_COPY);
        let bad = dir.path().join("b").join(STATE_COPY);
        std::fs::create_dir_all(bad.parent().unwrap()).unwrap();
        let c = campaign(&["a"], 1);
        c.save(&good).unwrap();
        std::fs::write(&bad, "{").unwrap();
        assert!((FILES.is_one)(&good) && !(FILES.is_one)(&dir.path().join("x.jsonl")));
        let mut warnings = Vec::new();
        let part = (FILES.read)(&[good, bad.clone()], &mut warnings);
        let read = (&*part as &dyn std::any::Any).downcast_ref::<Vec<Campaign>>();
        assert_eq!(read, Some(&vec![c]));
        assert_eq!(warnings.len(), 1);
        assert!(
            warnings[0].contains(&bad.display().to_string()),
            "{warnings:?}"
        );
        assert!(warnings[0].ends_with("Its failed boots are not reported."));
    }
}
