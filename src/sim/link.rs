//! A one-way link: a drop-tail FIFO in front of a serializer of fixed rate,
//! then a fixed propagation delay.
//!
//! Convention (as ns-3's queue discs and the Vegas paper's "buffer of B
//! packets"): the packet being serialized has left the queue; the queue
//! holds up to `buffer_pkts` packets *waiting*. A packet arriving to a full
//! queue is dropped. Serialization of an L-byte packet takes L*8/rate.

use std::collections::VecDeque;

use super::Nanos;

/// Static description of a link.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LinkSpec {
    /// Serialization rate in bit/s.
    pub rate_bps: u64,
    /// One-way propagation delay.
    pub delay_ns: Nanos,
    /// Waiting room, in packets (the packet in service not counted).
    pub buffer_pkts: usize,
}

impl LinkSpec {
    /// Time to serialize `bytes` at this link's rate, rounded up to 1 ns.
    pub fn serialization_ns(&self, bytes: usize) -> Nanos {
        let bits = bytes as u128 * 8 * 1_000_000_000;
        bits.div_ceil(self.rate_bps as u128) as Nanos
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
    pub data: Vec<u8>,
}

/// Queue statistics over a run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LinkStats {
    pub enqueued_pkts: u64,
    pub dropped_pkts: u64,
    pub sent_bytes: u64,
    /// Time the serializer was busy.
    pub busy_ns: Nanos,
    /// Integral of the waiting-queue length over time (packet * ns).
    pub queue_pkt_ns: u128,
    pub max_queue_pkts: usize,
}

/// One link's state.
#[derive(Debug)]
pub struct Link {
    pub spec: LinkSpec,
    queue: VecDeque<Packet>,
    /// Whether a packet is being serialized.
    busy: bool,
    /// When `queue.len()` last changed (for the time integral).
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
    pub fn new(spec: LinkSpec) -> Self {
        Link {
            spec,
            queue: VecDeque::new(),
            busy: false,
            last_change_ns: 0,
            stats: LinkStats::default(),
        }
    }

    /// Packets waiting (not counting the one in service).
    pub fn queue_len(&self) -> usize {
        self.queue.len()
    }

    fn account(&mut self, now: Nanos) {
        let dt = now.saturating_sub(self.last_change_ns);
        self.stats.queue_pkt_ns += dt as u128 * self.queue.len() as u128;
        self.last_change_ns = now;
    }

    /// A packet arrives at the link. If the serializer is idle it starts at
    /// once (the packet is `in_service`), otherwise it waits or is dropped.
    pub fn enqueue(
        &mut self,
        now: Nanos,
        packet: Packet,
        in_service: &mut Option<Packet>,
    ) -> LinkAction {
        self.account(now);
        if !self.busy {
            debug_assert!(self.queue.is_empty());
            self.busy = true;
            self.stats.enqueued_pkts += 1;
            let tx = self.spec.serialization_ns(packet.data.len());
            self.stats.busy_ns += tx;
            self.stats.sent_bytes += packet.data.len() as u64;
            *in_service = Some(packet);
            return LinkAction::TxDoneAt(now + tx);
        }
        if self.queue.len() >= self.spec.buffer_pkts {
            self.stats.dropped_pkts += 1;
            return LinkAction::None;
        }
        self.stats.enqueued_pkts += 1;
        self.queue.push_back(packet);
        self.stats.max_queue_pkts = self.stats.max_queue_pkts.max(self.queue.len());
        LinkAction::None
    }

    /// The serializer finished a packet: the next waiting one (if any)
    /// starts; returns it with its own end of serialization.
    pub fn tx_done(&mut self, now: Nanos) -> Option<(Packet, Nanos)> {
        self.account(now);
        match self.queue.pop_front() {
            Some(next) => {
                let tx = self.spec.serialization_ns(next.data.len());
                self.stats.busy_ns += tx;
                self.stats.sent_bytes += next.data.len() as u64;
                Some((next, now + tx))
            }
            None => {
                self.busy = false;
                None
            }
        }
    }

    /// Closes the time integral at the end of a run.
    pub fn finish(&mut self, now: Nanos) {
        self.account(now);
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
            data: vec![0; len],
        }
    }

    #[test]
    fn serialization_time_is_size_over_rate() {
        let spec = LinkSpec {
            rate_bps: 1_600_000,
            delay_ns: 0,
            buffer_pkts: 10,
        };
        // 1000 bytes at 200 KB/s = 5 ms.
        assert_eq!(spec.serialization_ns(1000), 5_000_000);
    }

    #[test]
    fn drop_tail_counts_waiting_packets_only() {
        let spec = LinkSpec {
            rate_bps: 8_000_000,
            delay_ns: 0,
            buffer_pkts: 2,
        };
        let mut link = Link::new(spec);
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
    }
}
