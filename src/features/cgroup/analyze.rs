//! Stage 5, memory cgroups: what a `memory:` cell's cgroups recorded, over its launches
//! that reached `main()`. The cell's explanation and its row in the report carry these
//! figures, and the CSV of cells gives them as flat columns.

use serde::Serialize;

use crate::features::cgroup::launch::CgroupRun;
use crate::stats::median;
use crate::store::LaunchRecord;

/// What a `memory:` cell's cgroups recorded, over its launches that reached `main()`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct CgroupFigures {
    /// The limit as the kernel held it, bytes; `None`: no limit.
    pub max_bytes: Option<u64>,
    /// Median peak charge without pretouch, bytes.
    pub peak_off_bytes: Option<f64>,
    /// Median peak charge with pretouch, bytes.
    pub peak_on_bytes: Option<f64>,
    /// Median times a launch with pretouch hit the limit (`memory.events` `max`, v1
    /// `memory.failcnt`).
    pub at_limit_on: Option<f64>,
    /// Median `memory.stat` `pgscan` of a launch with pretouch: pages the limit made
    /// the kernel scan for reclaim (v2 only).
    pub reclaim_scanned_on: Option<f64>,
}

/// The median of `values`, `None` without one.
fn med(values: impl Iterator<Item = f64>) -> Option<f64> {
    median(&values.collect::<Vec<_>>())
}

/// A `memory:` cell's cgroup figures, from its launches with pretouch, `on`, and those
/// without, `off`. `None` when its launches ran in no cgroup.
pub fn figures(on: &[&LaunchRecord], off: &[&LaunchRecord]) -> Option<CgroupFigures> {
    fn runs<'a>(ls: &[&'a LaunchRecord]) -> Vec<&'a CgroupRun> {
        ls.iter()
            .filter_map(|l| l.measured.features.cgroup.as_deref())
            .collect()
    }
    let (runs_on, runs_off) = (runs(on), runs(off));
    let first = runs_on.first().or(runs_off.first())?;
    let peak = |rs: &[&CgroupRun]| med(rs.iter().filter_map(|r| r.peak).map(|p| p.0 as f64));
    Some(CgroupFigures {
        max_bytes: first.max.map(|m| m.0),
        peak_off_bytes: peak(&runs_off),
        peak_on_bytes: peak(&runs_on),
        at_limit_on: med(runs_on
            .iter()
            .filter_map(|r| r.events.max)
            .map(|m| m as f64)),
        reclaim_scanned_on: med(runs_on
            .iter()
            .filter_map(|r| r.stat.get("pgscan"))
            .map(|&p| p as f64)),
    })
}

/// The cgroup figures as flat columns of the CSV of cells (a CSV row holds no nested
/// object); all empty for a cell without cgroups.
#[derive(Debug, Clone, Default, Serialize)]
pub struct CgroupColumns {
    pub cgroup_max_bytes: Option<u64>,
    pub cgroup_peak_off_bytes: Option<f64>,
    pub cgroup_peak_on_bytes: Option<f64>,
    pub cgroup_at_limit_on: Option<f64>,
    pub cgroup_reclaim_scanned_on: Option<f64>,
}

impl CgroupColumns {
    pub fn of(cgroup: Option<&CgroupFigures>) -> CgroupColumns {
        let g = cgroup.cloned().unwrap_or_default();
        CgroupColumns {
            cgroup_max_bytes: g.max_bytes,
            cgroup_peak_off_bytes: g.peak_off_bytes,
            cgroup_peak_on_bytes: g.peak_on_bytes,
            cgroup_at_limit_on: g.at_limit_on,
            cgroup_reclaim_scanned_on: g.reclaim_scanned_on,
        }
    }
}

impl crate::analyze::figures::Figures for CgroupFigures {
    type Columns = CgroupColumns;

    fn of(on: &[&LaunchRecord], off: &[&LaunchRecord]) -> Option<CgroupFigures> {
        figures(on, off)
    }

    fn columns(figures: Option<&CgroupFigures>) -> CgroupColumns {
        CgroupColumns::of(figures)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::cgroup::launch::Events;
    use crate::units::Bytes;

    fn in_cgroup(pretouch: bool, max: Option<u64>, peak: u64, at_max: u64) -> LaunchRecord {
        let mut l = crate::fixtures::launch(0, pretouch, 100.0);
        l.measured.features.cgroup = Some(Box::new(CgroupRun {
            path: "/sys/fs/cgroup/pretouch-1-1".into(),
            version: None,
            max: max.map(Bytes),
            high: None,
            peak: Some(Bytes(peak)),
            events: Events {
                max: Some(at_max),
                ..Events::default()
            },
            stat: [("pgscan".to_owned(), at_max * 10)].into(),
        }));
        l
    }

    #[test]
    fn the_peaks_are_medians_of_each_side_and_the_hits_those_of_the_launches_with_pretouch() {
        let on = [
            in_cgroup(true, Some(100), 90, 1),
            in_cgroup(true, Some(100), 99, 5),
            in_cgroup(true, Some(100), 95, 3),
        ];
        let off = [
            in_cgroup(false, Some(100), 40, 0),
            in_cgroup(false, Some(100), 50, 0),
        ];
        let (on, off): (Vec<_>, Vec<_>) = (on.iter().collect(), off.iter().collect());
        let g = figures(&on, &off).unwrap();
        assert_eq!(g.max_bytes, Some(100));
        assert_eq!(g.peak_on_bytes, Some(95.0));
        assert_eq!(g.peak_off_bytes, Some(45.0));
        assert_eq!(g.at_limit_on, Some(3.0));
        assert_eq!(g.reclaim_scanned_on, Some(30.0));
    }

    #[test]
    fn a_cell_without_cgroups_has_no_figures_and_empty_columns() {
        let plain = crate::fixtures::launch(0, true, 100.0);
        assert_eq!(figures(&[&plain], &[]), None);
        let csv = {
            let mut w = csv::Writer::from_writer(Vec::new());
            w.serialize(CgroupColumns::of(None)).unwrap();
            String::from_utf8(w.into_inner().unwrap()).unwrap()
        };
        assert_eq!(
            csv,
            "cgroup_max_bytes,cgroup_peak_off_bytes,cgroup_peak_on_bytes,\
             cgroup_at_limit_on,cgroup_reclaim_scanned_on\n,,,,\n"
        );
    }
}
