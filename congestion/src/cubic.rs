//! CUBIC's window (RFC 9438), as a small state machine on a window in
//! bytes: the window the Vegas family keeps while it competes with a
//! buffer-filling flow ([`crate::vegas::coexist`]). It is not a controller
//! of its own: its owner decides when a congestion event happens and when
//! the window may grow (not in slow start, not in recovery).
//!
//! - RFC 9438 4.2: W_cubic(t) = C (t - K)^3 + W_max (eq. 1), with
//!   K = cbrt((W_max - cwnd_epoch) / C) (eq. 2); each ACK moves the window
//!   towards W_cubic(t + RTT), at most 1.5 cwnd (4.4-4.5).
//! - RFC 9438 4.3: the Reno-friendly estimate W_est grows by
//!   alpha_cubic = 3 (1 - beta) / (1 + beta) segments per window acked
//!   (eq. 4), 1 once it reaches the window of the last congestion event;
//!   the window is never below it.
//! - RFC 9438 4.6-4.7: a congestion event sets W_max = cwnd (less with
//!   fast convergence when the window is below the previous W_max) and
//!   cwnd = beta cwnd.
//!
//! Interpretation choices:
//! - Windows are counted in max_datagram_size segments as the RFC does;
//!   the epoch starts at the congestion event (the RFC starts it at the
//!   first ACK after recovery; the owner grows nothing during recovery,
//!   and t then includes the recovery round trip, as Linux `tcp_cubic.c`
//!   with its `epoch_start` set on the first ACK does not; the difference
//!   is one RTT of the concave region).
//! - RTT in W_cubic(t + RTT) is the smoothed RTT the stack passes in.

use std::time::Duration;
use std::time::Instant;

/// RFC 9438 section 5.1: C = 0.4 (segments per second cubed).
pub const CUBIC_C: f64 = 0.4;
/// RFC 9438 section 4.6: beta_cubic = 0.7, the multiplicative decrease.
pub const CUBIC_BETA: f64 = 0.7;

/// RFC 9438 section 4.3, eq. 4: alpha_cubic = 3 (1 - beta) / (1 + beta),
/// the AIMD increase that makes CUBIC's average window equal Reno's.
pub fn alpha_cubic() -> f64 {
    3.0 * (1.0 - CUBIC_BETA) / (1.0 + CUBIC_BETA)
}

/// RFC 9438 eq. 2: K in seconds for a window that starts the epoch at
/// `cwnd_epoch_pkts` and grows back to `w_max_pkts`.
pub fn cubic_k_secs(w_max_pkts: f64, cwnd_epoch_pkts: f64) -> f64 {
    ((w_max_pkts - cwnd_epoch_pkts).max(0.0) / CUBIC_C).cbrt()
}

/// RFC 9438 eq. 1: W_cubic(t) in segments.
pub fn w_cubic_pkts(t_secs: f64, k_secs: f64, w_max_pkts: f64) -> f64 {
    CUBIC_C * (t_secs - k_secs).powi(3) + w_max_pkts
}

/// CUBIC's epoch state (module documentation).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CubicWindow {
    max_datagram_size: usize,
    /// W_max: the window at the last congestion event, in segments.
    w_max_pkts: f64,
    /// K (RFC 9438 eq. 2), in seconds from `epoch_start`.
    k_secs: f64,
    epoch_start: Instant,
    /// RFC 9438 4.3 W_est, in segments.
    w_est_pkts: f64,
    /// Fraction of a segment the per-ACK steps have accumulated.
    carry_bytes: f64,
}

impl CubicWindow {
    /// An epoch starting at `now` with the window `cwnd_bytes`, which grows
    /// back towards `w_max_bytes` (concave) and past it (convex).
    pub fn new(
        now: Instant,
        w_max_bytes: usize,
        cwnd_bytes: usize,
        max_datagram_size: usize,
    ) -> Self {
        let mds = max_datagram_size.max(1) as f64;
        let w_max_pkts = (w_max_bytes.max(cwnd_bytes)) as f64 / mds;
        let cwnd_pkts = cwnd_bytes as f64 / mds;
        CubicWindow {
            max_datagram_size: max_datagram_size.max(1),
            w_max_pkts,
            k_secs: cubic_k_secs(w_max_pkts, cwnd_pkts),
            epoch_start: now,
            w_est_pkts: cwnd_pkts,
            carry_bytes: 0.0,
        }
    }

    /// The segment size the window counts in, in bytes.
    pub fn max_datagram_size(&self) -> usize {
        self.max_datagram_size
    }

    /// W_max in bytes.
    pub fn w_max_bytes(&self) -> usize {
        (self.w_max_pkts * self.max_datagram_size as f64) as usize
    }

    /// K (RFC 9438 eq. 2).
    pub fn k(&self) -> Duration {
        Duration::from_secs_f64(self.k_secs)
    }

    /// RFC 9438 4.6-4.7: a congestion event at `now` with the window
    /// `cwnd_bytes`; returns the reduced window (at least
    /// `min_window_bytes`).
    pub fn on_congestion_event(
        &mut self,
        now: Instant,
        cwnd_bytes: usize,
        min_window_bytes: usize,
    ) -> usize {
        let mds = self.max_datagram_size as f64;
        let cwnd_pkts = cwnd_bytes as f64 / mds;
        // RFC 9438 4.7 fast convergence: a window below the last W_max
        // releases bandwidth for a newer flow.
        self.w_max_pkts = if cwnd_pkts < self.w_max_pkts {
            cwnd_pkts * (1.0 + CUBIC_BETA) / 2.0
        } else {
            cwnd_pkts
        };
        let reduced_bytes = ((cwnd_bytes as f64 * CUBIC_BETA) as usize).max(min_window_bytes);
        let reduced_pkts = reduced_bytes as f64 / mds;
        self.k_secs = cubic_k_secs(self.w_max_pkts, reduced_pkts);
        self.epoch_start = now;
        self.w_est_pkts = reduced_pkts;
        self.carry_bytes = 0.0;
        reduced_bytes
    }

    /// RFC 9438 4.2-4.5: the window after `acked_bytes` were acknowledged
    /// at `now` with the window at `cwnd_bytes`; `rtt` is the smoothed RTT.
    pub fn on_ack(
        &mut self,
        now: Instant,
        cwnd_bytes: usize,
        acked_bytes: usize,
        rtt: Duration,
    ) -> usize {
        if acked_bytes == 0 || cwnd_bytes == 0 {
            return cwnd_bytes;
        }
        let mds = self.max_datagram_size as f64;
        let cwnd_pkts = cwnd_bytes as f64 / mds;
        let acked_pkts = acked_bytes as f64 / mds;
        let t_secs = now
            .saturating_duration_since(self.epoch_start)
            .as_secs_f64();
        // RFC 9438 4.3: alpha_cubic until W_est reaches W_max, then 1.
        let alpha = if self.w_est_pkts < self.w_max_pkts {
            alpha_cubic()
        } else {
            1.0
        };
        self.w_est_pkts += alpha * acked_pkts / cwnd_pkts;
        let w_cubic_now = w_cubic_pkts(t_secs, self.k_secs, self.w_max_pkts);
        let target_pkts = if w_cubic_now < self.w_est_pkts {
            // The Reno-friendly region (4.3): the window is W_est.
            self.w_est_pkts
        } else {
            // Concave and convex regions (4.4, 4.5): towards W_cubic(t +
            // RTT), at most 1.5 cwnd.
            let target = w_cubic_pkts(t_secs + rtt.as_secs_f64(), self.k_secs, self.w_max_pkts);
            let target = target.clamp(cwnd_pkts, 1.5 * cwnd_pkts);
            cwnd_pkts + (target - cwnd_pkts) / cwnd_pkts * acked_pkts
        };
        let grow_bytes = (target_pkts - cwnd_pkts).max(0.0) * mds + self.carry_bytes;
        let whole = grow_bytes.floor();
        self.carry_bytes = grow_bytes - whole;
        cwnd_bytes + whole as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MDS: usize = 1200;

    #[test]
    fn the_rfc_constants() {
        // RFC 9438 4.3: alpha_cubic = 3 (1 - 0.7) / 1.7 = 0.529...
        assert!((alpha_cubic() - 0.9 / 1.7).abs() < 1e-12);
        // K for W_max = 100 after the 0.7 cut: cbrt(30 / 0.4) = 4.217 s.
        assert!((cubic_k_secs(100.0, 70.0) - 75f64.cbrt()).abs() < 1e-12);
        // W_cubic(K) = W_max; W_cubic(0) = the window after the cut.
        let k = cubic_k_secs(100.0, 70.0);
        assert!((w_cubic_pkts(k, k, 100.0) - 100.0).abs() < 1e-9);
        assert!((w_cubic_pkts(0.0, k, 100.0) - 70.0).abs() < 1e-9);
    }

    #[test]
    fn a_congestion_event_cuts_to_beta_and_fast_convergence_lowers_w_max() {
        let now = Instant::now();
        let mut w = CubicWindow::new(now, 100 * MDS, 100 * MDS, MDS);
        assert_eq!(w.on_congestion_event(now, 100 * MDS, 2 * MDS), 70 * MDS);
        assert_eq!(w.w_max_bytes(), 100 * MDS);
        // The next event below W_max: W_max = 80 (1 + 0.7) / 2 = 68.
        assert_eq!(w.on_congestion_event(now, 80 * MDS, 2 * MDS), 56 * MDS);
        assert_eq!(w.w_max_bytes(), 68 * MDS);
        // Never below the minimum window.
        assert_eq!(w.on_congestion_event(now, 2 * MDS, 2 * MDS), 2 * MDS);
    }

    /// Drives one window of ACKs per RTT and returns the window after
    /// `rounds` rounds.
    fn grow(
        w: &mut CubicWindow,
        start: Instant,
        cwnd_bytes: usize,
        rtt: Duration,
        rounds: u32,
    ) -> usize {
        let mut cwnd = cwnd_bytes;
        for round in 1..=rounds {
            let now = start + rtt * round;
            let acks = cwnd / MDS;
            for _ in 0..acks {
                cwnd = w.on_ack(now, cwnd, MDS, rtt);
            }
        }
        cwnd
    }

    #[test]
    fn the_window_returns_to_w_max_after_about_k_and_grows_past_it() {
        // W_max = 1000 segments, cut to 700 at t = 0: K = cbrt(750) = 9.09 s.
        let start = Instant::now();
        let rtt = Duration::from_millis(100);
        let mut w = CubicWindow::new(start, 1000 * MDS, 1000 * MDS, MDS);
        let cut = w.on_congestion_event(start, 1000 * MDS, 2 * MDS);
        assert_eq!(cut, 700 * MDS);
        let k = w.k().as_secs_f64();
        assert!((k - 750f64.cbrt()).abs() < 1e-9);
        // At t = K / 2 the concave curve is at W_cubic(K/2 + RTT).
        let half = grow(&mut w, start, cut, rtt, (k / 2.0 / 0.1) as u32);
        let expected = w_cubic_pkts(k / 2.0 + 0.1, k, 1000.0);
        assert!(
            ((half / MDS) as f64 - expected).abs() < 0.05 * expected,
            "{} vs {expected}",
            half / MDS
        );
        // Past K it is above W_max and accelerating.
        let mut w2 = w;
        let at_k = grow(&mut w2, start, cut, rtt, (k / 0.1) as u32 + 10);
        assert!(at_k > 1000 * MDS, "{}", at_k / MDS);
    }

    #[test]
    fn on_a_short_path_the_reno_friendly_estimate_sets_the_window() {
        // W_max = 20 segments at 10 ms: W_cubic barely moves in a few
        // RTTs while W_est gains alpha_cubic per RTT.
        let start = Instant::now();
        let rtt = Duration::from_millis(10);
        let mut w = CubicWindow::new(start, 20 * MDS, 20 * MDS, MDS);
        let cut = w.on_congestion_event(start, 20 * MDS, 2 * MDS);
        assert_eq!(cut, 14 * MDS);
        let after = grow(&mut w, start, cut, rtt, 10);
        // 10 RTTs of alpha_cubic = 5.3 segments over 14; W_cubic(0.1 s)
        // is 14.4.
        let pkts = after as f64 / MDS as f64;
        assert!((pkts - (14.0 + 10.0 * alpha_cubic())).abs() < 1.0, "{pkts}");
    }
}
