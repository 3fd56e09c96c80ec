//! Test support: the servers' launch records, built on the core's fixtures
//! (`crate::fixtures`), to test the servers' analysis and sections without a JVM.

use crate::fixtures::{FakeCell, file, host, stamp};
use crate::launch::agent::Stamps;
use crate::matrix::Gc;
use crate::store::LaunchRecord;
use crate::units::Nanos;

/// A successful launch of a server, an `app:` with `ready:`. It is spawned at 0, reaches
/// main() at `main_ms` and is ready at `ready_ms`. The `after_ready` workload takes
/// `workload_ms` when given. SIGTERM stops the server 100 ms after ready, and it is
/// reaped 50 ms later.
pub fn server_launch(
    pretouch: bool,
    main_ms: f64,
    ready_ms: f64,
    workload_ms: Option<f64>,
) -> LaunchRecord {
    use crate::features::servers::launch::{ServerRun, Workload};
    let ns = |ms: f64| Nanos((ms * 1e6).round() as u64);
    let mut launch = file(
        "k",
        "2026-11-30T07:00:00Z",
        host("vm"),
        &[FakeCell {
            gc: Gc::G1,
            heap: "1g",
            rounds: &[(main_ms, main_ms)],
        }],
    )
    .launches
    .remove(usize::from(pretouch));
    launch.cell.app = Some("example.Server".into());
    launch.measured.stamps = Stamps {
        mechanism: Some("breakpoint".into()),
        agent_load: stamp(ns(main_ms / 4.0).0),
        vm_init: stamp(ns(main_ms / 2.0).0),
        main: stamp(ns(main_ms).0),
    };
    launch.measured.exit_code = Some(143);
    launch.measured.reaped_ns = ns(ready_ms + 150.0);
    launch.measured.features.server = Some(Box::new(ServerRun {
        check: "port 8080".into(),
        ready_ns: Some(ns(ready_ms)),
        time_to_ready_ns: Some(ns(ready_ms)),
        checks: 10,
        last_check: Some("Connection refused (os error 111)".into()),
        requests: None,
        after_ready: workload_ms.map(|ms| Workload {
            command: vec!["curl".into(), "http://127.0.0.1:8080/".into()],
            start_ns: ns(ready_ms),
            wall_ns: ns(ms),
            exit_code: Some(0),
            ..Workload::default()
        }),
        sigterm_ns: Some(ns(ready_ms + 100.0)),
        sigkill_ns: None,
        grace_ns: ns(10_000.0),
        port: Some(8080),
        port_free_ns: Some(ns(ready_ms + 151.0)),
    }));
    launch
}
