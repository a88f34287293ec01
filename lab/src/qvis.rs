//! Export quiche's qlog as qlog 0.3 JSON that qvis (the qlog visualizer)
//! loads.
//!
//! quiche 0.30 writes JSON-SEQ qlog whose header lacks `qlog_version` and
//! `qlog_format`, and names events in the newer `quic:` scheme; qvis
//! (`QlogLoader.fromJSON`) wants `qlog_version` in the top-level object
//! (`"0.3"` is one of its draft-02 aliases) and looks events up by the older
//! categories: its congestion graph reads `transport:packet_sent`,
//! `transport:packet_received` (ACK frames with `acked_ranges`),
//! `recovery:metrics_updated` (`congestion_window`, `bytes_in_flight`,
//! `min_rtt`, `smoothed_rtt`, `latest_rtt`), `recovery:packet_lost`
//! (`header.packet_type`, `header.packet_number`) and
//! `transport:parameters_set` (`owner`).
//!
//! The export:
//! - one qlog file, format `JSON`, one trace per endpoint, with
//!   `vantage_point`, `common_fields.time_format = "relative"` and a shared
//!   `reference_time`, events renamed by [`qvis_name`] and sorted by time;
//! - both endpoints of a connection on one time base: exactly when both
//!   qlogs record their time origin (`time_origin_ms=`, see
//!   [`quiche_vegas::qlog::setup_writer`]), else estimated from packets seen by
//!   both, NTP-style (the minimum one-way delays are taken as equal);
//! - `recovery:packet_lost` events inferred from retransmitted stream data
//!   ([`crate::qlog_read::retransmitted_packets`]) when the qlog has none, as
//!   quiche 0.30 writes none; they carry `trigger: "inferred_retransmission"`;
//! - our `vegas:*` events unchanged (qvis lists them in its event views);
//! - files larger than a browser handles well (default 50 MB: qvis parses
//!   the whole file in the page) split by time into parts that each load
//!   alone, their titles saying `part i of n` and why; at most
//!   [`MAX_PARTS`] parts (a tiny limit is refused, not obeyed with
//!   thousands of files).

use std::collections::BTreeMap;
use std::collections::HashMap;
use std::path::Path;
use std::path::PathBuf;

use serde_json::json;
use serde_json::Value;

use crate::qlog_read::Record;
use crate::qlog_read::Trace;

/// The `qlog_version` written (qvis accepts `"0.3"` as draft-02).
pub const QLOG_VERSION: &str = "0.3";
/// Default largest file, in bytes, before splitting.
pub const DEFAULT_MAX_FILE_BYTES: usize = 50_000_000;
/// Most files one export is split into: a smaller `max_file_bytes` than
/// that allows is refused rather than writing thousands of files.
pub const MAX_PARTS: usize = 1000;

/// The qvis (qlog draft-02 / 0.3) name of a quiche qlog 0.18 event.
pub fn qvis_name(name: &str) -> String {
    let Some((category, event)) = name.split_once(':') else {
        return name.to_string();
    };
    let renamed = match (category, event) {
        ("quic", "stream_data_moved") => "transport:data_moved".to_string(),
        ("quic", "recovery_parameters_set") => "recovery:parameters_set".to_string(),
        ("quic", "recovery_metrics_updated") => "recovery:metrics_updated".to_string(),
        ("quic", "timer_updated") => "recovery:loss_timer_updated".to_string(),
        ("quic", "congestion_state_updated" | "packet_lost" | "marked_for_retransmit") => {
            format!("recovery:{event}")
        }
        (
            "quic",
            "server_listening"
            | "connection_started"
            | "connection_closed"
            | "connection_id_updated"
            | "spin_bit_updated"
            | "connection_state_updated"
            | "mtu_updated",
        ) => format!("connectivity:{event}"),
        ("quic", "key_updated" | "key_retired") => format!("security:{event}"),
        ("quic", _) => format!("transport:{event}"),
        ("http3", _) => format!("http:{event}"),
        ("loglevel", level) => format!("{level}:message"),
        _ => name.to_string(),
    };
    renamed
}

/// How a trace was put on the export's time base: `t_export = t_qlog +
/// offset_ms`.
#[derive(Debug, Clone, PartialEq)]
pub struct Alignment {
    pub source: String,
    pub offset_ms: f64,
    /// How the offset was found, for the user.
    pub method: String,
}

/// Export options.
#[derive(Debug, Clone)]
pub struct ExportOptions {
    /// Split into parts above this size.
    pub max_file_bytes: usize,
    /// The group's title.
    pub title: String,
}

impl Default for ExportOptions {
    fn default() -> Self {
        ExportOptions {
            max_file_bytes: DEFAULT_MAX_FILE_BYTES,
            title: "quiche-vegas".into(),
        }
    }
}

/// An export: the JSON of each file, and what was done.
#[derive(Debug, Clone)]
pub struct Export {
    /// One qlog JSON document per file (more than one when split).
    pub parts: Vec<String>,
    pub alignments: Vec<Alignment>,
    /// `recovery:packet_lost` events inferred, per trace.
    pub inferred_losses: Vec<usize>,
    /// Events skipped when reading the traces (unknown), per trace.
    pub skipped_unknown: Vec<u64>,
}

/// Packet key: (packet type, packet number).
type PacketKey = (String, u64);

fn packet_key(record: &Record) -> Option<PacketKey> {
    let header = record.data.get("header")?;
    Some((
        header.get("packet_type")?.as_str()?.to_string(),
        header.get("packet_number")?.as_u64()?,
    ))
}

/// First send / receive time (ms, trace time) of each packet.
fn packet_times(trace: &Trace, name: &str, send: bool) -> HashMap<PacketKey, f64> {
    let mut times = HashMap::new();
    for r in trace.named(name) {
        if let Some(key) = packet_key(r) {
            let t = if send {
                crate::qlog_read::send_time_ms(r)
            } else {
                r.time_ms
            };
            times.entry(key).or_insert(t);
        }
    }
    times
}

/// The offset that puts `other` on `reference`'s time base.
pub fn align(reference: &Trace, other: &Trace) -> Alignment {
    let source = other.source.clone();
    if let (Some(a), Some(b)) = (reference.time_origin_ms(), other.time_origin_ms()) {
        return Alignment {
            source,
            offset_ms: b - a,
            method: "exact: time origins recorded in both qlogs".into(),
        };
    }
    // Packets reference -> other and other -> reference: the smallest
    // apparent one-way delay each way. With t_reference = t_other + offset,
    // forward = owd_f - offset and backward = owd_b + offset; equal minimum
    // delays give offset = (backward - forward) / 2, and causality bounds it
    // to [-forward, backward].
    let min_delay = |from: &Trace, to: &Trace| {
        let sent = packet_times(from, "quic:packet_sent", true);
        let received = packet_times(to, "quic:packet_received", false);
        received
            .iter()
            .filter_map(|(key, rx)| sent.get(key).map(|tx| rx - tx))
            .reduce(f64::min)
    };
    match (min_delay(reference, other), min_delay(other, reference)) {
        (Some(forward_ms), Some(backward_ms)) => {
            let offset_ms = (backward_ms - forward_ms) / 2.0;
            Alignment {
                source,
                offset_ms,
                method: format!(
                    "estimated from packets both endpoints logged, minimum one-way delays taken \
                     as equal (within +/-{:.3} ms)",
                    (forward_ms + backward_ms).abs() / 2.0
                ),
            }
        }
        _ => Alignment {
            source,
            offset_ms: 0.0,
            method: "none: no time origins and no packet seen by both; times as written".into(),
        },
    }
}

/// Adds `owner` to `parameters_set` (qvis reads it; quiche writes
/// `initiator`), leaves everything else as written.
fn qvis_data(record: &Record) -> Value {
    let mut data = record.data.clone();
    if record.name == "quic:parameters_set" {
        if let (Some(initiator), Some(map)) = (
            record.str("initiator").map(String::from),
            data.as_object_mut(),
        ) {
            map.entry("owner").or_insert(Value::String(initiator));
        }
    }
    data
}

/// Why an export could not be built.
#[derive(Debug, Clone, PartialEq)]
pub enum ExportError {
    NoTraces,
    /// Splitting at `max_file_bytes` would need more than [`MAX_PARTS`]
    /// files.
    TooManyParts {
        parts: usize,
        total_bytes: usize,
        max_file_bytes: usize,
    },
    /// An event could not be serialized.
    Json(String),
}

impl std::fmt::Display for ExportError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ExportError::NoTraces => write!(f, "no traces to export"),
            ExportError::TooManyParts {
                parts,
                total_bytes,
                max_file_bytes,
            } => write!(
                f,
                "the export is {:.1} MB: parts of at most {:.3} MB would make {parts} files, \
                 more than {MAX_PARTS}; allow larger parts",
                *total_bytes as f64 / 1e6,
                *max_file_bytes as f64 / 1e6
            ),
            ExportError::Json(e) => write!(f, "cannot serialize an event: {e}"),
        }
    }
}

impl std::error::Error for ExportError {}

/// Builds the export of `traces` (endpoints of one connection, or any
/// traces). The first client trace is the time reference.
pub fn export(traces: &[Trace], options: &ExportOptions) -> Result<Export, ExportError> {
    if traces.is_empty() {
        return Err(ExportError::NoTraces);
    }
    let reference = traces
        .iter()
        .position(|t| t.vantage_point == "client")
        .unwrap_or(0);
    let mut alignments = Vec::new();
    let mut inferred_losses = Vec::new();
    // (time in export ms, trace index, serialized event)
    let mut events: Vec<(f64, usize, String)> = Vec::new();
    for (index, trace) in traces.iter().enumerate() {
        let alignment = if index == reference {
            Alignment {
                source: trace.source.clone(),
                offset_ms: 0.0,
                method: "time reference".into(),
            }
        } else {
            align(&traces[reference], trace)
        };
        let offset_ms = alignment.offset_ms;
        let mut converted: Vec<(f64, String, Value)> = trace
            .events
            .iter()
            .map(|r| (r.time_ms + offset_ms, qvis_name(&r.name), qvis_data(r)))
            .collect();
        let mut inferred = 0;
        if trace.named("quic:packet_lost").next().is_none() {
            for p in crate::qlog_read::retransmitted_packets(trace) {
                inferred += 1;
                converted.push((
                    p.resent_ms + offset_ms,
                    "recovery:packet_lost".into(),
                    json!({
                        "header": {"packet_type": p.packet_type, "packet_number": p.packet_number},
                        "raw": {"length": p.length_bytes},
                        "trigger": "inferred_retransmission",
                    }),
                ));
            }
        }
        converted.sort_by(|a, b| a.0.total_cmp(&b.0));
        for (time_ms, name, data) in converted {
            let time_ms = (time_ms * 1e3).round() / 1e3;
            let text = serde_json::to_string(&json!({"time": time_ms, "name": name, "data": data}))
                .map_err(|e| ExportError::Json(e.to_string()))?;
            events.push((time_ms, index, text));
        }
        alignments.push(alignment);
        inferred_losses.push(inferred);
    }
    events.sort_by(|a, b| a.0.total_cmp(&b.0));

    // Split by time so each part stays under the limit.
    let overhead_bytes = 4096 * traces.len();
    let budget = options.max_file_bytes.saturating_sub(overhead_bytes).max(1);
    let mut chunks: Vec<std::ops::Range<usize>> = Vec::new();
    let mut start = 0;
    let mut size = 0;
    for (i, (_, _, text)) in events.iter().enumerate() {
        if size + text.len() + 2 > budget && i > start {
            chunks.push(start..i);
            start = i;
            size = 0;
        }
        size += text.len() + 2;
    }
    chunks.push(start..events.len());

    let total_bytes: usize = events.iter().map(|e| e.2.len() + 2).sum();
    if chunks.len() > MAX_PARTS {
        return Err(ExportError::TooManyParts {
            parts: chunks.len(),
            total_bytes,
            max_file_bytes: options.max_file_bytes,
        });
    }
    let parts = chunks
        .iter()
        .enumerate()
        .map(|(n, range)| {
            let slice = &events[range.clone()];
            let (from_ms, to_ms) = (
                slice.first().map_or(0.0, |e| e.0),
                slice.last().map_or(0.0, |e| e.0),
            );
            let (title, description) = if chunks.len() == 1 {
                (options.title.clone(), String::new())
            } else {
                (
                    format!("{} (part {} of {})", options.title, n + 1, chunks.len()),
                    format!(
                        "Split into {} parts because the whole export is {:.1} MB, more than \
                         the {:.1} MB a browser tab loads comfortably; this part holds the \
                         events from {from_ms:.3} ms to {to_ms:.3} ms.",
                        chunks.len(),
                        total_bytes as f64 / 1e6,
                        options.max_file_bytes as f64 / 1e6
                    ),
                )
            };
            render_part(traces, &alignments, slice, &title, &description)
        })
        .collect();
    Ok(Export {
        parts,
        alignments,
        inferred_losses,
        skipped_unknown: traces.iter().map(Trace::unknown_count).collect(),
    })
}

/// One qlog 0.3 JSON document: the header, then each trace with its slice
/// of events (written as text so a large export is not held twice).
fn render_part(
    traces: &[Trace],
    alignments: &[Alignment],
    events: &[(f64, usize, String)],
    title: &str,
    description: &str,
) -> String {
    let mut out = String::new();
    out.push_str(&format!(
        "{{\"qlog_version\":\"{QLOG_VERSION}\",\"qlog_format\":\"JSON\",\"title\":{},\"description\":{},\"traces\":[",
        json!(title),
        json!(description)
    ));
    let mut first_trace = true;
    for (index, trace) in traces.iter().enumerate() {
        if !first_trace {
            out.push(',');
        }
        first_trace = false;
        let header = json!({
            "title": trace.title.clone().unwrap_or_else(|| trace.source.clone()),
            "description": format!(
                "{} (from {}; time base: {})",
                trace.description.clone().unwrap_or_default(),
                trace.source,
                alignments[index].method
            ),
            "vantage_point": {"type": trace.vantage_point, "name": trace.title},
            "common_fields": {
                "protocol_type": "QUIC",
                "time_format": "relative",
                "reference_time": 0,
            },
            "configuration": {"time_units": "ms", "time_offset": 0},
        });
        let header = header.to_string();
        // Open the trace object and add the events array by hand.
        out.push_str(&header[..header.len() - 1]);
        out.push_str(",\"events\":[\n");
        let mut first_event = true;
        for (_, _, text) in events.iter().filter(|e| e.1 == index) {
            if !first_event {
                out.push_str(",\n");
            }
            first_event = false;
            out.push_str(text);
        }
        out.push_str("]}");
    }
    out.push_str("]}\n");
    out
}

/// Where the parts of an export go: `out` itself, or for a split export
/// `out` with `.partN` before its extension.
pub fn part_paths(out: &Path, parts: usize) -> Vec<PathBuf> {
    if parts <= 1 {
        return vec![out.to_path_buf()];
    }
    let stem = out
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "export".into());
    let extension = out
        .extension()
        .map(|e| format!(".{}", e.to_string_lossy()))
        .unwrap_or_default();
    (1..=parts)
        .map(|n| out.with_file_name(format!("{stem}.part{n}of{parts}{extension}")))
        .collect()
}

/// Writes the export's files; returns their paths.
pub fn write(export: &Export, out: &Path) -> std::io::Result<Vec<PathBuf>> {
    let paths = part_paths(out, export.parts.len());
    for (path, text) in paths.iter().zip(&export.parts) {
        std::fs::write(path, text)?;
    }
    Ok(paths)
}

/// The other endpoint's qlog next to `path`, by the simulator's and
/// [`quiche_vegas::qlog::setup`]'s naming (`...-server.sqlog` / `...-client.sqlog`).
pub fn peer_path(path: &Path) -> Option<PathBuf> {
    let name = path.file_name()?.to_str()?;
    let peer = if name.contains("-server.") {
        name.replacen("-server.", "-client.", 1)
    } else if name.contains("-client.") {
        name.replacen("-client.", "-server.", 1)
    } else {
        return None;
    };
    let peer = path.with_file_name(peer);
    peer.exists().then_some(peer)
}

/// Counts of events per name in an export part, for summaries and tests.
pub fn event_counts(part: &Value) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    for trace in part["traces"].as_array().into_iter().flatten() {
        for event in trace["events"].as_array().into_iter().flatten() {
            if let Some(name) = event["name"].as_str() {
                *counts.entry(name.to_string()).or_default() += 1;
            }
        }
    }
    counts
}
