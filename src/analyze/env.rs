//! Stage 5, analysis: the environment of a run (`machine::env`) in words, and what
//! differs between two. Labels are compared on the settings as recorded
//! ([`Setting`]); the words are made here, once, for the report's `environment:` lines,
//! the calibrations' table and `pretouch env` (`render::env`).

use crate::machine::env::{Environment, Setting};
use crate::machine::guest::{Firecracker, Virtualization};

/// Each setting's name and its words, in declaration order: `pretouch env`'s lines.
pub fn fields(env: &Environment) -> Vec<(&'static str, String)> {
    env.settings()
        .into_iter()
        .map(|(name, s)| (name, words(&s)))
        .collect()
}

/// The settings that differ between two environments: (name, a's words, b's words). The
/// kernel's identity is left out: that is what the labels compare on purpose.
pub fn differences(a: &Environment, b: &Environment) -> Vec<(&'static str, String, String)> {
    a.settings()
        .into_iter()
        .zip(b.settings())
        .filter(|((name, x), (_, y))| {
            x != y && !matches!(*name, "kernel_release" | "kernel_version")
        })
        .map(|((name, x), (_, y))| match (words(&x), words(&y)) {
            // Sizes that differ by less than their rounding: the bytes tell them apart.
            (a, b) if a == b => (name, exact(&x), exact(&y)),
            (a, b) => (name, a, b),
        })
        .collect()
}

/// [`words`] with a size's bytes beside it (`1.9 GiB (2071166976 bytes)`).
fn exact(s: &Setting<'_>) -> String {
    match s {
        Setting::Size(Some(b)) => format!("{b} ({} bytes)", b.0),
        other => words(other),
    }
}

/// A setting in words; `-` for what was not recorded or could not be read.
fn words(s: &Setting<'_>) -> String {
    let missing = || "-".to_owned();
    match s {
        Setting::Text(t) => t.map_or_else(missing, str::to_owned),
        Setting::Count(n) => n.to_string(),
        Setting::Size(b) => b.map_or_else(missing, |b| b.to_string()),
        Setting::Mthp(on) if on.is_empty() => "none".to_owned(),
        Setting::Mthp(on) => on
            .iter()
            .map(|(size, mode)| format!("{size}({mode})"))
            .collect::<Vec<_>>()
            .join(" "),
        Setting::Virtualization(v) => v.map_or_else(missing, |v| virtualization(v.as_ref())),
        Setting::Reporting(r) => r.map_or_else(missing, |r| r.to_string()),
        Setting::Ksm(run) => ksm(*run),
    }
}

/// The virtualization in words, such as `KVM without DMI tables, likely Firecracker
/// because it has only virtio devices`. Without a VM it says that none was detected.
pub fn virtualization(v: Option<&Virtualization<'_>>) -> String {
    let Some(v) = v else {
        return "none detected, because the CPU has no hypervisor flag".to_owned();
    };
    let mut s = match v.signature {
        Some("KVMKVMKVM") => "KVM".to_owned(),
        Some("Microsoft Hv") => "Hyper-V".to_owned(),
        Some("VMwareVMware") => "VMware".to_owned(),
        Some("XenVMMXenVMM") => "Xen".to_owned(),
        Some("TCGTCGTCGTCG") => "QEMU TCG, emulated without KVM".to_owned(),
        Some(other) => format!("the hypervisor `{other}`"),
        None => "a hypervisor that gives no CPUID signature".to_owned(),
    };
    match v.dmi {
        Some(dmi) => s += &format!(", DMI {dmi}"),
        None => s += " without DMI tables",
    }
    s += match v.firecracker {
        Firecracker::No => "",
        Firecracker::Named => ", which is Firecracker as its init process says",
        Firecracker::Likely => ", likely Firecracker because it has only virtio devices",
    };
    s
}

/// KSM in words, from `/sys/kernel/mm/ksm/run`.
pub fn ksm(run: Option<&str>) -> String {
    match run {
        Some("0") => "off".to_owned(),
        Some("1") => "merging (run=1)".to_owned(),
        Some("2") => "unmerging (run=2)".to_owned(),
        Some(other) => format!("run={other}"),
        None => "-".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::machine::guest::GuestInfo;
    use crate::units::Bytes;

    #[test]
    fn differences_leave_the_kernel_out() {
        let a = Environment {
            kernel_release: "6.18.0-base".into(),
            thp_enabled: Some("madvise".into()),
            ..Environment::default()
        };
        let b = Environment {
            kernel_release: "6.18.0-patched".into(),
            thp_enabled: Some("always".into()),
            ..Environment::default()
        };
        assert_eq!(
            differences(&a, &b),
            [("thp_enabled", "madvise".to_owned(), "always".to_owned())]
        );
        assert!(differences(&a, &a).is_empty());
    }

    #[test]
    fn sizes_that_round_alike_are_told_apart_by_their_bytes() {
        let a = Environment {
            mem_total: Some(Bytes(2_071_166_976)),
            ..Environment::default()
        };
        let b = Environment {
            mem_total: Some(Bytes(2_071_171_072)),
            ..Environment::default()
        };
        let d = differences(&a, &b);
        assert_eq!(d.len(), 1, "{d:?}");
        assert_ne!(d[0].1, d[0].2);
        assert!(d[0].1.ends_with("(2071166976 bytes)"), "{d:?}");
    }

    #[test]
    fn settings_that_read_the_same_are_the_same() {
        // A kernel with mTHP sizes all `never` and one without mTHP: no difference.
        let none = Environment::default();
        let never = Environment {
            mthp: BTreeMap::from([("64kB".to_owned(), "never".to_owned())]),
            ..Environment::default()
        };
        assert!(differences(&none, &never).is_empty());
        // KSM not recorded, and recorded but unreadable, both read `-`.
        let guest = Environment {
            guest: Some(GuestInfo {
                hypervisor_flag: true,
                ..GuestInfo::default()
            }),
            ..Environment::default()
        };
        let diff = differences(&none, &guest);
        let names: Vec<&str> = diff.iter().map(|d| d.0).collect();
        assert_eq!(names, ["virtualization", "page_reporting"], "{diff:?}");
        assert_eq!(
            diff[0].2,
            "a hypervisor that gives no CPUID signature without DMI tables"
        );
    }

    #[test]
    fn the_virtualization_in_words() {
        let kvm = Virtualization {
            signature: Some("KVMKVMKVM"),
            dmi: None,
            firecracker: Firecracker::Likely,
        };
        assert_eq!(
            virtualization(Some(&kvm)),
            "KVM without DMI tables, likely Firecracker because it has only virtio devices"
        );
        assert_eq!(
            virtualization(None),
            "none detected, because the CPU has no hypervisor flag"
        );
        assert_eq!(ksm(Some("0")), "off");
        let env = Environment::default();
        let lines = fields(&env);
        assert_eq!(lines[0].0, "kernel_release");
        assert!(
            lines
                .iter()
                .any(|(n, v)| *n == "mthp_enabled" && v == "none")
        );
    }
}
