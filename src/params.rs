//! `key=value` controller parameters (scenario files, `--cc-param`) mapped
//! onto the `vegas-cc` configs. Every key is listed here; an unknown key or
//! a bad value is an error naming the key, the value and what is allowed.
//!
//! `mode=paper` starts from the paper's behaviour (`VegasConfig::paper()`:
//! initial window 2, no pacing, sampler in paper mode); `mode=default` (the
//! default) from the library's robust choices. Explicit keys then override.

use std::str::FromStr;
use std::time::Duration;

use vegas_cc::sampler::ActualBytes;
use vegas_cc::sampler::BaseRttMode;
use vegas_cc::sampler::RoundRttStat;
use vegas_cc::NewReno;
use vegas_cc::NewRenoConfig;
use vegas_cc::PtoResponse;
use vegas_cc::Vegas;
use vegas_cc::VegasConfig;

use crate::Error;
use crate::Params;

/// Keys `vegas` accepts.
pub const VEGAS_PARAMS: &[&str] = &[
    "mode",
    "alpha",
    "beta",
    "gamma",
    "initial_cwnd_pkts",
    "loss_reduction_factor",
    "pto_response",
    "pacing_gain",
    "subtract_ack_delay",
    "round_rtt",
    "min_round_samples",
    "min_round_bytes",
    "base_rtt_window_ms",
    "base_rtt_idle_reset_ms",
    "actual_bytes",
    "require_cwnd_limited",
];

/// Keys `newreno` accepts.
pub const NEWRENO_PARAMS: &[&str] = &["initial_cwnd_pkts", "loss_reduction_factor", "pacing_gain"];

fn bad(field: &str, value: &str, allowed: &str) -> Error {
    Error::Param {
        field: field.to_string(),
        value: value.to_string(),
        allowed: allowed.to_string(),
    }
}

fn parse<T: FromStr>(field: &str, value: &str, allowed: &str) -> Result<T, Error> {
    value.parse().map_err(|_| bad(field, value, allowed))
}

fn parse_bool(field: &str, value: &str) -> Result<bool, Error> {
    match value {
        "true" | "1" | "on" | "yes" => Ok(true),
        "false" | "0" | "off" | "no" => Ok(false),
        _ => Err(bad(field, value, "true or false")),
    }
}

/// `pacing_gain=none` (or 0) turns pacing off.
fn parse_pacing(value: &str) -> Result<Option<f64>, Error> {
    if value == "none" || value == "off" {
        return Ok(None);
    }
    let gain: f64 = parse("pacing_gain", value, "a number > 0, or none")?;
    Ok((gain != 0.0).then_some(gain))
}

fn check_keys(params: &Params, allowed: &[&str], algorithm: &str) -> Result<(), Error> {
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

/// The Vegas controller for `params`.
pub fn vegas(
    params: &Params,
    initial_cwnd_pkts: usize,
    max_datagram_size: usize,
) -> Result<Vegas, Error> {
    check_keys(params, VEGAS_PARAMS, "vegas")?;
    let mut c = match params.get("mode").map(String::as_str) {
        None | Some("default") => VegasConfig {
            initial_cwnd_pkts,
            ..VegasConfig::default()
        },
        Some("paper") => VegasConfig::paper(),
        Some(other) => return Err(bad("mode", other, "paper or default")),
    };
    c.max_datagram_size = max_datagram_size;
    for (key, v) in params {
        let v = v.as_str();
        match key.as_str() {
            "mode" => {}
            "alpha" => c.alpha_pkts = parse(key, v, "a number of packets > 0")?,
            "beta" => c.beta_pkts = parse(key, v, "a number of packets >= alpha")?,
            "gamma" => c.gamma_pkts = parse(key, v, "a number of packets > 0")?,
            "initial_cwnd_pkts" => c.initial_cwnd_pkts = parse(key, v, "an integer >= 2")?,
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
                    _ => return Err(bad(key, v, "sent or acked")),
                }
            }
            "require_cwnd_limited" => c.sampler.require_cwnd_limited = parse_bool(key, v)?,
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
) -> Result<NewReno, Error> {
    check_keys(params, NEWRENO_PARAMS, "newreno")?;
    let mut c = NewRenoConfig {
        initial_cwnd_pkts,
        max_datagram_size,
        ..NewRenoConfig::default()
    };
    for (key, v) in params {
        let v = v.as_str();
        match key.as_str() {
            "initial_cwnd_pkts" => c.initial_cwnd_pkts = parse(key, v, "an integer >= 2")?,
            "loss_reduction_factor" => {
                c.loss_reduction_factor = parse(key, v, "a number in (0, 1)")?
            }
            "pacing_gain" => c.pacing_gain = parse_pacing(v)?,
            _ => unreachable!("check_keys lists every key"),
        }
    }
    Ok(NewReno::new(c)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(pairs: &[(&str, &str)]) -> Params {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn explicit_keys_override_the_mode() {
        let v = vegas(
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
        let v = vegas(&Params::new(), 10, 1350).unwrap();
        assert_eq!(v.config().initial_cwnd_pkts, 10);
        assert_eq!(v.config().max_datagram_size, 1350);
    }

    #[test]
    fn errors_name_field_value_and_what_is_allowed() {
        let e = vegas(&params(&[("alpha", "4"), ("beta", "3")]), 10, 1200)
            .unwrap_err()
            .to_string();
        assert!(e.contains("alpha") || e.contains("beta"), "{e}");
        let e = vegas(&params(&[("gamma", "NaN")]), 10, 1200)
            .unwrap_err()
            .to_string();
        assert!(e.contains("gamma") && e.contains("NaN"), "{e}");
        let e = vegas(&params(&[("round_rtt", "median")]), 10, 1200)
            .unwrap_err()
            .to_string();
        assert!(e.contains("round_rtt") && e.contains("min or mean"), "{e}");
        let e = vegas(&params(&[("alpah", "1")]), 10, 1200)
            .unwrap_err()
            .to_string();
        assert!(e.contains("alpah") && e.contains("alpha"), "{e}");
        let e = newreno(&params(&[("alpha", "1")]), 10, 1200)
            .unwrap_err()
            .to_string();
        assert!(e.contains("not a newreno parameter"), "{e}");
    }

    #[test]
    fn pacing_can_be_turned_off() {
        let v = vegas(&params(&[("pacing_gain", "none")]), 10, 1200).unwrap();
        assert_eq!(v.config().pacing_gain, None);
        let r = newreno(&params(&[("pacing_gain", "2")]), 10, 1200).unwrap();
        assert_eq!(r.config().pacing_gain, Some(2.0));
    }
}
