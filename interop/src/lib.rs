//! vegas-interop: a user-space UDP bottleneck emulator for real QUIC
//! processes on loopback (no root, no qdisc), and the helpers of
//! `cargo xtask interop`.
//!
//! - [`link`]: one direction of the bottleneck (rate, delay, drop-tail
//!   buffer, seeded loss, aggregation, trace-driven service): the link
//!   model the simulator shares (crate `vegas-link-model`) in real time,
//!   with the simulator's queue-log format.
//! - [`cli`]: helpers the command lines share.
//! - [`limits`]: the accepted range of every parameter (documented in
//!   `vegas-link-emu --help`) and checked unit conversions.
//! - [`relay`]: the relay between client-facing ports and servers, one
//!   shared bottleneck for every flow; [`relay::Emulator`] runs it in
//!   threads, the `vegas-link-emu` binary is its command line.
//! - [`sockets`]: UDP socket buffers sized for fast paths, and the
//!   machine's count of datagrams dropped at full receive buffers.

pub mod cli;
pub mod limits;
pub mod link;
pub mod relay;
pub mod sockets;

pub use link::LinkSpec;
pub use relay::Config;
pub use relay::Emulator;
pub use relay::Report;
pub use relay::Route;
pub use relay::Step;
