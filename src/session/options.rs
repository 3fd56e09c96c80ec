//! A feature's options of `pretouch run`, and the macro that makes the struct of every
//! feature's options from their list in `features/options.rs`. `session::args::RunArgs`
//! flattens that struct once, and asks it what the features' options decide, so the run's
//! command line names no feature. Each feature says in its own `options.rs` what its
//! options ask of a run and what a run elsewhere gets of them, a kernel's guest or a
//! campaign's boot.

use std::path::{Path, PathBuf};

use crate::features::header::ExtraRounds;
use crate::features::matrix::MatrixParts;
use crate::matrix::Matrix;

/// A feature's options of `pretouch run`, flattened into its command line.
pub(crate) trait RunOptionsPart {
    /// Writes the extra rounds per cell these options and the matrix's `features` ask a
    /// fresh run for.
    fn extra_rounds(&self, features: &MatrixParts, rounds: &mut ExtraRounds) {
        let _ = (features, rounds);
    }

    /// What a run elsewhere gets of these options, with `given`'s values where they
    /// replace this command line's. The options with a value go into `values`, and the
    /// switches into `switches`. Each feature names every field of its options here, so
    /// that a new option is a compile error until it is passed on or said to be the
    /// host's own.
    fn passed_on(&self, given: &Given, values: &mut Vec<String>, switches: &mut Vec<String>);

    /// Checks these options for a run elsewhere that writes its results into `results`,
    /// and puts into `given` what that run gets in place of this command line's values.
    /// `given` holds the session's extra rounds already.
    fn given_elsewhere(&self, results: &Path, given: &mut Given) -> anyhow::Result<()> {
        let _ = (results, given);
        Ok(())
    }

    /// The times each kernel runs the matrix for one label, when these options say.
    fn runs_per_label(&self) -> Option<usize> {
        None
    }

    /// Refuses the matrix flags, named as `flags`, where these options run `matrix`
    /// elsewhere from a file.
    fn check_matrix_flags(&self, flags: &str, matrix: &Matrix) -> anyhow::Result<()> {
        let _ = (flags, matrix);
        Ok(())
    }
}

/// The features' values that a run elsewhere gets in place of this command line's own.
/// They are the extra rounds of the session, which a resumed session keeps from its
/// first run, and the absolute folder where perf.data is kept.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Given {
    pub probe_rounds: Option<u32>,
    pub profile_rounds: Option<u32>,
    pub keep_perf_data: Option<PathBuf>,
}

/// Makes `RunOptions`, the features' options of `pretouch run`, from the features'
/// options, `name: Type,` one a line in the order `--help` shows them, each type a
/// [`RunOptionsPart`] and `clap::Args`. `name: Type => N,` shows the options from the
/// place `N` of `--help` on.
macro_rules! run_options {
    ($($name:ident: $part:ty $(=> $order:expr)?,)*) => {
        /// The features' options of `pretouch run`, in the order `--help` shows them.
        #[derive(Debug, Clone, clap::Args)]
        pub struct RunOptions {
            $(
                #[command(flatten $(, next_display_order = $order)?)]
                pub $name: $part,
            )*
        }

        impl RunOptions {
            /// The features' options, last first.
            fn last_first(&self) -> Vec<&dyn $crate::session::options::RunOptionsPart> {
                let mut parts: Vec<&dyn $crate::session::options::RunOptionsPart> =
                    vec![$(&self.$name,)*];
                parts.reverse();
                parts
            }

            /// The extra rounds per cell these options and the matrix's `features` ask a
            /// fresh run for. A kernel's guests and a campaign's boots get them, so their
            /// sessions record them and resume with them.
            pub(crate) fn extra_rounds(
                &self,
                features: &$crate::features::matrix::MatrixParts,
            ) -> $crate::features::header::ExtraRounds {
                use $crate::session::options::RunOptionsPart;
                let mut rounds = $crate::features::header::ExtraRounds::default();
                $(self.$name.extra_rounds(features, &mut rounds);)*
                rounds
            }

            /// The features' options that a run elsewhere gets, with `given`'s values
            /// where they replace this command line's. The options with a value go into
            /// `values`, and the switches into `switches`, because the run's line puts
            /// each group after its own. They come last-first, the probe's before the
            /// profile's, as guests always got them.
            pub(crate) fn passed_on(
                &self,
                given: &$crate::session::options::Given,
                values: &mut Vec<String>,
                switches: &mut Vec<String>,
            ) {
                for part in self.last_first() {
                    part.passed_on(given, values, switches);
                }
            }

            /// Checks the features' options for a run elsewhere that writes its results
            /// into `results`, and puts into `given` what that run gets in place of this
            /// command line's values.
            pub(crate) fn given_elsewhere(
                &self,
                results: &std::path::Path,
                given: &mut $crate::session::options::Given,
            ) -> anyhow::Result<()> {
                use $crate::session::options::RunOptionsPart;
                $(self.$name.given_elsewhere(results, given)?;)*
                Ok(())
            }

            /// The times each kernel runs the matrix for one label, taken in turn,
            /// whether in VMs or across reboots. It is 1 unless an option asks for more.
            pub(crate) fn runs_per_label(&self) -> usize {
                use $crate::session::options::RunOptionsPart;
                [$(self.$name.runs_per_label(),)*].into_iter().flatten().next().unwrap_or(1)
            }

            /// Refuses the matrix flags, named as `flags`, where a feature runs `matrix`
            /// elsewhere from a file.
            pub(crate) fn check_matrix_flags(
                &self,
                flags: &str,
                matrix: &$crate::matrix::Matrix,
            ) -> anyhow::Result<()> {
                use $crate::session::options::RunOptionsPart;
                $(self.$name.check_matrix_flags(flags, matrix)?;)*
                Ok(())
            }
        }
    };
}
pub(crate) use run_options;
