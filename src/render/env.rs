//! Stage 6, rendering: `pretouch env`, what this machine is, in words: the stored
//! environment's fields one a line, then what the guest's memory settings mean for the
//! numbers, then the JDK a run without `jdks:` would use. Reads `machine`'s types;
//! computes nothing.

use std::fmt::Write as _;

use crate::machine::env::Environment;
use crate::machine::guest::GuestInfo;
use crate::machine::jdk::Jdk;

/// Width of the name column.
const NAME: usize = 18;

/// The whole of `pretouch env`'s text; `jdk`: the JDK found through the environment,
/// or why none was.
pub fn text(env: &Environment, jdk: Result<&Jdk, String>) -> String {
    let mut out = String::new();
    for (name, value) in crate::analyze::env::fields(env) {
        let _ = writeln!(out, "{name:<NAME$} {value}");
    }
    if let Some(guest) = &env.guest {
        if let Some(k) = guest.reported_kib {
            let reported = format!("{} MiB since boot (page_reporting reported_kib)", k / 1024);
            let _ = writeln!(out, "{:<NAME$} {reported}", "reported_to_host");
        }
        let mut notes = meanings(guest);
        if env.thp_defrag.as_deref() == Some("always") {
            notes.push("THP defrag is `always`: a huge-page fault that finds no free 2 MiB block compacts memory first, so THP launches can stall (compact_stall in each launch's counters).".to_owned());
        }
        for note in notes {
            let _ = writeln!(
                out,
                "{}",
                textwrap::fill(&format!("note: {note}"), 80).replace('\n', "\n  ")
            );
        }
    }
    let _ = match jdk {
        Ok(jdk) => writeln!(
            out,
            "{:<NAME$} {} {} ({})",
            "jdk",
            jdk.vendor.as_deref().unwrap_or("unknown vendor"),
            jdk.version,
            jdk.home.display()
        ),
        Err(why) => writeln!(out, "{:<NAME$} none: {}", "jdk", why.replace('\n', " ")),
    };
    out
}

/// What the guest's settings mean for the numbers, one sentence each; empty on a
/// machine where none applies.
fn meanings(guest: &GuestInfo) -> Vec<String> {
    let mut out = Vec::new();
    if guest.reporting_on() {
        out.push(
            "free page reporting is on. Memory the guest frees goes back to the host within seconds of idling, so the next launch that touches it also pays the host's faults. Launches after idle gaps, and the first cell of a round, come out slow. As root, `pretouch run --comparable-memory` stops the reporting for the run and restores it afterwards."
                .to_owned(),
        );
    } else if guest.balloon {
        out.push("a memory balloon is present. If the host inflates it during a run, the guest reclaims memory and launches slow down. balloon_inflate in each launch's counters shows it.".to_owned());
    }
    if guest.hypervisor_flag {
        out.push("this is a virtual machine. Steal time and the host's own memory management can slow single launches. Each launch's record keeps its steal and the machine's CPU time, and the report names the likely cause of each outlier.".to_owned());
    }
    if matches!(guest.ksm_run.as_deref(), Some("1")) {
        out.push("KSM is merging pages. A write to a merged page copies it first, so touched memory can cost more than a fresh fault.".to_owned());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reporting(order: u32) -> GuestInfo {
        GuestInfo {
            hypervisor_flag: true,
            balloon: true,
            balloon_reporting: true,
            page_reporting_order: Some(order),
            max_page_order: Some(10),
            reported_kib: Some(2 << 20),
            ..GuestInfo::default()
        }
    }

    #[test]
    fn what_the_guest_memory_settings_mean() {
        assert!(meanings(&reporting(9))[0].starts_with("free page reporting is on"));
        // Order 11, above the largest buddy order 10: nothing qualifies.
        let idle = meanings(&reporting(11));
        assert!(
            idle[0].starts_with("a memory balloon is present"),
            "{idle:?}"
        );
        assert!(idle[1].starts_with("this is a virtual machine"));
        assert!(meanings(&GuestInfo::default()).is_empty());
    }

    #[test]
    fn every_field_a_line_then_the_notes_then_the_jdk() {
        let env = Environment {
            guest: Some(reporting(9)),
            thp_defrag: Some("always".into()),
            ..Environment::default()
        };
        let out = text(&env, Err("no java on PATH\n  fix: set JAVA_HOME".into()));
        let lines: Vec<&str> = out.lines().collect();
        assert!(lines[0].starts_with("kernel_release     "), "{out}");
        assert!(
            out.contains("\nreported_to_host   2048 MiB since boot"),
            "{out}"
        );
        assert!(out.contains("\nnote: THP defrag is `always`"), "{out}");
        assert_eq!(
            lines.last().unwrap(),
            &"jdk                none: no java on PATH   fix: set JAVA_HOME"
        );
        assert!(
            lines
                .iter()
                .all(|l| l.len() <= 80 || !l.starts_with("note"))
        );
    }
}
