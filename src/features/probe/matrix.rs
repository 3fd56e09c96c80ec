//! The matrix's `probe:` key.

/// `probe: true`: probed rounds after the timed launches, as `run --probe`. It follows `profile:`.
pub struct ProbeKey;

impl crate::matrix::parts::SwitchKey for ProbeKey {
    const AFTER: &'static str = "profile";
}
