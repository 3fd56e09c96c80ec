//! The ceiling a cell's fault rate is read against: a calibration whose faults mapped
//! folios of the size the cell's heap expects (`analyze::explain`, from the run's THP and
//! mTHP modes), since a fault of a 64 KiB or 2 MiB folio costs more than one of a 4 KiB
//! page and is not comparable with it. For base pages the zap variant (its mapping is
//! `MADV_NOHUGEPAGE`); for a larger folio whichever variant measured that size (the
//! huge variant, `MADV_HUGEPAGE`, maps the largest size THP allows an advised mapping).
//! Of those, the label's calibration of the same CPUs when the cell was confined to a set
//! (`cpus:`); else the label's best shared-mapping rate. Always the label's newest
//! calibration that has the configuration. Without one at the cell's folio size there is
//! no ceiling, and [`missing`] says why.

use crate::analyze::ceiling::{CeilingOf, CeilingSource, CeilingWords, Ceilings, CellCeiling};
use crate::features::calibrate::machine::{Calibration, ConfigResult, Layout, Variant};
use crate::matrix::cpuset::{ALL, format_list, parse_list};
use crate::store::feature_files::FeatureFiles;
use crate::units::Bytes;

/// The calibrations' ceilings of the cells.
pub struct CalibratedCeilings;

/// The calibrations as the source of the cells' ceilings, which `features::analyze`
/// names.
pub const SOURCE: CeilingSource = CeilingSource {
    ceilings: &CalibratedCeilings,
    words: WORDS,
};

impl Ceilings for CalibratedCeilings {
    fn of_cell(
        &self,
        files: &FeatureFiles,
        cell: &CeilingOf<'_>,
    ) -> Result<CellCeiling, Option<String>> {
        let calibrations = calibrations(files);
        for_cell(
            calibrations,
            cell.label,
            cell.cpus,
            cell.affinity,
            cell.folio,
        )
        .map(|c| CellCeiling {
            per_s: c.per_s,
            from: c.from,
        })
        .ok_or_else(|| missing(calibrations, cell.label, cell.folio))
    }
}

/// How the explaining tables name the calibrations.
const WORDS: CeilingWords = CeilingWords {
    legend: "% ceiling is faults/s as a share of the label's `pretouch calibrate` rate at \
             the same folio size.",
    fills: "`pretouch calibrate` fills % ceiling",
    none_for: "no `pretouch calibrate` results for",
    against: "against calibrate",
};

/// The calibrations found among the results, read by `features::calibrate::record::FILES`.
pub fn calibrations(features: &FeatureFiles) -> &[Calibration] {
    features
        .get::<Vec<Calibration>>()
        .map_or(&[], Vec::as_slice)
}

/// A ceiling and where it comes from.
#[derive(Debug, Clone, PartialEq)]
pub struct Ceiling {
    /// Faults per wall-second.
    pub per_s: f64,
    /// The calibration configuration, as a note names it: `zap, 1 L3 domain (CPUs 0-1)`.
    pub from: String,
    /// The configuration ran on exactly the cell's CPUs.
    pub matched: bool,
}

/// How far a calibration's bytes per fault may lie from a folio size and still count as
/// faults of that size: the workers' own few faults (stacks) and a fallback here and
/// there move it a little; a mix of sizes moves it far.
const FOLIO_TOLERANCE: f64 = 0.25;

/// The folio size a calibration's faults mapped, when they mapped one size: the pages
/// written over the faults the kernel counted, within [`FOLIO_TOLERANCE`] of the base
/// page or a size the calibration's kernel had (its `hugepages-<size>` folders, the PMD
/// size for a file without them). A mix of sizes can look like a size between them, so
/// only sizes that exist count.
fn folio_of(r: &ConfigResult, c: &Calibration) -> Option<u64> {
    let bytes = r.fault_bytes(c.page_size)?;
    let mut sizes: Vec<u64> = c
        .env
        .mthp
        .keys()
        .filter_map(|s| Some(s.strip_suffix("kB")?.parse::<u64>().ok()? * 1024))
        .collect();
    if sizes.is_empty() {
        sizes.push(crate::features::calibrate::machine::HUGE_PAGE);
    }
    sizes.push(c.page_size.0);
    sizes
        .into_iter()
        .find(|&size| (bytes / size as f64 - 1.0).abs() <= FOLIO_TOLERANCE)
}

fn rate(r: &ConfigResult) -> Option<f64> {
    match r.variant {
        Variant::Zap => Some(r.summary()?.median),
        // Faults the kernel took, not 4 KiB pages: what the JVM's `faults/s` counts.
        _ => r.kernel_faults_per_s(),
    }
}

fn describe(r: &ConfigResult, folio: u64) -> String {
    let folios = if folio > crate::machine::folio::BASE_PAGE.0 {
        format!(", {} folios", Bytes(folio))
    } else {
        String::new()
    };
    match &r.placement {
        Some(p) => format!(
            "{}, {} (CPUs {}){folios}",
            r.variant,
            p.set,
            format_list(&p.cpus)
        ),
        None => format!("{}, {}{folios}", r.variant, r.cpus_name()),
    }
}

/// The shared-mapping results of `c` whose faults mapped `folio`-byte folios.
fn at_folio(c: &Calibration, folio: u64) -> impl Iterator<Item = &ConfigResult> {
    let base = folio <= crate::machine::folio::BASE_PAGE.0;
    c.results.iter().filter(move |r| {
        r.layout == Layout::Shared
            && if base {
                r.variant == Variant::Zap
            } else {
                folio_of(r, c) == Some(folio)
            }
    })
}

fn newest_first<'a>(calibrations: &'a [Calibration], label: &str) -> Vec<&'a Calibration> {
    let mut own: Vec<&Calibration> = calibrations.iter().filter(|c| c.label == label).collect();
    own.sort_by(|a, b| b.started_at.cmp(&a.started_at));
    own
}

/// The ceiling of a cell of `label`: confined to `cpus` (`all`: not), whose launches
/// ran on `affinity` (kernel list syntax), whose heap's faults map `folio`-byte folios
/// (`CellExplain::expected_folio_bytes`).
pub fn for_cell(
    calibrations: &[Calibration],
    label: &str,
    cpus: &str,
    affinity: Option<&str>,
    folio: u64,
) -> Option<Ceiling> {
    let own = newest_first(calibrations, label);
    // The same CPUs, for a confined cell.
    if cpus != ALL
        && let Some(set) = affinity.and_then(|a| parse_list(a).ok())
    {
        for c in &own {
            if let Some(r) =
                at_folio(c, folio).find(|r| r.placement.as_ref().is_some_and(|p| p.cpus == set))
            {
                return Some(Ceiling {
                    per_s: rate(r)?,
                    from: describe(r, folio),
                    matched: true,
                });
            }
        }
    }
    // The best of the newest calibration at the folio size.
    own.iter().find_map(|c| {
        let (per_s, r) = at_folio(c, folio)
            .filter_map(|r| Some((rate(r)?, r)))
            .max_by(|a, b| a.0.total_cmp(&b.0))?;
        Some(Ceiling {
            per_s,
            from: describe(r, folio),
            matched: false,
        })
    })
}

/// Why a cell of `label` whose faults map `folio`-byte folios has no ceiling although
/// the label was calibrated: the folio sizes its calibrations measured. `None` when the
/// label has no calibration at all (the report says that once for the label).
pub fn missing(calibrations: &[Calibration], label: &str, folio: u64) -> Option<String> {
    let own = newest_first(calibrations, label);
    if own.is_empty() {
        return None;
    }
    let mut seen: Vec<u64> = own
        .iter()
        .flat_map(|c| {
            c.results
                .iter()
                .filter(|r| r.layout == Layout::Shared)
                .filter_map(|r| folio_of(r, c))
        })
        .collect();
    seen.sort_unstable();
    seen.dedup();
    let seen: Vec<String> = seen.into_iter().map(|s| Bytes(s).to_string()).collect();
    Some(format!(
        "no calibration of {label} at {} folios (it has {}): no % ceiling",
        Bytes(folio),
        if seen.is_empty() {
            "no shared-mapping result of one folio size".to_owned()
        } else {
            seen.join(", ")
        }
    ))
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
            // The sizes of this machine's kernel, whatever their modes.
            env: Environment {
                mthp: [("2048kB", "inherit"), ("64kB", "never")]
                    .map(|(s, m)| (s.to_owned(), m.to_owned()))
                    .into(),
                ..Environment::default()
            },
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
        let c = for_cell(&cals, "k", "0", Some("0"), 4096).unwrap();
        assert_eq!((c.per_s, c.matched), (400e3, true));
        assert_eq!(c.from, "zap, 1 CPUs (CPUs 0)");
        // Unconfined: the best shared zap rate.
        let c = for_cell(&cals, "k", ALL, Some("0-1"), 4096).unwrap();
        assert_eq!((c.per_s, c.matched), (700e3, false));
        // No calibration of these CPUs: the best, not matched.
        let c = for_cell(&cals, "k", "1", Some("1"), 4096).unwrap();
        assert_eq!((c.per_s, c.matched), (700e3, false));
        // 2 MiB folios: the huge variant, in the kernel's faults (2 MiB each) per second.
        let c = for_cell(&cals, "k", "0-1", Some("0-1"), 2 << 20).unwrap();
        assert!(
            c.matched && (c.per_s - 4e6 * 512.0 / 262_144.0).abs() < 1e-6,
            "{c:?}"
        );
        assert_eq!(c.from, "huge, 2 CPUs (CPUs 0-1), 2 MiB folios");
        assert!(for_cell(&cals, "other", ALL, None, 4096).is_none());
        assert_eq!(missing(&cals, "other", 4096), None, "not calibrated at all");
    }

    #[test]
    fn a_cell_reads_only_against_faults_of_its_own_folio_size() {
        // A huge variant run under mTHP 64 KiB `always` with THP `never`: 64 KiB folios.
        let cals = [cal(
            "1",
            vec![
                r(Variant::Zap, None, 500e3, 262_144),
                r(Variant::Huge, None, 3e6, 16_400),
                // Half the memory in 2 MiB folios, half in 4 KiB pages: about 8 KiB a
                // fault, a size this kernel does not have, so no one size.
                r(Variant::Huge, Some(vec![0]), 3e6, 131_072 + 256),
            ],
        )];
        let c = for_cell(&cals, "k", ALL, None, 64 << 10).unwrap();
        assert!((c.per_s - 3e6 * 16_400.0 / 262_144.0).abs() < 1e-6, "{c:?}");
        assert_eq!(c.from, "huge, 2 threads, 64 KiB folios");
        // No 2 MiB calibration: no ceiling, never the 4 KiB one, and the reason.
        assert_eq!(for_cell(&cals, "k", ALL, None, 2 << 20), None);
        assert_eq!(
            missing(&cals, "k", 2 << 20).unwrap(),
            "no calibration of k at 2 MiB folios (it has 4 KiB, 64 KiB): no % ceiling"
        );
        // Base pages: the zap variant only.
        let c = for_cell(&cals, "k", ALL, None, 4096).unwrap();
        assert_eq!(c.per_s, 500e3);
    }
}
