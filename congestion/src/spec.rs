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

use crate::gallop::GallopGrowth;
use crate::newreno::NewReno;
use crate::newreno::NewRenoConfig;
use crate::reno_compat::CompatApproach;
use crate::sampler::ActualBytes;
use crate::sampler::BaseRttMode;
use crate::sampler::RoundRttStat;
use crate::sampler::SamplerConfig;
use crate::transient::selection::GammaApproach;
use crate::vegas::PacingPeriod;
use crate::vegas::PtoResponse;
use crate::vegas::SlowStartExitWindow;
use crate::vegas::SlowStartGrowth;
use crate::vegas::Vegas;
use crate::vegas::VegasConfig;

use crate::error::ParamError;

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
    let gain: f64 = parse("pacing_gain", value, PACING_GAIN_VALUES)?;
    Ok((gain != 0.0).then_some(gain))
}

fn check_keys<C>(params: &Params, keys: &[Key<C>], algorithm: &str) -> Result<(), SpecError> {
    for (key, value) in params {
        if !keys.iter().any(|k| k.name == key) {
            let valid: Vec<&str> = keys.iter().map(|k| k.name).collect();
            return Err(bad(
                key,
                value,
                &format!("not a {algorithm} parameter; valid: {}", valid.join(", ")),
            ));
        }
    }
    Ok(())
}

/// The row of `name` in `keys` (a name the table has).
fn key<C>(keys: &'static [Key<C>], name: &str) -> &'static Key<C> {
    keys.iter()
        .find(|k| k.name == name)
        .expect("a key of the table")
}

/// What `pacing_gain` takes, for both controllers.
const PACING_GAIN_VALUES: &str = "a number from 0.1 to 10, or none (0 = none)";

/// Who a key is for: [`Tier::User`], the dozen the README lists;
/// [`Tier::Expert`], the rest (`docs/parameters.md`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tier {
    /// A key a user of the library would set.
    User,
    /// A measurement or tuning key, for experiments.
    Expert,
}

/// Parses a value and sets it on a configuration `C`.
type Setter<C> = fn(&mut C, &Key<C>, &str) -> Result<(), SpecError>;

/// One `key=value` parameter of a controller configuration `C`: the row
/// of the table that parses it, checks it and documents it.
pub struct Key<C: 'static> {
    /// The key.
    pub name: &'static str,
    /// The README's tier or the expert rest.
    pub tier: Tier,
    /// The values it takes: the docs' column and the error's "allowed".
    pub values: &'static str,
    /// One line: what it does.
    pub doc: &'static str,
    /// Sets it on a configuration; None for the keys read before the
    /// others (the mode, the `*-compat` keys, gamma selection, presets).
    set: Option<Setter<C>>,
    /// Its value in a configuration made by a mode (`default`, `paper`).
    show: fn(&C, &str) -> String,
}

impl<C> Key<C> {
    fn parse<T: FromStr>(&self, value: &str) -> Result<T, SpecError> {
        parse(self.name, value, self.values)
    }

    fn parse_bool(&self, value: &str) -> Result<bool, SpecError> {
        parse_bool(self.name, value)
    }

    fn bad(&self, value: &str) -> SpecError {
        bad(self.name, value, self.values)
    }

    /// Its value when not given, in the configuration `mode` makes.
    pub fn default_in(&self, config: &C, mode: &str) -> String {
        (self.show)(config, mode)
    }
}

fn on_off(on: bool) -> String {
    if on { "on" } else { "off" }.to_string()
}

fn pkts(value: f64) -> String {
    format!("{value}")
}

fn or_none<T: fmt::Display>(value: Option<T>) -> String {
    value.map_or_else(|| "none".to_string(), |v| v.to_string())
}

const BOOL_VALUES: &str = "true or false";

const ROUND_RTT_VALUES: &str = "min, mean or distinguished";

fn round_rtt_stat<C>(key: &Key<C>, value: &str) -> Result<RoundRttStat, SpecError> {
    match value {
        "min" => Ok(RoundRttStat::Min),
        "mean" => Ok(RoundRttStat::Mean),
        "distinguished" => Ok(RoundRttStat::Distinguished),
        _ => Err(key.bad(value)),
    }
}

fn round_rtt_name(stat: RoundRttStat) -> &'static str {
    match stat {
        RoundRttStat::Min => "min",
        RoundRttStat::Mean => "mean",
        RoundRttStat::Distinguished => "distinguished",
    }
}

/// The row of an on/off key: `name` sets and shows the config's `field`.
macro_rules! on_off_key {
    ($name:literal, $tier:expr, $doc:literal, $($field:ident).+) => {
        Key {
            name: $name,
            tier: $tier,
            values: BOOL_VALUES,
            doc: $doc,
            set: Some(|c, k, v| {
                c.$($field).+ = k.parse_bool(v)?;
                Ok(())
            }),
            show: |c, _| on_off(c.$($field).+),
        }
    };
}

/// Every key of the Vegas family, in the order errors list them. The
/// `*-compat` keys (`buffer_pkts`, `reno_flows`, `vegas_flows`,
/// `approach`) only with a `*-compat` name, and then all required.
pub const VEGAS_KEYS: &[Key<VegasConfig>] = &[
    Key {
        name: "mode",
        tier: Tier::User,
        values: "paper, naive or default",
        doc: "`paper`: the papers' behaviour; `naive`: a naive measurement, for comparison only; explicit keys override either",
        set: None,
        show: |_, mode| mode.to_string(),
    },
    Key {
        name: "buffer_pkts",
        tier: Tier::Expert,
        values: "a number of packets > 0",
        doc: "`*-compat`: the bottleneck buffer (Feng & Vanichpun), required",
        set: None,
        show: |_, _| "required by `*-compat`".to_string(),
    },
    Key {
        name: "reno_flows",
        tier: Tier::Expert,
        values: "an integer >= 1",
        doc: "`*-compat`: the Reno flows sharing it, required",
        set: None,
        show: |_, _| "required by `*-compat`".to_string(),
    },
    Key {
        name: "vegas_flows",
        tier: Tier::Expert,
        values: "an integer >= 1",
        doc: "`*-compat`: the Vegas flows sharing it, required",
        set: None,
        show: |_, _| "required by `*-compat`".to_string(),
    },
    Key {
        name: "approach",
        tier: Tier::Expert,
        values: "1 or 2",
        doc: "`*-compat`: Feng & Vanichpun's approach 1 or 2, required",
        set: None,
        show: |_, _| "required by `*-compat`".to_string(),
    },
    Key {
        name: "gamma_rate",
        tier: Tier::User,
        values: "an available rate in packets/s > 0",
        doc: "gamma chosen from the available rate (Vanichpun & Feng), for a shorter convergence",
        set: None,
        show: |c, _| {
            c.gamma_rate_pkts_per_sec
                .map_or_else(|| "not set".to_string(), |r| r.to_string())
        },
    },
    Key {
        name: "gamma_approach",
        tier: Tier::Expert,
        values: "1 or 2",
        doc: "with `gamma_rate`: Vanichpun & Feng's Basic (1) or Enhanced (2) selection",
        set: None,
        show: |c, _| match c.gamma_approach {
            GammaApproach::Basic => "1".to_string(),
            GammaApproach::Enhanced => "2".to_string(),
        },
    },
    Key {
        name: "alpha",
        tier: Tier::User,
        values: "a number of packets > 0",
        doc: "increase while fewer packets than alpha queue (Brakmo & Peterson III-B)",
        set: Some(|c, k, v| {
            c.alpha_pkts = k.parse(v)?;
            Ok(())
        }),
        show: |c, _| pkts(c.alpha_pkts),
    },
    Key {
        name: "beta",
        tier: Tier::User,
        values: "a number of packets >= alpha",
        doc: "decrease while more packets than beta queue (Brakmo & Peterson III-B)",
        set: Some(|c, k, v| {
            c.beta_pkts = k.parse(v)?;
            Ok(())
        }),
        show: |c, _| pkts(c.beta_pkts),
    },
    Key {
        name: "gamma",
        tier: Tier::User,
        values: "a number of packets > 0",
        doc: "slow start ends when more packets than gamma queue (Brakmo & Peterson III-C; quinn-vegas: 5.5)",
        set: Some(|c, k, v| {
            c.gamma_pkts = k.parse(v)?;
            Ok(())
        }),
        show: |c, _| pkts(c.gamma_pkts),
    },
    Key {
        name: "slow_start_exit_window",
        tier: Tier::Expert,
        values: "cut_eighth or pipe",
        doc: "the window on leaving slow start: the pipe (as Linux `tcp_vegas.c`) or the paper's 7/8",
        set: Some(|c, k, v| {
            c.slow_start_exit_window = match v {
                "cut_eighth" => SlowStartExitWindow::CutEighth,
                "pipe" => SlowStartExitWindow::Pipe,
                _ => return Err(k.bad(v)),
            };
            Ok(())
        }),
        show: |c, _| match c.slow_start_exit_window {
            SlowStartExitWindow::CutEighth => "cut_eighth".to_string(),
            SlowStartExitWindow::Pipe => "pipe".to_string(),
        },
    },
    Key {
        name: "slow_start_growth",
        tier: Tier::User,
        values: "every_round or every_other_round",
        doc: "slow start doubles every round (Linux; needs a paced sender) or every other round (the paper; with gamma_rate)",
        set: Some(|c, k, v| {
            c.slow_start_growth = match v {
                "every_round" => SlowStartGrowth::EveryRound,
                "every_other_round" => SlowStartGrowth::EveryOtherRound,
                _ => return Err(k.bad(v)),
            };
            Ok(())
        }),
        show: |c, _| match c.slow_start_growth {
            SlowStartGrowth::EveryRound => "every_round".to_string(),
            SlowStartGrowth::EveryOtherRound => "every_other_round".to_string(),
        },
    },
    Key {
        name: "gallop_growth",
        tier: Tier::Expert,
        values: "pseudo_code or equations",
        doc: "`gallop-*`: Gallop-Vegas slow start as its pseudo code (III-C) or as its equations 16-19 and ns-2 runs (an increment regrowth; docs/gallop-regrowth.md)",
        set: Some(|c, k, v| {
            c.gallop_growth = match v {
                "pseudo_code" => GallopGrowth::PseudoCode,
                "equations" => GallopGrowth::Equations,
                _ => return Err(k.bad(v)),
            };
            Ok(())
        }),
        show: |c, _| match c.gallop_growth {
            GallopGrowth::PseudoCode => "pseudo_code".to_string(),
            GallopGrowth::Equations => "equations".to_string(),
        },
    },
    Key {
        name: "initial_cwnd_pkts",
        tier: Tier::User,
        values: "an integer from 2 to 100000",
        doc: "the initial window in datagrams",
        set: Some(|c, k, v| {
            c.initial_cwnd_pkts = k.parse(v)?;
            Ok(())
        }),
        show: |c, mode| match mode {
            "default" => "the stack's (quiche: 10)".to_string(),
            _ => c.initial_cwnd_pkts.to_string(),
        },
    },
    Key {
        name: "loss_reduction_factor",
        tier: Tier::Expert,
        values: "a number in (0, 1)",
        doc: "the window's multiplicative decrease on a loss",
        set: Some(|c, k, v| {
            c.loss_reduction_factor = k.parse(v)?;
            Ok(())
        }),
        show: |c, _| c.loss_reduction_factor.to_string(),
    },
    Key {
        name: "pto_response",
        tier: Tier::User,
        values: "restart_slow_start or ignore",
        doc: "a PTO is RFC 9002's probe (`ignore`) or the paper's coarse timeout",
        set: Some(|c, k, v| {
            c.pto_response = match v {
                "restart_slow_start" => PtoResponse::RestartSlowStart,
                "ignore" => PtoResponse::Ignore,
                _ => return Err(k.bad(v)),
            };
            Ok(())
        }),
        show: |c, _| match c.pto_response {
            PtoResponse::RestartSlowStart => "restart_slow_start".to_string(),
            PtoResponse::Ignore => "ignore".to_string(),
        },
    },
    Key {
        name: "pacing_gain",
        tier: Tier::User,
        values: PACING_GAIN_VALUES,
        doc: "pace at this gain times the window per period, or not at all",
        set: Some(|c, _, v| {
            c.pacing_gain = parse_pacing(v)?;
            Ok(())
        }),
        show: |c, _| or_none(c.pacing_gain),
    },
    Key {
        name: "pacing_period",
        tier: Tier::Expert,
        values: "smoothed_rtt or credit_cycle",
        doc: "the period the window is paced over in congestion avoidance",
        set: Some(|c, k, v| {
            c.pacing_period = match v {
                "smoothed_rtt" => PacingPeriod::SmoothedRtt,
                "credit_cycle" => PacingPeriod::CreditCycle,
                _ => return Err(k.bad(v)),
            };
            Ok(())
        }),
        show: |c, _| match c.pacing_period {
            PacingPeriod::SmoothedRtt => "smoothed_rtt".to_string(),
            PacingPeriod::CreditCycle => "credit_cycle".to_string(),
        },
    },
    Key {
        name: "pacing_headroom_pkts",
        tier: Tier::Expert,
        values: "a number of packets > 0, or none",
        doc: "in congestion avoidance, pace at most this many packets per round above the recent Actual rate",
        set: Some(|c, k, v| {
            c.pacing_headroom_pkts = match v {
                "none" | "off" => None,
                _ => Some(k.parse(v)?),
            };
            Ok(())
        }),
        show: |c, _| or_none(c.pacing_headroom_pkts),
    },
    Key {
        name: "rtt_resolution_us",
        tier: Tier::Expert,
        values: "microseconds (0: the RTTs as measured)",
        doc: "RTTs below it count as it in Diff (RFC 9002's kGranularity): scheduling noise, not a queue",
        set: Some(|c, k, v| {
            let us: u64 = k.parse(v)?;
            c.rtt_resolution = (us > 0).then(|| Duration::from_micros(us));
            Ok(())
        }),
        show: |c, _| c.rtt_resolution.map_or(0, |r| r.as_micros()).to_string(),
    },
    on_off_key!(
        "subtract_ack_delay",
        Tier::User,
        "take the peer's ACK delay out of each RTT sample (RFC 9002 5.3)",
        sampler.subtract_ack_delay
    ),
    Key {
        name: "round_rtt",
        tier: Tier::Expert,
        values: ROUND_RTT_VALUES,
        doc: "the round's RTT in congestion avoidance: the smallest of its samples, their mean, \
              or its distinguished packet's (one timed packet per round, Brakmo & Peterson III-B)",
        set: Some(|c, k, v| {
            c.sampler.round_rtt = round_rtt_stat(k, v)?;
            Ok(())
        }),
        show: |c, _| round_rtt_name(c.sampler.round_rtt).to_string(),
    },
    Key {
        name: "slow_start_round_rtt",
        tier: Tier::Expert,
        values: ROUND_RTT_VALUES,
        doc: "the round's RTT in slow start (the values of `round_rtt`)",
        set: Some(|c, k, v| {
            c.sampler.slow_start_round_rtt = round_rtt_stat(k, v)?;
            Ok(())
        }),
        show: |c, _| round_rtt_name(c.sampler.slow_start_round_rtt).to_string(),
    },
    Key {
        name: "min_round_samples",
        tier: Tier::Expert,
        values: "an integer >= 1",
        doc: "a round with fewer RTT samples is stretched to the next",
        set: Some(|c, k, v| {
            c.sampler.min_round_samples = k.parse(v)?;
            Ok(())
        }),
        show: |c, _| c.sampler.min_round_samples.to_string(),
    },
    Key {
        name: "min_round_bytes",
        tier: Tier::Expert,
        values: "an integer >= 0",
        doc: "a round that acknowledged fewer bytes is stretched to the next",
        set: Some(|c, k, v| {
            c.sampler.min_round_bytes = k.parse(v)?;
            Ok(())
        }),
        show: |c, _| c.sampler.min_round_bytes.to_string(),
    },
    Key {
        name: "base_rtt_window_ms",
        tier: Tier::User,
        values: "milliseconds (0: never expires)",
        doc: "BaseRTT's memory: a longer path is found within it",
        set: Some(|c, k, v| {
            let ms: u64 = k.parse(v)?;
            c.sampler.base_rtt = if ms == 0 {
                BaseRttMode::Lifetime
            } else {
                BaseRttMode::Windowed {
                    window: Duration::from_millis(ms),
                }
            };
            Ok(())
        }),
        show: |c, _| match c.sampler.base_rtt {
            BaseRttMode::Lifetime => "0".to_string(),
            BaseRttMode::Windowed { window } => window.as_millis().to_string(),
        },
    },
    Key {
        name: "base_rtt_idle_reset_ms",
        tier: Tier::Expert,
        values: "milliseconds (0: never)",
        doc: "forget BaseRTT after this long with nothing in flight",
        set: Some(|c, k, v| {
            let ms: u64 = k.parse(v)?;
            c.sampler.base_rtt_idle_reset = (ms > 0).then(|| Duration::from_millis(ms));
            Ok(())
        }),
        show: |c, _| {
            c.sampler
                .base_rtt_idle_reset
                .map_or(0, |d| d.as_millis())
                .to_string()
        },
    },
    Key {
        name: "actual_bytes",
        tier: Tier::Expert,
        values: "sent, acked, delivered or acked_over_rtt",
        doc: "Actual's bytes and interval: delivered over the send span, or the paper's acknowledged over the round's RTT",
        set: Some(|c, k, v| {
            c.sampler.actual_bytes = match v {
                "sent" => ActualBytes::Sent,
                "acked" => ActualBytes::Acked,
                "delivered" => ActualBytes::Delivered,
                "acked_over_rtt" => ActualBytes::AckedOverRoundRtt,
                _ => return Err(k.bad(v)),
            };
            Ok(())
        }),
        show: |c, _| match c.sampler.actual_bytes {
            ActualBytes::Sent => "sent".to_string(),
            ActualBytes::Acked => "acked".to_string(),
            ActualBytes::Delivered => "delivered".to_string(),
            ActualBytes::AckedOverRoundRtt => "acked_over_rtt".to_string(),
        },
    },
    on_off_key!(
        "require_cwnd_limited",
        Tier::Expert,
        "only rounds whose own sends filled the window count",
        sampler.require_cwnd_limited
    ),
    on_off_key!(
        "aggregation_aware",
        Tier::User,
        "bound what aggregated ACK frames were held (bursts, release clocks): Wi-Fi, cellular, GRO",
        sampler.aggregation_aware
    ),
    on_off_key!(
        "subtract_delay_noise",
        Tier::Expert,
        "slow start judges each round's mean RTT less the path's delay noise",
        sampler.subtract_delay_noise
    ),
    on_off_key!(
        "whole_datagrams",
        Tier::Expert,
        "send the free window in whole datagrams only",
        whole_datagrams
    ),
    Key {
        name: "trend_resolution_pkts",
        tier: Tier::Expert,
        values: "a number of packets per round, 0 to 100",
        doc: "Vegas-A: a throughput change smaller than this per round is no trend",
        set: Some(|c, k, v| {
            c.trend_resolution_pkts = k.parse(v)?;
            Ok(())
        }),
        show: |c, _| pkts(c.trend_resolution_pkts),
    },
    on_off_key!(
        "probe_needs_falling_diff",
        Tier::Expert,
        "Vegas-A: raise alpha and beta only while Diff falls as well as the throughput rises",
        probe_needs_falling_diff
    ),
    on_off_key!(
        "round_diff",
        Tier::Expert,
        "Diff from the round's own Expected and Actual rates instead of the window in transit",
        round_diff
    ),
    on_off_key!(
        "exit_recheck",
        Tier::Expert,
        "with slow_start_exit_window=pipe, the round after the exit reads the pipe again and raises an under-read window (from a reading at most 1/8 above the exit window)",
        exit_recheck
    ),
    on_off_key!(
        "coexist",
        Tier::User,
        "compete beside CUBIC, Reno or BBR; back to Vegas once the queue empties",
        coexist
    ),
    on_off_key!(
        "fair_share",
        Tier::User,
        "FAST TCP's step toward the band's middle: equal shares among family flows",
        fair_share
    ),
];

/// Every key of `newreno`, in the order errors list them.
pub const NEWRENO_KEYS: &[Key<NewRenoConfig>] = &[
    Key {
        name: "initial_cwnd_pkts",
        tier: Tier::User,
        values: "an integer from 2 to 100000",
        doc: "the initial window in datagrams",
        set: Some(|c, k, v| {
            c.initial_cwnd_pkts = k.parse(v)?;
            Ok(())
        }),
        show: |c, mode| match mode {
            "default" => "the stack's (quiche: 10)".to_string(),
            _ => c.initial_cwnd_pkts.to_string(),
        },
    },
    Key {
        name: "loss_reduction_factor",
        tier: Tier::Expert,
        values: "a number in (0, 1)",
        doc: "the window's multiplicative decrease on a loss (RFC 9002 7.3.2)",
        set: Some(|c, k, v| {
            c.loss_reduction_factor = k.parse(v)?;
            Ok(())
        }),
        show: |c, _| c.loss_reduction_factor.to_string(),
    },
    Key {
        name: "pacing_gain",
        tier: Tier::Expert,
        values: PACING_GAIN_VALUES,
        doc: "pace at this gain times the window per smoothed RTT (RFC 9002 7.7), or not at all",
        set: Some(|c, _, v| {
            c.pacing_gain = parse_pacing(v)?;
            Ok(())
        }),
        show: |c, _| or_none(c.pacing_gain),
    },
    Key {
        name: "reno_1995",
        tier: Tier::User,
        values: BOOL_VALUES,
        doc: "the 1995 BSD Reno the Vegas paper compared with: initial window 2, no pacing, coarse timeouts (a preset the other keys adjust)",
        set: None,
        show: |c, _| on_off(c.coarse_timeouts),
    },
    on_off_key!(
        "whole_datagrams",
        Tier::Expert,
        "send the free window in whole datagrams only",
        whole_datagrams
    ),
    on_off_key!(
        "tick_wait",
        Tier::Expert,
        "with `reno_1995`: a coarse timeout waits for BSD's retransmit timer on its 500 ms clock before sending again; only where the driver wakes the sender when the wait ends (vegas-lab's simulator)",
        tick_wait
    ),
    Key {
        name: "tick_phase_ms",
        tier: Tier::Expert,
        values: "an integer from 0 to 499",
        doc: "with `tick_wait`: the 500 ms clock's first tick comes this long after the first packet (the simulator draws it per flow and seed when not given)",
        set: Some(|c, k, v| {
            let ms: u64 = k.parse(v)?;
            c.tick_phase = std::time::Duration::from_millis(ms);
            Ok(())
        }),
        show: |c, _| c.tick_phase.as_millis().to_string(),
    },
];

/// The table of `keys` of one tier (all with None) as Markdown: each key,
/// its value when not given in the default mode and with `mode=paper`,
/// the values it takes and what it does. The README's user tier and
/// `docs/parameters.md` are made from it (`cargo xtask docs`).
pub fn keys_markdown(tier: Option<Tier>) -> String {
    let wanted = |t: Tier| tier.is_none_or(|want| want == t);
    let (default, paper) = (VegasConfig::default(), VegasConfig::paper());
    let mut out = String::from(
        "| key (Vegas family) | default | `mode=paper` | values | what |\n|---|---|---|---|---|\n",
    );
    for key in VEGAS_KEYS.iter().filter(|k| wanted(k.tier)) {
        out.push_str(&format!(
            "| `{}` | {} | {} | {} | {} |\n",
            key.name,
            key.default_in(&default, "default"),
            key.default_in(&paper, "paper"),
            key.values,
            key.doc
        ));
    }
    let default = NewRenoConfig::default();
    out.push_str("\n| key (`newreno`) | default | values | what |\n|---|---|---|---|\n");
    for key in NEWRENO_KEYS.iter().filter(|k| wanted(k.tier)) {
        out.push_str(&format!(
            "| `{}` | {} | {} | {} |\n",
            key.name,
            key.default_in(&default, "default"),
            key.values,
            key.doc
        ));
    }
    out
}

/// The Vegas-family controller `name` (composed as `family`) for `params`.
pub fn vegas(
    family: Family,
    name: &str,
    params: &Params,
    initial_cwnd_pkts: usize,
    max_datagram_size: usize,
) -> Result<Vegas, SpecError> {
    check_keys(params, VEGAS_KEYS, name)?;
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
        Some(other) => return Err(key(VEGAS_KEYS, "mode").bad(other)),
    };
    if family.gallop_slow_start {
        c = c.with_gallop();
    }
    if family.vegas_a_avoidance {
        c = c.with_vegas_a();
    }
    const COMPAT_KEYS: [&str; 4] = ["buffer_pkts", "reno_flows", "vegas_flows", "approach"];
    if family.reno_compat {
        let get = |field: &str, needs: &str| -> Result<String, SpecError> {
            params
                .get(field)
                .cloned()
                .ok_or_else(|| bad(field, "(missing)", &format!("{name} needs {needs}")))
        };
        let buffer_pkts = get("buffer_pkts", "the bottleneck buffer in packets")?;
        let reno_flows = get("reno_flows", "the number of Reno flows")?;
        let vegas_flows = get("vegas_flows", "the number of Vegas flows")?;
        let approach = get("approach", "approach = 1 or 2")?;
        let approach: u8 = key(VEGAS_KEYS, "approach").parse(&approach)?;
        c = c.with_compat(
            key(VEGAS_KEYS, "buffer_pkts").parse(&buffer_pkts)?,
            key(VEGAS_KEYS, "reno_flows").parse(&reno_flows)?,
            key(VEGAS_KEYS, "vegas_flows").parse(&vegas_flows)?,
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
            let rate: f64 = key(VEGAS_KEYS, "gamma_rate").parse(rate)?;
            let approach = match approach {
                Some(a) => {
                    let a: u8 = key(VEGAS_KEYS, "gamma_approach").parse(a)?;
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
    for (name, value) in params {
        let row = key(VEGAS_KEYS, name);
        if let Some(set) = row.set {
            set(&mut c, row, value)?;
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
    check_keys(params, NEWRENO_KEYS, "newreno")?;
    let mut c = NewRenoConfig {
        initial_cwnd_pkts,
        max_datagram_size,
        ..NewRenoConfig::default()
    };
    // `reno_1995 = true` is a preset the other keys may then adjust.
    if let Some(v) = params.get("reno_1995") {
        if key(NEWRENO_KEYS, "reno_1995").parse_bool(v)? {
            c = NewRenoConfig {
                max_datagram_size,
                ..NewRenoConfig::reno_1995()
            };
        }
    }
    for (name, value) in params {
        let row = key(NEWRENO_KEYS, name);
        if let Some(set) = row.set {
            set(&mut c, row, value)?;
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

/// What the driver of a controller does beyond the [`Controller`] trait's
/// events.
///
/// [`Controller`]: crate::Controller
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Driver {
    /// Calls the controller on the stack's events only: quiche's and
    /// quinn's event loops, a real sender.
    EventsOnly,
    /// Also wakes the sender when [`crate::Controller::send_hold_until`]
    /// ends (vegas-lab's simulator): keys such as `tick_wait` need it.
    WakesAtHolds,
}

/// The controller named `name` (one of [`NAMES`]) with `params`, for a
/// path whose stack starts at `initial_cwnd_pkts` datagrams of
/// `max_datagram_size` bytes: what a stack's adapter calls. Keys that need
/// a [`Driver::WakesAtHolds`] are refused ([`build_for`]).
pub fn build(
    name: &str,
    params: &Params,
    initial_cwnd_pkts: usize,
    max_datagram_size: usize,
) -> Result<Box<dyn crate::controller::Controller>, SpecError> {
    build_for(
        Driver::EventsOnly,
        name,
        params,
        initial_cwnd_pkts,
        max_datagram_size,
    )
}

/// [`build`] for a `driver`: with [`Driver::EventsOnly`], a key that holds
/// the sender (`tick_wait = true`) is an error naming it, since nothing
/// would wake the sender when the hold ends.
pub fn build_for(
    driver: Driver,
    name: &str,
    params: &Params,
    initial_cwnd_pkts: usize,
    max_datagram_size: usize,
) -> Result<Box<dyn crate::controller::Controller>, SpecError> {
    let controller = build_any(name, params, initial_cwnd_pkts, max_datagram_size)?;
    if driver == Driver::EventsOnly && holds_sender(name, params) {
        return Err(bad(
            "tick_wait",
            &params["tick_wait"],
            "false here: the wait holds the sender until a 500 ms tick and only a driver that wakes it then can run it (vegas-lab's simulator scenarios can; a quiche or quinn event loop cannot)",
        ));
    }
    Ok(controller)
}

/// Whether the controller `name` with `params` may hold the sender
/// ([`crate::Controller::send_hold_until`]: `newreno`'s `tick_wait = true`),
/// so that only a [`Driver::WakesAtHolds`] can run it.
pub fn holds_sender(name: &str, params: &Params) -> bool {
    name == "newreno"
        && params
            .get("tick_wait")
            .is_some_and(|v| parse_bool("tick_wait", v) == Ok(true))
}

fn build_any(
    name: &str,
    params: &Params,
    initial_cwnd_pkts: usize,
    max_datagram_size: usize,
) -> Result<Box<dyn crate::controller::Controller>, SpecError> {
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
    fn each_keys_shown_value_sets_the_same_value_back() {
        // The table's two ends agree: what the docs show as a mode's value
        // parses back to that value, for every key with a setter.
        fn round_trip<C: Clone>(keys: &[Key<C>], modes: &[(&str, C)]) {
            for (mode, config) in modes {
                for row in keys {
                    let shown = row.default_in(config, mode);
                    let Some(set) = row.set else { continue };
                    if shown.starts_with("the stack's") {
                        continue;
                    }
                    let mut c = config.clone();
                    set(&mut c, row, &shown).unwrap_or_else(|e| panic!("{}: {e}", row.name));
                    assert_eq!(row.default_in(&c, mode), shown, "{} in {mode}", row.name);
                }
            }
        }
        round_trip(
            VEGAS_KEYS,
            &[
                ("default", VegasConfig::default()),
                ("paper", VegasConfig::paper()),
            ],
        );
        round_trip(NEWRENO_KEYS, &[("default", NewRenoConfig::default())]);
    }

    #[test]
    fn the_tables_name_each_key_once_and_a_dozen_or_so_for_users() {
        for names in [
            VEGAS_KEYS.iter().map(|k| k.name).collect::<Vec<_>>(),
            NEWRENO_KEYS.iter().map(|k| k.name).collect(),
        ] {
            let mut unique = names.clone();
            unique.sort();
            unique.dedup();
            assert_eq!(unique.len(), names.len(), "{names:?}");
        }
        let users = VEGAS_KEYS.iter().filter(|k| k.tier == Tier::User).count();
        assert!((10..=16).contains(&users), "{users} user keys");
        // Every key is accepted by name.
        for row in VEGAS_KEYS {
            let err = build("vegas", &params(&[(row.name, "?")]), 10, 1200).err();
            let msg = err.map(|e| e.to_string()).unwrap_or_default();
            assert!(
                !msg.contains("not a vegas parameter"),
                "{}: {msg}",
                row.name
            );
        }
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
        assert!(
            e.contains("round_rtt") && e.contains("min, mean or distinguished"),
            "{e}"
        );
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
    fn coexist_fair_share_exit_recheck_and_delay_noise_are_on_by_default_off_in_paper_mode() {
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
                assert_eq!(cc.config().exit_recheck, on, "{name} {mode}");
                assert_eq!(
                    cc.config().sampler.subtract_delay_noise,
                    on,
                    "{name} {mode}"
                );
            }
        }
        type Switch = fn(&VegasConfig) -> bool;
        let switches: [(&str, &str, Switch); 4] = [
            ("coexist", "maybe", |c| c.coexist),
            ("fair_share", "2", |c| c.fair_share),
            ("exit_recheck", "twice", |c| c.exit_recheck),
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
    fn slow_start_doubles_every_round_by_default_and_every_other_in_paper_mode() {
        let growth = |p: &[(&str, &str)]| {
            vegas(family("vegas").unwrap(), "vegas", &params(p), 10, 1200)
                .map(|v| v.config().slow_start_growth)
        };
        assert_eq!(growth(&[]).unwrap(), SlowStartGrowth::EveryRound);
        assert_eq!(
            growth(&[("mode", "paper")]).unwrap(),
            SlowStartGrowth::EveryOtherRound
        );
        assert_eq!(
            growth(&[("slow_start_growth", "every_other_round")]).unwrap(),
            SlowStartGrowth::EveryOtherRound
        );
        // Vanichpun & Feng's gamma selection takes their model's pace.
        assert_eq!(
            growth(&[("gamma_rate", "5000")]).unwrap(),
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
        // Vanichpun & Feng's gamma selection models the paper's pace.
        let e = build(
            "vegas",
            &params(&[("gamma_rate", "5000"), ("slow_start_growth", "every_round")]),
            10,
            1200,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("gamma_rate") && e.contains("every_round"), "{e}");
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
    fn the_tick_wait_needs_a_driver_that_wakes_the_sender() {
        let tick = params(&[("reno_1995", "true"), ("tick_wait", "true")]);
        let err = build("newreno", &tick, 10, 1200).unwrap_err();
        let SpecError::Param { field, allowed, .. } = &err else {
            panic!("{err}");
        };
        assert_eq!(field, "tick_wait");
        assert!(allowed.contains("simulator"), "{err}");
        let cc = build_for(Driver::WakesAtHolds, "newreno", &tick, 10, 1200).unwrap();
        assert_eq!(cc.send_hold_until(), None, "no hold before a timeout");
        // Off, or without the key, any driver runs it.
        let off = params(&[("reno_1995", "true"), ("tick_wait", "false")]);
        build("newreno", &off, 10, 1200).unwrap();
        // The wait is a coarse timeout's, and the phase below a tick.
        let alone = params(&[("tick_wait", "true")]);
        let err = build_for(Driver::WakesAtHolds, "newreno", &alone, 10, 1200).unwrap_err();
        assert!(err.to_string().contains("reno_1995"), "{err}");
        let phase = params(&[
            ("reno_1995", "true"),
            ("tick_wait", "true"),
            ("tick_phase_ms", "500"),
        ]);
        let err = build_for(Driver::WakesAtHolds, "newreno", &phase, 10, 1200).unwrap_err();
        assert!(err.to_string().contains("tick_phase_ms"), "{err}");
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

    #[test]
    fn gallop_growth_is_the_pseudo_code_unless_asked_and_only_for_gallop() {
        use crate::gallop::GallopGrowth;
        let build_vegas = |name: &str, pairs: &[(&str, &str)]| {
            vegas(family(name).unwrap(), name, &params(pairs), 10, 1200)
        };
        for mode in ["paper", "default"] {
            let cc = build_vegas("gallop-vegas", &[("mode", mode)]).unwrap();
            assert_eq!(cc.config().gallop_growth, GallopGrowth::PseudoCode);
            assert_eq!(cc.gallop().unwrap().growth(), GallopGrowth::PseudoCode);
        }
        let cc = build_vegas(
            "gallop-vegas",
            &[("mode", "paper"), ("gallop_growth", "equations")],
        )
        .unwrap();
        assert_eq!(cc.gallop().unwrap().growth(), GallopGrowth::Equations);
        let e = build_vegas("gallop-vegas", &[("gallop_growth", "ns2")])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("gallop_growth")
                && e.contains("ns2")
                && e.contains("pseudo_code or equations"),
            "{e}"
        );
        let e = build_vegas("vegas", &[("gallop_growth", "equations")])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("gallop_growth") && e.contains("equations") && e.contains("gallop-*"),
            "{e}"
        );
        assert!(build_vegas("vegas", &[("gallop_growth", "pseudo_code")]).is_ok());
    }
}
