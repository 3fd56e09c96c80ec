//! The features' axes of a cell's key, one line per feature, in the keys' order. The
//! store's `CellKey` holds them last, and the core reads, writes, labels and tabulates
//! them through the value that `store::key_parts` makes of this list, so it names none.
//!
//! The list is a file of its own, of the store's stage, because the imports run one
//! way. The store's records read it, and `features/record.rs` reads the store, so a
//! list in that file would sit in an import circle.

crate::store::key_parts::key_parts! {
    setting,
    memory,
}
