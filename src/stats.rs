//! Statistics: pure functions over slices of milliseconds.

use statrs::statistics::{Data, OrderStatistics};

/// Median, min and max of one sample.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Summary {
    pub n: usize,
    pub median: f64,
    pub min: f64,
    pub max: f64,
}

/// The sample median (mean of the two middle values for an even count), via statrs;
/// `None` for an empty sample. Same definition as R's `median()`.
pub fn median(values: &[f64]) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    Some(Data::new(values.to_vec()).median())
}

pub fn summarize(values: &[f64]) -> Option<Summary> {
    Some(Summary {
        n: values.len(),
        median: median(values)?,
        min: values.iter().copied().fold(f64::INFINITY, f64::min),
        max: values.iter().copied().fold(f64::NEG_INFINITY, f64::max),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_matches_r() {
        // R: median(c(3, 1, 2)) = 2; median(c(4, 1, 3, 2)) = 2.5; median(c(1866)) = 1866
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), Some(2.5));
        assert_eq!(median(&[1866.0]), Some(1866.0));
        assert_eq!(median(&[]), None);
    }

    #[test]
    fn summary_keeps_the_spread() {
        let s = summarize(&[10.0, 30.0, 20.0, 900.0]).unwrap();
        assert_eq!(
            s,
            Summary {
                n: 4,
                median: 25.0,
                min: 10.0,
                max: 900.0
            }
        );
        assert_eq!(summarize(&[]), None);
    }
}
