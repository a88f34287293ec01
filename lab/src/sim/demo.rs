//! The demo: the built-in scenario `demo` (one flow moving 1 MB over the
//! Vegas paper's Fig. 6 bottleneck: 200 KB/s, 10 packets of buffer, 50 ms
//! round-trip propagation) once per algorithm.

use anyhow::Result;

use super::Scenario;
use quiche_vegas::Algorithm;

/// Algorithms `cargo xtask demo` compares.
pub const ALGORITHMS: [Algorithm; 3] =
    [Algorithm::NewReno, Algorithm::Vegas, Algorithm::QuicheCubic];

/// The demo scenario with its flow running `algorithm`.
pub fn scenario(algorithm: Algorithm, seed: u64) -> Result<Scenario> {
    Scenario::load(
        "demo",
        &[
            format!("flows.0.algorithm={}", algorithm.name()),
            format!("seed={seed}"),
        ],
    )
}
