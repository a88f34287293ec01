//! Per-ACK cost: nanoseconds per ACK frame (with the ~2 sends between
//! two frames) for every vegas-cc controller, the quiche adapter around
//! vegas, quinn-vegas around vegas, and quinn-proto's own `Cubic` and
//! `NewReno`, all replaying the same sequence in the same run
//! (`tests/support/ack_sequence.rs`: 100 Mbit/s x 40 ms, 2 packets per
//! ACK frame, a 0-3 ms queue, one loss every 9.6 s).
//!
//! Criterion times each subject; the table printed at the end gives the
//! median of 5 whole replays per subject, its ratio to quinn's Cubic, and
//! the window each ended with (the decisions taken: compare it before and
//! after a restructuring).
//!
//! quinn-proto hands its controllers a `&RttEstimator` it alone can build;
//! the bench borrows one from a short loopback quinn connection (its
//! smoothed RTT is loopback's, not the sequence's 40 ms: Cubic reads it
//! for its target, at the same cost).

use std::sync::Arc;
use std::sync::Mutex;
use std::time::Duration;
use std::time::Instant;

use criterion::criterion_group;
use criterion::criterion_main;
use criterion::Criterion;
use criterion::Throughput;
use quiche::congestion::CongestionController;
use quiche_vegas::adapter::Adapter;
use quiche_vegas::vegas_cc;
use quinn_proto::congestion::Controller as QuinnController;
use quinn_proto::congestion::ControllerFactory;
use quinn_proto::congestion::CubicConfig;
use quinn_proto::congestion::NewRenoConfig;
use quinn_proto::RttEstimator;
use quinn_vegas::VegasFactory;

#[path = "../tests/support/ack_sequence.rs"]
mod ack_sequence;
#[path = "../quinn/examples/quinn-vegas/transfer.rs"]
mod transfer;

use ack_sequence::sent_at;
use ack_sequence::Frame;
use ack_sequence::DATAGRAM_BYTES;

/// Frames per replay: 192 s of the path.
const FRAMES: usize = 1_000_000;
/// Whole replays per subject for the summary table's median.
const SUMMARY_REPLAYS: usize = 5;

/// What is timed.
#[derive(Clone, Copy)]
enum Subject {
    /// A vegas-cc controller called directly, records drained per frame.
    VegasCc(&'static str),
    /// vegas through quiche's congestion-control trait (our adapter).
    QuicheAdapter(&'static str),
    /// vegas through quinn's public trait (quinn-vegas).
    QuinnVegas(&'static str),
    QuinnCubic,
    QuinnNewReno,
}

impl Subject {
    fn label(self) -> String {
        match self {
            Subject::VegasCc(name) => format!("vegas-cc {name}"),
            Subject::QuicheAdapter(name) => format!("quiche adapter {name}"),
            Subject::QuinnVegas(name) => format!("quinn-vegas {name}"),
            Subject::QuinnCubic => "quinn-proto Cubic".into(),
            Subject::QuinnNewReno => "quinn-proto NewReno".into(),
        }
    }

    /// One whole replay from a fresh controller; the final window.
    fn replay(self, frames: &[Frame], rtt: &RttEstimator) -> u64 {
        let start = Instant::now();
        match self {
            Subject::VegasCc(name) => {
                let mut c = vegas_cc_controller(name);
                let mut acked = Vec::with_capacity(8);
                ack_sequence::replay_vegas_cc(c.as_mut(), frames, start, &mut acked);
                c.cwnd_bytes() as u64
            }
            Subject::QuicheAdapter(name) => {
                let mut adapter = Adapter::new(vegas_cc_controller(name), None);
                let mut acked = Vec::with_capacity(8);
                ack_sequence::replay_quiche(&mut adapter, frames, start, &mut acked);
                adapter.congestion_window() as u64
            }
            Subject::QuinnVegas(name) => {
                let factory =
                    Arc::new(VegasFactory::new(name, &ack_sequence::params(name)).expect("known"));
                let mut c = factory.build(start, DATAGRAM_BYTES as u16);
                replay_quinn(c.as_mut(), frames, start, rtt);
                c.window()
            }
            Subject::QuinnCubic => {
                let mut c = Arc::new(CubicConfig::default()).build(start, DATAGRAM_BYTES as u16);
                replay_quinn(c.as_mut(), frames, start, rtt);
                c.window()
            }
            Subject::QuinnNewReno => {
                let mut c = Arc::new(NewRenoConfig::default()).build(start, DATAGRAM_BYTES as u16);
                replay_quinn(c.as_mut(), frames, start, rtt);
                c.window()
            }
        }
    }
}

fn vegas_cc_controller(name: &str) -> Box<dyn vegas_cc::Controller> {
    vegas_cc::spec::build(name, &ack_sequence::params(name), 10, DATAGRAM_BYTES)
        .expect("known name")
}

/// The sequence through quinn's trait, in quinn-proto's order: each
/// packet sent, each acknowledged packet, the loss, the end of the frame.
fn replay_quinn(c: &mut dyn QuinnController, frames: &[Frame], start: Instant, rtt: &RttEstimator) {
    let bytes = DATAGRAM_BYTES as u64;
    for f in frames {
        for pkt_num in f.sent.clone() {
            c.on_sent(start + sent_at(pkt_num), bytes, pkt_num);
        }
        let now = start + f.at;
        for pkt_num in f.acked.clone() {
            c.on_ack(now, start + sent_at(pkt_num), bytes, false, rtt);
        }
        if let Some(lost) = f.lost {
            c.on_congestion_event(now, start + sent_at(lost), false, bytes);
        }
        c.on_end_acks(
            now,
            f.bytes_in_flight() as u64,
            false,
            Some(f.acked.end - 1),
        );
    }
}

/// A NewReno that keeps a copy of the last `RttEstimator` quinn lent it.
struct Capture {
    inner: Box<dyn QuinnController>,
    slot: Arc<Mutex<Option<RttEstimator>>>,
}

impl QuinnController for Capture {
    fn on_sent(&mut self, now: Instant, bytes: u64, last_packet_number: u64) {
        self.inner.on_sent(now, bytes, last_packet_number)
    }

    fn on_ack(
        &mut self,
        now: Instant,
        sent: Instant,
        bytes: u64,
        app_limited: bool,
        rtt: &RttEstimator,
    ) {
        *self.slot.lock().unwrap() = Some(*rtt);
        self.inner.on_ack(now, sent, bytes, app_limited, rtt)
    }

    fn on_end_acks(
        &mut self,
        now: Instant,
        in_flight: u64,
        app_limited: bool,
        largest: Option<u64>,
    ) {
        self.inner.on_end_acks(now, in_flight, app_limited, largest)
    }

    fn on_congestion_event(&mut self, now: Instant, sent: Instant, persistent: bool, lost: u64) {
        self.inner.on_congestion_event(now, sent, persistent, lost)
    }

    fn on_mtu_update(&mut self, new_mtu: u16) {
        self.inner.on_mtu_update(new_mtu)
    }

    fn window(&self) -> u64 {
        self.inner.window()
    }

    fn clone_box(&self) -> Box<dyn QuinnController> {
        Box::new(Capture {
            inner: self.inner.clone_box(),
            slot: self.slot.clone(),
        })
    }

    fn initial_window(&self) -> u64 {
        self.inner.initial_window()
    }

    fn into_any(self: Box<Self>) -> Box<dyn std::any::Any> {
        self
    }
}

struct CaptureFactory(Arc<Mutex<Option<RttEstimator>>>);

impl ControllerFactory for CaptureFactory {
    fn build(self: Arc<Self>, now: Instant, current_mtu: u16) -> Box<dyn QuinnController> {
        Box::new(Capture {
            inner: Arc::new(NewRenoConfig::default()).build(now, current_mtu),
            slot: self.0.clone(),
        })
    }
}

/// An `RttEstimator` from a 1 MB loopback transfer.
fn borrow_rtt_estimator() -> RttEstimator {
    let slot = Arc::new(Mutex::new(None));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    runtime
        .block_on(async {
            let factory = Arc::new(CaptureFactory(slot.clone()));
            let (config, roots) = transfer::server_config(None, transfer::transport(factory))?;
            let server = quinn::Endpoint::server(config, "127.0.0.1:0".parse()?)?;
            let addr = server.local_addr()?;
            let serve = tokio::spawn({
                let server = server.clone();
                async move {
                    let incoming = server.accept().await.expect("a connection");
                    transfer::serve_connection(incoming, "capture".into(), None).await
                }
            });
            let mut client = quinn::Endpoint::client("127.0.0.1:0".parse()?)?;
            let client_cc = Arc::new(NewRenoConfig::default());
            client.set_default_client_config(transfer::client_config(
                &roots,
                transfer::transport(client_cc),
            )?);
            let conn = client.connect(addr, "localhost")?.await?;
            transfer::fetch(&conn, 1_000_000).await?;
            conn.close(0u32.into(), b"done");
            serve.await??;
            client.wait_idle().await;
            anyhow::Ok(())
        })
        .expect("loopback quinn transfer");
    let rtt = slot.lock().unwrap().take();
    rtt.expect("quinn acknowledged a packet")
}

fn subjects() -> Vec<Subject> {
    let mut subjects: Vec<Subject> = vegas_cc::spec::NAMES
        .iter()
        .map(|&name| Subject::VegasCc(name))
        .collect();
    subjects.push(Subject::QuicheAdapter("vegas"));
    subjects.push(Subject::QuinnVegas("vegas"));
    subjects.push(Subject::QuinnCubic);
    subjects.push(Subject::QuinnNewReno);
    subjects
}

fn per_ack(c: &mut Criterion) {
    let frames = ack_sequence::sequence(FRAMES);
    let rtt = borrow_rtt_estimator();
    let mut group = c.benchmark_group("per_ack_frame");
    group.sample_size(10);
    group.throughput(Throughput::Elements(FRAMES as u64));
    for subject in subjects() {
        group.bench_function(subject.label(), |b| {
            b.iter(|| subject.replay(&frames, &rtt))
        });
    }
    group.finish();

    // The summary table: medians of whole replays, side by side.
    let mut rows = Vec::new();
    for subject in subjects() {
        let mut times: Vec<Duration> = Vec::with_capacity(SUMMARY_REPLAYS);
        let mut window = 0;
        for _ in 0..SUMMARY_REPLAYS {
            let wall = Instant::now();
            window = std::hint::black_box(subject.replay(&frames, &rtt));
            times.push(wall.elapsed());
        }
        times.sort();
        let ns_per_frame = times[SUMMARY_REPLAYS / 2].as_nanos() as f64 / FRAMES as f64;
        rows.push((subject.label(), ns_per_frame, window));
    }
    let cubic = rows
        .iter()
        .find(|r| r.0 == Subject::QuinnCubic.label())
        .map(|r| r.1)
        .expect("cubic row");
    eprintln!(
        "\nper ACK frame, median of {SUMMARY_REPLAYS} replays of {FRAMES} frames \
         (smoothed RTT lent by quinn: {:?})",
        rtt.get()
    );
    eprintln!("| subject | ns per frame | x quinn Cubic | final window (bytes) |");
    eprintln!("|---|---|---|---|");
    for (label, ns, window) in rows {
        eprintln!("| {label} | {ns:.0} | {:.2} | {window} |", ns / cubic);
    }
}

criterion_group!(benches, per_ack);
criterion_main!(benches);
