//! The report of result files, read back and rendered as `pretouch report` does:
//! the result files it finds for `pretouch report` and `pretouch check`, and the report
//! a run prints when it ends, a kernel run's across its kernels and a campaign's at its
//! last boot. Every error here is one the user can fix, such as a folder with no result
//! files, so the callers mark each as bad input.

use std::path::PathBuf;

use crate::analyze::Options;
use crate::analyze::document;
use crate::features::report_options::ReportOptions;
use crate::render::common::Format;
use crate::render::document::{notes as render_notes, render as render_document};
use crate::store::read::{Catalog, catalog_for_report};

/// `pretouch report FILES --format FORMAT` with the features' options `features`:
/// what `run --kernel` prints across its kernels once they are done. The notes under
/// the text's table go to stderr, as `pretouch report` prints them.
pub fn print_report(
    paths: &[PathBuf],
    format: Format,
    features: &ReportOptions,
) -> anyhow::Result<()> {
    let doc = read_document(paths, features, false)?;
    print!("{}", render_document(&doc, format));
    eprint!("{}", render_notes(&doc, format));
    Ok(())
}

/// What `pretouch report PATHS --format F` prints for each of `formats`, from one
/// reading of the results, with `--details` when `details`. The campaign's end writes
/// the text and the JSON with every detail, because nobody watched the campaign run.
pub fn report_texts<const N: usize>(
    paths: &[PathBuf],
    formats: [Format; N],
    features: &ReportOptions,
    details: bool,
) -> anyhow::Result<[String; N]> {
    let doc = read_document(paths, features, details)?;
    Ok(formats.map(|format| render_document(&doc, format)))
}

/// The report document of the results under `paths`, as `pretouch report` builds it
/// with the features' options `features` and `--details` when `details`.
fn read_document(
    paths: &[PathBuf],
    features: &ReportOptions,
    details: bool,
) -> anyhow::Result<document::Document> {
    let options = Options {
        features: features.clone(),
        details,
        ..Options::default()
    };
    Ok(document::build_read(catalog(paths)?, &options)?)
}

/// The result files under `paths`, their headers read (their launches are read a label
/// at a time by `document::build_read`, which also warns of each run left unfinished);
/// a bad-input error when there are none.
pub fn catalog(paths: &[PathBuf]) -> anyhow::Result<Catalog> {
    let catalog = catalog_for_report(paths)?;
    if catalog.results.files.is_empty() {
        return Err(anyhow::anyhow!(
            "no result files in {}\n  fix: run `pretouch run` first, or name the files or folders to report",
            paths
                .iter()
                .map(|p| format!("`{}`", p.display()))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    Ok(catalog)
}
