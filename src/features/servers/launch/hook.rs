//! A server's part of a launch before the spawn: its port must be free, so that no two
//! servers run at once and no other process answers its ready probe, and its record is
//! begun. The wait for ready, which replaces the launcher's wait for the exit, is still
//! the launcher's: it calls `serve` when the launch has a server record.

use crate::features::servers::launch::{ServerRun, check_port};
use crate::features::servers::matrix::Ready;
use crate::launch::{LaunchHook, Spawn};

/// Refuses a server's launch while its port is taken, and begins its record. Without a
/// `ready:` check (no server) it does nothing.
pub struct ServerHook {
    ready: Option<Ready>,
}

impl ServerHook {
    /// The hook for the run's `app:`, whose `ready:` check says it is a server.
    pub fn new(ready: Option<Ready>) -> ServerHook {
        ServerHook { ready }
    }
}

impl LaunchHook for ServerHook {
    fn before_spawn(&mut self, spawn: &mut Spawn<'_>) -> Result<(), String> {
        let Some(ready) = &self.ready else {
            return Ok(());
        };
        check_port(ready)?;
        spawn.measured.server = Some(Box::new(ServerRun {
            check: ready.check.to_string(),
            port: ready.check.port(),
            ..ServerRun::default()
        }));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_server_whose_port_is_taken_is_not_started() {
        use crate::features::servers::matrix::ReadyCheck;
        use crate::launch::{JvmLauncher, Launcher};
        use crate::matrix::app::{App, ResolvedKind};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let app = App {
            kind: ResolvedKind::Classpath("/nonexistent".into()),
            main: "example.Server".into(),
            args: vec![],
            exit_at_main: false,
            ready: Some(Ready {
                check: ReadyCheck::Port(port),
                timeout: None,
            }),
            after_ready: None,
            requests: None,
            stop_grace: std::time::Duration::from_secs(1),
        };
        let mut launcher =
            JvmLauncher::new("/nonexistent.so".into(), std::time::Duration::from_secs(5))
                .unwrap()
                .with_hooks(vec![Box::new(ServerHook::new(app.ready.clone()))])
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
