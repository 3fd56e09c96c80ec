//! Stage 6, rendering: finished reports into bytes: text for the terminal and email,
//! Markdown, CSV, JSON and SVG. Renderers compute nothing; they read `analyze`'s types.

pub mod common;
pub mod compare;
pub mod explain;
pub mod json;
pub mod plot;
pub mod report;
pub mod table;
