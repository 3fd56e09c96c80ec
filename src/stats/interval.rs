//! The 95% interval of a cell's cost, from its per-round costs in round order.
//!
//! Estimator: the 20% trimmed mean of the per-round costs (`with - without` in one
//! round), which drops the fifth of the rounds at each end, so that a few launches
//! several times the median move it little (Tukey & McLaughlin 1963; Wilcox,
//! "Introduction to Robust Estimation and Hypothesis Testing", 4th ed., 2017, 3.2.2).
//! It is R's `mean(x, trim = 0.2)` and SciPy's `scipy.stats.trim_mean(x, 0.2)`.
//!
//! Interval: non-overlapping batch means (Schmeiser, "Batch size effects in the analysis
//! of simulation output", Operations Research 30(3), 1982; Law, "Simulation Modeling and
//! Analysis", 5th ed., 2015, 9.5.3). The rounds run in time order and the machine drifts
//! (lag-1 autocorrelation of the costs about 0.45 on the development VM), so the rounds
//! are not independent and an iid interval is too narrow. The rounds are cut into `b`
//! contiguous batches of at least [`MIN_BATCH`] rounds (at most [`MAX_BATCHES`]
//! batches); each batch's trimmed mean is one value, and batches far enough apart in
//! time are nearly independent. The interval is the whole sample's trimmed mean +-
//! `t(0.975, b - 1) * sd(batch trimmed means) / sqrt(b)`.
//!
//! Honesty is shown by simulation, not assumed: `covers_the_truth_under_this_machines_noise`
//! below draws rounds with drift, bursts and slow launches as measured on the
//! development VM and counts how often the interval holds the undisturbed cost.

use statrs::distribution::{ContinuousCDF, StudentsT};

/// Confidence of a cell's interval: what the report states and the adaptive stop holds.
pub const CONFIDENCE: f64 = 0.95;

/// Share trimmed at each end.
pub const TRIM: f64 = 0.2;

/// Fewest rounds in a batch: a batch of 5 trims one round at each end.
pub const MIN_BATCH: usize = 5;

/// Most batches: more rounds make the batches longer, so that they grow further apart
/// in time than the drift reaches.
pub const MAX_BATCHES: usize = 10;

/// The trimmed mean: `floor(proportion * n)` values dropped at each end of the sorted
/// sample, the mean of the rest. R's `mean(x, trim = proportion)` and SciPy's
/// `scipy.stats.trim_mean(x, proportion)` (both cut `floor(n * proportion)`); `None`
/// for an empty sample.
pub fn trimmed_mean(values: &[f64], proportion: f64) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let cut = (proportion * values.len() as f64).floor() as usize;
    let kept = &sorted[cut..values.len() - cut];
    Some(kept.iter().sum::<f64>() / kept.len() as f64)
}

/// The Student t quantile `qt(p, df)` (R), `scipy.stats.t.ppf(p, df)`, via statrs.
pub fn t_quantile(p: f64, df: f64) -> f64 {
    StudentsT::new(0.0, 1.0, df).expect("df > 0").inverse_cdf(p)
}

/// The sample standard deviation (n - 1), R's `sd()`.
pub(crate) fn sd(values: &[f64]) -> f64 {
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    (values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt()
}

/// A cell's cost with its interval, as the report shows it.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct CostInterval {
    /// The 20% trimmed mean of the per-round costs, ms.
    pub estimate_ms: f64,
    pub low_ms: f64,
    pub high_ms: f64,
    /// The level asked for (0.95).
    pub confidence: f64,
    /// Per-round costs it is computed from.
    pub rounds: usize,
    /// Batches of consecutive rounds (the interval has `batches - 1` degrees of
    /// freedom); 0 when the interval is over runs.
    pub batches: usize,
    /// Runs (result files) the interval is over ([`runs_interval`]: `runs - 1`
    /// degrees of freedom); 1 when it is from the rounds' batches.
    pub runs: usize,
}

impl CostInterval {
    /// Half the interval's width, ms: the `x` of `estimate +- x`.
    pub fn half_width_ms(&self) -> f64 {
        (self.high_ms - self.low_ms) / 2.0
    }
}

/// How many batches `n` rounds make: as many as fit [`MIN_BATCH`] rounds, at most
/// [`MAX_BATCHES`]; fewer than 2 means no interval.
pub fn batch_count(n: usize) -> usize {
    (n / MIN_BATCH).min(MAX_BATCHES)
}

/// The `b` contiguous batches of `values`, as even as can be (sizes differ by at most
/// one, the longer ones first).
fn batches(values: &[f64], b: usize) -> impl Iterator<Item = &[f64]> {
    let (size, extra) = (values.len() / b, values.len() % b);
    (0..b).map(move |i| {
        let start = i * size + i.min(extra);
        let len = size + usize::from(i < extra);
        &values[start..start + len]
    })
}

/// The cost and its batch-means interval at `level` from per-round costs in round
/// order (module doc). `None` with fewer than `2 * MIN_BATCH` rounds: two batches are
/// the least an interval needs.
pub fn cost_interval(costs: &[f64], level: f64) -> Option<CostInterval> {
    batch_interval(costs, level, batch_count(costs.len()))
}

/// [`cost_interval`] with `b` batches.
fn batch_interval(costs: &[f64], level: f64, b: usize) -> Option<CostInterval> {
    batch_interval_with(costs, level, b, true)
}

/// The level each of `looks` checks of one interval must be at for the interval a rule
/// stops on to hold `level`: `1 - (1 - level) / looks` (Bonferroni over the looks). The
/// interval the rule stops on misses only if the interval at some look misses, and the
/// chance of that is at most the sum of the looks' chances, whatever the rounds'
/// dependence between looks. At least one look.
pub fn look_level(level: f64, looks: usize) -> f64 {
    1.0 - (1.0 - level) / looks.max(1) as f64
}

/// Fewest runs an interval over runs takes ([`runs_interval`]).
pub const MIN_RUNS: usize = 2;

/// The cost and its interval at `level` from a label's several runs of a cell: `runs`
/// holds each run's per-round costs in round order (rounds pair only within a run).
///
/// A run's rounds see only the minute it ran in; on the quiet machine the cost moves
/// in spells longer than a batch (`docs/statistics.md`), which no interval from one
/// run's rounds sees. So when a cell has [`MIN_RUNS`] runs or more and every one has
/// an interval of its own (10 rounds), the runs are the replicates, as in Kalibera and
/// Jones, "Rigorous benchmarking in reasonable time" (ISMM 2013), which takes the
/// variation at the highest level that was repeated: the estimate is the mean of the
/// runs' trimmed means, and the interval `t(R - 1) * sd(run trimmed means) / sqrt(R)`
/// about it. It is never narrower than what the rounds themselves say: if the runs'
/// own batch-means errors combined, `sqrt(sum se_i^2) / R` on their Welch-Satterthwaite
/// degrees of freedom, give a wider interval, that one is stated (the modification of
/// the Hartung-Knapp interval that keeps it at least as wide as the fixed-effect one;
/// Knapp and Hartung, Statistics in Medicine 22, 2003; Röver, Knapp and Friede, BMC
/// Medical Research Methodology 15:99, 2015), so that runs that agree by chance do not
/// narrow it. Two runs give 1 degree of freedom (`t = 12.7`), so it is wide; three give
/// 4.30, five 2.78. Otherwise (one run, or a run of fewer than 10 rounds) it is
/// [`cost_interval`] of the runs' rounds one after the other.
pub fn runs_interval(runs: &[&[f64]], level: f64) -> Option<CostInterval> {
    let rounds = runs.iter().map(|r| r.len()).sum();
    Some(label_error(runs, level)?.interval(level, rounds))
}

/// Each run's costs as a slice, as [`runs_interval`] and [`difference_interval`] take
/// them.
pub fn as_runs(runs: &[Vec<f64>]) -> Vec<&[f64]> {
    runs.iter().map(Vec::as_slice).collect()
}

/// Whether [`runs_interval`] is over the runs: [`MIN_RUNS`] of them, each with an
/// interval of its own.
fn over_runs(runs: &[&[f64]]) -> bool {
    runs.len() >= MIN_RUNS && runs.iter().all(|r| batch_count(r.len()) >= 2)
}

/// The estimate, standard error and degrees of freedom of [`runs_interval`] at
/// `level`.
fn label_error(runs: &[&[f64]], level: f64) -> Option<BatchError> {
    if !over_runs(runs) {
        let costs = runs.concat();
        let b = batch_count(costs.len());
        return batch_error(&costs, b, true);
    }
    let each: Vec<BatchError> = runs
        .iter()
        .map(|r| batch_error(r, batch_count(r.len()), true))
        .collect::<Option<_>>()?;
    let r = each.len() as f64;
    let estimates: Vec<f64> = each.iter().map(|e| e.estimate).collect();
    let between = sd(&estimates) / r.sqrt();
    let v: Vec<f64> = each.iter().map(|e| e.se * e.se / (r * r)).collect();
    let within = v.iter().sum::<f64>().sqrt();
    // The rounds' own interval, on its Welch-Satterthwaite degrees of freedom.
    let within_df = if within > 0.0 {
        within.powi(4) / v.iter().zip(&each).map(|(v, e)| v * v / e.df).sum::<f64>()
    } else {
        each.iter().map(|e| e.df).sum()
    };
    // The wider of the two intervals at `level`, as one standard error on `r - 1` df.
    let t = |df: f64| t_quantile(1.0 - (1.0 - level) / 2.0, df);
    let floor = within * t(within_df) / t(r - 1.0);
    Some(BatchError {
        estimate: estimates.iter().sum::<f64>() / r,
        se: between.max(floor),
        df: r - 1.0,
        batches: 0,
        runs: each.len(),
    })
}

/// [`batch_interval`], with or without the drift factor ([`short_batch_factor`]).
fn batch_interval_with(costs: &[f64], level: f64, b: usize, drift: bool) -> Option<CostInterval> {
    Some(batch_error(costs, b, drift)?.interval(level, costs.len()))
}

/// A trimmed mean with its batch-means standard error and degrees of freedom.
#[derive(Debug, Clone, Copy)]
struct BatchError {
    estimate: f64,
    se: f64,
    df: f64,
    /// Batches it is from (0 when over runs), and runs (1 when from batches).
    batches: usize,
    runs: usize,
}

impl BatchError {
    /// The interval at `level`, `estimate +- t(df) * se`, of `rounds` per-round costs.
    fn interval(&self, level: f64, rounds: usize) -> CostInterval {
        let half = t_quantile(1.0 - (1.0 - level) / 2.0, self.df) * self.se;
        CostInterval {
            estimate_ms: self.estimate,
            low_ms: self.estimate - half,
            high_ms: self.estimate + half,
            confidence: level,
            rounds,
            batches: self.batches,
            runs: self.runs,
        }
    }
}

/// The trimmed mean of `costs` and its standard error from `b` batches:
/// `factor * sd(batch trimmed means) / sqrt(b)` on `b - 1` degrees of freedom, the
/// drift factor ([`short_batch_factor`]) applied when `drift`.
fn batch_error(costs: &[f64], b: usize, drift: bool) -> Option<BatchError> {
    if b < 2 || costs.len() < b {
        return None;
    }
    let estimate = trimmed_mean(costs, TRIM)?;
    let means: Vec<f64> = batches(costs, b)
        .map(|batch| trimmed_mean(batch, TRIM).expect("non-empty batch"))
        .collect();
    let m = costs.len() / b;
    let inflate = if drift {
        short_batch_factor(lag1_corrected(&winsorized(costs, TRIM)), m)
    } else {
        1.0
    };
    Some(BatchError {
        estimate,
        se: inflate * sd(&means) / (b as f64).sqrt(),
        df: (b - 1) as f64,
        batches: b,
        runs: 1,
    })
}

/// The difference of two cells' costs, `x - y`, with its interval at `level`: each
/// side given as its runs' per-round costs (one slice a run, as in [`runs_interval`]),
/// each side's estimate and standard error as in [`runs_interval`] (over its runs when
/// it has several, else its rounds' batch means), combined as Welch's (1947) interval,
/// `t(df) * sqrt(se_x^2 + se_y^2)`, with the Welch-Satterthwaite degrees of freedom.
/// `None` unless both sides have an interval of their own (10 rounds each). Rounds of
/// one label drift together, which a rank test of the rounds ignores; this does not.
pub fn difference_interval(x: &[&[f64]], y: &[&[f64]], level: f64) -> Option<Difference> {
    difference_interval_looks(x, y, [None, None], level)
}

/// [`difference_interval`] when a side's run stopped under adaptive repetitions after
/// `looks[i]` planned looks (`schedule::adaptive`; `None`: a fixed count, or a side of
/// several runs, whose error is over its runs). A stop narrows the error it stopped
/// on, and taken as it is in Welch's interval, A/A tables of 20 adaptive cells carry a
/// mark in far more than 5% of simulated tables (20.7%, `stats::family`'s
/// `a_a_tables_of_adaptive_cells_hold_5_percent_with_their_looks`); Welch's with each
/// adaptive side's error widened to its looks' level still carried 3-8% in a scratch
/// simulation, not kept. When either side has looks, the interval is instead the sum
/// of the two sides' own half-widths, each at `1 - (1 - level) / 2` over its looks (at
/// `1 - (1 - level) / (2 looks)` at each look; a fixed side at `1 - (1 - level) / 2`):
/// the difference misses
/// only if one side's interval misses its cost, and those chances add up to at most
/// `1 - level` however each side stopped (Bonferroni). Much wider than Welch's: by up
/// to `sqrt(2)`, and by the looks' levels, which few batches make costly (`t(3)` at
/// 99.99%); in the same test a 40 ms change is marked in 21.3% of tables, against
/// 97.0% taken as stopped. The price of stopping on the interval.
pub fn difference_interval_looks(
    x: &[&[f64]],
    y: &[&[f64]],
    looks: [Option<usize>; 2],
    level: f64,
) -> Option<Difference> {
    let a = label_error(x, level)?;
    let b = label_error(y, level)?;
    // Looks of a side of several runs do not count: its error is over its runs.
    let looks = [(a, looks[0]), (b, looks[1])].map(|(e, l)| l.filter(|_| e.runs == 1));
    if looks == [None, None] {
        return Some(welch(a, b, level));
    }
    let half = |e: BatchError, looks: Option<usize>| {
        let side = 1.0 - (1.0 - level) / 2.0;
        let at_look = look_level(side, looks.unwrap_or(1));
        t_quantile(1.0 - (1.0 - at_look) / 2.0, e.df) * e.se
    };
    let estimate = a.estimate - b.estimate;
    let half = half(a, looks[0]) + half(b, looks[1]);
    Some(Difference {
        estimate_ms: estimate,
        low_ms: estimate - half,
        high_ms: estimate + half,
        confidence: level,
    })
}

/// Welch's interval of `a - b` at `level` ([`difference_interval`]).
fn welch(a: BatchError, b: BatchError, level: f64) -> Difference {
    let (va, vb) = (a.se * a.se, b.se * b.se);
    let se = (va + vb).sqrt();
    let df = if se > 0.0 {
        (va + vb).powi(2) / (va * va / a.df + vb * vb / b.df)
    } else {
        a.df + b.df
    };
    let estimate = a.estimate - b.estimate;
    let half = t_quantile(1.0 - (1.0 - level) / 2.0, df) * se;
    Difference {
        estimate_ms: estimate,
        low_ms: estimate - half,
        high_ms: estimate + half,
        confidence: level,
    }
}

/// Two cells' cost difference with its interval ([`difference_interval`]).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Difference {
    pub estimate_ms: f64,
    pub low_ms: f64,
    pub high_ms: f64,
    pub confidence: f64,
}

impl Difference {
    /// The interval excludes zero.
    pub fn significant(&self) -> bool {
        self.low_ms > 0.0 || self.high_ms < 0.0
    }
}

/// How far above its estimate the drift's lag-1 correlation is taken: the one-sided 95%
/// normal quantile of its standard error, `sqrt((1 - rho^2) / n)` (Bartlett 1946).
const RHO_Z: f64 = 1.645;

/// The sample winsorized at `proportion` at each end: the `floor(proportion * n)`
/// lowest values set to the next one up, the highest to the next one down (Wilcox
/// 2017, 3.3); what the trimmed mean's spread is judged on.
fn winsorized(values: &[f64], proportion: f64) -> Vec<f64> {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let cut = (proportion * values.len() as f64).floor() as usize;
    let (lo, hi) = (sorted[cut], sorted[values.len() - 1 - cut]);
    values.iter().map(|v| v.clamp(lo, hi)).collect()
}

/// The lag-1 autocorrelation of a series, with the first-order correction of its
/// small-sample bias for an AR(1) with unknown mean, `E[r] ~ rho - (1 + 3 rho) / n`
/// (Kendall 1954, "Note on bias in the estimation of autocorrelation", Biometrika
/// 41), solved for rho; kept in [0, 0.9].
fn lag1_corrected(x: &[f64]) -> f64 {
    let n = x.len() as f64;
    let mean = x.iter().sum::<f64>() / n;
    let var: f64 = x.iter().map(|v| (v - mean).powi(2)).sum();
    if var == 0.0 {
        return 0.0;
    }
    let r = x
        .windows(2)
        .map(|w| (w[0] - mean) * (w[1] - mean))
        .sum::<f64>()
        / var;
    let rho = ((r * n + 1.0) / (n - 3.0)).clamp(-0.9, 0.9);
    (rho + RHO_Z * ((1.0 - rho * rho) / n).sqrt()).clamp(0.0, 0.9)
}

/// How much batches of `m` rounds understate the spread of a long run's mean under an
/// AR(1) drift of lag-1 correlation `rho`: the square root of the long-run variance
/// factor `(1 + rho) / (1 - rho)` over a batch mean's, `1 + 2 sum_{k<m} (1 - k/m)
/// rho^k` (the variance of the mean of `m` AR(1) values, times `m`). At least 1;
/// 1.13 for rho 0.45 and batches of 5. Batch means assume the batches independent;
/// with a handful of rounds a batch they are not, and this is what makes up for it.
fn short_batch_factor(rho: f64, m: usize) -> f64 {
    let long_run = (1.0 + rho) / (1.0 - rho);
    let batch = 1.0
        + 2.0
            * (1..m)
                .map(|k| (1.0 - k as f64 / m as f64) * rho.powi(k as i32))
                .sum::<f64>();
    (long_run / batch).sqrt().max(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::noise::{Machine, Noise, simulate_cell};

    #[test]
    fn trimmed_mean_matches_scipy() {
        // SciPy 1.17.1: scipy.stats.trim_mean(x, 0.2) (R: mean(x, trim = 0.2) agrees)
        let x = [
            598.2, 611.4, 587.9, 1803.5, 602.3, 590.1, 640.8, 595.5, 603.7, 588.4, 612.9,
        ];
        assert!((trimmed_mean(&x, 0.2).unwrap() - SCIPY_TRIM_X).abs() < 1e-9);
        // n = 4: floor(0.8) = 0 cut, the plain mean.
        assert_eq!(trimmed_mean(&[1.0, 2.0, 3.0, 10.0], 0.2), Some(4.0));
        // n = 5: one cut at each end.
        assert_eq!(trimmed_mean(&[1.0, 2.0, 3.0, 4.0, 100.0], 0.2), Some(3.0));
        assert_eq!(trimmed_mean(&[], 0.2), None);
    }
    const SCIPY_TRIM_X: f64 = 602.0142857142857;

    #[test]
    fn t_quantiles_match_scipy() {
        // SciPy 1.17.1: scipy.stats.t.ppf(0.975, df) for df = 1, 3, 7, 9
        for (df, want) in [
            (1.0, 12.706204736174694),
            (3.0, 3.1824463052837078),
            (7.0, 2.364624251592784),
            (9.0, 2.262157162798205),
        ] {
            assert!((t_quantile(0.975, df) - want).abs() < 1e-8, "df {df}");
        }
    }

    #[test]
    fn batches_are_contiguous_and_even() {
        let v: Vec<f64> = (0..23).map(f64::from).collect();
        let b: Vec<&[f64]> = batches(&v, 4).collect();
        assert_eq!(b.iter().map(|b| b.len()).collect::<Vec<_>>(), [6, 6, 6, 5]);
        assert_eq!(b.concat(), v);
        assert_eq!(batch_count(9), 1);
        assert_eq!(batch_count(40), 8);
        assert_eq!(batch_count(200), 10);
        assert!(cost_interval(&v[..9], 0.95).is_none());
    }

    #[test]
    fn interval_matches_a_hand_computation_with_scipy() {
        // 10 rounds, 2 batches of 5. SciPy: e = trim_mean(x, 0.2);
        // m = [trim_mean(x[:5], 0.2), trim_mean(x[5:], 0.2)];
        // h = t.ppf(0.975, 1) * np.std(m, ddof=1) / sqrt(2)
        let x = [
            600.0, 610.0, 590.0, 605.0, 1800.0, 620.0, 615.0, 630.0, 598.0, 640.0,
        ];
        let s = cost_interval(&x, 0.95).unwrap();
        assert_eq!(s.batches, 2);
        assert!((s.estimate_ms - SCIPY_E).abs() < 1e-9, "{s:?}");
        // The drift factor on top: the winsorized costs are SciPy's
        // mstats.winsorize(x, limits=(0.2, 0.2)).
        let w = winsorized(&x, TRIM);
        assert_eq!(
            w,
            [
                600.0, 610.0, 600.0, 605.0, 630.0, 620.0, 615.0, 630.0, 600.0, 630.0
            ]
        );
        let factor = short_batch_factor(lag1_corrected(&w), 5);
        assert!(factor >= 1.0);
        assert!((s.half_width_ms() / factor - SCIPY_H).abs() < 1e-6, "{s:?}");
    }
    const SCIPY_E: f64 = 613.3333333333334;
    const SCIPY_H: f64 = 105.8850394681222;

    /// How often the interval holds `truth(noise)` over `trials` simulated cells of
    /// `rounds` rounds each, with `b(rounds)` batches.
    fn coverage(noise: &Noise, truth: f64, rounds: usize, seed: u64) -> f64 {
        coverage_with(noise, truth, rounds, seed, true)
    }

    fn coverage_with(noise: &Noise, truth: f64, rounds: usize, seed: u64, drift: bool) -> f64 {
        coverage_in(noise, truth, rounds, batch_count(rounds), seed, drift)
    }

    /// [`coverage_with`] with `b` batches.
    fn coverage_in(
        noise: &Noise,
        truth: f64,
        rounds: usize,
        b: usize,
        seed: u64,
        drift: bool,
    ) -> f64 {
        let mut state = seed;
        let trials = 4000;
        let mut covered = 0;
        for _ in 0..trials {
            let costs = simulate_cell(noise, rounds, &mut state).costs();
            let s = batch_interval_with(&costs, 0.95, b, drift).unwrap();
            covered += usize::from(s.low_ms <= truth && truth <= s.high_ms);
        }
        covered as f64 / trials as f64
    }

    /// The value the estimator converges to under `noise`: the trimmed mean of 50,000
    /// simulated rounds (bursts lift it about 2 ms above the undisturbed cost).
    fn long_run(noise: &Noise) -> f64 {
        let mut state = 99;
        let all: Vec<f64> = (0..500)
            .flat_map(|_| simulate_cell(noise, 100, &mut state).costs())
            .collect();
        trimmed_mean(&all, TRIM).unwrap()
    }

    /// The claim the report makes: the stated 95% interval holds the cell's cost in at
    /// least 95% of 4,000 simulated cells with this machine's kind of noise, at every
    /// size a run uses: the long-run cost under that noise always, the undisturbed cost
    /// up to 40 rounds (past that, the bursts' 2 ms lift is a fifth of the interval's
    /// half-width and it is held less often; printed). Without bursts or slow launches
    /// too. And the simulation has teeth: plain batch means (no drift factor) fall
    /// short under the same drift.
    #[test]
    fn covers_the_truth_under_this_machines_noise() {
        let vm = Noise::development_vm();
        let quiet = Noise {
            burst_start: 0.0,
            slow: 0.0,
            ..vm
        };
        let mut results = Vec::new();
        for (name, noise) in [("development VM", vm), ("drift only", quiet)] {
            let truth = long_run(&noise);
            for (rounds, seed) in [(10, 1), (20, 2), (40, 3), (100, 4)] {
                let c = coverage(&noise, truth, rounds, seed);
                let u = coverage(&noise, noise.cost_ms, rounds, seed);
                eprintln!(
                    "{name}, {rounds} rounds: covers the long-run cost ({truth:.1} ms) in {:.1}%, the undisturbed cost ({} ms) in {:.1}%",
                    100.0 * c,
                    noise.cost_ms,
                    100.0 * u
                );
                results.push((name, rounds, c, u));
            }
        }
        for (name, rounds, c, u) in results {
            assert!(c >= 0.95, "{name}, {rounds} rounds: coverage {c}");
            if rounds <= 40 {
                assert!(
                    u >= 0.95,
                    "{name}, {rounds} rounds: undisturbed coverage {u}"
                );
            }
        }
        let plain = coverage_with(&vm, long_run(&vm), 40, 5, false);
        eprintln!(
            "40 rounds: plain batch means (no drift factor) cover {:.1}%",
            100.0 * plain
        );
        assert!(
            plain < 0.945,
            "plain batch means should undercover under drift: {plain}"
        );
    }

    /// The limit of an interval from one run's rounds: under the quiet machine's spells
    /// ([`Noise::quiet_spells`], measured 2026-12-01) the cost moves between two levels
    /// 60 ms apart for 14 rounds at a time on average, longer than a batch, and a run of
    /// 100 rounds sees only about seven spells. No batch count or drift factor fitted
    /// to the run's own rounds makes up for spells it did not see (docs/statistics.md
    /// lists the ones tried), so the stated interval holds the long-run cost in fewer
    /// than 95% of cells: at 100 rounds in 80-90%, which is what docs/statistics.md
    /// states. Asserted both ways, so that a change to the interval that covers spells,
    /// or one that covers them less, shows here.
    #[test]
    fn the_quiet_machines_spells_are_covered_less_often() {
        let spells = Noise::quiet_spells();
        let truth = long_run(&spells);
        let mut results = Vec::new();
        for (rounds, seed) in [(10, 11), (20, 12), (40, 13), (100, 14)] {
            let c = coverage(&spells, truth, rounds, seed);
            let plain = coverage_with(&spells, truth, rounds, seed, false);
            eprintln!(
                "quiet spells, {rounds} rounds: covers the long-run cost ({truth:.1} ms) in {:.1}%, plain batch means {:.1}%",
                100.0 * c,
                100.0 * plain
            );
            results.push((rounds, c, plain));
        }
        // Fewer, longer batches: closer, and still short.
        let mut fewer = Vec::new();
        for (rounds, b) in [(100, 5), (100, 4), (200, 4)] {
            let c = coverage_in(&spells, truth, rounds, b, 20 + b as u64, true);
            eprintln!(
                "quiet spells, {rounds} rounds, {b} batches: covers the long-run cost in {:.1}%",
                100.0 * c
            );
            fewer.push(c);
        }
        assert!(fewer.iter().all(|c| *c < 0.95), "{fewer:?}");
        let (_, at_100, plain_100) = results[3];
        assert!((0.80..0.90).contains(&at_100), "{results:?}");
        assert!(plain_100 < at_100, "{results:?}");
        for (rounds, c, _) in &results {
            assert!(*c < 0.95, "quiet spells, {rounds} rounds: coverage {c}");
        }
    }

    /// Why at most 10 batches (issue 24, item 2: could more batches narrow the interval
    /// at 100 rounds?). More batches give more degrees of freedom but shorter batches,
    /// whose trimmed means a slow launch or a burst moves more. Under this machine's
    /// noise, at 100 rounds, 10 batches give the narrowest mean half-width of 5, 10 and
    /// 20, and a median within 5% of the narrowest; all three cover.
    #[test]
    fn ten_batches_are_as_narrow_as_any_at_100_rounds() {
        let vm = Noise::development_vm();
        let truth = long_run(&vm);
        let trials = 2000;
        let mut rows = Vec::new();
        for b in [5, 10, 20] {
            let mut state = 7;
            let mut halves = Vec::new();
            let mut covered = 0;
            for _ in 0..trials {
                let costs = simulate_cell(&vm, 100, &mut state).costs();
                let s = batch_interval(&costs, 0.95, b).unwrap();
                covered += usize::from(s.low_ms <= truth && truth <= s.high_ms);
                halves.push(s.half_width_ms());
            }
            let mean = halves.iter().sum::<f64>() / trials as f64;
            halves.sort_by(f64::total_cmp);
            let median = halves[trials / 2];
            let coverage = covered as f64 / trials as f64;
            eprintln!(
                "100 rounds, {b} batches: covers {:.1}%, half-width mean {mean:.2} ms, median {median:.2} ms",
                100.0 * coverage
            );
            rows.push((b, coverage, mean, median));
        }
        assert_eq!(batch_count(100), 10);
        let ten = rows.iter().find(|r| r.0 == 10).unwrap();
        let best_median = rows.iter().map(|r| r.3).fold(f64::INFINITY, f64::min);
        for &(b, coverage, mean, _) in &rows {
            assert!(coverage >= 0.94, "{b} batches: {coverage}");
            assert!(
                ten.2 <= mean,
                "10 batches wider on average than {b}: {rows:?}"
            );
        }
        assert!(ten.3 <= 1.05 * best_median, "{rows:?}");
    }

    #[test]
    fn over_runs_the_runs_spread_counts_on_runs_minus_one_df() {
        // Three runs of 10 rounds, far apart, each steady within (alternating, r < 0:
        // no drift factor). SciPy: t = [trim_mean(r, 0.2) for r in runs];
        // mean(t), t.ppf(0.975, 2) * std(t, ddof=1) / sqrt(3).
        let base = [0.0, 4.0, 0.0, 4.0, 0.0, 6.0, 2.0, 6.0, 2.0, 6.0];
        let run = |level: f64| base.map(|v| level + v);
        let (a, b, c) = (run(600.0), run(640.0), run(700.0));
        let s = runs_interval(&[&a, &b, &c], 0.95).unwrap();
        assert_eq!((s.runs, s.batches, s.rounds), (3, 0, 30));
        assert!((s.estimate_ms - SCIPY_RUNS_E).abs() < 1e-9, "{s:?}");
        assert!((s.half_width_ms() - SCIPY_RUNS_H).abs() < 1e-6, "{s:?}");
        // Runs that agree are never held tighter than their own rounds say: the
        // within-run errors combined are the floor.
        let same = runs_interval(&[&a, &a, &a], 0.95).unwrap();
        let own = batch_error(&a, 2, true).unwrap();
        // Three runs' errors of 1 df each: 3 df (Welch-Satterthwaite).
        let floor = t_quantile(0.975, 3.0) * (3.0 * own.se * own.se).sqrt() / 3.0;
        assert!(same.half_width_ms() > 0.0);
        assert!((same.half_width_ms() - floor).abs() < 1e-9, "{same:?}");
    }
    const SCIPY_RUNS_E: f64 = 649.6666666666666;
    const SCIPY_RUNS_H: f64 = 125.0321895875155;

    #[test]
    fn one_run_or_a_short_run_gives_the_rounds_interval() {
        let x: Vec<f64> = (0..23).map(|i| 600.0 + f64::from(i % 7)).collect();
        assert_eq!(runs_interval(&[&x], 0.95), cost_interval(&x, 0.95));
        // A run of 9 rounds has no interval of its own: the rounds, one run after the
        // other, as before.
        let both = [&x[..], &x[..9]].concat();
        assert_eq!(
            runs_interval(&[&x, &x[..9]], 0.95),
            cost_interval(&both, 0.95)
        );
        assert_eq!(runs_interval(&[&x, &x[..9]], 0.95).unwrap().runs, 1);
        assert!(runs_interval(&[&x[..9]], 0.95).is_none());
        assert_eq!(runs_interval(&[&x, &x], 0.95).unwrap().runs, 2);
    }

    /// The trimmed mean of 50,000 rounds of one machine under `noise`, past its start:
    /// what the runs of a long campaign converge to.
    fn stationary_long_run(noise: &Noise) -> f64 {
        let mut state = 98;
        let mut m = Machine::new(noise, &mut state);
        m.skip(500, &mut state);
        trimmed_mean(&m.rounds(50_000, &mut state).costs(), TRIM).unwrap()
    }

    /// `runs` runs of `rounds` rounds each from one machine, `gap` rounds of other work
    /// between them, past the machine's start.
    fn label_runs(
        noise: &Noise,
        runs: usize,
        rounds: usize,
        gap: usize,
        state: &mut u64,
    ) -> Vec<Vec<f64>> {
        let mut m = Machine::new(noise, state);
        m.skip(200, state);
        (0..runs)
            .map(|_| {
                let r = m.rounds(rounds, state).costs();
                m.skip(gap, state);
                r
            })
            .collect()
    }

    /// Coverage of `truth` by the interval over `runs` runs ([`label_runs`], another
    /// run's worth of rounds between them) and its median half-width, ms; then the
    /// same for the batch-means interval of the same rounds one run after the other
    /// (what a label of several runs got before the interval over runs).
    fn runs_coverage(
        noise: &Noise,
        truth: f64,
        runs: usize,
        rounds: usize,
        seed: u64,
    ) -> [(f64, f64); 2] {
        runs_coverage_apart(noise, truth, runs, rounds, rounds, seed)
    }

    /// [`runs_coverage`] with `gap` rounds between the runs.
    fn runs_coverage_apart(
        noise: &Noise,
        truth: f64,
        runs: usize,
        rounds: usize,
        gap: usize,
        seed: u64,
    ) -> [(f64, f64); 2] {
        let mut state = seed;
        let trials = 4000;
        let mut covered = [0; 2];
        let mut halves = [Vec::with_capacity(trials), Vec::with_capacity(trials)];
        for _ in 0..trials {
            let r = label_runs(noise, runs, rounds, gap, &mut state);
            let over = runs_interval(&as_runs(&r), 0.95).unwrap();
            assert_eq!(over.runs, runs);
            let pooled = cost_interval(&r.concat(), 0.95).unwrap();
            for (k, s) in [over, pooled].iter().enumerate() {
                covered[k] += usize::from(s.low_ms <= truth && truth <= s.high_ms);
                halves[k].push(s.half_width_ms());
            }
        }
        [0, 1].map(|k| {
            halves[k].sort_by(f64::total_cmp);
            (covered[k] as f64 / trials as f64, halves[k][trials / 2])
        })
    }

    /// What a label's several runs buy (issue 24, item 1; docs/statistics.md): the
    /// interval over runs, each run's rounds drawn from one machine with a run of the
    /// other label's rounds between them (the cover-letter workflow's A B A B). Under
    /// the development VM's noise it holds the long-run cost in at least 95% of 4,000
    /// labels at 2, 3 and 5 runs of 10, 20 and 40 rounds (99.4-99.9%: the floor of
    /// the rounds' own interval makes it wide there). Under the quiet machine's spells,
    /// which one run's rounds cover in 66-84% (above), it holds it in at least 95% from
    /// 3 runs of 20 rounds; 2 runs, or runs of 10 rounds, come to 94-96% (asserted at
    /// least 93.5%, as measured, so that a change shows here).
    #[test]
    fn an_interval_over_runs_covers_the_spells_between_them() {
        let mut rows = Vec::new();
        for (name, noise) in [
            ("development VM", Noise::development_vm()),
            ("quiet spells", Noise::quiet_spells()),
        ] {
            let truth = stationary_long_run(&noise);
            for (runs, rounds) in [
                (2, 10),
                (2, 20),
                (3, 10),
                (3, 20),
                (3, 40),
                (5, 20),
                (5, 40),
            ] {
                let seed = 100 * runs as u64 + rounds as u64;
                let [(c, half), (pc, phalf)] = runs_coverage(&noise, truth, runs, rounds, seed);
                eprintln!(
                    "{name}, {runs} runs of {rounds} rounds: covers the long-run cost ({truth:.1} ms) in {:.1}%, median half-width {half:.1} ms; their rounds' batch means {:.1}%, {phalf:.1} ms",
                    100.0 * c,
                    100.0 * pc
                );
                rows.push((name, runs, rounds, c));
            }
        }
        for &(name, runs, rounds, c) in &rows {
            if name == "development VM" || (runs >= 3 && rounds >= 20) {
                assert!(c >= 0.95, "{name}, {runs} x {rounds}: {c}");
            } else {
                assert!(c >= 0.935, "{name}, {runs} x {rounds}: {c}");
            }
        }
    }

    /// Why `run --kernel A --kernel B --runs 3` boots the kernels in turn (A B A B A B)
    /// rather than each kernel's runs back to back: under the quiet machine's spells, 3
    /// runs of 20 rounds with nothing between them cover the long-run cost less often
    /// than the same runs with another label's run between each (92.2% and 95.7% of
    /// 4,000 labels): runs back to back see fewer spells. Under the
    /// development VM's noise both cover.
    #[test]
    fn runs_in_turn_see_more_spells_than_runs_back_to_back() {
        let spells = Noise::quiet_spells();
        let truth = stationary_long_run(&spells);
        let [(apart, _), _] = runs_coverage_apart(&spells, truth, 3, 20, 20, 320);
        let [(back_to_back, _), _] = runs_coverage_apart(&spells, truth, 3, 20, 0, 320);
        eprintln!(
            "quiet spells, 3 runs of 20 rounds: in turn {:.1}%, back to back {:.1}%",
            100.0 * apart,
            100.0 * back_to_back
        );
        assert!(apart >= 0.95, "{apart}");
        assert!(back_to_back < apart, "{back_to_back} {apart}");
        let vm = Noise::development_vm();
        let truth = stationary_long_run(&vm);
        let [(vm_back_to_back, _), _] = runs_coverage_apart(&vm, truth, 3, 20, 0, 321);
        assert!(vm_back_to_back >= 0.95, "{vm_back_to_back}");
    }

    /// Why the interval over runs is never narrower than the runs' own rounds say: the
    /// plain `t(R - 1) * sd(run trimmed means) / sqrt(R)`, without that floor, holds the
    /// long-run cost in about 95% of labels under the development VM's noise (where the
    /// floor makes it 99%), but under the quiet machine's spells in well under 95%,
    /// because runs that sat in the same spell agree by chance (measured at 3 x 20 and
    /// 5 x 40, 4,000 labels each: 89.2% and 93.2% without the floor, 95.5% and 95.9%
    /// with it; development VM 3 x 20: 95.2% without, 99.8% with).
    #[test]
    fn the_floor_is_what_holds_the_spells() {
        let trials = 4000;
        let mut rows = Vec::new();
        for (name, noise, runs, rounds) in [
            ("quiet spells", Noise::quiet_spells(), 3, 20),
            ("quiet spells", Noise::quiet_spells(), 5, 40),
            ("development VM", Noise::development_vm(), 3, 20),
        ] {
            let truth = stationary_long_run(&noise);
            let mut state = 500 + rounds as u64;
            let (mut floor, mut plain) = (0, 0);
            for _ in 0..trials {
                let r = label_runs(&noise, runs, rounds, rounds, &mut state);
                let s = runs_interval(&as_runs(&r), 0.95).unwrap();
                floor += usize::from(s.low_ms <= truth && truth <= s.high_ms);
                let t: Vec<f64> = r.iter().map(|x| trimmed_mean(x, TRIM).unwrap()).collect();
                let n = runs as f64;
                let mean = t.iter().sum::<f64>() / n;
                let half = t_quantile(0.975, n - 1.0) * sd(&t) / n.sqrt();
                plain += usize::from((truth - mean).abs() <= half);
            }
            let (floor, plain) = (floor as f64 / trials as f64, plain as f64 / trials as f64);
            eprintln!(
                "{name}, {runs} runs of {rounds} rounds: with the floor {:.1}%, without {:.1}%",
                100.0 * floor,
                100.0 * plain
            );
            rows.push((name, floor, plain));
        }
        for (name, floor, plain) in rows {
            assert!(floor >= 0.95, "{name}: {floor}");
            match name {
                "quiet spells" => assert!(plain < 0.945, "{name}: without the floor {plain}"),
                _ => assert!(plain >= 0.935 && plain < floor, "{name}: {plain} {floor}"),
            }
        }
    }

    #[test]
    fn an_adaptive_side_adds_the_sides_intervals_over_its_looks() {
        let x: Vec<f64> = (0..20).map(|i| 400.0 + f64::from(i % 7)).collect();
        let y: Vec<f64> = (0..12).map(|i| 300.0 + f64::from(i % 5)).collect();
        let (a, b) = (
            batch_error(&x, batch_count(20), true).unwrap(),
            batch_error(&y, batch_count(12), true).unwrap(),
        );
        // x stopped at the 3rd of 5 looks; y ran a fixed count. At 99%: each side at
        // 99.5%, x's at 1 - 0.005 / 5 at its looks.
        let d = difference_interval_looks(&[&x], &[&y], [Some(5), None], 0.99).unwrap();
        let want = t_quantile(1.0 - 0.005 / 10.0, a.df) * a.se
            + t_quantile(1.0 - 0.005 / 2.0, b.df) * b.se;
        assert!((d.estimate_ms - (a.estimate - b.estimate)).abs() < 1e-9);
        assert!(((d.high_ms - d.low_ms) / 2.0 - want).abs() < 1e-9, "{d:?}");
        // Wider than Welch's of the same sides; without looks, Welch's.
        let welch = difference_interval(&[&x], &[&y], 0.99).unwrap();
        assert!(d.low_ms < welch.low_ms && welch.high_ms < d.high_ms);
        assert_eq!(
            difference_interval_looks(&[&x], &[&y], [None, None], 0.99),
            Some(welch)
        );
        // A side of several runs is over its runs: its looks do not count.
        assert_eq!(
            difference_interval_looks(&[&x, &x], &[&y], [Some(5), None], 0.99),
            difference_interval(&[&x, &x], &[&y], 0.99)
        );
    }

    #[test]
    fn difference_is_welchs_on_the_batch_errors() {
        // Two sides of 10 rounds without drift in their order (alternating, r < 0:
        // factor 1). SciPy: the batch trimmed means ma, mb as in the test above; then
        // va = var(ma, ddof=1) / 2 etc.; df = (va + vb)**2 / (va**2 + vb**2) (1 df each);
        // half = t.ppf(0.975, df) * sqrt(va + vb).
        let x = [
            600.0, 640.0, 600.0, 640.0, 600.0, 660.0, 620.0, 660.0, 620.0, 660.0,
        ];
        let y = [
            300.0, 310.0, 300.0, 310.0, 300.0, 305.0, 315.0, 305.0, 315.0, 305.0,
        ];
        let d = difference_interval(&[&x], &[&y], 0.95).unwrap();
        assert!((d.estimate_ms - SCIPY_DIFF).abs() < 1e-9, "{d:?}");
        assert!(
            ((d.high_ms - d.low_ms) / 2.0 - SCIPY_DIFF_HALF).abs() < 1e-6,
            "{d:?}"
        );
        assert!(d.significant());
        assert!(difference_interval(&[&x[..9]], &[&y], 0.95).is_none());
    }
    const SCIPY_DIFF: f64 = 324.1666666666667;
    const SCIPY_DIFF_HALF: f64 = 193.54104445342054;

    #[test]
    fn the_drift_factor_matches_the_ar1_variances() {
        // rho 0: nothing to make up; rho 0.45, batches of 5: sqrt(2.636 / 2.052).
        assert_eq!(short_batch_factor(0.0, 5), 1.0);
        assert!(
            (short_batch_factor(0.45, 5) - (2.636_363_636 / 2.052_302_5_f64).sqrt()).abs() < 1e-6
        );
        // Longer batches need less.
        assert!(short_batch_factor(0.45, 20) < short_batch_factor(0.45, 5));
    }
}
