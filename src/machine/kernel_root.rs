//! Stage 2, the machine: where this machine's kernel files are read. The kernel's memory
//! settings and counters are under `/sys/kernel/mm`. Tests point `PRETOUCH_KERNEL_ROOT` at
//! a fake tree that holds `sys/kernel/mm` and `proc/sys`, so every reader of those files
//! starts from [`kernel_root`].

use std::path::PathBuf;

/// The folder of the kernel's memory settings and counters, relative to the root.
pub const SYSFS_MM: &str = "sys/kernel/mm";

/// The folder the kernel's `sys` and `proc` are read under. It is `/`, unless
/// `PRETOUCH_KERNEL_ROOT` names a fake tree, as the tests do.
pub fn kernel_root() -> PathBuf {
    std::env::var_os("PRETOUCH_KERNEL_ROOT")
        .filter(|v| !v.is_empty())
        .map_or_else(|| PathBuf::from("/"), PathBuf::from)
}
