//! The terminal view of a run: an indicatif bar over all launches with the current
//! cell and an ETA (drawn only when stderr is a terminal), and one warning per cell
//! whose launches fail.

use std::collections::HashSet;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::launch::machine_counters::{busy_warning, launch_busy_share};
use crate::schedule::run::{Event, Observer};
use crate::store::{CellKey, LaunchRecord};

pub struct Progress {
    bar: ProgressBar,
    warned_cells: HashSet<CellKey>,
    /// Cells already warned about a launch whose heap was not touched.
    untouched_cells: HashSet<CellKey>,
    /// Cells already said to be given up (`--give-up-after`).
    given_up_cells: HashSet<CellKey>,
    /// The machine's load was judged (over the first launch with its counters).
    busy_checked: bool,
}

impl Progress {
    pub fn new(launches: u64) -> Progress {
        // indicatif draws nothing when stderr is not a terminal: no bar in a log file.
        Progress::with_target(launches, ProgressDrawTarget::stderr())
    }

    /// [`Progress::new`] drawing to `target`. The line fits the terminal's width: the
    /// cell (`wide_msg`) is cut to the columns left after the bar and the counts.
    pub fn with_target(launches: u64, target: ProgressDrawTarget) -> Progress {
        let bar = ProgressBar::with_draw_target(Some(launches), target);
        bar.set_style(
            ProgressStyle::with_template("{bar:20} {pos}/{len}, ETA {eta}  {wide_msg}")
                .expect("the template is valid"),
        );
        Progress {
            bar,
            warned_cells: HashSet::new(),
            untouched_cells: HashSet::new(),
            given_up_cells: HashSet::new(),
            busy_checked: false,
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

impl Progress {
    /// Warns once when other processes or the host took a large share of the CPUs over
    /// the run's first launch (a warm-up, when the matrix has one). Judged there rather
    /// than over a sample before the run, which would delay the first launch; the
    /// launches themselves are not moved, and each record keeps its own counters.
    fn check_busy(&mut self, record: &LaunchRecord) {
        if self.busy_checked {
            return;
        }
        let (Some(m), Some(u)) = (&record.measured.machine, record.measured.rusage) else {
            return;
        };
        self.busy_checked = true;
        let jvm = crate::units::Nanos(u.utime_ns.0 + u.stime_ns.0);
        let over = format!("the first launch ({:.2} s)", record.wall().as_ms() / 1e3);
        if let Some((busy, steal)) = launch_busy_share(m, jvm)
            && let Some(warning) = busy_warning(busy, steal, &over)
        {
            self.bar.suspend(|| eprintln!("{warning}"));
        }
    }
}

impl Observer for Progress {
    fn event(&mut self, event: Event<'_>) {
        match event {
            Event::LaunchStarting { launch, cell } => {
                let kind = if launch.warmup { "warm-up, " } else { "" };
                let setting = if launch.pretouch { "with" } else { "without" };
                // The cell first, with the JDK's short version: on a narrow terminal the
                // end of the line is cut.
                let jdk = &cell.jdk.version;
                let name =
                    cell.describe()
                        .replacen(jdk.as_str(), crate::machine::jdk::short_jdk(jdk), 1);
                self.bar.set_message(format!(
                    "{name} ({kind}{setting} pretouch, round {})",
                    launch.round + 1
                ));
            }
            Event::LaunchFinished { record, cell } => {
                self.bar.inc(1);
                self.check_busy(record);
                if record.skipped && self.given_up_cells.insert(record.cell.clone()) {
                    let why = record.measured.failure.as_deref().unwrap_or("skipped");
                    self.bar.suspend(|| {
                        eprintln!(
                            "warning: giving up {}: its remaining launches are recorded as skipped\n  {why}",
                            cell.describe()
                        )
                    });
                    return;
                }
                if let Some(failure) = &record.measured.failure
                    && self.warned_cells.insert(record.cell.clone())
                {
                    let failure = failure.to_string() + &picked_up_cause(record);
                    let tail = record
                        .measured
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
                                record.measured.command.join(" ")
                            )
                        });
                }
                // Live, without the cell's baseline: the heap alone must become resident.
                if record.ok()
                    && let Some(why) = crate::analyze::explain::untouched(record, None)
                    && self.untouched_cells.insert(record.cell.clone())
                {
                    let why = why + &picked_up_cause(record);
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

/// The JVM's own word that a variable changed its flags (`Picked up _JAVA_OPTIONS: ...`
/// in its output), as a clause to add to a warning; empty when it says nothing of it.
fn picked_up_cause(record: &LaunchRecord) -> String {
    record
        .measured
        .output_tail
        .as_deref()
        .and_then(crate::launch::java_env::picked_up)
        .map(|line| {
            format!(
                "; the JVM says `{line}`: that variable changed this launch's flags \
                 (unset it, or run with --pass-java-options to record them)"
            )
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use indicatif::TermLike;

    use super::*;
    use crate::matrix::Matrix;
    use crate::schedule::plan::Plan;

    /// A terminal of `width` columns that keeps what is written to it.
    #[derive(Debug, Clone)]
    struct Screen {
        width: u16,
        written: Arc<Mutex<String>>,
    }

    impl Screen {
        fn put(&self, s: &str) {
            self.written.lock().unwrap().push_str(s);
        }
    }

    impl TermLike for Screen {
        fn width(&self) -> u16 {
            self.width
        }
        fn move_cursor_up(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_down(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_right(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_left(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn write_line(&self, s: &str) -> std::io::Result<()> {
            self.put(s);
            self.put("\n");
            Ok(())
        }
        fn write_str(&self, s: &str) -> std::io::Result<()> {
            self.put(s);
            Ok(())
        }
        fn clear_line(&self) -> std::io::Result<()> {
            self.put("\n");
            Ok(())
        }
        fn flush(&self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn the_progress_line_fits_the_terminal() {
        // The longest cell names: a variant, GC threads and a CPU set.
        let m = Matrix::parse(
            "m",
            "name: x\ngcs: [parallel]\nheaps: [1g]\nrepetitions: 100\ngc_threads: [16]\n\
             cpus: [\"0\"]\nvariants:\n  - name: transparent-huge-pages-always\n",
        )
        .unwrap();
        let plan = Plan::new(
            &m,
            &[crate::fixtures::fake_jdk("17.0.15+6-Debian-1deb12u1")],
        );
        for width in [60, 80, 100] {
            let screen = Screen {
                width,
                written: Arc::default(),
            };
            let target = ProgressDrawTarget::term_like_with_hz(Box::new(screen.clone()), 200);
            let mut progress = Progress::with_target(plan.launches.len() as u64, target);
            let launch = &plan.launches[plan.launches.len() - 1];
            progress.event(Event::LaunchStarting {
                launch,
                cell: &plan.cells[launch.cell],
            });
            progress.bar.tick();
            let written = screen.written.lock().unwrap().clone();
            let line = written
                .lines()
                .rfind(|l| l.contains("ETA"))
                .unwrap_or_else(|| panic!("nothing drawn: {written:?}"));
            assert!(
                line.chars().count() <= usize::from(width),
                "{} columns at width {width}: {line}",
                line.chars().count()
            );
            assert!(line.contains("17.0.15+6 parallel"), "{line}");
        }
    }
}
