//! A deterministic virtual-time network simulator that runs real quiche
//! connections.
//!
//! One thread, integer-nanosecond virtual time that jumps from event to
//! event. Events are packet arrivals, ends of serialization on a link,
//! quiche's timers (`timeout_instant()`), pacing release times
//! (`SendInfo.at`), the receiver's delayed-ACK timer, flow starts and stops,
//! scheduled link changes and background-flow arrivals. Before every call
//! into quiche the simulator sets the patched quiche's clock hook
//! (`quiche::clock::set_override`) to virtual time and seeds quiche's own
//! random choices, so a run with the same scenario and seed gives the same
//! result, packet for packet. One seed drives every random choice (link
//! losses, background arrivals and sizes, quiche's choices) through
//! independent sub-streams.
//!
//! - [`scenario`]: the TOML scenario format, `--set` overrides, validation.
//! - [`link`]: a link (loss, drop-tail FIFO, serializer, delay, aggregation).
//! - [`net`]: the topology and the event loop.
//! - [`report`]: metrics and the JSON summary; [`rtt`]: a flow's RTT
//!   samples in constant memory.

pub mod analytic;
pub mod demo;
pub mod link;
pub mod net;
pub mod paper;
pub mod report;
pub mod reproduce;
pub mod rtt;
pub mod scenario;

use std::time::Duration;

pub use net::run;
pub use net::RunOptions;
pub use net::SimResult;
pub use report::Report;
pub use scenario::Scenario;

/// Virtual time in nanoseconds since the start of a run.
pub type Nanos = u64;

pub(crate) fn to_nanos(d: Duration) -> Nanos {
    d.as_nanos() as Nanos
}
