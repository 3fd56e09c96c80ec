//! Stage 1: `repetitions:` as the matrix writes it, a count or an adaptive policy's
//! settings `{min, max, ci_pct}`, `{min, max, ci_ms}` or both targets. The policy itself
//! runs in `schedule::adaptive`.

use std::fmt;

use serde::{Deserialize, Deserializer, de};

/// The adaptive policy of a matrix.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Adaptive {
    /// Counted rounds every cell runs.
    pub min: u32,
    /// Counted rounds no cell exceeds.
    pub max: u32,
    /// Stop a cell once its 95% interval lies within +-ci_pct% of its pretouch cost.
    pub ci_pct: Option<f64>,
    /// Stop a cell once its 95% interval is at most +-ci_ms wide. With `ci_pct` too, a
    /// cell stops when both hold. At least one of the two is given.
    pub ci_ms: Option<f64>,
}

impl Adaptive {
    /// Whether an interval of half-width `half_ms` around `cost_ms` meets every target
    /// given.
    pub fn met(&self, cost_ms: f64, half_ms: f64) -> bool {
        let pct_ok = self
            .ci_pct
            .is_none_or(|t| cost_ms != 0.0 && 100.0 * half_ms / cost_ms.abs() <= t);
        let ms_ok = self.ci_ms.is_none_or(|t| half_ms <= t);
        pct_ok && ms_ok
    }

    /// The targets as the run and the report print them: `+-2%`, `+-10 ms`, `+-2% and +-10 ms`.
    pub fn target(&self) -> String {
        target_text(self.ci_pct, self.ci_ms)
    }

    /// The counted rounds at which the rule checks a cell's interval, planned before the
    /// run: from `min` (10 at least, the fewest an interval has), doubling, to `max`.
    /// `{min: 10, max: 30}` checks at 10, 20 and 30; `{min: 10, max: 100}` at 10, 20, 40,
    /// 80 and 100. Empty when `max` is under 10: no interval, every cell runs to `max`.
    /// A few planned looks rather than every round: each look is at [`Adaptive::level`],
    /// and fewer looks make it less wide.
    pub fn looks(&self) -> Vec<u32> {
        if self.max < INTERVAL_ROUNDS {
            return Vec::new();
        }
        let mut looks = vec![self.min.clamp(INTERVAL_ROUNDS, self.max)];
        while let Some(&last) = looks.last().filter(|&&l| l < self.max) {
            looks.push((2 * last).min(self.max));
        }
        looks
    }

    /// The level of the interval at each look, for the interval the rule stops on to
    /// hold 95% however the stop fell: `1 - 0.05 / looks` (0.9833 for 3 looks, 0.99 for
    /// 5; [`crate::stats::interval::look_level`]).
    pub fn level(&self) -> f64 {
        crate::stats::interval::look_level(crate::stats::interval::CONFIDENCE, self.looks().len())
    }
}

/// The fewest counted rounds with an interval,
/// [`crate::stats::interval::MIN_ROUNDS`].
const INTERVAL_ROUNDS: u32 = crate::stats::interval::MIN_ROUNDS as u32;

/// `ci_pct` and `ci_ms` as printed: `+-2%`, `+-10 ms`, `+-2% and +-10 ms`.
pub fn target_text(ci_pct: Option<f64>, ci_ms: Option<f64>) -> String {
    match (ci_pct, ci_ms) {
        (Some(pct), Some(ms)) => format!("+-{pct}% and +-{ms} ms"),
        (Some(pct), None) => format!("+-{pct}%"),
        (None, Some(ms)) => format!("+-{ms} ms"),
        (None, None) => "no target".to_owned(),
    }
}

/// `repetitions:` as written: a count, or `{min, max, ci_pct}` / `{min, max, ci_ms}`. A hand-written
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
        d.deserialize_any(RepetitionsVisitor)
    }
}

/// Reads `repetitions:`: a number, or a map of the adaptive policy's settings.
struct RepetitionsVisitor;

impl<'de> de::Visitor<'de> for RepetitionsVisitor {
    type Value = RawRepetitions;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(
            "a number of repetitions, or {min: 10, max: 30, ci_pct: 2} (or ci_ms: 10 for a target in ms)",
        )
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

    fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<RawRepetitions, A::Error> {
        const FIELDS: &[&str] = &["min", "max", "ci_pct", "ci_ms"];
        let (mut min, mut max, mut ci_pct, mut ci_ms) = (None, None, None, None);
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "min" if min.is_none() => min = Some(map.next_value::<u32>()?),
                "max" if max.is_none() => max = Some(map.next_value::<u32>()?),
                "ci_pct" if ci_pct.is_none() => ci_pct = Some(map.next_value::<f64>()?),
                "ci_ms" if ci_ms.is_none() => ci_ms = Some(map.next_value::<f64>()?),
                "min" | "max" | "ci_pct" | "ci_ms" => {
                    return Err(de::Error::custom(format!("`{key}` given twice")));
                }
                _ => return Err(de::Error::unknown_field(&key, FIELDS)),
            }
        }
        let min = min.ok_or_else(|| de::Error::missing_field("min"))?;
        let max = max.ok_or_else(|| de::Error::missing_field("max"))?;
        let policy = Adaptive {
            min,
            max,
            ci_pct,
            ci_ms,
        };
        policy.check().map_err(de::Error::custom)?;
        Ok(RawRepetitions::Adaptive(policy))
    }
}

impl Adaptive {
    /// Checks the settings as written: a target, at least [`MIN_ROUNDS`] rounds,
    /// `max` not below `min`, and each target in its range. The error says which.
    fn check(&self) -> Result<(), String> {
        let Adaptive {
            min,
            max,
            ci_pct,
            ci_ms,
        } = *self;
        if ci_pct.is_none() && ci_ms.is_none() {
            return Err(
                "repetitions needs a target: `ci_pct` (half-width in % of the cost, e.g. ci_pct: 2) or `ci_ms` (half-width in ms, e.g. ci_ms: 10), or both"
                    .to_owned(),
            );
        }
        if min < MIN_ROUNDS {
            return Err(format!(
                "repetitions min must be at least {MIN_ROUNDS}: below that no 95% interval is narrower than the samples' range"
            ));
        }
        if max < min {
            return Err(format!("repetitions max ({max}) is below min ({min})"));
        }
        if let Some(ci_pct) = ci_pct
            && !(ci_pct > 0.0 && ci_pct < 100.0)
        {
            return Err(format!(
                "repetitions ci_pct must be a percentage above 0 and below 100, not {ci_pct}"
            ));
        }
        if let Some(ci_ms) = ci_ms
            && !(ci_ms > 0.0 && ci_ms.is_finite())
        {
            return Err(format!(
                "repetitions ci_ms must be a half-width in ms above 0 (e.g. ci_ms: 10), not {ci_ms}"
            ));
        }
        Ok(())
    }
}

/// The least `min` a matrix may give. The stop's interval needs 10 rounds
/// (`stats::interval::MIN_ROUNDS`), so a cell cannot stop before 10 rounds; 5 is
/// still accepted, as matrices written for the earlier Mann-Whitney stop (which needed
/// 5 launches a side) give it.
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
                        ci_pct: Some(2.0),
                        ci_ms: None,
                    }
                )
            }
            other => panic!("{other:?}"),
        }
        match parse("{min: 10, max: 30, ci_ms: 10}") {
            Ok(RawRepetitions::Adaptive(a)) => {
                assert_eq!((a.ci_pct, a.ci_ms), (None, Some(10.0)))
            }
            other => panic!("{other:?}"),
        }
        match parse("{min: 10, max: 30, ci_ms: 10, ci_pct: 2}") {
            Ok(RawRepetitions::Adaptive(a)) => {
                assert_eq!((a.ci_pct, a.ci_ms), (Some(2.0), Some(10.0)))
            }
            other => panic!("{other:?}"),
        }
        let cases = [
            ("0", "at least 1"),
            ("ten", "a number of repetitions, or {min: 10"),
            ("{min: 5, max: 30}", "needs a target: `ci_pct`"),
            (
                "{min: 10, max: 30, ci_ms: 0}",
                "ci_ms must be a half-width in ms above 0",
            ),
            ("{min: 10, max: 30, ci_ms: -3}", "above 0"),
            ("{min: 10, max: 30, ci_ms: .inf}", "above 0"),
            ("{min: 10, max: 30, ci_ms: 10ms}", "invalid type"),
            ("{min: 10, max: 30, ci_ms: 1, ci_ms: 2}", "given twice"),
            (
                "{min: 5, max: 30, ci_pct: 2, typo: 1}",
                "unknown field `typo`, expected one of `min`, `max`, `ci_pct`, `ci_ms`",
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

    #[test]
    fn a_policy_is_met_when_every_target_it_gives_is() {
        let policy = |ci_pct, ci_ms| Adaptive {
            min: 10,
            max: 30,
            ci_pct,
            ci_ms,
        };
        // 600 ms +- 9: 1.5% and 9 ms.
        assert!(policy(Some(2.0), None).met(600.0, 9.0));
        assert!(!policy(Some(1.0), None).met(600.0, 9.0));
        assert!(policy(None, Some(10.0)).met(600.0, 9.0));
        assert!(!policy(None, Some(8.0)).met(600.0, 9.0));
        assert!(policy(Some(2.0), Some(10.0)).met(600.0, 9.0));
        assert!(!policy(Some(2.0), Some(8.0)).met(600.0, 9.0));
        assert!(!policy(Some(1.0), Some(10.0)).met(600.0, 9.0));
        // A zero cost meets no percentage, but may meet a target in ms.
        assert!(!policy(Some(2.0), None).met(0.0, 1.0));
        assert!(policy(None, Some(2.0)).met(0.0, 1.0));
    }

    #[test]
    fn looks_double_from_min_to_max_and_share_the_5_percent() {
        let looks = |min, max| {
            let p = Adaptive {
                min,
                max,
                ci_pct: Some(2.0),
                ci_ms: None,
            };
            (p.looks(), p.level())
        };
        let (l, level) = looks(10, 30);
        assert_eq!(l, [10, 20, 30]);
        assert!((level - (1.0 - 0.05 / 3.0)).abs() < 1e-12);
        assert_eq!(looks(10, 100).0, [10, 20, 40, 80, 100]);
        assert!((looks(10, 100).1 - 0.99).abs() < 1e-12);
        // Under 10 rounds there is no interval to look at.
        assert_eq!(looks(5, 40).0, [10, 20, 40]);
        assert_eq!(looks(5, 8).0, Vec::<u32>::new());
        assert_eq!(looks(10, 10).0, [10]);
        assert!((looks(10, 10).1 - 0.95).abs() < 1e-12);
        assert_eq!(looks(25, 30).0, [25, 30]);
    }
}
