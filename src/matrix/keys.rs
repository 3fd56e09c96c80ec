//! Reading a block of the matrix key by key, as serde's derived code reads a struct, for
//! the blocks whose keys come from the core and from the features. Each error is the one
//! the derived code gives, at the same place, so a message keeps its words, its line and
//! its column.

use std::fmt;

use serde::de::{self, DeserializeSeed, Visitor};

/// A key of a block whose keys are `0`, in the order an unknown key's message lists them.
/// It reads as the key's entry in that list, so it lives as long as the list.
pub struct KeySeed(pub &'static [&'static str]);

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = &'static str;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<&'static str, D::Error> {
        d.deserialize_identifier(self)
    }
}

impl Visitor<'_> for KeySeed {
    type Value = &'static str;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("field identifier")
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<&'static str, E> {
        match self.0.iter().find(|k| **k == key) {
            Some(k) => Ok(k),
            None => Err(E::unknown_field(key, self.0)),
        }
    }

    fn visit_bytes<E: de::Error>(self, key: &[u8]) -> Result<&'static str, E> {
        self.visit_str(&String::from_utf8_lossy(key))
    }
}

/// Keeps the keys read so far, so a key written twice is refused as serde refuses it.
#[derive(Default)]
pub struct Seen(Vec<&'static str>);

impl Seen {
    /// Notes `key`, or refuses it when it came before.
    pub fn first<E: de::Error>(&mut self, key: &'static str) -> Result<(), E> {
        if self.0.contains(&key) {
            return Err(E::duplicate_field(key));
        }
        self.0.push(key);
        Ok(())
    }
}
