//! Test-only: the Vegas family behind one FIFO bottleneck with ACK clocking
//! (one ACK per packet, no loss), the setting of Gallop-Vegas section IV and
//! Vanichpun & Feng section III: a link of mu packets per second and a fixed
//! round-trip propagation delay. Checks that the per-RTT rules behave under
//! real ACK clocking and not only with whole-window ACKs.

use std::time::Duration;

use crate::controller::Controller;
use crate::events::Action;
use crate::events::ControllerEvent;
use crate::events::SlowStartExitCause;
use crate::test_sender::Bottleneck;
use crate::test_sender::MinRtt;
use crate::test_sender::MDS;
use crate::transient::analytic::gallop_conspicuous_window;
use crate::transient::analytic::SlowStartRtt;
use crate::types::Phase;
use crate::vegas::Vegas;
use crate::vegas::VegasConfig;

/// mu = 1000 packets/s, 100 ms propagation: BDP mu d = 101 packets.
const RATE: u32 = 1000;
const PROP: Duration = Duration::from_millis(100);
const BDP_PKTS: f64 = 101.0;

/// `config` on that bottleneck; the stack reports no min RTT.
fn path(config: VegasConfig) -> Bottleneck<Vegas> {
    let config = VegasConfig {
        max_datagram_size: MDS,
        ..config
    };
    Bottleneck::new(Vegas::new(config).unwrap(), MinRtt::Unreported, RATE, PROP)
}

/// Gallop-Vegas: with the round-average RTT (IV-A, eq. 13) the queue that
/// Gallop-Vegas's extra packets build within a window's train is what
/// first lifts Delta above gamma, at the "conspicuous" window of eq. 7 and
/// 13; incr is then halved and slow start ends below the BDP with far less
/// burstiness than Vegas's doubling (III-B, Figs. 6-7). The window then
/// settles with a few packets queued.
///
/// (This test used to assert an exit by Delta >= beta near mu d + beta,
/// eq. 16. That held only while paper mode's Actual was the bytes sent
/// over the distinguished packet's RTT, whose Diff did not see the train's
/// queue at all; see [`crate::sampler`]. With the papers' Actual = W / D
/// the first Delta > gamma comes where eq. 13 puts it, and the pseudo
/// code's halving ends slow start through `incr <= 1` before the BDP.)
#[test]
fn gallop_leaves_slow_start_gently_after_its_conspicuous_window() {
    let mut vegas = path(VegasConfig::paper());
    vegas.run_for(Duration::from_secs(8));
    let mut gallop = path(VegasConfig::paper().with_gallop());
    gallop.run_for(Duration::from_secs(8));
    // The first round with Delta > gamma: its window against eq. 13 + 7.
    let first_above_gamma_pkts = gallop
        .events
        .iter()
        .find_map(|(_, e)| match e {
            ControllerEvent::Round(d) if d.diff_pkts > d.gamma_pkts => {
                Some(d.cwnd_before_bytes as f64 / MDS as f64)
            }
            _ => None,
        })
        .unwrap();
    let conspicuous = gallop_conspicuous_window(BDP_PKTS, SlowStartRtt::RoundAverage)
        .unwrap()
        .window_pkts;
    assert!(
        (0.75 * conspicuous..=1.25 * conspicuous).contains(&first_above_gamma_pkts),
        "first Delta > gamma at {first_above_gamma_pkts}, eq. 13: {conspicuous}"
    );
    let (at, cause, gallop_exit) = gallop.slow_start_exit().unwrap();
    assert_eq!(cause, SlowStartExitCause::IncrementAtOne, "at {at:?}");
    assert!(
        (0.5 * BDP_PKTS..=BDP_PKTS + 10.0).contains(&gallop_exit),
        "{gallop_exit}"
    );
    // Measured: 8 against 15 (Vegas's last doubling, 16 -> 32).
    assert!(
        gallop.max_queue_pkts < vegas.max_queue_pkts,
        "gallop {} vegas {}",
        gallop.max_queue_pkts,
        vegas.max_queue_pkts
    );
    // Gallop-Vegas has settled with a few packets queued (alpha <= Diff
    // <= beta); Vegas, out of slow start at 7/8 of 32 packets, is still
    // climbing one packet per RTT (Gallop-Vegas eq. 6 vs 19).
    let cwnd = gallop.cwnd_pkts();
    assert!((BDP_PKTS..=BDP_PKTS + 3.0).contains(&cwnd), "{cwnd}");
    assert!(vegas.cwnd_pkts() < BDP_PKTS, "{}", vegas.cwnd_pkts());
    assert_eq!(gallop.sender.cc.name(), "gallop-vegas");
}

#[test]
fn gallop_never_releases_more_than_one_extra_packet_per_ack() {
    let mut gallop = path(VegasConfig::paper().with_gallop());
    let mut grown_bytes = 0;
    while gallop.sender.cc.phase() == Phase::SlowStart {
        let grow = gallop.step();
        assert!(grow <= MDS as isize, "{grow}");
        grown_bytes += grow.max(0);
    }
    assert!(grown_bytes > 50 * MDS as isize);
}

#[test]
fn vegas_a_keeps_a_bounded_queue_at_a_steady_bottleneck() {
    let mut vegas_a = path(VegasConfig::paper().with_vegas_a());
    vegas_a.run_for(Duration::from_secs(30));
    let alpha = vegas_a.sender.cc.alpha_pkts();
    let beta = vegas_a.sender.cc.beta_pkts();
    assert_eq!(beta - alpha, 2.0);
    assert!(alpha >= 1.0);
    // The window settles around mu d + a few packets, as Vegas's does.
    let cwnd = vegas_a.cwnd_pkts();
    assert!(
        (BDP_PKTS..BDP_PKTS + beta + 2.0).contains(&cwnd),
        "cwnd {cwnd}, alpha {alpha}, beta {beta}"
    );
    let rounds = vegas_a
        .events
        .iter()
        .filter(|(_, e)| {
            matches!(
                e,
                ControllerEvent::Round(d) if d.phase == Phase::CongestionAvoidance
                    && d.action != Action::Hold
            )
        })
        .count();
    assert!(rounds > 0);
    assert_eq!(vegas_a.sender.cc.name(), "vegas-a");
}
