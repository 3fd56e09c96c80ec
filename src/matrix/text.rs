//! Stage 1 of the pipeline: a matrix value read as text, a number and a string alike,
//! and checked inside the deserializer, so that serde_yaml gives an error the value's
//! line. The matrix's axes (`matrix`) and its settings (`features::settings::matrix`) read their
//! text values with it.

use std::fmt;

use serde::{Deserializer, de};

/// Deserializes a number or a string as text and checks it inside the visitor (as
/// `matrix::checked_seq` reads a list): `cpus: [0]` and `cpus: ["0"]` mean the same.
pub(crate) fn checked_text<'de, D: Deserializer<'de>>(
    d: D,
    check: fn(String) -> Result<String, String>,
) -> Result<String, D::Error> {
    struct TextVisitor(fn(String) -> Result<String, String>);

    impl de::Visitor<'_> for TextVisitor {
        type Value = String;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a number or a string")
        }

        fn visit_u64<E: de::Error>(self, v: u64) -> Result<String, E> {
            (self.0)(v.to_string()).map_err(E::custom)
        }

        fn visit_i64<E: de::Error>(self, v: i64) -> Result<String, E> {
            (self.0)(v.to_string()).map_err(E::custom)
        }

        fn visit_str<E: de::Error>(self, v: &str) -> Result<String, E> {
            (self.0)(v.to_owned()).map_err(E::custom)
        }
    }

    d.deserialize_any(TextVisitor(check))
}
