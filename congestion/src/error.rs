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

/// How a rejected value is shown: as a person would write it (`1e300`, not
/// three hundred digits).
pub trait ParamValue {
    fn param_text(&self) -> String;
}

impl ParamValue for f64 {
    fn param_text(&self) -> String {
        let magnitude = self.abs();
        if magnitude != 0.0 && magnitude.is_finite() && !(1e-6..1e15).contains(&magnitude) {
            format!("{self:e}")
        } else {
            self.to_string()
        }
    }
}

macro_rules! param_value_as_text {
    ($($t:ty),*) => {
        $(impl ParamValue for $t {
            fn param_text(&self) -> String {
                self.to_string()
            }
        })*
    };
}

param_value_as_text!(u8, u32, u64, usize, i64, &str, String);

impl ParamError {
    /// The error for `field` with `value` (shown as text), where `allowed`
    /// says what would be accepted.
    pub fn new(field: &'static str, value: impl ParamValue, allowed: impl Into<String>) -> Self {
        ParamError {
            field,
            value: value.param_text(),
            allowed: allowed.into(),
        }
    }

    /// Ok for an initial window of 2 (the RFC 9002 7.2 minimum window) to
    /// [`crate::MAX_INITIAL_WINDOW_PKTS`] datagrams.
    pub fn check_initial_window(initial_cwnd_pkts: usize) -> Result<(), Self> {
        if !(2..=crate::types::MAX_INITIAL_WINDOW_PKTS).contains(&initial_cwnd_pkts) {
            return Err(ParamError::new(
                "initial_cwnd_pkts",
                initial_cwnd_pkts,
                format!(
                    "an integer from 2 (the RFC 9002 7.2 minimum window) to {}",
                    crate::types::MAX_INITIAL_WINDOW_PKTS
                ),
            ));
        }
        Ok(())
    }

    /// Ok for 1 to [`crate::MAX_DATAGRAM_SIZE_BYTES`] bytes.
    pub fn check_max_datagram_size(max_datagram_size: usize) -> Result<(), Self> {
        if !(1..=crate::types::MAX_DATAGRAM_SIZE_BYTES).contains(&max_datagram_size) {
            return Err(ParamError::new(
                "max_datagram_size",
                max_datagram_size,
                format!("1 to {} bytes", crate::types::MAX_DATAGRAM_SIZE_BYTES),
            ));
        }
        Ok(())
    }

    /// Ok for a multiplicative decrease in (0, 1) (RFC 9002 7.3.2).
    pub fn check_loss_reduction_factor(factor: f64) -> Result<(), Self> {
        if factor.is_finite() && factor > 0.0 && factor < 1.0 {
            Ok(())
        } else {
            Err(ParamError::new(
                "loss_reduction_factor",
                factor,
                "a finite number in (0, 1)",
            ))
        }
    }

    /// Ok for None or a pacing gain in [`crate::PACING_GAIN_RANGE`].
    pub fn check_pacing_gain(value: Option<f64>) -> Result<(), Self> {
        match value {
            Some(gain) if !crate::types::PACING_GAIN_RANGE.contains(&gain) => Err(ParamError::new(
                "pacing_gain",
                gain,
                format!(
                    "a number from {} to {}, or none",
                    crate::types::PACING_GAIN_RANGE.start(),
                    crate::types::PACING_GAIN_RANGE.end()
                ),
            )),
            _ => Ok(()),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_shown_as_a_person_writes_them() {
        let shown = |v: f64| ParamError::new("alpha_pkts", v, "x").value;
        assert_eq!(shown(1e300), "1e300");
        assert_eq!(shown(1e-300), "1e-300");
        assert_eq!(shown(3.0), "3");
        assert_eq!(shown(0.25), "0.25");
        assert_eq!(shown(f64::NAN), "NaN");
        assert_eq!(shown(f64::INFINITY), "inf");
    }

    #[test]
    fn pacing_gains_outside_the_range_are_refused() {
        for gain in [1e-9, 0.05, 10.5, f64::NAN, f64::INFINITY, -1.0] {
            let e = ParamError::check_pacing_gain(Some(gain)).unwrap_err();
            assert_eq!(e.field, "pacing_gain");
            assert!(e.allowed.contains("0.1") && e.allowed.contains("10"), "{e}");
        }
        for gain in [None, Some(0.1), Some(1.0), Some(1.25), Some(10.0)] {
            assert!(ParamError::check_pacing_gain(gain).is_ok(), "{gain:?}");
        }
    }
}
