//! pretouch-agent: a native JVM agent, loaded with
//! `-agentpath:/abs/libpretouch_agent.so=[main=<class>,][exit_at_main=0|1,][copy=<file>[+<file>...],]out=<path>`, that stamps
//! agent load, VM init and the entry to `main`, and writes the stamps to `out` for the runner.
//!
//! It never writes to the application's stdout or stderr, except one `pretouch-agent: ...` line
//! on stderr before failing: `Agent_OnLoad` returns `JNI_ERR` on bad options (the JVM refuses to
//! start); later the process `_exit`s with [`EXIT_WRITE_FAILED`] when the stamps file cannot be
//! written, or [`EXIT_INTERNAL`] on a panic or a failed JVMTI call.

use core::ffi::{CStr, c_char, c_int, c_void};
use core::fmt;
use core::panic::AssertUnwindSafe;
use core::sync::atomic::{AtomicBool, Ordering};
use std::io;
use std::sync::OnceLock;

use jni::sys::{JNI_ERR, JNI_OK, JNIEnv, JavaVM, jclass, jint, jobject};

mod breakpoint;
pub mod jvmti;
pub mod options;
pub mod stamp;
pub mod stampfile;

use jvmti::{Jvmti, RawEnv};
use options::{Config, Lossy, Mechanism};
use stampfile::{FILE_CAPACITY, FixedBuf, print_error};

/// Exit status when the stamps file cannot be written.
pub const EXIT_WRITE_FAILED: c_int = 3;
/// Exit status on an internal error: a panic, or a JVMTI call that failed after load.
pub const EXIT_INTERNAL: c_int = 4;

static CONFIG: OnceLock<Config> = OnceLock::new();
/// Set by whoever writes the stamps file, so it is written once.
static WRITTEN: AtomicBool = AtomicBool::new(false);

fn exit(code: c_int) -> ! {
    // SAFETY: _exit has no preconditions; skipping the JVM's shutdown is the point.
    unsafe { libc::_exit(code) }
}

fn fatal(code: c_int, message: fmt::Arguments<'_>) -> ! {
    print_error(message);
    exit(code)
}

/// Runs a callback body; a panic must not cross the FFI boundary, so it ends the process.
fn guard(body: impl FnOnce()) {
    if std::panic::catch_unwind(AssertUnwindSafe(body)).is_err() {
        fatal(EXIT_INTERNAL, format_args!("internal error"));
    }
}

fn config() -> &'static Config {
    match CONFIG.get() {
        Some(config) => config,
        None => fatal(
            EXIT_INTERNAL,
            format_args!("called before Agent_OnLoad configured the agent"),
        ),
    }
}

/// Called by the JVM when it loads the agent, before the heap exists.
///
/// # Safety
/// Only the JVM calls this, with its `JavaVM` and the option string (NUL-terminated, or null).
#[unsafe(no_mangle)]
pub unsafe extern "system" fn Agent_OnLoad(
    vm: *mut JavaVM,
    options: *mut c_char,
    _reserved: *mut c_void,
) -> jint {
    let result = std::panic::catch_unwind(|| {
        stamp::AGENT_LOAD.record(stamp::take());
        // SAFETY: vm and options are as the JVM passed them (this function's contract).
        unsafe { on_load(vm, options) }
    });
    match result {
        Ok(Ok(())) => JNI_OK,
        Ok(Err(message)) => {
            print_error(format_args!("{message}"));
            JNI_ERR
        }
        Err(_) => {
            print_error(format_args!("internal error"));
            JNI_ERR
        }
    }
}

/// Why the agent refuses to load. Only built on that path, so the allocation does not matter.
type LoadError = String;

/// # Safety
/// `vm` must be the JVM's `JavaVM`; `options` null or a NUL-terminated string.
unsafe fn on_load(vm: *mut JavaVM, options: *const c_char) -> Result<(), LoadError> {
    let options = if options.is_null() {
        &[][..]
    } else {
        // SAFETY: non-null, and NUL-terminated (this function's contract).
        unsafe { CStr::from_ptr(options) }.to_bytes()
    };
    let parsed = options::parse(options).map_err(|e| e.to_string())?;
    let config = Config::new(&parsed).map_err(|e| e.to_string())?;
    let mechanism = config.mechanism();
    if CONFIG.set(config).is_err() {
        return Err("loaded twice".into());
    }
    // A JVM that dies before VM init (a bad system class loader, metaspace exhausted,
    // ...) sends no VMDeath and leaves by `_exit`, which runs no exit handler: so the file
    // is written now, with the agent-load stamp, and written again, whole, at `main` or
    // VMDeath. One small write after the agent-load stamp, before the heap exists.
    if let Some(config) = CONFIG.get() {
        write_stamps(config).map_err(|e| {
            format!(
                "cannot write stamps to {}: {e}",
                Lossy(config.out_path().to_bytes())
            )
        })?;
    }

    let mut env: *mut c_void = core::ptr::null_mut();
    // SAFETY: vm is the JVM's JavaVM, whose invoke interface has GetEnv since JNI 1.2; env is a
    // valid out pointer.
    let rc = unsafe { ((**vm).v1_2.GetEnv)(vm, &mut env, jvmti::VERSION_1_2) };
    if rc != JNI_OK || env.is_null() {
        return Err(format!("JVMTI 1.2 is not available (GetEnv returned {rc})"));
    }
    // SAFETY: GetEnv succeeded, so env is a JVMTI environment living as long as the JVM.
    let jvmti = unsafe { Jvmti::from_raw(env.cast()) };

    if mechanism == Mechanism::Breakpoint {
        // Only this capability: others slow the VM down. It can only be added during OnLoad.
        let caps = jvmti::Capabilities::default().with(jvmti::CAN_GENERATE_BREAKPOINT_EVENTS);
        jvmti.add_capabilities(&caps).map_err(|e| e.to_string())?;
    }
    let callbacks = jvmti::EventCallbacks::new()
        .vm_init(vm_init)
        .vm_death(vm_death)
        .class_prepare(breakpoint::class_prepare)
        .breakpoint(breakpoint::breakpoint);
    jvmti
        .set_event_callbacks(&callbacks)
        .map_err(|e| e.to_string())?;
    for event in [jvmti::VM_INIT, jvmti::VM_DEATH] {
        jvmti
            .set_event_notification_mode(jvmti::ENABLE, event)
            .map_err(|e| e.to_string())?;
    }
    Ok(())
}

extern "system" fn vm_init(env: RawEnv, _jni: *mut JNIEnv, _thread: jobject) {
    guard(|| {
        stamp::VM_INIT.record(stamp::take());
        if config().mechanism() == Mechanism::Breakpoint {
            // SAFETY: env is the JVMTI environment the JVM passes to this callback.
            let jvmti = unsafe { Jvmti::from_raw(env) };
            if let Err(e) = breakpoint::arm(jvmti) {
                fatal(EXIT_INTERNAL, format_args!("{e}"));
            }
        }
    });
}

/// The JVM is exiting without `main` having been stamped (or without the file written yet):
/// write what there is, so the runner learns how far the JVM got.
extern "system" fn vm_death(_env: RawEnv, _jni: *mut JNIEnv) {
    guard(|| write_stamps_once(config()));
}

/// The JNI mechanism: the runner's `PretouchMain.main` calls `static native void mark()` first.
/// The JVM finds this symbol in the `-agentpath` library without `System.loadLibrary`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_PretouchMain_mark(_env: *mut JNIEnv, _class: jclass) {
    guard(|| main_reached(stamp::take()));
}

/// Called once `main` is stamped, by either mechanism: `pretouch run --probe` stops
/// counting faults here (a uprobe on this symbol, see `src/features/probe/launch.rs`). It does
/// nothing; `black_box` keeps the call from being optimised away.
#[unsafe(no_mangle)]
#[inline(never)]
pub extern "C" fn pretouch_agent_main_reached() {
    core::hint::black_box(());
}

/// `main` was entered (at `sample`): record it, write the file, and exit if asked to.
fn main_reached(sample: stamp::Sample) {
    pretouch_agent_main_reached();
    if !stamp::MAIN.record(sample) {
        return;
    }
    let config = config();
    write_stamps_once(config);
    copy_smaps(config);
    copy_asked(config);
    if config.exit_at_main {
        exit(0);
    }
}

/// Copies `/proc/self/smaps` to `<out>.smaps`, for the runner to read what the heap's
/// memory is at `main`. It runs after the `main` stamp is taken and written, never between
/// stamps, so it costs the measurement nothing. A failure is not fatal: the runner then
/// records the heap's memory as unknown.
fn copy_smaps(config: &Config) {
    use std::os::unix::ffi::OsStrExt;
    let mut path = config.out_path().to_bytes().to_vec();
    path.extend_from_slice(b".smaps");
    let path = std::path::Path::new(std::ffi::OsStr::from_bytes(&path));
    if let Ok(text) = std::fs::read("/proc/self/smaps") {
        let _ = std::fs::write(path, text);
    }
}

/// Copies each file of `/proc/self` that the `copy=` option names to `<out>.<name>`,
/// such as `numa_maps`, which tells on which NUMA node each page of each mapping is. The
/// runner asks for them only when a feature reads them, because reading `numa_maps`
/// walks the process's page tables as smaps does. Like the smaps copy, it runs after the
/// `main` stamp is taken and written, and a failure is not fatal.
fn copy_asked(config: &Config) {
    use std::os::unix::ffi::OsStrExt;
    for name in config.copies() {
        let mut path = config.out_path().to_bytes().to_vec();
        path.push(b'.');
        path.extend_from_slice(name);
        let mut source = b"/proc/self/".to_vec();
        source.extend_from_slice(name);
        if let Ok(text) = std::fs::read(std::ffi::OsStr::from_bytes(&source)) {
            let _ = std::fs::write(std::ffi::OsStr::from_bytes(&path), text);
        }
    }
}

/// Writes the stamps file unless it was already written; exits the process if it cannot.
fn write_stamps_once(config: &Config) {
    if WRITTEN.swap(true, Ordering::AcqRel) {
        return;
    }
    if let Err(e) = write_stamps(config) {
        let path = Lossy(config.out_path().to_bytes());
        fatal(
            EXIT_WRITE_FAILED,
            format_args!("cannot write stamps to {path}: {e}"),
        );
    }
}

fn write_stamps(config: &Config) -> io::Result<()> {
    let stamps = [
        ("agent_load", stamp::AGENT_LOAD.get()),
        ("vm_init", stamp::VM_INIT.get()),
        ("main", stamp::MAIN.get()),
    ];
    let mut buf = FixedBuf::<FILE_CAPACITY>::new();
    // Cannot overflow: FILE_CAPACITY fits every number at u64::MAX (tested).
    stampfile::format(&mut buf, config.mechanism(), &stamps)
        .map_err(|_| io::ErrorKind::OutOfMemory)?;
    stampfile::write_file(config.out_path(), buf.as_bytes())
}
