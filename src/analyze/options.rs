//! Stage 5, analysis: what the user asks of a report, in one value. `pretouch report`,
//! `pretouch run` and the features' runs elsewhere fill it from their arguments; the document
//! ([`crate::analyze::document`]) passes it down as it is, and the cells' report, the
//! comparison and the features' sections each read the fields they need.

/// What the report shows, of which labels, and what enters its statistics.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Options {
    /// Labels to show, in this order (`label@host` names a label split by machine);
    /// `None`: every label, oldest first.
    pub labels: Option<Vec<String>>,
    /// The label the others are compared with; `None`: the label with the oldest results.
    pub baseline: Option<String>,
    /// Leave launches flagged as outliers out of every median and interval.
    pub exclude_outliers: bool,
    /// Also the startup phases' table.
    pub phases: bool,
    /// The report is the HTML page, which holds every section whose figures the results
    /// have, such as the flame graphs.
    pub page: bool,
    /// What the report asks of the features (`features::report_options`), which each
    /// feature's section reads.
    pub features: crate::features::report_options::ReportOptions,
    /// What the report asks of the features' own comparisons
    /// (`features::report_options::CompareOptions`), such as their baselines, which
    /// each feature's section reads.
    pub compare: crate::features::report_options::CompareOptions,
    /// The figure of each cell's per-round costs (`--estimator`): the median unless
    /// asked otherwise.
    pub estimator: crate::stats::interval::Estimator,
    /// Every detail in the text and Markdown (`--details`): the spread, rounds,
    /// outliers and their causes, the explaining tables and the machine's notes.
    pub details: bool,
}
