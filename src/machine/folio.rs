//! Stage 2, the machine: the folio sizes the kernel may give a fault in a mapping, from
//! the THP and mTHP modes a run recorded ([`Environment`]). One fault maps one folio, so
//! these sizes say how many faults a pretouch takes and which calibration its fault rate
//! is read against.
//!
//! The rules are the kernel's (6.18, `thp_vma_allowable_orders` for anonymous memory,
//! `shmem_allowable_huge_orders` for shmem): each size under
//! `/sys/kernel/mm/transparent_hugepage/hugepages-<size>/` (the PMD size, 2048kB on
//! x86-64, among them) has its own mode; `inherit` follows the top-level file; a size at
//! `always` is used in every mapping, one at `madvise` (shmem: `advise`) only in a mapping
//! the program advised with `MADV_HUGEPAGE`, whatever the top-level mode says. A fault
//! tries the largest allowed size first and falls back to the next smaller one, down to
//! the base page, when no free block of that size is at hand.

use std::collections::BTreeMap;

use crate::machine::env::Environment;
use crate::units::Bytes;

/// The base page (x86-64 and most arm64 kernels).
pub const BASE_PAGE: Bytes = Bytes(4096);

/// The PMD-size folio as the kernel names its folder on x86-64 (and arm64 with 4 KiB
/// pages): what the top-level mode governs on kernels without mTHP.
const PMD_SIZE: &str = "2048kB";

/// What backs a mapping: its faults take the anonymous or the shmem path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backing {
    /// Anonymous memory: G1, Parallel, Serial, Shenandoah and Epsilon heaps.
    Anonymous,
    /// Shared memory (a memfd): ZGC's heap.
    Shmem,
}

/// `64kB` -> 64 KiB.
pub fn size_bytes(name: &str) -> Option<Bytes> {
    let kb: u64 = name.strip_suffix("kB")?.parse().ok()?;
    Some(Bytes(kb * 1024))
}

/// Whether one size's `mode` lets a mapping (advised or not) have folios of it.
fn allows(mode: &str, top: Option<&str>, advised: bool) -> bool {
    let mode = if mode == "inherit" {
        top.unwrap_or("never")
    } else {
        mode
    };
    match mode {
        "always" | "within_size" | "force" => true,
        "madvise" | "advise" => advised,
        _ => false,
    }
}

/// The folio sizes above the base page that a fault in a mapping backed by `backing` may
/// get under `env`'s modes, largest first; `advised`: the program called
/// `madvise(MADV_HUGEPAGE)` on it. A file recorded without per-size modes (before
/// mTHP, or before shmem's were recorded) has the PMD size under the top-level mode.
pub fn sizes(env: &Environment, backing: Backing, advised: bool) -> Vec<Bytes> {
    let (top, per_size) = match backing {
        Backing::Anonymous => (env.thp_enabled.as_deref(), &env.mthp),
        Backing::Shmem => (env.thp_shmem_enabled.as_deref(), &env.mthp_shmem),
    };
    // shmem's test modes: `deny` takes every size away, `force` gives every one.
    if top == Some("deny") {
        return Vec::new();
    }
    let pmd_only: BTreeMap<String, String>;
    let per_size = if per_size.is_empty() {
        pmd_only = BTreeMap::from([(PMD_SIZE.to_owned(), "inherit".to_owned())]);
        &pmd_only
    } else {
        per_size
    };
    let mut sizes: Vec<Bytes> = per_size
        .iter()
        .filter(|(_, mode)| top == Some("force") || allows(mode, top, advised))
        .filter_map(|(name, _)| size_bytes(name))
        .filter(|s| *s > BASE_PAGE)
        .collect();
    sizes.sort_by(|a, b| b.cmp(a));
    sizes
}

/// Whether a JVM with these arguments advises its heap with `MADV_HUGEPAGE`: the last
/// `-XX:+/-UseTransparentHugePages` turns it on, and HotSpot turns it off again (with a
/// warning) when the kernel's mode for that memory is `never` (anonymous) or not
/// `advise`/`always`/`within_size` (shmem, which ZGC checks).
pub fn jvm_advises(env: &Environment, backing: Backing, jvm_args: &[String]) -> bool {
    let flag = thp_flag(jvm_args);
    let supported = match backing {
        Backing::Anonymous => env.thp_enabled.as_deref() != Some("never"),
        Backing::Shmem => matches!(
            env.thp_shmem_enabled.as_deref(),
            None | Some("advise" | "always" | "within_size" | "force")
        ),
    };
    flag && supported
}

/// Whether the last of `-XX:+/-UseTransparentHugePages` in `jvm_args` turns THP on.
pub fn thp_flag(jvm_args: &[String]) -> bool {
    jvm_args
        .iter()
        .rev()
        .find_map(|a| match a.as_str() {
            "-XX:+UseTransparentHugePages" => Some(true),
            "-XX:-UseTransparentHugePages" => Some(false),
            _ => None,
        })
        .unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(enabled: &str, mthp: &[(&str, &str)]) -> Environment {
        Environment {
            thp_enabled: Some(enabled.to_owned()),
            mthp: mthp
                .iter()
                .map(|(s, m)| ((*s).to_owned(), (*m).to_owned()))
                .collect(),
            ..Environment::default()
        }
    }

    const K64: Bytes = Bytes(64 << 10);
    const M2: Bytes = Bytes(2 << 20);

    #[test]
    fn each_size_follows_its_own_mode_and_inherit_the_top_level_one() {
        let a = Backing::Anonymous;
        // This machine's default: 2048kB inherits `madvise`, 64kB `never`.
        let madvise = env("madvise", &[("2048kB", "inherit"), ("64kB", "never")]);
        assert_eq!(sizes(&madvise, a, false), []);
        assert_eq!(sizes(&madvise, a, true), [M2]);
        // mTHP 64 KiB `always` under `madvise`: every mapping gets 64 KiB folios, an
        // advised one 2 MiB first.
        let mthp = env("madvise", &[("2048kB", "inherit"), ("64kB", "always")]);
        assert_eq!(sizes(&mthp, a, false), [K64]);
        assert_eq!(sizes(&mthp, a, true), [M2, K64]);
        // A size at `always` holds under a top-level `never`; inherit does not.
        let never = env("never", &[("2048kB", "inherit"), ("64kB", "always")]);
        assert_eq!(sizes(&never, a, true), [K64]);
        let always = env("always", &[("2048kB", "inherit"), ("16kB", "madvise")]);
        assert_eq!(sizes(&always, a, false), [M2]);
        assert_eq!(sizes(&always, a, true), [M2, Bytes(16 << 10)]);
        // Older files, without per-size modes: the PMD size under the top-level mode.
        assert_eq!(sizes(&env("always", &[]), a, false), [M2]);
        assert_eq!(sizes(&env("madvise", &[]), a, false), []);
        assert_eq!(sizes(&Environment::default(), a, true), []);
    }

    #[test]
    fn shmem_reads_its_own_modes() {
        let mut e = env("always", &[("2048kB", "inherit")]);
        // Anonymous `always` says nothing of shmem.
        e.thp_shmem_enabled = Some("never".into());
        assert_eq!(sizes(&e, Backing::Shmem, true), []);
        e.thp_shmem_enabled = Some("advise".into());
        e.mthp_shmem = BTreeMap::from([
            ("2048kB".to_owned(), "inherit".to_owned()),
            ("64kB".to_owned(), "always".to_owned()),
        ]);
        assert_eq!(sizes(&e, Backing::Shmem, false), [K64]);
        assert_eq!(sizes(&e, Backing::Shmem, true), [M2, K64]);
        e.thp_shmem_enabled = Some("deny".into());
        assert_eq!(sizes(&e, Backing::Shmem, true), []);
    }

    #[test]
    fn the_jvm_advises_only_with_the_flag_and_a_mode_that_allows_it() {
        let args = |a: &[&str]| a.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        let thp = args(&["-Xms1g", "-XX:+UseTransparentHugePages"]);
        let a = Backing::Anonymous;
        assert!(jvm_advises(&env("madvise", &[]), a, &thp));
        assert!(!jvm_advises(&env("never", &[]), a, &thp));
        assert!(!jvm_advises(&env("always", &[]), a, &args(&["-Xms1g"])));
        let off = args(&[
            "-XX:+UseTransparentHugePages",
            "-XX:-UseTransparentHugePages",
        ]);
        assert!(!jvm_advises(&env("always", &[]), a, &off));
    }
}
