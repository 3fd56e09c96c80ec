//! The `kernels:` key: run the whole matrix once per kernel, each booted in a VM with
//! virtme-ng (`pretouch run --kernel IMAGE` says the same on the command line). Parsed
//! with the matrix (stage 1); the images are checked against the disk, and booted, by
//! the commands above.
//!
//! ```yaml
//! kernels:
//!   - image: /boot/vmlinuz-6.12.117+deb12-amd64
//!   - image: ~/linux/arch/x86/boot/bzImage
//!     cmdline: transparent_hugepage=always
//!     label: patched-thp
//! ```

use serde::{Deserialize, Deserializer};

use crate::kernel::KernelSpec;

/// One entry of `kernels:` as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawKernelFields {
    image: String,
    #[serde(default)]
    cmdline: Option<String>,
    #[serde(default)]
    label: Option<String>,
}

/// `kernels:` parsed and checked for shape: non-empty, no empty image, labels that
/// can name a folder, no two entries alike.
#[derive(Debug)]
pub struct RawKernels(pub Vec<KernelSpec>);

impl<'de> Deserialize<'de> for RawKernels {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let raw = Vec::<RawKernelFields>::deserialize(d)?;
        let kernels: Vec<KernelSpec> = raw
            .into_iter()
            .map(|k| KernelSpec {
                image: k.image,
                cmdline: k.cmdline.filter(|c| !c.trim().is_empty()),
                label: k.label,
            })
            .collect();
        crate::kernel::list::check(&kernels).map_err(D::Error::custom)?;
        Ok(RawKernels(kernels))
    }
}

/// The `kernels:` key of the matrix: each kernel booted in a VM that runs the matrix.
/// Without them, the run runs on this machine's kernel.
pub struct KernelsKey;

impl crate::matrix::parts::MatrixKey for KernelsKey {
    type Value = Vec<KernelSpec>;
    const AFTER: &'static str = "probe";

    fn read<'de, A: serde::de::MapAccess<'de>>(map: &mut A) -> Result<Vec<KernelSpec>, A::Error> {
        crate::matrix::parts::read_as(map, |k: RawKernels| k.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(yaml: &str) -> Result<Vec<KernelSpec>, String> {
        serde_yaml::from_str::<RawKernels>(yaml)
            .map(|k| k.0)
            .map_err(|e| e.to_string())
    }

    #[test]
    fn parses_images_cmdlines_and_labels() {
        let k = parse(
            "- image: /boot/a\n- {image: /boot/a, cmdline: 'mitigations=off', label: a-nomit}\n",
        )
        .unwrap();
        assert_eq!(k.len(), 2);
        assert_eq!(k[0].cmdline, None);
        assert_eq!(k[0].label, None);
        assert_eq!(k[1].cmdline.as_deref(), Some("mitigations=off"));
        assert_eq!(k[1].label.as_deref(), Some("a-nomit"));
    }

    #[test]
    fn refuses_what_cannot_be_run_apart() {
        for (yaml, says) in [
            ("[]\n", "empty"),
            ("- image: ''\n", "empty `image`"),
            ("- {image: /a, label: x/y}\n", "invalid label"),
            (
                "- {image: /a, label: x}\n- {image: /b, label: x}\n",
                "given twice",
            ),
            ("- image: /a\n- image: /a\n", "listed twice"),
            ("- {image: /a, kernel: 1}\n", "unknown field"),
        ] {
            let err = parse(yaml).unwrap_err();
            assert!(err.contains(says), "{yaml}: {err}");
        }
        // The same image with another cmdline is another kernel to compare.
        assert!(parse("- image: /a\n- {image: /a, cmdline: x=1}\n").is_ok());
    }
}
