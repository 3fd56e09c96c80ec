//! Sizes in the JVM's syntax (`256m`, `32g`): the heaps, and the `memory:` limits.

use std::fmt;

use serde::{Deserialize, Deserializer, de};

use crate::units::Bytes;

/// A heap size in the JVM's syntax (`256m`, `32g`), kept as written for reports.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct HeapSize {
    pub text: String,
    pub bytes: Bytes,
}

impl HeapSize {
    /// A size option on the command line (`--size 1g`, `--vm-memory 4g`), in bytes.
    pub fn parse_bytes(text: &str) -> Result<Bytes, String> {
        HeapSize::parse(text).map(|h| h.bytes)
    }

    pub fn parse(text: &str) -> Result<HeapSize, String> {
        let fix = "Write a whole number with an optional k, m, g or t suffix, like 256m or 32g.";
        let (digits, shift) = match text.char_indices().last() {
            Some((i, c)) if c.is_ascii_alphabetic() => {
                let shift = match c.to_ascii_lowercase() {
                    'k' => 10,
                    'm' => 20,
                    'g' => 30,
                    't' => 40,
                    _ => {
                        return Err(format!(
                            "invalid heap size {text:?}: unknown unit `{c}`. {fix}"
                        ));
                    }
                };
                (&text[..i], shift)
            }
            _ => (text, 0),
        };
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(format!("invalid heap size {text:?}. {fix}"));
        }
        let n: u64 = digits
            .parse()
            .map_err(|_| format!("invalid heap size {text:?}: too large"))?;
        let bytes = n
            .checked_mul(1 << shift)
            .ok_or_else(|| format!("invalid heap size {text:?}: too large"))?;
        // HotSpot refuses heaps below 2 MiB (and rounds up to its alignment).
        if bytes < 2 << 20 {
            return Err(format!(
                "invalid heap size {text:?}: the JVM needs at least 2m. {fix}"
            ));
        }
        Ok(HeapSize {
            text: text.to_owned(),
            bytes: Bytes(bytes),
        })
    }
}

impl<'de> Deserialize<'de> for HeapSize {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        // Checked inside the visitor, so that the error carries this value's position.
        struct HeapVisitor;

        impl de::Visitor<'_> for HeapVisitor {
            type Value = HeapSize;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a heap size like 256m or 32g")
            }

            fn visit_u64<E: de::Error>(self, v: u64) -> Result<HeapSize, E> {
                HeapSize::parse(&v.to_string()).map_err(E::custom)
            }

            fn visit_i64<E: de::Error>(self, v: i64) -> Result<HeapSize, E> {
                HeapSize::parse(&v.to_string()).map_err(E::custom)
            }

            fn visit_str<E: de::Error>(self, v: &str) -> Result<HeapSize, E> {
                HeapSize::parse(v).map_err(E::custom)
            }
        }

        d.deserialize_any(HeapVisitor)
    }
}

impl fmt::Display for HeapSize {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}
