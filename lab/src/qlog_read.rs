//! Reading qlogs back, for the lab's trace graphs and qvis export.
//!
//! [`Trace::read`] is strict: a truncated or malformed record is an error
//! naming the record number and what was wrong; events of unknown
//! categories are skipped and counted; a trace without events is an error.
//! [`Trace::read_tolerant`] (what `vegas-lab plot` and `qvis` use) keeps
//! every record that parses and reports in a [`Salvage`] what it skipped:
//! the last record when the file ends inside it (a writer killed
//! mid-record) and any record that does not parse. A file without a
//! usable header, or without events, is still an error.
//! [`Trace::time_origin_ms`] reads the time origin that
//! `quiche_vegas::qlog::setup_writer` records.

use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

use quiche_vegas::qlog::NAMESPACE;
use quiche_vegas::qlog::TIME_ORIGIN_KEY;
use quiche_vegas::qlog::VEGAS_EVENTS;

/// A qlog that could not be read: which input, which record (1 is the
/// header, events count from 2; 0 is the file as a whole), what was wrong.
#[derive(Debug, Clone, PartialEq)]
pub struct TraceError {
    pub source: String,
    pub record: usize,
    pub what: String,
}

impl fmt::Display for TraceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.record == 0 {
            write!(f, "{}: {}", self.source, self.what)
        } else {
            write!(f, "{}: record {}: {}", self.source, self.record, self.what)
        }
    }
}

impl std::error::Error for TraceError {}

/// Where a JSON-SEQ qlog's trace (or header) keeps the wall-clock time of
/// its time 0.
const WALL_CLOCK_POINTER: &str = "/common_fields/reference_time/wall_clock_time";

/// One event of a trace, as written.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    /// Milliseconds since the trace's time 0.
    pub time_ms: f64,
    /// `category:event`, e.g. `quic:packet_sent` or `vegas:round_decision`.
    pub name: String,
    /// The event's data (an empty object when the event had none).
    pub data: serde_json::Value,
}

impl Record {
    /// A field of `data` as a number.
    pub fn f64(&self, field: &str) -> Option<f64> {
        self.data.get(field).and_then(serde_json::Value::as_f64)
    }

    /// A field of `data` as a string.
    pub fn str(&self, field: &str) -> Option<&str> {
        self.data.get(field).and_then(serde_json::Value::as_str)
    }
}

/// Event categories a reader of this crate understands: quiche's and ours.
const KNOWN_CATEGORIES: [&str; 3] = ["quic", "http3", "loglevel"];

/// A qlog trace (one connection endpoint), read strictly ([`Trace::read`])
/// or keeping what parses ([`Trace::read_tolerant`]).
#[derive(Debug, Clone)]
pub struct Trace {
    /// Where it came from (a path, or a name given by the caller).
    pub source: String,
    pub title: Option<String>,
    pub description: Option<String>,
    /// `client`, `server`, `network` or `unknown`.
    pub vantage_point: String,
    /// The UTC instant of time 0: `common_fields.reference_time.
    /// wall_clock_time` (qlog 0.18, quiche writes it), when present and
    /// RFC 3339.
    pub wall_clock_origin: Option<std::time::SystemTime>,
    /// The known events, in file order.
    pub events: Vec<Record>,
    /// Events skipped because their category or `vegas:` name is unknown,
    /// counted by name.
    pub unknown_events: BTreeMap<String, u64>,
}

/// A record a tolerant read skipped.
#[derive(Debug, Clone, PartialEq)]
pub struct SkippedRecord {
    /// Its number (1 is the header, events count from 2).
    pub record: usize,
    /// Where it starts in the file (its separator), in bytes.
    pub start_byte: usize,
    /// Why it was skipped.
    pub what: String,
}

/// What [`Trace::read_tolerant`] read and left out.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Salvage {
    /// Records read: the header and every event that parsed (known or not).
    pub records_read: usize,
    /// The file's length in bytes.
    pub file_bytes: usize,
    /// The last record, when the file ends inside it.
    pub truncated: Option<SkippedRecord>,
    /// Other records that did not parse, in file order.
    pub malformed: Vec<SkippedRecord>,
}

impl Salvage {
    /// Whether nothing was skipped.
    pub fn is_complete(&self) -> bool {
        self.truncated.is_none() && self.malformed.is_empty()
    }

    /// One line for the user naming `source`, what was skipped and how
    /// much was read; `None` when nothing was skipped.
    pub fn warning(&self, source: &str) -> Option<String> {
        if self.is_complete() {
            return None;
        }
        let mut parts = Vec::new();
        if let Some(t) = &self.truncated {
            parts.push(format!(
                "last record truncated at byte {} (record {}, from byte {}, skipped)",
                self.file_bytes, t.record, t.start_byte
            ));
        }
        match self.malformed.as_slice() {
            [] => {}
            [one] => parts.push(format!(
                "skipped record {} at byte {}: {}",
                one.record, one.start_byte, one.what
            )),
            [first, ..] => parts.push(format!(
                "skipped {} records that do not parse (first: record {} at byte {}: {})",
                self.malformed.len(),
                first.record,
                first.start_byte,
                first.what
            )),
        }
        Some(format!(
            "{source}: {}; read {} records",
            parts.join("; "),
            self.records_read
        ))
    }
}

/// One record of a qlog file, as bytes.
struct RawRecord<'a> {
    /// Counted from 1 (the header), blank records left out.
    number: usize,
    /// Where the record starts: its separator.
    start_byte: usize,
    /// Whether a newline ends it (in it, or as the separator after it):
    /// quiche ends every record with one, so one without was cut short.
    terminated: bool,
    bytes: &'a [u8],
}

/// The non-blank records of a qlog. JSON-SEQ splits at the record
/// separator; without one, at newlines.
fn split_records(bytes: &[u8]) -> Vec<RawRecord<'_>> {
    const RECORD_SEPARATOR: u8 = 0x1e;
    let separator = if bytes.contains(&RECORD_SEPARATOR) {
        RECORD_SEPARATOR
    } else {
        b'\n'
    };
    let mut records = Vec::new();
    let mut piece_start = 0;
    for piece in bytes.split(|&b| b == separator) {
        let piece_end = piece_start + piece.len();
        if !piece.iter().all(u8::is_ascii_whitespace) {
            records.push(RawRecord {
                number: records.len() + 1,
                start_byte: piece_start.saturating_sub(1),
                terminated: piece.ends_with(b"\n") || bytes.get(piece_end) == Some(&b'\n'),
                bytes: piece,
            });
        }
        piece_start = piece_end + 1;
    }
    records
}

/// Why an event record is unusable, if it is.
fn event_fields(value: &serde_json::Value) -> Result<(f64, &str, serde_json::Value), String> {
    let time_ms = value
        .get("time")
        .and_then(serde_json::Value::as_f64)
        .ok_or_else(|| "event without a numeric `time`".to_string())?;
    let name = value
        .get("name")
        .and_then(serde_json::Value::as_str)
        .ok_or_else(|| "event without a string `name`".to_string())?;
    let data = match value.get("data") {
        None => serde_json::Value::Object(Default::default()),
        Some(d) if d.is_object() => d.clone(),
        Some(_) => return Err(format!("`{name}`: `data` is not an object")),
    };
    Ok((time_ms, name, data))
}

impl Trace {
    /// Reads a JSON-SEQ qlog (quiche's `.sqlog`; newline-delimited JSON
    /// without record separators is accepted too), strictly.
    pub fn read(path: &Path) -> Result<Trace, TraceError> {
        let source = path.display().to_string();
        Trace::parse(&read_file(path, &source)?, &source)
    }

    /// Reads a qlog keeping every record that parses; the [`Salvage`]
    /// says what was skipped (e.g. the end of a qlog whose writer was
    /// killed). Errors only without a usable header or without events.
    pub fn read_tolerant(path: &Path) -> Result<(Trace, Salvage), TraceError> {
        let source = path.display().to_string();
        Trace::parse_tolerant(&read_file(path, &source)?, &source)
    }

    /// Parses the bytes of a JSON-SEQ qlog strictly; `source` names it in
    /// errors.
    pub fn parse(bytes: &[u8], source: &str) -> Result<Trace, TraceError> {
        Trace::parse_records(bytes, source, false).map(|(trace, _)| trace)
    }

    /// Parses the bytes of a JSON-SEQ qlog, skipping records that do not
    /// parse ([`Trace::read_tolerant`]).
    pub fn parse_tolerant(bytes: &[u8], source: &str) -> Result<(Trace, Salvage), TraceError> {
        Trace::parse_records(bytes, source, true)
    }

    fn parse_records(
        bytes: &[u8],
        source: &str,
        tolerant: bool,
    ) -> Result<(Trace, Salvage), TraceError> {
        let error = |record: usize, what: String| TraceError {
            source: source.to_string(),
            record,
            what,
        };
        let records = split_records(bytes);
        let last_record = records.len();
        let mut records = records.into_iter();
        let Some(header) = records.next() else {
            return Err(error(0, "empty file: no qlog header".into()));
        };
        let header: serde_json::Value = serde_json::from_slice(header.bytes).map_err(|e| {
            if e.is_eof() && last_record == 1 {
                error(
                    1,
                    format!(
                        "header is not JSON: the file ends inside it at byte {} ({e})",
                        bytes.len()
                    ),
                )
            } else {
                error(1, format!("header is not JSON: {e}"))
            }
        })?;
        let trace = header
            .get("trace")
            .filter(|t| t.is_object())
            .ok_or_else(|| {
                error(
                    1,
                    "header has no `trace` object: not a JSON-SEQ qlog".into(),
                )
            })?;
        let text = |v: Option<&serde_json::Value>| v.and_then(|v| v.as_str()).map(String::from);
        let mut out = Trace {
            source: source.to_string(),
            title: text(trace.get("title")).or_else(|| text(header.get("title"))),
            description: text(trace.get("description")).or_else(|| text(header.get("description"))),
            vantage_point: text(trace.pointer("/vantage_point/type"))
                .unwrap_or_else(|| "unknown".into()),
            wall_clock_origin: text(
                trace
                    .pointer(WALL_CLOCK_POINTER)
                    .or_else(|| header.pointer(WALL_CLOCK_POINTER)),
            )
            .and_then(|t| humantime::parse_rfc3339_weak(&t).ok()),
            events: Vec::new(),
            unknown_events: BTreeMap::new(),
        };
        let mut salvage = Salvage {
            records_read: 1,
            file_bytes: bytes.len(),
            ..Salvage::default()
        };
        for raw in records {
            let number = raw.number;
            let is_last = number == last_record;
            let parsed = serde_json::from_slice::<serde_json::Value>(raw.bytes)
                .map_err(|e| (e.is_eof(), format!("not JSON: {e}")))
                .and_then(|value| {
                    event_fields(&value)
                        .map(|(time_ms, name, data)| (time_ms, name.to_string(), data))
                        .map_err(|what| (false, what))
                });
            let (time_ms, name, data) = match parsed {
                Ok(fields) => fields,
                Err((eof, what)) if !tolerant => {
                    return Err(if eof && is_last {
                        error(
                            number,
                            format!(
                                "truncated: the file ends inside this record ({})",
                                what.trim_start_matches("not JSON: ")
                            ),
                        )
                    } else {
                        error(number, what)
                    });
                }
                Err((eof, what)) => {
                    let skipped = SkippedRecord {
                        record: number,
                        start_byte: raw.start_byte,
                        what,
                    };
                    if is_last && (eof || !raw.terminated) {
                        salvage.truncated = Some(skipped);
                    } else {
                        salvage.malformed.push(skipped);
                    }
                    continue;
                }
            };
            salvage.records_read += 1;
            if !is_known_event(&name) {
                *out.unknown_events.entry(name).or_default() += 1;
                continue;
            }
            out.events.push(Record {
                time_ms,
                name,
                data,
            });
        }
        if out.events.is_empty() {
            let unknown: u64 = out.unknown_events.values().sum();
            let unusable = salvage.malformed.len() + usize::from(salvage.truncated.is_some());
            let unusable = if unusable > 0 {
                format!(", {unusable} that do not parse skipped")
            } else {
                String::new()
            };
            return Err(error(
                0,
                format!(
                    "empty trace: no known events after the header ({unknown} unknown skipped{unusable})"
                ),
            ));
        }
        Ok((out, salvage))
    }

    /// The time origin [`setup_writer`] recorded: which instant of a clock
    /// shared with other traces (and the simulator's queue logs) qlog time
    /// 0 is, in milliseconds.
    pub fn time_origin_ms(&self) -> Option<f64> {
        [&self.description, &self.title]
            .into_iter()
            .flatten()
            .flat_map(|text| text.split_whitespace())
            .find_map(|word| word.strip_prefix(TIME_ORIGIN_KEY)?.parse().ok())
    }

    /// The events named `name`.
    pub fn named<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Record> + 'a {
        self.events.iter().filter(move |e| e.name == name)
    }

    /// Total events skipped as unknown.
    pub fn unknown_count(&self) -> u64 {
        self.unknown_events.values().sum()
    }
}

fn read_file(path: &Path, source: &str) -> Result<Vec<u8>, TraceError> {
    std::fs::read(path).map_err(|e| TraceError {
        source: source.to_string(),
        record: 0,
        what: format!("cannot read: {e}"),
    })
}

/// Whether a reader of this crate understands `name`: quiche's categories,
/// and the `vegas:` events of [`VEGAS_EVENTS`].
pub fn is_known_event(name: &str) -> bool {
    match name.split_once(':') {
        Some((NAMESPACE, _)) => VEGAS_EVENTS.contains(&name),
        Some((category, _)) => KNOWN_CATEGORIES.contains(&category),
        None => false,
    }
}

/// When a `quic:packet_sent` record's packet left: its `send_at_time` (the
/// pacer's release time) when present, else the event time, in ms.
pub fn send_time_ms(record: &Record) -> f64 {
    record.f64("send_at_time").unwrap_or(record.time_ms)
}

/// A sent packet whose stream data was sent again later (the Vegas
/// paper's "segment that is eventually retransmitted", Brakmo & Peterson II-B).
#[derive(Debug, Clone, PartialEq)]
pub struct Retransmitted {
    pub packet_type: String,
    pub packet_number: u64,
    /// When the packet was first sent, ms of trace time.
    pub sent_ms: f64,
    /// When some of its stream data was first sent again, ms of trace time.
    pub resent_ms: f64,
    pub length_bytes: u64,
}

/// The packets of `trace` (the data sender's) whose stream data was sent
/// again by a later packet, in order of first send. quiche 0.30 writes no
/// `packet_lost` events, so this is how losses (and spurious resends after
/// a PTO) show in a trace.
pub fn retransmitted_packets(trace: &Trace) -> Vec<Retransmitted> {
    // Per stream: start offset -> (end offset, index into `sent`).
    let mut ranges: BTreeMap<u64, BTreeMap<u64, (u64, usize)>> = BTreeMap::new();
    let mut sent: Vec<(Retransmitted, bool)> = Vec::new();
    for record in trace.named("quic:packet_sent") {
        let time_ms = send_time_ms(record);
        let Some(packet_number) = record
            .data
            .pointer("/header/packet_number")
            .and_then(|v| v.as_u64())
        else {
            continue;
        };
        let packet_type = record
            .data
            .pointer("/header/packet_type")
            .and_then(|v| v.as_str())
            .unwrap_or("unknown")
            .to_string();
        let index = sent.len();
        let mut carries_stream_data = false;
        for frame in record
            .data
            .get("frames")
            .and_then(|f| f.as_array())
            .into_iter()
            .flatten()
        {
            if frame.get("frame_type").and_then(|t| t.as_str()) != Some("stream") {
                continue;
            }
            let (Some(stream_id), Some(offset)) = (
                frame.get("stream_id").and_then(|v| v.as_u64()),
                frame.get("offset").and_then(|v| v.as_u64()),
            ) else {
                continue;
            };
            let length = frame
                .pointer("/raw/payload_length")
                .or_else(|| frame.get("length"))
                .and_then(|v| v.as_u64())
                .unwrap_or(0);
            if length == 0 {
                continue;
            }
            carries_stream_data = true;
            let end = offset + length;
            let stream = ranges.entry(stream_id).or_default();
            // Earlier frames overlapping [offset, end): start < end and
            // end > offset. A frame fits in one UDP datagram, so only
            // frames starting less than 64 KiB before `offset` can overlap.
            const MAX_FRAME_BYTES: u64 = 1 << 16;
            for (_, &(earlier_end, earlier)) in
                stream.range(offset.saturating_sub(MAX_FRAME_BYTES)..end)
            {
                if earlier < index && earlier_end > offset && !sent[earlier].1 {
                    sent[earlier].1 = true;
                    sent[earlier].0.resent_ms = time_ms;
                }
            }
            stream.insert(offset, (end, index));
        }
        if carries_stream_data {
            sent.push((
                Retransmitted {
                    packet_type,
                    packet_number,
                    sent_ms: time_ms,
                    resent_ms: f64::NAN,
                    length_bytes: record
                        .data
                        .pointer("/raw/length")
                        .and_then(|v| v.as_u64())
                        .unwrap_or(0),
                },
                false,
            ));
        }
    }
    sent.into_iter()
        .filter(|(_, resent)| *resent)
        .map(|(p, _)| p)
        .collect()
}
