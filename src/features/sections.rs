//! The features that add a section to the report, one line each. It is a list of its own
//! beside the feature folders, so that a new feature's section is one line here and its
//! folder one line in `features/mod.rs`.

/// The features that add a section to the report, one line each, in the order their
/// sections are built. Each one's `section.rs` has a `SECTION`, its analysis half
/// (`analyze::section::Section`), and its `report.rs` a `SECTION`, its render half
/// (`render::section::Section`). `analyze::document` and `render::document` each call
/// this with a macro of their own that takes their half of each feature, so the
/// report's core names no feature, and each stage reaches only its own half.
///
/// The profile comes before the sections that read the cells, because it checks each
/// cell's pretouch method against the kernel's frames. Each format prints the sections
/// that go after the cells' tables, then those that go last, each group in this order.
#[rustfmt::skip]
macro_rules! report_sections {
    ($each:ident) => { $each![
        profile,
        probe,
        settings,
        servers,
        calibrate,
        numa,
    ] };
}
pub(crate) use report_sections;
