//! The record types: the file format users keep, one JSON object a line. Every field
//! is documented; fields are only ever added, and old files read as their defaults.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::features::key::KeyParts;
use crate::features::measurement::LaunchParts;
use crate::launch::Measurement;
use crate::machine::env::Environment;
use crate::machine::guest_memory::ComparableMemory;
use crate::machine::jdk::Jdk;
use crate::matrix::Gc;
use crate::units::{Bytes, Nanos, Word, word};
use crate::units::{SeenKeys, read_once};

/// Version of the record format, in every run header.
pub const FORMAT_VERSION: u32 = 1;

/// One line of a result file. The core's kinds are named here; the extra rounds' kinds
/// are the features' (`features::record` lists them), each kept as its line.
///
/// Written with its tag first, as `"record":"<kind>"`. Read with
/// [`crate::store::read::parse_record`], which reads the tag and then the line as its
/// kind, so that no line is copied into serde's buffer of an internally tagged enum.
#[derive(Debug, Clone)]
pub enum Record {
    Run(RunHeader),
    Launch(LaunchRecord),
    End(RunEnd),
    /// Written by `pretouch run --resume` before the launches it adds.
    Resume(RunResume),
    /// A launch of the extra rounds, of a kind a feature registers: in no timing
    /// statistic.
    Extra(ExtraLine),
}

/// The tags of the core's records, in the order of [`Record`]'s variants.
pub const CORE_TAGS: [&str; 4] = ["run", "launch", "end", "resume"];

impl Serialize for Record {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        /// The core's records as they are written: the tag, then the record's fields.
        #[derive(Serialize)]
        #[serde(tag = "record", rename_all = "snake_case")]
        enum Core<'a> {
            Run(&'a RunHeader),
            Launch(&'a LaunchRecord),
            End(&'a RunEnd),
            Resume(&'a RunResume),
        }
        match self {
            Record::Run(r) => Core::Run(r).serialize(serializer),
            Record::Launch(r) => Core::Launch(r).serialize(serializer),
            Record::End(r) => Core::End(r).serialize(serializer),
            Record::Resume(r) => Core::Resume(r).serialize(serializer),
            Record::Extra(r) => r.serialize(serializer),
        }
    }
}

/// A record of the extra rounds as its line holds it: `"record":"<tag>"`, then the
/// fields its feature's record type writes. The store keeps it as that line, because
/// only the feature knows the type (`features::record` lists the kinds).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExtraLine {
    tag: &'static str,
    line: String,
}

impl ExtraLine {
    /// The line of `record`, a feature's record of kind `tag`, which writes a JSON
    /// object: the tag first, then the record's fields in the record's own order.
    pub fn of<T: Serialize>(tag: &'static str, record: &T) -> ExtraLine {
        let fields = serde_json::to_string(record).expect("records always serialize");
        let rest = fields
            .strip_prefix('{')
            .expect("a record writes a JSON object");
        let comma = if rest == "}" { "" } else { "," };
        ExtraLine {
            tag,
            line: format!(r#"{{"record":"{tag}"{comma}{rest}"#),
        }
    }

    /// A line of kind `tag` as read from a file.
    pub(crate) fn read(tag: &'static str, line: &str) -> ExtraLine {
        ExtraLine {
            tag,
            line: line.to_owned(),
        }
    }

    pub fn tag(&self) -> &'static str {
        self.tag
    }

    /// The line, without its newline.
    pub fn line(&self) -> &str {
        &self.line
    }
}

/// A JSON value with every object's keys in their order, duplicates included: what an
/// extra record's line holds, read without knowing its type and written back as it was.
pub(crate) enum Entries {
    Null,
    Bool(bool),
    Number(serde_json::Number),
    String(String),
    Array(Vec<Entries>),
    Object(Vec<(String, Entries)>),
}

impl<'de> Deserialize<'de> for Entries {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Entries, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = Entries;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON value")
            }
            fn visit_unit<E>(self) -> Result<Entries, E> {
                Ok(Entries::Null)
            }
            fn visit_none<E>(self) -> Result<Entries, E> {
                Ok(Entries::Null)
            }
            fn visit_bool<E>(self, v: bool) -> Result<Entries, E> {
                Ok(Entries::Bool(v))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Entries, E> {
                Ok(Entries::Number(v.into()))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Entries, E> {
                Ok(Entries::Number(v.into()))
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Entries, E> {
                serde_json::Number::from_f64(v)
                    .map(Entries::Number)
                    .ok_or_else(|| E::custom("a number JSON cannot hold"))
            }
            fn visit_str<E>(self, v: &str) -> Result<Entries, E> {
                Ok(Entries::String(v.to_owned()))
            }
            fn visit_string<E>(self, v: String) -> Result<Entries, E> {
                Ok(Entries::String(v))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Entries, A::Error> {
                let mut out = Vec::new();
                while let Some(value) = seq.next_element()? {
                    out.push(value);
                }
                Ok(Entries::Array(out))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Entries, A::Error> {
                let mut out = Vec::new();
                while let Some(entry) = map.next_entry()? {
                    out.push(entry);
                }
                Ok(Entries::Object(out))
            }
        }
        d.deserialize_any(Visitor)
    }
}

impl Serialize for Entries {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{SerializeMap, SerializeSeq};
        match self {
            Entries::Null => serializer.serialize_unit(),
            Entries::Bool(v) => serializer.serialize_bool(*v),
            Entries::Number(v) => v.serialize(serializer),
            Entries::String(v) => serializer.serialize_str(v),
            Entries::Array(values) => {
                let mut seq = serializer.serialize_seq(Some(values.len()))?;
                for value in values {
                    seq.serialize_element(value)?;
                }
                seq.end()
            }
            Entries::Object(entries) => {
                let mut map = serializer.serialize_map(Some(entries.len()))?;
                for (key, value) in entries {
                    map.serialize_entry(key, value)?;
                }
                map.end()
            }
        }
    }
}

/// Written as its line's keys and values, in their order: the same bytes as the line
/// when written by [`ExtraLine::of`].
impl Serialize for ExtraLine {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::Error;
        serde_json::from_str::<Entries>(&self.line)
            .map_err(S::Error::custom)?
            .serialize(serializer)
    }
}

/// First line of a result file: what was run, where, when.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RunHeader {
    /// Record format version ([`FORMAT_VERSION`]).
    pub format: u32,
    /// Version of the `pretouch` that wrote the file.
    pub tool_version: String,
    /// The matrix's `name`.
    pub name: String,
    /// What this run is compared under: the kernel release unless `--label` said otherwise.
    pub label: String,
    /// Where the matrix came from (a path, or the built-in matrix).
    pub matrix_origin: String,
    /// The matrix YAML exactly as given.
    pub matrix: String,
    /// SHA-256 of `matrix`, hex: `--resume` refuses a matrix file that changed since.
    /// Absent in files written before it existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matrix_sha256: Option<String>,
    pub host: HostInfo,
    /// UTC wall-clock time at the start of the run, RFC 3339.
    pub started_at: String,
    /// The JDKs of the matrix, resolved.
    pub jdks: Vec<Jdk>,
    /// Agent library loaded with `-agentpath`: `/proc/self/fd/N` is the one built into
    /// `pretouch` (a memfd), any other path an `--agent` or `PRETOUCH_AGENT` file.
    pub agent: PathBuf,
    /// SHA-256 of the agent library's bytes, hex. Absent in files written before it existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_sha256: Option<String>,
    /// Number of launches the plan holds, warm-ups included. With adaptive repetitions,
    /// those of the first `min` rounds; the end record says where each cell stopped.
    pub planned_launches: u64,
    /// The machine's and kernel's settings at the start of the run (THP modes, cgroup
    /// limits, boot parameters...). Absent in files written before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub env: Option<Environment>,
    /// The features' parts of the header, each its own key (the VM a kernel ran in).
    /// Flattened, so the keys sit where they always have.
    #[serde(flatten)]
    pub features: crate::features::header::RunParts,
    /// Where each of the matrix's `cpus:` sets lies, in matrix order: the CPUs a set
    /// (a list, or a topology spec like `1 L3 domain, 7 CPUs`) resolved to and their L3
    /// domains, NUMA nodes, sockets and cores. Empty when every set is `all`, and in
    /// files written before it was recorded.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cpu_placements: Vec<crate::machine::topology::Placement>,
    /// What `--comparable-memory` (or `comparable_memory: true`) did before the first
    /// launch: free page reporting stopped for the run, a heap-sized region touched.
    /// Absent when the option was not used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub comparable_memory: Option<ComparableMemory>,
    /// The extra rounds per cell the run owes after its timed launches, each feature's
    /// own key, so that `--resume` runs those the file lacks. Flattened last, so the keys
    /// sit where they always have.
    #[serde(flatten)]
    pub extra_rounds: crate::features::header::ExtraRounds,
}

/// The machine a run was taken on (read by `machine::host`), stored in the run header.
pub use crate::machine::host::HostInfo;

/// What identifies a cell across runs and kernels. Its words are shared ([`Word`]):
/// every launch of a cell holds the same ones, and a report holds millions of launches.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct CellKey {
    /// The JDK's runtime version, e.g. `17.0.15+6-Debian-1deb12u1`.
    #[serde(with = "word")]
    pub jdk: Word,
    pub gc: Gc,
    /// The heap as written in the matrix, e.g. `1g`.
    #[serde(with = "word")]
    pub heap: Word,
    /// The variant's name (`default` when the matrix has none).
    #[serde(with = "word")]
    pub variant: Word,
    /// `-XX:ParallelGCThreads` as written in `gc_threads:`; `auto` (the JVM's choice) when
    /// the matrix has no such axis, and in files written before it existed.
    #[serde(with = "word", default = "gc_threads_auto")]
    pub gc_threads: Word,
    /// The CPU set as written in `cpus:`; `all` (not confined) when the matrix has no
    /// such axis, and in files written before it existed.
    #[serde(with = "word", default = "cpus_all")]
    pub cpus: Word,
    /// Binary name of the `app:` main class stamped; absent for the built-in main class.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub app: Option<String>,
    /// The features' axes of the cell, each its own key after the core's, written only
    /// when the matrix has that axis. Last, so the keys keep their order in the files
    /// and cells sort as they always have. Flattened for the records that are read once
    /// a file, and read key by key by the launch record's reader.
    #[serde(flatten)]
    pub features: KeyParts,
}

fn gc_threads_auto() -> Word {
    word::intern(crate::matrix::GC_THREADS_AUTO)
}

fn cpus_all() -> Word {
    word::intern(crate::matrix::cpuset::ALL)
}

/// One launch of a JVM. Read by its own reader (below), which names every field.
#[derive(Debug, Clone, Serialize)]
pub struct LaunchRecord {
    /// Position in the run's plan, from 0.
    pub seq: u64,
    /// Round number, from 0; warm-up rounds come first.
    pub round: u32,
    /// An uncounted warm-up launch.
    pub warmup: bool,
    #[serde(flatten)]
    pub cell: CellKey,
    /// JAVA_HOME of the JDK launched.
    pub jdk_home: PathBuf,
    /// The heap in bytes.
    pub heap_bytes: Bytes,
    /// Launched with `-XX:+AlwaysPreTouch` (else with `-XX:-AlwaysPreTouch`).
    pub pretouch: bool,
    /// What the launch measured: its command, times, stamps, failure, counters.
    #[serde(flatten)]
    pub measured: Measurement,
    /// `stamps.main - spawn_ns`: the measurement. Absent when the launch failed.
    pub time_to_main_ns: Option<Nanos>,
    /// Not launched: its cell was given up after consecutive failures (`--give-up-after`);
    /// `failure` says why. Such a record has no command, stamps or times.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub skipped: bool,
}

/// The words of a launch's command line that the report reads, as prefixes: the THP
/// flag decides the pretouch method (`analyze::method`), the CDS flags the CDS state of
/// records written before it was recorded (`features::cds::analyze`, which also reads the JDK
/// home). [`LaunchRecord::for_report`] keeps these and drops the rest.
const REPORT_FLAGS: [&str; 4] = [
    "-XX:+UseTransparentHugePages",
    "-XX:-UseTransparentHugePages",
    "-Xshare:",
    "-XX:SharedArchiveFile=",
];

impl LaunchRecord {
    /// The core it shares with the extra rounds' records, read from where a timed
    /// record keeps it: its own fields and its measurement's.
    pub fn core(&self) -> LaunchCore<'_> {
        LaunchCore {
            seq: self.seq,
            round: self.round,
            cell: &self.cell,
            pretouch: self.pretouch,
            command: &self.measured.command,
            started_at: &self.measured.started_at,
            time_to_main_ns: self.time_to_main_ns,
            failure: self.measured.failure.as_deref(),
        }
    }

    pub fn ok(&self) -> bool {
        self.core().ok()
    }

    /// A launch that was neither skipped nor failed, and yet has no time to `main()`.
    /// The writer never makes one, because a launch that did not reach `main()` gets a
    /// failure, so such a record was damaged after it was written.
    pub fn claims_nothing(&self) -> bool {
        !self.skipped && self.measured.failure.is_none() && self.time_to_main_ns.is_none()
    }

    /// The record as a report reads it (see [`crate::store::read_for_report`]): without
    /// what no report shows (the command line but for the flags [`REPORT_FLAGS`] names,
    /// the spawn's wall-clock time, the output's tail of a launch that did not fail, the
    /// crash files, the agent's stamp mechanism) and with only the machine counters the
    /// report reads ([`crate::launch::machine_counters::reads_counter`]). A server
    /// launch's record of its ready probe and workload is kept whole. The report of such
    /// records is the report of the whole ones (`tests/report_streaming.rs` checks it on
    /// the kept inputs).
    pub fn for_report(mut self) -> LaunchRecord {
        use crate::launch::machine_counters::reads_counter;
        let m = &mut self.measured;
        m.command
            .retain(|a| REPORT_FLAGS.iter().any(|f| a.starts_with(f)));
        m.command.shrink_to_fit();
        m.started_at = String::new();
        if m.failure.is_none() {
            m.output_tail = None;
        }
        m.crash_files = Vec::new();
        m.stamps.mechanism = None;
        if let Some(machine) = &mut m.machine {
            machine.vmstat.retain(|name, _| reads_counter(name));
            machine.psi_us.retain(|name, _| reads_counter(name));
        }
        self
    }

    /// Spawn to reap: what a whole-process timer would see.
    pub fn wall(&self) -> Nanos {
        self.measured
            .reaped_ns
            .since(self.measured.spawn_ns)
            .unwrap_or(Nanos(0))
    }
}

/// Declares, for each key named, a local `Option` of that name, and reads each key of
/// `$map` into its own. A key named nowhere is offered to `$other`, which reads its
/// value and returns true when the key is its own. The value of a key no one takes is
/// skipped, so that files written by newer versions read. A key given twice is refused.
/// The type of each local is the one its field has, found by the compiler from where it
/// is used.
macro_rules! read_keys {
    ($map:ident, $other:expr; $($key:ident)*) => {
        $(let mut $key = None;)*
        {
            #[expect(non_camel_case_types, reason = "each variant is its key, as written")]
            enum Key<'a> {
                $($key,)*
                Other(std::borrow::Cow<'a, str>),
            }
            struct KeyVisitor;
            impl<'de> serde::de::Visitor<'de> for KeyVisitor {
                type Value = Key<'de>;
                fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                    f.write_str("a field name")
                }
                fn visit_borrowed_str<E: serde::de::Error>(self, key: &'de str) -> Result<Key<'de>, E> {
                    Ok(match key {
                        $(stringify!($key) => Key::$key,)*
                        _ => Key::Other(std::borrow::Cow::Borrowed(key)),
                    })
                }
                fn visit_str<E: serde::de::Error>(self, key: &str) -> Result<Key<'de>, E> {
                    Ok(match key {
                        $(stringify!($key) => Key::$key,)*
                        _ => Key::Other(std::borrow::Cow::Owned(key.to_owned())),
                    })
                }
            }
            impl<'de> Deserialize<'de> for Key<'de> {
                fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Key<'de>, D::Error> {
                    d.deserialize_identifier(KeyVisitor)
                }
            }
            while let Some(key) = $map.next_key::<Key>()? {
                match key {
                    $(Key::$key => read_once(&mut $key, stringify!($key), &mut $map)?,)*
                    Key::Other(key) => {
                        if !$other(&key, &mut $map)? {
                            $map.next_value::<serde::de::IgnoredAny>()?;
                        }
                    }
                }
            }
        }
    };
}

/// The value of a key that has no default, or the error that names the key missing.
macro_rules! need {
    ($key:ident) => {
        match $key {
            Some(value) => value,
            None => return Err(serde::de::Error::missing_field(stringify!($key))),
        }
    };
}

/// A cell's word, read as [`word`] reads it: shared with the file's other launches.
struct Interned(Word);

impl<'de> Deserialize<'de> for Interned {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Interned, D::Error> {
        word::deserialize(d).map(Interned)
    }
}

fn interned(read: Interned) -> Word {
    read.0
}

/// A launch record is read in one pass over its keys, each straight into its field.
/// Derived with `#[serde(flatten)]`, as the record is written, serde would first copy
/// every key and value of the line into a buffer of its own and then read the cell and
/// the measurement from that copy, which made reading a campaign's launch records twice
/// as slow. What reads and what is refused stays as the derived reader had it: a key
/// the record does not know is skipped, and a key given twice, a value of the wrong
/// type or a missing key that has no default is refused, naming the key.
///
/// A new field of the record, its cell or its [`Measurement`] is one key in the list
/// of `read_keys!` below and one line in the struct literal that uses it: the compiler
/// asks for both, and `the_reader_knows_every_key_the_types_declare` checks the key's
/// name against the one serde derives for the field.
impl<'de> Deserialize<'de> for LaunchRecord {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<LaunchRecord, D::Error> {
        d.deserialize_map(LaunchVisitor)
    }
}

struct LaunchVisitor;

impl<'de> serde::de::Visitor<'de> for LaunchVisitor {
    type Value = LaunchRecord;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a launch record")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<LaunchRecord, A::Error> {
        // The features' keys are theirs to read, the cell's axes and the measurement's
        // parts, so the core's list names none of them.
        let mut features = LaunchParts::default();
        let mut axes = KeyParts::default();
        let mut seen = SeenKeys::default();
        read_keys!(map, |key: &str, map: &mut A| Ok(axes.read_key(key, map, &mut seen)?
            || features.read_key(key, map, &mut seen)?);
            seq round warmup
            jdk gc heap variant gc_threads cpus app
            jdk_home heap_bytes pretouch
            command started_at spawn_ns reaped_ns exit_code signal stamps failure output_tail
            affinity rusage jvm_log machine crash_files heap_memory mthp
            time_to_main_ns skipped
        );
        // In the order of the fields, so that of several keys missing the first is named,
        // as the derived reader named it.
        Ok(LaunchRecord {
            seq: need!(seq),
            round: need!(round),
            warmup: need!(warmup),
            cell: CellKey {
                jdk: interned(need!(jdk)),
                gc: need!(gc),
                heap: interned(need!(heap)),
                variant: interned(need!(variant)),
                gc_threads: gc_threads.map_or_else(gc_threads_auto, interned),
                cpus: cpus.map_or_else(cpus_all, interned),
                app: app.unwrap_or_default(),
                features: axes,
            },
            jdk_home: need!(jdk_home),
            heap_bytes: need!(heap_bytes),
            pretouch: need!(pretouch),
            measured: Measurement {
                command: need!(command),
                started_at: need!(started_at),
                spawn_ns: need!(spawn_ns),
                reaped_ns: need!(reaped_ns),
                exit_code: exit_code.unwrap_or_default(),
                signal: signal.unwrap_or_default(),
                stamps: need!(stamps),
                failure: failure.unwrap_or_default(),
                output_tail: output_tail.unwrap_or_default(),
                affinity: affinity.unwrap_or_default(),
                rusage: rusage.unwrap_or_default(),
                jvm_log: jvm_log.unwrap_or_default(),
                machine: machine.unwrap_or_default(),
                crash_files: crash_files.unwrap_or_default(),
                heap_memory: heap_memory.unwrap_or_default(),
                mthp: mthp.unwrap_or_default(),
                features,
            },
            time_to_main_ns: time_to_main_ns.unwrap_or_default(),
            skipped: skipped.unwrap_or_default(),
        })
    }
}

/// Last line of a result file that ran to its end.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RunEnd {
    /// UTC wall-clock time at the end of the run.
    pub finished_at: String,
    /// Launches recorded, warm-ups included.
    pub launches: u64,
    /// Launches that failed.
    pub failed: u64,
    /// The runner's own peak resident set (getrusage RUSAGE_SELF), to show that it does
    /// not grow with the run. Absent in files of older versions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runner_max_rss: Option<Bytes>,
    /// With adaptive repetitions: where each cell stopped adding rounds, and why. Empty
    /// (and not written) for a fixed number of repetitions.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stops: Vec<CellStop>,
}

/// Where a cell stopped adding rounds under adaptive repetitions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CellStop {
    /// The cell, as in its launch records.
    #[serde(flatten)]
    pub cell: CellKey,
    /// Counted rounds the cell ran.
    pub rounds: u32,
    /// The policy's `max` rounds.
    pub max_rounds: u32,
    /// The policy's `ci_pct`: the target half-width of the interval, in % of the cost.
    /// Absent when the policy gave only `ci_ms`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_pct: Option<f64>,
    /// The policy's `ci_ms`: the target half-width of the interval, ms. Absent when the
    /// policy gave none, and in files written before it existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_ms: Option<f64>,
    /// `converged` (the interval met every target), `max_reached`, `given_up` (the cell
    /// kept failing, see `--give-up-after`), or `no_interval` (too few rounds with both
    /// launches for an interval).
    pub reason: String,
    /// The cost at the stop, ms: the 20% trimmed mean of the per-round costs (files with
    /// `ci_batches`), or median(with) - median(without) (files written before).
    pub cost_ms: Option<f64>,
    /// Low end of the interval at the stop, ms: the drift-aware interval the report
    /// states (`stats::interval::cost_interval`, files with `ci_batches`) at the level
    /// of each look (files with `looks`: 1 - 0.05 / looks, so that the interval stopped
    /// on holds 95%; before, 95% at every round, which the stop weakened), or in files
    /// written before `ci_batches` the Mann-Whitney interval of the shift between the
    /// launches.
    pub ci_low_ms: Option<f64>,
    /// High end of that interval, ms.
    pub ci_high_ms: Option<f64>,
    /// The interval's larger distance from the cost, in % of the cost.
    pub ci_half_width_pct: Option<f64>,
    /// Batches of consecutive rounds of the drift-aware interval (`batches - 1` degrees
    /// of freedom). Absent without an interval, and in files written before the stop
    /// used that interval.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ci_batches: Option<usize>,
    /// How many planned rounds the rule checked the interval at
    /// (`matrix::repetitions::Adaptive::looks`), each at 1 - 0.05 / looks. Absent in
    /// files written before the looks, whose rule checked every round at 95%.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub looks: Option<u32>,
}

/// The run was interrupted, then resumed with `pretouch run --resume`: the launches after
/// this line were taken in a later session (same matrix, kernel release and JDKs).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RunResume {
    /// UTC wall-clock time of the resume, RFC 3339.
    pub resumed_at: String,
    /// Version of the `pretouch` that resumed.
    pub tool_version: String,
    /// The kernel at the resume (its release was checked to equal the header's).
    pub host: HostInfo,
    /// Agent library loaded with `-agentpath` from here on (see [`RunHeader::agent`]).
    pub agent: PathBuf,
    /// SHA-256 of that library's bytes, hex. Absent in files written before it existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_sha256: Option<String>,
    /// Launches already in the file, warm-ups and failures included.
    pub launches_before: u64,
    /// The end of the file cut mid-line (the runner was killed while writing it),
    /// removed so that new lines start on a line of their own; kept here, lossily decoded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dropped_tail: Option<String>,
    /// The features' parts of the resumed session, each its own key (the VM it ran in),
    /// as in [`RunHeader::features`].
    #[serde(flatten)]
    pub features: crate::features::header::RunParts,
}

/// Where a launch of the extra rounds stands in its run's plan: the fields its record
/// starts with, the same for every kind of the extra rounds, written in this order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlannedAs {
    /// Position among the run's launches of its kind, from 0.
    pub seq: u64,
    /// Round of the cell among the launches of its kind, from 0. Each round launches the
    /// cell once without and once with pretouch.
    pub round: u32,
    /// The cell, as in its launch records.
    #[serde(flatten)]
    pub cell: CellKey,
    /// Launched with `-XX:+AlwaysPreTouch` (else with `-XX:-AlwaysPreTouch`).
    pub pretouch: bool,
}

/// What a launch of the extra rounds started and reached: the fields every kind
/// of the extra rounds holds after [`PlannedAs`], made from the launcher's
/// [`Measurement`] by [`Launched::new`] alone. Each record writes them where the file
/// has always had them, among its own fields, so this type is read flattened and
/// written by the record.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Launched {
    /// The full command line, program first (the record says which program).
    pub command: Vec<String>,
    /// UTC wall-clock time of the spawn, RFC 3339 with milliseconds.
    pub started_at: String,
    /// Spawn to the JVM's `main()` (the agent's stamp), as for a timed launch. Absent
    /// when the launch failed.
    pub time_to_main_ns: Option<Nanos>,
    /// Why the launch or its instrument failed; absent when both succeeded.
    pub failure: Option<String>,
}

impl Launched {
    /// What `measured` launched and reached, failed when it failed or else when its
    /// instrument had a `problem`. The one place a record's time to main and failure
    /// are made from a measurement.
    pub fn new(measured: Measurement, problem: Option<String>) -> Launched {
        Launched {
            time_to_main_ns: measured.time_to_main(),
            failure: measured.failure.or(problem),
            command: measured.command,
            started_at: measured.started_at,
        }
    }
}

/// The core every launch record holds, whichever its kind (timed, or of an extra round),
/// borrowed: where the launch stands in its plan (seq, round, cell, pretouch) and what
/// it launched and reached (command, start, time to main, failure). The extra rounds'
/// records store it as [`PlannedAs`] and [`Launched`]; a timed one keeps these
/// fields where they were, because it is the record a report holds by the hundred
/// thousand (see `a_launch_record_stays_small_inline`) and its launched fields are
/// the launcher's [`Measurement`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LaunchCore<'a> {
    /// Position among the run's launches of its kind, from 0.
    pub seq: u64,
    /// Round of the cell among the launches of its kind, from 0.
    pub round: u32,
    /// The cell launched.
    pub cell: &'a CellKey,
    /// Launched with `-XX:+AlwaysPreTouch`.
    pub pretouch: bool,
    /// The full command line, program first.
    pub command: &'a [String],
    /// UTC wall-clock time of the spawn.
    pub started_at: &'a str,
    /// Spawn to `main()`; absent when the launch failed.
    pub time_to_main_ns: Option<Nanos>,
    /// Why the launch (or its instrument) failed; absent when it succeeded.
    pub failure: Option<&'a str>,
}

impl LaunchCore<'_> {
    /// Launched, reached `main()` and did not fail: what every kind's `ok` asks first.
    pub fn ok(&self) -> bool {
        self.failure.is_none() && self.time_to_main_ns.is_some()
    }

    /// The core of a launch of the extra rounds, from the two parts its record holds.
    pub fn of<'a>(at: &'a PlannedAs, launched: &'a Launched) -> LaunchCore<'a> {
        LaunchCore {
            seq: at.seq,
            round: at.round,
            cell: &at.cell,
            pretouch: at.pretouch,
            command: &launched.command,
            started_at: &launched.started_at,
            time_to_main_ns: launched.time_to_main_ns,
            failure: launched.failure.as_deref(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The launch record as serde derived its reader before the record had its own:
    /// flattened, as it is written. The reference the reader is held to.
    #[derive(Deserialize)]
    struct Derived {
        seq: u64,
        round: u32,
        warmup: bool,
        #[serde(flatten)]
        cell: CellKey,
        jdk_home: PathBuf,
        heap_bytes: Bytes,
        pretouch: bool,
        #[serde(flatten)]
        measured: Measurement,
        time_to_main_ns: Option<Nanos>,
        #[serde(default)]
        skipped: bool,
    }

    impl From<Derived> for LaunchRecord {
        fn from(d: Derived) -> LaunchRecord {
            LaunchRecord {
                seq: d.seq,
                round: d.round,
                warmup: d.warmup,
                cell: d.cell,
                jdk_home: d.jdk_home,
                heap_bytes: d.heap_bytes,
                pretouch: d.pretouch,
                measured: d.measured,
                time_to_main_ns: d.time_to_main_ns,
                skipped: d.skipped,
            }
        }
    }

    /// The keys serde derives for the fields of `T`, a struct: what its derived reader
    /// passes to `deserialize_struct`, caught there.
    fn keys_of<T: serde::de::DeserializeOwned>() -> Vec<&'static str> {
        use serde::de::{Error, Visitor, value};
        struct Catch<'a>(&'a mut Vec<&'static str>);
        impl<'de> serde::Deserializer<'de> for Catch<'_> {
            type Error = value::Error;
            fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, value::Error> {
                Err(value::Error::custom("not a struct"))
            }
            fn deserialize_struct<V: Visitor<'de>>(
                self,
                _: &'static str,
                fields: &'static [&'static str],
                _: V,
            ) -> Result<V::Value, value::Error> {
                self.0.extend(fields);
                Err(value::Error::custom("caught"))
            }
            serde::forward_to_deserialize_any! {
                bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes
                byte_buf option unit unit_struct newtype_struct seq tuple tuple_struct map
                enum identifier ignored_any
            }
        }
        let mut keys = Vec::new();
        let _ = T::deserialize(Catch(&mut keys));
        assert!(
            !keys.is_empty(),
            "{} is no struct",
            std::any::type_name::<T>()
        );
        keys
    }

    /// Reads `line` with the reader, straight and (when `tagged`) through [`Record`], and
    /// with the derived one: both take it or both refuse it for the same reason, and
    /// what they take writes the same bytes.
    fn reads_as_derived(line: &str, tagged: bool) {
        let derived = serde_json::from_str::<Derived>(line).map(LaunchRecord::from);
        let mut reads = vec![serde_json::from_str::<LaunchRecord>(line)];
        if tagged {
            reads.push(crate::store::read::parse_record(line).map(|r| match r {
                Record::Launch(l) => l,
                _ => panic!("not a launch: {line}"),
            }));
        }
        // The reason without where: the derived reader found it after the whole line.
        let why =
            |e: &serde_json::Error| e.to_string().split(" at line ").next().map(str::to_owned);
        for read in reads {
            match (&derived, read) {
                (Ok(d), Ok(r)) => assert_eq!(
                    serde_json::to_string(&r).unwrap(),
                    serde_json::to_string(d).unwrap(),
                    "{line}"
                ),
                // A key missing or given twice is named alike; a value of the wrong type
                // may be worded otherwise, because serde words it from its copy.
                (Err(d), Err(r)) if d.to_string().contains(" field `") => {
                    assert_eq!(why(&r), why(d), "{line}")
                }
                (Err(_), Err(_)) => {}
                (d, r) => panic!("derived {:?}, read {:?}: {line}", d.is_ok(), r.map(|_| ())),
            }
        }
    }

    /// A feature's key with `null` for its value reads as no value, as the derived
    /// reader read it, whether the key is the cell's or the measurement's. The same key
    /// again after it is refused. pretouch never writes a `null` there, but another tool
    /// that writes records may.
    #[test]
    fn a_features_key_of_null_reads_as_the_derived_reader_read_it() {
        let launch = Record::Launch(crate::fixtures::launch(0, true, 100.0));
        let line = serde_json::to_string(&launch).unwrap();
        for key in ["setting", "memory", "server", "cds", "settings", "cgroup"] {
            assert!(!line.contains(&format!("\"{key}\":")), "{line}");
            let text = format!("{},\"{key}\":null}}", &line[..line.len() - 1]);
            reads_as_derived(&text, true);
            let read = crate::store::read::parse_record(&text).unwrap();
            assert_eq!(
                serde_json::to_string(&read).unwrap(),
                line,
                "{key}: null reads as no value"
            );
            // A null does not make the key new again.
            let twice = format!("{},\"{key}\":null}}", &text[..text.len() - 1]);
            let e = crate::store::read::parse_record(&twice).unwrap_err();
            assert!(e.to_string().contains("duplicate field"), "{key}: {e}");
            reads_as_derived(&twice, true);
        }
    }

    #[test]
    fn the_reader_reads_every_line_as_the_derived_reader_did() {
        let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
        let mut files = Vec::new();
        let mut folders = vec![data];
        while let Some(folder) = folders.pop() {
            for entry in std::fs::read_dir(folder).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    folders.push(path);
                } else if path.extension().is_some_and(|e| e == "jsonl") {
                    files.push(path);
                }
            }
        }
        let mut lines: Vec<serde_json::Map<String, serde_json::Value>> = Vec::new();
        for file in files {
            for line in std::fs::read_to_string(&file).unwrap().lines() {
                if let Ok(serde_json::Value::Object(o)) = serde_json::from_str(line)
                    && o["record"] == "launch"
                {
                    lines.push(o);
                }
            }
        }
        assert!(lines.len() > 100, "{} launch lines", lines.len());
        // Every key the kept lines have, every key the cell and the features' parts
        // declare, and one no type declares: each is taken away, given a value no field
        // takes, given twice and given a value of its own (from the first line that has
        // one). The measurement's keys come from the lines, because its derived reader
        // reads the features' parts flattened, and so names no keys of its own.
        let mut keys: Vec<&str> = (lines.iter().flat_map(|l| l.keys()))
            .map(String::as_str)
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        // The cell flattens the features' axes, so its derived reader reads it as a map
        // and names no keys. Its own keys are those it writes with every field set.
        let mut cell = crate::fixtures::launch(0, true, 100.0).cell;
        cell.app = Some("com.example.Main".into());
        let written = serde_json::to_value(&cell).unwrap();
        let cell_keys: Vec<String> = written.as_object().unwrap().keys().cloned().collect();
        assert_eq!(cell_keys.len(), 7, "{cell_keys:?}");
        keys.extend(cell_keys.iter().map(String::as_str));
        keys.extend(keys_of::<KeyParts>());
        keys.extend(keys_of::<LaunchParts>());
        keys.sort_unstable();
        keys.dedup();
        keys.extend([
            "seq",
            "round",
            "warmup",
            "jdk_home",
            "heap_bytes",
            "pretouch",
        ]);
        keys.extend(["time_to_main_ns", "skipped", "record", "not_a_key"]);
        let own = |key: &str| {
            lines
                .iter()
                .find_map(|l| l.get(key).filter(|v| !v.is_null()))
        };
        let mut tried = 0;
        for line in lines.iter().step_by(7) {
            reads_as_derived(&serde_json::to_string(line).unwrap(), true);
            for key in &keys {
                // The record's tag is the enum's to check, not the launch's.
                let tagged = *key != "record";
                let mut changed = line.clone();
                changed.remove(*key);
                reads_as_derived(&serde_json::to_string(&changed).unwrap(), tagged);
                for value in [Some(&serde_json::json!(-1.5)), own(key)]
                    .into_iter()
                    .flatten()
                {
                    changed.insert(key.to_string(), value.clone());
                    let text = serde_json::to_string(&changed).unwrap();
                    reads_as_derived(&text, tagged);
                    let twice = format!("{},\"{key}\":{value}}}", &text[..text.len() - 1]);
                    reads_as_derived(&twice, tagged);
                }
                tried += 1;
            }
        }
        assert!(tried > 1000, "{tried}");
    }

    /// A cell's setting and memory limit: written after the core's keys of the cell, read
    /// back by the launch record's reader as the derived reader read them, and written
    /// in the same place by a stop of the run's end, which reads them flattened.
    #[test]
    fn the_features_axes_of_a_cell_sit_after_its_core_keys_and_read_back() {
        let mut launch = crate::fixtures::launch(0, true, 100.0);
        launch.cell.features = KeyParts {
            setting: Some("4k".into()),
            memory: Some("1g".into()),
        };
        let line = serde_json::to_string(&Record::Launch(launch.clone())).unwrap();
        assert!(
            line.contains(r#""cpus":"all","setting":"4k","memory":"1g","jdk_home":"#),
            "{line}"
        );
        reads_as_derived(&line, true);
        let Record::Launch(read) = crate::store::read::parse_record(&line).unwrap() else {
            panic!("not a launch: {line}");
        };
        assert_eq!(read.cell, launch.cell);
        for twice in [r#","setting":"2m"}"#, r#","memory":"2g"}"#] {
            let text = format!("{}{twice}", &line[..line.len() - 1]);
            let e = serde_json::from_str::<LaunchRecord>(&text).unwrap_err();
            assert!(e.to_string().starts_with("duplicate field `"), "{e}");
            reads_as_derived(&text, true);
        }
        let without = line.replace(r#""setting":"4k","#, r#""setting":null,"#);
        reads_as_derived(&without, true);
        let stop = CellStop {
            cell: launch.cell.clone(),
            rounds: 3,
            max_rounds: 9,
            target_pct: None,
            target_ms: None,
            reason: "converged".into(),
            cost_ms: None,
            ci_low_ms: None,
            ci_high_ms: None,
            ci_half_width_pct: None,
            ci_batches: None,
            looks: None,
        };
        let text = serde_json::to_string(&stop).unwrap();
        assert!(
            text.contains(r#""cpus":"all","setting":"4k","memory":"1g","rounds":3"#),
            "{text}"
        );
        assert_eq!(serde_json::from_str::<CellStop>(&text).unwrap(), stop);
    }

    #[test]
    fn a_launch_record_stays_small_inline() {
        // A report holds every launch of a label (120,000 in a campaign's, one or two
        // labels at a time), so a field that grows the record grows its memory by that
        // much a launch. Box what is large and rare. The record held 896 bytes before a
        // cell's `setting`, which takes 24 inline because it is part of what identifies
        // the cell, as `app` is. The boxed mTHP counts took 16. Then a cell's `memory`
        // limit's name took 24, as `setting` does, and the JVM's own peak RSS 16, which is
        // 2 MB over a campaign's label.
        let size = std::mem::size_of::<LaunchRecord>();
        let parts = std::mem::size_of::<LaunchParts>();
        let core = size - parts;
        assert!(
            core <= 960,
            "LaunchRecord's own keys are {core} bytes inline"
        );
        // Each feature's part of a launch is boxed, or no larger than a box, so a feature
        // that joins the list grows the record by 8 bytes.
        let features = LaunchParts::KEYS.len();
        assert!(
            parts <= 8 * features,
            "the {features} features' parts of a LaunchRecord are {parts} bytes inline. \
             Box the large one."
        );
    }

    #[test]
    fn a_timed_launch_reads_as_the_same_core() {
        let mut launch = crate::fixtures::launch(2, true, 100.0);
        launch.seq = 5;
        launch.measured.command = vec!["java".into()];
        let core = launch.core();
        assert_eq!(
            (core.seq, core.round, core.cell, core.pretouch, core.command),
            (5, 2, &launch.cell, true, &["java".to_owned()][..])
        );
        assert_eq!(core.time_to_main_ns, Some(Nanos(100_000_000)));
        assert!(core.ok() && launch.ok());
        let failed = crate::fixtures::launch(2, true, f64::NAN);
        assert!(!failed.core().ok() && !failed.ok());
    }

    #[test]
    fn the_launches_of_a_cell_share_its_words_and_store_them_as_strings() {
        let line = serde_json::to_string(&Record::Launch(crate::fixtures::launch(0, true, 100.0)))
            .unwrap();
        let read = || match serde_json::from_str::<Record>(&line).unwrap() {
            Record::Launch(l) => l,
            _ => panic!("not a launch"),
        };
        let (a, b) = (read(), read());
        assert!(std::sync::Arc::ptr_eq(&a.cell.jdk, &b.cell.jdk));
        assert!(std::sync::Arc::ptr_eq(&a.cell.heap, &b.cell.heap));
        assert_eq!(
            serde_json::to_string(&Record::Launch(b)).unwrap(),
            line,
            "written back as read"
        );
        word::forget();
        assert!(!std::sync::Arc::ptr_eq(&read().cell.jdk, &a.cell.jdk));
        let old: serde_json::Value = serde_json::from_str(&line).unwrap();
        assert!(old["jdk"].is_string() && old["gc_threads"].is_string());
    }

    /// A VM as a header keeps it, with every field set.
    fn vm_shape() -> crate::features::kernels::machine::VmShape {
        use crate::features::kernels::machine::{Accel, VmShape};
        VmShape {
            accel: Accel::Kvm,
            emulated: false,
            accel_reason: "/dev/kvm is there".into(),
            qemu_version: Some("QEMU emulator version 8.2.2".into()),
            vng_version: Some("virtme-ng 1.42".into()),
            vcpus: 2,
            memory: Bytes(4 << 30),
            prealloc: true,
            image: "/boot/vmlinuz-6.18".into(),
            kernel_cmdline: None,
            host_kernel_release: "6.1.0".into(),
            host_kernel_version: "#1 SMP".into(),
            host_hostname: "host".into(),
            host_cpu_model: "AMD EPYC".into(),
        }
    }

    #[test]
    fn a_header_keeps_its_vm_where_it_was_and_reads_it_back() {
        let mut header = crate::fixtures::one_cell_file("l").header;
        header.env = None;
        header.cpu_placements = Vec::new();
        header.comparable_memory = None;
        header.extra_rounds.profile_rounds = Some(3);
        let without = serde_json::to_string(&Record::Run(header.clone())).unwrap();
        assert!(!without.contains("\"vm\""), "{without}");
        assert!(
            without.contains(r#""planned_launches":"#)
                && without.ends_with(r#","profile_rounds":3}"#)
        );
        // The VM's key sits after `env`'s place and before `profile_rounds`, as the
        // header declared it before the features' parts were one value.
        let vm = serde_json::to_string(&vm_shape()).unwrap();
        let expected = without.replace(
            r#","profile_rounds":3}"#,
            &format!(r#","vm":{vm},"profile_rounds":3}}"#),
        );
        header.features.vm = Some(Box::new(vm_shape()));
        let with = serde_json::to_string(&Record::Run(header.clone())).unwrap();
        assert_eq!(with, expected);
        let read: RunHeader = serde_json::from_str(&expected).unwrap();
        assert_eq!(read.features.vm.as_deref(), Some(&vm_shape()));
        assert_eq!(read.extra_rounds.profile_rounds, Some(3));
        let old: RunHeader = serde_json::from_str(&without).unwrap();
        assert_eq!(old.features.vm, None);
    }

    #[test]
    fn a_header_keeps_its_extra_rounds_last_and_reads_them_back() {
        let mut header = crate::fixtures::one_cell_file("l").header;
        let comparable = crate::machine::guest_memory::ComparableMemory {
            order_before: Some(5),
            order_during: None,
            touched: crate::units::Bytes(1 << 30),
            touch_ns: crate::units::Nanos(7),
            note: "touched".into(),
        };
        header.comparable_memory = Some(comparable.clone());
        header.extra_rounds.profile_rounds = Some(3);
        header.extra_rounds.probe_rounds = Some(2);
        let json = serde_json::to_string(&Record::Run(header.clone())).unwrap();
        // The rounds come after the core's last key, as the header declared them before
        // they were the features' part.
        let comparable = serde_json::to_string(&comparable).unwrap();
        assert!(
            json.ends_with(&format!(
                r#","comparable_memory":{comparable},"profile_rounds":3,"probe_rounds":2}}"#
            )),
            "{json}"
        );
        let read: RunHeader = serde_json::from_str(&json).unwrap();
        assert_eq!(read.extra_rounds, header.extra_rounds);
        header.extra_rounds = Default::default();
        let without = serde_json::to_string(&Record::Run(header)).unwrap();
        assert!(!without.contains("_rounds"), "{without}");
        let old: RunHeader = serde_json::from_str(&without).unwrap();
        assert_eq!(old.extra_rounds, Default::default());
    }

    #[test]
    fn a_resume_record_keeps_its_vm_last_and_reads_it_back() {
        let resume = RunResume {
            resumed_at: "2026-12-05T20:00:00.000Z".into(),
            tool_version: "0.1.0".into(),
            host: crate::fixtures::host("h"),
            agent: "/a.so".into(),
            agent_sha256: None,
            launches_before: 4,
            dropped_tail: None,
            features: crate::features::header::RunParts {
                vm: Some(Box::new(vm_shape())),
            },
        };
        let line = serde_json::to_string(&Record::Resume(resume.clone())).unwrap();
        let vm = serde_json::to_string(&vm_shape()).unwrap();
        assert!(
            line.ends_with(&format!(r#""launches_before":4,"vm":{vm}}}"#)),
            "{line}"
        );
        let read: RunResume = serde_json::from_str(&line).unwrap();
        assert_eq!(read.features, resume.features);
        let old = line.replace(&format!(r#","vm":{vm}"#), "");
        let read: RunResume = serde_json::from_str(&old).unwrap();
        assert_eq!(read.features.vm, None);
        assert_eq!(read.launches_before, 4);
    }
}
