//! Labels run in a VM (`pretouch run --kernel`): a loud warning for each one taken under
//! emulation, whose timings mean nothing, and the VM settings that differ between the
//! labels compared (vCPUs, memory, QEMU), which would explain a difference as well as
//! the kernels would.

use crate::analyze::warning::Warnings;
use crate::store::Results;

/// The VM kernels' warnings of the report: the labels run under emulation and the VM
/// settings that differ, before every other warning.
pub struct KernelWarnings;

/// What `features::analyze::WARNINGS` lists.
pub static WARNINGS: KernelWarnings = KernelWarnings;

impl Warnings for KernelWarnings {
    fn first(&self, results: &Results) -> Vec<String> {
        warnings(results)
    }
}

/// The warnings, emulated labels first, each label once.
pub fn warnings(results: &Results) -> Vec<String> {
    let mut out = Vec::new();
    let mut seen: Vec<&str> = Vec::new();
    let mut shapes = Vec::new();
    for file in &results.files {
        let Some(vm) = &file.header.features.vm else {
            continue;
        };
        let label = file.header.label.as_str();
        if seen.contains(&label) {
            continue;
        }
        seen.push(label);
        shapes.push((label, vm));
        if vm.emulated {
            out.push(format!(
                "EMULATED: label `{label}` ran in a QEMU guest under {} emulation on host {} \
                 (kernel {}; {}): its timings are about 25x slower and say nothing about the \
                 kernel; never publish or compare them",
                vm.accel.to_string().to_uppercase(),
                vm.host_hostname,
                vm.host_kernel_release,
                vm.accel_reason
            ));
        }
    }
    if let Some((first, a)) = shapes.first() {
        for (label, b) in &shapes[1..] {
            let mut differs = Vec::new();
            if a.vcpus != b.vcpus {
                differs.push(format!("vcpus {} vs {}", a.vcpus, b.vcpus));
            }
            if a.memory != b.memory {
                differs.push(format!("memory {} vs {}", a.memory, b.memory));
            }
            if a.accel != b.accel {
                differs.push(format!("accelerator {} vs {}", a.accel, b.accel));
            }
            if a.qemu_version != b.qemu_version {
                differs.push("QEMU version".to_owned());
            }
            if a.host_kernel_release != b.host_kernel_release || a.host_hostname != b.host_hostname
            {
                differs.push("host".to_owned());
            }
            if !differs.is_empty() {
                out.push(format!(
                    "the VMs of `{first}` and `{label}` differ: {}",
                    differs.join(", ")
                ));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::kernels::machine::{Accel, VmShape};
    use crate::units::Bytes;

    fn shape(emulated: bool, vcpus: u32) -> VmShape {
        VmShape {
            accel: if emulated { Accel::Tcg } else { Accel::Kvm },
            emulated,
            accel_reason: "no /dev/kvm".into(),
            qemu_version: Some("QEMU emulator version 10.0.2".into()),
            vng_version: Some("virtme-ng 1.42".into()),
            vcpus,
            memory: Bytes(1 << 30),
            prealloc: true,
            image: "/boot/vmlinuz-a".into(),
            kernel_cmdline: None,
            host_kernel_release: "6.18.44".into(),
            host_kernel_version: "#1".into(),
            host_hostname: "host".into(),
            host_cpu_model: "EPYC".into(),
        }
    }

    fn results(shapes: &[(&str, Option<VmShape>)]) -> Results {
        let files = shapes
            .iter()
            .map(|(label, vm)| {
                let mut f = crate::fixtures::file(
                    label,
                    "2026-11-30T10:00:00Z",
                    crate::fixtures::host("vm"),
                    &[],
                );
                f.header.features.vm = vm.clone().map(Box::new);
                f
            })
            .collect();
        Results {
            files,
            ..Results::default()
        }
    }

    #[test]
    fn the_report_names_emulated_labels_first_and_a_labels_cds_last() {
        use crate::features::cds::launch::Cds;
        let mut r = crate::features::cds::analyze::tests::results([
            Some(Cds::DefaultArchive),
            Some(Cds::NoArchive),
        ]);
        r.files
            .extend(results(&[("a-EMULATED", Some(shape(true, 1)))]).files);
        let w = crate::analyze::build(&r).warnings;
        assert!(w.len() >= 2, "{w:?}");
        assert!(w[0].starts_with("EMULATED: label `a-EMULATED`"), "{w:?}");
        assert!(w[w.len() - 1].contains("21.0.8+9 none"), "{w:?}");
    }

    #[test]
    fn emulated_labels_are_named_loudly_and_real_ones_are_not() {
        let w = warnings(&results(&[
            ("a-EMULATED", Some(shape(true, 1))),
            ("a-EMULATED", Some(shape(true, 1))),
            ("b", Some(shape(false, 1))),
            ("c", None),
        ]));
        assert_eq!(w.len(), 2, "{w:?}");
        assert!(w[0].starts_with("EMULATED: label `a-EMULATED` ran in a QEMU guest under TCG"));
        assert!(w[1].contains("accelerator tcg vs kvm"), "{w:?}");
        assert!(warnings(&results(&[("b", Some(shape(false, 2))), ("c", None)])).is_empty());
    }

    #[test]
    fn vms_of_another_shape_are_said_to_differ() {
        let w = warnings(&results(&[
            ("a", Some(shape(false, 2))),
            ("b", Some(shape(false, 4))),
        ]));
        assert_eq!(w, ["the VMs of `a` and `b` differ: vcpus 2 vs 4"]);
    }
}
