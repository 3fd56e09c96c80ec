//! One real boot: `pretouch run --kernel /boot/vmlinuz-*` starts virtme-ng, which boots
//! the kernel in QEMU (under TCG emulation where there is no hardware virtualization),
//! and the guest runs a tiny matrix (64m heap, one repetition) with this build. Skipped,
//! saying why, when QEMU, virtme-ng or a kernel image with its modules is absent
//! (`scripts/setup-vm.sh` installs them), or when PRETOUCH_SKIP_VM_TEST is set.
//!
//! On a 2-vCPU VM without hardware virtualization this takes one to two minutes, most of
//! it the emulated boot; the guest gets one vCPU. It runs at normal priority, with a boot
//! timeout of 30 minutes: under `nice -n 19` beside `stress-ng --cpu 2` started from the
//! same session (scripts/stress-suite.sh), QEMU got about 1% of a CPU and the boot
//! outlasted the default 10-minute timeout (2026-12-01), a failure by load, not by the
//! code.

mod common;

use std::process::Command;
use std::time::Instant;

use common::{jdks, records};

/// Counted as every skip is (`common::skipped`, read by `.ci/run`): `needs` names what
/// is missing, which scripts/setup-vm.sh installs.
fn skip(needs: &str) {
    common::skipped(
        "a_real_kernel_boots_and_runs_the_matrix_in_its_vm",
        needs,
        "no kernel is booted in a VM; scripts/setup-vm.sh installs QEMU, virtme-ng and two \
         Debian kernels (unset PRETOUCH_SKIP_VM_TEST to run it)",
    );
}

#[test]
fn a_real_kernel_boots_and_runs_the_matrix_in_its_vm() {
    let (vng, image, release) = match common::vm_guest() {
        Ok(guest) => guest,
        Err(needs) => return skip(needs),
    };
    let dir = tempfile::tempdir().unwrap();
    let matrix = dir.path().join("tiny.yaml");
    std::fs::write(
        &matrix,
        format!(
            "name: tiny\njdks: [{:?}]\ngcs: [g1]\nheaps: [64m]\nrepetitions: 1\n",
            jdks()[0].display().to_string()
        ),
    )
    .unwrap();
    let results = dir.path().join("results");
    let start = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_pretouch"))
        .arg("run")
        .args(["--vm-boot-timeout", "1800"])
        .arg(&matrix)
        .arg("--kernel")
        .arg(&image)
        .args(["--vm-cpus", "1"])
        // The agent built into pretouch: the guest's pretouch makes its own memfd of it.
        .env_remove("PRETOUCH_AGENT")
        .arg("--results")
        .arg(&results)
        .env("PRETOUCH_VNG", &vng)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    eprintln!(
        "kernels_vm: {} booted and ran in {:.0} s",
        image.display(),
        start.elapsed().as_secs_f64()
    );
    assert!(out.status.success(), "{stderr}");

    // From /proc/cpuinfo and /dev/kvm, read by the test, not by the detection under test.
    let emulated = !common::kvm_usable();
    let label = if emulated {
        format!("{release}-EMULATED")
    } else {
        release.clone()
    };
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains(&label), "{stdout}");
    let records = records(&results);
    let header = records.iter().find(|r| r["record"] == "run").unwrap();
    // The guest's own kernel, and the VM's shape as the host saw it.
    assert_eq!(header["label"], label.as_str());
    assert!(
        header["agent"]
            .as_str()
            .unwrap()
            .starts_with("/proc/self/fd/")
    );
    assert_eq!(
        header["agent_sha256"],
        pretouch::launch::agent::EMBEDDED_SHA256
    );
    assert_eq!(header["host"]["kernel_release"], release.as_str());
    assert_eq!(header["env"]["kernel_release"], release.as_str());
    assert_eq!(header["env"]["cpus"], 1);
    let vm = &header["vm"];
    assert_eq!(vm["emulated"], emulated);
    assert_eq!(vm["vcpus"], 1);
    assert_eq!(vm["prealloc"], true);
    assert!(
        vm["qemu_version"]
            .as_str()
            .unwrap()
            .starts_with("QEMU emulator version"),
        "{vm}"
    );
    assert!(
        vm["vng_version"].as_str().unwrap().starts_with("virtme-ng"),
        "{vm}"
    );
    assert_eq!(vm["image"], image.display().to_string().as_str());
    let launches: Vec<_> = records.iter().filter(|r| r["record"] == "launch").collect();
    assert_eq!(launches.len(), 2);
    assert!(
        launches
            .iter()
            .all(|l| l["failure"].is_null() && l["time_to_main_ns"].is_u64()),
        "{launches:?}"
    );
    assert!(records.iter().any(|r| r["record"] == "end"));
    if emulated {
        assert!(stderr.contains("!!! EMULATED"), "{stderr}");
    }
}
