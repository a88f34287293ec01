//! The controllers' own qlog events, under the `vegas:` namespace, and the
//! tools around them: writing a connection's qlog where quiche's apps do
//! (`QLOGDIR` or an explicit path), and reading a qlog back strictly.
//!
//! Each `vegas_cc::ControllerEvent` becomes one qlog event written into the
//! connection's own qlog stream (through the patched quiche's
//! `drain_qlog_events` hook), next to quiche's standard `quic:*` events.
//! Times are the decision's own (`now` of the record). Field names carry
//! their units (`_ms`, `_bytes`, `_pkts`, `_bytes_per_s`).
//!
//! # The `vegas:` namespace
//!
//! | event                    | when | fields |
//! |--------------------------|------|--------|
//! | `vegas:round_decision`   | once per Vegas round (Brakmo & Peterson III-B) | `base_rtt_ms`, `round_rtt_ms`, `expected_bytes_per_s` (W / BaseRTT, W = min(Actual x round RTT, cwnd)), `actual_bytes_per_s`, `diff_pkts` ((Expected - Actual) * BaseRTT / max datagram size), `pipe_bytes` (the round's reading of the pipe, the window that fills the link with no queue: the highest of its fastest delivery rate over 16 packets of ACK frames, its smoothed ACK rate and Actual, x BaseRTT; what a slow-start exit and the pipe re-read keep), `alpha_pkts`, `beta_pkts`, `gamma_pkts`, `cwnd_before_bytes`, `cwnd_after_bytes`, `action` (`increase`, `hold`, `decrease`, `slow_start_grow`, `slow_start_hold`, `slow_start_exit`, `base_rtt_probe`: a round of a BaseRTT drain, no Vegas decision; `compete`: competitive mode, the window is CUBIC's; `return_test`: a round of a return test; `pipe_recheck`: the round after a slow-start exit raised the window to the pipe read again), `phase` (`slow_start`, `congestion_avoidance`, `recovery`), `samples` (RTT samples behind the round), `bytes_acked` (bytes acknowledged in the round), `rtt_from_hold_bounds` (the round RTT is the middle of the ACK-hold bounds because the path aggregates ACKs) |
//! | `vegas:slow_start_exit`  | slow start ends | `cause` (`diff_above_gamma`, `loss`, `pto`, `ssthresh`, `diff_at_least_beta`, `increment_at_one`), `cwnd_bytes` (the window slow start reached, before any reduction that ended it) |
//! | `vegas:window_reduction` | a loss, PTO or persistent-congestion cut | `cause` (`loss`, `pto`, `persistent_congestion`, `coarse_timeout`: `newreno`'s `reno_1995`, `base_rtt_probe`), `cwnd_before_bytes`, `cwnd_after_bytes`, `ssthresh_bytes` |
//! | `vegas:params_changed`   | Vegas-A moved alpha/beta | `alpha_pkts`, `beta_pkts` |
//! | `vegas:warning`          | the adapter adjusted quiche's initial window or datagram size, fell back to default Vegas, or its qlog queue dropped records between two drains | `message` |
//! | `vegas:gallop_update`    | Gallop-Vegas changed incr/maxincr/status | `incr_pkts`, `maxincr_pkts`, `status` (Gallop-Vegas Table 1: 0 clear, 1 incr halved, 2 window cut and slow start ended) |
//! | `vegas:send_hold`        | `newreno` with `tick_wait`: a coarse timeout holds the sender until BSD's 500 ms clock fires its retransmit timer | `hold_ms` (from the decision to the tick), `timer_ticks` (BSD's `t_rxtcur` for this wait) |
//! | `vegas:mode_change`      | the coexistence mechanism switched (`vegas_cc::vegas::coexist`) | `mode` (`competitive`: a CUBIC window beside a buffer-filling flow; `delay`: Vegas again), `evidence_count` (to competitive: ineffective backoffs, congestive losses and queue collapses in the run; to delay: return tests made), `trigger` (the event that completed it: `ineffective_backoff`, `congestive_loss`, `queue_collapse`; to delay `empty_queue`, `longer_path` or `reset`), `queue_delay_ms` (the queueing delay the last of them measured), `base_rtt_ms` (what it is measured from), `rtt_change_ms` (to competitive: how far the last backoff lowered the RTT, negative if it rose; to delay: the test's tolerance), `cwnd_before_bytes`, `cwnd_after_bytes` |
//!
//! # Where qlogs go
//!
//! [`setup`] does what quiche's example apps do: an explicit path (a file,
//! or a folder to put `<id>-<role>.sqlog` in), else the folder named by the
//! `QLOGDIR` environment variable, else nothing. [`setup_writer`] takes any
//! writer and can record the connection's *time origin* (the instant qlog
//! time 0 stands for, on a clock shared by several connections, e.g. a
//! simulator's virtual time) in the trace description as
//! `time_origin_ms=<ms>`; the lab's `qlog_read::Trace::time_origin_ms` reads it back, so tools
//! can put both endpoints and a bottleneck queue log on one time base.
//!
//! # Reading back
//!
//! [`read_vegas_events`] reads through the `qlog` crate's own reader
//! (`QlogSeqReader`), which silently skips records it cannot parse. The
//! lab's strict and tolerant readers (`vegas_lab::qlog_read`) are what its
//! trace graphs and qvis export use.

use std::io;
use std::path::Path;
use std::path::PathBuf;
use std::time::Duration;

use qlog::events::JsonEvent;

pub use vegas_cc::qlog::to_json_event;
pub use vegas_cc::qlog::GALLOP_UPDATE;
pub use vegas_cc::qlog::MODE_CHANGE;
pub use vegas_cc::qlog::NAMESPACE;
pub use vegas_cc::qlog::PARAMS_CHANGED;
pub use vegas_cc::qlog::ROUND_DECISION;
pub use vegas_cc::qlog::SEND_HOLD;
pub use vegas_cc::qlog::SLOW_START_EXIT;
pub use vegas_cc::qlog::VEGAS_EVENTS;
pub use vegas_cc::qlog::WINDOW_REDUCTION;

/// The environment variable quiche's apps read: a folder for qlog files.
pub const QLOGDIR_ENV: &str = "QLOGDIR";

/// The key under which [`setup_writer`] records the time origin in the
/// trace description.
pub const TIME_ORIGIN_KEY: &str = "time_origin_ms=";

use vegas_cc::qlog::ms;

/// Where [`setup`] writes a connection's qlog: `path_or_dir` if given (an
/// existing folder, or a path ending in `/`, gets `<id>-<role>.sqlog`; any
/// other path is the file itself), else `$QLOGDIR/<id>-<role>.sqlog`, else
/// nowhere.
pub fn qlog_path(path_or_dir: Option<&Path>, role: &str, id: &str) -> Option<PathBuf> {
    let file_name = format!("{id}-{role}.sqlog");
    match path_or_dir {
        Some(p) if p.is_dir() || p.as_os_str().to_string_lossy().ends_with('/') => {
            Some(p.join(file_name))
        }
        Some(p) => Some(p.to_path_buf()),
        None => std::env::var_os(QLOGDIR_ENV)
            .filter(|dir| !dir.is_empty())
            .map(|dir| PathBuf::from(dir).join(file_name)),
    }
}

/// Makes `conn` write its qlog (JSON-SEQ, quiche's events and ours) to the
/// file [`qlog_path`] picks, creating its folder. Returns the path, or
/// `None` when neither a path nor `QLOGDIR` was given. Call it right after
/// the connection is created, as quiche asks.
///
/// `role` is `"client"` or `"server"`; `id` names the connection (quiche's
/// apps use the hex connection ID).
pub fn setup(
    conn: &mut quiche::Connection,
    path_or_dir: Option<&Path>,
    role: &str,
    id: &str,
) -> io::Result<Option<PathBuf>> {
    let Some(path) = qlog_path(path_or_dir, role, id) else {
        return Ok(None);
    };
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    let file = std::fs::File::create(&path)
        .map_err(|e| io::Error::new(e.kind(), format!("cannot write {}: {e}", path.display())))?;
    setup_writer(conn, Box::new(io::BufWriter::new(file)), role, id, None);
    Ok(Some(path))
}

/// Makes `conn` write its qlog to `writer`. With `time_origin`, the trace
/// description records which instant of a shared clock qlog time 0 is
/// (`time_origin_ms=...`), so several traces can be aligned exactly.
pub fn setup_writer(
    conn: &mut quiche::Connection,
    writer: Box<dyn io::Write + Send + Sync>,
    role: &str,
    id: &str,
    time_origin: Option<Duration>,
) {
    conn.set_qlog(
        writer,
        format!("{id} {role}"),
        description(role, id, time_origin),
    );
}

/// The trace description [`setup_writer`] writes.
pub fn description(role: &str, id: &str, time_origin: Option<Duration>) -> String {
    let mut text = format!("quiche-vegas {role} {id}");
    if let Some(origin) = time_origin {
        text.push_str(&format!(" {TIME_ORIGIN_KEY}{}", ms(origin)));
    }
    text
}

/// Reads the `vegas:*` events of a JSON-SEQ qlog file through the `qlog`
/// crate's reader. Records that reader cannot parse are skipped by it; the
/// lab's `qlog_read::Trace::read` reports them.
pub fn read_vegas_events(path: &Path) -> Result<Vec<JsonEvent>, Box<dyn std::error::Error>> {
    let reader = qlog::reader::QlogSeqReader::with_file(path)?;
    Ok(reader
        .filter_map(|event| match event {
            qlog::reader::Event::Json(json) if json.name.starts_with("vegas:") => Some(json),
            _ => None,
        })
        .collect())
}
