//! Giving up on a cell that keeps failing: after `limit` consecutive failed launches of
//! one cell with one pretouch setting (timeouts, crashes, a rejected flag), the cell's
//! remaining launches are not started but recorded as skipped, with the reason. Without
//! both settings the cell has no cost anyway, and an overnight run should not spend its
//! full `--timeout` on every launch of a cell that cannot succeed.

use std::collections::HashMap;

use crate::store::{CellKey, LaunchRecord};

/// Counts consecutive failures per (cell, pretouch setting).
#[derive(Debug, Default)]
pub struct GiveUp {
    /// 0: never give up.
    limit: u32,
    /// Consecutive failures, and the last failure's reason.
    streaks: HashMap<(CellKey, bool), (u32, String)>,
    /// Cells given up, with the reason recorded in their skipped launches.
    given_up: HashMap<CellKey, String>,
}

impl GiveUp {
    pub fn new(limit: u32) -> GiveUp {
        GiveUp {
            limit,
            ..GiveUp::default()
        }
    }

    /// Counts a launch of the run (earlier ones too, read back for `--resume`). Returns
    /// the reason when this launch made its cell given up.
    pub fn count(&mut self, record: &LaunchRecord) -> Option<String> {
        if record.skipped {
            if let Some(reason) = &record.measured.failure {
                self.given_up
                    .entry(record.cell.clone())
                    .or_insert_with(|| reason.clone());
            }
            return None;
        }
        let key = (record.cell.clone(), record.pretouch);
        if record.ok() {
            self.streaks.remove(&key);
            return None;
        }
        let streak = self.streaks.entry(key).or_insert((0, String::new()));
        streak.0 += 1;
        streak.1 = record.measured.failure.clone().unwrap_or_default();
        if self.limit == 0 || streak.0 < self.limit || self.given_up.contains_key(&record.cell) {
            return None;
        }
        let reason = format!(
            "skipped: the cell gave up after {} consecutive failed launches with pretouch {} \
             (--give-up-after {}); the last: {}",
            streak.0,
            if record.pretouch { "on" } else { "off" },
            self.limit,
            streak.1
        );
        self.given_up.insert(record.cell.clone(), reason.clone());
        Some(reason)
    }

    /// Why the cell's launches are skipped, when it was given up.
    pub fn reason(&self, cell: &CellKey) -> Option<&str> {
        self.given_up.get(cell).map(String::as_str)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::{FakeCell, file, host};
    use crate::matrix::Gc;

    fn launches(rounds: &[(f64, f64)]) -> Vec<LaunchRecord> {
        file(
            "k",
            "t",
            host("h"),
            &[FakeCell {
                gc: Gc::G1,
                heap: "1g",
                rounds,
            }],
        )
        .launches
    }

    #[test]
    fn a_streak_of_failures_of_one_setting_gives_the_cell_up() {
        let nan = f64::NAN;
        // Pretouch on fails every time; off succeeds in between: still a streak.
        let mut give_up = GiveUp::new(3);
        let records = launches(&[(10.0, nan), (10.0, nan), (10.0, nan), (10.0, 20.0)]);
        let reasons: Vec<Option<String>> = records.iter().map(|r| give_up.count(r)).collect();
        assert_eq!(reasons.iter().flatten().count(), 1);
        let reason = reasons[5].as_deref().expect("the third failure gives up");
        assert!(
            reason.contains("3 consecutive failed launches with pretouch on"),
            "{reason}"
        );
        assert!(reason.contains("exited with code 1"), "{reason}");
        assert_eq!(give_up.reason(&records[0].cell), Some(reason));

        // A success breaks the streak.
        let mut give_up = GiveUp::new(3);
        for r in &launches(&[(10.0, nan), (10.0, nan), (10.0, 20.0), (10.0, nan)]) {
            assert_eq!(give_up.count(r), None);
        }
        // 0: never.
        let mut give_up = GiveUp::new(0);
        for r in &launches(&[(nan, nan); 6]) {
            assert_eq!(give_up.count(r), None);
        }
    }
}
