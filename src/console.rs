//! Terminal output that never panics and never stops a run.
//!
//! std's `print!`/`eprintln!` panic when the write fails: `pretouch run 2>&1 | head`,
//! a pager quit early, or an ssh session that dropped (SIGHUP; the terminal then
//! answers EIO). These macros shadow std's in the whole library (`#[macro_use]` in
//! `lib.rs`, textual scope) and drop a failed write instead: measuring goes on, the
//! result file is finished, and the exit code is the run's own. Messages that matter
//! are in the result file; the terminal is only a view of it.

/// `print!` that ignores a closed or broken stdout.
#[macro_export]
macro_rules! print {
    ($($arg:tt)*) => {{
        use ::std::io::Write as _;
        let _ = ::std::write!(::std::io::stdout(), $($arg)*);
    }};
}

/// `println!` that ignores a closed or broken stdout.
#[macro_export]
macro_rules! println {
    () => {{
        use ::std::io::Write as _;
        let _ = ::std::writeln!(::std::io::stdout());
    }};
    ($($arg:tt)*) => {{
        use ::std::io::Write as _;
        let _ = ::std::writeln!(::std::io::stdout(), $($arg)*);
    }};
}

/// `eprint!` that ignores a closed or broken stderr.
#[macro_export]
macro_rules! eprint {
    ($($arg:tt)*) => {{
        use ::std::io::Write as _;
        let _ = ::std::write!(::std::io::stderr(), $($arg)*);
    }};
}

/// `eprintln!` that ignores a closed or broken stderr.
#[macro_export]
macro_rules! eprintln {
    () => {{
        use ::std::io::Write as _;
        let _ = ::std::writeln!(::std::io::stderr());
    }};
    ($($arg:tt)*) => {{
        use ::std::io::Write as _;
        let _ = ::std::writeln!(::std::io::stderr(), $($arg)*);
    }};
}
