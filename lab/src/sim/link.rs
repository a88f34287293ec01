//! A one-way link in virtual time: the model of `vegas_link_model`
//! (random loss, then a drop-tail FIFO in front of a serializer of fixed
//! rate, then a fixed propagation delay, and optionally ACK aggregation at
//! the far end), shared with the UDP emulator. Rate, delay and loss can
//! change during a run; a packet already on the wire keeps the delay it
//! started with. The simulator's event loop ([`super::net`]) schedules
//! the ends of serialization this module returns.

use std::io::BufWriter;

use vegas_link_model::Arrival;
pub use vegas_link_model::DelayStats;
use vegas_link_model::DropTailQueue;
pub use vegas_link_model::LinkSpec;
use vegas_link_model::QueueLog;
use vegas_link_model::QueueStats;
use vegas_link_model::Service;

use super::Nanos;

/// A packet on its way through the network: the link model's packet (its
/// flow is the flow's index) with where it is on its route.
pub type Packet = vegas_link_model::Packet<Route>;

/// Where a packet is on its way.
#[derive(Clone, Copy, Debug)]
pub struct Route {
    /// True from client to server.
    pub to_server: bool,
    /// Position in its route (index of the link it is on).
    pub hop: usize,
    /// When its sender put it on the wire.
    pub sent_at: Nanos,
}

/// What a link did over a run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LinkStats {
    /// What the queue did: arrivals, random losses, drop-tail drops, the
    /// longest queue and its time integral (counted by the model's
    /// [`DropTailQueue`]; set by [`Link::finish`], [`Link::queue_stats`]
    /// during a run).
    pub queue: QueueStats,
    pub sent_bytes: u64,
    /// Time the serializer was busy.
    pub busy_ns: Nanos,
    /// Time spent at each queue length (index = packets waiting).
    pub queue_time_ns: Vec<u128>,
    /// From when the steady-state figures below count.
    pub steady_from_ns: Nanos,
    /// Serializer busy time after `steady_from_ns`.
    pub steady_busy_ns: Nanos,
    /// Queue integral after `steady_from_ns` (packet * ns).
    pub steady_queue_pkt_ns: u128,
    /// Serializer busy time started in each [`BUSY_BIN_NS`] of the run (8
    /// bytes per 100 ms), for the time to reach a utilization.
    pub busy_per_bin_ns: Vec<Nanos>,
    /// The waiting-queue integral (packet * ns) of each [`BUSY_BIN_NS`].
    pub queue_per_bin_pkt_ns: Vec<u128>,
    /// Per-packet delay through the link (from reaching it to reaching its
    /// far end: waiting, service and propagation).
    pub delay: DelayStats,
    /// A trace-driven link: the bytes its trace offered over the run (set
    /// by [`Link::finish`]).
    pub trace_capacity_bytes: Option<u64>,
}

/// The resolution of [`LinkStats::busy_per_bin_ns`].
pub const BUSY_BIN_NS: Nanos = 100_000_000;

impl LinkStats {
    /// Time-weighted mean queue over `elapsed_ns`.
    pub fn mean_queue_pkts(&self, elapsed_ns: Nanos) -> f64 {
        self.queue.mean_queue_pkts(elapsed_ns)
    }

    /// The end of the first window of `window_bins` bins (sliding by one
    /// bin) whose utilization is at least `fraction`, in ns from the start
    /// of the run; None if none reached it.
    pub fn time_to_utilization_ns(&self, fraction: f64, window_bins: usize) -> Option<Nanos> {
        let need = fraction * (window_bins as Nanos * BUSY_BIN_NS) as f64;
        let mut sum: Nanos = 0;
        for (i, busy) in self.busy_per_bin_ns.iter().enumerate() {
            sum += busy;
            if i >= window_bins {
                sum -= self.busy_per_bin_ns[i - window_bins];
            }
            if i + 1 >= window_bins && sum as f64 >= need {
                return Some((i as Nanos + 1) * BUSY_BIN_NS);
            }
        }
        None
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
    queue: DropTailQueue<Route>,
    /// A fixed-rate serializer or a trace of delivery opportunities.
    service: Service,
    /// Whether a packet is being serialized.
    busy: bool,
    /// When `queue.len()` last changed (for the time integrals).
    last_change_ns: Nanos,
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
            queue: DropTailQueue::new(seed),
            service: Service::Rate,
            busy: false,
            last_change_ns: 0,
            stats: LinkStats {
                queue_time_ns: vec![0; spec.buffer_pkts.min(100_000) + 1],
                ..LinkStats::default()
            },
        }
    }

    /// Serves the queue with `service` instead of the spec's fixed rate
    /// (a trace-driven link), from the start.
    pub fn with_service(mut self, service: Service) -> Self {
        self.service = service;
        self
    }

    /// The trace that serves this link, if it is trace-driven.
    pub fn delivery_trace(
        &self,
    ) -> Option<&std::sync::Arc<vegas_link_model::trace::DeliveryTrace>> {
        self.service.delivery_trace()
    }

    /// Writes the queue log to `file`; `origin` (scenario, seed, version)
    /// goes into its header.
    pub fn set_log(&mut self, file: std::fs::File, origin: &str) -> std::io::Result<()> {
        let out = Box::new(BufWriter::new(file));
        self.queue
            .set_log(QueueLog::new(out, &self.name, &self.spec, Some(origin))?);
        Ok(())
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
        let mut t = self.last_change_ns;
        while t < now && len > 0 {
            let bin = (t / BUSY_BIN_NS) as usize;
            let end = ((bin as Nanos + 1) * BUSY_BIN_NS).min(now);
            if self.stats.queue_per_bin_pkt_ns.len() <= bin {
                self.stats.queue_per_bin_pkt_ns.resize(bin + 1, 0);
            }
            self.stats.queue_per_bin_pkt_ns[bin] += (end - t) as u128 * len as u128;
            t = end;
        }
        let slot = len.min(self.stats.queue_time_ns.len() - 1);
        self.stats.queue_time_ns[slot] += dt;
        self.last_change_ns = now;
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
        if let Arrival::Serve(packet) = self.queue.arrive(now, packet, &self.spec, !self.busy) {
            self.busy = true;
            let tx = self.start_service(packet.data.len());
            *in_service = Some(packet);
            return LinkAction::TxDoneAt(now.saturating_add(tx));
        }
        LinkAction::None
    }

    /// What the queue has done so far (the run's total is in
    /// [`LinkStats::queue`] after [`Link::finish`]).
    pub fn queue_stats(&self) -> &QueueStats {
        self.queue.stats()
    }

    /// The packet of `bytes` at the head starts service now (`account` set
    /// `last_change_ns` to now): how long until it has left the link.
    fn start_service(&mut self, bytes: usize) -> Nanos {
        let now = self.last_change_ns;
        let tx = self.service.finish_ns(&self.spec, now, bytes) - now;
        self.stats.busy_ns += tx;
        // `account` set `last_change_ns` to now.
        let bin = (self.last_change_ns / BUSY_BIN_NS) as usize;
        if self.stats.busy_per_bin_ns.len() <= bin {
            self.stats.busy_per_bin_ns.resize(bin + 1, 0);
        }
        self.stats.busy_per_bin_ns[bin] += tx;
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
        match self.queue.start_next(now) {
            Some(next) => {
                let tx = self.start_service(next.data.len());
                Some((next, now.saturating_add(tx)))
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
        self.queue.account_to(now);
        self.stats.queue = self.queue.stats().clone();
        self.stats.trace_capacity_bytes = self.delivery_trace().map(|t| t.capacity_bytes(now));
        self.queue.flush_log();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pkt(len: usize) -> Packet {
        let route = Route {
            to_server: true,
            hop: 0,
            sent_at: 0,
        };
        Packet::new(0, vec![0; len], route)
    }

    #[test]
    fn time_to_utilization_is_the_end_of_the_first_window_that_reaches_it() {
        let ms = 1_000_000;
        let stats = LinkStats {
            // 50%, 80%, then 100% per 100 ms bin.
            busy_per_bin_ns: vec![50 * ms, 80 * ms, 100 * ms, 100 * ms, 100 * ms],
            ..LinkStats::default()
        };
        // Windows of 2 bins: 65%, 90% (ends at 300 ms), ...
        assert_eq!(stats.time_to_utilization_ns(0.9, 2), Some(300 * ms));
        assert_eq!(stats.time_to_utilization_ns(0.95, 2), Some(400 * ms));
        assert_eq!(stats.time_to_utilization_ns(0.9, 10), None);
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
        assert_eq!(link.queue_stats().dropped_pkts, 1);
        let (_, end) = link.tx_done(1_000_000).unwrap();
        assert_eq!(end, 2_000_000);
        assert_eq!(link.queue_len(), 1);
        // Queue integral: 2 packets for 1 ms.
        assert_eq!(link.queue_stats().queue_pkt_ns, 2 * 1_000_000);
        assert_eq!(link.stats.queue_time_ns[2], 1_000_000);
        assert_eq!(link.stats.queue_quantile_pkts(0.95), 2);
    }

    #[test]
    fn a_random_loss_is_counted_and_never_queued() {
        let mut spec = LinkSpec::new(1_000_000_000, 0, 1_000_000);
        spec.loss = 0.5;
        let mut link = Link::new("l", spec, 7);
        for _ in 0..1000 {
            let mut s = None;
            link.enqueue(0, pkt(100), &mut s);
        }
        let lost = link.queue_stats().lost_pkts;
        assert!((400..600).contains(&lost), "{lost}");
        // The rest went into service (one) or waits.
        assert_eq!(link.queue_stats().accepted_pkts(), 1000 - lost);
        assert_eq!(link.queue_len() as u64, 1000 - lost - 1);
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
                delivered.push((p.route.sent_at, link.spec.arrival_ns(end)));
                tx_end = link.tx_done(end).map(|(next, e)| {
                    in_service = Some(next);
                    e
                });
                continue;
            }
            let mut packet = pkt(len);
            packet.route.sent_at = next_arrival;
            let mut s = None;
            if let LinkAction::TxDoneAt(end) = link.enqueue(next_arrival, packet, &mut s) {
                in_service = s;
                tx_end = Some(end);
            }
            sent += 1;
            next_arrival += gap;
        }
        (delivered, link.queue_stats().dropped_pkts)
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
        assert_eq!(link.queue_stats().max_queue_pkts, 0);
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
        assert_eq!(link.queue_stats().max_queue_pkts, buffer);
    }

    #[test]
    fn a_trace_driven_link_delivers_the_traces_bytes_over_each_repetition() {
        use std::sync::Arc;
        use vegas_link_model::trace::DeliveryTrace;
        // A generated cellular-like trace: 2 s, bursts of up to 4
        // opportunities per ms, a 300 ms outage, mean about 5 Mbit/s.
        let text: String = (1..=2000u64)
            .flat_map(|ms| {
                let n = if (700..1000).contains(&ms) {
                    0
                } else {
                    (ms * 7 % 11) / 4
                };
                std::iter::repeat_n(ms, n as usize)
            })
            .chain([2000])
            .map(|ms| format!("{ms}\n"))
            .collect();
        let trace = Arc::new(DeliveryTrace::parse(text.as_bytes(), "generated").unwrap());
        let period_ns = trace.period_ms() * 1_000_000;
        let offered_per_repetition = trace.opportunities() as u64 * 1500;
        let spec = LinkSpec::new(trace.mean_rate_bps(), 0, 1_000_000);
        let mut link = Link::new("l", spec, 1).with_service(Service::trace(trace.clone()));
        // 1200-byte packets offered at twice the mean rate for 3 periods.
        let n = 3 * period_ns * 2 * trace.mean_rate_bps() / (1200 * 8 * 1_000_000_000);
        let (delivered, drops) = cbr(&mut link, 2 * trace.mean_rate_bps(), 1200, n);
        assert_eq!(drops, 0);
        for repetition in 1..3 {
            let window = repetition * period_ns..(repetition + 1) * period_ns;
            let bytes = delivered
                .iter()
                .filter(|(_, at)| window.contains(at))
                .count() as u64
                * 1200;
            let error = (bytes as f64 / offered_per_repetition as f64 - 1.0).abs();
            assert!(
                error < 0.005,
                "repetition {repetition}: {bytes} of {offered_per_repetition}"
            );
        }
        // Nothing is delivered during the outage (after its first
        // opportunity-free millisecond).
        let outage = period_ns + 701_000_000..period_ns + 1_000_000_000;
        assert!(!delivered.iter().any(|(_, at)| outage.contains(at)));
        link.finish(3 * period_ns);
        assert_eq!(
            link.stats.trace_capacity_bytes,
            Some(trace.capacity_bytes(3 * period_ns))
        );
    }

    #[test]
    fn per_packet_delay_counts_waiting_service_and_propagation() {
        // 1000-byte packets back to back into a 8 Mbit/s, 5 ms link: the
        // k-th waits k ms, is served 1 ms and propagates 5 ms.
        let mut link = Link::new("l", LinkSpec::new(8_000_000, 5_000_000, 10), 1);
        let (delivered, _) = cbr(&mut link, 80_000_000, 1000, 10);
        for (sent, arrived) in &delivered {
            link.stats.delay.record(arrived - sent);
        }
        // Packet k arrives at 0.1 k ms and is delivered at (k + 1) ms + 5
        // ms: 6 + 0.9 k ms.
        let mean = link.stats.delay.mean_ns().unwrap() / 1e6;
        assert!((mean - (5.0 + 1.0 + 4.5 * 0.9)).abs() < 1e-6, "{mean}");
        // The 95th percentile is the last packet's bin: 14.1 ms -> 14.2.
        assert_eq!(link.stats.delay.quantile_ns(0.95), Some(14_200_000));
        assert_eq!(DelayStats::default().quantile_ns(0.95), None);
    }
}
