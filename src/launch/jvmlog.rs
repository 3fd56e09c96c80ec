//! Stage 3, beside the agent: the JVM's own account of its startup. The launcher passes
//! `-Xlog:gc+heap=debug,startuptime` with the `tn` decorator (the JVM's nanoTime, which is
//! CLOCK_MONOTONIC on Linux, the agent's clock) to a file per launch; this module parses
//! that file into a [`JvmLog`] stored with the launch.
//!
//! Line formats, checked on OpenJDK 17.0.15 and Temurin 25.0.3:
//!
//! ```text
//! [668492438003ns] Running G1 PreTouch with 2 workers for 256 work units pre-touching 1073741824B.
//! [673135574933ns] Running ParallelGC PreTouch head with 2 workers for 64 work units pre-touching 268435456B.
//! [669020831546ns] Genesis, 0.5289977 secs
//! [669034105694ns] Create VM, 0.5475948 secs
//! ```
//!
//! The JVM logs a pretouch when it starts it, not when it ends: the time a pretouch took
//! is read as the gap to the next line of the log (an upper bound: the next line may come
//! a little after the pretouch ended). Serial GC logs no pretouch line at all. Lines this
//! parser does not know are ignored; lines it expected but could not read are kept as
//! warnings, never errors.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::units::{Bytes, Nanos, Word};

/// The `-Xlog` selection the launcher passes.
const XLOG_SELECTION: &str = "gc+heap=debug,startuptime";

/// The `-Xlog` argument writing [`XLOG_SELECTION`] to `path`, one file per launch
/// (`filecount=0`: no rotation, so a reused path never leaves archived copies). `None`
/// when the path holds a `:` or `,`, which -Xlog would read as separators.
pub fn xlog_arg(path: &Path) -> Option<String> {
    let path = path.to_str()?;
    if path.contains([':', ',']) {
        return None;
    }
    Some(format!("-Xlog:{XLOG_SELECTION}:file={path}:tn:filecount=0"))
}

/// The log of a launch that could not be given `-Xlog` (see [`xlog_arg`]).
pub fn unloggable(path: &Path) -> JvmLog {
    JvmLog::warning(format!(
        "no JVM log: the scratch path `{}` holds `:` or `,`, which -Xlog cannot take (set TMPDIR elsewhere)",
        path.display()
    ))
}

/// One `Running ... PreTouch ...` line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PretouchLine {
    /// The line's `tn` decorator: the JVM's nanoTime (CLOCK_MONOTONIC) when the pretouch started.
    pub at_ns: Nanos,
    /// What the JVM says it pretouches, e.g. `G1 PreTouch` or `ParallelGC PreTouch head`;
    /// shared by the lines that say the same.
    #[serde(with = "crate::units::word")]
    pub what: Word,
    /// Worker threads the JVM used.
    pub workers: u32,
    /// Work units (chunks of `PreTouchParallelChunkSize`).
    pub work_units: u64,
    /// Bytes pretouched.
    pub bytes: Bytes,
    /// Gap from this line to the next line of the log: an upper bound on the time this
    /// pretouch took. Absent when it is the last line.
    pub took_ns: Option<Nanos>,
}

/// What the JVM's log says about one launch.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct JvmLog {
    /// Every pretouch line, in log order (the heap first, then auxiliary structures).
    pub pretouches: Vec<PretouchLine>,
    /// `startuptime` "Genesis" (heap creation, pretouch included), converted from seconds.
    pub genesis_ns: Option<Nanos>,
    /// `startuptime` "Create VM" (all of VM creation), converted from seconds.
    pub create_vm_ns: Option<Nanos>,
    /// Lines the parser expected to read and could not, or a missing log file.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

impl JvmLog {
    /// The JVM's pretouch time: the sum of [`PretouchLine::took_ns`]. Absent when the log
    /// has no pretouch line.
    pub fn pretouch_ns(&self) -> Option<Nanos> {
        if self.pretouches.is_empty() {
            return None;
        }
        Some(Nanos(
            self.pretouches
                .iter()
                .filter_map(|p| p.took_ns)
                .map(|n| n.0)
                .sum(),
        ))
    }

    /// Bytes pretouched, over every pretouch line.
    pub fn pretouch_bytes(&self) -> Bytes {
        Bytes(self.pretouches.iter().map(|p| p.bytes.0).sum())
    }

    /// Reads a log file; a missing or empty file becomes a log with one warning.
    pub fn read(path: &Path) -> JvmLog {
        match std::fs::read_to_string(path) {
            Ok(text) if !text.trim().is_empty() => parse(&text),
            Ok(_) => JvmLog::warning(format!("JVM log `{}` is empty", path.display())),
            Err(e) => JvmLog::warning(format!("no JVM log `{}`: {e}", path.display())),
        }
    }

    fn warning(w: String) -> JvmLog {
        JvmLog {
            warnings: vec![w],
            ..JvmLog::default()
        }
    }
}

/// Parses a log written with the `tn` decorator.
pub fn parse(text: &str) -> JvmLog {
    let mut log = JvmLog::default();
    let mut undecorated = 0usize;
    // The index in `pretouches` of a pretouch line still waiting for its next line.
    let mut open: Option<usize> = None;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let Some((at, message)) = split_tn(line) else {
            undecorated += 1;
            continue;
        };
        if let Some(i) = open.take() {
            log.pretouches[i].took_ns = at.since(log.pretouches[i].at_ns);
        }
        if message.contains("PreTouch") {
            match parse_pretouch(at, message) {
                Some(p) => {
                    log.pretouches.push(p);
                    open = Some(log.pretouches.len() - 1);
                }
                None => log
                    .warnings
                    .push(format!("unrecognised pretouch line: {line:?}")),
            }
        } else if let Some(secs) = message.strip_prefix("Genesis, ") {
            log.genesis_ns = parse_secs(secs);
            if log.genesis_ns.is_none() {
                log.warnings
                    .push(format!("unrecognised Genesis line: {line:?}"));
            }
        } else if let Some(secs) = message.strip_prefix("Create VM, ") {
            log.create_vm_ns = parse_secs(secs);
            if log.create_vm_ns.is_none() {
                log.warnings
                    .push(format!("unrecognised Create VM line: {line:?}"));
            }
        }
    }
    if undecorated > 0 {
        log.warnings.push(format!(
            "{undecorated} line(s) without the `[<n>ns]` (tn) decorator ignored"
        ));
    }
    if log.genesis_ns.is_none() && log.warnings.is_empty() {
        log.warnings
            .push("no `Genesis` line (startuptime logged differently?)".to_owned());
    }
    log
}

/// `[668492438003ns] message` -> (668492438003 ns, "message").
fn split_tn(line: &str) -> Option<(Nanos, &str)> {
    let rest = line.strip_prefix('[')?;
    let (n, rest) = rest.split_once("ns]")?;
    Some((Nanos(n.parse().ok()?), rest.trim_start()))
}

/// `0.5289977 secs` -> nanoseconds.
fn parse_secs(text: &str) -> Option<Nanos> {
    let secs: f64 = text.trim().strip_suffix("secs")?.trim().parse().ok()?;
    (secs.is_finite() && secs >= 0.0).then(|| Nanos((secs * 1e9).round() as u64))
}

/// `Running <what> with <w> workers for <u> work units pre-touching <b>B.`
fn parse_pretouch(at: Nanos, message: &str) -> Option<PretouchLine> {
    let rest = message.strip_prefix("Running ")?;
    let (what, rest) = rest.split_once(" with ")?;
    let (workers, rest) = rest.split_once(" workers for ")?;
    let (units, rest) = rest.split_once(" work units pre-touching ")?;
    let bytes = rest.trim_end_matches('.').strip_suffix('B')?;
    Some(PretouchLine {
        at_ns: at,
        what: what.into(),
        workers: workers.trim().parse().ok()?,
        work_units: units.trim().parse().ok()?,
        bytes: Bytes(bytes.trim().parse().ok()?),
        took_ns: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    // Verbatim from OpenJDK 17.0.15 (G1, 1g, AlwaysPreTouch), StubRoutines lines trimmed.
    const JDK17_G1: &str = "\
[668491834272ns] Minimum heap 1073741824  Initial heap 1073741824  Maximum heap 1073741824
[668492438003ns] Running G1 PreTouch with 2 workers for 256 work units pre-touching 1073741824B.
[668915946160ns] Running G1 PreTouch with 2 workers for 4 work units pre-touching 16777216B.
[668937471265ns] Running G1 PreTouch with 2 workers for 4 work units pre-touching 16777216B.
[668960308196ns] Running G1 PreTouch with 1 workers for 1 work units pre-touching 2097152B.
[669020831546ns] Genesis, 0.5289977 secs
[669023394929ns] Interpreter generation, 0.0005981 secs
[669034105694ns] Create VM, 0.5475948 secs
";

    // Verbatim from Temurin 25.0.3 (Parallel, 1g, AlwaysPreTouch), stub lines trimmed.
    const JDK25_PARALLEL: &str = "\
[676492778903ns] Minimum heap 1073741824  Initial heap 1073741824  Maximum heap 1073741824
[676493148615ns] Running ParallelGC PreTouch head with 2 workers for 64 work units pre-touching 268435456B.
[676718424761ns] Running ParallelGC PreTouch head with 2 workers for 11 work units pre-touching 44564480B.
[676732051686ns] Running ParallelGC PreTouch head with 2 workers for 11 work units pre-touching 44564480B.
[676745045666ns] Running ParallelGC PreTouch head with 2 workers for 171 work units pre-touching 716177408B.
[676973549968ns] Genesis, 0.4807844 secs
[676973551000ns] SharedRuntime generate_throw_exception, 0.0000018 secs
[677002947714ns] Create VM, 0.5147972 secs
";

    #[test]
    fn reads_g1_on_jdk17() {
        let log = parse(JDK17_G1);
        assert_eq!(log.warnings, Vec::<String>::new());
        assert_eq!(log.pretouches.len(), 4);
        let heap = &log.pretouches[0];
        assert_eq!(&*heap.what, "G1 PreTouch");
        assert_eq!((heap.workers, heap.work_units), (2, 256));
        assert_eq!(heap.bytes, Bytes(1 << 30));
        assert_eq!(heap.took_ns, Some(Nanos(668915946160 - 668492438003)));
        // The last pretouch ends at the Genesis line.
        assert_eq!(
            log.pretouches[3].took_ns,
            Some(Nanos(669020831546 - 668960308196))
        );
        assert_eq!(log.pretouch_ns(), Some(Nanos(669020831546 - 668492438003)));
        assert_eq!(log.genesis_ns, Some(Nanos(528_997_700)));
        assert_eq!(log.create_vm_ns, Some(Nanos(547_594_800)));
        assert_eq!(
            log.pretouch_bytes(),
            Bytes((1 << 30) + 2 * (16 << 20) + (2 << 20))
        );
    }

    #[test]
    fn reads_parallel_on_jdk25() {
        let log = parse(JDK25_PARALLEL);
        assert!(log.warnings.is_empty(), "{:?}", log.warnings);
        assert_eq!(log.pretouches.len(), 4);
        assert_eq!(&*log.pretouches[0].what, "ParallelGC PreTouch head");
        assert_eq!(log.pretouches[3].bytes, Bytes(716177408));
        assert_eq!(log.pretouch_bytes(), Bytes(1 << 30));
        assert_eq!(log.genesis_ns, Some(Nanos(480_784_400)));
    }

    #[test]
    fn without_pretouch_there_is_no_pretouch_time() {
        let log = parse(
            "[1ns] Minimum heap 1  Initial heap 1  Maximum heap 1\n[2ns] Genesis, 0.0158913 secs\n",
        );
        assert_eq!(log.pretouch_ns(), None);
        assert_eq!(log.genesis_ns, Some(Nanos(15_891_300)));
    }

    #[test]
    fn unknown_formats_warn_and_do_not_fail() {
        let log = parse(
            "[0.123s][info][gc] Using G1\n[5ns] Running G1 PreTouch somehow differently\n[9ns] Genesis, soon\n",
        );
        assert!(log.pretouches.is_empty());
        assert_eq!(log.genesis_ns, None);
        assert_eq!(log.warnings.len(), 3, "{:?}", log.warnings);
        assert!(log.warnings[2].contains("tn"), "{:?}", log.warnings);
        let missing = JvmLog::read(Path::new("/nonexistent/jvm.log"));
        assert!(missing.warnings[0].contains("no JVM log"));
    }

    #[test]
    fn the_xlog_argument_names_one_file_and_refuses_separators() {
        assert_eq!(
            xlog_arg(Path::new("/tmp/pretouch-x/jvm.log")).as_deref(),
            Some("-Xlog:gc+heap=debug,startuptime:file=/tmp/pretouch-x/jvm.log:tn:filecount=0")
        );
        assert_eq!(xlog_arg(Path::new("/tmp/a:b/jvm.log")), None);
        assert_eq!(xlog_arg(Path::new("/tmp/a,b/jvm.log")), None);
        assert!(unloggable(Path::new("/a:b")).warnings[0].contains("TMPDIR"));
    }
}
