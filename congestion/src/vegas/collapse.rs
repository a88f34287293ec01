//! A queue collapse that no backoff of ours explains (not in the papers):
//! the other flow's multiplicative decrease, seen from outside.
//!
//! A loss-based flow answers an overflow by cutting its window (Reno and
//! NewReno by half, CUBIC by 30%): the queue it held drains within a round,
//! whether or not our own packets were lost. In a shallow buffer a Vegas
//! flow beside it holds so small a window that it rarely loses a packet
//! when the buffer overflows, and the other flow's queue never reaches the
//! depth that stands in for a loss ([`super::coexist`]): beside Reno with
//! half a BDP of buffer the flow yielded for the whole run (share 0.08 to
//! 0.10). Vegas flows do not make the queue collapse: each holds alpha..beta
//! packets and lowers its window one packet per round. [`CollapseWatch`]
//! looks for a queue of at least a quarter of BaseRTT that falls to half or
//! less within [`COLLAPSE_ROUNDS`] rounds while our window was not cut by
//! enough to explain it; coexistence counts it as a congestive loss.
//!
//! The queue must also have stood: a quarter of BaseRTT in each of the
//! second and third rounds before the current one (the fall may straddle
//! the last round and this one). A loss-based flow's queue builds over
//! many rounds before its reduction; a link whose rate dips
//! and recovers (a cellular link alone) raises the queue for a round or
//! two and lets it fall, and so does the first round after a return test.
//! Alone on the T-Mobile UMTS trace a flow back from a return test read one
//! round of 17 ms falling to 8 ms as a collapse, switched back, and
//! competed for the rest of the run (p95 RTT 934 ms; 384 ms with the gate).

use std::time::Duration;
use std::time::Instant;

use super::coexist::QUEUE_FRACTION;
use crate::sampler::AGGREGATION_MEMORY;

/// The queue must fall to this fraction of its depth: Reno's and NewReno's
/// halving (Jacobson 1988, RFC 5681 3.1), CUBIC's 0.7 (RFC 9438 4.6) of a
/// window that holds a full buffer leave at most half the queue. Our
/// choice.
pub const COLLAPSE_FRACTION: f64 = 0.5;

/// The rounds before the current one whose queue is compared with it: the
/// other flow's reduction drains the queue in under a round (its window
/// falls at once), and a round's RTT may straddle it.
pub const COLLAPSE_ROUNDS: usize = 2;

/// Rounds of our own window kept: a cut shows in the RTTs of the round
/// after the next (the ACK clock and pacing lag a round), so the window of
/// one round more than the queue's is compared.
const WINDOW_ROUNDS: usize = COLLAPSE_ROUNDS + 1;

/// Rounds read from the hold bounds within [`AGGREGATION_MEMORY`] that
/// mark a path holding ACKs: there most rounds are (Vegas-A alone with
/// 20 ms of ACK aggregation at 10 Mbit/s x 40 ms: 265 of 494), while a
/// collapse's own sudden fall can read as one (beside Reno at 10 Mbit/s x
/// 80 ms: one round in each 9 s cycle, at the halving). Our choice.
pub const HELD_ROUNDS: usize = 3;

/// What a collapse measured.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Collapse {
    /// The deepest queueing delay of the rounds before it.
    pub queue_before: Duration,
    /// How far it fell, in seconds.
    pub drop_secs: f64,
}

/// One delay-mode round, as the watch keeps it.
#[derive(Clone, Copy, Debug)]
struct Round {
    queue_secs: f64,
    /// The BaseRTT the queue was measured from.
    base_rtt: Duration,
    cwnd_bytes: usize,
}

/// The last rounds' queue and window (module documentation).
#[derive(Clone, Copy, Debug, Default)]
pub struct CollapseWatch {
    /// Newest last.
    rounds: [Option<Round>; WINDOW_ROUNDS],
    /// The last [`HELD_ROUNDS`] rounds whose RTT came from the
    /// ACK-aggregation hold bounds, newest last.
    hold_bounded: [Option<Instant>; HELD_ROUNDS],
}

impl CollapseWatch {
    /// A congestion-avoidance round in delay mode: its queueing delay (RTT
    /// minus the path's BaseRTT, in seconds), that BaseRTT, the window the
    /// round started with, and the time one of our packets takes at our
    /// own rate (an upper bound on how far a one-packet cut of ours lowers
    /// the queue). Some when the queue collapsed; the rounds before it are
    /// then forgotten, so that one collapse counts once.
    ///
    /// That bound is loose when our share is small (a packet of ours is
    /// then many of the link's), and a flow that backs off as the queue
    /// nears the overflow always has a cut in flight when the other flow
    /// reduces: beside ngtcp2's CUBIC at 50 Mbit/s x 40 ms, three packets
    /// cut at our rate explained every 21 ms fall, and the flow held 6% of
    /// the link. `cut_failed` (the queue grew after our cut had time to
    /// show, [`super::coexist`]) says the cut explains nothing.
    ///
    /// Nothing counts while [`HELD_ROUNDS`] rounds within
    /// [`AGGREGATION_MEMORY`] had their RTT from the hold bounds
    /// (`rtt_from_hold_bounds`): where the path holds ACKs a round's RTT
    /// swings by the hold, tens of milliseconds (Vegas-A alone with 20 ms
    /// of ACK aggregation at 10 Mbit/s x 40 ms switched on such swings).
    #[allow(clippy::too_many_arguments)]
    pub fn on_round(
        &mut self,
        now: Instant,
        rtt_from_hold_bounds: bool,
        cut_failed: bool,
        queue_secs: f64,
        base_rtt: Duration,
        cwnd_bytes: usize,
        one_pkt_secs: f64,
        max_datagram_size: usize,
    ) -> Option<Collapse> {
        if self.rounds.iter().flatten().any(|r| r.base_rtt != base_rtt) {
            // The queue is measured from another BaseRTT now (the path's
            // lowest expired, or a lower one was seen): the rounds before
            // are not comparable, and a risen BaseRTT is no collapse.
            self.rounds = Default::default();
        }
        // Whether the queue stood (module documentation): the rounds kept
        // but the newest, which may already be falling.
        let stood = self.rounds[..WINDOW_ROUNDS - 1]
            .iter()
            .all(|r| r.is_some_and(|r| r.queue_secs >= QUEUE_FRACTION * base_rtt.as_secs_f64()));
        let before = self.rounds[WINDOW_ROUNDS - COLLAPSE_ROUNDS..]
            .iter()
            .flatten()
            .map(|r| r.queue_secs)
            .fold(f64::NEG_INFINITY, f64::max);
        // Our largest cut over the rounds kept and this one (a BaseRTT
        // drain may be over, the window restored, before its RTTs show).
        let (_, cut_bytes) = self
            .rounds
            .iter()
            .flatten()
            .map(|r| r.cwnd_bytes)
            .chain([cwnd_bytes])
            .fold((0, 0), |(peak, cut): (usize, usize), w| {
                (peak.max(w), cut.max(peak.saturating_sub(w)))
            });
        self.rounds.rotate_left(1);
        self.rounds[WINDOW_ROUNDS - 1] = Some(Round {
            queue_secs,
            base_rtt,
            cwnd_bytes,
        });
        if rtt_from_hold_bounds {
            self.hold_bounded.rotate_left(1);
            self.hold_bounded[HELD_ROUNDS - 1] = Some(now);
        }
        if self.hold_bounded[0]
            .is_some_and(|at| now.saturating_duration_since(at) <= AGGREGATION_MEMORY)
        {
            return None;
        }
        if !stood
            || before < QUEUE_FRACTION * base_rtt.as_secs_f64()
            || queue_secs > COLLAPSE_FRACTION * before
        {
            return None;
        }
        let drop_secs = before - queue_secs;
        let cut_pkts = cut_bytes as f64 / max_datagram_size.max(1) as f64;
        if !cut_failed && cut_pkts * one_pkt_secs >= COLLAPSE_FRACTION * drop_secs {
            // Our own cut could have drained that much.
            return None;
        }
        self.rounds = Default::default();
        Some(Collapse {
            queue_before: Duration::from_secs_f64(before),
            drop_secs,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MDS: usize = 1200;
    const BASE: Duration = Duration::from_millis(20);

    /// Rounds of (queue ms, window packets) at one packet per `one_pkt_ms`;
    /// the index of each collapse found.
    fn replay(rounds: &[(f64, usize)], one_pkt_ms: f64) -> Vec<usize> {
        replay_held(rounds, one_pkt_ms, &[])
    }

    /// The same, the rounds at the indices in `held` read from the hold
    /// bounds; each round BaseRTT plus its queue long.
    fn replay_held(rounds: &[(f64, usize)], one_pkt_ms: f64, held: &[usize]) -> Vec<usize> {
        let mut watch = CollapseWatch::default();
        let mut now = Instant::now();
        rounds
            .iter()
            .enumerate()
            .filter_map(|(i, &(queue_ms, cwnd_pkts))| {
                now += BASE + Duration::from_secs_f64(queue_ms / 1e3);
                let one_pkt_secs = one_pkt_ms / 1e3;
                watch
                    .on_round(
                        now,
                        held.contains(&i),
                        false,
                        queue_ms / 1e3,
                        BASE,
                        cwnd_pkts * MDS,
                        one_pkt_secs,
                        MDS,
                    )
                    .map(|_| i)
            })
            .collect()
    }

    #[test]
    fn renos_halving_beside_a_small_window_is_a_collapse() {
        // Measured beside Reno at 100 Mbit/s x 20 ms with half a BDP of
        // buffer: the queue grows to 7.4 ms (a third of BaseRTT) while our
        // window falls to 9 packets, then Reno halves and it is gone.
        let rounds = [
            (6.6, 10),
            (6.9, 10),
            (7.2, 9),
            (7.4, 9),
            (0.0, 9),
            (0.0, 10),
        ];
        assert_eq!(replay(&rounds, 2.7), vec![4]);
        // Straddling two rounds, once.
        let rounds = [(7.2, 9), (7.4, 9), (4.5, 9), (0.1, 9), (0.0, 10)];
        assert_eq!(replay(&rounds, 2.7), vec![3]);
    }

    #[test]
    fn a_queue_that_did_not_stand_is_not_a_collapse() {
        // Alone on the T-Mobile UMTS trace, the first rounds after a return
        // test: nothing kept, then 17 ms (over a BaseRTT of 31 ms) falling
        // to 8 ms, our window held.
        let base = Duration::from_millis(31);
        let mut watch = CollapseWatch::default();
        let now = Instant::now();
        let mut round = |at_ms: u64, queue_ms: f64| {
            let at = now + Duration::from_millis(at_ms);
            watch.on_round(at, false, false, queue_ms / 1e3, base, 12 * MDS, 0.006, MDS)
        };
        assert_eq!(round(120, 17.3), None);
        assert_eq!(round(170, 7.8), None);
        // A rate dip: the queue from nothing to a round of 12 ms and back.
        let spike = [(0.0, 20), (2.0, 20), (12.0, 20), (0.0, 20)];
        assert!(replay(&spike, 0.5).is_empty());
        // The same fall after the queue stood two rounds is a collapse.
        let stood = [(0.0, 20), (8.0, 20), (8.0, 20), (12.0, 20), (0.0, 20)];
        assert_eq!(replay(&stood, 0.5), vec![4]);
        // One round short of a quarter of BaseRTT (5 ms) among them is not.
        let short = [(0.0, 20), (8.0, 20), (4.9, 20), (12.0, 20), (0.0, 20)];
        assert!(replay(&short, 0.5).is_empty());
    }

    #[test]
    fn a_risen_base_rtt_is_not_a_collapse() {
        // The path got longer (40 -> 220 ms at 1 Mbit/s): the queue read
        // from the old path's BaseRTT is 180 ms until that BaseRTT expires
        // and the longer path's is used. The same rounds read from one
        // BaseRTT fall to nothing: a collapse.
        let mut watch = CollapseWatch::default();
        let mut now = Instant::now();
        let (old_base, new_base) = (Duration::from_millis(50), Duration::from_millis(230));
        let mut round = |queue_ms: f64, base: Duration| {
            now += Duration::from_millis(250);
            watch.on_round(now, false, false, queue_ms / 1e3, base, 26 * MDS, 0.01, MDS)
        };
        for _ in 0..3 {
            assert_eq!(round(199.0, old_base), None);
        }
        assert_eq!(round(19.0, new_base), None);
        assert_eq!(round(19.0, new_base), None);
        // Measured from one BaseRTT the same fall is one.
        for _ in 0..3 {
            assert_eq!(round(199.0, new_base), None);
        }
        assert!(round(19.0, new_base).is_some());
    }

    #[test]
    fn a_shallow_queue_a_partial_fall_or_our_own_drain_is_not() {
        // A queue under a quarter of BaseRTT (Vegas's own alpha..beta).
        assert!(replay(&[(4.0, 40), (4.0, 40), (0.0, 40)], 0.5).is_empty());
        // The queue fell by a third, not to half.
        assert!(replay(&[(8.0, 10), (8.0, 10), (5.5, 10)], 2.0).is_empty());
        // Our BaseRTT drain: 30 packets cut at 0.5 ms each empty 10 ms,
        // whether or not the window is back when the RTT shows it.
        assert!(replay(&[(10.0, 60), (10.0, 60), (10.0, 30), (0.0, 30)], 0.5).is_empty());
        assert!(replay(&[(10.0, 60), (10.0, 30), (10.0, 30), (0.0, 60)], 0.5).is_empty());
        // The same fall with our window held is a collapse.
        let held_window = [(10.0, 60), (10.0, 60), (10.0, 60), (0.0, 60)];
        assert_eq!(replay(&held_window, 0.5), vec![3]);
        // Not where the path held ACKs: HELD_ROUNDS rounds from the hold
        // bounds within AGGREGATION_MEMORY.
        assert!(replay_held(&held_window, 0.5, &[0, 1, 2]).is_empty());
        let mut after_memory = vec![(0.0, 60); 600];
        after_memory.extend(held_window);
        assert_eq!(replay_held(&after_memory, 0.5, &[0, 1, 2]), vec![603]);
        // One or two such rounds (the collapse's own fall can read as one)
        // do not mark the path.
        assert_eq!(replay_held(&held_window, 0.5, &[2, 3]), vec![3]);
    }
}
