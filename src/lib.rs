//! quiche-vegas: the TCP Vegas family of delay-based congestion controllers
//! for cloudflare's quiche.
//!
//! The algorithms live in the stack-neutral crate [`vegas_cc`]; this crate
//! plugs them into quiche (through a small patch that makes quiche's
//! congestion-control trait public) and writes their decisions to qlog.
//! It is all an embedding application links; the simulator, the papers'
//! scenarios and the trace graphs are the `vegas-lab` crate (`lab/`).
//!
//! ```no_run
//! use quiche_vegas::{Algorithm, CcSpec};
//! let mut config = quiche::Config::new(quiche::PROTOCOL_VERSION).unwrap();
//! CcSpec::plain(Algorithm::Vegas).configure(&mut config);
//! ```

pub mod adapter;
pub mod algorithm;
pub mod qlog;
pub mod sending;

pub use adapter::HoldAlarm;
pub use adapter::StartGate;
pub use adapter::Trace;
pub use adapter::TraceData;
pub use algorithm::Algorithm;
pub use algorithm::CcSpec;
pub use algorithm::Params;
pub use vegas_cc;

/// Errors of this crate: each says which field, which value, what is allowed.
#[derive(Debug, thiserror::Error, Clone, PartialEq)]
pub enum Error {
    #[error("unknown congestion control algorithm `{name}`; valid: {valid}")]
    UnknownAlgorithm { name: String, valid: String },
    #[error("invalid value `{value}` for `{field}`: {allowed}")]
    Param {
        field: String,
        value: String,
        allowed: String,
    },
}

impl From<vegas_cc::spec::SpecError> for Error {
    fn from(e: vegas_cc::spec::SpecError) -> Self {
        match e {
            vegas_cc::spec::SpecError::UnknownAlgorithm { name, valid } => {
                Error::UnknownAlgorithm { name, valid }
            }
            vegas_cc::spec::SpecError::Param {
                field,
                value,
                allowed,
            } => Error::Param {
                field,
                value,
                allowed,
            },
        }
    }
}

impl From<vegas_cc::ParamError> for Error {
    fn from(e: vegas_cc::ParamError) -> Self {
        Error::Param {
            field: e.field.to_string(),
            value: e.value,
            allowed: e.allowed,
        }
    }
}
