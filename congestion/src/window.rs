//! The RFC 9002 section 7 window that NewReno and the Vegas family share:
//! cwnd and ssthresh in bytes, the initial and minimum windows, the
//! multiplicative decrease on loss, the persistent-congestion collapse, the
//! reset on a new path and the rule for a new datagram size. Each controller
//! decides *when* these happen; this file says *what* they do, once.

/// RFC 9002 section 7.2 / B.2 kMinimumWindow: 2 * max_datagram_size.
pub const MIN_WINDOW_PKTS: usize = 2;

/// RFC 9002 section 7.3.2 / B.2 kLossReductionFactor.
pub const LOSS_REDUCTION_FACTOR: f64 = 0.5;

/// RFC 9000 section 14: the smallest maximum datagram size every QUIC path
/// supports; quiche's default `max_send_udp_payload_size`.
pub const DEFAULT_MAX_DATAGRAM_SIZE: usize = 1200;

/// cwnd and ssthresh of one path (RFC 9002 section 7 and B.2-B.3).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Window {
    pub(crate) cwnd_bytes: usize,
    /// `usize::MAX` while infinite (RFC 9002 B.3).
    pub(crate) ssthresh_bytes: usize,
    pub(crate) max_datagram_size: usize,
    initial_cwnd_pkts: usize,
}

impl Window {
    /// RFC 9002 B.3: the initial window, ssthresh infinite.
    pub(crate) fn new(initial_cwnd_pkts: usize, max_datagram_size: usize) -> Self {
        Window {
            cwnd_bytes: initial_cwnd_pkts * max_datagram_size,
            ssthresh_bytes: usize::MAX,
            max_datagram_size,
            initial_cwnd_pkts,
        }
    }

    pub(crate) fn initial_window_bytes(&self) -> usize {
        self.initial_cwnd_pkts * self.max_datagram_size
    }

    pub(crate) fn min_window_bytes(&self) -> usize {
        MIN_WINDOW_PKTS * self.max_datagram_size
    }

    /// The bytes that may be sent now with `bytes_in_flight` in flight:
    /// the free window, in whole datagrams when `whole_datagrams`. A TCP
    /// window counts segments and a TCP sender sends only full-sized ones
    /// (RFC 1122 4.2.3.4, sender silly-window avoidance); a QUIC stack that
    /// fills any free window sends a short packet whenever a cut left a
    /// fraction of a datagram, and the pair (short packet, the rest of a
    /// datagram) then recurs every round.
    pub(crate) fn available_bytes(&self, bytes_in_flight: usize, whole_datagrams: bool) -> usize {
        let free = self.cwnd_bytes.saturating_sub(bytes_in_flight);
        if whole_datagrams {
            free - free % self.max_datagram_size
        } else {
            free
        }
    }

    /// RFC 9002 7.3.1: slow start while cwnd < ssthresh.
    pub(crate) fn below_ssthresh(&self) -> bool {
        self.cwnd_bytes < self.ssthresh_bytes
    }

    /// ssthresh, `None` while infinite.
    pub(crate) fn ssthresh(&self) -> Option<usize> {
        (self.ssthresh_bytes != usize::MAX).then_some(self.ssthresh_bytes)
    }

    /// RFC 9002 7.3.2 / B.6: ssthresh = cwnd * `factor`,
    /// cwnd = max(ssthresh, minimum window).
    pub(crate) fn reduce(&mut self, factor: f64) {
        self.ssthresh_bytes = (self.cwnd_bytes as f64 * factor) as usize;
        self.cwnd_bytes = self.ssthresh_bytes.max(self.min_window_bytes());
    }

    /// RFC 9002 7.6.2 / B.8: persistent congestion, cwnd = minimum window.
    pub(crate) fn collapse(&mut self) {
        self.cwnd_bytes = self.min_window_bytes();
    }

    /// RFC 9000 section 9.4: a new path starts from the initial window.
    pub(crate) fn reset(&mut self) {
        self.cwnd_bytes = self.initial_window_bytes();
        self.ssthresh_bytes = usize::MAX;
    }

    /// RFC 9002 section 7.2: a new maximum datagram size recalculates the
    /// initial window, which an untouched window follows; the window never
    /// falls below the new minimum. Returns whether the window was
    /// untouched. Ignores 0; caps at [`crate::MAX_DATAGRAM_SIZE_BYTES`].
    pub(crate) fn set_max_datagram_size(&mut self, max_datagram_size: usize) -> bool {
        if max_datagram_size == 0 {
            return false;
        }
        let max_datagram_size = max_datagram_size.min(crate::types::MAX_DATAGRAM_SIZE_BYTES);
        let untouched =
            self.cwnd_bytes == self.initial_window_bytes() && self.ssthresh_bytes == usize::MAX;
        self.max_datagram_size = max_datagram_size;
        if untouched {
            self.cwnd_bytes = self.initial_window_bytes();
        }
        self.cwnd_bytes = self.cwnd_bytes.max(self.min_window_bytes());
        untouched
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loss_halves_and_never_goes_below_the_minimum_window() {
        let mut w = Window::new(10, 1200);
        w.reduce(LOSS_REDUCTION_FACTOR);
        assert_eq!((w.cwnd_bytes, w.ssthresh()), (6000, Some(6000)));
        w.cwnd_bytes = 3000;
        w.reduce(LOSS_REDUCTION_FACTOR);
        assert_eq!((w.cwnd_bytes, w.ssthresh_bytes), (2400, 1500));
    }

    #[test]
    fn the_free_window_is_sent_in_whole_datagrams() {
        let mut w = Window::new(11, 1200);
        w.reduce(LOSS_REDUCTION_FACTOR); // 5.5 datagrams
        assert_eq!(w.cwnd_bytes, 6600);
        assert_eq!(w.available_bytes(0, true), 6000);
        assert_eq!(w.available_bytes(0, false), 6600);
        // A short packet in flight: the rest of its datagram waits.
        assert_eq!(w.available_bytes(1200 + 300, true), 4800);
        assert_eq!(w.available_bytes(1200 + 300, false), 5100);
        // Less than one datagram free: nothing.
        assert_eq!(w.available_bytes(5500, true), 0);
        assert_eq!(w.available_bytes(5500, false), 1100);
        assert_eq!(w.available_bytes(9000, true), 0);
        assert_eq!(w.available_bytes(9000, false), 0);
    }

    #[test]
    fn an_untouched_window_follows_a_new_datagram_size() {
        let mut w = Window::new(10, 1200);
        assert!(w.set_max_datagram_size(1400));
        assert_eq!(w.cwnd_bytes, 14_000);
        w.reduce(LOSS_REDUCTION_FACTOR);
        assert!(!w.set_max_datagram_size(4000));
        assert_eq!(w.cwnd_bytes, 8000, "raised to the new minimum window");
        assert!(!w.set_max_datagram_size(0));
        assert_eq!(w.max_datagram_size, 4000);
    }

    #[test]
    fn a_new_path_starts_over_and_persistent_congestion_collapses() {
        let mut w = Window::new(10, 1200);
        w.reduce(LOSS_REDUCTION_FACTOR);
        w.collapse();
        assert_eq!((w.cwnd_bytes, w.ssthresh()), (2400, Some(6000)));
        w.reset();
        assert_eq!((w.cwnd_bytes, w.ssthresh()), (12_000, None));
        assert!(w.below_ssthresh());
    }
}
