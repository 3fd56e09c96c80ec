//! The matrix's `probe:` key.

/// `probe: true`: probed rounds after the timed launches, as `run --probe`.
pub struct ProbeKey;

impl crate::matrix::parts::MatrixKey for ProbeKey {
    type Value = bool;
    const AFTER: &'static str = "profile";

    fn read<'de, A: serde::de::MapAccess<'de>>(map: &mut A) -> Result<bool, A::Error> {
        map.next_value()
    }
}
