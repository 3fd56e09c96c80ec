//! `pretouch jdks`: the JDKs this machine has.

use crate::cmd::error::bad;
use crate::machine::discover;

pub(crate) fn cmd_jdks() -> anyhow::Result<u8> {
    let installed = discover::discover(&discover::Sources::from_environment());
    if installed.is_empty() {
        return Err(bad(anyhow::anyhow!(
            "no JDK found under {}, at JAVA_HOME or on PATH\n  fix: `{}`",
            discover::JVM_DIR,
            crate::machine::jdk::DEBIAN_JDK_INSTALL
        )));
    }
    print!("{}", crate::render::jdks::table(&installed));
    Ok(0)
}
