//! Coexistence with buffer-filling flows (not in the papers): the Vegas
//! family's answer to a CUBIC, Reno or BBR flow on the same bottleneck.
//!
//! A Vegas flow backs off whenever its own queue (Diff) exceeds beta. Beside
//! a flow that grows until the buffer overflows, every backoff is taken by
//! the other flow, and Vegas settles at the window whose own queue is
//! alpha..beta packets of a queue it does not own: 2-10% of the link. No
//! single round tells this apart from sharing with other Vegas flows (each
//! flow's Diff is Actual x queueing delay either way); what differs is
//! whether backing off works. This module watches exactly that, as CDG's
//! ineffectual-backoff detection does (Hayes & Armitage 2011, Linux
//! `tcp_cdg.c`), and competes with a loss-based window while backing off
//! would not be answered.
//!
//! Two modes, one struct owning their state ([`Coexistence`]):
//!
//! - **Delay** (Vegas as configured). Three kinds of evidence that someone
//!   else fills the buffer, each counted only while at least
//!   [`QUEUE_FRACTION`] of the path's BaseRTT is queued (BaseRTT as the
//!   lowest of the last [`PATH_BASE_MEMORY`]: the route check may have
//!   raised Vegas's own to the other flow's queue):
//!   - an *ineffective backoff episode*: a run of rounds in which Vegas
//!     lowered its window (-1 steps, a BaseRTT drain) from a queue of at
//!     least two of our packets or [`QUEUE_FRACTION`] of BaseRTT (a flow
//!     left with a few packets beside a deep queue takes a third of it per
//!     packet), judged [`TAIL_ROUNDS`] rounds after it by the lowest round
//!     RTT since its first round. The backoff was effective when that RTT
//!     is one of our packets (max_datagram_size / Actual) or half the
//!     queue, whichever is less, below the higher RTT of the episode's
//!     first two rounds (the window before the cut shows until the round
//!     after the next): alone, with
//!     other Vegas flows (who back off too) and after a route change (our
//!     own queue still drains) it is; beside a buffer-filling flow the
//!     queue holds or grows whatever we do. An episode in which the RTT
//!     rose by [`RISE_FRACTION`] of BaseRTT (and two of our packets) after
//!     its cut reached a packet and had time to show, to
//!     [`DEEP_QUEUE_FRACTION`] of BaseRTT queued, is ineffective whatever
//!     followed: a flow that backs off as the queue nears the overflow has
//!     a cut in flight when the other flow reduces, and that fall is not
//!     its doing (nor, for the collapse below, explained by its cut);
//!   - a *congestive loss*: a loss in congestion avoidance with the latest
//!     RTT sample that far above BaseRTT: a random loss comes at whatever
//!     queue Vegas keeps, an overflow at a full buffer;
//!   - a *collapse* ([`super::collapse`]): that queue, having stood two
//!     rounds, falling to half or less within the next two while our
//!     window held, the other flow's multiplicative decrease (not on a
//!     path that holds ACKs, where a round's RTT swings by the hold, nor
//!     after a spike, a cellular link's dip). It counts as a congestive
//!     loss (the overflow the other flow answered), and the backoff
//!     episode spanning it is dropped: the queue it lowered was not ours.
//!
//!   [`EVIDENCE_EVENTS`] of them in a row, each within [`EVIDENCE_MEMORY`]
//!   of the previous one, switch to competitive mode if one was a loss or
//!   the last left [`DEEP_QUEUE_FRACTION`] of BaseRTT queued; an effective
//!   episode clears them. Within [`SHADOW_MEMORY`] of a return, one event
//!   switches back; from [`SHADOW_SETTLE`] on, an ineffective backoff also
//!   counts at any queue of [`SHADOW_QUEUE_PKTS`] or more, and three of
//!   them switch back: a return test that ran just after the other flow's
//!   reduction found the queue empty, and the other flow's queue grows back
//!   from nothing (at 100 Mbit/s x 80 ms a Reno's took 20 s to reach a
//!   quarter of BaseRTT, the family flow yielding all the while).
//! - **Competitive**. The window is CUBIC's (RFC 9438, [`CubicWindow`]), as
//!   quiche runs it. A first switch starts from the largest window of the
//!   evidence run (the window we had before the other flow took it; CDG's
//!   shadow window serves the same purpose) and slow-starts from there
//!   until its first loss episode (of a packet sent after the switch:
//!   earlier ones were delay mode's), as a loss-based flow joining the path
//!   starts (RFC 9438 section 4.10: CUBIC begins in slow start); CUBIC's
//!   epoch then starts from the window that loss found. Without it the
//!   flow grew from the few packets it kept in delay mode by CUBIC's cube,
//!   a handful of packets a second, and a deep buffer's fair share took
//!   longer than the run (`docs/coexistence.md`, "The competitive start and
//!   a few packets beside a deep queue").
//!   A switch back within [`SHADOW_MEMORY`] of a return resumes the window
//!   of the last competitive period instead. Vegas's round decisions,
//!   BaseRTT drains and route-change checks pause; the flow paces at
//!   [`COMPETITIVE_PACING_GAIN`] x cwnd / smoothed RTT.
//!   - Losses: CUBIC's reduction, undone when recovery ends if the episode
//!     lost fewer than [`SPURIOUS_LOSS_FRACTION`] of the window (quiche's
//!     CUBIC, the usual other flow of a QUIC path, does exactly this: a
//!     flow that kept every reduction beside it starved).
//!   - A *return test* lowers the window to the pipe at our own rate
//!     (Actual x the BaseRTT frozen at the switch) for
//!     [`RETURN_TEST_ROUNDS`] rounds, one to drain and the rest to measure.
//!     If the queue then empties (round RTT within [`return_tolerance`] of
//!     BaseRTT) nobody else holds a queue: back to delay mode with the
//!     window at that pipe plus alpha. Otherwise the CUBIC window is
//!     restored. A test starts at the end of the first loss recovery after
//!     [`RETURN_TEST_INTERVAL`] (the buffer overflow every competing family
//!     flow sees: they test together), at twice the interval without one,
//!     or at once when the queue halves in a round we did not cut in
//!     (another family flow testing), so that family flows left competing
//!     with each other drain together and find the empty queue.
//!
//! Both switches are decision records ([`crate::ControllerEvent::ModeChange`])
//! carrying the evidence they used. Why this design and not Copa's mode
//! switch, Nimbus's pulses, Compound's delay window or Feng & Vanichpun's
//! alpha/beta: `docs/coexistence.md`.
//!
//! Interpretation choices and limits:
//! - BaseRTT for the return test is the path's when the evidence run
//!   began. A path that really got longer while competing keeps the flow
//!   competitive until [`STALE_BASE_TESTS`] return tests in a row found the
//!   same floor (a loss-based flow's queue moves from test to test; a
//!   longer path does not).
//! - A route change is told from a competitor by the windowed BaseRTT's
//!   route check (the drain finds the longer path and BaseRTT follows it).
//!   With a lifetime BaseRTT (`base_rtt_window_ms=0`) a longer path's delay
//!   is a queue no backoff lowers, and the flow competes for it.
//! - A return test that finds the queue empty just after the other flow's
//!   own reduction returns too early; the next evidence then resumes the
//!   competitive window at once ([`SHADOW_MEMORY`]).
//! - Against quiche's CUBIC the flow is as aggressive as that CUBIC; against
//!   a Reno that keeps every reduction it is more aggressive than Reno
//!   (CUBIC is).

use std::time::Duration;
use std::time::Instant;

use super::collapse::CollapseWatch;
use crate::cubic::CubicWindow;
use crate::cubic::CUBIC_BETA;
use crate::events::Action;
// Defined with the decision records that carry it (`ModeChange`).
pub use crate::events::CoexistMode;
pub use crate::events::SwitchTrigger;

/// Evidence events in a row that switch to competitive mode. A route
/// change gives one (the drain finds the longer path), a newcomer's slow
/// start one or two; a buffer-filling flow one per route check or loss.
/// Our choice, from `docs/coexistence.md`.
pub const EVIDENCE_EVENTS: u32 = 3;

/// Evidence events in a row that switch without a loss or a deep queue:
/// beside NewReno at 100 Mbit/s x 80 ms (one BDP of buffer) a flow that
/// left slow start with a fifth of the link made 26 ineffective backoffs
/// in 30 s while NewReno's queue grew from half to 0.7 of BaseRTT, and
/// never switched (share 0.07). A few family flows answer some backoff
/// of ours within a run this long. Our choice: twice
/// [`EVIDENCE_EVENTS`].
pub const LONG_RUN_EVENTS: u32 = 2 * EVIDENCE_EVENTS;

/// An evidence event counts towards the run only if it came within this
/// long of the previous one. Our choice: a Vegas flow beside a
/// buffer-filling one backs off at least every route check (six rounds).
pub const EVIDENCE_MEMORY: Duration = Duration::from_secs(10);

/// The path's BaseRTT as the mechanism sees it: the lowest BaseRTT of the
/// last this long. Vegas's own BaseRTT may be raised by its route check,
/// which a buffer-filling flow's standing queue fools as a longer path
/// does. Our choice: a few of the route check's windows.
pub const PATH_BASE_MEMORY: Duration = Duration::from_secs(30);

/// A backoff episode is judged after at most this many rounds: the
/// route check's four decreases and its two-round drain.
pub const EPISODE_ROUNDS: u32 = 6;

/// Rounds from the one in which an episode's cut reached a packet to the
/// first whose RTT shows it ([`TAIL_ROUNDS`]: the ACK clock and pacing lag
/// a round); an RTT above that round's from then on means the queue grew
/// faster than we lowered it.
pub const RISE_LAG_ROUNDS: u32 = TAIL_ROUNDS;

/// A rise after the lag counts when it is at least this fraction of
/// BaseRTT (and two of our packets): half the queue evidence needs, far
/// above the hosts' timing noise. Our choice.
pub const RISE_FRACTION: f64 = QUEUE_FRACTION / 2.0;

/// Rounds after the last backoff round that still count for its
/// episode: a window lowered at the end of a round shows in the RTTs of
/// the round after the next (its ACK clock and pacing lag a round).
pub const TAIL_ROUNDS: u32 = 2;

/// Evidence needs a queueing delay above this fraction of BaseRTT (at a
/// loss, or left after a backoff): a Vegas flow alone keeps alpha..beta
/// packets, below a quarter of the pipe on any path of 16 packets or more,
/// and a few Vegas flows on a path of 100 packets or more keep less. Our
/// choice (YeAH counts an RTT above 1/8 of BaseRTT as queued).
pub const QUEUE_FRACTION: f64 = 0.25;

/// From [`SHADOW_SETTLE`] to [`SHADOW_MEMORY`] after a return, a backoff
/// that left at least this many of our packets queued (at our own rate)
/// and did not lower the queue by one is evidence, however shallow the
/// queue. Our choice: the floor an episode's start needs; alone, the
/// flow's own queue falls with its window.
pub const SHADOW_QUEUE_PKTS: f64 = 2.0;

/// Shallow evidence counts only this long after a return: family flows
/// still competing have each run a return test by then (the longest
/// interval without a loss), so the queue left is not theirs. Our choice.
pub const SHADOW_SETTLE: Duration = Duration::from_secs(4);

/// Without a congestive loss in the run, the queue left after the last
/// ineffective backoff must be at least this fraction of BaseRTT: BBR in a
/// deep buffer keeps about a BDP queued without overflowing it, while
/// Vegas-A flows that raised their thresholds together hold half a BDP on
/// the ten-flow path (`scale-ten-flows`). Our choice.
pub const DEEP_QUEUE_FRACTION: f64 = 0.75;

/// Time between return tests in competitive mode: once it has passed, the
/// next test starts when recovery from a loss episode ends (the buffer
/// overflowed, so every flow of the family competing there tests at about
/// the same time), or at twice the interval without one. Our choice: at
/// most four seconds of the five within which the flow should be back at
/// alpha..beta after the other flow left.
pub const RETURN_TEST_INTERVAL: Duration = Duration::from_secs(2);

/// A return test joined because the queue halved comes at least this long
/// after the flow's previous test. Our choice.
pub const JOIN_SPACING: Duration = Duration::from_secs(1);

/// Rounds a return test lasts: one to drain, then the rounds measured
/// (two, so that the tests of flows that joined a round late overlap).
pub const RETURN_TEST_ROUNDS: u8 = 3;

/// Return tests in a row that found the same queue-free floor above the
/// frozen BaseRTT before that floor is taken as the path's (a longer path,
/// not a competitor's queue).
pub const STALE_BASE_TESTS: u32 = 8;

/// A family flow testing at once when the queue fell by this fraction in a
/// round it did not cut in (module documentation). Our choice.
pub const JOIN_DROP_FRACTION: f64 = 0.5;

/// RFC 9002 section 7.7: pace at 1.25 x cwnd / smoothed RTT, so that the
/// window can grow (the family's own gain of 1 never sends faster than its
/// window per period).
pub const COMPETITIVE_PACING_GAIN: f64 = 1.25;

/// What one finished round tells the mechanism.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RoundObservation {
    /// When the round ended.
    pub now: Instant,
    /// The round's RTT (the sampler's, as Diff used it).
    pub round_rtt: Duration,
    /// BaseRTT, as Diff used it.
    pub base_rtt: Duration,
    /// The round's Actual rate, in bytes per second.
    pub actual_bytes_per_sec: f64,
    /// What Vegas decided for this round (delay mode).
    pub action: Action,
    /// The window before the round's decision, in bytes.
    pub cwnd_before_bytes: usize,
    /// The window after the round's decision.
    pub cwnd_after_bytes: usize,
    /// The path's maximum datagram size, in bytes.
    pub max_datagram_size: usize,
    /// The round's RTT was read from the ACK-aggregation hold bounds
    /// (`RoundSample::hold_bounded`): the path holds ACKs.
    pub rtt_from_hold_bounds: bool,
}

/// The evidence behind a switch (the decision record's fields).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SwitchEvidence {
    /// Evidence events in the run (to competitive), or return tests in
    /// competitive mode (to delay).
    pub count: u32,
    /// The event that completed it.
    pub trigger: SwitchTrigger,
    /// The queueing delay the last event or test measured: its RTT minus
    /// BaseRTT.
    pub queue_delay: Duration,
    /// BaseRTT the queueing delay is measured from.
    pub base_rtt: Duration,
    /// How far the last backoff lowered the RTT, in seconds (negative: it
    /// rose; 0 for a loss; how far it fell for a collapse), or the test's
    /// tolerance.
    pub rtt_change_secs: f64,
}

/// What the owner does after a round or a loss.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum CoexistStep {
    /// Nothing changes.
    Stay,
    /// Switch to competitive mode with this window.
    Compete {
        /// The competitive window, in bytes.
        cwnd_bytes: usize,
        /// The evidence behind the switch.
        evidence: SwitchEvidence,
    },
    /// A return test drains to this window for two rounds.
    TestDrain {
        /// The drained window, in bytes.
        cwnd_bytes: usize,
    },
    /// Back to the competitive window (a test found a queue, or a loss
    /// reduction the other flow did not match is undone).
    Restore {
        /// The restored window, in bytes.
        cwnd_bytes: usize,
    },
    /// Back to delay mode with this window; `base_rtt` is the floor the
    /// test measured.
    Return {
        /// The window in delay mode, in bytes.
        cwnd_bytes: usize,
        /// The BaseRTT floor the test measured, never below its rounds'
        /// BaseRTT from raw samples.
        base_rtt: Duration,
        /// The evidence behind the switch.
        evidence: SwitchEvidence,
    },
}

/// A backoff episode in progress (module documentation).
#[derive(Clone, Copy, Debug)]
struct Episode {
    start_rtt: Duration,
    /// The RTT the window before the cut produced, which the drop is
    /// judged from: the first round's, or the next one's as far as our
    /// own growth before the cut explains it ([`Episode::own_rise`]).
    before_cut_rtt: Duration,
    /// How far our window's growth over the two rounds before the episode
    /// raises the RTT (at our own rate), at most one packet: a window
    /// raised at the end of a round shows only in the round after the next
    /// ([`TAIL_ROUNDS`]), so a flow that grew into its own queue as the cut
    /// began sees the RTT peak a round later. Only that much of a rise is
    /// ours; the rest (BBR's probing, a loss-based flow's growth) is not.
    /// One packet is the unit the drop is judged in: a larger allowance
    /// let a flow growing by 27 packets a round beside Reno read a cut of
    /// 663 packets that lowered the RTT by 2.5 ms as effective.
    own_rise: Duration,
    /// Lowest round RTT after the first round of the episode.
    min_rtt: Duration,
    /// Rounds of backoff, and rounds since the last one.
    backoff_rounds: u32,
    tail_rounds: u32,
    start_cwnd_bytes: usize,
    /// The smallest window its backoff rounds left.
    min_cwnd_bytes: usize,
    base_rtt: Duration,
    /// The round RTT when the cut first reached one packet, and the
    /// episode's round count then ([`RISE_LAG_ROUNDS`]).
    cut_rtt: Option<(Duration, u32)>,
    /// The highest round RTT from [`RISE_LAG_ROUNDS`] rounds after that.
    risen_rtt: Duration,
    /// One of its rounds read its RTT from the ACK-aggregation hold
    /// bounds: a round's RTT swings by the hold there.
    hold_bounded: bool,
}

impl Episode {
    /// Rounds so far, backoff and tail.
    fn rounds(&self) -> u32 {
        self.backoff_rounds + self.tail_rounds
    }

    /// After a round with `round_rtt`: note when the cut reached a packet
    /// and the highest RTT the lag after it let through.
    fn watch_rise(&mut self, round_rtt: Duration, max_datagram_size: usize) {
        match self.cut_rtt {
            None if self.start_cwnd_bytes.saturating_sub(self.min_cwnd_bytes)
                >= max_datagram_size =>
            {
                self.cut_rtt = Some((round_rtt, self.rounds()));
            }
            Some((_, at)) if self.rounds() >= at + RISE_LAG_ROUNDS => {
                self.risen_rtt = self.risen_rtt.max(round_rtt);
            }
            _ => {}
        }
    }

    /// The RTT rose after the cut reached a packet, once the cut had time
    /// to show, by at least two of our packets (`one_pkt_secs` each) and
    /// [`RISE_FRACTION`] of BaseRTT.
    fn risen(&self, one_pkt_secs: f64) -> bool {
        self.rise_secs() >= (2.0 * one_pkt_secs).max(RISE_FRACTION * self.base_rtt.as_secs_f64())
    }

    /// [`Episode::risen`], to a queue of at least [`DEEP_QUEUE_FRACTION`]
    /// of BaseRTT: Vegas-A flows raising their thresholds together grow a
    /// shallower queue while one of them backs off, and their drains
    /// collapse it (three Vegas-A flows at 20 Mbit/s x 40 ms: rises to
    /// 10-25 ms).
    fn risen_deep(&self, one_pkt_secs: f64) -> bool {
        self.risen(one_pkt_secs)
            && queue_secs(self.risen_rtt, self.base_rtt)
                >= DEEP_QUEUE_FRACTION * self.base_rtt.as_secs_f64()
    }

    /// How far the RTT rose after the cut reached a packet, once the cut
    /// had time to show, in seconds (0 without one).
    fn rise_secs(&self) -> f64 {
        match self.cut_rtt {
            Some((cut_rtt, _)) if !self.hold_bounded && self.risen_rtt > cut_rtt => {
                queue_secs(self.risen_rtt, cut_rtt)
            }
            _ => 0.0,
        }
    }
}

/// Delay mode: the run of evidence.
#[derive(Clone, Copy, Debug, Default)]
struct EvidenceRun {
    episode: Option<Episode>,
    events: u32,
    last_event: Option<Instant>,
    /// BaseRTT when the run began (before a route check could raise it).
    base_rtt: Option<Duration>,
    /// The largest window the run saw.
    peak_cwnd_bytes: usize,
    /// One of the run's events was a congestive loss.
    loss_seen: bool,
    /// The event being counted is a congestive loss.
    loss_seen_now: bool,
    /// The last congestion-avoidance round: (RTT, the path's BaseRTT).
    last_round: Option<(Duration, Duration)>,
    /// The windows the last two congestion-avoidance rounds began with,
    /// the older first ([`Episode::own_rise`]).
    windows_before: [Option<usize>; 2],
    /// The other flow's reductions ([`super::collapse`]).
    collapse: CollapseWatch,
}

/// A return test in progress.
#[derive(Clone, Copy, Debug)]
struct ReturnTest {
    restore_cwnd_bytes: usize,
    test_cwnd_bytes: usize,
    rounds_left: u8,
    min_rtt: Duration,
    /// The lowest BaseRTT of the measured rounds ([`RoundObservation::base_rtt`],
    /// read from raw RTT samples): the floor a return hands back
    /// ([`CoexistStep::Return`]) is never below it.
    min_base_rtt: Duration,
    /// The first packet sent under the test's window: losses of earlier
    /// ones are the full window's, not news.
    first_pkt_num: Option<u64>,
}

/// How competitive mode answers a loss.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LossAnswer {
    /// CUBIC's reduction to this window.
    Reduce(usize),
    /// No reduction (a packet sent before a return test's window).
    Ignore,
}

/// A competitive loss episode: the state before its reduction, kept to
/// undo the reduction if the episode proves spurious.
#[derive(Clone, Copy, Debug)]
struct LossEpisode {
    window: CubicWindow,
    cwnd_bytes: usize,
    /// Packets declared lost since the episode began.
    lost_pkts: usize,
}

/// A loss episode that lost fewer than this fraction of the window (and
/// fewer than two packets) was spurious and its reduction is undone when
/// recovery ends: quiche's CUBIC (`ROLLBACK_THRESHOLD_PERCENT`, after
/// draft-ietf-tcpm-rfc8312bis-00 section 4.9), which competitive mode
/// matches, no more and no less aggressive.
pub const SPURIOUS_LOSS_FRACTION: f64 = 0.2;

/// Fewer packets lost than this in an episode: spurious
/// ([`SPURIOUS_LOSS_FRACTION`], at least quiche's `MIN_ROLLBACK_THRESHOLD`
/// of 2).
pub fn spurious_loss_pkts(cwnd_bytes: usize, max_datagram_size: usize) -> usize {
    ((cwnd_bytes / max_datagram_size.max(1)) as f64 * SPURIOUS_LOSS_FRACTION).max(2.0) as usize
}

/// Competitive mode's state.
#[derive(Clone, Copy, Debug)]
struct Competing {
    window: CubicWindow,
    /// Slow start until the first loss episode, as a loss-based flow
    /// joining the path starts ([`Coexistence`] module documentation).
    starting: bool,
    /// BaseRTT frozen at the switch (module documentation).
    base_rtt: Duration,
    /// When the last return test ended (or the switch).
    last_test: Instant,
    /// A loss episode's recovery ended after [`RETURN_TEST_INTERVAL`]:
    /// test at the end of the next round.
    test_due: bool,
    test: Option<ReturnTest>,
    tests: u32,
    /// The floor the last failed tests found, and how many in a row found
    /// it (within the tolerance).
    floor: Option<(Duration, u32)>,
    /// The last round's RTT.
    last_round_rtt: Option<Duration>,
    /// The loss episode in recovery, if any.
    episode: Option<LossEpisode>,
    /// Rounds since our own last reduction or test (the queue falls
    /// after it for our own reasons).
    quiet_rounds: u32,
    /// The first packet sent in competitive mode: while `starting`, the
    /// loss of an earlier one is news from delay mode's window.
    first_pkt_num: Option<u64>,
}

/// The coexistence mechanism (module documentation).
#[derive(Clone, Copy, Debug, Default)]
pub struct Coexistence {
    run: EvidenceRun,
    /// The lowest BaseRTT of the last [`PATH_BASE_MEMORY`], and when it
    /// was seen.
    path_base: Option<(Duration, Instant)>,
    competing: Option<Competing>,
    /// The competitive window when the flow last returned to delay mode,
    /// and when: a switch back within [`SHADOW_MEMORY`] resumes it.
    shadow: Option<(Instant, CubicWindow, usize)>,
}

/// A switch back to competitive mode within this long of a return resumes
/// the competitive window (CDG's shadow window: a return test that found
/// the queue empty just after the other flow's reduction must not cost
/// the share). Our choice: four return-test intervals.
pub const SHADOW_MEMORY: Duration = Duration::from_secs(10);

/// The queueing delay below which a return test counts the queue as
/// empty: one packet at our own rate (what a window of exactly the pipe
/// leaves through rounding), at most an eighth of BaseRTT (a competitor's
/// queue must not pass for ours when our share is small), and at least
/// `floor` (the RTT resolution: delay differences below it are the hosts'
/// scheduling noise).
pub fn return_tolerance(
    actual_bytes_per_sec: f64,
    max_datagram_size: usize,
    base_rtt: Duration,
    floor: Duration,
) -> Duration {
    packet_time(actual_bytes_per_sec, max_datagram_size)
        .min(base_rtt / 8)
        .max(floor)
}

/// [`Episode::own_rise`]: `growth_bytes` of our window at our own rate,
/// at most one packet; none without a rate to read it at.
fn own_rise(growth_bytes: usize, actual_bytes_per_sec: f64, max_datagram_size: usize) -> Duration {
    if actual_bytes_per_sec <= 0.0 {
        return Duration::ZERO;
    }
    let growth_pkts = (growth_bytes as f64 / max_datagram_size as f64).min(1.0);
    packet_time(actual_bytes_per_sec, max_datagram_size).mul_f64(growth_pkts)
}

/// The time one of our packets takes at our own rate.
fn packet_time(actual_bytes_per_sec: f64, max_datagram_size: usize) -> Duration {
    if actual_bytes_per_sec > 0.0 {
        Duration::from_secs_f64((max_datagram_size as f64 / actual_bytes_per_sec).min(3600.0))
    } else {
        Duration::MAX
    }
}

/// `rtt - base` in seconds, negative below it.
fn queue_secs(rtt: Duration, base: Duration) -> f64 {
    rtt.as_secs_f64() - base.as_secs_f64()
}

impl Coexistence {
    /// The mode the flow is in.
    pub fn mode(&self) -> CoexistMode {
        if self.competing.is_some() {
            CoexistMode::Competitive
        } else {
            CoexistMode::Delay
        }
    }

    /// Whether a return test is draining or measuring.
    pub fn testing(&self) -> bool {
        self.competing.is_some_and(|c| c.test.is_some())
    }

    /// Delay mode within [`SHADOW_MEMORY`] of a return from competitive
    /// mode: the competitor may still be there (a return test can find the
    /// queue empty right after its reduction).
    pub fn just_returned(&self, now: Instant) -> bool {
        self.since_return(now)
            .is_some_and(|since| since <= SHADOW_MEMORY)
    }

    /// From [`SHADOW_SETTLE`] to [`SHADOW_MEMORY`] after a return: a
    /// shallow queue our backoff does not lower is evidence.
    fn shallow_evidence_counts(&self, now: Instant) -> bool {
        self.since_return(now)
            .is_some_and(|since| (SHADOW_SETTLE..=SHADOW_MEMORY).contains(&since))
    }

    /// Delay mode: how long ago the flow last returned from competitive
    /// mode, if it ever did.
    fn since_return(&self, now: Instant) -> Option<Duration> {
        match (self.competing, self.shadow) {
            (None, Some((at, _, _))) => Some(now.saturating_duration_since(at)),
            _ => None,
        }
    }

    /// Forget everything (a new path, persistent congestion): delay mode.
    pub fn reset(&mut self) {
        *self = Coexistence::default();
    }

    /// Delay mode, after Vegas decided a congestion-avoidance round: judge
    /// backoff episodes; [`CoexistStep::Compete`] when the run is long
    /// enough.
    pub fn on_delay_round(&mut self, obs: &RoundObservation) -> CoexistStep {
        let path_base = self.path_base(obs.now, obs.base_rtt);
        self.run.last_round = Some((obs.round_rtt, path_base));
        let [two_rounds_ago, last_round] = self.run.windows_before;
        let own_growth_bytes =
            two_rounds_ago.map_or(0, |w| obs.cwnd_before_bytes.saturating_sub(w));
        self.run.windows_before = [last_round, Some(obs.cwnd_before_bytes)];
        self.run.peak_cwnd_bytes = self.run.peak_cwnd_bytes.max(obs.cwnd_before_bytes);
        // A backoff round: Vegas's -1 step, a drain, or (with
        // `fair_share`) any round that lowered the window: held inside the
        // band, a flow moves toward its middle by fractions of a packet,
        // and beside a growing queue it gives way by those fractions.
        let backoff = matches!(obs.action, Action::Decrease | Action::BaseRttProbe)
            || obs.cwnd_after_bytes < obs.cwnd_before_bytes;
        let new_episode = Episode {
            start_rtt: obs.round_rtt,
            before_cut_rtt: obs.round_rtt,
            own_rise: own_rise(
                own_growth_bytes,
                obs.actual_bytes_per_sec,
                obs.max_datagram_size,
            ),
            min_rtt: Duration::MAX,
            backoff_rounds: 1,
            tail_rounds: 0,
            start_cwnd_bytes: obs.cwnd_before_bytes,
            min_cwnd_bytes: obs.cwnd_after_bytes,
            base_rtt: path_base,
            cut_rtt: None,
            risen_rtt: Duration::ZERO,
            hold_bounded: obs.rtt_from_hold_bounds,
        };
        let one_pkt = packet_time(obs.actual_bytes_per_sec, obs.max_datagram_size).as_secs_f64();
        // Our cut in progress already failed to lower the queue: a collapse
        // now is not its doing.
        let cut_failed = self
            .run
            .episode
            .is_some_and(|episode| episode.risen_deep(one_pkt));
        if let Some(collapse) = self.run.collapse.on_round(
            obs.now,
            obs.rtt_from_hold_bounds,
            cut_failed,
            queue_secs(obs.round_rtt, path_base),
            path_base,
            obs.cwnd_before_bytes,
            one_pkt,
            obs.max_datagram_size,
        ) {
            // The other flow's reduction: a congestive loss it took for us.
            // The backoff episode spanning it did not lower that queue.
            self.run.episode = None;
            self.run.loss_seen_now = true;
            return self.evidence(
                obs.now,
                SwitchTrigger::QueueCollapse,
                path_base,
                obs.cwnd_before_bytes,
                collapse.queue_before,
                collapse.drop_secs,
                obs.cwnd_before_bytes,
                obs.max_datagram_size,
            );
        }
        let Some(episode) = &mut self.run.episode else {
            if backoff {
                let mut episode = new_episode;
                episode.watch_rise(obs.round_rtt, obs.max_datagram_size);
                self.run.episode = Some(episode);
            }
            return CoexistStep::Stay;
        };
        episode.min_rtt = episode.min_rtt.min(obs.round_rtt);
        if episode.rounds() == 1 {
            let own_peak = obs
                .round_rtt
                .min(episode.start_rtt.saturating_add(episode.own_rise));
            episode.before_cut_rtt = episode.before_cut_rtt.max(own_peak);
        }
        episode.hold_bounded |= obs.rtt_from_hold_bounds;
        if backoff {
            episode.backoff_rounds += 1;
            episode.tail_rounds = 0;
            episode.min_cwnd_bytes = episode.min_cwnd_bytes.min(obs.cwnd_after_bytes);
            episode.watch_rise(obs.round_rtt, obs.max_datagram_size);
            if episode.backoff_rounds < EPISODE_ROUNDS {
                return CoexistStep::Stay;
            }
        } else {
            episode.tail_rounds += 1;
            episode.watch_rise(obs.round_rtt, obs.max_datagram_size);
            if episode.tail_rounds < TAIL_ROUNDS {
                return CoexistStep::Stay;
            }
        }
        // Judged after its tail, or at its length limit (then the backoff
        // goes on as a new episode from this round).
        let episode = *episode;
        self.run.episode = backoff.then_some(new_episode);
        let start_queue = queue_secs(episode.start_rtt, episode.base_rtt);
        let cut_bytes = episode
            .start_cwnd_bytes
            .saturating_sub(episode.min_cwnd_bytes);
        if episode.backoff_rounds < 2
            || cut_bytes < obs.max_datagram_size
            || start_queue < (2.0 * one_pkt).min(QUEUE_FRACTION * episode.base_rtt.as_secs_f64())
        {
            // A single -1 step, or fractions of a packet (`fair_share`
            // inside the band), are too small to see; a backoff from an
            // (almost) empty queue has nothing to drain. Beside a deep
            // queue a flow left with a few packets takes a third of it per
            // packet: a quarter of BaseRTT is queue enough.
            return CoexistStep::Stay;
        }
        let drop_secs = queue_secs(episode.before_cut_rtt, episode.min_rtt);
        // Settled after a return, any queue the backoff did not lower
        // counts: the return test may have found the queue empty right
        // after the other flow's reduction, and its queue then grows back
        // from nothing. Otherwise only a deep one.
        let gate_secs = if self.shallow_evidence_counts(obs.now) {
            SHADOW_QUEUE_PKTS * one_pkt
        } else {
            QUEUE_FRACTION * episode.base_rtt.as_secs_f64()
        };
        // The queue grew while our cut of a packet should have shown: the
        // other flow was growing into it, whatever came after (its own
        // reduction at the overflow, which a backoff spanning it would
        // otherwise take for its own doing).
        if episode.risen_deep(one_pkt) {
            let rise_secs = episode.rise_secs();
            let queue_delay = episode
                .risen_rtt
                .saturating_sub(self.run.base_rtt.unwrap_or(episode.base_rtt));
            return self.evidence(
                obs.now,
                SwitchTrigger::IneffectiveBackoff,
                episode.base_rtt,
                episode.start_cwnd_bytes,
                queue_delay,
                -rise_secs,
                obs.cwnd_before_bytes,
                obs.max_datagram_size,
            );
        }
        if drop_secs >= one_pkt.min(start_queue / 2.0)
            || queue_secs(episode.min_rtt, episode.base_rtt) < gate_secs
        {
            // The backoff lowered the queue (by one of our packets, or by
            // half of it when it held under two): whoever shares it yields
            // too. Unless what it left is still a deep queue, which no few
            // Vegas flows keep (the evidence's own test, below): a flow
            // growing a packet a round into a deep buffer (Reno, 10 Mbit/s
            // x 80 ms, four BDPs) yields to none of our cuts, yet between
            // its ineffective backoffs each third one lowered the RTT by a
            // packet and started the evidence over.
            if queue_secs(episode.min_rtt, episode.base_rtt)
                >= DEEP_QUEUE_FRACTION * episode.base_rtt.as_secs_f64()
            {
                return CoexistStep::Stay;
            }
            self.run.events = 0;
            self.run.base_rtt = None;
            self.run.peak_cwnd_bytes = obs.cwnd_before_bytes;
            return CoexistStep::Stay;
        }
        let queue_delay = episode
            .min_rtt
            .saturating_sub(self.run.base_rtt.unwrap_or(episode.base_rtt));
        self.evidence(
            obs.now,
            SwitchTrigger::IneffectiveBackoff,
            episode.base_rtt,
            episode.start_cwnd_bytes,
            queue_delay,
            drop_secs,
            obs.cwnd_before_bytes,
            obs.max_datagram_size,
        )
    }

    /// The path's BaseRTT ([`PATH_BASE_MEMORY`]) after a round whose
    /// BaseRTT was `base_rtt`.
    fn path_base(&mut self, now: Instant, base_rtt: Duration) -> Duration {
        match self.path_base {
            Some((base, at))
                if base <= base_rtt && now.saturating_duration_since(at) <= PATH_BASE_MEMORY =>
            {
                base
            }
            _ => {
                self.path_base = Some((base_rtt, now));
                base_rtt
            }
        }
    }

    /// Delay mode, a loss in congestion avoidance with the window at
    /// `cwnd_bytes` (before Vegas's reduction): congestive evidence when the
    /// latest RTT sample was more than [`QUEUE_FRACTION`] of the path's
    /// BaseRTT above it (a random loss comes at whatever queue Vegas keeps,
    /// an overflow at a full buffer).
    pub fn on_delay_loss(
        &mut self,
        now: Instant,
        latest_rtt: Duration,
        cwnd_bytes: usize,
        max_datagram_size: usize,
    ) -> CoexistStep {
        let Some((_, base_rtt)) = self.run.last_round else {
            return CoexistStep::Stay;
        };
        let queue = latest_rtt.saturating_sub(base_rtt);
        if queue.as_secs_f64() < QUEUE_FRACTION * base_rtt.as_secs_f64() {
            return CoexistStep::Stay;
        }
        self.run.loss_seen_now = true;
        self.evidence(
            now,
            SwitchTrigger::CongestiveLoss,
            base_rtt,
            cwnd_bytes,
            queue,
            0.0,
            cwnd_bytes,
            max_datagram_size,
        )
    }

    /// One more evidence event; [`CoexistStep::Compete`] when the run is
    /// long enough.
    #[allow(clippy::too_many_arguments)]
    fn evidence(
        &mut self,
        now: Instant,
        trigger: SwitchTrigger,
        base_rtt: Duration,
        peak_cwnd_bytes: usize,
        queue_delay: Duration,
        rtt_change_secs: f64,
        cwnd_bytes: usize,
        max_datagram_size: usize,
    ) -> CoexistStep {
        let just_back = self.just_returned(now);
        let run = &mut self.run;
        let continues = run
            .last_event
            .is_some_and(|t| now.saturating_duration_since(t) <= EVIDENCE_MEMORY);
        if !continues {
            run.events = 0;
            run.base_rtt = None;
            run.loss_seen = false;
        }
        run.loss_seen |= std::mem::take(&mut run.loss_seen_now);
        run.events += 1;
        run.last_event = Some(now);
        run.peak_cwnd_bytes = run.peak_cwnd_bytes.max(peak_cwnd_bytes);
        let base_rtt = run.base_rtt.map_or(base_rtt, |b| b.min(base_rtt));
        run.base_rtt = Some(base_rtt);
        // Just back from competitive mode: the first deep evidence resumes
        // it (a return test can find the queue empty right after the other
        // flow's reduction); shallow evidence needs the whole run (family
        // flows back together pass the queue between them for a while),
        // but not a deep queue or a loss: the competitor was just here.
        let deep = queue_delay.as_secs_f64() >= QUEUE_FRACTION * base_rtt.as_secs_f64();
        if !(just_back && deep) {
            if run.events < EVIDENCE_EVENTS {
                return CoexistStep::Stay;
            }
            // A flow that fills the buffer makes it overflow, or (BBR in a
            // deep buffer) keeps a standing queue no few Vegas flows would,
            // or (a loss-based flow growing a packet a round) takes none
            // of our backoffs in a long run.
            if !just_back
                && !run.loss_seen
                && run.events < LONG_RUN_EVENTS
                && queue_delay.as_secs_f64() < DEEP_QUEUE_FRACTION * base_rtt.as_secs_f64()
            {
                return CoexistStep::Stay;
            }
        }
        // Compete: CUBIC after a loss at the largest window of the run (the
        // window we had before the other flow took it).
        let peak_bytes = run.peak_cwnd_bytes.max(cwnd_bytes);
        let mut start_bytes = ((peak_bytes as f64 * CUBIC_BETA) as usize).max(cwnd_bytes);
        let mut window = CubicWindow::new(now, peak_bytes, start_bytes, max_datagram_size);
        let mut starting = true;
        if let Some((at, shadow_window, shadow_cwnd)) = self.shadow.take() {
            if now.saturating_duration_since(at) <= SHADOW_MEMORY && shadow_cwnd > start_bytes {
                window = shadow_window;
                start_bytes = shadow_cwnd;
                starting = false;
            }
        }
        let evidence = SwitchEvidence {
            count: run.events,
            trigger,
            queue_delay,
            base_rtt,
            rtt_change_secs,
        };
        self.run = EvidenceRun::default();
        self.competing = Some(Competing {
            window,
            starting,
            base_rtt,
            last_test: now,
            test_due: false,
            test: None,
            tests: 0,
            floor: None,
            last_round_rtt: None,
            episode: None,
            quiet_rounds: 0,
            first_pkt_num: None,
        });
        CoexistStep::Compete {
            cwnd_bytes: start_bytes,
            evidence,
        }
    }

    /// Competitive mode, at the end of a round: judge a loss episode,
    /// start, continue or finish a return test. `min_window_bytes` bounds
    /// the test's window, `floor` the tolerance ([`return_tolerance`]).
    pub fn on_competitive_round(
        &mut self,
        obs: &RoundObservation,
        cwnd_bytes: usize,
        min_window_bytes: usize,
        floor: Duration,
    ) -> CoexistStep {
        let Some(competing) = &mut self.competing else {
            return CoexistStep::Stay;
        };
        let previous_rtt = competing.last_round_rtt.replace(obs.round_rtt);
        competing.quiet_rounds += 1;
        if let Some(test) = &mut competing.test {
            test.rounds_left -= 1;
            if test.rounds_left < RETURN_TEST_ROUNDS - 1 {
                // The drain round's own RTT still carries our queue.
                test.min_rtt = test.min_rtt.min(obs.round_rtt);
                test.min_base_rtt = test.min_base_rtt.min(obs.base_rtt);
            }
            if test.rounds_left > 0 {
                return CoexistStep::Stay;
            }
            let test = *test;
            competing.test = None;
            competing.tests += 1;
            competing.last_test = obs.now;
            let tolerance = return_tolerance(
                obs.actual_bytes_per_sec,
                obs.max_datagram_size,
                competing.base_rtt,
                floor,
            );
            let queue_delay = test.min_rtt.saturating_sub(competing.base_rtt);
            // A floor found again and again is the path's, not a queue.
            let same_floor = match competing.floor {
                Some((floor_rtt, n)) if floor_rtt.abs_diff(test.min_rtt) <= tolerance => n + 1,
                _ => 1,
            };
            competing.floor = Some((test.min_rtt, same_floor));
            if queue_delay <= tolerance || same_floor >= STALE_BASE_TESTS {
                let evidence = SwitchEvidence {
                    count: competing.tests,
                    trigger: if queue_delay <= tolerance {
                        SwitchTrigger::EmptyQueue
                    } else {
                        SwitchTrigger::LongerPath
                    },
                    queue_delay,
                    base_rtt: competing.base_rtt,
                    rtt_change_secs: tolerance.as_secs_f64(),
                };
                self.shadow = Some((obs.now, competing.window, test.restore_cwnd_bytes));
                self.competing = None;
                // A round RTT read from ACK-aggregation hold bounds can lie
                // below every raw sample (a cellular link's drain after an
                // outage brings ACKs together like a held release: a return
                // read 60 ms on a 100 ms path). Judged as an empty queue it
                // is; as the new BaseRTT it would put every later round a
                // queue above it.
                return CoexistStep::Return {
                    cwnd_bytes: test.test_cwnd_bytes,
                    base_rtt: test.min_rtt.max(test.min_base_rtt),
                    evidence,
                };
            }
            return CoexistStep::Restore {
                cwnd_bytes: test.restore_cwnd_bytes,
            };
        }
        // Another family flow testing halves the queue in a round we did
        // not cut in: test with it.
        let joined = previous_rtt.is_some_and(|previous| {
            let before = queue_secs(previous, competing.base_rtt);
            before > 0.0
                && queue_secs(obs.round_rtt, competing.base_rtt)
                    <= (1.0 - JOIN_DROP_FRACTION) * before
                && competing.quiet_rounds > 2
        });
        let since = obs.now.saturating_duration_since(competing.last_test);
        let start = std::mem::take(&mut competing.test_due)
            || since >= 2 * RETURN_TEST_INTERVAL
            || (joined && since >= JOIN_SPACING);
        if !start {
            return CoexistStep::Stay;
        }
        let pipe_bytes = obs.actual_bytes_per_sec * competing.base_rtt.as_secs_f64();
        let test_cwnd_bytes = (pipe_bytes as usize).max(min_window_bytes).min(cwnd_bytes);
        competing.quiet_rounds = 0;
        competing.test = Some(ReturnTest {
            restore_cwnd_bytes: cwnd_bytes,
            test_cwnd_bytes,
            rounds_left: RETURN_TEST_ROUNDS,
            min_rtt: Duration::MAX,
            min_base_rtt: Duration::MAX,
            first_pkt_num: None,
        });
        CoexistStep::TestDrain {
            cwnd_bytes: test_cwnd_bytes,
        }
    }

    /// Competitive mode, per ACK outside recovery and tests: CUBIC's
    /// growth.
    pub fn competitive_window(
        &mut self,
        now: Instant,
        cwnd_bytes: usize,
        acked_bytes: usize,
        smoothed_rtt: Duration,
    ) -> usize {
        match &mut self.competing {
            Some(competing) if competing.test.is_none() => {
                if competing.starting {
                    cwnd_bytes + acked_bytes
                } else {
                    competing
                        .window
                        .on_ack(now, cwnd_bytes, acked_bytes, smoothed_rtt)
                }
            }
            _ => cwnd_bytes,
        }
    }

    /// Competitive mode, a new loss episode: CUBIC's reduction (RFC 9438
    /// 4.6), the state before it kept in case the episode proves spurious;
    /// a test in progress ends (the queue is full). None in delay mode.
    ///
    /// A first switch's slow start ignores the loss of a packet sent
    /// before the switch: delay mode's window lost it, and ending the slow
    /// start there leaves CUBIC's epoch at the few packets the flow had
    /// kept (beside quiche's CUBIC at 50 Mbit/s through `vegas-link-emu`,
    /// a switch at 7 packets, a loss of a packet sent before it 65 ms
    /// later, and 8% of the link).
    pub fn competitive_loss(
        &mut self,
        now: Instant,
        cwnd_bytes: usize,
        largest_lost_pkt_num: u64,
        min_window_bytes: usize,
    ) -> Option<LossAnswer> {
        let competing = self.competing.as_mut()?;
        if competing.starting
            && competing
                .first_pkt_num
                .is_none_or(|first| largest_lost_pkt_num < first)
        {
            return Some(LossAnswer::Ignore);
        }
        let window_bytes = match competing.test {
            Some(test) => {
                if test
                    .first_pkt_num
                    .is_none_or(|first| largest_lost_pkt_num < first)
                {
                    // Sent before the test lowered the window: the test's
                    // window is already below any reduction.
                    return Some(LossAnswer::Ignore);
                }
                competing.test = None;
                competing.last_test = now;
                test.restore_cwnd_bytes
            }
            None => cwnd_bytes,
        };
        competing.quiet_rounds = 0;
        if std::mem::take(&mut competing.starting) {
            // Slow start's end: CUBIC's epoch from the window it reached.
            competing.window = CubicWindow::new(
                now,
                window_bytes,
                window_bytes,
                competing.window.max_datagram_size(),
            );
        }
        competing.episode = Some(LossEpisode {
            window: competing.window,
            cwnd_bytes: window_bytes,
            lost_pkts: 0,
        });
        Some(LossAnswer::Reduce(competing.window.on_congestion_event(
            now,
            window_bytes,
            min_window_bytes,
        )))
    }

    /// The first packet sent in competitive mode, and under a return
    /// test's window (called once per packet; only the first counts).
    pub fn on_packet_sent(&mut self, pkt_num: u64) {
        if let Some(competing) = self.competing.as_mut() {
            competing.first_pkt_num.get_or_insert(pkt_num);
            if let Some(test) = competing.test.as_mut() {
                test.first_pkt_num.get_or_insert(pkt_num);
            }
        }
    }

    /// Packets declared lost (competitive mode counts them per episode).
    pub fn count_lost(&mut self, lost_pkts: usize) {
        if let Some(episode) = self.competing.as_mut().and_then(|c| c.episode.as_mut()) {
            episode.lost_pkts += lost_pkts;
        }
    }

    /// Competitive mode, recovery from a loss episode is over: the window
    /// to restore if the episode was spurious ([`SPURIOUS_LOSS_FRACTION`]).
    pub fn on_recovery_end(&mut self, now: Instant, max_datagram_size: usize) -> Option<usize> {
        let competing = self.competing.as_mut()?;
        let episode = competing.episode.take()?;
        competing.test_due =
            now.saturating_duration_since(competing.last_test) >= RETURN_TEST_INTERVAL;
        if episode.lost_pkts >= spurious_loss_pkts(episode.cwnd_bytes, max_datagram_size) {
            return None;
        }
        competing.window = episode.window;
        Some(episode.cwnd_bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MDS: usize = 1200;
    const BASE: Duration = Duration::from_millis(40);

    /// 10 Mbit/s: one packet takes 0.96 ms.
    const RATE_BYTES_PER_SEC: f64 = 1.25e6;

    struct Replay {
        c: Coexistence,
        start: Instant,
        now: Instant,
        cwnd_pkts: usize,
        /// The rounds' Actual rate, in bytes per second.
        rate_bytes_per_sec: f64,
    }

    impl Replay {
        fn new() -> Self {
            let start = Instant::now();
            Replay {
                c: Coexistence::default(),
                start,
                now: start,
                cwnd_pkts: 100,
                rate_bytes_per_sec: RATE_BYTES_PER_SEC,
            }
        }

        fn obs(&self, rtt_ms: f64, action: Action) -> RoundObservation {
            RoundObservation {
                now: self.now,
                round_rtt: Duration::from_secs_f64(rtt_ms / 1e3),
                base_rtt: BASE,
                actual_bytes_per_sec: self.rate_bytes_per_sec,
                action,
                cwnd_before_bytes: self.cwnd_pkts * MDS,
                cwnd_after_bytes: match action {
                    Action::Decrease => (self.cwnd_pkts - 1) * MDS,
                    _ => self.cwnd_pkts * MDS,
                },
                max_datagram_size: MDS,
                rtt_from_hold_bounds: false,
            }
        }

        /// One delay-mode round `rtt_ms` long.
        fn round(&mut self, rtt_ms: f64, action: Action) -> CoexistStep {
            self.now += Duration::from_secs_f64(rtt_ms / 1e3);
            let step = self.c.on_delay_round(&self.obs(rtt_ms, action));
            if action == Action::Decrease {
                self.cwnd_pkts -= 1;
            }
            step
        }

        /// Four decreases at the RTTs given, then two holds: one episode.
        fn episode(&mut self, rtts_ms: [f64; 6]) -> Vec<CoexistStep> {
            let actions = [
                Action::Decrease,
                Action::Decrease,
                Action::Decrease,
                Action::Decrease,
                Action::Hold,
                Action::Hold,
            ];
            rtts_ms
                .iter()
                .zip(actions)
                .map(|(&rtt, action)| self.round(rtt, action))
                .collect()
        }

        fn competitive_round(&mut self, rtt_ms: f64) -> CoexistStep {
            self.now += Duration::from_secs_f64(rtt_ms / 1e3);
            let obs = self.obs(rtt_ms, Action::Compete);
            self.c.on_competitive_round(
                &obs,
                self.cwnd_pkts * MDS,
                2 * MDS,
                Duration::from_millis(1),
            )
        }
    }

    /// The window and evidence of the switch among `steps`.
    fn switched(steps: &[CoexistStep]) -> (usize, SwitchEvidence) {
        match steps
            .iter()
            .find(|s| matches!(s, CoexistStep::Compete { .. }))
        {
            Some(&CoexistStep::Compete {
                cwnd_bytes,
                evidence,
            }) => (cwnd_bytes, evidence),
            _ => panic!("no switch: {steps:?}"),
        }
    }

    fn competes(steps: &[CoexistStep]) -> bool {
        steps
            .iter()
            .any(|s| matches!(s, CoexistStep::Compete { .. }))
    }

    #[test]
    fn backoffs_that_leave_a_deep_queue_do_not_clear_the_evidence() {
        // Ineffective backoffs (the RTT rises through the cut) between
        // effective ones (it falls by two of our packets): from a queue of
        // twice BaseRTT the run goes on and the third ineffective one
        // switches; from 10 ms (a quarter of BaseRTT) each effective one
        // clears it.
        let ineffective = |q: f64| [q, q + 0.5, q + 1.0, q + 1.5, q + 2.0, q + 2.0];
        let effective = |q: f64| [q, q - 0.5, q - 1.0, q - 1.5, q - 2.0, q - 2.0];
        for (queue_ms, switches) in [(80.0, true), (10.0, false)] {
            let rtt = 40.0 + queue_ms;
            let mut r = Replay::new();
            let mut steps = Vec::new();
            for i in 0..5 {
                let rtts = if i % 2 == 0 {
                    ineffective(rtt)
                } else {
                    effective(rtt)
                };
                steps.extend(r.episode(rtts));
            }
            assert_eq!(competes(&steps), switches, "queue {queue_ms} ms");
            if switches {
                assert_eq!(switched(&steps).1.count, 3);
            }
        }
    }

    #[test]
    fn a_long_run_of_ineffective_backoffs_switches_without_a_deep_queue() {
        // Half a BaseRTT of queue (under the deep three quarters), no
        // loss: three ineffective backoffs are not enough, six are.
        let mut r = Replay::new();
        let mut steps = Vec::new();
        for i in 0..LONG_RUN_EVENTS {
            let q = 60.0 + i as f64;
            let episode = r.episode([q, q + 0.5, q + 1.0, q + 1.5, q + 2.0, q + 2.0]);
            if i + 1 < LONG_RUN_EVENTS {
                assert!(!competes(&episode), "after {} backoffs", i + 1);
            }
            steps.extend(episode);
        }
        let (_, evidence) = switched(&steps);
        assert_eq!(evidence.count, LONG_RUN_EVENTS);
        assert_eq!(evidence.trigger, SwitchTrigger::IneffectiveBackoff);
    }

    #[test]
    fn backoffs_the_queue_answers_never_switch() {
        // Other Vegas flows back off too: each episode lowers the RTT from
        // 80 ms by 4 ms (four of our packets).
        let mut r = Replay::new();
        for _ in 0..10 {
            let steps = r.episode([80.0, 79.0, 78.0, 77.0, 76.0, 76.0]);
            assert!(!competes(&steps));
        }
        assert_eq!(r.c.mode(), CoexistMode::Delay);
        assert_eq!(r.c.run.events, 0);
    }

    /// Congestion-avoidance rounds recorded beside ngtcp2's CUBIC through
    /// `vegas-link-emu` (50 Mbit/s, 20 ms each way, 208-packet buffer,
    /// 1350-byte datagrams; the path's BaseRTT 40.4 ms): round RTT (ms),
    /// Vegas's step, the window before and after it, Actual (bytes/s).
    /// Slow start's exit left 22 ms of CUBIC's queue; a BaseRTT drain; the
    /// flow holds 25-28 packets while CUBIC's queue grows from 25 to 28
    /// ms, cuts three packets while it grows on to 42 ms, and CUBIC's
    /// reduction at the overflow leaves 21 ms.
    #[rustfmt::skip]
    const BESIDE_CUBIC: [(f64, Action, usize, usize, f64); 30] = {
        use Action::{Decrease as D, Hold as H, Increase as I, BaseRttProbe as P};
        [
            (51.5, D, 32380, 31030, 449925.0),
            (63.7, D, 31030, 29680, 370993.0),
            (62.4, D, 29680, 28330, 389519.0),
            (62.8, D, 28330, 26980, 350044.0),
            (62.7, P, 26980, 17530, 357371.0),
            (62.2, P, 17530, 17530, 277364.0),
            (61.5, P, 17530, 32380, 206785.0),
            (62.0, I, 32380, 33730, 206943.0),
            (62.5, I, 33730, 35080, 339248.0),
            (64.1, I, 35080, 36430, 426517.0),
            (65.0, H, 36430, 37022, 427120.0),
            (65.5, H, 37022, 37476, 445443.0),
            (66.0, H, 37476, 37738, 485238.0),
            (66.4, H, 37738, 37879, 497248.0),
            (66.8, H, 37879, 37854, 519422.0),
            (68.1, H, 37854, 37504, 517027.0),
            (72.0, D, 37504, 36154, 481954.0),
            (76.5, D, 36154, 34271, 429849.0),
            (82.3, D, 34271, 32921, 399314.0),
            (61.1, I, 32921, 34271, 383364.0),
            (62.6, I, 34271, 35621, 377618.0),
            (65.0, H, 35621, 36084, 451823.0),
            (65.7, H, 36084, 36367, 457385.0),
            (65.8, H, 36367, 36587, 472923.0),
            (66.4, H, 36587, 36564, 512062.0),
            (67.2, H, 36564, 36309, 520558.0),
            (67.5, H, 36309, 35996, 518089.0),
            (67.5, H, 35996, 35685, 515266.0),
            (67.9, H, 35685, 35271, 513797.0),
            (68.2, H, 35271, 34812, 509095.0),
        ]
    };

    /// A recorded round: RTT (ms), Vegas's step, the window before and
    /// after it (bytes), Actual (bytes/s).
    type RecordedRound = (f64, Action, usize, usize, f64);

    /// Replays `rounds` over a path of BaseRTT `base_ms` with
    /// `max_datagram_size`-byte datagrams: the steps.
    fn replay(
        r: &mut Replay,
        rounds: &[RecordedRound],
        base_ms: f64,
        max_datagram_size: usize,
    ) -> Vec<CoexistStep> {
        rounds
            .iter()
            .map(|&(rtt_ms, action, before, after, actual)| {
                r.now += Duration::from_secs_f64(rtt_ms / 1e3);
                r.c.on_delay_round(&RoundObservation {
                    now: r.now,
                    round_rtt: Duration::from_secs_f64(rtt_ms / 1e3),
                    base_rtt: Duration::from_secs_f64(base_ms / 1e3),
                    actual_bytes_per_sec: actual,
                    action,
                    cwnd_before_bytes: before,
                    cwnd_after_bytes: after,
                    max_datagram_size,
                    rtt_from_hold_bounds: false,
                })
            })
            .collect()
    }

    /// Replays `rounds` recorded on the path of [`BESIDE_CUBIC`], their
    /// queue (RTT above the path's 40.4 ms BaseRTT) scaled by
    /// `queue_scale`: the steps.
    fn replay_recorded(
        r: &mut Replay,
        rounds: &[RecordedRound],
        queue_scale: f64,
    ) -> Vec<CoexistStep> {
        let base_ms = 40.4;
        let scaled: Vec<RecordedRound> = rounds
            .iter()
            .map(|&(rtt_ms, action, before, after, actual)| {
                let rtt_ms = base_ms + (rtt_ms - base_ms) * queue_scale;
                (rtt_ms, action, before, after, actual)
            })
            .collect();
        replay(r, &scaled, base_ms, 1350)
    }

    #[test]
    fn a_backoff_spanning_the_other_flows_overflow_did_not_empty_the_queue() {
        // Our three-packet cut "explained" CUBIC's 21 ms fall (three of our
        // packets at our rate, 3.5 ms each, are more than half of it) and
        // the backoff spanning it read as effective: every cycle, for 35 s
        // of a 200 MB transfer the flow held 5% of the link. The queue grew
        // after the cut had time to show: neither is ours.
        let mut r = Replay::new();
        let steps = replay_recorded(&mut r, &BESIDE_CUBIC, 1.0);
        let (_, evidence) = switched(&steps);
        assert_eq!(evidence.count, EVIDENCE_EVENTS);
        assert_eq!(r.c.mode(), CoexistMode::Competitive);
    }

    #[test]
    fn family_flows_growing_a_shallow_queue_while_we_back_off_are_no_evidence() {
        // Vegas-A flows that raised their thresholds grow the queue while
        // one of them backs off, and a drain lowers it, below three
        // quarters of BaseRTT (three Vegas-A flows at 20 Mbit/s x 40 ms:
        // 10-25 ms). The same rounds with their queue at 0.7 x: it rises
        // 7.2 ms after the cut, two of our packets, to 29 ms at the peak,
        // three times over.
        let mut r = Replay::new();
        for _ in 0..3 {
            assert!(!competes(&replay_recorded(&mut r, &BESIDE_CUBIC, 0.7)));
        }
        assert_eq!(r.c.mode(), CoexistMode::Delay);
    }

    /// A Vegas flow alone at 1 Mbit/s (one packet 9.6 ms) over a 50.6 ms
    /// BaseRTT, recorded in the simulator (`vegas-a-reroute` in default
    /// mode, every-round slow start): round RTT (ms), the window before
    /// and after the round in packets of 1200 bytes. Inside the band its
    /// fair-share cuts take 1.2 packets over three rounds; the RTT peaks a
    /// round after the first cut (76.8 ms: the window grew by 0.65 packets,
    /// 6.2 ms, in the two rounds before it) and falls by 12.5 ms, more than
    /// one packet, to 64.3 ms. From the cut's first round (72.3 ms) that is
    /// 8.0 ms: read from there, every such cycle was an ineffective
    /// backoff.
    #[rustfmt::skip]
    const ALONE_IN_THE_BAND: [(f64, f64, f64); 8] = [
        (63.6, 8.23, 8.59),
        (64.1, 8.59, 8.88),
        (72.3, 8.88, 8.75),
        (76.8, 8.75, 8.39),
        (76.8, 8.39, 8.02),
        (76.8, 8.02, 7.66),
        (67.2, 7.66, 7.89),
        (64.3, 7.89, 8.21),
    ];

    /// Replays `rounds` (RTT ms, window before and after in packets),
    /// held inside the band at Actual `actual` (bytes/s), over the BaseRTT
    /// of [`ALONE_IN_THE_BAND`]: the steps.
    fn replay_in_the_band(
        r: &mut Replay,
        rounds: &[(f64, f64, f64)],
        actual: f64,
    ) -> Vec<CoexistStep> {
        let rounds: Vec<RecordedRound> = rounds
            .iter()
            .map(|&(rtt_ms, before_pkts, after_pkts)| {
                let bytes = |pkts: f64| (pkts * MDS as f64) as usize;
                (
                    rtt_ms,
                    Action::Hold,
                    bytes(before_pkts),
                    bytes(after_pkts),
                    actual,
                )
            })
            .collect();
        replay(r, &rounds, 50.594, MDS)
    }

    #[test]
    fn a_cut_is_judged_from_the_queue_the_window_before_it_made() {
        let mut r = Replay::new();
        for cycle in 0..5 {
            let steps = replay_in_the_band(&mut r, &ALONE_IN_THE_BAND, 125_000.0);
            assert!(!competes(&steps));
            // Each cycle's episode was judged effective: no evidence runs.
            assert_eq!(r.c.run.events, 0, "cycle {cycle}");
        }
        assert_eq!(r.c.mode(), CoexistMode::Delay);
    }

    #[test]
    fn our_own_rise_is_at_most_one_packet_and_none_without_a_rate() {
        // 10 Mbit/s: a packet is 0.96 ms.
        let one_pkt = packet_time(RATE_BYTES_PER_SEC, MDS);
        assert_eq!(own_rise(MDS / 2, RATE_BYTES_PER_SEC, MDS), one_pkt / 2);
        assert_eq!(own_rise(27 * MDS, RATE_BYTES_PER_SEC, MDS), one_pkt);
        assert_eq!(own_rise(0, RATE_BYTES_PER_SEC, MDS), Duration::ZERO);
        // A round that delivered nothing: no rate, no allowance (one
        // packet at no rate would be an endless delay).
        assert_eq!(own_rise(27 * MDS, 0.0, MDS), Duration::ZERO);
        // The window grew, then a cut in a round that read no Actual.
        let mut r = Replay::new();
        let steps = replay_in_the_band(&mut r, &ALONE_IN_THE_BAND, 0.0);
        assert!(!competes(&steps));
    }

    #[test]
    fn a_rise_after_the_cut_began_that_our_window_did_not_make_is_not_ours() {
        // The same rounds with the window held for the two before the cut:
        // the RTT's rise a round later (BBR probing, a loss-based flow
        // growing) is someone else's, and the drop is judged from the
        // cut's first round: 8.0 ms, less than one of our packets, with
        // more than a quarter of BaseRTT still queued.
        let mut rounds = ALONE_IN_THE_BAND;
        rounds[0] = (63.6, 8.88, 8.88);
        rounds[1] = (64.1, 8.88, 8.88);
        let mut r = Replay::new();
        assert!(!competes(&replay_in_the_band(&mut r, &rounds, 125_000.0)));
        assert_eq!(r.c.run.events, 1);
    }

    #[test]
    fn ineffective_backoffs_beside_a_standing_queue_switch_after_three() {
        // BBR in a deep buffer: the queue (40 ms, one BaseRTT) neither
        // falls nor overflows while we back off.
        let mut r = Replay::new();
        r.cwnd_pkts = 120;
        let first = r.episode([80.0, 80.5, 81.0, 81.0, 81.5, 82.0]);
        // Vegas yielded: its window collapsed.
        r.cwnd_pkts = 40;
        let second = r.episode([82.0, 82.5, 83.0, 83.0, 83.5, 84.0]);
        assert!(!competes(&first) && !competes(&second));
        assert_eq!(r.c.run.events, 2);
        let (cwnd_bytes, evidence) = switched(&r.episode([84.0, 84.5, 85.0, 85.0, 85.5, 86.0]));
        // CUBIC after a loss at the largest window of the run, 120 packets.
        assert_eq!(cwnd_bytes, (120.0 * MDS as f64 * CUBIC_BETA) as usize);
        assert_eq!(evidence.count, 3);
        assert_eq!(evidence.base_rtt, BASE);
        // Judged from the round after the start (the window before the
        // cut): the RTT did not fall from there.
        assert!(
            evidence.rtt_change_secs <= 0.0,
            "the RTT fell: {evidence:?}"
        );
        assert_eq!(evidence.trigger, SwitchTrigger::IneffectiveBackoff);
        assert_eq!(r.c.mode(), CoexistMode::Competitive);
    }

    #[test]
    fn three_collapses_of_a_queue_our_window_held_switch() {
        // Reno in a shallow buffer: its queue grows to a third of BaseRTT
        // while our window holds, then its halving empties it.
        let mut r = Replay::new();
        for cycle in 0..3 {
            for queue_ms in [10.0, 12.0, 13.5] {
                assert_eq!(r.round(40.0 + queue_ms, Action::Hold), CoexistStep::Stay);
            }
            let step = r.round(40.3, Action::Hold);
            if cycle < 2 {
                assert_eq!(step, CoexistStep::Stay, "cycle {cycle}");
                assert_eq!(r.c.run.events, cycle + 1);
            } else {
                let (_, evidence) = switched(&[step]);
                assert_eq!(evidence.trigger, SwitchTrigger::QueueCollapse);
                assert_eq!(evidence.count, 3);
                assert_eq!(evidence.queue_delay, Duration::from_micros(13_500));
            }
        }
    }

    #[test]
    fn a_shallow_standing_queue_needs_a_congestive_loss() {
        // Half a BaseRTT of queue that our backoffs do not move (Vegas-A
        // flows that raised their thresholds together): no switch.
        let mut r = Replay::new();
        for _ in 0..5 {
            assert!(!competes(&r.episode([60.0, 60.0, 60.5, 60.5, 61.0, 61.0])));
        }
        // A loss at that queue, our own queue within beta: the buffer
        // overflowed, so someone fills it.
        let step =
            r.c.on_delay_loss(r.now, Duration::from_millis(61), 95 * MDS, MDS);
        let (_, evidence) = switched(&[step]);
        assert_eq!(evidence.trigger, SwitchTrigger::CongestiveLoss);
    }

    #[test]
    fn a_few_packets_beside_a_deep_queue_still_judge_their_backoffs() {
        // Three packets over a 100 ms RTT: one of ours takes 33 ms at our
        // own rate, and the 60 ms queue is under two of them. Measured
        // beside CUBIC holding four BDPs: the flow kept 3-5 packets and
        // no backoff was judged for 15 s.
        let mut r = Replay::new();
        r.rate_bytes_per_sec = 3.0 * MDS as f64 / 0.100;
        // Alone the queue is ours: a cut of a packet lowers it by one of
        // our packets, more than half of it. Effective.
        assert!(!competes(&r.episode([100.0, 67.0, 40.0, 40.0, 40.0, 40.0])));
        assert_eq!(r.c.run.events, 0);
        // Beside a flow that fills the buffer it does not fall: three
        // ineffective episodes at a queue of 1.5 BaseRTT switch.
        let steps: Vec<_> = (0..3).flat_map(|_| r.episode([100.0; 6])).collect();
        let (_, evidence) = switched(&steps);
        assert_eq!(evidence.trigger, SwitchTrigger::IneffectiveBackoff);
        assert_eq!(evidence.queue_delay, Duration::from_millis(60));
    }

    #[test]
    fn losses_at_a_small_queue_and_a_one_off_route_change_are_no_evidence() {
        let mut r = Replay::new();
        // Random losses with 2 ms queued (below a quarter of BaseRTT).
        for _ in 0..5 {
            r.round(42.0, Action::Hold);
            assert_eq!(
                r.c.on_delay_loss(r.now, Duration::from_millis(42), 100 * MDS, MDS),
                CoexistStep::Stay
            );
        }
        assert_eq!(r.c.run.events, 0);
        // A route change: one ineffective episode (the drain finds the
        // longer path), then the queue is ours again for longer than the
        // evidence memory.
        r.episode([80.0, 80.0, 80.0, 80.0, 80.0, 80.0]);
        assert_eq!(r.c.run.events, 1);
        while r.now.saturating_duration_since(r.start) < EVIDENCE_MEMORY * 2 {
            r.round(81.0, Action::Hold);
        }
        r.episode([82.0, 82.0, 82.0, 82.0, 82.0, 82.0]);
        assert_eq!(r.c.run.events, 1, "the run started over");
        assert_eq!(r.c.mode(), CoexistMode::Delay);
    }

    /// A flow switched to competitive mode at a 100-packet window.
    /// Just switched: nothing sent in competitive mode yet.
    fn just_switched() -> Replay {
        let mut r = Replay::new();
        r.cwnd_pkts = 100;
        for _ in 0..3 {
            r.episode([90.0, 90.0, 90.0, 90.0, 90.0, 90.0]);
        }
        assert_eq!(r.c.mode(), CoexistMode::Competitive);
        r.cwnd_pkts = 100;
        r
    }

    /// Competing, with packets from number 1 on sent in competitive mode.
    fn competing() -> Replay {
        let mut r = just_switched();
        r.c.on_packet_sent(1);
        r
    }

    #[test]
    fn a_fresh_switch_ignores_the_loss_of_a_packet_sent_before_it() {
        let mut r = just_switched();
        let rtt = Duration::from_millis(90);
        r.c.on_packet_sent(1000);
        r.c.on_packet_sent(1001);
        // Delay mode's window lost packet 999: no reduction, still
        // starting.
        assert_eq!(
            r.c.competitive_loss(r.now, 100 * MDS, 999, 2 * MDS),
            Some(LossAnswer::Ignore)
        );
        assert_eq!(
            r.c.competitive_window(r.now, 100 * MDS, 2 * MDS, rtt),
            102 * MDS
        );
        // A packet of competitive mode's: the start ends in CUBIC's
        // decrease.
        assert_eq!(
            r.c.competitive_loss(r.now, 102 * MDS, 1000, 2 * MDS),
            Some(LossAnswer::Reduce(71 * MDS + 480))
        );
        let grown = r.c.competitive_window(r.now + rtt, 71 * MDS, 2 * MDS, rtt);
        assert!(grown < 73 * MDS, "{grown}");
    }

    #[test]
    fn a_fresh_switch_slow_starts_until_its_first_loss_then_runs_cubic_from_there() {
        let mut r = competing();
        let rtt = Duration::from_millis(90);
        // Slow start: the window grows by what is acknowledged, 100 -> 200
        // packets in a round.
        let mut cwnd = 100 * MDS;
        for _ in 0..50 {
            cwnd = r.c.competitive_window(r.now, cwnd, 2 * MDS, rtt);
        }
        assert_eq!(cwnd, 200 * MDS);
        // The first loss ends it: CUBIC's decrease from the window reached,
        // which is the new W_max (the switch's was 100 packets).
        let Some(LossAnswer::Reduce(cut)) = r.c.competitive_loss(r.now, cwnd, 1000, 2 * MDS) else {
            panic!("a reduction");
        };
        assert_eq!(cut, 140 * MDS);
        r.c.count_lost(spurious_loss_pkts(cwnd, MDS));
        assert_eq!(r.c.on_recovery_end(r.now, MDS), None);
        let window = r.c.competing.expect("competing").window;
        assert_eq!(window.w_max_bytes(), 200 * MDS);
        // From here CUBIC grows it by less than what is acknowledged.
        let grown = r.c.competitive_window(r.now + rtt, cut, 2 * MDS, rtt);
        assert!(grown > cut && grown < cut + 2 * MDS, "{grown}");
    }

    #[test]
    fn a_switch_back_that_resumes_the_competitive_window_does_not_slow_start() {
        let mut r = returned();
        let (cwnd_bytes, _) = switched(&r.episode([52.0, 52.0, 52.5, 52.5, 53.0, 53.0]));
        assert_eq!(cwnd_bytes, 100 * MDS);
        let rtt = Duration::from_millis(90);
        let grown =
            r.c.competitive_window(r.now + rtt, cwnd_bytes, 2 * MDS, rtt);
        assert!(grown < cwnd_bytes + 2 * MDS, "{grown}");
    }

    #[test]
    fn a_return_test_that_finds_the_queue_empty_returns_at_the_pipe() {
        let mut r = competing();
        assert!(!r.c.just_returned(r.now), "competing, not returned");
        // No test before the interval has passed without a loss.
        assert_eq!(r.competitive_round(90.0), CoexistStep::Stay);
        while r.now.saturating_duration_since(r.start) < 3 * RETURN_TEST_INTERVAL {
            r.competitive_round(90.0);
            if r.c.testing() {
                break;
            }
        }
        assert!(r.c.testing(), "a test started");
        // The test's window: our rate x the frozen BaseRTT, 41.7 packets.
        // One round drains, two measure BaseRTT.
        assert_eq!(r.competitive_round(52.0), CoexistStep::Stay);
        assert_eq!(r.competitive_round(40.5), CoexistStep::Stay);
        let CoexistStep::Return {
            cwnd_bytes,
            base_rtt,
            evidence,
        } = r.competitive_round(40.2)
        else {
            panic!("no return");
        };
        assert_eq!(cwnd_bytes, (RATE_BYTES_PER_SEC * 0.040) as usize);
        // The floor the test measured (above the raw samples' 40 ms).
        assert_eq!(base_rtt, Duration::from_secs_f64(40.2 / 1e3));
        assert!(evidence.queue_delay <= Duration::from_millis(1));
        assert_eq!(evidence.trigger, SwitchTrigger::EmptyQueue);
        assert_eq!(r.c.mode(), CoexistMode::Delay);
        // Just returned for SHADOW_MEMORY, then not.
        assert!(r.c.just_returned(r.now));
        assert!(r.c.just_returned(r.now + SHADOW_MEMORY));
        assert!(!r
            .c
            .just_returned(r.now + SHADOW_MEMORY + Duration::from_millis(1)));
    }

    #[test]
    fn a_return_never_hands_back_a_base_rtt_below_the_raw_samples() {
        let mut r = competing();
        while !r.c.testing() {
            r.competitive_round(90.0);
            assert!(r.now.saturating_duration_since(r.start) < 3 * RETURN_TEST_INTERVAL);
        }
        // A cellular link's drain after an outage: the measured rounds'
        // RTTs come from hold bounds, 16 ms below every raw sample
        // (BaseRTT 40 ms).
        r.competitive_round(52.0);
        let mut held = |rtt_ms: f64| {
            r.now += Duration::from_secs_f64(rtt_ms / 1e3);
            let obs = RoundObservation {
                rtt_from_hold_bounds: true,
                ..r.obs(rtt_ms, Action::Compete)
            };
            r.c.on_competitive_round(&obs, r.cwnd_pkts * MDS, 2 * MDS, Duration::from_millis(1))
        };
        assert_eq!(held(30.0), CoexistStep::Stay);
        let CoexistStep::Return {
            base_rtt, evidence, ..
        } = held(24.0)
        else {
            panic!("no return");
        };
        // An empty queue it is; the new BaseRTT is the raw samples' floor.
        assert_eq!(evidence.trigger, SwitchTrigger::EmptyQueue);
        assert_eq!(base_rtt, BASE);
    }

    #[test]
    fn a_return_test_that_finds_a_queue_restores_the_window() {
        let mut r = competing();
        loop {
            if let CoexistStep::TestDrain { cwnd_bytes } = r.competitive_round(90.0) {
                assert!(cwnd_bytes < 100 * MDS);
                break;
            }
        }
        r.competitive_round(80.0);
        r.competitive_round(70.0);
        // 30 ms of someone else's queue is left.
        assert_eq!(
            r.competitive_round(70.0),
            CoexistStep::Restore {
                cwnd_bytes: 100 * MDS
            }
        );
        assert_eq!(r.c.mode(), CoexistMode::Competitive);
        assert!(!r.c.testing());
    }

    #[test]
    fn a_spurious_loss_episode_is_undone_and_a_heavy_one_kept() {
        let mut r = competing();
        let cwnd = 100 * MDS;
        // One packet of a 100-packet window: spurious (quiche's rule).
        let Some(LossAnswer::Reduce(cut)) = r.c.competitive_loss(r.now, cwnd, 1000, 2 * MDS) else {
            panic!("a reduction");
        };
        assert_eq!(cut, 70 * MDS);
        r.c.count_lost(1);
        assert_eq!(r.c.on_recovery_end(r.now, MDS), Some(cwnd));
        // 20 packets: kept.
        r.c.competitive_loss(r.now, cwnd, 2000, 2 * MDS);
        r.c.count_lost(spurious_loss_pkts(cwnd, MDS));
        assert_eq!(r.c.on_recovery_end(r.now, MDS), None);
        assert_eq!(spurious_loss_pkts(5 * MDS, MDS), 2, "at least two packets");
    }

    #[test]
    fn a_loss_sent_before_a_test_does_not_end_it() {
        let mut r = competing();
        while !r.c.testing() {
            r.competitive_round(90.0);
        }
        r.c.on_packet_sent(500);
        r.c.on_packet_sent(501);
        assert_eq!(
            r.c.competitive_loss(r.now, 40 * MDS, 499, 2 * MDS),
            Some(LossAnswer::Ignore)
        );
        assert!(r.c.testing());
        // A packet sent under the test's window was lost: the queue is
        // full, the test is over.
        assert!(matches!(
            r.c.competitive_loss(r.now, 40 * MDS, 500, 2 * MDS),
            Some(LossAnswer::Reduce(_))
        ));
        assert!(!r.c.testing());
    }

    #[test]
    fn the_queue_halving_in_a_quiet_round_joins_a_test() {
        let mut r = competing();
        for _ in 0..4 {
            assert_eq!(r.competitive_round(90.0), CoexistStep::Stay);
        }
        // Another family flow drains: the 50 ms queue falls to 20 ms.
        r.now += JOIN_SPACING;
        assert!(matches!(
            r.competitive_round(60.0),
            CoexistStep::TestDrain { .. }
        ));
    }

    /// A flow back in delay mode at a 42-packet window: its return test
    /// found the queue empty.
    fn returned() -> Replay {
        let mut r = competing();
        while !r.c.testing() {
            r.competitive_round(90.0);
        }
        r.competitive_round(52.0);
        r.competitive_round(40.5);
        assert!(matches!(
            r.competitive_round(40.2),
            CoexistStep::Return { .. }
        ));
        r.cwnd_pkts = 42;
        r
    }

    #[test]
    fn just_back_a_deep_queue_the_backoff_does_not_lower_resumes_competing_at_once() {
        // 12 ms, more than a quarter of BaseRTT, that four decreases do
        // not lower.
        let mut r = returned();
        let (cwnd_bytes, evidence) = switched(&r.episode([52.0, 52.0, 52.5, 52.5, 53.0, 53.0]));
        // The competitive window the flow left, 100 packets.
        assert_eq!(cwnd_bytes, 100 * MDS);
        assert_eq!(evidence.count, 1);
        assert_eq!(r.c.mode(), CoexistMode::Competitive);
    }

    #[test]
    fn just_back_a_shallow_queue_the_backoffs_do_not_lower_resumes_competing_after_the_settle() {
        // The other flow's queue grows back after its reduction: 4 ms (four
        // of our packets, a tenth of BaseRTT) that our decreases do not
        // lower.
        let shallow = [44.0, 44.0, 44.5, 44.5, 45.0, 45.0];
        let mut r = returned();
        // Before SHADOW_SETTLE it may be a family flow still competing:
        // no evidence.
        assert!(!competes(&r.episode(shallow)));
        assert_eq!(r.c.run.events, 0);
        r.now += SHADOW_SETTLE;
        assert!(!competes(&r.episode(shallow)));
        assert!(!competes(&r.episode(shallow)));
        assert_eq!(r.c.run.events, 2);
        // The third in a row resumes, without the deep queue or the loss a
        // first switch needs: the competitor was just here.
        let (cwnd_bytes, evidence) = switched(&r.episode(shallow));
        assert_eq!(cwnd_bytes, 100 * MDS);
        assert_eq!(evidence.count, 3);
        assert_eq!(evidence.queue_delay, Duration::from_millis(4));
        assert_eq!(r.c.mode(), CoexistMode::Competitive);
    }

    #[test]
    fn just_back_our_own_queue_or_a_queue_under_two_packets_is_no_evidence() {
        let mut r = returned();
        r.now += SHADOW_SETTLE;
        // Alone: each decrease lowers the RTT by one of our packets.
        assert!(!competes(&r.episode([44.0, 43.0, 42.0, 41.0, 41.0, 41.0])));
        // Under two of our packets (1.92 ms) left, though not lowered by one.
        assert!(!competes(&r.episode([42.5, 42.0, 41.8, 41.8, 42.0, 42.0])));
        assert_eq!(r.c.run.events, 0);
        // A shallow queue is no evidence once SHADOW_MEMORY is over.
        r.now += SHADOW_MEMORY;
        for _ in 0..3 {
            assert!(!competes(&r.episode([44.0, 44.0, 44.5, 44.5, 45.0, 45.0])));
        }
        assert_eq!(r.c.run.events, 0);
        assert_eq!(r.c.mode(), CoexistMode::Delay);
    }

    #[test]
    fn the_return_tolerance_is_one_packet_within_bounds() {
        let floor = Duration::from_millis(1);
        // 10 Mbit/s: 0.96 ms a packet, raised to the 1 ms floor.
        assert_eq!(return_tolerance(1.25e6, MDS, BASE, floor), floor);
        // 1 Mbit/s: 9.6 ms, but never more than BaseRTT / 8.
        assert_eq!(return_tolerance(1.25e5, MDS, BASE, floor), BASE / 8);
        // 100 Mbit/s: 96 us.
        assert_eq!(
            return_tolerance(1.25e7, MDS, BASE, Duration::ZERO),
            Duration::from_secs_f64(1200.0 / 1.25e7)
        );
    }
}
