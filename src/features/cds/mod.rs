//! Class data sharing: whether each launch ran with a CDS archive, and whether the JDKs
//! of one label ran alike, because CDS moves the time to `main()` on its own.
//!
//! One file per stage of the pipeline, named after the stage folder it plugs into.

pub mod analyze;
pub mod launch;
