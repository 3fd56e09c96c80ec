//! A campaign across reboots, one boot at a time: what `pretouch campaign continue`
//! (the systemd unit, at every boot) does with the state it finds. It checks that the
//! kernel that came up is the one asked for (its release and, with kexec, the token on
//! its command line), runs that boot's step (`pretouch run` of the matrix under the
//! step's label, or `--resume` of the step's own result file), and asks the boot
//! loader for the next step's kernel. A boot that brought up another kernel (a panic or
//! hang that the watchdog or `panic=N` ended, the wrong kernel) is a failed boot of its
//! label, tried once more at the end; a boot that ended during its run (a power cut) is
//! booted again and its run resumed. The state is saved before every act, so a cut at
//! any point loses at most the launch in flight. Emits [`CampaignEvent`]s; never prints.

use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::features::campaign::boot::{BootLoader, BootTarget, Running, sha256_file};
use crate::features::campaign::record::{Campaign, FailedBoot, InFlight, MAX_BOOTS, Phase};
use crate::kernel::guest::GuestCommand;
use crate::kernel::session::KernelStatus;
use crate::schedule::resume::file_finished;
use crate::store::parse_result_file;

/// How a step's run ended.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StepOutcome {
    /// Its exit code, if it exited.
    pub exit_code: Option<i32>,
}

/// Runs a step's command line (`pretouch run ...`) to its end.
pub trait StepRunner {
    fn run(&mut self, command: &[String]) -> StepOutcome;
}

/// What happened, for the command to print.
#[derive(Debug)]
pub enum CampaignEvent<'a> {
    /// The kernel asked for came up; its step runs now.
    Booted { step: usize, release: &'a str },
    /// Another kernel came up.
    BootFailed(&'a FailedBoot),
    /// The boot of a step ended during its run; the step is booted again.
    RunCut { step: usize, given_up: bool },
    /// A step's calibration starts (`--calibrate-per-boot`).
    Calibrating { step: usize, command: &'a [String] },
    /// A step's run starts.
    Running {
        step: usize,
        command: &'a [String],
        resuming: bool,
    },
    /// A step's run ended.
    StepEnded { step: usize, status: KernelStatus },
    /// The next kernel is asked for.
    Booting { step: usize },
}

/// Where the campaign stands when this boot's work is done.
#[derive(Debug, PartialEq, Eq)]
pub enum Stand {
    /// A boot was asked for: this process has nothing more to do.
    Booting(usize),
    /// Every step ran (or was given up): the report and the cleanup are next.
    Finished,
    /// `campaign stop` ended it.
    Stopped,
}

/// Errors a campaign meets at a boot.
#[derive(Debug, thiserror::Error)]
pub enum CampaignError {
    #[error("writing the campaign state `{path}`")]
    Save {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("the boot loader: {0}")]
    Boot(String),
}

/// What a boot needs beside the state.
pub struct Boot<'a> {
    /// The state file.
    pub path: &'a Path,
    pub running: &'a Running,
    pub loader: &'a dyn BootLoader,
    pub runner: &'a mut dyn StepRunner,
    /// Whether `campaign stop` asked to end (checked before each boot and run).
    pub stop_asked: &'a dyn Fn() -> bool,
}

fn now_secs() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

fn utc() -> String {
    humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string()
}

/// The command a step's boot runs: generated from the campaign, never written by hand.
pub fn step_command(c: &Campaign, step: usize) -> (Vec<String>, bool) {
    let guest = GuestCommand {
        program: c.program.clone(),
        matrix: Some(c.matrix.clone()),
        options: c.options.clone(),
    };
    let kernel = &c.session.kernels[step];
    match kernel.result_file.as_deref().filter(|f| f.is_file()) {
        Some(file) => (guest.resume_in(file, None), true),
        None => (
            guest.fresh_in(kernel.label.as_deref(), &c.session.results, None),
            false,
        ),
    }
}

/// The `pretouch calibrate` a step runs before its run (`--calibrate-per-boot`), filed
/// under the step's label beside its runs; `None` without.
fn calibrate_command(c: &Campaign, step: usize) -> Option<Vec<String>> {
    let passes = c.calibrate_passes?;
    let mut command: Vec<String> = [
        c.program.display().to_string(),
        "calibrate".to_owned(),
        "--label".to_owned(),
        c.label(step).to_owned(),
        "--results".to_owned(),
        c.session.results.display().to_string(),
        "--passes".to_owned(),
        passes.to_string(),
    ]
    .into();
    if c.options.iter().any(|o| o == "--comparable-memory") {
        command.push("--comparable-memory".to_owned());
    }
    Some(command)
}

/// Does this boot's part of the campaign.
pub fn at_boot(
    c: &mut Campaign,
    boot: &mut Boot<'_>,
    events: &mut dyn FnMut(CampaignEvent<'_>),
) -> Result<Stand, CampaignError> {
    let mut own = OwnTime::since(Instant::now());
    let path = boot.path;
    let save = |c: &Campaign| {
        c.save(path).map_err(|source| CampaignError::Save {
            path: path.to_owned(),
            source,
        })
    };
    if c.stopped_at.is_some() || (boot.stop_asked)() {
        return Ok(Stand::Stopped);
    }
    if c.finished_at.is_some() {
        return Ok(Stand::Finished);
    }
    let running = boot.running.clone();
    let stand = loop {
        let Some(f) = c.in_flight.clone() else {
            let Some(step) = c.next_step() else {
                c.finished_at = Some(utc());
                break Stand::Finished;
            };
            if (boot.stop_asked)() {
                break Stand::Stopped;
            }
            if ask_step_boot(c, step, boot, &mut own, events, &save)? {
                return Ok(Stand::Booting(step));
            }
            continue;
        };
        let step = f.step;
        match f.phase {
            // No boot since the request (this process was cut before the machine went
            // down, or the loader failed): ask again.
            Phase::Booting if running.boot_id == f.boot_id => {
                c.session.kernels[step].boots -= 1;
                c.in_flight = None;
            }
            Phase::Booting => check_came_up(c, &running, f, events, &save)?,
            // The boot the step ran in is over: a power cut, a panic or a hang mid-run.
            Phase::Running if running.boot_id != f.boot_id => {
                let given_up = record_cut_run(c, step);
                save(c)?;
                events(CampaignEvent::RunCut { step, given_up });
            }
            Phase::Running => {
                if (boot.stop_asked)() {
                    break Stand::Stopped;
                }
                let t = Instant::now();
                run_step(c, step, boot, events, &save)?;
                let secs = t.elapsed().as_secs_f64();
                own.runs += secs;
                c.time.runs += secs;
                c.time.steps_timed += 1;
                save(c)?;
            }
        }
    };
    own.count(c);
    save(c)?;
    Ok(stand)
}

/// The campaign's own time in this boot: all of it since `started` but its runs', added
/// to the campaign's as it goes.
struct OwnTime {
    started: Instant,
    /// Seconds this boot's runs took.
    runs: f64,
    /// Seconds of own time added to the campaign so far.
    counted: f64,
}

impl OwnTime {
    fn since(started: Instant) -> Self {
        Self {
            started,
            runs: 0.0,
            counted: 0.0,
        }
    }

    /// Adds to the campaign's own time what this boot spent since it last did.
    fn count(&mut self, c: &mut Campaign) {
        let own = self.started.elapsed().as_secs_f64() - self.runs;
        c.time.own += own - self.counted;
        self.counted = own;
    }
}

/// Puts `step` in flight, saved, and asks the loader to boot it. Returns whether the
/// boot was asked for; a loader that refused is a failed boot of the step, recorded, and
/// nothing booted.
fn ask_step_boot(
    c: &mut Campaign,
    step: usize,
    boot: &Boot<'_>,
    own: &mut OwnTime,
    events: &mut dyn FnMut(CampaignEvent<'_>),
    save: &dyn Fn(&Campaign) -> Result<(), CampaignError>,
) -> Result<bool, CampaignError> {
    let token = mark_booting(c, step, &boot.running.boot_id);
    own.count(c);
    save(c)?;
    events(CampaignEvent::Booting { step });
    if let Err(why) = ask_boot(c.target(step), &token, boot.loader) {
        record_boot_not_made(c, boot.running, step, why);
        save(c)?;
        events(CampaignEvent::BootFailed(
            &c.failed_boots[c.failed_boots.len() - 1],
        ));
        return Ok(false);
    }
    Ok(true)
}

/// The first look at a boot asked for (`f`, in flight): the step's run is next when its
/// kernel came up (release, token and image as asked), a failed boot otherwise.
fn check_came_up(
    c: &mut Campaign,
    running: &Running,
    f: InFlight,
    events: &mut dyn FnMut(CampaignEvent<'_>),
    save: &dyn Fn(&Campaign) -> Result<(), CampaignError>,
) -> Result<(), CampaignError> {
    let step = f.step;
    c.time.boots += (now_secs() - f.asked_at).max(0.0);
    let target = c.target(step).clone();
    // With kexec the image was hashed when the boot was asked for, just before it was
    // loaded, and the token says that load came up: a file changed since (the image
    // rebuilt meanwhile) is not what runs, and the next boot's ask finds the change.
    let (token_ok, image) = match c.boot.loads_when_asked() {
        true => (running.token() == Some(f.token.as_str()), Ok(())),
        false => (true, came_up_image(running, &target)),
    };
    if running.release == target.release && token_ok && image.is_ok() {
        c.in_flight = Some(InFlight {
            phase: Phase::Running,
            boot_id: running.boot_id.clone(),
            ..f
        });
        let k = &mut c.session.kernels[step];
        k.release = Some(running.release.clone());
        k.status = KernelStatus::Running;
        save(c)?;
        events(CampaignEvent::Booted {
            step,
            release: &running.release,
        });
    } else {
        record_failed_boot(c, running, &f, &target.release, image.err());
        save(c)?;
        events(CampaignEvent::BootFailed(
            c.failed_boots.last().expect("just pushed"),
        ));
    }
    Ok(())
}

/// A boot of `step` the loader accepted in this boot (`running`) but never carried out:
/// the machine was still up `waited` later (a `systemctl --no-block kexec` whose job
/// systemd dropped, a reboot some other unit held back). Recorded as a failed boot of
/// its label, what the loader set up undone, so that the campaign goes on with the next
/// step in this boot instead of waiting for a reboot that is not coming.
pub fn boot_not_carried_out(
    c: &mut Campaign,
    running: &Running,
    loader: &dyn BootLoader,
    step: usize,
    waited: std::time::Duration,
) -> Result<(), String> {
    let in_flight = c.in_flight.as_ref();
    if !in_flight.is_some_and(|f| f.step == step && f.boot_id == running.boot_id) {
        return Err(format!("step {} is not booting from this boot", step + 1));
    }
    let _ = loader.restore();
    let why = format!(
        "the boot loader accepted the boot, but the machine was still up {} later: \
         the boot was never carried out (see `journalctl -b` for the kexec or reboot job)",
        humantime::format_duration(std::time::Duration::from_secs(waited.as_secs()))
    );
    record_boot_not_made(c, running, step, why);
    Ok(())
}

/// Counts a boot of `step` and puts it in flight, asked from the boot `boot_id`: the
/// token its command line is to carry.
fn mark_booting(c: &mut Campaign, step: usize, boot_id: &str) -> String {
    let k = &mut c.session.kernels[step];
    k.boots += 1;
    let token = format!("s{}b{}", step + 1, k.boots);
    c.in_flight = Some(InFlight {
        step,
        phase: Phase::Booting,
        boot_id: boot_id.to_owned(),
        token: token.clone(),
        asked_at: now_secs(),
    });
    token
}

/// Asks the loader to boot `target`, once its image is checked to be the one planned:
/// `Err` with why no boot is under way (the image changed, the loader failed), after
/// undoing what the loader may have set up.
fn ask_boot(target: &BootTarget, token: &str, loader: &dyn BootLoader) -> Result<(), String> {
    match sha256_file(&target.image) {
        Ok(now) if now == target.image_sha256 => {}
        Ok(now) => {
            return Err(format!(
                "the wrong kernel: `{}` changed since the campaign was planned (sha256 {} \
                 planned, {now} now); not booted",
                target.image.display(),
                target.image_sha256
            ));
        }
        Err(e) => {
            return Err(format!(
                "cannot read `{}`, so it was not booted: {e}",
                target.image.display()
            ));
        }
    }
    loader.boot(target, token).map_err(|e| {
        let _ = loader.restore();
        format!("the boot loader failed: {e}")
    })
}

/// Records that the boot of `step` was not made (the loader failed, the image
/// changed): a failed boot of its label, tried again at the end like any other.
fn record_boot_not_made(c: &mut Campaign, running: &Running, step: usize, why: String) {
    let failed = FailedBoot {
        step,
        label: c.label(step).to_owned(),
        expected: c.target(step).release.clone(),
        found: format!("{} (no boot)", running.release),
        why,
        at: utc(),
    };
    let k = &mut c.session.kernels[step];
    k.status = KernelStatus::BootFailed;
    k.message = Some(format!("boot {} was not made: {}", k.boots, failed.why));
    c.failed_boots.push(failed);
    c.in_flight = None;
}

/// Whether the image of the kernel that came up is the one planned, where the boot
/// names it (`BOOT_IMAGE=`, a file here): `Err` naming both hashes when not.
fn came_up_image(running: &Running, target: &BootTarget) -> Result<(), String> {
    let Some(image) = running.image() else {
        return Ok(());
    };
    match sha256_file(&image) {
        Ok(found) if found == target.image_sha256 => Ok(()),
        Ok(found) => Err(format!(
            "the wrong kernel came up: its image `{}` has sha256 {found}, the campaign \
             planned {} (`{}`)",
            image.display(),
            target.image_sha256,
            target.image.display()
        )),
        Err(e) => Err(format!(
            "the image the boot names, `{}`, cannot be read to check it: {e}",
            image.display()
        )),
    }
}

/// Records that the boot `f` asked for brought up `running` instead of `expected` (or
/// the release asked for from another image, `image`): the step's boot failed, and it
/// is tried again at the end.
fn record_failed_boot(
    c: &mut Campaign,
    running: &Running,
    f: &InFlight,
    expected: &str,
    image: Option<String>,
) {
    let step = f.step;
    let why = match image {
        Some(why) if running.release == expected => why,
        _ => failed_boot_cause(c, running, expected, &f.token),
    };
    // The release asked for, but not this boot: say what tells them apart, so that a
    // line never reads "expected X, found X".
    let found = if running.release != expected {
        running.release.clone()
    } else {
        match (c.boot, running.token().filter(|t| !t.is_empty())) {
            (crate::features::campaign::boot::BootMethod::Reboot, _) => {
                format!("{} from another image", running.release)
            }
            (_, None) => format!("{} without this boot's token {}", running.release, f.token),
            (_, Some(t)) if t != f.token => {
                format!("{} with token {t}, not {}", running.release, f.token)
            }
            (_, Some(_)) => format!("{} from another image", running.release),
        }
    };
    let failed = FailedBoot {
        step,
        label: c.label(step).to_owned(),
        expected: expected.to_owned(),
        found,
        why,
        at: utc(),
    };
    let k = &mut c.session.kernels[step];
    k.status = KernelStatus::BootFailed;
    k.message = Some(format!(
        "boot {} brought up {} instead of {}: {}",
        k.boots, failed.found, failed.expected, failed.why
    ));
    c.failed_boots.push(failed);
    c.in_flight = None;
}

/// Records that the boot `step` ran in ended during its run; true when the step is
/// given up after [`MAX_BOOTS`] boots.
fn record_cut_run(c: &mut Campaign, step: usize) -> bool {
    claim_result_file(c, step);
    let k = &mut c.session.kernels[step];
    let given_up = k.boots >= MAX_BOOTS;
    k.status = if given_up {
        KernelStatus::RunFailed
    } else {
        KernelStatus::Interrupted
    };
    k.message = Some(format!(
        "boot {} ended during its run (a power loss, a panic or a hang){}",
        k.boots,
        if given_up { "; given up" } else { "" }
    ));
    c.in_flight = None;
    given_up
}

/// Why the boot for `expected` brought up `running`.
fn failed_boot_cause(c: &Campaign, running: &Running, expected: &str, token: &str) -> String {
    if running.release == c.default_release && running.token() != Some(token) {
        "the default kernel came up: the kernel asked for panicked or hung (the watchdog or \
         panic=N rebooted the machine), or the power went"
            .to_owned()
    } else if running.release != expected {
        format!("the wrong kernel came up (`{}`)", running.release)
    } else {
        "the right release came up, without this boot's token: another boot of it".to_owned()
    }
}

/// Runs a step in this boot: its result file resumed if it has one.
fn run_step(
    c: &mut Campaign,
    step: usize,
    boot: &mut Boot<'_>,
    events: &mut dyn FnMut(CampaignEvent<'_>),
    save: &dyn Fn(&Campaign) -> Result<(), CampaignError>,
) -> Result<(), CampaignError> {
    claim_result_file(c, step);
    let done = c.session.kernels[step]
        .result_file
        .as_deref()
        .is_some_and(file_finished);
    let mut outcome = StepOutcome { exit_code: Some(0) };
    if !done
        && c.session.kernels[step].calibrated.is_none()
        && let Some(command) = calibrate_command(c, step)
    {
        events(CampaignEvent::Calibrating {
            step,
            command: &command,
        });
        let calibrated = boot.runner.run(&command);
        c.session.kernels[step].calibrated = Some(calibrated.exit_code.unwrap_or(-1));
        save(c)?;
    }
    if !done {
        let (command, resuming) = step_command(c, step);
        if !resuming {
            if c.spawned_at.len() < c.session.kernels.len() {
                c.spawned_at.resize(c.session.kernels.len(), None);
            }
            c.spawned_at[step] = Some(utc());
            save(c)?;
        }
        events(CampaignEvent::Running {
            step,
            command: &command,
            resuming,
        });
        outcome = boot.runner.run(&command);
        claim_result_file(c, step);
    }
    let finished_file = c.session.kernels[step]
        .result_file
        .as_deref()
        .is_some_and(file_finished);
    let k = &mut c.session.kernels[step];
    let (status, message) = match outcome.exit_code {
        Some(0) if finished_file => (KernelStatus::Done, None),
        Some(3) if finished_file => (
            KernelStatus::Done,
            Some("some launches failed (recorded, in no median)".to_owned()),
        ),
        Some(130 | 143) | None => (
            KernelStatus::Interrupted,
            Some("its run was interrupted".to_owned()),
        ),
        Some(code) => (
            KernelStatus::RunFailed,
            Some(format!("`pretouch run` exited with code {code}")),
        ),
    };
    k.status = status;
    k.message = message;
    c.in_flight = None;
    events(CampaignEvent::StepEnded { step, status });
    Ok(())
}

/// Finds the result file a step's run wrote, if it is not known yet: the first file
/// of its label started at or after its run, that no other step has.
fn claim_result_file(c: &mut Campaign, step: usize) {
    if c.session.kernels[step].result_file.is_some() {
        return;
    }
    let Some(Some(since)) = c.spawned_at.get(step).cloned() else {
        return;
    };
    let dir = c.session.results.join(c.label(step));
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return;
    };
    let taken: Vec<PathBuf> = c
        .session
        .kernels
        .iter()
        .filter_map(|k| k.result_file.clone())
        .collect();
    let mut candidates: Vec<(String, PathBuf)> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl") && !taken.contains(p))
        .filter_map(|p| {
            let bytes = std::fs::read(&p).ok()?;
            let started = parse_result_file(&p, &bytes).0?.header.started_at.clone();
            (started >= since).then_some((started, p))
        })
        .collect();
    candidates.sort();
    if let Some((_, file)) = candidates.into_iter().next() {
        c.session.kernels[step].result_file = Some(file);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::campaign::boot::BootMethod;
    use std::cell::RefCell;

    /// Boots nothing: remembers what was asked.
    #[derive(Default)]
    struct Loader {
        asked: RefCell<Vec<(String, String)>>,
        /// Boots of this release fail, as a failed `kexec -e`.
        failing: Option<String>,
        restored: RefCell<u32>,
    }

    impl BootLoader for Loader {
        fn check(&self, _: &BootTarget) -> Result<(), String> {
            Ok(())
        }
        fn way_back(&self) -> Result<(), String> {
            Ok(())
        }
        fn boot(&self, target: &BootTarget, token: &str) -> Result<(), String> {
            if self.failing.as_deref() == Some(target.release.as_str()) {
                return Err("kexec_load failed: Operation not permitted".into());
            }
            self.asked
                .borrow_mut()
                .push((target.release.clone(), token.to_owned()));
            Ok(())
        }
        fn restore(&self) -> Result<(), String> {
            *self.restored.borrow_mut() += 1;
            Ok(())
        }
        fn boot_default(&self) -> Result<(), String> {
            Ok(())
        }
    }

    /// Writes a finished result file of the label the command names.
    struct Runner {
        results: PathBuf,
        commands: Vec<Vec<String>>,
        code: i32,
    }

    fn arg_after<'a>(command: &'a [String], flag: &str) -> Option<&'a str> {
        let at = command.iter().position(|a| a == flag)?;
        command.get(at + 1).map(String::as_str)
    }

    impl StepRunner for Runner {
        fn run(&mut self, command: &[String]) -> StepOutcome {
            self.commands.push(command.to_vec());
            if command.get(1).map(String::as_str) == Some("calibrate") {
                return StepOutcome { exit_code: Some(0) };
            }
            let path = match arg_after(command, "--resume") {
                Some(f) => PathBuf::from(f),
                None => {
                    let label = arg_after(command, "--label").unwrap();
                    let n = self.commands.len();
                    self.results.join(label).join(format!("quick-{n}.jsonl"))
                }
            };
            let label = path
                .parent()
                .unwrap()
                .file_name()
                .unwrap()
                .to_str()
                .unwrap();
            crate::fixtures::write_empty_run(&path, label, &utc(), true);
            StepOutcome {
                exit_code: Some(self.code),
            }
        }
    }

    /// The store's two-kernel, two-run campaign, as a kexec campaign of releases
    /// `6.1-a` and `6.1-b` recording into `results`.
    fn campaign(results: &Path) -> Campaign {
        let mut c = crate::features::campaign::record::tests::campaign(&["a", "b"], 2);
        for target in &mut c.targets {
            target.release = format!("6.1-{}", target.release);
            target.image = results.join(format!("vmlinuz-{}", target.release));
            std::fs::write(&target.image, &target.release).unwrap();
            target.image_sha256 = sha256_file(&target.image).unwrap();
        }
        c.session.results = results.to_owned();
        c.boot = BootMethod::Kexec;
        c.program = "/c/pretouch".into();
        c.matrix = "/c/matrix.yaml".into();
        c.options = vec!["--timeout".into(), "300".into()];
        c.default_release = "6.1-default".into();
        c.estimate_run_secs = 1.0;
        c.estimate_boot_secs = 1.0;
        c
    }

    /// A campaign recording into `dir`, the path of its state file, a boot loader and a
    /// step runner that succeed: what each test starts from.
    fn start(dir: &Path) -> (PathBuf, Campaign, Loader, Runner) {
        let runner = Runner {
            results: dir.into(),
            commands: vec![],
            code: 0,
        };
        (
            dir.join("campaign.json"),
            campaign(dir),
            Loader::default(),
            runner,
        )
    }

    fn at(
        c: &mut Campaign,
        path: &Path,
        running: &Running,
        loader: &Loader,
        runner: &mut Runner,
    ) -> Stand {
        let mut boot = Boot {
            path,
            running,
            loader,
            runner,
            stop_asked: &|| false,
        };
        at_boot(c, &mut boot, &mut |_| {}).unwrap()
    }

    /// Boots as asked until the campaign ends; the stand at the end.
    fn boot_to_the_end(c: &mut Campaign, path: &Path, loader: &Loader, runner: &mut Runner) {
        loop {
            let (release, token) = loader.asked.borrow().last().cloned().unwrap();
            let id = format!("x{}", loader.asked.borrow().len());
            match at(c, path, &running(&release, &id, &token), loader, runner) {
                Stand::Booting(_) => {}
                _ => break,
            }
        }
    }

    #[test]
    fn a_failed_boot_loader_is_a_failed_boot_of_its_label_and_the_campaign_goes_on() {
        let dir = tempfile::tempdir().unwrap();
        let (path, mut c, mut loader, mut runner) = start(dir.path());
        loader.failing = Some("6.1-a".into());
        let stand = at(
            &mut c,
            &path,
            &running("6.1-default", "b0", ""),
            &loader,
            &mut runner,
        );
        // a cannot be booted: recorded with the loader's message; b is booted instead.
        assert_eq!(stand, Stand::Booting(1));
        assert_eq!(c.failed_boots.len(), 1);
        let f = &c.failed_boots[0];
        assert_eq!((f.step, f.label.as_str()), (0, "a"));
        assert!(
            f.why.contains("the boot loader failed: kexec_load failed"),
            "{f:?}"
        );
        assert_eq!(c.session.kernels[0].status, KernelStatus::BootFailed);
        assert!(
            *loader.restored.borrow() >= 1,
            "what the loader set up undone"
        );
        // The state on disk says the same: no boot of a left in flight.
        let read = Campaign::load(&path).unwrap();
        assert_eq!(read.in_flight.as_ref().map(|f| f.step), Some(1));
        assert_eq!(read.failed_boots.len(), 1);
        boot_to_the_end(&mut c, &path, &loader, &mut runner);
        // b ran both its runs; each of a's steps was tried twice, then given up.
        assert!(c.finished_at.is_some());
        assert_eq!(c.done(), 2);
        let asked: Vec<String> = loader.asked.borrow().iter().map(|a| a.0.clone()).collect();
        assert_eq!(asked, ["6.1-b", "6.1-b"]);
        assert_eq!(c.failed_boots.len(), 4, "two steps of a, two tries each");
        assert!(c.session.kernels.iter().all(|k| k.boots <= 2));
    }

    /// Rebuilds a's image under its release while its boot, the last one asked for,
    /// is under way; the boot that comes up: the release and token asked, naming the
    /// image (`BOOT_IMAGE=`).
    fn rebuilt_a_comes_up(c: &Campaign, loader: &Loader) -> Running {
        let image = &c.target(0).image;
        std::fs::write(image, "6.1-a, rebuilt").unwrap();
        let (release, token) = loader.asked.borrow().last().cloned().unwrap();
        let mut up = running(&release, "b1", &token);
        up.cmdline = format!(
            "ro BOOT_IMAGE={} pretouch.campaign={token}",
            image.display()
        );
        up
    }

    #[test]
    fn an_image_other_than_the_planned_one_is_a_wrong_kernel_naming_both_hashes() {
        let dir = tempfile::tempdir().unwrap();
        // A bootloader reads the image at boot time, so what came up is known by the
        // image its boot names.
        let (path, mut c, loader, mut runner, _) =
            first_boot_asked(dir.path(), |c| c.boot = BootMethod::Reboot);
        // a is rebuilt under the same release while its boot is under way: the kernel
        // that comes up names an image with another hash.
        let planned = c.target(0).image_sha256.clone();
        let up = rebuilt_a_comes_up(&c, &loader);
        let now = sha256_file(&c.target(0).image).unwrap();
        let stand = at(&mut c, &path, &up, &loader, &mut runner);
        assert_eq!(stand, Stand::Booting(1), "b goes on");
        assert!(runner.commands.is_empty(), "a's run did not start");
        let f = &c.failed_boots[0];
        assert!(
            f.why.contains("the wrong kernel") && f.why.contains(&planned) && f.why.contains(&now),
            "{f:?}"
        );
        // Before a's next boot the image is checked again: not booted, a failed boot.
        boot_to_the_end(&mut c, &path, &loader, &mut runner);
        let asked: Vec<String> = loader.asked.borrow().iter().map(|a| a.0.clone()).collect();
        assert_eq!(asked, ["6.1-a", "6.1-b", "6.1-b"]);
        assert!(
            c.failed_boots[1..]
                .iter()
                .all(|f| f.why.contains("changed since the campaign was planned")),
            "{:?}",
            c.failed_boots
        );
        // The right image, named by the boot, passes.
        let target = c.target(1).clone();
        let mut right = running(&target.release, "b9", "t");
        right.cmdline = format!("BOOT_IMAGE={}", target.image.display());
        assert!(came_up_image(&right, &target).is_ok());
    }

    #[test]
    fn an_image_rebuilt_after_its_kexec_load_is_not_what_came_up_and_is_not_booted_again() {
        let dir = tempfile::tempdir().unwrap();
        let (path, mut c, loader, mut runner, _) = first_boot_asked(dir.path(), |_| {});
        // a's image was hashed and loaded by the ask; rebuilt afterwards, the file is
        // no longer what was loaded, and the kernel with the boot's token is.
        let up = rebuilt_a_comes_up(&c, &loader);
        let stand = at(&mut c, &path, &up, &loader, &mut runner);
        assert_eq!(stand, Stand::Booting(1), "b is next");
        assert!(c.failed_boots.is_empty(), "{:?}", c.failed_boots);
        assert_eq!(c.session.kernels[0].status, KernelStatus::Done);
        // a's second run: its image is checked before the boot, and refused.
        boot_to_the_end(&mut c, &path, &loader, &mut runner);
        let asked: Vec<String> = loader.asked.borrow().iter().map(|a| a.0.clone()).collect();
        assert_eq!(asked, ["6.1-a", "6.1-b", "6.1-b"]);
        assert!(
            !c.failed_boots.is_empty()
                && c.failed_boots
                    .iter()
                    .all(|f| f.label == "a"
                        && f.why.contains("changed since the campaign was planned")),
            "{:?}",
            c.failed_boots
        );
    }

    fn running(release: &str, boot_id: &str, token: &str) -> Running {
        Running {
            release: release.into(),
            boot_id: boot_id.into(),
            cmdline: format!("ro pretouch.campaign={token}"),
        }
    }

    #[test]
    fn each_boot_runs_its_step_and_asks_for_the_next_kernel_in_turn() {
        let dir = tempfile::tempdir().unwrap();
        let (path, mut c, loader, mut runner) = start(dir.path());
        c.save(&path).unwrap();
        // The start: the default kernel runs; the first step's kernel is asked for.
        let start = running("6.1-default", "boot0", "");
        assert_eq!(
            at(&mut c, &path, &start, &loader, &mut runner),
            Stand::Booting(0)
        );
        let mut n = 0;
        loop {
            let (release, token) = loader.asked.borrow().last().cloned().unwrap();
            n += 1;
            let up = running(&release, &format!("boot{n}"), &token);
            // Each boot reads the state back from disk, as a new process does.
            let mut read = Campaign::load(&path).unwrap();
            match at(&mut read, &path, &up, &loader, &mut runner) {
                Stand::Booting(_) => {}
                Stand::Finished => break,
                Stand::Stopped => unreachable!(),
            }
        }
        let asked: Vec<String> = loader.asked.borrow().iter().map(|a| a.0.clone()).collect();
        assert_eq!(asked, ["6.1-a", "6.1-b", "6.1-a", "6.1-b"]);
        let labels: Vec<&str> = runner
            .commands
            .iter()
            .map(|c| arg_after(c, "--label").unwrap())
            .collect();
        assert_eq!(labels, ["a", "b", "a", "b"]);
        assert_eq!(runner.commands[0][0], "/c/pretouch");
        assert_eq!(runner.commands[0][2], "/c/matrix.yaml");
        assert!(!runner.commands[0].contains(&"--in-vm".to_owned()));
        let c = Campaign::load(&path).unwrap();
        assert_eq!(c.done(), 4);
        assert!(c.finished_at.is_some());
        let files: std::collections::BTreeSet<_> = c
            .session
            .kernels
            .iter()
            .map(|k| k.result_file.clone().unwrap())
            .collect();
        assert_eq!(files.len(), 4, "each step its own file");
    }

    /// [`start`], saved, and its first boot asked from the default kernel (`boot0`).
    fn first_boot_asked(
        dir: &Path,
        c: impl FnOnce(&mut Campaign),
    ) -> (PathBuf, Campaign, Loader, Runner, Running) {
        let (path, mut campaign, loader, mut runner) = start(dir);
        c(&mut campaign);
        campaign.save(&path).unwrap();
        let start = running("6.1-default", "boot0", "");
        assert_eq!(
            at(&mut campaign, &path, &start, &loader, &mut runner),
            Stand::Booting(0)
        );
        (path, campaign, loader, runner, start)
    }

    #[test]
    fn a_boot_accepted_but_never_carried_out_is_a_failed_boot_and_the_next_step_is_asked() {
        let dir = tempfile::tempdir().unwrap();
        let (path, mut c, loader, mut runner, start) = first_boot_asked(dir.path(), |_| {});
        let wait = std::time::Duration::from_secs(600);
        // Another boot's process cannot claim it.
        let other = running("6.1-default", "boot9", "");
        assert!(boot_not_carried_out(&mut c, &other, &loader, 0, wait).is_err());
        boot_not_carried_out(&mut c, &start, &loader, 0, wait).unwrap();
        assert_eq!(*loader.restored.borrow(), 1, "the loader's setup undone");
        let failed = c.failed_boots.last().unwrap();
        assert_eq!(failed.step, 0);
        assert!(
            failed.why.contains("never carried out") && failed.why.contains("10m"),
            "{}",
            failed.why
        );
        assert_eq!(c.session.kernels[0].status, KernelStatus::BootFailed);
        // The campaign goes on in this boot: the next step's kernel is asked for.
        assert_eq!(
            at(&mut c, &path, &start, &loader, &mut runner),
            Stand::Booting(1)
        );
    }

    #[test]
    fn the_asked_release_without_the_boots_token_is_named_apart_from_what_was_asked() {
        let dir = tempfile::tempdir().unwrap();
        let (path, mut c, loader, mut runner, _) = first_boot_asked(dir.path(), |_| {});
        let token = loader.asked.borrow().last().unwrap().1.clone();
        // a's release comes up, but not from this boot (the default kernel is the
        // same release, or an earlier boot's kernel): no token on its command line.
        at(
            &mut c,
            &path,
            &running("6.1-a", "b1", ""),
            &loader,
            &mut runner,
        );
        let failed = c.failed_boots.last().unwrap();
        assert_eq!(failed.expected, "6.1-a");
        assert_eq!(
            failed.found,
            format!("6.1-a without this boot's token {token}")
        );
    }

    #[test]
    fn calibrate_per_boot_runs_once_a_step_before_its_run_under_its_label() {
        let dir = tempfile::tempdir().unwrap();
        let (path, mut c, loader, mut runner, _) =
            first_boot_asked(dir.path(), |c| c.calibrate_passes = Some(2));
        boot_to_the_end(&mut c, &path, &loader, &mut runner);
        let kinds: Vec<(&str, &str)> = (runner.commands.iter())
            .map(|c| (c[1].as_str(), arg_after(c, "--label").unwrap()))
            .collect();
        assert_eq!(
            kinds,
            [
                ("calibrate", "a"),
                ("run", "a"),
                ("calibrate", "b"),
                ("run", "b"),
                ("calibrate", "a"),
                ("run", "a"),
                ("calibrate", "b"),
                ("run", "b")
            ]
        );
        assert_eq!(arg_after(&runner.commands[0], "--passes"), Some("2"));
        let c = Campaign::load(&path).unwrap();
        assert!(c.session.kernels.iter().all(|k| k.calibrated == Some(0)));
    }

    #[test]
    fn a_wrong_kernel_is_a_failed_boot_tried_again_at_the_end_and_a_cut_run_resumes() {
        let dir = tempfile::tempdir().unwrap();
        let (path, mut c, loader, mut runner) = start(dir.path());
        at(
            &mut c,
            &path,
            &running("6.1-default", "b0", ""),
            &loader,
            &mut runner,
        );
        // The default kernel comes up instead of a: a hang or panic, recorded.
        let stand = at(
            &mut c,
            &path,
            &running("6.1-default", "b1", ""),
            &loader,
            &mut runner,
        );
        assert_eq!(stand, Stand::Booting(1), "b goes on");
        assert_eq!(c.failed_boots.len(), 1);
        assert!(
            c.failed_boots[0].why.contains("default kernel"),
            "{:?}",
            c.failed_boots
        );
        assert_eq!(c.session.kernels[0].status, KernelStatus::BootFailed);
        // b comes up, and its run is cut by a power loss: the state says Running.
        let token = loader.asked.borrow().last().unwrap().1.clone();
        c.in_flight = Some(InFlight {
            phase: Phase::Running,
            boot_id: "b2".into(),
            ..c.in_flight.clone().unwrap()
        });
        c.session.kernels[1].status = KernelStatus::Running;
        c.save(&path).unwrap();
        // The default kernel comes up after the cut: b is booted again.
        let stand = at(
            &mut c,
            &path,
            &running("6.1-default", "b3", ""),
            &loader,
            &mut runner,
        );
        assert_eq!(stand, Stand::Booting(1));
        assert_eq!(c.session.kernels[1].status, KernelStatus::Interrupted);
        assert_ne!(
            loader.asked.borrow().last().unwrap().1,
            token,
            "a new token"
        );
        // The rest runs; a is tried again last.
        loop {
            let (release, token) = loader.asked.borrow().last().cloned().unwrap();
            let id = format!("x{}", loader.asked.borrow().len());
            match at(
                &mut c,
                &path,
                &running(&release, &id, &token),
                &loader,
                &mut runner,
            ) {
                Stand::Booting(_) => {}
                _ => break,
            }
        }
        let asked: Vec<String> = loader.asked.borrow().iter().map(|a| a.0.clone()).collect();
        assert_eq!(
            asked,
            ["6.1-a", "6.1-b", "6.1-b", "6.1-a", "6.1-b", "6.1-a"]
        );
        assert_eq!(c.done(), 4);
        assert_eq!(c.session.kernels[0].boots, 2);
    }

    #[test]
    fn a_cut_before_the_machine_went_down_asks_for_the_same_boot_again() {
        let dir = tempfile::tempdir().unwrap();
        let (path, mut c, loader, mut runner) = start(dir.path());
        let start = running("6.1-default", "b0", "");
        at(&mut c, &path, &start, &loader, &mut runner);
        let mut c = Campaign::load(&path).unwrap();
        at(&mut c, &path, &start, &loader, &mut runner);
        let asked = loader.asked.borrow().clone();
        assert_eq!(asked.len(), 2);
        assert_eq!(asked[0], asked[1], "the same kernel and token");
        assert_eq!(c.session.kernels[0].boots, 1);
        assert!(runner.commands.is_empty());
    }
}
