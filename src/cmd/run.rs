//! `pretouch run`: its arguments made into a session, which checks the matrix and the
//! machine, then plans, launches, stores and prints the report; `--resume` and
//! `--dry-run` too (see [`crate::session`]).

use crate::session::Session;
use crate::session::args::RunArgs;

pub(crate) fn cmd_run(args: RunArgs) -> anyhow::Result<u8> {
    Session::new(args)?.run()
}
