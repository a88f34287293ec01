//! The quiche adapter: any `vegas-cc` controller behind the patched quiche's
//! public `quiche::congestion::CongestionController` trait.
//!
//! Data flows one way: quiche's per-ACK event is translated into a
//! `vegas_cc::AckEvent` (borrowing reusable buffers, so steady state does not
//! allocate), the controller decides, and quiche reads the window and the
//! pacing rate back. The controller's decision records are kept in a bounded
//! queue and become qlog events when quiche drains them.

use std::sync::atomic::AtomicBool;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::sync::Mutex;
use std::time::Duration;
use std::time::Instant;

use quiche::congestion::CongestionController;
use quiche::congestion::CongestionControllerFactory;
use quiche::congestion::CongestionEvent;
use quiche::congestion::ControllerInit;
use vegas_cc::AckEvent;
use vegas_cc::AckedPacket;
use vegas_cc::Controller;
use vegas_cc::ControllerEvent;
use vegas_cc::EventQueue;
use vegas_cc::LostPacket;
use vegas_cc::Phase;
use vegas_cc::RttSample;
use vegas_cc::SentPacket;

use crate::algorithm::Algorithm;
use crate::algorithm::CcSpec;
use crate::Error;
use vegas_cc::spec;

/// What a controller saw, recorded when a [`Trace`] is attached: for tests
/// and the simulator's metrics. Recording allocates; it is off by default.
///
/// Cost: the counters are fixed; `cwnd` grows by one [`CwndSample`] (56
/// bytes) per change of window, slow-start threshold or phase (per round
/// for the Vegas family, per ACK frame for NewReno in congestion
/// avoidance); `events` by one [`ControllerEvent`] per decision record
/// (per round).
#[derive(Debug, Default, Clone)]
pub struct TraceData {
    /// Packets handed to the controller as sent (in flight).
    pub sent_packets: u64,
    /// ACK frames (and loss timeouts) handed to the controller.
    pub congestion_events: u64,
    pub acked_packets: u64,
    pub acked_bytes: u64,
    pub lost_packets: u64,
    pub lost_bytes: u64,
    /// Packets discarded with their packet number space (never acked/lost).
    pub neutered_packets: u64,
    pub pto_events: u64,
    /// The window after every event that changed it (or the threshold or
    /// the phase).
    pub cwnd: Vec<CwndSample>,
    /// Every decision record the controller made.
    pub events: Vec<ControllerEvent>,
}

/// One point of the window trace.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CwndSample {
    pub time: Instant,
    pub cwnd_bytes: usize,
    pub ssthresh_bytes: Option<usize>,
    pub bytes_in_flight: usize,
    pub phase: Phase,
}

/// A shared trace; one per connection (path).
pub type Trace = Arc<Mutex<TraceData>>;

/// A gate in front of a controller: while it is closed, the controller (and
/// its trace) sees none of quiche's events, and keeps the window it was
/// built with. The simulator closes it for a connection whose handshake
/// runs ahead of the measured transfer and opens it at the flow's start, so
/// that nothing learned in the handshake (window growth, RTT samples,
/// BaseRTT) counts, as in the papers' simulators, whose agents had no
/// handshake. Opened once, it stays open; a controller without a gate
/// sees every event.
#[derive(Clone, Debug, Default)]
pub struct StartGate(Arc<AtomicBool>);

impl StartGate {
    /// A closed gate.
    pub fn closed() -> Self {
        StartGate::default()
    }

    /// Opens the gate: every event from now on reaches the controller.
    pub fn open(&self) {
        self.0.store(true, Ordering::Release);
    }

    /// Whether the gate is open.
    pub fn is_open(&self) -> bool {
        self.0.load(Ordering::Acquire)
    }
}

/// Between a controller that holds the sender and the driver that wakes
/// it: the time a controller holds the sender until
/// ([`Controller::send_hold_until`], the 500 ms tick of `newreno`'s
/// `tick_wait`). From the moment the controller asks, the adapter answers
/// quiche that no window is free; quiche has no timer for the hold's end,
/// so the driver (the simulator) takes the time with [`HoldAlarm::take`]
/// after each call into the connection, and at that time calls
/// [`HoldAlarm::release`] and drives the connection again. The adapter
/// reads no clock (quiche's is not public without the simulator's patch).
/// A factory with an alarm builds controllers for
/// [`spec::Driver::WakesAtHolds`]; without one, keys that hold the sender
/// are refused.
#[derive(Clone, Debug, Default)]
pub struct HoldAlarm(Arc<Mutex<AlarmState>>);

#[derive(Debug, Default)]
struct AlarmState {
    /// The hold in force: its end, until the driver releases it.
    holding: Option<Instant>,
    /// A hold's end the driver has not taken yet.
    to_wake: Option<Instant>,
}

impl HoldAlarm {
    /// An alarm with nothing asked.
    pub fn new() -> Self {
        HoldAlarm::default()
    }

    /// The end of a hold asked since the last take, if any: the driver
    /// wakes the connection then.
    pub fn take(&self) -> Option<Instant> {
        self.0.lock().map(|mut s| s.to_wake.take()).unwrap_or(None)
    }

    /// The hold that ends at `until` is over (a later hold stays).
    pub fn release(&self, until: Instant) {
        if let Ok(mut s) = self.0.lock() {
            if s.holding == Some(until) {
                s.holding = None;
            }
        }
    }

    /// Whether a hold is in force.
    pub fn holds(&self) -> bool {
        self.0.lock().map(|s| s.holding.is_some()).unwrap_or(false)
    }

    fn ask(&self, until: Instant) {
        if let Ok(mut s) = self.0.lock() {
            s.holding = Some(until);
            s.to_wake = Some(until);
        }
    }
}

/// Builds the `vegas-cc` controller of `spec` for a path run by an event
/// loop ([`spec::Driver::EventsOnly`]).
pub fn build_controller(
    spec: &CcSpec,
    initial_cwnd_pkts: usize,
    max_datagram_size: usize,
) -> Result<Box<dyn Controller>, Error> {
    build_controller_for(
        spec::Driver::EventsOnly,
        spec,
        initial_cwnd_pkts,
        max_datagram_size,
    )
}

/// Builds the `vegas-cc` controller of `spec` for a path run by `driver`.
pub fn build_controller_for(
    driver: spec::Driver,
    spec: &CcSpec,
    initial_cwnd_pkts: usize,
    max_datagram_size: usize,
) -> Result<Box<dyn Controller>, Error> {
    if !spec.algorithm.is_vegas_cc() {
        return Err(Error::Param {
            field: "algorithm".into(),
            value: spec.algorithm.name().into(),
            allowed: "a vegas-cc algorithm (quiche's own are configured \
                      with Config::set_cc_algorithm)"
                .into(),
        });
    }
    Ok(spec::build_for(
        driver,
        spec.algorithm.name(),
        &spec.params,
        initial_cwnd_pkts,
        max_datagram_size,
    )?)
}

/// The one call that puts an algorithm on a `quiche::Config`: here, with
/// the rest of the bridge to quiche's congestion trait.
impl CcSpec {
    /// Configures `config` to use this algorithm on every new connection.
    pub fn configure(&self, config: &mut quiche::Config) {
        self.configure_traced(config, None)
    }

    /// Like [`CcSpec::configure`]; every controller made also records what
    /// it saw into `trace` (for tests and the simulator).
    pub fn configure_traced(&self, config: &mut quiche::Config, trace: Option<Trace>) {
        self.configure_gated(config, trace, None)
    }

    /// Like [`CcSpec::configure_traced`]; every controller made sits
    /// behind `gate` (a [`StartGate`]) when one is given. quiche's own
    /// algorithms take no gate.
    pub fn configure_gated(
        &self,
        config: &mut quiche::Config,
        trace: Option<Trace>,
        gate: Option<StartGate>,
    ) {
        self.configure_driven(config, trace, gate, None)
    }

    /// Like [`CcSpec::configure_gated`]; with an `alarm` ([`HoldAlarm`]),
    /// for a driver that wakes the sender when a controller's hold ends.
    pub fn configure_driven(
        &self,
        config: &mut quiche::Config,
        trace: Option<Trace>,
        gate: Option<StartGate>,
        alarm: Option<HoldAlarm>,
    ) {
        match self.algorithm {
            Algorithm::QuicheReno => {
                config.set_congestion_controller_factory(None);
                config.set_cc_algorithm(quiche::CongestionControlAlgorithm::Reno)
            }
            Algorithm::QuicheCubic => {
                config.set_congestion_controller_factory(None);
                config.set_cc_algorithm(quiche::CongestionControlAlgorithm::CUBIC)
            }
            Algorithm::QuicheBbr2 => {
                config.set_congestion_controller_factory(None);
                config.set_cc_algorithm(quiche::CongestionControlAlgorithm::Bbr2Gcongestion)
            }
            _ => {
                config.set_congestion_controller_factory(Some(Arc::new(
                    VegasCcFactory::new(self.clone(), trace)
                        .with_gate(gate)
                        .with_alarm(alarm),
                )));
            }
        }
    }
}

/// Makes one adapter per path for quiche.
pub struct VegasCcFactory {
    spec: CcSpec,
    trace: Option<Trace>,
    gate: Option<StartGate>,
    alarm: Option<HoldAlarm>,
}

impl VegasCcFactory {
    /// `spec` must have been validated by [`CcSpec::new`].
    pub fn new(spec: CcSpec, trace: Option<Trace>) -> Self {
        VegasCcFactory {
            spec,
            trace,
            gate: None,
            alarm: None,
        }
    }

    /// Every controller made sits behind `gate` ([`StartGate`]).
    pub fn with_gate(mut self, gate: Option<StartGate>) -> Self {
        self.gate = gate;
        self
    }

    /// Every controller made reports its holds to `alarm` ([`HoldAlarm`]),
    /// and may hold the sender.
    pub fn with_alarm(mut self, alarm: Option<HoldAlarm>) -> Self {
        self.alarm = alarm;
        self
    }
}

impl CongestionControllerFactory for VegasCcFactory {
    /// Never fails inside quiche: quiche's initial window and datagram
    /// size are brought into what `vegas-cc` accepts (quiche allows an
    /// initial window of 1 packet, below RFC 9002 7.2's minimum window of
    /// 2), and a spec that still does not build (one made without
    /// [`CcSpec::new`]) gives default Vegas. Each adjustment becomes a
    /// `vegas:warning` qlog event.
    fn new_controller(&self, init: &ControllerInit) -> Box<dyn CongestionController> {
        let mut warnings = Vec::new();
        let initial_cwnd_pkts = init.initial_congestion_window_packets.clamp(
            vegas_cc::vegas::MIN_WINDOW_PKTS,
            vegas_cc::MAX_INITIAL_WINDOW_PKTS,
        );
        if initial_cwnd_pkts != init.initial_congestion_window_packets {
            warnings.push(format!(
                "quiche's initial congestion window of {} packets is outside what vegas-cc \
                 accepts ({} to {}): using {initial_cwnd_pkts}",
                init.initial_congestion_window_packets,
                vegas_cc::vegas::MIN_WINDOW_PKTS,
                vegas_cc::MAX_INITIAL_WINDOW_PKTS
            ));
        }
        let max_datagram_size = init
            .max_datagram_size
            .clamp(1, vegas_cc::MAX_DATAGRAM_SIZE_BYTES);
        if max_datagram_size != init.max_datagram_size {
            warnings.push(format!(
                "quiche's max datagram size of {} bytes is outside 1 to {}: using {max_datagram_size}",
                init.max_datagram_size,
                vegas_cc::MAX_DATAGRAM_SIZE_BYTES
            ));
        }
        let driver = match self.alarm {
            Some(_) => spec::Driver::WakesAtHolds,
            None => spec::Driver::EventsOnly,
        };
        let controller =
            build_controller_for(driver, &self.spec, initial_cwnd_pkts, max_datagram_size)
                .unwrap_or_else(|e| {
                    warnings.push(format!(
                        "{}: {e}; using vegas with its defaults",
                        self.spec.algorithm
                    ));
                    let config = vegas_cc::VegasConfig {
                        initial_cwnd_pkts,
                        max_datagram_size,
                        ..vegas_cc::VegasConfig::default()
                    };
                    Box::new(vegas_cc::Vegas::new(config).expect("the defaults are valid"))
                });
        let mut adapter = Adapter::new(controller, self.trace.clone());
        adapter.gate = self.gate.clone();
        adapter.alarm = self.alarm.clone();
        adapter.warnings = warnings;
        Box::new(adapter)
    }
}

/// A `vegas-cc` controller as quiche sees it.
#[derive(Debug)]
pub struct Adapter {
    controller: Box<dyn Controller>,
    /// Reused per ACK: quiche's acked/lost packets in vegas-cc's types.
    acked: Vec<AckedPacket>,
    lost: Vec<LostPacket>,
    /// Decision records waiting for qlog.
    qlog_queue: EventQueue,
    /// Adjustments made when the controller was built, for qlog, and the
    /// time of the first event after (a controller has no clock).
    warnings: Vec<String>,
    warnings_at: Option<Instant>,
    /// Records the qlog queue had dropped at the last drain (reported).
    qlog_dropped_reported: u64,
    trace: Option<Trace>,
    /// While closed, quiche's events do not reach the controller.
    gate: Option<StartGate>,
    /// Where the controller's holds go for the driver, and the last one
    /// sent there.
    alarm: Option<HoldAlarm>,
    hold_asked: Option<Instant>,
}

/// Decision records kept for qlog between two drains.
const QLOG_QUEUE_CAPACITY: usize = 1024;

impl Adapter {
    pub fn new(controller: Box<dyn Controller>, trace: Option<Trace>) -> Self {
        Adapter {
            controller,
            acked: Vec::with_capacity(64),
            lost: Vec::with_capacity(16),
            qlog_queue: EventQueue::with_capacity(QLOG_QUEUE_CAPACITY),
            warnings: Vec::new(),
            warnings_at: None,
            qlog_dropped_reported: 0,
            trace,
            gate: None,
            alarm: None,
            hold_asked: None,
        }
    }

    /// Whether quiche's events reach the controller ([`StartGate`]).
    fn sees_events(&self) -> bool {
        self.gate.as_ref().is_none_or(StartGate::is_open)
    }

    /// Moves the controller's new decision records to the qlog queue (and
    /// the trace).
    fn collect_events(&mut self, now: Instant, bytes_in_flight: usize) {
        if let (Some(alarm), Some(until)) = (&self.alarm, self.controller.send_hold_until()) {
            if self.hold_asked != Some(until) {
                self.hold_asked = Some(until);
                alarm.ask(until);
            }
        }
        if !self.warnings.is_empty() {
            self.warnings_at.get_or_insert(now);
        }
        while let Some(ev) = self.controller.poll_event() {
            self.qlog_queue.push(ev);
            if let Some(trace) = &self.trace {
                trace.lock().unwrap().events.push(ev);
            }
        }
        if let Some(trace) = &self.trace {
            let sample = CwndSample {
                time: now,
                cwnd_bytes: self.controller.cwnd_bytes(),
                ssthresh_bytes: self.controller.ssthresh_bytes(),
                bytes_in_flight,
                phase: self.controller.phase(),
            };
            let cwnd = &mut trace.lock().unwrap().cwnd;
            let changed = cwnd.last().is_none_or(|last| {
                (last.cwnd_bytes, last.ssthresh_bytes, last.phase)
                    != (sample.cwnd_bytes, sample.ssthresh_bytes, sample.phase)
            });
            if changed {
                cwnd.push(sample);
            }
        }
    }

    fn with_trace(&self, f: impl FnOnce(&mut TraceData)) {
        if let Some(trace) = &self.trace {
            f(&mut trace.lock().unwrap());
        }
    }
}

impl CongestionController for Adapter {
    fn on_packet_sent(
        &mut self,
        sent_time: Instant,
        bytes_in_flight: usize,
        pkt_num: u64,
        bytes: usize,
        _is_retransmissible: bool,
    ) {
        if !self.sees_events() {
            return;
        }
        // quiche hands the controller only packets that count in flight.
        let packet = SentPacket {
            pkt_num,
            time_sent: sent_time,
            size_bytes: bytes,
            bytes_in_flight_before: bytes_in_flight,
            in_flight: true,
        };
        self.controller.on_packet_sent(sent_time, &packet);
        self.with_trace(|t| t.sent_packets += 1);
    }

    fn on_congestion_event(&mut self, event: &CongestionEvent) {
        if !self.sees_events() {
            return;
        }
        self.acked.clear();
        self.acked.extend(event.acked.iter().map(|a| AckedPacket {
            pkt_num: a.pkt_num,
            time_sent: a.time_sent,
            size_bytes: a.size,
        }));
        self.lost.clear();
        self.lost.extend(event.lost.iter().map(|l| LostPacket {
            pkt_num: l.packet_number,
            time_sent: l.time_sent,
            size_bytes: l.bytes_lost,
        }));
        let ack_event = AckEvent {
            now: event.now,
            acked: &self.acked,
            lost: &self.lost,
            rtt_sample: event.rtt_sample.map(|sample| RttSample {
                latest_rtt: sample.latest_rtt,
                ack_delay: sample.ack_delay,
            }),
            min_rtt: event.min_rtt,
            smoothed_rtt: event.smoothed_rtt,
            max_ack_delay: event.max_ack_delay,
            prior_bytes_in_flight: event.prior_bytes_in_flight,
            bytes_in_flight: event.bytes_in_flight,
            persistent_congestion: event.persistent_congestion,
        };
        self.controller.on_ack_event(&ack_event);
        if self.trace.is_some() {
            let acked_bytes: usize = self.acked.iter().map(|a| a.size_bytes).sum();
            let lost_bytes: usize = self.lost.iter().map(|l| l.size_bytes).sum();
            let (acked, lost) = (self.acked.len(), self.lost.len());
            self.with_trace(|t| {
                t.congestion_events += 1;
                t.acked_packets += acked as u64;
                t.acked_bytes += acked_bytes as u64;
                t.lost_packets += lost as u64;
                t.lost_bytes += lost_bytes as u64;
            });
        }
        self.collect_events(event.now, event.bytes_in_flight);
    }

    fn on_retransmission_timeout(&mut self, now: Instant, _packets_retransmitted: bool) {
        if !self.sees_events() {
            return;
        }
        self.controller.on_pto(now);
        self.with_trace(|t| t.pto_events += 1);
        self.collect_events(now, 0);
    }

    fn on_app_limited(&mut self, now: Instant, bytes_in_flight: usize) {
        if !self.sees_events() {
            return;
        }
        self.controller.on_app_limited(now, bytes_in_flight);
    }

    fn on_packet_neutered(&mut self, _pkt_num: u64) {
        if !self.sees_events() {
            return;
        }
        self.with_trace(|t| t.neutered_packets += 1);
    }

    fn on_connection_migration(&mut self, now: Instant) {
        if !self.sees_events() {
            return;
        }
        self.controller.on_path_change(now);
    }

    fn update_max_datagram_size(&mut self, max_datagram_size: usize) {
        self.controller.set_max_datagram_size(max_datagram_size);
    }

    fn congestion_window(&self) -> usize {
        self.controller.cwnd_bytes()
    }

    fn cwnd_available(&self, bytes_in_flight: usize) -> usize {
        if self.alarm.as_ref().is_some_and(HoldAlarm::holds) {
            return 0;
        }
        self.controller.cwnd_available_bytes(bytes_in_flight)
    }

    fn pacing_rate(&self, smoothed_rtt: Duration) -> Option<u64> {
        self.controller.pacing_rate_bytes_per_sec(smoothed_rtt)
    }

    fn in_recovery(&self) -> bool {
        self.controller.in_recovery()
    }

    fn ssthresh(&self) -> Option<u64> {
        self.controller.ssthresh_bytes().map(|b| b as u64)
    }

    fn state_str(&self) -> &'static str {
        self.controller.phase().as_str()
    }

    fn drain_qlog_events(&mut self, sink: &mut dyn FnMut(Instant, qlog::events::JsonEvent)) {
        if let Some(time) = self.warnings_at {
            for message in self.warnings.drain(..) {
                sink(time, warning_event(message));
            }
        }
        // Records the queue dropped since the last drain (quiche drained
        // too seldom): said once, at the oldest record kept.
        let dropped = self.qlog_queue.dropped();
        let newly_dropped = dropped - self.qlog_dropped_reported;
        self.qlog_dropped_reported = dropped;
        let mut first = true;
        while let Some(ev) = self.qlog_queue.pop() {
            let (time, json) = crate::qlog::to_json_event(&ev);
            if first && newly_dropped > 0 {
                sink(
                    time,
                    warning_event(format!(
                        "{newly_dropped} decision records dropped before this one: more than \
                         {QLOG_QUEUE_CAPACITY} between two qlog drains"
                    )),
                );
            }
            first = false;
            sink(time, json);
        }
    }
}

/// A `vegas:warning` qlog event.
fn warning_event(message: String) -> qlog::events::JsonEvent {
    qlog::events::JsonEvent {
        time: 0.0,
        importance: qlog::events::EventImportance::Base,
        name: "vegas:warning".to_string(),
        data: serde_json::json!({ "message": message }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assert_send_sync<T: Send + Sync>() {}

    #[test]
    fn a_held_sender_gets_no_window_until_the_driver_releases_it() {
        let params: spec::Params = [("reno_1995", "true"), ("tick_wait", "true")]
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let controller =
            spec::build_for(spec::Driver::WakesAtHolds, "newreno", &params, 10, 1200).unwrap();
        let mut adapter = Adapter::new(controller, None);
        let alarm = HoldAlarm::new();
        adapter.alarm = Some(alarm.clone());
        assert!(adapter.cwnd_available(0) > 0);
        assert_eq!(alarm.take(), None);
        // The alarm as the adapter sets it when the controller holds.
        let t0 = Instant::now();
        let until = t0 + Duration::from_millis(1500);
        alarm.ask(until);
        assert_eq!(adapter.cwnd_available(0), 0);
        assert_eq!(alarm.take(), Some(until), "the driver learns the end once");
        assert_eq!(alarm.take(), None);
        // An older hold's end does not release a later hold.
        alarm.release(t0);
        assert_eq!(adapter.cwnd_available(0), 0);
        alarm.release(until);
        assert!(adapter.cwnd_available(0) > 0);
    }

    /// quiche's `Connection` is `Send + Sync` (quiche's own `check_sync`
    /// test); a connection carrying our controller must stay so.
    /// A full qlog queue drops the oldest records and says so once, in
    /// the qlog, before the records it kept.
    #[test]
    fn dropped_qlog_records_are_reported() {
        let controller = vegas_cc::spec::build("vegas", &Default::default(), 10, 1200).unwrap();
        let mut adapter = Adapter::new(controller, None);
        let now = Instant::now();
        let record = |i: usize| ControllerEvent::ParamsChanged {
            now: now + Duration::from_millis(i as u64),
            alpha_pkts: 1.0,
            beta_pkts: 3.0,
        };
        let drain = |adapter: &mut Adapter| {
            let mut names = Vec::new();
            adapter.drain_qlog_events(&mut |_, e| names.push((e.name, e.data)));
            names
        };
        for i in 0..QLOG_QUEUE_CAPACITY + 5 {
            adapter.qlog_queue.push(record(i));
        }
        let got = drain(&mut adapter);
        assert_eq!(got.len(), QLOG_QUEUE_CAPACITY + 1);
        assert_eq!(got[0].0, "vegas:warning");
        let message = got[0].1["message"].as_str().unwrap();
        assert!(
            message.starts_with("5 decision records dropped"),
            "{message}"
        );
        assert!(got[1..].iter().all(|(n, _)| n == "vegas:params_changed"));
        // Nothing dropped since: no warning.
        adapter.qlog_queue.push(record(0));
        let got = drain(&mut adapter);
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].0, "vegas:params_changed");
    }

    #[test]
    fn connections_with_our_controllers_stay_send_and_sync() {
        assert_send_sync::<Adapter>();
        assert_send_sync::<VegasCcFactory>();
        assert_send_sync::<quiche::Connection>();
    }
}
