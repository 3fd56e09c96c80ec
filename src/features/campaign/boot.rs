//! This machine's boots, for a campaign across reboots (`pretouch run --boot kexec`):
//! which kernel runs now (release, boot id, command line), and the boot loaders that
//! boot the next kernel, behind [`BootLoader`] so that a fake one stands in for the
//! tests. `kexec` loads the image with `kexec -l` and boots it with `systemctl kexec`;
//! `reboot` sets the bootloader's one-shot entry with `grub-reboot` and reboots, so a
//! kernel that does not come up leaves the firmware's default kernel to come up next.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// Environment variables that stand in for what the campaign reads of the running
/// kernel. The fake reboots of the tests set them. Only builds with the `test-support`
/// feature read them, so a shipped binary always reads the kernel's own facts.
const RELEASE_VAR: &str = "PRETOUCH_CAMPAIGN_RELEASE";
const BOOT_ID_VAR: &str = "PRETOUCH_CAMPAIGN_BOOT_ID";
const CMDLINE_VAR: &str = "PRETOUCH_CAMPAIGN_CMDLINE";

/// The boot parameter that names each boot of a campaign (`kexec` adds it to the
/// command line), so that the boot that comes up is known to be the one asked for.
const TOKEN_PARAM: &str = "pretouch.campaign";

/// The kernel running now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Running {
    /// `uname -r`.
    pub release: String,
    /// `/proc/sys/kernel/random/boot_id`: new at every boot, kexec included.
    pub boot_id: String,
    /// `/proc/cmdline`.
    pub cmdline: String,
}

impl Running {
    /// This machine's kernel, each fact overridden by its variable when set.
    pub fn read() -> Running {
        let var = |name: &str| {
            let read = cfg!(feature = "test-support");
            read.then(|| std::env::var(name).ok())
                .flatten()
                .filter(|v| !v.is_empty())
        };
        let file = |path: &str| {
            std::fs::read_to_string(path)
                .map(|t| t.trim().to_owned())
                .unwrap_or_default()
        };
        Running {
            release: var(RELEASE_VAR)
                .unwrap_or_else(|| crate::machine::host::host_info().kernel_release),
            boot_id: var(BOOT_ID_VAR).unwrap_or_else(|| file("/proc/sys/kernel/random/boot_id")),
            cmdline: var(CMDLINE_VAR).unwrap_or_else(|| file("/proc/cmdline")),
        }
    }

    /// The `pretouch.campaign=` token of this boot's command line, if any.
    pub fn token(&self) -> Option<&str> {
        self.param(TOKEN_PARAM)
    }

    fn param(&self, name: &str) -> Option<&str> {
        self.cmdline
            .split_whitespace()
            .find_map(|p| p.strip_prefix(name)?.strip_prefix('='))
    }

    /// The image this boot names (`BOOT_IMAGE=`: GRUB sets it, and the campaign's
    /// kexec adds it), as a file here: the path as given, else under /boot (GRUB names
    /// it from the root of a separate /boot partition), a `(hd0,gpt2)` device dropped.
    pub fn image(&self) -> Option<PathBuf> {
        let named = self.param("BOOT_IMAGE")?;
        let named = named.rsplit_once(')').map_or(named, |(_, p)| p);
        let path = PathBuf::from(named);
        if path.is_file() {
            return Some(path);
        }
        let under = Path::new("/boot").join(named.trim_start_matches('/'));
        under.is_file().then_some(under)
    }
}

/// SHA-256 of a file, hex.
pub fn sha256_file(path: &Path) -> std::io::Result<String> {
    use sha2::Digest;
    let mut hasher = sha2::Sha256::new();
    std::io::copy(&mut std::fs::File::open(path)?, &mut hasher)?;
    Ok(hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect())
}

/// The command line a campaign's boot of `target` carries: the target's, the image it
/// boots (`BOOT_IMAGE=`, so the kernel that comes up names it, as GRUB's do) and the
/// boot's token.
fn boot_cmdline(target: &BootTarget, token: &str) -> String {
    format!(
        "{} BOOT_IMAGE={} {TOKEN_PARAM}={token}",
        target.cmdline,
        target.image.display()
    )
    .trim()
    .to_owned()
}

/// How a campaign boots its kernels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum BootMethod {
    /// `kexec -l` the image, then `systemctl kexec`: no firmware, no bootloader
    Kexec,
    /// The bootloader's one-shot entry (`grub-reboot`), then `systemctl reboot`: for
    /// machines where kexec is not safe
    Reboot,
    /// Tests only: record each boot asked for in a file, boot nothing
    #[cfg(feature = "test-support")]
    #[value(hide = true)]
    Fake,
}

impl BootMethod {
    /// Whether the kernel is loaded when its boot is asked for (`kexec -l`), right after
    /// the campaign checked its image's hash, and so comes up with the boot's token on
    /// its command line: the token then proves both that the boot is the one asked for
    /// and that its kernel is the image hashed. A bootloader (`--boot reboot`) reads
    /// the image at boot time, and puts no token there, so the kernel that came up is
    /// known only by its release and the hash of the image its boot names.
    pub fn loads_when_asked(self) -> bool {
        match self {
            BootMethod::Kexec => true,
            #[cfg(feature = "test-support")]
            BootMethod::Fake => true,
            BootMethod::Reboot => false,
        }
    }
}

impl std::fmt::Display for BootMethod {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            BootMethod::Kexec => "kexec",
            BootMethod::Reboot => "reboot",
            #[cfg(feature = "test-support")]
            BootMethod::Fake => "fake",
        })
    }
}

/// A kernel a campaign boots.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BootTarget {
    /// The kernel image (absolute).
    pub image: PathBuf,
    /// Its initramfs, if it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initrd: Option<PathBuf>,
    /// The whole command line `kexec` boots it with (without the campaign's token);
    /// with `reboot`, the bootloader's entry has its own.
    pub cmdline: String,
    /// The release it reports (`uname -r`), read from the image's header.
    pub release: String,
    /// SHA-256 of the image, hex, taken when the campaign was planned.
    pub image_sha256: String,
    /// The bootloader entry (`reboot`): `submenu>entry` titles, as `grub-reboot` takes them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entry: Option<String>,
}

/// Boots kernels. Every method but [`BootLoader::boot`] and
/// [`BootLoader::boot_default`] leaves the running kernel alone.
pub trait BootLoader {
    /// Whether `target` can be booted: `kexec` loads it and unloads it again; `reboot`
    /// looks for its entry.
    fn check(&self, target: &BootTarget) -> Result<(), String>;
    /// Whether a boot that fails comes back to the default kernel by itself.
    fn way_back(&self) -> Result<(), String>;
    /// Boots `target` with `token` added to its command line. The real loaders return
    /// once the reboot is under way (the process is then stopped with the machine).
    fn boot(&self, target: &BootTarget, token: &str) -> Result<(), String>;
    /// Undoes what [`BootLoader::boot`] set up, so that the next boot is the default one.
    fn restore(&self) -> Result<(), String>;
    /// Boots the default kernel: the campaign's last act.
    fn boot_default(&self) -> Result<(), String>;
}

/// The loader for `method`; `fake_log` is where the fake one writes.
pub fn loader(method: BootMethod, fake_log: &Path) -> Box<dyn BootLoader> {
    #[cfg(not(feature = "test-support"))]
    let _ = fake_log;
    match method {
        BootMethod::Kexec => Box::new(Kexec),
        BootMethod::Reboot => Box::new(GrubReboot::default()),
        #[cfg(feature = "test-support")]
        BootMethod::Fake => Box::new(FakeLoader {
            log: fake_log.to_owned(),
        }),
    }
}

/// Runs `program args`, its output captured: `Err` with what it said unless it exits 0.
fn run(program: &str, args: &[String]) -> Result<(), String> {
    let out = duct::cmd(program, args)
        // Outermost first: stdout captured, then stderr joins it. The other order sent
        // stderr to the runner's own stdout, and a failure's message was lost.
        .stderr_to_stdout()
        .stdout_capture()
        .stdin_null()
        .unchecked()
        .run()
        .map_err(|e| format!("cannot run `{program}`: {e}"))?;
    if out.status.success() {
        return Ok(());
    }
    Err(format!(
        "`{program} {}` failed ({}): {}",
        args.join(" "),
        out.status,
        String::from_utf8_lossy(&out.stdout).trim()
    ))
}

/// What `command` printed on stdout, if it ran and exited 0 (its stderr dropped).
fn printed(command: duct::Expression) -> Option<String> {
    command
        .stderr_null()
        .stdout_capture()
        .unchecked()
        .run()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
}

/// Waits (up to a minute) for udev to finish the boot's device events, so that the
/// watchdog driver it loads is bound before systemd arms the watchdog for the kexec:
/// the campaign's unit starts after `multi-user.target`, which does not wait for udev,
/// and a short step could otherwise ask for the next kexec before `/dev/watchdog0`
/// exists, leaving a kernel that then hangs without a reset. Without `udevadm` (no
/// udev) there is nothing to wait for; a timeout is said on the console, and the boot
/// goes on.
fn settle_devices() {
    if let Err(e) = run("udevadm", &["settle".to_owned(), "--timeout=60".to_owned()])
        && !e.starts_with("cannot run")
    {
        eprintln!("pretouch campaign: warning: {e}. The campaign boots on.");
    }
}

/// `kexec -l` and `systemctl kexec`.
pub struct Kexec;

impl Kexec {
    fn load(target: &BootTarget, token: Option<&str>) -> Result<(), String> {
        let cmdline = match token {
            Some(token) => boot_cmdline(target, token),
            None => target.cmdline.clone(),
        };
        let mut args = vec!["-l".to_owned(), target.image.display().to_string()];
        // A trial load is undone at once, so the SHA-256 of every segment (the kernel
        // and the initramfs) that kexec-tools computes for purgatory to check before
        // it jumps is never checked: `--no-checks` skips it. A boot's real load keeps
        // it. From kexec-tools 2.0.27 `kexec -l` tries kexec_file_load first, where the
        // kernel computes the digest and the option changes nothing; the trial does not
        // force the older call, which a locked-down kernel refuses.
        if token.is_none() {
            args.push("--no-checks".to_owned());
        }
        if let Some(initrd) = &target.initrd {
            args.push(format!("--initrd={}", initrd.display()));
        }
        args.push(format!("--command-line={cmdline}"));
        run("kexec", &args)
    }
}

/// `systemctl --no-block VERB` under systemd, `fallback` without it.
fn systemctl_or(verb: &str, fallback: (&str, &[&str])) -> Result<(), String> {
    if Path::new("/run/systemd/system").is_dir() {
        run("systemctl", &["--no-block".to_owned(), verb.to_owned()])
    } else {
        let args: Vec<String> = fallback.1.iter().map(|a| (*a).to_owned()).collect();
        run(fallback.0, &args)
    }
}

impl BootLoader for Kexec {
    fn check(&self, target: &BootTarget) -> Result<(), String> {
        // A trial load, undone at once: it proves the image, initrd and command line
        // load, and executes nothing.
        Kexec::load(target, None)?;
        run("kexec", &["-u".to_owned()])
    }

    fn way_back(&self) -> Result<(), String> {
        // A kexec'd kernel that hangs comes back only through a reset: the hardware
        // watchdog, armed by systemd before the kexec (KExecWatchdogSec=) and kept
        // running into the new kernel (`watchdog.stop_on_reboot=0`, which
        // [`kexec_cmdline`] adds).
        if !Path::new("/dev/watchdog0").exists() && !Path::new("/dev/watchdog").exists() {
            return Err(
                "no hardware watchdog (/dev/watchdog0): a kexec'd kernel that hangs would stay \
                 hung until someone resets the machine\n  fix: load the board's watchdog driver \
                 (e.g. iTCO_wdt, sp5100_tco) and set KExecWatchdogSec= in \
                 /etc/systemd/system.conf, or --force to run without a way back from a hang"
                    .to_owned(),
            );
        }
        let armed = printed(duct::cmd(
            "systemctl",
            ["show", "-p", "KExecWatchdogUSec", "--value"],
        ))
        .map(|o| o.trim().to_owned());
        match armed.as_deref() {
            Some("0" | "" | "infinity") => Err(format!(
                "systemd does not arm the hardware watchdog for kexec (KExecWatchdogUSec={}): \
                 a kexec'd kernel that hangs would stay hung\n  fix: set KExecWatchdogSec=2min \
                 in the [Manager] section of /etc/systemd/system.conf (note the capital E) and \
                 run `systemctl daemon-reexec`, or --force",
                armed.as_deref().unwrap_or_default()
            )),
            _ => Ok(()),
        }
    }

    fn boot(&self, target: &BootTarget, token: &str) -> Result<(), String> {
        settle_devices();
        Kexec::load(target, Some(token))?;
        systemctl_or("kexec", ("kexec", &["-e"]))
    }

    fn restore(&self) -> Result<(), String> {
        run("kexec", &["-u".to_owned()])
    }

    fn boot_default(&self) -> Result<(), String> {
        let _ = self.restore();
        systemctl_or("reboot", ("reboot", &[]))
    }
}

/// `grub-reboot ENTRY` and `systemctl reboot`.
pub struct GrubReboot {
    /// grub.cfg, read for the entries.
    pub config: PathBuf,
    /// /etc/default/grub, read for `GRUB_DEFAULT=saved`.
    pub defaults: PathBuf,
}

impl Default for GrubReboot {
    fn default() -> GrubReboot {
        GrubReboot {
            config: "/boot/grub/grub.cfg".into(),
            defaults: "/etc/default/grub".into(),
        }
    }
}

impl GrubReboot {
    /// The entries of grub.cfg as `grub-reboot` names them: `submenu>entry` titles.
    pub fn entries(config: &str) -> Vec<String> {
        let mut stack: Vec<(String, usize)> = Vec::new();
        let mut depth = 0usize;
        let mut entries = Vec::new();
        for line in config.lines() {
            let line = line.trim();
            let title = || line.split('\'').nth(1).map(str::to_owned);
            if line.starts_with("submenu ") {
                if let Some(t) = title() {
                    stack.push((t, depth));
                }
            } else if line.starts_with("menuentry ")
                && let Some(t) = title()
            {
                let mut path: Vec<String> = stack.iter().map(|(s, _)| s.clone()).collect();
                path.push(t);
                entries.push(path.join(">"));
            }
            depth += line.matches('{').count();
            depth = depth.saturating_sub(line.matches('}').count());
            while stack.last().is_some_and(|(_, d)| *d >= depth) && line.contains('}') {
                stack.pop();
            }
        }
        entries
    }

    /// Whether /etc/default/grub's text says `GRUB_DEFAULT=saved`.
    pub fn saved_default(defaults: &str) -> bool {
        defaults
            .lines()
            .any(|l| l.trim().replace(['"', '\''], "") == "GRUB_DEFAULT=saved")
    }

    /// Whether GRUB can clear grub-reboot's one-shot `next_entry` as it boots it, from
    /// what `grub-probe --target=abstraction GRUBENV` printed: GRUB writes its
    /// environment block only "on a plain disk (no LVM or RAID)" (its manual, "Environment
    /// block"), so under any abstraction (`lvm`, `diskfilter`, `cryptodisk`)
    /// `next_entry` stays set, every boot brings that entry up again, and a kernel that
    /// fails never comes back to the default (grub-reboot warns so for LVM and RAID, on
    /// its stdout, which a campaign does not show). In the emulated guest of
    /// `scripts/kexec-chain-vm.sh` (a plain ext4 partition) GRUB cleared it at every boot.
    pub fn grubenv_writable(grubenv: &Path, abstractions: &str) -> Result<(), String> {
        let on: Vec<&str> = abstractions.split_whitespace().collect();
        if on.is_empty() {
            return Ok(());
        }
        Err(format!(
            "GRUB's environment block `{}` is on {}, where GRUB cannot write it: \
                 grub-reboot's one-shot entry would stay set, every boot would bring the same \
                 kernel up, and a kernel that fails would not come back to the default\n  \
                 fix: --boot kexec, or /boot on a plain partition, or --force (and clear it \
                 yourself: grub-editenv - unset next_entry)",
            grubenv.display(),
            on.join(" ")
        ))
    }

    /// The entry that boots `release`: its title names the release, and it is not the
    /// recovery mode.
    pub fn entry_for(config: &str, release: &str) -> Option<String> {
        let named = format!("Linux {release}");
        GrubReboot::entries(config).into_iter().find(|e| {
            let last = e.rsplit('>').next().unwrap_or(e);
            last.ends_with(&named) && !last.contains("recovery")
        })
    }
}

impl BootLoader for GrubReboot {
    fn check(&self, target: &BootTarget) -> Result<(), String> {
        let config = std::fs::read_to_string(&self.config)
            .map_err(|e| format!("cannot read `{}`: {e}", self.config.display()))?;
        let Some(entry) = &target.entry else {
            return Err(format!(
                "no bootloader entry for {} in `{}`\n  fix: install the kernel so that \
                 update-grub lists it, then run update-grub",
                target.release,
                self.config.display()
            ));
        };
        if GrubReboot::entries(&config).iter().any(|e| e == entry) {
            Ok(())
        } else {
            Err(format!(
                "`{}` has no entry `{entry}`\n  fix: run update-grub",
                self.config.display()
            ))
        }
    }

    fn way_back(&self) -> Result<(), String> {
        let defaults = std::fs::read_to_string(&self.defaults).unwrap_or_default();
        if !GrubReboot::saved_default(&defaults) {
            return Err(format!(
                "`{}` does not say GRUB_DEFAULT=saved (grub-reboot(8) asks for it): the \
                 default boot, which a kernel that fails comes back to, is then the saved \
                 entry\n  fix: set GRUB_DEFAULT=saved there, run update-grub and \
                 grub-set-default with the entry to come back to",
                self.defaults.display()
            ));
        }
        // Where grub-probe cannot tell, grub-reboot cannot either: nothing to say.
        let grubenv = self.config.with_file_name("grubenv");
        let abstractions = printed(duct::cmd!("grub-probe", "--target=abstraction", &grubenv));
        match abstractions {
            Some(found) => GrubReboot::grubenv_writable(&grubenv, &found),
            None => Ok(()),
        }
    }

    fn boot(&self, target: &BootTarget, _token: &str) -> Result<(), String> {
        let entry = target.entry.clone().ok_or("no bootloader entry")?;
        run("grub-reboot", &[entry])?;
        systemctl_or("reboot", ("reboot", &[]))
    }

    fn restore(&self) -> Result<(), String> {
        run(
            "grub-editenv",
            &["-".to_owned(), "unset".to_owned(), "next_entry".to_owned()],
        )
    }

    fn boot_default(&self) -> Result<(), String> {
        self.restore()?;
        systemctl_or("reboot", ("reboot", &[]))
    }
}

/// One line of the fake loader's log: what was asked of it.
#[cfg(feature = "test-support")]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct FakeBoot {
    /// `boot`, `restore` or `default`.
    pub action: String,
    /// The kernel asked for (`boot`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<BootTarget>,
    /// The command line it would boot with, token included (`boot`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cmdline: Option<String>,
}

/// Boots nothing: appends each request to a log, where a test harness reads which
/// kernel to "boot" next. While a file `fail-boot-RELEASE` lies beside the log, a boot
/// of that release fails with the file's text, as a failed `kexec -e` or `grub-reboot`.
#[cfg(feature = "test-support")]
struct FakeLoader {
    pub log: PathBuf,
}

#[cfg(feature = "test-support")]
impl FakeLoader {
    fn note(&self, line: &FakeBoot) -> Result<(), String> {
        use std::io::Write;
        let text = serde_json::to_string(line).map_err(|e| e.to_string())? + "\n";
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.log)
            .and_then(|mut f| {
                f.write_all(text.as_bytes())?;
                f.sync_all()
            })
            .map_err(|e| format!("`{}`: {e}", self.log.display()))
    }
}

#[cfg(feature = "test-support")]
impl BootLoader for FakeLoader {
    fn check(&self, target: &BootTarget) -> Result<(), String> {
        std::fs::File::open(&target.image)
            .map(drop)
            .map_err(|e| format!("cannot load `{}`: {e}", target.image.display()))
    }

    fn way_back(&self) -> Result<(), String> {
        Ok(())
    }

    fn boot(&self, target: &BootTarget, token: &str) -> Result<(), String> {
        let fail = self
            .log
            .with_file_name(format!("fail-boot-{}", target.release));
        if let Ok(said) = std::fs::read_to_string(fail) {
            return Err(said.trim().to_owned());
        }
        self.note(&FakeBoot {
            action: "boot".into(),
            target: Some(target.clone()),
            cmdline: Some(boot_cmdline(target, token)),
        })
    }

    fn restore(&self) -> Result<(), String> {
        self.note(&FakeBoot {
            action: "restore".into(),
            target: None,
            cmdline: None,
        })
    }

    fn boot_default(&self) -> Result<(), String> {
        self.note(&FakeBoot {
            action: "default".into(),
            target: None,
            cmdline: None,
        })
    }
}

/// The command line a kexec'd kernel gets: this boot's, less what names this boot
/// (`BOOT_IMAGE=`, `initrd=`, an earlier campaign token), with `extra`, a `panic=` that
/// reboots a panicked kernel (into the default kernel) unless one is given, and
/// `watchdog.stop_on_reboot=0` unless one is given: watchdog drivers such as iTCO_wdt
/// and i6300esb stop their timer on reboot, and kexec counts as one, so without it the
/// watchdog systemd armed before the kexec stops and a kernel that hangs is never reset
/// (seen in `scripts/kexec-chain-vm.sh`'s hang test).
pub fn kexec_cmdline(current: &str, extra: Option<&str>) -> String {
    let mut params: Vec<&str> = current
        .split_whitespace()
        .filter(|p| {
            !p.starts_with("BOOT_IMAGE=")
                && !p.starts_with("initrd=")
                && !p.starts_with(&format!("{TOKEN_PARAM}="))
        })
        .collect();
    params.extend(extra.unwrap_or_default().split_whitespace());
    if !params.iter().any(|p| p.starts_with("panic=")) {
        params.push("panic=30");
    }
    if !params
        .iter()
        .any(|p| p.starts_with("watchdog.stop_on_reboot="))
    {
        params.push("watchdog.stop_on_reboot=0");
    }
    params.join(" ")
}

/// The initramfs of an installed kernel image (`/boot/vmlinuz-R` -> `/boot/initrd.img-R`).
pub fn installed_initrd(image: &Path) -> Option<PathBuf> {
    let name = image.file_name()?.to_str()?;
    let release = name.strip_prefix("vmlinuz-")?;
    let initrd = image.with_file_name(format!("initrd.img-{release}"));
    initrd.is_file().then_some(initrd)
}

#[cfg(test)]
mod tests {
    use super::*;

    const GRUB: &str = "\
menuentry 'Debian GNU/Linux' --class debian $menuentry_id_option 'gnulinux-simple-1' {
\tlinux\t/boot/vmlinuz-6.1.0-13-amd64 root=UUID=1 ro quiet
}
submenu 'Advanced options for Debian GNU/Linux' $menuentry_id_option 'gnulinux-advanced-1' {
\tmenuentry 'Debian GNU/Linux, with Linux 6.1.0-13-amd64' --class debian {
\t\tlinux\t/boot/vmlinuz-6.1.0-13-amd64 root=UUID=1 ro quiet
\t}
\tmenuentry 'Debian GNU/Linux, with Linux 6.1.0-13-amd64 (recovery mode)' --class debian {
\t\tlinux\t/boot/vmlinuz-6.1.0-13-amd64 root=UUID=1 ro single
\t}
\tmenuentry 'Debian GNU/Linux, with Linux 6.12.117+deb12-amd64' --class debian {
\t\tlinux\t/boot/vmlinuz-6.12.117+deb12-amd64 root=UUID=1 ro quiet
\t}
}
menuentry 'UEFI Firmware Settings' $menuentry_id_option 'uefi-firmware' {
\tfwsetup
}
";

    #[test]
    fn grub_entries_are_named_as_grub_reboot_takes_them() {
        let entries = GrubReboot::entries(GRUB);
        assert_eq!(entries.len(), 5, "{entries:?}");
        assert_eq!(entries[0], "Debian GNU/Linux");
        assert_eq!(
            GrubReboot::entry_for(GRUB, "6.12.117+deb12-amd64").as_deref(),
            Some(
                "Advanced options for Debian GNU/Linux>Debian GNU/Linux, with Linux 6.12.117+deb12-amd64"
            )
        );
        assert_eq!(
            GrubReboot::entry_for(GRUB, "6.1.0-13-amd64").as_deref(),
            Some(
                "Advanced options for Debian GNU/Linux>Debian GNU/Linux, with Linux 6.1.0-13-amd64"
            )
        );
        // After the submenu closes, an entry is at the top again.
        assert_eq!(entries[4], "UEFI Firmware Settings");
        assert_eq!(GrubReboot::entry_for(GRUB, "6.99"), None);
    }

    #[test]
    fn a_reboot_s_way_back_needs_a_saved_default_and_a_grubenv_grub_can_write() {
        assert!(GrubReboot::saved_default(
            "GRUB_TIMEOUT=1\nGRUB_DEFAULT=saved\n"
        ));
        assert!(GrubReboot::saved_default("  GRUB_DEFAULT=\"saved\""));
        assert!(GrubReboot::saved_default("GRUB_DEFAULT='saved'"));
        assert!(!GrubReboot::saved_default(
            "GRUB_DEFAULT=0\n#GRUB_DEFAULT=saved2\n"
        ));
        let env = Path::new("/boot/grub/grubenv");
        // A plain partition: grub-probe prints nothing (or a newline).
        assert_eq!(GrubReboot::grubenv_writable(env, ""), Ok(()));
        assert_eq!(GrubReboot::grubenv_writable(env, "\n"), Ok(()));
        for on in [
            "lvm\n",
            "diskfilter\n",
            "cryptodisk luks\n",
            "diskfilter lvm\n",
        ] {
            let e = GrubReboot::grubenv_writable(env, on).unwrap_err();
            assert!(e.contains("where GRUB cannot write it"), "{e}");
            assert!(e.contains("grub-editenv - unset next_entry"), "{e}");
        }
    }

    #[test]
    fn the_kexec_cmdline_keeps_the_boot_s_own_and_adds_a_way_back_from_a_panic() {
        let current = "BOOT_IMAGE=/boot/vmlinuz-6.1 root=UUID=1 ro quiet pretouch.campaign=s1b1";
        assert_eq!(
            kexec_cmdline(current, Some("transparent_hugepage=always")),
            "root=UUID=1 ro quiet transparent_hugepage=always panic=30 watchdog.stop_on_reboot=0"
        );
        assert_eq!(
            kexec_cmdline("ro panic=5 watchdog.stop_on_reboot=1", None),
            "ro panic=5 watchdog.stop_on_reboot=1"
        );
        let running = Running {
            release: "r".into(),
            boot_id: "b".into(),
            cmdline: "ro pretouch.campaign=s2b1 quiet".into(),
        };
        assert_eq!(running.token(), Some("s2b1"));
    }
}
