//! The qlog form of the decision records (feature `qlog`): one event per
//! [`ControllerEvent`], under the `vegas:` namespace, with field names that
//! carry their units. Every stack's adapter writes these same events (the
//! schema is tabled in quiche-vegas's `qlog` module).

use std::time::Instant;

use qlog::events::EventImportance;
use qlog::events::JsonEvent;
use serde_json::json;

use crate::events::ControllerEvent;

// Event names, in one place.

/// Event name of [`ControllerEvent::Round`].
pub const ROUND_DECISION: &str = "vegas:round_decision";
/// Event name of [`ControllerEvent::SlowStartExit`].
pub const SLOW_START_EXIT: &str = "vegas:slow_start_exit";
/// Event name of [`ControllerEvent::Reduction`].
pub const WINDOW_REDUCTION: &str = "vegas:window_reduction";
/// Event name of [`ControllerEvent::ParamsChanged`].
pub const PARAMS_CHANGED: &str = "vegas:params_changed";
/// Event name of [`ControllerEvent::GallopUpdate`].
pub const GALLOP_UPDATE: &str = "vegas:gallop_update";
/// Event name of [`ControllerEvent::ModeChange`].
pub const MODE_CHANGE: &str = "vegas:mode_change";
/// Event name of [`ControllerEvent::SendHold`].
pub const SEND_HOLD: &str = "vegas:send_hold";

/// The namespace (qlog category) of every event above.
pub const NAMESPACE: &str = "vegas";

/// Every `vegas:` event this crate writes.
pub const VEGAS_EVENTS: [&str; 7] = [
    ROUND_DECISION,
    SLOW_START_EXIT,
    WINDOW_REDUCTION,
    PARAMS_CHANGED,
    GALLOP_UPDATE,
    MODE_CHANGE,
    SEND_HOLD,
];

/// Milliseconds, as the events write durations.
pub fn ms(d: std::time::Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// The qlog event for a decision record, and the time it happened.
pub fn to_json_event(event: &ControllerEvent) -> (Instant, JsonEvent) {
    let (time, name, data) = match *event {
        ControllerEvent::Round(r) => (
            r.now,
            ROUND_DECISION,
            json!({
                "base_rtt_ms": ms(r.base_rtt),
                "round_rtt_ms": ms(r.round_rtt),
                "expected_bytes_per_s": r.expected_bytes_per_sec,
                "actual_bytes_per_s": r.actual_bytes_per_sec,
                "diff_pkts": r.diff_pkts,
                "pipe_bytes": r.pipe_bytes,
                "alpha_pkts": r.alpha_pkts,
                "beta_pkts": r.beta_pkts,
                "gamma_pkts": r.gamma_pkts,
                "cwnd_before_bytes": r.cwnd_before_bytes,
                "cwnd_after_bytes": r.cwnd_after_bytes,
                "action": r.action.as_str(),
                "phase": r.phase.as_str(),
                "samples": r.samples,
                "bytes_acked": r.bytes_acked,
                "rtt_from_hold_bounds": r.rtt_from_hold_bounds,
            }),
        ),
        ControllerEvent::SlowStartExit {
            now,
            cause,
            cwnd_bytes,
        } => (
            now,
            SLOW_START_EXIT,
            json!({ "cause": cause.as_str(), "cwnd_bytes": cwnd_bytes }),
        ),
        ControllerEvent::Reduction {
            now,
            cause,
            cwnd_before_bytes,
            cwnd_after_bytes,
            ssthresh_bytes,
        } => (
            now,
            WINDOW_REDUCTION,
            json!({
                "cause": cause.as_str(),
                "cwnd_before_bytes": cwnd_before_bytes,
                "cwnd_after_bytes": cwnd_after_bytes,
                "ssthresh_bytes": ssthresh_bytes,
            }),
        ),
        ControllerEvent::ParamsChanged {
            now,
            alpha_pkts,
            beta_pkts,
        } => (
            now,
            PARAMS_CHANGED,
            json!({ "alpha_pkts": alpha_pkts, "beta_pkts": beta_pkts }),
        ),
        ControllerEvent::ModeChange {
            now,
            mode,
            evidence_count,
            trigger,
            queue_delay,
            base_rtt,
            rtt_change_secs,
            cwnd_before_bytes,
            cwnd_after_bytes,
        } => (
            now,
            MODE_CHANGE,
            json!({
                "mode": mode.as_str(),
                "evidence_count": evidence_count,
                "trigger": trigger.as_str(),
                "queue_delay_ms": ms(queue_delay),
                "base_rtt_ms": ms(base_rtt),
                "rtt_change_ms": rtt_change_secs * 1e3,
                "cwnd_before_bytes": cwnd_before_bytes,
                "cwnd_after_bytes": cwnd_after_bytes,
            }),
        ),
        ControllerEvent::SendHold {
            now,
            until,
            timer_ticks,
        } => (
            now,
            SEND_HOLD,
            json!({
                "hold_ms": ms(until.saturating_duration_since(now)),
                "timer_ticks": timer_ticks,
            }),
        ),
        ControllerEvent::GallopUpdate {
            now,
            incr_pkts,
            maxincr_pkts,
            status,
        } => (
            now,
            GALLOP_UPDATE,
            json!({
                "incr_pkts": incr_pkts,
                "maxincr_pkts": maxincr_pkts,
                "status": status,
            }),
        ),
    };
    (
        time,
        JsonEvent {
            time: 0.0,
            importance: EventImportance::Base,
            name: name.to_string(),
            data,
        },
    )
}
