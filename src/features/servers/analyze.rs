//! Stage 5, servers: a cell's time to ready beside its time to main, the share of
//! startup that pretouch costs, and whether the `after_ready` workload got faster by as
//! much (pay-back). From the same launches as the cell's row (counted, reached ready,
//! outliers left out on request); a workload that failed enters no median.

use std::borrow::Borrow;

use serde::Serialize;

use crate::features::servers::launch::Workload;
use crate::stats::summarize;
use crate::store::LaunchRecord;
use crate::units::Nanos;

/// Exec to ready, for a server launch that became ready and succeeded.
fn time_to_ready(l: &LaunchRecord) -> Option<Nanos> {
    if !l.ok() {
        return None;
    }
    l.measured.features.server.as_ref()?.time_to_ready_ns
}

/// A server cell's figures (`app:` with `ready:`), in ms; medians over its launches.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct CellReady {
    /// The ready check, in the CSV's `ready_probe` column (`port 8080`, `http <URL> status 200`, `log /<regex>/`).
    #[serde(rename = "ready_probe")]
    pub ready_check: String,
    /// Median exec -> ready without pretouch.
    pub ready_off_ms: Option<f64>,
    /// Median exec -> ready with pretouch.
    pub ready_on_ms: Option<f64>,
    /// Smallest and largest exec -> ready without pretouch.
    pub ready_min_off_ms: Option<f64>,
    pub ready_max_off_ms: Option<f64>,
    /// Smallest and largest exec -> ready with pretouch.
    pub ready_min_on_ms: Option<f64>,
    pub ready_max_on_ms: Option<f64>,
    /// ready_on_ms - ready_off_ms: pretouch's cost in time to ready.
    pub ready_cost_ms: Option<f64>,
    /// ready_cost_ms as a percentage of ready_on_ms: pretouch's share of the startup to
    /// ready with pretouch.
    pub ready_share_pct: Option<f64>,
    /// Median main() -> ready without pretouch (the application's own start).
    pub main_to_ready_off_ms: Option<f64>,
    /// Median main() -> ready with pretouch.
    pub main_to_ready_on_ms: Option<f64>,
    /// Successful `after_ready` runs without pretouch.
    pub workload_runs_off: usize,
    /// Successful `after_ready` runs with pretouch.
    pub workload_runs_on: usize,
    /// `after_ready` runs that failed (non-zero exit, timeout), in no median.
    pub workload_failed: usize,
    /// Why the first of them failed, with its output's last line.
    pub workload_first_failure: Option<String>,
    /// Median wall time of the `after_ready` command without pretouch.
    pub workload_off_ms: Option<f64>,
    /// Median wall time of the `after_ready` command with pretouch.
    pub workload_on_ms: Option<f64>,
    /// workload_on_ms - workload_off_ms: negative when pretouch made the workload faster.
    pub workload_change_ms: Option<f64>,
    /// ready_cost_ms + workload_change_ms: startup and workload together, with minus
    /// without pretouch; negative means pretouch paid back.
    pub net_ms: Option<f64>,
    /// Launches the runner had to SIGKILL after the grace period (SIGTERM did not stop
    /// them).
    pub sigkills: usize,
    /// Median SIGTERM -> reaped, ms: how long the server took to stop.
    pub stop_ms: Option<f64>,
    /// The first requests (`requests:`) each launch sent: how many; absent without.
    pub requests_count: Option<u32>,
    /// Launches without pretouch whose first requests were all answered.
    pub requests_runs_off: usize,
    /// Launches with pretouch whose first requests were all answered.
    pub requests_runs_on: usize,
    /// Median latency of the first request without pretouch, ms.
    pub first_request_off_ms: Option<f64>,
    /// Median latency of the first request with pretouch, ms.
    pub first_request_on_ms: Option<f64>,
    /// The median of the launches without pretouch of each launch's median latency over
    /// its first requests, ms.
    pub requests_p50_off_ms: Option<f64>,
    /// The same with pretouch.
    pub requests_p50_on_ms: Option<f64>,
    /// The median of the launches without pretouch of each launch's 99th percentile of
    /// latency over its first requests (R's quantile type 8), ms.
    pub requests_p99_off_ms: Option<f64>,
    /// The same with pretouch.
    pub requests_p99_on_ms: Option<f64>,
    /// The number of the request from which on the two sides agree within their noise,
    /// counted from 1 (see [`agree_from`]); absent when fewer than two launches on a side
    /// answered all their requests, or when even the last request disagrees
    /// (`requests_never_agree`).
    pub requests_agree_from: Option<u32>,
    /// The two sides still disagreed at the last request.
    pub requests_never_agree: bool,
    /// Every latency of every launch without pretouch, ms: launches separated by `;`,
    /// the requests of a launch in order by spaces, `-` for a request not answered.
    pub requests_off_ms: String,
    /// The same with pretouch.
    pub requests_on_ms: String,
}

/// A server cell's figures are their own columns in the CSV of cells, with the default
/// figures of a cell that is no server.
impl crate::analyze::figures::Figures for CellReady {
    type Columns = CellReady;

    fn of(on: &[&LaunchRecord], off: &[&LaunchRecord]) -> Option<CellReady> {
        cell_ready(off, on)
    }

    fn columns(figures: Option<&CellReady>) -> CellReady {
        figures.cloned().unwrap_or_default()
    }
}

/// The server figures of a cell from its launches without and with pretouch (those that
/// entered its row); `None` when they are no server launches.
pub fn cell_ready<R: Borrow<LaunchRecord>>(off: &[R], on: &[R]) -> Option<CellReady> {
    let off: Vec<&LaunchRecord> = off.iter().map(Borrow::borrow).collect();
    let on: Vec<&LaunchRecord> = on.iter().map(Borrow::borrow).collect();
    let (off, on) = (off.as_slice(), on.as_slice());
    let both = || off.iter().chain(on).copied();
    let check = both()
        .find_map(|l| l.measured.features.server.as_ref())?
        .check
        .clone();
    let median = |v: &[f64]| summarize(v).map(|s| s.median);
    let (r_off, r_on) = (
        summarize(&times_to_ready(off)),
        summarize(&times_to_ready(on)),
    );
    let (w_off, w_on) = (workload_times(off), workload_times(on));
    let failed: Vec<&Workload> = both()
        .filter_map(|l| l.measured.features.server.as_ref()?.after_ready.as_ref())
        .filter(|w| !w.ok())
        .collect();
    let ready_cost = r_on.zip(r_off).map(|(a, b)| a.median - b.median);
    let workload_change = median(&w_on).zip(median(&w_off)).map(|(a, b)| a - b);
    let stops: Vec<f64> = both().filter_map(stop_time).collect();
    let (q_off, q_on) = (request_latencies(off), request_latencies(on));
    let per_launch = |runs: &[Vec<f64>], f: &dyn Fn(&[f64]) -> f64| {
        median(&runs.iter().map(|r| f(r)).collect::<Vec<_>>())
    };
    let p50 = |r: &[f64]| quantile(r, 0.5);
    let p99 = |r: &[f64]| quantile(r, 0.99);
    let first = |r: &[f64]| r[0];
    let agreement = agree_from(&q_off, &q_on);
    let mut figures = CellReady {
        ready_check: check,
        ready_off_ms: r_off.map(|s| s.median),
        ready_on_ms: r_on.map(|s| s.median),
        ready_min_off_ms: r_off.map(|s| s.min),
        ready_max_off_ms: r_off.map(|s| s.max),
        ready_min_on_ms: r_on.map(|s| s.min),
        ready_max_on_ms: r_on.map(|s| s.max),
        ready_cost_ms: ready_cost,
        ready_share_pct: ready_cost
            .zip(r_on)
            .filter(|(_, on)| on.median > 0.0)
            .map(|(c, on)| 100.0 * c / on.median),
        main_to_ready_off_ms: median(&main_to_ready(off)),
        main_to_ready_on_ms: median(&main_to_ready(on)),
        workload_runs_off: w_off.len(),
        workload_runs_on: w_on.len(),
        workload_failed: failed.len(),
        workload_first_failure: failed.first().map(|w| failure_note(w)),
        workload_off_ms: median(&w_off),
        workload_on_ms: median(&w_on),
        workload_change_ms: workload_change,
        net_ms: ready_cost.zip(workload_change).map(|(c, w)| c + w),
        sigkills: both()
            .filter(|l| {
                l.measured
                    .features
                    .server
                    .as_ref()
                    .is_some_and(|s| s.sigkill_ns.is_some())
            })
            .count(),
        stop_ms: median(&stops),
        requests_count: both()
            .filter_map(|l| {
                Some(
                    l.measured
                        .features
                        .server
                        .as_ref()?
                        .requests
                        .as_ref()?
                        .count,
                )
            })
            .max(),
        requests_runs_off: q_off.len(),
        requests_runs_on: q_on.len(),
        first_request_off_ms: per_launch(&q_off, &first),
        first_request_on_ms: per_launch(&q_on, &first),
        requests_p50_off_ms: per_launch(&q_off, &p50),
        requests_p50_on_ms: per_launch(&q_on, &p50),
        requests_p99_off_ms: per_launch(&q_off, &p99),
        requests_p99_on_ms: per_launch(&q_on, &p99),
        requests_off_ms: every_request(off),
        requests_on_ms: every_request(on),
        ..CellReady::default()
    };
    match agreement {
        Some(Some(k)) => figures.requests_agree_from = Some(k),
        Some(None) => figures.requests_never_agree = true,
        None => {}
    }
    Some(figures)
}

/// The latencies, ms, of each launch whose first requests were all answered; the
/// launches with none, or with a failure, are left out.
fn request_latencies(launches: &[&LaunchRecord]) -> Vec<Vec<f64>> {
    launches
        .iter()
        .filter_map(|l| l.measured.features.server.as_ref()?.requests.as_ref())
        .filter(|r| r.ok())
        .map(|r| r.latencies_ns.iter().flatten().map(|n| n.as_ms()).collect())
        .collect()
}

/// Every latency of every launch's first requests, for CSV and JSON: launches
/// separated by `;`, requests by spaces, `-` where a request got no answer.
fn every_request(launches: &[&LaunchRecord]) -> String {
    launches
        .iter()
        .filter_map(|l| l.measured.features.server.as_ref()?.requests.as_ref())
        .map(|r| {
            r.latencies_ns
                .iter()
                .map(|n| n.map_or_else(|| "-".to_owned(), |n| format!("{:.3}", n.as_ms())))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// The `q` quantile of a launch's latencies by R's `quantile(x, q, type = 8)` (Hyndman
/// and Fan 1996), which statrs computes; `values` is not empty.
fn quantile(values: &[f64], q: f64) -> f64 {
    use statrs::statistics::{Data, OrderStatistics};
    Data::new(values.to_vec()).quantile(q)
}

/// The request from which on the launches without (`off`) and with (`on`) pretouch
/// agree within their noise, counted from 1. At request i each side has a median over
/// its launches and a spread, its largest value less its smallest; the two sides agree
/// at request i when their medians differ by no more than the two spreads added. The
/// answer is the first request i such that they agree at i and at every request after
/// it. `None` when a side has fewer than two launches (no spread to judge by);
/// `Some(None)` when they disagree at the last request.
pub fn agree_from(off: &[Vec<f64>], on: &[Vec<f64>]) -> Option<Option<u32>> {
    if off.len() < 2 || on.len() < 2 {
        return None;
    }
    let n = off.iter().chain(on).map(Vec::len).min()?;
    if n == 0 {
        return None;
    }
    let at = |runs: &[Vec<f64>], i: usize| {
        summarize(&runs.iter().map(|r| r[i]).collect::<Vec<_>>()).expect("two launches or more")
    };
    let agree = |i: usize| {
        let (a, b) = (at(off, i), at(on, i));
        (a.median - b.median).abs() <= (a.max - a.min) + (b.max - b.min)
    };
    let mut from = None;
    for i in (0..n).rev() {
        if !agree(i) {
            break;
        }
        from = Some(i as u32 + 1);
    }
    Some(from)
}

/// Each launch's exec -> ready, ms, of those that got ready.
fn times_to_ready(launches: &[&LaunchRecord]) -> Vec<f64> {
    launches
        .iter()
        .filter_map(|l| time_to_ready(l).map(|t| t.as_ms()))
        .collect()
}

/// Each launch's main() -> ready, ms, of those that got to both.
fn main_to_ready(launches: &[&LaunchRecord]) -> Vec<f64> {
    launches
        .iter()
        .filter_map(|l| Some(time_to_ready(l)?.as_ms() - l.time_to_main_ns?.as_ms()))
        .collect()
}

/// The wall times, ms, of the launches' `after_ready` runs that succeeded.
fn workload_times(launches: &[&LaunchRecord]) -> Vec<f64> {
    launches
        .iter()
        .filter_map(|l| l.measured.features.server.as_ref()?.after_ready.as_ref())
        .filter(|w| w.ok())
        .map(|w| w.wall_ns.as_ms())
        .collect()
}

/// A launch's SIGTERM -> reaped, ms, when it was sent one.
fn stop_time(l: &LaunchRecord) -> Option<f64> {
    let term = l.measured.features.server.as_ref()?.sigterm_ns?;
    Some(l.measured.reaped_ns.since(term)?.as_ms())
}

/// What a failed `after_ready` run says: its command, why it failed and its output's
/// last line.
fn failure_note(w: &Workload) -> String {
    let last = w
        .output_tail
        .as_deref()
        .and_then(|t| t.lines().last())
        .map_or_else(String::new, |l| format!("; its output ends: {l}"));
    format!(
        "`{}` {}{last}",
        w.command.join(" "),
        w.failure.as_deref().unwrap_or("failed")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::servers::fixtures::server_launch;

    #[test]
    fn ready_cost_share_and_pay_back() {
        // Without pretouch: main at 50, ready at 600, workload 1000 ms; with: main at 450,
        // ready at 1000, workload 700 ms.
        let off: Vec<_> = (0..3)
            .map(|i| server_launch(false, 50.0 + f64::from(i), 600.0, Some(1000.0)))
            .collect();
        let on: Vec<_> = (0..3)
            .map(|i| server_launch(true, 450.0, 1000.0 + f64::from(i), Some(700.0)))
            .collect();
        let r = cell_ready(&off, &on).unwrap();
        assert_eq!(r.ready_off_ms, Some(600.0));
        assert_eq!(r.ready_on_ms, Some(1001.0));
        assert_eq!(r.ready_cost_ms, Some(401.0));
        let share = r.ready_share_pct.unwrap();
        assert!((share - 100.0 * 401.0 / 1001.0).abs() < 1e-9, "{share}");
        assert_eq!(r.main_to_ready_off_ms, Some(549.0));
        assert_eq!(r.workload_change_ms, Some(-300.0));
        assert_eq!(r.net_ms, Some(101.0), "startup cost not paid back");
        assert_eq!((r.workload_runs_off, r.workload_runs_on), (3, 3));
    }

    /// A server launch whose first requests took these latencies, ms.
    fn with_requests(pretouch: bool, latencies: &[f64]) -> LaunchRecord {
        let mut l = server_launch(pretouch, 50.0, 600.0, None);
        let run = l.measured.features.server.as_mut().unwrap();
        run.requests = Some(crate::features::servers::launch::RequestRun {
            url: "http://127.0.0.1:8080/work".into(),
            count: latencies.len() as u32,
            concurrency: 1,
            latencies_ns: (latencies.iter())
                .map(|ms| Some(crate::units::Nanos((ms * 1e6) as u64)))
                .collect(),
            ..Default::default()
        });
        l
    }

    #[test]
    fn the_first_requests_and_where_the_two_sides_agree() {
        // Without pretouch the first three requests fault the heap in and are slow;
        // from the fourth on both sides answer alike, within a spread of 1 ms.
        let off = [
            with_requests(false, &[40.0, 30.0, 20.0, 5.0, 5.0, 6.0]),
            with_requests(false, &[42.0, 31.0, 21.0, 6.0, 5.5, 5.0]),
            with_requests(false, &[41.0, 29.0, 22.0, 5.5, 6.0, 5.5]),
        ];
        let on = [
            with_requests(true, &[10.0, 5.0, 5.0, 5.0, 5.0, 5.0]),
            with_requests(true, &[11.0, 6.0, 5.0, 6.0, 6.0, 6.0]),
            with_requests(true, &[12.0, 5.5, 6.0, 5.5, 5.5, 5.5]),
        ];
        let r = cell_ready(&off, &on).unwrap();
        assert_eq!(
            (r.first_request_off_ms, r.first_request_on_ms),
            (Some(41.0), Some(11.0))
        );
        assert_eq!(r.requests_agree_from, Some(4));
        assert!(!r.requests_never_agree);
        assert_eq!(
            (r.requests_runs_off, r.requests_runs_on, r.requests_count),
            (3, 3, Some(6))
        );
        assert!(r.requests_p99_off_ms > r.requests_p50_off_ms);
        assert!(r.requests_p50_on_ms < r.requests_p50_off_ms);
        assert_eq!(r.requests_on_ms.split("; ").count(), 3);
        assert!(
            r.requests_off_ms.starts_with("40.000 30.000 20.000 5.000"),
            "{}",
            r.requests_off_ms
        );
        // Disagreeing at the last request: never; one launch a side: not judged.
        let slow_end = [
            with_requests(true, &[10.0, 5.0, 5.0, 5.0, 5.0, 50.0]),
            with_requests(true, &[11.0, 6.0, 5.0, 6.0, 6.0, 51.0]),
        ];
        let r = cell_ready(&off, &slow_end).unwrap();
        assert!(r.requests_never_agree && r.requests_agree_from.is_none());
        let r = cell_ready(&off[..1], &on).unwrap();
        assert!(!r.requests_never_agree && r.requests_agree_from.is_none());
        // A launch whose requests failed enters no figure, but its latencies are listed.
        let mut failed = with_requests(false, &[40.0, 30.0]);
        if let Some(q) = &mut failed.measured.features.server.as_mut().unwrap().requests {
            q.count = 6;
            q.failure = Some("request 3 of 6: status 404".into());
        }
        let r = cell_ready(&[failed], &on).unwrap();
        assert_eq!((r.requests_runs_off, r.first_request_off_ms), (0, None));
        assert_eq!(r.requests_off_ms, "40.000 30.000");
    }

    #[test]
    fn failed_workloads_enter_no_median_and_plain_launches_have_no_figures() {
        let mut off = vec![server_launch(false, 50.0, 600.0, Some(1000.0))];
        let mut bad = server_launch(false, 50.0, 600.0, Some(5.0));
        let w = bad
            .measured
            .features
            .server
            .as_mut()
            .unwrap()
            .after_ready
            .as_mut()
            .unwrap();
        w.failure = Some("exited with code 22".into());
        w.output_tail = Some("curl: (22) 404".into());
        off.push(bad);
        let r = cell_ready(&off, &[]).unwrap();
        assert_eq!(r.workload_off_ms, Some(1000.0));
        assert_eq!(r.workload_failed, 1);
        assert!(
            r.workload_first_failure
                .as_deref()
                .unwrap()
                .ends_with("exited with code 22; its output ends: curl: (22) 404")
        );
        assert_eq!((r.ready_cost_ms, r.net_ms), (None, None));
        let mut plain = server_launch(false, 50.0, 600.0, None);
        plain.measured.features.server = None;
        assert!(cell_ready(&[plain], &[]).is_none());
    }
}
