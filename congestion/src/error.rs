//! Parameter validation errors: which field, which value, what is allowed.

use std::fmt;

/// A controller parameter was rejected.
#[derive(Clone, Debug, PartialEq)]
pub struct ParamError {
    /// Name of the parameter (as used in scenario files and `--cc-param`).
    pub field: &'static str,
    /// The value given, as text.
    pub value: String,
    /// What is allowed.
    pub allowed: String,
}

impl ParamError {
    pub fn new(field: &'static str, value: impl ToString, allowed: impl Into<String>) -> Self {
        ParamError {
            field,
            value: value.to_string(),
            allowed: allowed.into(),
        }
    }

    /// Ok for an initial window of 2 (the RFC 9002 7.2 minimum window) to
    /// [`crate::MAX_INITIAL_WINDOW_PKTS`] datagrams.
    pub fn check_initial_window(initial_cwnd_pkts: usize) -> Result<(), Self> {
        if !(2..=crate::MAX_INITIAL_WINDOW_PKTS).contains(&initial_cwnd_pkts) {
            return Err(ParamError::new(
                "initial_cwnd_pkts",
                initial_cwnd_pkts,
                format!(
                    "an integer from 2 (the RFC 9002 7.2 minimum window) to {}",
                    crate::MAX_INITIAL_WINDOW_PKTS
                ),
            ));
        }
        Ok(())
    }

    /// Ok for 1 to [`crate::MAX_DATAGRAM_SIZE_BYTES`] bytes.
    pub fn check_max_datagram_size(max_datagram_size: usize) -> Result<(), Self> {
        if !(1..=crate::MAX_DATAGRAM_SIZE_BYTES).contains(&max_datagram_size) {
            return Err(ParamError::new(
                "max_datagram_size",
                max_datagram_size,
                format!("1 to {} bytes", crate::MAX_DATAGRAM_SIZE_BYTES),
            ));
        }
        Ok(())
    }

    /// Ok for None or a finite value > 0 (optional gains and headrooms).
    pub fn check_positive_or_none(field: &'static str, value: Option<f64>) -> Result<(), Self> {
        match value {
            Some(v) if !(v.is_finite() && v > 0.0) => {
                Err(ParamError::new(field, v, "a finite number > 0, or none"))
            }
            _ => Ok(()),
        }
    }
}

impl fmt::Display for ParamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "invalid value {} for `{}`: {}",
            self.value, self.field, self.allowed
        )
    }
}

impl std::error::Error for ParamError {}
