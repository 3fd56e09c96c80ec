//! NUMA: on which nodes the heap's pages lay at `main()`, from the JVM's
//! `/proc/self/numa_maps`, for each launch of a run whose matrix says `numa: true`.
//! Which threads touch the heap first decides where its pages land, so the spread with
//! pretouch and without it differs, and `-XX:+UseNUMA` changes it again.
//!
//! One file per stage of the pipeline, named after the stage folder it plugs into.

pub mod analyze;
pub mod launch;
pub mod matrix;
pub mod render;
pub mod report;
pub mod section;
