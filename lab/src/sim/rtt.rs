//! A flow's network RTT samples in constant memory, whatever the flow's age:
//! count, exact sum and minimum, an HDR histogram for percentiles (3
//! significant digits: within 0.1%), and the minimum of each simulated
//! second (a time series for checks of path changes).

use hdrhistogram::Histogram;

use super::Nanos;

const NANOS_PER_SEC: Nanos = 1_000_000_000;

/// Streaming statistics of one flow's RTT samples (nanoseconds).
#[derive(Clone, Debug)]
pub struct RttStats {
    count: u64,
    sum_ns: u128,
    min_ns: Option<Nanos>,
    histogram: Histogram<u64>,
    /// (second of the run, smallest sample in it), one entry per second
    /// that had samples.
    min_per_second: Vec<(u64, Nanos)>,
}

impl Default for RttStats {
    fn default() -> Self {
        RttStats {
            count: 0,
            sum_ns: 0,
            min_ns: None,
            histogram: Histogram::new(3).expect("3 significant digits are valid"),
            min_per_second: Vec::new(),
        }
    }
}

impl RttStats {
    /// Records a sample taken at `now` (virtual time of the run).
    pub fn record(&mut self, now: Nanos, rtt_ns: Nanos) {
        self.count += 1;
        self.sum_ns += rtt_ns as u128;
        self.min_ns = Some(self.min_ns.map_or(rtt_ns, |m| m.min(rtt_ns)));
        // The histogram resizes itself; a sample of 0 ns is recorded as 1.
        self.histogram
            .record(rtt_ns.max(1))
            .expect("auto-resizing histogram");
        let second = now / NANOS_PER_SEC;
        match self.min_per_second.last_mut() {
            Some((s, min)) if *s == second => *min = (*min).min(rtt_ns),
            _ => self.min_per_second.push((second, rtt_ns)),
        }
    }

    pub fn count(&self) -> u64 {
        self.count
    }

    pub fn min_ns(&self) -> Option<Nanos> {
        self.min_ns
    }

    pub fn mean_ns(&self) -> Option<f64> {
        (self.count > 0).then(|| self.sum_ns as f64 / self.count as f64)
    }

    /// The `q` quantile (nearest rank), to 3 significant digits.
    pub fn quantile_ns(&self, q: f64) -> Option<Nanos> {
        (self.count > 0).then(|| self.histogram.value_at_quantile(q))
    }

    /// The smallest sample of each second of the run that had samples.
    pub fn min_per_second(&self) -> &[(u64, Nanos)] {
        &self.min_per_second
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_count_mean_and_min_and_quantiles_within_a_thousandth() {
        let mut s = RttStats::default();
        assert_eq!(s.mean_ns(), None);
        assert_eq!(s.quantile_ns(0.95), None);
        // 1..=100 ms, one sample every 10 ms of virtual time.
        for i in 1..=100u64 {
            s.record(i * 10_000_000, i * 1_000_000);
        }
        assert_eq!(s.count(), 100);
        assert_eq!(s.min_ns(), Some(1_000_000));
        assert_eq!(s.mean_ns(), Some(50_500_000.0));
        let p95 = s.quantile_ns(0.95).unwrap() as f64;
        assert!((p95 / 95e6 - 1.0).abs() < 1e-3, "{p95}");
        // Seconds 0 (samples 1..=99 ms, every 10 ms) and 1 (100 ms).
        assert_eq!(s.min_per_second(), &[(0, 1_000_000), (1, 100_000_000)]);
    }
}
