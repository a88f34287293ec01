//! The ranges the emulator accepts, and checked conversions from the
//! command line's units (Mbit/s, ms, s) to the model's (bit/s, ns).
//!
//! Every bound is documented in `vegas-link-emu --help` and checked in one
//! place: the command line's value parsers, `--step` and
//! [`crate::Emulator::start`] all use these functions, so an out-of-range
//! value is an error saying what is allowed, never a wrap-around or a
//! panic. With these bounds every time the link computes stays below
//! 2^63 ns: a day of run time plus a minute of delay and the longest
//! serialization (64 KiB at 1 kbit/s, 524 s) is about 8.7e13 ns.

use vegas_link_model::LinkSpec;
use vegas_link_model::Nanos;

/// Slowest link rate: 1 kbit/s.
pub const MIN_RATE_MBIT: f64 = 0.001;
/// Fastest link rate: 100 Gbit/s.
pub const MAX_RATE_MBIT: f64 = 100_000.0;
/// Longest one-way delay: 60 s.
pub const MAX_DELAY_MS: f64 = 60_000.0;
/// Largest drop-tail buffer, in waiting packets.
pub const MAX_BUFFER_PKTS: usize = 1_000_000;
/// Longest mean loss burst (Gilbert model), in packets.
pub const MAX_LOSS_BURST_PKTS: f64 = 10_000.0;
/// Shortest aggregation period other than 0 (off): 1 us.
pub const MIN_AGGREGATION_MS: f64 = 0.001;
/// Longest aggregation period: 60 s.
pub const MAX_AGGREGATION_MS: f64 = 60_000.0;
/// Longest run: one day.
pub const MAX_DURATION_S: f64 = 86_400.0;
/// Latest scheduled step: one day after the start.
pub const MAX_STEP_AT_MS: f64 = MAX_DURATION_S * 1e3;
/// Longest busy-wait before an event: the scheduler's idle wake-up
/// period (50 ms); longer would mean spinning all the time.
pub const MAX_SPIN_US: u64 = 50_000;
/// Largest socket buffer asked for: 1 GiB (the kernel caps it lower).
pub const MAX_SOCKET_BUFFER_KB: usize = 1 << 20;

const NS_PER_MS: f64 = 1e6;

/// `text` as a finite number (`nan`, `inf` and overflowing exponents are
/// refused).
pub fn number(text: &str) -> Result<f64, String> {
    let value: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("`{text}` is not a number"))?;
    if !value.is_finite() {
        return Err(format!("`{text}` is not a finite number"));
    }
    Ok(value)
}

/// A rate in Mbit/s as bit/s, within [`MIN_RATE_MBIT`]..=[`MAX_RATE_MBIT`].
pub fn rate_bps(mbit: f64) -> Result<u64, String> {
    if !(MIN_RATE_MBIT..=MAX_RATE_MBIT).contains(&mbit) {
        return Err(format!(
            "rate {mbit:?} Mbit/s: must be from {MIN_RATE_MBIT} (1 kbit/s) to {MAX_RATE_MBIT} (100 Gbit/s)"
        ));
    }
    Ok((mbit * 1e6).round() as u64)
}

/// A one-way delay in ms as ns, within 0..=[`MAX_DELAY_MS`].
pub fn delay_ns(ms: f64) -> Result<Nanos, String> {
    if !(0.0..=MAX_DELAY_MS).contains(&ms) {
        return Err(format!(
            "delay {ms:?} ms: must be from 0 to {MAX_DELAY_MS} (60 s)"
        ));
    }
    Ok((ms * NS_PER_MS).round() as Nanos)
}

/// An aggregation period in ms as ns: 0 (off) or within
/// [`MIN_AGGREGATION_MS`]..=[`MAX_AGGREGATION_MS`] (a period that rounds to
/// 0 ns would silently mean off).
pub fn aggregation_ns(ms: f64) -> Result<Nanos, String> {
    if ms != 0.0 && !(MIN_AGGREGATION_MS..=MAX_AGGREGATION_MS).contains(&ms) {
        return Err(format!(
            "aggregation period {ms:?} ms: must be 0 (off) or from {MIN_AGGREGATION_MS} (1 us) to {MAX_AGGREGATION_MS} (60 s)"
        ));
    }
    Ok((ms * NS_PER_MS).round() as Nanos)
}

/// A drop-tail buffer, 0..=[`MAX_BUFFER_PKTS`] waiting packets (0: only
/// the packet in service).
pub fn buffer_pkts(pkts: usize) -> Result<usize, String> {
    if pkts > MAX_BUFFER_PKTS {
        return Err(format!(
            "buffer {pkts} packets: must be from 0 to {MAX_BUFFER_PKTS}"
        ));
    }
    Ok(pkts)
}

/// A whole number of packets from text (`2.5`, `-1`, `1e3` refused).
pub fn parse_buffer_pkts(text: &str) -> Result<usize, String> {
    let pkts: usize = text.trim().parse().map_err(|_| {
        format!("`{text}` is not a whole number of packets from 0 to {MAX_BUFFER_PKTS}")
    })?;
    buffer_pkts(pkts)
}

/// A random loss rate in [0, 1).
pub fn loss(rate: f64) -> Result<f64, String> {
    if !(0.0..1.0).contains(&rate) {
        return Err(format!("loss rate {rate:?}: must be in [0, 1)"));
    }
    Ok(rate)
}

/// A mean loss burst length, 1..=[`MAX_LOSS_BURST_PKTS`] packets (1:
/// independent losses).
pub fn loss_burst_pkts(pkts: f64) -> Result<f64, String> {
    if !(1.0..=MAX_LOSS_BURST_PKTS).contains(&pkts) {
        return Err(format!(
            "mean loss burst {pkts:?} packets: must be from 1 (independent losses) to {MAX_LOSS_BURST_PKTS}"
        ));
    }
    Ok(pkts)
}

/// Whether the Gilbert model can reach loss rate `loss` with bursts of
/// `burst_pkts` on average: every burst is followed by at least one
/// delivered packet, so the rate is at most B / (B + 1).
pub fn loss_fits_burst(loss: f64, burst_pkts: f64) -> Result<(), String> {
    let most = burst_pkts / (burst_pkts + 1.0);
    if burst_pkts > 1.0 && loss > most {
        return Err(format!(
            "loss rate {loss} with mean loss bursts of {burst_pkts} packets: bursts of B packets \
             allow a loss rate of at most B/(B+1) = {most:.6}"
        ));
    }
    Ok(())
}

/// A run length in seconds, in (0, [`MAX_DURATION_S`]].
pub fn duration_s(s: f64) -> Result<std::time::Duration, String> {
    if !(s > 0.0 && s <= MAX_DURATION_S) {
        return Err(format!(
            "duration {s:?} s: must be above 0 and at most {MAX_DURATION_S} (1 day)"
        ));
    }
    std::time::Duration::try_from_secs_f64(s).map_err(|e| format!("duration {s} s: {e}"))
}

/// When a step happens, in ms after the start, as ns: 0..=[`MAX_STEP_AT_MS`].
pub fn step_at_ns(ms: f64) -> Result<Nanos, String> {
    if !(0.0..=MAX_STEP_AT_MS).contains(&ms) {
        return Err(format!(
            "step time {ms:?} ms: must be from 0 to {MAX_STEP_AT_MS} (1 day)"
        ));
    }
    Ok((ms * NS_PER_MS).round() as Nanos)
}

/// A busy-wait in us as ns, 0..=[`MAX_SPIN_US`].
pub fn spin_ns(us: u64) -> Result<Nanos, String> {
    if us > MAX_SPIN_US {
        return Err(format!(
            "busy-wait {us} us: must be from 0 to {MAX_SPIN_US} (the scheduler's 50 ms idle wake-up)"
        ));
    }
    Ok(us * 1000)
}

/// A socket buffer in KiB as bytes, 0 (the system's default) to
/// [`MAX_SOCKET_BUFFER_KB`].
pub fn socket_buffer_bytes(kb: usize) -> Result<usize, String> {
    if kb > MAX_SOCKET_BUFFER_KB {
        return Err(format!(
            "socket buffer {kb} KiB: must be from 0 (the system's default) to \
             {MAX_SOCKET_BUFFER_KB} (1 GiB)"
        ));
    }
    Ok(kb * 1024)
}

/// Checks a link's parameters in the model's units against the bounds
/// above (what [`crate::Emulator::start`] accepts).
pub fn check_spec(spec: &LinkSpec) -> Result<(), String> {
    let (min_bps, max_bps) = ((MIN_RATE_MBIT * 1e6) as u64, (MAX_RATE_MBIT * 1e6) as u64);
    if !(min_bps..=max_bps).contains(&spec.rate_bps) {
        return Err(format!(
            "rate {} bit/s: must be from {min_bps} to {max_bps}",
            spec.rate_bps
        ));
    }
    let max_delay_ns = (MAX_DELAY_MS * NS_PER_MS) as Nanos;
    if spec.delay_ns > max_delay_ns {
        return Err(format!(
            "delay {} ns: must be at most {max_delay_ns}",
            spec.delay_ns
        ));
    }
    buffer_pkts(spec.buffer_pkts)?;
    loss(spec.loss)?;
    loss_burst_pkts(spec.loss_burst_pkts)?;
    loss_fits_burst(spec.loss, spec.loss_burst_pkts)?;
    let (min_agg_ns, max_agg_ns) = (
        (MIN_AGGREGATION_MS * NS_PER_MS) as Nanos,
        (MAX_AGGREGATION_MS * NS_PER_MS) as Nanos,
    );
    if spec.aggregation_ns != 0 && !(min_agg_ns..=max_agg_ns).contains(&spec.aggregation_ns) {
        return Err(format!(
            "aggregation period {} ns: must be 0 (off) or from {min_agg_ns} to {max_agg_ns}",
            spec.aggregation_ns
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_are_inclusive_and_conversions_exact() {
        assert_eq!(rate_bps(0.001), Ok(1000));
        assert_eq!(rate_bps(100_000.0), Ok(100_000_000_000));
        assert_eq!(rate_bps(2.5), Ok(2_500_000));
        assert!(rate_bps(0.0009).is_err());
        assert!(rate_bps(f64::NAN).is_err());
        assert_eq!(delay_ns(60_000.0), Ok(60_000_000_000));
        assert_eq!(delay_ns(20.0), Ok(20_000_000));
        assert!(delay_ns(1e15).is_err() && delay_ns(-0.5).is_err());
        assert_eq!(aggregation_ns(0.0), Ok(0));
        assert!(aggregation_ns(1e-7).is_err());
        assert!(loss(1.0).is_err() && loss(f64::NAN).is_err() && loss(-0.1).is_err());
        assert!(loss_burst_pkts(0.0).is_err() && loss_burst_pkts(0.5).is_err());
        assert!(loss_fits_burst(0.6, 2.0).is_ok() && loss_fits_burst(0.7, 2.0).is_err());
        assert!(loss_fits_burst(0.99, 1.0).is_ok());
        assert!(duration_s(0.0).is_err() && duration_s(f64::NAN).is_err());
        assert_eq!(spin_ns(50_000), Ok(50_000_000));
        assert!(spin_ns(u64::MAX).is_err());
        assert!(number("nan").is_err() && number("1e999").is_err() && number("x").is_err());
        assert_eq!(parse_buffer_pkts("1000000"), Ok(1_000_000));
        assert!(parse_buffer_pkts("2.5").is_err() && parse_buffer_pkts("-1").is_err());
    }

    #[test]
    fn the_longest_times_stay_far_from_overflow() {
        let spec = LinkSpec::new(
            rate_bps(MIN_RATE_MBIT).unwrap(),
            delay_ns(MAX_DELAY_MS).unwrap(),
            1,
        );
        let run_end = (MAX_DURATION_S * 1e9) as Nanos;
        let t = spec.arrival_ns(run_end + spec.serialization_ns(65_536));
        assert!(t < 1 << 63, "{t}");
    }
}
