//! Equal shares among family flows (default mode; not in the papers).
//!
//! Vegas holds every window whose Diff lies between alpha and beta and
//! leaves a window above beta by one packet per round (Brakmo & Peterson
//! III-B). Among flows that share a queue, each flow's Diff is its own
//! packets in that queue, in proportion to its rate, so:
//! - the band lets rates differ by up to beta / alpha (3x with the paper's
//!   1 and 3): a flow that arrives late stops growing at alpha while the
//!   flows before it hold at beta;
//! - a flow that filled the link alone gives its window back one packet per
//!   round, for tens of seconds on a fast path (measured:
//!   docs/constants.md, `vegas::VegasConfig::fair_share`).
//!
//! The window update of FAST TCP (Jin, Wei & Low, "FAST TCP: Motivation,
//! Architecture, Algorithms, Performance", INFOCOM 2004), Vegas's
//! descendant, has one rest point instead of a band: w <- w + gamma
//! (target - Diff) (their (1 - gamma) w + gamma (BaseRTT / RTT x w +
//! alpha), with BaseRTT / RTT x w = w - Diff). Flows with one BaseRTT are at
//! rest only when every Diff equals the target: equal rates. Here the
//! target is the middle of the band, and outside the band the paper's step
//! is the least the window moves:
//!
//! | Diff | window change per round (packets) |
//! |---|---|
//! | below alpha | +1 (the paper's) |
//! | alpha..beta | gamma x (middle - Diff): between -1/2 and +1/2 with the paper's 1 and 3 |
//! | above beta | -max(1, gamma x (Diff - middle)) |
//! | above beta, the queue deeper than a quarter of BaseRTT | -1 (the paper's) |
//!
//! The last row: a queue that deep is what the coexistence detector reads
//! as another kind of flow ([`super::coexist::QUEUE_FRACTION`]; ten family
//! flows on a path of 400 packets keep a twentieth), and it judges the
//! flow's backoffs. Halving the excess there can leave a flow with a window
//! of a few packets, whose share of the other flow's queue sits inside the
//! band, before the detector has seen three backoffs (measured:
//! docs/constants.md, `vegas::VegasConfig::fair_share`).
//!
//! One flow alone keeps the middle of the band (2 packets with alpha 1,
//! beta 3) instead of wherever it entered it. Vegas-A keeps its hold inside
//! its band (its alpha and beta move with Actual, and a window moving
//! inside the band moves Actual) and takes the decrease above beta.
//! `fair_share=off` restores the paper's steps; paper mode has them.

use crate::events::Action;

/// The gain of the update: the share of the distance to the target the
/// window moves per round. FAST TCP's update is stable for gamma in
/// (0, 1] (Jin, Wei & Low); 1/2 because a cut shows in Diff one round
/// late, so two rounds at 1/2 remove 3/4 of an excess and never more than
/// all of it (at 1 the second round would cut the excess again and empty
/// the queue). Measurements: `docs/coexistence.md`.
pub const FAIR_SHARE_GAIN: f64 = 0.5;

/// The window change (packets, negative to decrease) for a round that
/// measured `diff_pkts` against `alpha_pkts` and `beta_pkts` and whose
/// paper step is `action` ([`super::paper::avoidance_step`], or Vegas-A's
/// branch): the paper's step where it increases, FAST's update toward the
/// band's middle otherwise, at least the paper's one packet where the
/// paper decreases.
/// `deep_queue`: the round's queueing delay was more than
/// [`super::coexist::QUEUE_FRACTION`] of BaseRTT (module documentation).
pub fn window_change_pkts(
    action: Action,
    diff_pkts: f64,
    alpha_pkts: f64,
    beta_pkts: f64,
    deep_queue: bool,
) -> f64 {
    let middle_pkts = (alpha_pkts + beta_pkts) / 2.0;
    let toward_middle_pkts = FAIR_SHARE_GAIN * (middle_pkts - diff_pkts);
    match action {
        Action::Increase => super::paper::avoidance_step_pkts(action),
        Action::Decrease if deep_queue => super::paper::avoidance_step_pkts(action),
        Action::Decrease => toward_middle_pkts.min(super::paper::avoidance_step_pkts(action)),
        _ => toward_middle_pkts,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vegas::paper;

    fn change(diff_pkts: f64) -> f64 {
        let action = paper::avoidance_step(diff_pkts, 1.0, 3.0);
        window_change_pkts(action, diff_pkts, 1.0, 3.0, false)
    }

    #[test]
    fn outside_the_band_the_paper_step_is_the_least_change() {
        assert_eq!(change(0.0), 1.0);
        assert_eq!(change(0.9), 1.0);
        // Just above beta: FAST's 0.55 would be less than the paper's 1.
        assert_eq!(change(3.1), -1.0);
        // Far above: half the distance to the middle.
        assert_eq!(change(10.0), -4.0);
        assert_eq!(change(52.0), -25.0);
    }

    #[test]
    fn above_beta_in_a_deep_queue_the_paper_step_is_kept() {
        let deep = |diff_pkts: f64| {
            let action = paper::avoidance_step(diff_pkts, 1.0, 3.0);
            window_change_pkts(action, diff_pkts, 1.0, 3.0, true)
        };
        assert_eq!(deep(10.0), -1.0);
        assert_eq!(deep(52.0), -1.0);
        // Inside and below the band nothing changes.
        assert_eq!(deep(3.0), change(3.0));
        assert_eq!(deep(0.5), 1.0);
    }

    #[test]
    fn inside_the_band_the_window_moves_halfway_to_the_middle() {
        assert_eq!(change(1.0), 0.5);
        assert_eq!(change(2.0), 0.0);
        assert_eq!(change(2.5), -0.25);
        assert_eq!(change(3.0), -0.5);
    }

    /// Flows sharing one queue: each flow's Diff is its share of the
    /// queue's packets, rate_i / sum(rate) x queue, and a window is its
    /// pipe share plus its Diff. Returns the windows after `rounds`.
    fn shared_queue(mut windows: Vec<f64>, pipe_pkts: f64, rounds: usize, fair: bool) -> Vec<f64> {
        for _ in 0..rounds {
            let total: f64 = windows.iter().sum();
            let queue_pkts = (total - pipe_pkts).max(0.0);
            let diffs: Vec<f64> = windows.iter().map(|w| w / total * queue_pkts).collect();
            for (window, diff) in windows.iter_mut().zip(diffs) {
                let action = paper::avoidance_step(diff, 1.0, 3.0);
                let step = if fair {
                    window_change_pkts(action, diff, 1.0, 3.0, false)
                } else {
                    paper::avoidance_step_pkts(action)
                };
                *window = (*window + step).max(2.0);
            }
        }
        windows
    }

    #[test]
    fn an_incumbent_and_a_newcomer_end_equal_where_the_paper_steps_keep_them_apart() {
        // One flow has the 400-packet pipe with its queue; a second arrives
        // with 10 packets.
        let start = vec![402.0, 10.0];
        // The windows converge at gamma x queue / total windows per round
        // (half of 4 / 404): 2000 rounds are about 10 time constants.
        let paper = shared_queue(start.clone(), 400.0, 2000, false);
        let fair = shared_queue(start, 400.0, 2000, true);
        // The paper's steps rest anywhere in the band: here still far apart.
        assert!(paper[0] / paper[1] > 1.4, "{paper:?}");
        // FAST's update: equal windows, each with the band's middle queued.
        assert!((fair[0] / fair[1] - 1.0).abs() < 0.02, "{fair:?}");
        let queue = fair.iter().sum::<f64>() - 400.0;
        assert!((queue - 4.0).abs() < 0.2, "{fair:?}");
    }

    #[test]
    fn an_overshoot_is_taken_back_in_a_few_rounds_without_emptying_the_queue() {
        // Ten flows 60 packets over the pipe together.
        let windows = shared_queue(vec![46.0; 10], 400.0, 1, true);
        let mut queue_history = Vec::new();
        let mut w = windows;
        for _ in 0..10 {
            w = shared_queue(w, 400.0, 1, true);
            queue_history.push(w.iter().sum::<f64>() - 400.0);
        }
        assert!(queue_history.iter().all(|&q| q > 0.0), "{queue_history:?}");
        assert!((queue_history[9] - 20.0).abs() < 1.0, "{queue_history:?}");
    }
}
