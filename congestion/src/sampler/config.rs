//! What the sampler measures and how: [`SamplerConfig`] with its paper,
//! robust default and naive settings, and the choices it is made of.

use std::time::Duration;

use crate::ParamError;

use super::DEFAULT_BASE_RTT_WINDOW;
use super::DEFAULT_IDLE_RESET;
use super::DEFAULT_MIN_ROUND_BYTES;
use super::DEFAULT_MIN_ROUND_SAMPLES;
use super::PAPER_MIN_ROUND_SAMPLES;

/// Which statistic of a round's RTT samples is its `round_rtt`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RoundRttStat {
    /// Smallest sample in the round (Linux `tcp_vegas.c` `minRTT`).
    Min,
    /// Mean of the samples: the "average RTT" of the actual implementation
    /// that Vanichpun & Feng (section III) and Ho, Chan & Chen
    /// (Gallop-Vegas, section IV-A) assume.
    Mean,
    /// One timed packet per round: the round's distinguished packet (the
    /// first it sent), from its send to the ACK that acknowledges it.
    /// Brakmo & Peterson III-B: "recording the sending time for a
    /// distinguished segment ... computing the RTT for the distinguished
    /// segment when its acknowledgment arrives ... once per round-trip
    /// time", as BSD timed one segment per RTT. Sent ahead of the round's
    /// burst, it carries none of the queue the burst builds. A round whose
    /// end has no timed packet (a thin round stretched past it) uses the
    /// mean.
    Distinguished,
}

/// How BaseRTT forgets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BaseRttMode {
    /// Minimum of all samples; never expires (III-B).
    Lifetime,
    /// Minimum of the samples of the last `window`.
    Windowed {
        /// How far back the minimum looks.
        window: Duration,
    },
}

/// Which bytes make the Actual rate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ActualBytes {
    /// Bytes acknowledged in the round over the round's RTT (`round_rtt`):
    /// Actual = W / D of Gallop-Vegas section II and Vanichpun & Feng section III (the
    /// paper mode).
    AckedOverRoundRtt,
    /// Bytes sent in the round over the round's interval (III-B "bytes
    /// transmitted"; the paper's measurement).
    Sent,
    /// Bytes acknowledged in the round over the round's interval.
    Acked,
    /// Bytes delivered (acknowledged) in the round over the span of their
    /// send times: from the send of the largest packet acknowledged when the
    /// previous round ended to the send of the largest packet acknowledged
    /// when this one ends. Both ends are the sender's own timestamps of the
    /// packets whose delivery is counted, so thinned, delayed, aggregated
    /// or bunched ACKs change neither the bytes nor the span (the default).
    Delivered,
}

/// What ends a round.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RoundEnd {
    /// The ACK of the distinguished packet or of a later one (III-B).
    PacketNumber,
    /// As many ACK frames as packets were sent in the round: the naive
    /// reading that assumes one ACK per packet. With an ACK every N packets
    /// a round lasts N RTTs. Kept only to measure the difference.
    AckCount,
}

/// Sampler options. [`SamplerConfig::paper`] measures as the paper does;
/// [`SamplerConfig::default`] is the robust setting for real paths.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SamplerConfig {
    /// Subtract the peer's ack delay from RTT samples (RFC 9002 5.3).
    pub subtract_ack_delay: bool,
    /// Statistic reported as a round's RTT (congestion avoidance).
    pub round_rtt: RoundRttStat,
    /// Statistic of a round's RTT samples that slow start judges Diff by.
    /// In slow start the window grows within the round, so the samples a
    /// round collects span an empty queue (its first packets) to a full one
    /// (its last): the minimum misses the queue a doubling built.
    pub slow_start_round_rtt: RoundRttStat,
    /// Extend a round that has fewer RTT samples than this (>= 1).
    pub min_round_samples: u32,
    /// Extend a round whose Actual is based on fewer bytes than this.
    pub min_round_bytes: u64,
    /// How BaseRTT forgets.
    pub base_rtt: BaseRttMode,
    /// BaseRTT only from samples of full-sized packets, once there is one
    /// (module documentation).
    pub base_rtt_full_sized_only: bool,
    /// Forget BaseRTT when sending restarts after nothing was in flight for
    /// at least this long. None: never.
    pub base_rtt_idle_reset: Option<Duration>,
    /// Which bytes make the Actual rate.
    pub actual_bytes: ActualBytes,
    /// Mark rounds that did not use the window as not usable.
    pub require_cwnd_limited: bool,
    /// What ends a round.
    pub round_end: RoundEnd,
    /// Read the round's RTT from hold bounds when the path aggregates ACKs
    /// (module documentation, "ACK aggregation").
    pub aggregation_aware: bool,
    /// Judge slow start's round RTT less the path's delay noise
    /// ([`RoundSampler::delay_noise`]); off in paper mode (the papers'
    /// links have none).
    pub subtract_delay_noise: bool,
}

impl SamplerConfig {
    /// Whether a round's RTT, in slow start or after, is its distinguished
    /// packet's ([`RoundRttStat::Distinguished`]).
    pub(super) fn times_distinguished_packet(&self) -> bool {
        self.round_rtt == RoundRttStat::Distinguished
            || self.slow_start_round_rtt == RoundRttStat::Distinguished
    }

    /// The paper's measurement (III-B): raw RTT samples, BaseRTT the minimum
    /// ever seen, one sample per round; rounds that did not use the window
    /// (the QUIC handshake) are ignored. The round RTT is the mean and
    /// Actual = W / D, Diff = W (1 - d / D) (Gallop-Vegas II and IV-A,
    /// Vanichpun & Feng III: the papers' model of the implementation).
    pub fn paper() -> Self {
        SamplerConfig {
            subtract_ack_delay: false,
            round_rtt: RoundRttStat::Mean,
            slow_start_round_rtt: RoundRttStat::Mean,
            min_round_samples: PAPER_MIN_ROUND_SAMPLES,
            min_round_bytes: 0,
            base_rtt: BaseRttMode::Lifetime,
            base_rtt_full_sized_only: true,
            base_rtt_idle_reset: None,
            actual_bytes: ActualBytes::AckedOverRoundRtt,
            // The papers' sources always have data. A QUIC connection's
            // first rounds carry the handshake and then wait a round trip
            // for the request: without gating, their tiny Actual would read
            // as a Diff of several packets and end slow start at once.
            require_cwnd_limited: true,
            round_end: RoundEnd::PacketNumber,
            aggregation_aware: false,
            subtract_delay_noise: false,
        }
    }

    /// A naive measurement, for comparison only: raw per-packet RTT (no ACK
    /// delay correction, round RTT = mean), rounds that end after one ACK
    /// per packet sent, Actual = bytes sent / interval, no gating.
    pub fn naive() -> Self {
        SamplerConfig {
            round_rtt: RoundRttStat::Mean,
            round_end: RoundEnd::AckCount,
            require_cwnd_limited: false,
            actual_bytes: ActualBytes::Sent,
            base_rtt_full_sized_only: false,
            ..SamplerConfig::paper()
        }
    }

    /// Checks every field; the error names the first field that is wrong.
    pub fn validate(&self) -> Result<(), ParamError> {
        if self.min_round_samples == 0 {
            return Err(ParamError::new(
                "sampler.min_round_samples",
                self.min_round_samples,
                "an integer >= 1",
            ));
        }
        if let BaseRttMode::Windowed { window } = self.base_rtt {
            if window.is_zero() {
                return Err(ParamError::new(
                    "sampler.base_rtt_window",
                    format!("{window:?}"),
                    "a positive duration",
                ));
            }
        }
        if let Some(idle) = self.base_rtt_idle_reset {
            if idle.is_zero() {
                return Err(ParamError::new(
                    "sampler.base_rtt_idle_reset",
                    format!("{idle:?}"),
                    "a positive duration, or none",
                ));
            }
        }
        Ok(())
    }
}

impl Default for SamplerConfig {
    /// Robust: ack delay removed, windowed BaseRTT forgotten after idle,
    /// at least 3 samples per round, gating on.
    fn default() -> Self {
        SamplerConfig {
            subtract_ack_delay: true,
            round_rtt: RoundRttStat::Min,
            slow_start_round_rtt: RoundRttStat::Mean,
            min_round_samples: DEFAULT_MIN_ROUND_SAMPLES,
            min_round_bytes: DEFAULT_MIN_ROUND_BYTES,
            base_rtt: BaseRttMode::Windowed {
                window: DEFAULT_BASE_RTT_WINDOW,
            },
            // A windowed BaseRTT forgets the handshake's small packets
            // within one window; kept off so the default is unchanged.
            base_rtt_full_sized_only: false,
            base_rtt_idle_reset: Some(DEFAULT_IDLE_RESET),
            actual_bytes: ActualBytes::Delivered,
            require_cwnd_limited: true,
            round_end: RoundEnd::PacketNumber,
            aggregation_aware: true,
            subtract_delay_noise: true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sampler::RoundSampler;
    use crate::test_sender::MDS;

    #[test]
    fn invalid_sampler_params_are_rejected_naming_the_field() {
        let config = SamplerConfig {
            min_round_samples: 0,
            ..SamplerConfig::default()
        };
        assert_eq!(
            RoundSampler::new(config, MDS).unwrap_err().field,
            "sampler.min_round_samples"
        );
        let config = SamplerConfig {
            base_rtt: BaseRttMode::Windowed {
                window: Duration::ZERO,
            },
            ..SamplerConfig::default()
        };
        assert_eq!(
            config.validate().unwrap_err().field,
            "sampler.base_rtt_window"
        );
    }
}
