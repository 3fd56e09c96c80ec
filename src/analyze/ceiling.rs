//! The ceiling a cell's fault rate is read against: the label's calibration of the same
//! CPUs when the cell was confined to a set (`cpus:`), the huge-page variant when the
//! cell ran with `-XX:+UseTransparentHugePages`; else the label's best shared-mapping
//! zap rate. Always the label's newest calibration that has the configuration.

use crate::machine::calibration::{Calibration, ConfigResult, Layout, Variant};
use crate::matrix::cpuset::{ALL, format_list, parse_list};

/// A ceiling and where it comes from.
#[derive(Debug, Clone, PartialEq)]
pub struct Ceiling {
    /// Faults per wall-second.
    pub per_s: f64,
    /// The calibration configuration, as a note names it: `zap, 1 L3 domain (CPUs 0-1)`.
    pub from: String,
    /// The configuration ran on exactly the cell's CPUs (or, for THP, with huge pages).
    pub matched: bool,
}

/// The JVM flag that makes a cell's heap use transparent huge pages.
const THP_FLAG: &str = "-XX:+UseTransparentHugePages";

fn rate(r: &ConfigResult) -> Option<f64> {
    match r.variant {
        // Faults the kernel took, not 4 KiB pages: what the JVM's `faults/s` counts.
        Variant::Huge => r.kernel_faults_per_s(),
        _ => Some(r.summary()?.median),
    }
}

fn describe(r: &ConfigResult) -> String {
    match &r.placement {
        Some(p) => format!("{}, {} (CPUs {})", r.variant, p.set, format_list(&p.cpus)),
        None => format!("{}, {}", r.variant, r.cpus_name()),
    }
}

/// The ceiling of a cell of `label`: confined to `cpus` (`all`: not), whose launches
/// ran on `affinity` (kernel list syntax), with these JVM flags.
pub fn for_cell(
    calibrations: &[Calibration],
    label: &str,
    cpus: &str,
    affinity: Option<&str>,
    flags: Option<&[String]>,
) -> Option<Ceiling> {
    let mut own: Vec<&Calibration> = calibrations.iter().filter(|c| c.label == label).collect();
    own.sort_by(|a, b| b.started_at.cmp(&a.started_at));
    let huge = flags.is_some_and(|f| f.iter().any(|a| a == THP_FLAG));
    let variant = if huge { Variant::Huge } else { Variant::Zap };
    let shared = |r: &&ConfigResult| r.layout == Layout::Shared && r.variant == variant;
    // The same CPUs, for a confined cell.
    if cpus != ALL
        && let Some(set) = affinity.and_then(|a| parse_list(a).ok())
    {
        for c in &own {
            if let Some(r) = c
                .results
                .iter()
                .filter(shared)
                .find(|r| r.placement.as_ref().is_some_and(|p| p.cpus == set))
            {
                return Some(Ceiling {
                    per_s: rate(r)?,
                    from: describe(r),
                    matched: true,
                });
            }
        }
    }
    // The best of the newest calibration with the variant.
    for c in &own {
        let best = c
            .results
            .iter()
            .filter(shared)
            .filter_map(|r| Some((rate(r)?, r)))
            .max_by(|a, b| a.0.total_cmp(&b.0));
        if let Some((per_s, r)) = best {
            return Some(Ceiling {
                per_s,
                from: describe(r),
                matched: huge && cpus == ALL,
            });
        }
    }
    // A THP cell without a huge-page calibration: the 4 KiB ceiling, as before.
    if huge {
        return for_cell(calibrations, label, cpus, affinity, None).map(|c| Ceiling {
            matched: false,
            ..c
        });
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::machine::env::Environment;
    use crate::machine::topology::Placement;
    use crate::units::Bytes;

    fn r(variant: Variant, cpus: Option<Vec<usize>>, rate: f64, faults: u64) -> ConfigResult {
        ConfigResult {
            layout: Layout::Shared,
            workers: cpus.as_ref().map_or(2, Vec::len),
            faults_per_s: vec![rate],
            pages: 262_144,
            faults_per_pass: faults,
            variant,
            placement: cpus.map(|cpus| Placement {
                set: format!("{} CPUs", cpus.len()),
                l3_domains: vec![0],
                nodes: vec![0],
                sockets: vec![0],
                cores: cpus.len(),
                cpus,
            }),
            cpu_share: None,
        }
    }

    fn cal(at: &str, results: Vec<ConfigResult>) -> Calibration {
        Calibration {
            record: "calibrate".into(),
            label: "k".into(),
            started_at: at.into(),
            env: Environment::default(),
            size: Bytes(1 << 30),
            page_size: Bytes(4096),
            passes: 1,
            rounds: 1,
            memory: None,
            results,
            topology: None,
        }
    }

    #[test]
    fn a_confined_cell_reads_against_its_own_cpus() {
        let cals = [
            cal(
                "2",
                vec![
                    r(Variant::Zap, Some(vec![0]), 400e3, 262_144),
                    r(Variant::Zap, Some(vec![0, 1]), 700e3, 262_144),
                    r(Variant::Huge, Some(vec![0, 1]), 4e6, 512),
                ],
            ),
            // Older, faster: not used while the newer one has the configuration.
            cal("1", vec![r(Variant::Zap, Some(vec![0]), 900e3, 262_144)]),
        ];
        let c = for_cell(&cals, "k", "0", Some("0"), None).unwrap();
        assert_eq!((c.per_s, c.matched), (400e3, true));
        assert_eq!(c.from, "zap, 1 CPUs (CPUs 0)");
        // Unconfined: the best shared zap rate.
        let c = for_cell(&cals, "k", ALL, Some("0-1"), None).unwrap();
        assert_eq!((c.per_s, c.matched), (700e3, false));
        // No calibration of these CPUs: the best, not matched.
        let c = for_cell(&cals, "k", "1", Some("1"), None).unwrap();
        assert_eq!((c.per_s, c.matched), (700e3, false));
        // THP: the huge variant, in the kernel's faults (2 MiB each) per second.
        let thp = vec![THP_FLAG.to_owned()];
        let c = for_cell(&cals, "k", "0-1", Some("0-1"), Some(&thp)).unwrap();
        assert!(
            c.matched && (c.per_s - 4e6 * 512.0 / 262_144.0).abs() < 1e-6,
            "{c:?}"
        );
        assert!(for_cell(&cals, "other", ALL, None, None).is_none());
        // Without a huge-page calibration, a THP cell falls back to the 4 KiB ceiling.
        let only_zap = [cal("3", vec![r(Variant::Zap, None, 500e3, 262_144)])];
        let c = for_cell(&only_zap, "k", ALL, None, Some(&thp)).unwrap();
        assert_eq!((c.per_s, c.matched), (500e3, false));
    }
}
