//! `pretouch run --dry-run`: the plan and its command lines, checked as a run checks
//! them, but nothing launched.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context;

use crate::launch::{JvmLauncher, agent};
use crate::machine::jdk::Jdk;
use crate::machine::memory;
use crate::matrix::Matrix;
use crate::matrix::app::App;
use crate::matrix::cpuset;
use crate::schedule::plan::Plan;
use crate::schedule::preview;
use crate::session::args::RunArgs;
use crate::session::checks::{self, check_cpus, resolve_app, resolve_jdks};
use crate::session::error::bad;
use crate::session::preflight;

/// `pretouch run --dry-run`: the plan and its command lines, checked as a run checks
/// them, but nothing launched (a matrix naming ZGC or Shenandoah still asks each JDK
/// for its collectors).
pub(super) fn dry_run(args: &RunArgs, mut matrix: Matrix) -> anyhow::Result<u8> {
    let mut jdks = resolve_jdks(&matrix, false).map_err(bad)?;
    let notes = checks::dry_run_collectors(&matrix, &mut jdks)?;
    crate::schedule::plan::check_size(&matrix, jdks.len()).map_err(bad)?;
    check_cpus(&mut matrix).map_err(bad)?;
    let app = resolve_app(&matrix, args.matrix.as_deref(), &jdks, false).map_err(bad)?;
    for note in &notes {
        println!("{note}");
    }
    show_plan(args, &matrix, &jdks, app)
}

fn show_plan(
    args: &RunArgs,
    matrix: &Matrix,
    jdks: &[Jdk],
    app: Option<App>,
) -> anyhow::Result<u8> {
    // A missing --agent file need not stop the plan from being shown.
    let agent = agent::locate_agent(args.agent.as_deref())
        .map_or_else(|_| PathBuf::from(agent::AGENT_FILE), |a| a.path);
    let main = app.as_ref().map(|a| a.main.clone());
    let launcher = JvmLauncher::new(agent, Duration::from_secs(args.timeout))
        .context("creating a scratch folder")?
        .with_app(app)
        .with_jvm_log(!args.no_jvm_log);
    let plan = Plan::new(matrix, jdks).with_app(main.as_deref());
    let scratch = launcher.scratch().display().to_string();
    let available = cpuset::available().map_or(1, |c| c.len());
    let text = preview::render(matrix, &plan, available, &|cell, pretouch| {
        std::iter::once(cell.jdk.java.display().to_string())
            .chain(
                launcher
                    .arguments(&cell.jvm_args(&matrix.jvm_args, pretouch))
                    .into_iter()
                    .map(|a| a.replace(&scratch, "$SCRATCH")),
            )
            .collect()
    });
    print!("{text}");
    println!(
        "$SCRATCH is a temporary folder made for the run. It holds the stamps file and the main class."
    );
    print!(
        "{}",
        preview::detectable(
            matrix,
            &plan,
            available,
            args.features.runs_per_label(),
            &planned_noise(args)
        )
    );
    for line in crate::features::session::Parts::dry_run_lines(args, matrix, plan.cells.len()) {
        println!("{line}");
    }
    if args.comparable_memory || matrix.comparable_memory {
        println!("{}", preflight::comparable_memory_plan(matrix));
    }
    // What a real run would refuse comes last, where it is seen, and sets the exit code,
    // so that a script or a first try learns that the plan cannot run here.
    let mut refusals = Vec::new();
    if let Some(available) = memory::mem_available()
        && let Err(e) = memory::check(matrix, available)
    {
        match args.force {
            true => println!("note: --force runs it anyway, although {e}"),
            false => refusals.push(e.to_string()),
        }
    }
    refusals.extend(results_unwritable(&args.results));
    for refusal in &refusals {
        eprintln!("error: a real run would stop here: {refusal}");
    }
    Ok(match refusals.is_empty() {
        true => 0,
        false => crate::session::error::exit::BAD_INPUT,
    })
}

/// Why a run could not write its results under `results`, if it could not, found
/// without creating anything: the folder, or the nearest folder above it that exists,
/// must be a folder this user may write in.
fn results_unwritable(results: &Path) -> Option<String> {
    let mut at = results.to_path_buf();
    loop {
        match at.metadata() {
            Ok(meta) if !meta.is_dir() => {
                return Some(format!(
                    "`{}` is not a folder, so the results cannot go in `{}`\n  \
                     fix: choose a folder with --results DIR",
                    at.display(),
                    results.display()
                ));
            }
            Ok(_) => break,
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
                ) =>
            {
                at = match at.parent() {
                    Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
                    Some(_) => PathBuf::from("."),
                    None => break,
                };
            }
            Err(_) => break,
        }
    }
    crate::access::reach(&at, crate::access::Need::Write)
        .err()
        .map(|denied| {
            format!(
                "cannot write results in `{}`: {denied}\n  fix: {}, or choose another folder with --results DIR",
                results.display(),
                denied.fix()
            )
        })
}

/// The noise the dry run judges the plan's power by: the last runs in `--results`
/// when it holds any, else the stated defaults.
fn planned_noise(args: &RunArgs) -> preview::PlannedNoise {
    match crate::store::read_results(std::slice::from_ref(&args.results)) {
        Ok(r) if !r.files.is_empty() => preview::PlannedNoise::from_report(
            &crate::analyze::build(&r),
            &args.results.display().to_string(),
        ),
        _ => preview::PlannedNoise::defaults(),
    }
}
