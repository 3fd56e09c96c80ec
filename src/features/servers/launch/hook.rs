//! A server's part of a launch. Before the spawn its port must be free, so that no two
//! servers run at once and no other process answers its ready probe. Then the hook
//! waits in place of the launcher, until ready, through the workload and the stop (see
//! `serve`), and judges the launch by its ready, not by its exit. The hook lives in a
//! file of its own because the launcher's measurement names `ServerRun`, so the file
//! that defines it cannot also name the launcher without an import circle.

use crate::features::servers::launch::{ServerPlan, ServerRun, check_port, serve};
use crate::launch::{Ended, LaunchHook, LaunchOutcome, Measurement, Spawn, Started};
use crate::matrix::app::App;

/// Runs the launches of an `app:` with a `ready:` check as a server's. Without one it
/// does nothing.
pub struct ServerHook {
    app: Option<App>,
}

impl ServerHook {
    /// The hook for the run's `app:`, a server when it has a `ready:` check.
    pub fn new(app: Option<&App>) -> ServerHook {
        ServerHook {
            app: app.filter(|a| a.features.servers.ready.is_some()).cloned(),
        }
    }
}

impl LaunchHook for ServerHook {
    fn before_spawn(&mut self, spawn: &mut Spawn<'_>) -> Result<(), String> {
        let Some(ready) = self
            .app
            .as_ref()
            .and_then(|a| a.features.servers.ready.as_ref())
        else {
            return Ok(());
        };
        check_port(ready)?;
        spawn.measured.features.server = Some(Box::new(ServerRun {
            check: ready.check.to_string(),
            port: ready.check.port(),
            ..ServerRun::default()
        }));
        Ok(())
    }

    fn wait(
        &mut self,
        started: &Started<'_>,
        measured: &mut Measurement,
    ) -> Option<std::io::Result<Ended>> {
        let server = &self.app.as_ref()?.features.servers;
        let plan = ServerPlan {
            ready: server.ready.as_ref()?,
            after_ready: server.after_ready.as_ref(),
            requests: server.requests.as_ref(),
            grace: server.stop_grace(),
            default_timeout: started.timeout,
            output: started.output,
            scratch: started.scratch,
            spawn_ns: started.spawn_ns,
            interrupt: started.interrupt,
        };
        let run = measured.features.server.as_deref_mut()?;
        Some(serve(started.handle, &plan, run).map(|served| Ended {
            status: served.status,
            reaped_ns: served.reaped_ns,
            failure: served.failure,
        }))
    }

    fn judge(&self, outcome: &LaunchOutcome) -> Option<String> {
        match outcome.measured.features.server.as_deref() {
            Some(run) => judge_server(outcome, run),
            None => crate::launch::judge(outcome),
        }
    }
}

/// Why a server launch measured nothing, if it did not. Its end is the runner's stop
/// (SIGTERM: exit code 143 or the signal; SIGKILL after the grace), so the exit status
/// is recorded but not judged; the stamps must be complete, in order, and before ready.
fn judge_server(outcome: &LaunchOutcome, run: &ServerRun) -> Option<String> {
    let s = &outcome.measured.stamps;
    let Some(ready) = run.ready_ns else {
        return Some(format!("never ready ({})", run.check));
    };
    let order = [
        Some(outcome.measured.spawn_ns),
        s.agent_load.map(|x| x.ns),
        s.vm_init.map(|x| x.ns),
        s.main.map(|x| x.ns),
    ];
    if order.iter().any(Option::is_none) {
        return Some("ready, but the stamps are incomplete: agent load, VM init or main() missing (is `main` the class the application starts with?)".to_owned());
    }
    if !order.is_sorted() || order[3].is_some_and(|main| main > ready) {
        return Some(format!(
            "stamps out of order: {order:?}, ready at {ready:?} (did another process answer the probe?)"
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::stamp;
    use crate::launch::agent::Stamps;
    use crate::units::Nanos;

    /// A launch that reached main() with every stamp in order.
    fn stamped() -> LaunchOutcome {
        LaunchOutcome {
            measured: Measurement {
                spawn_ns: Nanos(100),
                exit_code: Some(0),
                stamps: Stamps {
                    mechanism: None,
                    agent_load: stamp(110),
                    vm_init: stamp(120),
                    main: stamp(130),
                },
                ..Measurement::default()
            },
            ..LaunchOutcome::default()
        }
    }

    #[test]
    fn a_server_launch_is_judged_by_ready_not_by_its_exit() {
        let mut o = stamped();
        // Stopped by the runner's SIGTERM: the JVM's exit code 143 is no failure.
        o.measured.exit_code = Some(143);
        let mut run = ServerRun {
            check: "port 1".into(),
            ready_ns: Some(Nanos(140)),
            ..ServerRun::default()
        };
        assert_eq!(judge_server(&o, &run), None);
        run.ready_ns = Some(Nanos(125));
        assert!(
            judge_server(&o, &run)
                .unwrap()
                .contains("did another process answer the probe?")
        );
        run.ready_ns = None;
        assert_eq!(judge_server(&o, &run).unwrap(), "never ready (port 1)");
        run.ready_ns = Some(Nanos(140));
        o.measured.stamps.main = None;
        assert!(judge_server(&o, &run).unwrap().contains("main() missing"));
    }

    #[test]
    fn a_server_whose_port_is_taken_is_not_started() {
        use crate::features::servers::matrix::{Ready, ReadyCheck};
        use crate::launch::{JvmLauncher, Launcher};
        use crate::matrix::app::{App, ResolvedKind};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let app = App {
            kind: ResolvedKind::Classpath("/nonexistent".into()),
            main: "example.Server".into(),
            args: vec![],
            exit_at_main: false,
            features: crate::features::matrix::AppParts {
                servers: crate::features::servers::matrix::AppKeys {
                    ready: Some(Ready {
                        check: ReadyCheck::Port(port),
                        timeout: None,
                    }),
                    stop_grace_written: Some(std::time::Duration::from_secs(1)),
                    ..Default::default()
                },
            },
        };
        let mut launcher =
            JvmLauncher::new("/nonexistent.so".into(), std::time::Duration::from_secs(5))
                .unwrap()
                .with_hooks(vec![Box::new(ServerHook::new(Some(&app)))])
                .with_app(Some(app));
        let o = launcher.launch(std::path::Path::new("/nonexistent/java"), &[]);
        let failure = o.measured.failure.unwrap();
        assert!(
            failure.contains(&format!(
                "port {port} is already in use by pid {}",
                std::process::id()
            )),
            "{failure}"
        );
        assert_eq!(
            (o.measured.spawn_ns, o.measured.exit_code),
            (crate::units::Nanos(0), None),
            "never spawned"
        );
    }
}
