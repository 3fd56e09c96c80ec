//! Stage 1 of the pipeline: the matrix's `memory:` axis, memory cgroup limits a cell's
//! launches run under, parsed and checked before anything else happens. Where the
//! cgroups are made (cgroup v2, or v1's memory controller) is `features::cgroup::launch`'s.

use std::collections::HashSet;
use std::fmt;

use serde::{Deserialize, Deserializer, de};

use crate::matrix::size::HeapSize;
use crate::units::Bytes;

/// The name of the `memory:` value that sets no limit: the launch still runs in a
/// cgroup of its own, so that its charge and events are recorded beside the limited
/// cells'.
const NO_LIMIT: &str = "none";

/// One value of the `memory:` axis: a transient memory cgroup's limits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemoryLimit {
    /// The cell's `memory=NAME`: as given, else the limit as written (`1536m`).
    pub name: String,
    /// `memory.max` (cgroup v1: `memory.limit_in_bytes`); `None`: no limit.
    pub max: Option<Bytes>,
    /// `memory.high`, cgroup v2 only: above it the kernel reclaims before it kills.
    pub high: Option<Bytes>,
}

/// A `memory:` item as written: a size or `none`, or a map.
#[derive(Debug)]
enum RawItem {
    Text(String),
    Map(RawMap),
}

impl<'de> Deserialize<'de> for RawItem {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct ItemVisitor;

        impl<'de> de::Visitor<'de> for ItemVisitor {
            type Value = RawItem;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a limit (`1536m`), `none`, or a map {name, max, high}")
            }

            fn visit_str<E: de::Error>(self, v: &str) -> Result<RawItem, E> {
                Ok(RawItem::Text(v.to_owned()))
            }

            fn visit_map<A: de::MapAccess<'de>>(self, map: A) -> Result<RawItem, A::Error> {
                RawMap::deserialize(de::value::MapAccessDeserializer::new(map)).map(RawItem::Map)
            }
        }

        d.deserialize_any(ItemVisitor)
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawMap {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    max: Option<String>,
    #[serde(default)]
    high: Option<String>,
}

fn size(key: &str, text: &str) -> Result<Bytes, String> {
    HeapSize::parse(text)
        .map(|h| h.bytes)
        .map_err(|e| {
            let e = e.replace("heap size", "size");
            // The heap's own fix names heap sizes. This key has its own.
            let e = e.split(". ").next().unwrap_or(&e).to_owned();
            format!("memory: {key}: {e}\n  fix: write a whole number with a k, m, g or t suffix, like 1536m or 2g")
        })
}

impl RawItem {
    fn checked(self) -> Result<MemoryLimit, String> {
        let (name, max, high) = match self {
            RawItem::Text(text) if text == NO_LIMIT => (None, None, None),
            RawItem::Text(text) => (None, Some(text), None),
            RawItem::Map(m) => (m.name, m.max, m.high),
        };
        let max_bytes = max.as_deref().map(|m| size("max", m)).transpose()?;
        let high_bytes = high.as_deref().map(|h| size("high", h)).transpose()?;
        if let (Some(m), Some(h)) = (max_bytes, high_bytes)
            && h > m
        {
            return Err(format!(
                "memory: high ({}) is above max ({}): the kernel would kill before it \
                 reclaims\n  fix: give `high` below `max`, or leave it out",
                high.unwrap_or_default(),
                max.unwrap_or_default()
            ));
        }
        let name = name.unwrap_or_else(|| match (&max, &high) {
            (Some(m), None) => m.clone(),
            (Some(m), Some(h)) => format!("max={m},high={h}"),
            (None, Some(h)) => format!("high={h}"),
            (None, None) => NO_LIMIT.to_owned(),
        });
        if name.is_empty()
            || name
                .chars()
                .any(|c| c.is_whitespace() || matches!(c, '/' | '[' | ']'))
        {
            return Err(format!(
                "invalid memory name {name:?}: use a short name without spaces, slashes \
                 or brackets"
            ));
        }
        Ok(MemoryLimit {
            name,
            max: max_bytes,
            high: high_bytes,
        })
    }
}

/// The `memory:` list, checked.
#[derive(Debug)]
pub(crate) struct Limits(pub(crate) Vec<MemoryLimit>);

impl<'de> Deserialize<'de> for Limits {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct ListVisitor;

        impl<'de> de::Visitor<'de> for ListVisitor {
            type Value = Vec<MemoryLimit>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a list of memory limits, like [1536m, {name: tight, max: 900m}, none]")
            }

            fn visit_seq<A: de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Vec<MemoryLimit>, A::Error> {
                let mut limits = Vec::new();
                let mut seen = HashSet::new();
                while let Some(raw) = seq.next_element::<RawItem>()? {
                    let limit = raw.checked().map_err(de::Error::custom)?;
                    if !seen.insert(limit.name.clone()) {
                        return Err(de::Error::custom(format!(
                            "memory: {:?} is listed twice; the same cell would run twice\n  \
                             fix: list each limit once, or give each its own `name`",
                            limit.name
                        )));
                    }
                    limits.push(limit);
                }
                if limits.is_empty() {
                    return Err(de::Error::custom(
                        "memory: empty list: give at least one limit, or remove `memory:`",
                    ));
                }
                Ok(limits)
            }
        }

        d.deserialize_seq(ListVisitor).map(Limits)
    }
}

/// The `memory:` key of the matrix, an axis the plan runs innermost.
pub struct MemoryKey;

impl crate::matrix::parts::MatrixKey for MemoryKey {
    type Value = Vec<MemoryLimit>;
    const AFTER: &'static str = "settings";

    fn read<'de, A: de::MapAccess<'de>>(map: &mut A) -> Result<Vec<MemoryLimit>, A::Error> {
        crate::matrix::parts::read_as(map, |m: Limits| m.0)
    }
}

impl crate::matrix::parts::CellAxis for MemoryKey {
    type Cell = MemoryLimit;
    const OUTER: bool = false;

    fn cells(value: &Vec<MemoryLimit>) -> Vec<MemoryLimit> {
        value.clone()
    }

    fn name(cell: &MemoryLimit) -> &str {
        &cell.name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(yaml: &str) -> Result<Vec<MemoryLimit>, String> {
        serde_yaml::from_str::<Limits>(yaml)
            .map(|l| l.0)
            .map_err(|e| e.to_string())
    }

    #[test]
    fn sizes_maps_and_none_are_limits_named_as_written() {
        let limits = parse("[1536m, {name: tight, max: 900m, high: 800m}, none]").unwrap();
        assert_eq!(limits[0].name, "1536m");
        assert_eq!(limits[0].max, Some(Bytes(1536 << 20)));
        assert_eq!(limits[1].name, "tight");
        assert_eq!(limits[1].high, Some(Bytes(800 << 20)));
        assert_eq!(limits[2].name, NO_LIMIT);
        assert_eq!((limits[2].max, limits[2].high), (None, None));
        assert_eq!(
            parse("[{max: 1g, high: 900m}]").unwrap()[0].name,
            "max=1g,high=900m"
        );
    }

    #[test]
    fn bad_limits_are_refused_with_a_fix() {
        for (yaml, says) in [
            ("[1.5g]", "size \"1.5g\""),
            ("[{max: 1g, high: 2g}]", "above max"),
            ("[1g, {max: 1g}]", "listed twice"),
            ("[]", "empty list"),
            ("[{maxx: 1g}]", "unknown field `maxx`"),
        ] {
            let e = parse(yaml).unwrap_err();
            assert!(e.contains(says), "{yaml}: {e}");
        }
    }
}
