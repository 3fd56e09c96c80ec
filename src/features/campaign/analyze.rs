//! A campaign across reboots in the report. Its state is copied into its results folder
//! at its end, and the report warns of each boot that failed and of each label left
//! with fewer runs than planned.

use crate::analyze::options::Options;
use crate::analyze::warning::Warnings;
use crate::features::campaign::record::Campaign;
use crate::kernel::session::KernelStatus;
use crate::store::Results;

/// The campaign's warnings of the report, after the report's own.
pub struct CampaignWarnings;

/// What `features::analyze::WARNINGS` lists.
pub static WARNINGS: CampaignWarnings = CampaignWarnings;

impl Warnings for CampaignWarnings {
    fn last(&self, results: &Results, options: &Options) -> Vec<String> {
        campaign_warnings(results, options.labels.as_deref())
    }
}

/// A campaign's boots that did not bring up the kernel asked for, and the labels they
/// left short of their planned runs, one line each, from every campaign state found
/// among the results (`features::campaign::record::STATE_COPY`).
/// With `shown` (`--labels`), only of those labels.
fn campaign_warnings(results: &Results, shown: Option<&[String]>) -> Vec<String> {
    // A label asked as `label@host` is the label's too.
    let is_shown =
        |label: &str| shown.is_none_or(|s| s.iter().any(|l| l.split('@').next() == Some(label)));
    let mut out = Vec::new();
    for c in results
        .features
        .get::<Vec<Campaign>>()
        .into_iter()
        .flatten()
    {
        let steps = c.session.kernels.len();
        for f in c.failed_boots.iter().filter(|f| is_shown(&f.label)) {
            out.push(format!(
                "campaign: the boot of step {} of {steps} (label `{}`) failed at {}: {}",
                f.step + 1,
                f.label,
                f.at,
                f.what_came_up()
            ));
        }
        let mut labels: Vec<&str> = (0..steps).map(|i| c.label(i)).collect();
        labels.dedup();
        let mut seen = Vec::new();
        for label in labels {
            if seen.contains(&label) || !is_shown(label) {
                continue;
            }
            seen.push(label);
            let of_label = || (0..steps).filter(|&i| c.label(i) == label);
            let planned = of_label().count();
            let done = of_label()
                .filter(|&i| c.session.kernels[i].status == KernelStatus::Done)
                .count();
            if done < planned {
                out.push(format!(
                    "campaign: label `{label}` has {done} of its {planned} planned runs finished{}",
                    match c.stopped_at.as_deref() {
                        Some(at) => format!(" (the campaign was stopped at {at})"),
                        None => String::new(),
                    }
                ));
            }
        }
    }
    out
}
