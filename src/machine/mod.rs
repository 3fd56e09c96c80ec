//! Stage 2, the machine: what this machine is and can do, read before and beside a
//! run. It holds the host facts and the environment, such as the kernel, THP and the
//! cgroups, and in `folio` the folio sizes the THP modes allow. `kernel_root` says where
//! the kernel's files are read. It also holds the memory check, the JDKs installed and
//! what they answered in `jdk_cache`, and the one-run-at-a-time lock.
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
