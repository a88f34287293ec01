//! `vegas-cc`: the TCP Vegas family of delay-based congestion controllers,
//! written sans-IO so that any QUIC (or TCP) stack can drive them.
//!
//! A controller is a plain state machine. The stack tells it what happened
//! ([`Controller::on_packet_sent`], [`Controller::on_ack_event`],
//! [`Controller::on_pto`], ...) and passes the current time in as `now`; the
//! controller answers with a congestion window, an optional pacing rate and
//! its phase. There is no clock, no I/O and no allocation per ACK in here.
//!
//! Every controller shares the same [`Controller`] trait so that the quiche
//! adapter (in the `quiche-vegas` crate), the simulator and the tests treat
//! them alike.
//!
//! The Vegas family is one controller, [`Vegas`], composed by
//! [`VegasConfig`]: Vegas or Gallop-Vegas slow start ([`gallop`]), Vegas or
//! Vegas-A congestion avoidance ([`vegas_a`]), fixed or Reno-compatible
//! alpha/beta ([`reno_compat`]), fixed or selected gamma ([`transient`]).
//! [`Controller::name`] tells the members apart (`vegas`, `vegas-a`,
//! `gallop-vegas`, `vegas-compat`, ...; see [`vegas`]).
//!
//! # Example
//!
//! A Vegas controller by name with `key=value` parameters ([`spec`]), fed
//! one sent packet and the ACK frame that acknowledges it:
//!
//! ```
//! use std::time::{Duration, Instant};
//! use vegas_cc::spec::{self, Params};
//! use vegas_cc::{AckEvent, AckedPacket, Controller, Phase, RttSample, SentPacket};
//!
//! let params: Params = [("alpha", "2"), ("beta", "4")]
//!     .into_iter()
//!     .map(|(k, v)| (k.to_string(), v.to_string()))
//!     .collect();
//! // 10 datagrams of 1200 bytes to start with.
//! let mut cc = spec::build("vegas", &params, 10, 1200)?;
//! assert_eq!(cc.name(), "vegas");
//! assert_eq!(cc.cwnd_bytes(), 12_000);
//!
//! let sent_at = Instant::now();
//! cc.on_packet_sent(
//!     sent_at,
//!     &SentPacket {
//!         pkt_num: 0,
//!         time_sent: sent_at,
//!         size_bytes: 1200,
//!         bytes_in_flight_before: 0,
//!         in_flight: true,
//!     },
//! );
//!
//! let rtt = Duration::from_millis(50);
//! let acked = [AckedPacket { pkt_num: 0, time_sent: sent_at, size_bytes: 1200 }];
//! cc.on_ack_event(&AckEvent {
//!     now: sent_at + rtt,
//!     acked: &acked,
//!     lost: &[],
//!     rtt_sample: Some(RttSample { latest_rtt: rtt, ack_delay: Duration::ZERO }),
//!     min_rtt: Some(rtt),
//!     smoothed_rtt: rtt,
//!     max_ack_delay: Duration::from_millis(25),
//!     prior_bytes_in_flight: 1200,
//!     bytes_in_flight: 0,
//!     persistent_congestion: false,
//! });
//!
//! assert_eq!(cc.phase(), Phase::SlowStart);
//! assert!(cc.cwnd_bytes() >= 12_000);
//! let _ = cc.pacing_rate_bytes_per_sec(rtt); // bytes per second, or None
//! # Ok::<(), vegas_cc::spec::SpecError>(())
//! ```

#![forbid(unsafe_code)]
#![deny(missing_docs)]

// Layering, bottom to top. A module imports only from its own layer or
// below, and from the module that defines the item, never through the
// re-exports at the end of this file (they are for users of the crate).
//
// 1. `types`: packets, ACK events, `Phase`, the shared bounds.
// 2. `error` (`ParamError`); `events` (decision records, `CoexistMode`).
// 3. `controller`: the `Controller` trait.
// 4. The parts controllers are built from: `window`, `cubic`, `bsd_timer`,
//    `sampler`, `reno_compat`, `vegas_a`, `gallop`, `transient` (`selection`, the
//    gamma selection `Vegas` runs; `analytic`, the models on top of it).
// 5. The controllers: `newreno`, `vegas`.
// 6. `spec` (controllers by name), `qlog` (the records as qlog events).
//
// Tests only: `test_sender` drives any `Controller` (its compile-time check
// names both controllers' default datagram size); `bottleneck_tests` is on
// top.
pub mod bsd_timer;
mod controller;
pub mod cubic;
mod error;
pub mod events;
pub mod gallop;
pub mod newreno;
#[cfg(feature = "qlog")]
pub mod qlog;
pub mod reno_compat;
pub mod sampler;
pub mod spec;
pub mod transient;
mod types;
pub mod vegas;
pub mod vegas_a;
mod window;

#[cfg(test)]
mod bottleneck_tests;
#[cfg(test)]
pub(crate) mod test_sender;

pub use controller::Controller;
pub use error::ParamError;
pub use events::ControllerEvent;
pub use events::EventQueue;
pub use newreno::NewReno;
pub use newreno::NewRenoConfig;
pub use reno_compat::CompatApproach;
pub use sampler::RoundSample;
pub use sampler::RoundSampler;
pub use sampler::SamplerConfig;
pub use transient::GammaApproach;
pub use types::min_pacing_rate_bytes_per_sec;
pub use types::AckEvent;
pub use types::AckedPacket;
pub use types::LostPacket;
pub use types::Phase;
pub use types::RttSample;
pub use types::SentPacket;
pub use types::MAX_DATAGRAM_SIZE_BYTES;
pub use types::MAX_INITIAL_WINDOW_PKTS;
pub use types::PACING_GAIN_RANGE;
pub use vegas::AlphaBetaSource;
pub use vegas::AvoidanceKind;
pub use vegas::PacingPeriod;
pub use vegas::PtoResponse;
pub use vegas::SlowStartExitWindow;
pub use vegas::SlowStartGrowth;
pub use vegas::SlowStartKind;
pub use vegas::Vegas;
pub use vegas::VegasConfig;
