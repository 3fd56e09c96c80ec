//! `pretouch run --kernel IMAGE...` (or a matrix with `kernels:`): boot each kernel in a
//! VM with virtme-ng, run the same matrix inside, and print the cross-kernel table; its
//! `--resume`; and the guest's side (`--in-vm WORK`, hidden): the VM's shape and the
//! result file's path, handed over through the work folder.

pub(crate) mod part;

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context;

use crate::features::header::ExtraRounds;
use crate::features::kernels::launch::{VmRequest, VngRunner, locate_vng};
use crate::features::kernels::machine::{
    Accel, EMULATED_MARK, VmShape, detect, tool_version, vm_memory,
};
use crate::features::kernels::schedule::{
    KernelEvent, RESULT_FILE, SHAPE_FILE, SessionSummary, VmPlan, run_session,
};
use crate::kernel::KernelSpec;
use crate::kernel::guest::GuestCommand;
use crate::kernel::session::{
    KernelSession, KernelState, KernelStatus, SESSION_FILE, SESSION_FORMAT,
};
use crate::launch::agent;
use crate::launch::interrupt::{self, Interrupt};
use crate::machine::{host, lock, memory};
use crate::matrix::Matrix;
use crate::matrix::cpuset::CpuSet;
use crate::schedule::resume::matrix_sha256;
use crate::session::args::RunArgs;
use crate::session::checks::{resolve_app, resolve_jdks};
use crate::session::error::{bad, exit};

/// The QEMU virtme-ng starts on x86-64.
const QEMU: &str = "qemu-system-x86_64";

/// Memory left to the guest's kernel and init, besides the JVM ([`vm_memory`]).
const GUEST_OWN: u64 = 768 << 20;

/// A fresh run's command line against its matrix, where kernels would run in VMs: the
/// JVMs there do not see this shell's Java options, and `--runs` needs kernels to repeat.
pub(crate) fn check_fresh(args: &RunArgs, matrix: &Matrix) -> anyhow::Result<()> {
    let kernels = args.features.kernels.in_vm.is_none()
        && (!args.features.kernels.kernel.is_empty() || !matrix.features.kernels.is_empty());
    if args.pass_java_options && kernels {
        return Err(bad(anyhow::anyhow!(
            "--pass-java-options does not reach the JVMs in a kernel's VM\n  \
             fix: unset the variable and put its options in the matrix's jvm_args"
        )));
    }
    if args.features.kernels.runs > 1 && args.features.kernels.in_vm.is_none() && !kernels {
        return Err(bad(anyhow::anyhow!(
            "--runs {n} repeats the kernels of a `--kernel` run, and none is given\n  \
             fix: on this machine's own kernel, run `pretouch run` {n} times: each run is a \
             result file of its label, and `pretouch report` reads them as one label of {n} runs",
            n = args.features.kernels.runs
        )));
    }
    Ok(())
}

/// Inside a VM that `--kernel` booted (`--in-vm`): the VM's shape. `None` elsewhere.
pub(crate) fn guest_vm(args: &RunArgs) -> anyhow::Result<Option<VmShape>> {
    (args.features.kernels.in_vm.as_deref())
        .map(guest_shape)
        .transpose()
        .map_err(bad)
}

/// The guest's side: the VM's shape the host wrote into the work folder.
fn guest_shape(work: &Path) -> anyhow::Result<VmShape> {
    let path = work.join(SHAPE_FILE);
    let text = std::fs::read_to_string(&path).with_context(|| {
        format!(
            "--in-vm: cannot read `{}` (this option is for the runs `pretouch run --kernel` starts in a VM)",
            path.display()
        )
    })?;
    serde_json::from_str(&text).with_context(|| format!("--in-vm: `{}`", path.display()))
}

/// Inside a VM that `--kernel` booted (`--in-vm`): tells the host which result file this
/// run writes. Nothing elsewhere.
pub(crate) fn note_guest_result(args: &RunArgs, file: &Path) -> anyhow::Result<()> {
    match &args.features.kernels.in_vm {
        Some(work) => note_result(work, file),
        None => Ok(()),
    }
}

/// The guest's side: tells the host which result file this run writes.
fn note_result(work: &Path, file: &Path) -> anyhow::Result<()> {
    let file = std::path::absolute(file).unwrap_or_else(|_| file.to_owned());
    std::fs::write(work.join(RESULT_FILE), file.display().to_string())
        .with_context(|| format!("--in-vm: writing `{}`", work.join(RESULT_FILE).display()))
}

/// The VM every kernel gets, checked against this machine.
fn vm_plan(args: &RunArgs, matrix: &Matrix, vng: &Path) -> anyhow::Result<VmPlan> {
    let host = host::host_info();
    let needed_cpus = matrix
        .cpus
        .iter()
        .filter_map(|c| match c {
            CpuSet::List { cpus, .. } => cpus.iter().max().map(|m| m + 1),
            // A topology spec is resolved inside the guest, against the VM's own CPUs.
            CpuSet::All | CpuSet::Spec { .. } => None,
        })
        .max()
        .unwrap_or(1);
    let cpus = args.features.kernels.vm_cpus.unwrap_or(host.cpus as u32);
    if (cpus as usize) < needed_cpus {
        return Err(bad(anyhow::anyhow!(
            "the matrix's `cpus:` names CPU {} but the VM gets {cpus} vCPUs\n  fix: --vm-cpus {needed_cpus} or more",
            needed_cpus - 1
        )));
    }
    let largest = matrix.largest_heap();
    let memory = args
        .features
        .kernels
        .vm_memory
        .unwrap_or_else(|| vm_memory(largest));
    let for_jvm = crate::units::Bytes(memory.0.saturating_sub(GUEST_OWN));
    if let Err(e) = memory::check(matrix, for_jvm) {
        let e = anyhow::anyhow!(
            "{e}\n  That is in a VM of {memory}, less {} for the guest itself, and --vm-memory sets it.",
            crate::units::Bytes(GUEST_OWN)
        );
        if !args.force {
            return Err(bad(e));
        }
        eprintln!("warning: {e:#}\n  --force: running anyway");
    }
    if let Some(available) = memory::mem_available()
        && available < memory
    {
        let e = anyhow::anyhow!(
            "each VM gets {memory}, preallocated, and this machine has {available} available\n  \
             fix: smaller heaps, or --vm-memory, or --force to try anyway"
        );
        if !args.force {
            return Err(bad(e));
        }
        eprintln!("warning: {e:#}\n  --force: running anyway");
    }
    let virt = detect();
    let qemu = crate::features::kernels::launch::locate_on_path(QEMU);
    let Some(qemu) = qemu else {
        return Err(bad(anyhow::anyhow!(
            "`{QEMU}` is not installed\n  fix: sudo apt-get install -y qemu-system-x86 (or scripts/setup-vm.sh)"
        )));
    };
    Ok(VmPlan {
        cpus,
        memory,
        accel: virt.accel,
        boot_timeout: Duration::from_secs(args.features.kernels.vm_boot_timeout),
        shape: VmShape {
            accel: virt.accel,
            emulated: virt.accel == Accel::Tcg,
            accel_reason: virt.reason,
            qemu_version: tool_version(&qemu, "--version"),
            vng_version: tool_version(vng, "--version"),
            vcpus: cpus,
            memory,
            prealloc: true,
            image: PathBuf::new(),
            kernel_cmdline: None,
            host_kernel_release: host.kernel_release,
            host_kernel_version: host.kernel_version,
            host_hostname: host.hostname,
            host_cpu_model: host.cpu_model,
        },
    })
}

fn find_vng() -> anyhow::Result<PathBuf> {
    locate_vng().ok_or_else(|| {
        bad(anyhow::anyhow!(
            "virtme-ng (`vng`) is not installed\n  fix: scripts/setup-vm.sh (apt-get install \
             qemu-system-x86 busybox-static; pip install virtme-ng in /opt/virtme-ng), or set \
             PRETOUCH_VNG to a vng binary"
        ))
    })
}

/// The command every guest runs, made from this run's options ([`RunArgs::passed_on`]):
/// the session's probed and profiled rounds among them. A guest writes only into
/// `results` (the rest of its root is a copy-on-write view that ends with the VM), so
/// `--keep-perf-data` elsewhere is refused.
pub(crate) fn guest_command(
    args: &RunArgs,
    matrix_file: Option<&Path>,
    results: &Path,
    probe_rounds: Option<u32>,
    profile_rounds: Option<u32>,
) -> anyhow::Result<GuestCommand> {
    // Checked here, before a boot; the guest's pretouch makes its own memfd of the
    // built-in agent, and is passed an agent file only when one was given.
    let agent = agent::locate_agent(args.agent.as_deref()).map_err(bad)?;
    let agent = agent::overridden(args.agent.as_deref())
        .then(|| std::path::absolute(&agent.path).unwrap_or(agent.path));
    let matrix = matrix_file.map(|m| std::path::absolute(m).unwrap_or_else(|_| m.to_owned()));
    Ok(GuestCommand {
        program: std::env::current_exe().context("locating this pretouch binary")?,
        matrix,
        options: args.passed_elsewhere(agent, results, probe_rounds, profile_rounds)?,
    })
}

/// `pretouch run MATRIX --kernel A --kernel B` (or `kernels:` in the matrix).
pub(crate) fn cmd_run_kernels(args: &RunArgs, matrix: Matrix) -> anyhow::Result<u8> {
    let specs = crate::kernel::list::to_run(
        &args.features.kernels.kernel,
        &matrix.features.kernels,
        args.matrix.as_deref(),
        args.label.as_deref(),
    )
    .map_err(bad)?;
    // What every guest checks again, checked once here, before any boot.
    let jdks = resolve_jdks(&matrix, true).map_err(bad)?;
    // Built here if it must be: the guest sees this folder through the VM's root view.
    resolve_app(&matrix, args.matrix.as_deref(), &jdks, true).map_err(bad)?;
    let vng = find_vng()?;
    let vm = vm_plan(args, &matrix, &vng)?;
    let ExtraRounds {
        probe_rounds,
        profile_rounds,
    } = args.features.extra_rounds(&matrix.features);
    let results = std::path::absolute(&args.results).unwrap_or_else(|_| args.results.clone());
    let guest = guest_command(
        args,
        args.matrix.as_deref(),
        &results,
        probe_rounds,
        profile_rounds,
    )?;
    let started = std::time::SystemTime::now();
    let utc = humantime::format_rfc3339_seconds(started).to_string();
    let stamp: String = utc.chars().filter(|c| *c != '-' && *c != ':').collect();
    let dir = results
        .join("vm-runs")
        .join(format!("{}-{stamp}", matrix.name));
    let mut session = KernelSession {
        format: SESSION_FORMAT,
        name: matrix.name.clone(),
        // Absolute, so that `--resume` finds the matrix from any folder.
        matrix_origin: args
            .matrix
            .as_deref()
            .map(|m| std::path::absolute(m).unwrap_or_else(|_| m.to_owned()))
            .map_or_else(|| matrix.origin.clone(), |m| m.display().to_string()),
        matrix_sha256: matrix_sha256(&matrix.text),
        started_at: utc,
        results,
        kernels: in_turn(&specs, args.features.kernels.runs),
        probe_rounds,
        profile_rounds,
        runs: (args.features.kernels.runs > 1).then_some(args.features.kernels.runs),
    };
    if args.dry_run {
        return dry_run(&session, &dir, &vng, &vm, &guest);
    }
    let path = dir.join(SESSION_FILE);
    std::fs::create_dir_all(&session.results)
        .and_then(|()| session.save(&path))
        .map_err(|e| bad(anyhow::anyhow!("cannot write `{}`: {e}", path.display())))?;
    run_and_report(args, &mut session, &path, &vng, &vm, &guest)
}

/// The session's kernels: `specs` `runs` times over, in turn (A B A B ...), so that each
/// kernel's runs are spread over the session as the cover-letter workflow spreads them
/// (docs/comparing.md), each a new boot and a new result file of its label.
fn in_turn(specs: &[KernelSpec], runs: u32) -> Vec<KernelState> {
    (1..=runs)
        .flat_map(|run| {
            specs.iter().map(move |s| KernelState {
                run: (runs > 1).then_some(run),
                ..KernelState::pending(PathBuf::from(&s.image), s.cmdline.clone(), s.label.clone())
            })
        })
        .collect()
}

/// `pretouch run --resume results/vm-runs/<name>-<UTC>[/session.json] [MATRIX]`.
pub(crate) fn cmd_resume_kernels(args: &RunArgs, path: &Path) -> anyhow::Result<u8> {
    let path = &std::path::absolute(path).unwrap_or_else(|_| path.to_owned());
    let mut session = KernelSession::load(path).map_err(|e| bad(anyhow::anyhow!(e)))?;
    let matrix_file = args.matrix.clone().or_else(|| {
        (session.matrix_origin != Matrix::default_matrix().origin)
            .then(|| PathBuf::from(&session.matrix_origin))
    });
    let matrix = match &matrix_file {
        Some(m) => Matrix::from_file(m).map_err(bad)?,
        None => Matrix::default_matrix(),
    };
    if matrix_sha256(&matrix.text) != session.matrix_sha256 {
        return Err(bad(anyhow::anyhow!(
            "the matrix `{}` changed since the session `{}` started; a resumed run must run the same matrix\n  \
             fix: restore the matrix, or start a new run",
            matrix.origin,
            path.display()
        )));
    }
    if session.unfinished().next().is_none() {
        return Err(bad(anyhow::anyhow!(
            "every kernel of `{}` ran to its end, so there is nothing to resume",
            path.display()
        )));
    }
    // The probed rounds are the session's, as a result file's are its run's.
    if args.features.probing.probe && session.probe_rounds.is_none() && !matrix.features.probe {
        return Err(bad(anyhow::anyhow!(
            "`{}` was started without --probe: its resume runs the kernels as the first ones ran, \
             and a probed kernel beside unprobed ones compares nothing\n  \
             fix: resume without --probe, then probe the kernels in a run of their own: \
             `pretouch run {} --kernel ... --probe`",
            path.display(),
            session.matrix_origin
        )));
    }
    // So are the profiled rounds; a matrix's `profile: true` reaches the guests anyway.
    if args.features.profiling.profile
        && session.profile_rounds.is_none()
        && !matrix.features.profile
    {
        return Err(bad(anyhow::anyhow!(
            "`{}` was started without --profile: its resume runs the kernels as the first ones \
             ran, and a profiled kernel beside unprofiled ones compares nothing\n  \
             fix: resume without --profile, then profile the kernels in a run of their own: \
             `pretouch run {} --kernel ... --profile`",
            path.display(),
            session.matrix_origin
        )));
    }
    resolve_jdks(&matrix, true).map_err(bad)?;
    let vng = find_vng()?;
    let vm = vm_plan(args, &matrix, &vng)?;
    let guest = guest_command(
        args,
        matrix_file.as_deref(),
        &session.results,
        session.probe_rounds,
        session.profile_rounds,
    )?;
    eprintln!(
        "pretouch: resuming `{}`: {} of {} {} done",
        path.display(),
        session.kernels.len() - session.unfinished().count(),
        session.kernels.len(),
        entries(&session)
    );
    run_and_report(args, &mut session, path, &vng, &vm, &guest)
}

fn dry_run(
    session: &KernelSession,
    dir: &Path,
    vng: &Path,
    vm: &VmPlan,
    guest: &GuestCommand,
) -> anyhow::Result<u8> {
    let runner = VngRunner::new(vng.to_owned());
    println!(
        "{}, each in a VM of {} vCPU(s) and {} (preallocated), accelerator {}",
        boots(session),
        vm.cpus,
        vm.memory,
        vm.accel
    );
    for (i, k) in session.kernels.iter().enumerate() {
        let work = dir.join(format!("k{}", i + 1));
        let request = VmRequest {
            image: k.image.clone(),
            cmdline: k.cmdline.clone(),
            cpus: vm.cpus,
            memory: vm.memory,
            accel: vm.accel,
            rwdirs: vec![session.results.clone()],
            work: work.clone(),
            command: guest.fresh(k.label.as_deref(), &session.results, &work),
            boot_timeout: vm.boot_timeout,
        };
        println!(
            "\nkernel {}{}: {}",
            i + 1,
            which_run(k, session.runs),
            k.image.display()
        );
        println!(
            "  {} {}",
            vng.display(),
            runner.arguments(&request).join(" ")
        );
        println!("  guest runs: {}", request.command.join(" "));
    }
    Ok(0)
}

fn warn_emulated(vm: &VmPlan) {
    if vm.accel == Accel::Tcg {
        eprintln!(
            "\n!!! EMULATED: no hardware virtualization for the guests here ({}).\n\
             !!! QEMU emulates every instruction (TCG): timings inside are about 25x slower and say\n\
             !!! nothing about the kernels. The labels are marked `{EMULATED_MARK}`: use these results to\n\
             !!! check that things work, never in a cover letter. With VT-x/AMD-V and /dev/kvm,\n\
             !!! the same command runs the guests on KVM.\n",
            vm.shape.accel_reason
        );
    }
}

fn run_and_report(
    args: &RunArgs,
    session: &mut KernelSession,
    path: &Path,
    vng: &Path,
    vm: &VmPlan,
    guest: &GuestCommand,
) -> anyhow::Result<u8> {
    warn_emulated(vm);
    let interrupt = Interrupt::new();
    interrupt
        .install_signal_handlers()
        .context("installing the SIGINT/SIGTERM handlers")?;
    let _machine = lock::acquire_or_warn();
    eprintln!(
        "pretouch: {}, each in a VM of {} vCPU(s) and {} (preallocated), {}\n  session: {}",
        boots(session),
        vm.cpus,
        vm.memory,
        vm.accel,
        path.display()
    );
    let mut runner = VngRunner::new(vng.to_owned()).with_interrupt(interrupt.clone());
    let runs = session.runs;
    let summary = run_session(
        session,
        path,
        &mut runner,
        guest,
        vm,
        Some(&interrupt),
        &mut |event| print_event(event, runs),
    )
    .with_context(|| format!("writing `{}`", path.display()))?;

    if let Some(signal) = summary.interrupted {
        eprintln!(
            "pretouch: interrupted by {}, with {} of {} {} done. Every finished launch is on disk.\n  resume: pretouch run --resume {}",
            interrupt::signal_name(signal),
            summary.done,
            session.kernels.len(),
            entries(session),
            path.parent().unwrap_or(path).display()
        );
        return Ok(interrupt::exit_code(signal));
    }
    print_done_report(args, session)?;
    warn_emulated(vm);
    print_statuses(session);
    Ok(ended(&summary, session, path))
}

/// The cross-kernel table of the kernels done, as `pretouch report` prints it for their
/// files; with the profile's section across kernels when the guests profiled, as
/// `pretouch report --profile` would. Nothing when none is done.
fn print_done_report(args: &RunArgs, session: &KernelSession) -> anyhow::Result<()> {
    let files: Vec<PathBuf> = session
        .kernels
        .iter()
        .filter(|k| k.status == KernelStatus::Done)
        .filter_map(|k| k.result_file.clone())
        .collect();
    if !files.is_empty() {
        crate::render::from_files::print_report(
            &files,
            args.format,
            &crate::features::report_options::ReportOptions::after_run(
                session.profile_rounds.is_some(),
            ),
        )
        .map_err(bad)?;
    }
    Ok(())
}

/// A line for each kernel run: its status, its image and run, and its message.
fn print_statuses(session: &KernelSession) {
    for k in &session.kernels {
        let status = serde_json::to_value(k.status)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default();
        eprintln!(
            "  {status:<12} {}{} {}",
            k.image.display(),
            which_run(k, session.runs),
            k.message.as_deref().unwrap_or_default()
        );
    }
}

/// The exit code of a session that ran to its end: failed launches when a kernel failed
/// (said, with how to retry them) or a kernel's run had failed launches.
fn ended(summary: &SessionSummary, session: &KernelSession, path: &Path) -> u8 {
    if summary.failed > 0 {
        eprintln!(
            "pretouch: {} of {} {} failed (their console logs are named above)\n  retry them: pretouch run --resume {}",
            summary.failed,
            session.kernels.len(),
            entries(session),
            path.parent().unwrap_or(path).display()
        );
        return exit::FAILED_LAUNCHES;
    }
    if summary.with_failed_launches > 0 {
        return exit::FAILED_LAUNCHES;
    }
    0
}

/// The session's boots as the first line names them: `2 kernel(s)`, or with `--runs`
/// `2 kernel(s) x 3 runs, in turn`.
fn boots(session: &KernelSession) -> String {
    match session.runs {
        Some(runs) => format!(
            "{} kernel(s) x {runs} runs, in turn",
            session.kernels.len() / runs.max(1) as usize
        ),
        None => format!("{} kernel(s)", session.kernels.len()),
    }
}

/// What the session's entries are called in counts: kernels, or with `--runs` kernel
/// runs.
fn entries(session: &KernelSession) -> &'static str {
    match session.runs {
        Some(_) => "kernel runs",
        None => "kernels",
    }
}

/// ` (run 2 of 3)` for a kernel of a session with `--runs`; empty otherwise.
fn which_run(kernel: &KernelState, runs: Option<u32>) -> String {
    match (kernel.run, runs) {
        (Some(run), Some(runs)) => format!(" (run {run} of {runs})"),
        _ => String::new(),
    }
}

fn print_event(event: KernelEvent<'_>, runs: Option<u32>) {
    match event {
        KernelEvent::Booting {
            index,
            total,
            kernel,
            resuming,
        } => eprintln!(
            "pretouch: kernel {} of {total}{}: booting {}{}{}",
            index + 1,
            which_run(kernel, runs),
            kernel.image.display(),
            kernel
                .cmdline
                .as_deref()
                .map(|c| format!(" ({c})"))
                .unwrap_or_default(),
            if resuming {
                ", resuming its interrupted run"
            } else {
                ""
            }
        ),
        KernelEvent::AlreadyDone { index, kernel } => eprintln!(
            "pretouch: kernel {}: {} already ran to its end",
            index + 1,
            kernel.image.display()
        ),
        KernelEvent::Ended {
            index,
            kernel,
            outcome,
        } => {
            let secs = outcome.elapsed.as_secs_f64();
            match kernel.status {
                KernelStatus::Done => eprintln!(
                    "pretouch: kernel {} ({}) done in {secs:.0} s: {}{}",
                    index + 1,
                    kernel.release.as_deref().unwrap_or("?"),
                    kernel
                        .result_file
                        .as_deref()
                        .map_or_else(String::new, |f| f.display().to_string()),
                    kernel
                        .message
                        .as_deref()
                        .map(|m| format!("; {m}"))
                        .unwrap_or_default()
                ),
                KernelStatus::Interrupted => {}
                _ => eprintln!(
                    "pretouch: kernel {} ({}) FAILED: {}\n  console ({}), last lines:\n{}",
                    index + 1,
                    kernel.image.display(),
                    kernel.message.as_deref().unwrap_or("failed"),
                    kernel
                        .console
                        .as_deref()
                        .map_or_else(String::new, |c| c.display().to_string()),
                    textwrap_indent(&outcome.console_tail)
                ),
            }
        }
    }
}

fn textwrap_indent(text: &str) -> String {
    text.lines()
        .map(|l| format!("    | {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}
