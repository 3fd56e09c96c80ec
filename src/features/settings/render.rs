//! Stage 6: the `settings:` axis side by side ([`crate::features::settings::analyze`]) into bytes:
//! the labels' comparison tables ([`crate::render::compare`]) with a column per setting,
//! under a heading of their own, in text and Markdown (the JSON's `settings` key is
//! `render::json`'s).
//! Computes nothing.

use crate::analyze::compare::Comparison;
use crate::render::table;

/// The heading of the settings' tables: what a column is and which one is the baseline.
fn heading(cmp: &Comparison) -> String {
    format!(
        "Settings side by side. Each `settings:` value has a column, with each \
         cell's change against the baseline setting `{}`.",
        cmp.baseline
    )
}

/// The settings side by side as the text's tables, after a blank line.
pub fn text(cmp: &Comparison, details: bool) -> String {
    let mut out = String::from("\n");
    out += &table::wrap(&heading(cmp), 0);
    // The notes stand under the first table already, so a short report does not repeat
    // them here.
    out += &match details {
        true => crate::render::compare::text(cmp, true),
        false => crate::render::compare::head(cmp),
    };
    out
}

/// The settings side by side as Markdown tables, under a heading of their own.
pub fn markdown(cmp: &Comparison, details: bool) -> String {
    format!(
        "\n## Settings\n\n{}\n\n{}",
        heading(cmp),
        crate::render::compare::markdown(cmp, details)
    )
}
