//! What one endpoint's own sending direction did on a connection, from
//! quiche's `Connection::stats()` and `path_stats()`: the figures both
//! examples print when a connection ends.
//!
//! A QUIC endpoint's congestion controller governs only what *it* sends.
//! For h3-client that is the requests and ACKs (client -> server); the
//! download is sent, paced and congestion-controlled by the server, whose
//! own figures are in h3-server's `closed:` line. Both print this summary
//! of their own direction, and say which direction it is.

use std::net::SocketAddr;
use std::time::Duration;

/// Cwnd samples (bytes), e.g. one per event-loop turn.
#[derive(Debug, Default, Clone)]
pub struct CwndStats {
    pub min_bytes: usize,
    pub max_bytes: usize,
    pub sum_bytes: u128,
    pub samples: u64,
}

impl CwndStats {
    pub fn add(&mut self, cwnd_bytes: usize) {
        if self.samples == 0 || cwnd_bytes < self.min_bytes {
            self.min_bytes = cwnd_bytes;
        }
        self.max_bytes = self.max_bytes.max(cwnd_bytes);
        self.sum_bytes += cwnd_bytes as u128;
        self.samples += 1;
    }

    /// Adds the cwnd of `conn`'s active path, if it has one.
    pub fn sample(&mut self, conn: &quiche::Connection) {
        if let Some(path) = conn.path_stats().next() {
            self.add(path.cwnd);
        }
    }

    pub fn mean_bytes(&self) -> f64 {
        if self.samples == 0 {
            0.0
        } else {
            self.sum_bytes as f64 / self.samples as f64
        }
    }
}

/// One endpoint's sending direction over a whole connection.
#[derive(Debug, Clone)]
pub struct SendSummary {
    /// Our name of the congestion controller of this direction.
    pub cc: String,
    pub peer: Option<SocketAddr>,
    /// The cwnd when the summary was taken (at the close: the last one).
    pub cwnd_final_bytes: usize,
    pub cwnd: CwndStats,
    pub sent_pkts: usize,
    pub sent_bytes: u64,
    pub lost_pkts: usize,
    pub lost_bytes: u64,
    pub retrans_pkts: usize,
    /// Stream bytes sent again.
    pub retrans_bytes: u64,
    pub recv_pkts: usize,
    pub recv_bytes: u64,
    pub srtt: Duration,
    pub min_rtt: Option<Duration>,
}

impl SendSummary {
    /// The figures of `conn` now; `cc` names its controller, `cwnd` holds
    /// the samples taken during the connection.
    pub fn of(conn: &quiche::Connection, cc: &str, cwnd: &CwndStats) -> SendSummary {
        let stats = conn.stats();
        let path = conn.path_stats().next();
        SendSummary {
            cc: cc.to_string(),
            peer: path.as_ref().map(|p| p.peer_addr),
            cwnd_final_bytes: path.as_ref().map_or(0, |p| p.cwnd),
            cwnd: cwnd.clone(),
            sent_pkts: stats.sent,
            sent_bytes: stats.sent_bytes,
            lost_pkts: stats.lost,
            lost_bytes: stats.lost_bytes,
            retrans_pkts: stats.retrans,
            retrans_bytes: stats.stream_retrans_bytes,
            recv_pkts: stats.recv,
            recv_bytes: stats.recv_bytes,
            srtt: path.as_ref().map(|p| p.rtt).unwrap_or_default(),
            min_rtt: path.as_ref().and_then(|p| p.min_rtt),
        }
    }

    /// `cc NAME, cwnd final N bytes (min/mean/max a/b/c), sent P packets
    /// (B bytes), lost L (B bytes), retransmitted R (B stream bytes); rtt
    /// smoothed S ms, min M ms`.
    pub fn describe(&self) -> String {
        let cwnd_range = if self.cwnd.samples > 0 {
            format!(
                " (min/mean/max {}/{:.0}/{})",
                self.cwnd.min_bytes,
                self.cwnd.mean_bytes(),
                self.cwnd.max_bytes
            )
        } else {
            String::new()
        };
        let min_rtt = match self.min_rtt {
            Some(d) => format!("{:.3} ms", ms(d)),
            None => "-".to_string(),
        };
        format!(
            "cc {}, cwnd final {} bytes{cwnd_range}, sent {} packets ({} bytes), \
             lost {} ({} bytes), retransmitted {} ({} stream bytes); \
             rtt smoothed {:.3} ms, min {min_rtt}",
            self.cc,
            self.cwnd_final_bytes,
            self.sent_pkts,
            self.sent_bytes,
            self.lost_pkts,
            self.lost_bytes,
            self.retrans_pkts,
            self.retrans_bytes,
            ms(self.srtt),
        )
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// h3-server's line for a connection that ended: `ID closed: peer ADDR,
/// duration S s, server -> client direction: ...; received P packets (B
/// bytes)`. xtask's load test counts the ` closed: ` lines: one per
/// connection.
pub fn server_close_line(
    trace_id: &str,
    peer: SocketAddr,
    duration: Duration,
    summary: &SendSummary,
    why: &str,
) -> String {
    format!(
        "{trace_id} closed: peer {}, duration {:.3} s, {why}; \
         server -> client direction (responses): {}; received {} packets ({} bytes)",
        summary.peer.unwrap_or(peer),
        duration.as_secs_f64(),
        summary.describe(),
        summary.recv_pkts,
        summary.recv_bytes,
    )
}

/// Why a connection ended, in a few words: who closed it with which code,
/// or the idle timeout.
pub fn close_reason(conn: &quiche::Connection) -> String {
    let code = |e: &quiche::ConnectionError| {
        let kind = if e.is_app { "application" } else { "transport" };
        // The peer's text, one short line: no control characters.
        let reason: String = String::from_utf8_lossy(&e.reason)
            .chars()
            .map(|c| if c.is_control() { '?' } else { c })
            .take(80)
            .collect();
        if reason.is_empty() {
            format!("{kind} error {:#x}", e.error_code)
        } else {
            format!("{kind} error {:#x} ({reason})", e.error_code)
        }
    };
    if let Some(e) = conn.peer_error() {
        format!("closed by the peer, {}", code(e))
    } else if let Some(e) = conn.local_error() {
        format!("closed here, {}", code(e))
    } else if conn.is_timed_out() {
        "idle timeout".to_string()
    } else {
        "not closed".to_string()
    }
}
