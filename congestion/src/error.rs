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
