//! Stage 1: `repetitions:` as the matrix writes it, a count or an adaptive policy's
//! settings `{min, max, ci_pct}`. The policy itself runs in `schedule::adaptive`.

use std::fmt;

use serde::{Deserialize, Deserializer, de};

/// The adaptive policy of a matrix.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Adaptive {
    /// Counted rounds every cell runs.
    pub min: u32,
    /// Counted rounds no cell exceeds.
    pub max: u32,
    /// Stop a cell once its 95% interval lies within ±ci_pct% of its pretouch cost.
    pub ci_pct: f64,
}

/// `repetitions:` as written: a count, or `{min, max, ci_pct}`. A hand-written
/// Deserialize rather than `#[serde(untagged)]`, so that errors say what is wrong.
#[derive(Debug)]
pub enum RawRepetitions {
    Fixed(u32),
    Adaptive(Adaptive),
}

impl RawRepetitions {
    /// The rounds every cell runs, and the adaptive policy if any.
    pub fn into_parts(self) -> (u32, Option<Adaptive>) {
        match self {
            RawRepetitions::Fixed(n) => (n, None),
            RawRepetitions::Adaptive(a) => (a.min, Some(a)),
        }
    }
}

impl<'de> Deserialize<'de> for RawRepetitions {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor;

        impl<'de> de::Visitor<'de> for Visitor {
            type Value = RawRepetitions;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a number of repetitions, or {min: 5, max: 30, ci_pct: 2}")
            }

            fn visit_u64<E: de::Error>(self, v: u64) -> Result<RawRepetitions, E> {
                match u32::try_from(v) {
                    Ok(0) => Err(E::custom(
                        "repetitions must be at least 1 (10 gives a stable median)",
                    )),
                    Ok(n) => Ok(RawRepetitions::Fixed(n)),
                    Err(_) => Err(E::custom(format!("repetitions {v} is too large"))),
                }
            }

            fn visit_i64<E: de::Error>(self, v: i64) -> Result<RawRepetitions, E> {
                match u64::try_from(v) {
                    Ok(v) => self.visit_u64(v),
                    Err(_) => Err(E::custom(format!(
                        "invalid value {v}: must not be negative"
                    ))),
                }
            }

            fn visit_map<A: de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<RawRepetitions, A::Error> {
                let (mut min, mut max, mut ci_pct) = (None, None, None);
                while let Some(key) = map.next_key::<String>()? {
                    match key.as_str() {
                        "min" if min.is_none() => min = Some(map.next_value::<u32>()?),
                        "max" if max.is_none() => max = Some(map.next_value::<u32>()?),
                        "ci_pct" if ci_pct.is_none() => ci_pct = Some(map.next_value::<f64>()?),
                        "min" | "max" | "ci_pct" => {
                            return Err(de::Error::custom(format!("`{key}` given twice")));
                        }
                        _ => return Err(de::Error::unknown_field(&key, &["min", "max", "ci_pct"])),
                    }
                }
                let min = min.ok_or_else(|| de::Error::missing_field("min"))?;
                let max = max.ok_or_else(|| de::Error::missing_field("max"))?;
                let ci_pct = ci_pct.ok_or_else(|| de::Error::missing_field("ci_pct"))?;
                if min < MIN_ROUNDS {
                    return Err(de::Error::custom(format!(
                        "repetitions min must be at least {MIN_ROUNDS}: below that no 95% interval is narrower than the samples' range"
                    )));
                }
                if max < min {
                    return Err(de::Error::custom(format!(
                        "repetitions max ({max}) is below min ({min})"
                    )));
                }
                if !(ci_pct > 0.0 && ci_pct < 100.0) {
                    return Err(de::Error::custom(format!(
                        "repetitions ci_pct must be a percentage above 0 and below 100, not {ci_pct}"
                    )));
                }
                Ok(RawRepetitions::Adaptive(Adaptive { min, max, ci_pct }))
            }
        }

        d.deserialize_any(Visitor)
    }
}

/// With 4 launches a side the exact 95% interval is the whole range of differences
/// (`qwilcox(0.025, 4, 4) = 1` in R); 5 is the first count that can stop early.
pub const MIN_ROUNDS: u32 = 5;

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<RawRepetitions, String> {
        serde_yaml::from_str(text).map_err(|e| e.to_string())
    }

    #[test]
    fn repetitions_are_a_count_or_a_policy() {
        assert!(matches!(parse("10"), Ok(RawRepetitions::Fixed(10))));
        match parse("{min: 5, max: 30, ci_pct: 2}") {
            Ok(RawRepetitions::Adaptive(a)) => {
                assert_eq!(
                    a,
                    Adaptive {
                        min: 5,
                        max: 30,
                        ci_pct: 2.0
                    }
                )
            }
            other => panic!("{other:?}"),
        }
        let cases = [
            ("0", "at least 1"),
            ("ten", "a number of repetitions, or {min: 5"),
            ("{min: 5, max: 30}", "missing field `ci_pct`"),
            (
                "{min: 5, max: 30, ci_pct: 2, typo: 1}",
                "unknown field `typo`",
            ),
            ("{min: 9, max: 8, ci_pct: 2}", "below min"),
            ("{min: 2, max: 8, ci_pct: 2}", "at least 5"),
            ("{min: 5, max: 8, ci_pct: 0}", "above 0"),
            ("{min: 5, max: 8, ci_pct: x}", "invalid type"),
        ];
        for (text, want) in cases {
            let e = parse(text).unwrap_err();
            assert!(e.contains(want), "{text}: {e}");
        }
    }
}
