//! `pretouch jdks`: the JDKs this machine has.

use crate::cmd::cli::JdksArgs;
use crate::machine::discover;
use crate::session::error::bad;

pub(crate) fn cmd_jdks(args: &JdksArgs) -> anyhow::Result<u8> {
    let mut sources = discover::Sources::from_environment();
    for dir in &args.dirs {
        if !dir.is_dir() {
            return Err(bad(anyhow::anyhow!(
                "--dir {}: not a folder\n  fix: give a folder of JDKs, like {}",
                dir.display(),
                discover::PROJECT_JDKS_DIR
            )));
        }
        sources.jdk_dirs.push(dir.clone());
    }
    let installed = discover::discover(&sources);
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
