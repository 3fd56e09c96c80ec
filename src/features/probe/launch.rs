//! Stage 3, probed: one JVM launched while `bpftrace` times each of its page faults and
//! lock waits, from its exec to its `main()`. Also the checks that bpftrace can do so,
//! made before any JVM starts. The method, and why these probes, is `docs/explaining.md`.
//!
//! The probes, all on tracepoints and software events (this kind of kernel often has
//! neither kprobes nor fentry):
//! - a fault starts at `exceptions:page_fault_user` / `page_fault_kernel` (x86's
//!   `handle_page_fault`, before `do_user_addr_fault`) and ends at the `minor-faults` /
//!   `major-faults` software event, which `mm_account_fault` raises at the end of
//!   `handle_mm_fault`, where the task's `min_flt`/`maj_flt` (what getrusage counts) go
//!   up. A fault that fails (a SIGSEGV the JVM takes on purpose) has a start and no end:
//!   counted apart, as unpaired.
//! - a lock wait is `lock:contention_begin` to `lock:contention_end` in the same thread,
//!   keyed by the lock's symbol (or address), its kind and the kernel stack.
//! - the JVM is the first process the runner execs after the probes are attached
//!   (`sched:sched_process_exec`, parent = the runner), and counting stops when the agent
//!   stamps `main()` (a uprobe on the agent's `pretouch_agent_main_reached`).
//!
//! bpftrace is started before the JVM and stopped after it is reaped (the runner calls
//! [`pretouch_probe_stop`], on which a uprobe calls bpftrace's `exit()`), so the launch
//! itself (its spawn, its stamps, its rusage) is a plain one: its time to main is set
//! against the timed launches' as the probes' cost.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::launch::{JvmLauncher, LaunchOptions, LaunchOutcome, Launcher};
use crate::units::Nanos;

/// The agent's function the uprobe stops counting at (see `jvm-agent/src/lib.rs`).
const MAIN_SYMBOL: &str = "pretouch_agent_main_reached";
/// The runner's function whose call tells bpftrace to print its maps and exit (a uprobe
/// and `exit()`): bpftrace 0.17 sometimes leaves SIGINT unanswered, sitting in its poll
/// loop, so SIGINT is only the fallback.
const STOP_SYMBOL: &str = "pretouch_probe_stop";
/// How long bpftrace may take to exit after [`STOP_SYMBOL`] before it is sent SIGINT.
const STOP_GRACE: Duration = Duration::from_secs(10);

/// Called by the runner once the probed JVM is reaped: the uprobe on it ends bpftrace.
/// It does nothing; `black_box` keeps the call from being optimised away.
#[unsafe(no_mangle)]
#[inline(never)]
pub extern "C" fn pretouch_probe_stop() {
    std::hint::black_box(());
}

/// Sub-buckets per power of two in the latency histogram: bucket width is 1/8 of its
/// octave, so a quantile is known to 12.5% of its value.
const SUB_BUCKETS: u32 = 8;
/// Kernel frames kept per lock wait.
const LOCK_STACK_DEPTH: u32 = 6;
/// How long bpftrace may take to compile and attach before the launch is given up.
const ATTACH_TIMEOUT: Duration = Duration::from_secs(60);
/// How long bpftrace may take to print its maps once told to stop (on a loaded machine
/// its symbolizing of the lock stacks has taken over 30 s).
const STOP_TIMEOUT: Duration = Duration::from_secs(120);

/// Where the kernel's tracing events are listed.
const EVENTS: &str = "/sys/kernel/tracing/events";

/// Why the probes cannot run here; every message says the fix.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ProbeError {
    #[error(
        "--probe needs `bpftrace`, which is not on PATH\n  fix: apt-get install bpftrace \
         (Debian, Ubuntu), or run without --probe"
    )]
    Missing,
    #[error(
        "`{bpftrace} --version` failed: {output}\n  fix: reinstall it (Debian: apt-get install \
         --reinstall bpftrace), or run without --probe"
    )]
    Broken { bpftrace: String, output: String },
    #[error(
        "--probe needs root, or CAP_BPF and CAP_PERFMON (this runner has neither)\n  fix: run \
         pretouch as root (sudo), or `setcap cap_bpf,cap_perfmon+ep $(command -v bpftrace)`"
    )]
    Permission,
    #[error(
        "/sys/kernel/btf/vmlinux does not exist: bpftrace cannot read the kernel's types \
         (task_struct)\n  fix: a kernel built with CONFIG_DEBUG_INFO_BTF=y, or run without --probe"
    )]
    NoBtf,
    #[error(
        "{EVENTS} does not exist: tracefs is not mounted\n  fix: mount -t tracefs nodev \
         /sys/kernel/tracing (as root)"
    )]
    NoTracefs,
    #[error(
        "this kernel has no tracepoint `{0}` (in {EVENTS})\n  fix: a kernel with it (x86 \
         exceptions:* since Linux 3.18, sched:* always), or run without --probe"
    )]
    NoTracepoint(&'static str),
    #[error(
        "this kernel has no uprobes (/sys/bus/event_source/devices/uprobe is missing): the \
         probe cannot stop at main()\n  fix: a kernel built with CONFIG_UPROBE_EVENTS=y, or \
         run without --probe"
    )]
    NoUprobes,
    #[error(
        "the path `{0}` (the agent, or this runner) holds a space or a colon, which a \
         bpftrace uprobe cannot name\n  fix: build pretouch and its agent under a plain path"
    )]
    AgentPath(String),
}

/// Why lock contention is not measured on this kernel (the faults still are): said once,
/// in every probed record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[serde(rename_all = "snake_case", tag = "reason")]
pub enum LocksUnsupported {
    /// No `lock:contention_begin`/`contention_end` tracepoints (added in Linux 5.19).
    #[error(
        "this kernel has no lock:contention_begin/contention_end tracepoints (Linux 5.19 and \
         later have them)"
    )]
    NoTracepoints,
}

/// What decides whether the probes can run: read from the machine by
/// [`ProbeSetting::read`], or made up in tests.
#[derive(Debug, Clone, PartialEq, Eq)]
struct ProbeSetting {
    /// `bpftrace` found on PATH.
    pub bpftrace: Option<PathBuf>,
    /// Effective user root.
    pub root: bool,
    /// CAP_BPF and CAP_PERFMON both in the effective set.
    pub caps: bool,
    pub btf: bool,
    /// tracefs's `events` folder exists.
    pub tracefs: bool,
    /// The tracepoints the probe needs that this kernel lacks.
    pub missing_tracepoints: Vec<&'static str>,
    /// The lock tracepoints exist.
    pub lock_tracepoints: bool,
    pub uprobes: bool,
}

/// Tracepoints the fault probe cannot do without.
const NEEDED_TRACEPOINTS: &[&str] = &[
    "exceptions/page_fault_user",
    "exceptions/page_fault_kernel",
    "sched/sched_process_exec",
    "sched/sched_process_exit",
];

/// What the probes can do here, once the check passed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProbeSupport {
    pub bpftrace: PathBuf,
    /// `Err`: lock contention is not measured, and why.
    pub locks: Result<(), LocksUnsupported>,
}

impl ProbeSetting {
    pub fn read() -> ProbeSetting {
        let events = Path::new(EVENTS);
        let tracefs = events.is_dir();
        let has = |tp: &str| events.join(tp).is_dir();
        ProbeSetting {
            bpftrace: crate::machine::host::find_on_path("bpftrace"),
            root: crate::machine::host::is_root(),
            caps: effective_caps().is_some_and(|caps| {
                const CAP_PERFMON: u32 = 38;
                const CAP_BPF: u32 = 39;
                caps & (1 << CAP_PERFMON) != 0 && caps & (1 << CAP_BPF) != 0
            }),
            btf: Path::new("/sys/kernel/btf/vmlinux").exists(),
            tracefs,
            missing_tracepoints: NEEDED_TRACEPOINTS
                .iter()
                .copied()
                .filter(|tp| tracefs && !has(tp))
                .collect(),
            lock_tracepoints: has("lock/contention_begin") && has("lock/contention_end"),
            uprobes: Path::new("/sys/bus/event_source/devices/uprobe").exists(),
        }
    }

    /// What the probes can do, or the first thing that stops them (in the order a user
    /// fixes them). Pure.
    pub fn check(&self) -> Result<ProbeSupport, ProbeError> {
        let bpftrace = self.bpftrace.clone().ok_or(ProbeError::Missing)?;
        if !self.root && !self.caps {
            return Err(ProbeError::Permission);
        }
        if !self.btf {
            return Err(ProbeError::NoBtf);
        }
        if !self.tracefs {
            return Err(ProbeError::NoTracefs);
        }
        if let Some(tp) = self.missing_tracepoints.first() {
            return Err(ProbeError::NoTracepoint(tp));
        }
        if !self.uprobes {
            return Err(ProbeError::NoUprobes);
        }
        Ok(ProbeSupport {
            bpftrace,
            locks: match self.lock_tracepoints {
                true => Ok(()),
                false => Err(LocksUnsupported::NoTracepoints),
            },
        })
    }
}

/// `CapEff` of this process, from /proc/self/status.
fn effective_caps() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let hex = status.lines().find_map(|l| l.strip_prefix("CapEff:"))?;
    u64::from_str_radix(hex.trim(), 16).ok()
}

/// Checks the machine for the probes and that `bpftrace --version` runs.
pub fn preflight(agent: &Path) -> Result<ProbeSupport, ProbeError> {
    let support = ProbeSetting::read().check()?;
    check_agent_path(agent)?;
    // The runner's own file carries the stop uprobe.
    if let Ok(exe) = std::env::current_exe() {
        check_agent_path(&exe)?;
    }
    let output = std::process::Command::new(&support.bpftrace)
        .arg("--version")
        .output();
    match output {
        Ok(o) if o.status.success() => Ok(support),
        Ok(o) => Err(ProbeError::Broken {
            bpftrace: support.bpftrace.display().to_string(),
            output: String::from_utf8_lossy(&[o.stdout, o.stderr].concat())
                .trim()
                .to_owned(),
        }),
        Err(e) => Err(ProbeError::Broken {
            bpftrace: support.bpftrace.display().to_string(),
            output: e.to_string(),
        }),
    }
}

/// The path bpftrace opens for the agent's uprobe. The embedded agent is loaded as
/// `/proc/self/fd/N`, which in bpftrace's own process would name bpftrace's descriptor,
/// so it becomes `/proc/<this runner's pid>/fd/N`: the same memfd, whose inode the
/// kernel attaches the uprobe to.
fn uprobe_path(agent: &Path) -> PathBuf {
    match agent.strip_prefix("/proc/self") {
        Ok(rest) => Path::new("/proc")
            .join(std::process::id().to_string())
            .join(rest),
        Err(_) => agent.to_path_buf(),
    }
}

/// A uprobe names its file in the probe's text: no space, colon or quote in it.
fn check_agent_path(agent: &Path) -> Result<(), ProbeError> {
    let text = agent.display().to_string();
    if text
        .chars()
        .any(|c| c.is_whitespace() || matches!(c, ':' | '"'))
    {
        return Err(ProbeError::AgentPath(text));
    }
    Ok(())
}

/// The bpftrace program for one launch: the JVM is the first process that `runner`
/// execs, named `comm` (the java binary's name, as the kernel keeps it: 15 bytes at
/// most); counting stops at the agent's main stamp in `agent`.
pub fn program(runner: u32, runner_exe: &Path, comm: &str, agent: &Path, locks: bool) -> String {
    let comm: String = comm.chars().take(15).collect();
    let agent = agent.display();
    let runner_exe = runner_exe.display();
    let sub = SUB_BUCKETS.trailing_zeros();
    let mut p = format!(
        r#"BEGIN {{ printf("ready\n"); }}
tracepoint:sched:sched_process_exec /@jvm == 0 && curtask->real_parent->tgid == {runner} && comm == "{comm}"/ {{
  @jvm = pid; @exec_ns = nsecs; @before_exec = curtask->min_flt + curtask->maj_flt;
}}
tracepoint:exceptions:page_fault_user, tracepoint:exceptions:page_fault_kernel /@jvm != 0 && pid == @jvm/ {{
  if (@start[tid] != 0) {{ @unpaired = count(); }}
  @start[tid] = nsecs;
}}
software:minor-faults:1, software:major-faults:1 /@jvm != 0 && pid == @jvm/ {{
  $s = @start[tid];
  if ($s != 0) {{
    delete(@start[tid]);
    if (@main_ns == 0) {{
      $v = nsecs - $s;
      $l = (uint64)0; $x = $v;
      while ($x > 1) {{ $x = $x >> 1; $l = $l + 1; }}
      $b = $l * {SUB_BUCKETS};
      if ($l >= {sub}) {{ $b = $b + (($v >> ($l - {sub})) & {mask}); }}
      @lat[$b] = count();
      @max_ns = max($v);
    }} else {{
      @after_main = count();
    }}
  }} else {{
    @end_only = count();
  }}
}}
uprobe:{agent}:{MAIN_SYMBOL} /pid == @jvm/ {{ @main_ns = nsecs; }}
uprobe:{runner_exe}:{STOP_SYMBOL} /pid == {runner}/ {{ exit(); }}
tracepoint:sched:sched_process_exit /@jvm != 0 && pid == @jvm/ {{
  @process_faults = sum(curtask->min_flt + curtask->maj_flt);
}}
"#,
        mask = SUB_BUCKETS - 1
    );
    if locks {
        p.push_str(&format!(
            r#"tracepoint:lock:contention_begin /@jvm != 0 && pid == @jvm && @main_ns == 0/ {{
  @lock_start[tid] = nsecs; @lock_flags[tid] = args->flags;
}}
tracepoint:lock:contention_end /@jvm != 0 && pid == @jvm/ {{
  $s = @lock_start[tid];
  if ($s != 0) {{
    $w = nsecs - $s;
    $f = @lock_flags[tid];
    delete(@lock_start[tid]); delete(@lock_flags[tid]);
    @lock_wait_ns[ksym(args->lock_addr), $f, kstack({LOCK_STACK_DEPTH})] = sum($w);
    @lock_max_ns[ksym(args->lock_addr), $f, kstack({LOCK_STACK_DEPTH})] = max($w);
    @lock_count[ksym(args->lock_addr), $f, kstack({LOCK_STACK_DEPTH})] = count();
  }}
}}
"#
        ));
    }
    p
}

/// One bucket of the latency histogram: faults that took from `low_ns` up to (not
/// including) `high_ns`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct LatencyBucket {
    pub low_ns: u64,
    pub high_ns: u64,
    pub count: u64,
}

/// The bounds of histogram bucket `index` as the program computes it: `l = floor(log2 v)`,
/// then `l * 8` plus the three bits below the top one. Below 8 ns a bucket is a whole
/// octave (0 and 1 share the first).
pub fn bucket_bounds(index: u64) -> (u64, u64) {
    let per = u64::from(SUB_BUCKETS);
    let sub_bits = u64::from(SUB_BUCKETS.trailing_zeros());
    let (l, sub) = (index / per, index % per);
    if l == 0 {
        return (0, 2);
    }
    if l < sub_bits {
        return (1 << l, 1 << (l + 1));
    }
    let width = 1u64 << (l - sub_bits);
    let low = (1u64 << l) + sub * width;
    (low, low + width)
}

/// The faults of one launch, exec to `main()`, as the probe timed them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FaultLatency {
    /// CLOCK_MONOTONIC at the JVM's exec (`sched_process_exec`).
    pub exec_ns: Nanos,
    /// CLOCK_MONOTONIC when the agent stamped `main()` (the uprobe); absent when the
    /// JVM never got there (then every fault to its exit is counted).
    pub main_ns: Option<Nanos>,
    /// Faults the process took before its exec (the runner's forked child), read from
    /// the task at the exec: in the agent's counts, not in the histogram.
    pub before_exec: u64,
    /// Faults timed, exec to main: the histogram's total.
    pub count: u64,
    /// The longest of them.
    pub max_ns: Nanos,
    /// Faults timed after main, to the JVM's exit (not in the histogram).
    pub after_main: u64,
    /// Fault entries with no end (faults that failed and raised a signal, or an entry
    /// cut off by the next): not timed.
    pub unpaired: u64,
    /// Ends without an entry (a fault under way when the JVM was matched): not timed.
    pub end_only: u64,
    /// The sum over the JVM's threads, at their exit, of the kernel's per-thread fault
    /// counters (`min_flt + maj_flt`): the process's whole count, as getrusage has it.
    pub process_faults: Option<u64>,
    /// The histogram, buckets in order, empty ones left out.
    pub buckets: Vec<LatencyBucket>,
}

/// Lock waits of one lock at one place, exec to main.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LockWait {
    /// The lock's symbol (a static lock: `zone->lock` of `contig_page_data`...), or its
    /// address when it has none (a lock inside an allocated object).
    pub lock: String,
    /// The kind, from the tracepoint's flags: `spinlock`, `rwsem read`, `rwsem write`,
    /// `mutex`, `rtmutex`, `percpu rwsem`, or the flags in hex.
    pub kind: String,
    /// The first frame of `stack` outside the locking code: who took the lock.
    pub caller: String,
    /// Kernel frames from the tracepoint outwards (`symbol+offset`), at most
    /// [`LOCK_STACK_DEPTH`].
    pub stack: Vec<String>,
    pub count: u64,
    pub total_ns: Nanos,
    pub max_ns: Nanos,
}

/// The lock contention of one launch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "status")]
pub enum Contention {
    /// Measured: every lock wait of the JVM's threads, most total wait first.
    Measured { locks: Vec<LockWait> },
    /// Not measured on this kernel, and why.
    Unsupported { why: LocksUnsupported },
}

/// What the probe read from one launch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProbeReading {
    pub faults: FaultLatency,
    pub contention: Contention,
}

/// Reads bpftrace's `-f json` output: one JSON object a line; the maps are printed at
/// its exit. `locks`: whether the program had lock probes (else the reason).
pub fn parse(text: &str, locks: Result<(), LocksUnsupported>) -> Result<ProbeReading, String> {
    let mut maps = serde_json::Map::new();
    let mut errors = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let Ok(value) = serde_json::from_str::<serde_json::Value>(line) else {
            errors.push(line.to_owned());
            continue;
        };
        if value["type"] == "map"
            && let Some(data) = value["data"].as_object()
        {
            maps.extend(data.clone());
        }
    }
    let number = |name: &str| maps.get(name).and_then(serde_json::Value::as_u64);
    let Some(exec_ns) = number("@exec_ns") else {
        return Err(match errors.is_empty() {
            true => "bpftrace saw no exec of the JVM".to_owned(),
            false => format!(
                "bpftrace saw no exec of the JVM. It said: {}",
                errors.join(" ")
            ),
        });
    };
    let mut buckets = Vec::new();
    if let Some(lat) = maps.get("@lat").and_then(serde_json::Value::as_object) {
        for (key, count) in lat {
            let index: u64 = key
                .parse()
                .map_err(|_| format!("latency bucket `{key}` is not a number"))?;
            let count = count
                .as_u64()
                .ok_or_else(|| format!("latency bucket {key}: count `{count}` is not a number"))?;
            let (low_ns, high_ns) = bucket_bounds(index);
            buckets.push(LatencyBucket {
                low_ns,
                high_ns,
                count,
            });
        }
    }
    buckets.sort_by_key(|b| b.low_ns);
    let faults = FaultLatency {
        exec_ns: Nanos(exec_ns),
        main_ns: number("@main_ns").map(Nanos),
        before_exec: number("@before_exec").unwrap_or(0),
        count: buckets.iter().map(|b| b.count).sum(),
        max_ns: Nanos(number("@max_ns").unwrap_or(0)),
        after_main: number("@after_main").unwrap_or(0),
        unpaired: number("@unpaired").unwrap_or(0),
        end_only: number("@end_only").unwrap_or(0),
        process_faults: number("@process_faults"),
        buckets,
    };
    let contention = match locks {
        Err(why) => Contention::Unsupported { why },
        Ok(()) => Contention::Measured {
            locks: parse_locks(&maps)?,
        },
    };
    Ok(ProbeReading { faults, contention })
}

/// The three lock maps, keyed alike (`symbol,flags,\n stack frames`), into one list.
fn parse_locks(maps: &serde_json::Map<String, serde_json::Value>) -> Result<Vec<LockWait>, String> {
    let get = |name: &str| maps.get(name).and_then(serde_json::Value::as_object);
    let Some(counts) = get("@lock_count") else {
        return Ok(Vec::new());
    };
    let (total, max) = (get("@lock_wait_ns"), get("@lock_max_ns"));
    let mut out = Vec::new();
    for (key, count) in counts {
        let mut parts = key.splitn(3, ',');
        let (Some(lock), Some(flags), stack) = (parts.next(), parts.next(), parts.next()) else {
            return Err(format!("lock key `{key}` is not `lock,flags,stack`"));
        };
        let stack: Vec<String> = stack
            .unwrap_or("")
            .lines()
            .map(str::trim)
            .filter(|f| !f.is_empty())
            .map(str::to_owned)
            .collect();
        let value = |m: Option<&serde_json::Map<String, serde_json::Value>>| {
            m.and_then(|m| m.get(key))
                .and_then(serde_json::Value::as_u64)
        };
        out.push(LockWait {
            lock: lock.trim().to_owned(),
            kind: lock_kind(flags.trim().parse().unwrap_or(u64::MAX)),
            caller: caller(&stack),
            stack,
            count: count.as_u64().unwrap_or(0),
            total_ns: Nanos(value(total).unwrap_or(0)),
            max_ns: Nanos(value(max).unwrap_or(0)),
        });
    }
    out.sort_by(|a, b| b.total_ns.cmp(&a.total_ns).then(a.lock.cmp(&b.lock)));
    Ok(out)
}

/// The lock's kind from `contention_begin`'s flags (`include/trace/events/lock.h`:
/// LCB_F_SPIN 1, READ 2, WRITE 4, RT 8, PERCPU 16, MUTEX 32).
fn lock_kind(flags: u64) -> String {
    match flags {
        1 => "spinlock",
        3 => "rwlock read",
        5 => "rwlock write",
        2 => "rwsem read",
        4 => "rwsem write",
        32 => "mutex",
        8 | 40 => "rtmutex",
        18 => "percpu rwsem read",
        20 => "percpu rwsem write",
        _ => return format!("flags {flags:#x}"),
    }
    .to_owned()
}

/// The first frame of a lock wait's stack that is not the locking code itself.
pub fn caller(stack: &[String]) -> String {
    const LOCKING: &[&str] = &[
        "queued_",
        "__pv_queued",
        "_raw_",
        "do_raw_",
        "rwsem_",
        "__rwsem",
        "down_",
        "up_",
        "__down",
        "mutex_",
        "__mutex",
        "osq_",
        "percpu_",
        "rt_mutex",
        "__rt_mutex",
        "raw_spin_rq_lock",
        "native_queued",
        "lock_vma",
        "vma_start",
        "vma_end",
        "__vma_start",
    ];
    stack
        .iter()
        .find(|f| !LOCKING.iter().any(|p| f.starts_with(p)))
        .or(stack.last())
        .map_or_else(String::new, |f| f.to_owned())
}

/// One probed launch: what the launch measured and what the probe read.
#[derive(Debug, Clone, Default)]
pub struct ProbedOutcome {
    pub outcome: LaunchOutcome,
    /// The bpftrace command, the program in a file of its own: `bpftrace -f json -o ... FILE`.
    pub probe_command: Vec<String>,
    pub reading: Option<ProbeReading>,
    /// Why the probe read nothing, when it did not.
    pub problem: Option<String>,
}

/// Launches JVMs while bpftrace probes them.
pub struct ProbeLauncher {
    inner: JvmLauncher,
    support: ProbeSupport,
    agent: PathBuf,
    scratch: tempfile::TempDir,
}

impl ProbeLauncher {
    pub fn new(
        inner: JvmLauncher,
        support: ProbeSupport,
        agent: PathBuf,
    ) -> std::io::Result<ProbeLauncher> {
        Ok(ProbeLauncher {
            inner,
            support,
            agent: uprobe_path(&agent),
            scratch: tempfile::Builder::new()
                .prefix("pretouch-probe-")
                .tempdir()?,
        })
    }

    /// Starts bpftrace, waits until its probes are attached, launches the JVM, then stops
    /// bpftrace and reads its maps.
    pub fn launch(
        &mut self,
        java: &Path,
        jvm_args: &[String],
        options: &LaunchOptions,
    ) -> ProbedOutcome {
        let files = ProbeFiles::in_dir(self.scratch.path());
        let mut probed = ProbedOutcome {
            probe_command: vec![
                self.support.bpftrace.display().to_string(),
                "-f".into(),
                "json".into(),
                "-o".into(),
                files.out.display().to_string(),
                files.script.display().to_string(),
            ],
            ..ProbedOutcome::default()
        };
        let mut child = match self.start_bpftrace(java, &files, &probed.probe_command) {
            Ok(child) => child,
            Err(problem) => {
                probed.problem = Some(problem);
                return probed;
            }
        };
        probed.outcome = self.inner.launch_with(java, jvm_args, options);
        pretouch_probe_stop();
        let stopped = stop_bpftrace(&mut child);
        let output = std::fs::read_to_string(&files.out).unwrap_or_default();
        match (stopped, parse(&output, self.support.locks.clone())) {
            (Err(stuck), _) => {
                probed.problem = Some(format!(
                    "bpftrace did not exit within {}s of the stop by uprobe and SIGINT, so it was killed. It was in {stuck}.{}",
                    STOP_TIMEOUT.as_secs(),
                    stderr_note(&files.err)
                ));
            }
            (Ok(()), Ok(reading)) => probed.reading = Some(reading),
            (Ok(()), Err(e)) => {
                probed.problem = Some(format!("{e}{}", stderr_note(&files.err)));
            }
        }
        probed
    }

    /// Writes the probe program for `java`'s JVMs to its file, starts bpftrace on it
    /// (`command`) and waits until its probes are attached; or says why not.
    fn start_bpftrace(
        &self,
        java: &Path,
        files: &ProbeFiles,
        command: &[String],
    ) -> Result<std::process::Child, String> {
        let comm = java
            .file_name()
            .map_or_else(|| "java".into(), |n| n.to_string_lossy().into_owned());
        let exe = std::env::current_exe().unwrap_or_default();
        let text = program(
            std::process::id(),
            &exe,
            &comm,
            &self.agent,
            self.support.locks.is_ok(),
        );
        let _ = std::fs::remove_file(&files.out);
        std::fs::write(&files.script, &text)
            .map_err(|e| format!("cannot write `{}`: {e}", files.script.display()))?;
        // Killed with the runner, as the JVM is: its probes go with it.
        let spawned = std::fs::File::create(&files.err).and_then(|stderr| {
            let mut command_line = std::process::Command::new(&self.support.bpftrace);
            command_line
                .args(&command[1..])
                .stdin(std::process::Stdio::null())
                .stdout(std::process::Stdio::null())
                .stderr(stderr);
            crate::launch::child::die_with_the_runner(&mut command_line)?;
            command_line.spawn()
        });
        let mut child = spawned.map_err(|e| format!("cannot start bpftrace: {e}"))?;
        if let Err(e) = wait_ready(&mut child, &files.out, &files.err) {
            let _ = child.kill();
            let _ = child.wait();
            return Err(e);
        }
        Ok(child)
    }
}

/// The files of one probed launch, in the launcher's scratch folder: the bpftrace
/// program, its JSON output and its stderr.
struct ProbeFiles {
    script: PathBuf,
    out: PathBuf,
    err: PathBuf,
}

impl ProbeFiles {
    fn in_dir(dir: &Path) -> ProbeFiles {
        ProbeFiles {
            script: dir.join("probe.bt"),
            out: dir.join("probe.json"),
            err: dir.join("probe.err"),
        }
    }
}

/// Waits for bpftrace to exit once its stop uprobe fired: SIGINT after
/// [`STOP_GRACE`], killed after [`STOP_TIMEOUT`]. The error is where it was stuck.
fn stop_bpftrace(child: &mut std::process::Child) -> Result<(), String> {
    let started = Instant::now();
    let mut signalled = false;
    loop {
        match child.try_wait() {
            Ok(Some(_)) => return Ok(()),
            Ok(None) if started.elapsed() < STOP_TIMEOUT => {
                if !signalled && started.elapsed() > STOP_GRACE {
                    // SAFETY: kill has no memory preconditions; the pid is our
                    // unreaped child's.
                    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) };
                    signalled = true;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            _ => {
                let stuck = where_stuck(child.id());
                let _ = child.kill();
                let _ = child.wait();
                return Err(stuck);
            }
        }
    }
}

/// Where a process is stuck: its threads' kernel wait channels (`/proc/PID/task/*/wchan`).
fn where_stuck(pid: u32) -> String {
    let mut out = Vec::new();
    for task in std::fs::read_dir(format!("/proc/{pid}/task"))
        .into_iter()
        .flatten()
        .flatten()
    {
        let wchan = std::fs::read_to_string(task.path().join("wchan")).unwrap_or_default();
        let state = std::fs::read_to_string(task.path().join("stat"))
            .ok()
            .and_then(|s| {
                s.rsplit_once(") ")
                    .map(|(_, r)| r.chars().next().unwrap_or('?'))
            })
            .unwrap_or('?');
        out.push(format!(
            "{state}:{}",
            if wchan.is_empty() { "-" } else { wchan.trim() }
        ));
    }
    out.join(",")
}

/// Waits until bpftrace's BEGIN printed `ready` (every probe attached), or says why not.
fn wait_ready(child: &mut std::process::Child, out: &Path, err: &Path) -> Result<(), String> {
    let started = Instant::now();
    loop {
        let mut text = String::new();
        if let Ok(mut f) = std::fs::File::open(out) {
            let _ = f.read_to_string(&mut text);
        }
        if text.contains(r#""data": "ready\n""#) || text.contains(r#""data":"ready\n""#) {
            return Ok(());
        }
        if let Ok(Some(status)) = child.try_wait() {
            return Err(format!(
                "bpftrace exited ({status}) before its probes were attached{}",
                stderr_note(err)
            ));
        }
        if started.elapsed() > ATTACH_TIMEOUT {
            return Err(format!(
                "bpftrace did not attach its probes within {}s{}",
                ATTACH_TIMEOUT.as_secs(),
                stderr_note(err)
            ));
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// bpftrace's stderr, but the line every run prints on kernels that account BPF memory
/// to the cgroup instead of RLIMIT_MEMLOCK (harmless there).
fn stderr_note(err: &Path) -> String {
    let text = std::fs::read_to_string(err).unwrap_or_default();
    let said: Vec<&str> = text
        .lines()
        .filter(|l| !l.contains("RLIMIT_MEMLOCK") && !l.trim().is_empty())
        .collect();
    match said.is_empty() {
        true => String::new(),
        false => format!("; bpftrace said: {}", said.join(" / ")),
    }
}

/// Whether `perf c2c` can run here: it needs the PMU's memory-sampling events (Intel
/// `mem-loads`/`ldlat`, AMD IBS), which VMs without a virtual PMU lack.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "status")]
pub enum C2cSupport {
    /// `perf list` names the events: `perf c2c record -- <the launch's command>` runs.
    Available { events: Vec<String> },
    /// It does not; `why` says what was looked for.
    Unavailable { why: String },
}

/// [`C2cSupport`] from `perf list`'s text (pure).
fn c2c_support_from(perf_list: Option<&str>) -> C2cSupport {
    let Some(text) = perf_list else {
        return C2cSupport::Unavailable {
            why: "`perf list` could not be run (perf is not installed)".to_owned(),
        };
    };
    let events: Vec<String> = text
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|e| {
            e.starts_with("mem-loads")
                || e.starts_with("mem-stores")
                || e.contains("ldlat")
                || e.starts_with("ibs_op")
        })
        .map(str::to_owned)
        .collect();
    if events.is_empty() {
        C2cSupport::Unavailable {
            why: "`perf list` has no memory-sampling events (mem-loads, ldlat, ibs_op): no \
                  hardware PMU here, as in most VMs; perf c2c cannot record"
                .to_owned(),
        }
    } else {
        C2cSupport::Available { events }
    }
}

/// [`C2cSupport`] of this machine.
pub fn c2c_support() -> C2cSupport {
    let text = crate::machine::host::find_on_path("perf").and_then(|perf| {
        std::process::Command::new(perf)
            .arg("list")
            .stdin(std::process::Stdio::null())
            .output()
            .ok()
            .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
    });
    c2c_support_from(text.as_deref())
}

/// The `perf c2c record` command for a launch's command line.
pub fn c2c_command(command: &[String]) -> Vec<String> {
    ["perf", "c2c", "record", "-g", "--"]
        .into_iter()
        .map(str::to_owned)
        .chain(command.iter().cloned())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setting() -> ProbeSetting {
        ProbeSetting {
            bpftrace: Some(PathBuf::from("/usr/bin/bpftrace")),
            root: true,
            caps: false,
            btf: true,
            tracefs: true,
            missing_tracepoints: Vec::new(),
            lock_tracepoints: true,
            uprobes: true,
        }
    }

    #[test]
    fn the_check_names_what_is_missing_and_the_fix() {
        let ok = setting().check().unwrap();
        assert_eq!(ok.locks, Ok(()));
        let cases: [(ProbeSetting, &str); 6] = [
            (
                ProbeSetting {
                    bpftrace: None,
                    ..setting()
                },
                "apt-get install bpftrace",
            ),
            (
                ProbeSetting {
                    root: false,
                    ..setting()
                },
                "setcap cap_bpf,cap_perfmon+ep",
            ),
            (
                ProbeSetting {
                    btf: false,
                    ..setting()
                },
                "CONFIG_DEBUG_INFO_BTF=y",
            ),
            (
                ProbeSetting {
                    tracefs: false,
                    ..setting()
                },
                "mount -t tracefs nodev /sys/kernel/tracing",
            ),
            (
                ProbeSetting {
                    missing_tracepoints: vec!["exceptions/page_fault_user"],
                    ..setting()
                },
                "no tracepoint `exceptions/page_fault_user`",
            ),
            (
                ProbeSetting {
                    uprobes: false,
                    ..setting()
                },
                "CONFIG_UPROBE_EVENTS=y",
            ),
        ];
        for (s, fix) in cases {
            let e = s.check().unwrap_err().to_string();
            assert!(e.contains(fix), "{e}");
            assert!(e.contains("fix:"), "{e}");
        }
        // Capabilities instead of root will do.
        let caps = ProbeSetting {
            root: false,
            caps: true,
            ..setting()
        };
        assert!(caps.check().is_ok());
        // Without the lock tracepoints the faults are still probed, and the reason kept.
        let no_locks = ProbeSetting {
            lock_tracepoints: false,
            ..setting()
        };
        assert_eq!(
            no_locks.check().unwrap().locks,
            Err(LocksUnsupported::NoTracepoints)
        );
        assert!(check_agent_path(Path::new("/a b/lib.so")).is_err());
        assert!(check_agent_path(Path::new("/a/lib.so")).is_ok());
        let memfd = uprobe_path(Path::new("/proc/self/fd/3"));
        assert_eq!(
            memfd,
            PathBuf::from(format!("/proc/{}/fd/3", std::process::id()))
        );
        assert_eq!(
            uprobe_path(Path::new("/a/lib.so")),
            PathBuf::from("/a/lib.so")
        );
    }

    #[test]
    fn bucket_bounds_tile_the_line_at_an_eighth_of_an_octave() {
        // Every value falls in the bucket the program's arithmetic gives it.
        for v in [
            0u64, 1, 2, 3, 7, 8, 9, 15, 16, 1000, 1664, 1791, 10_240, 3_250_246,
        ] {
            let l = if v <= 1 {
                0
            } else {
                63 - u64::from(v.leading_zeros())
            };
            let mut b = l * 8;
            if l >= 3 {
                b += (v >> (l - 3)) & 7;
            }
            let (low, high) = bucket_bounds(b);
            assert!(low <= v && v < high, "{v} in bucket {b} [{low}, {high})");
            if l >= 3 {
                assert_eq!((high - low) * 8, 1 << l);
            }
        }
        // Adjacent buckets meet.
        for b in 24..200 {
            assert_eq!(
                bucket_bounds(b + 1).0,
                bucket_bounds(b).1,
                "after bucket {b}"
            );
        }
    }

    /// bpftrace 0.17's `-f json` output, as printed for a G1 64m launch here (cut).
    const OUTPUT: &str = r#"{"type": "attached_probes", "data": {"probes": 10}}
{"type": "printf", "data": "ready\n"}


{"type": "map", "data": {"@after_main": 21}}
{"type": "map", "data": {"@before_exec": 34}}
{"type": "map", "data": {"@end_only": 0}}
{"type": "map", "data": {"@exec_ns": 634844936241}}
{"type": "map", "data": {"@jvm": 4058}}
{"type": "map", "data": {"@lat": {"106": 4332, "85": 4894, "84": 1495, "144": 1}}}
{"type": "map", "data": {"@lock_count": {"0xffff888627c2ba80,1,\n    __pv_queued_spin_lock_slowpath+347\n    _raw_spin_lock+59\n    __task_rq_lock+53\n    try_to_wake_up+1066\n": 2, "contig_page_data,1,\n    __pv_queued_spin_lock_slowpath+347\n    _raw_spin_lock_irqsave+77\n    rmqueue_bulk+80\n": 3}}}
{"type": "map", "data": {"@lock_max_ns": {"0xffff888627c2ba80,1,\n    __pv_queued_spin_lock_slowpath+347\n    _raw_spin_lock+59\n    __task_rq_lock+53\n    try_to_wake_up+1066\n": 3616, "contig_page_data,1,\n    __pv_queued_spin_lock_slowpath+347\n    _raw_spin_lock_irqsave+77\n    rmqueue_bulk+80\n": 900}}}
{"type": "map", "data": {"@lock_wait_ns": {"0xffff888627c2ba80,1,\n    __pv_queued_spin_lock_slowpath+347\n    _raw_spin_lock+59\n    __task_rq_lock+53\n    try_to_wake_up+1066\n": 5000, "contig_page_data,1,\n    __pv_queued_spin_lock_slowpath+347\n    _raw_spin_lock_irqsave+77\n    rmqueue_bulk+80\n": 2000}}}
{"type": "map", "data": {"@main_ns": 635249914293}}
{"type": "map", "data": {"@max_ns": 305305}}
{"type": "map", "data": {"@process_faults": 10800}}
{"type": "map", "data": {"@unpaired": 1}}
"#;

    #[test]
    fn bpftrace_json_reads_into_a_histogram_and_lock_waits() {
        let r = parse(OUTPUT, Ok(())).unwrap();
        let f = &r.faults;
        assert_eq!(f.count, 4332 + 4894 + 1495 + 1);
        assert_eq!(
            f.buckets.iter().map(|b| b.count).sum::<u64>(),
            f.count,
            "the histogram holds every timed fault"
        );
        assert!(f.buckets.windows(2).all(|w| w[0].high_ns <= w[1].low_ns));
        // Bucket 85: octave 10 (1024..2048 ns), fifth eighth: [1664, 1792).
        assert_eq!((f.buckets[1].low_ns, f.buckets[1].high_ns), (1664, 1792));
        assert_eq!(f.main_ns, Some(Nanos(635249914293)));
        assert_eq!(
            (f.before_exec, f.after_main, f.unpaired, f.process_faults),
            (34, 21, 1, Some(10800))
        );
        let Contention::Measured { locks } = &r.contention else {
            panic!("{:?}", r.contention);
        };
        assert_eq!(locks.len(), 2);
        // Most total wait first; the caller is the first frame past the lock code.
        assert_eq!(locks[0].caller, "__task_rq_lock+53");
        assert_eq!(locks[0].kind, "spinlock");
        assert_eq!(
            (locks[0].count, locks[0].total_ns, locks[0].max_ns),
            (2, Nanos(5000), Nanos(3616))
        );
        assert_eq!(locks[1].lock, "contig_page_data");
        assert_eq!(locks[1].caller, "rmqueue_bulk+80");
        assert_eq!(locks[1].stack.len(), 3);
        // A kernel without lock tracepoints: the reason, not an empty list.
        let r = parse(OUTPUT, Err(LocksUnsupported::NoTracepoints)).unwrap();
        assert!(matches!(r.contention, Contention::Unsupported { .. }));
    }

    #[test]
    fn output_without_the_jvms_exec_is_an_error_that_quotes_bpftrace() {
        let e = parse("", Ok(())).unwrap_err();
        assert!(e.contains("no exec of the JVM"), "{e}");
        let e = parse("stdin:1: ERROR: oops\n", Ok(())).unwrap_err();
        assert!(e.contains("oops"), "{e}");
        let bad = OUTPUT.replace(r#""106": 4332"#, r#""x": 4332"#);
        assert!(parse(&bad, Ok(())).unwrap_err().contains("bucket `x`"));
    }

    #[test]
    fn the_program_filters_on_the_runner_and_stops_at_main() {
        let p = program(
            42,
            Path::new("/r/pretouch"),
            "java-with-a-long-name",
            Path::new("/a/lib.so"),
            true,
        );
        assert!(p.contains("uprobe:/r/pretouch:pretouch_probe_stop /pid == 42/ { exit(); }"));
        assert!(p.contains("real_parent->tgid == 42"));
        assert!(p.contains(r#"comm == "java-with-a-lon""#), "15 bytes: {p}");
        assert!(p.contains("uprobe:/a/lib.so:pretouch_agent_main_reached"));
        assert!(p.contains("lock:contention_begin"));
        let p = program(42, Path::new("/r/p"), "java", Path::new("/a/lib.so"), false);
        assert!(!p.contains("lock:"));
    }

    #[test]
    fn lock_kinds_and_callers() {
        assert_eq!(lock_kind(1), "spinlock");
        assert_eq!(lock_kind(2), "rwsem read");
        assert_eq!(lock_kind(32), "mutex");
        assert_eq!(lock_kind(64), "flags 0x40");
        let stack = [
            "rwsem_down_read_slowpath+1",
            "down_read+2",
            "lock_mm_and_find_vma+3",
        ]
        .map(str::to_owned);
        assert_eq!(caller(&stack), "lock_mm_and_find_vma+3");
        assert_eq!(caller(&["_raw_spin_lock+1".to_owned()]), "_raw_spin_lock+1");
        assert_eq!(caller(&[]), "");
    }

    #[test]
    fn c2c_needs_memory_sampling_events() {
        let vm = "  cpu-clock                                          [Software event]\n  \
                  minor-faults                                       [Software event]\n";
        assert!(matches!(
            c2c_support_from(Some(vm)),
            C2cSupport::Unavailable { .. }
        ));
        let intel = "  mem-loads OR cpu/mem-loads/                        [Kernel PMU event]\n  \
                     mem-stores OR cpu/mem-stores/                      [Kernel PMU event]\n";
        assert_eq!(
            c2c_support_from(Some(intel)),
            C2cSupport::Available {
                events: vec!["mem-loads".into(), "mem-stores".into()]
            }
        );
        assert!(matches!(
            c2c_support_from(None),
            C2cSupport::Unavailable { .. }
        ));
        assert_eq!(
            c2c_command(&["java".into(), "-Xmx1g".into()]),
            ["perf", "c2c", "record", "-g", "--", "java", "-Xmx1g"]
        );
    }
}
