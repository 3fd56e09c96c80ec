//! The features' records, as the store reads them: one line a feature whose extra
//! rounds write records of a kind of their own into the run's result file, and one
//! line a feature that keeps files of its own among the result files. The store
//! reads, checks and counts each kind through these lists, so that it names none.
//!
//! The list is a file of its own, of the store's stage, because the imports run one
//! way: the store reads it, and it reads the features' `record.rs` files.

use crate::store::extra::ExtraKind;
use crate::store::feature_files::FileKind;

/// Every kind of record of the extra rounds, in the order a report names them.
pub const EXTRA_KINDS: &[ExtraKind] = &[
    crate::features::profile::record::KIND,
    crate::features::probe::record::KIND,
];

/// Every kind of file a feature keeps among the result files, in the order the reader
/// reads them and warns of those it cannot read.
pub const FILE_KINDS: &[FileKind] = &[
    crate::features::calibrate::record::FILES,
    crate::features::campaign::record::FILES,
];

/// The kind whose tag is `tag`, when a feature registers one.
pub fn extra_kind(tag: &str) -> Option<&'static ExtraKind> {
    EXTRA_KINDS.iter().find(|k| k.tag == tag)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_has_a_tag_of_its_own_that_no_core_record_has() {
        let mut tags: Vec<&str> = crate::store::record::CORE_TAGS.to_vec();
        for kind in EXTRA_KINDS {
            assert!(!tags.contains(&kind.tag), "`{}` twice", kind.tag);
            tags.push(kind.tag);
            assert_eq!(extra_kind(kind.tag).unwrap().launches, kind.launches);
        }
        assert!(extra_kind("launch").is_none());
    }
}
