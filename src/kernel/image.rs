//! What a kernel image says of itself, read from the file before it boots.

use std::path::Path;

/// The kernel release written in an x86 bzImage's setup header (`kernel_version`, the
/// first word of the string the header points at), e.g. `6.12.117+deb12-amd64`. `None`
/// for anything else (another architecture's image, a file that is no kernel).
pub fn image_release(path: &Path) -> Option<String> {
    use std::io::{Read, Seek, SeekFrom};
    let mut file = std::fs::File::open(path).ok()?;
    let mut setup = [0u8; 0x210];
    file.read_exact(&mut setup).ok()?;
    if &setup[0x202..0x206] != b"HdrS" {
        return None;
    }
    let offset = u16::from_le_bytes([setup[0x20e], setup[0x20f]]);
    if offset == 0 {
        return None;
    }
    file.seek(SeekFrom::Start(u64::from(offset) + 0x200)).ok()?;
    let mut text = [0u8; 256];
    let n = file.read(&mut text).ok()?;
    let text = &text[..n];
    let end = text.iter().position(|&b| b == 0).unwrap_or(text.len());
    let release = std::str::from_utf8(&text[..end])
        .ok()?
        .split_whitespace()
        .next()?;
    Some(release.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_release_from_a_bzimage_header() {
        let dir = tempfile::tempdir().unwrap();
        let mut image = vec![0u8; 0x400];
        image[0x202..0x206].copy_from_slice(b"HdrS");
        // kernel_version points at 0x100 past the setup start (file offset 0x300).
        image[0x20e..0x210].copy_from_slice(&0x100u16.to_le_bytes());
        let version = b"6.18.0-rc1-test (me@box) #3 SMP\0";
        image[0x300..0x300 + version.len()].copy_from_slice(version);
        let path = dir.path().join("bzImage");
        std::fs::write(&path, &image).unwrap();
        assert_eq!(image_release(&path).as_deref(), Some("6.18.0-rc1-test"));
        std::fs::write(&path, b"not a kernel").unwrap();
        assert_eq!(image_release(&path), None);
        // Real images, where the machine has them: the release is the file name's tail.
        for entry in std::fs::read_dir("/boot").into_iter().flatten().flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if let Some(release) = name.strip_prefix("vmlinuz-") {
                assert_eq!(image_release(&entry.path()).as_deref(), Some(release));
            }
        }
    }
}
