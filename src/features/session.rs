//! The features' parts of a run's life, one line per feature that takes part, in the
//! order the run calls them at each point: the profiled rounds before the probed ones.
//! `session::part` makes of this list the value the run's session holds, `Parts`, and
//! calls each part at each point of the run, so the run's life in `session/` names no
//! feature. Each feature's type says in its folder what it does at each point.

crate::session::part::run_parts! {
    profile: crate::session::instrument::Extra<crate::features::profile::session::Profiling>,
    probe: crate::session::instrument::Extra<crate::features::probe::session::Probing>,
    kernels: crate::features::kernels::session::part::InVm,
    settings: crate::features::settings::session::Settings,
}
