//! The controller's own account of a `bench --real` run: the `vegas:`
//! events of the server's qlog (`vegas_cc`'s decision records, documented
//! in `src/qlog.rs`), kept as a small JSON-lines extract beside the run's
//! logs, and the few figures that explain a miss: where slow start ended,
//! why, and what window it left against the path's pipe.
//!
//! A whole qlog of a 30 s run at 100 Mbit/s is about 350 MB (quiche logs
//! every packet); the extract is one line per Vegas round, a few hundred
//! kB. The bench deletes the qlog once it is read.
//!
//! The lab's qlog readers (`vegas_lab::qlog_read`, `quiche_vegas::qlog`)
//! are not used here: xtask builds before quiche is vendored, so it
//! depends on neither; it needs only the `vegas:` lines, read with
//! serde_json.

use std::io::BufRead;
use std::io::Write;
use std::path::Path;

/// What the decision records of one run say.
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct Decisions {
    /// Vegas rounds recorded (`vegas:round_decision`).
    pub rounds: usize,
    /// qlog time of `vegas:slow_start_exit`, ms from the connection's start.
    pub exit_ms: Option<f64>,
    /// Its `cause` (`diff_above_gamma`, `loss`, ...).
    pub exit_cause: Option<String>,
    /// The window slow start reached, before the reduction that ended it.
    pub exit_cwnd_bytes: Option<f64>,
    /// The window the exit left: the exit round's `cwnd_after_bytes`, or
    /// the reduction's if a loss or PTO ended slow start.
    pub after_exit_bytes: Option<f64>,
    /// The window the round after the exit raised it to (`pipe_recheck`).
    pub recheck_bytes: Option<f64>,
    /// Window reductions (`vegas:window_reduction`): losses, PTOs, drains.
    pub reductions: usize,
    /// Switches to competitive mode (`vegas:mode_change`), each a false
    /// alarm on a path with no other flow.
    pub to_competitive: usize,
}

impl Decisions {
    /// The window slow start left: the pipe re-read's where the round
    /// after the exit raised it, else the exit's.
    pub fn window_left_bytes(&self) -> Option<f64> {
        self.recheck_bytes.or(self.after_exit_bytes)
    }
}

fn number(v: &serde_json::Value, key: &str) -> Option<f64> {
    v.get(key).and_then(serde_json::Value::as_f64)
}

/// Reads the `vegas:` events of the JSON-SEQ qlog `sqlog` (records begin
/// with the RS character, as quiche writes them), writes them one per line
/// to `extract`, and sums them up. A record that is not JSON is an error
/// naming the file and line.
pub(super) fn read(sqlog: &Path, extract: &Path) -> Result<Decisions, String> {
    let file = std::fs::File::open(sqlog).map_err(|e| format!("{}: {e}", sqlog.display()))?;
    let mut out = std::io::BufWriter::new(
        std::fs::File::create(extract).map_err(|e| format!("{}: {e}", extract.display()))?,
    );
    let mut d = Decisions::default();
    for (i, line) in std::io::BufReader::new(file).lines().enumerate() {
        let line = line.map_err(|e| format!("{}: line {}: {e}", sqlog.display(), i + 1))?;
        if !line.contains("\"vegas:") {
            continue;
        }
        let record = line.trim_start_matches('\u{1e}').trim();
        let v: serde_json::Value = serde_json::from_str(record)
            .map_err(|e| format!("{}: line {}: not JSON: {e}", sqlog.display(), i + 1))?;
        writeln!(out, "{record}").map_err(|e| format!("{}: {e}", extract.display()))?;
        let data = &v["data"];
        let time_ms = number(&v, "time");
        match v["name"].as_str().unwrap_or("") {
            "vegas:round_decision" => {
                d.rounds += 1;
                match data["action"].as_str() {
                    Some("slow_start_exit") if d.after_exit_bytes.is_none() => {
                        d.after_exit_bytes = number(data, "cwnd_after_bytes");
                    }
                    Some("pipe_recheck") if d.recheck_bytes.is_none() => {
                        d.recheck_bytes = number(data, "cwnd_after_bytes");
                    }
                    _ => {}
                }
            }
            "vegas:slow_start_exit" if d.exit_ms.is_none() => {
                d.exit_ms = time_ms;
                d.exit_cause = data["cause"].as_str().map(str::to_string);
                d.exit_cwnd_bytes = number(data, "cwnd_bytes");
            }
            "vegas:window_reduction" => {
                d.reductions += 1;
                // A loss or PTO that ended slow start: the window it left.
                let ends_slow_start = d.exit_ms.is_some_and(|exit| time_ms == Some(exit));
                if ends_slow_start && d.after_exit_bytes.is_none() {
                    d.after_exit_bytes = number(data, "cwnd_after_bytes");
                }
            }
            "vegas:mode_change" if data["mode"].as_str() == Some("competitive") => {
                d.to_competitive += 1;
            }
            _ => {}
        }
    }
    out.flush()
        .map_err(|e| format!("{}: {e}", extract.display()))?;
    Ok(d)
}

/// The server's qlog in `dir` (`server-<id>.sqlog`, one connection).
pub(super) fn server_qlog(dir: &Path) -> Option<std::path::PathBuf> {
    std::fs::read_dir(dir)
        .ok()?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| {
            p.extension().is_some_and(|x| x == "sqlog")
                && p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with("server"))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(time: f64, name: &str, data: &str) -> String {
        format!("\u{1e}{{\"time\":{time},\"name\":\"{name}\",\"data\":{data}}}\n")
    }

    #[test]
    fn the_exit_its_cause_and_the_window_it_left_are_read_from_the_vegas_records() {
        let dir = std::env::temp_dir().join(format!("decisions-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let qlog = dir.join("server-1.sqlog");
        let mut text = String::from("\u{1e}{\"qlog_version\":\"0.3\"}\n");
        text += &record(1.0, "quic:packet_sent", "{\"raw\":{\"length\":1350}}");
        for t in [20.0, 40.0] {
            text += &record(
                t,
                "vegas:round_decision",
                "{\"action\":\"slow_start_grow\",\"cwnd_after_bytes\":27000}",
            );
        }
        text += &record(
            60.0,
            "vegas:slow_start_exit",
            "{\"cause\":\"diff_above_gamma\",\"cwnd_bytes\":108000}",
        );
        text += &record(
            60.0,
            "vegas:round_decision",
            "{\"action\":\"slow_start_exit\",\"cwnd_after_bytes\":94500}",
        );
        text += &record(
            80.0,
            "vegas:round_decision",
            "{\"action\":\"pipe_recheck\",\"cwnd_after_bytes\":101250}",
        );
        text += &record(
            90.0,
            "vegas:window_reduction",
            "{\"cause\":\"loss\",\"cwnd_after_bytes\":70000}",
        );
        text += &record(95.0, "vegas:mode_change", "{\"mode\":\"competitive\"}");
        text += &record(99.0, "vegas:mode_change", "{\"mode\":\"delay\"}");
        std::fs::write(&qlog, text).unwrap();
        assert_eq!(server_qlog(&dir).as_deref(), Some(qlog.as_path()));

        let extract = dir.join("decisions.jsonl");
        let d = read(&qlog, &extract).unwrap();
        assert_eq!(
            d,
            Decisions {
                rounds: 4,
                exit_ms: Some(60.0),
                exit_cause: Some("diff_above_gamma".into()),
                exit_cwnd_bytes: Some(108000.0),
                after_exit_bytes: Some(94500.0),
                recheck_bytes: Some(101250.0),
                reductions: 1,
                to_competitive: 1,
            }
        );
        // The extract keeps the vegas: records only, without the RS.
        let kept = std::fs::read_to_string(&extract).unwrap();
        assert_eq!(kept.lines().count(), 8);
        assert!(kept
            .lines()
            .all(|l| l.starts_with('{') && l.contains("\"vegas:")));

        // A loss that ends slow start leaves the reduction's window.
        std::fs::write(
            &qlog,
            record(
                50.0,
                "vegas:slow_start_exit",
                "{\"cause\":\"loss\",\"cwnd_bytes\":200000}",
            ) + &record(
                50.0,
                "vegas:window_reduction",
                "{\"cause\":\"loss\",\"cwnd_after_bytes\":140000}",
            ),
        )
        .unwrap();
        let d = read(&qlog, &extract).unwrap();
        assert_eq!(d.exit_cause.as_deref(), Some("loss"));
        assert_eq!(d.after_exit_bytes, Some(140000.0));

        // A broken record is an error naming the file and the line.
        std::fs::write(
            &qlog,
            "\u{1e}{}\n\u{1e}{\"name\":\"vegas:round_decision\",\n",
        )
        .unwrap();
        let e = read(&qlog, &extract).unwrap_err();
        assert!(e.contains("server-1.sqlog: line 2: not JSON"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
