//! `pretouch report`: read stored results, analyze, render.

use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::analyze::Options;
use crate::analyze::document;
use crate::cmd::cli::ReportArgs;
use crate::render::common::Format;
use crate::render::document::{SideRequest, notes, render as render_document, side_files};
use crate::render::from_files::catalog;
use crate::session::error::bad;
use crate::store::read::catalog_for_report;

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
        page: args.format == Format::Html,
        features: args.features.clone(),
        compare: args.compare.clone(),
        estimator: args.estimator,
        details: args.details,
    };
    let doc = if args.features.instead_of_launches() {
        // The result files' damaged lines are warned about, their launches never kept.
        let catalog = catalog_for_report(&paths).map_err(bad)?;
        for w in catalog.read_warnings().map_err(bad)? {
            eprintln!("warning: {w}");
        }
        document::build_read(catalog, &options).map_err(bad)?
    } else {
        document::build_read(catalog(&paths).map_err(bad)?, &options).map_err(bad)?
    };
    let text = render_document(&doc, args.format);
    write_side_files(&doc, &args)?;
    match &args.output {
        Some(path) => write_output(path, &text)?,
        None => print!("{text}"),
    }
    // The notes under the letter's table go to stderr, so that stdout can be pasted.
    eprint!("{}", notes(&doc, args.format));
    Ok(0)
}

/// The files asked for beside the report, each output's files written and then its
/// note printed, in order; the first that cannot be made stops them (an error of the
/// user's when the results do not hold what it draws).
fn write_side_files(doc: &document::Document, args: &ReportArgs) -> anyhow::Result<()> {
    let request = SideRequest {
        format: args.format,
        plot: args.plot.clone(),
        features: args.features.clone(),
    };
    for output in side_files(doc, &request) {
        let output = output.map_err(|e| if e.is_bad_input() { bad(e) } else { e.into() })?;
        if let Some(dir) = &output.dir {
            std::fs::create_dir_all(dir).with_context(|| output.writing.clone())?;
        }
        for file in &output.files {
            std::fs::write(&file.path, &file.bytes).with_context(|| output.writing.clone())?;
        }
        eprintln!("{}", output.note);
    }
    Ok(())
}

pub(crate) fn write_output(path: &Path, text: &str) -> anyhow::Result<()> {
    std::fs::write(path, text).with_context(|| format!("writing `{}`", path.display()))
}
