//! The terminal view of a run: an indicatif bar over all launches with the current
//! cell and an ETA (drawn only when stderr is a terminal), and one warning per cell
//! whose launches fail.

use std::collections::HashSet;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::schedule::run::{Event, Observer};
use crate::store::CellKey;

pub struct Progress {
    bar: ProgressBar,
    warned_cells: HashSet<CellKey>,
    /// Cells already warned about a launch whose heap was not touched.
    untouched_cells: HashSet<CellKey>,
    /// Cells already said to be given up (`--give-up-after`).
    given_up_cells: HashSet<CellKey>,
}

impl Progress {
    pub fn new(launches: u64) -> Progress {
        // indicatif draws nothing when stderr is not a terminal.
        let bar = ProgressBar::with_draw_target(Some(launches), ProgressDrawTarget::stderr());
        bar.set_style(
            ProgressStyle::with_template("{bar:30} {pos}/{len} launches, ETA {eta}  {msg}")
                .expect("the template is valid"),
        );
        Progress {
            bar,
            warned_cells: HashSet::new(),
            untouched_cells: HashSet::new(),
            given_up_cells: HashSet::new(),
        }
    }

    /// Counts launches already done (a resumed run) as progress.
    pub fn set_done(&self, launches: u64) {
        self.bar.set_position(launches);
    }

    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

impl Observer for Progress {
    fn event(&mut self, event: Event<'_>) {
        match event {
            Event::LaunchStarting { launch, cell } => {
                let kind = if launch.warmup { "warm-up, " } else { "" };
                let setting = if launch.pretouch { "with" } else { "without" };
                self.bar.set_message(format!(
                    "{} ({kind}{setting} pretouch, round {})",
                    cell.describe(),
                    launch.round + 1
                ));
            }
            Event::LaunchFinished { record, cell } => {
                self.bar.inc(1);
                if record.skipped && self.given_up_cells.insert(record.cell.clone()) {
                    let why = record.failure.as_deref().unwrap_or("skipped");
                    self.bar.suspend(|| {
                        eprintln!(
                            "warning: giving up {}: its remaining launches are recorded as skipped\n  {why}",
                            cell.describe()
                        )
                    });
                    return;
                }
                if let Some(failure) = &record.failure
                    && self.warned_cells.insert(record.cell.clone())
                {
                    let tail = record
                        .output_tail
                        .as_deref()
                        .map(|t| format!("\n  output: {}", t.replace('\n', "\n          ")))
                        .unwrap_or_default();
                    self.bar.suspend(|| {
                            eprintln!(
                                "warning: launch {} ({}, pretouch {}) failed: {failure}{tail}\n  command: {}\n  (further failures of this cell are counted in the report)",
                                record.seq,
                                cell.describe(),
                                if record.pretouch { "on" } else { "off" },
                                record.command.join(" ")
                            )
                        });
                }
                // Live, without the cell's baseline: the heap alone must become resident.
                if record.ok()
                    && let Some(why) = crate::analyze::explain::untouched(record, None)
                    && self.untouched_cells.insert(record.cell.clone())
                {
                    self.bar.suspend(|| {
                        eprintln!(
                            "warning: launch {} ({}) had -XX:+AlwaysPreTouch but its heap was not touched: {why}\n  (the report counts every such launch)",
                            record.seq,
                            cell.describe()
                        )
                    });
                }
            }
        }
    }
}
