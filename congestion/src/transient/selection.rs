//! Gamma selection (Vanichpun & Feng section IV-B, eq. 12 and 14-15): the
//! part of the transient model a controller runs. [`crate::vegas::Vegas`]
//! calls [`select_gamma_for_available_rate`] when it picks gamma from the
//! available rate ([`GammaApproach`]); the slow-start window sequences
//! ([`VegasSlowStart`]) and the input checks are shared with the analytic
//! models (`analytic.rs`), which build on this module. The interpretation
//! choices are listed in the [`crate::transient`] documentation.

use crate::error::ParamError;

pub(super) fn check_positive(field: &'static str, value: f64) -> Result<f64, ParamError> {
    if value.is_finite() && value > 0.0 {
        Ok(value)
    } else {
        Err(ParamError::new(field, value, "a finite number > 0"))
    }
}

pub(super) fn check_non_negative(field: &'static str, value: f64) -> Result<f64, ParamError> {
    if value.is_finite() && value >= 0.0 {
        Ok(value)
    } else {
        Err(ParamError::new(field, value, "a finite number >= 0"))
    }
}

/// Target window W^ = lambda d + alpha (packets), eq. 12: the steady-state
/// window at rate lambda with Delta = alpha packets queued.
pub fn target_window_pkts(
    available_rate_pkts_per_sec: f64,
    base_rtt_secs: f64,
    alpha_pkts: f64,
) -> Result<f64, ParamError> {
    let rate = check_positive("available_rate_pkts_per_sec", available_rate_pkts_per_sec)?;
    let base_rtt_secs = check_positive("base_rtt_secs", base_rtt_secs)?;
    let alpha_pkts = check_non_negative("alpha_pkts", alpha_pkts)?;
    Ok(rate * base_rtt_secs + alpha_pkts)
}

/// Vegas slow-start window sequence W_1, W_2, ... (rounds from 1): the
/// window doubles every other round, so W_i = W_{i+1} for odd i.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum VegasSlowStart {
    /// ns-2's Vegas as the paper models it, eq. 16: W_1 = W_2 = 1 and
    /// W_i = 3 * 2^floor((i - 3) / 2) for i >= 3 (1, 1, 3, 3, 6, 6, 12, ...).
    /// Table I and the example of section V-D use this sequence.
    Ns2,
    /// W_i = W_1 * 2^floor((i - 1) / 2): doubling every other round from
    /// W_1 (section IV-B, "determined based upon the knowledge of W_1").
    DoublingEveryOtherRound {
        /// W_1, in packets.
        initial_window_pkts: f64,
    },
}

impl VegasSlowStart {
    pub(super) fn validate(self) -> Result<(), ParamError> {
        if let VegasSlowStart::DoublingEveryOtherRound {
            initial_window_pkts,
        } = self
        {
            check_positive("initial_window_pkts", initial_window_pkts)?;
        }
        Ok(())
    }

    /// W_round; `round` >= 1, sequence already validated.
    pub(super) fn window_unchecked(self, round: u32) -> f64 {
        match self {
            VegasSlowStart::Ns2 if round <= 2 => 1.0,
            // Eq. 16.
            VegasSlowStart::Ns2 => 3.0 * f64::from((round - 3) / 2).exp2(),
            VegasSlowStart::DoublingEveryOtherRound {
                initial_window_pkts,
            } => initial_window_pkts * f64::from((round - 1) / 2).exp2(),
        }
    }

    /// Window W_round (packets) of slow-start round `round` (from 1).
    pub fn window_pkts(self, round: u32) -> Result<f64, ParamError> {
        self.validate()?;
        if round == 0 {
            return Err(ParamError::new("round", round, "a round number >= 1"));
        }
        Ok(self.window_unchecked(round))
    }
}

/// The two gamma-selection rules of section IV-B.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GammaApproach {
    /// Approach 1, "Basic", eq. 14: stop at W_i when
    /// W^ is in [7/8 W_i, 7/8 W_{i+2}), then increase linearly.
    Basic,
    /// Approach 2, "Enhanced", eq. 15: stop at W_i in the lower half of that
    /// interval and at W_{i+2} (then decrease linearly) in the upper half.
    Enhanced,
}

impl GammaApproach {
    /// `1` (Basic) or `2` (Enhanced).
    pub fn as_str(self) -> &'static str {
        match self {
            GammaApproach::Basic => "1",
            GammaApproach::Enhanced => "2",
        }
    }
}

impl std::fmt::Display for GammaApproach {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for GammaApproach {
    type Err = ParamError;

    /// Accepts `1`, `basic`, `2`, `enhanced` (ASCII case-insensitive).
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text.trim().to_ascii_lowercase().as_str() {
            "1" | "basic" => Ok(GammaApproach::Basic),
            "2" | "enhanced" => Ok(GammaApproach::Enhanced),
            _ => Err(ParamError::new(
                "gamma_approach",
                text,
                "1 (basic, eq. 14) or 2 (enhanced, eq. 15)",
            )),
        }
    }
}

impl TryFrom<u8> for GammaApproach {
    type Error = ParamError;

    /// 1: Approach 1 (eq. 14), 2: Approach 2 (eq. 15).
    fn try_from(number: u8) -> Result<Self, Self::Error> {
        match number {
            1 => Ok(GammaApproach::Basic),
            2 => Ok(GammaApproach::Enhanced),
            _ => Err(ParamError::new(
                "gamma_approach",
                number,
                "1 (basic, eq. 14) or 2 (enhanced, eq. 15)",
            )),
        }
    }
}

/// A gamma chosen by eq. 14 or 15.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GammaChoice {
    /// gamma = max(floor(Wbar^2 / (4 r d + Wbar)), 1): an integer >= 1.
    pub gamma_pkts: f64,
    /// m, the round in which slow start is meant to end.
    pub stop_round: u32,
    /// W_m (packets).
    pub stop_window_pkts: f64,
    /// Wbar_m = (W_{m-2} + W_m) / 2 (packets), used as W*; None when m = 2
    /// (gamma is then the lower bound 1).
    pub averaged_window_pkts: Option<f64>,
}

/// Gamma selection of eq. 14 (Approach 1) or eq. 15 (Approach 2) for a
/// target window W^ (packets; eq. 12, see [`target_window_pkts`]).
///
/// `ack_rate_pkts_per_sec` is the rate r in the denominator 4 r d + Wbar of
/// eq. 10: eq. 14-15 print the available rate lambda there, the paper's
/// example of section V-D uses the bottleneck rate mu_1 (interpretation 2 in
/// the [`crate::transient`] documentation).
pub fn select_gamma(
    approach: GammaApproach,
    target_window_pkts: f64,
    ack_rate_pkts_per_sec: f64,
    base_rtt_secs: f64,
    schedule: VegasSlowStart,
) -> Result<GammaChoice, ParamError> {
    let target = check_positive("target_window_pkts", target_window_pkts)?;
    let rate = check_positive("ack_rate_pkts_per_sec", ack_rate_pkts_per_sec)?;
    let base_rtt_secs = check_positive("base_rtt_secs", base_rtt_secs)?;
    schedule.validate()?;
    let window = |round: u32| schedule.window_unchecked(round);
    // Even i >= 2 with W^ in [7/8 W_i, 7/8 W_{i+2}); i = 2 when W^ lies
    // below 7/8 W_2 (interpretation 3).
    let mut round = 2;
    while target >= 7.0 / 8.0 * window(round + 2) {
        round += 2;
    }
    let stop_round = match approach {
        GammaApproach::Basic => round,
        GammaApproach::Enhanced => {
            // Eq. 15: split at 7/8 (W_i + W_{i+2}) / 2.
            let middle = 7.0 / 8.0 * (window(round) + window(round + 2)) / 2.0;
            if target < middle {
                round
            } else {
                round + 2
            }
        }
    };
    let averaged_window_pkts =
        (stop_round > 2).then(|| (window(stop_round - 2) + window(stop_round)) / 2.0);
    let gamma_pkts = match averaged_window_pkts {
        // Eq. 14 / 15: max(floor(Wbar^2 / (4 r d + Wbar)), 1).
        Some(averaged) => (averaged * averaged / (4.0 * rate * base_rtt_secs + averaged))
            .floor()
            .max(1.0),
        None => 1.0,
    };
    Ok(GammaChoice {
        gamma_pkts,
        stop_round,
        stop_window_pkts: window(stop_round),
        averaged_window_pkts,
    })
}

/// Eq. 12 followed by eq. 14 / 15 exactly as printed: W^ = lambda d + alpha
/// and lambda in the denominator 4 lambda d + Wbar.
pub fn select_gamma_for_available_rate(
    approach: GammaApproach,
    available_rate_pkts_per_sec: f64,
    base_rtt_secs: f64,
    alpha_pkts: f64,
    schedule: VegasSlowStart,
) -> Result<GammaChoice, ParamError> {
    let target = target_window_pkts(available_rate_pkts_per_sec, base_rtt_secs, alpha_pkts)?;
    select_gamma(
        approach,
        target,
        available_rate_pkts_per_sec,
        base_rtt_secs,
        schedule,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ns2_slow_start_sequence_eq_16() {
        let windows: Vec<f64> = (1..=10)
            .map(|round| VegasSlowStart::Ns2.window_pkts(round).unwrap())
            .collect();
        assert_eq!(
            windows,
            [1.0, 1.0, 3.0, 3.0, 6.0, 6.0, 12.0, 12.0, 24.0, 24.0]
        );
        let doubling = VegasSlowStart::DoublingEveryOtherRound {
            initial_window_pkts: 2.0,
        };
        let windows: Vec<f64> = (1..=6)
            .map(|round| doubling.window_pkts(round).unwrap())
            .collect();
        assert_eq!(windows, [2.0, 2.0, 4.0, 4.0, 8.0, 8.0]);
    }

    #[test]
    fn gamma_approach_parses_and_names_the_field() {
        assert_eq!("1".parse::<GammaApproach>(), Ok(GammaApproach::Basic));
        assert_eq!(
            " Enhanced".parse::<GammaApproach>(),
            Ok(GammaApproach::Enhanced)
        );
        assert_eq!(GammaApproach::try_from(2), Ok(GammaApproach::Enhanced));
        assert_eq!(
            "3".parse::<GammaApproach>().unwrap_err().field,
            "gamma_approach"
        );
        assert_eq!(
            GammaApproach::try_from(0).unwrap_err().field,
            "gamma_approach"
        );
        assert_eq!(GammaApproach::Enhanced.to_string(), "2");
    }
}
