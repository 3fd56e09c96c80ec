//! The kernels a run boots, in VMs or on this machine across reboots: the list checked,
//! and each image found. The runs that boot kernels share it, and each passes the
//! kernels its options and its matrix name.

use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::kernel::KernelSpec;
use crate::kernel::image::image_release;

/// The checks of a list of kernels, from the matrix's `kernels:` or from `--kernel`.
pub fn check(kernels: &[KernelSpec]) -> Result<(), String> {
    if kernels.is_empty() {
        return Err(
            "kernels: the list is empty. Name at least one `image:`, or remove the key.".into(),
        );
    }
    for (i, k) in kernels.iter().enumerate() {
        if k.image.trim().is_empty() {
            return Err(format!(
                "kernels: entry {} has an empty `image`. Give the kernel image's path, such as /boot/vmlinuz-6.12.117+deb12-amd64.",
                i + 1
            ));
        }
        if let Some(label) = &k.label
            && (label.is_empty() || label.contains('/') || label.starts_with('.'))
        {
            return Err(format!(
                "kernels: invalid label {label:?}: it names a folder, so no `/` and no leading `.`"
            ));
        }
        for other in &kernels[..i] {
            if other.label.is_some() && other.label == k.label {
                return Err(format!(
                    "kernels: label {:?} is given twice. Give each kernel its own label.",
                    k.label.as_deref().unwrap_or_default()
                ));
            }
            if other.image == k.image && other.cmdline == k.cmdline {
                return Err(format!(
                    "kernels: image {:?} is listed twice with the same cmdline. Remove one, or give each a different `cmdline:`.",
                    k.image
                ));
            }
        }
    }
    Ok(())
}

/// The kernels to run, as absolute paths that exist: `flags`, the images given on the
/// command line relative to the current folder, or else `from_matrix`, the matrix's
/// `kernels:` relative to `matrix_file`'s folder. `label`, the command line's, names the
/// results of the one kernel there may then be.
pub fn to_run(
    flags: &[PathBuf],
    from_matrix: &[KernelSpec],
    matrix_file: Option<&Path>,
    label: Option<&str>,
) -> anyhow::Result<Vec<KernelSpec>> {
    let (mut specs, base) = if flags.is_empty() {
        let base = matrix_file
            .and_then(Path::parent)
            .filter(|p| !p.as_os_str().is_empty())
            .map_or_else(|| PathBuf::from("."), Path::to_owned);
        (from_matrix.to_vec(), base)
    } else {
        let specs = flags
            .iter()
            .map(|image| KernelSpec {
                image: image.display().to_string(),
                cmdline: None,
                label: None,
            })
            .collect();
        (specs, PathBuf::from("."))
    };
    if let Some(label) = label {
        if specs.len() > 1 {
            anyhow::bail!(
                "--label names the results of one kernel, and {} are to run\n  fix: leave --label out \
                 (each kernel is filed under its release), or give labels in the matrix's `kernels:`",
                specs.len()
            );
        }
        if let Some(first) = specs.first_mut() {
            first.label = Some(label.to_owned());
        }
    }
    check(&specs).map_err(|e| anyhow::anyhow!("{e}"))?;
    for spec in &mut specs {
        let path = std::path::absolute(base.join(&spec.image))
            .with_context(|| format!("kernel image `{}`", spec.image))?;
        if !path.is_file() {
            anyhow::bail!(
                "kernel image `{}` does not exist or is not a file\n  fix: name a built kernel \
                 (arch/x86/boot/bzImage) or an installed one (/boot/vmlinuz-*); \
                 scripts/setup-vm.sh installs two Debian kernels",
                path.display()
            );
        }
        spec.image = path.display().to_string();
    }
    // Two kernels filed under one label would pool their launches: refuse before booting.
    let mut seen: Vec<(String, &str)> = Vec::new();
    for spec in &specs {
        let label = spec
            .label
            .clone()
            .or_else(|| image_release(Path::new(&spec.image)));
        if let Some(label) = label {
            if let Some((_, other)) = seen.iter().find(|(l, _)| *l == label) {
                anyhow::bail!(
                    "kernels `{other}` and `{}` would both be filed under `{label}`\n  fix: give \
                     each a label (matrix `kernels:` with `label:`)",
                    spec.image
                );
            }
            seen.push((label, &spec.image));
        }
    }
    Ok(specs)
}
