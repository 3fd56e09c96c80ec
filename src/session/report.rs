//! The report a run's session prints when it ends, read back from its result files as
//! `pretouch report` reads them: a kernel run's across its kernels, a campaign's at
//! its last boot.

use std::path::PathBuf;

use crate::analyze::Options;
use crate::analyze::document;
use crate::features::report_options::ReportOptions;
use crate::render::common::Format;
use crate::render::document::render as render_document;
use crate::session::error::bad;
use crate::store::read::{Catalog, catalog_for_report};

/// `pretouch report FILES --format FORMAT` with the features' options `features`:
/// what `run --kernel` prints across its kernels once they are done.
pub(crate) fn print_report(
    paths: &[PathBuf],
    format: Format,
    features: &ReportOptions,
) -> anyhow::Result<()> {
    print!("{}", report_text(paths, format, features)?);
    Ok(())
}

/// What `pretouch report PATHS --format FORMAT` with the features' options `features`
/// prints.
pub(crate) fn report_text(
    paths: &[PathBuf],
    format: Format,
    features: &ReportOptions,
) -> anyhow::Result<String> {
    let [text] = report_texts(paths, [format], features, false)?;
    Ok(text)
}

/// What `pretouch report PATHS --format F` prints for each of `formats`, from one
/// reading of the results, with `--details` when `details`. The campaign's end writes
/// the text and the JSON with every detail, because nobody watched the campaign run.
pub(crate) fn report_texts<const N: usize>(
    paths: &[PathBuf],
    formats: [Format; N],
    features: &ReportOptions,
    details: bool,
) -> anyhow::Result<[String; N]> {
    let options = Options {
        features: features.clone(),
        details,
        ..Options::default()
    };
    let doc = document::build_read(catalog(paths)?, &options).map_err(bad)?;
    Ok(formats.map(|format| render_document(&doc, format)))
}

/// The result files under `paths`, their headers read (their launches are read a label
/// at a time by `document::build_read`, which also warns of each run left unfinished);
/// a bad-input error when there are none.
pub(crate) fn catalog(paths: &[PathBuf]) -> anyhow::Result<Catalog> {
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
