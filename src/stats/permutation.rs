//! Simultaneous intervals for the differences of several means between two groups of
//! units, calibrated by permuting the units between the groups: the max-T method of
//! Westfall and Young (Resampling-Based Multiple Testing, 1993, section 2.6), with
//! Welch's standard error for each measure.
//!
//! Each unit is one profiled launch, and it carries one value per measure, such as its
//! share of each category and function. Under the hypothesis that both groups come from the same
//! settings, the units are exchangeable between the groups, so every split of them into
//! groups of the same sizes is as likely as the observed one. The largest studentized
//! difference over all measures is computed for every split, and its 95th percentile is
//! the critical value. A measure whose own studentized difference exceeds it is marked.
//! Because the maximum is taken over all measures at once, the chance that any measure
//! is marked when nothing changed is at most 5% for the whole list, however many
//! measures it has. The intervals are each difference plus or minus the critical value
//! times its standard error, so an interval leaves out 0 exactly when its measure is
//! marked.

/// Units each group needs. With 4 and 4 there are 70 splits, so the observed split can
/// stand out at 95% even though its mirror image is as extreme. With 3 and 3 there are
/// 20 splits, and the observed one and its mirror make 10% of them, so no difference
/// could ever be marked.
pub const MIN_PER_GROUP: usize = 4;

/// Splits are all enumerated up to this many; above it, this many are drawn at random
/// with a fixed seed, so that a report reads the same every time.
pub const MAX_SPLITS: usize = 20_000;

/// One measure's difference and its simultaneous interval.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Difference {
    /// The mean of the first group.
    pub mean_x: f64,
    /// The mean of the second group.
    pub mean_y: f64,
    /// `mean_y - mean_x`.
    pub estimate: f64,
    pub low: f64,
    pub high: f64,
    /// Whether the interval leaves out 0, so the difference exceeds what the units vary.
    pub marked: bool,
}

/// The differences of every measure, at one level for all of them together.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct MaxT {
    /// One per measure, in the order of the measures.
    pub differences: Vec<Difference>,
    /// The critical value of the largest studentized difference.
    pub critical: f64,
    /// Splits the critical value comes from.
    pub splits: usize,
    /// Whether every split was taken, rather than a random draw of them.
    pub exact: bool,
}

/// The means and Welch standard errors of every measure for one split, given as the
/// indexes of the first group's units in `units`.
fn studentized(
    units: &[&[f64]],
    first: &[bool],
    floors: &[f64],
    n_x: usize,
) -> Vec<(f64, f64, f64)> {
    let n_y = units.len() - n_x;
    (0..floors.len())
        .map(|j| {
            let (mut sx, mut sy) = (0.0, 0.0);
            for (u, &is_x) in units.iter().zip(first) {
                if is_x {
                    sx += u[j];
                } else {
                    sy += u[j];
                }
            }
            let (mx, my) = (sx / n_x as f64, sy / n_y as f64);
            let (mut vx, mut vy) = (0.0, 0.0);
            for (u, &is_x) in units.iter().zip(first) {
                if is_x {
                    vx += (u[j] - mx).powi(2);
                } else {
                    vy += (u[j] - my).powi(2);
                }
            }
            let vx = (vx / (n_x - 1) as f64).max(floors[j]);
            let vy = (vy / (n_y - 1) as f64).max(floors[j]);
            (mx, my, (vx / n_x as f64 + vy / n_y as f64).sqrt())
        })
        .collect()
}

fn max_t(stats: &[(f64, f64, f64)]) -> f64 {
    stats
        .iter()
        .map(|&(mx, my, se)| if se > 0.0 { (my - mx).abs() / se } else { 0.0 })
        .fold(0.0, f64::max)
}

/// The number of ways to choose `k` of `n`, or `None` past `limit`.
fn choose(n: usize, k: usize, limit: usize) -> Option<usize> {
    let mut c: usize = 1;
    for i in 0..k.min(n - k) {
        c = c.checked_mul(n - i)? / (i + 1);
        if c > limit {
            return None;
        }
    }
    Some(c)
}

/// Every split of `n` units into a first group of `k`, in lexicographic order.
fn all_splits(n: usize, k: usize) -> Vec<Vec<bool>> {
    let mut out = Vec::new();
    let mut idx: Vec<usize> = (0..k).collect();
    loop {
        let mut first = vec![false; n];
        for &i in &idx {
            first[i] = true;
        }
        out.push(first);
        let Some(pos) = (0..k).rev().find(|&p| idx[p] != p + n - k) else {
            return out;
        };
        idx[pos] += 1;
        for p in pos + 1..k {
            idx[p] = idx[p - 1] + 1;
        }
    }
}

/// SplitMix64, uniform below `bound`.
fn below(state: &mut u64, bound: usize) -> usize {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    ((z ^ (z >> 31)) % bound as u64) as usize
}

/// `count` random splits of `n` units into a first group of `k` (Fisher-Yates).
fn random_splits(n: usize, k: usize, count: usize) -> Vec<Vec<bool>> {
    let mut state = 0x5EED_u64;
    (0..count)
        .map(|_| {
            let mut order: Vec<usize> = (0..n).collect();
            for i in (1..n).rev() {
                order.swap(i, below(&mut state, i + 1));
            }
            let mut first = vec![false; n];
            for &i in &order[..k] {
                first[i] = true;
            }
            first
        })
        .collect()
}

/// The max-T simultaneous intervals of `y - x` for every measure, at `level` for all
/// measures together. `x` and `y` hold one row per unit, each row one value per
/// measure. `floors` holds, per measure, the least variance a unit's value can have (a
/// sample count's own noise), so that a measure that happens to be equal in every unit
/// of a group does not get a standard error of 0. `None` with fewer than
/// [`MIN_PER_GROUP`] units in either group, or rows of the wrong length.
pub fn max_t_intervals(x: &[Vec<f64>], y: &[Vec<f64>], floors: &[f64], level: f64) -> Option<MaxT> {
    let (n_x, n_y) = (x.len(), y.len());
    if n_x < MIN_PER_GROUP || n_y < MIN_PER_GROUP {
        return None;
    }
    if x.iter().chain(y).any(|row| row.len() != floors.len()) {
        return None;
    }
    let units: Vec<&[f64]> = x.iter().chain(y).map(Vec::as_slice).collect();
    let n = units.len();
    let observed: Vec<bool> = (0..n).map(|i| i < n_x).collect();
    let (mut splits, exact) = match choose(n, n_x, MAX_SPLITS) {
        Some(_) => (all_splits(n, n_x), true),
        None => {
            let mut s = random_splits(n, n_x, MAX_SPLITS - 1);
            s.push(observed.clone());
            (s, false)
        }
    };
    let mut maxima: Vec<f64> = splits
        .drain(..)
        .map(|first| max_t(&studentized(&units, &first, floors, n_x)))
        .collect();
    maxima.sort_by(f64::total_cmp);
    // At most (1 - level) of the splits exceed the critical value, so a measure is
    // marked by chance in at most that share of them.
    let rank = ((level * maxima.len() as f64).ceil() as usize).clamp(1, maxima.len());
    let critical = maxima[rank - 1];
    let differences = studentized(&units, &observed, floors, n_x)
        .into_iter()
        .map(|(mx, my, se)| {
            let estimate = my - mx;
            Difference {
                mean_x: mx,
                mean_y: my,
                estimate,
                low: estimate - critical * se,
                high: estimate + critical * se,
                marked: se > 0.0 && estimate.abs() / se > critical,
            }
        })
        .collect();
    Some(MaxT {
        differences,
        critical,
        splits: maxima.len(),
        exact,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::noise::{normal, uniform};

    #[test]
    fn splits_are_every_choice_once() {
        let s = all_splits(8, 4);
        assert_eq!(s.len(), 70);
        assert_eq!(choose(8, 4, MAX_SPLITS), Some(70));
        assert_eq!(choose(10, 5, MAX_SPLITS), Some(252));
        assert_eq!(choose(40, 20, MAX_SPLITS), None);
        let mut d = s.clone();
        d.sort();
        d.dedup();
        assert_eq!(d.len(), 70);
        assert!(s.iter().all(|f| f.iter().filter(|b| **b).count() == 4));
        let r = random_splits(40, 20, 100);
        assert!(r.iter().all(|f| f.iter().filter(|b| **b).count() == 20));
    }

    #[test]
    fn too_few_units_give_no_interval() {
        let three = vec![vec![1.0], vec![2.0], vec![3.0]];
        let four = vec![vec![1.0], vec![2.0], vec![3.0], vec![4.0]];
        assert!(max_t_intervals(&three, &four, &[0.0], 0.95).is_none());
        assert!(max_t_intervals(&four, &three, &[0.0], 0.95).is_none());
        assert!(max_t_intervals(&four, &four, &[0.0], 0.95).is_some());
        // A row of the wrong length is refused rather than read past.
        assert!(max_t_intervals(&four, &four, &[0.0, 0.0], 0.95).is_none());
    }

    #[test]
    fn a_clear_shift_is_marked_and_its_interval_holds_it() {
        // The second measure does not move; the first moves by 10 with a spread of 1.
        let x: Vec<Vec<f64>> = [1.0, 2.0, 3.0, 2.5, 1.5]
            .iter()
            .zip([5.0, 6.0, 5.5, 4.5, 5.2])
            .map(|(a, b)| vec![*a, b])
            .collect();
        let y: Vec<Vec<f64>> = [11.0, 12.5, 12.0, 13.0, 11.5]
            .iter()
            .zip([5.1, 4.9, 6.1, 5.4, 4.8])
            .map(|(a, b)| vec![*a, b])
            .collect();
        let m = max_t_intervals(&x, &y, &[0.0, 0.0], 0.95).unwrap();
        assert!(m.exact);
        assert_eq!(m.splits, 252);
        let moved = m.differences[0];
        assert!(moved.marked);
        assert!((moved.estimate - 10.0).abs() < 1e-9);
        assert!(moved.low > 0.0 && moved.low < 10.0 && moved.high > 10.0);
        let still = m.differences[1];
        assert!(!still.marked);
        assert!(still.low < 0.0 && still.high > 0.0);
    }

    #[test]
    fn a_measure_equal_everywhere_is_never_marked() {
        let x = vec![vec![0.0, 1.0]; 5];
        let mut y = vec![vec![0.0, 1.0]; 5];
        y[0][1] = 2.0;
        let m = max_t_intervals(&x, &y, &[0.0, 0.0], 0.95).unwrap();
        assert!(!m.differences[0].marked);
        assert_eq!(m.differences[0].estimate, 0.0);
    }

    /// Same settings on both sides (A/A): over many simulated comparisons of twelve
    /// correlated measures, the share that marks any measure stays near 5% or below,
    /// which twelve separate 95% tests would not do.
    #[test]
    fn with_no_change_any_mark_comes_at_most_about_one_time_in_twenty() {
        let mut state = 7;
        let trials = 300;
        let mut any = 0;
        for _ in 0..trials {
            let unit = |state: &mut u64| -> Vec<f64> {
                let common = normal(state);
                (0..12)
                    .map(|j| 10.0 + j as f64 + common + 2.0 * normal(state) * uniform(state))
                    .collect()
            };
            let x: Vec<Vec<f64>> = (0..5).map(|_| unit(&mut state)).collect();
            let y: Vec<Vec<f64>> = (0..5).map(|_| unit(&mut state)).collect();
            let m = max_t_intervals(&x, &y, &[0.0; 12], 0.95).unwrap();
            if m.differences.iter().any(|d| d.marked) {
                any += 1;
            }
        }
        // At 95% about 15 of 300; 30 would be twice the promise.
        assert!(
            any <= 30,
            "{any} of {trials} A/A comparisons marked a measure"
        );
    }

    #[test]
    fn many_units_are_drawn_and_the_draw_is_the_same_every_time() {
        let mut state = 3;
        let x: Vec<Vec<f64>> = (0..15).map(|_| vec![normal(&mut state)]).collect();
        let y: Vec<Vec<f64>> = (0..15).map(|_| vec![normal(&mut state) + 3.0]).collect();
        let a = max_t_intervals(&x, &y, &[0.0], 0.95).unwrap();
        let b = max_t_intervals(&x, &y, &[0.0], 0.95).unwrap();
        assert!(!a.exact);
        assert_eq!(a.splits, MAX_SPLITS);
        assert_eq!(a, b);
        assert!(a.differences[0].marked);
    }
}
