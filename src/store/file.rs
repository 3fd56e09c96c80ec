//! A result file read back, and what every reader of its lines shares: how a line
//! says its kind, how the writer starts a launch line, and how a damaged line is named.

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use crate::store::record::{LaunchRecord, RunEnd, RunHeader};

/// A result file read back.
#[derive(Debug, Clone)]
pub struct ResultFile {
    pub path: PathBuf,
    pub header: RunHeader,
    pub launches: Vec<LaunchRecord>,
    pub end: Option<RunEnd>,
}

/// How the writer starts a launch line: its tag first.
pub(crate) const LAUNCH_LINE_START: &str = r#"{"record":"launch","#;

/// The warning for line `number` of `path` that does not parse (`why`): cut short when
/// it lacks its newline (the run was killed while writing it), unreadable otherwise.
/// Every reader of result files names a damaged line with it.
pub(crate) fn damaged_line(path: &Path, number: usize, cut: bool, why: &str) -> String {
    let at = format!("{}:{number}", path.display());
    if cut {
        format!(
            "{at}: the last line is cut short and skipped, because the run was killed while writing it"
        )
    } else {
        format!("{at}: an unreadable line is skipped. {why}")
    }
}

/// The tag of a record's line, `"record":"<tag>"`, read past the line's other values.
/// Refused as a record would be: a line that is no JSON object, or has no tag.
pub(crate) fn tag_of(text: &str) -> serde_json::Result<Cow<'_, str>> {
    #[derive(serde::Deserialize)]
    struct Tag<'a> {
        #[serde(borrow)]
        record: Cow<'a, str>,
    }
    serde_json::from_str::<Tag>(text).map(|t| t.record)
}
