//! The features' options of `pretouch run`, one line per feature, in the order `--help`
//! shows them. `session::options` makes of this list the struct that
//! `session::args::RunArgs` flattens once, so the run's command line names no feature.
//! Each feature says in its own `options.rs` what its options ask of a run and what a run
//! elsewhere gets of them, a kernel's guest or a campaign's boot.

/// Where the run's own last options, `--comparable-memory`, `--give-up-after` and
/// `--pass-java-options`, show in `pretouch run --help`. They show after the kernels'
/// options and before the campaign's, as they did before the features' options were
/// one list, so the campaign's options start after them.
pub const RUNS_OWN_LAST: usize = 900;

crate::session::options::run_options! {
    profiling: crate::features::profile::options::ProfileArgs,
    probing: crate::features::probe::options::ProbeArgs,
    kernels: crate::features::kernels::options::KernelArgs,
    campaign: crate::features::campaign::options::BootArgs => RUNS_OWN_LAST + 3,
}
