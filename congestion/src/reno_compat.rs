//! Vegas `alpha`/`beta` that make TCP Vegas compatible with TCP Reno at a
//! shared drop-tail bottleneck: W. Feng and S. Vanichpun, "Enabling
//! Compatibility Between TCP Reno and TCP Vegas", IEEE SAINT 2003.
//!
//! Implemented (B = bottleneck buffer in packets, N_r / N_v = numbers of
//! Reno / Vegas flows, q_v = mean Vegas backlog that equalises throughputs):
//!
//! - Approach 1 (Reno drops only): q_v = 3B/7 for one flow of each
//!   (section 3.1.1, eq. 10 = 1) and q_v = 3B/(4 N_r + 3 N_v) in general
//!   (section 3.2.1, eq. 20 = 1).
//! - Approach 2 (Reno and Vegas drops): q_v ~= 0.4641 B for one flow of each
//!   (section 3.1.2, eq. 14 = 1) and the square-root closed form of section
//!   3.2.2 in general.
//! - beta = floor(q_v) and alpha = floor(q_v - 1) = beta - 1 (the rules
//!   printed at the end of sections 3.1.1, 3.1.2, 3.2.1 and 3.2.2).
//! - The throughput ratio lambda_v / lambda_r of eq. 20 (Approach 1) and of
//!   section 3.2.2 (Approach 2); for N_r = N_v = 1 they are eq. 10 and 14.
//!
//! Interpretation choices:
//!
//! 1. Rounding is a floor, as printed; every beta of Tables 3 and 5-14 is
//!    the floor (e.g. 3*25/7 = 10.71 gives 10 in Table 3). The one
//!    exception is Table 4's B = 25 row, which prints 10 (the Approach 1
//!    value; that row, like B = 7, 10 and 15, repeats Table 3's ACK
//!    counts) where floor(0.4641 * 25) = floor(11.60) = 11, which is what
//!    Table 10 prints for B = 25. This module follows the formula.
//! 2. Approach 2 multi-flow: the closed form printed in section 3.2.2 has
//!    N_r in `12 N_r` and `2 N_r`; setting the ratio printed just above it to
//!    one gives N_v in both places instead. Tables 6 and 12 print the betas
//!    of the printed form (N_r/N_v = 2/8, B = 250: 24, where the re-derived
//!    root gives 23), so this module implements the printed form. Both agree
//!    when N_r = N_v.
//! 3. Approach 2 uses the one closed form for every N_r, N_v, so one flow of
//!    each gets the exact root 2*sqrt(3) - 3 = 0.46410161..., which section
//!    3.1.2 prints to four decimals as 0.4641. The floors agree for every
//!    B below 1351 packets (all of Tables 4 and 10); from there on beta can
//!    be one packet above floor(0.4641 B) (B = 1351: 627 against 626).
//! 4. The closed forms are evaluated so that the floors are exact: 3B is
//!    divided by the integer 4 N_r + 3 N_v (never B times the rounded 3/7),
//!    and the root of section 3.2.2 is written in the algebraically identical
//!    form 6 / (sqrt(K^2 + 12 N_r) + K), K = 4 N_r + 3 N_v - 1, which avoids
//!    cancellation.
//! 5. Rejected inputs: B not finite or <= 0 (`buffer_pkts`); N_r = 0
//!    (`reno_flows`: the analysis equalises Vegas and Reno throughput and
//!    section 3.2.2 divides by N_r); N_v = 0 (`vegas_flows`); a buffer so
//!    small that floor(q_v) < 1, i.e. alpha < 0 (`buffer_pkts`). Unknown
//!    approach names are rejected by [`CompatApproach::from_str`]
//!    (`approach`).

use std::fmt;
use std::str::FromStr;

use crate::error::ParamError;

/// Which of the paper's two approximations of the Reno window after a drop
/// (section 3.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CompatApproach {
    /// Approach 1: only Reno packets are dropped; Reno halves (eq. 7).
    One,
    /// Approach 2: a drop hits Reno with probability p_r and Vegas with
    /// probability p_v (eq. 5-6, 11-12).
    Two,
}

impl CompatApproach {
    /// `"1"` or `"2"`, as the `approach` parameter takes it.
    pub fn as_str(self) -> &'static str {
        match self {
            CompatApproach::One => "1",
            CompatApproach::Two => "2",
        }
    }
}

impl fmt::Display for CompatApproach {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for CompatApproach {
    type Err = ParamError;

    /// Accepts `1`, `one`, `2`, `two` (ASCII case-insensitive).
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text.trim().to_ascii_lowercase().as_str() {
            "1" | "one" => Ok(CompatApproach::One),
            "2" | "two" => Ok(CompatApproach::Two),
            _ => Err(ParamError::new(
                "approach",
                text,
                "1 or 2 (Feng & Vanichpun, section 3.1)",
            )),
        }
    }
}

impl TryFrom<u8> for CompatApproach {
    type Error = ParamError;

    /// 1: Approach 1, 2: Approach 2.
    fn try_from(number: u8) -> Result<Self, Self::Error> {
        match number {
            1 => Ok(CompatApproach::One),
            2 => Ok(CompatApproach::Two),
            _ => Err(ParamError::new(
                "approach",
                number,
                "1 or 2 (Feng & Vanichpun, section 3.1)",
            )),
        }
    }
}

fn check_buffer(buffer_pkts: f64) -> Result<(), ParamError> {
    if buffer_pkts.is_finite() && buffer_pkts > 0.0 {
        Ok(())
    } else {
        Err(ParamError::new(
            "buffer_pkts",
            buffer_pkts,
            "a finite number of packets > 0",
        ))
    }
}

fn check_flows(reno_flows: u32, vegas_flows: u32) -> Result<(), ParamError> {
    if reno_flows == 0 {
        return Err(ParamError::new(
            "reno_flows",
            reno_flows,
            "at least 1 (the rule equalises Vegas and Reno throughput)",
        ));
    }
    if vegas_flows == 0 {
        return Err(ParamError::new("vegas_flows", vegas_flows, "at least 1"));
    }
    Ok(())
}

/// Mean backlog q_v (packets) each Vegas flow should keep so that Vegas and
/// Reno flows get equal throughput, before any rounding.
///
/// Approach 1: q_v = 3B / (4 N_r + 3 N_v) (section 3.2.1; 3B/7 for one flow
/// of each, section 3.1.1). Approach 2: q_v = B (sqrt(K^2 + 12 N_r) - K) /
/// (2 N_r) with K = 4 N_r + 3 N_v - 1 (section 3.2.2, as printed; 0.4641 B
/// for one flow of each, section 3.1.2).
pub fn compat_vegas_queue_pkts(
    buffer_pkts: f64,
    reno_flows: u32,
    vegas_flows: u32,
    approach: CompatApproach,
) -> Result<f64, ParamError> {
    check_buffer(buffer_pkts)?;
    check_flows(reno_flows, vegas_flows)?;
    let reno = f64::from(reno_flows);
    let vegas = f64::from(vegas_flows);
    Ok(match approach {
        // Section 3.2.1: q_v = 3B / (4 N_r + 3 N_v).
        CompatApproach::One => 3.0 * buffer_pkts / (4.0 * reno + 3.0 * vegas),
        // Section 3.2.2: (sqrt(K^2 + 12 N_r) - K) / (2 N_r) * B, rewritten
        // as 6 / (sqrt(K^2 + 12 N_r) + K) * B (multiply by the conjugate).
        CompatApproach::Two => {
            let k = 4.0 * reno + 3.0 * vegas - 1.0;
            6.0 / ((k * k + 12.0 * reno).sqrt() + k) * buffer_pkts
        }
    })
}

/// Vegas `beta` (packets): beta = floor(q_v) (sections 3.1.1, 3.1.2, 3.2.1,
/// 3.2.2), q_v from [`compat_vegas_queue_pkts`].
///
/// Fails on `buffer_pkts` when the buffer is so small that beta < 1.
pub fn compat_beta_pkts(
    buffer_pkts: f64,
    reno_flows: u32,
    vegas_flows: u32,
    approach: CompatApproach,
) -> Result<f64, ParamError> {
    let queue_pkts = compat_vegas_queue_pkts(buffer_pkts, reno_flows, vegas_flows, approach)?;
    let beta_pkts = queue_pkts.floor();
    if beta_pkts < 1.0 {
        return Err(ParamError::new(
            "buffer_pkts",
            buffer_pkts,
            format!(
                "a buffer large enough that beta = floor({queue_pkts:.3}) >= 1 \
                 (so that alpha = beta - 1 >= 0)"
            ),
        ));
    }
    Ok(beta_pkts)
}

/// Vegas `(alpha, beta)` in packets: beta = floor(q_v) and
/// alpha = floor(q_v - 1) = beta - 1 (sections 3.1.1, 3.1.2, 3.2.1, 3.2.2).
pub fn compat_alpha_beta(
    buffer_pkts: f64,
    reno_flows: u32,
    vegas_flows: u32,
    approach: CompatApproach,
) -> Result<(f64, f64), ParamError> {
    let beta_pkts = compat_beta_pkts(buffer_pkts, reno_flows, vegas_flows, approach)?;
    Ok((beta_pkts - 1.0, beta_pkts))
}

/// Throughput ratio lambda_v / lambda_r of one Vegas flow keeping
/// `vegas_queue_pkts` queued to one Reno flow.
///
/// Approach 1, eq. 20: 4 N_r q_v / (3 (B - N_v q_v)) (eq. 10 for one flow of
/// each). Approach 2, section 3.2.2: 4 N_r B q_v / ((B - N_v q_v)(3B + q_v))
/// (eq. 14 for one flow of each). `vegas_queue_pkts` must lie in
/// [0, B / N_v).
pub fn vegas_to_reno_throughput_ratio(
    vegas_queue_pkts: f64,
    buffer_pkts: f64,
    reno_flows: u32,
    vegas_flows: u32,
    approach: CompatApproach,
) -> Result<f64, ParamError> {
    check_buffer(buffer_pkts)?;
    check_flows(reno_flows, vegas_flows)?;
    let reno = f64::from(reno_flows);
    let vegas = f64::from(vegas_flows);
    let reno_share_pkts = buffer_pkts - vegas * vegas_queue_pkts;
    if !(vegas_queue_pkts.is_finite() && vegas_queue_pkts >= 0.0 && reno_share_pkts > 0.0) {
        return Err(ParamError::new(
            "vegas_queue_pkts",
            vegas_queue_pkts,
            format!("a number of packets in [0, {})", buffer_pkts / vegas),
        ));
    }
    Ok(match approach {
        // Eq. 20.
        CompatApproach::One => 4.0 * reno * vegas_queue_pkts / (3.0 * reno_share_pkts),
        // Section 3.2.2, the ratio above the closed form.
        CompatApproach::Two => {
            4.0 * reno * buffer_pkts * vegas_queue_pkts
                / (reno_share_pkts * (3.0 * buffer_pkts + vegas_queue_pkts))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    use CompatApproach::One;
    use CompatApproach::Two;

    /// (buffer_pkts, printed beta) for one Reno vs one Vegas flow.
    fn assert_two_flow_betas(approach: CompatApproach, rows: &[(f64, f64)]) {
        for &(buffer_pkts, beta_pkts) in rows {
            assert_eq!(
                compat_alpha_beta(buffer_pkts, 1, 1, approach),
                Ok((beta_pkts - 1.0, beta_pkts)),
                "approach {approach}, B = {buffer_pkts}"
            );
        }
    }

    /// (reno_flows, vegas_flows, printed beta) at a fixed buffer.
    fn assert_multi_flow_betas(
        approach: CompatApproach,
        buffer_pkts: f64,
        rows: &[(u32, u32, f64)],
    ) {
        for &(reno, vegas, beta_pkts) in rows {
            assert_eq!(
                compat_alpha_beta(buffer_pkts, reno, vegas, approach),
                Ok((beta_pkts - 1.0, beta_pkts)),
                "approach {approach}, B = {buffer_pkts}, N_r/N_v = {reno}/{vegas}"
            );
        }
    }

    #[test]
    fn table_3_approach_1_one_reno_one_vegas() {
        assert_two_flow_betas(
            One,
            &[
                (7.0, 3.0),
                (10.0, 4.0),
                (15.0, 6.0),
                (25.0, 10.0),
                (50.0, 21.0),
                (100.0, 42.0),
            ],
        );
    }

    #[test]
    fn table_4_approach_2_one_reno_one_vegas() {
        // Table 4 also prints beta = 10 for B = 25: see interpretation 1;
        // the formula's 11 is checked in the Table 10 test.
        assert_two_flow_betas(
            Two,
            &[
                (7.0, 3.0),
                (10.0, 4.0),
                (15.0, 6.0),
                (50.0, 23.0),
                (100.0, 46.0),
            ],
        );
    }

    #[test]
    fn table_5_approach_1_ten_flows_buffer_250() {
        assert_multi_flow_betas(
            One,
            250.0,
            &[(2, 8, 23.0), (4, 6, 22.0), (6, 4, 20.0), (8, 2, 19.0)],
        );
    }

    #[test]
    fn table_6_approach_2_ten_flows_buffer_250() {
        assert_multi_flow_betas(
            Two,
            250.0,
            &[(2, 8, 24.0), (4, 6, 22.0), (6, 4, 21.0), (8, 2, 19.0)],
        );
    }

    #[test]
    fn tables_7_and_8_five_reno_five_vegas() {
        let rows = [
            (100.0, 8.0, 8.0),
            (200.0, 17.0, 17.0),
            (300.0, 25.0, 26.0),
            (400.0, 34.0, 34.0),
            (500.0, 42.0, 43.0),
        ];
        for (buffer_pkts, beta_one, beta_two) in rows {
            assert_multi_flow_betas(One, buffer_pkts, &[(5, 5, beta_one)]);
            assert_multi_flow_betas(Two, buffer_pkts, &[(5, 5, beta_two)]);
        }
    }

    #[test]
    fn table_9_approach_1_grid_one_reno_one_vegas() {
        assert_two_flow_betas(
            One,
            &[
                (25.0, 10.0),
                (50.0, 21.0),
                (100.0, 42.0),
                (200.0, 85.0),
                (300.0, 128.0),
                (400.0, 171.0),
            ],
        );
    }

    #[test]
    fn table_10_approach_2_grid_one_reno_one_vegas() {
        assert_two_flow_betas(
            Two,
            &[
                (25.0, 11.0),
                (50.0, 23.0),
                (100.0, 46.0),
                (200.0, 92.0),
                (300.0, 139.0),
                (400.0, 185.0),
            ],
        );
    }

    #[test]
    fn tables_11_and_12_ten_flows_buffer_1000() {
        assert_multi_flow_betas(
            One,
            1000.0,
            &[(2, 8, 93.0), (4, 6, 88.0), (6, 4, 83.0), (8, 2, 78.0)],
        );
        assert_multi_flow_betas(
            Two,
            1000.0,
            &[(2, 8, 96.0), (4, 6, 89.0), (6, 4, 84.0), (8, 2, 79.0)],
        );
    }

    #[test]
    fn tables_13_and_14_five_reno_five_vegas_grid() {
        let rows = [
            (500.0, 42.0, 43.0),
            (750.0, 64.0, 65.0),
            (1000.0, 85.0, 87.0),
            (1250.0, 107.0, 108.0),
            (1500.0, 128.0, 130.0),
        ];
        for (buffer_pkts, beta_one, beta_two) in rows {
            assert_multi_flow_betas(One, buffer_pkts, &[(5, 5, beta_one)]);
            assert_multi_flow_betas(Two, buffer_pkts, &[(5, 5, beta_two)]);
        }
    }

    #[test]
    fn two_flow_fractions_of_sections_3_1_1_and_3_1_2() {
        let one = compat_vegas_queue_pkts(7.0, 1, 1, One).unwrap();
        assert_eq!(one, 3.0); // 3B/7 with B = 7, exactly.
        let two = compat_vegas_queue_pkts(1.0, 1, 1, Two).unwrap();
        assert!((two - (2.0 * 3f64.sqrt() - 3.0)).abs() < 1e-15);
        assert_eq!((two * 1e4).round() / 1e4, 0.4641);
        // Figure 5's caption: B = 10, 3B/7 = 4.285 (truncated), alpha 3,
        // beta 4.
        let fig5 = compat_vegas_queue_pkts(10.0, 1, 1, One).unwrap();
        assert_eq!((fig5 * 1e3).floor() / 1e3, 4.285);
        assert_eq!(compat_alpha_beta(10.0, 1, 1, One), Ok((3.0, 4.0)));
    }

    #[test]
    fn exact_two_flow_root_against_printed_0_4641() {
        // Interpretation 3: floor(0.4641 B) and floor((2 sqrt 3 - 3) B)
        // agree below B = 1351 packets.
        for buffer in 3..1351 {
            let buffer_pkts = f64::from(buffer);
            assert_eq!(
                compat_beta_pkts(buffer_pkts, 1, 1, Two),
                Ok((0.4641 * buffer_pkts).floor()),
                "B = {buffer}"
            );
        }
        assert_eq!(compat_beta_pkts(1351.0, 1, 1, Two), Ok(627.0));
        assert_eq!((0.4641f64 * 1351.0).floor(), 626.0);
    }

    #[test]
    fn closed_forms_equalise_throughput() {
        for reno in 1..=8 {
            for vegas in 1..=8 {
                let q = compat_vegas_queue_pkts(250.0, reno, vegas, One).unwrap();
                let ratio = vegas_to_reno_throughput_ratio(q, 250.0, reno, vegas, One).unwrap();
                assert!((ratio - 1.0).abs() < 1e-12, "{reno}/{vegas}");
            }
        }
    }

    #[test]
    fn printed_approach_2_root_equalises_only_equal_flow_counts() {
        // Interpretation 2: the printed closed form solves the printed
        // ratio = 1 when N_r = N_v, not otherwise.
        for flows in 1..=8 {
            let q = compat_vegas_queue_pkts(250.0, flows, flows, Two).unwrap();
            let ratio = vegas_to_reno_throughput_ratio(q, 250.0, flows, flows, Two).unwrap();
            assert!((ratio - 1.0).abs() < 1e-12, "{flows}/{flows}");
        }
        let q = compat_vegas_queue_pkts(250.0, 2, 8, Two).unwrap();
        let ratio = vegas_to_reno_throughput_ratio(q, 250.0, 2, 8, Two).unwrap();
        assert!(ratio > 1.01, "{ratio}");
    }

    #[test]
    fn eq_10_and_14_at_default_beta() {
        // One flow of each, B = 10, q_v = 3 (the default beta): eq. 10 gives
        // 4*3 / (3*7) and eq. 14 gives 4*3*10 / (300 - 60 - 9).
        let eq10 = vegas_to_reno_throughput_ratio(3.0, 10.0, 1, 1, One);
        assert!((eq10.unwrap() - 12.0 / 21.0).abs() < 1e-15);
        let eq14 = vegas_to_reno_throughput_ratio(3.0, 10.0, 1, 1, Two);
        assert!((eq14.unwrap() - 120.0 / 231.0).abs() < 1e-15);
    }

    #[test]
    fn invalid_inputs_name_the_field() {
        let field = |r: Result<(f64, f64), ParamError>| r.unwrap_err().field;
        for bad in [0.0, -5.0, f64::NAN, f64::INFINITY] {
            assert_eq!(field(compat_alpha_beta(bad, 1, 1, One)), "buffer_pkts");
        }
        assert_eq!(field(compat_alpha_beta(100.0, 0, 1, Two)), "reno_flows");
        assert_eq!(field(compat_alpha_beta(100.0, 1, 0, One)), "vegas_flows");
        // 3 * 2 / 7 = 0.86: beta would be 0 and alpha -1.
        assert_eq!(field(compat_alpha_beta(2.0, 1, 1, One)), "buffer_pkts");
        assert_eq!(compat_alpha_beta(3.0, 1, 1, One), Ok((0.0, 1.0)));
        assert_eq!("3".parse::<CompatApproach>().unwrap_err().field, "approach");
        assert_eq!(" Two".parse::<CompatApproach>(), Ok(Two));
        assert_eq!("1".parse::<CompatApproach>(), Ok(One));
        assert_eq!(CompatApproach::try_from(2), Ok(Two));
        assert_eq!(CompatApproach::try_from(3).unwrap_err().field, "approach");
        let ratio = vegas_to_reno_throughput_ratio(50.0, 100.0, 1, 2, One);
        assert_eq!(ratio.unwrap_err().field, "vegas_queue_pkts");
    }
}
