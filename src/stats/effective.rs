//! The rounds a run's drift leaves it: the lag-1 autocorrelation of a cell's per-round
//! costs, from their ranks, and the size of an independent sample worth as much. Both
//! the change between two labels (`stats::change`) and the median's interval
//! (`stats::interval`) count the rounds this way.

/// Most drift a side is counted for: at 0.8 ten rounds count as one, and the interval
/// is the range of the differences.
pub const MAX_DRIFT: f64 = 0.8;

/// How many standard errors above its estimate the drift is taken ([`drift`]): the
/// one-sided 95% bound.
const DRIFT_Z: f64 = 1.645;

/// The drift of a cell's series of per-round costs, each in round order: the lag-1
/// autocorrelation of their ranks, pooled over the series, corrected for its
/// small-sample bias, held to 0 or more, taken one standard error higher and held to
/// [`MAX_DRIFT`].
/// Ranks make one slow launch count as one rank, so it cannot fake a drift or hide
/// one. The correction is Kendall's for an AR(1) series with an unknown mean,
/// `E[r] = rho - (1 + 3 rho) / n` ("Note on bias in the estimation of
/// autocorrelation", Biometrika 41, 1954), solved for `rho` at the series' mean
/// length. The standard error is Bartlett's, `sqrt((1 - rho^2) / N)` over all `N`
/// rounds. Ten rounds place the drift poorly, so a change's interval does not trust a
/// low estimate. The tests of this file and `stats::family`'s A/A tables show the
/// level it holds. 0 under 4 rounds a series.
pub fn drift(series: &[&[f64]]) -> f64 {
    let (rho, se) = drift_estimate(series);
    (rho.max(0.0) + DRIFT_Z * se).min(MAX_DRIFT)
}

/// The pooled, bias-corrected lag-1 autocorrelation of the ranks of `series`
/// ([`drift`]) and its standard error; `(0, 0)` without a series of 4 rounds.
pub(crate) fn drift_estimate(series: &[&[f64]]) -> (f64, f64) {
    let (mut lagged, mut squares, mut rounds) = (0.0, 0.0, 0usize);
    let mut used = 0usize;
    for costs in series.iter().filter(|s| s.len() >= 4) {
        let n = costs.len();
        let (ranks, _) = crate::stats::midranks(costs);
        let mean = (n as f64 + 1.0) / 2.0;
        let centred: Vec<f64> = ranks.iter().map(|r| r - mean).collect();
        squares += centred.iter().map(|c| c * c).sum::<f64>();
        lagged += centred.windows(2).map(|w| w[0] * w[1]).sum::<f64>();
        rounds += n;
        used += 1;
    }
    if used == 0 || squares == 0.0 {
        return (0.0, 0.0);
    }
    let r = lagged / squares;
    let n = rounds as f64 / used as f64;
    let rho = ((n * r + 1.0) / (n - 3.0)).clamp(-1.0, 1.0);
    (rho, ((1.0 - rho * rho).max(0.0) / rounds as f64).sqrt())
}

/// The rounds `n` rounds of drift `rho` are worth: `n (1 - rho) / (1 + rho)`, the size
/// of an independent sample whose mean has the same variance (Bayley & Hammersley
/// 1946), rounded to a whole round, at least 1 and at most `n`.
pub fn effective_rounds(n: usize, rho: f64) -> usize {
    let rho = rho.clamp(0.0, MAX_DRIFT);
    ((n as f64 * (1.0 - rho) / (1.0 + rho)).round() as usize).clamp(1, n.max(1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::noise::flat;

    #[test]
    fn independent_rounds_show_little_drift_and_a_trend_shows_much() {
        // A zigzag has a lag-1 correlation near -1, whose standard error is near 0.
        let zigzag: Vec<f64> = (0..10)
            .map(|i| if i % 2 == 0 { 1.0 } else { 2.0 })
            .collect();
        assert!(drift(&[&zigzag]) < 0.1, "{}", drift(&[&zigzag]));
        // Rounds in no order count one standard error and a half above 0 at least.
        let flat_rounds = flat(100.0, 10, 2);
        assert!(drift(&[&flat_rounds]) > 0.0);
        // A steady climb is as drifted as ten rounds can show.
        let climb: Vec<f64> = (0..10).map(f64::from).collect();
        assert_eq!(drift(&[&climb]), MAX_DRIFT);
        // Pooled with a zigzag, the climb counts for half.
        let both = drift(&[&climb, &zigzag]);
        assert!(0.0 < both && both < MAX_DRIFT, "{both}");
        assert_eq!(effective_rounds(10, MAX_DRIFT), 1);
        assert_eq!(effective_rounds(10, 0.0), 10);
        // 10 * 0.6 / 1.4 = 4.29.
        assert_eq!(effective_rounds(10, 0.4), 4);
        // One slow launch is one rank, not a drift.
        let mut one_slow = flat(100.0, 20, 1);
        let before = drift(&[&one_slow]);
        one_slow[7] = 900.0;
        assert!(
            (drift(&[&one_slow]) - before).abs() < 0.15,
            "{before} {}",
            drift(&[&one_slow])
        );
    }
}
