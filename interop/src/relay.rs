//! The UDP relay around two [`Link`]s: client-facing ports, one server-side
//! socket per client (flow), a receiver thread and a scheduler thread.
//!
//! ```text
//! client A ─┐                  ┌─ up link ───► [socket of flow 0] ─► server of route
//! client B ─┼► listen port(s) ─┤                [socket of flow 1] ─►
//!           └◄──────────────── └◄─ down link ◄─ (replies)
//! ```
//!
//! Every client address seen on a route's listen port is a flow: it gets
//! its own socket towards that route's server (so the server sees one
//! address per client) and its index in the queue log. All flows of all
//! routes share the same up link and the same down link: that is the
//! shared bottleneck, also for flows towards different servers.
//!
//! The receiver thread (mio) stamps each datagram with the time it was read
//! and hands it to the scheduler over a channel. The scheduler sleeps until
//! the next event (a channel wait with a timeout, timer slack set to 1 us)
//! and, with `spin_ns`, busy-waits the last stretch. How late each datagram
//! left compared with its scheduled time is recorded: [`Precision`].

use std::collections::HashMap;
use std::io::ErrorKind;
use std::net::SocketAddr;
use std::net::UdpSocket;
use std::sync::atomic::AtomicBool;
use std::sync::atomic::Ordering;
use std::sync::mpsc;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;
use std::time::Instant;
use std::time::SystemTime;

use crate::limits;
use crate::link::Link;
use crate::link::LinkSpec;
use crate::link::LinkStats;
use crate::link::Nanos;
use crate::link::Packet;
use crate::sockets;
use crate::sockets::SocketBuffers;
use vegas_link_model::trace::DeliveryTrace;
use vegas_link_model::Service;

/// A client-facing port and the server it relays to.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Route {
    pub listen: SocketAddr,
    pub server: SocketAddr,
}

/// Which link a scheduled change applies to.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Direction {
    /// Server to client (the data direction of a download).
    Down,
    /// Client to server (requests and ACKs).
    Up,
    Both,
}

/// A parameter change.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Change {
    RateBps(u64),
    DelayNs(Nanos),
    BufferPkts(usize),
    Loss(f64),
}

/// A change applied at `at_ns` after the start.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Step {
    pub at_ns: Nanos,
    pub direction: Direction,
    pub change: Change,
}

impl std::str::FromStr for Step {
    type Err = String;

    /// `T_MS:DIR:KEY=VALUE`, DIR `down|up|both`, KEY `rate_mbit`,
    /// `delay_ms`, `buffer_pkts` or `loss`; e.g. `5000:down:delay_ms=40`.
    /// Times and values have the command line's bounds
    /// ([`crate::limits`]); errors name the part that is wrong.
    fn from_str(text: &str) -> Result<Step, String> {
        let bad = |what: String| format!("bad step `{text}`: {what}");
        let usage = || {
            bad("want T_MS:down|up|both:KEY=VALUE with KEY rate_mbit, delay_ms, buffer_pkts or loss, \
                 e.g. 5000:down:delay_ms=40"
                .into())
        };
        let mut parts = text.splitn(3, ':');
        let (Some(t), Some(dir), Some(kv)) = (parts.next(), parts.next(), parts.next()) else {
            return Err(usage());
        };
        let at_ms = limits::number(t).map_err(|e| bad(format!("time T_MS: {e}")))?;
        let at_ns = limits::step_at_ns(at_ms).map_err(bad)?;
        let direction = match dir {
            "down" => Direction::Down,
            "up" => Direction::Up,
            "both" => Direction::Both,
            _ => return Err(bad(format!("direction `{dir}`: want down, up or both"))),
        };
        let (key, value) = kv.split_once('=').ok_or_else(usage)?;
        let change = match key {
            "rate_mbit" => Change::RateBps(
                limits::number(value)
                    .and_then(limits::rate_bps)
                    .map_err(bad)?,
            ),
            "delay_ms" => Change::DelayNs(
                limits::number(value)
                    .and_then(limits::delay_ns)
                    .map_err(bad)?,
            ),
            "buffer_pkts" => Change::BufferPkts(limits::parse_buffer_pkts(value).map_err(bad)?),
            "loss" => Change::Loss(limits::number(value).and_then(limits::loss).map_err(bad)?),
            _ => {
                return Err(bad(format!(
                    "key `{key}`: want rate_mbit, delay_ms, buffer_pkts or loss"
                )))
            }
        };
        Ok(Step {
            at_ns,
            direction,
            change,
        })
    }
}

impl Step {
    /// Checks the change against the bounds of [`crate::limits`] (a step
    /// built in code rather than parsed), and a loss rate against the mean
    /// loss burst of each link it applies to.
    pub fn check(&self, down: &LinkSpec, up: &LinkSpec) -> Result<(), String> {
        let max_at_ns = (limits::MAX_STEP_AT_MS * 1e6) as Nanos;
        if self.at_ns > max_at_ns {
            return Err(format!(
                "step at {} ns: must be at most {max_at_ns}",
                self.at_ns
            ));
        }
        for (spec, applies) in [
            (down, self.direction != Direction::Up),
            (up, self.direction != Direction::Down),
        ] {
            if applies {
                let mut after = *spec;
                apply(&mut after, self.change);
                limits::check_spec(&after)?;
            }
        }
        Ok(())
    }
}

/// Everything the emulator needs to start.
pub struct Config {
    pub routes: Vec<Route>,
    pub down: LinkSpec,
    pub up: LinkSpec,
    pub seed: u64,
    pub steps: Vec<Step>,
    pub down_log: Option<Box<dyn std::io::Write + Send>>,
    pub up_log: Option<Box<dyn std::io::Write + Send>>,
    /// Busy-wait this long before an event instead of sleeping (0: never).
    pub spin_ns: Nanos,
    /// A trace of delivery opportunities that serves the down link instead
    /// of its rate ([`vegas_link_model::trace`]); its `rate_bps` is then only
    /// reported (the trace's mean).
    pub down_trace: Option<Arc<DeliveryTrace>>,
    /// The same for the up link.
    pub up_trace: Option<Arc<DeliveryTrace>>,
    /// Receive and send buffer asked for every socket, in bytes; 0 leaves
    /// the system's defaults ([`crate::sockets`]).
    pub socket_buffer_bytes: usize,
}

/// How late datagrams left the emulator compared with their scheduled
/// times (the scheduler's wake-up error; the link's own arithmetic is
/// exact).
#[derive(Clone, Debug, Default)]
pub struct Precision {
    pub samples: usize,
    pub mean_ns: f64,
    pub p50_ns: u64,
    pub p99_ns: u64,
    pub p999_ns: u64,
    pub max_ns: u64,
}

impl Precision {
    fn from_samples(mut v: Vec<u32>) -> Precision {
        if v.is_empty() {
            return Precision::default();
        }
        v.sort_unstable();
        let at = |q: f64| v[((v.len() - 1) as f64 * q).round() as usize] as u64;
        Precision {
            samples: v.len(),
            mean_ns: v.iter().map(|&x| x as f64).sum::<f64>() / v.len() as f64,
            p50_ns: at(0.5),
            p99_ns: at(0.99),
            p999_ns: at(0.999),
            max_ns: *v.last().unwrap() as u64,
        }
    }
}

/// A flow: one client address on one route.
#[derive(Clone, Debug)]
pub struct FlowInfo {
    pub route: usize,
    pub client: SocketAddr,
}

/// What a run did.
#[derive(Clone, Debug)]
pub struct Report {
    pub down: LinkStats,
    pub up: LinkStats,
    pub precision: Precision,
    pub flows: Vec<FlowInfo>,
    pub duration: Duration,
    /// What the kernel granted the client-facing sockets.
    pub socket_buffers: Option<SocketBuffers>,
    /// UDP datagrams this machine dropped at full receive buffers during
    /// the run, all sockets of all processes (emulator, server and client
    /// alike); `None` where the kernel does not say.
    pub machine_receive_buffer_drops: Option<u64>,
}

impl std::fmt::Display for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let secs = self.duration.as_secs_f64().max(1e-9);
        for (name, s) in [("down", &self.down), ("up", &self.up)] {
            writeln!(
                f,
                "{name}: {} packets in, {} delivered, {} dropped (tail), {} lost (random), \
                 max queue {} pkts, mean queue {:.2} pkts, delay mean {:.1} ms p95 {:.1} ms",
                s.queue.arrived_pkts,
                s.delivered_pkts,
                s.queue.dropped_pkts,
                s.queue.lost_pkts,
                s.queue.max_queue_pkts,
                s.queue.queue_pkt_ns as f64 / (secs * 1e9),
                s.delay.mean_ns().unwrap_or(0.0) / 1e6,
                s.delay.quantile_ns(0.95).unwrap_or(0) as f64 / 1e6
            )?;
        }
        let total: u64 = self.down.flow_bytes.iter().sum();
        for (i, flow) in self.flows.iter().enumerate() {
            let bytes = self.down.flow_bytes.get(i).copied().unwrap_or(0);
            writeln!(
                f,
                "flow {i} (route {}, client {}): down {bytes} bytes, {:.3} Mbit/s, share {:.1}%",
                flow.route,
                flow.client,
                bytes as f64 * 8.0 / secs / 1e6,
                if total > 0 {
                    100.0 * bytes as f64 / total as f64
                } else {
                    0.0
                }
            )?;
        }
        if let Some(b) = self.socket_buffers {
            writeln!(
                f,
                "sockets: receive buffer {} KiB, send buffer {} KiB (as the kernel reports them)",
                b.receive_bytes / 1024,
                b.send_bytes / 1024
            )?;
        }
        if let Some(drops) = self.machine_receive_buffer_drops {
            writeln!(
                f,
                "machine: {drops} UDP datagrams dropped at full socket receive buffers during the \
                 run (all processes; /proc/net/snmp RcvbufErrors)"
            )?;
        }
        let p = &self.precision;
        write!(
            f,
            "timing: {} datagrams, lateness mean {:.1} us, p50 {:.1} us, p99 {:.1} us, \
             p99.9 {:.1} us, max {:.1} us",
            p.samples,
            p.mean_ns / 1e3,
            p.p50_ns as f64 / 1e3,
            p.p99_ns as f64 / 1e3,
            p.p999_ns as f64 / 1e3,
            p.max_ns as f64 / 1e3
        )
    }
}

enum Msg {
    NewFlow {
        route: usize,
        client: SocketAddr,
        upstream: UdpSocket,
    },
    Datagram {
        up: bool,
        flow: usize,
        at_ns: Nanos,
        data: Vec<u8>,
    },
}

/// A running emulator; [`Emulator::stop`] ends it and returns the report.
pub struct Emulator {
    listen_addrs: Vec<SocketAddr>,
    stop: Arc<AtomicBool>,
    receiver: Option<JoinHandle<()>>,
    scheduler: Option<JoinHandle<Report>>,
    socket_buffers: Option<SocketBuffers>,
    receive_buffer_drops_at_start: Option<u64>,
}

const MAX_PRECISION_SAMPLES: usize = 10_000_000;

impl Emulator {
    /// Binds every route's listen port and starts the threads.
    pub fn start(mut config: Config) -> Result<Emulator, String> {
        if config.routes.is_empty() {
            return Err("no route: give at least one LISTEN=SERVER".into());
        }
        for (name, trace, spec, direction) in [
            (
                "down",
                &config.down_trace,
                &mut config.down,
                Direction::Down,
            ),
            ("up", &config.up_trace, &mut config.up, Direction::Up),
        ] {
            let Some(trace) = trace else { continue };
            let min_bps = (limits::MIN_RATE_MBIT * 1e6) as u64;
            spec.rate_bps = trace.mean_rate_bps().max(min_bps);
            if let Some(step) = config.steps.iter().find(|s| {
                matches!(s.change, Change::RateBps(_))
                    && (s.direction == direction || s.direction == Direction::Both)
            }) {
                return Err(format!(
                    "step {step:?}: the {name} link is trace-driven ({}): its rate is the \
                     trace's and cannot step",
                    trace.name
                ));
            }
        }
        limits::check_spec(&config.down).map_err(|e| format!("down link: {e}"))?;
        limits::check_spec(&config.up).map_err(|e| format!("up link: {e}"))?;
        for step in &config.steps {
            step.check(&config.down, &config.up)
                .map_err(|e| format!("step {step:?}: {e}"))?;
        }
        if config.spin_ns > limits::MAX_SPIN_US * 1000 {
            return Err(format!(
                "busy-wait {} ns: must be at most {} us",
                config.spin_ns,
                limits::MAX_SPIN_US
            ));
        }
        let mut listeners = Vec::new();
        let mut socket_buffers = None;
        for r in &config.routes {
            let s = UdpSocket::bind(r.listen)
                .map_err(|e| format!("cannot listen on {}: {e}", r.listen))?;
            s.set_nonblocking(true).map_err(|e| e.to_string())?;
            socket_buffers = Some(sockets::enlarge(&s, config.socket_buffer_bytes).map_err(
                |e| {
                    format!(
                        "cannot size the buffers of the socket on {} to {} bytes: {e}",
                        r.listen, config.socket_buffer_bytes
                    )
                },
            )?);
            listeners.push(s);
        }
        let listen_addrs: Vec<SocketAddr> = listeners
            .iter()
            .map(|s| s.local_addr())
            .collect::<Result<_, _>>()
            .map_err(|e| format!("cannot read a bound listen address: {e}"))?;
        if let Some(r) = config
            .routes
            .iter()
            .find(|r| listen_addrs.contains(&r.server))
        {
            return Err(format!(
                "route {} -> {}: the server is one of the emulator's own listen addresses, \
                 the relay would send to itself",
                r.listen, r.server
            ));
        }
        let servers: Vec<SocketAddr> = config.routes.iter().map(|r| r.server).collect();
        let scheduler_side: Vec<UdpSocket> = listeners
            .iter()
            .map(|s| s.try_clone())
            .collect::<Result<_, _>>()
            .map_err(|e| e.to_string())?;
        let stop = Arc::new(AtomicBool::new(false));
        let (tx, rx) = mpsc::channel();
        // The queue logs' time 0, as an instant and as UTC (read together).
        let start = Instant::now();
        let wall_clock_start = SystemTime::now();
        let receive_buffer_drops_at_start = sockets::machine_receive_buffer_drops();
        let socket_buffer_bytes = config.socket_buffer_bytes;
        let receiver = {
            let stop = stop.clone();
            std::thread::Builder::new()
                .name("emu-recv".into())
                .spawn(move || receive(listeners, servers, socket_buffer_bytes, tx, stop, start))
                .map_err(|e| e.to_string())?
        };
        let scheduler = {
            let stop = stop.clone();
            std::thread::Builder::new()
                .name("emu-sched".into())
                .spawn(move || {
                    schedule(config, scheduler_side, rx, stop, (start, wall_clock_start))
                })
                .map_err(|e| e.to_string())?
        };
        Ok(Emulator {
            listen_addrs,
            stop,
            receiver: Some(receiver),
            scheduler: Some(scheduler),
            socket_buffers,
            receive_buffer_drops_at_start,
        })
    }

    /// The bound client-facing addresses, one per route.
    pub fn listen_addrs(&self) -> &[SocketAddr] {
        &self.listen_addrs
    }

    /// Stops both threads and returns what happened.
    pub fn stop(mut self) -> Report {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(r) = self.receiver.take() {
            let _ = r.join();
        }
        let mut report = self
            .scheduler
            .take()
            .and_then(|s| s.join().ok())
            .expect("scheduler thread");
        report.socket_buffers = self.socket_buffers;
        report.machine_receive_buffer_drops = self
            .receive_buffer_drops_at_start
            .zip(sockets::machine_receive_buffer_drops())
            .map(|(start, end)| end.saturating_sub(start));
        report
    }
}

impl Drop for Emulator {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
    }
}

fn since(start: Instant) -> Nanos {
    Nanos::try_from(start.elapsed().as_nanos()).unwrap_or(Nanos::MAX)
}

fn receive(
    listeners: Vec<UdpSocket>,
    servers: Vec<SocketAddr>,
    socket_buffer_bytes: usize,
    tx: mpsc::Sender<Msg>,
    stop: Arc<AtomicBool>,
    start: Instant,
) {
    let Ok(mut poll) = mio::Poll::new() else {
        return;
    };
    let mut listen: Vec<mio::net::UdpSocket> = listeners
        .into_iter()
        .map(mio::net::UdpSocket::from_std)
        .collect();
    for (i, s) in listen.iter_mut().enumerate() {
        let _ = poll
            .registry()
            .register(s, mio::Token(i), mio::Interest::READABLE);
    }
    let flow_token_base = listen.len();
    let mut flows: HashMap<(usize, SocketAddr), usize> = HashMap::new();
    let mut upstream: Vec<mio::net::UdpSocket> = Vec::new();
    let mut events = mio::Events::with_capacity(256);
    let mut buf = vec![0u8; 65536];
    while !stop.load(Ordering::Relaxed) {
        if poll
            .poll(&mut events, Some(Duration::from_millis(50)))
            .is_err()
        {
            continue;
        }
        for ev in events.iter() {
            let token = ev.token().0;
            if token < flow_token_base {
                let route = token;
                loop {
                    let (len, from) = match listen[route].recv_from(&mut buf) {
                        Ok(v) => v,
                        Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                        Err(_) => continue,
                    };
                    let at_ns = since(start);
                    let flow = match flows.get(&(route, from)) {
                        Some(&f) => f,
                        None => {
                            let Some(sock) = open_upstream(servers[route], socket_buffer_bytes)
                            else {
                                continue;
                            };
                            let Ok(clone) = sock.try_clone() else {
                                continue;
                            };
                            let flow = upstream.len();
                            let mut m = mio::net::UdpSocket::from_std(sock);
                            let _ = poll.registry().register(
                                &mut m,
                                mio::Token(flow_token_base + flow),
                                mio::Interest::READABLE,
                            );
                            upstream.push(m);
                            flows.insert((route, from), flow);
                            let _ = tx.send(Msg::NewFlow {
                                route,
                                client: from,
                                upstream: clone,
                            });
                            flow
                        }
                    };
                    let data = buf[..len].to_vec();
                    let _ = tx.send(Msg::Datagram {
                        up: true,
                        flow,
                        at_ns,
                        data,
                    });
                }
            } else {
                let flow = token - flow_token_base;
                loop {
                    let len = match upstream[flow].recv(&mut buf) {
                        Ok(v) => v,
                        Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                        // E.g. ECONNREFUSED: the server is not there (yet).
                        Err(_) => continue,
                    };
                    let at_ns = since(start);
                    let _ = tx.send(Msg::Datagram {
                        up: false,
                        flow,
                        at_ns,
                        data: buf[..len].to_vec(),
                    });
                }
            }
        }
    }
}

fn open_upstream(server: SocketAddr, socket_buffer_bytes: usize) -> Option<UdpSocket> {
    let bind: SocketAddr = if server.is_ipv4() {
        "127.0.0.1:0".parse().ok()?
    } else {
        "[::1]:0".parse().ok()?
    };
    let s = UdpSocket::bind(bind).ok()?;
    s.connect(server).ok()?;
    s.set_nonblocking(true).ok()?;
    sockets::enlarge(&s, socket_buffer_bytes).ok()?;
    Some(s)
}

/// Makes the kernel wake this thread within about 1 us of the requested
/// time instead of the default 50 us timer slack.
fn tighten_timer_slack() {
    #[cfg(target_os = "linux")]
    // SAFETY: prctl(PR_SET_TIMERSLACK) only changes this thread's slack.
    unsafe {
        libc::prctl(libc::PR_SET_TIMERSLACK, 1000 as libc::c_ulong, 0, 0, 0);
    }
}

struct FlowOut {
    route: usize,
    client: SocketAddr,
    upstream: UdpSocket,
}

fn apply(spec: &mut LinkSpec, change: Change) {
    match change {
        Change::RateBps(v) => spec.rate_bps = v,
        Change::DelayNs(v) => spec.delay_ns = v,
        Change::BufferPkts(v) => spec.buffer_pkts = v,
        Change::Loss(v) => spec.loss = v,
    }
}

fn schedule(
    mut config: Config,
    listeners: Vec<UdpSocket>,
    rx: mpsc::Receiver<Msg>,
    stop: Arc<AtomicBool>,
    (start, wall_clock_start): (Instant, SystemTime),
) -> Report {
    tighten_timer_slack();
    let service =
        |trace: &Option<Arc<DeliveryTrace>>| trace.clone().map_or(Service::Rate, Service::trace);
    let mut down =
        Link::new("down", config.down, config.seed).with_service(service(&config.down_trace));
    let mut up = Link::new("up", config.up, config.seed.wrapping_add(1))
        .with_service(service(&config.up_trace));
    if let Some(w) = config.down_log.take() {
        let _ = down.set_log(w, wall_clock_start);
    }
    if let Some(w) = config.up_log.take() {
        let _ = up.set_log(w, wall_clock_start);
    }
    config.steps.sort_by_key(|s| s.at_ns);
    let mut steps = config.steps.into_iter().peekable();
    let mut flows: Vec<FlowOut> = Vec::new();
    let mut lateness: Vec<u32> = Vec::new();
    let mut last_flush = 0;
    let idle_wake_ns: Nanos = 50_000_000;

    while !stop.load(Ordering::Relaxed) {
        let now = since(start);
        while let Some(step) = steps.next_if(|s| s.at_ns <= now) {
            for (link, applies) in [
                (&mut down, step.direction != Direction::Up),
                (&mut up, step.direction != Direction::Down),
            ] {
                if applies {
                    link.advance(step.at_ns);
                    let mut spec = link.spec();
                    apply(&mut spec, step.change);
                    link.set_spec(spec);
                }
            }
        }
        for (link, is_up) in [(&mut down, false), (&mut up, true)] {
            link.advance(now);
            while let Some((due, p)) = link.pop_delivery(now) {
                let Some(flow) = flows.get(p.flow) else {
                    continue;
                };
                let sent = if is_up {
                    flow.upstream.send(&p.data)
                } else {
                    listeners[flow.route].send_to(&p.data, flow.client)
                };
                if sent.is_ok() && lateness.len() < MAX_PRECISION_SAMPLES {
                    let late = since(start).saturating_sub(due);
                    lateness.push(late.min(u32::MAX as u64) as u32);
                }
            }
        }
        if now.saturating_sub(last_flush) > 200_000_000 {
            down.flush_log();
            up.flush_log();
            last_flush = now;
        }

        let mut next = now.saturating_add(idle_wake_ns);
        for t in [
            down.next_event_ns(),
            up.next_event_ns(),
            steps.peek().map(|s| s.at_ns),
        ]
        .into_iter()
        .flatten()
        {
            next = next.min(t);
        }
        let mut msg = None;
        let wait_ns = next.saturating_sub(since(start));
        if wait_ns > config.spin_ns {
            match rx.recv_timeout(Duration::from_nanos(wait_ns - config.spin_ns)) {
                Ok(m) => msg = Some(m),
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            }
        }
        if msg.is_none() && config.spin_ns > 0 {
            while since(start) < next {
                match rx.try_recv() {
                    Ok(m) => {
                        msg = Some(m);
                        break;
                    }
                    Err(mpsc::TryRecvError::Empty) => std::hint::spin_loop(),
                    Err(mpsc::TryRecvError::Disconnected) => break,
                }
            }
        }
        let mut next_msg = msg;
        while let Some(m) = next_msg {
            match m {
                Msg::NewFlow {
                    route,
                    client,
                    upstream,
                } => flows.push(FlowOut {
                    route,
                    client,
                    upstream,
                }),
                Msg::Datagram {
                    up: is_up,
                    flow,
                    at_ns,
                    data,
                } => {
                    let link = if is_up { &mut up } else { &mut down };
                    link.advance(at_ns);
                    link.enqueue(at_ns, Packet::new(flow, data, ()));
                }
            }
            next_msg = rx.try_recv().ok();
        }
    }
    let duration = start.elapsed();
    down.advance(since(start));
    up.advance(since(start));
    down.flush_log();
    up.flush_log();
    Report {
        down: down.stats(),
        up: up.stats(),
        precision: Precision::from_samples(lateness),
        flows: flows
            .iter()
            .map(|f| FlowInfo {
                route: f.route,
                client: f.client,
            })
            .collect(),
        duration,
        socket_buffers: None,
        machine_receive_buffer_drops: None,
    }
}
