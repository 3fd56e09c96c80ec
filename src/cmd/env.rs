//! `pretouch env`: what this machine is, in words.

use crate::cmd::cli::EnvArgs;
use crate::machine::discover;
use crate::machine::env::Environment;
use crate::machine::jdk::Jdk;

pub(crate) fn cmd_env(args: EnvArgs, before: &crate::cmd::feature::Before) -> anyhow::Result<u8> {
    crate::session::preflight::restore_leftover();
    let env = Environment::read();
    if args.json {
        println!("{}", serde_json::to_string_pretty(&env)?);
        return Ok(0);
    }
    // The JDK a run without `jdks:` would use.
    // Its error lists every installed JDK, as the error of `pretouch run` does.
    let jdk = Jdk::from_environment().map_err(|e| {
        let installed = discover::discover(&discover::Sources::from_environment());
        e.listing(discover::installed_list(&installed)).to_string()
    });
    print!(
        "{}",
        crate::render::env::text(&env, jdk.as_ref().map_err(Clone::clone))
    );
    print!("{}", before.env_lines());
    Ok(0)
}
