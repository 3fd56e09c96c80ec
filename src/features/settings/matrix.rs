//! Stage 1 of the pipeline: the matrix's `settings:` axis, named sets of kernel writes
//! (`sysfs:` files under /sys/kernel/mm, `sysctl:` names under /proc/sys), parsed and
//! checked against the allowed knobs before anything else happens.
//!
//! The runner writes these files as root, so a matrix may name only memory-management
//! knobs ([`allowed`]): a matrix cannot write an arbitrary file. What the kernel accepts
//! is checked later, against this machine, by `features::settings::launch`.

use std::collections::{BTreeMap, HashSet};
use std::fmt;

use serde::{Deserialize, Deserializer, de};

use crate::matrix::text::checked_text;

/// Where the `sysfs:` knobs live: paths in a setting are relative to this folder. It is
/// the machine's `machine::kernel_root::SYSFS_MM`, written again here because the matrix
/// is read before the machine, and a test keeps the two the same.
const SYSFS_MM: &str = "sys/kernel/mm";
/// Where the `sysctl:` knobs live: `vm.swappiness` is `proc/sys/vm/swappiness`.
const PROC_SYS: &str = "proc/sys";

/// One kernel knob a setting may write.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Knob {
    /// A file under /sys/kernel/mm, as written (`transparent_hugepage/enabled`).
    Sysfs(String),
    /// A sysctl name, dotted (`vm.swappiness`).
    Sysctl(String),
}

impl Knob {
    /// The file's path relative to `/` (or to a test's fake root).
    pub fn relative_path(&self) -> String {
        match self {
            Knob::Sysfs(p) => format!("{SYSFS_MM}/{p}"),
            Knob::Sysctl(name) => format!("{PROC_SYS}/{}", name.replace('.', "/")),
        }
    }

    /// Parses what [`Knob`]'s `Display` writes (the journal's spelling), checking it
    /// against the allowed list again: a journal names only knobs a matrix may name.
    pub fn parse(text: &str) -> Result<Knob, String> {
        if let Some(p) = text.strip_prefix("sysfs:") {
            check_sysfs(p).map(|()| Knob::Sysfs(p.to_owned()))
        } else if let Some(n) = text.strip_prefix("sysctl:") {
            check_sysctl(n).map(|()| Knob::Sysctl(n.to_owned()))
        } else {
            Err(format!(
                "{text:?} is neither `sysfs:PATH` nor `sysctl:NAME`"
            ))
        }
    }

    /// The knob as the user reads it: the full file path, or the sysctl name.
    pub fn shown(&self) -> String {
        match self {
            Knob::Sysfs(p) => format!("/{SYSFS_MM}/{p}"),
            Knob::Sysctl(name) => name.clone(),
        }
    }

    /// The key it is written under in a matrix, for finding its line.
    pub fn key(&self) -> &str {
        match self {
            Knob::Sysfs(p) | Knob::Sysctl(p) => p,
        }
    }

    /// `hugepages-64kB` for a per-size mTHP knob, else `None`.
    pub fn mthp_size(&self) -> Option<&str> {
        match self {
            Knob::Sysfs(p) => {
                let dir = p.strip_prefix("transparent_hugepage/")?.split('/').next()?;
                dir.starts_with("hugepages-").then_some(dir)
            }
            Knob::Sysctl(_) => None,
        }
    }
}

impl fmt::Display for Knob {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Knob::Sysfs(p) => write!(f, "sysfs:{p}"),
            Knob::Sysctl(n) => write!(f, "sysctl:{n}"),
        }
    }
}

/// One write of a setting: this value into this knob.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Write {
    pub knob: Knob,
    pub value: String,
}

/// A named set of kernel writes: one value of the `settings:` axis. The knobs it does
/// not name keep the values the machine had before the run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Setting {
    pub name: String,
    pub writes: Vec<Write>,
}

/// A cell's `settings:` value: its place in the matrix's list, and its name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SettingRef {
    pub index: usize,
    pub name: String,
}

/// The knobs under /sys/kernel/mm a setting may write, as patterns: `*` is one path
/// component of the form `hugepages-<N>kB`. The top-level THP modes, khugepaged's
/// tunables, each mTHP size's modes and KSM's tunables.
const ALLOWED_SYSFS: [&str; 21] = [
    "transparent_hugepage/enabled",
    "transparent_hugepage/defrag",
    "transparent_hugepage/shmem_enabled",
    "transparent_hugepage/use_zero_page",
    "transparent_hugepage/shrink_underused",
    "transparent_hugepage/*/enabled",
    "transparent_hugepage/*/shmem_enabled",
    "transparent_hugepage/khugepaged/defrag",
    "transparent_hugepage/khugepaged/pages_to_scan",
    "transparent_hugepage/khugepaged/scan_sleep_millisecs",
    "transparent_hugepage/khugepaged/alloc_sleep_millisecs",
    "transparent_hugepage/khugepaged/max_ptes_none",
    "transparent_hugepage/khugepaged/max_ptes_swap",
    "transparent_hugepage/khugepaged/max_ptes_shared",
    "ksm/run",
    "ksm/pages_to_scan",
    "ksm/sleep_millisecs",
    "ksm/merge_across_nodes",
    "ksm/use_zero_pages",
    "ksm/max_page_sharing",
    "ksm/smart_scan",
];

/// `vm.*` sysctls that are actions or that can take the machine down, not settings:
/// writing `drop_caches` or `compact_memory` does something once and reads back
/// nothing to restore; `panic_on_oom` would panic the machine when a `memory:` limit
/// kills a JVM.
const REFUSED_SYSCTLS: [&str; 5] = [
    "vm.drop_caches",
    "vm.compact_memory",
    "vm.stat_refresh",
    "vm.panic_on_oom",
    "vm.oom_kill_allocating_task",
];

/// Whether a setting may write this knob (see [`ALLOWED_SYSFS`], [`REFUSED_SYSCTLS`]).
pub fn allowed(knob: &Knob) -> bool {
    match knob {
        Knob::Sysfs(p) => check_sysfs(p).is_ok(),
        Knob::Sysctl(n) => check_sysctl(n).is_ok(),
    }
}

fn is_size_component(c: &str) -> bool {
    c.strip_prefix("hugepages-")
        .and_then(|s| s.strip_suffix("kB"))
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

fn check_sysfs(path: &str) -> Result<(), String> {
    if path.starts_with('/') {
        return Err(format!(
            "sysfs path {path:?} is absolute\n  fix: write it relative to /sys/kernel/mm, \
             like transparent_hugepage/enabled"
        ));
    }
    let parts: Vec<&str> = path.split('/').collect();
    let matches = ALLOWED_SYSFS.iter().any(|pattern| {
        let want: Vec<&str> = pattern.split('/').collect();
        want.len() == parts.len()
            && want
                .iter()
                .zip(&parts)
                .all(|(w, p)| w == p || (*w == "*" && is_size_component(p)))
    });
    if matches {
        Ok(())
    } else {
        Err(format!(
            "sysfs path {path:?} is not a knob a setting may write (the runner writes \
             these as root, so only memory-management knobs are allowed)\n  fix: use one \
             of {} (relative to /sys/kernel/mm; `*` is a size like hugepages-64kB), or \
             see docs/matrix.md",
            ALLOWED_SYSFS.join(", ")
        ))
    }
}

fn check_sysctl(name: &str) -> Result<(), String> {
    let Some(rest) = name.strip_prefix("vm.") else {
        return Err(format!(
            "sysctl {name:?} is not a vm.* sysctl (the runner writes these as root, so \
             only memory-management knobs are allowed)\n  fix: name a vm.* sysctl, \
             dotted, like vm.overcommit_memory"
        ));
    };
    if rest.is_empty()
        || !rest
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
    {
        return Err(format!(
            "sysctl {name:?} is not a sysctl name\n  fix: write it dotted, like vm.swappiness"
        ));
    }
    if REFUSED_SYSCTLS.contains(&name) {
        return Err(format!(
            "sysctl {name:?} is an action or can take the machine down, not a setting \
             to compare\n  fix: remove it (refused: {})",
            REFUSED_SYSCTLS.join(", ")
        ));
    }
    Ok(())
}

fn check_value(value: &str) -> Result<(), String> {
    if value.is_empty() || value.contains(['\n', '\r', '\0']) || value.trim() != value {
        return Err(format!(
            "invalid value {value:?}: give one line, without leading or trailing spaces"
        ));
    }
    Ok(())
}

/// A `sysfs:` key, checked where it is written (so the error has its line).
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
struct SysfsKey(String);

impl<'de> Deserialize<'de> for SysfsKey {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        checked_text(d, |s| check_sysfs(&s).map(|()| s)).map(SysfsKey)
    }
}

/// A `sysctl:` key, checked where it is written.
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
struct SysctlKey(String);

impl<'de> Deserialize<'de> for SysctlKey {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        checked_text(d, |s| check_sysctl(&s).map(|()| s)).map(SysctlKey)
    }
}

/// A value to write: a string or a number (`pages_to_scan: 4096`).
#[derive(Debug)]
struct Value(String);

impl<'de> Deserialize<'de> for Value {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        checked_text(d, |s| check_value(&s).map(|()| s)).map(Value)
    }
}

/// A setting as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSetting {
    name: String,
    #[serde(default)]
    sysfs: BTreeMap<SysfsKey, Value>,
    #[serde(default)]
    sysctl: BTreeMap<SysctlKey, Value>,
}

/// The `settings:` list, checked.
#[derive(Debug)]
pub(crate) struct Settings(pub(crate) Vec<Setting>);

impl<'de> Deserialize<'de> for Settings {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct ListVisitor;

        impl<'de> de::Visitor<'de> for ListVisitor {
            type Value = Vec<Setting>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a list of settings, like [{name: thp, sysfs: {...}}]")
            }

            fn visit_seq<A: de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Vec<Setting>, A::Error> {
                let mut settings = Vec::new();
                let mut seen = HashSet::new();
                while let Some(raw) = seq.next_element::<RawSetting>()? {
                    let name = raw.name;
                    if name.is_empty()
                        || name
                            .chars()
                            .any(|c| c.is_whitespace() || matches!(c, ',' | '/' | '[' | ']'))
                    {
                        return Err(de::Error::custom(format!(
                            "invalid setting name {name:?}: use a short name without \
                             spaces, commas, slashes or brackets"
                        )));
                    }
                    if !seen.insert(name.clone()) {
                        return Err(de::Error::custom(format!(
                            "duplicate setting name {name:?}: each setting needs its own name"
                        )));
                    }
                    let writes = raw
                        .sysfs
                        .into_iter()
                        .map(|(k, v)| Write {
                            knob: Knob::Sysfs(k.0),
                            value: v.0,
                        })
                        .chain(raw.sysctl.into_iter().map(|(k, v)| Write {
                            knob: Knob::Sysctl(k.0),
                            value: v.0,
                        }))
                        .collect();
                    settings.push(Setting { name, writes });
                }
                if settings.is_empty() {
                    return Err(de::Error::custom(
                        "empty list: give at least one setting, or remove `settings:`",
                    ));
                }
                Ok(settings)
            }
        }

        d.deserialize_seq(ListVisitor).map(Settings)
    }
}

/// Every knob any of `settings` writes, once, in order.
pub fn knobs(settings: &[Setting]) -> Vec<Knob> {
    let mut all: Vec<Knob> = settings
        .iter()
        .flat_map(|s| s.writes.iter().map(|w| w.knob.clone()))
        .collect();
    all.sort();
    all.dedup();
    all
}

/// The `settings:` key of the matrix, an axis the plan runs outermost, so that the
/// kernel's knobs change as seldom as a round allows.
pub struct SettingsKey;

impl crate::matrix::parts::MatrixKey for SettingsKey {
    type Value = Vec<Setting>;
    const AFTER: &'static str = "comparable_memory";

    fn read<'de, A: serde::de::MapAccess<'de>>(map: &mut A) -> Result<Vec<Setting>, A::Error> {
        crate::matrix::parts::read_as(map, |s: Settings| s.0)
    }
}

impl crate::matrix::parts::CellAxis for SettingsKey {
    type Cell = SettingRef;
    const OUTER: bool = true;

    fn cells(value: &Vec<Setting>) -> Vec<SettingRef> {
        (value.iter().enumerate())
            .map(|(index, s)| SettingRef {
                index,
                name: s.name.clone(),
            })
            .collect()
    }

    fn name(cell: &SettingRef) -> &str {
        &cell.name
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matrix::Matrix;

    const HEAD: &str = "name: x\ngcs: [g1]\nheaps: [64m]\nrepetitions: 1\n";

    #[test]
    fn the_knobs_are_in_the_machines_folder() {
        assert_eq!(SYSFS_MM, crate::machine::kernel_root::SYSFS_MM);
        assert_eq!(
            Knob::Sysfs("transparent_hugepage/enabled".into()).relative_path(),
            format!(
                "{}/transparent_hugepage/enabled",
                crate::machine::kernel_root::SYSFS_MM
            )
        );
    }

    fn parse(settings: &str) -> Result<Matrix, String> {
        Matrix::parse("m.yaml", &format!("{HEAD}{settings}")).map_err(|e| e.to_string())
    }

    #[test]
    fn parses_named_sets_of_writes() {
        let m = parse(
            "settings:\n  - name: 4k\n    sysfs: {transparent_hugepage/enabled: never, transparent_hugepage/hugepages-64kB/enabled: never}\n  - name: mthp-64k\n    sysfs: {transparent_hugepage/hugepages-64kB/enabled: always}\n    sysctl: {vm.overcommit_memory: 1}\n  - name: base\n",
        )
        .unwrap();
        let names: Vec<&str> = m
            .features
            .settings
            .iter()
            .map(|s| s.name.as_str())
            .collect();
        assert_eq!(names, ["4k", "mthp-64k", "base"]);
        assert_eq!(m.features.settings[0].writes.len(), 2);
        assert_eq!(
            m.features.settings[1].writes[1],
            Write {
                knob: Knob::Sysctl("vm.overcommit_memory".into()),
                value: "1".into()
            }
        );
        assert!(m.features.settings[2].writes.is_empty());
        assert_eq!(
            Knob::Sysctl("vm.overcommit_memory".into()).relative_path(),
            "proc/sys/vm/overcommit_memory"
        );
        assert_eq!(
            m.features.settings[1].writes[0].knob.mthp_size(),
            Some("hugepages-64kB")
        );
        // Without the axis, no setting: the machine as it is.
        assert!(parse("").unwrap().features.settings.is_empty());
    }

    #[test]
    fn a_path_outside_the_allowed_knobs_is_refused_at_its_line() {
        for (key, says) in [
            ("transparent_hugepage/../../../etc/passwd", "not a knob"),
            ("/sys/kernel/mm/transparent_hugepage/enabled", "absolute"),
            (
                "transparent_hugepage/hugepages-64kB/stats/anon_fault_alloc",
                "not a knob",
            ),
            ("transparent_hugepage/hugepages-kB/enabled", "not a knob"),
            ("damon/admin/kdamonds/nr_kdamonds", "not a knob"),
        ] {
            let e = parse(&format!(
                "settings:\n  - name: a\n    sysfs:\n      {key}: always\n"
            ))
            .unwrap_err();
            assert!(
                e.contains(says) && e.contains("line 8") && e.contains("fix:"),
                "{e}"
            );
        }
        for (key, says) in [
            ("kernel.panic", "not a vm.*"),
            ("vm.drop_caches", "an action"),
            ("vm.panic_on_oom", "take the machine down"),
            ("vm/swappiness", "not a vm.*"),
            ("vm.Swappiness", "not a sysctl name"),
        ] {
            let e = parse(&format!(
                "settings:\n  - name: a\n    sysctl:\n      {key}: 1\n"
            ))
            .unwrap_err();
            assert!(e.contains(says) && e.contains("line 8"), "{key}: {e}");
        }
    }

    #[test]
    fn bad_names_and_values_are_refused() {
        let e = parse("settings:\n  - name: a\n  - name: a\n").unwrap_err();
        assert!(e.contains("duplicate setting name"), "{e}");
        let e = parse("settings:\n  - name: a b\n").unwrap_err();
        assert!(e.contains("invalid setting name"), "{e}");
        let e = parse("settings: []\n").unwrap_err();
        assert!(e.contains("at least one setting"), "{e}");
        let e = parse(
            "settings:\n  - name: a\n    sysfs: {transparent_hugepage/enabled: \" always\"}\n",
        )
        .unwrap_err();
        assert!(e.contains("invalid value"), "{e}");
        let e = parse("settings:\n  - name: a\n    proc: {}\n").unwrap_err();
        assert!(e.contains("unknown field") && e.contains("fix:"), "{e}");
    }

    #[test]
    fn the_journal_spelling_reads_back_and_is_checked_again() {
        for knob in [
            Knob::Sysfs("transparent_hugepage/hugepages-16kB/enabled".into()),
            Knob::Sysctl("vm.swappiness".into()),
        ] {
            assert_eq!(Knob::parse(&knob.to_string()).unwrap(), knob);
        }
        assert!(Knob::parse("sysfs:../../etc/shadow").is_err());
        assert!(Knob::parse("sysctl:kernel.core_pattern").is_err());
        assert!(Knob::parse("/etc/shadow").is_err());
    }
}
