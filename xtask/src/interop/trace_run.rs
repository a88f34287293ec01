//! Real sockets on a recorded trace, for `cargo xtask bench --traces`: our
//! h3-server (one controller) behind `vegas-link-emu --trace-down
//! --trace-up`, one h3-client download; the link's figures from the
//! emulator's report (its per-packet delay is measured as the simulator's:
//! from reaching the link to the scheduled arrival at the far end).

use std::path::Path;
use std::path::PathBuf;

use super::bounded;
use super::last_lines;
use super::output;
use super::stacks::number_after;
use super::Ctx;
use super::STACK_CLIENT_LIMIT_S;

/// The emulated path: a trace pair, the one-way delay and the buffer of
/// both links.
pub(crate) struct TracePath {
    pub(crate) down: PathBuf,
    pub(crate) up: PathBuf,
    pub(crate) delay_ms: f64,
    pub(crate) buffer_pkts: u64,
}

/// One download's figures.
#[derive(Clone, Debug)]
pub(crate) struct TraceRun {
    pub(crate) goodput_mbit: f64,
    pub(crate) transfer_s: f64,
    pub(crate) mean_queue_pkts: f64,
    pub(crate) mean_delay_ms: f64,
    pub(crate) p95_delay_ms: f64,
    pub(crate) drops: u64,
    pub(crate) lateness_p99_us: f64,
}

/// Runs our h3 server and client over traces; logs in `out/logs`.
pub(crate) struct TraceRunner {
    ctx: Ctx,
}

impl TraceRunner {
    /// Builds what it runs (release) and prepares `out`.
    pub(crate) fn new(root: &Path, out: &Path) -> Result<TraceRunner, String> {
        Ok(TraceRunner {
            ctx: Ctx::for_h3_runs(root, out, "bench --traces")?,
        })
    }

    /// h3-server --cc `cc` serves `bytes` through the emulator on `path`;
    /// `run` names the logs.
    pub(crate) fn download(
        &self,
        path: &TracePath,
        cc: &str,
        bytes: u64,
        run: &str,
    ) -> Result<TraceRun, String> {
        let ctx = &self.ctx;
        let (server, port) = ctx.start_server("quiche-vegas", cc, run)?;
        let link: Vec<String> = vec![
            "--trace-down".into(),
            path.down.display().to_string(),
            "--trace-up".into(),
            path.up.display().to_string(),
            "--delay-ms".into(),
            path.delay_ms.to_string(),
            "--buffer-pkts".into(),
            path.buffer_pkts.to_string(),
            "--up-buffer-pkts".into(),
            path.buffer_pkts.to_string(),
        ];
        let (emu, ports) = ctx.start_emulator_on(&[port], run, &link)?;
        let mut c = bounded(
            ctx.bin.join("examples/h3-client"),
            STACK_CLIENT_LIMIT_S * 10,
        );
        c.args(["--quiet", "--timeout-s", "600", "--ca"])
            .arg(ctx.ca())
            .arg(format!("https://localhost:{}/bytes/{bytes}", ports[0]));
        let (ok, text, err) = output(c)?;
        let _ = std::fs::write(ctx.log(run, "client"), format!("{text}\n{err}"));
        // SIGTERM: the emulator prints its report.
        drop(emu);
        drop(server);
        let summary = text
            .lines()
            .find(|l| l.starts_with("summary:"))
            .unwrap_or("");
        let report = std::fs::read_to_string(ctx.log(run, "report")).unwrap_or_default();
        let down = report
            .lines()
            .find(|l| l.starts_with("down:"))
            .unwrap_or("");
        let timing = report
            .lines()
            .find(|l| l.starts_with("timing:"))
            .unwrap_or("");
        let figures = (|| {
            Some(TraceRun {
                goodput_mbit: number_after(summary, "goodput ")?,
                transfer_s: number_after(summary, " bytes in ")?,
                mean_queue_pkts: number_after(down, "mean queue ")?,
                mean_delay_ms: number_after(down, "delay mean ")?,
                p95_delay_ms: number_after(down, " p95 ")?,
                drops: number_after(down, " delivered, ")? as u64,
                lateness_p99_us: number_after(timing, " p99 ")?,
            })
        })();
        match (ok, figures) {
            (true, Some(f)) => Ok(f),
            _ => Err(format!(
                "{cc} over {}: {}",
                path.down.display(),
                last_lines(&format!("{text}\n{err}\n{report}"), 3)
            )),
        }
    }
}
