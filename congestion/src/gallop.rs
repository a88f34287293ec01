//! Gallop-Vegas slow start: C.-Y. Ho, Y.-C. Chan and Y.-C. Chen,
//! "Gallop-Vegas: An Enhanced Slow-Start Mechanism for TCP Vegas",
//! sections III-B (scheme, Table 1) and III-C (pseudo code).
//!
//! Implemented: "stable growth". Once per RTT (a round of the
//! [`crate::RoundSampler`]) the pseudo code of III-C runs on that RTT's
//! Delta (Diff, eq. 1):
//!
//! ```text
//! In slow-start phase,
//!   maxincr = cwnd;
//!   if (Delta > gamma)
//!     if (Delta >= beta)                      -> GallopStep::Cut
//!       cwnd -= (last increment of cwnd + Delta - beta);
//!       ssthresh = 2; if (cwnd < 2) cwnd = 2;
//!       status = 2;
//!     else
//!       if (status == 0)
//!         incr = int(incr/2);
//!         if (incr <= 1) { ssthresh = 2; incr = 1; }
//!         status = 1;
//!       else status = 0;
//!       cwnd += incr;                         -> GallopStep::Grow
//!   else
//!     cwnd += incr;                           -> GallopStep::Grow
//!     if (incr < maxincr) incr += 1;
//!     status = 0;
//! In congestion-avoidance phase,
//!   if (status != 2) do the motion of original Vegas else status = 0;
//! In retransmission-timeout phase,
//!   maxincr = 2 (initial window); incr = 0; status = 0;
//! ```
//!
//! With Delta held below gamma this gives z_i = i and
//! W_{i+1} = W_i + z_i, i.e. W_i = (i^2 - i + 4) / 2 from W_0 = 2 (Table 3,
//! eq. 7).
//!
//! Interpretation choices:
//!
//! 1. Nesting. The printed pseudo code lost its indentation: as printed,
//!    `status = 1` sits inside `if (incr <= 1)`, `else status = 0` pairs
//!    with that `if`, and the final `cwnd += incr; incr += 1; status = 0`
//!    block looks like the `else` of `if (status == 0)`. The prose of III-B
//!    fixes the structure shown above: "If the 'status' is zero, we have to
//!    do three steps. First, 'incr' is decreased by one half ... Second, if
//!    'incr' is no bigger than one, set it to one, and ssthresh to two ...
//!    Finally, 'status' is marked as one"; "if 'status' is one, we just
//!    change it to zero"; "When Delta is smaller than gamma, we add the
//!    value of 'incr' to the current congestion window size, then 'incr' is
//!    increased by one ... At last, we set 'status' to zero". Comparisons
//!    are the pseudo code's (`Delta > gamma`, `Delta >= beta`); Table 1
//!    words the boundaries slightly differently.
//! 2. Timing. The block runs when an RTT ends, on that RTT's Delta, and its
//!    `cwnd += incr` is the increase of the RTT that starts then, spread
//!    over that RTT's ACKs (III-B: "Gallop-Vegas transmits one packet when
//!    receiving one ACK, and it sends an extra packet ... after getting two
//!    or more ACKs"; IV-B: "increases 5/12 packet to the congestion window
//!    size whenever an ACK of the previous round is received, and sends an
//!    extra packet to the network when the additional value is no smaller
//!    than one"). The credit grows by incr times each ACK's share of the
//!    previous window, and the window grows by one whole datagram each time
//!    the credit passes a whole datagram, so no ACK releases more than one
//!    extra packet (incr <= maxincr = cwnd) and the round's total is
//!    exactly incr packets when the previous window is acknowledged in
//!    full. The extra packets of the W = 12, z = 5 round of Table 3 then
//!    leave at the 3rd, 5th, 8th, 10th and 12th ACK, as IV-B describes.
//!    A round ends at the ACK of its distinguished packet, often before
//!    the last ACKs of the previous window: what the increase had not yet
//!    applied is carried into the next RTT's, so every `cwnd += incr` adds
//!    all of incr (without it, +4, +6, +8 became +3, +5, +7).
//!    Whole datagrams matter in QUIC: a stack such as quiche lets the
//!    application write only as many bytes as the window has free, so a
//!    window that grew by a fraction of a datagram per ACK makes the sender
//!    emit a small packet per ACK, fragments that fill the buffer
//!    (measured: docs/constants.md, `gallop` (whole datagrams)).
//! 3. First RTT. "We do not increase congestion window size in the first
//!    RTT, which is either the beginning of a connection or after a
//!    retransmission timeout, because we have no idea about the available
//!    bandwidth." The block also runs at the start of that first RTT, with
//!    no Delta yet (taken as no queue, so the Delta <= gamma branch) and
//!    incr = 0: the first RTT adds nothing and incr becomes 1. This is the
//!    reading under which the pseudo code produces Table 3 (z_0 = 0,
//!    z_1 = 1, W_2 = 3); running the block only from the end of the first
//!    RTT would give z_1 = 0 and W_2 = 2.
//! 4. `ssthresh = 2` in `if (incr <= 1)` transits "to the
//!    congestion-avoidance phase at the next RTT": the RTT that starts
//!    still adds incr = 1, and slow start ends when it ends (that round is
//!    then decided by congestion avoidance). In the `Delta >= beta` branch
//!    slow start ends at once. The controller sets ssthresh to the window
//!    at that moment rather than to 2 packets: both only force
//!    cwnd >= ssthresh, and this keeps `ssthresh_bytes` meaningful (the
//!    convention of [`crate::vegas`]).
//! 5. "last increment of cwnd" is the increase actually applied during the
//!    RTT that just ended (it can fall short of incr when ACKs went
//!    missing); Delta - beta is converted to bytes with the current maximum
//!    datagram size. "if (cwnd < 2) cwnd = 2" is the RFC 9002 minimum
//!    window of 2 datagrams, which the controller enforces.
//! 6. maxincr and incr are whole packets (`int(incr/2)`); maxincr = cwnd is
//!    the window in whole datagrams when the block runs.
//! 7. "In retransmission-timeout phase" is a PTO that restarts slow start;
//!    persistent congestion (RFC 9002 7.6, the QUIC counterpart of a
//!    retransmission timeout) and a path change reset the same way.
//!    maxincr is set to the window after the reset (the pseudo code's 2 is
//!    "initial congestion window size").
//! 8. A round the sampler marks unusable (application-limited) runs no
//!    block: nothing was learned, so the next RTT adds nothing and incr and
//!    status are kept.
//! 9. Delta for a round in which the window grew: see
//!    [`crate::vegas`] (Expected uses the packets in transit, Actual times
//!    the round's RTT, within the round's window range).

use crate::events::ControllerEvent;
use std::time::Instant;

/// III-C: "maxincr = 2; (initial congestion window size)", and Table 3's
/// W_0 = 2.
pub const GALLOP_PAPER_INITIAL_WINDOW_PKTS: usize = 2;
/// III-C: after a timeout "incr = 0".
const RESET_INCR_PKTS: u64 = 0;
/// III-C: "incr = int(incr/2)".
const INCR_DIVISOR: u64 = 2;
/// III-C: "if (incr <= 1) ... incr = 1".
const MIN_HALVED_INCR_PKTS: u64 = 1;

/// Which reading of Gallop-Vegas slow start runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum GallopGrowth {
    /// The pseudo code of III-C (the module documentation): incr halves at
    /// every other RTT of gamma < Delta < beta, and incr <= 1 ends slow
    /// start at the next RTT.
    #[default]
    PseudoCode,
    /// As the analysis (Gallop-Vegas eq. 16-19) and the simulations of V-B
    /// ran: after a halving incr grows back by one every other RTT of
    /// Delta <= gamma, up to the value it was halved from, and incr = 1 does
    /// not end slow start: only Delta >= beta does (docs/gallop-regrowth.md).
    Equations,
}

/// `status` of III-B Table 1: what the last RTT did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GallopStatus {
    /// 0: Delta <= gamma (incr grew), or the second of two consecutive
    /// gamma < Delta < beta RTTs (no action).
    Clear = 0,
    /// 1: gamma < Delta < beta and incr was halved.
    Halved = 1,
    /// 2: Delta >= beta; the window was cut and slow start ended.
    Cut = 2,
}

impl GallopStatus {
    /// The paper's number for the status: 0, 1 or 2.
    pub fn as_u8(self) -> u8 {
        self as u8
    }
}

/// What the block of III-C decided at the end of an RTT.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GallopStep {
    /// `cwnd += incr`: the RTT that starts grows the window by `incr_pkts`
    /// datagrams, spread over its ACKs.
    Grow {
        /// The increase, in packets (datagrams).
        incr_pkts: u64,
    },
    /// Delta >= beta: cut the window now by `cut_bytes` and leave slow
    /// start (status 2).
    Cut {
        /// The cut, in bytes.
        cut_bytes: usize,
    },
}

/// An RTT's window increase spread over its ACKs (interpretation 2): after
/// `acked` bytes the credit is `target * acked / base`, at most `target`,
/// and the increase applied is the credit rounded down to whole datagrams
/// (an extra packet once "the additional value is no smaller than one").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SpreadIncrease {
    target_bytes: usize,
    /// The window when the RTT started: the bytes its ACKs will cover.
    base_bytes: usize,
    /// The unit the window grows in.
    datagram_bytes: usize,
    acked_bytes: usize,
    applied_bytes: usize,
}

impl SpreadIncrease {
    /// No increase.
    pub const NONE: SpreadIncrease = SpreadIncrease {
        target_bytes: 0,
        base_bytes: 1,
        datagram_bytes: 1,
        acked_bytes: 0,
        applied_bytes: 0,
    };

    /// `target_bytes` (whole datagrams of `datagram_bytes`) over the ACKs
    /// of a window of `base_bytes`.
    pub fn new(target_bytes: usize, base_bytes: usize, datagram_bytes: usize) -> Self {
        SpreadIncrease {
            target_bytes,
            base_bytes: base_bytes.max(1),
            datagram_bytes: datagram_bytes.max(1),
            ..SpreadIncrease::NONE
        }
    }

    /// `acked_bytes` more were acknowledged: the bytes the window grows by
    /// now (zero or whole datagrams).
    pub fn on_ack(&mut self, acked_bytes: usize) -> usize {
        if self.applied_bytes >= self.target_bytes {
            return 0;
        }
        self.acked_bytes = self.acked_bytes.saturating_add(acked_bytes);
        let credit = (self.target_bytes as u128 * self.acked_bytes as u128
            / self.base_bytes as u128)
            .min(self.target_bytes as u128) as usize;
        let due = if credit == self.target_bytes {
            credit
        } else {
            credit - credit % self.datagram_bytes
        };
        let grow = due.saturating_sub(self.applied_bytes);
        self.applied_bytes = self.applied_bytes.max(due);
        grow
    }

    /// The increase planned for the RTT.
    pub fn target_bytes(&self) -> usize {
        self.target_bytes
    }

    /// The increase applied so far ("last increment of cwnd" once the RTT
    /// has ended).
    pub fn applied_bytes(&self) -> usize {
        self.applied_bytes
    }
}

/// The Gallop-Vegas slow-start state: incr, maxincr, status and the
/// increase of the RTT in progress.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GallopSlowStart {
    incr_pkts: u64,
    maxincr_pkts: u64,
    status: GallopStatus,
    increase: SpreadIncrease,
    /// `ssthresh = 2` in `if (incr <= 1)`: slow start ends when the RTT in
    /// progress ends (interpretation 4).
    exit_pending: bool,
    growth: GallopGrowth,
    /// [`GallopGrowth::Equations`]: the value incr grows back to (the
    /// increment it was last halved from); None before the first halving.
    regrow_to_pkts: Option<u64>,
    /// [`GallopGrowth::Equations`]: the next RTT of Delta <= gamma raises
    /// incr (it grows back every other RTT).
    regrow_raise_due: bool,
}

impl GallopSlowStart {
    /// A connection starting with `cwnd_bytes`: reset, then the first RTT
    /// (interpretation 3). The pseudo code's growth.
    pub fn new(cwnd_bytes: usize, max_datagram_size: usize) -> Self {
        GallopSlowStart::with_growth(GallopGrowth::PseudoCode, cwnd_bytes, max_datagram_size)
    }

    /// [`GallopSlowStart::new`] with the reading `growth`.
    pub fn with_growth(growth: GallopGrowth, cwnd_bytes: usize, max_datagram_size: usize) -> Self {
        let mut gallop = GallopSlowStart {
            incr_pkts: RESET_INCR_PKTS,
            maxincr_pkts: 0,
            status: GallopStatus::Clear,
            increase: SpreadIncrease::NONE,
            exit_pending: false,
            growth,
            regrow_to_pkts: None,
            regrow_raise_due: false,
        };
        gallop.restart(cwnd_bytes, max_datagram_size);
        gallop
    }

    /// "In retransmission-timeout phase": maxincr = the window (2 in the
    /// paper), incr = 0, status = 0; then the first RTT, which adds nothing
    /// (interpretations 3 and 7).
    pub fn restart(&mut self, cwnd_bytes: usize, max_datagram_size: usize) {
        self.incr_pkts = RESET_INCR_PKTS;
        self.status = GallopStatus::Clear;
        self.exit_pending = false;
        self.increase = SpreadIncrease::NONE;
        self.regrow_to_pkts = None;
        self.regrow_raise_due = false;
        self.maxincr_pkts = whole_pkts(cwnd_bytes, max_datagram_size);
        self.grow_branch(cwnd_bytes, max_datagram_size);
    }

    /// The reading of the slow start that runs.
    pub fn growth(&self) -> GallopGrowth {
        self.growth
    }

    /// [`GallopGrowth::Equations`]: the value incr grows back to, once
    /// halved.
    pub fn regrow_to_pkts(&self) -> Option<u64> {
        self.regrow_to_pkts
    }

    /// `incr` of III-C, in packets.
    pub fn incr_pkts(&self) -> u64 {
        self.incr_pkts
    }

    /// `maxincr` of III-C, in packets: `incr` grows no further.
    pub fn maxincr_pkts(&self) -> u64 {
        self.maxincr_pkts
    }

    /// `status`: what the last RTT did (III-B Table 1).
    pub fn status(&self) -> GallopStatus {
        self.status
    }

    /// The increase of the RTT in progress.
    pub fn increase(&self) -> &SpreadIncrease {
        &self.increase
    }

    /// Slow start ends when the RTT in progress ends (interpretation 4).
    pub fn exit_pending(&self) -> bool {
        self.exit_pending
    }

    /// The decision record of the current state.
    pub fn event(&self, now: Instant) -> ControllerEvent {
        ControllerEvent::GallopUpdate {
            now,
            incr_pkts: self.incr_pkts as f64,
            maxincr_pkts: self.maxincr_pkts as f64,
            status: self.status.as_u8(),
        }
    }

    /// Per ACK in slow start: the bytes the window grows by now.
    pub fn on_ack(&mut self, acked_bytes: usize) -> usize {
        self.increase.on_ack(acked_bytes)
    }

    /// `cwnd += incr`, spread over the RTT that starts now, with what the
    /// last RTT's increase had not applied yet (interpretation 2).
    fn plan_increase(&mut self, cwnd_bytes: usize, max_datagram_size: usize) -> GallopStep {
        let carry_bytes = self
            .increase
            .target_bytes()
            .saturating_sub(self.increase.applied_bytes());
        let target_bytes = (self.incr_pkts as usize)
            .saturating_mul(max_datagram_size)
            .saturating_add(carry_bytes);
        self.increase = SpreadIncrease::new(target_bytes, cwnd_bytes, max_datagram_size);
        GallopStep::Grow {
            incr_pkts: self.incr_pkts,
        }
    }

    /// `cwnd += incr; if (incr < maxincr) incr += 1; status = 0;`
    ///
    /// [`GallopGrowth::Equations`], once incr was halved: incr grows by one
    /// every other RTT, up to the value it was halved from (Gallop-Vegas
    /// eq. 17: "adds the increment by 1 every other RTT until the value of
    /// the increment is k"; docs/gallop-regrowth.md).
    fn grow_branch(&mut self, cwnd_bytes: usize, max_datagram_size: usize) -> GallopStep {
        let step = self.plan_increase(cwnd_bytes, max_datagram_size);
        let raise = match self.regrow_to_pkts {
            Some(regrow_to_pkts) if self.growth == GallopGrowth::Equations => {
                let due = self.regrow_raise_due;
                self.regrow_raise_due = !due;
                due && self.incr_pkts < regrow_to_pkts.min(self.maxincr_pkts)
            }
            _ => self.incr_pkts < self.maxincr_pkts,
        };
        if raise {
            self.incr_pkts += 1;
        }
        self.status = GallopStatus::Clear;
        step
    }

    /// `incr = int(incr/2); if (incr <= 1) { ssthresh = 2; incr = 1; }`
    ///
    /// [`GallopGrowth::Equations`]: incr will grow back to the value it is
    /// halved from, and incr = 1 does not end slow start (Gallop-Vegas
    /// eq. 19: at increment 1 it "increases the congestion window by one
    /// every RTT before it reaches W given in (16)"; docs/gallop-regrowth.md).
    fn halve_incr(&mut self) {
        match self.growth {
            GallopGrowth::PseudoCode => {
                self.incr_pkts /= INCR_DIVISOR;
                if self.incr_pkts <= MIN_HALVED_INCR_PKTS {
                    // ssthresh = 2; incr = 1;
                    self.exit_pending = true;
                    self.incr_pkts = MIN_HALVED_INCR_PKTS;
                }
            }
            GallopGrowth::Equations => {
                self.regrow_to_pkts = Some(self.incr_pkts.max(MIN_HALVED_INCR_PKTS));
                self.incr_pkts = (self.incr_pkts / INCR_DIVISOR).max(MIN_HALVED_INCR_PKTS);
                self.regrow_raise_due = true;
            }
        }
    }

    /// The block of III-C at the end of an RTT in slow start, on that RTT's
    /// Delta (packets).
    pub fn on_round(
        &mut self,
        cwnd_bytes: usize,
        max_datagram_size: usize,
        diff_pkts: f64,
        gamma_pkts: f64,
        beta_pkts: f64,
    ) -> GallopStep {
        // maxincr = cwnd;
        self.maxincr_pkts = whole_pkts(cwnd_bytes, max_datagram_size);
        if diff_pkts > gamma_pkts {
            if diff_pkts >= beta_pkts {
                // cwnd -= (last increment of cwnd + Delta - beta);
                // ssthresh = 2; if (cwnd < 2) cwnd = 2; status = 2;
                let surplus_bytes = ((diff_pkts - beta_pkts) * max_datagram_size as f64) as usize;
                let cut_bytes = self.increase.applied_bytes().saturating_add(surplus_bytes);
                self.increase = SpreadIncrease::NONE;
                self.status = GallopStatus::Cut;
                return GallopStep::Cut { cut_bytes };
            }
            if self.status == GallopStatus::Clear {
                self.halve_incr();
                self.status = GallopStatus::Halved;
            } else {
                self.status = GallopStatus::Clear;
            }
            // cwnd += incr;
            return self.plan_increase(cwnd_bytes, max_datagram_size);
        }
        self.grow_branch(cwnd_bytes, max_datagram_size)
    }

    /// A round the sampler marked unusable: no block, and the next RTT adds
    /// nothing (interpretation 8).
    pub fn skip_round(&mut self) {
        self.increase = SpreadIncrease::NONE;
    }

    /// Slow start ended (for any reason): no increase is pending any more.
    pub fn on_slow_start_exit(&mut self) {
        self.increase = SpreadIncrease::NONE;
        self.exit_pending = false;
    }

    /// "In congestion-avoidance phase, if (status != 2) do the motion of
    /// original Vegas else status = 0": true when this round must hold.
    pub fn on_congestion_avoidance_round(&mut self) -> bool {
        if self.status == GallopStatus::Cut {
            self.status = GallopStatus::Clear;
            true
        } else {
            false
        }
    }
}

/// The window in whole datagrams.
fn whole_pkts(bytes: usize, max_datagram_size: usize) -> u64 {
    (bytes / max_datagram_size.max(1)) as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transient::analytic::gallop_rtt_increase_pkts;
    use crate::transient::analytic::gallop_rtt_window_pkts;

    const MDS: usize = 1200;

    /// Replays the block with Delta below gamma, each RTT's whole window
    /// acknowledged; returns W_i and z_i in packets.
    fn replay(rtts: usize) -> (Vec<usize>, Vec<usize>) {
        let mut cwnd = GALLOP_PAPER_INITIAL_WINDOW_PKTS * MDS;
        let mut gallop = GallopSlowStart::new(cwnd, MDS);
        let (mut windows, mut increases) = (Vec::new(), Vec::new());
        for _ in 0..rtts {
            windows.push(cwnd / MDS);
            let base = cwnd;
            cwnd += gallop.on_ack(base);
            increases.push((cwnd - base) / MDS);
            gallop.on_round(cwnd, MDS, 0.0, 1.0, 3.0);
        }
        (windows, increases)
    }

    #[test]
    fn table_3_stable_growth() {
        let (windows, increases) = replay(11);
        assert_eq!(windows, [2, 2, 3, 5, 8, 12, 17, 23, 30, 38, 47]);
        for (i, (&w, &z)) in windows.iter().zip(&increases).enumerate() {
            assert_eq!(w as f64, gallop_rtt_window_pkts(i as u32), "W_{i}");
            assert_eq!(z as f64, gallop_rtt_increase_pkts(i as u32), "z_{i}");
        }
    }

    #[test]
    fn increase_is_spread_one_extra_packet_per_two_or_more_acks() {
        // IV-B: at the fifth RTT of Table 3 (W = 12, z = 5) the extra
        // packets leave at the 3rd and the 5th ACK (5/12 per ACK).
        let mut spread = SpreadIncrease::new(5 * MDS, 12 * MDS, MDS);
        let mut grown = 0;
        let mut extra_at = Vec::new();
        for ack in 1..=12 {
            grown += spread.on_ack(MDS);
            if grown / MDS > extra_at.len() {
                extra_at.push(ack);
            }
        }
        assert_eq!(extra_at, [3, 5, 8, 10, 12]);
        assert_eq!(grown, 5 * MDS);
        assert_eq!(spread.applied_bytes(), 5 * MDS);
        // No more once the target is reached.
        assert_eq!(spread.on_ack(MDS), 0);
    }

    #[test]
    fn halving_between_gamma_and_beta_every_other_rtt() {
        let cwnd = 100 * MDS;
        let mut gallop = GallopSlowStart::new(cwnd, MDS);
        gallop.incr_pkts = 12;
        // gamma < Delta < beta with status 0: halve, status 1.
        assert_eq!(
            gallop.on_round(cwnd, MDS, 2.0, 1.0, 3.0),
            GallopStep::Grow { incr_pkts: 6 }
        );
        assert_eq!(gallop.status(), GallopStatus::Halved);
        // Again: status 1 -> 0, incr kept.
        assert_eq!(
            gallop.on_round(cwnd, MDS, 2.0, 1.0, 3.0),
            GallopStep::Grow { incr_pkts: 6 }
        );
        assert_eq!(gallop.status(), GallopStatus::Clear);
        // Delta <= gamma (equality included): add incr, then incr + 1.
        assert_eq!(
            gallop.on_round(cwnd, MDS, 1.0, 1.0, 3.0),
            GallopStep::Grow { incr_pkts: 6 }
        );
        assert_eq!(gallop.incr_pkts(), 7);
        assert!(!gallop.exit_pending());
        // Halving 3 -> 1: incr = 1 and slow start ends after this RTT.
        gallop.incr_pkts = 3;
        assert_eq!(
            gallop.on_round(cwnd, MDS, 2.5, 1.0, 3.0),
            GallopStep::Grow { incr_pkts: 1 }
        );
        assert!(gallop.exit_pending());
        assert_eq!(gallop.status(), GallopStatus::Halved);
    }

    #[test]
    fn cut_by_last_increment_and_surplus_above_beta() {
        let mut cwnd = 20 * MDS;
        let mut gallop = GallopSlowStart::new(cwnd, MDS);
        gallop.incr_pkts = 4;
        gallop.on_round(cwnd, MDS, 0.0, 1.0, 3.0);
        cwnd += gallop.on_ack(cwnd); // +4 packets
        assert_eq!(cwnd, 24 * MDS);
        // Delta = 4.5 >= beta = 3: cut 4 + 1.5 packets.
        let step = gallop.on_round(cwnd, MDS, 4.5, 1.0, 3.0);
        assert_eq!(
            step,
            GallopStep::Cut {
                cut_bytes: 4 * MDS + 3 * MDS / 2
            }
        );
        assert_eq!(gallop.status(), GallopStatus::Cut);
        // First congestion-avoidance round holds, then Vegas again.
        assert!(gallop.on_congestion_avoidance_round());
        assert_eq!(gallop.status(), GallopStatus::Clear);
        assert!(!gallop.on_congestion_avoidance_round());
    }

    #[test]
    fn an_increase_left_over_when_the_rtt_ends_is_carried_into_the_next() {
        let cwnd = 10 * MDS;
        let mut gallop = GallopSlowStart::new(cwnd, MDS);
        // The first RTT adds nothing; the next plans incr = 1.
        assert_eq!(
            gallop.on_round(cwnd, MDS, 0.0, 1.0, 3.0),
            GallopStep::Grow { incr_pkts: 1 }
        );
        // The RTT ends after half its ACKs: half a datagram is not applied.
        assert_eq!(gallop.on_ack(5 * MDS), 0);
        assert_eq!(
            gallop.on_round(cwnd, MDS, 0.0, 1.0, 3.0),
            GallopStep::Grow { incr_pkts: 2 }
        );
        // incr = 2 plus the 1 left over: every `cwnd += incr` adds all of it.
        assert_eq!(gallop.increase().target_bytes(), 3 * MDS);
        assert_eq!(gallop.on_ack(cwnd), 3 * MDS);
        // A timeout forgets what was left over.
        gallop.on_round(cwnd, MDS, 0.0, 1.0, 3.0);
        gallop.restart(2 * MDS, MDS);
        assert_eq!(gallop.increase().target_bytes(), 0);
    }

    #[test]
    fn timeout_resets_incr_maxincr_status() {
        let mut gallop = GallopSlowStart::new(40 * MDS, MDS);
        gallop.incr_pkts = 9;
        gallop.status = GallopStatus::Cut;
        gallop.restart(2 * MDS, MDS);
        // maxincr = 2, incr = 0 -> the first RTT adds nothing, incr = 1.
        assert_eq!(gallop.maxincr_pkts(), 2);
        assert_eq!(gallop.incr_pkts(), 1);
        assert_eq!(gallop.status(), GallopStatus::Clear);
        assert_eq!(gallop.increase().target_bytes(), 0);
        // incr never exceeds maxincr = cwnd.
        let mut gallop = GallopSlowStart::new(2 * MDS, MDS);
        for _ in 0..5 {
            gallop.on_round(2 * MDS, MDS, 0.0, 1.0, 3.0);
        }
        assert_eq!(gallop.incr_pkts(), 2);
    }

    /// [`GallopGrowth::Equations`] from a window of `cwnd_pkts`, driven by
    /// `diffs` (one Delta per RTT, gamma = 1, beta = 3), each RTT's whole
    /// window acknowledged; returns the increase of each RTT in packets.
    fn replay_equations(gallop: &mut GallopSlowStart, cwnd_pkts: usize, diffs: &[f64]) -> Vec<u64> {
        let mut cwnd = cwnd_pkts * MDS;
        let mut increases = Vec::new();
        for &diff in diffs {
            let base = cwnd;
            cwnd += gallop.on_ack(base);
            increases.push(((cwnd - base) / MDS) as u64);
            gallop.on_round(cwnd, MDS, diff, 1.0, 3.0);
        }
        increases
    }

    #[test]
    fn equations_table_3_stable_growth_unchanged() {
        // Below gamma the equations' reading is the pseudo code's: Table 3.
        let mut gallop = GallopSlowStart::with_growth(GallopGrowth::Equations, 2 * MDS, MDS);
        let increases = replay_equations(&mut gallop, 2, &[0.0; 11]);
        let table_3_z: Vec<u64> = (0..11)
            .map(|i| gallop_rtt_increase_pkts(i) as u64)
            .collect();
        assert_eq!(increases, table_3_z);
        assert_eq!(gallop.regrow_to_pkts(), None);
    }

    #[test]
    fn equations_eq_17_regrowth_from_k_over_2_to_k_in_k_rtts() {
        // Eq. 17-18: at the k-th RTT the increment is k/2, then "adds the
        // increment by 1 every other RTT until the value of the increment
        // is k. In addition, it will take k RTTs", the window growing by
        // k/2 + k/2 + (k/2 + 1) + (k/2 + 1) + ... + k + k ~ (3/4) k^2.
        let k: u32 = 16;
        let mut gallop = GallopSlowStart::with_growth(GallopGrowth::Equations, 2 * MDS, MDS);
        // Table 3 up to RTT k (W_k = 122, eq. 7), Delta first > gamma at
        // the end of RTT k - 1 (so the k-th RTT adds k/2).
        let mut diffs = vec![0.0; k as usize - 1];
        diffs.push(2.0);
        diffs.extend([0.0; 20]);
        let increases = replay_equations(&mut gallop, 2, &diffs);
        let window_k: u64 = increases[..k as usize].iter().sum::<u64>() + 2;
        assert_eq!(window_k as f64, gallop_rtt_window_pkts(k));
        let half = u64::from(k / 2);
        let expected: Vec<u64> = (half..=u64::from(k)).flat_map(|z| [z, z]).collect();
        assert_eq!(&increases[k as usize..][..expected.len()], &expected[..]);
        // The increment is back at k after k RTTs, and stays there.
        assert_eq!(increases[2 * k as usize], u64::from(k));
        assert!(increases[k as usize..].iter().all(|&z| z <= u64::from(k)));
        assert_eq!(gallop.incr_pkts(), u64::from(k));
        let regrowth_pkts: u64 = expected.iter().sum();
        let three_quarters_k2 = 0.75 * f64::from(k * k);
        // The paper's "~": the exact sum is (3/4) k^2 + (3/2) k.
        assert_eq!(regrowth_pkts as f64, three_quarters_k2 + 1.5 * f64::from(k));
        assert!(!gallop.exit_pending());
    }

    #[test]
    fn equations_increment_one_does_not_end_slow_start() {
        // Eq. 19: at increment 1 Gallop-Vegas "increases the congestion
        // window by one every RTT before it reaches W given in (16)", and
        // leaves slow start "when Delta is no smaller than beta" (eq. 16).
        let cwnd = 100 * MDS;
        let mut gallop = GallopSlowStart::with_growth(GallopGrowth::Equations, cwnd, MDS);
        gallop.incr_pkts = 3;
        assert_eq!(
            gallop.on_round(cwnd, MDS, 2.0, 1.0, 3.0),
            GallopStep::Grow { incr_pkts: 1 }
        );
        assert!(!gallop.exit_pending());
        assert_eq!(gallop.regrow_to_pkts(), Some(3));
        // Back to 3 every other RTT (1, 2, 2, 3).
        for incr_pkts in [2, 2, 3] {
            gallop.on_round(cwnd, MDS, 0.0, 1.0, 3.0);
            assert_eq!(gallop.incr_pkts(), incr_pkts);
        }
        // Halved to 1, then halved from 1: it stays 1, one packet every RTT.
        gallop.on_round(cwnd, MDS, 2.0, 1.0, 3.0);
        gallop.on_round(cwnd, MDS, 2.0, 1.0, 3.0);
        gallop.on_round(cwnd, MDS, 2.0, 1.0, 3.0);
        assert_eq!(gallop.regrow_to_pkts(), Some(1));
        for _ in 0..4 {
            assert_eq!(
                gallop.on_round(cwnd, MDS, 0.0, 1.0, 3.0),
                GallopStep::Grow { incr_pkts: 1 }
            );
        }
        assert_eq!(gallop.incr_pkts(), 1);
        assert!(!gallop.exit_pending());
        // Delta >= beta cuts and ends slow start, as the pseudo code.
        assert!(matches!(
            gallop.on_round(cwnd, MDS, 3.0, 1.0, 3.0),
            GallopStep::Cut { .. }
        ));
        assert_eq!(gallop.status(), GallopStatus::Cut);
        // A timeout forgets the regrowth.
        gallop.restart(2 * MDS, MDS);
        assert_eq!(gallop.regrow_to_pkts(), None);
        assert_eq!(gallop.growth(), GallopGrowth::Equations);
    }

    /// Delta of the paper's fluid model (eq. 1, 8 with the round average
    /// of eq. 13, 14): the round's extra packets queue (z - 1)/2 on
    /// average, plus what the window holds above the pipe mu d.
    fn model_diff_pkts(window_pkts: f64, increase_pkts: f64, bdp_pkts: f64) -> f64 {
        let queue_pkts = (window_pkts - bdp_pkts).max(0.0) + (increase_pkts - 1.0).max(0.0) / 2.0;
        window_pkts * queue_pkts / (queue_pkts + bdp_pkts)
    }

    /// Drives `growth` with the model's Delta on a pipe of `bdp_pkts`:
    /// the RTT Delta first exceeds gamma, and the window and RTT when
    /// slow start ends (a cut, or the pseudo code's incr = 1).
    fn replay_model(growth: GallopGrowth, bdp_pkts: f64) -> (usize, f64, usize) {
        let mut cwnd = 2 * MDS;
        let mut gallop = GallopSlowStart::with_growth(growth, cwnd, MDS);
        let mut conspicuous = None;
        for rtt in 0..10_000 {
            let base = cwnd;
            cwnd += gallop.on_ack(base);
            let increase_pkts = ((cwnd - base) / MDS) as f64;
            let diff = model_diff_pkts((base / MDS) as f64, increase_pkts, bdp_pkts);
            if diff > 1.0 && conspicuous.is_none() {
                conspicuous = Some(rtt);
            }
            if gallop.exit_pending() {
                return (conspicuous.unwrap(), (cwnd / MDS) as f64, rtt);
            }
            if let GallopStep::Cut { .. } = gallop.on_round(cwnd, MDS, diff, 1.0, 3.0) {
                return (conspicuous.unwrap(), (cwnd / MDS) as f64, rtt);
            }
        }
        unreachable!("slow start never ended");
    }

    #[test]
    fn equations_leave_slow_start_at_eq_16_in_the_papers_model() {
        use crate::transient::analytic::gallop_conspicuous_window;
        use crate::transient::analytic::gallop_exit_window_pkts;
        use crate::transient::SlowStartRtt;
        // Examples 1 and 2 (mu d = 625 and 156.25): Delta first exceeds
        // gamma at eq. 13's k, and the equations' reading leaves slow start
        // at eq. 16's W = mu d + beta (docs/gallop-regrowth.md gives the
        // RTTs it takes).
        for bdp_pkts in [625.0, 156.25] {
            let k = gallop_conspicuous_window(bdp_pkts, SlowStartRtt::RoundAverage)
                .unwrap()
                .rtt_index as usize;
            let exit_pkts = gallop_exit_window_pkts(bdp_pkts, 3.0).unwrap();
            let (conspicuous, window_pkts, _) = replay_model(GallopGrowth::Equations, bdp_pkts);
            assert_eq!(conspicuous, k, "mu d = {bdp_pkts}");
            assert!(
                window_pkts >= exit_pkts.floor() && window_pkts < exit_pkts + 3.0,
                "mu d = {bdp_pkts}: {window_pkts}"
            );
        }
    }
}
