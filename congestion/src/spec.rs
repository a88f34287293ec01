//! Controllers by name with `key=value` parameters (scenario files,
//! `--cc-param`, any stack's configuration) mapped onto the configs of this
//! crate. Every key is listed here; an unknown key or
//! a bad value is an error naming the key, the value and what is allowed.
//!
//! `mode=paper` starts from the paper's behaviour (`VegasConfig::paper()`:
//! initial window 2, no pacing, sampler in paper mode); `mode=default` (the
//! default) from the library's robust choices. Explicit keys then override.

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use crate::sampler::ActualBytes;
use crate::sampler::BaseRttMode;
use crate::sampler::RoundRttStat;
use crate::CompatApproach;
use crate::GammaApproach;
use crate::NewReno;
use crate::NewRenoConfig;
use crate::PacingPeriod;
use crate::PtoResponse;
use crate::SamplerConfig;
use crate::SlowStartExitWindow;
use crate::SlowStartGrowth;
use crate::Vegas;
use crate::VegasConfig;

use crate::ParamError;

/// Controller parameters by name, e.g. `alpha=2`, `beta=4`, `mode=paper`.
pub type Params = BTreeMap<String, String>;

/// How a Vegas-family algorithm is composed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Family {
    /// Gallop-Vegas slow start (the `gallop-` prefix).
    pub gallop_slow_start: bool,
    /// Vegas-A congestion avoidance (`vegas-a`).
    pub vegas_a_avoidance: bool,
    /// Reno-compatible alpha/beta (the `-compat` suffix).
    pub reno_compat: bool,
}

/// A name or parameter was rejected: each says which field, which value,
/// what is allowed.
#[derive(Clone, Debug, PartialEq)]
pub enum SpecError {
    /// `name` is not one of [`NAMES`].
    UnknownAlgorithm {
        /// The name asked for.
        name: String,
        /// The valid names, comma separated.
        valid: String,
    },
    /// A parameter is unknown, missing or has a bad value.
    Param {
        /// The parameter's key.
        field: String,
        /// The value given (`(missing)` when absent).
        value: String,
        /// What is allowed instead.
        allowed: String,
    },
}

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SpecError::UnknownAlgorithm { name, valid } => write!(
                f,
                "unknown congestion control algorithm `{name}`; valid: {valid}"
            ),
            SpecError::Param {
                field,
                value,
                allowed,
            } => write!(f, "invalid value `{value}` for `{field}`: {allowed}"),
        }
    }
}

impl std::error::Error for SpecError {}

impl From<ParamError> for SpecError {
    fn from(e: ParamError) -> Self {
        SpecError::Param {
            field: e.field.to_string(),
            value: e.value,
            allowed: e.allowed,
        }
    }
}

/// Keys the Vegas family accepts (`buffer_pkts`, `reno_flows`,
/// `vegas_flows`, `approach` only with a `*-compat` name, and then all
/// required).
pub const VEGAS_PARAMS: &[&str] = &[
    "mode",
    "buffer_pkts",
    "reno_flows",
    "vegas_flows",
    "approach",
    "gamma_rate",
    "gamma_approach",
    "alpha",
    "beta",
    "gamma",
    "slow_start_exit_window",
    "slow_start_growth",
    "initial_cwnd_pkts",
    "loss_reduction_factor",
    "pto_response",
    "pacing_gain",
    "pacing_period",
    "pacing_headroom_pkts",
    "rtt_resolution_us",
    "subtract_ack_delay",
    "round_rtt",
    "min_round_samples",
    "min_round_bytes",
    "base_rtt_window_ms",
    "base_rtt_idle_reset_ms",
    "actual_bytes",
    "require_cwnd_limited",
    "aggregation_aware",
    "subtract_delay_noise",
    "whole_datagrams",
    "trend_resolution_pkts",
    "round_diff",
    "coexist",
    "fair_share",
];

/// Keys `newreno` accepts.
pub const NEWRENO_PARAMS: &[&str] = &[
    "initial_cwnd_pkts",
    "loss_reduction_factor",
    "pacing_gain",
    "reno_1995",
    "whole_datagrams",
];

fn bad(field: &str, value: &str, allowed: &str) -> SpecError {
    SpecError::Param {
        field: field.to_string(),
        value: value.to_string(),
        allowed: allowed.to_string(),
    }
}

fn parse<T: FromStr>(field: &str, value: &str, allowed: &str) -> Result<T, SpecError> {
    value.parse().map_err(|_| bad(field, value, allowed))
}

fn parse_bool(field: &str, value: &str) -> Result<bool, SpecError> {
    match value {
        "true" | "1" | "on" | "yes" => Ok(true),
        "false" | "0" | "off" | "no" => Ok(false),
        _ => Err(bad(field, value, "true or false")),
    }
}

/// `pacing_gain=none` (or 0) turns pacing off.
fn parse_pacing(value: &str) -> Result<Option<f64>, SpecError> {
    if value == "none" || value == "off" {
        return Ok(None);
    }
    let gain: f64 = parse(
        "pacing_gain",
        value,
        "a number from 0.1 to 10, or none (0 = none)",
    )?;
    Ok((gain != 0.0).then_some(gain))
}

fn check_keys(params: &Params, allowed: &[&str], algorithm: &str) -> Result<(), SpecError> {
    for (key, value) in params {
        if !allowed.contains(&key.as_str()) {
            return Err(bad(
                key,
                value,
                &format!("not a {algorithm} parameter; valid: {}", allowed.join(", ")),
            ));
        }
    }
    Ok(())
}

/// The Vegas-family controller `name` (composed as `family`) for `params`.
pub fn vegas(
    family: Family,
    name: &str,
    params: &Params,
    initial_cwnd_pkts: usize,
    max_datagram_size: usize,
) -> Result<Vegas, SpecError> {
    check_keys(params, VEGAS_PARAMS, name)?;
    let mut c = match params.get("mode").map(String::as_str) {
        None | Some("default") => VegasConfig {
            initial_cwnd_pkts,
            ..VegasConfig::default()
        },
        Some("paper") => VegasConfig::paper(),
        Some("naive") => VegasConfig {
            sampler: SamplerConfig::naive(),
            expected_window: crate::vegas::ExpectedWindow::Cwnd,
            ..VegasConfig::paper()
        },
        Some(other) => return Err(bad("mode", other, "paper, naive or default")),
    };
    if family.gallop_slow_start {
        c = c.with_gallop();
    }
    if family.vegas_a_avoidance {
        c = c.with_vegas_a();
    }
    const COMPAT_KEYS: [&str; 4] = ["buffer_pkts", "reno_flows", "vegas_flows", "approach"];
    if family.reno_compat {
        let get = |key: &str, allowed: &str| -> Result<String, SpecError> {
            params
                .get(key)
                .cloned()
                .ok_or_else(|| bad(key, "(missing)", &format!("{name} needs {allowed}")))
        };
        let buffer_pkts = get("buffer_pkts", "the bottleneck buffer in packets")?;
        let reno_flows = get("reno_flows", "the number of Reno flows")?;
        let vegas_flows = get("vegas_flows", "the number of Vegas flows")?;
        let approach = get("approach", "approach = 1 or 2")?;
        let approach: u8 = parse("approach", &approach, "1 or 2")?;
        c = c.with_compat(
            parse("buffer_pkts", &buffer_pkts, "a number of packets > 0")?,
            parse("reno_flows", &reno_flows, "an integer >= 1")?,
            parse("vegas_flows", &vegas_flows, "an integer >= 1")?,
            CompatApproach::try_from(approach)?,
        );
    } else if let Some(key) = COMPAT_KEYS.iter().find(|k| params.contains_key(**k)) {
        return Err(bad(
            key,
            &params[*key],
            &format!("only the *-compat algorithms take {key}; use {name}-compat"),
        ));
    }
    match (params.get("gamma_rate"), params.get("gamma_approach")) {
        (Some(rate), approach) => {
            let rate: f64 = parse("gamma_rate", rate, "an available rate in packets/s > 0")?;
            let approach = match approach {
                Some(a) => {
                    let a: u8 = parse("gamma_approach", a, "1 or 2")?;
                    GammaApproach::try_from(a)?
                }
                None => GammaApproach::Basic,
            };
            c = c.with_selected_gamma(rate, approach);
        }
        (None, Some(a)) => {
            return Err(bad(
                "gamma_approach",
                a,
                "set gamma_rate too (gamma selection needs the available rate)",
            ))
        }
        (None, None) => {}
    }
    c.max_datagram_size = max_datagram_size;
    for (key, v) in params {
        let v = v.as_str();
        match key.as_str() {
            "mode" | "buffer_pkts" | "reno_flows" | "vegas_flows" | "approach" | "gamma_rate"
            | "gamma_approach" => {}
            "alpha" => c.alpha_pkts = parse(key, v, "a number of packets > 0")?,
            "beta" => c.beta_pkts = parse(key, v, "a number of packets >= alpha")?,
            "gamma" => c.gamma_pkts = parse(key, v, "a number of packets > 0")?,
            "slow_start_exit_window" => {
                c.slow_start_exit_window = match v {
                    "cut_eighth" => SlowStartExitWindow::CutEighth,
                    "pipe" => SlowStartExitWindow::Pipe,
                    _ => return Err(bad(key, v, "cut_eighth or pipe")),
                }
            }
            "slow_start_growth" => {
                c.slow_start_growth = match v {
                    "every_round" => SlowStartGrowth::EveryRound,
                    "every_other_round" => SlowStartGrowth::EveryOtherRound,
                    _ => return Err(bad(key, v, "every_round or every_other_round")),
                }
            }
            "initial_cwnd_pkts" => {
                c.initial_cwnd_pkts = parse(key, v, "an integer from 2 to 100000")?
            }
            "loss_reduction_factor" => {
                c.loss_reduction_factor = parse(key, v, "a number in (0, 1)")?
            }
            "pto_response" => {
                c.pto_response = match v {
                    "restart_slow_start" => PtoResponse::RestartSlowStart,
                    "ignore" => PtoResponse::Ignore,
                    _ => return Err(bad(key, v, "restart_slow_start or ignore")),
                }
            }
            "pacing_gain" => c.pacing_gain = parse_pacing(v)?,
            "pacing_period" => {
                c.pacing_period = match v {
                    "smoothed_rtt" => PacingPeriod::SmoothedRtt,
                    "credit_cycle" => PacingPeriod::CreditCycle,
                    _ => return Err(bad(key, v, "smoothed_rtt or credit_cycle")),
                }
            }
            "pacing_headroom_pkts" => {
                c.pacing_headroom_pkts = match v {
                    "none" | "off" => None,
                    _ => Some(parse(key, v, "a number of packets > 0, or none")?),
                }
            }
            "rtt_resolution_us" => {
                let us: u64 = parse(key, v, "microseconds (0: the RTTs as measured)")?;
                c.rtt_resolution = (us > 0).then(|| Duration::from_micros(us));
            }
            "subtract_ack_delay" => c.sampler.subtract_ack_delay = parse_bool(key, v)?,
            "round_rtt" => {
                c.sampler.round_rtt = match v {
                    "min" => RoundRttStat::Min,
                    "mean" => RoundRttStat::Mean,
                    _ => return Err(bad(key, v, "min or mean")),
                }
            }
            "min_round_samples" => c.sampler.min_round_samples = parse(key, v, "an integer >= 1")?,
            "min_round_bytes" => c.sampler.min_round_bytes = parse(key, v, "an integer >= 0")?,
            "base_rtt_window_ms" => {
                let ms: u64 = parse(key, v, "milliseconds (0: never expires)")?;
                c.sampler.base_rtt = if ms == 0 {
                    BaseRttMode::Lifetime
                } else {
                    BaseRttMode::Windowed {
                        window: Duration::from_millis(ms),
                    }
                };
            }
            "base_rtt_idle_reset_ms" => {
                let ms: u64 = parse(key, v, "milliseconds (0: never)")?;
                c.sampler.base_rtt_idle_reset = (ms > 0).then(|| Duration::from_millis(ms));
            }
            "actual_bytes" => {
                c.sampler.actual_bytes = match v {
                    "sent" => ActualBytes::Sent,
                    "acked" => ActualBytes::Acked,
                    "delivered" => ActualBytes::Delivered,
                    "acked_over_rtt" => ActualBytes::AckedOverRoundRtt,
                    _ => return Err(bad(key, v, "sent, acked, delivered or acked_over_rtt")),
                }
            }
            "require_cwnd_limited" => c.sampler.require_cwnd_limited = parse_bool(key, v)?,
            "aggregation_aware" => c.sampler.aggregation_aware = parse_bool(key, v)?,
            "subtract_delay_noise" => c.sampler.subtract_delay_noise = parse_bool(key, v)?,
            "whole_datagrams" => c.whole_datagrams = parse_bool(key, v)?,
            "round_diff" => c.round_diff = parse_bool(key, v)?,
            "coexist" => c.coexist = parse_bool(key, v)?,
            "fair_share" => c.fair_share = parse_bool(key, v)?,
            "trend_resolution_pkts" => {
                c.trend_resolution_pkts = parse(key, v, "a number of packets per round, 0 to 100")?
            }
            _ => unreachable!("check_keys lists every key"),
        }
    }
    Ok(Vegas::new(c)?)
}

/// The NewReno controller for `params`.
pub fn newreno(
    params: &Params,
    initial_cwnd_pkts: usize,
    max_datagram_size: usize,
) -> Result<NewReno, SpecError> {
    check_keys(params, NEWRENO_PARAMS, "newreno")?;
    let mut c = NewRenoConfig {
        initial_cwnd_pkts,
        max_datagram_size,
        ..NewRenoConfig::default()
    };
    // `reno_1995 = true` is a preset the other keys may then adjust.
    if let Some(v) = params.get("reno_1995") {
        if parse_bool("reno_1995", v.as_str())? {
            c = NewRenoConfig {
                max_datagram_size,
                ..NewRenoConfig::reno_1995()
            };
        }
    }
    for (key, v) in params {
        let v = v.as_str();
        match key.as_str() {
            "initial_cwnd_pkts" => {
                c.initial_cwnd_pkts = parse(key, v, "an integer from 2 to 100000")?
            }
            "loss_reduction_factor" => {
                c.loss_reduction_factor = parse(key, v, "a number in (0, 1)")?
            }
            "pacing_gain" => c.pacing_gain = parse_pacing(v)?,
            "whole_datagrams" => c.whole_datagrams = parse_bool(key, v)?,
            "reno_1995" => {}
            _ => unreachable!("check_keys lists every key"),
        }
    }
    Ok(NewReno::new(c)?)
}

/// The names [`build`] knows: the Vegas family (composed as [`family`]
/// says) and `newreno`.
pub const NAMES: [&str; 9] = [
    crate::vegas::FAMILY_NAMES[0],
    crate::vegas::FAMILY_NAMES[1],
    crate::vegas::FAMILY_NAMES[2],
    crate::vegas::FAMILY_NAMES[3],
    crate::vegas::FAMILY_NAMES[4],
    crate::vegas::FAMILY_NAMES[5],
    crate::vegas::FAMILY_NAMES[6],
    crate::vegas::FAMILY_NAMES[7],
    "newreno",
];

/// The composition of a Vegas-family name (`gallop-` Gallop-Vegas slow
/// start, `vegas-a` Vegas-A avoidance, `-compat` Reno-compatible
/// alpha/beta), or None for any other name.
pub fn family(name: &str) -> Option<Family> {
    if !crate::vegas::FAMILY_NAMES.contains(&name) {
        return None;
    }
    let (rest, gallop_slow_start) = match name.strip_prefix("gallop-") {
        Some(rest) => (rest, true),
        None => (name, false),
    };
    let (rest, reno_compat) = match rest.strip_suffix("-compat") {
        Some(rest) => (rest, true),
        None => (rest, false),
    };
    Some(Family {
        gallop_slow_start,
        vegas_a_avoidance: rest == "vegas-a",
        reno_compat,
    })
}

/// The controller named `name` (one of [`NAMES`]) with `params`, for a
/// path whose stack starts at `initial_cwnd_pkts` datagrams of
/// `max_datagram_size` bytes: what a stack's adapter calls.
pub fn build(
    name: &str,
    params: &Params,
    initial_cwnd_pkts: usize,
    max_datagram_size: usize,
) -> Result<Box<dyn crate::Controller>, SpecError> {
    if let Some(family) = family(name) {
        return Ok(Box::new(vegas(
            family,
            name,
            params,
            initial_cwnd_pkts,
            max_datagram_size,
        )?));
    }
    if name == "newreno" {
        return Ok(Box::new(newreno(
            params,
            initial_cwnd_pkts,
            max_datagram_size,
        )?));
    }
    Err(SpecError::UnknownAlgorithm {
        name: name.to_string(),
        valid: NAMES.join(", "),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_builds_a_controller_of_that_name() {
        let compat: Params = [
            ("buffer_pkts", "50"),
            ("reno_flows", "1"),
            ("vegas_flows", "1"),
            ("approach", "1"),
        ]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        for name in NAMES {
            let params = if name.ends_with("-compat") {
                compat.clone()
            } else {
                Params::new()
            };
            let c = build(name, &params, 10, 1200).unwrap();
            assert_eq!(c.name(), name);
            assert_eq!(c.cwnd_bytes(), 12_000, "{name}");
        }
        let f = family("gallop-vegas-a-compat").unwrap();
        assert!(f.gallop_slow_start && f.vegas_a_avoidance && f.reno_compat);
        let f = family("vegas").unwrap();
        assert!(!f.gallop_slow_start && !f.vegas_a_avoidance && !f.reno_compat);
        assert_eq!(family("newreno"), None);
        assert_eq!(family("vegas-b"), None);
        let e = build("cubic", &Params::new(), 10, 1200)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("`cubic`") && e.contains("gallop-vegas-a-compat"),
            "{e}"
        );
    }

    fn params(pairs: &[(&str, &str)]) -> Params {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    const PLAIN: Family = Family {
        gallop_slow_start: false,
        vegas_a_avoidance: false,
        reno_compat: false,
    };

    const COMPAT: Family = Family {
        gallop_slow_start: false,
        vegas_a_avoidance: false,
        reno_compat: true,
    };

    #[test]
    fn compat_needs_all_four_keys_and_takes_beta_from_the_formula() {
        let p = params(&[
            ("buffer_pkts", "100"),
            ("reno_flows", "1"),
            ("vegas_flows", "1"),
            ("approach", "2"),
        ]);
        let v = vegas(COMPAT, "vegas-compat", &p, 10, 1200).unwrap();
        // Feng & Vanichpun Table 4: B = 100, Approach 2 gives beta 46, alpha 45.
        assert_eq!(v.beta_pkts(), 46.0);
        assert_eq!(v.alpha_pkts(), 45.0);
        let e = vegas(
            COMPAT,
            "vegas-compat",
            &params(&[("buffer_pkts", "100")]),
            10,
            1200,
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("reno_flows") && e.contains("vegas-compat"),
            "{e}"
        );
        let e = vegas(PLAIN, "vegas", &params(&[("buffer_pkts", "100")]), 10, 1200)
            .unwrap_err()
            .to_string();
        assert!(e.contains("vegas-compat"), "{e}");
        let mut bad_approach = p.clone();
        bad_approach.insert("approach".into(), "3".into());
        let e = vegas(COMPAT, "vegas-compat", &bad_approach, 10, 1200)
            .unwrap_err()
            .to_string();
        assert!(e.contains("approach") && e.contains('3'), "{e}");
    }

    #[test]
    fn gamma_selection_parameters() {
        let v = vegas(
            PLAIN,
            "vegas",
            &params(&[("gamma_rate", "5000"), ("gamma_approach", "2")]),
            10,
            1200,
        )
        .unwrap();
        assert_eq!(v.config().gamma_rate_pkts_per_sec, Some(5000.0));
        assert_eq!(
            v.config().gamma_approach,
            GammaApproach::try_from(2).unwrap()
        );
        let e = vegas(
            PLAIN,
            "vegas",
            &params(&[("gamma_approach", "2")]),
            10,
            1200,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("gamma_rate"), "{e}");
    }

    #[test]
    fn explicit_keys_override_the_mode() {
        let v = vegas(
            PLAIN,
            "vegas",
            &params(&[("mode", "paper"), ("alpha", "2"), ("beta", "4")]),
            10,
            1200,
        )
        .unwrap();
        assert_eq!(v.config().alpha_pkts, 2.0);
        assert_eq!(v.config().beta_pkts, 4.0);
        // The paper's initial window, not quiche's.
        assert_eq!(v.config().initial_cwnd_pkts, 2);
        assert_eq!(v.config().pacing_gain, None);
    }

    #[test]
    fn default_mode_takes_the_stacks_initial_window() {
        let v = vegas(PLAIN, "vegas", &Params::new(), 10, 1350).unwrap();
        assert_eq!(v.config().initial_cwnd_pkts, 10);
        assert_eq!(v.config().max_datagram_size, 1350);
    }

    #[test]
    fn errors_name_field_value_and_what_is_allowed() {
        let e = vegas(
            PLAIN,
            "vegas",
            &params(&[("alpha", "4"), ("beta", "3")]),
            10,
            1200,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("alpha") || e.contains("beta"), "{e}");
        let e = vegas(PLAIN, "vegas", &params(&[("gamma", "NaN")]), 10, 1200)
            .unwrap_err()
            .to_string();
        assert!(e.contains("gamma") && e.contains("NaN"), "{e}");
        let e = vegas(
            PLAIN,
            "vegas",
            &params(&[("round_rtt", "median")]),
            10,
            1200,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("round_rtt") && e.contains("min or mean"), "{e}");
        let e = vegas(
            PLAIN,
            "vegas",
            &params(&[("pacing_period", "rtt")]),
            10,
            1200,
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("pacing_period") && e.contains("smoothed_rtt or credit_cycle"),
            "{e}"
        );
        let e = vegas(
            PLAIN,
            "vegas",
            &params(&[("aggregation_aware", "maybe")]),
            10,
            1200,
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("aggregation_aware") && e.contains("maybe"),
            "{e}"
        );
        let e = vegas(PLAIN, "vegas", &params(&[("alpah", "1")]), 10, 1200)
            .unwrap_err()
            .to_string();
        assert!(e.contains("alpah") && e.contains("alpha"), "{e}");
        let e = newreno(&params(&[("alpha", "1")]), 10, 1200)
            .unwrap_err()
            .to_string();
        assert!(e.contains("not a newreno parameter"), "{e}");
    }

    #[test]
    fn aggregation_and_pacing_period_switch_back() {
        let v = vegas(PLAIN, "vegas", &params(&[]), 10, 1200).unwrap();
        assert!(v.config().sampler.aggregation_aware);
        assert_eq!(v.config().pacing_period, PacingPeriod::CreditCycle);
        let v = vegas(
            PLAIN,
            "vegas",
            &params(&[
                ("aggregation_aware", "false"),
                ("pacing_period", "smoothed_rtt"),
            ]),
            10,
            1200,
        )
        .unwrap();
        assert!(!v.config().sampler.aggregation_aware);
        assert_eq!(v.config().pacing_period, PacingPeriod::SmoothedRtt);
        let paper = vegas(PLAIN, "vegas", &params(&[("mode", "paper")]), 10, 1200).unwrap();
        assert!(!paper.config().sampler.aggregation_aware);
    }

    #[test]
    fn slow_start_exit_window_is_the_pipe_by_default_and_the_cut_in_paper_mode() {
        let exit = |p: &[(&str, &str)]| {
            vegas(PLAIN, "vegas", &params(p), 10, 1200).map(|v| v.config().slow_start_exit_window)
        };
        assert_eq!(exit(&[]).unwrap(), SlowStartExitWindow::Pipe);
        assert_eq!(
            exit(&[("mode", "paper")]).unwrap(),
            SlowStartExitWindow::CutEighth
        );
        assert_eq!(
            exit(&[("slow_start_exit_window", "cut_eighth")]).unwrap(),
            SlowStartExitWindow::CutEighth
        );
        let e = exit(&[("slow_start_exit_window", "half")])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("slow_start_exit_window") && e.contains("cut_eighth or pipe"),
            "{e}"
        );
    }

    #[test]
    fn rtt_resolution_is_set_in_microseconds_or_off() {
        let resolution = |value: &str| {
            vegas(
                PLAIN,
                "vegas",
                &params(&[("rtt_resolution_us", value)]),
                10,
                1200,
            )
            .map(|v| v.config().rtt_resolution)
        };
        assert_eq!(resolution("0").unwrap(), None);
        assert_eq!(resolution("250").unwrap(), Some(Duration::from_micros(250)));
        let e = resolution("1ms").unwrap_err().to_string();
        assert!(e.contains("rtt_resolution_us") && e.contains("1ms"), "{e}");
        let default = vegas(PLAIN, "vegas", &params(&[]), 10, 1200).unwrap();
        assert_eq!(
            default.config().rtt_resolution,
            Some(Duration::from_millis(1))
        );
    }

    #[test]
    fn pacing_can_be_turned_off() {
        let v = vegas(
            PLAIN,
            "vegas",
            &params(&[("pacing_gain", "none")]),
            10,
            1200,
        )
        .unwrap();
        assert_eq!(v.config().pacing_gain, None);
        let capped = |value: &str| {
            vegas(
                PLAIN,
                "vegas",
                &params(&[("pacing_headroom_pkts", value)]),
                10,
                1200,
            )
            .map(|v| v.config().pacing_headroom_pkts)
        };
        assert_eq!(capped("none").unwrap(), None);
        assert_eq!(capped("2").unwrap(), Some(2.0));
        let e = capped("0").unwrap_err().to_string();
        assert!(
            e.contains("pacing_headroom_pkts") && e.contains("> 0"),
            "{e}"
        );
        let e = capped("lots").unwrap_err().to_string();
        assert!(
            e.contains("pacing_headroom_pkts") && e.contains("none"),
            "{e}"
        );
        let r = newreno(&params(&[("pacing_gain", "2")]), 10, 1200).unwrap();
        assert_eq!(r.config().pacing_gain, Some(2.0));
    }

    #[test]
    fn whole_datagrams_is_a_key_of_every_controller() {
        for name in NAMES {
            let with = |whole: &str| {
                let mut p = params(&[("whole_datagrams", whole)]);
                if name.ends_with("-compat") {
                    p.extend(params(&[
                        ("buffer_pkts", "50"),
                        ("reno_flows", "1"),
                        ("vegas_flows", "1"),
                        ("approach", "1"),
                    ]));
                }
                build(name, &p, 10, 1200)
            };
            let (on, off) = (with("true").unwrap(), with("false").unwrap());
            let in_flight = 1500; // a short packet and a full one
            assert_eq!(on.cwnd_available_bytes(in_flight), 8 * 1200, "{name}");
            assert_eq!(off.cwnd_available_bytes(in_flight), 12_000 - 1500, "{name}");
            let err = with("2").unwrap_err();
            assert!(err.to_string().contains("whole_datagrams"), "{err}");
        }
    }

    #[test]
    fn round_diff_is_off_unless_asked_for() {
        for mode in ["paper", "default"] {
            let cc = vegas(
                family("vegas").unwrap(),
                "vegas",
                &params(&[("mode", mode)]),
                10,
                1200,
            )
            .unwrap();
            assert!(!cc.config().round_diff, "{mode}");
        }
        let on = params(&[("mode", "paper"), ("round_diff", "true")]);
        assert!(
            vegas(family("vegas").unwrap(), "vegas", &on, 10, 1200)
                .unwrap()
                .config()
                .round_diff
        );
        let err = build("vegas", &params(&[("round_diff", "half")]), 10, 1200).unwrap_err();
        assert!(err.to_string().contains("round_diff"), "{err}");
    }

    #[test]
    fn coexistence_fair_share_and_delay_noise_are_on_by_default_off_in_paper_mode_and_switchable() {
        for (mode, on) in [("default", true), ("paper", false), ("naive", false)] {
            for name in ["vegas", "vegas-a", "gallop-vegas", "vegas-compat"] {
                let mut p = params(&[("mode", mode)]);
                if name == "vegas-compat" {
                    for (k, v) in [
                        ("buffer_pkts", "50"),
                        ("reno_flows", "1"),
                        ("vegas_flows", "1"),
                        ("approach", "1"),
                    ] {
                        p.insert(k.into(), v.into());
                    }
                }
                let cc = vegas(family(name).unwrap(), name, &p, 10, 1200).unwrap();
                assert_eq!(cc.config().coexist, on, "{name} {mode}");
                assert_eq!(cc.config().fair_share, on, "{name} {mode}");
                assert_eq!(
                    cc.config().sampler.subtract_delay_noise,
                    on,
                    "{name} {mode}"
                );
            }
        }
        type Switch = fn(&VegasConfig) -> bool;
        let switches: [(&str, &str, Switch); 3] = [
            ("coexist", "maybe", |c| c.coexist),
            ("fair_share", "2", |c| c.fair_share),
            ("subtract_delay_noise", "sometimes", |c| {
                c.sampler.subtract_delay_noise
            }),
        ];
        for (key, bad_value, is_on) in switches {
            let off = params(&[(key, "off")]);
            let cc = vegas(family("vegas").unwrap(), "vegas", &off, 10, 1200).unwrap();
            assert!(!is_on(cc.config()), "{key}=off");
            let err = build("vegas", &params(&[(key, bad_value)]), 10, 1200).unwrap_err();
            assert!(
                err.to_string().contains(key) && err.to_string().contains(bad_value),
                "{err}"
            );
        }
    }

    #[test]
    fn slow_start_doubles_every_other_round_unless_asked_for_every_round() {
        let growth = |p: &[(&str, &str)]| {
            vegas(family("vegas").unwrap(), "vegas", &params(p), 10, 1200)
                .map(|v| v.config().slow_start_growth)
        };
        assert_eq!(growth(&[]).unwrap(), SlowStartGrowth::EveryOtherRound);
        assert_eq!(
            growth(&[("mode", "paper")]).unwrap(),
            SlowStartGrowth::EveryOtherRound
        );
        assert_eq!(
            growth(&[("slow_start_growth", "every_round")]).unwrap(),
            SlowStartGrowth::EveryRound
        );
        assert_eq!(
            growth(&[("mode", "paper"), ("slow_start_growth", "every_round")]).unwrap(),
            SlowStartGrowth::EveryRound
        );
        let e = build(
            "vegas",
            &params(&[("slow_start_growth", "weekly")]),
            10,
            1200,
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("slow_start_growth")
                && e.contains("weekly")
                && e.contains("every_round or every_other_round"),
            "{e}"
        );
    }

    #[test]
    fn trend_resolution_is_exact_in_paper_mode_and_half_a_packet_by_default() {
        let paper = vegas(
            family("vegas-a").unwrap(),
            "vegas-a",
            &params(&[("mode", "paper")]),
            10,
            1200,
        )
        .unwrap();
        assert_eq!(paper.config().trend_resolution_pkts, 0.0);
        let default = vegas(
            family("vegas-a").unwrap(),
            "vegas-a",
            &params(&[]),
            10,
            1200,
        )
        .unwrap();
        assert_eq!(default.config().trend_resolution_pkts, 0.5);
        for bad_value in ["-1", "nan", "101", "x"] {
            let err = build(
                "vegas-a",
                &params(&[("trend_resolution_pkts", bad_value)]),
                10,
                1200,
            )
            .unwrap_err();
            assert!(err.to_string().contains("trend_resolution_pkts"), "{err}");
        }
    }

    #[test]
    fn reno_1995_is_a_newreno_preset_the_other_keys_adjust() {
        let cc = build("newreno", &params(&[("reno_1995", "true")]), 10, 1200).unwrap();
        assert_eq!(cc.cwnd_bytes(), 2 * 1200);
        assert_eq!(
            cc.pacing_rate_bytes_per_sec(Duration::from_millis(100)),
            None
        );
        let four = params(&[("reno_1995", "yes"), ("initial_cwnd_pkts", "4")]);
        assert_eq!(
            build("newreno", &four, 10, 1200).unwrap().cwnd_bytes(),
            4 * 1200
        );
        let off = build("newreno", &params(&[("reno_1995", "false")]), 10, 1200).unwrap();
        assert_eq!(off.cwnd_bytes(), 10 * 1200);
        let err = build("newreno", &params(&[("reno_1995", "maybe")]), 10, 1200).unwrap_err();
        assert!(err.to_string().contains("reno_1995"), "{err}");
    }
}
