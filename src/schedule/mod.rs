//! Stage 6, scheduling: the matrix into an ordered plan of launches ([`plan`]), run
//! through the launcher into the store ([`run`]), with adaptive rounds, resume,
//! progress and the dry run. Emits events; never renders a report.

pub mod adaptive;
pub mod extra;
pub mod give_up;
pub mod plan;
pub mod prepared;
pub mod preview;
pub mod progress;
pub mod resume;
pub mod run;
