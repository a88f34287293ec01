//! Sending from a real event loop: packets at quiche's pacing times with
//! sub-millisecond precision, and back-pressure for the application.
//!
//! What every application that embeds quiche needs, whatever its controller:
//!
//! - [`PacedSender::flush`] sends what quiche has, honouring `SendInfo.at`.
//!   quiche's pacer returns with each packet the earliest time of the *next*
//!   one, so the packet goes out at once and the next `send()` waits. Every
//!   packet due within a small *release horizon* goes in the same flush, and
//!   a held flush asks to be called again that horizon before the next
//!   packet is due, so ordinary timer lateness costs no sending time.
//! - [`poll_timeout`] and [`sleep_until`] wait for that time. epoll (and so
//!   mio) waits in whole milliseconds and rounds up: at 50 Mbit/s a packet
//!   is due every 0.2 ms, so a loop that trusts the poll timeout sends at
//!   most about one packet per millisecond (12 Mbit/s with 1350-byte
//!   packets). [`poll_timeout`] rounds down instead and [`sleep_until`]
//!   sleeps the sub-millisecond rest.
//! - [`send_budget_bytes`] says how much more to write into quiche's
//!   streams: about one congestion window unsent. quiche accepts stream data
//!   up to the window each time it is asked, however much is already
//!   waiting, so a server that writes whenever quiche accepts piles up what
//!   the sender has not sent yet (up to the peer's flow-control window per
//!   connection).
//!
//! An application that does not pace must say so to quiche
//! (`quiche::Config::enable_pacing(false)`), or quiche records each packet
//! as sent at its pacing time, later than it left, and every RTT sample comes
//! out short. Controllers of this crate take the time of the `send()` call as
//! the send time either way ([`crate::adapter::Adapter`]).

use std::io;
use std::net::SocketAddr;
use std::time::Duration;
use std::time::Instant;

/// Packets due within this much of now go out in the same flush, and a
/// held flush asks to be called again this much before the next packet is
/// due. quiche's pacer restarts its schedule from the send time of a packet
/// sent late, so every late wake-up is lost sending time (measured:
/// docs/constants.md, `sending::DEFAULT_RELEASE_HORIZON`). Waking early by
/// more than the usual lateness (Linux's default
/// timer slack is 50 us, a busy machine adds more) keeps the schedule; the
/// price is bursts of at most 0.25 ms of packets (23 at 1 Gbit/s with
/// 1350-byte packets, 2 at 100 Mbit/s).
pub const DEFAULT_RELEASE_HORIZON: Duration = Duration::from_micros(250);

/// How long to retry later when the socket's send buffer is full.
const SOCKET_FULL_RETRY: Duration = Duration::from_millis(1);

/// The least [`send_budget_bytes`] keeps unsent, so that a connection with
/// a tiny window still has whole packets to send.
pub const MIN_SEND_BUFFER_BYTES: usize = 16 * 1024;

/// Stream bytes the application should write now: enough that quiche holds
/// one congestion window (at least [`MIN_SEND_BUFFER_BYTES`]) it has not
/// sent yet, and no more.
///
/// With that much unsent the connection is never application-limited (it
/// can send a whole window before the application runs again), and memory
/// per connection is bounded by the window, not by the size of the
/// response or the peer's flow-control credit.
pub fn send_budget_bytes(conn: &quiche::Connection) -> usize {
    let cwnd_bytes = conn.path_stats().find(|p| p.active).map_or(0, |p| p.cwnd);
    cwnd_bytes
        .max(MIN_SEND_BUFFER_BYTES)
        .saturating_sub(conn.tx_buffered())
}

/// What [`PacedSender::flush`] left to do.
#[derive(Debug)]
pub enum Flush {
    /// quiche has nothing more to send now.
    Idle,
    /// Call `flush` again at this time: the release horizon before the
    /// next packet's pacing time, or later when the socket buffer is full.
    HeldUntil(Instant),
    /// The socket refused a datagram (e.g. ECONNREFUSED on a connected
    /// socket); the packet was dropped and quiche will recover it.
    Failed(io::Error),
}

/// One connection's sending state between flushes.
#[derive(Debug)]
pub struct PacedSender {
    pacing: bool,
    release_horizon: Duration,
    /// A datagram the socket refused with `WouldBlock`, to send first.
    blocked: Option<(Vec<u8>, SocketAddr)>,
    /// quiche's pacer allows the next packet from this time on.
    next_release: Option<Instant>,
    /// The clock quiche reads (`Instant::now` unless a test or simulator
    /// runs quiche on another).
    clock: fn() -> Instant,
}

impl PacedSender {
    /// A sender that paces (`pacing`) with [`DEFAULT_RELEASE_HORIZON`], or
    /// sends every packet as soon as quiche makes it. Configure quiche to
    /// match: `config.enable_pacing(pacing)`.
    pub fn new(pacing: bool) -> Self {
        PacedSender {
            pacing,
            release_horizon: DEFAULT_RELEASE_HORIZON,
            blocked: None,
            next_release: None,
            clock: Instant::now,
        }
    }

    /// Reads the time from `clock` instead of `Instant::now`: it must be the
    /// clock quiche reads (e.g. `quiche::clock::now` where a test runs
    /// quiche in virtual time).
    pub fn with_clock(mut self, clock: fn() -> Instant) -> Self {
        self.clock = clock;
        self
    }

    /// Sends packets due up to `horizon` ahead of their time.
    pub fn with_release_horizon(mut self, horizon: Duration) -> Self {
        self.release_horizon = horizon;
        self
    }

    /// When the next packet may go (pacing), if quiche asked for a time.
    pub fn next_release(&self) -> Option<Instant> {
        self.next_release.filter(|_| self.pacing)
    }

    /// Sends what `conn` has to send through `send_to` (a UDP socket's
    /// `send_to`), every packet no earlier than `release horizon` before
    /// its pacing time. `out` must hold one datagram.
    pub fn flush<F>(
        &mut self,
        conn: &mut quiche::Connection,
        out: &mut [u8],
        mut send_to: F,
    ) -> Flush
    where
        F: FnMut(&[u8], SocketAddr) -> io::Result<usize>,
    {
        loop {
            let now = (self.clock)();
            if let Some((data, to)) = self.blocked.take() {
                match send_to(&data, to) {
                    Ok(_) => {}
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                        self.blocked = Some((data, to));
                        return Flush::HeldUntil(now + SOCKET_FULL_RETRY);
                    }
                    Err(e) => return Flush::Failed(e),
                }
            }
            if let Some(at) = self
                .next_release()
                .filter(|at| *at > now + self.release_horizon)
            {
                return Flush::HeldUntil(at - self.release_horizon);
            }
            match conn.send(out) {
                Ok((len, info)) => {
                    self.next_release = Some(info.at);
                    match send_to(&out[..len], info.to) {
                        Ok(_) => {}
                        Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                            self.blocked = Some((out[..len].to_vec(), info.to));
                        }
                        Err(e) => return Flush::Failed(e),
                    }
                }
                Err(quiche::Error::Done) => return Flush::Idle,
                Err(e) => {
                    let _ = conn.close(false, 0x1, b"send failed");
                    return Flush::Failed(io::Error::other(format!("quiche send failed: {e}")));
                }
            }
        }
    }
}

/// The timeout for a poll with millisecond resolution (epoll, mio) that
/// must return by `deadline`: the time left rounded *down* to whole
/// milliseconds (zero when less than one is left), `None` without a
/// deadline. After the poll, [`sleep_until`] waits out the rest.
pub fn poll_timeout(deadline: Option<Instant>, now: Instant) -> Option<Duration> {
    deadline.map(|d| {
        let left = d.saturating_duration_since(now);
        Duration::from_millis(left.as_millis() as u64)
    })
}

/// Sleeps until `deadline` if it is less than a millisecond away (the part
/// a millisecond poll cannot wait for); returns at once otherwise.
pub fn sleep_until(deadline: Instant) {
    let left = deadline.saturating_duration_since(Instant::now());
    if !left.is_zero() && left < Duration::from_millis(1) {
        std::thread::sleep(left);
    }
}

/// The earlier of two optional instants.
pub fn earliest(a: Option<Instant>, b: Option<Instant>) -> Option<Instant> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, None) => x,
        (None, y) => y,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn poll_timeouts_round_down_to_whole_milliseconds() {
        let now = Instant::now();
        let at = |us| Some(now + Duration::from_micros(us));
        assert_eq!(poll_timeout(at(5_700), now), Some(Duration::from_millis(5)));
        assert_eq!(poll_timeout(at(999), now), Some(Duration::ZERO));
        assert_eq!(
            poll_timeout(Some(now - Duration::from_millis(3)), now),
            Some(Duration::ZERO)
        );
        assert_eq!(poll_timeout(None, now), None);
    }

    #[test]
    fn sleep_until_waits_out_sub_millisecond_rests_only() {
        let start = Instant::now();
        sleep_until(start + Duration::from_micros(400));
        assert!(start.elapsed() >= Duration::from_micros(400));
        // A deadline a second away is the poll's to wait for.
        let start = Instant::now();
        sleep_until(start + Duration::from_secs(1));
        assert!(start.elapsed() < Duration::from_millis(500));
    }

    #[test]
    fn earliest_of_optional_instants() {
        let now = Instant::now();
        let later = now + Duration::from_millis(1);
        assert_eq!(earliest(Some(now), Some(later)), Some(now));
        assert_eq!(earliest(None, Some(later)), Some(later));
        assert_eq!(earliest(None, None), None);
    }
}
