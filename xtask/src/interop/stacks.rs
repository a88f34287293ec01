//! The stacks section: Vegas on quiche vs Vegas on quinn (and each
//! stack's own CUBIC), one link at a time through the emulator.

use super::*;

/// `RATE_MBIT/RTT_MS`, e.g. `20/80`.
pub(super) fn parse_stack_link(text: &str) -> Result<(f64, f64), String> {
    let bad = || {
        format!(
            "--stacks-links: `{text}`: want RATE_MBIT/RTT_MS with a rate in [1, 200] Mbit/s \
             and an RTT in [2, 1000] ms, e.g. 20/80"
        )
    };
    let (r, d) = text.split_once('/').ok_or_else(bad)?;
    let rate: f64 = r.trim().parse().map_err(|_| bad())?;
    let rtt: f64 = d.trim().parse().map_err(|_| bad())?;
    if !(1.0..=200.0).contains(&rate) || !(2.0..=1000.0).contains(&rtt) {
        return Err(bad());
    }
    Ok((rate, rtt))
}

/// One link of the stacks section and its runs.
pub(super) struct StackCell {
    pub(super) rate_mbit: f64,
    pub(super) rtt_ms: f64,
    pub(super) buffer_pkts: usize,
    pub(super) bytes: u64,
    pub(super) runs: Vec<StackRun>,
}

impl StackCell {
    pub(super) fn new(rate_mbit: f64, rtt_ms: f64, seconds: f64) -> Self {
        let bdp_bytes = rate_mbit * 1e6 / 8.0 * rtt_ms / 1e3;
        StackCell {
            rate_mbit,
            rtt_ms,
            buffer_pkts: (bdp_bytes / BDP_DATAGRAM_BYTES).ceil().max(1.0) as usize,
            bytes: (rate_mbit * 1e6 / 8.0 * seconds).round() as u64,
            runs: Vec::new(),
        }
    }

    pub(super) fn name(&self) -> String {
        format!("{} Mbit/s, RTT {} ms", self.rate_mbit, self.rtt_ms)
    }

    /// The emulator's flags: the RTT split evenly between the two ways.
    pub(super) fn link_args(&self) -> Vec<String> {
        vec![
            "--rate-mbit".into(),
            self.rate_mbit.to_string(),
            "--delay-ms".into(),
            (self.rtt_ms / 2.0).to_string(),
            "--buffer-pkts".into(),
            self.buffer_pkts.to_string(),
        ]
    }

    /// The successful runs' figures of one stack.
    pub(super) fn figures(&self, label: &str) -> Vec<RunFigures> {
        self.runs
            .iter()
            .filter(|r| r.label == label)
            .filter_map(|r| r.result.as_ref().ok().copied())
            .collect()
    }

    /// Mean of `f` over the successful runs of `label`.
    pub(super) fn mean(&self, label: &str, f: impl Fn(&RunFigures) -> f64) -> Option<f64> {
        let v: Vec<f64> = self.figures(label).iter().map(f).collect();
        (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
    }

    /// `a / b` of the means of `f`.
    pub(super) fn ratio(
        &self,
        a: &str,
        b: &str,
        f: impl Fn(&RunFigures) -> f64 + Copy,
    ) -> Option<f64> {
        let (x, y) = (self.mean(a, f)?, self.mean(b, f)?);
        (y > 0.0).then_some(x / y)
    }

    /// The one-line reading: quinn / quiche for Vegas (and CUBIC).
    pub(super) fn reading(&self) -> String {
        let x = |r: Option<f64>| r.map_or("n/a".to_string(), |r| format!("{r:.2}x"));
        let pair = |cc: &str| {
            let (a, b) = (format!("quinn {cc}"), format!("quiche {cc}"));
            format!(
                "goodput {}, mean queue {} (second half {})",
                x(self.ratio(&a, &b, |f| f.goodput_mbit)),
                x(self.ratio(&a, &b, |f| f.queue_mean)),
                x(self.ratio(&a, &b, |f| f.queue_mean_late)),
            )
        };
        let of = |label: &str, f: fn(&RunFigures) -> f64, digits: usize, unit: &str| {
            self.mean(label, f).map_or("n/a".to_string(), |v| {
                if v.is_finite() {
                    format!("{v:.digits$}{unit}")
                } else {
                    "never (mean of the runs)".to_string()
                }
            })
        };
        let ramp = |f: &RunFigures| f.ramp_s.unwrap_or(f64::INFINITY);
        // The emulator released datagrams later than 4 datagram times:
        // the machine was busy and the link's timing is blurred.
        let slow_us = 4.0 * BDP_DATAGRAM_BYTES * 8.0 / self.rate_mbit;
        let late: Vec<f64> = self
            .runs
            .iter()
            .filter_map(|r| r.result.as_ref().ok()?.lateness_p99_us)
            .filter(|&us| us > slow_us)
            .collect();
        let warning = if late.is_empty() {
            String::new()
        } else {
            format!(
                " Caution: in {} run(s) the emulator released datagrams late (p99 up to {:.0} us, \
                 more than 4 datagram times, {slow_us:.0} us): the machine was busy.",
                late.len(),
                late.iter().cloned().fold(0.0, f64::max)
            )
        };
        format!(
            "{}: vegas-on-quinn / vegas-on-quiche: {}; for reference cubic quinn / quiche: {}. \
             Vegas reached 80% of the rate after {} on quinn, {} on quiche; datagrams \
             arriving in bursts: {} on quinn, {} on quiche.{warning}",
            self.name(),
            pair("vegas"),
            pair("cubic"),
            of("quinn vegas", ramp, 2, " s"),
            of("quiche vegas", ramp, 2, " s"),
            of("quinn vegas", |f| f.burst_pct, 0, "%"),
            of("quiche vegas", |f| f.burst_pct, 0, "%"),
        )
    }

    /// One row per stack: mean (each run) of every figure.
    pub(super) fn rows(&self) -> Vec<Vec<String>> {
        STACKS
            .iter()
            .map(|(label, _, _)| {
                let runs: Vec<&StackRun> = self.runs.iter().filter(|r| r.label == *label).collect();
                // NaN: not measured; infinite: never reached.
                let num = |v: f64, digits: usize| match v {
                    v if v.is_nan() => "n/a".to_string(),
                    v if v.is_infinite() => "never".to_string(),
                    v => format!("{v:.digits$}"),
                };
                let col = |digits: usize, f: &dyn Fn(&RunFigures) -> f64| {
                    let each: Vec<String> = runs
                        .iter()
                        .map(|r| match &r.result {
                            Ok(v) => num(f(v), digits),
                            Err(_) => "FAIL".into(),
                        })
                        .collect();
                    match self.mean(label, f) {
                        Some(m) if each.len() > 1 => {
                            format!("{} ({})", num(m, digits), each.join(", "))
                        }
                        Some(m) => num(m, digits),
                        None => format!("- ({})", each.join(", ")),
                    }
                };
                vec![
                    label.to_string(),
                    col(2, &|f| f.goodput_mbit),
                    col(2, &|f| f.util),
                    col(1, &|f| f.queue_mean),
                    col(1, &|f| f.queue_mean_late),
                    col(0, &|f| f.queue_max as f64),
                    col(0, &|f| f.drops as f64),
                    col(0, &|f| f.datagram_bytes),
                    col(2, &|f| f.ramp_s.unwrap_or(f64::INFINITY)),
                    col(0, &|f| f.burst_pct),
                    col(0, &|f| f.lateness_p99_us.unwrap_or(f64::NAN)),
                ]
            })
            .collect()
    }
}

pub(super) const STACK_HEADERS: [&str; 11] = [
    "stack (server cc)",
    "goodput Mbit/s",
    "util",
    "queue mean pkts",
    "queue mean, 2nd half",
    "queue max",
    "drops",
    "datagram B",
    "80% of rate after s",
    "burst %",
    "emu p99 late us",
];
/// A datagram arriving at the emulator within this long of the previous
/// one came in a burst (at 50 Mbit/s a 1350-byte datagram takes 216 us).
pub(super) const BURST_GAP_MS: f64 = 0.05;
/// The windows in which the ramp-up is looked at.
pub(super) const RAMP_WINDOW_MS: f64 = 100.0;

/// One transfer of the stacks section.
pub(super) struct StackRun {
    pub(super) label: &'static str,
    pub(super) stack: &'static str,
    pub(super) cc: &'static str,
    pub(super) rep: usize,
    /// Its place in the repetition's order (0 first).
    pub(super) order: usize,
    pub(super) result: Result<RunFigures, String>,
}

/// What one transfer measured.
#[derive(Clone, Copy, Debug)]
pub(super) struct RunFigures {
    /// The client's own timing: from its request to the last byte.
    pub(super) goodput_mbit: f64,
    pub(super) transfer_s: f64,
    /// goodput / the emulated rate.
    pub(super) util: f64,
    /// Wire bytes the down link served over its busy span (first to last
    /// datagram), over the rate: headers and retransmissions included.
    pub(super) busy: f64,
    pub(super) span_s: f64,
    /// Time-weighted queue (waiting packets) from the first to the last
    /// datagram of the down link, and over the second half of that span.
    pub(super) queue_mean: f64,
    pub(super) queue_mean_late: f64,
    pub(super) queue_max: u64,
    /// Drop-tail drops and random losses of the emulator (down link).
    pub(super) drops: u64,
    pub(super) random_losses: u64,
    pub(super) datagrams: u64,
    pub(super) datagram_bytes: f64,
    /// Datagrams below 1000 bytes (partly filled packets).
    pub(super) small_datagrams: u64,
    /// Share of the datagrams arriving at the emulator within
    /// `BURST_GAP_MS` of the previous one (sent in a burst, not paced).
    pub(super) burst_pct: f64,
    /// From the first datagram to the end of the first `RAMP_WINDOW_MS`
    /// window in which the link carried 80% of its rate (None: never).
    pub(super) ramp_s: Option<f64>,
    /// The emulator's timing precision (its report).
    pub(super) lateness_p99_us: Option<f64>,
    pub(super) lateness_max_us: Option<f64>,
}

/// The number right after the first `key` in `text`.
pub(super) fn number_after(text: &str, key: &str) -> Option<f64> {
    let rest = &text[text.find(key)? + key.len()..];
    let end = rest
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-'))
        .unwrap_or(rest.len());
    rest[..end].parse().ok()
}

/// Time-weighted mean of the queue over [a, b] (ms) and its maximum
/// there; the queue is what the last event at or before a time left.
pub(super) fn queue_over(events: &[Event], a: f64, b: f64) -> (f64, u64) {
    let (mut q, mut t, mut area, mut max) = (0u64, a, 0.0, 0u64);
    for e in events {
        if e.t_ms <= a {
            q = e.queue;
            continue;
        }
        if e.t_ms > b {
            break;
        }
        area += q as f64 * (e.t_ms - t);
        t = e.t_ms;
        q = e.queue;
        max = max.max(q);
    }
    area += q as f64 * (b - t);
    let mean = if b > a { area / (b - a) } else { q as f64 };
    (mean, max)
}

impl Ctx {
    /// A stacks-section server: `quiche` (h3-server) or `quinn` (the
    /// quinn-vegas example), listening on a loopback port (returned).
    pub(super) fn start_stack_server(
        &self,
        stack: &str,
        cc: &str,
        run: &str,
    ) -> Result<(Proc, u16), String> {
        match stack {
            "quiche" => self.start_server("quiche-vegas", cc, run),
            "quinn" => {
                let mut c = bounded(self.bin.join("examples/quinn-vegas"), SERVER_LIMIT_S);
                c.current_dir(&self.root)
                    .args(["server", "--listen", "127.0.0.1:0", "--cc", cc])
                    .arg("--cert")
                    .arg(self.root.join("examples/certs/cert.pem"))
                    .arg("--key")
                    .arg(self.key());
                // It says `listening on ADDR (cc NAME)` on stderr.
                let (p, lines) = spawn_ready_on(
                    c,
                    1,
                    &self.log(run, "server-out"),
                    &self.log(run, "server"),
                    true,
                )?;
                Ok((p, port_of(&lines[0], 2)?))
            }
            other => Err(format!("unknown stack `{other}`")),
        }
    }

    /// One transfer of `cell.bytes` server -> client through the emulator.
    pub(super) fn stack_run(
        &self,
        cell: &StackCell,
        stack: &str,
        cc: &str,
        run: &str,
    ) -> Result<RunFigures, String> {
        let queue_log = self.out.join(format!("queue-{run}.log"));
        let _ = std::fs::remove_file(&queue_log);
        let (server, port) = self.start_stack_server(stack, cc, run)?;
        let (emu, ports) = self.start_emulator_on(&[port], run, &cell.link_args())?;
        let port = ports[0];
        let bytes = cell.bytes;
        let client = match stack {
            "quiche" => {
                let mut c = bounded(self.bin.join("examples/h3-client"), STACK_CLIENT_LIMIT_S);
                c.args(["--quiet", "--timeout-s", "60", "--ca"])
                    .arg(self.ca())
                    .arg(format!("https://localhost:{port}/bytes/{bytes}"));
                c
            }
            _ => {
                let mut c = bounded(self.bin.join("examples/quinn-vegas"), STACK_CLIENT_LIMIT_S);
                c.args(["client", "--connect", &format!("127.0.0.1:{port}")])
                    .arg("--ca")
                    .arg(self.ca())
                    .args(["--bytes", &bytes.to_string(), "--timeout-s", "60"]);
                c
            }
        };
        let (ok, text, err) = output(client)?;
        let _ = std::fs::write(self.log(run, "client"), format!("{text}\n{err}"));
        // SIGTERM: the emulator flushes its queue log and prints its report.
        drop(emu);
        drop(server);
        let (complete, transfer_s, goodput) = match stack {
            "quiche" => {
                let summary = text
                    .lines()
                    .find(|l| l.starts_with("summary:"))
                    .unwrap_or("");
                (
                    text.contains(&format!("-> 200, {bytes} bytes")),
                    number_after(summary, " bytes in "),
                    number_after(summary, "goodput "),
                )
            }
            _ => {
                let line = text
                    .lines()
                    .find(|l| l.starts_with("downloaded "))
                    .unwrap_or("");
                (
                    line.starts_with(&format!("downloaded {bytes} bytes in ")),
                    number_after(line, " bytes in "),
                    number_after(line, " s: "),
                )
            }
        };
        let (Some(transfer_s), Some(goodput_mbit), true, true) =
            (transfer_s, goodput, complete, ok)
        else {
            return Err(format!(
                "client failed (exit ok: {ok}, all {bytes} bytes: {complete}): {}",
                last_lines(&format!("{text}\n{err}"), 3)
            ));
        };
        let events = read_queue_log(&queue_log)?;
        let departures: Vec<&Event> = events.iter().filter(|e| e.kind == '-').collect();
        let (Some(first), Some(last)) = (departures.first(), departures.last()) else {
            return Err(format!("no datagram in {}", queue_log.display()));
        };
        let (a, b) = (first.t_ms, last.t_ms);
        let (queue_mean, queue_max) = queue_over(&events, a, b);
        let (queue_mean_late, _) = queue_over(&events, (a + b) / 2.0, b);
        let wire: u64 = departures.iter().map(|e| e.bytes).sum();
        let span_s = (b - a) / 1e3;
        let rate_bps = cell.rate_mbit * 1e6;
        let arrivals: Vec<f64> = events
            .iter()
            .filter(|e| matches!(e.kind, '+' | 'd' | 'l') && e.t_ms >= a && e.t_ms <= b)
            .map(|e| e.t_ms)
            .collect();
        let bursts = arrivals
            .windows(2)
            .filter(|w| w[1] - w[0] < BURST_GAP_MS)
            .count();
        let burst_pct = 100.0 * bursts as f64 / arrivals.len().saturating_sub(1).max(1) as f64;
        let mut window_bytes: Vec<u64> = vec![0; ((b - a) / RAMP_WINDOW_MS) as usize + 1];
        for e in &departures {
            window_bytes[((e.t_ms - a) / RAMP_WINDOW_MS) as usize] += e.bytes;
        }
        let full_window_bytes = 0.8 * rate_bps / 8.0 * RAMP_WINDOW_MS / 1e3;
        let ramp_s = window_bytes
            .iter()
            .position(|&w| w as f64 >= full_window_bytes)
            .map(|i| (i + 1) as f64 * RAMP_WINDOW_MS / 1e3);
        let emu_report = std::fs::read_to_string(self.log(run, "report")).unwrap_or_default();
        let timing = emu_report
            .lines()
            .find(|l| l.starts_with("timing:"))
            .unwrap_or("");
        Ok(RunFigures {
            goodput_mbit,
            transfer_s,
            util: goodput_mbit * 1e6 / rate_bps,
            busy: if span_s > 0.0 {
                wire as f64 * 8.0 / rate_bps / span_s
            } else {
                0.0
            },
            span_s,
            queue_mean,
            queue_mean_late,
            queue_max,
            drops: events.iter().filter(|e| e.kind == 'd').count() as u64,
            random_losses: events.iter().filter(|e| e.kind == 'l').count() as u64,
            datagrams: departures.len() as u64,
            small_datagrams: departures.iter().filter(|e| e.bytes < 1000).count() as u64,
            burst_pct,
            ramp_s,
            datagram_bytes: wire as f64 / departures.len() as f64,
            lateness_p99_us: number_after(timing, ", p99 "),
            lateness_max_us: number_after(timing, ", max "),
        })
    }
}

/// Vegas and CUBIC on quiche and on quinn over each link, the same bytes,
/// `stack_reps` repetitions in alternating order.
pub(super) fn stacks_section(ctx: &Ctx, o: &Options, report: &mut Report) -> Result<(), String> {
    for &(rate, rtt) in &o.stack_links {
        let mut cell = StackCell::new(rate, rtt, o.stack_seconds);
        println!(
            "\nstacks: {}, buffer {} packets (1 BDP of {BDP_DATAGRAM_BYTES}-byte datagrams), \
             {} bytes server -> client per run",
            cell.name(),
            cell.buffer_pkts,
            cell.bytes
        );
        for rep in 0..o.stack_reps {
            let mut order: Vec<usize> = (0..STACKS.len()).collect();
            if rep % 2 == 1 {
                order.reverse();
            }
            for (pos, &i) in order.iter().enumerate() {
                let (label, stack, cc) = STACKS[i];
                let run = format!(
                    "stacks-{}m-{}ms-{stack}-{cc}-{rep}",
                    cell.rate_mbit, cell.rtt_ms
                );
                let started = Instant::now();
                let result = ctx.stack_run(&cell, stack, cc, &run);
                match &result {
                    Ok(f) => println!(
                        "  rep {rep} {label:<13} {:>6.2} Mbit/s  util {:.2}  queue mean {:>5.1} \
                         (2nd half {:>5.1}) max {:>4}  drops {:>4}  datagram {:.0} B  \
                         80% after {} s  bursts {:.0}%  emu p99 {} us  ({:.1} s)",
                        f.goodput_mbit,
                        f.util,
                        f.queue_mean,
                        f.queue_mean_late,
                        f.queue_max,
                        f.drops,
                        f.datagram_bytes,
                        f.ramp_s.map_or("never".to_string(), |v| format!("{v:.1}")),
                        f.burst_pct,
                        f.lateness_p99_us
                            .map_or("?".to_string(), |v| format!("{v:.0}")),
                        started.elapsed().as_secs_f64()
                    ),
                    Err(e) => {
                        eprintln!("interop: {run}: {e}");
                        report.problems.push(format!("{run}: {e}"));
                    }
                }
                cell.runs.push(StackRun {
                    label,
                    stack,
                    cc,
                    rep,
                    order: pos,
                    result,
                });
            }
        }
        println!("{}", table(&STACK_HEADERS, &cell.rows(), false));
        println!("  {}", cell.reading());
        report.stacks.push(cell);
        report.write(&ctx.out)?;
    }
    Ok(())
}
