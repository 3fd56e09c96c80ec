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

/// `ACC_PRIVATE` in a method's access flags (JVMS 4.6).
const ACC_PRIVATE: i32 = 0x0002;

/// How good a launcher entry point a method is: 0 for `main(String[])`, 1 for the JDK 25
/// no-argument `main()`, `None` for anything else (and for private methods, which no
/// launcher runs). Static or instance does not matter: JDK 25's launcher
/// (`MainMethodFinder`, JEP 512 as delivered) takes a non-private `main(String[])`,
/// static or instance, declared or inherited, before any `main()`. (Checked on Temurin
/// 25.0.3: a class with `static main()` and an instance `main(String[])` runs the
/// latter.) JDK 17 runs only `public static main(String[])`, declared or inherited.
pub fn main_rank(name: &[u8], signature: &[u8], modifiers: i32) -> Option<u8> {
    if modifiers & ACC_PRIVATE != 0 {
        return None;
    }
    match (name, signature) {
        (b"main", b"([Ljava/lang/String;)V") => Some(0),
        (b"main", b"()V") => Some(1),
        _ => None,
    }
}

/// The best of `candidates` (rank, depth in the class hierarchy from the launched
/// class, method): the lowest rank, and of equal ranks the nearest class, as the
/// launcher's lookup finds it.
pub fn pick<T: Copy>(candidates: &[(u8, usize, T)]) -> Option<T> {
    candidates
        .iter()
        .min_by_key(|(rank, depth, _)| (*rank, *depth))
        .map(|(_, _, m)| *m)
}

pub extern "system" fn class_prepare(
    env: RawEnv,
    jni: *mut JNIEnv,
    _thread: jobject,
    klass: jclass,
) {
    crate::guard(|| {
        // SAFETY: env is the JVMTI environment the JVM passes to this callback, jni the
        // thread's JNI environment, and klass the class it reports, a local reference
        // valid during the callback.
        let result = unsafe { on_class_prepare(Jvmti::from_raw(env), jni, klass) };
        if let Err(e) = result {
            crate::fatal(crate::EXIT_INTERNAL, format_args!("{e}"));
        }
    });
}

/// # Safety
/// `klass` must be a live reference to a prepared class, `jni` the calling thread's JNI
/// environment.
unsafe fn on_class_prepare(jvmti: Jvmti, jni: *mut JNIEnv, klass: jclass) -> Result<(), Error> {
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
    // The class, then its superclasses: a `main` may be inherited. At most two
    // candidates a class, so the list never grows past a few entries.
    let mut candidates: Vec<(u8, usize, jmethodID)> = Vec::new();
    let mut class = klass;
    let mut depth = 0;
    while !class.is_null() {
        // SAFETY: class is live and prepared: klass by this function's contract, each
        // superclass because a class is prepared only after its superclass.
        let methods = unsafe { jvmti.class_methods(class) }?;
        for &method in methods.as_slice() {
            // SAFETY: method comes from GetClassMethods of a live class.
            let (name, sig) = unsafe { jvmti.method_name(method) }?;
            if name.to_bytes() != b"main" {
                continue;
            }
            // SAFETY: as above.
            let modifiers = unsafe { jvmti.method_modifiers(method) }?;
            if let Some(rank) = main_rank(name.to_bytes(), sig.to_bytes(), modifiers) {
                candidates.push((rank, depth, method));
            }
        }
        // SAFETY: jni is the JNI environment of this callback's thread, and class a live
        // local reference; GetSuperclass returns a new local reference (freed with the
        // callback's frame) or null for java.lang.Object.
        class = unsafe { ((**jni).v1_1.GetSuperclass)(jni, class) };
        depth += 1;
    }
    let Some(main) = pick(&candidates) else {
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
        const PUBLIC_STATIC: i32 = 0x0009;
        assert_eq!(
            main_rank(b"main", b"([Ljava/lang/String;)V", PUBLIC_STATIC),
            Some(0)
        );
        assert_eq!(main_rank(b"main", b"([Ljava/lang/String;)V", 0), Some(0));
        assert_eq!(main_rank(b"main", b"()V", 0x0008), Some(1));
        assert_eq!(main_rank(b"main", b"()V", ACC_PRIVATE), None);
        assert_eq!(main_rank(b"main", b"([Ljava/lang/String;)I", 0), None);
        assert_eq!(main_rank(b"main", b"(I)V", 0), None);
        assert_eq!(main_rank(b"mark", b"()V", 0), None);
    }

    #[test]
    fn main_string_array_anywhere_beats_main_without_arguments() {
        // A static main() in the class, an instance main(String[]) inherited: the latter.
        assert_eq!(
            pick(&[(1, 0, "C.main()"), (0, 1, "P.main(String[])")]),
            Some("P.main(String[])")
        );
        // Equal ranks: the nearest class.
        assert_eq!(
            pick(&[(1, 1, "P.main()"), (1, 0, "C.main()")]),
            Some("C.main()")
        );
        assert_eq!(pick::<&str>(&[]), None);
    }
}
