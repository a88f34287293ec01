//! The BaseRTT filter: the minimum RTT over the connection's life or a
//! sliding window (with its idle reset).

use super::*;

/// BBR's min RTT filter length, 10 s (draft-ietf-ccwg-bbr, MinRTTFilterLen):
/// long enough to include a quiet moment, short enough to follow a route
/// change.
pub const DEFAULT_BASE_RTT_WINDOW: Duration = Duration::from_secs(10);

/// Forget BaseRTT after this long with nothing in flight: RFC 5681 section
/// 4.1 restarts after an idle period longer than the RTO, whose minimum is
/// 1 s (RFC 6298 section 2.4); Linux `tcp_vegas.c` resets baseRTT when
/// transmission restarts.
pub const DEFAULT_IDLE_RESET: Duration = Duration::from_secs(1);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct TimedRtt {
    pub(super) time: Instant,
    pub(super) rtt: Duration,
}

/// Windowed minimum keeping the best, second-best and third-best samples of
/// successive parts of the window (Linux `lib/minmax.c`): fixed size.
#[derive(Clone, Copy, Debug)]
pub(super) struct WindowedMinRtt {
    pub(super) window: Duration,
    pub(super) best: Option<[TimedRtt; 3]>,
}

impl WindowedMinRtt {
    pub(super) fn update(&mut self, time: Instant, rtt: Duration) {
        let sample = TimedRtt { time, rtt };
        let window = self.window;
        let Some(best) = &mut self.best else {
            self.best = Some([sample; 3]);
            return;
        };
        // A new minimum, or nothing left in the window: start over.
        if rtt <= best[0].rtt || time.saturating_duration_since(best[2].time) > window {
            *best = [sample; 3];
            return;
        }
        if rtt <= best[1].rtt {
            best[1] = sample;
            best[2] = sample;
        } else if rtt <= best[2].rtt {
            best[2] = sample;
        }
        let age = time.saturating_duration_since(best[0].time);
        if age > window {
            // The best one left the window: promote the others.
            best[0] = best[1];
            best[1] = best[2];
            best[2] = sample;
            if time.saturating_duration_since(best[0].time) > window {
                best[0] = best[1];
                best[1] = best[2];
                best[2] = sample;
            }
        } else if best[1].time == best[0].time && age > window / 4 {
            // A quarter window without a second choice: take one.
            best[1] = sample;
            best[2] = sample;
        } else if best[2].time == best[1].time && age > window / 2 {
            // Half a window without a third choice: take one.
            best[2] = sample;
        }
    }

    pub(super) fn get(&self) -> Option<Duration> {
        self.best.map(|best| best[0].rtt)
    }

    /// How long ago the current minimum was measured.
    pub(super) fn age(&self, now: Instant) -> Option<Duration> {
        self.best
            .map(|best| now.saturating_duration_since(best[0].time))
    }
}

/// BaseRTT in either mode.
#[derive(Clone, Copy, Debug)]
pub(super) enum BaseRttFilter {
    Lifetime(Option<Duration>),
    Windowed(WindowedMinRtt),
}

impl BaseRttFilter {
    pub(super) fn new(mode: BaseRttMode) -> Self {
        match mode {
            BaseRttMode::Lifetime => BaseRttFilter::Lifetime(None),
            BaseRttMode::Windowed { window } => {
                BaseRttFilter::Windowed(WindowedMinRtt { window, best: None })
            }
        }
    }

    pub(super) fn update(&mut self, time: Instant, rtt: Duration) {
        match self {
            BaseRttFilter::Lifetime(min) => *min = Some(min.map_or(rtt, |m| m.min(rtt))),
            BaseRttFilter::Windowed(filter) => filter.update(time, rtt),
        }
    }

    pub(super) fn get(&self) -> Option<Duration> {
        match self {
            BaseRttFilter::Lifetime(min) => *min,
            BaseRttFilter::Windowed(filter) => filter.get(),
        }
    }
}
