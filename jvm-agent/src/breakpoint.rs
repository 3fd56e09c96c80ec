//! Mechanism 2 (`main=`): once the VM is initialised, watch class preparation for the user's
//! main class, set a JVMTI breakpoint at bytecode 0 of its `main`, and stamp `main` when it hits.
//! No MethodEntry events: they would force the interpreter.

use core::fmt;
use core::ptr;
use core::sync::atomic::{AtomicPtr, Ordering};

use jni::sys::{JNIEnv, jclass, jlong, jmethodID, jobject};

use crate::jvmti::{self, Jvmti, RawEnv};
use crate::options::Lossy;

/// The `main` method the breakpoint was set on; null until then.
static TARGET: AtomicPtr<jni::sys::_jmethodID> = AtomicPtr::new(ptr::null_mut());

#[derive(Debug)]
pub enum Error {
    Jvmti(jvmti::Error),
    NoMain,
}

impl From<jvmti::Error> for Error {
    fn from(e: jvmti::Error) -> Self {
        Error::Jvmti(e)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let class = crate::config().main_class().unwrap_or_default();
        match self {
            Error::Jvmti(e) => write!(f, "cannot set a breakpoint at {}.main: {e}", Lossy(class)),
            Error::NoMain => write!(
                f,
                "class {} declares no main(String[]) or main(), so main cannot be stamped",
                Lossy(class)
            ),
        }
    }
}

/// Starts watching for the main class. Called from VMInit: the launcher loads the main class
/// after VM init, and enabling ClassPrepare only now spares every startup class the event.
pub fn arm(jvmti: Jvmti) -> Result<(), Error> {
    jvmti.set_event_notification_mode(jvmti::ENABLE, jvmti::BREAKPOINT)?;
    jvmti.set_event_notification_mode(jvmti::ENABLE, jvmti::CLASS_PREPARE)?;
    Ok(())
}

/// Whether a JVM class signature (`Lcom/example/Main;`) names the class with this binary name
/// (`com.example.Main`).
pub fn is_signature_of(signature: &[u8], binary_name: &[u8]) -> bool {
    let Some(inner) = signature
        .strip_prefix(b"L")
        .and_then(|s| s.strip_suffix(b";"))
    else {
        return false;
    };
    inner.len() == binary_name.len()
        && inner
            .iter()
            .zip(binary_name)
            .all(|(&s, &b)| s == if b == b'.' { b'/' } else { b })
}

/// How good a launcher entry point a method is: 0 for `main(String[])`, 1 for the JDK 25
/// no-argument `main()`, `None` for anything else.
pub fn main_rank(name: &[u8], signature: &[u8]) -> Option<u8> {
    match (name, signature) {
        (b"main", b"([Ljava/lang/String;)V") => Some(0),
        (b"main", b"()V") => Some(1),
        _ => None,
    }
}

pub extern "system" fn class_prepare(
    env: RawEnv,
    _jni: *mut JNIEnv,
    _thread: jobject,
    klass: jclass,
) {
    crate::guard(|| {
        // SAFETY: env is the JVMTI environment the JVM passes to this callback, and klass the
        // class it reports, a local reference valid during the callback.
        let result = unsafe { on_class_prepare(Jvmti::from_raw(env), klass) };
        if let Err(e) = result {
            crate::fatal(crate::EXIT_INTERNAL, format_args!("{e}"));
        }
    });
}

/// # Safety
/// `klass` must be a live reference to a prepared class.
unsafe fn on_class_prepare(jvmti: Jvmti, klass: jclass) -> Result<(), Error> {
    let Some(main_class) = crate::config().main_class() else {
        return Ok(());
    };
    if !TARGET.load(Ordering::Acquire).is_null() {
        return Ok(()); // Already set; a ClassPrepare event still in flight on another thread.
    }
    // SAFETY: klass is live (this function's contract).
    let signature = unsafe { jvmti.class_signature(klass) }?;
    if !is_signature_of(signature.to_bytes(), main_class) {
        return Ok(());
    }
    // SAFETY: klass is live and prepared (this function's contract).
    let methods = unsafe { jvmti.class_methods(klass) }?;
    let mut best: Option<(u8, jmethodID)> = None;
    for &method in methods.as_slice() {
        // SAFETY: method comes from GetClassMethods of a live class.
        let (name, sig) = unsafe { jvmti.method_name(method) }?;
        if let Some(rank) = main_rank(name.to_bytes(), sig.to_bytes())
            && best.is_none_or(|(best_rank, _)| rank < best_rank)
        {
            best = Some((rank, method));
        }
    }
    let Some((_, main)) = best else {
        return Err(Error::NoMain);
    };
    TARGET.store(main, Ordering::Release);
    // SAFETY: main comes from GetClassMethods of a live class.
    unsafe { jvmti.set_breakpoint(main, 0) }?;
    jvmti.set_event_notification_mode(jvmti::DISABLE, jvmti::CLASS_PREPARE)?;
    Ok(())
}

pub extern "system" fn breakpoint(
    _env: RawEnv,
    _jni: *mut JNIEnv,
    _thread: jobject,
    method: jmethodID,
    _location: jlong,
) {
    crate::guard(|| {
        if method == TARGET.load(Ordering::Acquire) {
            crate::main_reached(crate::stamp::take());
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signature_matching() {
        assert!(is_signature_of(b"Lcom/example/Main;", b"com.example.Main"));
        assert!(is_signature_of(b"LMain;", b"Main"));
        assert!(is_signature_of(
            b"Lcom/example/Outer$Inner;",
            b"com.example.Outer$Inner"
        ));
        assert!(is_signature_of(b"Lcom/example/Main;", b"com/example/Main"));
        assert!(!is_signature_of(
            b"Lcom/example/Main2;",
            b"com.example.Main"
        ));
        assert!(!is_signature_of(b"Lcom/example/Mai;", b"com.example.Main"));
        assert!(!is_signature_of(b"com/example/Main", b"com.example.Main"));
        assert!(!is_signature_of(
            b"[Lcom/example/Main;",
            b"com.example.Main"
        ));
    }

    #[test]
    fn main_ranking() {
        assert_eq!(main_rank(b"main", b"([Ljava/lang/String;)V"), Some(0));
        assert_eq!(main_rank(b"main", b"()V"), Some(1));
        assert_eq!(main_rank(b"main", b"([Ljava/lang/String;)I"), None);
        assert_eq!(main_rank(b"main", b"(I)V"), None);
        assert_eq!(main_rank(b"mark", b"()V"), None);
    }
}
