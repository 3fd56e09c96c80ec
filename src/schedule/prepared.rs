//! The run as one value: everything a run needs (matrix, JDKs, plan, agent, app, the
//! store it appends to, its options, and the features' parts of the run), put together
//! once, whichever way the run starts (a fresh matrix, a resumed file, a kernel's guest).
//! The commands only prepare it; the launcher, the scheduler's options and the extra
//! rounds are all made from it here.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::time::Duration;

use crate::launch::interrupt::Interrupt;
use crate::launch::{JvmLauncher, LaunchHook, Launcher};
use crate::machine::jdk::Jdk;
use crate::matrix::Matrix;
use crate::matrix::app::App;
use crate::schedule::adaptive::{self, AdaptiveError};
use crate::schedule::plan::Plan;
use crate::schedule::progress::Progress;
use crate::schedule::run::{self, RunSummary};
use crate::store::{LaunchRecord, StoreWriter};

/// How the run's JVMs are launched and its run goes on after a failure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// A launch that takes longer to reach main() is killed and recorded as failed.
    pub timeout: Duration,
    /// Ask every JVM for its own log (`-Xlog:gc+heap=debug,startuptime`).
    pub jvm_log: bool,
    /// Stop at the first failed launch.
    pub fail_fast: bool,
    /// Give a cell up after this many consecutive failed launches; 0: never.
    pub give_up_after: u32,
}

/// What a resumed run's file already holds; empty for a fresh run.
#[derive(Debug, Default)]
pub struct Resumed {
    /// Timed launches already in the file, by seq: not launched again.
    pub done: BTreeSet<u64>,
    /// The timed launches already in the file (replayed by the adaptive rounds, counted
    /// by the cells given up).
    pub earlier: Vec<LaunchRecord>,
    /// Of those, the failed ones.
    pub failed_before: u64,
    /// The timed launches ended (the file has its end record): only extra rounds are
    /// owed.
    pub timed_ended: bool,
}

/// What the features' parts of a run give the run's launcher. The run holds
/// them as one value and names none of them.
pub trait Features {
    /// The features' hooks around each launch of this run, whose matrix is `matrix` and
    /// whose `app:` is `app`. A hook reads its own keys of the matrix, such as a switch
    /// that turns it on.
    fn hooks(&self, matrix: &Matrix, app: Option<&App>) -> Vec<Box<dyn LaunchHook>>;
}

/// Everything one run needs, prepared once.
pub struct Prepared<F> {
    pub matrix: Matrix,
    pub jdks: Vec<Jdk>,
    pub plan: Plan,
    /// The agent library every launch loads.
    pub agent: PathBuf,
    pub app: Option<App>,
    pub store: StoreWriter,
    pub options: Options,
    pub resumed: Resumed,
    /// The features' parts of the run, such as the extra rounds it owes after the timed
    /// launches and what the launchers' hooks hold.
    pub features: F,
}

impl Resumed {
    /// The launch loop's context for the timed launches.
    pub fn loop_context<'a>(
        &'a self,
        options: &Options,
        interrupt: Option<&'a Interrupt>,
    ) -> run::Context<'a> {
        run::Context {
            interrupt,
            fail_fast: options.fail_fast,
            done: self.done.clone(),
            launches_before: self.earlier.len() as u64,
            failed_before: self.failed_before,
            give_up_after: options.give_up_after,
            earlier: &self.earlier,
        }
    }
}

impl<F: Features> Prepared<F> {
    /// A launcher of the run's JVMs (the timed ones, and the inner one of every
    /// extra round), killed by `interrupt`'s signal.
    pub fn launcher(&self, interrupt: Option<&Interrupt>) -> std::io::Result<JvmLauncher> {
        let mut launcher = JvmLauncher::new(self.agent.clone(), self.options.timeout)?
            .with_app(self.app.clone())
            .with_jvm_log(self.options.jvm_log)
            .with_hooks(self.features.hooks(&self.matrix, self.app.as_ref()));
        if let Some(interrupt) = interrupt {
            launcher = launcher.with_interrupt(interrupt.clone());
        }
        Ok(launcher)
    }
}

impl<F> Prepared<F> {
    /// Runs the run's timed launches (none when a resumed run's had ended), the
    /// adaptive policy's rounds when the matrix has one, under the progress bar.
    pub fn run_timed(
        &mut self,
        launcher: &mut dyn Launcher,
        interrupt: Option<&Interrupt>,
    ) -> Result<RunSummary, AdaptiveError> {
        if self.resumed.timed_ended {
            return Ok(RunSummary {
                launches: 0,
                failed: 0,
                stopped: None,
            });
        }
        let context = self.resumed.loop_context(&self.options, interrupt);
        let plan = &self.plan;
        // With a policy, the bar counts up to the most launches it allows.
        let most = self.matrix.adaptive.map_or(0, |policy| {
            u64::from(policy.max - policy.min) * plan.cells.len() as u64 * 2
        });
        let mut progress = Progress::new(plan.launches.len() as u64 + most);
        progress.set_done(context.done.len() as u64);
        let args = &self.matrix.jvm_args;
        let store = &mut self.store;
        let summary = match self.matrix.adaptive {
            None => run::execute_with(plan, args, launcher, store, &mut progress, &context)
                .map_err(AdaptiveError::from),
            Some(policy) => {
                adaptive::execute(plan, args, policy, launcher, store, &mut progress, &context)
                    .map(|(summary, _)| summary)
            }
        };
        progress.finish();
        summary
    }
}
