//! The matrix's `profile:` key.

/// `profile: true`: profiled rounds after the timed launches, as `run --profile`. It follows `app:`.
pub struct ProfileKey;

impl crate::matrix::parts::SwitchKey for ProfileKey {
    const AFTER: &'static str = "app";
}
