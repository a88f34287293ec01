//! A one-way link: random loss, then a drop-tail FIFO in front of a
//! serializer of fixed rate, then a fixed propagation delay, and optionally
//! ACK aggregation at the far end.
//!
//! Convention (ns-3's, and the Vegas paper's "buffer of B packets"): the
//! packet being serialized has left the queue; the queue holds up to
//! `buffer_pkts` packets *waiting*. A packet arriving to a full queue is
//! dropped. Serialization of an L-byte packet takes L*8/rate. Rate, delay and
//! loss can change during a run; a packet already on the wire keeps the
//! delay it started with.
//!
//! Queue log (one line per event, a text format close to mahimahi's):
//! `<time_ms> <event> <bytes> <queue_pkts> <flow>` where event is `+`
//! (enqueued, or straight into service), `-` (leaves the queue and starts
//! service), `d` (drop-tail drop), `l` (random loss); `queue_pkts` is the
//! number of packets waiting after the event. Lines starting with `#` are
//! comments.

use std::collections::VecDeque;
use std::io::BufWriter;
use std::io::Write;

use rand::Rng;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::Nanos;

/// A link's parameters (those that can change during a run).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LinkSpec {
    /// Serialization rate in bit/s.
    pub rate_bps: u64,
    /// One-way propagation delay.
    pub delay_ns: Nanos,
    /// Waiting room, in packets (the packet in service not counted).
    pub buffer_pkts: usize,
    /// Packet error rate in [0, 1).
    pub loss: f64,
    /// Mean loss burst length in packets (1: independent losses).
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

    /// Time to serialize `bytes` at this link's rate, rounded up to 1 ns.
    pub fn serialization_ns(&self, bytes: usize) -> Nanos {
        let bits = bytes as u128 * 8 * 1_000_000_000;
        bits.div_ceil(self.rate_bps as u128) as Nanos
    }

    /// When a packet that finished serialization at `tx_end` reaches the
    /// far end.
    pub fn arrival_ns(&self, tx_end: Nanos) -> Nanos {
        let t = tx_end + self.delay_ns;
        if self.aggregation_ns == 0 {
            t
        } else {
            t.div_ceil(self.aggregation_ns) * self.aggregation_ns
        }
    }
}

/// A packet on its way through the network.
#[derive(Debug)]
pub struct Packet {
    /// Index of the flow it belongs to.
    pub flow: usize,
    /// True from client to server.
    pub to_server: bool,
    /// Position in its route (index of the link it is on).
    pub hop: usize,
    /// When its sender put it on the wire.
    pub sent_at: Nanos,
    pub data: Vec<u8>,
}

/// What a link did over a run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LinkStats {
    pub enqueued_pkts: u64,
    /// Drop-tail drops.
    pub dropped_pkts: u64,
    /// Random (packet error rate) losses.
    pub lost_pkts: u64,
    pub sent_bytes: u64,
    /// Time the serializer was busy.
    pub busy_ns: Nanos,
    /// Integral of the waiting-queue length over time (packet * ns).
    pub queue_pkt_ns: u128,
    pub max_queue_pkts: usize,
    /// Time spent at each queue length (index = packets waiting).
    pub queue_time_ns: Vec<u128>,
    /// From when the steady-state figures below count.
    pub steady_from_ns: Nanos,
    /// Serializer busy time after `steady_from_ns`.
    pub steady_busy_ns: Nanos,
    /// Queue integral after `steady_from_ns` (packet * ns).
    pub steady_queue_pkt_ns: u128,
}

impl LinkStats {
    /// Time-weighted mean queue over `elapsed_ns`.
    pub fn mean_queue_pkts(&self, elapsed_ns: Nanos) -> f64 {
        self.queue_pkt_ns as f64 / elapsed_ns.max(1) as f64
    }

    /// Utilization and mean queue after `steady_from_ns`, over a run that
    /// ended at `end_ns` (None when the run ended before).
    pub fn steady(&self, end_ns: Nanos) -> Option<(f64, f64)> {
        let span = end_ns.checked_sub(self.steady_from_ns).filter(|s| *s > 0)? as f64;
        Some((
            (self.steady_busy_ns as f64 / span).min(1.0),
            self.steady_queue_pkt_ns as f64 / span,
        ))
    }

    /// Smallest queue length the link spent at least `q` of its time at or
    /// below (time-weighted quantile).
    pub fn queue_quantile_pkts(&self, q: f64) -> usize {
        let total: u128 = self.queue_time_ns.iter().sum();
        if total == 0 {
            return 0;
        }
        let target = (total as f64 * q).ceil() as u128;
        let mut acc = 0;
        for (len, t) in self.queue_time_ns.iter().enumerate() {
            acc += t;
            if acc >= target {
                return len;
            }
        }
        self.queue_time_ns.len() - 1
    }
}

/// One link's state.
pub struct Link {
    pub name: String,
    pub spec: LinkSpec,
    queue: VecDeque<Packet>,
    /// Whether a packet is being serialized.
    busy: bool,
    /// When `queue.len()` last changed (for the time integrals).
    last_change_ns: Nanos,
    /// Gilbert loss model state: in the bad state packets are lost.
    loss_bad_state: bool,
    rng: ChaCha8Rng,
    log: Option<BufWriter<std::fs::File>>,
    pub stats: LinkStats,
}

/// What the simulator must schedule after a link operation.
#[derive(Debug)]
pub enum LinkAction {
    /// Nothing to schedule (the packet waits, or was dropped).
    None,
    /// Serialization of a packet ends at this time.
    TxDoneAt(Nanos),
}

impl Link {
    /// `seed` drives this link's random losses.
    pub fn new(name: impl Into<String>, spec: LinkSpec, seed: u64) -> Self {
        Link {
            name: name.into(),
            spec,
            queue: VecDeque::new(),
            busy: false,
            last_change_ns: 0,
            loss_bad_state: false,
            rng: ChaCha8Rng::seed_from_u64(seed),
            log: None,
            stats: LinkStats {
                queue_time_ns: vec![0; spec.buffer_pkts.min(100_000) + 1],
                ..LinkStats::default()
            },
        }
    }

    /// Writes the queue log to `file`; `origin` (scenario, seed, version)
    /// goes into its header.
    pub fn set_log(&mut self, file: std::fs::File, origin: &str) -> std::io::Result<()> {
        let mut w = BufWriter::new(file);
        writeln!(w, "# {origin}")?;
        writeln!(
            w,
            "# queue log of link {} ({} bit/s, buffer {} packets)",
            self.name, self.spec.rate_bps, self.spec.buffer_pkts
        )?;
        writeln!(
            w,
            "# time_ms event bytes queue_pkts flow   (+ enqueue, - start of service, d drop-tail, l random loss)"
        )?;
        self.log = Some(w);
        Ok(())
    }

    fn log(&mut self, now: Nanos, event: char, bytes: usize, flow: usize) {
        if let Some(w) = &mut self.log {
            let _ = writeln!(
                w,
                "{:.6} {event} {bytes} {} {flow}",
                now as f64 / 1e6,
                self.queue.len()
            );
        }
    }

    /// Packets waiting (not counting the one in service).
    pub fn queue_len(&self) -> usize {
        self.queue.len()
    }

    fn account(&mut self, now: Nanos) {
        let dt = now.saturating_sub(self.last_change_ns) as u128;
        let len = self.queue.len();
        let steady_dt = now.saturating_sub(self.last_change_ns.max(self.stats.steady_from_ns));
        self.stats.steady_queue_pkt_ns += steady_dt as u128 * len as u128;
        self.stats.queue_pkt_ns += dt * len as u128;
        let slot = len.min(self.stats.queue_time_ns.len() - 1);
        self.stats.queue_time_ns[slot] += dt;
        self.last_change_ns = now;
    }

    /// Random loss: independent, or a Gilbert two-state model whose bad
    /// state lasts `loss_burst_pkts` packets on average and whose
    /// stationary loss rate is `loss`.
    fn random_loss(&mut self) -> bool {
        let p = self.spec.loss;
        if p <= 0.0 {
            return false;
        }
        let burst = self.spec.loss_burst_pkts;
        if burst <= 1.0 {
            return self.rng.gen::<f64>() < p;
        }
        let leave_bad = 1.0 / burst;
        let enter_bad = p / (burst * (1.0 - p));
        let u: f64 = self.rng.gen();
        self.loss_bad_state = if self.loss_bad_state {
            u >= leave_bad
        } else {
            u < enter_bad
        };
        self.loss_bad_state
    }

    /// A packet arrives at the link. If the serializer is idle it starts at
    /// once (the packet is put in `in_service`), otherwise it waits or is
    /// dropped.
    pub fn enqueue(
        &mut self,
        now: Nanos,
        packet: Packet,
        in_service: &mut Option<Packet>,
    ) -> LinkAction {
        self.account(now);
        let (bytes, flow) = (packet.data.len(), packet.flow);
        if self.random_loss() {
            self.stats.lost_pkts += 1;
            self.log(now, 'l', bytes, flow);
            return LinkAction::None;
        }
        if !self.busy {
            debug_assert!(self.queue.is_empty());
            self.busy = true;
            self.stats.enqueued_pkts += 1;
            let tx = self.start_service(bytes);
            self.log(now, '+', bytes, flow);
            self.log(now, '-', bytes, flow);
            *in_service = Some(packet);
            return LinkAction::TxDoneAt(now + tx);
        }
        if self.queue.len() >= self.spec.buffer_pkts {
            self.stats.dropped_pkts += 1;
            self.log(now, 'd', bytes, flow);
            return LinkAction::None;
        }
        self.stats.enqueued_pkts += 1;
        self.queue.push_back(packet);
        self.stats.max_queue_pkts = self.stats.max_queue_pkts.max(self.queue.len());
        self.log(now, '+', bytes, flow);
        LinkAction::None
    }

    fn start_service(&mut self, bytes: usize) -> Nanos {
        let tx = self.spec.serialization_ns(bytes);
        self.stats.busy_ns += tx;
        if self.last_change_ns >= self.stats.steady_from_ns {
            self.stats.steady_busy_ns += tx;
        }
        self.stats.sent_bytes += bytes as u64;
        tx
    }

    /// The serializer finished a packet: the next waiting one (if any)
    /// starts; returns it with its own end of serialization.
    pub fn tx_done(&mut self, now: Nanos) -> Option<(Packet, Nanos)> {
        self.account(now);
        match self.queue.pop_front() {
            Some(next) => {
                let tx = self.start_service(next.data.len());
                self.log(now, '-', next.data.len(), next.flow);
                Some((next, now + tx))
            }
            None => {
                self.busy = false;
                None
            }
        }
    }

    /// Closes the time integrals at the end of a run and flushes the log.
    pub fn finish(&mut self, now: Nanos) {
        self.account(now);
        if let Some(w) = &mut self.log {
            let _ = w.flush();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pkt(len: usize) -> Packet {
        Packet {
            flow: 0,
            to_server: true,
            hop: 0,
            sent_at: 0,
            data: vec![0; len],
        }
    }

    #[test]
    fn serialization_time_is_size_over_rate() {
        let spec = LinkSpec::new(1_600_000, 0, 10);
        // 1000 bytes at 200 KB/s = 5 ms.
        assert_eq!(spec.serialization_ns(1000), 5_000_000);
    }

    #[test]
    fn drop_tail_counts_waiting_packets_only() {
        let mut link = Link::new("l", LinkSpec::new(8_000_000, 0, 2), 1);
        let mut in_service = None;
        // First packet goes straight into service.
        assert!(matches!(
            link.enqueue(0, pkt(1000), &mut in_service),
            LinkAction::TxDoneAt(1_000_000)
        ));
        assert!(in_service.is_some());
        // Two wait, the fourth is dropped.
        for _ in 0..3 {
            let mut s = None;
            link.enqueue(0, pkt(1000), &mut s);
            assert!(s.is_none());
        }
        assert_eq!(link.queue_len(), 2);
        assert_eq!(link.stats.dropped_pkts, 1);
        let (_, end) = link.tx_done(1_000_000).unwrap();
        assert_eq!(end, 2_000_000);
        assert_eq!(link.queue_len(), 1);
        // Queue integral: 2 packets for 1 ms.
        assert_eq!(link.stats.queue_pkt_ns, 2 * 1_000_000);
        assert_eq!(link.stats.queue_time_ns[2], 1_000_000);
        assert_eq!(link.stats.queue_quantile_pkts(0.95), 2);
    }

    #[test]
    fn aggregation_releases_on_interval_boundaries() {
        let mut spec = LinkSpec::new(8_000_000, 5_000_000, 10);
        spec.aggregation_ns = 20_000_000;
        assert_eq!(spec.arrival_ns(1), 20_000_000);
        assert_eq!(spec.arrival_ns(15_000_000), 20_000_000);
        assert_eq!(spec.arrival_ns(15_000_001), 40_000_000);
    }

    fn loss_run(loss: f64, burst: f64, seed: u64) -> (u64, f64) {
        let mut spec = LinkSpec::new(1_000_000_000, 0, 1_000_000);
        spec.loss = loss;
        spec.loss_burst_pkts = burst;
        let mut link = Link::new("l", spec, seed);
        let n = 200_000;
        let mut lost = 0u64;
        let mut runs = 0u64;
        let mut prev_lost = false;
        for _ in 0..n {
            let mut s = None;
            let before = link.stats.lost_pkts;
            link.enqueue(0, pkt(100), &mut s);
            let l = link.stats.lost_pkts > before;
            if l {
                lost += 1;
                if !prev_lost {
                    runs += 1;
                }
            }
            prev_lost = l;
        }
        (lost, lost as f64 / runs.max(1) as f64)
    }

    #[test]
    fn random_loss_matches_rate_and_burst_length() {
        let (lost, burst) = loss_run(0.01, 1.0, 7);
        assert!((lost as f64 / 200_000.0 - 0.01).abs() < 0.002, "{lost}");
        assert!(burst < 1.1, "{burst}");
        let (lost, burst) = loss_run(0.01, 4.0, 7);
        assert!((lost as f64 / 200_000.0 - 0.01).abs() < 0.003, "{lost}");
        assert!((burst - 4.0).abs() < 0.6, "{burst}");
        // Same seed, same losses; another seed, other losses.
        assert_eq!(loss_run(0.01, 1.0, 7).0, loss_run(0.01, 1.0, 7).0);
        assert_ne!(loss_run(0.01, 1.0, 7).0, loss_run(0.01, 1.0, 8).0);
    }

    /// Feeds `n` packets of `len` bytes at a constant bit rate into a link
    /// and returns (delivery times, drops) with a minimal event loop.
    fn cbr(link: &mut Link, rate_in_bps: u64, len: usize, n: u64) -> (Vec<(Nanos, Nanos)>, u64) {
        let gap = len as u64 * 8 * 1_000_000_000 / rate_in_bps;
        let mut delivered = Vec::new();
        let mut in_service: Option<Packet> = None;
        let mut tx_end: Option<Nanos> = None;
        let mut next_arrival = 0;
        let mut sent = 0;
        while sent < n || tx_end.is_some() {
            // Serialization ends before (or with) the next arrival go first.
            if let Some(end) = tx_end.filter(|e| sent == n || *e <= next_arrival) {
                let p = in_service.take().unwrap();
                delivered.push((p.sent_at, link.spec.arrival_ns(end)));
                tx_end = link.tx_done(end).map(|(next, e)| {
                    in_service = Some(next);
                    e
                });
                continue;
            }
            let mut packet = pkt(len);
            packet.sent_at = next_arrival;
            let mut s = None;
            if let LinkAction::TxDoneAt(end) = link.enqueue(next_arrival, packet, &mut s) {
                in_service = s;
                tx_end = Some(end);
            }
            sent += 1;
            next_arrival += gap;
        }
        (delivered, link.stats.dropped_pkts)
    }

    #[test]
    fn cbr_below_capacity_sees_only_serialization_and_propagation() {
        // 1000-byte packets at 5 Mbit/s into a 10 Mbit/s, 10 ms link.
        let mut link = Link::new("l", LinkSpec::new(10_000_000, 10_000_000, 5), 1);
        let (delivered, drops) = cbr(&mut link, 5_000_000, 1000, 1000);
        assert_eq!(drops, 0);
        assert_eq!(delivered.len(), 1000);
        // L/mu = 0.8 ms, plus 10 ms propagation, for every packet.
        for (sent, arrived) in &delivered {
            assert_eq!(arrived - sent, 800_000 + 10_000_000);
        }
        assert_eq!(link.stats.max_queue_pkts, 0);
    }

    #[test]
    fn cbr_above_capacity_is_cut_to_link_rate_with_a_full_queue() {
        // 1000-byte packets at 20 Mbit/s into a 10 Mbit/s link, B = 10.
        let buffer = 10;
        let mut link = Link::new("l", LinkSpec::new(10_000_000, 0, buffer), 1);
        let n = 10_000;
        let (delivered, drops) = cbr(&mut link, 20_000_000, 1000, n);
        assert_eq!(delivered.len() as u64 + drops, n);
        // Output rate = mu: 0.8 ms per packet back to back.
        let span = delivered.last().unwrap().1 - delivered[100].1;
        let rate_bps = (delivered.len() - 101) as f64 * 8000.0 / (span as f64 / 1e9);
        assert!((rate_bps - 10e6).abs() < 1e3, "{rate_bps}");
        // Half the offered packets are dropped (20 in, 10 out).
        assert!((drops as f64 / n as f64 - 0.5).abs() < 0.01, "{drops}");
        // Steady state: B packets wait ahead of each accepted packet, so the
        // delay is (B + 1) * L / mu; the queue oscillates between B - 1 and B.
        let (sent, arrived) = delivered[delivered.len() / 2];
        let expected = (buffer as u64 + 1) * 800_000;
        assert!(arrived - sent <= expected && arrived - sent >= expected - 800_000);
        assert_eq!(link.stats.max_queue_pkts, buffer);
    }
}
