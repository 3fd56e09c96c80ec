//! Minimal hand-written JVMTI FFI: only the function-table slots, events and capability the
//! agent uses. Every number here is checked against the JDK's `include/jvmti.h` by the tests in
//! `jvmti/header_tests.rs`.

use core::ffi::{CStr, c_char, c_int, c_uchar, c_void};
use core::fmt;
use core::ptr;

use jni::sys::{JNIEnv, jclass, jint, jlong, jmethodID, jobject};

/// `jvmtiEnv *` as passed to every callback: a pointer to a pointer to the function table, which
/// is a C struct of function pointers, i.e. an array of pointers.
pub type RawEnv = *mut *const *const c_void;

/// A function-table entry: the field name in `jvmtiInterface_1_` and its 1-based slot number
/// (the `/*   N : ... */` comment in the header; slot 1 is `reserved1`).
#[derive(Clone, Copy, Debug)]
pub struct Slot {
    pub field: &'static str,
    pub number: usize,
}

pub const SET_EVENT_NOTIFICATION_MODE: Slot = Slot {
    field: "SetEventNotificationMode",
    number: 2,
};
pub const SET_BREAKPOINT: Slot = Slot {
    field: "SetBreakpoint",
    number: 38,
};
pub const DEALLOCATE: Slot = Slot {
    field: "Deallocate",
    number: 47,
};
pub const GET_CLASS_SIGNATURE: Slot = Slot {
    field: "GetClassSignature",
    number: 48,
};
pub const GET_CLASS_METHODS: Slot = Slot {
    field: "GetClassMethods",
    number: 52,
};
pub const GET_METHOD_NAME: Slot = Slot {
    field: "GetMethodName",
    number: 64,
};
pub const GET_METHOD_MODIFIERS: Slot = Slot {
    field: "GetMethodModifiers",
    number: 66,
};
pub const SET_EVENT_CALLBACKS: Slot = Slot {
    field: "SetEventCallbacks",
    number: 122,
};
pub const ADD_CAPABILITIES: Slot = Slot {
    field: "AddCapabilities",
    number: 142,
};

/// Every slot the agent calls, for the header tests.
pub const SLOTS: [Slot; 9] = [
    SET_EVENT_NOTIFICATION_MODE,
    SET_BREAKPOINT,
    DEALLOCATE,
    GET_CLASS_SIGNATURE,
    GET_CLASS_METHODS,
    GET_METHOD_NAME,
    GET_METHOD_MODIFIERS,
    SET_EVENT_CALLBACKS,
    ADD_CAPABILITIES,
];

/// An event: its `jvmtiEvent` enum constant, its field in `jvmtiEventCallbacks`, and its number.
#[derive(Clone, Copy, Debug)]
pub struct Event {
    pub constant: &'static str,
    pub callback: &'static str,
    pub number: c_int,
}

pub const VM_INIT: Event = Event {
    constant: "JVMTI_EVENT_VM_INIT",
    callback: "VMInit",
    number: 50,
};
pub const VM_DEATH: Event = Event {
    constant: "JVMTI_EVENT_VM_DEATH",
    callback: "VMDeath",
    number: 51,
};
pub const CLASS_PREPARE: Event = Event {
    constant: "JVMTI_EVENT_CLASS_PREPARE",
    callback: "ClassPrepare",
    number: 56,
};
pub const BREAKPOINT: Event = Event {
    constant: "JVMTI_EVENT_BREAKPOINT",
    callback: "Breakpoint",
    number: 62,
};

/// Every event the agent handles, for the header tests.
pub const EVENTS: [Event; 4] = [VM_INIT, VM_DEATH, CLASS_PREPARE, BREAKPOINT];

/// `JVMTI_MIN_EVENT_TYPE_VAL`: the event whose callback is the first field of `jvmtiEventCallbacks`.
pub const FIRST_EVENT: c_int = 50;

/// `JVMTI_VERSION_1_2`, asked for with `GetEnv`.
pub const VERSION_1_2: jint = 0x3001_0200;
/// `JVMTI_ENABLE` and `JVMTI_DISABLE` (`jvmtiEventMode`).
pub const ENABLE: c_int = 1;
pub const DISABLE: c_int = 0;
/// `JVMTI_ERROR_NONE`.
pub const ERROR_NONE: c_int = 0;

/// The plain enum constants above, by their header names, for the header tests.
pub const CONSTANTS: [(&str, i64); 5] = [
    ("JVMTI_VERSION_1_2", VERSION_1_2 as i64),
    ("JVMTI_ENABLE", ENABLE as i64),
    ("JVMTI_DISABLE", DISABLE as i64),
    ("JVMTI_ERROR_NONE", ERROR_NONE as i64),
    ("JVMTI_MIN_EVENT_TYPE_VAL", FIRST_EVENT as i64),
];

/// A capability: its field in `jvmtiCapabilities` and its bit index, counted from the first field.
#[derive(Clone, Copy, Debug)]
pub struct Capability {
    pub field: &'static str,
    pub bit: u32,
}

pub const CAN_GENERATE_BREAKPOINT_EVENTS: Capability = Capability {
    field: "can_generate_breakpoint_events",
    bit: 19,
};

/// `jvmtiCapabilities`: 128 one-bit fields packed into four `unsigned int`s. On the Linux ABIs
/// (x86_64, aarch64: little-endian, GCC layout) bit fields fill each unit from its lowest bit.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct Capabilities {
    words: [u32; 4],
}

impl Capabilities {
    #[must_use]
    pub const fn with(mut self, cap: Capability) -> Self {
        self.words[(cap.bit / 32) as usize] |= 1 << (cap.bit % 32);
        self
    }
}

pub type VmInitFn = extern "system" fn(RawEnv, *mut JNIEnv, jobject);
pub type VmDeathFn = extern "system" fn(RawEnv, *mut JNIEnv);
pub type ClassPrepareFn = extern "system" fn(RawEnv, *mut JNIEnv, jobject, jclass);
pub type BreakpointFn = extern "system" fn(RawEnv, *mut JNIEnv, jobject, jmethodID, jlong);

const CALLBACK_COUNT: usize = (BREAKPOINT.number - FIRST_EVENT + 1) as usize;

/// The head of `jvmtiEventCallbacks`, up to `Breakpoint`: field `i` is the callback for event
/// `FIRST_EVENT + i`. `SetEventCallbacks` takes the size, so a shorter struct is allowed and
/// the JVM clears the callbacks past it.
#[repr(C)]
pub struct EventCallbacks {
    slots: [*const c_void; CALLBACK_COUNT],
}

impl Default for EventCallbacks {
    fn default() -> Self {
        Self::new()
    }
}

impl EventCallbacks {
    pub const fn new() -> Self {
        Self {
            slots: [ptr::null(); CALLBACK_COUNT],
        }
    }

    fn set(&mut self, event: Event, f: *const c_void) {
        self.slots[(event.number - FIRST_EVENT) as usize] = f;
    }

    pub fn vm_init(mut self, f: VmInitFn) -> Self {
        self.set(VM_INIT, f as *const c_void);
        self
    }

    pub fn vm_death(mut self, f: VmDeathFn) -> Self {
        self.set(VM_DEATH, f as *const c_void);
        self
    }

    pub fn class_prepare(mut self, f: ClassPrepareFn) -> Self {
        self.set(CLASS_PREPARE, f as *const c_void);
        self
    }

    pub fn breakpoint(mut self, f: BreakpointFn) -> Self {
        self.set(BREAKPOINT, f as *const c_void);
        self
    }
}

/// A failed JVMTI call.
#[derive(Clone, Copy, Debug)]
pub struct Error {
    pub function: &'static str,
    /// The `jvmtiError` code, or `None` when the function-table slot was null.
    pub code: Option<c_int>,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.code {
            Some(code) => write!(f, "JVMTI {} failed with error {code}", self.function),
            None => write!(
                f,
                "JVMTI {} is missing from the function table",
                self.function
            ),
        }
    }
}

/// A JVMTI environment.
#[derive(Clone, Copy)]
pub struct Jvmti(RawEnv);

impl Jvmti {
    /// # Safety
    /// `env` must be a JVMTI environment handed out by this JVM (by `GetEnv` or to a callback),
    /// valid for as long as the returned value is used.
    pub unsafe fn from_raw(env: RawEnv) -> Self {
        Self(env)
    }

    fn function(self, slot: Slot) -> Result<*const c_void, Error> {
        // SAFETY: self.0 is a live jvmtiEnv (from_raw's contract); its table has at least 142
        // slots in every JVMTI 1.2+ JVM, and every slot in SLOTS is at most that.
        let f = unsafe { *(*self.0).add(slot.number - 1) };
        if f.is_null() {
            Err(Error {
                function: slot.field,
                code: None,
            })
        } else {
            Ok(f)
        }
    }

    fn check(slot: Slot, code: c_int) -> Result<(), Error> {
        if code == ERROR_NONE {
            Ok(())
        } else {
            Err(Error {
                function: slot.field,
                code: Some(code),
            })
        }
    }

    /// Enables or disables `event` for all threads.
    pub fn set_event_notification_mode(self, mode: c_int, event: Event) -> Result<(), Error> {
        type F = unsafe extern "C" fn(RawEnv, c_int, c_int, jobject, ...) -> c_int;
        let f = self.function(SET_EVENT_NOTIFICATION_MODE)?;
        // SAFETY: slot 2 holds SetEventNotificationMode, whose C type is F (it is variadic).
        let f: F = unsafe { core::mem::transmute::<*const c_void, F>(f) };
        // SAFETY: a null thread means all threads; mode and event are valid enum values.
        let code = unsafe { f(self.0, mode, event.number, ptr::null_mut()) };
        Self::check(SET_EVENT_NOTIFICATION_MODE, code)
    }

    pub fn set_event_callbacks(self, callbacks: &EventCallbacks) -> Result<(), Error> {
        type F = unsafe extern "system" fn(RawEnv, *const EventCallbacks, jint) -> c_int;
        let f = self.function(SET_EVENT_CALLBACKS)?;
        // SAFETY: slot 122 holds SetEventCallbacks, whose C type is F.
        let f: F = unsafe { core::mem::transmute::<*const c_void, F>(f) };
        let size = size_of::<EventCallbacks>() as jint;
        // SAFETY: callbacks points to `size` bytes laid out as the head of jvmtiEventCallbacks;
        // the JVM copies them.
        let code = unsafe { f(self.0, callbacks, size) };
        Self::check(SET_EVENT_CALLBACKS, code)
    }

    pub fn add_capabilities(self, caps: &Capabilities) -> Result<(), Error> {
        type F = unsafe extern "system" fn(RawEnv, *const Capabilities) -> c_int;
        let f = self.function(ADD_CAPABILITIES)?;
        // SAFETY: slot 142 holds AddCapabilities, whose C type is F.
        let f: F = unsafe { core::mem::transmute::<*const c_void, F>(f) };
        // SAFETY: caps has the size and layout of jvmtiCapabilities.
        let code = unsafe { f(self.0, caps) };
        Self::check(ADD_CAPABILITIES, code)
    }

    /// # Safety
    /// `method` must be a live method ID of this JVM.
    pub unsafe fn set_breakpoint(self, method: jmethodID, location: jlong) -> Result<(), Error> {
        type F = unsafe extern "system" fn(RawEnv, jmethodID, jlong) -> c_int;
        let f = self.function(SET_BREAKPOINT)?;
        // SAFETY: slot 38 holds SetBreakpoint, whose C type is F.
        let f: F = unsafe { core::mem::transmute::<*const c_void, F>(f) };
        // SAFETY: method is live (caller's contract).
        let code = unsafe { f(self.0, method, location) };
        Self::check(SET_BREAKPOINT, code)
    }

    /// # Safety
    /// `klass` must be a live local or global reference to a class.
    pub unsafe fn class_signature(self, klass: jclass) -> Result<Allocation<c_char>, Error> {
        type F =
            unsafe extern "system" fn(RawEnv, jclass, *mut *mut c_char, *mut *mut c_char) -> c_int;
        let f = self.function(GET_CLASS_SIGNATURE)?;
        // SAFETY: slot 48 holds GetClassSignature, whose C type is F.
        let f: F = unsafe { core::mem::transmute::<*const c_void, F>(f) };
        let mut sig = ptr::null_mut();
        // SAFETY: klass is live (caller's contract); a null generic_ptr is allowed.
        let code = unsafe { f(self.0, klass, &mut sig, ptr::null_mut()) };
        Self::check(GET_CLASS_SIGNATURE, code)?;
        Ok(Allocation {
            env: self,
            ptr: sig,
            len: 0,
        })
    }

    /// # Safety
    /// `klass` must be a live local or global reference to a prepared class.
    pub unsafe fn class_methods(self, klass: jclass) -> Result<Allocation<jmethodID>, Error> {
        type F = unsafe extern "system" fn(RawEnv, jclass, *mut jint, *mut *mut jmethodID) -> c_int;
        let f = self.function(GET_CLASS_METHODS)?;
        // SAFETY: slot 52 holds GetClassMethods, whose C type is F.
        let f: F = unsafe { core::mem::transmute::<*const c_void, F>(f) };
        let mut count: jint = 0;
        let mut methods = ptr::null_mut();
        // SAFETY: klass is live (caller's contract); both out pointers are valid.
        let code = unsafe { f(self.0, klass, &mut count, &mut methods) };
        Self::check(GET_CLASS_METHODS, code)?;
        Ok(Allocation {
            env: self,
            ptr: methods,
            len: usize::try_from(count).unwrap_or(0),
        })
    }

    /// The method's access flags (`ACC_PUBLIC`, `ACC_PRIVATE`, `ACC_STATIC`, ...).
    ///
    /// # Safety
    /// `method` must be a live method ID of this JVM.
    pub unsafe fn method_modifiers(self, method: jmethodID) -> Result<jint, Error> {
        type F = unsafe extern "system" fn(RawEnv, jmethodID, *mut jint) -> c_int;
        let f = self.function(GET_METHOD_MODIFIERS)?;
        // SAFETY: slot 66 holds GetMethodModifiers, whose C type is F.
        let f: F = unsafe { core::mem::transmute::<*const c_void, F>(f) };
        let mut modifiers: jint = 0;
        // SAFETY: method is live (caller's contract); the out pointer is valid.
        let code = unsafe { f(self.0, method, &mut modifiers) };
        Self::check(GET_METHOD_MODIFIERS, code)?;
        Ok(modifiers)
    }

    /// Returns the method's name and signature.
    ///
    /// # Safety
    /// `method` must be a live method ID of this JVM.
    pub unsafe fn method_name(
        self,
        method: jmethodID,
    ) -> Result<(Allocation<c_char>, Allocation<c_char>), Error> {
        type F = unsafe extern "system" fn(
            RawEnv,
            jmethodID,
            *mut *mut c_char,
            *mut *mut c_char,
            *mut *mut c_char,
        ) -> c_int;
        let f = self.function(GET_METHOD_NAME)?;
        // SAFETY: slot 64 holds GetMethodName, whose C type is F.
        let f: F = unsafe { core::mem::transmute::<*const c_void, F>(f) };
        let mut name = ptr::null_mut();
        let mut sig = ptr::null_mut();
        // SAFETY: method is live (caller's contract); a null generic_ptr is allowed.
        let code = unsafe { f(self.0, method, &mut name, &mut sig, ptr::null_mut()) };
        // Wrap both before checking, so whatever was allocated is freed.
        let name = Allocation {
            env: self,
            ptr: name,
            len: 0,
        };
        let sig = Allocation {
            env: self,
            ptr: sig,
            len: 0,
        };
        Self::check(GET_METHOD_NAME, code)?;
        Ok((name, sig))
    }
}

/// Memory the JVM allocated for a JVMTI result; given back with `Deallocate` on drop.
pub struct Allocation<T> {
    env: Jvmti,
    ptr: *mut T,
    /// Number of elements for arrays; unused for strings.
    len: usize,
}

impl Allocation<c_char> {
    /// The string's bytes (modified UTF-8), without the terminating NUL.
    pub fn to_bytes(&self) -> &[u8] {
        if self.ptr.is_null() {
            return &[];
        }
        // SAFETY: JVMTI returns NUL-terminated strings, alive until this Allocation drops.
        unsafe { CStr::from_ptr(self.ptr) }.to_bytes()
    }
}

impl<T> Allocation<T> {
    pub fn as_slice(&self) -> &[T] {
        if self.ptr.is_null() {
            return &[];
        }
        // SAFETY: JVMTI returned an array of `len` initialised elements, alive until drop.
        unsafe { core::slice::from_raw_parts(self.ptr, self.len) }
    }
}

impl<T> Drop for Allocation<T> {
    fn drop(&mut self) {
        if self.ptr.is_null() {
            return;
        }
        type F = unsafe extern "system" fn(RawEnv, *mut c_uchar) -> c_int;
        if let Ok(f) = self.env.function(DEALLOCATE) {
            // SAFETY: slot 47 holds Deallocate, whose C type is F.
            let f: F = unsafe { core::mem::transmute::<*const c_void, F>(f) };
            // SAFETY: ptr was allocated by this JVMTI environment and is freed exactly once. A
            // failure would only leak.
            unsafe { f(self.env.0, self.ptr.cast()) };
        }
    }
}

#[cfg(test)]
mod header_tests;
