//! `quinn-vegas`: the `vegas-cc` controllers (the TCP Vegas family and
//! NewReno) behind quinn's public congestion-control trait. No patch:
//! quinn-proto 0.11 exports `congestion::{Controller, ControllerFactory}`.
//!
//! ```
//! use std::sync::Arc;
//! use std::time::Instant;
//!
//! use quinn_proto::congestion::ControllerFactory;
//! use quinn_vegas::vegas_cc::spec::Params;
//! use quinn_vegas::VegasFactory;
//!
//! // Any name of `vegas_cc::spec::NAMES`, with `key=value` parameters.
//! let mut params = Params::new();
//! params.insert("alpha".into(), "2".into());
//! params.insert("beta".into(), "4".into());
//! let factory = Arc::new(VegasFactory::new("vegas", &params)?);
//!
//! let mut transport = quinn_proto::TransportConfig::default();
//! transport.congestion_controller_factory(factory.clone());
//!
//! // quinn builds one controller per path: 10 datagrams to start with.
//! let controller = factory.build(Instant::now(), 1200);
//! assert_eq!(controller.window(), 12_000);
//! # Ok::<(), quinn_vegas::vegas_cc::spec::SpecError>(())
//! ```
//!
//! # What quinn's callbacks give, and how the adapter copes
//!
//! | vegas-cc wants | quinn 0.11 gives | the adapter |
//! |---|---|---|
//! | packet number per sent and acked packet | `on_sent(now, bytes, pn)` once per batch of datagrams (GSO), by total size; `on_ack(now, sent_time, bytes)` per acked packet, **no packet number** | numbers packets itself (one sequence across packet-number spaces, a range reserved per batch), shows the controller each batch as one sent packet, and finds an acked packet's batch by its send time in a ring of what it sent |
//! | one event per ACK frame | `on_ack` per packet, then `on_end_acks` | collects the packets and hands them over as one `AckEvent` at `on_end_acks` |
//! | the RTT sample of the frame and its ACK delay | the estimator, updated only *after* `on_end_acks`; **no ACK delay** | takes `now - sent` of the largest newly acked packet (RFC 9002 5.1) as the sample, with an ACK delay of 0: the sampler's ACK-delay correction cannot act, its burst/aggregation detection still does |
//! | each lost packet | one `on_congestion_event(now, largest_lost_sent, persistent, lost_bytes)` per batch | one lost packet carrying the batch's bytes, at the largest lost packet's number (Vegas reacts once per window anyway); an ECN mark (0 bytes) counts as a loss |
//! | PTO | nothing | nothing: the Vegas family's default ignores PTOs (RFC 9002 6.2) |
//! | app-limited | a flag on `on_ack`/`on_end_acks` | `on_app_limited` when the batch says so |
//! | a pacing rate the stack uses | quinn paces from the window and its smoothed RTT; `metrics().pacing_rate` is for qlog only | reported in `metrics()`; quinn's own pacer sends |
//! | the free window in whole datagrams (`cwnd_available_bytes`) | quinn sends only while a full datagram fits in the window | nothing: `window()` is the controller's window, quinn already sends whole datagrams |
//! | a new controller on a new path | `ControllerFactory::build`; `clone_box` on a port change and for `Connection::congestion_state()` | `clone_box` copies the controller with its state |
//!
//! Decision records (`vegas_cc::ControllerEvent`, the same values the
//! quiche adapter turns into `vegas:*` qlog events) go to a [`Records`] sink
//! when the factory has one ([`VegasFactory::with_records`]);
//! [`write_qlog`] writes a controller's records as a JSON-SEQ qlog with the
//! same `vegas:*` events (quinn's trait has no way into quinn's own qlog,
//! so it is a file of its own, with only these events: qvis and the qlog
//! crate read it; `vegas-lab plot` also needs the stack's `quic:*` events).

#![forbid(unsafe_code)]
#![deny(missing_docs)]

use std::any::Any;
use std::collections::VecDeque;
use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::sync::Mutex;
use std::time::Duration;
use std::time::Instant;

use quinn_proto::congestion::Controller as QuinnController;
use quinn_proto::congestion::ControllerFactory;
use quinn_proto::congestion::ControllerMetrics;
use quinn_proto::RttEstimator;
use vegas_cc::spec::Params;
use vegas_cc::spec::SpecError;
use vegas_cc::AckEvent;
use vegas_cc::AckedPacket;
use vegas_cc::Controller;
use vegas_cc::ControllerEvent;
use vegas_cc::LostPacket;
use vegas_cc::RttSample;
use vegas_cc::SentPacket;

pub use vegas_cc;

/// quinn's initial window: 10 datagrams (RFC 9002 7.2 says 10, capped by
/// 14720 bytes; quinn's own controllers use 14720 / 1200 = 12).
pub const DEFAULT_INITIAL_WINDOW_PKTS: usize = 10;

/// Vegas's slow-start threshold gamma on quinn, in packets: the paper's 1
/// (Brakmo & Peterson III-C) plus the mean queue that quinn's smallest
/// pacing burst builds at a slower bottleneck. quinn's pacer releases at
/// least 10 datagrams at once (quinn-proto `pacing.rs`, `MIN_BURST_SIZE`),
/// which wait (10 - 1) / 2 = 4.5 datagram times on average: with gamma = 1
/// slow start reads that burst as queue and ends early (measured:
/// docs/constants.md, `quinn_vegas::QUINN_BURST_GAMMA_PKTS`). Used when
/// neither `gamma` nor `gamma_rate` is given, outside `mode=paper`/`naive`.
pub const QUINN_BURST_GAMMA_PKTS: f64 = 1.0 + (10.0 - 1.0) / 2.0;

/// The peer's max_ack_delay when the stack does not tell us: the RFC 9000
/// 18.2 default. quinn's trait does not pass the peer's value.
const DEFAULT_MAX_ACK_DELAY: Duration = Duration::from_millis(25);

/// Sent datagrams remembered to match acknowledgements to: at most this
/// many (the oldest are dropped first). 2^20 x 24 bytes = 24 MiB at most, a
/// window of a gigabyte; the ring holds about one window in practice.
const MAX_REMEMBERED_SENT: usize = 1 << 20;

/// The decision records of every controller a factory built, tagged with
/// the controller's id (one per path of a connection, numbered from 1 in
/// build order). Bounded: past `capacity` records, new ones are counted in
/// `dropped` and not kept.
#[derive(Debug, Default)]
pub struct RecordLog {
    /// The records kept, each with its controller's id, in arrival order.
    pub records: Vec<(u64, ControllerEvent)>,
    /// Records not kept because the log was full.
    pub dropped: u64,
    /// The most records the log keeps.
    pub capacity: usize,
}

/// A shared [`RecordLog`].
pub type Records = Arc<Mutex<RecordLog>>;

/// A new record sink keeping at most `capacity` records.
pub fn records(capacity: usize) -> Records {
    Arc::new(Mutex::new(RecordLog {
        records: Vec::new(),
        dropped: 0,
        capacity,
    }))
}

/// Makes a `vegas-cc` controller per path for quinn.
#[derive(Debug)]
pub struct VegasFactory {
    name: String,
    params: Params,
    initial_window_pkts: usize,
    records: Option<Records>,
    next_id: AtomicU64,
}

impl VegasFactory {
    /// A factory for `name` (one of `vegas_cc::spec::NAMES`) with `params`
    /// (`key=value`, as `--cc-param` takes them). Validated here: an
    /// unknown name or parameter is an error naming it.
    ///
    /// For the Vegas family in the default mode, `gamma` defaults to
    /// [`QUINN_BURST_GAMMA_PKTS`] (quinn's pacer sends bursts).
    pub fn new(name: &str, params: &Params) -> Result<Self, SpecError> {
        let mut params = params.clone();
        let default_mode = params.get("mode").is_none_or(|m| m == "default");
        if vegas_cc::spec::family(name).is_some()
            && default_mode
            && !params.contains_key("gamma")
            && !params.contains_key("gamma_rate")
        {
            params.insert("gamma".into(), QUINN_BURST_GAMMA_PKTS.to_string());
        }
        vegas_cc::spec::build(name, &params, DEFAULT_INITIAL_WINDOW_PKTS, 1200)?;
        Ok(VegasFactory {
            name: name.to_string(),
            params,
            initial_window_pkts: DEFAULT_INITIAL_WINDOW_PKTS,
            records: None,
            next_id: AtomicU64::new(1),
        })
    }

    /// Also keep every decision record in `records`.
    pub fn with_records(mut self, records: Records) -> Self {
        self.records = Some(records);
        self
    }

    /// The controller name the factory builds.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The parameters every controller gets (the given ones and the
    /// adapter's defaults).
    pub fn params(&self) -> &Params {
        &self.params
    }

    fn make(self: &Arc<Self>, mtu: u16) -> VegasController {
        let mtu = mtu.max(1);
        // Validated in `new`; the window and datagram size are in range.
        let controller = vegas_cc::spec::build(
            &self.name,
            &self.params,
            self.initial_window_pkts,
            usize::from(mtu),
        )
        .expect("the spec was validated when the factory was made");
        VegasController::new(
            controller,
            Arc::clone(self),
            self.next_id.fetch_add(1, Ordering::Relaxed),
            mtu,
        )
    }
}

impl ControllerFactory for VegasFactory {
    fn build(self: Arc<Self>, _now: Instant, current_mtu: u16) -> Box<dyn QuinnController> {
        Box::new(self.make(current_mtu))
    }
}

/// What one `on_sent` call reported, as the adapter remembers it: quinn
/// reports a batch of datagrams (GSO) sent at one instant, by their total
/// size, and acknowledges them packet by packet with that instant.
#[derive(Debug, Clone, Copy)]
struct Sent {
    /// The first of the numbers reserved for the batch's packets.
    first_seq: u64,
    /// How many numbers were reserved (an upper bound on its packets).
    seqs: u64,
    time: Instant,
    bytes: u64,
    acked_bytes: u64,
    acked_packets: u64,
}

impl Sent {
    fn done(&self) -> bool {
        self.acked_bytes >= self.bytes
    }
}

/// The smallest QUIC packet (a 1-byte header form, 1-byte packet number,
/// one frame byte and a 16-byte AEAD tag, RFC 9001 5.3): a batch of `n`
/// bytes holds at most n / 19 packets, so that many numbers are reserved.
const MIN_PACKET_BYTES: u64 = 19;

/// Counters of what the adapter did, for tests and summaries.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct AdapterStats {
    /// `on_sent` calls (each a batch of one or more datagrams).
    pub sent_batches: u64,
    /// Bytes reported sent by `on_sent`.
    pub sent_bytes: u64,
    /// Bytes reported acknowledged by `on_ack`.
    pub acked_bytes: u64,
    /// `on_ack` calls (one per acknowledged packet).
    pub acked_packets: u64,
    /// Acknowledged packets whose send time matched no remembered batch
    /// (one forgotten as too old): given the nearest earlier number.
    pub unmatched_acks: u64,
    /// `on_congestion_event` calls (losses and ECN marks).
    pub loss_events: u64,
    /// RTT samples handed to the controller (one per ACK batch with a new
    /// largest acknowledged packet).
    pub rtt_samples: u64,
}

/// One `vegas-cc` controller as quinn sees it.
pub struct VegasController {
    controller: Box<dyn Controller>,
    factory: Arc<VegasFactory>,
    id: u64,
    mtu: u16,
    initial_window_bytes: u64,
    sent: VecDeque<Sent>,
    next_seq: u64,
    /// The ACK batch being collected (between `on_ack`s and `on_end_acks`).
    acked: Vec<AckedPacket>,
    lost: Vec<LostPacket>,
    largest_acked_seq: Option<u64>,
    bytes_in_flight: u64,
    smoothed_rtt: Option<Duration>,
    min_rtt: Option<Duration>,
    stats: AdapterStats,
}

impl std::fmt::Debug for VegasController {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VegasController")
            .field("name", &self.controller.name())
            .field("id", &self.id)
            .field("cwnd_bytes", &self.controller.cwnd_bytes())
            .finish()
    }
}

impl VegasController {
    fn new(controller: Box<dyn Controller>, factory: Arc<VegasFactory>, id: u64, mtu: u16) -> Self {
        VegasController {
            mtu,
            initial_window_bytes: controller.cwnd_bytes() as u64,
            controller,
            factory,
            id,
            sent: VecDeque::new(),
            next_seq: 0,
            acked: Vec::with_capacity(64),
            lost: Vec::with_capacity(1),
            largest_acked_seq: None,
            bytes_in_flight: 0,
            smoothed_rtt: None,
            min_rtt: None,
            stats: AdapterStats::default(),
        }
    }

    /// The id its decision records carry in the factory's [`Records`]
    /// (copies made by `clone_box` keep it).
    pub fn id(&self) -> u64 {
        self.id
    }

    /// The `vegas-cc` controller inside.
    pub fn controller(&self) -> &dyn Controller {
        self.controller.as_ref()
    }

    /// The adapter's counters so far.
    pub fn stats(&self) -> AdapterStats {
        self.stats
    }

    /// The remembered batch sent at `time` that still has `bytes`
    /// unacknowledged (or the last one sent at `time`), as an index.
    fn find_sent(&self, time: Instant, bytes: u64) -> Option<usize> {
        let first = self.sent.partition_point(|s| s.time < time);
        let mut candidate = None;
        for (i, s) in self.sent.iter().enumerate().skip(first) {
            if s.time != time {
                break;
            }
            if s.acked_bytes + bytes <= s.bytes {
                return Some(i);
            }
            candidate = Some(i);
        }
        candidate
    }

    /// The number to report for a packet sent at `time` that matched no
    /// datagram: the last one sent no later, so rounds still advance.
    fn nearest_seq(&self, time: Instant) -> u64 {
        let after = self.sent.partition_point(|s| s.time <= time);
        match after.checked_sub(1) {
            Some(i) => self.sent[i].first_seq,
            None => self
                .sent
                .front()
                .map_or(0, |s| s.first_seq.saturating_sub(1)),
        }
    }

    /// Forgets acknowledged datagrams at the front and any older than a
    /// loss could still be declared for (RFC 9002 6.1.2: 9/8 RTT, plus a
    /// PTO's worth of slack: we keep 4 RTTs and the max ACK delay).
    fn prune(&mut self, now: Instant) {
        let keep =
            self.smoothed_rtt.unwrap_or(Duration::from_millis(333)) * 4 + DEFAULT_MAX_ACK_DELAY * 2;
        while let Some(front) = self.sent.front() {
            let old = now.saturating_duration_since(front.time) > keep;
            if front.done() || old || self.sent.len() > MAX_REMEMBERED_SENT {
                self.sent.pop_front();
            } else {
                break;
            }
        }
    }

    fn drain_records(&mut self) {
        let Some(sink) = &self.factory.records else {
            while self.controller.poll_event().is_some() {}
            return;
        };
        let mut log = sink.lock().unwrap_or_else(|e| e.into_inner());
        while let Some(event) = self.controller.poll_event() {
            if log.records.len() < log.capacity {
                log.records.push((self.id, event));
            } else {
                log.dropped += 1;
            }
        }
    }

    fn smoothed(&self) -> Duration {
        self.smoothed_rtt.unwrap_or(Duration::from_millis(333))
    }
}

impl QuinnController for VegasController {
    fn on_sent(&mut self, now: Instant, bytes: u64, _last_packet_number: u64) {
        let first_seq = self.next_seq;
        let seqs = (bytes / MIN_PACKET_BYTES).max(1);
        self.next_seq += seqs;
        self.sent.push_back(Sent {
            first_seq,
            seqs,
            time: now,
            bytes,
            acked_bytes: 0,
            acked_packets: 0,
        });
        // The controller sees the batch as one packet numbered like its
        // first: an acknowledgement of any of its packets ends a round
        // that started before it.
        let packet = SentPacket {
            pkt_num: first_seq,
            time_sent: now,
            size_bytes: bytes as usize,
            bytes_in_flight_before: self.bytes_in_flight as usize,
            in_flight: true,
        };
        self.bytes_in_flight += bytes;
        self.stats.sent_batches += 1;
        self.stats.sent_bytes += bytes;
        self.controller.on_packet_sent(now, &packet);
        if self.sent.len() > MAX_REMEMBERED_SENT {
            self.prune(now);
        }
    }

    fn on_ack(
        &mut self,
        _now: Instant,
        sent: Instant,
        bytes: u64,
        _app_limited: bool,
        rtt: &RttEstimator,
    ) {
        let seq = match self.find_sent(sent, bytes) {
            Some(i) => {
                let batch = &mut self.sent[i];
                let seq = batch.first_seq + batch.acked_packets.min(batch.seqs - 1);
                batch.acked_packets += 1;
                batch.acked_bytes += bytes;
                seq
            }
            None => {
                self.stats.unmatched_acks += 1;
                self.nearest_seq(sent)
            }
        };
        if self.min_rtt.is_some() {
            // quinn's estimator before this frame's sample; before any
            // sample it holds the configured initial RTT, which we skip.
            self.smoothed_rtt = Some(rtt.get());
        }
        self.acked.push(AckedPacket {
            pkt_num: seq,
            time_sent: sent,
            size_bytes: bytes as usize,
        });
        self.stats.acked_packets += 1;
        self.stats.acked_bytes += bytes;
    }

    fn on_end_acks(
        &mut self,
        now: Instant,
        in_flight: u64,
        app_limited: bool,
        _largest: Option<u64>,
    ) {
        if self.acked.is_empty() {
            return;
        }
        // vegas-cc wants ascending numbers; unmatched packets may be out of
        // order. Unstable: sorts in place, no allocation per ACK.
        self.acked.sort_unstable_by_key(|p| p.pkt_num);
        let largest = *self.acked.last().expect("not empty");
        let new_largest = self.largest_acked_seq.is_none_or(|l| largest.pkt_num > l);
        let rtt_sample = new_largest.then(|| RttSample {
            latest_rtt: now.saturating_duration_since(largest.time_sent),
            ack_delay: Duration::ZERO,
        });
        if let Some(sample) = rtt_sample {
            self.largest_acked_seq = Some(largest.pkt_num);
            self.stats.rtt_samples += 1;
            let latest = sample.latest_rtt;
            self.min_rtt = Some(self.min_rtt.map_or(latest, |m| m.min(latest)));
            // RFC 9002 5.3 before the estimator's own (one frame later).
            self.smoothed_rtt = Some(match self.smoothed_rtt {
                None => latest,
                Some(s) => (s * 7 + latest) / 8,
            });
        }
        let acked_bytes: u64 = self.acked.iter().map(|p| p.size_bytes as u64).sum();
        let event = AckEvent {
            now,
            acked: &self.acked,
            lost: &[],
            rtt_sample,
            min_rtt: self.min_rtt,
            smoothed_rtt: self.smoothed(),
            max_ack_delay: DEFAULT_MAX_ACK_DELAY,
            prior_bytes_in_flight: (in_flight + acked_bytes) as usize,
            bytes_in_flight: in_flight as usize,
            persistent_congestion: false,
        };
        self.controller.on_ack_event(&event);
        self.bytes_in_flight = in_flight;
        if app_limited {
            self.controller.on_app_limited(now, in_flight as usize);
        }
        self.acked.clear();
        self.prune(now);
        self.drain_records();
    }

    fn on_congestion_event(
        &mut self,
        now: Instant,
        sent: Instant,
        is_persistent_congestion: bool,
        lost_bytes: u64,
    ) {
        let seq = match self.find_sent(sent, 0) {
            Some(i) => self.sent[i].first_seq,
            None => self.nearest_seq(sent),
        };
        self.lost.clear();
        self.lost.push(LostPacket {
            pkt_num: seq,
            time_sent: sent,
            size_bytes: lost_bytes as usize,
        });
        let prior = self.bytes_in_flight;
        self.bytes_in_flight = prior.saturating_sub(lost_bytes);
        let event = AckEvent {
            now,
            acked: &[],
            lost: &self.lost,
            rtt_sample: None,
            min_rtt: self.min_rtt,
            smoothed_rtt: self.smoothed(),
            max_ack_delay: DEFAULT_MAX_ACK_DELAY,
            prior_bytes_in_flight: prior as usize,
            bytes_in_flight: self.bytes_in_flight as usize,
            persistent_congestion: is_persistent_congestion,
        };
        self.controller.on_ack_event(&event);
        self.stats.loss_events += 1;
        self.drain_records();
    }

    fn on_mtu_update(&mut self, new_mtu: u16) {
        self.mtu = new_mtu.max(1);
        self.controller.set_max_datagram_size(usize::from(self.mtu));
    }

    fn window(&self) -> u64 {
        self.controller.cwnd_bytes() as u64
    }

    fn metrics(&self) -> ControllerMetrics {
        let mut metrics = ControllerMetrics::default();
        metrics.congestion_window = self.window();
        metrics.ssthresh = self.controller.ssthresh_bytes().map(|b| b as u64);
        metrics.pacing_rate = self
            .controller
            .pacing_rate_bytes_per_sec(self.smoothed())
            .map(|b| b.saturating_mul(8));
        metrics
    }

    /// A copy with all state: quinn keeps a path's controller on a port
    /// change (RFC 9000 9.4 allows it) and `Connection::congestion_state`
    /// returns one. The copy's records carry the same id: it continues the
    /// path's controller.
    fn clone_box(&self) -> Box<dyn QuinnController> {
        Box::new(VegasController {
            controller: self.controller.clone_box(),
            factory: Arc::clone(&self.factory),
            id: self.id,
            mtu: self.mtu,
            initial_window_bytes: self.initial_window_bytes,
            sent: self.sent.clone(),
            next_seq: self.next_seq,
            acked: Vec::with_capacity(64),
            lost: Vec::with_capacity(1),
            largest_acked_seq: self.largest_acked_seq,
            bytes_in_flight: self.bytes_in_flight,
            smoothed_rtt: self.smoothed_rtt,
            min_rtt: self.min_rtt,
            stats: self.stats,
        })
    }

    fn initial_window(&self) -> u64 {
        self.initial_window_bytes
    }

    fn into_any(self: Box<Self>) -> Box<dyn Any> {
        self
    }
}

/// Writes the decision records of controller `id` from `records` as a
/// JSON-SEQ qlog (the `vegas:*` events of `vegas_cc::qlog`) to `writer`,
/// from the point of view of a server or a client. qlog time 0 is the
/// first record's time. Returns how many events it wrote.
pub fn write_qlog(
    writer: Box<dyn std::io::Write + Send + Sync>,
    records: &RecordLog,
    id: u64,
    title: &str,
    is_server: bool,
) -> std::io::Result<usize> {
    use qlog::streamer::QlogStreamer;
    let events: Vec<&ControllerEvent> = records
        .records
        .iter()
        .filter(|(i, _)| *i == id)
        .map(|(_, e)| e)
        .collect();
    let start = events
        .iter()
        .map(|e| vegas_cc::qlog::to_json_event(e).0)
        .min()
        .unwrap_or_else(Instant::now);
    let trace = qlog::TraceSeq::new(
        Some(title.to_string()),
        Some(format!("quinn-vegas controller {id}")),
        None,
        Some(qlog::VantagePoint {
            name: None,
            ty: if is_server {
                qlog::VantagePointType::Server
            } else {
                qlog::VantagePointType::Client
            },
            flow: None,
        }),
        vec![],
    );
    let mut streamer = QlogStreamer::new(
        Some(title.to_string()),
        None,
        start,
        trace,
        qlog::events::EventImportance::Extra,
        qlog::streamer::EventTimePrecision::MicroSeconds,
        writer,
    );
    let io = |e: qlog::Error| std::io::Error::other(e.to_string());
    streamer.start_log().map_err(io)?;
    for event in &events {
        let (time, json) = vegas_cc::qlog::to_json_event(event);
        streamer.add_event_with_instant(json, time).map_err(io)?;
    }
    streamer.finish_log().map_err(io)?;
    Ok(events.len())
}
