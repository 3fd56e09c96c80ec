//! A cell's outliers in a few lines, so that a table with many stays readable: how many, the worst few and
//! what caused them, for the text report of a table with many; the JSON and CSV keep
//! every outlier ([`crate::analyze::disturbance::OutlierLaunch`]).

use std::collections::BTreeMap;

use serde::Serialize;

use crate::analyze::disturbance::OutlierLaunch;

/// How many of a cell's worst outliers the summary names.
pub const WORST: usize = 3;

/// One cell's outliers, condensed.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct OutlierSummary {
    /// Outliers in all, and of them with pretouch.
    pub count: usize,
    pub with_pretouch: usize,
    /// The worst [`WORST`]: farthest from their setting's median as a ratio (a launch
    /// three times its median before one twice it), then the slowest; in that order.
    pub worst: Vec<OutlierLaunch>,
    /// Each cause's kind with the number of outliers that had it, most first, then by
    /// name; `unexplained` and `no machine counters` among them.
    pub causes: Vec<(String, usize)>,
}

impl OutlierSummary {
    pub fn of(outliers: &[OutlierLaunch]) -> OutlierSummary {
        let ratio = |o: &OutlierLaunch| match o.median_ms {
            Some(m) if m > 0.0 => (o.ms / m).max(m / o.ms),
            _ => 1.0,
        };
        let mut worst: Vec<&OutlierLaunch> = outliers.iter().collect();
        worst.sort_by(|a, b| {
            ratio(b)
                .total_cmp(&ratio(a))
                .then_with(|| b.ms.total_cmp(&a.ms))
        });
        let mut kinds: BTreeMap<&str, usize> = BTreeMap::new();
        for o in outliers {
            for k in &o.kinds {
                *kinds.entry(k).or_default() += 1;
            }
        }
        let mut causes: Vec<(String, usize)> =
            kinds.into_iter().map(|(k, n)| (k.to_owned(), n)).collect();
        causes.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        OutlierSummary {
            count: outliers.len(),
            with_pretouch: outliers.iter().filter(|o| o.pretouch).count(),
            worst: worst.into_iter().take(WORST).cloned().collect(),
            causes,
        }
    }

    /// `14 outliers (9 with pretouch): other processes 8, unexplained 6`.
    pub fn headline(&self) -> String {
        let causes = self
            .causes
            .iter()
            .map(|(k, n)| format!("{k} {n}"))
            .collect::<Vec<_>>()
            .join(", ");
        format!(
            "{} outlier{} ({} with pretouch): {causes}",
            self.count,
            if self.count == 1 { "" } else { "s" },
            self.with_pretouch
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outlier(round: u32, pretouch: bool, ms: f64, median: f64, kinds: &[&str]) -> OutlierLaunch {
        OutlierLaunch {
            round,
            pretouch,
            ms,
            median_ms: Some(median),
            causes: kinds.iter().map(|k| format!("{k} (figures)")).collect(),
            kinds: kinds.iter().map(|k| k.to_string()).collect(),
        }
    }

    #[test]
    fn a_cell_with_many_outliers_is_summarized_by_count_worst_and_cause() {
        let mut all = Vec::new();
        for round in 0..40 {
            all.push(outlier(
                round,
                true,
                900.0 + f64::from(round),
                600.0,
                &["other processes"],
            ));
        }
        all.push(outlier(50, false, 80.0, 260.0, &["unexplained"]));
        all.push(outlier(
            51,
            true,
            2400.0,
            600.0,
            &["memory returned to host", "steal"],
        ));
        all.push(outlier(52, false, 790.0, 260.0, &["unexplained"]));
        let s = OutlierSummary::of(&all);
        assert_eq!((s.count, s.with_pretouch), (43, 41));
        // 2400/600 = 4, 80 vs 260 = 3.25, 790/260 = 3.04: the fast one is far too.
        let worst: Vec<u32> = s.worst.iter().map(|o| o.round).collect();
        assert_eq!(worst, [51, 50, 52]);
        assert_eq!(
            s.causes,
            [
                ("other processes".to_owned(), 40),
                ("unexplained".to_owned(), 2),
                ("memory returned to host".to_owned(), 1),
                ("steal".to_owned(), 1),
            ]
        );
        assert_eq!(
            s.headline(),
            "43 outliers (41 with pretouch): other processes 40, unexplained 2, memory returned to host 1, steal 1"
        );
        assert_eq!(OutlierSummary::of(&[]).count, 0);
    }
}
