//! The report: `target/interop/REPORT.md` and `report.json`, rewritten
//! after each section.

use super::*;

/// Columns padded to their widest cell; a Markdown table if `markdown`.
pub(super) fn table(headers: &[&str], rows: &[Vec<String>], markdown: bool) -> String {
    let mut widths: Vec<usize> = headers.iter().map(|h| h.len()).collect();
    for r in rows {
        for (w, c) in widths.iter_mut().zip(r) {
            *w = (*w).max(c.len());
        }
    }
    let line = |cells: Vec<&str>| {
        let padded: Vec<String> = cells
            .iter()
            .zip(&widths)
            .map(|(c, w)| format!("{c:<w$}"))
            .collect();
        if markdown {
            format!("| {} |", padded.join(" | "))
        } else {
            padded.join("  ").trim_end().to_string()
        }
    };
    let mut out = vec![line(headers.to_vec())];
    if markdown {
        out.push(format!(
            "|{}|",
            widths
                .iter()
                .map(|w| "-".repeat(w + 2))
                .collect::<Vec<_>>()
                .join("|")
        ));
    }
    for r in rows {
        out.push(line(r.iter().map(String::as_str).collect()));
    }
    out.join("\n")
}

/// Everything one `cargo xtask interop` measured, and where.
pub(super) struct Report {
    pub(super) commit: String,
    pub(super) date: String,
    pub(super) command: String,
    pub(super) argv: Vec<String>,
    pub(super) cores: usize,
    pub(super) machine: String,
    /// /proc/loadavg's first three fields: others' work on the machine
    /// shows in the emulator's timing and in every figure.
    pub(super) load_start: String,
    pub(super) load_end: Option<String>,
    pub(super) wall_s: f64,
    pub(super) sections_s: Vec<(String, f64)>,
    /// (bytes per transfer, rows)
    pub(super) matrix: Option<(u64, Vec<Row>)>,
    pub(super) shared: Vec<SharedResult>,
    /// (seconds of the link's rate per transfer, repetitions)
    pub(super) stack_settings: Option<(f64, usize)>,
    pub(super) stacks: Vec<StackCell>,
    pub(super) problems: Vec<String>,
}

/// The 1, 5 and 15 minute load averages.
pub(super) fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .map(|t| t.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|| "unknown".into())
}

/// `program args` in `dir`: its stdout, trimmed, if it succeeded.
pub(crate) fn command_text(dir: &Path, program: &str, args: &[&str]) -> Option<String> {
    let out = Command::new(program)
        .current_dir(dir)
        .args(args)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

impl Report {
    pub(super) fn new(root: &Path, args: &[String]) -> Self {
        let commit = match command_text(root, "git", &["rev-parse", "--short", "HEAD"]) {
            Some(c) => {
                let dirty = command_text(root, "git", &["status", "--porcelain"])
                    .is_some_and(|s| !s.is_empty());
                format!("{c}{}", if dirty { "-dirty" } else { "" })
            }
            None => "unknown (no git)".into(),
        };
        let date = command_text(root, "date", &["-u", "+%Y-%m-%d %H:%M:%S UTC"])
            .unwrap_or_else(|| "unknown".into());
        let quote = |a: &String| {
            if a.is_empty() || a.contains(|c: char| c.is_whitespace() || "'\"$\\`".contains(c)) {
                format!("'{}'", a.replace('\'', r"'\''"))
            } else {
                a.clone()
            }
        };
        let command = std::iter::once("cargo xtask interop".to_string())
            .chain(args.iter().map(quote))
            .collect::<Vec<_>>()
            .join(" ");
        let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
        let cpu = std::fs::read_to_string("/proc/cpuinfo")
            .ok()
            .and_then(|t| {
                t.lines()
                    .find(|l| l.starts_with("model name"))
                    .and_then(|l| l.split_once(':'))
                    .map(|(_, m)| m.trim().to_string())
            })
            .unwrap_or_else(|| "cpu unknown".into());
        let os = command_text(root, "uname", &["-srm"]).unwrap_or_else(|| "os unknown".into());
        Report {
            commit,
            date,
            command,
            argv: std::env::args().collect(),
            cores,
            machine: format!("{cores} cores ({cpu}), {os}"),
            load_start: load_average(),
            load_end: None,
            wall_s: 0.0,
            sections_s: Vec::new(),
            matrix: None,
            shared: Vec::new(),
            stack_settings: None,
            stacks: Vec::new(),
            problems: Vec::new(),
        }
    }

    pub(super) fn write(&self, out: &Path) -> Result<(), String> {
        std::fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
        for (name, text) in [
            ("REPORT.md", self.markdown()),
            (
                "report.json",
                serde_json::to_string_pretty(&self.json()).map_err(|e| e.to_string())? + "\n",
            ),
        ] {
            let path = out.join(name);
            std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
        }
        Ok(())
    }

    pub(super) fn timing(&self) -> String {
        let sections: Vec<String> = self
            .sections_s
            .iter()
            .map(|(n, s)| format!("{n} {s:.0} s"))
            .collect();
        if self.wall_s > 0.0 {
            format!("{:.0} s ({})", self.wall_s, sections.join(", "))
        } else {
            format!("(run in progress) {}", sections.join(", "))
        }
    }

    pub(super) fn markdown(&self) -> String {
        let mut md = String::new();
        let mut w = |s: String| {
            md.push_str(&s);
            md.push('\n');
        };
        w("# `cargo xtask interop` report\n".into());
        w(format!("- commit: `{}`", self.commit));
        w(format!("- date: {}", self.date));
        w(format!("- command: `{}`", self.command));
        w(format!("- machine: {}", self.machine));
        w(format!(
            "- load average (1, 5, 15 min) at the start: {}; at the end: {}",
            self.load_start,
            self.load_end.as_deref().unwrap_or("(run in progress)")
        ));
        w(format!("- wall time: {}", self.timing()));
        if let Some((bytes, rows)) = &self.matrix {
            w(format!(
                "\n## Interop matrix\n\n{bytes} bytes of `/bytes/N` through the emulator \
                 (10 Mbit/s, 20 ms each way, {BUFFER_PKTS}-packet buffer); body and status \
                 verified. `(wall)`: gtlsclient prints no timing, so process start to exit, \
                 handshake included.\n"
            ));
            let rows: Vec<Vec<String>> = rows
                .iter()
                .map(|r| {
                    vec![
                        r.peer.clone(),
                        r.direction.to_string(),
                        r.algorithm.clone(),
                        r.result.clone(),
                        r.goodput.clone(),
                    ]
                })
                .collect();
            w(table(
                &[
                    "peer",
                    "direction",
                    "algorithm (sender)",
                    "result",
                    "goodput Mbit/s",
                ],
                &rows,
                true,
            ));
        }
        if !self.shared.is_empty() {
            w(format!(
                "\n## Shared bottleneck\n\nOne of our Vegas-family servers and a loss-based one \
                 behind one emulator (20 ms each way, a buffer of {BUFFER_PKTS} packets or 1 BDP \
                 where that is more), each fetched by our h3-client at the same time. Shares over the common window \
                 (both sending, the first {SHARED_WARMUP_MS:.0} ms after the later start skipped, \
                 until the first flow ended), from the emulator's queue log."
            ));
            for r in &self.shared {
                w(format!(
                    "\n### our {} vs {}, {} Mbit/s, {}-packet buffer ({} bytes each)\n\n\
                     common window {:.2} s to {:.2} s ({:.2} s); clients: {}\n",
                    r.vegas,
                    r.other,
                    r.link.rate_mbit,
                    r.link.buffer_pkts,
                    r.bytes,
                    r.start_s,
                    r.end_s,
                    r.end_s - r.start_s,
                    if r.clients_ok {
                        "both complete, 200"
                    } else {
                        "FAILED"
                    }
                ));
                let rows: Vec<Vec<String>> = r
                    .flows
                    .iter()
                    .map(|f| {
                        vec![
                            f.name.clone(),
                            format!("{:.2}", f.mbit),
                            format!("{:.1}%", f.share_pct),
                            f.drops.to_string(),
                            format!("{:.2} s to {:.2} s", f.first_s, f.last_s),
                        ]
                    })
                    .collect();
                w(table(
                    &[
                        "flow",
                        "Mbit/s in the window",
                        "share",
                        "drop-tail drops",
                        "whole run",
                    ],
                    &rows,
                    true,
                ));
                w(format!(
                    "\nbottleneck queue in the window: mean {:.1} packets, max {} \
                     (buffer {})",
                    r.queue_mean, r.queue_max, r.link.buffer_pkts
                ));
            }
        }
        if let Some((seconds, reps)) = self.stack_settings {
            w(format!(
                "\n## Vegas on quiche vs Vegas on quinn\n\n\
                 The same bytes server -> client ({seconds} s of the link's rate) through the \
                 same emulator settings (the RTT split evenly between the two ways, a drop-tail \
                 buffer of 1 BDP in {BDP_DATAGRAM_BYTES}-byte datagrams): quiche = our h3-server \
                 / h3-client with `--cc NAME`; quinn = the `quinn-vegas` example's server / \
                 client with `--cc NAME` (vegas = vegas-cc through quinn-vegas, cubic = quinn's \
                 own). {reps} repetition(s) per link, in alternating order (even repetitions \
                 {}, odd ones reversed); each figure is the mean (each run).\n\n\
                 - goodput: the client's own timing, request to last byte;\n\
                 - util: goodput / the emulated rate;\n\
                 - queue: waiting packets, time-weighted, from the emulator's queue log, from \
                 the server's first to its last datagram (handshake included), and over the \
                 second half of that span (steady state); max over the span;\n\
                 - drops: the emulator's drop-tail drops (the link has no random loss);\n\
                 - datagram B: mean size of the datagrams the down link carried (the buffer \
                 counts packets, so larger datagrams queue more bytes);\n\
                 - 80% of rate after: from the server's first datagram to the end of the first \
                 {RAMP_WINDOW_MS:.0} ms in which the link carried 80% of its rate (slow start \
                 and how close to the pipe it left);\n\
                 - burst %: datagrams that reached the emulator within {:.0} us of the previous \
                 one (sent back to back, not paced);\n\
                 - emu p99 late: the emulator's timing precision (how late it released a \
                 datagram, 99th percentile): far above a datagram's serialization time means \
                 the machine was too busy to emulate the link faithfully.\n",
                STACKS.iter().map(|s| s.0).collect::<Vec<_>>().join(", "),
                BURST_GAP_MS * 1e3,
            ));
            for cell in &self.stacks {
                w(format!(
                    "\n### {}, buffer {} packets, {} bytes\n",
                    cell.name(),
                    cell.buffer_pkts,
                    cell.bytes
                ));
                w(table(&STACK_HEADERS, &cell.rows(), true));
                w(format!("\n{}", cell.reading()));
            }
            w(
                "\nWhat quinn's congestion-control API gives Vegas (quinn/src/lib.rs): no ACK \
               delay (RTT samples keep the peer's ACK hold; the sampler's ACK-delay correction \
               cannot act), sends reported per GSO batch (a batch is one packet to the \
               controller), and quinn paces with its own pacer from cwnd and its smoothed RTT \
               (vegas-cc's pacing rate and its Actual-based cap are not used). quiche gives \
               the ACK delay, one call per packet, and paces at the controller's rate. The \
               columns `burst %` (how many datagrams arrived back to back) and `80% of rate \
               after` (how close to the pipe slow start left) show what this did here."
                    .into(),
            );
        }
        if !self.problems.is_empty() {
            w("\n## Problems\n".into());
            for p in &self.problems {
                w(format!("- {}", p.replace('\n', " ")));
            }
        }
        md
    }

    pub(super) fn json(&self) -> serde_json::Value {
        use serde_json::json;
        let matrix = self.matrix.as_ref().map(|(bytes, rows)| {
            json!({
                "bytes": bytes,
                "link": {"rate_mbit": 10, "delay_ms_each_way": 20, "buffer_pkts": BUFFER_PKTS},
                "rows": rows.iter().map(|r| json!({
                    "peer": r.peer,
                    "direction": r.direction,
                    "algorithm": r.algorithm,
                    "result": r.result,
                    "goodput": r.goodput,
                    "goodput_mbit": r.goodput.split_whitespace().next()
                        .and_then(|g| g.parse::<f64>().ok()),
                    "goodput_wall_clock": r.goodput.contains("(wall)"),
                })).collect::<Vec<_>>(),
            })
        });
        let shared: Vec<_> = self
            .shared
            .iter()
            .map(|r| {
                json!({
                    "vegas": r.vegas,
                    "other": r.other,
                    "rate_mbit": r.link.rate_mbit,
                    "buffer_pkts": r.link.buffer_pkts,
                    "bytes": r.bytes,
                    "window_s": [r.start_s, r.end_s],
                    "flows": r.flows.iter().map(|f| json!({
                        "name": f.name,
                        "mbit": f.mbit,
                        "share_pct": f.share_pct,
                        "drops": f.drops,
                        "first_s": f.first_s,
                        "last_s": f.last_s,
                    })).collect::<Vec<_>>(),
                    "queue_mean_pkts": r.queue_mean,
                    "queue_max_pkts": r.queue_max,
                    "clients_ok": r.clients_ok,
                    "queue_log": r.queue_log,
                })
            })
            .collect();
        let stacks = self.stack_settings.map(|(seconds, reps)| {
            let cells: Vec<_> = self
                .stacks
                .iter()
                .map(|c| {
                    let runs: Vec<_> = c
                        .runs
                        .iter()
                        .map(|r| {
                            let mut v = json!({
                                "stack": r.stack,
                                "cc": r.cc,
                                "label": r.label,
                                "rep": r.rep,
                                "order": r.order,
                                "ok": r.result.is_ok(),
                            });
                            match &r.result {
                                Ok(f) => {
                                    v["figures"] = json!({
                                        "goodput_mbit": f.goodput_mbit,
                                        "transfer_s": f.transfer_s,
                                        "util": f.util,
                                        "link_busy": f.busy,
                                        "span_s": f.span_s,
                                        "queue_mean_pkts": f.queue_mean,
                                        "queue_mean_second_half_pkts": f.queue_mean_late,
                                        "queue_max_pkts": f.queue_max,
                                        "drops": f.drops,
                                        "random_losses": f.random_losses,
                                        "datagrams": f.datagrams,
                                        "datagram_bytes": f.datagram_bytes,
                                        "datagrams_below_1000_bytes": f.small_datagrams,
                                        "burst_pct": f.burst_pct,
                                        "ramp_to_80pct_s": f.ramp_s,
                                        "emulator_lateness_p99_us": f.lateness_p99_us,
                                        "emulator_lateness_max_us": f.lateness_max_us,
                                    })
                                }
                                Err(e) => v["error"] = json!(e),
                            }
                            v
                        })
                        .collect();
                    let means: serde_json::Map<String, serde_json::Value> = STACKS
                        .iter()
                        .map(|(label, _, _)| {
                            (
                                label.to_string(),
                                json!({
                                    "runs_ok": c.figures(label).len(),
                                    "goodput_mbit": c.mean(label, |f| f.goodput_mbit),
                                    "util": c.mean(label, |f| f.util),
                                    "queue_mean_pkts": c.mean(label, |f| f.queue_mean),
                                    "queue_mean_second_half_pkts":
                                        c.mean(label, |f| f.queue_mean_late),
                                    "queue_max_pkts": c.mean(label, |f| f.queue_max as f64),
                                    "drops": c.mean(label, |f| f.drops as f64),
                                    "datagram_bytes": c.mean(label, |f| f.datagram_bytes),
                                }),
                            )
                        })
                        .collect();
                    let ratios = |cc: &str| {
                        let (a, b) = (format!("quinn {cc}"), format!("quiche {cc}"));
                        json!({
                            "goodput": c.ratio(&a, &b, |f| f.goodput_mbit),
                            "queue_mean": c.ratio(&a, &b, |f| f.queue_mean),
                            "queue_mean_second_half": c.ratio(&a, &b, |f| f.queue_mean_late),
                        })
                    };
                    json!({
                        "rate_mbit": c.rate_mbit,
                        "rtt_ms": c.rtt_ms,
                        "delay_ms_each_way": c.rtt_ms / 2.0,
                        "buffer_pkts": c.buffer_pkts,
                        "bytes": c.bytes,
                        "runs": runs,
                        "means": means,
                        "quinn_over_quiche": {"vegas": ratios("vegas"), "cubic": ratios("cubic")},
                        "reading": c.reading(),
                    })
                })
                .collect();
            json!({
                "seconds_of_rate_per_transfer": seconds,
                "repetitions": reps,
                "bdp_datagram_bytes": BDP_DATAGRAM_BYTES,
                "cells": cells,
            })
        });
        json!({
            "commit": self.commit,
            "date": self.date,
            "command": self.command,
            "argv": self.argv,
            "machine": {"cores": self.cores, "description": self.machine},
            "load_average": {"start": self.load_start, "end": self.load_end},
            "wall_s": self.wall_s,
            "sections_s": self.sections_s.iter()
                .map(|(n, s)| json!({"section": n, "seconds": s}))
                .collect::<Vec<_>>(),
            "matrix": matrix,
            "shared": shared,
            "stacks": stacks,
            "problems": self.problems,
        })
    }
}
