//! Test-only: the shared sender model behind every controller test, as
//! quiche's `recovery/congestion/test_sender.rs` is for its controllers.
//!
//! [`TestSender`] owns a controller, the clock, the packet numbers and the
//! packets in flight, and turns "send a window" or "acknowledge these
//! packets `rtt` later" into the [`SentPacket`]s and [`AckEvent`]s a stack
//! would hand the controller, with bytes in flight kept consistent.
//! [`Bottleneck`] puts a FIFO link with ACK clocking under it. Tests that
//! build packets and events by hand (the sampler's, NewReno's) use the free
//! constructors and [`AckEventBuilder`], so that every test fills in the
//! fields it does not care about the same way. Helpers for one controller
//! live with its tests (`impl TestSender<Vegas>` in `vegas/tests/mod.rs`).
//!
//! Every packet is [`MDS`] bytes and counts towards bytes in flight; ACK
//! frames report no ACK delay and the peer's max_ack_delay is
//! [`MAX_ACK_DELAY`].

use std::collections::VecDeque;
use std::time::Duration;
use std::time::Instant;

use crate::controller::Controller;
use crate::events::ControllerEvent;
use crate::events::SlowStartExitCause;
use crate::types::AckEvent;
use crate::types::AckedPacket;
use crate::types::LostPacket;
use crate::types::RttSample;
use crate::types::SentPacket;

/// The size of every test packet: the controllers' default datagram size.
pub(crate) const MDS: usize = 1200;
const _: () = assert!(
    MDS == crate::vegas::DEFAULT_MAX_DATAGRAM_SIZE
        && MDS == crate::newreno::DEFAULT_MAX_DATAGRAM_SIZE
);

pub(crate) const MS: Duration = Duration::from_millis(1);

/// The peer's max_ack_delay in every test event (RFC 9000's default).
pub(crate) const MAX_ACK_DELAY: Duration = Duration::from_millis(25);

/// An in-flight packet of [`MDS`] bytes.
pub(crate) fn sent_packet(
    pkt_num: u64,
    time_sent: Instant,
    bytes_in_flight_before: usize,
) -> SentPacket {
    SentPacket {
        pkt_num,
        time_sent,
        size_bytes: MDS,
        bytes_in_flight_before,
        in_flight: true,
    }
}

/// An acknowledged packet of [`MDS`] bytes.
pub(crate) fn acked_packet(pkt_num: u64, time_sent: Instant) -> AckedPacket {
    AckedPacket {
        pkt_num,
        time_sent,
        size_bytes: MDS,
    }
}

/// A lost packet of [`MDS`] bytes.
pub(crate) fn lost_packet(pkt_num: u64, time_sent: Instant) -> LostPacket {
    LostPacket {
        pkt_num,
        time_sent,
        size_bytes: MDS,
    }
}

/// An [`AckEvent`] built field by field. [`AckEventBuilder::new`] starts
/// from nothing acknowledged or lost, no RTT sample, no min RTT, a smoothed
/// RTT of zero, [`MAX_ACK_DELAY`], no bytes in flight and no persistent
/// congestion; each method sets one thing.
#[derive(Clone, Copy, Debug)]
pub(crate) struct AckEventBuilder<'a>(AckEvent<'a>);

impl<'a> AckEventBuilder<'a> {
    pub(crate) fn new(now: Instant) -> Self {
        AckEventBuilder(AckEvent {
            now,
            acked: &[],
            lost: &[],
            rtt_sample: None,
            min_rtt: None,
            smoothed_rtt: Duration::ZERO,
            max_ack_delay: MAX_ACK_DELAY,
            prior_bytes_in_flight: 0,
            bytes_in_flight: 0,
            persistent_congestion: false,
        })
    }

    pub(crate) fn acked(mut self, acked: &'a [AckedPacket]) -> Self {
        self.0.acked = acked;
        self
    }

    pub(crate) fn lost(mut self, lost: &'a [LostPacket]) -> Self {
        self.0.lost = lost;
        self
    }

    /// An RTT sample of `latest_rtt` with no ACK delay, and a smoothed RTT
    /// equal to it.
    pub(crate) fn rtt(mut self, latest_rtt: Duration) -> Self {
        self.0.rtt_sample = Some(RttSample {
            latest_rtt,
            ack_delay: Duration::ZERO,
        });
        self.0.smoothed_rtt = latest_rtt;
        self
    }

    pub(crate) fn min_rtt(mut self, min_rtt: Duration) -> Self {
        self.0.min_rtt = Some(min_rtt);
        self
    }

    pub(crate) fn smoothed_rtt(mut self, smoothed_rtt: Duration) -> Self {
        self.0.smoothed_rtt = smoothed_rtt;
        self
    }

    /// Bytes in flight before and after the frame.
    pub(crate) fn bytes_in_flight(mut self, prior: usize, after: usize) -> Self {
        self.0.prior_bytes_in_flight = prior;
        self.0.bytes_in_flight = after;
        self
    }

    pub(crate) fn persistent_congestion(mut self) -> Self {
        self.0.persistent_congestion = true;
        self
    }

    pub(crate) fn build(self) -> AckEvent<'a> {
        self.0
    }
}

/// The min RTT a [`TestSender`]'s stack reports in each ACK frame. Tests
/// differ here, so each says which it needs.
#[derive(Clone, Copy, Debug)]
pub(crate) enum MinRtt {
    /// None: the controller keeps its own.
    Unreported,
    /// The smallest RTT sample so far (RFC 9002 section 5.2); None before
    /// the first.
    Tracked(Option<Duration>),
    /// The smaller of a fixed path RTT and the frame's RTT (a stack that
    /// measured the path before the test began); not a running minimum.
    AtMost(Duration),
}

/// A sender of [`MDS`]-byte packets driving controller `cc`: it numbers
/// and sends packets at `now`, keeps them in flight, and delivers ACK
/// frames for them as [`AckEvent`]s with consistent bytes in flight.
/// Generic so that a test can still reach its controller's own fields.
#[derive(Debug)]
pub(crate) struct TestSender<C> {
    pub(crate) cc: C,
    pub(crate) now: Instant,
    min_rtt: MinRtt,
    next_pkt_num: u64,
    /// Neither acknowledged nor lost, ascending packet number.
    in_flight: VecDeque<SentPacket>,
    bytes_in_flight: usize,
}

impl<C: Controller> TestSender<C> {
    pub(crate) fn new(cc: C, min_rtt: MinRtt) -> Self {
        TestSender {
            cc,
            now: Instant::now(),
            min_rtt,
            next_pkt_num: 0,
            in_flight: VecDeque::new(),
            bytes_in_flight: 0,
        }
    }

    pub(crate) fn cwnd_pkts(&self) -> f64 {
        self.cc.cwnd_bytes() as f64 / MDS as f64
    }

    pub(crate) fn bytes_in_flight(&self) -> usize {
        self.bytes_in_flight
    }

    pub(crate) fn pkt_nums_in_flight(&self) -> Vec<u64> {
        self.in_flight.iter().map(|p| p.pkt_num).collect()
    }

    /// Whether the window has room for one more packet.
    pub(crate) fn can_send(&self) -> bool {
        self.bytes_in_flight() + MDS <= self.cc.cwnd_bytes()
    }

    /// Sends one packet now, window or not; returns its packet number.
    pub(crate) fn send_one(&mut self) -> u64 {
        let packet = sent_packet(self.next_pkt_num, self.now, self.bytes_in_flight);
        self.cc.on_packet_sent(self.now, &packet);
        self.in_flight.push_back(packet);
        self.bytes_in_flight += packet.size_bytes;
        self.next_pkt_num += 1;
        packet.pkt_num
    }

    /// Sends packets now while the window has room.
    pub(crate) fn send_window(&mut self) {
        while self.can_send() {
            self.send_one();
        }
    }

    /// `rtt` later, one ACK frame acknowledges `acked` and declares `lost`
    /// lost (packet numbers, in the order given). The frame's RTT (sample,
    /// smoothed RTT) is `rtt` whenever the packets were sent.
    pub(crate) fn ack(&mut self, rtt: Duration, acked: &[u64], lost: &[u64]) {
        self.now += rtt;
        self.on_frame(rtt, acked, lost);
    }

    /// At `now`, one ACK frame acknowledges `acked` (not empty) and
    /// declares `lost` lost. The RTT is that of the largest acknowledged
    /// packet (RFC 9002 section 5.1).
    pub(crate) fn ack_at(&mut self, now: Instant, acked: &[u64], lost: &[u64]) {
        self.now = now;
        let largest = *acked.iter().max().expect("a frame acknowledges a packet");
        let sent = self.in_flight.iter().find(|p| p.pkt_num == largest);
        let rtt = now - sent.expect("acknowledged packets are in flight").time_sent;
        self.on_frame(rtt, acked, lost);
    }

    /// One round: a full window now, all of it acknowledged `rtt` later.
    pub(crate) fn round(&mut self, rtt: Duration) {
        self.send_window();
        let all = self.pkt_nums_in_flight();
        self.ack(rtt, &all, &[]);
    }

    pub(crate) fn rounds(&mut self, rtts_ms: &[u32]) {
        for &rtt in rtts_ms {
            self.round(rtt * MS);
        }
    }

    /// The controller's pending decision records, oldest first.
    pub(crate) fn drain_events(&mut self) -> Vec<ControllerEvent> {
        std::iter::from_fn(|| self.cc.poll_event()).collect()
    }

    fn take(&mut self, pkt_num: u64) -> SentPacket {
        let i = self.in_flight.iter().position(|p| p.pkt_num == pkt_num);
        let packet = self.in_flight.remove(i.expect("packet in flight")).unwrap();
        self.bytes_in_flight -= packet.size_bytes;
        packet
    }

    fn on_frame(&mut self, rtt: Duration, acked: &[u64], lost: &[u64]) {
        let prior_bytes_in_flight = self.bytes_in_flight;
        let acked: Vec<AckedPacket> = acked
            .iter()
            .map(|&n| self.take(n))
            .map(|p| acked_packet(p.pkt_num, p.time_sent))
            .collect();
        let lost: Vec<LostPacket> = lost
            .iter()
            .map(|&n| self.take(n))
            .map(|p| lost_packet(p.pkt_num, p.time_sent))
            .collect();
        let min_rtt = match &mut self.min_rtt {
            MinRtt::Unreported => None,
            MinRtt::Tracked(min) => {
                if !acked.is_empty() {
                    *min = Some(min.map_or(rtt, |m| m.min(rtt)));
                }
                *min
            }
            MinRtt::AtMost(path_rtt) => Some(rtt.min(*path_rtt)),
        };
        let mut event = AckEventBuilder::new(self.now)
            .acked(&acked)
            .lost(&lost)
            .smoothed_rtt(rtt)
            .bytes_in_flight(prior_bytes_in_flight, self.bytes_in_flight);
        if !acked.is_empty() {
            event = event.rtt(rtt);
        }
        if let Some(min_rtt) = min_rtt {
            event = event.min_rtt(min_rtt);
        }
        self.cc.on_ack_event(&event.build());
    }
}

/// A [`TestSender`] behind one FIFO bottleneck with ACK clocking: a link
/// of `rate` packets per second and a fixed round-trip propagation delay,
/// one ACK frame per packet, no loss, the sender refilling its window at
/// every ACK.
#[derive(Debug)]
pub(crate) struct Bottleneck<C> {
    pub(crate) sender: TestSender<C>,
    pub(crate) start: Instant,
    service: Duration,
    prop_rtt: Duration,
    link_free: Instant,
    /// The packets in flight and when their ACK arrives, in order.
    arrivals: VecDeque<(u64, Instant)>,
    /// Every decision record, with when it was taken.
    pub(crate) events: Vec<(Instant, ControllerEvent)>,
    pub(crate) max_queue_pkts: usize,
}

impl<C: Controller> Bottleneck<C> {
    pub(crate) fn new(cc: C, min_rtt: MinRtt, rate_pkts_per_sec: u32, prop_rtt: Duration) -> Self {
        let sender = TestSender::new(cc, min_rtt);
        Bottleneck {
            start: sender.now,
            service: Duration::from_secs(1) / rate_pkts_per_sec,
            prop_rtt,
            link_free: sender.now,
            arrivals: VecDeque::new(),
            events: Vec::new(),
            max_queue_pkts: 0,
            sender,
        }
    }

    fn send_window(&mut self) {
        while self.sender.can_send() {
            let now = self.sender.now;
            let pkt_num = self.sender.send_one();
            let queued =
                self.link_free.saturating_duration_since(now).as_nanos() / self.service.as_nanos();
            self.max_queue_pkts = self.max_queue_pkts.max(queued as usize);
            let departure = now.max(self.link_free) + self.service;
            self.link_free = departure;
            self.arrivals
                .push_back((pkt_num, departure + self.prop_rtt));
        }
    }

    /// The link serves `rate_pkts_per_sec` from now on: the packet in
    /// service finishes as scheduled, the ones queued behind it leave at
    /// the new rate.
    pub(crate) fn set_rate(&mut self, rate_pkts_per_sec: u32) {
        self.service = Duration::from_secs(1) / rate_pkts_per_sec;
        let now = self.sender.now;
        let mut link_free: Option<Instant> = None;
        for (_, arrival) in self.arrivals.iter_mut() {
            let departure = *arrival - self.prop_rtt;
            if departure <= now {
                continue;
            }
            let retimed = match link_free {
                // In service: unchanged.
                None => departure,
                Some(free) => free + self.service,
            };
            link_free = Some(retimed);
            *arrival = retimed + self.prop_rtt;
        }
        if let Some(free) = link_free {
            self.link_free = free;
        }
    }

    /// Delivers the next ACK; returns the cwnd increase it caused (bytes).
    pub(crate) fn step(&mut self) -> isize {
        self.send_window();
        let (pkt_num, arrival) = self.arrivals.pop_front().unwrap();
        let before = self.sender.cc.cwnd_bytes();
        self.sender.ack_at(arrival, &[pkt_num], &[]);
        for e in self.sender.drain_events() {
            self.events.push((arrival, e));
        }
        self.send_window();
        self.sender.cc.cwnd_bytes() as isize - before as isize
    }

    pub(crate) fn run_for(&mut self, duration: Duration) {
        let end = self.sender.now + duration;
        while self.sender.now < end {
            self.step();
        }
    }

    pub(crate) fn cwnd_pkts(&self) -> f64 {
        self.sender.cwnd_pkts()
    }

    /// When slow start ended, with its cause and window (packets).
    pub(crate) fn slow_start_exit(&self) -> Option<(Duration, SlowStartExitCause, f64)> {
        self.events.iter().find_map(|(t, e)| match e {
            ControllerEvent::SlowStartExit {
                cause, cwnd_bytes, ..
            } => Some((*t - self.start, *cause, *cwnd_bytes as f64 / MDS as f64)),
            _ => None,
        })
    }
}
