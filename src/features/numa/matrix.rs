//! The matrix's `numa:` key.

/// `numa: true`: each launch records the heap's pages per NUMA node at `main()`. It
/// follows `memory:`.
pub struct NumaKey;

impl crate::matrix::parts::SwitchKey for NumaKey {
    const AFTER: &'static str = "memory";
}
