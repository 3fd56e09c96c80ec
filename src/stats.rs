//! Statistics: pure functions over slices of milliseconds. Each names its method and
//! its source, and is tested below against values computed with R (4.2, Debian).

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
pub const MODIFIED_Z_THRESHOLD: f64 = 3.5;

/// The modified z-score of each value: `0.6745 * (x - median) / MAD`, where MAD is the
/// unscaled median absolute deviation (R: `0.6745 * (x - median(x)) / mad(x, constant = 1)`).
/// Iglewicz & Hoaglin (1993). All zeros when the MAD is zero (more than half the values
/// equal): nothing can then be called far.
pub fn modified_z_scores(values: &[f64]) -> Vec<f64> {
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
/// "Nonparametric Statistical Methods", 2nd ed., 1999, chapter 4). This is R's
/// `wilcox.test(x, y, conf.int = TRUE, conf.level = level)`: with fewer than 50 values
/// on each side the interval's ends are order statistics of the `m*n` differences picked
/// with the exact null distribution (R's `qwilcox`), as R does when there are no ties
/// (with ties R switches to a normal approximation; this function keeps the exact
/// ranks). From 50 values on, the rank is picked with the normal approximation of that
/// distribution (its large-sample form, same chapter), where R instead solves for the interval
/// numerically; on a 60 x 60 test sample the ends agree to 0.0001 (interval 13 wide).
/// `None` when a sample is empty.
pub fn hodges_lehmann(x: &[f64], y: &[f64], level: f64) -> Option<Shift> {
    let (m, n) = (x.len(), y.len());
    if m == 0 || n == 0 {
        return None;
    }
    let mut diffs: Vec<f64> = x
        .iter()
        .flat_map(|a| y.iter().map(move |b| a - b))
        .collect();
    diffs.sort_by(f64::total_cmp);
    let mn = m * n;
    let alpha = 1.0 - level;
    let (qu, achieved_alpha) = if m < 50 && n < 50 {
        let dist = WilcoxonRankSum::new(m, n);
        let qu = dist.quantile(alpha / 2.0).max(1);
        (qu, 2.0 * dist.cdf(qu - 1))
    } else {
        let z = Normal::standard().inverse_cdf(1.0 - alpha / 2.0);
        let mnf = mn as f64;
        let c = (mnf / 2.0 - z * (mnf * (m + n + 1) as f64 / 12.0).sqrt()).round();
        (c.max(1.0) as usize, alpha)
    };
    let ql = mn - qu;
    Some(Shift {
        estimate: median(&diffs)?,
        low: diffs[qu - 1],
        high: diffs[ql],
        confidence: 1.0 - achieved_alpha.min(1.0),
    })
}

/// The exact null distribution of the Mann-Whitney statistic `W` (the number of pairs
/// with `x_i > y_j`, 0..=m*n) for samples of `m` and `n` values without ties: R's
/// `dwilcox`/`pwilcox`/`qwilcox`. Counts by the recurrence of Mann & Whitney (1947):
/// `c(k; m, n) = c(k - n; m - 1, n) + c(k; m, n - 1)`.
struct WilcoxonRankSum {
    /// `P(W = k)` for each k.
    pmf: Vec<f64>,
}

impl WilcoxonRankSum {
    fn new(m: usize, n: usize) -> WilcoxonRankSum {
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
    fn quantile(&self, p: f64) -> usize {
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

    #[test]
    fn from_50_values_on_the_interval_is_close_to_rs_normal_approximation() {
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
        assert!((s.low - -0.540040205528812).abs() < 0.01, "{s:?}");
        assert!((s.high - 12.670045639362762).abs() < 0.01, "{s:?}");
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
