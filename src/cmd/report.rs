//! `pretouch report`: read stored results, analyze, render.

use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::analyze::Options;
use crate::analyze::document;
use crate::analyze::profile::ProfileReport;
use crate::cmd::cli::ReportArgs;
use crate::cmd::error::bad;
use crate::render::common::Format;
use crate::render::document::render as render_document;
use crate::render::plot;
use crate::store::read::{Catalog, catalog_for_report};

pub(crate) fn cmd_report(args: ReportArgs) -> anyhow::Result<u8> {
    let paths = if args.paths.is_empty() {
        vec![PathBuf::from("results")]
    } else {
        args.paths.clone()
    };
    let options = Options {
        labels: args.labels.clone(),
        baseline: args.baseline.clone(),
        exclude_outliers: args.exclude_outliers,
        phases: args.phases,
        // The HTML page holds the profile and its flame graphs whenever there is one.
        profile: args.profile
            || args.flamegraph.is_some()
            || args.profile_csv.is_some()
            || args.format == Format::Html,
        show_profile: args.profile,
        calibrate: args.calibrate,
        baseline_setting: args.baseline_setting.clone(),
    };
    let doc = if args.calibrate {
        // The result files' damaged lines are warned about, their launches never kept.
        let catalog = catalog_for_report(&paths).map_err(bad)?;
        for w in catalog.read_warnings().map_err(bad)? {
            eprintln!("warning: {w}");
        }
        document::build_read(catalog, &options).map_err(bad)?
    } else {
        document::build_read(catalog(&paths)?, &options).map_err(bad)?
    };
    let profile = doc.launches.as_ref().and_then(|l| l.profile.as_ref());
    if let (Some(dir), Some(profile)) = (&args.flamegraph, profile) {
        write_flamegraphs(dir, profile)?;
    }
    let text = render_document(&doc, args.format);
    if args.profile && args.format == Format::Csv && args.profile_csv.is_none() {
        // CSV holds one table a file: the report's rows here, the profile's apart.
        eprintln!(
            "note: --profile: the CSV printed holds the report's rows; `--profile-csv FILE` writes the profile's rows into FILE"
        );
    }
    if let (Some(path), Some(profile)) = (&args.profile_csv, profile) {
        write_output(path, &crate::render::profile::csv(profile))?;
        if profile.cells.is_empty() {
            eprintln!(
                "profile: no profiled launches in these results (run with `pretouch run --profile`): {} holds the header only",
                path.display()
            );
        } else {
            eprintln!("profile: {}", path.display());
        }
    }
    write_probe_files(&args, &doc)?;
    if let (Some(path), Some(launches)) = (&args.plot, &doc.launches) {
        plot::draw(&launches.comparison, path)
            .with_context(|| format!("drawing `{}`", path.display()))?;
        eprintln!("plot: {}", path.display());
    }
    match &args.output {
        Some(path) => write_output(path, &text)?,
        None => print!("{text}"),
    }
    Ok(0)
}

/// `pretouch report FILES --format FORMAT`, with `--profile` when `profiled`: what
/// `run --kernel` prints across its kernels once they are done.
pub(crate) fn print_report(
    paths: &[PathBuf],
    format: Format,
    profiled: bool,
) -> anyhow::Result<()> {
    print!("{}", report_text(paths, format, profiled)?);
    Ok(())
}

/// What `pretouch report PATHS --format FORMAT` (with `--profile` when `profiled`)
/// prints.
pub(crate) fn report_text(
    paths: &[PathBuf],
    format: Format,
    profiled: bool,
) -> anyhow::Result<String> {
    let options = Options {
        profile: profiled,
        show_profile: profiled,
        ..Options::default()
    };
    let doc = document::build_read(catalog(paths)?, &options).map_err(bad)?;
    Ok(render_document(&doc, format))
}

/// The result files under `paths`, their headers read (their launches are read a label
/// at a time by `document::build_read`, which also warns of each run left unfinished);
/// a bad-input error when there are none.
fn catalog(paths: &[PathBuf]) -> anyhow::Result<Catalog> {
    let catalog = catalog_for_report(paths).map_err(bad)?;
    if catalog.results.files.is_empty() {
        return Err(bad(anyhow::anyhow!(
            "no result files in {}\n  fix: run `pretouch run` first, or name the files or folders to report",
            paths
                .iter()
                .map(|p| format!("`{}`", p.display()))
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    Ok(catalog)
}

/// `--probe-csv FILE` and `--probe-svg DIR`: the probed launches' rows and histograms;
/// a bad-input error when the results hold no probe record. With `--format csv` and
/// probes but no `--probe-csv`, a note says where their rows go.
fn write_probe_files(args: &ReportArgs, doc: &document::Document) -> anyhow::Result<()> {
    let probes = doc.launches.as_ref().and_then(|l| l.probes.as_ref());
    let none = |flag: &str| {
        bad(anyhow::anyhow!(
            "{flag}: no probed launches in these results\n  fix: record some with `pretouch run --probe`"
        ))
    };
    if let Some(path) = &args.probe_csv {
        let csv = crate::render::document::probe_csv(doc).ok_or_else(|| none("--probe-csv"))?;
        write_output(path, &csv)?;
        eprintln!("probes: {}", path.display());
    } else if probes.is_some() && args.format == Format::Csv {
        eprintln!(
            "note: the CSV printed holds the report's rows; `--probe-csv FILE` writes the probed launches' rows into FILE"
        );
    }
    if let Some(dir) = &args.probe_svg {
        let probes = probes.ok_or_else(|| none("--probe-svg"))?;
        let written = crate::render::probe_plot::write_all(dir, probes)
            .with_context(|| format!("drawing into `{}`", dir.display()))?;
        eprintln!(
            "fault latency: {} files in {}",
            written.len(),
            dir.display()
        );
    }
    Ok(())
}

/// `--flamegraph DIR`: an SVG per cell and label, a differential one per cell.
fn write_flamegraphs(dir: &Path, profile: &ProfileReport) -> anyhow::Result<()> {
    if profile.cells.iter().all(|c| c.stacks.is_empty()) {
        return Err(bad(anyhow::anyhow!(
            "--flamegraph: no profiled launches with samples in these results\n  fix: \
             record some with `pretouch run --profile`"
        )));
    }
    let written = crate::render::flamegraph::write_all(dir, profile)
        .with_context(|| format!("writing flame graphs into `{}`", dir.display()))?;
    eprintln!("flame graphs: {} files in {}", written.len(), dir.display());
    Ok(())
}

pub(crate) fn write_output(path: &Path, text: &str) -> anyhow::Result<()> {
    std::fs::write(path, text).with_context(|| format!("writing `{}`", path.display()))
}
