//! A feature's part of a run's life, and the macro that makes the value holding every
//! feature's part from their list in `features/session.rs`. The run's life in this stage
//! calls that value at each of its points, and the value calls each part in the list's
//! order, so the run names no feature. Each point of [`RunPart`] but the making of a
//! part does nothing by default, so a feature writes only the points it takes part in.

use std::any::Any;
use std::path::Path;
use std::sync::Arc;

use crate::features::header::{ExtraRounds, RunParts};
use crate::launch::interrupt::Interrupt;
use crate::matrix::Matrix;
use crate::render::common::Format;
use crate::schedule::plan::Plan;
use crate::schedule::prepared::{Features, Prepared};
use crate::session::args::RunArgs;
use crate::store::ResultFile;

/// A feature's part of one run, from its making to its end, in the order a run reaches
/// its points.
pub(crate) trait RunPart: Sized {
    /// A fresh run's part, from its command line and its matrix.
    fn fresh(args: &RunArgs, matrix: &Matrix) -> anyhow::Result<Self>;

    /// A resumed run's part, from its command line, its matrix and its `file`.
    fn resumed(args: &RunArgs, matrix: &Matrix, file: &ResultFile) -> anyhow::Result<Self>;

    /// Checks a fresh run's command line against its matrix before anything is planned,
    /// because some mistakes only a fresh run can make.
    fn check_fresh(args: &RunArgs, matrix: &Matrix) -> anyhow::Result<()> {
        let _ = (args, matrix);
        Ok(())
    }

    /// The dry run's line on what the part runs after the timed launches of `cells`
    /// cells, when the run asks for it.
    fn dry_run_line(args: &RunArgs, matrix: &Matrix, cells: usize) -> Option<String> {
        let _ = (args, matrix, cells);
        None
    }

    /// Checks this machine before any JVM starts and before the agent is looked for.
    fn check_before_agent(&mut self, args: &RunArgs) -> anyhow::Result<()> {
        let _ = args;
        Ok(())
    }

    /// Checks this machine with the `agent` the run loads, once it is found.
    fn check_with_agent(&mut self, args: &RunArgs, agent: &Path) -> anyhow::Result<()> {
        let _ = (args, agent);
        Ok(())
    }

    /// Takes what a resumed `file` holds of the part's launches, each checked to be the
    /// one `plan` plans, so that only those it lacks are owed.
    fn owed_by(&mut self, plan: &Plan, file: &ResultFile) -> anyhow::Result<()> {
        let _ = (plan, file);
        Ok(())
    }

    /// The `label` a run files its results under, marked where the part says so.
    fn mark_label(&self, label: String) -> String {
        label
    }

    /// Changes the machine for the run once the machine is held. What it changes is put
    /// back at the run's end ([`RunPart::restore`]).
    fn begin(&mut self, matrix: &Matrix) -> anyhow::Result<()> {
        let _ = matrix;
        Ok(())
    }

    /// Tells whoever started this run where its result `file` is.
    fn note_result(&self, args: &RunArgs, file: &Path) -> anyhow::Result<()> {
        let _ = (args, file);
        Ok(())
    }

    /// Writes the part's keys of the run's header and of its resume records.
    fn header(&self, parts: &mut RunParts) {
        let _ = parts;
    }

    /// Writes the extra rounds per cell the part owes, as the run's header stores them.
    fn extra_rounds(&self, rounds: &mut ExtraRounds) {
        let _ = rounds;
    }

    /// How far a resumed file's launches of the part are, after the timed ones in the
    /// line that announces the resume.
    fn resume_note(&self, plan: &Plan) -> String {
        let _ = plan;
        String::new()
    }

    /// Sets the part's options of the report the run prints at its end in `format`.
    fn report_options(&self, format: Format, options: &mut crate::analyze::Options) {
        let _ = (format, options);
    }

    /// What the part holds for the hooks around each launch, which find it by its type
    /// among the values of [`crate::launch::RunValues`].
    fn held(&self) -> Option<Arc<dyn Any + Send + Sync>> {
        None
    }

    /// Runs the part's rounds after the timed launches, if it owes any. `part` finds the
    /// part among the session's parts, so that the rounds can take what they run out of
    /// it and still hand the session to the launcher. `Some(exit code)` when a signal
    /// stopped them.
    fn after_timed<F: Features>(
        session: &mut Prepared<F>,
        interrupt: Option<&Interrupt>,
        part: fn(&mut F) -> &mut Self,
    ) -> anyhow::Result<Option<u8>> {
        let _ = (session, interrupt, part);
        Ok(None)
    }

    /// What the part puts back at the run's end, whatever happened, taken before the run
    /// so that it outlives the session.
    fn restore(&self) -> Option<Box<dyn FnOnce()>> {
        None
    }
}

/// What the features' parts put back at a run's end, whatever happened, in the order of
/// their list.
pub(crate) struct Restore(pub(crate) Vec<Box<dyn FnOnce()>>);

impl Restore {
    /// Puts back what the parts changed.
    pub(crate) fn end(self) {
        for restore in self.0 {
            restore();
        }
    }
}

/// Makes `Parts`, the features' parts of one run, from the features' parts, `name: Type,`
/// one a line, each type a [`RunPart`]. `Parts` calls them at each point in the list's
/// order, and gives the launcher the features' hooks from `features::launch::hooks`.
macro_rules! run_parts {
    ($($name:ident: $part:ty,)*) => {
        /// The features' parts of one run, held by its session as one value. A fresh
        /// run's come from its command line and matrix with [`Parts::fresh`], and a
        /// resumed run's come from its file with [`Parts::resumed`]. The preparation
        /// completes them at its points, in the order it reaches them.
        pub(crate) struct Parts {
            $($name: $part,)*
        }

        impl Parts {
            /// A fresh run's parts, from its command line and matrix.
            pub(crate) fn fresh(
                args: &$crate::session::args::RunArgs,
                matrix: &$crate::matrix::Matrix,
            ) -> anyhow::Result<Parts> {
                use $crate::session::part::RunPart;
                Ok(Parts {
                    $($name: <$part>::fresh(args, matrix)?,)*
                })
            }

            /// A resumed run's parts, from its `file`, whatever this command line says
            /// where the file decides.
            pub(crate) fn resumed(
                args: &$crate::session::args::RunArgs,
                matrix: &$crate::matrix::Matrix,
                file: &$crate::store::ResultFile,
            ) -> anyhow::Result<Parts> {
                use $crate::session::part::RunPart;
                Ok(Parts {
                    $($name: <$part>::resumed(args, matrix, file)?,)*
                })
            }

            /// The features' checks of a fresh run's command line against its matrix,
            /// before anything is planned.
            pub(crate) fn check_fresh(
                args: &$crate::session::args::RunArgs,
                matrix: &$crate::matrix::Matrix,
            ) -> anyhow::Result<()> {
                use $crate::session::part::RunPart;
                $(<$part>::check_fresh(args, matrix)?;)*
                Ok(())
            }

            /// The dry run's lines on the features' rounds after the timed launches of
            /// `cells` cells. They come last-first, the probed rounds before the
            /// profiled ones, because the dry run has always named them in that order.
            pub(crate) fn dry_run_lines(
                args: &$crate::session::args::RunArgs,
                matrix: &$crate::matrix::Matrix,
                cells: usize,
            ) -> Vec<String> {
                use $crate::session::part::RunPart;
                let lines = [$(<$part>::dry_run_line(args, matrix, cells),)*];
                lines.into_iter().rev().flatten().collect()
            }

            /// The features' checks of this machine before any JVM starts and before the
            /// agent is looked for.
            pub(crate) fn check_before_agent(
                &mut self,
                args: &$crate::session::args::RunArgs,
            ) -> anyhow::Result<()> {
                use $crate::session::part::RunPart;
                $(self.$name.check_before_agent(args)?;)*
                Ok(())
            }

            /// The features' checks of this machine that need the `agent`.
            pub(crate) fn check_with_agent(
                &mut self,
                args: &$crate::session::args::RunArgs,
                agent: &std::path::Path,
            ) -> anyhow::Result<()> {
                use $crate::session::part::RunPart;
                $(self.$name.check_with_agent(args, agent)?;)*
                Ok(())
            }

            /// A resumed run's extra launches: only those its `file` lacks are owed.
            pub(crate) fn owed_by(
                &mut self,
                plan: &$crate::schedule::plan::Plan,
                file: &$crate::store::ResultFile,
            ) -> anyhow::Result<()> {
                use $crate::session::part::RunPart;
                $(self.$name.owed_by(plan, file)?;)*
                Ok(())
            }

            /// The label a run files its results under, as the features mark it.
            pub(crate) fn mark_label(&self, label: &str) -> String {
                use $crate::session::part::RunPart;
                let label = label.to_owned();
                $(let label = self.$name.mark_label(label);)*
                label
            }

            /// The features' changes to the machine, once it is held. They are put back
            /// at the run's end ([`Parts::to_restore`]).
            pub(crate) fn begin(&mut self, matrix: &$crate::matrix::Matrix) -> anyhow::Result<()> {
                use $crate::session::part::RunPart;
                $(self.$name.begin(matrix)?;)*
                Ok(())
            }

            /// Tells whoever started this run where its result file is.
            pub(crate) fn note_result(
                &self,
                args: &$crate::session::args::RunArgs,
                file: &std::path::Path,
            ) -> anyhow::Result<()> {
                use $crate::session::part::RunPart;
                $(self.$name.note_result(args, file)?;)*
                Ok(())
            }

            /// The features' keys of the run header and of its resume records.
            pub(crate) fn header(&self) -> $crate::features::header::RunParts {
                use $crate::session::part::RunPart;
                let mut parts = $crate::features::header::RunParts::default();
                $(self.$name.header(&mut parts);)*
                parts
            }

            /// The extra rounds per cell the run owes, as its header stores them.
            pub(crate) fn extra_rounds(&self) -> $crate::features::header::ExtraRounds {
                use $crate::session::part::RunPart;
                let mut rounds = $crate::features::header::ExtraRounds::default();
                $(self.$name.extra_rounds(&mut rounds);)*
                rounds
            }

            /// How far a resumed file's extra launches are, after its timed ones in the
            /// line that announces the resume.
            pub(crate) fn resume_note(&self, plan: &$crate::schedule::plan::Plan) -> String {
                use $crate::session::part::RunPart;
                [$(self.$name.resume_note(plan),)*].concat()
            }

            /// The options of the report the run prints at its end, in `format`.
            pub(crate) fn report_options(
                &self,
                format: $crate::render::common::Format,
            ) -> $crate::analyze::Options {
                use $crate::session::part::RunPart;
                let mut options = $crate::analyze::Options {
                    features: $crate::features::report_options::ReportOptions::after_run(false),
                    ..$crate::analyze::Options::default()
                };
                $(self.$name.report_options(format, &mut options);)*
                options
            }

            /// The features' rounds after the timed launches, in the list's order.
            /// `Some(exit code)` when a signal stopped them.
            pub(crate) fn after_timed(
                session: &mut $crate::schedule::prepared::Prepared<Parts>,
                interrupt: Option<&$crate::launch::interrupt::Interrupt>,
            ) -> anyhow::Result<Option<u8>> {
                use $crate::session::part::RunPart;
                $(if let Some(code) =
                    <$part>::after_timed(session, interrupt, |parts| &mut parts.$name)?
                {
                    return Ok(Some(code));
                })*
                Ok(None)
            }

            /// What the features put back at the run's end, whatever happens.
            pub(crate) fn to_restore(&self) -> $crate::session::part::Restore {
                use $crate::session::part::RunPart;
                $crate::session::part::Restore(
                    [$(self.$name.restore(),)*].into_iter().flatten().collect(),
                )
            }
        }

        impl $crate::schedule::prepared::Features for Parts {
            fn hooks(
                &self,
                matrix: &$crate::matrix::Matrix,
                app: Option<&$crate::matrix::app::App>,
            ) -> Vec<Box<dyn $crate::launch::LaunchHook>> {
                use $crate::session::part::RunPart;
                let held = $crate::launch::RunValues::of(
                    [$(self.$name.held(),)*].into_iter().flatten().collect(),
                );
                $crate::features::launch::hooks(&held, &matrix.features, app)
            }
        }
    };
}
pub(crate) use run_parts;
