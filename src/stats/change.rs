//! The change of one cell between two labels, as a cover letter cites it, and the
//! interval of one label's median cost. Both come from a cell's own rounds alone, so
//! that no other cell's launches move them.
//!
//! The change is the ratio of the label's per-round costs to the baseline's. Its
//! estimate is the Hodges-Lehmann shift of the log costs, which is the median of the
//! logs of all ratios of one round of the label to one round of the baseline. Its
//! interval is the Mann-Whitney interval of that shift, inverted from the rank-sum test
//! (Hollander & Wolfe, "Nonparametric Statistical Methods", 2nd ed., 1999, 4.3; R's
//! `wilcox.test(log(x), log(y), conf.int = TRUE)`). It assumes no distribution, and it
//! is turned back with `exp`, so a change never passes -100%.
//!
//! The rank-sum test takes the rounds as independent, and the rounds of one run drift
//! together. So each side counts as the rounds it is worth: `n (1 - r) / (1 + r)` for
//! the lag-1 autocorrelation `r` of the cell's costs' ranks, from both sides' rounds
//! and taken one standard error high ([`drift`]), the effective size of an AR(1)
//! series (Bayley & Hammersley, JRSS B 8, 1946). The interval's order statistics
//! are those of the rank-sum test at the effective sizes, as a share of the
//! differences. Without drift they are R's. With drift they move outwards, but never
//! past the smallest and the largest difference, so no interval is wider than the
//! rounds themselves.
//!
//! A label of several runs of a cell, each of 10 rounds or more, takes its runs as the
//! replicates, as Kalibera & Jones do ("Rigorous benchmarking in reasonable time",
//! ISMM 2013). Then the change is the ratio of the geometric means of the two labels'
//! run medians, with Welch's interval on the logs, held within the rounds as above.
//! docs/statistics.md argues the choices and shows them on this machine's runs.

use statrs::distribution::{ContinuousCDF, Normal};

use crate::stats::effective::{drift, effective_rounds};
use crate::stats::interval::{MIN_ROUNDS, t_quantile};
use crate::stats::{Differences, Shift, WilcoxonRankSum};

/// Fewest runs a side for a change over runs.
const MIN_RUNS: usize = 2;

/// Above this effective size on either side, the rank-sum test's quantile comes from
/// its normal approximation, because the exact distribution's table grows with the
/// square of both sizes.
const EXACT_BELOW: usize = 50;

/// How a change was made: from the rounds, or over the runs.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Basis {
    /// From the rounds of each side, one run after the other, each side counted as the
    /// rounds its drift leaves it ([`effective_rounds`]).
    Rounds {
        /// The label's rounds, then the baseline's.
        rounds: [usize; 2],
        /// What they count as.
        effective: [usize; 2],
    },
    /// Over the runs of each side ([`MIN_RUNS`] or more a side, each of
    /// [`MIN_ROUNDS`] rounds or more).
    Runs {
        /// The label's runs, then the baseline's.
        runs: [usize; 2],
        /// The Welch-Satterthwaite degrees of freedom of the ratio's interval.
        df: f64,
    },
}

/// The change of a cell, `x` against `y`.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct CellChange {
    /// The shift in ms, `x - y`, and its interval.
    pub ms: Shift,
    /// The ratio `x / y` and its interval; absent where a cost is 0 or less, because
    /// it has no logarithm.
    pub ratio: Option<Shift>,
    pub basis: Basis,
    /// How far the machine moved between the two sides' runs, on the log scale, as
    /// their launches without pretouch show it ([`machine_shift`]); what widened each
    /// end of the interval. 0 over runs or without those launches.
    pub machine_shift: f64,
}

impl CellChange {
    /// The ratio's interval leaves out 1, or without a ratio the shift's leaves out 0.
    pub fn marked(&self) -> bool {
        match self.ratio {
            Some(r) => r.low > 1.0 || r.high < 1.0,
            None => self.ms.significant(),
        }
    }
}

/// The change of `x` against `y` at `level`, each side given as its runs' per-round
/// costs in round order (module doc). `None` unless each side has [`MIN_ROUNDS`]
/// rounds or more.
pub fn change(x: &[&[f64]], y: &[&[f64]], level: f64) -> Option<CellChange> {
    change_with(x, y, None, level)
}

/// [`change`] with the times of each side's launches without pretouch, `control`, the
/// label's then the baseline's. From the rounds, the interval is then widened at each
/// end by how far the machine moved between the two sides' runs, as those launches
/// show it ([`machine_shift`]). Over runs the runs' own spread measures that, so the
/// control is not read.
pub fn change_with(
    x: &[&[f64]],
    y: &[&[f64]],
    control: Option<[&[f64]; 2]>,
    level: f64,
) -> Option<CellChange> {
    let (xs, ys) = (x.concat(), y.concat());
    if xs.len() < MIN_ROUNDS || ys.len() < MIN_ROUNDS {
        return None;
    }
    let positive = xs.iter().chain(&ys).all(|&c| c > 0.0);
    if over_runs(x) && over_runs(y) {
        return over_runs_change(x, y, &xs, &ys, positive, level);
    }
    // The machine's drift, from both sides' rounds of this cell.
    let rho = drift(&x.iter().chain(y).copied().collect::<Vec<_>>());
    let effective = [
        effective_rounds(xs.len(), rho),
        effective_rounds(ys.len(), rho),
    ];
    let moved = control.map_or(0.0, |[cx, cy]| machine_shift(cx, cy));
    // In ms the machine's shift moves the baseline's cost by the same share.
    let by = crate::stats::median(&ys).map_or(0.0, f64::abs) * moved.exp_m1();
    let ms = shift_at(&xs, &ys, effective, level, by);
    let ratio = positive.then(|| {
        let (lx, ly) = (logs(&xs), logs(&ys));
        exp_shift(shift_at(&lx, &ly, effective, level, moved))
    });
    Some(CellChange {
        ms,
        ratio,
        basis: Basis::Rounds {
            rounds: [xs.len(), ys.len()],
            effective,
        },
        machine_shift: moved,
    })
}

/// How far the machine moved between two runs, from the times to `main()` of their
/// launches without pretouch, `x` and `y`: the Hodges-Lehmann shift of their logs, as
/// a size. Those launches take the same path through the kernel on both sides, except
/// for the few faults a JVM takes without pretouch, so a kernel change moves them
/// little. They are the comparison's control, as a negative control outcome is
/// in an observational study. Where they moved, the machine did, and the cost may
/// have moved with it for that reason alone. One run's rounds cannot see such a shift,
/// so the interval of the change is widened by it. On this machine, 40 A/A pairs made
/// while it was quiet carried a mark in 6 pairs without this widening
/// (bench/results/2026-12-07-pairs.md). 0 when a side has no launch.
pub fn machine_shift(x: &[f64], y: &[f64]) -> f64 {
    if x.is_empty() || y.is_empty() || x.iter().chain(y).any(|&t| t <= 0.0) {
        return 0.0;
    }
    let d = Differences::new(&logs(x), &logs(y));
    d.median().abs()
}

fn over_runs(runs: &[&[f64]]) -> bool {
    runs.len() >= MIN_RUNS && runs.iter().all(|r| r.len() >= MIN_ROUNDS)
}

fn logs(values: &[f64]) -> Vec<f64> {
    values.iter().map(|v| v.ln()).collect()
}

fn exp_shift(s: Shift) -> Shift {
    Shift {
        estimate: s.estimate.exp(),
        low: s.low.exp(),
        high: s.high.exp(),
        confidence: s.confidence,
    }
}

/// The Hodges-Lehmann shift of `x` over `y` with the Mann-Whitney interval at `level`
/// for samples of the `effective` sizes: the differences below its lower end are the
/// share of all differences that the rank-sum test at those sizes leaves below, and as
/// many lie above its upper end. Each end then moves out by `widen`, but never past
/// the smallest or the largest difference, so the interval stays within what the
/// rounds themselves span.
fn shift_at(x: &[f64], y: &[f64], effective: [usize; 2], level: f64, widen: f64) -> Shift {
    let d = Differences::new(x, y);
    let total = d.len();
    let (below, of) = tail_count(effective[0], effective[1], level);
    // In integers, so that at the full sizes the rank is R's exactly.
    let k = ((below as u128 * total as u128 / of as u128) as usize).min((total - 1) / 2);
    Shift {
        estimate: d.median(),
        low: (d.kth(k) - widen).max(d.kth(0)),
        high: (d.kth(total - 1 - k) + widen).min(d.kth(total - 1)),
        confidence: level,
    }
}

/// How many of the `m n` differences of two samples of `m` and `n` values lie below
/// the lower end of the rank-sum test's interval at `level`, and `m n`. Exact under
/// [`EXACT_BELOW`] values a side (R's `qwilcox`, and R's rule that the lower end is at
/// least the smallest difference), else from the normal approximation with the
/// continuity correction.
fn tail_count(m: usize, n: usize, level: f64) -> (usize, usize) {
    let alpha = 1.0 - level;
    let of = m * n;
    if m < EXACT_BELOW && n < EXACT_BELOW {
        let q = WilcoxonRankSum::new(m, n).quantile(alpha / 2.0).max(1);
        return (q - 1, of);
    }
    let z = Normal::standard().inverse_cdf(1.0 - alpha / 2.0);
    let (mf, nf) = (m as f64, n as f64);
    let below = mf * nf / 2.0 - z * (mf * nf * (mf + nf + 1.0) / 12.0).sqrt() - 0.5;
    (below.floor().max(0.0) as usize, of)
}

/// [`change`] over runs: each run's median, the ratio of the two sides' geometric
/// means of them with Welch's interval on the logs, and the shift in ms as the
/// difference of the means of the run medians with Welch's interval. Each interval is
/// held within the smallest and the largest difference of two rounds.
fn over_runs_change(
    x: &[&[f64]],
    y: &[&[f64]],
    xs: &[f64],
    ys: &[f64],
    positive: bool,
    level: f64,
) -> Option<CellChange> {
    let medians = |runs: &[&[f64]]| -> Option<Vec<f64>> {
        runs.iter().map(|r| crate::stats::median(r)).collect()
    };
    let (mx, my) = (medians(x)?, medians(y)?);
    let bounds = |a: &[f64], b: &[f64]| {
        let (amin, amax) = min_max(a);
        let (bmin, bmax) = min_max(b);
        (amin - bmax, amax - bmin)
    };
    let (ms, df) = welch(&mx, &my, level, bounds(xs, ys));
    let ratio = positive.then(|| {
        let (lx, ly) = (logs(&mx), logs(&my));
        exp_shift(welch(&lx, &ly, level, bounds(&logs(xs), &logs(ys))).0)
    });
    Some(CellChange {
        ms,
        ratio,
        basis: Basis::Runs {
            runs: [x.len(), y.len()],
            df,
        },
        machine_shift: 0.0,
    })
}

fn min_max(values: &[f64]) -> (f64, f64) {
    values
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &v| {
            (lo.min(v), hi.max(v))
        })
}

/// Welch's interval of `mean(a) - mean(b)` at `level` (Welch, Biometrika 34, 1947),
/// held within `bounds`, and its degrees of freedom. Where neither side varies, the
/// interval is the difference itself.
fn welch(a: &[f64], b: &[f64], level: f64, bounds: (f64, f64)) -> (Shift, f64) {
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let var_of_mean = |v: &[f64]| crate::stats::interval::sd_of(v).powi(2) / v.len() as f64;
    let (va, vb) = (var_of_mean(a), var_of_mean(b));
    let estimate = mean(a) - mean(b);
    let se = (va + vb).sqrt();
    let df = if se > 0.0 {
        (va + vb).powi(2) / (va * va / (a.len() as f64 - 1.0) + vb * vb / (b.len() as f64 - 1.0))
    } else {
        (a.len() + b.len() - 2) as f64
    };
    let half = t_quantile(1.0 - (1.0 - level) / 2.0, df) * se;
    let shift = Shift {
        estimate,
        low: (estimate - half).max(bounds.0),
        high: (estimate + half).min(bounds.1),
        confidence: level,
    };
    (shift, df)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::hodges_lehmann;
    use crate::stats::noise::{Machine, Noise, flat, uniform};

    /// At the full sizes the ends are R's: `wilcox.test(log(x), log(y), conf.int = TRUE,
    /// conf.level = 0.975)`, which `hodges_lehmann` reproduces and its own tests check
    /// against R. The change's own interval, which counts the drift, is never narrower.
    #[test]
    fn at_full_sizes_the_interval_is_the_rank_sum_tests() {
        let x: Vec<f64> = (0..10)
            .map(|i| 200.0 + if i % 2 == 0 { 3.0 } else { -3.0 } * f64::from(i + 1))
            .collect();
        let y: Vec<f64> = (0..12)
            .map(|i| 180.1 + if i % 2 == 0 { 2.5 } else { -2.5 } * f64::from(i + 1))
            .collect();
        let (lx, ly) = (logs(&x), logs(&y));
        let full = shift_at(&lx, &ly, [10, 12], 0.975, 0.0);
        let r = hodges_lehmann(&lx, &ly, 0.975).unwrap();
        assert!((full.estimate - r.estimate).abs() < 1e-12);
        assert_eq!((full.low, full.high), (r.low, r.high), "{full:?} {r:?}");
        let ms = hodges_lehmann(&x, &y, 0.975).unwrap();
        assert_eq!(shift_at(&x, &y, [10, 12], 0.975, 0.0).low, ms.low);
        let c = change(&[&x], &[&y], 0.975).unwrap();
        let ratio = c.ratio.unwrap();
        assert!((ratio.estimate.ln() - r.estimate).abs() < 1e-12);
        assert!(
            ratio.low.ln() <= r.low && ratio.high.ln() >= r.high,
            "{ratio:?} {r:?}"
        );
        let Basis::Rounds { rounds, effective } = c.basis else {
            panic!("{c:?}")
        };
        assert_eq!(rounds, [10, 12]);
        assert!(effective[0] <= 10 && effective[1] <= 12, "{effective:?}");
    }

    #[test]
    fn rounds_that_do_not_overlap_are_marked_whatever_their_drift() {
        // Each side climbs, so it counts as one round, and still every round of one
        // lies below every round of the other.
        let base: Vec<f64> = (0..10).map(|i| 211.0 + 7.0 * f64::from(i)).collect();
        let patch: Vec<f64> = (0..10).map(|i| 53.0 + 7.0 * f64::from(i)).collect();
        let c = change(&[&patch], &[&base], 0.975).unwrap();
        let r = c.ratio.unwrap();
        assert!(c.marked() && r.high < 1.0, "{c:?}");
        assert!(r.low > 0.0);
        let up = change(&[&base], &[&patch], 0.975).unwrap();
        assert!(up.marked() && up.ratio.unwrap().low > 1.0, "{up:?}");
    }

    /// Whatever the rounds, the change lies inside its interval, the interval within
    /// the extreme ratios of two rounds, and above -100%.
    #[test]
    fn the_change_sits_in_its_interval_and_the_interval_in_the_rounds() {
        let mut s = 7u64;
        for case in 0..300 {
            let n = 10 + case % 25;
            let m = 10 + (case * 7) % 31;
            let x: Vec<f64> = (0..n)
                .map(|_| 1.0 + 400.0 * uniform(&mut s).powi(3))
                .collect();
            let y: Vec<f64> = (0..m).map(|_| 1.0 + 300.0 * uniform(&mut s)).collect();
            let c = change(&[&x], &[&y], 0.975).unwrap();
            let r = c.ratio.unwrap();
            assert!(r.low <= r.estimate && r.estimate <= r.high, "{c:?}");
            let (xlo, xhi) = min_max(&x);
            let (ylo, yhi) = min_max(&y);
            assert!(
                r.low >= xlo / yhi - 1e-12 && r.high <= xhi / ylo + 1e-12,
                "{c:?}"
            );
            assert!(c.ms.low <= c.ms.estimate && c.ms.estimate <= c.ms.high);
        }
    }

    #[test]
    fn a_machine_that_moved_between_the_runs_widens_the_interval_by_as_much() {
        // Rounds far enough apart that the widened ends stay inside their ratios.
        let x: Vec<f64> = (0..30)
            .map(|i| 150.0 + 2.0 * f64::from((i * 7) % 17))
            .collect();
        let y: Vec<f64> = (0..30)
            .map(|i| 100.0 + 1.5 * f64::from((i * 5) % 19))
            .collect();
        let same = [50.0; 30];
        let slower: Vec<f64> = same.iter().map(|t| t * 1.02).collect();
        let plain = change(&[&x], &[&y], 0.975).unwrap();
        let still = change_with(&[&x], &[&y], Some([&same, &same]), 0.975).unwrap();
        assert_eq!(plain.ratio, still.ratio, "a machine that did not move");
        let moved = change_with(&[&x], &[&y], Some([&slower, &same]), 0.975).unwrap();
        assert!((moved.machine_shift - 1.02_f64.ln()).abs() < 1e-12);
        let (p, m) = (plain.ratio.unwrap(), moved.ratio.unwrap());
        assert!((m.low - p.low / 1.02).abs() < 1e-9, "{p:?} {m:?}");
        assert!((m.high - p.high * 1.02).abs() < 1e-9, "{p:?} {m:?}");
        assert_eq!(m.estimate, p.estimate);
        assert!(moved.ms.low < plain.ms.low && moved.ms.high > plain.ms.high);
        // A shift as large as the rounds' spread is held at their extreme ratios.
        let far: Vec<f64> = same.iter().map(|t| t * 3.0).collect();
        let held = change_with(&[&x], &[&y], Some([&far, &same]), 0.975).unwrap();
        let r = held.ratio.unwrap();
        let (xlo, xhi) = min_max(&x);
        let (ylo, yhi) = min_max(&y);
        assert!(
            (r.low - xlo / yhi).abs() < 1e-9 && (r.high - xhi / ylo).abs() < 1e-9,
            "{r:?}"
        );
        assert!(
            p.low > xlo / yhi && p.high < xhi / ylo,
            "the plain interval inside: {p:?}"
        );
    }

    #[test]
    fn a_cost_of_zero_or_less_keeps_the_shift_but_gives_no_ratio() {
        let x = flat(100.0, 10, 3);
        let mut y = flat(50.0, 10, 4);
        y[3] = -2.0;
        let c = change(&[&x], &[&y], 0.975).unwrap();
        assert_eq!(c.ratio, None);
        assert!(c.ms.low > 0.0 && c.marked(), "{c:?}");
        assert_eq!(change(&[&x[..9]], &[&y], 0.975), None);
    }

    #[test]
    fn over_runs_the_runs_are_the_replicates() {
        let runs_x = [flat(110.0, 10, 5), flat(111.0, 10, 6), flat(112.0, 10, 7)];
        let runs_y = [flat(100.0, 10, 8), flat(99.0, 10, 9), flat(101.0, 10, 10)];
        let x: Vec<&[f64]> = runs_x.iter().map(Vec::as_slice).collect();
        let y: Vec<&[f64]> = runs_y.iter().map(Vec::as_slice).collect();
        let c = change(&x, &y, 0.95).unwrap();
        let Basis::Runs { runs, df } = c.basis else {
            panic!("{c:?}")
        };
        assert_eq!(runs, [3, 3]);
        assert!(df > 1.0);
        let r = c.ratio.unwrap();
        // The geometric means of the run medians.
        let gm = |v: &[Vec<f64>]| {
            (v.iter()
                .map(|r| crate::stats::median(r).unwrap().ln())
                .sum::<f64>()
                / 3.0)
                .exp()
        };
        assert!((r.estimate - gm(&runs_x) / gm(&runs_y)).abs() < 1e-12);
        assert!(r.low <= r.estimate && r.estimate <= r.high);
        // A run of 9 rounds takes the label back to its rounds.
        let short = [x[0], x[1], &runs_x[2][..9]];
        assert!(matches!(
            change(&short, &y, 0.95).unwrap().basis,
            Basis::Rounds { .. }
        ));
    }

    /// Under the development VM's simulated noise, two labels with the same cost carry
    /// a mark in at most 5% of pairs at 97.5% a cell (two cells), and a label's median
    /// interval holds the long-run median in at least 95% of runs.
    #[test]
    fn the_change_holds_its_level_under_the_simulated_noise() {
        let noise = Noise::development_vm();
        let mut s = 17u64;
        let (mut marked, mut held, pairs) = (0usize, 0usize, 2000usize);
        // The long-run median of a round's cost under this noise.
        let truth = {
            let mut long = Machine::new(&noise, &mut s);
            let mut all = long.rounds(40_000, &mut s).costs();
            all.sort_by(f64::total_cmp);
            all[all.len() / 2]
        };
        for _ in 0..pairs {
            let mut machine = Machine::new(&noise, &mut s);
            let a = machine.rounds(10, &mut s).costs();
            machine.skip(30, &mut s);
            let b = machine.rounds(10, &mut s).costs();
            if change(&[&a], &[&b], 0.975).unwrap().marked() {
                marked += 1;
            }
            let (_, low, high, _) = crate::stats::interval::median_interval(&a, 0.95).unwrap();
            if low <= truth && truth <= high {
                held += 1;
            }
        }
        let (marked, held) = (marked as f64 / pairs as f64, held as f64 / pairs as f64);
        eprintln!(
            "simulated A/A: marked {marked:.3} of cells at 97.5%, median interval held {held:.3}"
        );
        assert!(marked <= 0.025 + 0.01, "{marked}");
        assert!(held >= 0.95, "{held}");
    }
}
