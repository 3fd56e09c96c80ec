//! The checks a run makes against this machine before the first JVM starts: JDKs,
//! CPU sets, memory, the `app:` paths and the label.

use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::cmd::error::bad;
use crate::machine::jdk::Jdk;
use crate::machine::topology::{self, Placement};
use crate::machine::{discover, memory};
use crate::matrix::Matrix;
use crate::matrix::app::App;
use crate::matrix::cpuset;

/// Refuses (bad input) a run while a variable the JVM reads options from is set, unless
/// `pass`: then its options go into the matrix's flags, before the command line's or
/// after the variant's as the JVM places them, and the variable leaves this process's
/// environment, so that no JVM started from here reads it as well.
pub(crate) fn check_java_env(matrix: &mut Matrix, pass: bool) -> anyhow::Result<()> {
    use crate::launch::java_env;
    let options = java_env::read(|name| std::env::var(name).ok(), pass).map_err(bad)?;
    if options.set.is_empty() {
        return Ok(());
    }
    for (name, value) in &options.set {
        eprintln!("--pass-java-options: {name}={value:?} goes on every launch's command line");
        // SAFETY: called before the run starts any thread (the signal handlers, the
        // progress bar and the launches come later), so nothing reads the environment
        // while it changes.
        unsafe { std::env::remove_var(name) };
    }
    matrix.jvm_args.splice(0..0, options.front.iter().cloned());
    for variant in &mut matrix.variants {
        variant.jvm_args.extend(options.back.iter().cloned());
    }
    Ok(())
}

/// Refuses (bad input) a matrix whose largest heap does not fit in the available
/// memory, unless `force`.
pub(crate) fn check_memory(matrix: &Matrix, force: bool) -> anyhow::Result<()> {
    let Some(available) = memory::mem_available() else {
        eprintln!("warning: cannot read MemAvailable from /proc/meminfo; heap sizes not checked");
        return Ok(());
    };
    match memory::check(matrix, available) {
        Ok(()) => Ok(()),
        Err(e) if force => {
            eprintln!("warning: {e}\n  --force: running anyway");
            Ok(())
        }
        Err(e) => Err(bad(e)),
    }
}

pub(crate) fn resolve_jdks(matrix: &Matrix, probe: bool) -> anyhow::Result<Vec<Jdk>> {
    let Some(specs) = &matrix.jdks else {
        return Ok(vec![if probe {
            Jdk::from_environment()?
        } else {
            discover::environment_jdk_without_jvm()?
        }]);
    };
    let installed = discover::discover(&discover::Sources::from_environment());
    discover::resolve_specs(specs, &installed, probe).map_err(|(spec, e)| {
        e.context(match line_of(&matrix.text, &spec) {
            Some(line) => format!("matrix `{}`, line {line}: jdks", matrix.origin),
            None => format!("matrix `{}`: jdks", matrix.origin),
        })
    })
}

/// Resolves the matrix's CPU sets on this machine (topology specs pick their CPUs from
/// sysfs) and refuses a set this machine cannot meet: CPUs it does not have (offline,
/// absent, or outside the runner's affinity), or more domains than it has. Returns where
/// each set lies, for the run header.
pub(crate) fn check_cpus(matrix: &mut Matrix) -> anyhow::Result<Vec<Placement>> {
    if matrix.cpus.iter().all(|s| *s == cpuset::CpuSet::All) {
        return Ok(Vec::new());
    }
    let mut placements = Vec::new();
    for set in &mut matrix.cpus {
        let text = set.to_string();
        let (resolved, placement) = topology::resolve_here(set).map_err(|why| {
            let at = match line_of(&matrix.text, &text) {
                Some(line) => format!("matrix `{}`, line {line}", matrix.origin),
                None => format!("matrix `{}`", matrix.origin),
            };
            anyhow::anyhow!("{at}: {why}")
        })?;
        *set = resolved;
        placements.push(placement);
    }
    Ok(placements)
}

/// The matrix's `app:`, with paths relative to the matrix file's folder.
/// The matrix's `app:`, resolved against the disk. `build`: first build its jar from
/// `sources` when that is stale, with one of `jdks` (not in a dry run).
pub(crate) fn resolve_app(
    matrix: &Matrix,
    file: Option<&Path>,
    jdks: &[Jdk],
    build: bool,
) -> anyhow::Result<Option<App>> {
    let Some(spec) = &matrix.app else {
        return Ok(None);
    };
    let base = file
        .and_then(Path::parent)
        .filter(|p| !p.as_os_str().is_empty())
        .map_or_else(|| PathBuf::from("."), Path::to_owned);
    let base = std::path::absolute(&base).unwrap_or(base);
    if build
        && let Some((sources, jar, main)) = spec.build_from(&base)
        && crate::machine::app_build::needs_build(&sources, &jar)
    {
        eprintln!("building `{}` from `{}`", jar.display(), sources.display());
        let homes: Vec<&Path> = jdks.iter().map(|j| j.home.as_path()).collect();
        crate::machine::app_build::build(&homes, &sources, &jar, main)
            .with_context(|| format!("matrix `{}`", matrix.origin))?;
    }
    let app = spec
        .resolve(&base)
        .with_context(|| format!("matrix `{}`", matrix.origin))?;
    crate::cmd::server_checks::check_server(&app, matrix)?;
    Ok(Some(app))
}

/// The line a value is written on, for messages about values checked after parsing.
pub(crate) fn line_of(text: &str, value: &str) -> Option<usize> {
    text.lines().position(|l| l.contains(value)).map(|i| i + 1)
}

pub(crate) fn check_label(label: &str) -> anyhow::Result<()> {
    if label.is_empty() || label.contains('/') || label.starts_with('.') {
        anyhow::bail!("invalid label {label:?}: it names a folder, so no `/` and no leading `.`");
    }
    Ok(())
}
