//! Stage 6, memory cgroups: a `memory:` cell's columns of the explaining tables, what
//! its cgroups recorded. `features::render::BACKING` lists them after the folios'.

use crate::analyze::report::CellReport;
use crate::render::table::{self, Explaining, num};

/// [`table::bytes`], `-` when absent.
fn opt_bytes(v: Option<f64>) -> String {
    v.map_or_else(|| "-".to_owned(), table::bytes)
}

/// The limit, the peak charge without and with pretouch, and the hits at the limit.
/// Each is `-` for a cell that ran in no cgroup.
pub const COLUMNS: [Explaining<CellReport>; 3] = [
    Explaining {
        col: num("cg limit"),
        legend: "cg limit is the cell's memory cgroup limit as the kernel held it.",
        value: |c| match &c.backing.cgroup {
            Some(g) => g
                .max_bytes
                .map_or_else(|| "none".to_owned(), |m| table::bytes(m as f64)),
            None => "-".to_owned(),
        },
    },
    Explaining {
        col: num("cg peak off/on"),
        legend: "cg peak off/on is its median peak charge without / with pretouch.",
        value: |c| match &c.backing.cgroup {
            Some(g) => format!(
                "{} / {}",
                opt_bytes(g.peak_off_bytes),
                opt_bytes(g.peak_on_bytes)
            ),
            None => "-".to_owned(),
        },
    },
    Explaining {
        col: num("at limit"),
        legend: "at limit is the median number of times a launch with pretouch hit the limit.",
        value: |c| match &c.backing.cgroup {
            Some(g) if g.max_bytes.is_some() => table::opt_count(g.at_limit_on),
            _ => "-".to_owned(),
        },
    },
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::cgroup::analyze::CgroupFigures;

    fn values(cgroup: Option<CgroupFigures>) -> Vec<String> {
        let mut c = CellReport::default();
        c.backing.cgroup = cgroup;
        COLUMNS.iter().map(|col| (col.value)(&c)).collect()
    }

    #[test]
    fn a_cell_in_a_cgroup_shows_its_limit_peaks_and_hits_and_others_dashes() {
        assert_eq!(values(None), ["-", "-", "-"]);
        let limited = CgroupFigures {
            max_bytes: Some(256 << 20),
            peak_off_bytes: Some((40 << 20) as f64),
            peak_on_bytes: None,
            at_limit_on: Some(3.0),
            reclaim_scanned_on: None,
        };
        let shown = values(Some(limited.clone()));
        assert_eq!(shown[0], table::bytes((256 << 20) as f64));
        assert_eq!(shown[1], format!("{} / -", table::bytes((40 << 20) as f64)));
        assert_eq!(shown[2], table::opt_count(Some(3.0)));
        // Without a limit there is nothing to hit.
        let unlimited = CgroupFigures {
            max_bytes: None,
            ..limited
        };
        let shown = values(Some(unlimited));
        assert_eq!((shown[0].as_str(), shown[2].as_str()), ("none", "-"));
    }
}
