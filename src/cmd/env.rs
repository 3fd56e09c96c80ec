//! `pretouch env`: what this machine is, in words.

use crate::cmd::cli::EnvArgs;
use crate::machine::env::Environment;
use crate::machine::jdk::Jdk;

pub(crate) fn cmd_env(args: EnvArgs) -> anyhow::Result<u8> {
    crate::cmd::preflight::restore_leftover();
    let env = Environment::read();
    if args.json {
        println!("{}", serde_json::to_string_pretty(&env)?);
        return Ok(0);
    }
    print!("{}", env.to_text());
    if let Some(guest) = &env.guest {
        if let Some(reported) = guest.reported_text() {
            println!("{:<18} {reported}", "reported_to_host");
        }
        let mut meanings = guest.meaning();
        if env.thp_defrag.as_deref() == Some("always") {
            meanings.push("THP defrag is `always`: a huge-page fault that finds no free 2 MiB block compacts memory first, so THP launches can stall (compact_stall in each launch's counters).".to_owned());
        }
        for meaning in meanings {
            println!(
                "{}",
                textwrap::fill(&format!("note: {meaning}"), 80).replace('\n', "\n  ")
            );
        }
    }
    // The JDK a run without `jdks:` would use.
    match Jdk::from_environment() {
        Ok(jdk) => println!(
            "{:<18} {} {} ({})",
            "jdk",
            jdk.vendor.as_deref().unwrap_or("unknown vendor"),
            jdk.version,
            jdk.home.display()
        ),
        Err(e) => println!("{:<18} none: {}", "jdk", e.to_string().replace('\n', " ")),
    }
    Ok(0)
}
