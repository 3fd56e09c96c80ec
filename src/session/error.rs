//! Exit codes, and the one error type that marks a failure as the user's to fix.

/// Exit codes, as `pretouch --help` lists them.
pub mod exit {
    pub const ERROR: u8 = 1;
    pub const BAD_INPUT: u8 = 2;
    pub const FAILED_LAUNCHES: u8 = 3;
}

/// An error the user caused and can fix: exit code 2.
#[derive(Debug, thiserror::Error)]
#[error(transparent)]
struct BadInput(anyhow::Error);

/// Marks an error as bad input (exit code 2).
pub fn bad(e: impl Into<anyhow::Error>) -> anyhow::Error {
    BadInput(e.into()).into()
}

/// The exit code for an error a command returned.
pub fn exit_code(e: &anyhow::Error) -> u8 {
    if e.downcast_ref::<BadInput>().is_some() {
        exit::BAD_INPUT
    } else {
        exit::ERROR
    }
}
