//! Trace-driven links: a link whose service is a recorded list of delivery
//! opportunities in mahimahi's format (Netravali et al., "Mahimahi:
//! Accurate Record-and-Replay for HTTP", USENIX ATC 2015; the traces of
//! Winstein et al., "Stochastic Forecasts Achieve High Throughput and Low
//! Delay over Cellular Networks", NSDI 2013).
//!
//! Format: one integer per line, a time in milliseconds from the start of
//! the trace; each line is one opportunity to deliver
//! [`OPPORTUNITY_BYTES`] at that millisecond, and a millisecond with
//! several opportunities repeats its timestamp. Times never go back. The
//! trace repeats when it ends: repetition k's opportunities are at
//! `k * last + t` (mahimahi's `base_timestamp_ += schedule_.back()`), so a
//! trace that starts at 0 has two opportunities at each seam, as in
//! `mm-link`. Blank lines and spaces around a number are allowed (mahimahi
//! reads the file with `%lu`); anything else is an error naming the file
//! and the line.
//!
//! Service, as `mm-link`'s `LinkQueue::rationalize` does it: an
//! opportunity at time T serves the packets waiting at T in FIFO order
//! with [`OPPORTUNITY_BYTES`]; a packet longer than what is left of an
//! opportunity takes the rest of it and goes on with the next one (it is
//! delivered at the opportunity that carries its last byte); what is left
//! of an opportunity when nothing waits is lost. Several small packets
//! therefore share one opportunity, and a backlogged link delivers
//! exactly [`OPPORTUNITY_BYTES`] per opportunity. mahimahi's opportunity
//! is 1504 bytes of a TUN frame (an IP packet with its headers); ours is
//! 1500 bytes of UDP payload, the size the traces' published rates use.
//!
//! Bounds, so that no file can exhaust memory or overflow the clock:
//! at most [`MAX_OPPORTUNITIES`] lines with a number, timestamps at most
//! [`MAX_TRACE_MS`] (1 day), lines at most [`MAX_LINE_BYTES`] long.

use std::io::BufRead;
use std::io::Read;
use std::path::Path;
use std::sync::Arc;

use crate::Nanos;

/// Bytes one delivery opportunity carries: an MTU of 1500 bytes, the
/// packet size the traces were recorded with (Winstein et al., NSDI 2013)
/// and that their published rates count.
pub const OPPORTUNITY_BYTES: u64 = 1500;

/// The most opportunities a trace may hold: 16 million (64 MB in memory),
/// over 200 s of a 1 Gbit/s link; the longest of the four recorded
/// cellular traces here has 156,262.
pub const MAX_OPPORTUNITIES: usize = 16_000_000;

/// The latest timestamp a trace may have: 1 day, the longest run the
/// simulator and the emulator accept.
pub const MAX_TRACE_MS: u64 = 86_400_000;

/// The longest line accepted (a timestamp with spaces around it).
pub const MAX_LINE_BYTES: usize = 64;

const NS_PER_MS: u64 = 1_000_000;

/// A parsed trace: the opportunities of one repetition.
#[derive(Clone, Debug, PartialEq)]
pub struct DeliveryTrace {
    /// Where it was read from (for messages and reports).
    pub name: String,
    /// Opportunity times in ms, non-decreasing; the last is the period.
    opportunities_ms: Vec<u32>,
}

/// What is wrong with a trace file: its name, the line (1-based; 0 when
/// the problem is the file as a whole) and why.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceError {
    pub file: String,
    pub line: usize,
    pub reason: String,
}

impl std::fmt::Display for TraceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.line == 0 {
            write!(f, "trace {}: {}", self.file, self.reason)
        } else {
            write!(f, "trace {} line {}: {}", self.file, self.line, self.reason)
        }
    }
}

impl std::error::Error for TraceError {}

impl DeliveryTrace {
    /// Reads and checks the trace at `path`.
    pub fn load(path: &Path) -> Result<DeliveryTrace, TraceError> {
        let name = path.display().to_string();
        let file = std::fs::File::open(path).map_err(|e| TraceError {
            file: name.clone(),
            line: 0,
            reason: format!("cannot open: {e}"),
        })?;
        Self::parse(std::io::BufReader::new(file), &name)
    }

    /// Parses a trace from `input`; `name` goes into errors. Reads at most
    /// [`MAX_LINE_BYTES`] + 1 bytes of any line, so a file without line
    /// breaks cannot exhaust memory.
    pub fn parse(mut input: impl BufRead, name: &str) -> Result<DeliveryTrace, TraceError> {
        let error = |line: usize, reason: String| TraceError {
            file: name.to_string(),
            line,
            reason,
        };
        let mut opportunities_ms: Vec<u32> = Vec::new();
        let mut line = Vec::with_capacity(MAX_LINE_BYTES + 1);
        let mut number = 0usize;
        loop {
            line.clear();
            let read = (&mut input)
                .take(MAX_LINE_BYTES as u64 + 1)
                .read_until(b'\n', &mut line)
                .map_err(|e| error(number + 1, format!("cannot read: {e}")))?;
            if read == 0 {
                break;
            }
            number += 1;
            if line.last() != Some(&b'\n') && line.len() > MAX_LINE_BYTES {
                return Err(error(
                    number,
                    format!(
                        "longer than {MAX_LINE_BYTES} bytes; want one timestamp in ms per line"
                    ),
                ));
            }
            let text = String::from_utf8_lossy(&line);
            let text = text.trim();
            if text.is_empty() {
                continue;
            }
            if !text.bytes().all(|b| b.is_ascii_digit()) {
                return Err(error(
                    number,
                    format!("`{text}` is not a timestamp: want one whole number of ms (e.g. 1042)"),
                ));
            }
            let ms = text.parse::<u64>().ok().filter(|&ms| ms <= MAX_TRACE_MS);
            let Some(ms) = ms else {
                return Err(error(
                    number,
                    format!("timestamp {text} ms: at most {MAX_TRACE_MS} (1 day)"),
                ));
            };
            if let Some(&previous) = opportunities_ms.last() {
                if ms < previous as u64 {
                    return Err(error(
                        number,
                        format!(
                            "timestamp {ms} ms is before the previous line's {previous} ms: \
                             times never go back"
                        ),
                    ));
                }
            }
            if opportunities_ms.len() == MAX_OPPORTUNITIES {
                return Err(error(
                    number,
                    format!("more than {MAX_OPPORTUNITIES} delivery opportunities"),
                ));
            }
            opportunities_ms.push(ms as u32);
        }
        match opportunities_ms.last() {
            None => Err(error(
                0,
                "no delivery opportunity: want one timestamp in ms per line".into(),
            )),
            Some(0) => Err(error(
                number,
                "the last timestamp is 0: a trace must last at least 1 ms (it repeats every \
                 last-timestamp ms)"
                    .into(),
            )),
            Some(_) => Ok(DeliveryTrace {
                name: name.to_string(),
                opportunities_ms,
            }),
        }
    }

    /// The trace's period (its last timestamp), in ms.
    pub fn period_ms(&self) -> u64 {
        *self.opportunities_ms.last().expect("checked non-empty") as u64
    }

    /// Opportunities per repetition.
    pub fn opportunities(&self) -> usize {
        self.opportunities_ms.len()
    }

    /// The mean rate over one repetition, in bit/s (at least 1).
    pub fn mean_rate_bps(&self) -> u64 {
        let bits = self.opportunities() as u128 * OPPORTUNITY_BYTES as u128 * 8 * 1000;
        ((bits / self.period_ms() as u128) as u64).max(1)
    }

    /// When opportunity `index` (counted over repetitions) happens.
    pub fn opportunity_ns(&self, index: u64) -> Nanos {
        let n = self.opportunities() as u64;
        let (repetition, i) = (index / n, (index % n) as usize);
        repetition
            .saturating_mul(self.period_ms())
            .saturating_add(self.opportunities_ms[i] as u64)
            .saturating_mul(NS_PER_MS)
    }

    /// The first opportunity (counted over repetitions) at or after `t`.
    pub fn first_at_or_after(&self, t: Nanos) -> u64 {
        let period_ns = self.period_ms() * NS_PER_MS;
        // Repetition k covers (k * period, (k + 1) * period]: its last
        // opportunity is at (k + 1) * period, before the next one's first.
        let repetition = t.saturating_sub(1) / period_ns;
        let offset_ns = t - repetition * period_ns;
        let i = self
            .opportunities_ms
            .partition_point(|&ms| (ms as u64) * NS_PER_MS < offset_ns);
        repetition * self.opportunities() as u64 + i as u64
    }

    /// Bytes the trace offers from 0 up to and including `t`.
    pub fn capacity_bytes(&self, t: Nanos) -> u64 {
        // Opportunities before the first one after t.
        self.first_at_or_after(t.saturating_add(1)) * OPPORTUNITY_BYTES
    }
}

/// The serving side of a trace-driven link: which opportunity comes next
/// and what is left of the last one used.
#[derive(Clone, Debug)]
pub struct TraceService {
    trace: Arc<DeliveryTrace>,
    /// The next unused opportunity (counted over repetitions).
    next: u64,
    /// Bytes left of the opportunity at `leftover_at_ns`.
    leftover_bytes: u64,
    leftover_at_ns: Nanos,
}

impl TraceService {
    pub fn new(trace: Arc<DeliveryTrace>) -> Self {
        TraceService {
            trace,
            next: 0,
            leftover_bytes: 0,
            leftover_at_ns: 0,
        }
    }

    pub fn trace(&self) -> &Arc<DeliveryTrace> {
        &self.trace
    }

    /// A packet of `bytes` reaches the head of the queue at `start` (it
    /// arrived at an idle link, or the packet before it finished at
    /// `start`): when its last byte is delivered (module documentation).
    pub fn finish_ns(&mut self, start: Nanos, bytes: usize) -> Nanos {
        let mut remaining = bytes as u64;
        if self.leftover_bytes > 0 && self.leftover_at_ns == start {
            if remaining <= self.leftover_bytes {
                self.leftover_bytes -= remaining;
                return start;
            }
            remaining -= self.leftover_bytes;
        }
        self.leftover_bytes = 0;
        let mut index = self.next.max(self.trace.first_at_or_after(start));
        loop {
            let at = self.trace.opportunity_ns(index);
            index += 1;
            if remaining <= OPPORTUNITY_BYTES {
                self.next = index;
                self.leftover_bytes = OPPORTUNITY_BYTES - remaining;
                self.leftover_at_ns = at;
                return at;
            }
            remaining -= OPPORTUNITY_BYTES;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<DeliveryTrace, TraceError> {
        DeliveryTrace::parse(text.as_bytes(), "t.down")
    }

    #[test]
    fn opportunities_repeat_every_period_with_two_at_each_seam() {
        let t = parse("0\n0\n5\n10\n").unwrap();
        assert_eq!((t.period_ms(), t.opportunities()), (10, 4));
        let times: Vec<u64> = (0..9).map(|i| t.opportunity_ns(i) / NS_PER_MS).collect();
        assert_eq!(times, [0, 0, 5, 10, 10, 10, 15, 20, 20]);
        // 4 x 1500 bytes per 10 ms = 4.8 Mbit/s.
        assert_eq!(t.mean_rate_bps(), 4_800_000);
    }

    #[test]
    fn the_first_opportunity_at_or_after_a_time_counts_every_repetition() {
        let t = parse("3\n5\n10\n").unwrap();
        let ms = NS_PER_MS;
        for (at, expected) in [
            (0, 0),
            (3 * ms, 0),
            (3 * ms + 1, 1),
            (10 * ms, 2),
            (10 * ms + 1, 3),
            (13 * ms, 3),
            (20 * ms, 5),
            (1000 * ms, 299),
        ] {
            let i = t.first_at_or_after(at);
            assert_eq!(i, expected, "at {at} ns");
            assert!(t.opportunity_ns(i) >= at);
            assert!(i == 0 || t.opportunity_ns(i - 1) < at);
        }
        assert_eq!(t.capacity_bytes(10 * ms), 3 * OPPORTUNITY_BYTES);
        assert_eq!(t.capacity_bytes(10 * ms - 1), 2 * OPPORTUNITY_BYTES);
    }

    #[test]
    fn small_packets_share_an_opportunity_and_large_ones_span_several() {
        let ms = NS_PER_MS;
        let mut s = TraceService::new(Arc::new(parse("1\n2\n3\n4\n").unwrap()));
        // 1000 + 500 bytes fill the opportunity at 1 ms.
        assert_eq!(s.finish_ns(0, 1000), ms);
        assert_eq!(s.finish_ns(ms, 500), ms);
        // Nothing left at 1 ms: the next packet waits for 2 ms.
        assert_eq!(s.finish_ns(ms, 100), 2 * ms);
        // 1400 left at 2 ms, 2000 bytes take them and 600 of 3 ms.
        assert_eq!(s.finish_ns(2 * ms, 2000), 3 * ms);
        // The link idles: what was left at 3 ms is lost, and a packet
        // arriving later takes the first opportunity at or after it.
        assert_eq!(s.finish_ns(3 * ms + 1, 10), 4 * ms);
        // Repetition 2 (period 4 ms) has opportunities at 9..=12 ms.
        assert_eq!(s.finish_ns(9 * ms, 10), 9 * ms);
        assert_eq!(s.finish_ns(9 * ms + 1, 10), 10 * ms);
    }

    #[test]
    fn a_backlogged_link_delivers_every_byte_of_every_opportunity() {
        // 1 Mbit/s-ish with bursts and gaps, packets of 1200 bytes.
        let text: String = (1..=400u32)
            .flat_map(|ms| std::iter::repeat_n(ms, (ms % 7 == 0) as usize * 3))
            .chain([401])
            .map(|ms| format!("{ms}\n"))
            .collect();
        let trace = Arc::new(parse(&text).unwrap());
        let mut s = TraceService::new(trace.clone());
        let (mut now, mut delivered) = (0, 0u64);
        let end = 10 * trace.period_ms() * NS_PER_MS;
        while now <= end {
            now = s.finish_ns(now, 1200);
            if now <= end {
                delivered += 1200;
            }
        }
        let offered = trace.capacity_bytes(end);
        assert!(offered - delivered < 1200, "{offered} {delivered}");
    }

    #[test]
    fn malformed_traces_name_the_file_the_line_and_the_reason() {
        for (text, line, words) in [
            ("", 0, "no delivery opportunity"),
            ("\n  \n", 0, "no delivery opportunity"),
            ("0\n0\n", 2, "at least 1 ms"),
            ("1\n5\n4\n", 3, "before the previous line's 5"),
            ("1\nfive\n", 2, "`five` is not a timestamp"),
            ("1\n-3\n", 2, "`-3` is not a timestamp"),
            ("1\n2.5\n", 2, "`2.5` is not a timestamp"),
            ("1 2\n", 1, "`1 2` is not a timestamp"),
            ("99999999999999999999999\n", 1, "at most 86400000"),
            ("86400001\n", 1, "at most 86400000"),
        ] {
            let e = parse(text).unwrap_err();
            assert_eq!((e.file.as_str(), e.line), ("t.down", line), "{text:?}: {e}");
            assert!(e.to_string().contains(words), "{text:?}: {e}");
        }
        // A gigantic line is refused after reading at most a line's bound.
        let e = parse(&"7".repeat(10_000_000)).unwrap_err();
        assert!(e.to_string().contains("longer than 64 bytes"), "{e}");
        // Spaces, CRLF and blank lines are fine.
        let t = parse(" 1 \r\n\n2\r\n").unwrap();
        assert_eq!((t.opportunities(), t.period_ms()), (2, 2));
        let e = DeliveryTrace::load(Path::new("/nonexistent/x.down")).unwrap_err();
        assert!(e.to_string().contains("/nonexistent/x.down") && e.to_string().contains("open"));
    }
}
