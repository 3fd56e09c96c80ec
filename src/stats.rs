//! Statistics: pure functions over slices of milliseconds. Each names its method and
//! its source, and is tested below against values computed with R (4.2, Debian).

pub mod change;
pub mod effective;
pub mod family;
pub mod interval;
#[cfg(any(test, feature = "test-support"))]
pub mod noise;
pub mod permutation;
pub mod power;

use statrs::distribution::{ContinuousCDF, Normal};
use statrs::statistics::{Data, OrderStatistics};

/// Median, min and max of one sample.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Summary {
    pub n: usize,
    pub median: f64,
    pub min: f64,
    pub max: f64,
}

/// The sample median (mean of the two middle values for an even count), via statrs;
/// `None` for an empty sample. Same definition as R's `median()`.
pub fn median(values: &[f64]) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    Some(Data::new(values.to_vec()).median())
}

pub fn summarize(values: &[f64]) -> Option<Summary> {
    Some(Summary {
        n: values.len(),
        median: median(values)?,
        min: values.iter().copied().fold(f64::INFINITY, f64::min),
        max: values.iter().copied().fold(f64::NEG_INFINITY, f64::max),
    })
}

/// Lower and upper quartile by R's `quantile(x, c(.25, .75), type = 8)` (Hyndman & Fan
/// 1996, "median-unbiased"), which is what statrs' `quantile` computes; `None` when empty.
pub fn quartiles(values: &[f64]) -> Option<(f64, f64)> {
    if values.is_empty() {
        return None;
    }
    let mut data = Data::new(values.to_vec());
    Some((data.quantile(0.25), data.quantile(0.75)))
}

/// Iglewicz & Hoaglin's outlier threshold for the modified z-score ("How to Detect and
/// Handle Outliers", ASQC Quality Press, 1993).
const MODIFIED_Z_THRESHOLD: f64 = 3.5;

/// The modified z-score of each value: `0.6745 * (x - median) / MAD`, where MAD is the
/// unscaled median absolute deviation (R: `0.6745 * (x - median(x)) / mad(x, constant = 1)`).
/// Iglewicz & Hoaglin (1993). All zeros when the MAD is zero (more than half the values
/// equal): nothing can then be called far.
fn modified_z_scores(values: &[f64]) -> Vec<f64> {
    let Some(m) = median(values) else {
        return Vec::new();
    };
    let deviations: Vec<f64> = values.iter().map(|x| (x - m).abs()).collect();
    let mad = median(&deviations).unwrap_or(0.0);
    values
        .iter()
        .map(|x| {
            if mad > 0.0 {
                0.6745 * (x - m) / mad
            } else {
                0.0
            }
        })
        .collect()
}

/// Which values are outliers: |modified z-score| > [`MODIFIED_Z_THRESHOLD`].
pub fn outliers(values: &[f64]) -> Vec<bool> {
    modified_z_scores(values)
        .into_iter()
        .map(|z| z.abs() > MODIFIED_Z_THRESHOLD)
        .collect()
}

/// A shift between two samples with its confidence interval.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Shift {
    /// The Hodges-Lehmann estimate: the median of all differences `x_i - y_j`.
    pub estimate: f64,
    pub low: f64,
    pub high: f64,
    /// The confidence the interval actually has (the exact distribution is discrete, so
    /// it is at least the level asked for, unless the samples are too small for it).
    pub confidence: f64,
}

impl Shift {
    /// The interval excludes zero.
    pub fn significant(&self) -> bool {
        self.low > 0.0 || self.high < 0.0
    }
}

/// The Hodges-Lehmann estimate of the shift `x - y` and its distribution-free confidence
/// interval from the Mann-Whitney (Wilcoxon rank-sum) test, inverted (Hollander & Wolfe,
/// "Nonparametric Statistical Methods", 2nd ed., 1999, chapter 4). The interval is R's
/// `wilcox.test(x, y, conf.int = TRUE, conf.level = level)$conf.int`:
///
/// - fewer than 50 values on each side and no two values equal: the ends are order
///   statistics of the `m*n` differences picked with the exact null distribution (R's
///   `qwilcox`), and `confidence` is what that discrete distribution achieves;
/// - otherwise (ties, as real millisecond times have, or 50 values on a side): R's
///   normal approximation with its tie and continuity corrections ([`normal_interval`]),
///   and `confidence` is `level`.
///
/// The estimate is always the median of the differences. R prints the same with the
/// exact distribution; with the normal approximation R prints a root of the rank
/// statistic instead, which can be any point between the two middle differences when
/// their count is even (6.0867 where the median is 6.09, on the 60 x 60 test below).
/// Where R stops with "cannot compute confidence interval when all observations are
/// tied" (every difference equal), both ends are that difference. `None` when a sample
/// is empty.
pub fn hodges_lehmann(x: &[f64], y: &[f64], level: f64) -> Option<Shift> {
    let (m, n) = (x.len(), y.len());
    if m == 0 || n == 0 {
        return None;
    }
    if m * n > MATERIALIZED_DIFFERENCES {
        return Some(hodges_lehmann_implicit(x, y, level));
    }
    let mut diffs: Vec<f64> = x
        .iter()
        .flat_map(|a| y.iter().map(move |b| a - b))
        .collect();
    diffs.sort_by(f64::total_cmp);
    let estimate = median(&diffs)?;
    if m < 50 && n < 50 && !has_ties(x, y) {
        let alpha = 1.0 - level;
        let dist = WilcoxonRankSum::new(m, n);
        let qu = dist.quantile(alpha / 2.0).max(1);
        let achieved_alpha = 2.0 * dist.cdf(qu - 1);
        return Some(Shift {
            estimate,
            low: diffs[qu - 1],
            high: diffs[m * n - qu],
            confidence: 1.0 - achieved_alpha.min(1.0),
        });
    }
    let (low, high) = normal_interval(x, y, &diffs, level);
    Some(Shift {
        estimate,
        low,
        high,
        confidence: level,
    })
}

/// Above this many differences [`hodges_lehmann`] does not list them (8 bytes each: two
/// campaigns of 60,000 rounds have 3.6e9) but finds each order statistic it needs by
/// counting ([`Differences`]); the figures are the same.
const MATERIALIZED_DIFFERENCES: usize = 1 << 20;

/// The `m*n` differences `x_i - y_j` in `f64::total_cmp` order without listing them:
/// with both samples sorted, how many differences are at most a value is counted in
/// `m + n` steps, and the k-th smallest is the smallest value (bisected over the
/// ordered bit patterns of `f64`) with more than k at most it.
pub(crate) struct Differences {
    x: Vec<f64>,
    y: Vec<f64>,
}

/// `f64::total_cmp`'s key: ordering these `i64`s orders the floats; its own inverse.
fn order_key(v: f64) -> i64 {
    let b = v.to_bits() as i64;
    b ^ ((((b >> 63) as u64) >> 1) as i64)
}

impl Differences {
    pub(crate) fn new(x: &[f64], y: &[f64]) -> Differences {
        let mut x = x.to_vec();
        let mut y = y.to_vec();
        x.sort_by(f64::total_cmp);
        y.sort_by(f64::total_cmp);
        Differences { x, y }
    }

    pub(crate) fn len(&self) -> usize {
        self.x.len() * self.y.len()
    }

    /// Differences whose key is at most `key`. For each `x_i` (ascending) those are the
    /// `y_j` from a threshold on, and the threshold only moves up (subtraction rounds
    /// monotonically).
    fn count_at_most(&self, key: i64) -> usize {
        let n = self.y.len();
        let mut j = 0;
        let mut count = 0;
        for a in &self.x {
            while j < n && order_key(a - self.y[j]) > key {
                j += 1;
            }
            count += n - j;
        }
        count
    }

    /// The keys of the smallest and the largest difference.
    fn key_range(&self) -> (i64, i64) {
        let (x, y) = (&self.x, &self.y);
        (
            order_key(x[0] - y[y.len() - 1]),
            order_key(x[x.len() - 1] - y[0]),
        )
    }

    /// The k-th smallest difference, from 0.
    pub(crate) fn kth(&self, k: usize) -> f64 {
        let (lo, hi) = self.key_range();
        self.kth_within(k, lo, hi)
    }

    /// The k-th smallest difference, known to have a key in `lo..=hi`: the narrower, the
    /// fewer counts.
    fn kth_within(&self, k: usize, mut lo: i64, mut hi: i64) -> f64 {
        while lo < hi {
            // The floor of the mean, in i128: the keys span the whole i64 range.
            let mid = ((i128::from(lo) + i128::from(hi)) >> 1) as i64;
            if self.count_at_most(mid) > k {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        f64::from_bits(order_key(f64::from_bits(lo as u64)) as u64)
    }

    /// The smallest difference above `v`, if any; at most the key `below` when `v` is
    /// under it.
    fn next_above(&self, v: f64, below: i64) -> Option<f64> {
        let key = order_key(v);
        let at_most = self.count_at_most(key);
        let hi = if key < below {
            below
        } else {
            self.key_range().1
        };
        (at_most < self.len()).then(|| self.kth_within(at_most, key + 1, hi))
    }

    /// The smallest difference v whose gap to the next difference above it passes
    /// `below` (or that has none above), given `below` passes from some gap on and the
    /// rank of a difference near it: walks from that difference to the neighbouring
    /// gaps until the one below fails and its own passes.
    fn first_gap_below(&self, rank: usize, below: impl Fn(f64, f64) -> bool) -> f64 {
        let top = self.key_range().1;
        let passes = |v: f64| self.next_above(v, top).is_none_or(|w| below(v, w));
        let mut v = self.kth(rank);
        loop {
            if !passes(v) {
                v = self.next_above(v, top).expect("the last difference passes");
                continue;
            }
            let key = order_key(v);
            let under = self.count_at_most(key - 1);
            if under == 0 {
                return v;
            }
            let u = self.kth_within(under - 1, self.key_range().0, key - 1);
            if passes(u) {
                v = u;
            } else {
                return v;
            }
        }
    }

    /// statrs' median of the differences: the middle one, or the mean of the two.
    pub(crate) fn median(&self) -> f64 {
        let k = self.len() / 2;
        if self.len() % 2 == 1 {
            self.kth(k)
        } else {
            (self.kth(k.saturating_sub(1)) + self.kth(k)) / 2.0
        }
    }
}

/// [`hodges_lehmann`] without listing the differences: the same estimate and interval.
fn hodges_lehmann_implicit(x: &[f64], y: &[f64], level: f64) -> Shift {
    let (m, n) = (x.len(), y.len());
    let d = Differences::new(x, y);
    let estimate = d.median();
    if m < 50 && n < 50 && !has_ties(x, y) {
        let alpha = 1.0 - level;
        let dist = WilcoxonRankSum::new(m, n);
        let qu = dist.quantile(alpha / 2.0).max(1);
        let achieved_alpha = 2.0 * dist.cdf(qu - 1);
        return Shift {
            estimate,
            low: d.kth(qu - 1),
            high: d.kth(m * n - qu),
            confidence: 1.0 - achieved_alpha.min(1.0),
        };
    }
    let lo = d.kth(0);
    let hi = d.kth(d.len() - 1);
    let (low, high) = if lo == hi {
        (lo, lo)
    } else {
        let z = Normal::standard().inverse_cdf(1.0 - (1.0 - level) / 2.0);
        // The tie correction between two differences: no `x_i - d` equals a `y_j` there,
        // so only the ties within `x` and within `y` count.
        let ties = midranks(x).1 + midranks(y).1;
        let root = |zq: f64| -> f64 {
            if wdiff(x, y, lo, zq) <= 0.0 {
                return lo;
            }
            if wdiff(x, y, hi, zq) >= 0.0 {
                return hi;
            }
            // As in `normal_interval`, the root is the first difference v whose gap to
            // the next one above it has `wdiff <= 0`. Between two differences the rank
            // sum is that of the differences above the gap, c, so `wdiff` is a function
            // of c alone: the root is the order statistic that leaves the largest c with
            // `wdiff <= 0` above it. That is one order statistic instead of a bisection
            // over them (about 30 for 60,000 rounds a side); `gap_below` confirms it
            // with `wdiff` itself, and the steps beside it fix a rounding difference.
            let c = above_limit(m, n, ties, zq);
            let rank = (m * n).saturating_sub(c + 1).min(m * n - 1);
            d.first_gap_below(rank, |v, w| wdiff(x, y, (v + w) / 2.0, zq) <= 0.0)
        };
        (root(z), root(-z))
    };
    Shift {
        estimate,
        low,
        high,
        confidence: level,
    }
}

/// The largest count c of differences above the shift for which R's `wdiff` (as the
/// function computes it) is at most 0, with the shift between two differences: its rank
/// sum statistic there is `c - m*n/2` and `ties` is the tie term of `x` and `y`.
fn above_limit(m: usize, n: usize, ties: f64, zq: f64) -> usize {
    let (mf, nf) = (m as f64, n as f64);
    let f = |c: usize| rank_sum_z(mf * (mf + 1.0) / 2.0 + c as f64, mf, nf, ties) - zq;
    // f rises with c; start at the normal quantile's count and step to the last c <= 0.
    let sigma = rank_sum_sigma(mf, nf, ties);
    let mut c = (mf * nf / 2.0 + zq * sigma).round().clamp(0.0, mf * nf) as usize;
    while c < m * n && f(c + 1) <= 0.0 {
        c += 1;
    }
    while c > 0 && f(c) > 0.0 {
        c -= 1;
    }
    c
}

/// Two values of the pooled sample are equal: R's `TIES`, which rules out its exact test.
fn has_ties(x: &[f64], y: &[f64]) -> bool {
    let mut all: Vec<f64> = x.iter().chain(y).copied().collect();
    all.sort_by(f64::total_cmp);
    all.windows(2).any(|w| w[0] == w[1])
}

/// Midranks (ties share the mean of their ranks) of `values`, in their order, and
/// `sum(t^3 - t)` over the groups of `t` equal values: R's `rank()` and `table(r)`.
pub(crate) fn midranks(values: &[f64]) -> (Vec<f64>, f64) {
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|&a, &b| values[a].total_cmp(&values[b]));
    let mut ranks = vec![0.0; values.len()];
    let mut ties = 0.0;
    let mut start = 0;
    while start < order.len() {
        let mut end = start + 1;
        while end < order.len() && values[order[end]] == values[order[start]] {
            end += 1;
        }
        let t = (end - start) as f64;
        // Ranks start + 1 ..= end, their mean.
        let rank = (start + 1 + end) as f64 / 2.0;
        for &i in &order[start..end] {
            ranks[i] = rank;
        }
        ties += t * t * t - t;
        start = end;
    }
    (ranks, ties)
}

/// R's `wdiff(d, zq)` inside `wilcox.test` (R 4.2, `src/library/stats/R/wilcox.test.R`):
/// the continuity-corrected, tie-corrected standard normal statistic of the rank-sum
/// test of `x - d` against `y`, minus `zq`.
fn wdiff(x: &[f64], y: &[f64], d: f64, zq: f64) -> f64 {
    let (m, n) = (x.len() as f64, y.len() as f64);
    let pooled: Vec<f64> = x.iter().map(|a| a - d).chain(y.iter().copied()).collect();
    let (ranks, ties) = midranks(&pooled);
    let rank_sum: f64 = ranks[..x.len()].iter().sum();
    rank_sum_z(rank_sum, m, n, ties) - zq
}

/// `wdiff`'s statistic: the rank sum of the `m` values of `x - d` among the `m + n`
/// pooled ones, centred, continuity-corrected and divided by its tie-corrected standard
/// deviation (`ties` is `sum(t^3 - t)` over the pooled sample's groups of ties).
fn rank_sum_z(rank_sum: f64, m: f64, n: f64, ties: f64) -> f64 {
    let dz = rank_sum - m * (m + 1.0) / 2.0 - m * n / 2.0;
    let correction = 0.5
        * if dz > 0.0 {
            1.0
        } else if dz < 0.0 {
            -1.0
        } else {
            0.0
        };
    (dz - correction) / rank_sum_sigma(m, n, ties)
}

/// The standard deviation of the rank sum of `m` values among `m + n` with the tie term
/// `ties`, as in R's `wilcox.test`.
fn rank_sum_sigma(m: f64, n: f64, ties: f64) -> f64 {
    let big_n = m + n;
    ((m * n / 12.0) * ((big_n + 1.0) - ties / (big_n * (big_n - 1.0)))).sqrt()
}

/// The interval R's `wilcox.test` gives when its exact test does not apply: each end is
/// where `wdiff(d, zq)` changes sign for `zq` the normal quantile of `level`, between
/// `min(x) - max(y)` and `max(x) - min(y)`. R solves for it with `uniroot` (tolerance
/// 1e-4); `wdiff` is a step function of `d` that falls at each pairwise difference, so
/// the root is the difference where it crosses zero, which this finds exactly by
/// bisection over the sorted differences (`diffs`), testing `wdiff` between two of them.
/// R's value is within its tolerance of it (`379.000021` for 379, test below). As in R,
/// an end that `wdiff` does not reach inside the range is the range's end.
fn normal_interval(x: &[f64], y: &[f64], diffs: &[f64], level: f64) -> (f64, f64) {
    let mut distinct = diffs.to_vec();
    distinct.dedup();
    let (lo, hi) = (distinct[0], distinct[distinct.len() - 1]);
    if distinct.len() == 1 {
        // Every observation tied after the shift: R has no interval; nothing else is
        // consistent with the data.
        return (lo, lo);
    }
    let z = Normal::standard().inverse_cdf(1.0 - (1.0 - level) / 2.0);
    let root = |zq: f64| -> f64 {
        if wdiff(x, y, lo, zq) <= 0.0 {
            return lo;
        }
        if wdiff(x, y, hi, zq) >= 0.0 {
            return hi;
        }
        // `wdiff` falls with d. Find the first gap (distinct[k], distinct[k + 1]) where
        // it is <= 0: the root is distinct[k]. Gap k - 1 > 0 or k == 0.
        let below = |k: usize| wdiff(x, y, (distinct[k] + distinct[k + 1]) / 2.0, zq) <= 0.0;
        let (mut a, mut b) = (0, distinct.len() - 1);
        // Invariant: every gap before a is > 0; gap b (if b < len - 1) is <= 0.
        while a < b {
            let k = (a + b) / 2;
            if below(k) {
                b = k;
            } else {
                a = k + 1;
            }
        }
        distinct[a]
    };
    (root(z), root(-z))
}

/// The exact null distribution of the Mann-Whitney statistic `W` (the number of pairs
/// with `x_i > y_j`, 0..=m*n) for samples of `m` and `n` values without ties: R's
/// `dwilcox`/`pwilcox`/`qwilcox`. Counts by the recurrence of Mann & Whitney (1947):
/// `c(k; m, n) = c(k - n; m - 1, n) + c(k; m, n - 1)`.
pub(crate) struct WilcoxonRankSum {
    /// `P(W = k)` for each k.
    pmf: Vec<f64>,
}

impl WilcoxonRankSum {
    pub(crate) fn new(m: usize, n: usize) -> WilcoxonRankSum {
        // prev[j] = counts for (i - 1, j); row i = 0 has one arrangement: W = 0.
        let mut prev: Vec<Vec<f64>> = (0..=n).map(|_| vec![1.0]).collect();
        for i in 1..=m {
            let mut cur: Vec<Vec<f64>> = Vec::with_capacity(n + 1);
            cur.push(vec![1.0]);
            for j in 1..=n {
                let mut c = vec![0.0; i * j + 1];
                // The largest x above all j y's: adds j to W.
                for (k, v) in prev[j].iter().enumerate() {
                    c[k + j] += v;
                }
                // The largest value is a y: W unchanged.
                for (k, v) in cur[j - 1].iter().enumerate() {
                    c[k] += v;
                }
                cur.push(c);
            }
            prev = cur;
        }
        let counts = prev.pop().expect("n + 1 rows");
        let total: f64 = counts.iter().sum();
        WilcoxonRankSum {
            pmf: counts.into_iter().map(|c| c / total).collect(),
        }
    }

    /// `P(W <= q)`; 0 for q < 0 (passed as `usize` wrapping is avoided by the caller).
    fn cdf(&self, q: usize) -> f64 {
        self.pmf.iter().take(q + 1).sum()
    }

    /// The smallest `q` with `P(W <= q) >= p`, with R's allowance for rounding.
    pub(crate) fn quantile(&self, p: f64) -> usize {
        let p = p - 10.0 * f64::EPSILON;
        let mut acc = 0.0;
        for (q, v) in self.pmf.iter().enumerate() {
            acc += v;
            if acc >= p {
                return q;
            }
        }
        self.pmf.len() - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_matches_r() {
        // R: median(c(3, 1, 2)) = 2; median(c(4, 1, 3, 2)) = 2.5; median(c(1866)) = 1866
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), Some(2.5));
        assert_eq!(median(&[1866.0]), Some(1866.0));
        assert_eq!(median(&[]), None);
    }

    #[test]
    fn summary_keeps_the_spread() {
        let s = summarize(&[10.0, 30.0, 20.0, 900.0]).unwrap();
        assert_eq!(
            s,
            Summary {
                n: 4,
                median: 25.0,
                min: 10.0,
                max: 900.0
            }
        );
        assert_eq!(summarize(&[]), None);
    }

    // Every reference value below was printed by R 4.2 (Debian r-base-core).
    const X: [f64; 10] = [
        1653.2, 1649.8, 1661.0, 1644.1, 1658.7, 1702.3, 1650.5, 1647.9, 1655.6, 1660.4,
    ];
    const Y: [f64; 10] = [
        1866.4, 1872.9, 1859.3, 1901.7, 1863.0, 1870.2, 1868.8, 1855.1, 2410.6, 1861.5,
    ];

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn wilcoxon_distribution_matches_r() {
        // R: qwilcox(0.025, 10, 10) = 24; qwilcox(0.025, 6, 7) = 7; qwilcox(0.025, 3, 3) = 0
        assert_eq!(WilcoxonRankSum::new(10, 10).quantile(0.025), 24);
        assert_eq!(WilcoxonRankSum::new(6, 7).quantile(0.025), 7);
        assert_eq!(WilcoxonRankSum::new(3, 3).quantile(0.025), 0);
        // R: pwilcox(7, 10, 10) = 0.000243564485050553
        assert!((WilcoxonRankSum::new(10, 10).cdf(7) - 0.000243564485050553).abs() < 1e-15);
    }

    /// Two-tailed critical values of U at alpha = 0.05 from the published tables of the
    /// Mann-Whitney test: the largest u with P(U <= u) <= 0.025, so qwilcox(0.025, m, n)
    /// = u + 1 (R 4.2.2 gives 3, 9, 14, 24, 128 for these sizes). Adaptive repetitions
    /// rely on qwilcox(0.025, 4, 4) = 1: four launches a side never stop early.
    #[test]
    fn wilcoxon_quantiles_match_the_published_critical_values() {
        for ((m, n), critical) in [
            ((5, 5), 2),
            ((5, 10), 8),
            ((8, 8), 13),
            ((10, 10), 23),
            ((20, 20), 127),
        ] {
            assert_eq!(
                WilcoxonRankSum::new(m, n).quantile(0.025),
                critical + 1,
                "m={m} n={n}"
            );
            assert_eq!(
                WilcoxonRankSum::new(n, m).quantile(0.025),
                critical + 1,
                "symmetric"
            );
        }
        assert_eq!(WilcoxonRankSum::new(4, 4).quantile(0.025), 1);
    }

    #[test]
    fn hodges_lehmann_interval_matches_r_on_startup_like_times() {
        // R 4.2.2: wilcox.test(x, y, conf.int = TRUE)$conf.int
        type Case<'a> = (&'a [f64], &'a [f64], (f64, f64));
        let cases: [Case; 2] = [
            (
                &[10.1, 10.4, 10.2, 10.8, 10.3],
                &[0.2, 0.5, 0.1, 0.4, 0.3],
                (9.7, 10.5),
            ),
            // Times to main (ms) with one slow launch: [1] 379.0 393.4
            (
                &[431.5, 426.9, 440.2, 433.8, 429.1, 612.0, 435.5],
                &[48.2, 47.9, 52.3, 49.1, 50.6, 46.8],
                (379.0, 393.4),
            ),
        ];
        for (x, y, (low, high)) in cases {
            let s = hodges_lehmann(x, y, 0.95).unwrap();
            assert!(close(s.low, low) && close(s.high, high), "{s:?}");
        }
    }

    #[test]
    fn hodges_lehmann_matches_r_wilcox_test() {
        // R: wilcox.test(X, Y, conf.int = TRUE): conf.int -223.1 -204.3, estimate -212.5
        let s = hodges_lehmann(&X, &Y, 0.95).unwrap();
        assert!(close(s.low, -223.1) && close(s.high, -204.3), "{s:?}");
        assert!(close(s.estimate, -212.5));
        assert!(s.significant() && s.confidence >= 0.95);
        // R: wilcox.test(c(31.2, 29.8, 30.5, 33.1, 28.9, 30.0),
        //     c(30.4, 31.7, 29.1, 32.6, 30.9, 29.5, 31.3), conf.int = TRUE):
        //     conf.int -2.0 1.7, estimate -0.4
        let a = [31.2, 29.8, 30.5, 33.1, 28.9, 30.0];
        let b = [30.4, 31.7, 29.1, 32.6, 30.9, 29.5, 31.3];
        let s = hodges_lehmann(&a, &b, 0.95).unwrap();
        assert!(close(s.low, -2.0) && close(s.high, 1.7), "{s:?}");
        assert!((s.estimate - -0.4).abs() < 1e-9);
        assert!(!s.significant());
        // R: wilcox.test(c(1, 2, 3), c(4.5, 5.5, 6.5), conf.int = TRUE): conf.int -5.5 -1.5
        // at conf.level 0.9 ("Requested conf.level not achievable").
        let s = hodges_lehmann(&[1.0, 2.0, 3.0], &[4.5, 5.5, 6.5], 0.95).unwrap();
        assert!(close(s.low, -5.5) && close(s.high, -1.5), "{s:?}");
        assert!(close(s.confidence, 0.9));
        assert_eq!(hodges_lehmann(&[], &[1.0], 0.95), None);
    }

    #[test]
    fn large_samples_use_the_normal_approximation_close_to_exact() {
        // 49 vs 49 (exact) and 50 vs 50 (normal rank): both bracket the true shift of 5.
        let x: Vec<f64> = (0..50).map(|i| f64::from(i) * 1.01 + 5.0).collect();
        let y: Vec<f64> = (0..50).map(|i| f64::from(i) * 0.99).collect();
        let exact = hodges_lehmann(&x[..49], &y[..49], 0.95).unwrap();
        let normal = hodges_lehmann(&x, &y, 0.95).unwrap();
        for s in [exact, normal] {
            assert!(s.low < 5.0 && 5.0 < s.high, "{s:?}");
        }
        assert!((exact.high - exact.low - (normal.high - normal.low)).abs() < 1.0);
    }

    /// R's `uniroot` stops within its tolerance (1e-4) of the root; ours is exact.
    const R_ROOT_TOL: f64 = 1e-4;

    #[test]
    fn from_50_values_on_the_interval_is_rs_normal_approximation() {
        // R: i <- 0:59; x <- i * 1.01 + 5 + (i %% 7) * 0.3; y <- i * 0.99 + (i %% 5) * 0.2
        //    wilcox.test(x, y, conf.int = TRUE): conf.int -0.540040205528812 12.670045639362762,
        //    estimate 6.08671259802148 (R solves for it; median(outer(x, y, "-")) = 6.09)
        let x: Vec<f64> = (0..60)
            .map(|i| f64::from(i) * 1.01 + 5.0 + f64::from(i % 7) * 0.3)
            .collect();
        let y: Vec<f64> = (0..60)
            .map(|i| f64::from(i) * 0.99 + f64::from(i % 5) * 0.2)
            .collect();
        let s = hodges_lehmann(&x, &y, 0.95).unwrap();
        assert!((s.estimate - 6.09).abs() < 1e-9);
        assert!((s.low - -0.540040205528812).abs() < R_ROOT_TOL, "{s:?}");
        assert!((s.high - 12.670045639362762).abs() < R_ROOT_TOL, "{s:?}");
        assert_eq!(s.confidence, 0.95);
    }

    /// Tied data, as real millisecond times are: R leaves the exact distribution for the
    /// normal approximation with tie and continuity corrections. Every value was printed
    /// by R 4.2.2 (Debian r-base-core 4.2.2.20221110-2) with
    /// `suppressWarnings(wilcox.test(x, y, conf.int = TRUE))`, `options(digits = 15)`.
    #[test]
    fn with_ties_the_interval_is_rs() {
        type Case<'a> = (&'a [f64], &'a [f64], (f64, f64), f64);
        let cases: [Case; 4] = [
            // Ties within each sample (whole milliseconds): 379.000020748909 393.000030881766
            // (the exact distribution, which ignores ties, would give 379 393.4 on
            // 431.5 ... / 48.2 ...: see hodges_lehmann_interval_matches_r_on_startup_like_times)
            (
                &[431.0, 427.0, 440.0, 431.0, 429.0, 612.0, 435.0],
                &[48.0, 47.0, 52.0, 49.0, 48.0, 47.0],
                (379.000020748909, 393.000030881766),
                383.5,
            ),
            // Ties across the samples: -3.00001843755222 1.99999155065458
            (
                &[1.0, 2.0, 2.0, 3.0, 4.0, 5.0],
                &[2.0, 3.0, 3.0, 4.0, 6.0],
                (-3.00001843755222, 1.99999155065458),
                -1.0,
            ),
            // An adaptive run's shape: 373.999956123482 379.000028242787
            (
                &[412.0, 415.0, 415.0, 418.0, 420.0, 415.0, 430.0, 419.0],
                &[40.0, 41.0, 41.0, 40.0, 42.0, 40.0, 39.0, 41.0],
                (373.999956123482, 379.000028242787),
                376.0,
            ),
            // The lower end is min(x) - max(y), where R returns it without a root: 0 1
            (
                &[1.0, 1.0, 1.0, 2.0],
                &[1.0, 1.0, 1.0, 1.0],
                (0.0, 1.0),
                0.0,
            ),
        ];
        for (x, y, (low, high), estimate) in cases {
            let s = hodges_lehmann(x, y, 0.95).unwrap();
            assert!(
                (s.low - low).abs() < R_ROOT_TOL && (s.high - high).abs() < R_ROOT_TOL,
                "R: {low} {high}; got {s:?}"
            );
            // R: median(outer(x, y, "-")): 383.5 -1 376 0
            assert_eq!(s.estimate, estimate, "median of the differences");
            assert_eq!(s.confidence, 0.95);
        }
    }

    #[test]
    fn the_counted_differences_give_the_listed_ones_figures() {
        // A reproducible spread of startup-like times: ties (rounded to 0.1 ms) or not,
        // a drift, a few slow launches, negative costs; small samples (the exact
        // interval), large ones (the normal one), all equal, one value.
        let mut state = 24u64;
        let mut next = move || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 11) as f64 / (1u64 << 53) as f64
        };
        let mut sample = |len: usize, centre: f64, round: bool| -> Vec<f64> {
            (0..len)
                .map(|i| {
                    let slow = if next() < 0.02 { 5.0 } else { 1.0 };
                    let v = (centre + 0.01 * i as f64 + 8.0 * (next() - 0.5)) * slow;
                    if round { (v * 10.0).round() / 10.0 } else { v }
                })
                .collect()
        };
        let cases = [
            (sample(20, 5.0, false), sample(30, 1.0, false)),
            (sample(45, -3.0, false), sample(49, 2.0, false)),
            (sample(20, 5.0, true), sample(30, 1.0, true)),
            (sample(700, 12.0, true), sample(600, 10.0, true)),
            (sample(900, 3.0, false), sample(1000, 3.5, false)),
            (sample(333, 0.0, true), sample(1, 0.0, true)),
            (vec![4.0; 300], vec![1.5; 200]),
        ];
        // Heavy ties (whole milliseconds: a few dozen distinct values), one side's
        // launches several times slower, and samples of startup times in ms as the
        // report divides them from nanoseconds.
        let whole = |v: Vec<f64>| v.into_iter().map(f64::round).collect::<Vec<_>>();
        let ms = |v: Vec<f64>| {
            v.into_iter()
                .map(|t| (t * 1e7).round() / 1e6 + 80.0)
                .collect::<Vec<_>>()
        };
        let more = [
            (
                whole(sample(500, 4.0, false)),
                whole(sample(400, 1.0, false)),
            ),
            (
                whole(sample(300, 0.0, false)),
                whole(sample(800, 0.0, false)),
            ),
            (
                whole(sample(60, 30.0, false)),
                whole(sample(70, 2.0, false)),
            ),
            (ms(sample(600, 1.0, false)), ms(sample(650, 0.8, false))),
            (ms(sample(200, 0.0, true)), ms(sample(900, 0.5, true))),
        ];
        let levels = [0.95, 0.9, 0.99, 0.5];
        let all = cases
            .iter()
            .flat_map(|c| levels.iter().map(move |l| (c, *l)))
            .chain(
                more.iter()
                    .flat_map(|c| levels.iter().map(move |l| (c, *l))),
            );
        for ((x, y), level) in all {
            let listed = hodges_lehmann(x, y, level).unwrap();
            let counted = hodges_lehmann_implicit(x, y, level);
            assert_eq!(
                (
                    listed.estimate.to_bits(),
                    listed.low.to_bits(),
                    listed.high.to_bits()
                ),
                (
                    counted.estimate.to_bits(),
                    counted.low.to_bits(),
                    counted.high.to_bits()
                ),
                "{} x {} at {level}: {listed:?} vs {counted:?}",
                x.len(),
                y.len()
            );
            assert_eq!(listed.confidence, counted.confidence);
        }
        // Above the threshold the counted path is taken, and answers.
        let (x, y) = (sample(1100, 20.0, true), sample(1000, 10.0, true));
        assert!(x.len() * y.len() > MATERIALIZED_DIFFERENCES);
        let big = hodges_lehmann(&x, &y, 0.95).unwrap();
        assert!(big.low < big.estimate && big.estimate < big.high, "{big:?}");
    }

    #[test]
    fn all_values_equal_is_a_zero_width_interval_not_a_panic() {
        // R: wilcox.test(c(5, 5, 5), c(5, 5, 5), conf.int = TRUE) stops: "cannot compute
        // confidence interval when all observations are tied".
        let s = hodges_lehmann(&[5.0; 3], &[5.0; 3], 0.95).unwrap();
        assert_eq!((s.estimate, s.low, s.high), (0.0, 0.0, 0.0));
        assert!(!s.significant());
        let s = hodges_lehmann(&[7.0; 60], &[5.0; 60], 0.95).unwrap();
        assert_eq!((s.estimate, s.low, s.high), (2.0, 2.0, 2.0));
    }

    mod properties {
        use super::*;
        use proptest::prelude::*;

        /// Samples of whole numbers from a small range: many ties, and every difference
        /// and shift exact in f64. Up to 60 values, so both of R's methods are reached.
        fn sample() -> impl Strategy<Value = Vec<f64>> {
            prop::collection::vec((0i32..25).prop_map(f64::from), 1..60)
        }

        fn distinct_sample() -> impl Strategy<Value = Vec<f64>> {
            prop::collection::btree_set(0i32..10_000, 1..30)
                .prop_map(|s| s.into_iter().map(f64::from).collect())
        }

        proptest! {
            #![proptest_config(ProptestConfig { cases: 500, failure_persistence: None, ..ProptestConfig::default() })]

            /// Shifting one sample by c shifts the estimate and both ends by c.
            #[test]
            fn shifting_a_sample_shifts_the_estimate(x in sample(), y in sample(), c in -500i32..500) {
                let c = f64::from(c);
                let shifted: Vec<f64> = x.iter().map(|v| v + c).collect();
                let a = hodges_lehmann(&x, &y, 0.95).unwrap();
                let b = hodges_lehmann(&shifted, &y, 0.95).unwrap();
                prop_assert_eq!(b.estimate, a.estimate + c);
                // The interval too, unless the shift made or broke a tie between the
                // samples: that switches R's method (exact or normal), here as in R.
                if has_ties(&x, &y) == has_ties(&shifted, &y) {
                    prop_assert_eq!((b.low, b.high), (a.low + c, a.high + c));
                }
                let y_shifted: Vec<f64> = y.iter().map(|v| v + c).collect();
                let d = hodges_lehmann(&x, &y_shifted, 0.95).unwrap();
                prop_assert_eq!(d.estimate, a.estimate - c);
            }

            /// Swapping the samples negates the estimate and mirrors the interval.
            #[test]
            fn swapping_the_samples_negates_it(x in sample(), y in sample()) {
                let a = hodges_lehmann(&x, &y, 0.95).unwrap();
                let b = hodges_lehmann(&y, &x, 0.95).unwrap();
                prop_assert_eq!(b.estimate, -a.estimate);
                prop_assert_eq!((b.low, b.high), (-a.high, -a.low));
                prop_assert_eq!(b.confidence, a.confidence);
            }

            /// The same for samples without ties (the exact distribution), over any values.
            #[test]
            fn without_ties_too(x in distinct_sample(), y in distinct_sample(), c in -500i32..500) {
                let y: Vec<f64> = y.iter().map(|v| v + 0.5).collect();
                let a = hodges_lehmann(&x, &y, 0.95).unwrap();
                let b = hodges_lehmann(&y, &x, 0.95).unwrap();
                prop_assert_eq!((b.estimate, b.low, b.high), (-a.estimate, -a.high, -a.low));
                let c = f64::from(c);
                let shifted: Vec<f64> = x.iter().map(|v| v + c).collect();
                let s = hodges_lehmann(&shifted, &y, 0.95).unwrap();
                prop_assert_eq!((s.estimate, s.low, s.high), (a.estimate + c, a.low + c, a.high + c));
            }

            /// Ties and equal samples never panic; the ends are differences x_i - y_j
            /// around the estimate, and a higher level never gives a narrower interval.
            #[test]
            fn ties_never_panic_and_the_interval_holds_the_estimate(
                x in prop::collection::vec((0i32..3).prop_map(f64::from), 1..60),
                y in prop::collection::vec((0i32..3).prop_map(f64::from), 1..60),
            ) {
                let s = hodges_lehmann(&x, &y, 0.95).unwrap();
                prop_assert!(s.low <= s.estimate && s.estimate <= s.high, "{:?}", s);
                let is_difference = |d: f64| x.iter().any(|a| y.iter().any(|b| a - b == d));
                prop_assert!(is_difference(s.low) && is_difference(s.high), "{:?}", s);
                let wide = hodges_lehmann(&x, &y, 0.99).unwrap();
                prop_assert!(wide.low <= s.low && s.high <= wide.high, "{:?} vs {:?}", wide, s);
                // 0 when the samples are too small for any interval (1 vs 1).
                prop_assert!((0.0..=1.0).contains(&s.confidence), "{:?}", s);
            }

            /// The quartiles and the median of a sample lie inside its range, in order,
            /// and the modified z-scores never flag more than half the values.
            #[test]
            fn summaries_are_ordered(x in sample()) {
                let s = summarize(&x).unwrap();
                let (q1, q3) = quartiles(&x).unwrap();
                prop_assert!(s.min <= q1 && q1 <= s.median && s.median <= q3 && q3 <= s.max);
                let flagged = outliers(&x).iter().filter(|f| **f).count();
                prop_assert!(2 * flagged <= x.len(), "{} of {}", flagged, x.len());
            }
        }
    }

    #[test]
    fn quartiles_match_r_type_8() {
        // R: quantile(X, c(.25, .75), type = 8) = 1649.64166666667 1660.45
        let (q1, q3) = quartiles(&X).unwrap();
        assert!((q1 - 1649.64166666667).abs() < 1e-9 && close(q3, 1660.45));
        // R: quantile(c(30.4, 31.7, 29.1, 32.6, 30.9, 29.5, 31.3), c(.25, .75), type = 8)
        //    = 29.65 31.6333333333333
        let (q1, q3) = quartiles(&[30.4, 31.7, 29.1, 32.6, 30.9, 29.5, 31.3]).unwrap();
        assert!(close(q1, 29.65) && (q3 - 31.633_333_333_333_3).abs() < 1e-9);
        assert_eq!(quartiles(&[]), None);
    }

    #[test]
    fn modified_z_scores_match_r() {
        // R: m <- median(Y); 0.6745 * (Y - m) / mad(Y, constant = 1)
        let r = [
            -0.141999999999977,
            0.627166666666683,
            -0.982166666666653,
            4.035166666666651,
            -0.544333333333318,
            0.307666666666680,
            0.142000000000004,
            -1.479166666666655,
            64.25499999999948,
            -0.721833333333317,
        ];
        for (z, want) in modified_z_scores(&Y).iter().zip(r) {
            assert!((z - want).abs() < 1e-9, "{z} vs {want}");
        }
        let flags = outliers(&Y);
        assert_eq!(flags.iter().filter(|f| **f).count(), 2);
        assert!(flags[3] && flags[8]);
        // More than half equal: MAD = 0, nothing is far.
        assert_eq!(outliers(&[5.0, 5.0, 5.0, 9.0]), vec![false; 4]);
    }
}
