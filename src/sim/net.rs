//! The event loop: flows of real quiche connections over simulated links.

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::net::SocketAddr;
use std::time::Duration;
use std::time::Instant;

use anyhow::Context;
use anyhow::Result;

use super::link::Link;
use super::link::LinkAction;
use super::link::LinkSpec;
use super::link::LinkStats;
use super::link::Packet;
use super::to_nanos;
use super::Nanos;
use crate::adapter::Trace;
use crate::adapter::TraceData;
use crate::CcSpec;

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

/// One flow: a client asks, the server sends `bytes` back.
#[derive(Clone, Debug)]
pub struct FlowSpec {
    /// The server's (data sender's) congestion control.
    pub cc: CcSpec,
    /// Bytes the server sends.
    pub bytes: u64,
    /// When the client connects.
    pub start: Duration,
    /// Record what the server's controller saw.
    pub trace: bool,
}

/// The network and its flows.
#[derive(Clone, Debug)]
pub struct NetworkSpec {
    /// The shared link every flow's data crosses (server to client).
    pub bottleneck: LinkSpec,
    /// Each flow's own link for requests and ACKs (client to server).
    pub reverse: LinkSpec,
    pub flows: Vec<FlowSpec>,
    /// Seeds quiche's own random choices.
    pub seed: u64,
    /// The run stops here even if flows are not done.
    pub time_limit: Duration,
    /// quiche's max_send_udp_payload_size.
    pub max_datagram_size: usize,
}

/// Per-flow outcome.
#[derive(Clone, Debug)]
pub struct FlowResult {
    pub algorithm: &'static str,
    pub bytes_delivered: u64,
    /// Time from the flow's start to the last byte at the client.
    pub completion: Option<Duration>,
    /// The server's quiche statistics.
    pub retransmitted_bytes: u64,
    pub lost_packets: u64,
    pub sent_packets: u64,
    /// Bytes of in-flight packets quiche saw acknowledged.
    pub acked_bytes: u64,
    /// What the server's controller saw (when `trace` was asked).
    pub trace: Option<TraceData>,
}

impl FlowResult {
    /// Goodput in bytes per second over the completion time.
    pub fn goodput_bytes_per_sec(&self) -> Option<f64> {
        self.completion
            .map(|c| self.bytes_delivered as f64 / c.as_secs_f64())
    }
}

/// Outcome of a run.
#[derive(Clone, Debug)]
pub struct SimResult {
    pub flows: Vec<FlowResult>,
    pub bottleneck: LinkStats,
    /// Virtual time the run lasted.
    pub sim_time: Duration,
    /// The run hit its time limit before every flow completed.
    pub timed_out: bool,
    /// Events processed.
    pub events: u64,
}

impl SimResult {
    /// Time-averaged number of packets waiting at the bottleneck.
    pub fn mean_queue_pkts(&self) -> f64 {
        let t = to_nanos(self.sim_time).max(1) as f64;
        self.bottleneck.queue_pkt_ns as f64 / t
    }
}

#[derive(Debug)]
enum EventKind {
    /// A packet reaches hop `packet.hop` of its route (or its endpoint).
    Arrive(Packet),
    /// A link finished serializing its packet in service.
    TxDone { link: usize },
    /// quiche's timer of an endpoint (stale when `generation` moved on).
    Timer {
        flow: usize,
        server: bool,
        generation: u64,
    },
    /// A paced packet may leave.
    Release { flow: usize, server: bool },
    /// A flow's client connects.
    Start { flow: usize },
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
    /// A packet quiche paced into the future, and its release time.
    held: Option<(Vec<u8>, Nanos)>,
    timer_generation: u64,
}

struct Flow {
    spec: FlowSpec,
    client: Endpoint,
    server: Endpoint,
    client_config: quiche::Config,
    server_config: quiche::Config,
    trace: Option<Trace>,
    request_sent: bool,
    /// Response bytes the server still has to hand to quiche.
    to_send: Option<u64>,
    received: u64,
    done_at: Option<Nanos>,
}

/// The simulator.
pub struct Simulator {
    base: Instant,
    now: Nanos,
    seq: u64,
    events: BinaryHeap<Event>,
    /// links[0] is the bottleneck; links[1 + i] is flow i's reverse link.
    links: Vec<Link>,
    in_service: Vec<Option<Packet>>,
    flows: Vec<Flow>,
    time_limit: Nanos,
    processed: u64,
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
    spec: &NetworkSpec,
    cc: &CcSpec,
    trace: Option<Trace>,
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
    c.set_max_send_udp_payload_size(spec.max_datagram_size);
    c.set_max_recv_udp_payload_size(spec.max_datagram_size);
    // Flow control never limits a simulated transfer.
    c.set_initial_max_data(1 << 40);
    c.set_initial_max_stream_data_bidi_local(1 << 40);
    c.set_initial_max_stream_data_bidi_remote(1 << 40);
    c.set_initial_max_streams_bidi(4);
    c.set_disable_active_migration(true);
    cc.configure_traced(&mut c, trace);
    Ok(c)
}

fn flow_addrs(flow: usize) -> (SocketAddr, SocketAddr) {
    let hi = (flow >> 8) as u8;
    let lo = flow as u8;
    (
        SocketAddr::from(([10, hi, lo, 1], 40000)),
        SocketAddr::from(([10, hi, lo, 2], 443)),
    )
}

fn conn_id(flow: usize, server: bool) -> [u8; quiche::MAX_CONN_ID_LEN] {
    let mut id = [0u8; quiche::MAX_CONN_ID_LEN];
    id[..8].copy_from_slice(&(flow as u64).to_be_bytes());
    id[8] = server as u8;
    id
}

impl Simulator {
    pub fn new(spec: &NetworkSpec) -> Result<Self> {
        let mut links = vec![Link::new(spec.bottleneck)];
        let mut flows = Vec::new();
        for (i, f) in spec.flows.iter().enumerate() {
            links.push(Link::new(spec.reverse));
            let trace = f.trace.then(Trace::default);
            let (client_addr, server_addr) = flow_addrs(i);
            flows.push(Flow {
                spec: f.clone(),
                client: Endpoint {
                    conn: None,
                    addr: client_addr,
                    held: None,
                    timer_generation: 0,
                },
                server: Endpoint {
                    conn: None,
                    addr: server_addr,
                    held: None,
                    timer_generation: 0,
                },
                client_config: quiche_config(spec, &f.cc, None, false)
                    .with_context(|| format!("flow {i}: client config"))?,
                server_config: quiche_config(spec, &f.cc, trace.clone(), true)
                    .with_context(|| format!("flow {i}: server config"))?,
                trace,
                request_sent: false,
                to_send: None,
                received: 0,
                done_at: None,
            });
        }
        let n_links = links.len();
        let mut sim = Simulator {
            base: Instant::now(),
            now: 0,
            seq: 0,
            events: BinaryHeap::new(),
            links,
            in_service: (0..n_links).map(|_| None).collect(),
            flows,
            time_limit: to_nanos(spec.time_limit),
            processed: 0,
            buf: vec![0; 65536],
            zeros: vec![0; 65536],
        };
        for i in 0..spec.flows.len() {
            let start = to_nanos(spec.flows[i].start);
            sim.schedule(start, EventKind::Start { flow: i });
        }
        quiche::clock::set_rand_seed(Some(spec.seed));
        Ok(sim)
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

    /// Links a packet crosses, in order.
    fn route(&self, flow: usize, to_server: bool) -> [usize; 1] {
        if to_server {
            [1 + flow]
        } else {
            [0]
        }
    }

    /// Runs until every flow completed or the time limit.
    pub fn run(mut self) -> Result<SimResult> {
        let result = self.run_inner();
        quiche::clock::set_override(None);
        quiche::clock::set_rand_seed(None);
        result
    }

    fn run_inner(&mut self) -> Result<SimResult> {
        let mut timed_out = false;
        while let Some(ev) = self.events.pop() {
            if ev.time > self.time_limit {
                self.now = self.time_limit;
                timed_out = true;
                break;
            }
            self.now = ev.time;
            quiche::clock::set_override(Some(self.instant(self.now)));
            self.processed += 1;
            self.handle(ev.kind)?;
            if self.flows.iter().all(|f| f.done_at.is_some()) {
                break;
            }
        }
        if self.flows.iter().any(|f| f.done_at.is_none()) {
            timed_out = true;
        }
        for l in &mut self.links {
            l.finish(self.now);
        }
        let flows = self
            .flows
            .iter()
            .map(|f| {
                let stats = f.server.conn.as_ref().map(|c| c.stats());
                FlowResult {
                    algorithm: f.spec.cc.algorithm.name(),
                    bytes_delivered: f.received,
                    completion: f
                        .done_at
                        .map(|t| Duration::from_nanos(t - to_nanos(f.spec.start))),
                    retransmitted_bytes: stats.as_ref().map_or(0, |s| s.stream_retrans_bytes),
                    lost_packets: stats.as_ref().map_or(0, |s| s.lost as u64),
                    sent_packets: stats.as_ref().map_or(0, |s| s.sent as u64),
                    acked_bytes: stats.as_ref().map_or(0, |s| s.acked_bytes),
                    trace: f.trace.as_ref().map(|t| t.lock().unwrap().clone()),
                }
            })
            .collect();
        Ok(SimResult {
            flows,
            bottleneck: self.links[0].stats.clone(),
            sim_time: Duration::from_nanos(self.now),
            timed_out,
            events: self.processed,
        })
    }

    fn handle(&mut self, kind: EventKind) -> Result<()> {
        match kind {
            EventKind::Start { flow } => {
                let f = &mut self.flows[flow];
                let scid = conn_id(flow, false);
                let scid = quiche::ConnectionId::from_ref(&scid);
                let conn = quiche::connect(
                    Some("localhost"),
                    &scid,
                    f.client.addr,
                    f.server.addr,
                    &mut f.client_config,
                )?;
                f.client.conn = Some(conn);
                self.drive(flow, false)?;
            }
            EventKind::Arrive(packet) => self.arrive(packet)?,
            EventKind::TxDone { link } => {
                let packet = self.in_service[link]
                    .take()
                    .expect("a link in service has a packet");
                let delay = self.links[link].spec.delay_ns;
                self.schedule(
                    self.now + delay,
                    EventKind::Arrive(Packet {
                        hop: packet.hop + 1,
                        ..packet
                    }),
                );
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
                let ep = self.endpoint(flow, server);
                if ep.timer_generation == generation {
                    if let Some(conn) = ep.conn.as_mut() {
                        conn.on_timeout();
                    }
                    self.drive(flow, server)?;
                }
            }
            EventKind::Release { flow, server } => self.drive(flow, server)?,
        }
        Ok(())
    }

    fn endpoint(&mut self, flow: usize, server: bool) -> &mut Endpoint {
        let f = &mut self.flows[flow];
        if server {
            &mut f.server
        } else {
            &mut f.client
        }
    }

    /// A packet reaches its next hop, or its endpoint.
    fn arrive(&mut self, mut packet: Packet) -> Result<()> {
        let route = self.route(packet.flow, packet.to_server);
        if let Some(&link) = route.get(packet.hop) {
            let mut in_service = None;
            let action = self.links[link].enqueue(self.now, packet, &mut in_service);
            if let LinkAction::TxDoneAt(end) = action {
                self.in_service[link] = in_service;
                self.schedule(end, EventKind::TxDone { link });
            }
            return Ok(());
        }
        let (flow, server) = (packet.flow, packet.to_server);
        let f = &mut self.flows[flow];
        let (from, to) = if server {
            (f.client.addr, f.server.addr)
        } else {
            (f.server.addr, f.client.addr)
        };
        if server && f.server.conn.is_none() {
            let scid = conn_id(flow, true);
            let scid = quiche::ConnectionId::from_ref(&scid);
            f.server.conn = Some(quiche::accept(&scid, None, to, from, &mut f.server_config)?);
        }
        let ep = if server { &mut f.server } else { &mut f.client };
        if let Some(conn) = ep.conn.as_mut() {
            // A packet quiche cannot use is dropped, as on a real socket.
            let _ = conn.recv(&mut packet.data, quiche::RecvInfo { from, to });
        }
        self.drive(flow, server)
    }

    /// Application logic, then everything quiche wants to send now, then
    /// the endpoint's timer.
    fn drive(&mut self, flow: usize, server: bool) -> Result<()> {
        self.application(flow, server)?;
        let now = self.now;
        loop {
            let f = &mut self.flows[flow];
            let ep = if server { &mut f.server } else { &mut f.client };
            if let Some((_, at)) = &ep.held {
                if *at > now {
                    let at = *at;
                    self.schedule(at, EventKind::Release { flow, server });
                    break;
                }
                let (data, _) = ep.held.take().unwrap();
                self.transmit(flow, server, data)?;
                continue;
            }
            let Some(conn) = ep.conn.as_mut() else {
                break;
            };
            match conn.send(&mut self.buf) {
                Ok((len, info)) => {
                    let at = to_nanos(info.at.saturating_duration_since(self.base));
                    let data = self.buf[..len].to_vec();
                    if at > now {
                        self.endpoint(flow, server).held = Some((data, at));
                    } else {
                        self.transmit(flow, server, data)?;
                    }
                }
                Err(quiche::Error::Done) => break,
                Err(e) => return Err(e).context("quiche send"),
            }
        }
        let base = self.base;
        let ep = self.endpoint(flow, server);
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
            to_server: !server,
            hop: 0,
            data,
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
                    f.to_send = Some(f.spec.bytes);
                }
            }
            while let Some(remaining) = f.to_send.filter(|r| *r > 0) {
                let n = remaining.min(self.zeros.len() as u64) as usize;
                match conn.stream_send(STREAM_ID, &self.zeros[..n], n as u64 == remaining) {
                    Ok(written) => f.to_send = Some(remaining - written as u64),
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
                f.received += n as u64;
                if fin && f.done_at.is_none() {
                    f.done_at = Some(now);
                }
            }
        }
        Ok(())
    }
}

/// Runs `spec` to completion (or its time limit).
pub fn run(spec: &NetworkSpec) -> Result<SimResult> {
    Simulator::new(spec)?.run()
}
