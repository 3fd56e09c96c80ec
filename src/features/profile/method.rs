//! Stage 5, the kernel profile: a cell's pretouch method (`analyze::method`, from its
//! JDK and flags) checked against what its profile shows. A populate shows no
//! fault-entry frames, and a store or an atomic add shows no `madvise`. The cell's heap
//! holds the check in its features' parts (`features::analyze::HeapParts`).
//!
//! A file apart from `analyze.rs`, because the heap's parts name the check and the
//! profile's analysis reads the report that holds the heap.

use serde::Serialize;

use crate::analyze::method::PretouchMethod;

/// What a profile showed of the heap's pretouch: its samples with a page-fault entry
/// (`exc_page_fault`) and those under `madvise`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct ProfileEvidence {
    pub fault_entry_samples: u64,
    pub populate_samples: u64,
}

/// The method check against a profile.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "verdict", rename_all = "kebab-case")]
pub enum MethodCheck {
    /// The profile shows the expected path (and at most 5% of the other).
    Agrees,
    /// The profile shows the other path: `seen` is what it looks like.
    Disagrees { seen: PretouchMethod },
    /// Too few samples on either path, or no expectation to check.
    Inconclusive { why: String },
}

/// Below this many samples on either path a profile settles nothing.
pub const MIN_SAMPLES: u64 = 10;

/// Checks `method` against a profile: a populate shows no fault-entry frames, a store
/// or an atomic add shows them and no `madvise`. Either path holding at most 5% of the
/// other's samples counts as absent (a stray fault on the code cache or a chunk the
/// kernel refused).
pub fn check_against_profile(method: PretouchMethod, evidence: ProfileEvidence) -> MethodCheck {
    let (faults, populate) = (evidence.fault_entry_samples, evidence.populate_samples);
    let total = faults + populate;
    if total < MIN_SAMPLES {
        return MethodCheck::Inconclusive {
            why: format!(
                "{total} pretouch samples with a fault entry or madvise, fewer than {MIN_SAMPLES}"
            ),
        };
    }
    let seen = if populate * 20 <= total {
        PretouchMethod::AtomicAdd
    } else if faults * 20 <= total {
        PretouchMethod::MadvisePopulate
    } else {
        return MethodCheck::Inconclusive {
            why: format!(
                "both paths: {faults} samples with fault entries, {populate} under madvise"
            ),
        };
    };
    match (method, seen) {
        (PretouchMethod::MadvisePopulate, PretouchMethod::MadvisePopulate)
        | (PretouchMethod::Store | PretouchMethod::AtomicAdd, PretouchMethod::AtomicAdd) => {
            MethodCheck::Agrees
        }
        (PretouchMethod::Undetermined, seen) => MethodCheck::Inconclusive {
            why: format!(
                "no expectation, and the profile looks like {}",
                if seen == PretouchMethod::MadvisePopulate {
                    "madvise populate"
                } else {
                    "page faults (store or atomic add)"
                }
            ),
        },
        (_, seen) => MethodCheck::Disagrees { seen },
    }
}

/// The check as flat columns of the CSV of cells, after the method's. One is the
/// verdict. The other says what the profile looked like when it disagrees, or why it
/// settles nothing. Both are empty without a profile.
#[derive(Debug, Clone, Default, Serialize)]
pub struct CheckColumns {
    /// `agrees`, `disagrees`, `inconclusive`; empty without a profile.
    pub method_check: String,
    /// What the profile looked like (disagrees) or why it settles nothing.
    pub method_check_detail: String,
}

impl CheckColumns {
    pub fn of(check: Option<&MethodCheck>) -> CheckColumns {
        let (check, detail) = match check {
            None => (String::new(), String::new()),
            Some(MethodCheck::Agrees) => ("agrees".into(), String::new()),
            Some(MethodCheck::Disagrees { seen }) => ("disagrees".into(), seen.name().into()),
            Some(MethodCheck::Inconclusive { why }) => ("inconclusive".into(), why.clone()),
        };
        CheckColumns {
            method_check: check,
            method_check_detail: detail,
        }
    }
}

/// The check is filled in by the profile's section, once the profile is read, so a cell
/// starts without one.
impl crate::analyze::figures::Figures for MethodCheck {
    type Columns = CheckColumns;

    /// The JSON has always written `check` as `null` for a cell without a profile.
    const NULL_WHEN_ABSENT: bool = true;

    fn columns(check: Option<&MethodCheck>) -> CheckColumns {
        CheckColumns::of(check)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_populate_shows_no_fault_entries() {
        let ev = |f, p| ProfileEvidence {
            fault_entry_samples: f,
            populate_samples: p,
        };
        use PretouchMethod::*;
        assert_eq!(
            check_against_profile(MadvisePopulate, ev(2, 400)),
            MethodCheck::Agrees
        );
        assert_eq!(
            check_against_profile(AtomicAdd, ev(400, 0)),
            MethodCheck::Agrees
        );
        assert_eq!(
            check_against_profile(MadvisePopulate, ev(400, 3)),
            MethodCheck::Disagrees { seen: AtomicAdd }
        );
        assert_eq!(
            check_against_profile(Store, ev(0, 400)),
            MethodCheck::Disagrees {
                seen: MadvisePopulate
            }
        );
        assert!(matches!(
            check_against_profile(AtomicAdd, ev(3, 2)),
            MethodCheck::Inconclusive { .. }
        ));
        assert!(matches!(
            check_against_profile(AtomicAdd, ev(200, 200)),
            MethodCheck::Inconclusive { .. }
        ));
        assert!(matches!(
            check_against_profile(Undetermined, ev(0, 200)),
            MethodCheck::Inconclusive { .. }
        ));
    }

    #[test]
    fn the_columns_keep_the_verdict_and_its_detail() {
        let c = CheckColumns::of(Some(&MethodCheck::Disagrees {
            seen: PretouchMethod::MadvisePopulate,
        }));
        assert_eq!(
            (c.method_check.as_str(), c.method_check_detail.as_str()),
            ("disagrees", "madvise populate")
        );
        let c = CheckColumns::of(None);
        assert_eq!(
            (c.method_check, c.method_check_detail),
            (String::new(), String::new())
        );
    }
}
