//! Test support: the probe's records and what they hold, made of fixed numbers, to test
//! the probe's analysis and sections without bpftrace.

use crate::store::CellKey;
use crate::store::extra::ExtraRecord;
use crate::units::Nanos;

/// The probe's histogram of `values` (ns), bucketed as its program buckets them
/// (`features::probe::launch::bucket_bounds`).
pub fn latency_histogram(values: &[u64]) -> Vec<crate::features::probe::launch::LatencyBucket> {
    let mut counts = std::collections::BTreeMap::<u64, u64>::new();
    for &v in values {
        let l = if v <= 1 {
            0
        } else {
            63 - u64::from(v.leading_zeros())
        };
        let b = l * 8 + if l >= 3 { (v >> (l - 3)) & 7 } else { 0 };
        *counts.entry(b).or_default() += 1;
    }
    counts
        .into_iter()
        .map(|(b, count)| {
            let (low_ns, high_ns) = crate::features::probe::launch::bucket_bounds(b);
            crate::features::probe::launch::LatencyBucket {
                low_ns,
                high_ns,
                count,
            }
        })
        .collect()
}

/// A lock's waits at one caller, as a probe record holds them.
pub fn lock_wait(
    lock: &str,
    caller: &str,
    count: u64,
    total_ns: u64,
    max_ns: u64,
) -> crate::features::probe::launch::LockWait {
    crate::features::probe::launch::LockWait {
        lock: lock.into(),
        kind: "spinlock".into(),
        caller: caller.into(),
        stack: vec![caller.into(), "get_page_from_freelist+300".into()],
        count,
        total_ns: Nanos(total_ns),
        max_ns: Nanos(max_ns),
    }
}

/// The one builder of probe records in tests: a probed launch of `cell` reaching main
/// after `ms` ms, whose faults took `values` ns (the agent counting `agent_faults`),
/// with lock waits `locks`; `ms` NaN: a failed launch, nothing read.
pub fn probe_record(
    cell: &CellKey,
    seq: u64,
    pretouch: bool,
    ms: f64,
    values: &[u64],
    agent_faults: u64,
    locks: Vec<crate::features::probe::launch::LockWait>,
) -> crate::features::probe::record::ProbeRecord {
    use crate::features::probe::launch::{C2cSupport, Contention, FaultLatency};
    let ok = !ms.is_nan();
    let command = vec![
        "/usr/lib/jvm/java-17-openjdk-amd64/bin/java".to_owned(),
        format!("-XX:{}AlwaysPreTouch", if pretouch { '+' } else { '-' }),
        "-Xms1g".to_owned(),
        "-Xmx1g".to_owned(),
        "-XX:+UseG1GC".to_owned(),
        "PretouchMain".to_owned(),
    ];
    crate::features::probe::record::ProbeRecord {
        at: crate::store::PlannedAs {
            seq,
            round: (seq / 2) as u32,
            cell: cell.clone(),
            pretouch,
        },
        launched: crate::store::Launched {
            command,
            started_at: "2026-12-01T08:00:00.000Z".into(),
            time_to_main_ns: ok.then(|| Nanos((ms * 1e6).round() as u64)),
            failure: (!ok).then(|| "exited with code 1 before main()".to_owned()),
        },
        probe_command: vec![
            "bpftrace".into(),
            "-f".into(),
            "json".into(),
            "-e".into(),
            "...".into(),
        ],
        main_faults: ok.then_some(agent_faults),
        faults: ok.then(|| FaultLatency {
            exec_ns: Nanos(1_000_000),
            main_ns: Some(Nanos(1_000_000 + (ms * 1e6) as u64)),
            before_exec: 3,
            count: values.len() as u64,
            max_ns: Nanos(values.iter().copied().max().unwrap_or(0)),
            process_faults: Some(agent_faults + 100),
            buckets: latency_histogram(values),
            ..FaultLatency::default()
        }),
        contention: ok.then_some(Contention::Measured { locks }),
        c2c: C2cSupport::Unavailable {
            why: "`perf list` has no memory-sampling events (mem-loads, ldlat, ibs_op): no \
                  hardware PMU here, as in most VMs; perf c2c cannot record"
                .into(),
        },
    }
}

/// Appends probe records to `<dir>/<label>/fixed.jsonl` (after its end record, as a
/// probed run writes them).
pub fn append_probes(
    dir: &std::path::Path,
    label: &str,
    probes: &[crate::features::probe::record::ProbeRecord],
) {
    use std::io::Write as _;
    let path = dir.join(label).join("fixed.jsonl");
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    for p in probes {
        let line = serde_json::to_string(&p.as_record()).unwrap();
        writeln!(f, "{line}").unwrap();
    }
}
