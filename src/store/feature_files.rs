//! The files a feature keeps among the result files, such as the calibrations and a
//! campaign's state. The reader finds them by name among the paths given to a report,
//! and each feature reads its own into a part of [`FeatureFiles`], because only the
//! feature knows their type. `features::record::FILE_KINDS` lists them, so the store
//! names none, and the feature's analysis finds its part again by its type.

use std::any::Any;
use std::fmt::Debug;
use std::path::{Path, PathBuf};

/// What the store knows of a kind of file a feature keeps among the result files.
/// A feature gives one as a constant, and `features::record::FILE_KINDS` lists them.
#[derive(Debug, Clone, Copy)]
pub struct FileKind {
    /// Whether the file at `path` is of this kind, by its name alone.
    pub is_one: fn(path: &Path) -> bool,
    /// The files of this kind found, in name order without repeats, read into the
    /// feature's part. A file that cannot be read is skipped with a warning that names
    /// it, pushed to `warnings`.
    pub read: fn(paths: &[PathBuf], warnings: &mut Vec<String>) -> Box<dyn Part>,
    /// Whether the report printed at the end of a run takes the files of this kind
    /// from the run's label folder. The calibrations do, because they give the report
    /// its share of the machine's ceiling.
    pub beside_each_run: bool,
}

/// A feature's part of [`FeatureFiles`]: any value the feature reads its files into.
pub trait Part: Any + Debug + Send + Sync {}

impl<T: Any + Debug + Send + Sync> Part for T {}

/// The features' files found among the results, one part a kind, each read by its
/// feature.
#[derive(Debug, Default)]
pub struct FeatureFiles {
    parts: Vec<(FileKind, Box<dyn Part>)>,
}

impl FeatureFiles {
    /// Adds the part that `kind` read.
    pub fn push(&mut self, kind: FileKind, part: Box<dyn Part>) {
        self.parts.push((kind, part));
    }

    /// The part of type `T`, when a feature read one.
    pub fn get<T: Part>(&self) -> Option<&T> {
        self.parts
            .iter()
            .find_map(|(_, p)| (&**p as &dyn Any).downcast_ref::<T>())
    }

    /// The part of type `T`, made by `make` and kept as `kind`'s when there is none
    /// yet: how a test, or a caller that gathers files of its own, adds to a part.
    pub fn get_or_insert_with<T: Part>(
        &mut self,
        kind: FileKind,
        make: impl FnOnce() -> T,
    ) -> &mut T {
        let at = match self
            .parts
            .iter()
            .position(|(_, p)| (&**p as &dyn Any).is::<T>())
        {
            Some(at) => at,
            None => {
                self.parts.push((kind, Box::new(make())));
                self.parts.len() - 1
            }
        };
        (&mut *self.parts[at].1 as &mut dyn Any)
            .downcast_mut::<T>()
            .expect("the part at `at` is a `T`")
    }

    /// The parts whose kind the report at the end of a run takes from the run's label
    /// folder ([`FileKind::beside_each_run`]).
    pub fn beside_each_run(self) -> FeatureFiles {
        FeatureFiles {
            parts: self
                .parts
                .into_iter()
                .filter(|(kind, _)| kind.beside_each_run)
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn numbers(_: &Path) -> bool {
        true
    }

    fn read_numbers(paths: &[PathBuf], _: &mut Vec<String>) -> Box<dyn Part> {
        Box::new(vec![paths.len()])
    }

    fn kind(beside_each_run: bool) -> FileKind {
        FileKind {
            is_one: numbers,
            read: read_numbers,
            beside_each_run,
        }
    }

    #[test]
    fn a_part_is_found_again_by_its_type() {
        let mut files = FeatureFiles::default();
        assert!(files.get::<Vec<usize>>().is_none());
        let k = kind(true);
        files.push(k, (k.read)(&[PathBuf::from("a")], &mut Vec::new()));
        files.push(kind(false), Box::new("other".to_owned()));
        assert_eq!(files.get::<Vec<usize>>(), Some(&vec![1]));
        files.get_or_insert_with(k, Vec::<usize>::new).push(7);
        assert_eq!(files.get::<Vec<usize>>(), Some(&vec![1, 7]));
        files.get_or_insert_with(k, || 3_u8);
        assert_eq!(files.get::<u8>(), Some(&3));
        let kept = files.beside_each_run();
        assert_eq!(kept.get::<Vec<usize>>(), Some(&vec![1, 7]));
        assert!(kept.get::<String>().is_none());
    }
}
