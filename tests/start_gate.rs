//! The adapter's start gate: a closed gate keeps every quiche event from
//! the controller and its trace; once opened, the controller works from
//! the state it was built with, as if the events before had not happened.

use std::time::Duration;
use std::time::Instant;

use quiche::congestion::CongestionController;
use quiche::congestion::CongestionControllerFactory;
use quiche::congestion::ControllerInit;
use quiche_vegas::adapter::VegasCcFactory;
use quiche_vegas::StartGate;
use quiche_vegas::Trace;

#[path = "support/ack_sequence.rs"]
mod ack_sequence;

fn adapter(name: &str, gate: &StartGate, trace: &Trace) -> Box<dyn CongestionController> {
    let algorithm = name.parse().unwrap();
    let spec = quiche_vegas::CcSpec::new(algorithm, ack_sequence::params(name)).unwrap();
    let factory = VegasCcFactory::new(spec, Some(trace.clone())).with_gate(Some(gate.clone()));
    factory.new_controller(&ControllerInit {
        initial_congestion_window_packets: 10,
        max_datagram_size: ack_sequence::DATAGRAM_BYTES,
        initial_rtt: Duration::from_millis(333),
    })
}

#[test]
fn a_closed_gate_hides_every_event_and_an_open_one_lets_them_through() {
    let frames = ack_sequence::sequence(4_000);
    let (before_start, after_start) = frames.split_at(2_000);
    for name in ["vegas", "gallop-vegas", "newreno"] {
        let gate = StartGate::closed();
        let trace = Trace::default();
        let mut gated = adapter(name, &gate, &trace);
        let initial_cwnd = gated.congestion_window();
        let mut acked = Vec::with_capacity(8);
        let start = Instant::now();
        ack_sequence::replay_quiche(gated.as_mut(), before_start, start, &mut acked);
        assert_eq!(
            gated.congestion_window(),
            initial_cwnd,
            "{name}: window held"
        );
        {
            let t = trace.lock().unwrap();
            assert_eq!(
                (
                    t.sent_packets,
                    t.congestion_events,
                    t.events.len(),
                    t.cwnd.len()
                ),
                (0, 0, 0, 0),
                "{name}: nothing traced behind a closed gate"
            );
        }
        // Opened, it takes the rest as a controller that never saw the
        // first part does.
        gate.open();
        let (open, fresh_trace) = (StartGate::closed(), Trace::default());
        open.open();
        let mut fresh = adapter(name, &open, &fresh_trace);
        ack_sequence::replay_quiche(gated.as_mut(), after_start, start, &mut acked);
        ack_sequence::replay_quiche(fresh.as_mut(), after_start, start, &mut acked);
        assert_ne!(gated.congestion_window(), initial_cwnd, "{name}: it works");
        assert_eq!(
            gated.congestion_window(),
            fresh.congestion_window(),
            "{name}"
        );
        let (t, f) = (trace.lock().unwrap(), fresh_trace.lock().unwrap());
        assert!(name == "newreno" || (t.sent_packets > 0 && !t.events.is_empty()));
        assert_eq!(
            (
                t.sent_packets,
                t.acked_packets,
                t.events.len(),
                t.cwnd.len()
            ),
            (
                f.sent_packets,
                f.acked_packets,
                f.events.len(),
                f.cwnd.len()
            ),
            "{name}: traced as the fresh controller"
        );
    }
}
