//! The matrix's `profile:` key.

/// `profile: true`: profiled rounds after the timed launches, as `run --profile`.
pub struct ProfileKey;

impl crate::matrix::parts::MatrixKey for ProfileKey {
    type Value = bool;
    const AFTER: &'static str = "app";

    fn read<'de, A: serde::de::MapAccess<'de>>(map: &mut A) -> Result<bool, A::Error> {
        map.next_value()
    }
}
