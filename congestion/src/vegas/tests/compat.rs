//! Reno-compatible alpha/beta ([`crate::reno_compat`]) in the Vegas
//! controller.

use super::*;
use crate::reno_compat::CompatApproach;
use crate::test_sender::MS;

#[test]
fn compat_alpha_beta_come_from_buffer_and_flow_counts() {
    // Feng & Vanichpun Fig. 5: B = 10, one flow of each, Approach 1: 3B/7 =
    // 4.28 -> beta 4, alpha 3.
    let config = VegasConfig::paper().with_compat(10.0, 1, 1, CompatApproach::One);
    assert_eq!(config.alpha_beta_pkts(), Ok((3.0, 4.0)));
    let mut h = Harness::in_congestion_avoidance_with(config, 12);
    assert_eq!(h.cc.name(), "vegas-compat");
    assert_eq!((h.cc.alpha_pkts(), h.cc.beta_pkts()), (3.0, 4.0));
    // Diff = 2 < alpha = 3: increase (Vegas's 1/3 would hold).
    h.round(120 * MS);
    assert_eq!(h.cwnd_pkts(), 13.0);
    let d = h.last_round();
    assert_eq!((d.alpha_pkts, d.beta_pkts), (3.0, 4.0));
    // Approach 2, B = 100: 0.4641 B = 46.4 -> 46 / 45 (Table 4).
    let config = VegasConfig::compat(100.0, 1, 1, CompatApproach::Two);
    let cc = Vegas::new(config).unwrap();
    assert_eq!((cc.alpha_pkts(), cc.beta_pkts()), (45.0, 46.0));
    assert_eq!(cc.name(), "vegas-compat");
    // Vegas-A starts from the compat values.
    let cc = Vegas::new(config.with_vegas_a()).unwrap();
    assert_eq!(cc.vegas_a().unwrap().alpha_pkts(), 45.0);
}
