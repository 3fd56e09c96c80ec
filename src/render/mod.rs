//! Stage 6, rendering: finished reports into bytes: text for the terminal and email,
//! Markdown, CSV, JSON, SVG and one self-contained HTML page (`document::html`). Renderers compute nothing; they read `analyze`'s types.
pub mod common;
pub mod compare;
pub mod csv_row;
pub mod disturbance;
pub mod document;
pub mod env;
pub mod explain;
pub mod from_files;
pub mod heap;
pub mod jdks;
pub mod json;
pub mod labels;
pub mod plot;
pub mod report;
pub mod section;
pub mod table;
