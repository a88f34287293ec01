//! vegas-lab: the quiche-vegas lab. Nothing here is needed to embed the
//! controllers (that is the `quiche-vegas` crate); this is where they are
//! measured.
//!
//! - [`sim`]: a deterministic virtual-time simulator that runs real quiche
//!   connections over bottleneck links, the scenario format, the papers'
//!   experiments and their reproduction report.
//! - [`plot`]: trace graphs drawn like the papers' figures, from qlogs and
//!   queue logs.
//! - [`qlog_read`]: qlogs read back, strictly or keeping what parses.
//! - [`qvis`]: qlogs qvis loads (the controllers' events beside quiche's).
//!
//! The `vegas-lab` binary is its command line.

pub mod plot;
pub mod qlog_read;
pub mod qvis;
pub mod sim;
