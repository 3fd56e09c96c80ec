//! Units shared by every stage: monotonic nanoseconds and byte sizes, printed in the
//! unit a reader expects and stored as plain integers; and the shared strings
//! ([`Word`]) that every record of a cell repeats.

use std::fmt;

use serde::{Deserialize, Serialize};

/// A CLOCK_MONOTONIC reading or a difference of two, in nanoseconds.
#[derive(
    Debug, Default, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct Nanos(pub u64);

impl Nanos {
    /// Reads CLOCK_MONOTONIC, the clock the agent stamps with and the JVM's `nanoTime` uses.
    pub fn monotonic_now() -> Nanos {
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `ts` is a valid, writable timespec; CLOCK_MONOTONIC always exists on Linux.
        let rc = unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
        assert_eq!(rc, 0, "clock_gettime(CLOCK_MONOTONIC) failed");
        Nanos(ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64)
    }

    /// `self - earlier`, or `None` when the clock readings are out of order.
    pub fn since(self, earlier: Nanos) -> Option<Nanos> {
        self.0.checked_sub(earlier.0).map(Nanos)
    }

    pub fn as_ms(self) -> f64 {
        self.0 as f64 / 1e6
    }
}

impl fmt::Display for Nanos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.1} ms", self.as_ms())
    }
}

/// A size in bytes, printed in binary units.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Bytes(pub u64);

impl fmt::Display for Bytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
        let mut value = self.0 as f64;
        let mut unit = 0;
        while value >= 1024.0 && unit + 1 < UNITS.len() {
            value /= 1024.0;
            unit += 1;
        }
        if unit == 0 || value.fract() == 0.0 {
            write!(f, "{value:.0} {}", UNITS[unit])
        } else {
            write!(f, "{value:.1} {}", UNITS[unit])
        }
    }
}

/// A string many records repeat (a cell's JDK, heap...), shared: stored as the plain
/// JSON string, and read through [`word`], which gives equal words of the records a
/// thread reads one allocation.
pub type Word = std::sync::Arc<str>;

/// (De)serializes a [`Word`] as a plain string. Reading looks the string up in the words
/// this thread has read ([`word::forget`] empties them after a file), so that the
/// 120,000 launches of a cell share its strings instead of holding a copy each.
pub mod word {
    use std::cell::RefCell;
    use std::collections::HashSet;

    use serde::{Deserializer, Serializer};

    use super::Word;

    thread_local! {
        static SEEN: RefCell<HashSet<Word>> = RefCell::new(HashSet::new());
    }

    /// The shared copy of `s`.
    pub fn intern(s: &str) -> Word {
        SEEN.with_borrow_mut(|seen| {
            if let Some(w) = seen.get(s) {
                return w.clone();
            }
            let w: Word = s.into();
            seen.insert(w.clone());
            w
        })
    }

    /// Drops this thread's table; the words already given out live on.
    pub fn forget() {
        SEEN.with_borrow_mut(HashSet::clear);
    }

    pub fn serialize<S: Serializer>(w: &Word, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(w)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Word, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = Word;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a string")
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Word, E> {
                Ok(intern(s))
            }
        }
        d.deserialize_str(V)
    }
}

/// UTC now, RFC 3339 with milliseconds: the time stamps a result file keeps.
/// `n` of a thing, in the plural unless there is one: `1 cell`, `2 cells`.
pub fn count_of(n: impl std::fmt::Display, noun: &str) -> String {
    match n.to_string() {
        one if one == "1" => format!("1 {noun}"),
        many => format!("{many} {noun}s"),
    }
}

pub fn utc_now_millis() -> String {
    humantime::format_rfc3339_millis(std::time::SystemTime::now()).to_string()
}

/// Reads the next value of `map` into `slot`, refusing a key given twice. The launch
/// record's reader reads its own keys with it, one by one, and the features' keys go
/// through [`read_optional_once`].
pub fn read_once<'de, T: serde::Deserialize<'de>, A: serde::de::MapAccess<'de>>(
    slot: &mut Option<T>,
    key: &'static str,
    map: &mut A,
) -> Result<(), A::Error> {
    if slot.is_some() {
        return Err(serde::de::Error::duplicate_field(key));
    }
    *slot = Some(map.next_value()?);
    Ok(())
}

/// The keys a record's reader has read that an empty slot cannot vouch for, because a
/// `null` leaves the slot empty. See [`read_optional_once`].
#[derive(Debug, Default)]
pub struct SeenKeys(Vec<&'static str>);

/// Reads the next value of `map` into an optional `slot`, where `null` leaves it empty,
/// as serde's derived reader reads an `Option` field. A key given twice is refused, even
/// after a `null`, because `seen` remembers each key read.
pub fn read_optional_once<'de, T: serde::Deserialize<'de>, A: serde::de::MapAccess<'de>>(
    slot: &mut Option<T>,
    key: &'static str,
    map: &mut A,
    seen: &mut SeenKeys,
) -> Result<(), A::Error> {
    if seen.0.contains(&key) {
        return Err(serde::de::Error::duplicate_field(key));
    }
    seen.0.push(key);
    *slot = map.next_value()?;
    Ok(())
}

/// Makes the `read_key` of a value of optional fields, such as the features' parts of a
/// launch record, that its record's reader asks for each key it does not know. It reads
/// the value of `key` into the field of that name and says whether there was one. A key
/// given twice is refused, naming it, as the record's reader refuses its own keys, and
/// `seen` remembers the keys read. A `null` reads as no value, as the derived reader
/// read it.
macro_rules! optional_keys_reader {
    ($($field:ident),*) => {
        /// Reads the value of `key` into the field of that name, and says whether there
        /// was one. See `units::optional_keys_reader`.
        pub fn read_key<'de, A: serde::de::MapAccess<'de>>(
            &mut self,
            key: &str,
            map: &mut A,
            seen: &mut $crate::units::SeenKeys,
        ) -> Result<bool, A::Error> {
            match key {
                $(stringify!($field) => $crate::units::read_optional_once(
                    &mut self.$field, stringify!($field), map, seen,
                )?,)*
                _ => return Ok(false),
            }
            Ok(true)
        }
    };
}
pub(crate) use optional_keys_reader;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn monotonic_clock_moves_forward() {
        let a = Nanos::monotonic_now();
        let b = Nanos::monotonic_now();
        assert!(b.since(a).is_some());
        assert_eq!(a.since(Nanos(a.0 + 1)), None);
    }

    #[test]
    fn display_picks_readable_units() {
        assert_eq!(Nanos(1_234_567).to_string(), "1.2 ms");
        assert_eq!(Bytes(512).to_string(), "512 B");
        assert_eq!(Bytes(256 << 20).to_string(), "256 MiB");
        assert_eq!(Bytes(1536 << 20).to_string(), "1.5 GiB");
    }
}
