//! The retransmit timer of the BSD Reno that Brakmo & Peterson compared
//! Vegas with, on its 500 ms clock: what a 1995 Reno waited for after a
//! loss that fast retransmit could not repair (III-A: "the clock used to
//! time the round-trip 'ticks' every 500 ms. Checks for timeouts also occur
//! only when this coarse-grain clock ticks").
//!
//! It is the BSD code's state machine with its integer arithmetic, as
//! 4.3BSD-Reno's successors Net/2 and 4.4BSD-Lite write it (`tcp_input.c`
//! `tcp_xmit_timer`, `tcp_timer.c` `tcp_timers` and `tcp_backoff`,
//! `tcp_timer.h`, `tcp_var.h` `TCP_REXMTVAL`):
//! - the clock ticks every [`TICK`], at a phase of its own;
//! - one segment is timed at a time: its round trip counts 1 at the send
//!   and 1 more at each tick before its ACK (`t_rtt`); a loss stops the
//!   timing (fast retransmit and the timeout both clear `t_rtt`);
//! - the smoothed RTT (scaled by 8) and mean deviation (scaled by 4) in
//!   ticks, and the timer `t_rxtcur = srtt + 4 * rttvar` ticks, at least
//!   [`TCPTV_MIN_TICKS`], at most [`TCPTV_REXMTMAX_TICKS`];
//! - the timer is restarted by every ACK that advances the window's left
//!   edge and fires at the `t_rxtcur`-th tick after that;
//! - each timeout doubles the next timer ([`TCP_BACKOFF`]) until a segment
//!   is timed again.
//!
//! No clock in here either: the owner passes the times in, and reads the
//! time the timer fires ([`BsdRetransmitTimer::fire_after`]).

use std::time::Duration;
use std::time::Instant;

/// `PR_SLOWHZ = 2` (`protosw.h`): the slow timeout runs twice a second;
/// Brakmo & Peterson III-A: the clock "'ticks' every 500 ms".
pub const TICK: Duration = Duration::from_millis(500);

/// `TCPTV_MIN = 1 * PR_SLOWHZ` (`tcp_timer.h`): the timer is never shorter
/// than 2 ticks, "the minimum feasible timer" (`tcp_var.h`).
pub const TCPTV_MIN_TICKS: u32 = 2;

/// `TCPTV_REXMTMAX = 64 * PR_SLOWHZ` (`tcp_timer.h`): at most 64 s.
pub const TCPTV_REXMTMAX_TICKS: u32 = 128;

/// `TCPTV_SRTTDFLT = 3 * PR_SLOWHZ` (`tcp_timer.h`): the 3 s a connection
/// assumes before its first measurement; `tcp_newtcpcb` starts with
/// `rttvar = TCPTV_SRTTDFLT << 2` and a timer of `(rttvar) >> 1` = 12
/// ticks (6 s).
pub const TCPTV_SRTTDFLT_TICKS: i32 = 6;

/// `tcp_backoff[]` (`tcp_timer.c`): the multiplier of the timer after the
/// k-th timeout in a row.
pub const TCP_BACKOFF: [u32; 13] = [1, 2, 4, 8, 16, 32, 64, 64, 64, 64, 64, 64, 64];

/// `TCP_RTT_SHIFT` and `TCP_RTTVAR_SHIFT` (`tcp_var.h`): srtt is kept
/// scaled by 8, rttvar by 4.
const RTT_SHIFT: u32 = 3;
const RTTVAR_SHIFT: u32 = 2;

/// The BSD retransmit timer in ticks (module documentation).
#[derive(Clone, Debug, PartialEq)]
pub struct BsdRetransmitTimer {
    /// The first tick comes this long after the first packet sent.
    phase: Duration,
    /// The first packet's send time plus `phase`: tick k is at
    /// `origin + k * TICK`.
    origin: Option<Instant>,
    /// The timed packet (`t_rtseq`) and its send time.
    timed: Option<(u64, Instant)>,
    /// `t_srtt`: smoothed RTT in ticks, scaled by 8 (0: no measurement).
    srtt_x8: i32,
    /// `t_rttvar`: mean deviation in ticks, scaled by 4.
    rttvar_x4: i32,
    /// `t_rxtcur`: the timer, in ticks.
    rxtcur_ticks: u32,
    /// `t_rxtshift`: timeouts since the last measurement.
    rxtshift: usize,
}

impl BsdRetransmitTimer {
    /// A connection's timer before any measurement (`tcp_newtcpcb`), its
    /// ticks `phase` (below [`TICK`]) after its first send.
    pub fn new(phase: Duration) -> Self {
        let rttvar_x4 = TCPTV_SRTTDFLT_TICKS << 2;
        BsdRetransmitTimer {
            phase: phase.min(TICK),
            origin: None,
            timed: None,
            srtt_x8: 0,
            rttvar_x4,
            rxtcur_ticks: range_set(rttvar_x4 >> 1),
            rxtshift: 0,
        }
    }

    /// `t_rxtcur`: the timer now, in ticks.
    pub fn rxtcur_ticks(&self) -> u32 {
        self.rxtcur_ticks
    }

    /// `t_srtt` and `t_rttvar` as BSD keeps them (ticks x 8, ticks x 4).
    pub fn srtt_rttvar_scaled(&self) -> (i32, i32) {
        (self.srtt_x8, self.rttvar_x4)
    }

    /// A packet left at `now`: it is timed unless one already is
    /// (`tcp_output`: `if (tp->t_rtt == 0) { tp->t_rtt = 1; ... }`).
    pub fn on_packet_sent(&mut self, now: Instant, pkt_num: u64) {
        self.origin.get_or_insert(now + self.phase);
        if self.timed.is_none() {
            self.timed = Some((pkt_num, now));
        }
    }

    /// `pkt_num` was acknowledged at `now`: if it is the timed packet, its
    /// round trip in ticks updates the timer (`tcp_xmit_timer`).
    pub fn on_packet_acked(&mut self, now: Instant, pkt_num: u64) {
        let Some((timed, sent)) = self.timed else {
            return;
        };
        if timed != pkt_num {
            return;
        }
        self.timed = None;
        let t_rtt = 1 + self.ticks_in(sent, now);
        self.xmit_timer(i32::try_from(t_rtt).unwrap_or(i32::MAX));
    }

    /// A loss was detected: the timed packet is no longer timed (fast
    /// retransmit clears `t_rtt`).
    pub fn on_loss(&mut self) {
        self.timed = None;
    }

    /// When the timer fires if it was last (re)started at `restart` and
    /// nothing restarts it again: at the `t_rxtcur`-th tick after
    /// `restart`, never before `not_before`.
    pub fn fire_after(&self, restart: Instant, not_before: Instant) -> Instant {
        let first = self.tick_after(restart);
        let fire = first + TICK * (self.rxtcur_ticks.max(1) - 1);
        if fire >= not_before {
            fire
        } else {
            self.tick_after(not_before)
        }
    }

    /// The timer fired (`tcp_timers`, `TCPT_REXMT`): the next one is backed
    /// off and the timing stops.
    pub fn on_timeout(&mut self) {
        self.rxtshift = (self.rxtshift + 1).min(TCP_BACKOFF.len() - 1);
        let rexmt = self
            .rexmtval()
            .saturating_mul(TCP_BACKOFF[self.rxtshift] as i32);
        self.rxtcur_ticks = range_set(rexmt);
        self.timed = None;
    }

    /// `TCP_REXMTVAL(tp)`: `(t_srtt >> TCP_RTT_SHIFT) + t_rttvar`.
    fn rexmtval(&self) -> i32 {
        (self.srtt_x8 >> RTT_SHIFT) + self.rttvar_x4
    }

    /// `tcp_xmit_timer(tp, rtt)` of 4.4BSD-Lite, with `rtt = t_rtt`.
    fn xmit_timer(&mut self, rtt: i32) {
        if self.srtt_x8 != 0 {
            // "Adjust t_rtt to origin 0."
            let mut delta = rtt - 1 - (self.srtt_x8 >> RTT_SHIFT);
            self.srtt_x8 += delta;
            if self.srtt_x8 <= 0 {
                self.srtt_x8 = 1;
            }
            delta = delta.abs() - (self.rttvar_x4 >> RTTVAR_SHIFT);
            self.rttvar_x4 += delta;
            if self.rttvar_x4 <= 0 {
                self.rttvar_x4 = 1;
            }
        } else {
            // "Set the variance to half the rtt (so our first retransmit
            // happens at 2*rtt)."
            self.srtt_x8 = rtt << RTT_SHIFT;
            self.rttvar_x4 = rtt << (RTTVAR_SHIFT - 1);
        }
        self.rxtshift = 0;
        self.rxtcur_ticks = range_set(self.rexmtval());
    }

    /// The number of ticks in `(from, to]`.
    fn ticks_in(&self, from: Instant, to: Instant) -> u32 {
        let first = self.tick_after(from);
        if to < first {
            return 0;
        }
        let ticks = (to - first).as_nanos() / TICK.as_nanos() + 1;
        u32::try_from(ticks).unwrap_or(u32::MAX)
    }

    /// The first tick strictly after `t`.
    fn tick_after(&self, t: Instant) -> Instant {
        // Before the first send, the clock starts with this one.
        let origin = self.origin.unwrap_or(t + self.phase);
        if t < origin {
            return origin;
        }
        let since = t - origin;
        let ticks = since.as_nanos() / TICK.as_nanos() + 1;
        origin + TICK * u32::try_from(ticks).unwrap_or(u32::MAX)
    }
}

/// `TCPT_RANGESET(tv, value, TCPTV_MIN, TCPTV_REXMTMAX)`.
fn range_set(value: i32) -> u32 {
    u32::try_from(value.max(0))
        .unwrap_or(0)
        .clamp(TCPTV_MIN_TICKS, TCPTV_REXMTMAX_TICKS)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    /// A timer whose measurements are given in ticks.
    fn measured(t_rtts: &[i32]) -> BsdRetransmitTimer {
        let mut timer = BsdRetransmitTimer::new(Duration::ZERO);
        for &t_rtt in t_rtts {
            timer.xmit_timer(t_rtt);
        }
        timer
    }

    #[test]
    fn a_new_connection_waits_six_seconds() {
        // tcp_newtcpcb: rttvar = TCPTV_SRTTDFLT << 2 = 24, timer 24 >> 1.
        let timer = BsdRetransmitTimer::new(Duration::ZERO);
        assert_eq!(timer.rxtcur_ticks(), 12);
        assert_eq!(timer.srtt_rttvar_scaled(), (0, 24));
    }

    #[test]
    fn the_smoothing_replays_bsd_integer_arithmetic() {
        // t_rtt 1: srtt = 1 << 3, rttvar = 1 << 1, timer 8/8 + 2 = 3.
        let timer = measured(&[1]);
        assert_eq!(
            (timer.srtt_rttvar_scaled(), timer.rxtcur_ticks()),
            ((8, 2), 3)
        );
        // t_rtt 1: delta = 1 - 1 - 1 = -1: srtt 7; |delta| - 2/4 = 1:
        // rttvar 3; timer 7/8 + 3 = 3.
        let timer = measured(&[1, 1]);
        assert_eq!(
            (timer.srtt_rttvar_scaled(), timer.rxtcur_ticks()),
            ((7, 3), 3)
        );
        // t_rtt 2: delta = 2 - 1 - 0 = 1: srtt 8; 1 - 3/4 = 1: rttvar 4;
        // timer 1 + 4 = 5.
        let timer = measured(&[1, 1, 2]);
        assert_eq!(
            (timer.srtt_rttvar_scaled(), timer.rxtcur_ticks()),
            ((8, 4), 5)
        );
        // t_rtt 1: delta = -1: srtt 7; 1 - 4/4 = 0: rttvar 4; timer 4.
        let timer = measured(&[1, 1, 2, 1]);
        assert_eq!(
            (timer.srtt_rttvar_scaled(), timer.rxtcur_ticks()),
            ((7, 4), 4)
        );
        // A path far shorter than a tick settles at 3 ticks (1.5 s): the
        // "1.5 tick" bias tcp_var.h describes.
        let timer = measured(&[1; 50]);
        assert_eq!(timer.rxtcur_ticks(), 3);
    }

    #[test]
    fn the_timer_stays_within_bsd_bounds() {
        assert_eq!(range_set(0), TCPTV_MIN_TICKS);
        assert_eq!(range_set(1), TCPTV_MIN_TICKS);
        assert_eq!(range_set(7), 7);
        assert_eq!(range_set(10_000), TCPTV_REXMTMAX_TICKS);
    }

    #[test]
    fn each_timeout_doubles_the_next_until_a_measurement() {
        let mut timer = measured(&[1, 1, 2, 1]);
        timer.on_timeout();
        assert_eq!(timer.rxtcur_ticks(), 8, "4 x tcp_backoff[1]");
        timer.on_timeout();
        assert_eq!(timer.rxtcur_ticks(), 16, "4 x tcp_backoff[2]");
        for _ in 0..20 {
            timer.on_timeout();
        }
        assert_eq!(timer.rxtcur_ticks(), TCPTV_REXMTMAX_TICKS);
        timer.xmit_timer(1);
        assert!(timer.rxtcur_ticks() < 8, "a measurement ends the backoff");
    }

    #[test]
    fn one_packet_is_timed_in_ticks_counted_from_the_send() {
        let t0 = Instant::now();
        let mut timer = BsdRetransmitTimer::new(100 * MS);
        // Ticks at t0 + 100 ms, 600 ms, ...: packet 0 is timed, packet 1
        // (sent while 0 is) is not.
        timer.on_packet_sent(t0, 0);
        timer.on_packet_sent(t0 + 10 * MS, 1);
        timer.on_packet_acked(t0 + 110 * MS, 1);
        assert_eq!(
            timer.srtt_rttvar_scaled(),
            (0, 24),
            "packet 1 was not timed"
        );
        // 150 ms with a tick inside: t_rtt = 2.
        timer.on_packet_acked(t0 + 150 * MS, 0);
        assert_eq!(timer.srtt_rttvar_scaled(), (16, 4));
        assert_eq!(timer.rxtcur_ticks(), 6);
        // A loss stops the timing of the packet timed next.
        timer.on_packet_sent(t0 + 200 * MS, 2);
        timer.on_loss();
        timer.on_packet_acked(t0 + 300 * MS, 2);
        assert_eq!(timer.srtt_rttvar_scaled(), (16, 4));
    }

    #[test]
    fn the_timer_fires_on_the_rxtcur_th_tick_after_its_restart() {
        let t0 = Instant::now();
        let mut timer = measured(&[1]); // 3 ticks
        timer.phase = 100 * MS;
        timer.on_packet_sent(t0, 0);
        // Ticks at t0 + 100, 600, 1100, 1600, 2100 ms: restarted at 700 ms,
        // the 3rd tick after is 2100 ms.
        assert_eq!(timer.fire_after(t0 + 700 * MS, t0), t0 + 2100 * MS);
        // Restarted just before a tick: that tick counts as the first.
        assert_eq!(timer.fire_after(t0 + 1099 * MS, t0), t0 + 2100 * MS);
        assert_eq!(timer.fire_after(t0 + 1100 * MS, t0), t0 + 2600 * MS);
        // Never before `not_before`: the next tick after it.
        assert_eq!(
            timer.fire_after(t0 + 700 * MS, t0 + 2200 * MS),
            t0 + 2600 * MS
        );
    }
}
