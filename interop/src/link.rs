//! One direction of the emulated bottleneck, in real time: the model of
//! [`vegas_link_model`] (random loss, drop-tail FIFO, serializer, delay,
//! aggregation), shared with the simulator's `lab/src/sim/link.rs`. Packets
//! never overtake each other here (after a delay decrease a packet leaves
//! no earlier than the one before it).
//!
//! Time is nanoseconds since the emulator started. Each step uses the
//! *scheduled* time of the event it handles (the end of serialization of
//! the previous packet, not the moment the thread woke up), so lateness of
//! the scheduler never accumulates into the link's rate. The queue log has
//! the simulator's format ([`vegas_link_model::QueueLog`]). Times add up
//! saturating: with the bounds of [`crate::limits`] they stay far below
//! `Nanos::MAX`, and a caller that goes beyond gets "never", not a wrap.

use std::collections::VecDeque;
use std::io::Write;

use vegas_link_model::Arrival;
use vegas_link_model::DelayStats;
use vegas_link_model::DropTailQueue;
pub use vegas_link_model::LinkSpec;
pub use vegas_link_model::Nanos;
use vegas_link_model::QueueLog;
use vegas_link_model::QueueStats;
use vegas_link_model::Service;

/// A datagram crossing the link: the model's packet, whose flow is the
/// client address's index; one hop, so no routing state.
pub type Packet = vegas_link_model::Packet<()>;

/// Counters of one link.
#[derive(Clone, Debug, Default)]
pub struct LinkStats {
    /// What the queue did: arrivals, random losses, drop-tail drops, the
    /// longest queue and its time integral (counted by the model's
    /// [`DropTailQueue`]; copied here by [`Link::stats`]).
    pub queue: QueueStats,
    pub delivered_pkts: u64,
    /// Delivered bytes per flow.
    pub flow_bytes: Vec<u64>,
    /// Per-packet delay from reaching the link to its scheduled arrival at
    /// the far end (waiting, service, propagation; the scheduler's own
    /// lateness, [`crate::relay::Precision`], not included).
    pub delay: DelayStats,
}

/// One direction of the bottleneck.
pub struct Link {
    pub name: String,
    spec: LinkSpec,
    queue: DropTailQueue<()>,
    service: Service,
    in_service: Option<(Packet, Nanos)>,
    wire: VecDeque<(Nanos, Packet)>,
    last_event_ns: Nanos,
    last_deliver_ns: Nanos,
    delivered_pkts: u64,
    /// Delivered bytes per flow.
    flow_bytes: Vec<u64>,
    delay: DelayStats,
}

impl Link {
    pub fn new(name: &str, spec: LinkSpec, seed: u64) -> Self {
        Link {
            name: name.to_string(),
            spec,
            queue: DropTailQueue::new(seed),
            service: Service::Rate,
            in_service: None,
            wire: VecDeque::new(),
            last_event_ns: 0,
            last_deliver_ns: 0,
            delivered_pkts: 0,
            flow_bytes: Vec::new(),
            delay: DelayStats::default(),
        }
    }

    /// What the link has done so far.
    pub fn stats(&self) -> LinkStats {
        LinkStats {
            queue: self.queue.stats().clone(),
            delivered_pkts: self.delivered_pkts,
            flow_bytes: self.flow_bytes.clone(),
            delay: self.delay.clone(),
        }
    }

    /// Serves the queue with `service` instead of the spec's fixed rate
    /// (a trace-driven link), from the start.
    pub fn with_service(mut self, service: Service) -> Self {
        self.service = service;
        self
    }

    pub fn spec(&self) -> LinkSpec {
        self.spec
    }

    /// New parameters from now on (the packet in service and those on the
    /// wire keep theirs).
    pub fn set_spec(&mut self, spec: LinkSpec) {
        self.spec = spec;
    }

    /// Writes the queue log to `w` (header lines first), with
    /// `wall_clock_origin` (the UTC instant of time 0) in its header.
    pub fn set_log(
        &mut self,
        w: Box<dyn Write + Send>,
        wall_clock_origin: std::time::SystemTime,
    ) -> std::io::Result<()> {
        let origin = vegas_link_model::wall_clock_origin_line(wall_clock_origin);
        self.queue
            .set_log(QueueLog::new(w, &self.name, &self.spec, Some(&origin))?);
        Ok(())
    }

    pub fn flush_log(&mut self) {
        self.queue.flush_log();
    }

    /// Packets waiting (the one in service not counted).
    pub fn queue_len(&self) -> usize {
        self.queue.len()
    }

    /// A packet arrives at `now` (first call [`Link::advance`] to `now`).
    pub fn enqueue(&mut self, now: Nanos, packet: Packet) {
        let now = now.max(self.last_event_ns);
        self.last_event_ns = now;
        let idle = self.in_service.is_none();
        if let Arrival::Serve(packet) = self.queue.arrive(now, packet, &self.spec, idle) {
            let tx_end = self.service.finish_ns(&self.spec, now, packet.data.len());
            self.in_service = Some((packet, tx_end));
        }
    }

    /// Runs the serializer up to `now`: finished packets go on the wire and
    /// the next waiting ones start, each at its scheduled time.
    pub fn advance(&mut self, now: Nanos) {
        while let Some((_, tx_end)) = &self.in_service {
            let tx_end = *tx_end;
            if tx_end > now {
                break;
            }
            let (done, _) = self.in_service.take().unwrap();
            let deliver = self.spec.arrival_ns(tx_end).max(self.last_deliver_ns);
            self.last_deliver_ns = deliver;
            self.delay.record(deliver.saturating_sub(done.entered_ns));
            self.wire.push_back((deliver, done));
            self.last_event_ns = self.last_event_ns.max(tx_end);
            if let Some(next) = self.queue.start_next(tx_end) {
                let next_end = self.service.finish_ns(&self.spec, tx_end, next.data.len());
                self.in_service = Some((next, next_end));
            }
        }
    }

    /// The next packet due at the far end by `now`, with its due time.
    pub fn pop_delivery(&mut self, now: Nanos) -> Option<(Nanos, Packet)> {
        match self.wire.front() {
            Some((due, _)) if *due <= now => {
                let (due, p) = self.wire.pop_front()?;
                self.delivered_pkts += 1;
                if self.flow_bytes.len() <= p.flow {
                    self.flow_bytes.resize(p.flow + 1, 0);
                }
                self.flow_bytes[p.flow] =
                    self.flow_bytes[p.flow].saturating_add(p.data.len() as u64);
                Some((due, p))
            }
            _ => None,
        }
    }

    /// When something next happens on this link (end of serialization or a
    /// delivery), if anything is pending.
    pub fn next_event_ns(&self) -> Option<Nanos> {
        let tx = self.in_service.as_ref().map(|(_, t)| *t);
        let wire = self.wire.front().map(|(t, _)| *t);
        match (tx, wire) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pkt(flow: usize, len: usize) -> Packet {
        Packet::new(flow, vec![0; len], ())
    }

    #[test]
    fn serialization_then_delay() {
        // 1250 bytes at 10 Mbit/s = 1 ms; delay 5 ms.
        let mut link = Link::new("t", LinkSpec::new(10_000_000, 5_000_000, 10), 1);
        link.enqueue(0, pkt(0, 1250));
        link.enqueue(0, pkt(0, 1250));
        link.advance(10_000_000);
        let (t1, _) = link.pop_delivery(u64::MAX).unwrap();
        let (t2, _) = link.pop_delivery(u64::MAX).unwrap();
        assert_eq!(t1, 6_000_000);
        assert_eq!(t2, 7_000_000);
        // 6 ms and 7 ms through the link: a mean of 6.5 ms.
        assert_eq!(link.stats().delay.packets(), 2);
        assert_eq!(link.stats().delay.mean_ns(), Some(6_500_000.0));
    }

    #[test]
    fn drop_tail_counts_waiting_packets_only() {
        let mut link = Link::new("t", LinkSpec::new(1_000_000, 0, 3), 1);
        for _ in 0..10 {
            link.enqueue(0, pkt(0, 1000));
        }
        // One in service, three waiting, six dropped.
        assert_eq!(link.queue_len(), 3);
        assert_eq!(link.stats().queue.dropped_pkts, 6);
    }

    #[test]
    fn aggregation_releases_at_multiples() {
        let mut spec = LinkSpec::new(1_000_000_000, 1_000_000, 10);
        spec.aggregation_ns = 4_000_000;
        let mut link = Link::new("t", spec, 1);
        link.enqueue(0, pkt(0, 100));
        link.advance(u64::MAX / 2);
        assert_eq!(link.pop_delivery(u64::MAX).unwrap().0, 4_000_000);
    }

    #[test]
    fn a_random_loss_is_counted_and_never_delivered() {
        let mut spec = LinkSpec::new(1_000_000_000, 0, 100_000);
        spec.loss = 0.5;
        let mut link = Link::new("t", spec, 7);
        for i in 0..1000u64 {
            link.advance(i * 1000);
            link.enqueue(i * 1000, pkt(0, 100));
        }
        link.advance(u64::MAX / 2);
        while link.pop_delivery(u64::MAX).is_some() {}
        let lost = link.stats().queue.lost_pkts;
        assert!((400..600).contains(&lost), "{lost}");
        assert_eq!(link.stats().queue.arrived_pkts, 1000);
        assert_eq!(link.stats().delivered_pkts, 1000 - lost);
    }

    #[test]
    fn queue_log_has_the_simulator_format() {
        let out = vegas_link_model::MemoryLog::default();
        let mut link = Link::new("down", LinkSpec::new(8_000_000, 0, 1), 1);
        let origin = std::time::UNIX_EPOCH + std::time::Duration::new(1_795_658_028, 887_149_221);
        link.set_log(Box::new(out.clone()), origin).unwrap();
        link.enqueue(0, pkt(2, 1000)); // + and - at 0
        link.enqueue(500_000, pkt(3, 1000)); // + (queue 1)
        link.enqueue(600_000, pkt(3, 1000)); // d
        link.advance(1_000_000); // - at 1 ms
        let text = out.text();
        // The header names time 0's UTC instant, and reads back exactly.
        let first = text.lines().next().unwrap();
        assert_eq!(first, "# wall_clock_origin 2026-11-26T01:53:48.887149221Z");
        assert_eq!(
            vegas_link_model::parse_wall_clock_origin(first),
            Some(Ok(origin))
        );
        let lines: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
        assert_eq!(
            lines,
            [
                "0.000000 + 1000 0 2",
                "0.000000 - 1000 0 2",
                "0.500000 + 1000 1 3",
                "0.600000 d 1000 1 3",
                "1.000000 - 1000 0 3",
            ]
        );
    }
}
