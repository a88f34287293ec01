//! A deterministic virtual-time network simulator that runs real quiche
//! connections.
//!
//! One thread, integer-nanosecond virtual time that jumps from event to
//! event. Events are packet arrivals, ends of serialization on a link,
//! quiche's timers (`timeout_instant()`) and pacing release times
//! (`SendInfo.at`). Before every call into quiche the simulator sets the
//! patched quiche's clock hook (`quiche::clock::set_override`) to virtual
//! time, and it seeds quiche's own random choices, so a run with the same
//! inputs gives the same result, packet for packet.
//!
//! Topology: each flow is one client and one server. Data flows server to
//! client (the server's controller is the one under test) through the
//! flow's forward route (here: the shared bottleneck); ACKs and the request
//! come back on the flow's reverse link.

pub mod demo;
pub mod link;
pub mod net;

use std::time::Duration;

pub use link::LinkSpec;
pub use link::LinkStats;
pub use net::FlowResult;
pub use net::FlowSpec;
pub use net::NetworkSpec;
pub use net::SimResult;

/// Virtual time in nanoseconds since the start of a run.
pub type Nanos = u64;

pub(crate) fn to_nanos(d: Duration) -> Nanos {
    d.as_nanos() as Nanos
}
