//! The event loop: flows of real quiche connections over simulated links.
//!
//! Topology (the dumbbell every seed uses):
//!
//! ```text
//! server i --access i--> [bottleneck] --> client i        (data)
//! server i <--access i'-- [reverse]  <-- client i         (requests, ACKs)
//! ```
//!
//! Each flow's server is the data sender (its controller is the one under
//! test). A flow's access link has the same delay in both directions; a
//! route change (an access delay change) moves both. The reverse link is
//! uncongested unless the scenario configures it. Background flows share
//! one access link pair.

use std::cmp::Ordering;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;
use std::time::Instant;

use anyhow::Context;
use anyhow::Result;
use rand::Rng;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rand_distr::Distribution;

use super::link::Link;
use super::link::LinkAction;
use super::link::LinkSpec;
use super::link::Packet;
use super::link::Route;
use super::rtt::RttStats;
use super::scenario::cc_spec;
use super::scenario::Handshake;
use super::scenario::Impairments;
use super::scenario::LinkChange;
use super::scenario::Scenario;
use super::scenario::StartPhasing;
use super::to_nanos;
use super::Nanos;
use quiche_vegas::adapter::Trace;
use quiche_vegas::adapter::TraceData;
use quiche_vegas::CcSpec;
use quiche_vegas::HoldAlarm;
use quiche_vegas::StartGate;
use vegas_cc::ControllerEvent;
use vegas_link_model::Service;

/// A self-signed RSA-2048 test certificate (CN "quiche-vegas simulator",
/// CA:FALSE, subjectAltName localhost and 127.0.0.1). RSA signatures have a
/// fixed length, so handshakes have the same size in every run, which keeps
/// runs deterministic; the simulator never verifies it.
const SIM_CERT_PEM: &[u8] = include_bytes!("certs/sim-cert.pem");
const SIM_KEY_PEM: &[u8] = include_bytes!("certs/sim-key.pem");

/// ALPN of the simulator's tiny request/response protocol.
const SIM_ALPN: &[u8] = b"vegas-sim";

/// Stream carrying the request and the response.
const STREAM_ID: u64 = 0;

/// A handshake run ahead of its flow's start ([`Handshake::Ahead`]) begins
/// this long before it, on a private clock, and must be over (every packet
/// delivered, nothing left to send) by the start: far more than the few
/// round trips and ACK delays it takes on any path a scenario can have.
const HANDSHAKE_AHEAD: Duration = Duration::from_secs(60);

/// Link indexes of the fixed part of the topology.
const BOTTLENECK: usize = 0;
const REVERSE: usize = 1;

/// Per-flow raw measurements; `report` turns them into metrics.
#[derive(Clone, Debug)]
pub struct FlowResult {
    pub id: usize,
    pub algorithm: &'static str,
    /// A background flow (not in the summary's flow list).
    pub background: bool,
    pub start_ns: Nanos,
    /// The flow's configured size (None: it ran for a duration).
    pub bytes_target: Option<u64>,
    pub bytes_delivered: u64,
    /// Bytes delivered in each [`super::link::BUSY_BIN_NS`] of the run.
    pub delivered_per_bin: Vec<u64>,
    /// When the last byte reached the client (bytes flows).
    pub completed_ns: Option<Nanos>,
    /// When a duration flow stopped.
    pub stopped_ns: Option<Nanos>,
    /// The server's quiche statistics.
    pub retransmitted_bytes: u64,
    pub lost_packets: u64,
    pub sent_packets: u64,
    pub acked_bytes: u64,
    /// Probe timeouts (RFC 9002 6.2): the papers' "coarse timeouts".
    pub pto_count: u64,
    /// Loss-timer expiries (RFC 9002 6.1.2 time threshold).
    pub loss_timer_count: u64,
    /// The server's datagrams, and those shorter than the largest it may
    /// send (`max_datagram_size`).
    pub sent_datagrams: u64,
    pub short_datagrams: u64,
    /// Network RTT samples: each data packet's one-way delay plus the
    /// latest one-way delay of the reverse path (flows under study only).
    pub rtt: RttStats,
    /// The server's congestion window (time, bytes) whenever it changed.
    pub cwnd_series: Vec<(Nanos, usize)>,
    /// The controller's slow-start exit (time, cwnd bytes), vegas-cc only.
    pub slow_start_exit: Option<(Nanos, usize)>,
    /// The coexistence mechanism's switches (time, mode from then on),
    /// Vegas family only.
    pub mode_switches: Vec<(Nanos, vegas_cc::vegas::CoexistMode)>,
    /// What the server's controller saw (vegas-cc algorithms).
    pub trace: Option<TraceData>,
}

/// Raw outcome of a run.
#[derive(Debug)]
pub struct SimResult {
    pub flows: Vec<FlowResult>,
    pub links: Vec<(String, LinkSpec, super::link::LinkStats)>,
    /// Virtual time the run lasted.
    pub sim_ns: Nanos,
    /// The time limit ended the run before every flow was done.
    pub timed_out: bool,
    /// Events processed.
    pub events: u64,
    pub max_datagram_size: usize,
}

#[derive(Debug)]
enum EventKind {
    /// A packet reaches hop `packet.route.hop` of its route (or its endpoint).
    Arrive(Packet),
    /// A link finished serializing its packet in service.
    TxDone { link: usize },
    /// quiche's timer of an endpoint (stale when `generation` moved on).
    Timer {
        flow: usize,
        server: bool,
        generation: u64,
    },
    /// The receiver's delayed-ACK timer (stale when `generation` moved on).
    AckTimer { flow: usize, generation: u64 },
    /// A paced packet may leave.
    Release { flow: usize, server: bool },
    /// The server's controller held the sender until now
    /// ([`HoldAlarm`]).
    HoldEnd { flow: usize },
    /// A flow's client connects.
    Start { flow: usize },
    /// A duration flow ends.
    Stop { flow: usize },
    /// A scheduled link change.
    Change { link: usize, change: LinkChange },
    /// The next background flow arrives.
    Background,
}

struct Event {
    time: Nanos,
    seq: u64,
    kind: EventKind,
}

impl PartialEq for Event {
    fn eq(&self, other: &Self) -> bool {
        (self.time, self.seq) == (other.time, other.seq)
    }
}
impl Eq for Event {}
impl PartialOrd for Event {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Event {
    // Min-heap on (time, insertion order): ties keep FIFO order.
    fn cmp(&self, other: &Self) -> Ordering {
        (other.time, other.seq).cmp(&(self.time, self.seq))
    }
}

struct Endpoint {
    conn: Option<quiche::Connection>,
    addr: SocketAddr,
    config: quiche::Config,
    /// quiche's pacer allows the next packet from this time on.
    next_send_ns: Nanos,
    /// A `Release` event is pending.
    release_scheduled: bool,
    timer_generation: u64,
}

struct Flow {
    cc: CcSpec,
    background: bool,
    start_ns: Nanos,
    bytes_target: Option<u64>,
    data_route: [usize; 2],
    ack_route: [usize; 2],
    client: Endpoint,
    server: Endpoint,
    trace: Option<Trace>,
    request_sent: bool,
    /// The drive that wrote the request has sent it: from then on the
    /// client's packets are ACKs under the receiver ACK policy.
    request_flushed: bool,
    /// Response bytes the server still has to hand to quiche.
    to_send: Option<u64>,
    received: u64,
    /// Bytes received in each [`super::link::BUSY_BIN_NS`] of the run.
    received_per_bin: Vec<u64>,
    completed_ns: Option<Nanos>,
    stopped_ns: Option<Nanos>,
    /// Receiver ACK policy state: packets since the last ACK was allowed,
    /// and when the oldest of them must be acknowledged.
    unacked_pkts: u32,
    ack_deadline: Option<Nanos>,
    ack_generation: u64,
    last_reverse_delay_ns: Option<Nanos>,
    rtt: RttStats,
    cwnd_series: Vec<(Nanos, usize)>,
    /// The server's loss-detection timeouts, told apart: probe timeouts
    /// (RFC 9002 6.2) and time-threshold loss timers (6.1.2). quiche's
    /// `total_pto_count` counts both.
    pto_count: u64,
    loss_timer_count: u64,
    /// The server's datagrams, and those shorter than the largest it may
    /// send.
    sent_datagrams: u64,
    short_datagrams: u64,
    /// With [`Handshake::Ahead`]: the server's controller's gate, opened at
    /// the flow's start, and what quiche counted before it.
    gate: Option<StartGate>,
    handshake_counts: QuicheCounts,
    /// The server's controller's holds ([`HoldAlarm`], for a controller
    /// that may hold the sender), and the hold's end scheduled.
    alarm: Option<HoldAlarm>,
    hold_end: Option<(Nanos, Instant)>,
}

/// A datagram of a handshake run ahead: (arrival, order sent, toward the
/// server, bytes).
type InFlight = (Instant, u64, bool, Vec<u8>);

/// quiche's counters of a connection that the summary reports, as the
/// handshake ahead of a flow's start left them.
#[derive(Clone, Copy, Default)]
struct QuicheCounts {
    sent: usize,
    lost: usize,
    acked_bytes: u64,
    stream_retrans_bytes: u64,
}

impl QuicheCounts {
    fn of(conn: &quiche::Connection) -> Self {
        let s = conn.stats();
        QuicheCounts {
            sent: s.sent,
            lost: s.lost,
            acked_bytes: s.acked_bytes,
            stream_retrans_bytes: s.stream_retrans_bytes,
        }
    }
}

impl Flow {
    fn done(&self) -> bool {
        self.completed_ns.is_some() || self.stopped_ns.is_some()
    }

    fn endpoint(&mut self, server: bool) -> &mut Endpoint {
        if server {
            &mut self.server
        } else {
            &mut self.client
        }
    }
}

/// Options that do not change the outcome of a run.
#[derive(Default)]
pub struct RunOptions {
    /// Folder for queue logs and qlogs.
    pub out_dir: Option<PathBuf>,
    /// Called now and then with the virtual time reached (seconds).
    pub progress: Option<Box<dyn FnMut(f64)>>,
}

/// The simulator.
pub struct Simulator {
    base: Instant,
    now: Nanos,
    seq: u64,
    events: BinaryHeap<Event>,
    links: Vec<Link>,
    in_service: Vec<Option<Packet>>,
    flows: Vec<Flow>,
    /// Static flows are `flows[..static_flows]`; background ones follow.
    static_flows: usize,
    scenario: Scenario,
    time_limit: Nanos,
    processed: u64,
    rng: ChaCha8Rng,
    /// Jitter, reordering and duplication after the bottleneck and the
    /// reverse link, with their own random stream.
    impairments: [Impairments; 2],
    impairment_rng: ChaCha8Rng,
    /// The latest arrival a jittered link scheduled, per link.
    last_jittered_arrival_ns: [Nanos; 2],
    background_links: Option<[usize; 2]>,
    options: RunOptions,
    buf: Vec<u8>,
    zeros: Vec<u8>,
}

fn server_tls() -> Result<boring::ssl::SslContextBuilder> {
    let mut b = boring::ssl::SslContextBuilder::new(boring::ssl::SslMethod::tls())?;
    let cert = boring::x509::X509::from_pem(SIM_CERT_PEM)?;
    let key = boring::pkey::PKey::private_key_from_pem(SIM_KEY_PEM)?;
    b.set_certificate(&cert)?;
    b.set_private_key(&key)?;
    Ok(b)
}

fn quiche_config(
    scenario: &Scenario,
    cc: &CcSpec,
    trace: Option<Trace>,
    gate: Option<StartGate>,
    alarm: Option<HoldAlarm>,
    server: bool,
) -> Result<quiche::Config> {
    let mut c = if server {
        quiche::Config::with_boring_ssl_ctx_builder(quiche::PROTOCOL_VERSION, server_tls()?)?
    } else {
        let mut c = quiche::Config::new(quiche::PROTOCOL_VERSION)?;
        c.verify_peer(false);
        c
    };
    c.set_application_protos(&[SIM_ALPN])?;
    c.set_max_send_udp_payload_size(scenario.max_datagram_size);
    c.set_max_recv_udp_payload_size(scenario.max_datagram_size);
    // Flow control never limits a simulated transfer.
    c.set_initial_max_data(1 << 40);
    c.set_initial_max_stream_data_bidi_local(1 << 40);
    c.set_initial_max_stream_data_bidi_remote(1 << 40);
    c.set_initial_max_streams_bidi(4);
    c.set_disable_active_migration(true);
    // The receiver announces the ACK delay it will use (RFC 9000 18.2).
    c.set_max_ack_delay(scenario.receiver.max_ack_delay.0.as_millis() as u64);
    cc.configure_driven(&mut c, trace, gate, alarm);
    Ok(c)
}

fn flow_addrs(flow: usize) -> (SocketAddr, SocketAddr) {
    let [_, a, b, c] = (flow as u32).to_be_bytes();
    (
        SocketAddr::from(([10, a, b, c], 40000)),
        SocketAddr::from(([11, a, b, c], 443)),
    )
}

fn conn_id(flow: usize, server: bool) -> [u8; quiche::MAX_CONN_ID_LEN] {
    let mut id = [0u8; quiche::MAX_CONN_ID_LEN];
    id[..8].copy_from_slice(&(flow as u64).to_be_bytes());
    id[8] = server as u8;
    id
}

/// A seed for the `k`-th random stream of a run (SplitMix64 step).
fn sub_seed(seed: u64, k: u64) -> u64 {
    let mut z = seed.wrapping_add(0x9e37_79b9_7f4a_7c15u64.wrapping_mul(k + 1));
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl Simulator {
    pub fn new(scenario: &Scenario, options: RunOptions) -> Result<Self> {
        let s = scenario;
        let seed = s.seed;
        let mut links = Vec::new();
        let b = &s.bottleneck;
        let bottleneck_trace = super::scenario::load_trace("bottleneck", b.trace.as_deref())?;
        let reverse_trace = super::scenario::load_trace("reverse", s.reverse.trace.as_deref())?;
        links.push(
            Link::new(
                "bottleneck",
                LinkSpec {
                    rate_bps: b
                        .rate_bps()
                        .or(bottleneck_trace.as_ref().map(|t| t.mean_rate_bps()))
                        .expect("validated: a rate or a trace"),
                    delay_ns: to_nanos(b.delay.0),
                    buffer_pkts: b.buffer_pkts,
                    loss: b.loss,
                    loss_burst_pkts: b.loss_burst_pkts,
                    aggregation_ns: b.aggregation.map_or(0, |d| to_nanos(d.0)),
                },
                sub_seed(seed, 0),
            )
            .with_service(bottleneck_trace.map_or(Service::Rate, Service::trace)),
        );
        let r = &s.reverse;
        links.push(
            Link::new(
                "reverse",
                LinkSpec {
                    rate_bps: r.rate.map(|r| r.0).unwrap_or_else(|| {
                        reverse_trace
                            .as_ref()
                            .map_or(1_000_000_000, |t| t.mean_rate_bps())
                    }),
                    delay_ns: to_nanos(r.delay.unwrap_or(b.delay).0),
                    buffer_pkts: r.buffer_pkts.unwrap_or(10_000),
                    loss: r.loss,
                    loss_burst_pkts: 1.0,
                    aggregation_ns: r.aggregation.map_or(0, |d| to_nanos(d.0)),
                },
                sub_seed(seed, 1),
            )
            .with_service(reverse_trace.map_or(Service::Rate, Service::trace)),
        );
        let mut sim = Simulator {
            base: Instant::now(),
            now: 0,
            seq: 0,
            events: BinaryHeap::new(),
            links,
            in_service: Vec::new(),
            flows: Vec::new(),
            static_flows: s.flows.len(),
            scenario: s.clone(),
            time_limit: to_nanos(s.duration.0),
            processed: 0,
            rng: ChaCha8Rng::seed_from_u64(sub_seed(seed, 2)),
            impairments: [
                scenario.bottleneck.impairments(),
                scenario.reverse.impairments(),
            ],
            impairment_rng: ChaCha8Rng::seed_from_u64(sub_seed(seed, 4)),
            last_jittered_arrival_ns: [0; 2],
            background_links: None,
            options,
            buf: vec![0; 65536],
            zeros: vec![0; 65536],
        };
        // Start phasing has its own random stream: without it, every other
        // draw of the run is what it was.
        let bottleneck_rate_bps = sim.links[BOTTLENECK].spec.rate_bps.max(1);
        let packet_time_ns = s.max_datagram_size as u64 * 8 * 1_000_000_000 / bottleneck_rate_bps;
        let mut phasing_rng = ChaCha8Rng::seed_from_u64(sub_seed(seed, 5));
        for (i, f) in s.flows.iter().enumerate() {
            let offset_ns = match s.start_phasing {
                StartPhasing::None => 0,
                StartPhasing::OnePacket => phasing_rng.gen_range(0..packet_time_ns.max(1)),
            };
            let start_ns = to_nanos(f.start.0) + offset_ns;
            let a = &f.access;
            let spec = LinkSpec::new(a.rate.0, to_nanos(a.delay.0), a.buffer_pkts);
            let fwd = sim.add_link(format!("access-{i}"), spec);
            let rev = sim.add_link(format!("access-{i}-reverse"), spec);
            let cc = s.flow_cc(i)?;
            sim.add_flow(
                cc,
                false,
                start_ns,
                f.bytes,
                [fwd, BOTTLENECK],
                [REVERSE, rev],
            )?;
            if let Some(d) = f.duration {
                sim.schedule(start_ns + to_nanos(d.0), EventKind::Stop { flow: i });
            }
            for c in &a.changes {
                // A route change moves both directions of the access path.
                sim.schedule(
                    to_nanos(c.at.0),
                    EventKind::Change {
                        link: fwd,
                        change: c.clone(),
                    },
                );
                sim.schedule(
                    to_nanos(c.at.0),
                    EventKind::Change {
                        link: rev,
                        change: c.clone(),
                    },
                );
            }
        }
        for c in &b.changes {
            sim.schedule(
                to_nanos(c.at.0),
                EventKind::Change {
                    link: BOTTLENECK,
                    change: c.clone(),
                },
            );
        }
        if let Some(v) = &b.delay_variation {
            // A triangle wave between min and max, one change per step.
            let (min, max) = (to_nanos(v.min.0) as f64, to_nanos(v.max.0) as f64);
            let (period, step) = (to_nanos(v.period.0), to_nanos(v.step.0));
            let mut t = 0;
            while t <= sim.time_limit {
                let phase = (t % period) as f64 / period as f64;
                let tri = if phase < 0.5 {
                    2.0 * phase
                } else {
                    2.0 - 2.0 * phase
                };
                let delay = Duration::from_nanos((min + (max - min) * tri) as u64);
                let change = LinkChange {
                    at: super::scenario::Dur(Duration::from_nanos(t)),
                    rate: None,
                    delay: Some(super::scenario::Dur(delay)),
                    loss: None,
                };
                sim.schedule(
                    t,
                    EventKind::Change {
                        link: BOTTLENECK,
                        change,
                    },
                );
                t += step;
            }
        }
        if let Some(bg) = &s.background {
            let spec = LinkSpec::new(1_000_000_000, 0, 10_000);
            let fwd = sim.add_link("background-access".into(), spec);
            let rev = sim.add_link("background-access-reverse".into(), spec);
            sim.background_links = Some([fwd, rev]);
            let first = to_nanos(bg.start.0).saturating_add(sim.exp_gap(bg.arrivals_per_sec));
            sim.schedule(first, EventKind::Background);
        }
        // Steady-state figures count over the second half of the time limit.
        let steady_from = sim.time_limit / 2;
        for l in &mut sim.links {
            l.stats.steady_from_ns = steady_from;
        }
        if let Some(dir) = &sim.options.out_dir {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("cannot create {}", dir.display()))?;
            let origin = format!(
                "scenario {} seed {} quiche-vegas {}",
                sim.scenario.name,
                sim.scenario.seed,
                env!("CARGO_PKG_VERSION")
            );
            for l in &mut sim.links {
                let path = dir.join(format!("{}.queue", l.name));
                let file = std::fs::File::create(&path)
                    .with_context(|| format!("cannot write {}", path.display()))?;
                l.set_log(file, &origin)?;
            }
        }
        Ok(sim)
    }

    fn add_link(&mut self, name: String, spec: LinkSpec) -> usize {
        let k = self.links.len() as u64;
        self.links
            .push(Link::new(name, spec, sub_seed(self.scenario.seed, 100 + k)));
        self.links.len() - 1
    }

    fn add_flow(
        &mut self,
        cc: CcSpec,
        background: bool,
        start_ns: Nanos,
        bytes: Option<u64>,
        data_route: [usize; 2],
        ack_route: [usize; 2],
    ) -> Result<usize> {
        let i = self.flows.len();
        // Only the flows under study record their controller's trace.
        let trace = (!background && cc.algorithm.is_vegas_cc()).then(Trace::default);
        let gate =
            (!background && self.scenario.handshake == Handshake::Ahead).then(StartGate::closed);
        let (cc, holds) = self.with_tick_phase(i, cc)?;
        let alarm = holds.then(HoldAlarm::new);
        let (client_addr, server_addr) = flow_addrs(i);
        self.flows.push(Flow {
            client: Endpoint {
                conn: None,
                addr: client_addr,
                config: quiche_config(&self.scenario, &cc, None, None, None, false)
                    .with_context(|| format!("flow {i}: client config"))?,
                next_send_ns: 0,
                release_scheduled: false,
                timer_generation: 0,
            },
            server: Endpoint {
                conn: None,
                addr: server_addr,
                config: quiche_config(
                    &self.scenario,
                    &cc,
                    trace.clone(),
                    gate.clone(),
                    alarm.clone(),
                    true,
                )
                .with_context(|| format!("flow {i}: server config"))?,
                next_send_ns: 0,
                release_scheduled: false,
                timer_generation: 0,
            },
            cc,
            background,
            start_ns,
            bytes_target: bytes,
            data_route,
            ack_route,
            trace,
            request_sent: false,
            request_flushed: false,
            to_send: None,
            received: 0,
            received_per_bin: Vec::new(),
            completed_ns: None,
            stopped_ns: None,
            unacked_pkts: 0,
            ack_deadline: None,
            ack_generation: 0,
            last_reverse_delay_ns: None,
            rtt: RttStats::default(),
            cwnd_series: Vec::new(),
            pto_count: 0,
            loss_timer_count: 0,
            sent_datagrams: 0,
            short_datagrams: 0,
            gate,
            handshake_counts: QuicheCounts::default(),
            alarm,
            hold_end: None,
        });
        self.schedule(start_ns, EventKind::Start { flow: i });
        Ok(i)
    }

    /// `newreno`'s `tick_wait`, which holds the sender (the flow then
    /// needs a [`HoldAlarm`]: the bool). Without a `tick_phase_ms`, the
    /// phase of the 500 ms clock is drawn per flow from the seed (its own
    /// stream), as a host's clock ticks whenever it ticks.
    fn with_tick_phase(&self, flow: usize, mut cc: CcSpec) -> Result<(CcSpec, bool)> {
        let ticking = quiche_vegas::vegas_cc::spec::holds_sender(cc.algorithm.name(), &cc.params);
        if !ticking || cc.params.contains_key("tick_phase_ms") {
            return Ok((cc, ticking));
        }
        let mut rng =
            ChaCha8Rng::seed_from_u64(sub_seed(sub_seed(self.scenario.seed, 6), flow as u64));
        let phase_ms: u64 = rng.gen_range(0..500);
        cc.params
            .insert("tick_phase_ms".into(), phase_ms.to_string());
        let cc = CcSpec::new_for(
            quiche_vegas::vegas_cc::spec::Driver::WakesAtHolds,
            cc.algorithm,
            cc.params,
        )?;
        Ok((cc, true))
    }

    /// Exponential inter-arrival gap of a Poisson process.
    fn exp_gap(&mut self, per_sec: f64) -> Nanos {
        let exp = rand_distr::Exp::new(per_sec).expect("validated rate");
        (exp.sample(&mut self.rng) * 1e9) as Nanos
    }

    fn schedule(&mut self, time: Nanos, kind: EventKind) {
        self.seq += 1;
        self.events.push(Event {
            time,
            seq: self.seq,
            kind,
        });
    }

    fn instant(&self, t: Nanos) -> Instant {
        self.base + Duration::from_nanos(t)
    }

    /// Runs until every static flow is done or the time limit.
    pub fn run(mut self) -> Result<SimResult> {
        quiche::clock::set_rand_seed(Some(sub_seed(self.scenario.seed, 3)));
        let result = self.run_inner();
        quiche::clock::set_override(None);
        quiche::clock::set_rand_seed(None);
        result
    }

    fn run_inner(&mut self) -> Result<SimResult> {
        for flow in 0..self.static_flows {
            if self.flows[flow].gate.is_some() {
                self.handshake_ahead(flow)
                    .with_context(|| format!("flows.{flow}: handshake = \"ahead\""))?;
            }
        }
        let mut next_progress = 0;
        while let Some(ev) = self.events.pop() {
            if ev.time > self.time_limit {
                self.now = self.time_limit;
                break;
            }
            self.now = ev.time;
            quiche::clock::set_override(Some(self.instant(self.now)));
            self.processed += 1;
            self.handle(ev.kind)?;
            if self.flows[..self.static_flows].iter().all(Flow::done) {
                break;
            }
            if self.now >= next_progress {
                if let Some(p) = &mut self.options.progress {
                    p(self.now as f64 / 1e9);
                }
                next_progress = self.now + 100_000_000;
            }
        }
        let timed_out = self.flows[..self.static_flows].iter().any(|f| !f.done());
        for l in &mut self.links {
            l.finish(self.now);
        }
        let result = self.result(timed_out);
        self.flush_qlogs();
        Ok(result)
    }

    fn flush_qlogs(&mut self) {
        // quiche writes qlog through a BufWriter it owns; dropping the
        // connections flushes it.
        if self.scenario.qlog && self.options.out_dir.is_some() {
            for f in &mut self.flows {
                f.client.conn = None;
                f.server.conn = None;
            }
        }
    }

    fn result(&mut self, timed_out: bool) -> SimResult {
        let base = self.base;
        let flows = self
            .flows
            .iter_mut()
            .enumerate()
            .map(|(id, f)| {
                let stats = f.server.conn.as_ref().map(|c| c.stats());
                let before = f.handshake_counts;
                let trace = f
                    .trace
                    .as_ref()
                    .map(|t| std::mem::take(&mut *t.lock().unwrap()));
                FlowResult {
                    id,
                    algorithm: f.cc.algorithm.name(),
                    background: f.background,
                    start_ns: f.start_ns,
                    bytes_target: f.bytes_target,
                    bytes_delivered: f.received,
                    delivered_per_bin: std::mem::take(&mut f.received_per_bin),
                    completed_ns: f.completed_ns,
                    stopped_ns: f.stopped_ns,
                    retransmitted_bytes: stats
                        .as_ref()
                        .map_or(0, |s| s.stream_retrans_bytes - before.stream_retrans_bytes),
                    lost_packets: stats.as_ref().map_or(0, |s| (s.lost - before.lost) as u64),
                    sent_packets: stats.as_ref().map_or(0, |s| (s.sent - before.sent) as u64),
                    acked_bytes: stats
                        .as_ref()
                        .map_or(0, |s| s.acked_bytes - before.acked_bytes),
                    pto_count: f.pto_count,
                    loss_timer_count: f.loss_timer_count,
                    sent_datagrams: f.sent_datagrams,
                    short_datagrams: f.short_datagrams,
                    rtt: std::mem::take(&mut f.rtt),
                    cwnd_series: std::mem::take(&mut f.cwnd_series),
                    slow_start_exit: trace.as_ref().and_then(|t| {
                        t.events.iter().find_map(|e| match e {
                            ControllerEvent::SlowStartExit {
                                now, cwnd_bytes, ..
                            } => Some((to_nanos(now.saturating_duration_since(base)), *cwnd_bytes)),
                            _ => None,
                        })
                    }),
                    mode_switches: trace.as_ref().map_or_else(Vec::new, |t| {
                        t.events
                            .iter()
                            .filter_map(|e| match e {
                                ControllerEvent::ModeChange { now, mode, .. } => {
                                    Some((to_nanos(now.saturating_duration_since(base)), *mode))
                                }
                                _ => None,
                            })
                            .collect()
                    }),
                    trace,
                }
            })
            .collect();
        SimResult {
            flows,
            links: self
                .links
                .iter()
                .map(|l| (l.name.clone(), l.spec, l.stats.clone()))
                .collect(),
            sim_ns: self.now,
            timed_out,
            events: self.processed,
            max_datagram_size: self.scenario.max_datagram_size,
        }
    }

    fn handle(&mut self, kind: EventKind) -> Result<()> {
        match kind {
            EventKind::Start { flow } => self.start(flow)?,
            EventKind::Arrive(packet) => self.arrive(packet)?,
            EventKind::TxDone { link } => {
                let packet = self.in_service[link]
                    .take()
                    .expect("a busy link has a packet");
                let mut at = self.links[link].spec.arrival_ns(self.now);
                self.links[link]
                    .stats
                    .delay
                    .record(at.saturating_sub(packet.entered_ns));
                let mut packet = packet;
                packet.route.hop += 1;
                if let Some(impairments) = self.impairments.get(link).filter(|i| i.is_active()) {
                    let impairments = *impairments;
                    if !impairments.jitter.is_zero() {
                        // Behind the packet before it on this link, never
                        // ahead (the scenario's FIFO jitter).
                        let u = self.impairment_rng.gen::<f64>();
                        at = at
                            .saturating_add(impairments.jitter_ns(u))
                            .max(self.last_jittered_arrival_ns[link]);
                        self.last_jittered_arrival_ns[link] = at;
                    }
                    if self.impairment_rng.gen::<f64>() < impairments.duplicate {
                        self.schedule(at, EventKind::Arrive(packet.clone()));
                    }
                    if self.impairment_rng.gen::<f64>() < impairments.reorder {
                        at = at.saturating_add(to_nanos(impairments.reorder_delay));
                    }
                }
                self.schedule(at, EventKind::Arrive(packet));
                if let Some((next, end)) = self.links[link].tx_done(self.now) {
                    self.in_service[link] = Some(next);
                    self.schedule(end, EventKind::TxDone { link });
                }
            }
            EventKind::Timer {
                flow,
                server,
                generation,
            } => {
                let f = &mut self.flows[flow];
                let ep = f.endpoint(server);
                if ep.timer_generation == generation {
                    let mut counts = None;
                    if let Some(conn) = ep.conn.as_mut() {
                        let before = loss_detection_counts(conn);
                        conn.on_timeout();
                        counts = Some((before, loss_detection_counts(conn)));
                    }
                    // A loss-detection timeout that declared packets lost
                    // was the loss timer; one that did not, a PTO.
                    if let Some((before, after)) = counts.filter(|_| server) {
                        if after.0 > before.0 && after.1 > before.1 {
                            f.loss_timer_count += 1;
                        } else if after.0 > before.0 {
                            f.pto_count += 1;
                        }
                    }
                    self.drive(flow, server, true)?;
                }
            }
            EventKind::AckTimer { flow, generation } => {
                if self.flows[flow].ack_generation == generation {
                    self.drive(flow, false, true)?;
                }
            }
            EventKind::Release { flow, server } => {
                self.flows[flow].endpoint(server).release_scheduled = false;
                self.drive(flow, server, true)?
            }
            EventKind::HoldEnd { flow } => {
                let f = &mut self.flows[flow];
                if let Some((_, until)) = f.hold_end.filter(|(at, _)| *at == self.now) {
                    f.hold_end = None;
                    if let Some(alarm) = &f.alarm {
                        alarm.release(until);
                    }
                    self.drive(flow, true, false)?
                }
            }
            EventKind::Stop { flow } => {
                let f = &mut self.flows[flow];
                if !f.done() {
                    f.stopped_ns = Some(self.now);
                    f.to_send = Some(0);
                    if let Some(conn) = f.server.conn.as_mut() {
                        let _ = conn.close(true, 0, b"done");
                    }
                    self.drive(flow, true, true)?;
                }
            }
            EventKind::Change { link, change } => {
                let spec = &mut self.links[link].spec;
                if let Some(r) = change.rate {
                    spec.rate_bps = r.0;
                }
                if let Some(d) = change.delay {
                    spec.delay_ns = to_nanos(d.0);
                }
                if let Some(l) = change.loss {
                    spec.loss = l;
                }
            }
            EventKind::Background => self.background_arrival()?,
        }
        Ok(())
    }

    fn background_arrival(&mut self) -> Result<()> {
        let bg = self
            .scenario
            .background
            .clone()
            .expect("background configured");
        if bg.stop.is_some_and(|s| self.now >= to_nanos(s.0)) {
            return Ok(());
        }
        // Validation bounds the expected count; a Poisson run far above it
        // stops arriving rather than grow without bound.
        let max_flows = 2.0 * super::scenario::MAX_BACKGROUND_FLOWS;
        if (self.flows.len() - self.static_flows) as f64 >= max_flows {
            return Ok(());
        }
        // Pareto sizes with the configured mean: x_m = mean (a - 1) / a.
        let shape = bg.pareto_shape;
        let scale = bg.mean_bytes as f64 * (shape - 1.0) / shape;
        let pareto = rand_distr::Pareto::new(scale, shape).expect("validated");
        let bytes = (pareto.sample(&mut self.rng).round() as u64).max(1);
        let cc = cc_spec(&bg.algorithm, &Default::default())?;
        let [fwd, rev] = self.background_links.expect("background links");
        self.add_flow(
            cc,
            true,
            self.now,
            Some(bytes),
            [fwd, BOTTLENECK],
            [REVERSE, rev],
        )?;
        self.in_service.resize_with(self.links.len(), || None);
        let gap = self.exp_gap(bg.arrivals_per_sec);
        self.schedule(self.now.saturating_add(gap), EventKind::Background);
        Ok(())
    }

    fn start(&mut self, flow: usize) -> Result<()> {
        self.in_service.resize_with(self.links.len(), || None);
        if self.flows[flow].gate.is_some() {
            return self.start_after_handshake(flow);
        }
        let out_dir = self.options.out_dir.clone();
        let qlog = self.scenario.qlog;
        let f = &mut self.flows[flow];
        let scid = conn_id(flow, false);
        let scid = quiche::ConnectionId::from_ref(&scid);
        let mut conn = quiche::connect(
            Some("localhost"),
            &scid,
            f.client.addr,
            f.server.addr,
            &mut f.client.config,
        )?;
        if let (true, Some(dir)) = (qlog, &out_dir) {
            set_qlog(&mut conn, dir, flow, "client", self.now)?;
        }
        f.client.conn = Some(conn);
        self.drive(flow, false, true)
    }

    /// [`Handshake::Ahead`]: runs flow `flow`'s handshake and request on
    /// its own path, alone, on a private clock that ends at the flow's
    /// start. Each packet takes the path's propagation and serialization
    /// delays (no queue, loss or jitter: nothing else is on it); timers
    /// fire when due. The server's controller is behind its closed gate
    /// throughout, and the server leaves the request unread.
    fn handshake_ahead(&mut self, flow: usize) -> Result<()> {
        let deadline = self.instant(self.flows[flow].start_ns);
        let origin = deadline
            .checked_sub(HANDSHAKE_AHEAD)
            .context("the machine's monotonic clock is too young to run a handshake ahead")?;
        // One-way delay of a datagram of `len` bytes: to the server on the
        // ACK route, to the client on the data route.
        let route_specs = |route: [usize; 2]| route.map(|l| self.links[l].spec);
        let (to_client, to_server) = (
            route_specs(self.flows[flow].data_route),
            route_specs(self.flows[flow].ack_route),
        );
        let one_way = |toward_server: bool, len: usize| -> Duration {
            let specs = if toward_server {
                &to_server
            } else {
                &to_client
            };
            let ns: u64 = specs
                .iter()
                .map(|spec| spec.delay_ns + len as u64 * 8 * 1_000_000_000 / spec.rate_bps.max(1))
                .sum();
            Duration::from_nanos(ns)
        };
        let Simulator { flows, buf, .. } = self;
        let f = &mut flows[flow];
        quiche::clock::set_override(Some(origin));
        let scid = conn_id(flow, false);
        f.client.conn = Some(quiche::connect(
            Some("localhost"),
            &quiche::ConnectionId::from_ref(&scid),
            f.client.addr,
            f.server.addr,
            &mut f.client.config,
        )?);
        let mut wire: BinaryHeap<Reverse<InFlight>> = BinaryHeap::new();
        let mut sent = 0u64;
        let mut now = origin;
        loop {
            let client = f.client.conn.as_mut().expect("connected above");
            if client.is_established() && !f.request_sent {
                client.stream_send(STREAM_ID, b"GET", true)?;
                f.request_sent = true;
            }
            for server in [false, true] {
                let Some(conn) = f.endpoint(server).conn.as_mut() else {
                    continue;
                };
                loop {
                    match conn.send(buf) {
                        Ok((len, _)) => {
                            sent += 1;
                            let at = now + one_way(!server, len);
                            wire.push(Reverse((at, sent, !server, buf[..len].to_vec())));
                        }
                        Err(quiche::Error::Done) => break,
                        Err(e) => return Err(e).context("quiche send"),
                    }
                }
            }
            let next_packet = wire.peek().map(|Reverse(p)| p.0);
            let next_timer = [&f.client.conn, &f.server.conn]
                .into_iter()
                .filter_map(|c| c.as_ref().and_then(|c| c.timeout_instant()))
                .min();
            let next = match (next_packet, next_timer) {
                (Some(p), Some(t)) => p.min(t),
                (p, t) => match p.or(t) {
                    Some(next) => next,
                    None => break,
                },
            };
            if next >= deadline {
                if next_packet.is_some_and(|p| p >= deadline) {
                    anyhow::bail!(
                        "not over {HANDSHAKE_AHEAD:?} after it began: a datagram is still on \
                         the path at the flow's start"
                    );
                }
                break;
            }
            now = next.max(now);
            quiche::clock::set_override(Some(now));
            if next_packet == Some(next) {
                let Reverse((_, _, toward_server, mut data)) = wire.pop().expect("peeked");
                let (from, to) = if toward_server {
                    (f.client.addr, f.server.addr)
                } else {
                    (f.server.addr, f.client.addr)
                };
                if toward_server && f.server.conn.is_none() {
                    let scid = conn_id(flow, true);
                    f.server.conn = Some(quiche::accept(
                        &quiche::ConnectionId::from_ref(&scid),
                        None,
                        to,
                        from,
                        &mut f.server.config,
                    )?);
                }
                if let Some(conn) = f.endpoint(toward_server).conn.as_mut() {
                    let _ = conn.recv(&mut data, quiche::RecvInfo { from, to });
                }
            } else {
                for conn in [&mut f.client.conn, &mut f.server.conn]
                    .into_iter()
                    .flatten()
                {
                    if conn.timeout_instant().is_some_and(|t| t <= now) {
                        conn.on_timeout();
                    }
                }
            }
        }
        let server = f.server.conn.as_ref();
        let established = f.client.conn.as_ref().is_some_and(|c| c.is_established())
            && server.is_some_and(|c| c.is_established());
        let request_in = server.is_some_and(|c| c.stream_readable(STREAM_ID));
        if !established || !request_in {
            anyhow::bail!(
                "not over {HANDSHAKE_AHEAD:?} after it began (established: {established}, \
                 request received: {request_in})"
            );
        }
        f.request_flushed = true;
        f.handshake_counts = server.map(QuicheCounts::of).unwrap_or_default();
        Ok(())
    }

    /// [`Handshake::Ahead`]: the flow's start. The qlogs begin, the
    /// server's controller sees events from now on, and the server reads
    /// the request and sends the response's first packets.
    fn start_after_handshake(&mut self, flow: usize) -> Result<()> {
        let now = self.now;
        let qlog = self.scenario.qlog;
        let f = &mut self.flows[flow];
        if let (true, Some(dir)) = (qlog, &self.options.out_dir) {
            for (side, conn) in [
                ("client", &mut f.client.conn),
                ("server", &mut f.server.conn),
            ] {
                if let Some(conn) = conn.as_mut() {
                    set_qlog(conn, dir, flow, side, now)?;
                }
            }
        }
        if let Some(gate) = &f.gate {
            gate.open();
        }
        self.drive(flow, true, false)?;
        self.arm_timer(flow, false)
    }

    /// A packet reaches its next hop, or its endpoint.
    fn arrive(&mut self, mut packet: Packet) -> Result<()> {
        let f = &self.flows[packet.flow];
        let route = if packet.route.to_server {
            f.ack_route
        } else {
            f.data_route
        };
        if let Some(&link) = route.get(packet.route.hop) {
            let mut in_service = None;
            if let LinkAction::TxDoneAt(end) =
                self.links[link].enqueue(self.now, packet, &mut in_service)
            {
                self.in_service[link] = in_service;
                self.schedule(end, EventKind::TxDone { link });
            }
            return Ok(());
        }
        let (flow, server) = (packet.flow, packet.route.to_server);
        let now = self.now;
        let max_ack_delay = to_nanos(self.scenario.receiver.max_ack_delay.0);
        let out_dir = self.options.out_dir.clone();
        let qlog = self.scenario.qlog;
        let f = &mut self.flows[flow];
        let one_way = now - packet.route.sent_at;
        let (from, to) = if server {
            f.last_reverse_delay_ns = Some(one_way);
            (f.client.addr, f.server.addr)
        } else {
            if let (Some(rev), false) = (f.last_reverse_delay_ns, f.background) {
                f.rtt.record(now, one_way + rev);
            }
            (f.server.addr, f.client.addr)
        };
        if server && f.server.conn.is_none() {
            let scid = conn_id(flow, true);
            let scid = quiche::ConnectionId::from_ref(&scid);
            let mut conn = quiche::accept(&scid, None, to, from, &mut f.server.config)?;
            if let (true, Some(dir)) = (qlog, &out_dir) {
                set_qlog(&mut conn, dir, flow, "server", now)?;
            }
            f.server.conn = Some(conn);
        }
        let ep = if server { &mut f.server } else { &mut f.client };
        if let Some(conn) = ep.conn.as_mut() {
            // A packet quiche cannot use is dropped, as on a real socket.
            let _ = conn.recv(&mut packet.data, quiche::RecvInfo { from, to });
            if server {
                let cwnd = conn.path_stats().next().map(|p| p.cwnd);
                if let Some(cwnd) = cwnd {
                    if f.cwnd_series.last().is_none_or(|(_, c)| *c != cwnd) {
                        f.cwnd_series.push((now, cwnd));
                    }
                }
            }
        }
        if !server {
            // Receiver ACK policy: count the packet, arm the delayed-ACK
            // deadline for the oldest unacknowledged one.
            f.unacked_pkts += 1;
            if f.ack_deadline.is_none() {
                f.ack_deadline = Some(now + max_ack_delay);
                f.ack_generation += 1;
                let generation = f.ack_generation;
                self.schedule(
                    now + max_ack_delay,
                    EventKind::AckTimer { flow, generation },
                );
            }
        }
        self.drive(flow, server, false)
    }

    /// Whether the client may send now under the receiver ACK policy. It
    /// is only gated once the handshake is done and the request is sent:
    /// from then on everything it sends is an ACK.
    fn ack_allowed(&mut self, flow: usize, timer: bool) -> bool {
        let every = self.scenario.receiver.ack_every_pkts;
        let now = self.now;
        let f = &mut self.flows[flow];
        // The client's own flight (its handshake Finished with the
        // request) goes out when written: a receiver's ACK policy delays
        // ACKs, not data. Held for the ACK timer, it cost every run 25 ms
        // and, on paths under about 12 ms RTT, a spurious server PTO.
        let gated = f.request_flushed && f.client.conn.as_ref().is_some_and(|c| c.is_established());
        if !gated || timer || f.unacked_pkts >= every || f.ack_deadline.is_some_and(|d| d <= now) {
            f.unacked_pkts = 0;
            f.ack_deadline = None;
            f.ack_generation += 1;
            true
        } else {
            false
        }
    }

    /// Application logic, then everything quiche wants to send now, then
    /// the endpoint's timer. `timer`: woken by a timer (the receiver may
    /// send regardless of its ACK policy).
    fn drive(&mut self, flow: usize, server: bool, timer: bool) -> Result<()> {
        self.application(flow, server)?;
        let now = self.now;
        let mds = self.scenario.max_datagram_size;
        if !server && !self.ack_allowed(flow, timer) {
            return self.arm_timer(flow, server);
        }
        loop {
            let ep = self.flows[flow].endpoint(server);
            // quiche's pacer (gcongestion) returns with each packet the
            // earliest time of the *next* one; it records the packet it
            // returns as sent now. So the packet goes now and the next
            // send() call waits for `at`.
            if ep.next_send_ns > now {
                let at = ep.next_send_ns;
                if !ep.release_scheduled {
                    ep.release_scheduled = true;
                    self.schedule(at, EventKind::Release { flow, server });
                }
                break;
            }
            let Some(conn) = ep.conn.as_mut() else {
                break;
            };
            match conn.send(&mut self.buf) {
                Ok((len, info)) => {
                    ep.next_send_ns = to_nanos(info.at.saturating_duration_since(self.base));
                    if server {
                        let f = &mut self.flows[flow];
                        f.sent_datagrams += 1;
                        f.short_datagrams += u64::from(len < mds);
                    }
                    let data = self.buf[..len].to_vec();
                    self.transmit(flow, server, data)?;
                }
                Err(quiche::Error::Done) => break,
                Err(e) => return Err(e).context("quiche send"),
            }
        }
        if !server {
            let f = &mut self.flows[flow];
            f.request_flushed |= f.request_sent;
        } else if let Some(until) = self.flows[flow].alarm.as_ref().and_then(HoldAlarm::take) {
            // The controller holds the sender; nothing in quiche wakes it
            // at the hold's end.
            let at = to_nanos(until.saturating_duration_since(self.base)).max(now);
            self.flows[flow].hold_end = Some((at, until));
            self.schedule(at, EventKind::HoldEnd { flow });
        }
        self.arm_timer(flow, server)
    }

    /// (Re)arms quiche's timer of an endpoint.
    fn arm_timer(&mut self, flow: usize, server: bool) -> Result<()> {
        let now = self.now;
        let base = self.base;
        let ep = self.flows[flow].endpoint(server);
        ep.timer_generation += 1;
        let generation = ep.timer_generation;
        if let Some(t) = ep.conn.as_ref().and_then(|c| c.timeout_instant()) {
            let at = to_nanos(t.saturating_duration_since(base)).max(now);
            self.schedule(
                at,
                EventKind::Timer {
                    flow,
                    server,
                    generation,
                },
            );
        }
        Ok(())
    }

    /// An endpoint puts a packet on the wire: it enters its first link now.
    fn transmit(&mut self, flow: usize, server: bool, data: Vec<u8>) -> Result<()> {
        self.arrive(Packet {
            flow,
            data,
            entered_ns: self.now,
            route: Route {
                to_server: !server,
                hop: 0,
                sent_at: self.now,
            },
        })
    }

    /// The request/response protocol on stream 0.
    fn application(&mut self, flow: usize, server: bool) -> Result<()> {
        let now = self.now;
        let f = &mut self.flows[flow];
        if server {
            let Some(conn) = f.server.conn.as_mut() else {
                return Ok(());
            };
            if f.to_send.is_none() && conn.stream_readable(STREAM_ID) {
                let mut fin = false;
                while let Ok((_, done)) = conn.stream_recv(STREAM_ID, &mut self.buf) {
                    fin |= done;
                }
                if fin {
                    f.to_send = Some(f.bytes_target.unwrap_or(u64::MAX));
                }
            }
            // Back-pressure, as a real server has: write only what keeps
            // about one window unsent in quiche (which accepts a window's
            // worth on every call, however much already waits).
            let mut budget = quiche_vegas::sending::send_budget_bytes(conn) as u64;
            while let Some(remaining) = f.to_send.filter(|r| *r > 0 && budget > 0) {
                let n = remaining.min(self.zeros.len() as u64).min(budget) as usize;
                let fin = f.bytes_target.is_some() && n as u64 == remaining;
                match conn.stream_send(STREAM_ID, &self.zeros[..n], fin) {
                    Ok(written) => {
                        f.to_send = Some(remaining - written as u64);
                        budget -= written as u64;
                    }
                    Err(quiche::Error::Done) => break,
                    Err(e) => return Err(e).context("server stream_send"),
                }
            }
        } else {
            let Some(conn) = f.client.conn.as_mut() else {
                return Ok(());
            };
            if conn.is_established() && !f.request_sent {
                conn.stream_send(STREAM_ID, b"GET", true)?;
                f.request_sent = true;
            }
            while let Ok((n, fin)) = conn.stream_recv(STREAM_ID, &mut self.buf) {
                if f.stopped_ns.is_none() {
                    f.received += n as u64;
                    let bin = (now / super::link::BUSY_BIN_NS) as usize;
                    if f.received_per_bin.len() <= bin {
                        f.received_per_bin.resize(bin + 1, 0);
                    }
                    f.received_per_bin[bin] += n as u64;
                }
                if fin && f.completed_ns.is_none() {
                    f.completed_ns = Some(now);
                }
            }
        }
        Ok(())
    }
}

fn set_qlog(
    conn: &mut quiche::Connection,
    dir: &std::path::Path,
    flow: usize,
    side: &str,
    now: Nanos,
) -> Result<()> {
    let path = dir.join(format!("flow-{flow}-{side}.sqlog"));
    let file =
        std::fs::File::create(&path).with_context(|| format!("cannot write {}", path.display()))?;
    // The trace records which simulator time its qlog time 0 is, so the
    // plot and the qvis export align it exactly with the queue logs and
    // the other endpoint.
    quiche_vegas::qlog::setup_writer(
        conn,
        Box::new(std::io::BufWriter::new(file)),
        side,
        &format!("flow {flow}"),
        Some(Duration::from_nanos(now)),
    );
    Ok(())
}

/// Runs `scenario` to completion (or its time limit).
pub fn run(scenario: &Scenario, options: RunOptions) -> Result<SimResult> {
    Simulator::new(scenario, options)?.run()
}

/// quiche's count of loss-detection timeouts (`total_pto_count`, which
/// counts loss timers too) and of packets declared lost, on `conn`'s first
/// path.
fn loss_detection_counts(conn: &quiche::Connection) -> (usize, usize) {
    let timeouts = conn.path_stats().next().map_or(0, |p| p.total_pto_count);
    (timeouts, conn.stats().lost)
}
