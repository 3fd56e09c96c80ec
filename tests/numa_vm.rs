//! The NUMA instrument on two nodes: the test boots a kernel under virtme-ng in QEMU
//! with two NUMA nodes of 1 GiB and one vCPU each, and the guest runs this build's
//! `pretouch run` on a tiny matrix with `numa: true` and a `-XX:+UseNUMA` variant. The
//! test drives `vng` itself, because `pretouch run --kernel` gives its guests one node,
//! and the kernels' runner takes no QEMU options of a feature.
//!
//! It asserts what the kernel and the JVM must do, not times: the guest has two nodes,
//! every launch records its heap's pages on nodes 0 and 1 only, a pretouched heap is
//! resident whole and a heap without pretouch is not, and G1 with `-XX:+UseNUMA` asks for
//! its regions on both nodes, so a pretouched heap has pages on each. Skipped, saying
//! why, as `tests/kernels_vm.rs` is: when QEMU, virtme-ng or a kernel image with its
//! modules is absent (`scripts/setup-vm.sh` installs them), or when
//! PRETOUCH_SKIP_VM_TEST is set. Under TCG it takes a few minutes, most of it the
//! emulated boot and JVMs.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use common::{jdks, records};

const TEST: &str = "a_guest_of_two_nodes_records_the_heap_on_both";

/// Counted as every skip is (`common::skipped`, read by `.ci/run`).
fn skip(needs: &str) {
    common::skipped(
        TEST,
        needs,
        "no guest of two NUMA nodes is booted; scripts/setup-vm.sh installs QEMU, \
         virtme-ng and two Debian kernels (unset PRETOUCH_SKIP_VM_TEST to run it)",
    );
}

/// The script the guest runs: the nodes it sees, then the run, then its exit status.
fn guest_script(work: &Path, matrix: &Path) -> String {
    let w = |name: &str| work.join(name).display().to_string();
    format!(
        "#!/bin/sh\n\
         cat /sys/devices/system/node/online > '{nodes}'\n\
         PRETOUCH_CACHE_DIR='{cache}' '{pretouch}' run '{matrix}' --label guest --results '{results}' > '{out}' 2>&1\n\
         echo $? > '{exit}'\n",
        nodes = w("nodes"),
        cache = w("cache"),
        pretouch = env!("CARGO_BIN_EXE_pretouch"),
        matrix = matrix.display(),
        results = w("results"),
        out = w("out"),
        exit = w("exit"),
    )
}

/// Runs `vm` with its output in `console`, in a process group of its own, and ends the
/// group (vng and the QEMU it starts) when it outlasts `deadline`. Whether it ended by
/// itself.
fn run_with_deadline(vm: &mut Command, console: &Path, deadline: Duration) -> bool {
    use std::os::unix::process::CommandExt;
    let file = std::fs::File::create(console).unwrap();
    let mut child = vm
        .stdin(std::process::Stdio::null())
        .stdout(file.try_clone().unwrap())
        .stderr(file)
        .process_group(0)
        .spawn()
        .unwrap();
    let start = Instant::now();
    while start.elapsed() < deadline {
        if child.try_wait().unwrap().is_some() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(500));
    }
    let group = libc::pid_t::try_from(child.id()).unwrap();
    // SAFETY: kill(2) has no memory effects; the group is the one made above.
    unsafe { libc::kill(-group, libc::SIGKILL) };
    let _ = child.wait();
    false
}

#[test]
fn a_guest_of_two_nodes_records_the_heap_on_both() {
    let (vng, image, _) = match common::vm_guest() {
        Ok(guest) => guest,
        Err(needs) => return skip(needs),
    };
    let _jvm = common::jvm_lock();
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path();
    let heap: u64 = 128 << 20;
    let matrix = work.join("numa.yaml");
    std::fs::write(
        &matrix,
        format!(
            "name: numa\njdks: [{:?}]\ngcs: [g1]\nheaps: [128m]\nrepetitions: 1\nnuma: true\n\
             variants:\n  - name: default\n    jvm_args: []\n  - name: usenuma\n    jvm_args: [\"-XX:+UseNUMA\"]\n",
            jdks()[0].display().to_string()
        ),
    )
    .unwrap();
    let script = work.join("guest.sh");
    std::fs::write(&script, guest_script(work, &matrix)).unwrap();
    // vng runs `virtme-run` from PATH: vng's own folder (a venv's bin) first.
    let mut path: Vec<PathBuf> = vng.parent().map(Path::to_owned).into_iter().collect();
    path.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    let mut vm = Command::new(&vng);
    vm.env("PATH", std::env::join_paths(path).unwrap())
        .arg("--run")
        .arg(&image)
        .args(["--verbose", "--cpus", "2", "--memory", "2G"])
        .args(["--numa", "1G,cpus=0", "--numa", "1G,cpus=1"])
        .arg("--rwdir")
        .arg(work);
    if !common::kvm_usable() {
        // As the kernels' runner does under emulation (src/features/kernels/launch.rs).
        vm.args(["--disable-kvm", "--append", "no_timer_check"]);
    }
    let start = Instant::now();
    let console_file = work.join("console");
    let ended = run_with_deadline(
        vm.arg("--").arg("/bin/sh").arg(&script),
        &console_file,
        // As tests/kernels_vm.rs allows a boot under load.
        Duration::from_secs(1800),
    );
    let console = std::fs::read_to_string(&console_file).unwrap_or_default();
    let lines: Vec<&str> = console.lines().collect();
    let console_tail = lines[lines.len().saturating_sub(40)..].join("\n");
    assert!(
        ended,
        "the guest did not end within 30 minutes:\n{console_tail}"
    );
    eprintln!(
        "numa_vm: {} booted with two nodes and ran in {:.0} s",
        image.display(),
        start.elapsed().as_secs_f64()
    );
    let read = |name: &str| std::fs::read_to_string(work.join(name)).unwrap_or_default();
    assert_eq!(
        read("nodes").trim(),
        "0-1",
        "the guest sees two nodes; the console's end:\n{console_tail}"
    );
    assert_eq!(
        read("exit").trim(),
        "0",
        "the run in the guest:\n{}",
        read("out")
    );

    let records = records(&work.join("results"));
    let launches: Vec<&serde_json::Value> = records
        .iter()
        .filter(|r| r["record"] == "launch" && r["warmup"] == false)
        .collect();
    assert_eq!(launches.len(), 4, "2 variants x with/without pretouch");
    for l in &launches {
        assert!(l["failure"].is_null(), "{l}");
        let numa = &l["numa"];
        let pages = numa["pages"].as_object().unwrap_or_else(|| panic!("{l}"));
        assert!(
            pages.keys().all(|node| node == "0" || node == "1"),
            "{numa}"
        );
        let page_size = numa["page_size"].as_u64().unwrap();
        let on = |node: &str| pages.get(node).map_or(0, |p| p.as_u64().unwrap()) * page_size;
        let bytes = on("0") + on("1");
        let pretouch = l["pretouch"] == true;
        let variant = l["variant"].as_str().unwrap();
        eprintln!(
            "numa_vm: {variant} pretouch={pretouch}: node 0 {} KiB, node 1 {} KiB, policies {}",
            on("0") >> 10,
            on("1") >> 10,
            numa["policies"]
        );
        if pretouch {
            assert!(bytes >= heap * 95 / 100, "pretouched whole: {numa}");
        } else {
            assert!(bytes < heap / 2, "not pretouched: {numa}");
        }
        if pretouch && variant == "usenuma" {
            assert!(
                on("0") >= heap / 8 && on("1") >= heap / 8,
                "G1 with -XX:+UseNUMA asks for its regions on both nodes: {numa}"
            );
        }
    }
}
