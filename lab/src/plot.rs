//! Trace graphs drawn like the Vegas paper's (Brakmo & Peterson 1995,
//! Brakmo & Peterson section II-B): several panels over one time axis, built from a
//! sender's qlog and, for simulated runs, the bottleneck queue log.
//!
//! | panel | what | paper |
//! |---|---|---|
//! | windows | cwnd (thick), ssthresh (dashed), bytes in flight (thin), flow-control limit (gray) | Fig. 3 and Fig. 13 (the windows graph), top of Figs. 1, 5, 7 |
//! | sending rate | average over the last 12 packets sent | bottom of Fig. 1, second graph of Figs. 5, 7 |
//! | CAM | Expected and Actual, the alpha and beta thresholds, a tick per decision | Fig. 8, third graph of Fig. 7 |
//! | queue | bottleneck queue length, a mark per drop | the queue graphs of Figs. 5, 7, 11 |
//!
//! Every panel carries the common marks of Fig. 2: ACK ticks on the x-axis
//! (1), send ticks at the top (2), the KB count of data sent at the top of
//! the windows panel (3), a circle per PTO (5, the coarse timeout's QUIC
//! counterpart) and a vertical line at the send of every packet whose data
//! was later sent again (6). The diamonds of the coarse-grained timer
//! checks (4) have no QUIC counterpart (quiche arms a precise timer).
//!
//! Two or more flows can be drawn over each other (e.g. the Vegas / Vegas-A
//! comparison of Vegas-A Figs. 2-3): each flow has its color, its marks
//! have their own row.
//!
//! Choices: KB is 1000 bytes (the scenarios' unit). The sending rate at
//! packet i is the bytes of packets i-10..=i over the time since packet
//! i-11 was sent (12 packets, 11 gaps). The CAM thresholds are drawn, as in
//! Fig. 8, as rates: Expected - alpha * MSS / BaseRTT (top dashed line)
//! and Expected - beta * MSS / BaseRTT (bottom), so Actual above the top
//! line means Diff < alpha (increase) and below the bottom one Diff > beta
//! (decrease). MSS is the largest packet the sender sent (the
//! max_datagram_size Diff is counted in, for a bulk sender).

use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;

use crate::qlog_read;
use crate::qlog_read::Record;
use crate::qlog_read::Trace;
use crate::qlog_read::TraceError;
use quiche_vegas::qlog;

/// Bytes per KB on the figure's axes.
const BYTES_PER_KB: f64 = 1000.0;
/// The paper's sending-rate window: "calculated from the last 12 segments".
pub const RATE_WINDOW_PKTS: usize = 12;
/// KB-count labels at the top of the windows panel, every this many KB.
const KB_LABEL_STEP: u64 = 100;
/// The windows panel's height over the largest cwnd / bytes in flight.
const WINDOWS_HEADROOM: f64 = 1.6;

/// A point of a series: (seconds on the figure's time axis, value).
pub type Point = (f64, f64);

/// Everything drawn for one flow, in figure units (seconds, KB, KB/s).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FlowSeries {
    pub label: String,
    /// Added to the trace's qlog time (ms) to get the figure's time.
    pub time_shift_ms: f64,
    pub cwnd_kb: Vec<Point>,
    pub ssthresh_kb: Vec<Point>,
    pub bytes_in_flight_kb: Vec<Point>,
    /// The peer's connection flow-control limit minus the data it has
    /// acknowledged: how much more the sender may have unacknowledged.
    pub flow_control_kb: Vec<Point>,
    pub sending_rate_kb_per_s: Vec<Point>,
    pub expected_kb_per_s: Vec<Point>,
    pub actual_kb_per_s: Vec<Point>,
    pub alpha_threshold_kb_per_s: Vec<Point>,
    pub beta_threshold_kb_per_s: Vec<Point>,
    /// Times of the Vegas decisions (one per round).
    pub decisions_s: Vec<f64>,
    pub sends_s: Vec<f64>,
    pub acks_s: Vec<f64>,
    pub ptos_s: Vec<f64>,
    /// Sends of packets whose data was later sent again.
    pub retransmitted_sends_s: Vec<f64>,
    /// (time, n): the n-th KB of data was sent, every `KB_LABEL_STEP` KB.
    pub kb_sent_marks: Vec<(f64, u64)>,
    /// The coexistence mechanism's competitive mode: (from, to) seconds,
    /// `to` infinite while it lasted to the end of the trace.
    pub competitive_s: Vec<Point>,
}

/// The bottleneck queue, from a queue log.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct QueueSeries {
    pub source: String,
    /// Packets waiting after each event.
    pub queue_pkts: Vec<Point>,
    /// Drop-tail drops: (time, queue length then).
    pub drops: Vec<Point>,
    /// Random losses on the link: (time, queue length then).
    pub random_losses: Vec<Point>,
}

/// A figure: flows over each other, and the queue.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Figure {
    pub title: String,
    pub flows: Vec<FlowSeries>,
    pub queue: Option<QueueSeries>,
    /// What the reader of the figure should know (alignment used, things
    /// missing from the trace).
    pub notes: Vec<String>,
}

impl Figure {
    /// The last time drawn: the last send, ACK or queue event.
    pub fn end_s(&self) -> f64 {
        self.flows
            .iter()
            .flat_map(|f| f.sends_s.iter().chain(&f.acks_s))
            .chain(
                self.queue
                    .iter()
                    .flat_map(|q| q.queue_pkts.last().map(|p| &p.0)),
            )
            .fold(0.0f64, |a, &b| a.max(b))
    }

    /// The same figure with every series reduced to what `columns` equal
    /// columns of its time axis (0 to [`Figure::end_s`]) can show: per
    /// column, a line keeps its first, lowest, highest and last points in
    /// time order (its vertical extent and its joins to the next columns),
    /// ticks and marks one each (a mark the highest), and KB-count labels
    /// one per `KB_LABEL_COLUMNS` columns.
    pub fn decimated(&self, columns: usize) -> Figure {
        let columns = columns.max(1);
        let end_s = self.end_s();
        let column = |t: f64| -> usize {
            if end_s > 0.0 {
                ((t / end_s * columns as f64).max(0.0) as usize).min(columns - 1)
            } else {
                0
            }
        };
        let line = |points: &Vec<Point>| decimate_line(points, column);
        let ticks = |times: &Vec<f64>| -> Vec<f64> {
            let mut out: Vec<f64> = Vec::new();
            let mut last = None;
            for &t in times {
                let c = column(t);
                if last != Some(c) {
                    out.push(t);
                    last = Some(c);
                }
            }
            out
        };
        let marks = |points: &Vec<Point>| -> Vec<Point> {
            let mut out: Vec<(usize, Point)> = Vec::new();
            for &(t, v) in points {
                let c = column(t);
                match out.last_mut() {
                    Some((last, p)) if *last == c => {
                        if v > p.1 {
                            *p = (t, v);
                        }
                    }
                    _ => out.push((c, (t, v))),
                }
            }
            out.into_iter().map(|(_, p)| p).collect()
        };
        let flows = self
            .flows
            .iter()
            .map(|f| FlowSeries {
                label: f.label.clone(),
                time_shift_ms: f.time_shift_ms,
                cwnd_kb: line(&f.cwnd_kb),
                ssthresh_kb: line(&f.ssthresh_kb),
                bytes_in_flight_kb: line(&f.bytes_in_flight_kb),
                flow_control_kb: line(&f.flow_control_kb),
                sending_rate_kb_per_s: line(&f.sending_rate_kb_per_s),
                expected_kb_per_s: line(&f.expected_kb_per_s),
                actual_kb_per_s: line(&f.actual_kb_per_s),
                alpha_threshold_kb_per_s: line(&f.alpha_threshold_kb_per_s),
                beta_threshold_kb_per_s: line(&f.beta_threshold_kb_per_s),
                decisions_s: ticks(&f.decisions_s),
                sends_s: ticks(&f.sends_s),
                acks_s: ticks(&f.acks_s),
                ptos_s: ticks(&f.ptos_s),
                retransmitted_sends_s: ticks(&f.retransmitted_sends_s),
                competitive_s: f.competitive_s.clone(),
                kb_sent_marks: {
                    let mut last = None;
                    f.kb_sent_marks
                        .iter()
                        .filter(|(t, _)| {
                            let c = column(*t) / KB_LABEL_COLUMNS;
                            let keep = last != Some(c);
                            last = Some(c);
                            keep
                        })
                        .copied()
                        .collect()
                },
            })
            .collect();
        let queue = self.queue.as_ref().map(|q| QueueSeries {
            source: q.source.clone(),
            queue_pkts: line(&q.queue_pkts),
            drops: marks(&q.drops),
            random_losses: marks(&q.random_losses),
        });
        Figure {
            title: self.title.clone(),
            flows,
            queue,
            notes: self.notes.clone(),
        }
    }
}

/// Runs of ticks no more than `gap` apart, as (first, last) times.
fn tick_runs(times: &[f64], gap: f64) -> Vec<(f64, f64)> {
    let mut runs: Vec<(f64, f64)> = Vec::new();
    for &t in times {
        match runs.last_mut() {
            Some((_, last)) if t - *last <= gap => *last = t,
            _ => runs.push((t, t)),
        }
    }
    runs
}

/// A line's first, lowest, highest and last points of every column, in
/// time order (M4 decimation). A lone NaN or infinite value is kept: it
/// breaks the line where the full series breaks it.
fn decimate_line(points: &[Point], column: impl Fn(f64) -> usize) -> Vec<Point> {
    let mut out = Vec::with_capacity(points.len().min(8192));
    let mut start = 0;
    while start < points.len() {
        let c = column(points[start].0);
        let mut end = start + 1;
        while end < points.len() && column(points[end].0) == c {
            end += 1;
        }
        let group = &points[start..end];
        if group.len() <= 4 || group.iter().any(|p| !p.1.is_finite()) {
            out.extend_from_slice(group);
        } else {
            let (mut low, mut high) = (0, 0);
            for (i, p) in group.iter().enumerate() {
                if p.1 < group[low].1 {
                    low = i;
                }
                if p.1 > group[high].1 {
                    high = i;
                }
            }
            let mut keep = [0, low, high, group.len() - 1];
            keep.sort_unstable();
            let mut previous = None;
            for i in keep {
                if previous != Some(i) {
                    out.push(group[i]);
                    previous = Some(i);
                }
            }
        }
        start = end;
    }
    out
}

/// One line of a queue log (format: top of `lab/src/sim/link.rs`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct QueueEvent {
    pub time_ms: f64,
    /// `+` enqueue, `-` start of service, `d` drop-tail drop, `l` random loss.
    pub kind: char,
    pub bytes: u64,
    pub queue_pkts: u64,
    pub flow: usize,
}

/// A bottleneck queue log.
#[derive(Debug, Clone, PartialEq)]
pub struct QueueLog {
    pub source: String,
    /// The UTC instant of `time_ms` 0 (`# wall_clock_origin` in the
    /// header: the link emulator writes it, the simulator does not).
    pub wall_clock_origin: Option<std::time::SystemTime>,
    pub events: Vec<QueueEvent>,
}

impl QueueLog {
    pub fn read(path: &Path) -> Result<QueueLog, TraceError> {
        let source = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| TraceError {
            source: source.clone(),
            record: 0,
            what: format!("cannot read: {e}"),
        })?;
        QueueLog::parse(&text, &source)
    }

    /// Parses a queue log; errors name the line (as `record`).
    pub fn parse(text: &str, source: &str) -> Result<QueueLog, TraceError> {
        let mut events = Vec::new();
        let mut wall_clock_origin = None;
        for (index, line) in text.lines().enumerate() {
            let line = line.trim();
            let error = |what: String| TraceError {
                source: source.to_string(),
                record: index + 1,
                what,
            };
            if line.starts_with('#') {
                if let Some(origin) = vegas_link_model::parse_wall_clock_origin(line) {
                    wall_clock_origin = Some(origin.map_err(error)?);
                }
                continue;
            }
            if line.is_empty() {
                continue;
            }
            let fields: Vec<&str> = line.split_whitespace().collect();
            let [time, kind, bytes, queue, flow] = fields[..] else {
                return Err(error(format!(
                    "expected `<time_ms> <+|-|d|l> <bytes> <queue_pkts> <flow>`, got `{line}`"
                )));
            };
            let number = |field: &str, what: &str| {
                field
                    .parse::<f64>()
                    .map_err(|_| error(format!("{what} `{field}` is not a number")))
            };
            let kind = match kind {
                "+" | "-" | "d" | "l" => kind.chars().next().unwrap_or('+'),
                other => return Err(error(format!("unknown event `{other}` (+, -, d, l)"))),
            };
            events.push(QueueEvent {
                time_ms: number(time, "time")?,
                kind,
                bytes: number(bytes, "bytes")? as u64,
                queue_pkts: number(queue, "queue length")? as u64,
                flow: number(flow, "flow")? as usize,
            });
        }
        if events.is_empty() {
            return Err(TraceError {
                source: source.to_string(),
                record: 0,
                what: "empty queue log: no events".into(),
            });
        }
        Ok(QueueLog {
            source: source.to_string(),
            wall_clock_origin,
            events,
        })
    }

    fn series(&self) -> QueueSeries {
        let at = |e: &QueueEvent| (e.time_ms / 1e3, e.queue_pkts as f64);
        QueueSeries {
            source: self.source.clone(),
            queue_pkts: self.events.iter().map(at).collect(),
            drops: self
                .events
                .iter()
                .filter(|e| e.kind == 'd')
                .map(at)
                .collect(),
            random_losses: self
                .events
                .iter()
                .filter(|e| e.kind == 'l')
                .map(at)
                .collect(),
        }
    }
}

/// A flow to draw: its sender's trace and how to name it.
pub struct FlowInput<'a> {
    pub trace: &'a Trace,
    pub label: String,
    /// The flow's number in the queue log (read from titles like
    /// `flow 3 server` when `None`).
    pub flow_id: Option<usize>,
}

/// The flow number in a title such as `flow 3 server` or `flow-3 server`.
pub fn flow_id_from_title(title: &str) -> Option<usize> {
    let rest = &title[title.find("flow")? + 4..];
    let digits: String = rest
        .trim_start_matches([' ', '-', '_'])
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

/// Builds the figure's series. An error if a trace has nothing to draw.
pub fn build_figure(
    title: &str,
    flows: &[FlowInput<'_>],
    queue: Option<&QueueLog>,
) -> Result<Figure, TraceError> {
    let mut figure = Figure {
        title: title.to_string(),
        queue: queue.map(QueueLog::series),
        ..Default::default()
    };
    for input in flows {
        let shift_ms = time_shift_ms(input, queue, &mut figure.notes);
        let series = flow_series(input.trace, &input.label, shift_ms, &mut figure.notes)?;
        figure.flows.push(series);
    }
    Ok(figure)
}

/// Where the trace's time 0 is on the figure's axis (the queue log's clock).
fn time_shift_ms(input: &FlowInput<'_>, queue: Option<&QueueLog>, notes: &mut Vec<String>) -> f64 {
    let trace = input.trace;
    if let Some(origin_ms) = trace.time_origin_ms() {
        notes.push(format!(
            "{}: time origin {origin_ms:.3} ms recorded in the qlog",
            input.label
        ));
        return origin_ms;
    }
    let Some(queue) = queue else {
        return 0.0;
    };
    if let (Some(trace_origin), Some(queue_origin)) =
        (trace.wall_clock_origin, queue.wall_clock_origin)
    {
        // Both clocks are UTC: the qlog's time 0 sits this far after the
        // queue log's (before it when negative).
        let shift_ms = match trace_origin.duration_since(queue_origin) {
            Ok(after) => after.as_secs_f64() * 1e3,
            Err(before) => -before.duration().as_secs_f64() * 1e3,
        };
        notes.push(format!(
            "{}: aligned by wall clock: qlog time 0 is {shift_ms:.3} ms into {}",
            input.label, queue.source
        ));
        return shift_ms;
    }
    let flow = input
        .flow_id
        .or_else(|| trace.title.as_deref().and_then(flow_id_from_title));
    let first_queued = flow.and_then(|flow| {
        queue
            .events
            .iter()
            .find(|e| e.flow == flow && e.kind == '+')
            .map(|e| e.time_ms)
    });
    let first_sent = trace
        .named("quic:packet_sent")
        .map(qlog_read::send_time_ms)
        .reduce(f64::min);
    match (flow, first_queued, first_sent) {
        (Some(flow), Some(queued), Some(sent)) => {
            notes.push(format!(
                "{}: no time origin in the qlog; aligned its first send with flow {flow}'s \
                 first packet in {} (exact when the sender's access link has no delay)",
                input.label, queue.source
            ));
            queued - sent
        }
        _ => {
            notes.push(format!(
                "{}: no time origin in the qlog and no packet of its flow in {}; \
                 qlog time drawn as is",
                input.label, queue.source
            ));
            0.0
        }
    }
}

/// Turns a (time, value) series into steps: each value holds until the next.
fn steps(points: &[Point]) -> Vec<Point> {
    let mut out = Vec::with_capacity(points.len() * 2);
    for (i, &(t, v)) in points.iter().enumerate() {
        if i > 0 {
            out.push((t, points[i - 1].1));
        }
        out.push((t, v));
    }
    out
}

fn packet_key(record: &Record) -> Option<(String, u64)> {
    let header = record.data.get("header")?;
    Some((
        header.get("packet_type")?.as_str()?.to_string(),
        header.get("packet_number")?.as_u64()?,
    ))
}

fn frames(record: &Record) -> impl Iterator<Item = &serde_json::Value> {
    record
        .data
        .get("frames")
        .and_then(|f| f.as_array())
        .into_iter()
        .flatten()
}

fn frame_type(frame: &serde_json::Value) -> Option<&str> {
    frame.get("frame_type").and_then(|t| t.as_str())
}

/// The series of one flow, from its sender's trace.
pub fn flow_series(
    trace: &Trace,
    label: &str,
    shift_ms: f64,
    notes: &mut Vec<String>,
) -> Result<FlowSeries, TraceError> {
    let s = |time_ms: f64| (time_ms + shift_ms) / 1e3;
    let kb = |bytes: f64| bytes / BYTES_PER_KB;
    let mut out = FlowSeries {
        label: label.to_string(),
        time_shift_ms: shift_ms,
        ..Default::default()
    };

    // Windows, PTOs: quiche logs a metric only when it changes.
    let mut last_pto_count = 0;
    for m in trace.named("quic:recovery_metrics_updated") {
        let t = s(m.time_ms);
        if let Some(cwnd) = m.f64("congestion_window") {
            out.cwnd_kb.push((t, kb(cwnd)));
        }
        if let Some(ssthresh) = m.f64("ssthresh") {
            out.ssthresh_kb.push((t, kb(ssthresh)));
        }
        if let Some(in_flight) = m.f64("bytes_in_flight") {
            out.bytes_in_flight_kb.push((t, kb(in_flight)));
        }
        if let Some(pto_count) = m.f64("pto_count") {
            if pto_count > last_pto_count as f64 {
                out.ptos_s.push(t);
            }
            last_pto_count = pto_count as u64;
        }
    }

    // Sends, the sending rate, the KB count, the largest packet.
    let mut sent: Vec<(f64, f64)> = trace
        .named("quic:packet_sent")
        .map(|p| {
            (
                qlog_read::send_time_ms(p),
                p.data
                    .pointer("/raw/length")
                    .and_then(|v| v.as_f64())
                    .unwrap_or(0.0),
            )
        })
        .collect();
    sent.sort_by(|a, b| a.0.total_cmp(&b.0));
    out.sends_s = sent.iter().map(|&(t, _)| s(t)).collect();
    let mss_bytes = sent.iter().map(|&(_, len)| len).fold(0.0, f64::max);
    for i in RATE_WINDOW_PKTS - 1..sent.len() {
        let first_ms = sent[i + 1 - RATE_WINDOW_PKTS].0;
        let span_ms = sent[i].0 - first_ms;
        if span_ms > 0.0 {
            let bytes: f64 = sent[i + 2 - RATE_WINDOW_PKTS..=i].iter().map(|p| p.1).sum();
            out.sending_rate_kb_per_s
                .push((s(sent[i].0), kb(bytes) / (span_ms / 1e3)));
        }
    }
    let mut data_sent_bytes = 0u64;
    let mut next_label_kb = KB_LABEL_STEP;
    // Flow control: the peer's limit minus what it acknowledged.
    let mut max_data_bytes: Option<f64> = None;
    let mut stream_end_by_packet = std::collections::HashMap::new();
    let mut acked_end_bytes = 0.0f64;
    for e in &trace.events {
        match e.name.as_str() {
            "quic:parameters_set" if e.str("initiator") == Some("remote") => {
                max_data_bytes = e.f64("initial_max_data").or(max_data_bytes);
            }
            "quic:packet_sent" => {
                let mut end = 0u64;
                for f in frames(e).filter(|f| frame_type(f) == Some("stream")) {
                    let length = f
                        .pointer("/raw/payload_length")
                        .and_then(|v| v.as_u64())
                        .unwrap_or(0);
                    let offset = f.get("offset").and_then(|v| v.as_u64()).unwrap_or(0);
                    end = end.max(offset + length);
                    if offset + length > data_sent_bytes {
                        data_sent_bytes = offset + length;
                        while data_sent_bytes >= next_label_kb * BYTES_PER_KB as u64 {
                            out.kb_sent_marks
                                .push((s(qlog_read::send_time_ms(e)), next_label_kb));
                            next_label_kb += KB_LABEL_STEP;
                        }
                    }
                }
                if let Some(key) = packet_key(e) {
                    stream_end_by_packet.insert(key, end);
                }
            }
            "quic:packet_received" => {
                let mut acked = false;
                for f in frames(e) {
                    match frame_type(f) {
                        Some("max_data") => {
                            max_data_bytes =
                                f.get("maximum").and_then(|v| v.as_f64()).or(max_data_bytes);
                        }
                        Some("ack") => {
                            acked = true;
                            let packet_type = e
                                .data
                                .pointer("/header/packet_type")
                                .and_then(|v| v.as_str())
                                .unwrap_or("");
                            for range in f
                                .get("acked_ranges")
                                .and_then(|r| r.as_array())
                                .into_iter()
                                .flatten()
                            {
                                let bounds: Vec<u64> = range
                                    .as_array()
                                    .into_iter()
                                    .flatten()
                                    .filter_map(|v| v.as_u64())
                                    .collect();
                                let (Some(&from), Some(&to)) = (bounds.first(), bounds.last())
                                else {
                                    continue;
                                };
                                // Only the range's top packet matters for the
                                // highest acknowledged offset in practice;
                                // look at every one to stay exact.
                                for pn in from..=to {
                                    if let Some(&end) =
                                        stream_end_by_packet.get(&(packet_type.to_string(), pn))
                                    {
                                        acked_end_bytes = acked_end_bytes.max(end as f64);
                                    }
                                }
                            }
                        }
                        _ => {}
                    }
                }
                if acked {
                    out.acks_s.push(s(e.time_ms));
                }
                if let Some(limit) = max_data_bytes {
                    let window = kb(limit - acked_end_bytes);
                    if out.flow_control_kb.last().map(|p| p.1) != Some(window) {
                        out.flow_control_kb.push((s(e.time_ms), window));
                    }
                }
            }
            _ => {}
        }
    }

    // The CAM panel.
    // Rounds of a BaseRTT drain carry no Vegas decision: not drawn.
    for r in trace
        .named(qlog::ROUND_DECISION)
        .filter(|r| r.str("action") != Some("base_rtt_probe"))
    {
        let t = s(r.time_ms);
        let (Some(expected), Some(actual), Some(base_rtt_ms)) = (
            r.f64("expected_bytes_per_s"),
            r.f64("actual_bytes_per_s"),
            r.f64("base_rtt_ms"),
        ) else {
            continue;
        };
        out.decisions_s.push(t);
        out.expected_kb_per_s.push((t, kb(expected)));
        out.actual_kb_per_s.push((t, kb(actual)));
        if base_rtt_ms > 0.0 && mss_bytes > 0.0 {
            let per_pkt = kb(mss_bytes) / (base_rtt_ms / 1e3);
            let threshold =
                |pkts: Option<f64>| pkts.map(|p| (t, (kb(expected) - p * per_pkt).max(0.0)));
            out.alpha_threshold_kb_per_s
                .extend(threshold(r.f64("alpha_pkts")));
            out.beta_threshold_kb_per_s
                .extend(threshold(r.f64("beta_pkts")));
        }
    }

    // The coexistence mechanism's modes.
    for m in trace.named(qlog::MODE_CHANGE) {
        let t = s(m.time_ms);
        match m.str("mode") {
            Some("competitive") => out.competitive_s.push((t, f64::INFINITY)),
            Some("delay") => {
                if let Some(open) = out.competitive_s.last_mut().filter(|p| p.1.is_infinite()) {
                    open.1 = t;
                }
            }
            _ => {}
        }
    }

    out.retransmitted_sends_s = qlog_read::retransmitted_packets(trace)
        .iter()
        .map(|p| s(p.sent_ms))
        .collect();

    if out.sends_s.is_empty() && out.cwnd_kb.is_empty() {
        return Err(TraceError {
            source: trace.source.clone(),
            record: 0,
            what: "nothing to draw: no packet_sent and no recovery_metrics_updated events".into(),
        });
    }
    if out.decisions_s.is_empty() {
        notes.push(format!(
            "{label}: no {} events (not a Vegas sender?): the CAM panel is empty",
            qlog::ROUND_DECISION
        ));
    }
    let cwnd_max_kb = out.cwnd_kb.iter().map(|p| p.1).fold(0.0, f64::max);
    let flow_control_min_kb = out.flow_control_kb.iter().map(|p| p.1).reduce(f64::min);
    if let Some(limit_kb) = flow_control_min_kb.filter(|&l| l > WINDOWS_HEADROOM * cwnd_max_kb) {
        notes.push(format!(
            "{label}: the flow-control limit (at least {limit_kb:.0} KB) is above the windows panel"
        ));
    }
    if out.ssthresh_kb.is_empty() {
        notes.push(format!("{label}: quiche logged no ssthresh"));
    }
    Ok(out)
}

/// Output format of [`render`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Svg,
    Png,
}

impl Format {
    /// From a file name's extension: `.png` is PNG, anything else SVG.
    pub fn from_path(path: &Path) -> Format {
        match path.extension().and_then(|e| e.to_str()) {
            Some(e) if e.eq_ignore_ascii_case("png") => Format::Png,
            _ => Format::Svg,
        }
    }
}

const WIDTH_PX: u32 = 1100;
const PANEL_HEIGHT_PX: u32 = 250;
/// Columns the time axis is reduced to before drawing: the figure's width
/// in pixels (the plot area is narrower, so a column is at most a pixel).
/// A long run has millions of points and ticks, each an SVG element (tens
/// of MB) for the same picture.
pub const DECIMATION_COLUMNS: usize = WIDTH_PX as usize;
/// At most one KB-count label per this many columns (about 50 pixels).
const KB_LABEL_COLUMNS: usize = 50;

/// Draws `figure` to `path` (SVG, or PNG by extension), decimated to
/// [`DECIMATION_COLUMNS`] (the picture a full-resolution drawing gives,
/// to the pixel).
pub fn render(figure: &Figure, path: &Path) -> Result<(), Box<dyn std::error::Error>> {
    let figure = &figure.decimated(DECIMATION_COLUMNS);
    let panels = if figure.queue.is_some() { 4 } else { 3 };
    let size = (WIDTH_PX, PANEL_HEIGHT_PX * panels + 40);
    match Format::from_path(path) {
        Format::Svg => {
            let root = SVGBackend::new(path, size).into_drawing_area();
            draw(figure, &root)?;
            root.present()?;
        }
        Format::Png => {
            return Err(format!(
                "cannot write {}: PNG needs a font rasterizer and this build has none \
                 (plotters without `ttf`/`ab_glyph`; CI machines have no system fonts). \
                 Write SVG and convert it, e.g. `rsvg-convert FIG.svg -o FIG.png`",
                path.display()
            )
            .into())
        }
    }
    Ok(())
}

/// A flow's color.
fn flow_color(index: usize) -> RGBColor {
    const COLORS: [RGBColor; 4] = [
        RGBColor(31, 88, 180),
        RGBColor(200, 50, 40),
        RGBColor(40, 140, 60),
        RGBColor(150, 80, 170),
    ];
    COLORS[index % COLORS.len()]
}

fn max_of<'a>(series: impl IntoIterator<Item = &'a Vec<Point>>) -> f64 {
    series
        .into_iter()
        .flatten()
        .map(|p| p.1)
        .filter(|v| v.is_finite())
        .fold(0.0, f64::max)
}

fn draw<DB: DrawingBackend>(
    figure: &Figure,
    root: &DrawingArea<DB, Shift>,
) -> Result<(), Box<dyn std::error::Error>>
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE)?;
    let (title_area, body) = root.split_vertically(40);
    title_area.titled(&figure.title, ("sans-serif", 20))?;
    let panel_count = if figure.queue.is_some() { 4 } else { 3 };
    let panels = body.split_evenly((panel_count, 1));

    let end_s = figure.end_s();
    let x_range = 0.0..(end_s * 1.02).max(0.001);

    // Windows (Fig. 3).
    let cwnd_max = max_of(
        figure
            .flows
            .iter()
            .flat_map(|f| [&f.cwnd_kb, &f.bytes_in_flight_kb]),
    );
    let y_windows = (cwnd_max * WINDOWS_HEADROOM).max(1.0);
    let mut chart = panel(&panels[0], "windows", "KB", x_range.clone(), y_windows)?;
    for (i, f) in figure.flows.iter().enumerate() {
        // Competitive mode (the coexistence mechanism) as a band behind.
        let color = flow_color(i);
        if !f.competitive_s.is_empty() {
            let band = color.mix(0.12).filled();
            let top = y_windows * (0.84 - 0.08 * i as f64);
            chart
                .draw_series(f.competitive_s.iter().map(|&(from, to)| {
                    Rectangle::new([(from, 0.0), (to.min(x_range.end), top)], band)
                }))?
                .label(if figure.flows.len() > 1 {
                    format!("{} competitive mode", f.label)
                } else {
                    "competitive mode (shaded)".to_string()
                })
                .legend(move |(x, y)| Rectangle::new([(x, y - 4), (x + 16, y + 4)], band));
        }
    }
    for (i, f) in figure.flows.iter().enumerate() {
        let color = flow_color(i);
        let label = |what: &str| {
            if figure.flows.len() > 1 {
                format!("{} {what}", f.label)
            } else {
                what.to_string()
            }
        };
        let flow_control: Vec<Point> = f
            .flow_control_kb
            .iter()
            .filter(|p| p.1 <= y_windows)
            .copied()
            .collect();
        if !flow_control.is_empty() {
            chart
                .draw_series(LineSeries::new(
                    steps(&flow_control),
                    RGBColor(120, 120, 120).stroke_width(2),
                ))?
                .label(label("flow-control limit"))
                .legend(|(x, y)| {
                    PathElement::new(
                        [(x, y), (x + 16, y)],
                        RGBColor(120, 120, 120).stroke_width(2),
                    )
                });
        }
        chart
            .draw_series(LineSeries::new(
                steps(&f.cwnd_kb),
                color.mix(0.6).stroke_width(3),
            ))?
            .label(label("cwnd"))
            .legend(move |(x, y)| {
                PathElement::new([(x, y), (x + 16, y)], color.mix(0.6).stroke_width(3))
            });
        let ssthresh_color = if figure.flows.len() > 1 { color } else { BLACK };
        let ssthresh: Vec<Point> = f
            .ssthresh_kb
            .iter()
            .map(|&(t, v)| (t, v.min(y_windows)))
            .collect();
        chart
            .draw_series(DashedLineSeries::new(
                steps(&ssthresh),
                6,
                4,
                ssthresh_color.stroke_width(2),
            ))?
            .label(label("ssthresh (dashed)"))
            .legend(move |(x, y)| {
                PathElement::new([(x, y), (x + 16, y)], ssthresh_color.stroke_width(2))
            });
        chart
            .draw_series(LineSeries::new(
                steps(&f.bytes_in_flight_kb),
                BLACK.mix(0.8).stroke_width(1),
            ))?
            .label(label("bytes in flight"))
            .legend(|(x, y)| PathElement::new([(x, y), (x + 16, y)], BLACK.stroke_width(1)));
        // Fig. 2 (3): the n-th KB sent, at the top.
        let row = y_windows * (0.90 - 0.08 * i as f64);
        chart.draw_series(f.kb_sent_marks.iter().map(|&(t, n)| {
            Text::new(
                n.to_string(),
                (t, row),
                ("sans-serif", 10).into_font().color(&color),
            )
        }))?;
    }
    common_marks(&mut chart, figure, y_windows)?;
    legend(&mut chart)?;

    // Sending rate (Fig. 1, bottom).
    let y_rate = (max_of(figure.flows.iter().map(|f| &f.sending_rate_kb_per_s)) * 1.25).max(1.0);
    let mut chart = panel(
        &panels[1],
        "sending rate (last 12 packets)",
        "KB/s",
        x_range.clone(),
        y_rate,
    )?;
    for (i, f) in figure.flows.iter().enumerate() {
        let color = flow_color(i);
        chart
            .draw_series(LineSeries::new(
                f.sending_rate_kb_per_s
                    .iter()
                    .map(|&(t, v)| (t, v.min(y_rate))),
                color.stroke_width(1),
            ))?
            .label(f.label.clone())
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 16, y)], color.stroke_width(2)));
    }
    common_marks(&mut chart, figure, y_rate)?;
    legend(&mut chart)?;

    // CAM (Fig. 8).
    let y_cam = (max_of(
        figure
            .flows
            .iter()
            .flat_map(|f| [&f.expected_kb_per_s, &f.actual_kb_per_s]),
    ) * 1.25)
        .max(1.0);
    let mut chart = panel(
        &panels[2],
        "congestion avoidance mechanism (CAM)",
        "KB/s",
        x_range.clone(),
        y_cam,
    )?;
    for (i, f) in figure.flows.iter().enumerate() {
        let color = flow_color(i);
        let prefix = if figure.flows.len() > 1 {
            format!("{} ", f.label)
        } else {
            String::new()
        };
        chart
            .draw_series(LineSeries::new(
                steps(&f.expected_kb_per_s),
                color.mix(0.45).stroke_width(3),
            ))?
            .label(format!("{prefix}Expected"))
            .legend(move |(x, y)| {
                PathElement::new([(x, y), (x + 16, y)], color.mix(0.45).stroke_width(3))
            });
        chart
            .draw_series(LineSeries::new(
                steps(&f.actual_kb_per_s),
                color.stroke_width(2),
            ))?
            .label(format!("{prefix}Actual"))
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 16, y)], color.stroke_width(2)));
        chart
            .draw_series(DashedLineSeries::new(
                steps(&f.alpha_threshold_kb_per_s),
                5,
                4,
                color.stroke_width(1),
            ))?
            .label(format!("{prefix}alpha (top) / beta (bottom) thresholds"))
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 16, y)], color.stroke_width(1)));
        chart.draw_series(DashedLineSeries::new(
            steps(&f.beta_threshold_kb_per_s),
            5,
            4,
            color.stroke_width(1),
        ))?;
        // Fig. 8 (1): a small vertical line per decision.
        let base = y_cam * (0.06 + 0.05 * i as f64);
        chart.draw_series(f.decisions_s.iter().map(|&t| {
            PathElement::new([(t, base), (t, base + y_cam * 0.04)], color.stroke_width(1))
        }))?;
    }
    common_marks(&mut chart, figure, y_cam)?;
    legend(&mut chart)?;

    // Queue.
    if let Some(queue) = &figure.queue {
        let y_queue = (max_of([&queue.queue_pkts]) * 1.3).max(2.0);
        let mut chart = panel(&panels[3], "bottleneck queue", "packets", x_range, y_queue)?;
        chart
            .draw_series(LineSeries::new(
                steps(&queue.queue_pkts),
                BLACK.stroke_width(1),
            ))?
            .label("queue length")
            .legend(|(x, y)| PathElement::new([(x, y), (x + 16, y)], BLACK.stroke_width(1)));
        chart
            .draw_series(
                queue
                    .drops
                    .iter()
                    .map(|&p| Cross::new(p, 4, RED.stroke_width(2))),
            )?
            .label("drop-tail drop")
            .legend(|(x, y)| Cross::new((x + 8, y), 4, RED.stroke_width(2)));
        if !queue.random_losses.is_empty() {
            chart
                .draw_series(
                    queue
                        .random_losses
                        .iter()
                        .map(|&p| TriangleMarker::new(p, 4, MAGENTA.filled())),
                )?
                .label("random loss")
                .legend(|(x, y)| TriangleMarker::new((x + 8, y), 4, MAGENTA.filled()));
        }
        common_marks(&mut chart, figure, y_queue)?;
        legend(&mut chart)?;
    }
    Ok(())
}

type Chart<'a, DB> = ChartContext<
    'a,
    DB,
    Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>,
>;

fn panel<'a, DB: DrawingBackend>(
    area: &'a DrawingArea<DB, Shift>,
    caption: &str,
    unit: &str,
    x_range: std::ops::Range<f64>,
    y_max: f64,
) -> Result<Chart<'a, DB>, Box<dyn std::error::Error>>
where
    DB::ErrorType: 'static,
{
    let mut chart = ChartBuilder::on(area)
        .caption(caption, ("sans-serif", 14))
        .margin(6)
        .margin_right(16)
        .x_label_area_size(28)
        .y_label_area_size(56)
        .build_cartesian_2d(x_range, 0.0..y_max)?;
    chart
        .configure_mesh()
        .light_line_style(WHITE)
        .x_desc("time (s)")
        .y_desc(unit)
        .label_style(("sans-serif", 11))
        .draw()?;
    Ok(chart)
}

fn legend<'a, DB: DrawingBackend + 'a>(
    chart: &mut Chart<'a, DB>,
) -> Result<(), Box<dyn std::error::Error>>
where
    DB::ErrorType: 'static,
{
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK.mix(0.3))
        .label_font(("sans-serif", 11))
        .draw()?;
    Ok(())
}

/// Fig. 2's common elements on a panel of height `y_max`: send ticks at the
/// top, ACK ticks on the x-axis, a circle per PTO, and a full-height line
/// at each send of a packet later retransmitted. With several flows each
/// has its own row of ticks.
fn common_marks<'a, DB: DrawingBackend + 'a>(
    chart: &mut Chart<'a, DB>,
    figure: &Figure,
    y_max: f64,
) -> Result<(), Box<dyn std::error::Error>>
where
    DB::ErrorType: 'static,
{
    let tick = y_max * 0.035;
    // Ticks in neighbouring columns of the decimated figure touch: a run of
    // them is drawn as one band, the picture they make.
    let column_s = figure.end_s() / DECIMATION_COLUMNS as f64;
    for (i, f) in figure.flows.iter().enumerate() {
        let color = flow_color(i);
        let top = y_max - tick * 1.3 * i as f64;
        let bottom = tick * 1.3 * i as f64;
        let mut ticks = |times: &[f64], low: f64, high: f64, style: ShapeStyle| {
            chart
                .draw_series(tick_runs(times, 1.5 * column_s).into_iter().map(|(a, b)| {
                    if b > a {
                        Rectangle::new([(a, low), (b, high)], style.filled()).into_dyn()
                    } else {
                        PathElement::new([(a, low), (a, high)], style).into_dyn()
                    }
                }))
                .map(|_| ())
        };
        ticks(
            &f.retransmitted_sends_s,
            0.0,
            y_max,
            color.mix(0.7).stroke_width(1),
        )?;
        ticks(&f.sends_s, top - tick, top, color.stroke_width(1))?;
        ticks(&f.acks_s, bottom, bottom + tick, color.stroke_width(1))?;
        chart.draw_series(
            f.ptos_s
                .iter()
                .map(|&t| Circle::new((t, top - 2.5 * tick), 5, color.stroke_width(2))),
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A sawtooth of `n` points over 100 s with one spike, and `n` ticks.
    fn long_flow(n: usize) -> FlowSeries {
        let t = |i: usize| i as f64 * 100.0 / n as f64;
        let mut cwnd: Vec<Point> = (0..n).map(|i| (t(i), (i % 97) as f64)).collect();
        cwnd[n / 3].1 = 500.0;
        FlowSeries {
            label: "long".into(),
            cwnd_kb: cwnd,
            sends_s: (0..n).map(t).collect(),
            acks_s: (0..n).map(t).collect(),
            kb_sent_marks: (0..n as u64).map(|i| (t(i as usize), i * 100)).collect(),
            ..Default::default()
        }
    }

    #[test]
    fn decimation_keeps_every_columns_extremes_and_the_ends() {
        let n = 1_000_000;
        let figure = Figure {
            flows: vec![long_flow(n)],
            ..Default::default()
        };
        let small = figure.decimated(100);
        let f = &small.flows[0];
        assert!(f.cwnd_kb.len() <= 400, "{} points", f.cwnd_kb.len());
        let full = &figure.flows[0].cwnd_kb;
        assert_eq!(f.cwnd_kb.first(), full.first());
        assert_eq!(f.cwnd_kb.last(), full.last());
        assert!(f.cwnd_kb.contains(&full[n / 3]), "the spike is kept");
        // Every column still reaches the sawtooth's low and high.
        let per_column_max = f.cwnd_kb.iter().filter(|p| p.1 == 96.0).count();
        assert!(per_column_max >= 99, "{per_column_max}");
        assert!(f.cwnd_kb.windows(2).all(|w| w[0].0 <= w[1].0), "time order");
        assert!(f.sends_s.len() <= 100 && f.acks_s.len() <= 100);
        assert_eq!(f.sends_s[0], 0.0);
        assert!(f.kb_sent_marks.len() <= 2, "one label per 50 columns");
    }

    #[test]
    fn a_long_run_draws_to_a_small_svg() {
        let figure = Figure {
            title: "long".into(),
            flows: vec![long_flow(400_000)],
            queue: Some(QueueSeries {
                source: "q".into(),
                queue_pkts: (0..400_000)
                    .map(|i| (i as f64 / 4000.0, (i % 50) as f64))
                    .collect(),
                drops: (0..1000).map(|i| (i as f64 / 10.0, 50.0)).collect(),
                random_losses: Vec::new(),
            }),
            notes: Vec::new(),
        };
        let path = std::env::temp_dir().join(format!("plot-test-{}.svg", std::process::id()));
        render(&figure, &path).unwrap();
        let bytes = std::fs::metadata(&path).unwrap().len();
        std::fs::remove_file(&path).unwrap();
        // Undecimated it is tens of MB (the 100 s vegas-a-reroute figure,
        // with ten times fewer points: 8.6 MB, decimated 0.38 MB).
        assert!(bytes < 1_000_000, "{bytes} bytes");
    }
}
