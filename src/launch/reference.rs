//! An agent-free reference measurement, for the benchmarks: a class whose `main` prints
//! `System.nanoTime()` (CLOCK_MONOTONIC on Linux, like the agent's stamps), so that
//! time-to-main = printed value - CLOCK_MONOTONIC read just before the spawn.

use std::path::{Path, PathBuf};

use crate::launch::classfile;
use crate::launch::interrupt::{Interrupt, StopBy};
use crate::units::Nanos;

/// A scratch folder holding the reference class and the built-in main class.
pub struct ReferenceClasses {
    dir: tempfile::TempDir,
}

impl ReferenceClasses {
    pub fn new() -> std::io::Result<ReferenceClasses> {
        let dir = tempfile::Builder::new().prefix("pretouch-ref-").tempdir()?;
        std::fs::write(
            dir.path()
                .join(format!("{}.class", classfile::NANOTIME_CLASS)),
            classfile::nanotime_class(),
        )?;
        std::fs::write(
            dir.path().join(format!("{}.class", classfile::MAIN_CLASS)),
            classfile::main_class(),
        )?;
        Ok(ReferenceClasses { dir })
    }

    pub fn classpath(&self) -> &Path {
        self.dir.path()
    }

    pub fn scratch(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }
}

/// Launches `java <jvm_args> -cp <dir> PretouchNanoTime` (confined to `cpus` when given)
/// and returns its time to `main()`; a signal to `interrupt` kills it.
pub fn nanotime_time_to_main(
    java: &Path,
    jvm_args: &[String],
    classes: &ReferenceClasses,
    cpus: Option<&[usize]>,
    interrupt: &Interrupt,
) -> Result<Nanos, String> {
    let mut args = jvm_args.to_vec();
    args.push("-cp".to_owned());
    args.push(classes.classpath().display().to_string());
    args.push(classfile::NANOTIME_CLASS.to_owned());
    let cpus = cpus.map(<[usize]>::to_vec);
    let expression = duct::cmd(java, &args)
        .before_spawn(move |command| {
            if let Some(cpus) = &cpus {
                crate::matrix::cpuset::confine(command, cpus);
            }
            Ok(())
        })
        .stdin_null()
        .stdout_capture()
        .stderr_capture()
        .unchecked();
    let spawn = Nanos::monotonic_now();
    let output = interrupt
        .run(&expression, StopBy::Kill)
        .map_err(|e| e.to_string())?;
    if !output.status.success() {
        return Err(format!(
            "{} exited with {}: {}",
            java.display(),
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    let printed: u64 = String::from_utf8_lossy(&output.stdout)
        .trim()
        .parse()
        .map_err(|_| {
            format!(
                "unexpected output {:?}",
                String::from_utf8_lossy(&output.stdout)
            )
        })?;
    Nanos(printed)
        .since(spawn)
        .ok_or_else(|| "nanoTime earlier than the spawn: not CLOCK_MONOTONIC?".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reference class really runs, on the JDK the environment selects.
    #[test]
    fn reference_class_prints_a_monotonic_time_after_the_spawn() {
        let jdk = crate::machine::jdk::Jdk::from_environment()
            .or_else(|_| crate::machine::jdk::Jdk::resolve("/usr/lib/jvm/java-17-openjdk-amd64"))
            .expect("a JDK: sudo apt-get install -y openjdk-17-jdk-headless");
        let classes = ReferenceClasses::new().unwrap();
        let t = nanotime_time_to_main(
            &jdk.java,
            &["-Xmx64m".to_owned()],
            &classes,
            None,
            &Interrupt::new(),
        )
        .unwrap();
        // A JVM takes milliseconds to start, and less than a minute.
        assert!(t.0 > 1_000_000 && t.0 < 60_000_000_000, "{t}");
    }
}
