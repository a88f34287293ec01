//! vegas-link-model: the bottleneck link model the quiche-vegas simulator
//! (`vegas-lab`'s `sim::link`, virtual time) and the link emulator
//! (`vegas-interop`'s `link`, real time) share: a link's parameters, its
//! random loss, the drop-tail queue and its log ([`DropTailQueue`]), and
//! trace-driven service ([`trace`]). Each side keeps only its clock,
//! serializer and statistics.
//!
//! Model: random loss, then a drop-tail FIFO in front of a serializer of
//! fixed rate (or a recorded trace of delivery opportunities,
//! [`crate::trace`], see [`Service`]), then a fixed one-way delay, and optionally aggregation at the
//! far end (packets released only at multiples of `aggregation_ns`, the "ACK
//! aggregation" knob when applied to the client-to-server direction).
//! Convention (ns-3's, and the Vegas paper's "buffer of B packets"): the
//! packet being serialized has left the queue; `buffer_pkts` counts packets
//! *waiting*. Serialization of L bytes takes L*8/rate; a packet on the wire
//! keeps the delay it started with.
//!
//! Queue log (one line per event, a text format close to mahimahi's):
//! `<time_ms> <event> <bytes> <queue_pkts> <flow>` where event is `+`
//! (enqueued, or straight into service), `-` (leaves the queue and starts
//! service), `d` (drop-tail drop), `l` (random loss); `queue_pkts` is the
//! number of packets waiting after the event. Lines starting with `#` are
//! comments.

use std::collections::VecDeque;
use std::io::Write;

use rand::Rng;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

pub mod trace;

use crate::trace::DeliveryTrace;
use crate::trace::TraceService;

/// Nanoseconds (virtual time in the simulator, time since start in the
/// emulator).
pub type Nanos = u64;

/// A link's parameters (all can change during a run).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LinkSpec {
    /// Serialization rate in bit/s.
    pub rate_bps: u64,
    /// One-way propagation delay.
    pub delay_ns: Nanos,
    /// Waiting room, in packets (the packet in service not counted).
    pub buffer_pkts: usize,
    /// Packet loss rate in [0, 1).
    pub loss: f64,
    /// Mean loss burst length in packets (1: independent losses; above 1, a
    /// Gilbert two-state model with stationary loss rate `loss`).
    pub loss_burst_pkts: f64,
    /// Far-end release every this many ns (ACK aggregation), 0 = off.
    pub aggregation_ns: Nanos,
}

impl LinkSpec {
    /// A lossless link without aggregation.
    pub fn new(rate_bps: u64, delay_ns: Nanos, buffer_pkts: usize) -> Self {
        LinkSpec {
            rate_bps,
            delay_ns,
            buffer_pkts,
            loss: 0.0,
            loss_burst_pkts: 1.0,
            aggregation_ns: 0,
        }
    }

    /// Time to serialize `bytes` at this link's rate, rounded up to 1 ns
    /// (saturating at `Nanos::MAX`, far beyond any real link).
    pub fn serialization_ns(&self, bytes: usize) -> Nanos {
        let bits = (bytes as u128).saturating_mul(8 * 1_000_000_000);
        Nanos::try_from(bits.div_ceil(self.rate_bps.max(1) as u128)).unwrap_or(Nanos::MAX)
    }

    /// When a packet that finished serialization at `tx_end` reaches the
    /// far end (saturating at `Nanos::MAX`: a delay or aggregation period
    /// too large for the clock means "never", not a wrap to the past).
    pub fn arrival_ns(&self, tx_end: Nanos) -> Nanos {
        let t = tx_end.saturating_add(self.delay_ns);
        if self.aggregation_ns == 0 {
            t
        } else {
            t.div_ceil(self.aggregation_ns)
                .saturating_mul(self.aggregation_ns)
        }
    }
}

/// How a link serves the packet at the head of its queue: a serializer of
/// the spec's fixed rate, or a recorded trace of delivery opportunities
/// ([`crate::trace`]).
#[derive(Clone, Debug, Default)]
pub enum Service {
    #[default]
    Rate,
    Trace(TraceService),
}

impl Service {
    /// A trace-driven service of `trace`.
    pub fn trace(trace: std::sync::Arc<DeliveryTrace>) -> Self {
        Service::Trace(TraceService::new(trace))
    }

    /// When a packet of `bytes` that reaches the head of the queue at
    /// `start` has left the link (its last bit serialized, or its last byte
    /// carried by an opportunity).
    pub fn finish_ns(&mut self, spec: &LinkSpec, start: Nanos, bytes: usize) -> Nanos {
        match self {
            Service::Rate => start.saturating_add(spec.serialization_ns(bytes)),
            Service::Trace(trace) => trace.finish_ns(start, bytes),
        }
    }

    /// The trace, for a trace-driven link.
    pub fn delivery_trace(&self) -> Option<&std::sync::Arc<DeliveryTrace>> {
        match self {
            Service::Rate => None,
            Service::Trace(t) => Some(t.trace()),
        }
    }
}

/// The resolution of [`DelayStats`]: 100 us.
pub const DELAY_BIN_NS: Nanos = 100_000;

/// Delays beyond this many bins share the last one (100 s: 8 MB of bins
/// at most).
const MAX_DELAY_BINS: usize = 1_000_000;

/// Per-packet delays through a link, counted per [`DELAY_BIN_NS`], for
/// their mean and quantiles.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DelayStats {
    per_bin_pkts: Vec<u64>,
    sum_ns: u128,
    packets: u64,
}

impl DelayStats {
    /// One packet took `delay_ns`.
    pub fn record(&mut self, delay_ns: Nanos) {
        let bin = ((delay_ns / DELAY_BIN_NS) as usize).min(MAX_DELAY_BINS - 1);
        if self.per_bin_pkts.len() <= bin {
            self.per_bin_pkts.resize(bin + 1, 0);
        }
        self.per_bin_pkts[bin] += 1;
        self.sum_ns += delay_ns as u128;
        self.packets += 1;
    }

    pub fn packets(&self) -> u64 {
        self.packets
    }

    /// The mean delay in ns (None: no packet).
    pub fn mean_ns(&self) -> Option<f64> {
        (self.packets > 0).then(|| self.sum_ns as f64 / self.packets as f64)
    }

    /// The delay at or below which a fraction `q` of the packets crossed,
    /// to the upper edge of its bin (None: no packet).
    pub fn quantile_ns(&self, q: f64) -> Option<Nanos> {
        let target = (self.packets as f64 * q).ceil().max(1.0) as u64;
        let mut acc = 0;
        for (bin, n) in self.per_bin_pkts.iter().enumerate() {
            acc += n;
            if acc >= target {
                return Some((bin as Nanos + 1) * DELAY_BIN_NS);
            }
        }
        None
    }
}

/// A link's random loss: independent, or a Gilbert two-state model whose
/// bad state lasts `loss_burst_pkts` packets on average and whose
/// stationary loss rate is `loss`. Seeded, so a run can be repeated.
#[derive(Clone, Debug)]
pub struct LossModel {
    rng: ChaCha8Rng,
    /// Gilbert model state: in the bad state packets are lost.
    bad_state: bool,
}

impl LossModel {
    pub fn new(seed: u64) -> Self {
        LossModel {
            rng: ChaCha8Rng::seed_from_u64(seed),
            bad_state: false,
        }
    }

    /// Whether the next packet is lost under `spec`'s loss parameters.
    pub fn lose(&mut self, spec: &LinkSpec) -> bool {
        let p = spec.loss;
        if p <= 0.0 {
            return false;
        }
        let burst = spec.loss_burst_pkts;
        if burst <= 1.0 {
            return self.rng.gen::<f64>() < p;
        }
        let leave_bad = 1.0 / burst;
        let enter_bad = p / (burst * (1.0 - p));
        let u: f64 = self.rng.gen();
        self.bad_state = if self.bad_state {
            u >= leave_bad
        } else {
            u < enter_bad
        };
        self.bad_state
    }
}

/// The header key of a queue log's wall-clock origin: `# wall_clock_origin
/// 2026-11-26T01:53:48.887149221Z` says which UTC instant `time_ms` 0 is
/// (RFC 3339), so that a real run's queue log and its qlogs (whose
/// `reference_time.wall_clock_time` is their time 0) share a time base.
pub const WALL_CLOCK_ORIGIN_KEY: &str = "wall_clock_origin";

/// The header line (without `# `) that records `origin` as time 0.
pub fn wall_clock_origin_line(origin: std::time::SystemTime) -> String {
    format!(
        "{WALL_CLOCK_ORIGIN_KEY} {}",
        humantime::format_rfc3339_nanos(origin)
    )
}

/// The wall-clock origin of a queue log's header line, if `line` is one
/// (`# ` and surrounding spaces allowed). An error names what is wrong
/// with the timestamp of a line that has the key.
pub fn parse_wall_clock_origin(line: &str) -> Option<Result<std::time::SystemTime, String>> {
    let rest = line
        .trim()
        .trim_start_matches('#')
        .trim_start()
        .strip_prefix(WALL_CLOCK_ORIGIN_KEY)?;
    let text = rest.trim();
    Some(humantime::parse_rfc3339(text).map_err(|e| {
        format!("{WALL_CLOCK_ORIGIN_KEY} `{text}`: {e} (want RFC 3339 UTC, e.g. 2026-11-26T01:53:48.887149221Z)")
    }))
}

/// A link's queue log (module documentation for the format).
pub struct QueueLog {
    out: Box<dyn Write + Send>,
}

impl QueueLog {
    /// Writes the header: `origin` (scenario, seed, version), if any, then
    /// the link's name, rate and buffer, then the column legend.
    pub fn new(
        mut out: Box<dyn Write + Send>,
        link_name: &str,
        spec: &LinkSpec,
        origin: Option<&str>,
    ) -> std::io::Result<Self> {
        if let Some(origin) = origin {
            writeln!(out, "# {origin}")?;
        }
        writeln!(
            out,
            "# queue log of link {link_name} ({} bit/s, buffer {} packets)",
            spec.rate_bps, spec.buffer_pkts
        )?;
        writeln!(
            out,
            "# time_ms event bytes queue_pkts flow   (+ enqueue, - start of service, d drop-tail, l random loss)"
        )?;
        Ok(QueueLog { out })
    }

    /// One event; `queue_pkts` counts the packets waiting after it. A
    /// failed write is ignored: the log is a by-product of the run.
    pub fn event(&mut self, now: Nanos, event: char, bytes: usize, queue_pkts: usize, flow: usize) {
        let _ = writeln!(
            self.out,
            "{:.6} {event} {bytes} {queue_pkts} {flow}",
            now as f64 / 1e6
        );
    }

    pub fn flush(&mut self) {
        let _ = self.out.flush();
    }
}

/// A datagram crossing a link: the flow it belongs to, its bytes, when it
/// reached the link it is on, and what the side that carries it needs to
/// route it (`()` for the emulator's single hop; the simulator's hop,
/// direction and send time).
#[derive(Clone, Debug)]
pub struct Packet<R> {
    /// The flow it belongs to (an index the carrying side assigns).
    pub flow: usize,
    /// The UDP payload.
    pub data: Vec<u8>,
    /// When it reached the link it is on (set by [`DropTailQueue::arrive`]).
    pub entered_ns: Nanos,
    /// The carrying side's routing state.
    pub route: R,
}

impl<R> Packet<R> {
    /// A packet of `flow` with `data`, not yet on a link (`entered_ns` is
    /// set when it arrives at one).
    pub fn new(flow: usize, data: Vec<u8>, route: R) -> Self {
        Packet {
            flow,
            data,
            entered_ns: 0,
            route,
        }
    }
}

/// What a link's queue did over a run: the counters both links keep,
/// counted in one place by [`DropTailQueue`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct QueueStats {
    /// Packets that reached the link (lost, dropped or accepted).
    pub arrived_pkts: u64,
    /// Random (packet error rate) losses.
    pub lost_pkts: u64,
    /// Drop-tail drops.
    pub dropped_pkts: u64,
    /// The longest the waiting queue has been.
    pub max_queue_pkts: usize,
    /// Integral of the waiting-queue length over time (packet * ns), up to
    /// the queue's last event or [`DropTailQueue::account_to`].
    pub queue_pkt_ns: u128,
}

impl QueueStats {
    /// Packets the link took (served at once or queued).
    pub fn accepted_pkts(&self) -> u64 {
        self.arrived_pkts - self.lost_pkts - self.dropped_pkts
    }

    /// Time-weighted mean waiting queue over `elapsed_ns`.
    pub fn mean_queue_pkts(&self, elapsed_ns: Nanos) -> f64 {
        self.queue_pkt_ns as f64 / elapsed_ns.max(1) as f64
    }
}

/// What [`DropTailQueue::arrive`] did with a packet.
#[derive(Debug)]
pub enum Arrival<P> {
    /// Random loss: the packet is gone.
    Lost,
    /// The queue was full: the packet is gone.
    Dropped,
    /// The serializer was idle: the packet starts service now.
    Serve(P),
    /// The packet waits.
    Queued,
}

/// Random loss, then a drop-tail FIFO, with the queue log: the part of the
/// model both links run the same way. Each link keeps its own clock,
/// serializer and statistics around it.
pub struct DropTailQueue<R> {
    waiting: VecDeque<Packet<R>>,
    loss: LossModel,
    log: Option<QueueLog>,
    stats: QueueStats,
    /// The time `stats.queue_pkt_ns` is integrated up to.
    accounted_to_ns: Nanos,
}

impl<R> DropTailQueue<R> {
    /// `seed` drives the random losses.
    pub fn new(seed: u64) -> Self {
        DropTailQueue {
            waiting: VecDeque::new(),
            loss: LossModel::new(seed),
            log: None,
            stats: QueueStats::default(),
            accounted_to_ns: 0,
        }
    }

    /// The counters so far.
    pub fn stats(&self) -> &QueueStats {
        &self.stats
    }

    /// Integrates the waiting queue up to `now` (a link calls it at the end
    /// of a run; every arrival and service start does it too). Time never
    /// goes back here: an earlier `now` counts as the last one.
    pub fn account_to(&mut self, now: Nanos) {
        let now = now.max(self.accounted_to_ns);
        let dt = (now - self.accounted_to_ns) as u128;
        self.stats.queue_pkt_ns = self
            .stats
            .queue_pkt_ns
            .saturating_add(dt * self.waiting.len() as u128);
        self.accounted_to_ns = now;
    }

    pub fn set_log(&mut self, log: QueueLog) {
        self.log = Some(log);
    }

    pub fn flush_log(&mut self) {
        if let Some(log) = &mut self.log {
            log.flush();
        }
    }

    /// Packets waiting (the one in service not counted).
    pub fn len(&self) -> usize {
        self.waiting.len()
    }

    pub fn is_empty(&self) -> bool {
        self.waiting.is_empty()
    }

    fn log(&mut self, now: Nanos, event: char, packet: &Packet<R>) {
        if let Some(log) = &mut self.log {
            log.event(
                now,
                event,
                packet.data.len(),
                self.waiting.len(),
                packet.flow,
            );
        }
    }

    /// A packet arrives at `now` under `spec` (its `entered_ns` becomes
    /// `now`); `serializer_idle`: nothing is in service, so a packet that
    /// survives random loss starts at once.
    pub fn arrive(
        &mut self,
        now: Nanos,
        mut packet: Packet<R>,
        spec: &LinkSpec,
        serializer_idle: bool,
    ) -> Arrival<Packet<R>> {
        self.account_to(now);
        packet.entered_ns = now;
        self.stats.arrived_pkts += 1;
        if self.loss.lose(spec) {
            self.log(now, 'l', &packet);
            self.stats.lost_pkts += 1;
            return Arrival::Lost;
        }
        if serializer_idle {
            debug_assert!(self.waiting.is_empty());
            self.log(now, '+', &packet);
            self.log(now, '-', &packet);
            return Arrival::Serve(packet);
        }
        if self.waiting.len() >= spec.buffer_pkts {
            self.log(now, 'd', &packet);
            self.stats.dropped_pkts += 1;
            return Arrival::Dropped;
        }
        self.waiting.push_back(packet);
        self.stats.max_queue_pkts = self.stats.max_queue_pkts.max(self.waiting.len());
        if let Some(log) = &mut self.log {
            let packet = self.waiting.back().expect("just queued");
            log.event(now, '+', packet.data.len(), self.waiting.len(), packet.flow);
        }
        Arrival::Queued
    }

    /// The serializer is free at `now`: the next waiting packet starts
    /// service.
    pub fn start_next(&mut self, now: Nanos) -> Option<Packet<R>> {
        self.account_to(now);
        let next = self.waiting.pop_front()?;
        self.log(now, '-', &next);
        Some(next)
    }
}

/// A queue log kept in memory (for tests and tools that read a log back):
/// every clone writes into the same buffer.
#[derive(Clone, Default)]
pub struct MemoryLog(pub std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

impl MemoryLog {
    /// What has been written so far, as text.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().expect("not poisoned")).into_owned()
    }
}

impl Write for MemoryLog {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().expect("not poisoned").extend_from_slice(b);
        Ok(b.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serialization_time_is_size_over_rate() {
        let spec = LinkSpec::new(1_600_000, 0, 10);
        // 1000 bytes at 200 KB/s = 5 ms.
        assert_eq!(spec.serialization_ns(1000), 5_000_000);
        // Rounded up to whole nanoseconds: 1 byte at 3 bit/s.
        assert_eq!(LinkSpec::new(3, 0, 1).serialization_ns(1), 2_666_666_667);
    }

    #[test]
    fn aggregation_releases_on_interval_boundaries() {
        let mut spec = LinkSpec::new(8_000_000, 5_000_000, 10);
        assert_eq!(spec.arrival_ns(1), 5_000_001);
        spec.aggregation_ns = 20_000_000;
        assert_eq!(spec.arrival_ns(1), 20_000_000);
        assert_eq!(spec.arrival_ns(15_000_000), 20_000_000);
        assert_eq!(spec.arrival_ns(15_000_001), 40_000_000);
    }

    #[test]
    fn huge_times_saturate_instead_of_wrapping() {
        let mut spec = LinkSpec::new(1, u64::MAX, 1);
        assert_eq!(spec.arrival_ns(5), u64::MAX);
        spec.delay_ns = 0;
        spec.aggregation_ns = u64::MAX - 1;
        assert_eq!(spec.arrival_ns(u64::MAX), u64::MAX);
        assert_eq!(spec.serialization_ns(usize::MAX), u64::MAX);
    }

    fn losses(seed: u64, loss: f64, burst: f64, n: usize) -> Vec<bool> {
        let mut spec = LinkSpec::new(1, 0, 1);
        spec.loss = loss;
        spec.loss_burst_pkts = burst;
        let mut model = LossModel::new(seed);
        (0..n).map(|_| model.lose(&spec)).collect()
    }

    #[test]
    fn loss_is_seeded_and_near_its_rate() {
        assert_eq!(losses(7, 0.2, 1.0, 1000), losses(7, 0.2, 1.0, 1000));
        assert_ne!(losses(7, 0.2, 1.0, 1000), losses(8, 0.2, 1.0, 1000));
        let lost = losses(7, 0.2, 1.0, 10_000).iter().filter(|&&l| l).count();
        assert!((1800..2200).contains(&lost), "{lost}");
        assert!(!losses(7, 0.0, 1.0, 1000).contains(&true));
    }

    #[test]
    fn gilbert_losses_come_in_bursts_of_the_mean_length() {
        let lost = losses(3, 0.05, 4.0, 200_000);
        let total = lost.iter().filter(|&&l| l).count() as f64;
        let bursts = lost.windows(2).filter(|w| !w[0] && w[1]).count() as f64;
        let rate = total / lost.len() as f64;
        assert!((0.045..0.055).contains(&rate), "rate {rate}");
        let mean_burst = total / bursts;
        assert!((3.6..4.4).contains(&mean_burst), "mean burst {mean_burst}");
    }

    fn test_packet(len: usize, flow: usize) -> Packet<()> {
        Packet::new(flow, vec![0; len], ())
    }

    #[test]
    fn wall_clock_origin_lines_round_trip_and_bad_ones_say_why() {
        let origin = std::time::UNIX_EPOCH + std::time::Duration::new(1_795_658_028, 5);
        let line = format!("# {}", wall_clock_origin_line(origin));
        assert_eq!(line, "# wall_clock_origin 2026-11-26T01:53:48.000000005Z");
        assert_eq!(parse_wall_clock_origin(&line), Some(Ok(origin)));
        assert_eq!(parse_wall_clock_origin("# queue log of link down"), None);
        let bad = parse_wall_clock_origin("# wall_clock_origin yesterday");
        let message = bad.unwrap().unwrap_err();
        assert!(
            message.contains("`yesterday`") && message.contains("RFC 3339"),
            "{message}"
        );
    }

    #[test]
    fn drop_tail_serves_an_idle_link_drops_beyond_the_buffer_in_fifo_order_and_counts_once() {
        let spec = LinkSpec::new(8_000, 0, 2);
        let out = MemoryLog::default();
        let mut queue = DropTailQueue::new(1);
        let log = QueueLog::new(Box::new(out.clone()), "l", &spec, None).unwrap();
        queue.set_log(log);
        assert!(matches!(
            queue.arrive(0, test_packet(100, 0), &spec, true),
            Arrival::Serve(p) if p.data.len() == 100 && p.flow == 0
        ));
        for (len, expected_queued) in [(101, true), (102, true), (103, false)] {
            let arrival = queue.arrive(1_000_000, test_packet(len, 1), &spec, false);
            assert_eq!(matches!(arrival, Arrival::Queued), expected_queued, "{len}");
        }
        assert_eq!(queue.len(), 2);
        assert_eq!(queue.start_next(2_000_000).map(|p| p.data.len()), Some(101));
        assert_eq!(queue.start_next(3_000_000).map(|p| p.data.len()), Some(102));
        assert!(queue.start_next(4_000_000).is_none() && queue.is_empty());
        // Counted once, here: 4 arrived, 1 dropped; 2 waited from 1 to 2 ms
        // and 1 from 2 to 3 ms.
        let stats = queue.stats();
        assert_eq!(
            (stats.arrived_pkts, stats.dropped_pkts, stats.lost_pkts),
            (4, 1, 0)
        );
        assert_eq!(stats.accepted_pkts(), 3);
        assert_eq!(stats.max_queue_pkts, 2);
        assert_eq!(stats.queue_pkt_ns, 3_000_000);
        queue.account_to(10_000_000);
        assert_eq!(queue.stats().queue_pkt_ns, 3_000_000);
        let text = out.text();
        let events: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
        assert_eq!(
            events,
            [
                "0.000000 + 100 0 0",
                "0.000000 - 100 0 0",
                "1.000000 + 101 1 1",
                "1.000000 + 102 2 1",
                "1.000000 d 103 2 1",
                "2.000000 - 101 1 1",
                "3.000000 - 102 0 1",
            ]
        );
    }
}
