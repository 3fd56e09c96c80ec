//! Builds the agent library (`jvm-agent/`, a cdylib) so that `pretouch` can carry it:
//! `src/launch/agent.rs` embeds the file with `include_bytes!`, so that one binary, copied
//! alone or installed by `cargo install`, measures as the built tree does.
//!
//! In the workspace the agent is the crate `jvm-agent/crate/Cargo.toml`. The published
//! crate has no such file, because cargo leaves out every folder that holds a Cargo.toml,
//! so it carries `jvm-agent/src/` and `jvm-agent/packaged.toml`; this script copies them
//! into OUT_DIR, with the profiles of pretouch's own manifest, and builds them there.
//!
//! Cargo cannot depend on a cdylib's file on stable (artifact dependencies are
//! nightly-only), so this script runs a second cargo on the agent crate. That cargo gets a
//! target folder of its own under OUT_DIR, because the outer one holds the lock of the
//! workspace's. It builds with the outer build's profile and inherits its rustc flags
//! (cargo reads `CARGO_ENCODED_RUSTFLAGS`, which it sets for build scripts), so that the
//! embedded library is the one `cargo build -p pretouch-agent` makes at
//! `target/<profile>/`: `tests/install.rs` checks that they are the same bytes. (A build
//! of the whole workspace may not be: features unified with the other crates' change
//! the agent's dependencies, and so its symbol hashes.)
//!
//! Also sets `PRETOUCH_AGENT_SHA256` and `PRETOUCH_GIT_COMMIT` for `pretouch --version`.

use std::path::{Path, PathBuf};
use std::process::Command;

use sha2::{Digest, Sha256};

fn main() {
    let manifest_dir = PathBuf::from(env("CARGO_MANIFEST_DIR"));
    let out_dir = PathBuf::from(env("OUT_DIR"));
    for path in ["jvm-agent", "Cargo.lock", "Cargo.toml"] {
        println!(
            "cargo::rerun-if-changed={}",
            manifest_dir.join(path).display()
        );
    }

    // `run --probe` ends bpftrace with a uprobe on this function of the runner
    // (src/launch/probe.rs). The release profile strips the symbol table, so the linker
    // lists the function among the dynamic symbols, which stripping keeps.
    println!("cargo::rustc-link-arg-bin=pretouch=-Wl,--export-dynamic-symbol=pretouch_probe_stop");

    let library = build_agent(&manifest_dir, &out_dir);
    let bytes = std::fs::read(&library)
        .unwrap_or_else(|e| panic!("reading the built agent {}: {e}", library.display()));
    println!("cargo::rustc-env=PRETOUCH_AGENT_LIB={}", library.display());
    println!(
        "cargo::rustc-env=PRETOUCH_AGENT_SHA256={:x}",
        Sha256::digest(&bytes)
    );
    println!(
        "cargo::rustc-env=PRETOUCH_GIT_COMMIT={}",
        git_commit(&manifest_dir)
    );
}

fn env(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| panic!("cargo sets {name} for build scripts"))
}

/// The agent crate's manifest: the workspace's, or, in the published crate, a copy of
/// the sources made in OUT_DIR.
fn agent_manifest(manifest_dir: &Path, out_dir: &Path) -> PathBuf {
    let in_workspace = manifest_dir.join("jvm-agent/crate/Cargo.toml");
    if in_workspace.exists() {
        return in_workspace;
    }
    let crate_dir = out_dir.join("agent-crate");
    let _ = std::fs::remove_dir_all(&crate_dir);
    copy_dir(&manifest_dir.join("jvm-agent/src"), &crate_dir.join("src"));
    let template = read(&manifest_dir.join("jvm-agent/packaged.toml"));
    let manifest = crate_dir.join("Cargo.toml");
    let ours = read(&manifest_dir.join("Cargo.toml"));
    write(&manifest, &format!("{template}\n{}", profiles(&ours)));
    // The versions pretouch was published with, for the dependencies both share; cargo
    // resolves the agent's others.
    let lock = manifest_dir.join("Cargo.lock");
    if lock.exists() {
        write(&crate_dir.join("Cargo.lock"), &read(&lock));
    }
    manifest
}

/// The `[profile.*]` tables of a manifest, as written, so that the agent built outside
/// the workspace is built as the binary that embeds it.
fn profiles(manifest: &str) -> String {
    let mut out = String::new();
    let mut inside = false;
    for line in manifest.lines() {
        if line.starts_with('[') {
            inside = line.starts_with("[profile.");
        }
        if inside {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()))
}

fn write(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap_or_else(|e| panic!("writing {}: {e}", path.display()));
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap_or_else(|e| panic!("creating {}: {e}", to.display()));
    let entries =
        std::fs::read_dir(from).unwrap_or_else(|e| panic!("reading {}: {e}", from.display()));
    for entry in entries {
        let entry = entry.unwrap_or_else(|e| panic!("reading {}: {e}", from.display()));
        let (source, target) = (entry.path(), to.join(entry.file_name()));
        if source.is_dir() {
            copy_dir(&source, &target);
        } else {
            std::fs::copy(&source, &target)
                .unwrap_or_else(|e| panic!("copying {}: {e}", source.display()));
        }
    }
}

/// Runs `cargo build` on the agent crate with the outer build's profile and target;
/// returns the cdylib it wrote.
fn build_agent(manifest_dir: &Path, out_dir: &Path) -> PathBuf {
    // OUT_DIR is <target>/[<triple>/]<profile dir>/build/pretouch-<hash>/out; the profile
    // folder is named after the profile, but `dev`'s is `debug`.
    let profile_dir = out_dir
        .ancestors()
        .nth(3)
        .and_then(Path::file_name)
        .and_then(|n| n.to_str())
        .expect("OUT_DIR is <target>/<profile>/build/<pkg>/out")
        .to_owned();
    let profile = match profile_dir.as_str() {
        "debug" => "dev",
        other => other,
    };
    let target_dir = out_dir.join("agent-target");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = Command::new(cargo);
    command
        .arg("build")
        .arg("--manifest-path")
        .arg(agent_manifest(manifest_dir, out_dir))
        .args(["--lib", "--profile", profile])
        .arg("--target-dir")
        .arg(&target_dir)
        // `cargo clippy` sets a wrapper for the workspace's crates; the agent is linted
        // by the outer clippy already, and this build must produce the library.
        .env_remove("RUSTC_WORKSPACE_WRAPPER");
    // Only a build given `--target` has the triple in its paths; passing `--target`
    // otherwise would change the library's symbol hashes from the workspace build's.
    let target = env("TARGET");
    let mut built = target_dir.clone();
    let cross = out_dir.ancestors().nth(4).and_then(Path::file_name) == Some(target.as_ref());
    if cross {
        command.args(["--target", &target]);
        built.push(&target);
    }
    let status = command
        .status()
        .unwrap_or_else(|e| panic!("starting cargo to build the agent: {e}"));
    assert!(
        status.success(),
        "building the agent crate (jvm-agent) failed: {status}"
    );
    built.join(&profile_dir).join("libpretouch_agent.so")
}

/// The commit the binary was built from; `unknown` outside a git checkout.
fn git_commit(manifest_dir: &Path) -> String {
    let git = |args: &[&str]| {
        Command::new("git")
            .arg("-C")
            .arg(manifest_dir)
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
    };
    let Some(commit) = git(&["rev-parse", "--short=12", "HEAD"]) else {
        return "unknown".to_owned();
    };
    // A new commit moves HEAD or the branch it names; rebuild then.
    let mut watched = vec!["HEAD".to_owned()];
    watched.extend(git(&["symbolic-ref", "-q", "HEAD"]));
    for name in watched {
        // A packed ref has no file of its own; watching a missing file reruns every build.
        if let Some(p) = git(&["rev-parse", "--git-path", &name]).map(|p| manifest_dir.join(p))
            && p.exists()
        {
            println!("cargo::rerun-if-changed={}", p.display());
        }
    }
    commit
}
