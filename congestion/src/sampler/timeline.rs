//! The sampler's clock: every time it keeps is a [`Nanos`], signed
//! nanoseconds since an origin [`Instant`] (the first time it was given),
//! so that the per-ACK arithmetic on times is integer arithmetic.
//!
//! Why: `Instant`'s subtraction is a call into std that is not inlined
//! (about 5 ns each); the sampler did about ten per ACK frame. Each
//! `Instant` the stack hands in is now converted once, where it enters.
//!
//! Exactness: `Duration` is whole nanoseconds and `Instant` differences
//! are exact, so `Nanos` differences equal `Instant` differences for
//! every time within [`MAX_OFFSET_NS`] (146 years) of the origin; times
//! further away are clamped to it (no connection lasts that long, and
//! clamping keeps every difference inside `i64`).

use std::time::Duration;
use std::time::Instant;

/// The farthest a time is kept from the origin, either way: 2^62 ns, so
/// that the difference of two times never overflows `i64`.
const MAX_OFFSET_NS: i64 = 1 << 62;

/// A time on the sampler's timeline: nanoseconds since its origin,
/// negative for a time before it (a packet sent before the first event
/// the sampler saw).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Nanos(i64);

impl Nanos {
    /// `self - earlier`, zero if `earlier` is later
    /// (`Instant::saturating_duration_since`).
    #[inline]
    pub(super) fn saturating_duration_since(self, earlier: Nanos) -> Duration {
        Duration::from_nanos(self.saturating_ns_since(earlier))
    }

    /// `self - earlier` in nanoseconds, zero if `earlier` is later.
    #[inline]
    pub(super) fn saturating_ns_since(self, earlier: Nanos) -> u64 {
        // Both within MAX_OFFSET_NS of the origin: no overflow.
        (self.0 - earlier.0).max(0) as u64
    }

    /// `self - earlier`, None if `earlier` is later
    /// (`Instant::checked_duration_since`).
    #[inline]
    pub(super) fn checked_duration_since(self, earlier: Nanos) -> Option<Duration> {
        (self.0 >= earlier.0).then(|| Duration::from_nanos((self.0 - earlier.0) as u64))
    }

    /// `self - duration` (`Instant::checked_sub`); None when it would
    /// leave the timeline.
    #[inline]
    pub(super) fn checked_sub(self, duration: Duration) -> Option<Nanos> {
        let ns = i64::try_from(duration.as_nanos()).ok()?;
        let t = self.0.checked_sub(ns)?;
        (t >= -MAX_OFFSET_NS).then_some(Nanos(t))
    }
}

/// Converts the stack's `Instant`s to [`Nanos`]: the first one converted
/// becomes the origin.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Timeline {
    origin: Option<Instant>,
}

impl Timeline {
    /// `t` on the timeline (the origin, if it is the first time seen).
    #[inline]
    pub(super) fn nanos(&mut self, t: Instant) -> Nanos {
        let origin = *self.origin.get_or_insert(t);
        Self::offset(origin, t)
    }

    /// `t` on the timeline without fixing an origin: None before the
    /// first time (then the sampler keeps no time to compare it with).
    pub(super) fn nanos_if_started(&self, t: Instant) -> Option<Nanos> {
        self.origin.map(|origin| Self::offset(origin, t))
    }

    fn offset(origin: Instant, t: Instant) -> Nanos {
        let clamp = |d: Duration| {
            i64::try_from(d.as_nanos()).map_or(MAX_OFFSET_NS, |ns| ns.min(MAX_OFFSET_NS))
        };
        match t.checked_duration_since(origin) {
            Some(after) => Nanos(clamp(after)),
            None => Nanos(-clamp(origin.duration_since(t))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn differences_on_the_timeline_are_instant_differences() {
        let t0 = Instant::now();
        let mut timeline = Timeline::default();
        let origin = timeline.nanos(t0);
        let times = [
            t0 - Duration::from_secs(3),
            t0 - Duration::from_nanos(1),
            t0,
            t0 + Duration::from_nanos(999_999_999),
            t0 + Duration::from_secs(86_400) + Duration::from_nanos(7),
        ];
        assert_eq!(timeline.nanos(t0), origin);
        for &a in &times {
            for &b in &times {
                let (na, nb) = (timeline.nanos(a), timeline.nanos(b));
                assert_eq!(
                    na.saturating_duration_since(nb),
                    a.saturating_duration_since(b)
                );
                assert_eq!(na.checked_duration_since(nb), a.checked_duration_since(b));
                assert_eq!(na < nb, a < b);
                assert_eq!(na == nb, a == b);
                let d = Duration::from_millis(1500);
                let back = a.checked_sub(d).map(|t| timeline.nanos(t));
                assert_eq!(na.checked_sub(d), back);
            }
        }
    }
}
