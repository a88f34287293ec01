//! Algorithm names and parameters, validated (`CcSpec`). The one call that
//! configures a `quiche::Config` for them, `CcSpec::configure`, is in
//! `adapter.rs`, the bridge to quiche's congestion trait.
//!
//! Names: the `vegas-cc` controllers (the Vegas family `vegas`, `vegas-a`,
//! `gallop-vegas`, `vegas-compat` and their combinations, and `newreno`) run
//! through the patched quiche's public congestion trait; quiche's own
//! `reno`, `cubic` and `bbr2` are selected with `Config::set_cc_algorithm()`
//! and stay untouched.

use std::fmt;
use std::str::FromStr;

use crate::Error;

/// A congestion-control algorithm quiche-vegas can put on a connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Algorithm {
    /// TCP Vegas (Brakmo & Peterson 1995), from `vegas-cc`.
    Vegas,
    /// Vegas with Vegas-A adaptive alpha/beta (Srijith et al. 2005).
    VegasA,
    /// Vegas with Gallop-Vegas slow start (Ho, Chan & Chen).
    GallopVegas,
    /// Gallop-Vegas slow start and Vegas-A avoidance.
    GallopVegasA,
    /// Vegas with Reno-compatible alpha/beta (Feng & Vanichpun 2003).
    VegasCompat,
    /// Vegas-A starting from Reno-compatible alpha/beta.
    VegasACompat,
    /// Gallop-Vegas slow start with Reno-compatible alpha/beta.
    GallopVegasCompat,
    /// Gallop-Vegas slow start, Vegas-A avoidance, Reno-compatible start.
    GallopVegasACompat,
    /// NewReno (RFC 9002 section 7), from `vegas-cc`.
    NewReno,
    /// quiche's built-in Reno.
    QuicheReno,
    /// quiche's built-in CUBIC.
    QuicheCubic,
    /// quiche's built-in BBRv2 (gcongestion).
    QuicheBbr2,
}

pub use vegas_cc::spec::Family;

impl Algorithm {
    /// Every algorithm, in the order names are listed in errors.
    pub const ALL: [Algorithm; 12] = [
        Algorithm::Vegas,
        Algorithm::VegasA,
        Algorithm::GallopVegas,
        Algorithm::GallopVegasA,
        Algorithm::VegasCompat,
        Algorithm::VegasACompat,
        Algorithm::GallopVegasCompat,
        Algorithm::GallopVegasACompat,
        Algorithm::NewReno,
        Algorithm::QuicheReno,
        Algorithm::QuicheCubic,
        Algorithm::QuicheBbr2,
    ];

    /// The name used on command lines and in scenario files (the Vegas
    /// family's names are `vegas_cc::vegas::FAMILY_NAMES`).
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Vegas => "vegas",
            Algorithm::VegasA => "vegas-a",
            Algorithm::GallopVegas => "gallop-vegas",
            Algorithm::GallopVegasA => "gallop-vegas-a",
            Algorithm::VegasCompat => "vegas-compat",
            Algorithm::VegasACompat => "vegas-a-compat",
            Algorithm::GallopVegasCompat => "gallop-vegas-compat",
            Algorithm::GallopVegasACompat => "gallop-vegas-a-compat",
            Algorithm::NewReno => "newreno",
            Algorithm::QuicheReno => "reno",
            Algorithm::QuicheCubic => "cubic",
            Algorithm::QuicheBbr2 => "bbr2",
        }
    }

    /// The composition of a Vegas-family algorithm (None for others).
    pub fn family(self) -> Option<Family> {
        vegas_cc::spec::family(self.name())
    }

    /// Whether the controller comes from `vegas-cc` (else it is quiche's).
    pub fn is_vegas_cc(self) -> bool {
        self.family().is_some() || self == Algorithm::NewReno
    }

    fn valid_names() -> String {
        Algorithm::ALL
            .iter()
            .map(|a| a.name())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

impl fmt::Display for Algorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Algorithm {
    type Err = Error;

    fn from_str(name: &str) -> Result<Self, Error> {
        Algorithm::ALL
            .iter()
            .copied()
            .find(|a| a.name() == name)
            .ok_or_else(|| Error::UnknownAlgorithm {
                name: name.to_string(),
                valid: Algorithm::valid_names(),
            })
    }
}

pub use vegas_cc::spec::Params;

/// Parses `key=value` into a parameter map entry.
pub fn parse_param(text: &str) -> Result<(String, String), Error> {
    match text.split_once('=') {
        Some((k, v)) if !k.trim().is_empty() => Ok((k.trim().to_string(), v.trim().to_string())),
        _ => Err(Error::Param {
            field: "cc-param".into(),
            value: text.into(),
            allowed: "key=value".into(),
        }),
    }
}

/// An algorithm with its parameters, validated.
#[derive(Clone, Debug, PartialEq)]
pub struct CcSpec {
    pub algorithm: Algorithm,
    pub params: Params,
}

impl CcSpec {
    /// Validates `params` for `algorithm` (unknown keys and bad values are
    /// errors naming the field).
    pub fn new(algorithm: Algorithm, params: Params) -> Result<Self, Error> {
        Self::new_for(vegas_cc::spec::Driver::EventsOnly, algorithm, params)
    }

    /// Like [`CcSpec::new`], for a `driver`: with
    /// [`vegas_cc::spec::Driver::WakesAtHolds`] (a simulator that wakes the
    /// sender through a [`crate::HoldAlarm`]) keys that hold the sender are
    /// accepted too.
    pub fn new_for(
        driver: vegas_cc::spec::Driver,
        algorithm: Algorithm,
        params: Params,
    ) -> Result<Self, Error> {
        let spec = CcSpec { algorithm, params };
        if algorithm.is_vegas_cc() {
            // Building once validates every parameter.
            vegas_cc::spec::build_for(driver, algorithm.name(), &spec.params, 10, 1350)?;
        } else if let Some(key) = spec.params.keys().next() {
            return Err(Error::Param {
                field: key.clone(),
                value: spec.params[key].clone(),
                allowed: format!("{} takes no parameters", algorithm),
            });
        }
        Ok(spec)
    }

    /// An algorithm with its defaults.
    pub fn plain(algorithm: Algorithm) -> Self {
        CcSpec {
            algorithm,
            params: Params::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for a in Algorithm::ALL {
            assert_eq!(a.name().parse::<Algorithm>().unwrap(), a);
        }
    }

    #[test]
    fn unknown_name_lists_valid_ones() {
        let err = "vegass".parse::<Algorithm>().unwrap_err().to_string();
        assert!(err.contains("vegass"), "{err}");
        for a in Algorithm::ALL {
            assert!(err.contains(a.name()), "{err}");
        }
    }

    #[test]
    fn quiche_algorithms_take_no_params() {
        let mut p = Params::new();
        p.insert("alpha".into(), "1".into());
        let err = CcSpec::new(Algorithm::QuicheCubic, p).unwrap_err();
        assert!(err.to_string().contains("alpha"), "{err}");
    }

    #[test]
    fn the_tick_wait_is_for_a_driver_that_wakes_the_sender() {
        let p: Params = [("reno_1995", "true"), ("tick_wait", "true")]
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let err = CcSpec::new(Algorithm::NewReno, p.clone()).unwrap_err();
        let Error::Param { field, allowed, .. } = &err else {
            panic!("{err}");
        };
        assert_eq!(field, "tick_wait");
        assert!(allowed.contains("simulator"), "{err}");
        let driver = vegas_cc::spec::Driver::WakesAtHolds;
        CcSpec::new_for(driver, Algorithm::NewReno, p).unwrap();
    }

    #[test]
    fn param_needs_key_and_value() {
        assert!(parse_param("alpha").is_err());
        assert!(parse_param("=3").is_err());
        assert_eq!(
            parse_param("beta = 4").unwrap(),
            ("beta".to_string(), "4".to_string())
        );
    }
}
