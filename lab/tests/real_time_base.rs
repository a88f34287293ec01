//! A real run's trace graph lines up: the link emulator's queue log and
//! h3-server's qlog carry their wall-clock origins, and `vegas-lab plot`
//! draws both on one time base, whatever the time between the emulator's
//! start and the connection's.

use std::net::SocketAddr;
use std::process::Command;
use std::process::Stdio;
use std::time::Duration;

use vegas_interop::relay::Config;
use vegas_interop::relay::Emulator;
use vegas_interop::relay::Route;
use vegas_lab::plot;
use vegas_lab::qlog_read::Trace;
use vegas_link_model::LinkSpec;

#[path = "../../tests/support/mod.rs"]
mod support;

use support::ca_args;
use support::example;
use support::run_bounded;
use support::TempDir;

/// The emulator starts, nothing happens for this long, then the client
/// connects: without a shared time base the queue panel would be drawn
/// this much late.
const IDLE_BEFORE_CONNECTING: Duration = Duration::from_millis(400);

#[test]
fn queue_log_and_qlog_of_a_real_run_share_a_time_base() {
    let dir = TempDir::new("time-base");
    let qlog_dir = dir.0.join("qlog");
    std::fs::create_dir_all(&qlog_dir).unwrap();
    let mut server = support::start_server(
        &dir.0,
        // No Retry: the connection's first datagram is the first one the
        // server sends through the emulator.
        &[
            "--cc",
            "vegas",
            "--no-retry",
            "--qlog-dir",
            qlog_dir.to_str().unwrap(),
        ],
        Stdio::null(),
    );
    let queue_path = dir.0.join("down.queue");
    let server_addr: SocketAddr = format!("127.0.0.1:{}", server.port).parse().unwrap();
    let emulator = Emulator::start(Config {
        routes: vec![Route {
            listen: "127.0.0.1:0".parse().unwrap(),
            server: server_addr,
        }],
        // 20 Mbit/s, 10 ms each way, 100 packets.
        down: LinkSpec::new(20_000_000, 10_000_000, 100),
        up: LinkSpec::new(20_000_000, 10_000_000, 100),
        seed: 1,
        steps: Vec::new(),
        down_log: Some(Box::new(std::fs::File::create(&queue_path).unwrap())),
        up_log: None,
        spin_ns: 0,
        socket_buffer_bytes: vegas_interop::sockets::DEFAULT_SOCKET_BUFFER_BYTES,
        down_trace: None,
        up_trace: None,
    })
    .expect("the emulator starts");
    let port = emulator.listen_addrs()[0].port();
    std::thread::sleep(IDLE_BEFORE_CONNECTING);
    let mut client = Command::new(example("h3-client"));
    client
        .args(["--quiet", "--timeout-s", "30"])
        .args(ca_args())
        .arg(format!("https://localhost:{port}/bytes/2000000"));
    let out = run_bounded(client, Duration::from_secs(40));
    assert!(out.status.success(), "{}", support::text(&out.stderr));
    emulator.stop();
    // SIGTERM: the server closes and writes its qlog out whole.
    let kill = Command::new("kill")
        .args(["-TERM", &server.child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    let _ = server.child.wait();

    let qlog_path = std::fs::read_dir(&qlog_dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("server")
        })
        .expect("a server qlog");
    let trace = Trace::read(&qlog_path).unwrap();
    let queue = plot::QueueLog::read(&queue_path).unwrap();
    assert!(trace.wall_clock_origin.is_some(), "qlog without wall clock");
    assert!(queue.wall_clock_origin.is_some(), "queue log without one");

    // The server's first datagram enters the down link when the emulator
    // receives it: on loopback, within a millisecond of its send.
    let first_queued_ms = queue
        .events
        .iter()
        .find(|e| e.kind == '+')
        .expect("a datagram in the queue log")
        .time_ms;
    let figure = plot::build_figure(
        "time base",
        &[plot::FlowInput {
            trace: &trace,
            label: "server".into(),
            flow_id: Some(0),
        }],
        Some(&queue),
    )
    .unwrap();
    let flow = &figure.flows[0];
    let first_sent_ms = flow.sends_s[0] * 1e3;
    // The two clocks' origins are far apart: qlog time alone is off by
    // at least the idle time.
    let unshifted_gap_ms = first_queued_ms - (first_sent_ms - flow.time_shift_ms);
    assert!(
        unshifted_gap_ms >= IDLE_BEFORE_CONNECTING.as_secs_f64() * 1e3,
        "qlog time 0 is only {unshifted_gap_ms:.3} ms after the queue log's"
    );
    let error_ms = first_queued_ms - first_sent_ms;
    assert!(
        (-0.5..1.0).contains(&error_ms),
        "first send drawn at {first_sent_ms:.3} ms, first enqueue at {first_queued_ms:.3} ms \
         ({}; notes: {:?})",
        queue.source,
        figure.notes
    );
}
