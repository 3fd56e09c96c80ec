//! `pretouch run --boot kexec|reboot`: a campaign of kernels on this machine, one boot
//! per run, continued at each boot by a systemd unit. Everything is checked before the
//! first boot (root, the kernels loadable, the matrix and its memory, disk space, a way
//! back, folders no other user can write), the plan printed and confirmed; then root's
//! copy of `pretouch`, the matrix and the state go into the root-owned campaign folder,
//! the unit is installed and the first kernel booted. `pretouch campaign continue` (the
//! unit) does one boot's part; at the end the report is written beside the results,
//! everything installed is removed and the default kernel booted. `pretouch campaign
//! status` and `stop`.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Context;
use sha2::Digest;

use crate::features::campaign::boot::{
    self, BootLoader, BootMethod, BootTarget, GrubReboot, Running, installed_initrd, kexec_cmdline,
};
use crate::features::campaign::options::{CampaignAction, CampaignArgs};
use crate::features::campaign::record::{CAMPAIGN_FORMAT, Campaign, STATE_COPY, TimeSpent};
use crate::features::campaign::schedule::{
    Boot, CampaignEvent, Stand, StepOutcome, StepRunner, at_boot, boot_not_carried_out,
    step_command,
};
use crate::features::campaign::unit::{self, Layout, PID_FILE, STATE_FILE, STOP_FILE};
use crate::features::header::ExtraRounds;
use crate::features::report_options::ReportOptions;
use crate::kernel::KernelSpec;
use crate::kernel::image::image_release;
use crate::kernel::session::{KernelSession, KernelState, KernelStatus, SESSION_FORMAT};
use crate::matrix::Matrix;
use crate::render::common::Format;
use crate::schedule::plan::Plan;
use crate::schedule::preview::estimate_launch;
use crate::schedule::resume::matrix_sha256;
use crate::session::args::RunArgs;
use crate::session::checks::{check_label, check_memory, resolve_app, resolve_jdks};
use crate::session::error::bad;

/// Boot times the plan assumes until the campaign has timed its own.
const KEXEC_BOOT_SECS: f64 = 60.0;
const REBOOT_BOOT_SECS: f64 = 180.0;

/// Result bytes a launch writes at most, for the disk check (a quick-matrix launch
/// writes about 10 KiB).
const BYTES_PER_LAUNCH: u64 = 64 << 10;

/// Names of what the end writes beside the results.
const REPORT_TEXT: &str = "campaign-report.txt";
const REPORT_JSON: &str = "campaign-report.json";

/// The fake boot loader's log, under the campaign root (tests).
const FAKE_LOG: &str = "fake-boot.jsonl";

fn euid() -> u32 {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() }
}

fn loader_for(method: BootMethod, layout: &Layout) -> Box<dyn BootLoader> {
    boot::loader(method, &layout.root.join(FAKE_LOG))
}

/// `pretouch run MATRIX --kernel A --kernel B --runs 3 --boot kexec`: everything checked,
/// the plan printed and confirmed, then the campaign installed and its first boot asked.
pub(crate) fn cmd_start(args: &RunArgs, matrix: Matrix, method: BootMethod) -> anyhow::Result<u8> {
    let t0 = Instant::now();
    let root = args
        .features
        .campaign
        .campaign_root()
        .map_or_else(|| "/".into(), Path::to_path_buf);
    let layout = Layout::new(&root);
    check_start(args, method, &layout)?;
    let running = Running::read();
    let loader = loader_for(method, &layout);
    // The JDK is asked about its collectors (a JVM start or more) while the kernels are
    // hashed and trial-loaded: the two checks share nothing, and under emulation each
    // takes seconds. A kernel's error is still named before the matrix's.
    let (kernels, checked_matrix) = std::thread::scope(|s| {
        let matrix_checked = s.spawn(|| check_matrix(args, &matrix));
        let kernels = check_kernels(args, &matrix, method, &running, &*loader);
        let checked_matrix = matrix_checked
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        (kernels, checked_matrix)
    });
    let (kernels, checked_matrix) = (kernels?, checked_matrix?);
    let mut campaign = new_campaign(
        args,
        &matrix,
        &checked_matrix,
        &layout,
        &running,
        method,
        kernels,
    )?;
    print_plan(&campaign, &matrix, checked_matrix.plan.launches.len());
    // The time the question waits for its answer is the user's, not the campaign's.
    let checked = t0.elapsed();
    if args.dry_run || !confirmed(args, &campaign)? {
        return Ok(0);
    }
    install(
        &matrix,
        args.matrix.as_deref(),
        &checked_matrix,
        &layout,
        &mut campaign,
        checked,
    )?;
    continue_here(&layout, &mut campaign, &running, &*loader)
}

/// The campaign's kernels as given, each checked bootable, then the way back from a
/// kernel that does not come up (refused without one, unless `--force`).
fn check_kernels(
    args: &RunArgs,
    matrix: &Matrix,
    method: BootMethod,
    running: &Running,
    loader: &dyn BootLoader,
) -> anyhow::Result<CampaignKernels> {
    let specs = campaign_kernels(args, matrix)?;
    let (targets, labels) = boot_targets(&specs, method, running, loader)?;
    if let Err(e) = loader.way_back() {
        if !args.force {
            return Err(bad(anyhow::anyhow!("no way back: {e}")));
        }
        eprintln!("warning: {e}\n  --force: going on");
    }
    Ok(CampaignKernels {
        specs,
        targets,
        labels,
    })
}

/// The kernels a campaign boots, as checked: as given, as booted, and their labels, in
/// the order of `--kernel`.
struct CampaignKernels {
    specs: Vec<KernelSpec>,
    targets: Vec<BootTarget>,
    labels: Vec<String>,
}

/// The campaign's state before its first boot: its results folder checked, each boot's
/// options, its steps (every kernel once a run, in turn) and its estimates.
fn new_campaign(
    args: &RunArgs,
    matrix: &Matrix,
    checked: &CheckedMatrix,
    layout: &Layout,
    running: &Running,
    method: BootMethod,
    kernels: CampaignKernels,
) -> anyhow::Result<Campaign> {
    let plan = &checked.plan;
    let (run_secs, boot_secs) = estimate_secs(matrix, plan, method);
    let started = std::time::SystemTime::now();
    let utc = humantime::format_rfc3339_seconds(started).to_string();
    let results = results_folder(args, matrix, &utc, kernels.specs.len(), plan.launches.len())?;
    let dir_in_system = Layout::dir_in_system();
    let ExtraRounds {
        probe_rounds,
        profile_rounds,
    } = args.features.extra_rounds(&matrix.features);
    let agent = checked.agent.as_deref();
    let options = boot_options(args, layout, agent, &results, probe_rounds, profile_rounds)?;
    let (order, steps) = campaign_steps(args.features.kernels.runs, &kernels);
    Ok(Campaign {
        format: CAMPAIGN_FORMAT,
        session: KernelSession {
            format: SESSION_FORMAT,
            name: matrix.name.clone(),
            matrix_origin: matrix.origin.clone(),
            matrix_sha256: matrix_sha256(&matrix.text),
            started_at: utc,
            results,
            kernels: steps,
            probe_rounds,
            profile_rounds,
            runs: Some(args.features.kernels.runs),
        },
        boot: method,
        targets: kernels.targets,
        order,
        program: layout.under(&dir_in_system.join(unit::BINARY)),
        matrix: layout.under(&dir_in_system.join(unit::MATRIX)),
        options,
        default_release: running.release.clone(),
        in_flight: None,
        failed_boots: vec![],
        spawned_at: vec![],
        time: TimeSpent::default(),
        calibrate_passes: args.features.campaign.calibrate_per_boot,
        estimate_run_secs: run_secs,
        estimate_boot_secs: boot_secs,
        finished_at: None,
        stopped_at: None,
    })
}

/// Seconds a boot's run takes (every round of the plan's cells, warm-up included) as
/// estimated, and seconds its boot takes as assumed until the campaign has timed its own.
fn estimate_secs(matrix: &Matrix, plan: &Plan, method: BootMethod) -> (f64, f64) {
    let cpus = crate::machine::host::host_info().cpus;
    let per_round: f64 = plan
        .cells
        .iter()
        .map(|c| (estimate_launch(c, false, cpus) + estimate_launch(c, true, cpus)).as_secs_f64())
        .sum();
    let run_secs = per_round * f64::from(matrix.warmup + matrix.repetitions);
    let boot_secs = match method {
        BootMethod::Reboot => REBOOT_BOOT_SECS,
        _ => KEXEC_BOOT_SECS,
    };
    (run_secs, boot_secs)
}

/// Where root's copy of an agent file given goes, in the campaign's folder.
fn agent_copy(layout: &Layout) -> PathBuf {
    layout.dir().join("agent.so")
}

/// The options each boot's run gets, into `results`; an agent file given (`agent`, as
/// checked) is named by its copy in the campaign's folder, never by the file given.
fn boot_options(
    args: &RunArgs,
    layout: &Layout,
    agent: Option<&Path>,
    results: &Path,
    probe_rounds: Option<u32>,
    profile_rounds: Option<u32>,
) -> anyhow::Result<Vec<String>> {
    args.passed_elsewhere(
        agent.map(|_| agent_copy(layout)),
        results,
        probe_rounds,
        profile_rounds,
    )
}

/// The campaign's steps: each run boots every kernel in turn. Returns, for each step,
/// the index of its kernel and its state, pending.
fn campaign_steps(runs: u32, kernels: &CampaignKernels) -> (Vec<usize>, Vec<KernelState>) {
    let count = kernels.specs.len();
    let order: Vec<usize> = (0..runs).flat_map(|_| 0..count).collect();
    let steps = order
        .iter()
        .enumerate()
        .map(|(i, &t)| KernelState {
            run: Some(i as u32 / count as u32 + 1),
            ..KernelState::pending(
                kernels.targets[t].image.clone(),
                kernels.specs[t].cmdline.clone(),
                Some(kernels.labels[t].clone()),
            )
        })
        .collect();
    (order, steps)
}

/// Installs the campaign. It writes root's copies into the campaign's folder, and the
/// unit runs those copies, never the files the campaign started from. The copies are
/// this binary, the matrix with its JDKs as checked, and the agent file as checked. The
/// matrix's `app:` paths are made absolute against `matrix_file`'s folder. The state
/// goes beside them, and its own time counts `checked`, the time before the question,
/// and then this. Last, the unit is installed.
fn install(
    matrix: &Matrix,
    matrix_file: Option<&Path>,
    checked_matrix: &CheckedMatrix,
    layout: &Layout,
    campaign: &mut Campaign,
    checked: std::time::Duration,
) -> anyhow::Result<()> {
    let t0 = Instant::now();
    let results = campaign.session.results.clone();
    std::fs::create_dir_all(&results)
        .with_context(|| format!("creating `{}`", results.display()))?;
    // The bytes that run now, not whatever the path they were started from names by
    // the time the question is answered: in a folder others can write, that file may
    // have been replaced meanwhile (`current_exe` then names `... (deleted)`, which
    // anyone there could create too).
    unit::make_dir(
        layout,
        Path::new(unit::RUNNING_BINARY),
        boot_matrix(matrix, matrix_file, &checked_matrix.jdk_homes)?.as_bytes(),
    )
    .with_context(|| format!("making `{}`", layout.dir().display()))?;
    if let Some(agent) = &checked_matrix.agent {
        std::fs::copy(agent, agent_copy(layout))
            .with_context(|| format!("copying `{}`", agent.display()))?;
    }
    let start = (checked + t0.elapsed()).as_secs_f64();
    campaign.time.own += start;
    campaign.time.start += start;
    campaign.save(&layout.dir().join(STATE_FILE))?;
    unit::install(layout).context("installing the systemd unit")?;
    eprintln!(
        "pretouch: campaign installed ({}), unit {}\n  `pretouch campaign status` shows it, and `pretouch campaign stop` ends it.",
        layout.dir().display(),
        layout.unit().display()
    );
    Ok(())
}

/// What must hold before anything else: root, no campaign installed, systemd as init.
fn check_start(args: &RunArgs, method: BootMethod, layout: &Layout) -> anyhow::Result<()> {
    if euid() != 0 {
        return Err(bad(anyhow::anyhow!(
            "--boot runs the campaign as root at every boot\n  fix: sudo pretouch run ... --boot {method}"
        )));
    }
    if layout.dir().exists() {
        return Err(bad(anyhow::anyhow!(
            "a campaign is installed already (`{}`)\n  fix: `pretouch campaign status` says where it \
             stands; `pretouch campaign stop` ends it",
            layout.dir().display()
        )));
    }
    if args.features.campaign.campaign_root().is_none()
        && !Path::new("/run/systemd/system").is_dir()
    {
        return Err(bad(anyhow::anyhow!(
            "systemd is not this machine's init: the campaign goes on at each boot through a systemd unit"
        )));
    }
    Ok(())
}

/// Each kernel as the campaign boots it (its release read from the image, its hash, its
/// command line, its bootloader entry), checked loadable, and its label.
fn boot_targets(
    specs: &[KernelSpec],
    method: BootMethod,
    running: &Running,
    loader: &dyn BootLoader,
) -> anyhow::Result<(Vec<BootTarget>, Vec<String>)> {
    let mut targets = Vec::new();
    let mut labels = Vec::new();
    let grub = (method == BootMethod::Reboot)
        .then(|| std::fs::read_to_string(&GrubReboot::default().config).unwrap_or_default());
    for spec in specs {
        let image = PathBuf::from(&spec.image);
        let release = image_release(&image).ok_or_else(|| {
            bad(anyhow::anyhow!(
                "cannot read the release from `{}` (not a bzImage?)\n  fix: name an x86 kernel image",
                image.display()
            ))
        })?;
        // A kernel and an initramfs run as root from their first instruction: like the
        // JDKs, they must be root's alone (the image's hash is checked again before each
        // boot, the initramfs's is not).
        let initrd = installed_initrd(&image);
        for file in std::iter::once(&image).chain(&initrd) {
            root_alone(
                file,
                &format!("kernel `{}`", image.display()),
                "boots it as root",
                &format!(
                    "install it where only root can change it (`sudo make install`, or `sudo \
                     install -m 0644 IMAGE /boot/vmlinuz-{release}`)"
                ),
            )?;
        }
        let bytes =
            std::fs::read(&image).with_context(|| format!("reading `{}`", image.display()))?;
        let target = BootTarget {
            initrd,
            cmdline: kexec_cmdline(&running.cmdline, spec.cmdline.as_deref()),
            entry: grub
                .as_deref()
                .and_then(|g| GrubReboot::entry_for(g, &release)),
            image_sha256: hex(&sha2::Sha256::digest(&bytes)),
            image,
            release: release.clone(),
        };
        if method == BootMethod::Reboot && spec.cmdline.is_some() {
            return Err(bad(anyhow::anyhow!(
                "kernel `{}`: --boot reboot boots the bootloader's entry, with its own command line\n  \
                 fix: --boot kexec, or an entry of its own in the bootloader",
                spec.image
            )));
        }
        loader.check(&target).map_err(|e| {
            bad(anyhow::anyhow!(
                "kernel `{}` cannot be booted: {e}",
                target.image.display()
            ))
        })?;
        let label = spec.label.clone().unwrap_or_else(|| release.clone());
        check_label(&label).map_err(bad)?;
        labels.push(label);
        targets.push(target);
    }
    Ok((targets, labels))
}

/// The matrix as checked for a campaign: its plan, its JDKs' homes (links resolved) and
/// the agent file given (its real path), for root's copies in the campaign's folder.
struct CheckedMatrix {
    plan: Plan,
    jdk_homes: Vec<PathBuf>,
    agent: Option<PathBuf>,
}

/// The matrix, as each boot's run will check it: its JDKs, application and agent file
/// root's alone (the unit runs them as root at every boot), its memory fitting.
fn check_matrix(args: &RunArgs, matrix: &Matrix) -> anyhow::Result<CheckedMatrix> {
    // What the unit runs as root at every boot must be root's alone.
    let root_only = |path: &Path, what: String, fix: &str| {
        root_alone(path, &what, "runs it as root at every boot", fix)
    };
    let jdks = resolve_jdks(matrix, true).map_err(bad)?;
    for jdk in &jdks {
        root_only(
            &jdk.java,
            format!("JDK `{}`", jdk.spec),
            "a JDK only root can change",
        )?;
    }
    if let Some(app) = resolve_app(matrix, args.matrix.as_deref(), &jdks, true).map_err(bad)? {
        for file in app.files() {
            // A classpath's folder (or `dir/*`): what is in it is loaded too.
            let mut inside = Vec::new();
            entries_below(&file, &mut inside);
            for file in std::iter::once(&file).chain(&inside) {
                root_only(
                    file,
                    format!("app: `{}`", file.display()),
                    "keep the application where only root can change it",
                )?;
            }
        }
    }
    // `--agent` or `PRETOUCH_AGENT`: copied into root's folder only once the question is
    // answered, and loaded into root's JVMs at every boot.
    let agent = match crate::launch::agent::overridden(args.agent.as_deref()) {
        true => {
            let agent = crate::launch::agent::locate_agent(args.agent.as_deref()).map_err(bad)?;
            root_only(
                &agent.path,
                format!("agent `{}`", agent.path.display()),
                "an agent file only root can change (e.g. `install -m 0644 AGENT /usr/local/lib/`)",
            )?;
            Some(agent.path)
        }
        false => None,
    };
    check_memory(matrix, args.force)?;
    Ok(CheckedMatrix {
        plan: Plan::new(matrix, &jdks),
        jdk_homes: jdks.iter().map(|j| j.home.clone()).collect(),
        agent,
    })
}

/// [`unit::root_only`] of `path`, else refused (exit 2): `what` it is, what the campaign
/// `does` with it, and the `fix`.
fn root_alone(path: &Path, what: &str, does: &str, fix: &str) -> anyhow::Result<()> {
    unit::root_only(path).map_err(|e| {
        bad(anyhow::anyhow!(
            "{what}: {e}. The campaign {does}.\n  fix: {fix}"
        ))
    })
}

/// Every entry below `dir`, into `out` (links are not followed: [`unit::root_only`]
/// checks where each leads); nothing for a file.
fn entries_below(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        out.push(entry.path());
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            entries_below(&entry.path(), out);
        }
    }
}

/// The results: a folder of this campaign's own, that only root can change, with room
/// for every step's results.
fn results_folder(
    args: &RunArgs,
    matrix: &Matrix,
    utc: &str,
    kernels: usize,
    launches: usize,
) -> anyhow::Result<PathBuf> {
    let stamp: String = utc.chars().filter(|c| *c != '-' && *c != ':').collect();
    let results = std::path::absolute(&args.results)
        .unwrap_or_else(|_| args.results.clone())
        .join(format!("campaign-{}-{stamp}", matrix.name));
    root_alone(
        &results,
        "results",
        "writes there as root at every boot",
        "--results a folder only root can write, e.g. /var/lib/pretouch-results (copy the \
         results out at the end)",
    )?;
    let steps = kernels * args.features.kernels.runs as usize;
    let needed = steps as u64 * launches as u64 * BYTES_PER_LAUNCH + (64 << 20);
    if let Some(free) = free_bytes(&results)
        && free < needed
    {
        return Err(bad(anyhow::anyhow!(
            "the results need up to {} and `{}` has {} free\n  fix: free space, or --results elsewhere",
            crate::units::Bytes(needed),
            results.display(),
            crate::units::Bytes(free)
        )));
    }
    Ok(results)
}

/// Whether the user said to start: `--yes`, or `y` on the terminal.
fn confirmed(args: &RunArgs, campaign: &Campaign) -> anyhow::Result<bool> {
    if args.features.campaign.yes {
        return Ok(true);
    }
    if !std::io::stdin().is_terminal() {
        return Err(bad(anyhow::anyhow!(
            "the campaign reboots this machine {} times, and no terminal is there to confirm\n  fix: --yes",
            campaign.session.kernels.len()
        )));
    }
    eprint!("Start the campaign? This machine reboots now. [y/N] ");
    let mut answer = String::new();
    std::io::stdin().read_line(&mut answer)?;
    if !matches!(answer.trim(), "y" | "Y" | "yes") {
        eprintln!("pretouch: nothing installed, nothing booted");
        return Ok(false);
    }
    Ok(true)
}

/// The kernels: `--kernel` (a path, or an installed release: /boot/vmlinuz-RELEASE) or
/// the matrix's `kernels:`, checked as a VM run checks them.
fn campaign_kernels(args: &RunArgs, matrix: &Matrix) -> anyhow::Result<Vec<KernelSpec>> {
    let mut args = args.clone();
    for k in &mut args.features.kernels.kernel {
        let installed = Path::new("/boot").join(format!("vmlinuz-{}", k.display()));
        if !k.exists() && k.components().count() == 1 && installed.is_file() {
            *k = installed;
        }
    }
    if args.features.kernels.kernel.is_empty() && matrix.features.kernels.is_empty() {
        return Err(bad(anyhow::anyhow!(
            "--boot runs kernels, and none is given\n  fix: --kernel IMAGE (or an installed \
             release) for each, or `kernels:` in the matrix"
        )));
    }
    crate::kernel::list::to_run(
        &args.features.kernels.kernel,
        &matrix.features.kernels,
        args.matrix.as_deref(),
        args.label.as_deref(),
    )
    .map_err(bad)
}

/// The matrix each boot's run reads, from root's copy in the campaign's folder: without
/// `kernels:` (the campaign boots them), its `jdks:` the homes checked (`jdk_homes`),
/// and the `app:` paths (`jar`, `classpath`, `sources`) made absolute against the
/// matrix file's folder, since the copy lives elsewhere.
fn boot_matrix(
    matrix: &Matrix,
    file: Option<&Path>,
    jdk_homes: &[PathBuf],
) -> anyhow::Result<String> {
    let mut value: serde_yaml::Value =
        serde_yaml::from_str(&matrix.text).context("re-reading the matrix")?;
    let base = file
        .and_then(Path::parent)
        .filter(|p| !p.as_os_str().is_empty())
        .map_or_else(|| PathBuf::from("."), Path::to_owned);
    let base = std::path::absolute(&base).unwrap_or(base);
    let absolute = |p: &str| {
        let path = Path::new(p);
        if path.is_absolute() {
            p.to_owned()
        } else {
            base.join(path).display().to_string()
        }
    };
    if let Some(map) = value.as_mapping_mut() {
        map.remove("kernels");
        // The JDKs as checked, not as named: a link the matrix names (or the
        // environment's JDK) could lead elsewhere by the next boot.
        let homes = jdk_homes.iter().map(|h| h.display().to_string().into());
        map.insert("jdks".into(), serde_yaml::Value::Sequence(homes.collect()));
        if let Some(app) = map
            .get_mut("app")
            .and_then(serde_yaml::Value::as_mapping_mut)
        {
            for key in ["jar", "sources"] {
                if let Some(serde_yaml::Value::String(p)) = app.get_mut(key) {
                    *p = absolute(p);
                }
            }
            if let Some(serde_yaml::Value::String(cp)) = app.get_mut("classpath") {
                *cp = (cp.split(':'))
                    .filter(|e| !e.is_empty())
                    .map(absolute)
                    .collect::<Vec<_>>()
                    .join(":");
            }
        }
    }
    serde_yaml::to_string(&value).context("writing the matrix for the boots")
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Free bytes on the file system that holds `path` (or its nearest existing parent).
fn free_bytes(path: &Path) -> Option<u64> {
    let existing = path.ancestors().find(|p| p.exists())?;
    let c = std::ffi::CString::new(existing.as_os_str().as_encoded_bytes()).ok()?;
    // SAFETY: statvfs is plain old data, for which all-zero bytes are a valid value.
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: `c` is a NUL-terminated path and `st` a valid statvfs to fill.
    let rc = unsafe { libc::statvfs(c.as_ptr(), &raw mut st) };
    (rc == 0).then(|| st.f_bavail as u64 * st.f_frsize as u64)
}

fn human(secs: f64) -> String {
    let secs = secs.max(0.0).round() as u64;
    match secs {
        s if s >= 3600 => format!("{}h{:02}m", s / 3600, s % 3600 / 60),
        s if s >= 60 => format!("{}m{:02}s", s / 60, s % 60),
        s => format!("{s}s"),
    }
}

fn print_plan(c: &Campaign, matrix: &Matrix, launches: usize) {
    let steps = c.session.kernels.len();
    println!(
        "campaign `{}`: {} kernel(s) x {} run(s), in turn, by {}: {steps} boots, {} launches",
        matrix.name,
        c.targets.len(),
        c.session.runs.unwrap_or(1),
        c.boot,
        steps * launches
    );
    for (i, k) in c.session.kernels.iter().enumerate() {
        let t = c.target(i);
        println!(
            "  step {:>2}: {} (run {} of {}): {} {}",
            i + 1,
            c.label(i),
            k.run.unwrap_or(1),
            c.session.runs.unwrap_or(1),
            t.release,
            match c.boot {
                BootMethod::Reboot => format!("entry `{}`", t.entry.as_deref().unwrap_or("?")),
                _ => format!("{} [{}]", t.image.display(), t.cmdline),
            }
        );
    }
    println!(
        "  each boot: {launches} launches, about {} (estimated), and the boot about {} (assumed)",
        human(c.estimate_run_secs),
        human(c.estimate_boot_secs)
    );
    if let Some(passes) = c.calibrate_passes {
        println!(
            "  before each run: `pretouch calibrate --passes {passes}` of its kernel (not in the estimate)"
        );
    }
    println!(
        "estimated duration: {}. The results go to {}.",
        human(c.seconds_left()),
        c.session.results.display()
    );
    println!(
        "at the end: the report in {}, the unit removed, the default kernel ({}) booted",
        c.session.results.join(REPORT_TEXT).display(),
        c.default_release
    );
}

/// Runs a step's command, its output the unit's.
struct ProcessRunner;

impl StepRunner for ProcessRunner {
    fn run(&mut self, command: &[String]) -> StepOutcome {
        let status = std::process::Command::new(&command[0])
            .args(&command[1..])
            .stdin(std::process::Stdio::null())
            .status();
        StepOutcome {
            exit_code: status.ok().and_then(|s| s.code()),
        }
    }
}

/// `pretouch campaign status|stop|continue`.
pub(crate) fn cmd_campaign(args: &CampaignArgs) -> anyhow::Result<u8> {
    let layout = Layout::new(&args.root());
    let path = layout.dir().join(STATE_FILE);
    if !path.is_file() {
        if args.action == CampaignAction::Continue {
            // The unit's condition keeps this from happening; nothing to do.
            return Ok(0);
        }
        return Err(bad(anyhow::anyhow!(
            "no campaign is installed on this machine (`{}`)\n  fix: start one with `pretouch run \
             MATRIX --kernel A --kernel B --boot kexec`; an ended campaign's record is \
             {STATE_COPY} in its results folder",
            path.display()
        )));
    }
    let mut campaign = Campaign::load(&path).map_err(|e| bad(anyhow::anyhow!(e)))?;
    match args.action {
        CampaignAction::Status => {
            print!("{}", status_text(&campaign));
            Ok(0)
        }
        CampaignAction::Stop => stop(&layout, &path),
        CampaignAction::Continue => {
            let loader = loader_for(campaign.boot, &layout);
            continue_here(&layout, &mut campaign, &Running::read(), &*loader)
        }
    }
}

/// This boot's part: [`at_boot`], then the end when every step ran.
/// How long a campaign's process waits, once a boot was asked for, for the machine to go
/// down before it takes the boot as never carried out: 10 minutes for kexec and reboot
/// (a machine stopping its services may take minutes), none for the fake loader, whose
/// test harness makes the boot after this process ended; `PRETOUCH_BOOT_GRACE_SECS`
/// (tests) sets it.
fn boot_grace(method: BootMethod) -> std::time::Duration {
    let secs = std::env::var("PRETOUCH_BOOT_GRACE_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(match method {
            #[cfg(feature = "test-support")]
            BootMethod::Fake => 0,
            BootMethod::Kexec | BootMethod::Reboot => 600,
        });
    std::time::Duration::from_secs(secs)
}

fn continue_here(
    layout: &Layout,
    campaign: &mut Campaign,
    running: &Running,
    loader: &dyn BootLoader,
) -> anyhow::Result<u8> {
    let dir = layout.dir();
    let path = dir.join(STATE_FILE);
    std::fs::write(dir.join(PID_FILE), std::process::id().to_string())?;
    let stop_file = dir.join(STOP_FILE);
    let mut runner = ProcessRunner;
    let mut boot = Boot {
        path: &path,
        running,
        loader,
        runner: &mut runner,
        stop_asked: &|| stop_file.exists(),
    };
    let total = campaign.session.kernels.len();
    let labels: Vec<String> = (0..total).map(|i| campaign.label(i).to_owned()).collect();
    let stand = loop {
        let stand = at_boot(campaign, &mut boot, &mut |e| {
            print_event(&e, &labels, total)
        })?;
        let Stand::Booting(step) = stand else {
            break stand;
        };
        // The machine goes down now, and systemd stops this unit on the way. Still
        // here after the grace: the boot was accepted and never carried out.
        let grace = boot_grace(campaign.boot);
        let asked = Instant::now();
        while asked.elapsed() < grace && !stop_file.exists() {
            std::thread::sleep(std::time::Duration::from_millis(200).min(grace));
        }
        if grace.is_zero() || stop_file.exists() {
            return Ok(0);
        }
        boot_not_carried_out(campaign, running, loader, step, asked.elapsed())
            .map_err(|e| anyhow::anyhow!(e))?;
        campaign.save(&path)?;
        print_event(
            &CampaignEvent::BootFailed(campaign.failed_boots.last().expect("just recorded")),
            &labels,
            total,
        );
    };
    match stand {
        Stand::Booting(_) => Ok(0),
        Stand::Stopped => Ok(0),
        Stand::Finished => {
            finish(layout, campaign, loader, "finished")?;
            loader
                .boot_default()
                .map_err(|e| anyhow::anyhow!("booting the default kernel: {e}"))?;
            Ok(0)
        }
    }
}

fn print_event(e: &CampaignEvent<'_>, labels: &[String], total: usize) {
    match e {
        CampaignEvent::Booted { step, release } => eprintln!(
            "pretouch campaign: step {} of {total} ({}): {release} came up as asked",
            step + 1,
            labels[*step]
        ),
        CampaignEvent::BootFailed(f) => eprintln!(
            "pretouch campaign: step {} ({}): FAILED BOOT: expected {}, found {}: {}",
            f.step + 1,
            f.label,
            f.expected,
            f.found,
            f.why
        ),
        CampaignEvent::RunCut { step, given_up } => eprintln!(
            "pretouch campaign: step {} ({}): its boot ended during its run, so it is {}",
            step + 1,
            labels[*step],
            if *given_up {
                "given up"
            } else {
                "booted again, its run resumed"
            }
        ),
        CampaignEvent::Calibrating { step, command } => eprintln!(
            "pretouch campaign: step {} of {total} ({}): calibrating: {}",
            step + 1,
            labels[*step],
            command.join(" ")
        ),
        CampaignEvent::Running {
            step,
            command,
            resuming,
        } => eprintln!(
            "pretouch campaign: step {} of {total} ({}){}: {}",
            step + 1,
            labels[*step],
            if *resuming { ", resuming" } else { "" },
            command.join(" ")
        ),
        CampaignEvent::StepEnded { step, status } => eprintln!(
            "pretouch campaign: step {} ({}) ended: {}",
            step + 1,
            labels[*step],
            status_name(*status)
        ),
        CampaignEvent::Booting { step } => eprintln!(
            "pretouch campaign: booting step {} of {total} ({})",
            step + 1,
            labels[*step]
        ),
    }
}

fn status_name(status: KernelStatus) -> String {
    serde_json::to_value(status)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

/// The end (or a stop): the state copied beside the results, the report of what ran
/// written there (it reads the copy's failed boots), the copy written again with the
/// report's time, then everything installed removed and the boot loader restored. Each part
/// can be done again, so a cut during it is finished by the next boot or a `stop`.
fn finish(
    layout: &Layout,
    campaign: &mut Campaign,
    loader: &dyn BootLoader,
    how: &str,
) -> anyhow::Result<()> {
    let t = Instant::now();
    let results = campaign.session.results.clone();
    // The state is copied before the report is written, so that the report (which is
    // `pretouch report` of the folder) names the boots that failed; again after it,
    // with the report's time counted.
    let copy = results.join(STATE_COPY);
    std::fs::create_dir_all(&results)?;
    campaign.save(&copy)?;
    let has_results = campaign
        .session
        .kernels
        .iter()
        .any(|k| k.result_file.is_some());
    if has_results {
        let profiled = campaign.session.profile_rounds.is_some();
        let formats = [Format::Text, Format::Json];
        match crate::render::from_files::report_texts(
            std::slice::from_ref(&results),
            formats,
            &ReportOptions::after_run(profiled),
            true,
        ) {
            Ok(texts) => {
                for (name, text) in [REPORT_TEXT, REPORT_JSON].into_iter().zip(texts) {
                    std::fs::write(results.join(name), text)
                        .with_context(|| format!("writing `{}`", results.join(name).display()))?;
                }
            }
            Err(e) => eprintln!("warning: the campaign's report: {e:#}"),
        }
    }
    let end = t.elapsed().as_secs_f64();
    campaign.time.own += end;
    campaign.time.end += end;
    campaign.save(&copy)?;
    if let Err(e) = loader.restore() {
        eprintln!("warning: restoring the default boot: {e}");
    }
    unit::remove(layout).context("removing the systemd unit")?;
    match std::fs::remove_dir_all(layout.dir()) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            return Err(e).context("removing the campaign folder");
        }
        _ => {}
    }
    let time = &campaign.time;
    let whole = time.whole();
    eprintln!(
        "pretouch campaign: {how}: {} of {} steps done, {} failed boot(s)\n  report: {}\n  \
         the campaign's own time: {:.1} s of {:.0} s ({:.2}%): {:.1} s at the start, {:.1} s \
         at the boots, {:.1} s at the end",
        campaign.done(),
        campaign.session.kernels.len(),
        campaign.failed_boots.len(),
        results.join(REPORT_TEXT).display(),
        time.own,
        whole,
        if whole > 0.0 {
            100.0 * time.own / whole
        } else {
            0.0
        },
        time.start,
        time.own_at_boots(),
        time.end,
    );
    Ok(())
}

/// `pretouch campaign stop`: the `continue` under way (if any) is stopped with its run,
/// then the end's cleanup; no boot.
fn stop(layout: &Layout, path: &Path) -> anyhow::Result<u8> {
    let dir = layout.dir();
    std::fs::File::create(dir.join(STOP_FILE))?.sync_all()?;
    if let Some(pid) = std::fs::read_to_string(dir.join(PID_FILE))
        .ok()
        .and_then(|p| p.trim().parse::<i32>().ok())
    {
        stop_process(pid);
    }
    let mut campaign = Campaign::load(path).map_err(|e| anyhow::anyhow!(e))?;
    campaign.stopped_at =
        Some(humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string());
    campaign.in_flight = None;
    for k in &mut campaign.session.kernels {
        if k.status == KernelStatus::Running {
            k.status = KernelStatus::Interrupted;
        }
    }
    let loader = loader_for(campaign.boot, layout);
    finish(layout, &mut campaign, &*loader, "stopped")?;
    eprintln!("  The next boot is the default kernel's, and nothing of the campaign is installed.");
    Ok(0)
}

/// SIGTERM to the process group of `pid` when it is a `campaign continue` other than
/// this process, then waits for it to end (2 minutes at most, then SIGKILL).
fn stop_process(pid: i32) {
    let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
    let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
    if !cmdline.contains("campaign continue") && !cmdline.contains(" run ") {
        return;
    }
    // SAFETY: getpgid, getpgrp and kill take plain ids and have no memory effects.
    unsafe {
        let group = libc::getpgid(pid);
        let target = if group > 0 && group != libc::getpgrp() {
            -group
        } else {
            pid
        };
        libc::kill(target, libc::SIGTERM);
        for _ in 0..1200 {
            if libc::kill(pid, 0) != 0 || zombie(pid) {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        libc::kill(target, libc::SIGKILL);
    }
}

fn zombie(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
        s.rsplit(')')
            .next()
            .is_some_and(|r| r.trim_start().starts_with('Z'))
    })
}

/// What `campaign status` prints.
fn status_text(c: &Campaign) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "campaign `{}` by {}, started {}: {}",
        c.session.name,
        c.boot,
        c.session.started_at,
        where_it_stands(c)
    );
    label_lines(&mut out, c);
    failure_lines(&mut out, c);
    let _ = writeln!(
        out,
        "time left: about {} ({} step(s) timed so far)",
        human(c.seconds_left()),
        c.time.steps_timed
    );
    let next = c
        .in_flight
        .as_ref()
        .map(|f| f.step)
        .or_else(|| c.next_step());
    if let Some(step) = next {
        let _ = writeln!(
            out,
            "this step's command: {}",
            step_command(c, step).0.join(" ")
        );
    }
    out
}

/// The status's first line's end: the step under way, or that none is.
fn where_it_stands(c: &Campaign) -> String {
    let total = c.session.kernels.len();
    match &c.in_flight {
        Some(f) => format!(
            "step {} of {total} ({}), {}",
            f.step + 1,
            c.label(f.step),
            match f.phase {
                crate::features::campaign::record::Phase::Booting => "its kernel booting",
                crate::features::campaign::record::Phase::Running => "running",
            }
        ),
        None if c.finished_at.is_some() => "finished".to_owned(),
        None => format!("between steps, {} of {total} done", c.done()),
    }
}

/// A line for each label, in the order of its first step: its runs done, its failed
/// boots.
fn label_lines(out: &mut String, c: &Campaign) {
    use std::fmt::Write as _;
    let total = c.session.kernels.len();
    let mut seen: Vec<&str> = Vec::new();
    for i in 0..total {
        let label = c.label(i);
        if seen.contains(&label) {
            continue;
        }
        seen.push(label);
        let steps: Vec<&KernelState> = (0..total)
            .filter(|&j| c.label(j) == label)
            .map(|j| &c.session.kernels[j])
            .collect();
        let done = steps
            .iter()
            .filter(|k| k.status == KernelStatus::Done)
            .count();
        let failed = c.failed_boots.iter().filter(|f| f.label == label).count();
        let _ = writeln!(
            out,
            "  {label:<24} {done} of {} runs done{}",
            steps.len(),
            match failed {
                0 => String::new(),
                n => format!(", {n} failed boot(s)"),
            }
        );
    }
}

/// The failed boots, then the steps whose run failed or was cut, each with its message.
fn failure_lines(out: &mut String, c: &Campaign) {
    use std::fmt::Write as _;
    if !c.failed_boots.is_empty() {
        let _ = writeln!(out, "failed boots:");
        for f in &c.failed_boots {
            let _ = writeln!(
                out,
                "  step {} ({}) at {}: {}",
                f.step + 1,
                f.label,
                f.at,
                f.what_came_up()
            );
        }
    }
    for (i, k) in c.session.kernels.iter().enumerate() {
        if matches!(
            k.status,
            KernelStatus::RunFailed | KernelStatus::Interrupted
        ) {
            let _ = writeln!(
                out,
                "  step {} ({}): {}: {}",
                i + 1,
                c.label(i),
                status_name(k.status),
                k.message.as_deref().unwrap_or_default()
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_boot_runs_the_matrix_without_its_kernels() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.yaml");
        std::fs::write(
            &path,
            "name: m\ngcs: [g1]\nheaps: [64m]\nrepetitions: 2\nkernels:\n  - {image: /boot/a, label: base}\n",
        )
        .unwrap();
        let matrix = Matrix::from_file(&path).unwrap();
        assert_eq!(matrix.features.kernels.len(), 1);
        let home = PathBuf::from("/usr/lib/jvm/java-17-openjdk-amd64");
        let text = boot_matrix(&matrix, Some(&path), std::slice::from_ref(&home)).unwrap();
        std::fs::write(&path, &text).unwrap();
        let again = Matrix::from_file(&path).unwrap();
        assert!(again.features.kernels.is_empty(), "{text}");
        assert_eq!((again.name.as_str(), again.repetitions), ("m", 2));
        // The JDK as checked, where the matrix named none (the environment's).
        assert_eq!(again.jdks, Some(vec![home.display().to_string()]));
    }

    #[test]
    fn the_boots_matrix_names_the_app_s_files_by_absolute_paths() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.yaml");
        std::fs::write(
            &path,
            "name: m\ngcs: [g1]\nheaps: [64m]\nrepetitions: 2\napp:\n  jar: app/a.jar\n  \
             sources: src\n  main: a.Main\n",
        )
        .unwrap();
        let matrix = Matrix::from_file(&path).unwrap();
        let value: serde_yaml::Value =
            serde_yaml::from_str(&boot_matrix(&matrix, Some(&path), &[]).unwrap()).unwrap();
        let jar = dir.path().join("app/a.jar").display().to_string();
        let sources = dir.path().join("src").display().to_string();
        assert_eq!(value["app"]["jar"].as_str(), Some(jar.as_str()));
        assert_eq!(value["app"]["sources"].as_str(), Some(sources.as_str()));
        std::fs::write(
            &path,
            "name: m\ngcs: [g1]\nheaps: [64m]\nrepetitions: 2\napp:\n  classpath: lib/*:/abs/x.jar\n  \
             main: a.Main\n",
        )
        .unwrap();
        let matrix = Matrix::from_file(&path).unwrap();
        let value: serde_yaml::Value =
            serde_yaml::from_str(&boot_matrix(&matrix, Some(&path), &[]).unwrap()).unwrap();
        let lib = dir.path().join("lib/*").display().to_string();
        assert_eq!(
            value["app"]["classpath"].as_str(),
            Some(format!("{lib}:/abs/x.jar").as_str())
        );
    }
}
