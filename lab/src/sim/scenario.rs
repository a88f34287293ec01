//! Scenario files: TOML descriptions of an experiment (network, flows,
//! receiver ACK policy, background traffic), `--set` overrides by dotted
//! path, units, and validation that names the field, the value and what is
//! allowed.
//!
//! ```toml
//! name = "demo"
//! duration = "120s"              # time limit
//! [bottleneck]
//! rate = "200KB/s"               # bit/s, kbit/s, Mbit/s, Gbit/s, B/s, KB/s, MB/s (K = 1000)
//! delay = "25ms"                 # one-way propagation
//! buffer_pkts = 10               # waiting room (the packet in service not counted)
//! [[flows]]
//! algorithm = "vegas"
//! bytes = 1000000                # or duration = "30s"
//! params = { alpha = 1, beta = 3 }
//! ```
//!
//! Every key is listed in the structs below (`deny_unknown_fields`).
//!
//! Hostile paths: `loss` with `loss_burst_pkts` (bursty loss), `changes`
//! with `loss = 1.0` (a blackhole) or a new `delay` (spikes), and on the
//! bottleneck and the reverse link `reorder` (a fraction of packets
//! arriving `reorder_delay` late) and `duplicate` (a fraction arriving
//! twice).
//!
//! Recorded links: `trace = "path"` on the bottleneck or the reverse link
//! (instead of `rate`) serves it with a mahimahi trace of delivery
//! opportunities (`vegas_link_model::trace`: one 1500-byte opportunity per
//! line, repeated at its end), behind the same drop-tail buffer; a
//! malformed trace is an error naming the field, the file and the line.
//!
//! Real-socket noise: `jitter` on the bottleneck and the reverse link adds
//! to each packet's delay a seeded draw from an exponential distribution
//! of that mean (capped at [`JITTER_CAP_MEANS`] means), without
//! reordering: a packet never arrives before the one sent ahead of it on
//! the same link. The link emulator's own timer error is close to that
//! shape (measured: docs/constants.md, `sim::scenario::Impairments::jitter`),
//! and the two QUIC endpoints' event loops add theirs.
//!
//! Paper runs: `handshake = "ahead"` runs each flow's QUIC handshake and
//! request before its start, where its controller cannot see them, so the
//! measured transfer begins from the initial window with nothing learned,
//! as the papers' simulators had it ([`Handshake`]); the default,
//! `"in-band"`, is what a real connection does.
//!
//! `start_phasing = "one-packet"` offsets each flow's start by a seeded
//! draw below one packet time of the bottleneck ([`StartPhasing`]), so that
//! the seeds of flows that start "at the same time" run over their order.
//!
//! The simulator wakes a sender its controller holds
//! (`vegas_cc::spec::Driver::WakesAtHolds`), so flows may use `newreno`'s
//! `tick_wait` (1995 BSD Reno's wait for its 500 ms tick), which a real
//! event loop refuses. Without a `tick_phase_ms`, the clock's phase is
//! drawn per flow from the seed, on a stream of its own.
//!
//! Bounds, so that no scenario panics, wraps around or runs out of memory:
//! every duration at most 1 day ([`MAX_DURATION`]); rates from 1 bit/s to
//! 1000 Gbit/s; buffers at most 1,000,000 packets; `receiver.max_ack_delay`
//! below 2^14 ms (RFC 9000 18.2); at most 1,000 `[[flows]]`, each starting
//! before `duration`; at most 2,000 background flows expected; a delay
//! variation of at most 100,000 steps.

use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use anyhow::anyhow;
use anyhow::bail;
use anyhow::Context;
use anyhow::Result;
use serde::de;
use serde::Deserialize;
use serde::Deserializer;
use serde::Serialize;
use vegas_link_model::trace::DeliveryTrace;

use quiche_vegas::Algorithm;
use quiche_vegas::CcSpec;

/// A rate in bit/s, written with a unit: `10Mbit/s`, `200KB/s`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Rate(pub u64);

/// A duration written with a unit: `25ms`, `1.5s`, `200us`, `0`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Dur(pub Duration);

const RATE_UNITS: &[(&str, f64)] = &[
    ("Gbit/s", 1e9),
    ("Mbit/s", 1e6),
    ("kbit/s", 1e3),
    ("Kbit/s", 1e3),
    ("bit/s", 1.0),
    ("bps", 1.0),
    ("GB/s", 8e9),
    ("MB/s", 8e6),
    ("KB/s", 8e3),
    ("kB/s", 8e3),
    ("B/s", 8.0),
];

const RATE_ALLOWED: &str = "a number with a unit: bit/s, kbit/s, Mbit/s, Gbit/s, B/s, KB/s, MB/s, \
     GB/s (K = 1000), from 1 bit/s to 1000 Gbit/s";

/// The fastest link a scenario may have: 1000 Gbit/s, far above any path
/// we measure, and small enough that serialization times stay exact.
pub const MAX_RATE_BPS: u64 = 1_000_000_000_000;

/// The longest duration any field may hold: a day of virtual time, so that
/// sums of times (a start plus a duration plus a delay) cannot overflow.
pub const MAX_DURATION: Duration = Duration::from_secs(86_400);

/// The most flows a scenario may list: each is a pair of quiche
/// connections, whose memory this bounds (measured: docs/constants.md,
/// `sim::scenario::MAX_FLOWS`).
pub const MAX_FLOWS: usize = 1_000;

/// The most background flows a scenario may expect (arrivals per second x
/// the seconds they arrive over); finished connections are kept for the
/// summary, so this bounds memory. Arrivals stop at twice this many.
pub const MAX_BACKGROUND_FLOWS: f64 = 2_000.0;

/// The most link changes a delay variation may schedule (duration / step).
pub const MAX_VARIATION_STEPS: u128 = 100_000;

/// The largest drop-tail buffer: 1,000,000 packets (1.2 GB of 1200-byte
/// datagrams), 50 times the 1 Gbit/s x 200 ms pipe.
pub const MAX_BUFFER_PKTS: usize = 1_000_000;

/// RFC 9000 18.2: max_ack_delay values of 2^14 ms or more are invalid
/// (quiche then refuses the peer's transport parameters: nothing moves).
pub const MAX_ACK_DELAY: Duration = Duration::from_millis((1 << 14) - 1);

const DURATION_UNITS: &[(&str, f64)] = &[
    ("ns", 1e-9),
    ("us", 1e-6),
    ("ms", 1e-3),
    ("min", 60.0),
    ("s", 1.0),
];

const DURATION_ALLOWED: &str = "a number >= 0 with a unit: ns, us, ms, s, min; at most 1 day";

impl Rate {
    pub fn parse(text: &str) -> Result<Rate, String> {
        let t = text.trim();
        for (unit, scale) in RATE_UNITS {
            if let Some(number) = t.strip_suffix(unit) {
                let v: f64 = number
                    .trim()
                    .parse()
                    .map_err(|_| format!("invalid rate `{text}`: {RATE_ALLOWED}"))?;
                let bps = (v * scale).round();
                if !(1.0..=MAX_RATE_BPS as f64).contains(&bps) {
                    return Err(format!("invalid rate `{text}`: {RATE_ALLOWED}"));
                }
                return Ok(Rate(bps as u64));
            }
        }
        Err(format!("invalid rate `{text}`: {RATE_ALLOWED}"))
    }
}

impl Dur {
    pub fn parse(text: &str) -> Result<Dur, String> {
        let t = text.trim();
        if t == "0" {
            return Ok(Dur(Duration::ZERO));
        }
        for (unit, scale) in DURATION_UNITS {
            if let Some(number) = t.strip_suffix(unit) {
                let v: f64 = number
                    .trim()
                    .parse()
                    .map_err(|_| format!("invalid duration `{text}`: {DURATION_ALLOWED}"))?;
                let seconds = v * scale;
                if !(0.0..=MAX_DURATION.as_secs_f64()).contains(&seconds) {
                    return Err(format!("invalid duration `{text}`: {DURATION_ALLOWED}"));
                }
                return Ok(Dur(Duration::from_secs_f64(seconds)));
            }
        }
        Err(format!("invalid duration `{text}`: {DURATION_ALLOWED}"))
    }
}

impl<'de> Deserialize<'de> for Rate {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Rate::parse(&s).map_err(de::Error::custom)
    }
}

impl<'de> Deserialize<'de> for Dur {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Dur::parse(&s).map_err(de::Error::custom)
    }
}

impl fmt::Display for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}bit/s", self.0)
    }
}

/// A scheduled change of a link at time `at`.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LinkChange {
    pub at: Dur,
    pub rate: Option<Rate>,
    pub delay: Option<Dur>,
    pub loss: Option<f64>,
}

/// A slowly varying delay (e.g. a LEO path): the delay moves between
/// `min` and `max` as a triangle wave of `period`, updated every `step`.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct DelayVariation {
    pub min: Dur,
    pub max: Dur,
    pub period: Dur,
    #[serde(default = "default_variation_step")]
    pub step: Dur,
}

fn default_variation_step() -> Dur {
    Dur(Duration::from_millis(100))
}

/// The shared bottleneck link (the data direction).
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LinkConfig {
    /// The serializer's rate; or
    pub rate: Option<Rate>,
    /// a mahimahi trace of delivery opportunities (a file path, relative
    /// to the working directory) that serves the link instead
    /// (`vegas_link_model::trace`).
    pub trace: Option<String>,
    /// One-way propagation delay.
    pub delay: Dur,
    /// Drop-tail waiting room in packets.
    pub buffer_pkts: usize,
    /// Packet error rate in [0, 1).
    #[serde(default)]
    pub loss: f64,
    /// Mean length of a loss burst in packets (1 = independent losses;
    /// larger: a Gilbert two-state model with the same overall `loss`).
    #[serde(default = "one")]
    pub loss_burst_pkts: f64,
    #[serde(default)]
    pub changes: Vec<LinkChange>,
    pub delay_variation: Option<DelayVariation>,
    /// ACK aggregation: packets are held and released in a burst every
    /// `aggregation` interval.
    pub aggregation: Option<Dur>,
    /// Fraction of packets that arrive `reorder_delay` late, behind
    /// packets sent after them (a hostile path; 0 by default).
    #[serde(default)]
    pub reorder: f64,
    #[serde(default = "default_reorder_delay")]
    pub reorder_delay: Dur,
    /// Fraction of packets that arrive twice (0 by default).
    #[serde(default)]
    pub duplicate: f64,
    /// Mean extra delay per packet, exponential, FIFO kept (module
    /// documentation); 0 by default.
    #[serde(default = "no_jitter")]
    pub jitter: Dur,
}

/// What a hostile path does to packets once they leave a link: a fraction
/// `reorder` arrives `reorder_delay` late (behind packets sent after it),
/// and a fraction `duplicate` arrives twice. Drawn from their own seeded
/// stream, so they leave every other random draw untouched.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Impairments {
    pub reorder: f64,
    pub reorder_delay: Duration,
    pub duplicate: f64,
    /// Mean of the exponential extra delay of each packet (FIFO kept).
    pub jitter: Duration,
}

/// A jitter draw is at most this many means: the exponential's tail cut
/// where it would stand for a stall, not for noise (our choice).
pub const JITTER_CAP_MEANS: f64 = 10.0;

/// Upper bound of a link's `jitter` (a mean far above any timer noise).
pub const MAX_JITTER: Duration = Duration::from_millis(100);

fn no_jitter() -> Dur {
    Dur(Duration::ZERO)
}

fn default_reorder_delay() -> Dur {
    Dur(Duration::from_millis(10))
}

impl Impairments {
    fn new(reorder: f64, reorder_delay: Dur, duplicate: f64, jitter: Dur) -> Self {
        Impairments {
            reorder,
            reorder_delay: reorder_delay.0,
            duplicate,
            jitter: jitter.0,
        }
    }

    pub fn is_active(&self) -> bool {
        self.reorder > 0.0 || self.duplicate > 0.0 || !self.jitter.is_zero()
    }

    /// One packet's extra delay from a uniform draw `u` in [0, 1): the
    /// exponential's inverse CDF, capped at [`JITTER_CAP_MEANS`] means.
    pub fn jitter_ns(&self, u: f64) -> u64 {
        let mean_ns = self.jitter.as_nanos() as f64;
        let draw = -mean_ns * (1.0 - u).max(f64::MIN_POSITIVE).ln();
        draw.min(JITTER_CAP_MEANS * mean_ns) as u64
    }
}

/// Loads the trace of link field `link` (None: a fixed-rate link); an
/// error names the field, the file and the line.
pub fn load_trace(link: &str, path: Option<&str>) -> Result<Option<Arc<DeliveryTrace>>> {
    path.map(|path| {
        DeliveryTrace::load(Path::new(path))
            .map(Arc::new)
            .map_err(|e| anyhow!("field `{link}.trace`: {e}"))
    })
    .transpose()
}

impl LinkConfig {
    /// The configured rate; a trace-driven link has none (its rate is its
    /// trace's, [`DeliveryTrace::mean_rate_bps`]).
    pub fn rate_bps(&self) -> Option<u64> {
        self.rate.map(|r| r.0)
    }

    pub fn impairments(&self) -> Impairments {
        Impairments::new(
            self.reorder,
            self.reorder_delay,
            self.duplicate,
            self.jitter,
        )
    }
}

impl ReverseConfig {
    pub fn impairments(&self) -> Impairments {
        Impairments::new(
            self.reorder,
            self.reorder_delay,
            self.duplicate,
            self.jitter,
        )
    }
}

fn one() -> f64 {
    1.0
}

/// The reverse (ACK) path's shared link. Uncongested unless configured.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ReverseConfig {
    /// Default 1 Gbit/s.
    pub rate: Option<Rate>,
    /// A mahimahi trace that serves the link instead of `rate`.
    pub trace: Option<String>,
    /// Default: the bottleneck's delay (a symmetric path).
    pub delay: Option<Dur>,
    /// Default 10000.
    pub buffer_pkts: Option<usize>,
    #[serde(default)]
    pub loss: f64,
    pub aggregation: Option<Dur>,
    /// Fraction of packets that arrive `reorder_delay` late, behind
    /// packets sent after them (a hostile path; 0 by default).
    #[serde(default)]
    pub reorder: f64,
    #[serde(default = "default_reorder_delay")]
    pub reorder_delay: Dur,
    /// Fraction of packets that arrive twice (0 by default).
    #[serde(default)]
    pub duplicate: f64,
    /// Mean extra delay per packet, exponential, FIFO kept (module
    /// documentation); 0 by default.
    #[serde(default = "no_jitter")]
    pub jitter: Dur,
}

/// A flow's own access link between its sender and the bottleneck (the
/// same delay is added on its reverse path).
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct AccessConfig {
    #[serde(default = "default_access_rate")]
    pub rate: Rate,
    #[serde(default = "zero_dur")]
    pub delay: Dur,
    #[serde(default = "default_big_buffer")]
    pub buffer_pkts: usize,
    /// Scheduled changes, e.g. a route change (delay step). A delay change
    /// applies to both directions of the access path.
    #[serde(default)]
    pub changes: Vec<LinkChange>,
}

impl Default for AccessConfig {
    fn default() -> Self {
        AccessConfig {
            rate: default_access_rate(),
            delay: zero_dur(),
            buffer_pkts: default_big_buffer(),
            changes: Vec::new(),
        }
    }
}

fn default_access_rate() -> Rate {
    Rate(1_000_000_000)
}
fn default_big_buffer() -> usize {
    10_000
}
fn zero_dur() -> Dur {
    Dur(Duration::ZERO)
}

/// A flow: a client asks, the server (the sender under test) answers.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FlowConfig {
    pub algorithm: String,
    #[serde(default)]
    pub params: BTreeMap<String, toml::Value>,
    /// Bytes to send; or
    pub bytes: Option<u64>,
    /// send for this long.
    pub duration: Option<Dur>,
    #[serde(default = "zero_dur")]
    pub start: Dur,
    #[serde(default)]
    pub access: AccessConfig,
}

/// The receiver's ACK policy (what the QUIC ACK-frequency draft lets a
/// sender ask for): acknowledge after `ack_every_pkts` packets or after
/// `max_ack_delay`, whichever comes first. Defaults: RFC 9000 section
/// 13.2.2 (every second packet) and 13.2.1 (25 ms).
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ReceiverConfig {
    #[serde(default = "default_ack_every")]
    pub ack_every_pkts: u32,
    #[serde(default = "default_max_ack_delay")]
    pub max_ack_delay: Dur,
}

impl Default for ReceiverConfig {
    fn default() -> Self {
        ReceiverConfig {
            ack_every_pkts: default_ack_every(),
            max_ack_delay: default_max_ack_delay(),
        }
    }
}

fn default_ack_every() -> u32 {
    2
}
fn default_max_ack_delay() -> Dur {
    Dur(Duration::from_millis(25))
}

/// Short flows with Poisson arrivals and Pareto sizes, standing in for the
/// Vegas paper's tcplib background traffic (Brakmo & Peterson section IV-B).
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct BackgroundConfig {
    #[serde(default = "default_background_algorithm")]
    pub algorithm: String,
    /// Mean arrivals per second (Poisson process).
    pub arrivals_per_sec: f64,
    /// Mean flow size in bytes.
    pub mean_bytes: u64,
    /// Pareto shape (> 1; heavier tail as it nears 1).
    #[serde(default = "default_pareto_shape")]
    pub pareto_shape: f64,
    #[serde(default = "zero_dur")]
    pub start: Dur,
    pub stop: Option<Dur>,
}

fn default_background_algorithm() -> String {
    "newreno".into()
}
fn default_pareto_shape() -> f64 {
    1.2
}

/// Where the flows' QUIC handshakes happen.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Handshake {
    /// In the measured transfer, as on a real path: the flow's start sends
    /// the client's Initial, and the handshake's packets, RTT samples and
    /// acknowledged bytes reach the server's controller.
    #[default]
    InBand,
    /// Ahead of the flow's start, as the papers' simulators had it (ns-2's
    /// and the x-kernel's agents had no handshake in the measured
    /// transfer): the handshake and the request run on the flow's own
    /// path, alone and before time 0 if need be; the server's controller
    /// sees none of it ([`quiche_vegas::StartGate`]) and starts from its
    /// initial window at the flow's start, when the response's first
    /// packet leaves. The flow's counters and qlogs begin there too.
    /// Only for vegas-cc algorithms and the scenario's own flows (the
    /// background keeps its handshakes).
    Ahead,
}

/// Seeded offsets of the flows' starts: where a paper starts flows "at the
/// same time", which of them sends first is an accident of its simulator's
/// event order, and a run's outcome can hang on it. Running the seeds over
/// start offsets shows the spread instead of one fixed order.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum StartPhasing {
    /// Each flow starts at its `start`.
    #[default]
    None,
    /// Each flow starts at its `start` plus a draw, uniform and seeded (its
    /// own random stream), below one packet time of the bottleneck:
    /// `max_datagram_size` at the bottleneck's rate (a trace's mean rate).
    OnePacket,
}

/// A whole experiment.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    pub name: String,
    #[serde(default)]
    pub description: String,
    /// Which paper figure or table it reproduces, if any.
    #[serde(default)]
    pub reproduces: String,
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Time limit: the run ends here even if flows are not done.
    pub duration: Dur,
    #[serde(default = "default_mds")]
    pub max_datagram_size: usize,
    pub bottleneck: LinkConfig,
    #[serde(default)]
    pub reverse: ReverseConfig,
    #[serde(default)]
    pub receiver: ReceiverConfig,
    pub flows: Vec<FlowConfig>,
    pub background: Option<BackgroundConfig>,
    /// Where each flow's QUIC handshake happens ([`Handshake`]).
    #[serde(default)]
    pub handshake: Handshake,
    /// Seeded offsets of the flows' starts ([`StartPhasing`]).
    #[serde(default)]
    pub start_phasing: StartPhasing,
    /// Write one qlog per connection into the output folder.
    #[serde(default)]
    pub qlog: bool,
    /// What the paper published for this experiment (`vegas-lab
    /// reproduce`).
    #[serde(default)]
    pub paper: Option<super::paper::PaperSection>,
}

fn default_seed() -> u64 {
    1
}
fn default_mds() -> usize {
    1200
}

/// Built-in scenarios: name, TOML.
pub const BUILTINS: &[(&str, &str)] = &[
    ("demo", include_str!("../../../scenarios/demo.toml")),
    (
        "ack-frequency",
        include_str!("../../../scenarios/ack-frequency.toml"),
    ),
    (
        "route-change",
        include_str!("../../../scenarios/route-change.toml"),
    ),
    (
        "gallop-vegas",
        include_str!("../../../scenarios/gallop-vegas.toml"),
    ),
    (
        "gallop-vegas-buffer30",
        include_str!("../../../scenarios/gallop-vegas-buffer30.toml"),
    ),
    (
        "gallop-vegas-example2",
        include_str!("../../../scenarios/gallop-vegas-example2.toml"),
    ),
    (
        "vegas-a-reroute",
        include_str!("../../../scenarios/vegas-a-reroute.toml"),
    ),
    (
        "vegas-compat-reno",
        include_str!("../../../scenarios/vegas-compat-reno.toml"),
    ),
    (
        "gamma-selection",
        include_str!("../../../scenarios/gamma-selection.toml"),
    ),
];

/// Parses `value` as a TOML value (number, bool, string, array, table);
/// anything TOML cannot read is taken as a plain string.
fn toml_value(value: &str) -> toml::Value {
    toml::from_str::<toml::Table>(&format!("v = {value}"))
        .ok()
        .and_then(|mut t| t.remove("v"))
        .unwrap_or_else(|| toml::Value::String(value.to_string()))
}

/// Sets `path` (dotted; numbers index arrays) to `value` in `doc`.
pub fn apply_override(doc: &mut toml::Value, path: &str, value: &str) -> Result<()> {
    let parts: Vec<&str> = path.split('.').collect();
    if parts.iter().any(|p| p.is_empty()) {
        bail!("invalid --set path `{path}`: use dotted keys such as bottleneck.buffer_pkts");
    }
    let mut node = doc;
    for (i, part) in parts.iter().enumerate() {
        let last = i + 1 == parts.len();
        let here = parts[..i].join(".");
        node = match node {
            toml::Value::Table(t) => {
                if last {
                    t.insert(part.to_string(), toml_value(value));
                    return Ok(());
                }
                t.entry(part.to_string())
                    .or_insert_with(|| toml::Value::Table(toml::Table::new()))
            }
            toml::Value::Array(a) => {
                let index: usize = part.parse().map_err(|_| {
                    anyhow!("--set {path}: `{here}` is a list; `{part}` must be an index")
                })?;
                let len = a.len();
                let slot = a.get_mut(index).ok_or_else(|| {
                    anyhow!(
                        "--set {path}: `{here}` has {len} entr{} (indexes 0..{}); {index} does not exist",
                        if len == 1 { "y" } else { "ies" },
                        len.saturating_sub(1)
                    )
                })?;
                if last {
                    *slot = toml_value(value);
                    return Ok(());
                }
                slot
            }
            _ => bail!("--set {path}: `{here}` is a value, not a table or list"),
        };
    }
    Ok(())
}

impl Scenario {
    /// Reads a scenario from TOML text, applies `overrides` (`path=value`)
    /// and validates it. `origin` names the source in errors.
    pub fn from_toml(text: &str, origin: &str, overrides: &[String]) -> Result<Scenario> {
        let mut doc: toml::Value =
            toml::from_str(text).with_context(|| format!("{origin}: not valid TOML"))?;
        for o in overrides {
            let (path, value) = o
                .split_once('=')
                .ok_or_else(|| anyhow!("invalid --set `{o}`: expected path=value"))?;
            apply_override(&mut doc, path.trim(), value.trim())?;
        }
        let scenario: Scenario = serde_path_to_error::deserialize(doc).map_err(|e| {
            let path = e.path().to_string();
            // toml's message repeats the path on a line of its own.
            anyhow!("{origin}: field `{path}`: {}", e.into_inner().message())
        })?;
        scenario
            .validate()
            .with_context(|| format!("{origin}: invalid scenario"))?;
        Ok(scenario)
    }

    /// A built-in name or a file path.
    pub fn load(name_or_path: &str, overrides: &[String]) -> Result<Scenario> {
        if let Some((_, text)) = BUILTINS.iter().find(|(n, _)| *n == name_or_path) {
            return Scenario::from_toml(text, name_or_path, overrides);
        }
        let text = std::fs::read_to_string(name_or_path).with_context(|| {
            format!(
                "`{name_or_path}` is neither a built-in scenario ({}) nor a readable file",
                BUILTINS
                    .iter()
                    .map(|(n, _)| *n)
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        })?;
        Scenario::from_toml(&text, name_or_path, overrides)
    }

    /// The congestion control of flow `i`, validated.
    pub fn flow_cc(&self, i: usize) -> Result<CcSpec> {
        cc_spec(&self.flows[i].algorithm, &self.flows[i].params)
            .with_context(|| format!("flows.{i}"))
    }

    fn validate(&self) -> Result<()> {
        if let Some(paper) = &self.paper {
            paper.validate()?;
        }
        if self.duration.0.is_zero() {
            bail!("field `duration`: value 0; allowed: a time limit > 0");
        }
        if self.max_datagram_size < 1200 || self.max_datagram_size > 65527 {
            bail!(
                "field `max_datagram_size`: value {}; allowed: 1200..=65527 bytes",
                self.max_datagram_size
            );
        }
        match (&self.bottleneck.rate, &self.bottleneck.trace) {
            (None, None) => bail!(
                "field `bottleneck.rate`: missing; allowed: a rate (e.g. \"10Mbit/s\"), or \
                 `bottleneck.trace` = the path of a mahimahi trace"
            ),
            (Some(_), Some(_)) => {
                bail!("bottleneck: give `rate` or `trace`, not both (a trace sets the rate)")
            }
            _ => {}
        }
        if self.reverse.rate.is_some() && self.reverse.trace.is_some() {
            bail!("reverse: give `rate` or `trace`, not both (a trace sets the rate)");
        }
        load_trace("bottleneck", self.bottleneck.trace.as_deref())?;
        load_trace("reverse", self.reverse.trace.as_deref())?;
        if self.bottleneck.trace.is_some() {
            if let Some(j) = self
                .bottleneck
                .changes
                .iter()
                .position(|c| c.rate.is_some())
            {
                bail!(
                    "field `bottleneck.changes.{j}.rate`: a trace-driven link's rate is its \
                     trace's; allowed: no rate change with `bottleneck.trace`"
                );
            }
        }
        check_loss("bottleneck.loss", self.bottleneck.loss)?;
        check_loss("reverse.loss", self.reverse.loss)?;
        if self.bottleneck.loss_burst_pkts.is_nan() || self.bottleneck.loss_burst_pkts < 1.0 {
            bail!(
                "field `bottleneck.loss_burst_pkts`: value {}; allowed: a mean burst length >= 1",
                self.bottleneck.loss_burst_pkts
            );
        }
        for (j, c) in self.bottleneck.changes.iter().enumerate() {
            // A change may black the link out (loss 1) for a while; the
            // Gilbert model needs a loss below 1.
            let field = format!("bottleneck.changes.{j}.loss");
            match c.loss {
                Some(1.0) if self.bottleneck.loss_burst_pkts == 1.0 => {}
                Some(1.0) => bail!(
                    "field `{field}`: value 1; allowed: 1 (a blackhole) only with \
                     bottleneck.loss_burst_pkts = 1, else a packet error rate in [0, 1)"
                ),
                Some(l) => check_loss(&field, l)?,
                None => {}
            }
        }
        for (link, imp) in [
            ("bottleneck", self.bottleneck.impairments()),
            ("reverse", self.reverse.impairments()),
        ] {
            check_loss(&format!("{link}.reorder"), imp.reorder)?;
            check_loss(&format!("{link}.duplicate"), imp.duplicate)?;
            if imp.jitter > MAX_JITTER {
                bail!(
                    "field `{link}.jitter`: value {:?}; allowed: at most {MAX_JITTER:?} \
                     (a mean per-packet delay noise)",
                    imp.jitter
                );
            }
        }
        if let Some(v) = &self.bottleneck.delay_variation {
            if v.min.0 > v.max.0 || v.period.0.is_zero() || v.step.0.is_zero() {
                bail!(
                    "field `bottleneck.delay_variation`: need min <= max, period > 0 and step > 0"
                );
            }
            let steps = self.duration.0.as_nanos() / v.step.0.as_nanos();
            if steps > MAX_VARIATION_STEPS {
                bail!(
                    "field `bottleneck.delay_variation.step`: value {:?}; allowed: at least \
                     duration / {MAX_VARIATION_STEPS} ({:?} for this scenario's {:?})",
                    v.step.0,
                    self.duration.0 / MAX_VARIATION_STEPS as u32,
                    self.duration.0
                );
            }
        }
        let buffers = [
            (
                "bottleneck.buffer_pkts".to_string(),
                Some(self.bottleneck.buffer_pkts),
            ),
            ("reverse.buffer_pkts".to_string(), self.reverse.buffer_pkts),
        ]
        .into_iter()
        .chain(self.flows.iter().enumerate().map(|(i, f)| {
            (
                format!("flows.{i}.access.buffer_pkts"),
                Some(f.access.buffer_pkts),
            )
        }));
        for (field, buffer) in buffers {
            if let Some(b) = buffer.filter(|&b| b > MAX_BUFFER_PKTS) {
                bail!("field `{field}`: value {b}; allowed: at most {MAX_BUFFER_PKTS} packets");
            }
        }
        if self.receiver.max_ack_delay.0 > MAX_ACK_DELAY {
            bail!(
                "field `receiver.max_ack_delay`: value {:?}; allowed: at most {:?} \
                 (RFC 9000 18.2: 2^14 ms or more is invalid)",
                self.receiver.max_ack_delay.0,
                MAX_ACK_DELAY
            );
        }
        if self.flows.is_empty() {
            bail!("field `flows`: empty; allowed: at least one [[flows]] entry");
        }
        if self.flows.len() > MAX_FLOWS {
            bail!(
                "field `flows`: {} entries; allowed: at most {MAX_FLOWS}",
                self.flows.len()
            );
        }
        for (i, f) in self.flows.iter().enumerate() {
            match (f.bytes, f.duration) {
                (Some(0), _) => bail!("field `flows.{i}.bytes`: value 0; allowed: > 0"),
                (Some(_), None) => {}
                (None, Some(d)) if !d.0.is_zero() => {}
                (None, Some(_)) => bail!("field `flows.{i}.duration`: value 0; allowed: > 0"),
                (Some(_), Some(_)) => {
                    bail!("flows.{i}: give `bytes` or `duration`, not both")
                }
                (None, None) => bail!("flows.{i}: give `bytes` or `duration`"),
            }
            if f.start.0 >= self.duration.0 {
                bail!(
                    "field `flows.{i}.start`: value {:?}; allowed: before the scenario's \
                     duration ({:?})",
                    f.start.0,
                    self.duration.0
                );
            }
            let cc = self.flow_cc(i)?;
            if self.handshake == Handshake::Ahead && !cc.algorithm.is_vegas_cc() {
                bail!(
                    "field `handshake`: value \"ahead\" with flows.{i}.algorithm = \"{}\"; \
                     allowed: \"ahead\" only when every flow runs a vegas-cc algorithm \
                     (quiche's own controllers cannot be kept from the handshake), else \
                     \"in-band\"",
                    f.algorithm
                );
            }
        }
        if let Some(b) = &self.background {
            cc_spec(&b.algorithm, &BTreeMap::new()).context("background")?;
            if b.arrivals_per_sec.is_nan()
                || b.arrivals_per_sec <= 0.0
                || !b.arrivals_per_sec.is_finite()
            {
                bail!(
                    "field `background.arrivals_per_sec`: value {}; allowed: > 0",
                    b.arrivals_per_sec
                );
            }
            if b.pareto_shape.is_nan() || b.pareto_shape <= 1.0 || !b.pareto_shape.is_finite() {
                bail!(
                    "field `background.pareto_shape`: value {}; allowed: > 1 (a finite mean)",
                    b.pareto_shape
                );
            }
            if b.mean_bytes == 0 {
                bail!("field `background.mean_bytes`: value 0; allowed: > 0");
            }
            let end = b.stop.map_or(self.duration.0, |s| s.0.min(self.duration.0));
            let expected_flows = b.arrivals_per_sec * end.saturating_sub(b.start.0).as_secs_f64();
            if expected_flows > MAX_BACKGROUND_FLOWS {
                bail!(
                    "field `background.arrivals_per_sec`: value {}; allowed: at most {} \
                     background flows expected over the arrival period ({:.0} here: \
                     lower the rate or shorten start..stop)",
                    b.arrivals_per_sec,
                    MAX_BACKGROUND_FLOWS,
                    expected_flows
                );
            }
        }
        if self.receiver.ack_every_pkts == 0 {
            bail!("field `receiver.ack_every_pkts`: value 0; allowed: >= 1");
        }
        Ok(())
    }
}

fn check_loss(field: &str, loss: f64) -> Result<()> {
    if !(0.0..1.0).contains(&loss) {
        bail!("field `{field}`: value {loss}; allowed: a packet error rate in [0, 1)");
    }
    Ok(())
}

/// An algorithm name and TOML parameters as a validated [`CcSpec`], for
/// the simulator: it wakes a sender whose controller holds it
/// (`vegas_cc::spec::Driver::WakesAtHolds`), so keys such as `newreno`'s
/// `tick_wait` are accepted here and nowhere else.
pub fn cc_spec(algorithm: &str, params: &BTreeMap<String, toml::Value>) -> Result<CcSpec> {
    let algorithm: Algorithm = algorithm.parse()?;
    let params = params
        .iter()
        .map(|(k, v)| {
            let text = match v {
                toml::Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            (k.clone(), text)
        })
        .collect();
    Ok(CcSpec::new_for(
        quiche_vegas::vegas_cc::spec::Driver::WakesAtHolds,
        algorithm,
        params,
    )?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_and_durations_parse_with_units() {
        assert_eq!(Rate::parse("10Mbit/s").unwrap(), Rate(10_000_000));
        assert_eq!(Rate::parse("200KB/s").unwrap(), Rate(1_600_000));
        assert_eq!(Rate::parse("1.5 Gbit/s").unwrap(), Rate(1_500_000_000));
        assert_eq!(Dur::parse("25ms").unwrap(), Dur(Duration::from_millis(25)));
        assert_eq!(
            Dur::parse("1.5s").unwrap(),
            Dur(Duration::from_millis(1500))
        );
        assert_eq!(Dur::parse("0").unwrap(), Dur(Duration::ZERO));
        for bad in ["-5Mbit/s", "0Mbit/s", "10", "10 furlongs/s", "NaNbit/s"] {
            let e = Rate::parse(bad).unwrap_err();
            assert!(e.contains(bad) && e.contains("Mbit/s"), "{e}");
        }
        assert!(Dur::parse("-1ms").is_err());
        assert!(Dur::parse("5").is_err());
    }

    #[test]
    fn builtin_demo_loads() {
        let s = Scenario::load("demo", &[]).unwrap();
        assert_eq!(s.flows.len(), 1);
        assert_eq!(s.bottleneck.buffer_pkts, 10);
        assert_eq!(s.bottleneck.rate, Some(Rate(1_600_000)));
    }

    #[test]
    fn overrides_set_any_field_by_dotted_path() {
        let s = Scenario::load(
            "demo",
            &[
                "bottleneck.buffer_pkts=30".into(),
                "flows.0.algorithm=newreno".into(),
                "flows.0.params.pacing_gain=2".into(),
                "bottleneck.rate=10Mbit/s".into(),
            ],
        )
        .unwrap();
        assert_eq!(s.bottleneck.buffer_pkts, 30);
        assert_eq!(s.flows[0].algorithm, "newreno");
        assert_eq!(s.bottleneck.rate, Some(Rate(10_000_000)));
        assert_eq!(s.flow_cc(0).unwrap().params["pacing_gain"], "2");
    }

    fn err(overrides: &[&str]) -> String {
        let o: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
        format!("{:#}", Scenario::load("demo", &o).unwrap_err())
    }

    #[test]
    fn bad_input_names_field_value_and_what_is_allowed() {
        let e = err(&["flows.3.algorithm=vegas"]);
        assert!(
            e.contains("flows") && e.contains('3') && e.contains("1 entry"),
            "{e}"
        );
        let e = err(&["bottleneck.sped=3"]);
        assert!(e.contains("sped") && e.contains("rate"), "{e}");
        let e = err(&["bottleneck.rate=-10Mbit/s"]);
        assert!(
            e.contains("bottleneck.rate") && e.contains("-10Mbit/s"),
            "{e}"
        );
        let e = err(&["bottleneck.delay=20 parsecs"]);
        assert!(e.contains("bottleneck.delay") && e.contains("ms"), "{e}");
        let e = err(&["flows.0.algorithm=vegass"]);
        assert!(e.contains("vegass") && e.contains("newreno"), "{e}");
        let e = err(&["flows.0.params.alpha=9"]);
        assert!(e.contains("alpha") || e.contains("beta"), "{e}");
        let e = err(&["bottleneck.loss=1.5"]);
        assert!(e.contains("bottleneck.loss") && e.contains("1.5"), "{e}");
        let e = err(&["bottleneck.buffer_pkts=-3"]);
        assert!(e.contains("bottleneck.buffer_pkts"), "{e}");
        let e = err(&["bottleneck.reorder=1.5"]);
        assert!(e.contains("bottleneck.reorder") && e.contains("1.5"), "{e}");
        let e = err(&["reverse.duplicate=-0.1"]);
        assert!(e.contains("reverse.duplicate") && e.contains("-0.1"), "{e}");
    }

    #[test]
    fn times_rates_and_sizes_have_upper_bounds() {
        // Each used to panic, wrap around or run out of memory.
        for (set, field, allowed) in [
            (
                "bottleneck.delay=1e30s",
                "bottleneck.delay",
                "at most 1 day",
            ),
            (
                "bottleneck.delay=18446744073s",
                "bottleneck.delay",
                "at most 1 day",
            ),
            ("duration=18446744074s", "duration", "at most 1 day"),
            ("flows.0.start=1e20s", "flows[0].start", "at most 1 day"),
            (
                "flows.0.start=1000s",
                "flows.0.start",
                "before the scenario's duration",
            ),
            (
                "receiver.max_ack_delay=16384ms",
                "receiver.max_ack_delay",
                "16.383s",
            ),
            (
                "bottleneck.rate=0.1bit/s",
                "bottleneck.rate",
                "from 1 bit/s",
            ),
            (
                "bottleneck.rate=1e30bit/s",
                "bottleneck.rate",
                "1000 Gbit/s",
            ),
            (
                "bottleneck.buffer_pkts=100000000",
                "bottleneck.buffer_pkts",
                "1000000",
            ),
            (
                "reverse.buffer_pkts=100000000",
                "reverse.buffer_pkts",
                "1000000",
            ),
        ] {
            let e = err(&[set]);
            assert!(
                e.contains(field) && e.contains(allowed) && !e.contains("\nin `"),
                "{set}: {e}"
            );
        }
        assert!(Scenario::load("demo", &["receiver.max_ack_delay=16383ms".into()]).is_ok());
        assert!(Scenario::load("demo", &["bottleneck.rate=1bit/s".into()]).is_ok());
        let variation = [
            "bottleneck.delay_variation.min=10ms",
            "bottleneck.delay_variation.max=30ms",
            "bottleneck.delay_variation.period=10s",
            "bottleneck.delay_variation.step=1ns",
        ];
        let e = err(&variation);
        assert!(
            e.contains("delay_variation.step") && e.contains("1ns"),
            "{e}"
        );
        let e = err(&[
            "background.arrivals_per_sec=1e6",
            "background.mean_bytes=10000",
        ]);
        assert!(
            e.contains("background.arrivals_per_sec") && e.contains("2000"),
            "{e}"
        );
        let mut many = String::from(BUILTINS[0].1);
        for _ in 0..MAX_FLOWS {
            many.push_str("\n[[flows]]\nalgorithm = \"vegas\"\nbytes = 1000\n");
        }
        let e = format!("{:#}", Scenario::from_toml(&many, "many", &[]).unwrap_err());
        assert!(
            e.contains("field `flows`") && e.contains("at most 1000"),
            "{e}"
        );
    }
}
