//! The family's configuration (`config.rs`): validation, names and what the
//! defaults decide.

use super::*;
use crate::reno_compat::CompatApproach;
use crate::sampler::SamplerConfig;
use crate::transient::selection::GammaApproach;

#[test]
fn invalid_params_are_rejected_naming_the_field() {
    let bad = |config: VegasConfig| Vegas::new(config).unwrap_err().field;
    let ok = VegasConfig::default();
    let with = |f: fn(&mut VegasConfig)| {
        let mut config = ok;
        f(&mut config);
        config
    };
    assert_eq!(
        bad(with(|c| {
            c.alpha_pkts = 4.0;
            c.beta_pkts = 3.0;
        })),
        "alpha_pkts"
    );
    assert_eq!(bad(with(|c| c.alpha_pkts = 0.0)), "alpha_pkts");
    assert_eq!(bad(with(|c| c.beta_pkts = -1.0)), "beta_pkts");
    assert_eq!(bad(with(|c| c.beta_pkts = f64::INFINITY)), "beta_pkts");
    assert_eq!(bad(with(|c| c.gamma_pkts = f64::NAN)), "gamma_pkts");
    assert_eq!(bad(with(|c| c.initial_cwnd_pkts = 1)), "initial_cwnd_pkts");
    // Windows whose bytes would overflow are refused, not wrapped.
    assert_eq!(
        bad(with(
            |c| c.initial_cwnd_pkts = crate::types::MAX_INITIAL_WINDOW_PKTS + 1
        )),
        "initial_cwnd_pkts"
    );
    assert_eq!(
        bad(with(|c| c.initial_cwnd_pkts = usize::MAX)),
        "initial_cwnd_pkts"
    );
    assert_eq!(bad(with(|c| c.max_datagram_size = 0)), "max_datagram_size");
    assert_eq!(
        bad(with(|c| c.max_datagram_size = usize::MAX)),
        "max_datagram_size"
    );
    assert_eq!(bad(with(|c| c.max_datagram_size = 0)), "max_datagram_size");
    assert_eq!(
        bad(with(|c| c.loss_reduction_factor = 1.0)),
        "loss_reduction_factor"
    );
    assert_eq!(bad(with(|c| c.pacing_gain = Some(f64::NAN))), "pacing_gain");
    for headroom in [0.0, -1.0, f64::INFINITY] {
        let config = VegasConfig {
            pacing_headroom_pkts: Some(headroom),
            ..ok
        };
        assert_eq!(bad(config), "pacing_headroom_pkts");
    }
    assert_eq!(
        bad(with(|c| c.sampler.min_round_samples = 0)),
        "sampler.min_round_samples"
    );
    assert!(VegasConfig::paper().validate().is_ok());
    assert!(VegasConfig::default().validate().is_ok());
}

#[test]
fn default_config_decides_on_the_one_sample_of_a_thinned_peer() {
    let mut h = Harness::vegas(VegasConfig::default());
    // One ACK frame per 10-packet window: a peer that acknowledges less
    // often than every second packet gives a round one sample, and the
    // round decides on it instead of waiting three RTTs for three (the
    // sampler's tests keep the every-second-packet case at three).
    h.round(BASE_RTT);
    let d = h.last_round();
    assert_eq!(d.samples, 1);
    assert_eq!(d.action, Action::SlowStartHold);
    h.round(BASE_RTT);
    assert_eq!(h.last_round().action, Action::SlowStartGrow);
}

#[test]
fn family_names_for_every_combination() {
    let base = VegasConfig::default();
    let compat = |c: VegasConfig| c.with_compat(50.0, 1, 1, CompatApproach::One);
    let cases = [
        (base, "vegas"),
        (base.with_vegas_a(), "vegas-a"),
        (base.with_gallop(), "gallop-vegas"),
        (base.with_gallop().with_vegas_a(), "gallop-vegas-a"),
        (compat(base), "vegas-compat"),
        (compat(base.with_vegas_a()), "vegas-a-compat"),
        (compat(base.with_gallop()), "gallop-vegas-compat"),
        (
            compat(base.with_gallop().with_vegas_a()),
            "gallop-vegas-a-compat",
        ),
        (
            base.with_selected_gamma(1000.0, GammaApproach::Basic),
            "vegas",
        ),
    ];
    for (config, name) in cases {
        assert_eq!(config.family_name(), name);
        assert_eq!(Vegas::new(config).unwrap().name(), name);
    }
    assert_eq!(VegasConfig::vegas_a().family_name(), "vegas-a");
    assert_eq!(VegasConfig::gallop().family_name(), "gallop-vegas");
    assert_eq!(
        VegasConfig::compat(50.0, 2, 3, CompatApproach::Two).family_name(),
        "vegas-compat"
    );
    // Robust constructors keep the defaults; paper_mode() the papers'.
    let gallop = VegasConfig::gallop();
    assert_eq!(gallop.initial_cwnd_pkts, QUIC_INITIAL_WINDOW_PKTS);
    assert_eq!(gallop.sampler, SamplerConfig::default());
    let paper = gallop.paper_mode();
    assert_eq!(paper, VegasConfig::paper().with_gallop());
    assert_eq!(
        VegasConfig::vegas_a().paper_mode(),
        VegasConfig::paper().with_vegas_a()
    );
}

#[test]
fn invalid_family_params_are_rejected_naming_the_field() {
    let bad = |config: VegasConfig| Vegas::new(config).unwrap_err().field;
    let compat = |b: f64, r: u32, v: u32| VegasConfig::compat(b, r, v, CompatApproach::One);
    assert_eq!(bad(compat(-1.0, 1, 1)), "buffer_pkts");
    assert_eq!(bad(compat(f64::NAN, 1, 1)), "buffer_pkts");
    // B = 3: beta = floor(9/7) = 1, alpha = 0: Vegas could never grow.
    assert_eq!(bad(compat(3.0, 1, 1)), "buffer_pkts");
    assert_eq!(bad(compat(50.0, 0, 1)), "reno_flows");
    assert_eq!(bad(compat(50.0, 1, 0)), "vegas_flows");
    let gamma = |rate: f64| VegasConfig::default().with_selected_gamma(rate, GammaApproach::Basic);
    assert_eq!(bad(gamma(0.0)), "gamma_rate");
    assert_eq!(bad(gamma(f64::INFINITY)), "gamma_rate");
    assert_eq!(bad(gamma(1000.0).with_gallop()), "gamma_rate");
    assert_eq!("3".parse::<CompatApproach>().unwrap_err().field, "approach");
    assert_eq!(CompatApproach::try_from(0).unwrap_err().field, "approach");
    assert_eq!(
        "three".parse::<GammaApproach>().unwrap_err().field,
        "gamma_approach"
    );
    assert_eq!(
        GammaApproach::try_from(3).unwrap_err().field,
        "gamma_approach"
    );
    for config in [
        VegasConfig::vegas_a(),
        VegasConfig::gallop(),
        compat(50.0, 1, 1),
        gamma(1000.0),
        VegasConfig::paper().with_gallop().with_vegas_a(),
    ] {
        assert!(config.validate().is_ok(), "{config:?}");
    }
}
