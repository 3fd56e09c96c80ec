//! Stage 2, the machine: what this machine is and can do, read before and beside a
//! run. Host facts and the environment (kernel, THP, cgroups) with the folio sizes its
//! THP modes allow (`folio`), where the kernel's files are read (`kernel_root`), the
//! memory check, the
//! JDKs installed and what they answered (`jdk_cache`), the fault-rate ceiling (`calibration`, run by `pretouch calibrate`) and the one-run-at-a-time lock.
//! Uses the matrix and units only.

pub mod app_build;
pub mod collectors;
pub mod discover;
pub mod env;
pub mod folio;
pub mod guest;
pub mod guest_memory;
pub mod host;
pub mod jdk;
pub mod jdk_cache;
pub mod kernel_root;
pub mod lock;
pub mod memory;
pub mod topology;
