//! Stage 5, analysis: which labels a comparison shows, in which order, and which one
//! is the baseline, and the letters that name them in text tables. One rule for the
//! launches' table (`report`) and the calibrations' (`report --calibrate`).

use crate::analyze::report::CompareError;

/// The labels shown, in order, and the baseline among them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chosen {
    pub labels: Vec<String>,
    pub baseline: String,
}

/// Chooses from `known` (every label, oldest results first): `wanted` in its order
/// (each known, none twice), else all of `known`; the baseline `baseline` (known and
/// shown), else the oldest label shown.
pub fn choose(
    known: &[String],
    wanted: Option<&[String]>,
    baseline: Option<&str>,
) -> Result<Chosen, CompareError> {
    let check = |label: &str| {
        if known.iter().any(|l| l == label) {
            Ok(())
        } else {
            Err(CompareError::UnknownLabel {
                label: label.to_owned(),
                known: known.join(", "),
            })
        }
    };
    let labels: Vec<String> = match wanted {
        Some(ls) => {
            for (i, l) in ls.iter().enumerate() {
                check(l)?;
                if ls[..i].contains(l) {
                    return Err(CompareError::Duplicate(l.clone()));
                }
            }
            ls.to_vec()
        }
        None => known.to_vec(),
    };
    let baseline = match baseline {
        Some(b) => {
            check(b)?;
            if !labels.iter().any(|l| l == b) {
                return Err(CompareError::BaselineNotShown {
                    baseline: b.to_owned(),
                    labels: labels.join(", "),
                });
            }
            b.to_owned()
        }
        None => known
            .iter()
            .find(|l| labels.contains(l))
            .cloned()
            .unwrap_or_default(),
    };
    Ok(Chosen { labels, baseline })
}

/// `A`, `B`, ... `Z`, `AA`, `AB`...: the `i`-th column's name in a text table.
pub fn letter(i: usize) -> String {
    let a = |k: usize| char::from(b'A' + (k % 26) as u8);
    if i < 26 {
        a(i).to_string()
    } else {
        format!("{}{}", a(i / 26 - 1), a(i))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn known() -> Vec<String> {
        ["old", "mid", "new"].map(String::from).to_vec()
    }

    #[test]
    fn the_oldest_shown_label_is_the_default_baseline() {
        let wanted = ["new".to_owned(), "mid".to_owned()];
        let c = choose(&known(), Some(&wanted), None).unwrap();
        assert_eq!((c.labels, c.baseline.as_str()), (wanted.to_vec(), "mid"));
        assert_eq!(choose(&known(), None, None).unwrap().baseline, "old");
        assert_eq!(choose(&known(), None, Some("new")).unwrap().baseline, "new");
    }

    #[test]
    fn selections_that_cannot_be_met_are_refused() {
        let twice = ["old".to_owned(), "old".to_owned()];
        assert_eq!(
            choose(&known(), Some(&twice), None),
            Err(CompareError::Duplicate("old".into()))
        );
        assert!(matches!(
            choose(&known(), None, Some("nope")),
            Err(CompareError::UnknownLabel { .. })
        ));
        let one = ["new".to_owned()];
        assert!(matches!(
            choose(&known(), Some(&one), Some("old")),
            Err(CompareError::BaselineNotShown { .. })
        ));
    }

    #[test]
    fn letters_go_on_past_z() {
        assert_eq!(
            [0, 25, 26, 27, 51].map(letter),
            ["A", "Z", "AA", "AB", "AZ"].map(String::from)
        );
    }
}
