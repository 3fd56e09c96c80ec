//! Checks every hand-written JVMTI number against each installed JDK's `include/jvmti.h`.

use std::collections::BTreeMap;
use std::path::PathBuf;

use super::{
    CAN_GENERATE_BREAKPOINT_EVENTS, CONSTANTS, EVENTS, EventCallbacks, FIRST_EVENT, SLOTS,
};

/// `$JAVA_HOME/include/jvmti.h` and every `/usr/lib/jvm/*/include/jvmti.h`, each file once.
/// Panics when there is none: these tests must never pass without checking anything.
fn headers() -> Vec<PathBuf> {
    let mut candidates = Vec::new();
    if let Some(home) = std::env::var_os("JAVA_HOME") {
        candidates.push(PathBuf::from(home).join("include/jvmti.h"));
    }
    if let Ok(dir) = std::fs::read_dir("/usr/lib/jvm") {
        let mut jdks: Vec<_> = dir
            .filter_map(|e| e.ok())
            .map(|e| e.path().join("include/jvmti.h"))
            .collect();
        jdks.sort();
        candidates.extend(jdks);
    }
    let mut found: Vec<PathBuf> = Vec::new();
    for path in candidates {
        if let Ok(real) = path.canonicalize()
            && !found.contains(&real)
        {
            found.push(real);
        }
    }
    assert!(
        !found.is_empty(),
        "no jvmti.h found in $JAVA_HOME/include or /usr/lib/jvm/*/include: \
         install a JDK with headers (apt-get install openjdk-17-jdk-headless)"
    );
    found
}

/// The feature version of the JDK a header belongs to (`<home>/include/jvmti.h`), from
/// its `release` file.
fn feature_of(header: &std::path::Path) -> Option<u32> {
    let release = std::fs::read_to_string(header.parent()?.parent()?.join("release")).ok()?;
    let v = release
        .lines()
        .find_map(|l| l.strip_prefix("JAVA_VERSION="))?
        .trim_matches('"');
    v.split('.').next()?.parse().ok()
}

/// Says, once per test binary, that no JDK 25 header is checked: at once on the terminal
/// (stderr written directly, which the harness does not capture), and in
/// `$PRETOUCH_TEST_SKIPS` for `.ci/run` (see `tests/common/mod.rs`, `skipped`).
fn note_missing_jdk_25(found: &[PathBuf]) {
    use std::io::Write;
    static ONCE: std::sync::Once = std::sync::Once::new();
    if found.iter().any(|h| feature_of(h) == Some(25)) {
        return;
    }
    ONCE.call_once(|| {
        let why = "JDK 25's jvmti.h is not checked: no JDK 25 installed";
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED jvmti header tests: needs jdk 25: {why}"
        );
        if let Some(path) = std::env::var_os("PRETOUCH_TEST_SKIPS") {
            let mut file = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(&path)
                .unwrap_or_else(|e| panic!("PRETOUCH_TEST_SKIPS={path:?}: {e}"));
            writeln!(file, "jvmti header tests\tjdk 25\t{why}").unwrap();
        }
    });
}

fn for_each_header(check: impl Fn(&str, &str)) {
    let found = headers();
    note_missing_jdk_25(&found);
    for path in found {
        eprintln!("checking {}", path.display());
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        check(&path.display().to_string(), &text);
    }
}

/// The lines of the `typedef struct <tag>{ ... } <name>;` block that ends with `name`.
fn struct_body<'a>(header: &'a str, opening: &str, name: &str) -> Vec<&'a str> {
    let end = header
        .find(&format!("}} {name};"))
        .unwrap_or_else(|| panic!("no struct {name}"));
    let start = header[..end]
        .rfind(opening)
        .unwrap_or_else(|| panic!("no `{opening}` before {name}"));
    header[start + opening.len()..end]
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect()
}

/// The integer value of `NAME = value` in an enum.
fn enum_value(header: &str, name: &str) -> i64 {
    for line in header.lines() {
        let Some(rest) = line.trim().strip_prefix(name) else {
            continue;
        };
        let Some(value) = rest.trim_start().strip_prefix('=') else {
            continue;
        };
        let value = value.trim().trim_end_matches(',').trim();
        return match value.strip_prefix("0x") {
            Some(hex) => i64::from_str_radix(hex, 16),
            None => value.parse(),
        }
        .unwrap_or_else(|e| panic!("{name} = {value}: {e}"));
    }
    panic!("no enum constant {name}");
}

/// The function table: field name -> (number from its `/* N : ... */` comment, 1-based position).
fn function_table(header: &str) -> BTreeMap<String, (usize, usize)> {
    let mut table = BTreeMap::new();
    let mut comment = None;
    let mut position = 0;
    for line in struct_body(
        header,
        "typedef struct jvmtiInterface_1_ {",
        "jvmtiInterface_1",
    ) {
        if let Some(c) = line.strip_prefix("/*") {
            let number = c.split(':').next().and_then(|n| n.trim().parse().ok());
            comment = Some(number.unwrap_or_else(|| panic!("bad slot comment: {line}")));
            continue;
        }
        let field = if let Some(i) = line.find("(JNICALL *") {
            let rest = &line[i + "(JNICALL *".len()..];
            &rest[..rest.find(')').expect("function pointer field")]
        } else if let Some(rest) = line.strip_prefix("void *") {
            rest.trim_end_matches(';')
        } else {
            continue; // a parameter line of the previous field
        };
        position += 1;
        let number = comment
            .take()
            .unwrap_or_else(|| panic!("no slot comment before {field}"));
        table.insert(field.to_owned(), (number, position));
    }
    table
}

#[test]
fn function_slots_match_header() {
    for_each_header(|path, header| {
        let table = function_table(header);
        for slot in SLOTS {
            let (comment, position) = *table
                .get(slot.field)
                .unwrap_or_else(|| panic!("{path}: no function {}", slot.field));
            assert_eq!(comment, slot.number, "{path}: {} comment", slot.field);
            assert_eq!(position, slot.number, "{path}: {} position", slot.field);
        }
    });
}

#[test]
fn events_match_header() {
    for_each_header(|path, header| {
        let callbacks: Vec<&str> = struct_body(header, "typedef struct {", "jvmtiEventCallbacks")
            .into_iter()
            .filter(|l| !l.starts_with("/*"))
            .map(|l| {
                l.trim_end_matches(';')
                    .split_whitespace()
                    .last()
                    .expect("field")
            })
            .collect();
        for event in EVENTS {
            assert_eq!(
                enum_value(header, event.constant),
                i64::from(event.number),
                "{path}: {}",
                event.constant
            );
            let index = (event.number - FIRST_EVENT) as usize;
            assert_eq!(
                callbacks[index], event.callback,
                "{path}: callback field {index}"
            );
        }
        let ours = size_of::<EventCallbacks>() / size_of::<*const ()>();
        assert!(
            ours <= callbacks.len(),
            "{path}: EventCallbacks longer than jvmtiEventCallbacks"
        );
    });
}

#[test]
fn constants_match_header() {
    for_each_header(|path, header| {
        for (name, value) in CONSTANTS {
            assert_eq!(enum_value(header, name), value, "{path}: {name}");
        }
    });
}

#[test]
fn capability_bit_matches_header() {
    for_each_header(|path, header| {
        let mut bit = 0;
        let mut found = None;
        for line in struct_body(header, "typedef struct {", "jvmtiCapabilities") {
            let decl = line
                .strip_prefix("unsigned int")
                .expect("unsigned int bit field")
                .trim_end_matches(';');
            let (name, width) = decl.split_once(':').expect("bit field width");
            let width: u32 = width.trim().parse().expect("width");
            assert!(
                bit / 32 == (bit + width - 1) / 32,
                "{path}: bit field {line} straddles a unit"
            );
            if name.trim() == CAN_GENERATE_BREAKPOINT_EVENTS.field {
                found = Some(bit);
            }
            bit += width;
        }
        assert_eq!(bit, 128, "{path}: jvmtiCapabilities is not 128 bits");
        assert_eq!(
            found,
            Some(CAN_GENERATE_BREAKPOINT_EVENTS.bit),
            "{path}: capability bit"
        );
        assert_eq!(size_of::<super::Capabilities>(), 16);
    });
}
