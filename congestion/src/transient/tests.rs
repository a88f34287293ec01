//! The section V-D worked examples and the input checks, across both parts:
//! gamma selection on a BaseRTT from eq. 2, fed back through eq. 9 and 13.

use crate::error::ParamError;

use super::analytic::*;
use super::selection::*;

/// Rounds to `decimals` decimal places (the papers print their numbers
/// rounded; the transient tests compare at their precision).
pub(super) fn round_to(value: f64, decimals: i32) -> f64 {
    let scale = 10f64.powi(decimals);
    (value * scale).round() / scale
}

/// Section V-D network: mu_1 = 10,000 and mu_2 = 50,000 pkt/s,
/// tau = 20 ms.
fn section_v_d_base_rtt_secs() -> f64 {
    base_rtt_secs(0.020, &[10000.0, 50000.0], 0.04).unwrap()
}

#[test]
fn section_v_d_target_windows() {
    // Two and four connections sharing mu_1 = 10,000 pkt/s, alpha = 1.
    let d = section_v_d_base_rtt_secs();
    assert_eq!(
        round_to(target_window_pkts(5000.0, d, 1.0).unwrap(), 1),
        101.6
    );
    assert_eq!(
        round_to(target_window_pkts(2500.0, d, 1.0).unwrap(), 1),
        51.3
    );
}

#[test]
fn section_v_d_gamma_1_example() {
    // gamma_1 = 5 for W^ = 101.6 (stop at 96) and gamma_1 = 1 for
    // W^ = 51.3 (stop at 48), with mu_1 in the denominator
    // (interpretation 2). Approach 2 agrees: both targets lie in the
    // lower half of their interval.
    let d = section_v_d_base_rtt_secs();
    for approach in [GammaApproach::Basic, GammaApproach::Enhanced] {
        for (rate, gamma, stop) in [(5000.0, 5.0, 96.0), (2500.0, 1.0, 48.0)] {
            let target = target_window_pkts(rate, d, 1.0).unwrap();
            let choice = select_gamma(approach, target, 10000.0, d, VegasSlowStart::Ns2).unwrap();
            assert_eq!(choice.gamma_pkts, gamma, "{approach:?} {target}");
            assert_eq!(choice.stop_window_pkts, stop, "{approach:?} {target}");
            // Fed back through eq. 9 and 13, the gamma stops slow start
            // at the intended window.
            let window =
                critical_window_pkts(gamma, 10000.0, d, SlowStartRtt::RoundAverage).unwrap();
            let exit = slow_start_exit(window, VegasSlowStart::Ns2).unwrap();
            assert_eq!(exit.window_pkts, stop);
        }
    }
}

#[test]
fn eq_14_as_printed_with_available_rate() {
    // Not a number the paper prints: eq. 12 + 14 with lambda in the
    // denominator gives 10 and 5 for the section V-D example, where the
    // paper reports 5 and 1 (interpretation 2).
    let d = section_v_d_base_rtt_secs();
    for (rate, gamma) in [(5000.0, 10.0), (2500.0, 5.0)] {
        let choice = select_gamma_for_available_rate(
            GammaApproach::Basic,
            rate,
            d,
            1.0,
            VegasSlowStart::Ns2,
        )
        .unwrap();
        assert_eq!(choice.gamma_pkts, gamma);
    }
}

#[test]
fn eq_15_upper_half_stops_one_doubling_later() {
    // Eq. 15 on the section V-D network: W^ = 130 lies in
    // [7/8 * 144, 7/8 * 192) = [126, 168), so Approach 2 stops at 192
    // with Wbar = 144 while Approach 1 stops at 96 with Wbar = 72.
    let d = section_v_d_base_rtt_secs();
    let basic = select_gamma(GammaApproach::Basic, 130.0, 10000.0, d, VegasSlowStart::Ns2).unwrap();
    assert_eq!(basic.stop_window_pkts, 96.0);
    assert_eq!(basic.averaged_window_pkts, Some(72.0));
    let enhanced = select_gamma(
        GammaApproach::Enhanced,
        130.0,
        10000.0,
        d,
        VegasSlowStart::Ns2,
    )
    .unwrap();
    assert_eq!(enhanced.stop_window_pkts, 192.0);
    assert_eq!(enhanced.averaged_window_pkts, Some(144.0));
    let expected = (144.0f64 * 144.0 / (4.0 * 10000.0 * d + 144.0)).floor();
    assert_eq!(enhanced.gamma_pkts, expected);
    // Just below the split, Approach 2 keeps W_i.
    let lower = select_gamma(
        GammaApproach::Enhanced,
        125.9,
        10000.0,
        d,
        VegasSlowStart::Ns2,
    )
    .unwrap();
    assert_eq!(lower.stop_window_pkts, 96.0);
}

#[test]
fn gamma_lower_bound_for_tiny_targets() {
    let d = section_v_d_base_rtt_secs();
    let choice = select_gamma(GammaApproach::Basic, 0.5, 10000.0, d, VegasSlowStart::Ns2).unwrap();
    assert_eq!(choice.gamma_pkts, 1.0);
    assert_eq!(choice.stop_round, 2);
    assert_eq!(choice.averaged_window_pkts, None);
}

#[test]
fn invalid_inputs_name_the_field() {
    let rtt = SlowStartRtt::RoundAverage;
    let field = |e: ParamError| e.field;
    assert_eq!(
        field(critical_window_pkts(0.0, 1.0, 1.0, rtt).unwrap_err()),
        "gamma_pkts"
    );
    assert_eq!(
        field(critical_window_pkts(1.0, f64::NAN, 1.0, rtt).unwrap_err()),
        "bottleneck_rate_pkts_per_sec"
    );
    assert_eq!(
        field(critical_window_pkts(1.0, 1.0, -1.0, rtt).unwrap_err()),
        "base_rtt_secs"
    );
    assert_eq!(
        field(target_window_pkts(1.0, 1.0, -1.0).unwrap_err()),
        "alpha_pkts"
    );
    assert_eq!(
        field(target_window_pkts(f64::INFINITY, 1.0, 1.0).unwrap_err()),
        "available_rate_pkts_per_sec"
    );
    let bad_schedule = VegasSlowStart::DoublingEveryOtherRound {
        initial_window_pkts: 0.0,
    };
    assert_eq!(
        field(slow_start_exit(10.0, bad_schedule).unwrap_err()),
        "initial_window_pkts"
    );
    assert_eq!(
        field(VegasSlowStart::Ns2.window_pkts(0).unwrap_err()),
        "round"
    );
    assert_eq!(
        field(select_gamma(GammaApproach::Basic, 0.0, 1.0, 1.0, VegasSlowStart::Ns2).unwrap_err()),
        "target_window_pkts"
    );
    assert_eq!(
        field(base_rtt_secs(0.02, &[], 0.04).unwrap_err()),
        "link_rates_pkts_per_sec"
    );
    assert_eq!(
        field(base_rtt_secs(0.02, &[0.0], 0.04).unwrap_err()),
        "link_rates_pkts_per_sec"
    );
    assert_eq!(
        field(transient_period_secs(0.02, &[-1.0]).unwrap_err()),
        "queueing_delays_secs"
    );
    assert_eq!(
        field(vegas_conspicuous_window(0.0, rtt).unwrap_err()),
        "bdp_pkts"
    );
    assert_eq!(
        field(gallop_conspicuous_window(1e30, rtt).unwrap_err()),
        "bdp_pkts"
    );
    assert_eq!(
        field(gallop_rtts_to_bandwidth(3, f64::NAN).unwrap_err()),
        "exit_window_pkts"
    );
}
