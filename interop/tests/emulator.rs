//! The link emulator over loopback: rate and timing precision, delay,
//! drop-tail, seeded loss, several flows, scheduled steps. Each test runs
//! for well under two seconds and stops its emulator itself.

use std::net::SocketAddr;
use std::net::UdpSocket;
use std::sync::Arc;
use std::sync::Mutex;
use std::time::Duration;
use std::time::Instant;

use vegas_interop::relay::Change;
use vegas_interop::relay::Direction;
use vegas_interop::Config;
use vegas_interop::Emulator;
use vegas_interop::LinkSpec;
use vegas_interop::Route;
use vegas_interop::Step;

fn loopback() -> UdpSocket {
    let s = UdpSocket::bind("127.0.0.1:0").unwrap();
    s.set_read_timeout(Some(Duration::from_millis(300)))
        .unwrap();
    s
}

/// An emulator relaying to `server`, with both links as given.
fn emulator(
    server: SocketAddr,
    down: LinkSpec,
    up: LinkSpec,
    steps: Vec<Step>,
    log: Option<Box<dyn std::io::Write + Send>>,
) -> Emulator {
    Emulator::start(Config {
        routes: vec![Route {
            listen: "127.0.0.1:0".parse().unwrap(),
            server,
        }],
        down,
        up,
        seed: 42,
        steps,
        down_log: None,
        up_log: log,
        spin_ns: 0,
        socket_buffer_bytes: vegas_interop::sockets::DEFAULT_SOCKET_BUFFER_BYTES,
        down_trace: None,
        up_trace: None,
    })
    .unwrap()
}

/// Receives on `sink` until `count` datagrams came or 300 ms pass with
/// none; returns arrival times and payloads.
fn collect(sink: &UdpSocket, count: usize) -> Vec<(Instant, Vec<u8>)> {
    let mut got = Vec::new();
    let mut buf = [0u8; 2048];
    while got.len() < count {
        match sink.recv_from(&mut buf) {
            Ok((n, _)) => got.push((Instant::now(), buf[..n].to_vec())),
            Err(_) => break,
        }
    }
    got
}

/// Sends `count` datagrams of `bytes` every `gap`, each carrying its index.
fn send_paced(sock: &UdpSocket, to: SocketAddr, count: usize, bytes: usize, gap: Duration) {
    let start = Instant::now();
    let mut data = vec![0u8; bytes];
    for i in 0..count {
        let due = start + gap * i as u32;
        while Instant::now() < due {
            std::thread::sleep(
                due.saturating_duration_since(Instant::now())
                    .min(Duration::from_micros(200)),
            );
        }
        data[..8].copy_from_slice(&(i as u64).to_be_bytes());
        sock.send_to(&data, to).unwrap();
    }
}

fn percentile(v: &mut [f64], q: f64) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[((v.len() - 1) as f64 * q).round() as usize]
}

/// Packets sent faster than the link drains leave it exactly one
/// serialization time apart: the measured spacing gives the rate and the
/// timing error of the emulator as seen by a receiver.
fn rate_precision(rate_mbit: u64, count: usize) {
    const BYTES: usize = 1250;
    let sink = loopback();
    let ser_ns = (BYTES * 8) as f64 * 1e3 / rate_mbit as f64;
    let spec = LinkSpec::new(rate_mbit * 1_000_000, 2_000_000, 100_000);
    let emu = emulator(sink.local_addr().unwrap(), spec, spec, vec![], None);
    let to = emu.listen_addrs()[0];
    let client = loopback();
    // Offered at 1.25x the link rate: a queue builds and the link is busy
    // throughout.
    let sender = std::thread::spawn(move || {
        send_paced(
            &client,
            to,
            count,
            BYTES,
            Duration::from_nanos((ser_ns / 1.25) as u64),
        )
    });
    let got = collect(&sink, count);
    sender.join().unwrap();
    let report = emu.stop();
    assert_eq!(got.len(), count, "every packet delivered");
    assert_eq!(report.up.queue.dropped_pkts, 0);
    let t0 = got[0].0;
    let mut errors_us: Vec<f64> = got
        .iter()
        .enumerate()
        .map(|(i, (t, _))| {
            ((t.duration_since(t0).as_nanos() as f64) - i as f64 * ser_ns).abs() / 1e3
        })
        .collect();
    let span_ns = got.last().unwrap().0.duration_since(t0).as_nanos() as f64;
    let measured_mbit = (count - 1) as f64 * (BYTES * 8) as f64 / span_ns * 1e3;
    let p50 = percentile(&mut errors_us, 0.5);
    let p90 = percentile(&mut errors_us, 0.9);
    let p99 = percentile(&mut errors_us, 0.99);
    let max = percentile(&mut errors_us, 1.0);
    println!(
        "{rate_mbit} Mbit/s: measured {measured_mbit:.3} Mbit/s over {count} packets; \
         receiver-side timing error p50 {p50:.1} us, p90 {p90:.1} us, p99 {p99:.1} us, max {max:.1} us; \
         emulator {}",
        report.precision_line()
    );
    assert!(
        (measured_mbit / rate_mbit as f64 - 1.0).abs() < 0.01,
        "rate within 1%: {measured_mbit}"
    );
    // Bounds loose enough for a loaded 2-core machine; the figures printed
    // above are the measurement.
    assert!(p50 < 250.0, "median timing error {p50} us");
    assert!(p90 < 1000.0, "p90 timing error {p90} us");
}

trait PrecisionLine {
    fn precision_line(&self) -> String;
}

impl PrecisionLine for vegas_interop::Report {
    fn precision_line(&self) -> String {
        let p = &self.precision;
        format!(
            "send lateness p50 {:.1} us, p99 {:.1} us, max {:.1} us",
            p.p50_ns as f64 / 1e3,
            p.p99_ns as f64 / 1e3,
            p.max_ns as f64 / 1e3
        )
    }
}

// Timing precision is a measurement, not a gate: on a loaded 2-core machine
// (CI builds next to the test) any bound is either meaningless or flaky.
// Run `cargo test --release -p vegas-interop -- --ignored --nocapture` on an
// idle machine for the report (figures in docs/tools.md, vegas-link-emu).
#[test]
#[ignore = "timing report; run with --ignored --nocapture on an idle machine"]
fn rate_and_timing_at_10_mbit() {
    rate_precision(10, 400);
}

#[test]
#[ignore = "timing report; run with --ignored --nocapture on an idle machine"]
fn rate_and_timing_at_50_mbit() {
    rate_precision(50, 2000);
}

#[test]
fn one_way_delay_and_a_delay_step() {
    let sink = loopback();
    let spec = LinkSpec::new(100_000_000, 5_000_000, 1000);
    let step = Step {
        at_ns: 300_000_000,
        direction: Direction::Up,
        change: Change::DelayNs(40_000_000),
    };
    let emu = emulator(sink.local_addr().unwrap(), spec, spec, vec![step], None);
    let to = emu.listen_addrs()[0];
    let client = loopback();
    let sent = Arc::new(Mutex::new(Vec::new()));
    let sent2 = sent.clone();
    let sender = std::thread::spawn(move || {
        for i in 0..12u64 {
            sent2.lock().unwrap().push(Instant::now());
            client.send_to(&i.to_be_bytes(), to).unwrap();
            std::thread::sleep(Duration::from_millis(50));
        }
    });
    let got = collect(&sink, 12);
    sender.join().unwrap();
    emu.stop();
    assert_eq!(got.len(), 12);
    let sent = sent.lock().unwrap();
    for (t, data) in &got {
        let i = u64::from_be_bytes(data[..8].try_into().unwrap()) as usize;
        let delay_ms = t.duration_since(sent[i]).as_secs_f64() * 1e3;
        // Before the step at 300 ms: 5 ms; from 350 ms on: 40 ms.
        let want_ms = if i * 50 < 290 {
            5.0
        } else if i * 50 >= 350 {
            40.0
        } else {
            continue;
        };
        // Functional check only (a loaded machine delays the threads): the
        // step moved the delay from about 5 ms to about 40 ms.
        assert!(
            (delay_ms - want_ms).abs() < 12.0,
            "packet {i}: one-way delay {delay_ms:.2} ms, want {want_ms}"
        );
    }
}

/// A link replaying a generated trace (400 ms: 100 ms at 12 Mbit/s, a
/// 100 ms outage, 200 ms at 6 Mbit/s) delivers, while it has a backlog,
/// one 1500-byte datagram per opportunity: a repetition's worth of
/// datagrams spans exactly one period, and the outage shows as a 102 ms
/// gap.
#[test]
fn a_trace_driven_link_replays_its_trace_in_real_time() {
    use vegas_link_model::trace::DeliveryTrace;
    let text: String = (1..=400u32)
        .filter(|&ms| ms <= 100 || (ms > 200 && ms % 2 == 0))
        .map(|ms| format!("{ms}\n"))
        .collect();
    let trace = Arc::new(DeliveryTrace::parse(text.as_bytes(), "generated").unwrap());
    assert_eq!((trace.opportunities(), trace.period_ms()), (200, 400));
    let sink = loopback();
    let spec = LinkSpec::new(1_000_000_000, 0, 100_000);
    let emu = Emulator::start(Config {
        routes: vec![Route {
            listen: "127.0.0.1:0".parse().unwrap(),
            server: sink.local_addr().unwrap(),
        }],
        down: spec,
        up: spec,
        seed: 42,
        steps: vec![],
        down_log: None,
        up_log: None,
        spin_ns: 0,
        socket_buffer_bytes: vegas_interop::sockets::DEFAULT_SOCKET_BUFFER_BYTES,
        down_trace: None,
        up_trace: Some(trace.clone()),
    })
    .unwrap();
    let to = emu.listen_addrs()[0];
    let client = loopback();
    // 800 datagrams at 24 Mbit/s, twice the trace's peak: a backlog for
    // all four repetitions they take.
    let count = 800;
    let sender = std::thread::spawn(move || {
        send_paced(&client, to, count, 1500, Duration::from_micros(500))
    });
    let got = collect(&sink, count);
    sender.join().unwrap();
    let report = emu.stop();
    assert_eq!(got.len(), count, "every datagram delivered");
    for (i, (_, data)) in got.iter().enumerate() {
        assert_eq!(u64::from_be_bytes(data[..8].try_into().unwrap()), i as u64);
    }
    let at_ms = |i: usize| got[i].0.duration_since(got[0].0).as_secs_f64() * 1e3;
    let span_ms = at_ms(600);
    let max_gap_ms = (1..count)
        .map(|i| at_ms(i) - at_ms(i - 1))
        .fold(0.0, f64::max);
    let lateness_ms = report.precision.max_ns as f64 / 1e6;
    println!(
        "3 repetitions of the trace in {span_ms:.3} ms (want 1200), largest gap {max_gap_ms:.3} ms \
         (want 102: the last opportunity before the outage is at 100 ms, the next at 202 ms); emulator lateness p99 {:.1} us, max {:.1} us",
        report.precision.p99_ns as f64 / 1e3,
        lateness_ms * 1e3
    );
    // Within 0.5% and the emulator's measured lateness, plus 2 ms for the
    // receiving thread on a loaded machine.
    let tolerance_ms = 0.005 * 1200.0 + lateness_ms + 2.0;
    assert!(
        (span_ms - 1200.0).abs() < tolerance_ms,
        "span {span_ms} ms, tolerance {tolerance_ms}"
    );
    assert!(
        (max_gap_ms - 102.0).abs() < 2.0 + lateness_ms,
        "largest gap {max_gap_ms} ms"
    );
}

#[derive(Clone, Default)]
struct SharedLog(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for SharedLog {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn drop_tail_buffer_and_queue_log() {
    let sink = loopback();
    // 1250 bytes at 1 Mbit/s: 10 ms each, far slower than the burst.
    let spec = LinkSpec::new(1_000_000, 0, 5);
    let log = SharedLog::default();
    let emu = emulator(
        sink.local_addr().unwrap(),
        spec,
        spec,
        vec![],
        Some(Box::new(log.clone())),
    );
    let client = loopback();
    for i in 0..20u64 {
        let mut d = vec![0u8; 1250];
        d[..8].copy_from_slice(&i.to_be_bytes());
        client.send_to(&d, emu.listen_addrs()[0]).unwrap();
    }
    let got = collect(&sink, 20);
    let report = emu.stop();
    // One in service and five waiting get through; the rest are dropped.
    assert_eq!(got.len(), 6);
    assert_eq!(report.up.queue.dropped_pkts, 14);
    assert_eq!(report.up.queue.max_queue_pkts, 5);
    let order: Vec<u64> = got
        .iter()
        .map(|(_, d)| u64::from_be_bytes(d[..8].try_into().unwrap()))
        .collect();
    assert_eq!(order, [0, 1, 2, 3, 4, 5], "FIFO, the first ones kept");
    let text = String::from_utf8(log.0.lock().unwrap().clone()).unwrap();
    let events: Vec<&str> = text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| l.split(' ').nth(1).unwrap())
        .collect();
    assert_eq!(events.iter().filter(|e| **e == "d").count(), 14);
    assert_eq!(events.iter().filter(|e| **e == "-").count(), 6);
    // The header: time 0 as UTC (read with the emulator's clock), then the
    // link.
    let mut header = text.lines();
    let origin = vegas_link_model::parse_wall_clock_origin(header.next().unwrap())
        .expect("a wall_clock_origin line first")
        .unwrap();
    let age = std::time::SystemTime::now()
        .duration_since(origin)
        .expect("an origin in the past");
    assert!(age < Duration::from_secs(60), "{age:?}");
    assert_eq!(
        header.next().unwrap(),
        "# queue log of link up (1000000 bit/s, buffer 5 packets)"
    );
}

#[test]
fn seeded_loss_is_reproducible() {
    let run = || {
        let sink = loopback();
        let mut spec = LinkSpec::new(100_000_000, 1_000_000, 1000);
        spec.loss = 0.3;
        let emu = emulator(sink.local_addr().unwrap(), spec, spec, vec![], None);
        let client = loopback();
        let to = emu.listen_addrs()[0];
        // Received while sent: the sink's socket buffer must not overflow.
        let sender = std::thread::spawn(move || {
            send_paced(&client, to, 300, 200, Duration::from_micros(100))
        });
        let got = collect(&sink, 300);
        sender.join().unwrap();
        let report = emu.stop();
        assert_eq!(got.len() as u64 + report.up.queue.lost_pkts, 300);
        let indices: Vec<u64> = got
            .iter()
            .map(|(_, d)| u64::from_be_bytes(d[..8].try_into().unwrap()))
            .collect();
        indices
    };
    let first = run();
    assert!(
        (180..240).contains(&first.len()),
        "{} of 300 delivered at 30% loss",
        first.len()
    );
    assert_eq!(first, run(), "same seed, same packets lost");
}

#[test]
fn several_flows_share_the_link_and_replies_find_their_client() {
    let server = loopback();
    let spec = LinkSpec::new(20_000_000, 1_000_000, 100);
    let emu = emulator(server.local_addr().unwrap(), spec, spec, vec![], None);
    let to = emu.listen_addrs()[0];
    let clients: Vec<UdpSocket> = (0..3).map(|_| loopback()).collect();
    for (i, c) in clients.iter().enumerate() {
        c.send_to(format!("hello {i}").as_bytes(), to).unwrap();
    }
    // The server sees three distinct addresses and echoes to each.
    let mut sources = Vec::new();
    let mut buf = [0u8; 100];
    for _ in 0..3 {
        let (n, from) = server.recv_from(&mut buf).unwrap();
        sources.push(from);
        let mut reply = buf[..n].to_vec();
        reply.extend_from_slice(b" back");
        server.send_to(&reply, from).unwrap();
    }
    sources.sort();
    sources.dedup();
    assert_eq!(sources.len(), 3);
    for (i, c) in clients.iter().enumerate() {
        let (n, from) = c.recv_from(&mut buf).unwrap();
        assert_eq!(from, to, "replies come from the emulator's port");
        assert_eq!(&buf[..n], format!("hello {i} back").as_bytes());
    }
    let report = emu.stop();
    assert_eq!(report.flows.len(), 3);
    assert_eq!(report.down.delivered_pkts, 3);
    assert_eq!(report.down.flow_bytes.iter().filter(|&&b| b > 0).count(), 3);
}

#[test]
fn step_syntax() {
    let s: Step = "5000:down:delay_ms=40".parse().unwrap();
    assert_eq!(s.at_ns, 5_000_000_000);
    assert_eq!(s.change, Change::DelayNs(40_000_000));
    assert_eq!(s.direction, Direction::Down);
    let s: Step = "100:both:rate_mbit=2.5".parse().unwrap();
    assert_eq!(s.change, Change::RateBps(2_500_000));
    for bad in [
        "5000:down",
        "x:down:loss=0.1",
        "1:side:loss=0.1",
        "1:up:loss=1",
        "1:up:rate_mbit=0",
        "1:up:foo=1",
        "nan:down:loss=0.1",
        "-1:down:loss=0.1",
        "1e300:down:loss=0.1",
        "1:down:delay_ms=1e15",
        "1:down:delay_ms=nan",
        "1:down:buffer_pkts=2.5",
        "1:down:buffer_pkts=1000001",
        "1:down:rate_mbit=inf",
    ] {
        let e = bad.parse::<Step>().unwrap_err();
        assert!(e.starts_with(&format!("bad step `{bad}`: ")), "{e}");
    }
}

/// A link spec built in code is held to the command line's bounds too: an
/// error, not a wrap-around of the link's clock.
#[test]
fn start_refuses_out_of_range_parameters() {
    let server: SocketAddr = "127.0.0.1:9".parse().unwrap();
    let ok = LinkSpec::new(10_000_000, 1_000_000, 10);
    let start = |down: LinkSpec, steps: Vec<Step>, spin_ns: u64| {
        Emulator::start(Config {
            routes: vec![Route {
                listen: "127.0.0.1:0".parse().unwrap(),
                server,
            }],
            down,
            up: ok,
            seed: 1,
            steps,
            down_log: None,
            up_log: None,
            spin_ns,
            down_trace: None,
            up_trace: None,
            socket_buffer_bytes: 0,
        })
        .err()
    };
    let with = |f: &dyn Fn(&mut LinkSpec)| {
        let mut spec = ok;
        f(&mut spec);
        spec
    };
    for (spec, expected) in [
        (with(&|s| s.delay_ns = u64::MAX), "delay"),
        (with(&|s| s.rate_bps = 0), "rate"),
        (with(&|s| s.rate_bps = u64::MAX), "rate"),
        (with(&|s| s.buffer_pkts = usize::MAX), "buffer"),
        (with(&|s| s.loss = f64::NAN), "loss"),
        (with(&|s| s.loss_burst_pkts = 0.0), "burst"),
        (
            with(&|s| {
                s.loss = 0.9;
                s.loss_burst_pkts = 2.0
            }),
            "B/(B+1)",
        ),
        (with(&|s| s.aggregation_ns = 1), "aggregation"),
    ] {
        let e = start(spec, vec![], 0).expect("refused");
        assert!(e.starts_with("down link: ") && e.contains(expected), "{e}");
    }
    let late = Step {
        at_ns: u64::MAX,
        direction: Direction::Up,
        change: Change::Loss(0.1),
    };
    assert!(start(ok, vec![late], 0).unwrap().contains("step"));
    assert!(start(ok, vec![], u64::MAX).unwrap().contains("busy-wait"));

    // A route whose server is the emulator's own port would relay to
    // itself without end.
    let port = UdpSocket::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let own: SocketAddr = format!("127.0.0.1:{port}").parse().unwrap();
    let e = Emulator::start(Config {
        routes: vec![Route {
            listen: own,
            server: own,
        }],
        down: ok,
        up: ok,
        seed: 1,
        steps: vec![],
        down_log: None,
        up_log: None,
        spin_ns: 0,
        socket_buffer_bytes: vegas_interop::sockets::DEFAULT_SOCKET_BUFFER_BYTES,
        down_trace: None,
        up_trace: None,
    })
    .err()
    .expect("refused");
    assert!(e.contains("send to itself"), "{e}");
}

/// The emulator's sockets get the buffers asked for (up to the kernel's
/// maximum), not the system's default, and the report says what they got
/// and how many datagrams the machine dropped at full receive buffers.
#[test]
fn sockets_get_the_buffers_asked_for_and_the_report_counts_kernel_drops() {
    let sink = loopback();
    let spec = LinkSpec::new(100_000_000, 1_000_000, 1000);
    let emu = emulator(sink.local_addr().unwrap(), spec, spec, vec![], None);
    let to = emu.listen_addrs()[0];
    let client = loopback();
    send_paced(&client, to, 10, 1000, Duration::ZERO);
    assert_eq!(collect(&sink, 10).len(), 10);
    let report = emu.stop();
    let buffers = report.socket_buffers.expect("the report gives the buffers");
    let default = vegas_interop::sockets::enlarge(&sink, 0).unwrap();
    let rmem_max: Option<usize> = std::fs::read_to_string("/proc/sys/net/core/rmem_max")
        .ok()
        .and_then(|t| t.trim().parse().ok());
    let asked = vegas_interop::sockets::DEFAULT_SOCKET_BUFFER_BYTES;
    if rmem_max.is_none_or(|max| max > default.receive_bytes) {
        assert!(
            buffers.receive_bytes > default.receive_bytes,
            "receive buffer {} B, the default {} B, asked {asked} B (rmem_max {rmem_max:?})",
            buffers.receive_bytes,
            default.receive_bytes
        );
    }
    if std::path::Path::new("/proc/net/snmp").exists() {
        assert!(report.machine_receive_buffer_drops.is_some());
        let text = report.to_string();
        assert!(text.contains("sockets: receive buffer "), "{text}");
        assert!(
            text.contains("UDP datagrams dropped at full socket receive buffers"),
            "{text}"
        );
    }
}
