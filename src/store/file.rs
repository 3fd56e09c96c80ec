//! A result file read back, and what every reader of its lines shares: how a line
//! says its kind, how the writer starts a launch line, and how a damaged line is named.

use std::borrow::Cow;
use std::io::{BufRead, Read};
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

/// The longest line a reader of result files takes, 1 MiB. A launch record is a few
/// kilobytes and a profiled launch's record a few tens, so a longer line is damage,
/// such as a file that a copy filled with zeros. Reading it whole would hold all of it
/// in memory, so it is skipped unread past this bound.
pub(crate) const MAX_LINE: usize = 1 << 20;

/// What [`next_line`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Line {
    /// The file ends before another line.
    End,
    /// A line, in the buffer given, with its newline unless it is the file's last.
    Read,
    /// A line longer than [`MAX_LINE`], skipped to its newline. The buffer is empty.
    TooLong,
}

/// Reads the next line of `reader` into `line`, which it clears first, as
/// `read_until(b'\n')` does. A line longer than [`MAX_LINE`] is read on to its newline
/// without being kept, so that no line costs more memory than the bound.
pub(crate) fn next_line(reader: &mut impl BufRead, line: &mut Vec<u8>) -> std::io::Result<Line> {
    line.clear();
    let limit = MAX_LINE as u64 + 1;
    if reader.by_ref().take(limit).read_until(b'\n', line)? == 0 {
        return Ok(Line::End);
    }
    if line.len() <= MAX_LINE || line.last() == Some(&b'\n') {
        return Ok(Line::Read);
    }
    line.clear();
    loop {
        let buf = reader.fill_buf()?;
        if buf.is_empty() {
            break;
        }
        match buf.iter().position(|&b| b == b'\n') {
            Some(at) => {
                reader.consume(at + 1);
                break;
            }
            None => {
                let n = buf.len();
                reader.consume(n);
            }
        }
    }
    Ok(Line::TooLong)
}

/// The warning for line `number` of `path`, longer than [`MAX_LINE`] and so skipped.
pub(crate) fn long_line(path: &Path, number: usize) -> String {
    format!(
        "{}:{number}: a line longer than 1 MiB is skipped unread, because no record is that long and the file is damaged there",
        path.display()
    )
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
