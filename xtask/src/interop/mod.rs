//! `cargo xtask interop`: our HTTP/3 examples against other QUIC stacks
//! through the link emulator (10 Mbit/s, 20 ms each way, 50-packet buffer),
//! then a shared bottleneck, then Vegas on quiche against Vegas on quinn.
//! `cargo xtask interop --help` lists the options.
//!
//! Peers, installed here from the package registries when missing and
//! driven by small programs of ours under `interop/peers/`:
//! - `quiche-vegas`: our own h3-server and h3-client (the baseline);
//! - `aioquic` 1.7.2 (PyPI, into the venv `target/interop/venv`),
//!   `interop/peers/aioquic/peer.py`, congestion control `reno|cubic`;
//! - `quic-go` (Go module proxy; `interop/peers/quic-go`, built into
//!   `target/interop/bin/quic-go-peer`); stock quic-go has no
//!   congestion-control switch;
//! - `ngtcp2` 0.12.1 (Debian `ngtcp2-client` / `ngtcp2-server`: the HTTP/3
//!   examples `gtlsclient` / `gtlsserver`, ALPN h3, `--cc cubic|reno|...`),
//!   installed with apt-get. Its server serves files only (and `/N`: N zero
//!   bytes), so the xtask writes `target/interop/www/bytes/N`, which has the
//!   same content as our server's `/bytes/N` (byte i = i mod 251); its
//!   client verifies no certificate (it has no CA option).
//!
//! Matrix: our h3-server with each Vegas-family algorithm serves each
//! peer's client, and our h3-client fetches from each peer's server (with
//! each congestion controller the peer offers). Every body is saved and
//! compared with the expected bytes; the status must be 200.
//!
//! Shared bottleneck: one of our Vegas-family servers and an ngtcp2 server
//! with CUBIC or Reno (quiche's own if ngtcp2 cannot be had) behind one
//! emulator (two routes, one down link), each fetched by our h3-client at
//! the same time. Shares are measured over a common window (both flows
//! sending, the first second after the later start skipped, up to the
//! first flow's end) from the emulator's queue log, with the queue over
//! that window.
//!
//! Stacks (`--stacks-only` alone, `--no-stacks` to skip): Vegas on quiche
//! (h3-server / h3-client, `--cc vegas`) against Vegas on quinn (the
//! `quinn-vegas` example: vegas-cc behind quinn's public controller trait),
//! with quiche's and quinn's own CUBIC as references, one transfer at a time
//! through the same emulator settings (20 and 50 Mbit/s, 20 and 80 ms RTT,
//! a buffer of 1 BDP), the same bytes per link, each link's runs repeated in
//! alternating order. Goodput from the client's own timing; queue, drops,
//! datagram sizes, bursts and ramp-up from the emulator's queue log.
//!
//! Every run writes `target/interop/REPORT.md` and `report.json` (commit,
//! date, command line, machine, every figure and problem), also when a peer
//! could not be installed or a run failed.
//!
//! Every child runs under `timeout` and is killed when the xtask drops it.

use std::collections::HashMap;
use std::path::Path;
use std::path::PathBuf;
use std::process::Child;
use std::process::Command;
use std::process::Stdio;
use std::time::Duration;
use std::time::Instant;

mod decisions;
mod real;
mod report;
mod stacks;
pub(crate) mod trace_run;

pub use real::run as bench_real;

pub(crate) use report::command_text;
use report::*;
use stacks::*;

const VEGAS_FAMILY: [&str; 8] = vegas_cc::vegas::FAMILY_NAMES;
const QUICK_ALGORITHMS: [&str; 4] = ["vegas", "vegas-a", "gallop-vegas", "vegas-compat"];
const BUFFER_PKTS: usize = 50;
const LINK: [&str; 6] = [
    "--rate-mbit",
    "10",
    "--delay-ms",
    "20",
    "--buffer-pkts",
    "50",
];
const PEERS: [&str; 4] = ["quiche-vegas", "aioquic", "quic-go", "ngtcp2"];
const AIOQUIC_VERSION: &str = "1.7.2";
/// Upper bound of one client run (its own timeout is lower).
const CLIENT_LIMIT_S: u64 = 150;
/// Upper bound of a server or emulator process.
const SERVER_LIMIT_S: u64 = 240;
/// Skipped after the later flow's first packet in the shared run.
const SHARED_WARMUP_MS: f64 = 1000.0;
/// The stacks section: (label, stack, congestion controller of the
/// server), run in this order in even repetitions, reversed in odd ones.
const STACKS: [(&str, &str, &str); 4] = [
    ("quiche vegas", "quiche", "vegas"),
    ("quinn vegas", "quinn", "vegas"),
    ("quiche cubic", "quiche", "cubic"),
    ("quinn cubic", "quinn", "cubic"),
];
/// Its default links: (rate Mbit/s, RTT ms), buffer 1 BDP.
const STACK_LINKS: [(f64, f64); 4] = [(20.0, 20.0), (20.0, 80.0), (50.0, 20.0), (50.0, 80.0)];
/// Each transfer is this many seconds of the link's rate (the same bytes
/// for every stack on a link).
const STACK_SECONDS: f64 = 3.0;
const STACK_SECONDS_QUICK: f64 = 2.0;
const STACK_REPS: usize = 2;
/// The datagram size the stacks' buffers are sized with (1 BDP in
/// packets): our quiche examples' 1350 bytes.
const BDP_DATAGRAM_BYTES: f64 = 1350.0;
/// Upper bound of one stacks client (its own timeout is 60 s).
const STACK_CLIENT_LIMIT_S: u64 = 75;

/// A child process (under `timeout`) stopped with SIGTERM, then SIGKILL,
/// on drop.
struct Proc {
    child: Child,
}

impl Drop for Proc {
    fn drop(&mut self) {
        // SIGTERM first: `timeout` passes it on and the emulator prints
        // its report.
        let _ = Command::new("kill")
            .arg(self.child.id().to_string())
            .status();
        let deadline = Instant::now() + Duration::from_secs(3);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `program` under coreutils `timeout`: killed after `secs` even if the
/// xtask itself dies. `--foreground` keeps it in our process group, so a
/// Ctrl-C reaches it too.
fn bounded(program: impl AsRef<std::ffi::OsStr>, secs: u64) -> Command {
    let mut c = Command::new("timeout");
    c.args(["--foreground", "-k", "5", &secs.to_string()])
        .arg(program);
    c
}

/// Runs `cmd` to the end (it is bounded); (success, stdout, stderr).
fn output(mut cmd: Command) -> Result<(bool, String, String), String> {
    let shown = format!("{cmd:?}");
    let out = cmd
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot start {shown}: {e}"))?;
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let mut err = String::from_utf8_lossy(&out.stderr).to_string();
    if out.status.code() == Some(124) {
        err.push_str("\n(timed out)");
    }
    Ok((out.status.success(), text, err))
}

fn last_lines(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    lines[lines.len().saturating_sub(n)..].join(" | ")
}

/// Starts `cmd` with stdout to `out` and stderr to `err`, and waits
/// (at most 15 s) until it has printed `lines` lines.
fn spawn_ready(
    cmd: Command,
    lines: usize,
    out: &Path,
    err: &Path,
) -> Result<(Proc, Vec<String>), String> {
    spawn_ready_on(cmd, lines, out, err, false)
}

/// [`spawn_ready`], waiting for the lines on stderr when `on_stderr` (a
/// program that says it is ready there, as the quinn example does).
fn spawn_ready_on(
    mut cmd: Command,
    lines: usize,
    out: &Path,
    err: &Path,
    on_stderr: bool,
) -> Result<(Proc, Vec<String>), String> {
    let shown = format!("{cmd:?}");
    let (watched, other) = if on_stderr { (err, out) } else { (out, err) };
    let create = |p: &Path| std::fs::File::create(p).map_err(|e| format!("{}: {e}", p.display()));
    let child = cmd
        .stdin(Stdio::null())
        .stdout(create(out)?)
        .stderr(create(err)?)
        .spawn()
        .map_err(|e| format!("cannot start {shown}: {e}"))?;
    let mut proc = Proc { child };
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let text = std::fs::read_to_string(watched).unwrap_or_default();
        let got: Vec<String> = text
            .split_inclusive('\n')
            .filter(|l| l.ends_with('\n'))
            .map(|l| l.trim().to_string())
            .collect();
        if got.len() >= lines {
            return Ok((proc, got[..lines].to_vec()));
        }
        let why = if let Ok(Some(status)) = proc.child.try_wait() {
            format!("exited ({status})")
        } else if Instant::now() > deadline {
            "printed nothing for 15 s".to_string()
        } else {
            std::thread::sleep(Duration::from_millis(10));
            continue;
        };
        let text =
            std::fs::read_to_string(if on_stderr { watched } else { other }).unwrap_or_default();
        return Err(format!(
            "{shown} {why} before it was ready: {}",
            last_lines(&text, 3)
        ));
    }
}

fn port_of(line: &str, word: usize) -> Result<u16, String> {
    line.split_whitespace()
        .nth(word)
        .and_then(|a| a.rsplit(':').next())
        .and_then(|p| p.parse().ok())
        .ok_or_else(|| format!("no port in `{line}`"))
}

fn free_udp_port() -> Result<u16, String> {
    let s = std::net::UdpSocket::bind("127.0.0.1:0").map_err(|e| e.to_string())?;
    Ok(s.local_addr().map_err(|e| e.to_string())?.port())
}

/// The body of `/bytes/N`: byte i = i mod 251.
fn pattern(n: u64) -> Vec<u8> {
    (0..n).map(|i| (i % 251) as u8).collect()
}

/// The programs of the peers that could be had, or why not.
struct Tools {
    python: Result<PathBuf, String>,
    quic_go: Result<PathBuf, String>,
    /// (client, server)
    ngtcp2: Result<(PathBuf, PathBuf), String>,
}

impl Tools {
    fn missing(&self, peer: &str) -> Option<String> {
        match peer {
            "aioquic" => self.python.as_ref().err().cloned(),
            "quic-go" => self.quic_go.as_ref().err().cloned(),
            "ngtcp2" => self.ngtcp2.as_ref().err().cloned(),
            _ => None,
        }
    }
}

fn setup_aioquic(out: &Path) -> Result<PathBuf, String> {
    let venv = out.join("venv");
    let python = venv.join("bin/python");
    let check = || {
        Command::new(&python)
            .args([
                "-c",
                &format!(
                    "import sys, aioquic; sys.exit(aioquic.__version__ != '{AIOQUIC_VERSION}')"
                ),
            ])
            .stderr(Stdio::null())
            .status()
            .map(|s| s.success())
            .unwrap_or(false)
    };
    if check() {
        return Ok(python);
    }
    eprintln!(
        "interop: installing aioquic {AIOQUIC_VERSION} into {}",
        venv.display()
    );
    if !python.exists() {
        let mut c = bounded("python3", 120);
        c.args(["-m", "venv"]).arg(&venv);
        let (ok, _, err) = output(c)?;
        if !ok {
            return Err(format!("python3 -m venv failed: {}", last_lines(&err, 3)));
        }
    }
    let mut c = bounded(&python, 600);
    c.args([
        "-m",
        "pip",
        "install",
        "--quiet",
        "--disable-pip-version-check",
        &format!("aioquic=={AIOQUIC_VERSION}"),
    ]);
    let (ok, _, err) = output(c)?;
    if !ok || !check() {
        return Err(format!(
            "pip install aioquic=={AIOQUIC_VERSION} failed: {}",
            last_lines(&err, 3)
        ));
    }
    Ok(python)
}

fn find_program(name: &str, extra_dirs: &[&str]) -> Option<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect())
        .unwrap_or_default();
    dirs.extend(extra_dirs.iter().map(PathBuf::from));
    dirs.into_iter().map(|d| d.join(name)).find(|p| p.is_file())
}

fn setup_quic_go(root: &Path, out: &Path) -> Result<PathBuf, String> {
    let go = find_program("go", &["/usr/local/go/bin", "/usr/lib/go/bin"])
        .ok_or("`go` not found (Go 1.24 or newer is needed to build interop/peers/quic-go)")?;
    let bin = out.join("bin/quic-go-peer");
    let mut c = bounded(go, 600);
    c.current_dir(root.join("interop/peers/quic-go"))
        .args(["build", "-o"])
        .arg(&bin)
        .arg(".");
    let (ok, _, err) = output(c)?;
    if !ok {
        return Err(format!(
            "go build of interop/peers/quic-go failed: {}",
            last_lines(&err, 4)
        ));
    }
    Ok(bin)
}

fn setup_ngtcp2() -> Result<(PathBuf, PathBuf), String> {
    let find = || {
        Some((
            find_program("gtlsclient", &["/usr/bin"])?,
            find_program("gtlsserver", &["/usr/sbin", "/usr/bin"])?,
        ))
    };
    if let Some(found) = find() {
        return Ok(found);
    }
    let apt = find_program("apt-get", &["/usr/bin"])
        .ok_or("ngtcp2's gtlsclient/gtlsserver are not installed and there is no apt-get")?;
    eprintln!("interop: installing ngtcp2-client ngtcp2-server with apt-get");
    let install = || {
        let mut c = bounded(&apt, 600);
        c.env("DEBIAN_FRONTEND", "noninteractive").args([
            "install",
            "-y",
            "-q",
            "ngtcp2-client",
            "ngtcp2-server",
        ]);
        output(c)
    };
    let (mut ok, _, mut err) = install()?;
    if !ok {
        // The package lists may be missing or old.
        let mut c = bounded(&apt, 300);
        c.args(["update", "-q"]);
        let _ = output(c)?;
        (ok, _, err) = install()?;
    }
    match find() {
        Some(found) if ok => Ok(found),
        _ => Err(format!(
            "apt-get install ngtcp2-client ngtcp2-server failed: {}",
            last_lines(&err, 3)
        )),
    }
}

/// Paths and settings every run needs.
struct Ctx {
    root: PathBuf,
    bin: PathBuf,
    out: PathBuf,
    tools: Tools,
    /// Where our h3-server writes each run's qlog (`DIR/<run>/`), if
    /// anywhere: `bench --real` reads the controller's decisions from it.
    qlog_dir: Option<PathBuf>,
}

impl Ctx {
    /// Builds our h3 examples and the emulator (release), writes the test
    /// certificates if missing, and makes `out/logs` and `out/www`: a
    /// context for runs of our own server and client only (`what` names
    /// the command in the other peers' place).
    fn for_h3_runs(root: &Path, out: &Path, what: &str) -> Result<Ctx, String> {
        for d in ["logs", "www"] {
            std::fs::create_dir_all(out.join(d)).map_err(|e| e.to_string())?;
        }
        let mut build = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
        build.current_dir(root).args([
            "build",
            "--release",
            "--quiet",
            "-p",
            "quiche-vegas",
            "--example",
            "h3-server",
            "--example",
            "h3-client",
        ]);
        crate::run(build)?;
        let mut build = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
        build
            .current_dir(root)
            .args(["build", "--release", "--quiet", "-p", "vegas-interop"]);
        crate::run(build)?;
        if !root.join("examples/certs/chain.pem").is_file() {
            crate::certs::write(&root.join("examples/certs"))?;
        }
        let not_wanted = format!("not used by {what}");
        Ok(Ctx {
            root: root.to_path_buf(),
            bin: root.join("target/release"),
            out: out.to_path_buf(),
            tools: Tools {
                python: Err(not_wanted.clone()),
                quic_go: Err(not_wanted.clone()),
                ngtcp2: Err(not_wanted),
            },
            qlog_dir: None,
        })
    }

    fn ca(&self) -> PathBuf {
        self.root.join("examples/certs/ca.pem")
    }
    fn chain(&self) -> PathBuf {
        self.root.join("examples/certs/chain.pem")
    }
    fn key(&self) -> PathBuf {
        self.root.join("examples/certs/key.pem")
    }
    fn www(&self) -> PathBuf {
        self.out.join("www")
    }
    fn log(&self, run: &str, what: &str) -> PathBuf {
        self.out.join("logs").join(format!("{run}-{what}.log"))
    }

    /// A server of `peer` with congestion controller `cc`, listening on a
    /// loopback port (returned).
    fn start_server(&self, peer: &str, cc: &str, run: &str) -> Result<(Proc, u16), String> {
        self.start_server_for(peer, cc, run, BUFFER_PKTS)
    }

    /// [`Ctx::start_server`] for a bottleneck of `buffer_pkts` packets
    /// (what vegas-compat's Reno-compatible alpha/beta are computed from).
    fn start_server_for(
        &self,
        peer: &str,
        cc: &str,
        run: &str,
        buffer_pkts: usize,
    ) -> Result<(Proc, u16), String> {
        let log = self.log(run, "server");
        let www = self.www();
        let line_server = |mut c: Command| -> Result<(Proc, u16), String> {
            c.current_dir(&self.root);
            let (p, lines) = spawn_ready(c, 1, &self.log(run, "server-out"), &log)?;
            Ok((p, port_of(&lines[0], 2)?))
        };
        match peer {
            "quiche-vegas" => {
                let mut c = bounded(self.bin.join("examples/h3-server"), SERVER_LIMIT_S);
                c.args(["--listen", "127.0.0.1:0", "--cc", cc])
                    .arg("--root")
                    .arg(&www);
                if let Some(dir) = &self.qlog_dir {
                    let dir = dir.join(run);
                    let _ = std::fs::remove_dir_all(&dir);
                    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
                    c.arg("--qlog-dir").arg(dir);
                }
                if cc.contains("compat") {
                    // Reno-compatible alpha/beta come from the bottleneck
                    // buffer: one Vegas flow, one loss-based competitor.
                    for p in [
                        format!("buffer_pkts={buffer_pkts}"),
                        "reno_flows=1".into(),
                        "vegas_flows=1".into(),
                        "approach=1".into(),
                    ] {
                        c.args(["--cc-param", &p]);
                    }
                }
                line_server(c)
            }
            "aioquic" => {
                let python = self.tools.python.as_ref()?;
                let mut c = bounded(python, SERVER_LIMIT_S);
                c.arg(self.root.join("interop/peers/aioquic/peer.py"))
                    .args(["server", "--listen", "127.0.0.1:0", "--cc", cc])
                    .args(["--max-seconds", &SERVER_LIMIT_S.to_string()])
                    .arg("--cert")
                    .arg(self.chain())
                    .arg("--key")
                    .arg(self.key())
                    .arg("--root")
                    .arg(&www);
                line_server(c)
            }
            "quic-go" => {
                let prog = self.tools.quic_go.as_ref()?;
                let mut c = bounded(prog, SERVER_LIMIT_S);
                c.args(["server", "--listen", "127.0.0.1:0"])
                    .args(["--max-seconds", &SERVER_LIMIT_S.to_string()])
                    .arg("--cert")
                    .arg(self.chain())
                    .arg("--key")
                    .arg(self.key())
                    .arg("--root")
                    .arg(&www);
                line_server(c)
            }
            "ngtcp2" => {
                let (_, server) = self.tools.ngtcp2.as_ref()?;
                // It prints nothing when ready: pick a free port, give it
                // a moment, check it is still there.
                let port = free_udp_port()?;
                let mut c = bounded(server, SERVER_LIMIT_S);
                c.args(["-q", &format!("--cc={cc}"), "-d"])
                    .arg(&www)
                    .args(["127.0.0.1", &port.to_string()])
                    .arg(self.key())
                    .arg(self.chain());
                let err = std::fs::File::create(&log).map_err(|e| e.to_string())?;
                let child = c
                    .stdin(Stdio::null())
                    .stdout(Stdio::null())
                    .stderr(err)
                    .spawn()
                    .map_err(|e| format!("cannot start {}: {e}", server.display()))?;
                let mut p = Proc { child };
                std::thread::sleep(Duration::from_millis(300));
                if let Ok(Some(status)) = p.child.try_wait() {
                    let text = std::fs::read_to_string(&log).unwrap_or_default();
                    return Err(format!(
                        "gtlsserver exited at once ({status}): {}",
                        last_lines(&text, 3)
                    ));
                }
                Ok((p, port))
            }
            other => Err(format!("unknown peer `{other}`")),
        }
    }

    /// Fetches `/bytes/N` through `port` with `peer`'s client; checks the
    /// status and every byte. (pass, goodput text, why it failed)
    fn fetch(&self, peer: &str, port: u16, bytes: u64, run: &str) -> (bool, String, String) {
        match self.try_fetch(peer, port, bytes, run) {
            Ok(g) => (true, g, String::new()),
            Err(e) => (false, "-".into(), e),
        }
    }

    fn try_fetch(&self, peer: &str, port: u16, bytes: u64, run: &str) -> Result<String, String> {
        let url = format!("https://localhost:{port}/bytes/{bytes}");
        let dir = self.out.join("dl").join(run);
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
        let file = dir.join(bytes.to_string());
        let limit = CLIENT_LIMIT_S;
        let c = match peer {
            "quiche-vegas" => {
                let mut c = bounded(self.bin.join("examples/h3-client"), limit);
                c.args(["--quiet", "--timeout-s", "120", "--ca"])
                    .arg(self.ca())
                    .arg("--output-dir")
                    .arg(&dir)
                    .arg(&url);
                c
            }
            "aioquic" => {
                let mut c = bounded(self.tools.python.as_ref()?, limit);
                c.arg(self.root.join("interop/peers/aioquic/peer.py"))
                    .args(["client", "--timeout-s", "120", "--ca"])
                    .arg(self.ca())
                    .arg("--out")
                    .arg(&file)
                    .arg(&url);
                c
            }
            "quic-go" => {
                let mut c = bounded(self.tools.quic_go.as_ref()?, limit);
                c.args(["client", "--timeout-s", "120", "--ca"])
                    .arg(self.ca())
                    .arg("--out")
                    .arg(&file)
                    .arg(&url);
                c
            }
            "ngtcp2" => {
                let (client, _) = self.tools.ngtcp2.as_ref()?;
                let mut c = bounded(client, limit);
                c.args([
                    "--no-quic-dump",
                    "--no-http-dump",
                    "--exit-on-all-streams-close",
                    "--timeout=30s",
                    "--download",
                ])
                .arg(&dir)
                .args(["127.0.0.1", &port.to_string(), &url]);
                c
            }
            other => return Err(format!("unknown peer `{other}`")),
        };
        let started = Instant::now();
        let (ok, text, err) = output(c)?;
        let secs = started.elapsed().as_secs_f64();
        let _ = std::fs::write(self.log(run, "client"), format!("{text}\n{err}"));
        let status_ok = match peer {
            // Its debug log (stderr) has the response headers.
            "ngtcp2" => err.contains("[:status: 200]"),
            _ => text.contains(&format!("-> 200, {bytes} bytes")),
        };
        if !ok || !status_ok {
            return Err(format!(
                "client failed (exit ok: {ok}, status 200 seen: {status_ok}): {}",
                last_lines(&format!("{text}\n{err}"), 3)
            ));
        }
        let body = std::fs::read(&file).map_err(|e| format!("{}: {e}", file.display()))?;
        if body != pattern(bytes) {
            return Err(format!(
                "body differs: {} bytes, first difference at {:?}",
                body.len(),
                body.iter().zip(pattern(bytes)).position(|(a, b)| *a != b)
            ));
        }
        let goodput = text
            .split("goodput ")
            .nth(1)
            .and_then(|s| s.split_whitespace().next())
            .and_then(|s| s.parse::<f64>().ok());
        Ok(match goodput {
            Some(g) => format!("{g:.2}"),
            // gtlsclient prints no timing: process wall time.
            None => format!("{:.2} (wall)", bytes as f64 * 8.0 / secs / 1e6),
        })
    }

    /// The emulator with one route per server port; (process, listen
    /// ports).
    fn start_emulator(&self, servers: &[u16], run: &str) -> Result<(Proc, Vec<u16>), String> {
        self.start_emulator_on(servers, run, &LINK)
    }

    /// [`Ctx::start_emulator`] with the link flags `link`.
    fn start_emulator_on(
        &self,
        servers: &[u16],
        run: &str,
        link: &[impl AsRef<std::ffi::OsStr>],
    ) -> Result<(Proc, Vec<u16>), String> {
        let mut c = bounded(self.bin.join("vegas-link-emu"), SERVER_LIMIT_S);
        for s in servers {
            c.args(["--route", &format!("127.0.0.1:0=127.0.0.1:{s}")]);
        }
        c.args(link)
            .arg("--queue-log")
            .arg(self.out.join(format!("queue-{run}.log")));
        let (p, lines) = spawn_ready(
            c,
            servers.len(),
            &self.log(run, "report"),
            &self.log(run, "emulator"),
        )?;
        let ports = lines
            .iter()
            .map(|l| port_of(l, 1))
            .collect::<Result<_, _>>()?;
        Ok((p, ports))
    }

    /// One server, the emulator, one client. (pass, goodput, error)
    fn one_run(
        &self,
        server: (&str, &str),
        client: &str,
        bytes: u64,
        run: &str,
    ) -> (bool, String, String) {
        let started = self
            .start_server(server.0, server.1, run)
            .and_then(|(s, port)| {
                let (e, ports) = self.start_emulator(&[port], run)?;
                Ok((s, e, ports[0]))
            });
        match started {
            Ok((_server, _emu, port)) => self.fetch(client, port, bytes, run),
            Err(e) => (false, "-".into(), e),
        }
    }
}

/// Congestion controllers each peer's server is run with.
fn server_ccs(peer: &str) -> &'static [&'static str] {
    match peer {
        "aioquic" => &["reno", "cubic"],
        "quic-go" => &["default"],
        "ngtcp2" => &["cubic", "reno"],
        _ => &[],
    }
}

struct Row {
    peer: String,
    direction: &'static str,
    algorithm: String,
    result: String,
    goodput: String,
}

struct Options {
    algorithms: Vec<String>,
    peers: Vec<String>,
    bytes: u64,
    /// Bytes of each shared-bottleneck flow at 10 Mbit/s (scaled with the
    /// rate).
    shared_bytes: u64,
    shared: Vec<(String, String)>,
    /// Down-link rates (Mbit/s) of the shared bottleneck.
    shared_rates: Vec<u32>,
    /// The competitor's server: ngtcp2 (quiche's own if it cannot be had)
    /// or our own h3-server with quiche's controller.
    shared_peer: String,
    /// The stacks section (Vegas on quiche vs on quinn) runs.
    stacks: bool,
    /// Only the stacks section (no matrix, no shared bottleneck).
    stacks_only: bool,
    /// Its links: (rate Mbit/s, RTT ms).
    stack_links: Vec<(f64, f64)>,
    /// Each transfer is this many seconds' worth of the link's rate.
    stack_seconds: f64,
    stack_reps: usize,
}

/// `cargo xtask interop --help`.
const USAGE: &str = "\
cargo xtask interop [--peers quiche-vegas,aioquic,quic-go,ngtcp2] [--algorithms a,b]
    [--mbytes N] [--shared vegas:cubic,vegas-compat:reno] [--shared-mbytes N]
    [--shared-rates 10,50] [--shared-peer ngtcp2|quiche-vegas]
    [--stacks-only | --no-stacks] [--stacks-links 20/20,20/80,50/20,50/80]
    [--stacks-seconds S] [--stacks-reps N] [--quick]

  the matrix: our h3-server (each Vegas-family algorithm) and h3-client against
  aioquic, quic-go and ngtcp2 through the link emulator (10 Mbit/s, 20 ms each
  way, 50-packet buffer);
  the shared bottleneck: a Vegas flow and an ngtcp2 CUBIC/Reno flow on one link
  (--shared-peer quiche-vegas: our own h3-server with quiche's CUBIC/Reno) at each
  --shared-rates Mbit/s (default 10), 20 ms each way, a buffer of 50 packets or
  1 BDP where that is more, --shared-mbytes per flow at 10 Mbit/s (default 10),
  scaled with the rate;
  the stacks: Vegas on quiche (h3-server/h3-client) vs Vegas on quinn (the
  quinn-vegas example), with quiche's and quinn's own CUBIC as references, on
  each --stacks-links RATE_MBIT/RTT_MS (buffer 1 BDP), the same bytes per link
  (--stacks-seconds of the link's rate, default 3, --quick 2), --stacks-reps
  repetitions (default 2) in alternating order.
  --stacks-only runs only the stacks (no peer is installed); --no-stacks skips them.
  --quick: 4 algorithms, 1 MB, one shared pair of 6 MB, 2 s stacks transfers.

Writes target/interop/REPORT.md and target/interop/report.json (commit, date,
command line, machine, every figure), logs and queue logs under target/interop.";

fn parse_options(args: &[String]) -> Result<Options, String> {
    let mut o = Options {
        algorithms: VEGAS_FAMILY.iter().map(|s| s.to_string()).collect(),
        peers: PEERS.iter().map(|s| s.to_string()).collect(),
        bytes: 2_000_000,
        shared_bytes: 10_000_000,
        shared: vec![
            ("vegas".into(), "cubic".into()),
            ("vegas-compat".into(), "reno".into()),
        ],
        shared_rates: vec![10],
        shared_peer: "ngtcp2".into(),
        stacks: true,
        stacks_only: false,
        stack_links: STACK_LINKS.to_vec(),
        stack_seconds: STACK_SECONDS,
        stack_reps: STACK_REPS,
    };
    let list = |v: Option<&String>, what: &str| -> Result<Vec<String>, String> {
        Ok(v.ok_or(format!("{what} needs a comma-separated list"))?
            .split(',')
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect())
    };
    let mbytes = |v: Option<&String>, what: &str| -> Result<u64, String> {
        v.and_then(|v| v.parse::<f64>().ok())
            .filter(|v| *v > 0.0 && *v <= 1000.0)
            .map(|v| (v * 1e6) as u64)
            .ok_or(format!("{what} needs a number of megabytes in (0, 1000]"))
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--algorithms" => o.algorithms = list(it.next(), a)?,
            "--peers" => o.peers = list(it.next(), a)?,
            "--mbytes" => o.bytes = mbytes(it.next(), a)?,
            "--shared-mbytes" => o.shared_bytes = mbytes(it.next(), a)?,
            "--shared" => {
                o.shared = list(it.next(), a)?
                    .iter()
                    .map(|p| {
                        p.split_once(':')
                            .map(|(v, c)| (v.to_string(), c.to_string()))
                            .filter(|(_, c)| c == "cubic" || c == "reno")
                            .ok_or(format!(
                                "--shared: `{p}`: want VEGAS_ALGORITHM:cubic|reno, e.g. vegas:cubic"
                            ))
                    })
                    .collect::<Result<_, _>>()?
            }
            "--shared-rates" => {
                o.shared_rates = list(it.next(), a)?
                    .iter()
                    .map(|r| {
                        r.parse::<u32>()
                            .ok()
                            .filter(|r| (1..=1000).contains(r))
                            .ok_or(format!(
                            "--shared-rates: `{r}`: want whole Mbit/s from 1 to 1000, e.g. 10,50"
                        ))
                    })
                    .collect::<Result<_, _>>()?;
                if o.shared_rates.is_empty() {
                    return Err("--shared-rates needs at least one rate".into());
                }
            }
            "--shared-peer" => {
                o.shared_peer = it
                    .next()
                    .filter(|p| *p == "ngtcp2" || *p == "quiche-vegas")
                    .ok_or("--shared-peer needs ngtcp2 or quiche-vegas")?
                    .clone()
            }
            "--quick" => {
                o.algorithms = QUICK_ALGORITHMS.iter().map(|s| s.to_string()).collect();
                o.bytes = 1_000_000;
                o.shared_bytes = 6_000_000;
                o.shared.truncate(1);
                o.stack_seconds = STACK_SECONDS_QUICK;
            }
            "--stacks-only" => o.stacks_only = true,
            "--no-stacks" => o.stacks = false,
            "--stacks-links" => {
                o.stack_links = list(it.next(), a)?
                    .iter()
                    .map(|l| parse_stack_link(l))
                    .collect::<Result<_, _>>()?
            }
            "--stacks-seconds" => {
                o.stack_seconds = it
                    .next()
                    .and_then(|v| v.parse::<f64>().ok())
                    .filter(|v| *v >= 0.5 && *v <= 60.0)
                    .ok_or("--stacks-seconds needs a number of seconds in [0.5, 60]")?
            }
            "--stacks-reps" => {
                o.stack_reps = it
                    .next()
                    .and_then(|v| v.parse::<usize>().ok())
                    .filter(|v| (1..=20).contains(v))
                    .ok_or("--stacks-reps needs a whole number from 1 to 20")?
            }
            other => {
                return Err(format!(
                    "interop: unknown option `{other}`\n\nusage: {USAGE}"
                ))
            }
        }
    }
    if o.stacks_only {
        if !o.stacks {
            return Err("--stacks-only and --no-stacks: nothing would run".into());
        }
        o.peers.clear();
        o.shared.clear();
    }
    if o.stacks && o.stack_links.is_empty() {
        return Err("--stacks-links needs at least one RATE_MBIT/RTT_MS".into());
    }
    for &(rate, rtt) in &o.stack_links {
        let cell = StackCell::new(rate, rtt, o.stack_seconds);
        if o.stacks && cell.bytes > 1 << 30 {
            return Err(format!(
                "--stacks-links {rate}/{rtt} with --stacks-seconds {}: {} bytes, more than \
                 h3-server's 1 GiB",
                o.stack_seconds, cell.bytes
            ));
        }
    }
    for p in &o.peers {
        if !PEERS.contains(&p.as_str()) {
            return Err(format!(
                "--peers: unknown peer `{p}`; known: {}",
                PEERS.join(",")
            ));
        }
    }
    for a in o.algorithms.iter().chain(o.shared.iter().map(|(v, _)| v)) {
        if !VEGAS_FAMILY.contains(&a.as_str()) {
            return Err(format!(
                "`{a}` is not a Vegas-family algorithm; known: {}",
                VEGAS_FAMILY.join(",")
            ));
        }
    }
    Ok(o)
}

pub fn run(root: &Path, args: &[String]) -> Result<(), String> {
    if args.iter().any(|a| a == "--help" || a == "-h") {
        println!("{USAGE}");
        return Ok(());
    }
    let o = parse_options(args)?;
    let started = Instant::now();
    let out = root.join("target/interop");
    let mut report = Report::new(root, args);
    if let Err(e) = run_sections(root, &o, &out, &mut report) {
        eprintln!("interop: {e}");
        report.problems.push(e);
    }
    report.wall_s = started.elapsed().as_secs_f64();
    report.load_end = Some(load_average());
    match report.write(&out) {
        Ok(()) => println!(
            "\nreport: {} and {} (wall time {:.0} s)",
            out.join("REPORT.md").display(),
            out.join("report.json").display(),
            report.wall_s
        ),
        Err(e) => report
            .problems
            .push(format!("the report was not written: {e}")),
    }
    if !report.problems.is_empty() {
        return Err(format!(
            "interop: {} problem(s):\n  {}",
            report.problems.len(),
            report.problems.join("\n  ")
        ));
    }
    Ok(())
}

/// Builds what is needed, installs the peers and runs every selected
/// section into `report` (written after each section). An error is what
/// stopped the run; the problems of single runs are in `report.problems`.
fn run_sections(root: &Path, o: &Options, out: &Path, report: &mut Report) -> Result<(), String> {
    let t0 = Instant::now();
    let mut builds = vec![
        (
            vec!["--example", "h3-server", "--example", "h3-client"],
            "quiche-vegas",
        ),
        (vec![], "vegas-interop"),
    ];
    if o.stacks {
        builds.push((vec!["--example", "quinn-vegas"], "quinn-vegas"));
    }
    for (what, extra) in builds {
        let mut build = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
        build
            .current_dir(root)
            .args(["build", "--release", "--quiet", "-p", extra])
            .args(what);
        crate::run(build)?;
    }
    if !root.join("examples/certs/chain.pem").is_file() {
        crate::certs::write(&root.join("examples/certs"))?;
    }
    for d in ["logs", "dl", "www/bytes", "bin"] {
        std::fs::create_dir_all(out.join(d)).map_err(|e| e.to_string())?;
    }
    let mut files = Vec::new();
    if !o.peers.is_empty() {
        files.push(o.bytes);
    }
    if !o.shared.is_empty() {
        files.extend(
            o.shared_rates
                .iter()
                .map(|&r| shared_flow_bytes(o.shared_bytes, r)),
        );
    }
    for n in files {
        let f = out.join(format!("www/bytes/{n}"));
        if std::fs::metadata(&f).ok().map(|m| m.len()) != Some(n) {
            std::fs::write(&f, pattern(n)).map_err(|e| e.to_string())?;
        }
    }
    let wants = |p: &str| o.peers.iter().any(|x| x == p);
    fn not_wanted<T>() -> Result<T, String> {
        Err("not selected (--peers)".to_string())
    }
    let tools = Tools {
        python: if wants("aioquic") {
            setup_aioquic(out)
        } else {
            not_wanted()
        },
        quic_go: if wants("quic-go") {
            setup_quic_go(root, out)
        } else {
            not_wanted()
        },
        ngtcp2: if wants("ngtcp2") || (!o.shared.is_empty() && o.shared_peer == "ngtcp2") {
            setup_ngtcp2()
        } else {
            not_wanted()
        },
    };
    let ctx = Ctx {
        root: root.to_path_buf(),
        bin: root.join("target/release"),
        out: out.to_path_buf(),
        tools,
        qlog_dir: None,
    };
    report
        .sections_s
        .push(("build and setup".into(), t0.elapsed().as_secs_f64()));

    if !o.peers.is_empty() {
        let t = Instant::now();
        matrix_section(&ctx, o, report);
        report
            .sections_s
            .push(("matrix".into(), t.elapsed().as_secs_f64()));
        report.write(out)?;
    }
    if !o.shared.is_empty() {
        let t = Instant::now();
        for &rate_mbit in &o.shared_rates {
            for (vegas, cc) in &o.shared {
                let link = SharedLink::new(rate_mbit, o.shared_bytes);
                match shared_run(&ctx, vegas, cc, &o.shared_peer, link) {
                    Ok(r) => {
                        if !r.clients_ok {
                            report.problems.push(format!(
                                "shared {vegas} vs {cc} at {rate_mbit} Mbit/s: a client failed"
                            ));
                        }
                        report.shared.push(r);
                    }
                    Err(e) => {
                        eprintln!(
                            "interop: shared bottleneck {vegas} vs {cc} at {rate_mbit} Mbit/s: {e}"
                        );
                        report
                            .problems
                            .push(format!("shared {vegas} vs {cc} at {rate_mbit} Mbit/s: {e}"));
                    }
                }
            }
        }
        report
            .sections_s
            .push(("shared bottleneck".into(), t.elapsed().as_secs_f64()));
        report.write(out)?;
    }
    if o.stacks {
        let t = Instant::now();
        report.stack_settings = Some((o.stack_seconds, o.stack_reps));
        stacks_section(&ctx, o, report)?;
        report
            .sections_s
            .push(("stacks".into(), t.elapsed().as_secs_f64()));
    }
    Ok(())
}

/// Our server against every peer's client and every peer's server
/// against our client.
fn matrix_section(ctx: &Ctx, o: &Options, report: &mut Report) {
    let mut rows: Vec<Row> = Vec::new();
    let problems = &mut report.problems;
    for peer in &o.peers {
        if let Some(why) = ctx.tools.missing(peer) {
            eprintln!("interop: {peer} cannot be had: {why}");
            problems.push(format!("{peer}: {why}"));
            for direction in ["our server -> peer client", "peer server -> our client"] {
                rows.push(Row {
                    peer: peer.clone(),
                    direction,
                    algorithm: "-".into(),
                    result: "n/a".into(),
                    goodput: "(see problems)".into(),
                });
            }
            continue;
        }
        for alg in &o.algorithms {
            let run = format!("{peer}-client-{alg}");
            let (ok, goodput, why) = ctx.one_run(("quiche-vegas", alg), peer, o.bytes, &run);
            if !ok {
                eprintln!("interop: {run}: {why}");
                problems.push(format!("{run}: {why}"));
            }
            rows.push(Row {
                peer: peer.clone(),
                direction: if peer == "quiche-vegas" {
                    "our server -> our client"
                } else {
                    "our server -> peer client"
                },
                algorithm: alg.clone(),
                result: if ok { "pass" } else { "FAIL" }.into(),
                goodput,
            });
        }
        for cc in server_ccs(peer) {
            let run = format!("{peer}-server-{cc}");
            let (ok, goodput, why) = ctx.one_run((peer, cc), "quiche-vegas", o.bytes, &run);
            if !ok {
                eprintln!("interop: {run}: {why}");
                problems.push(format!("{run}: {why}"));
            }
            rows.push(Row {
                peer: peer.clone(),
                direction: "peer server -> our client",
                algorithm: format!("{peer} {cc}"),
                result: if ok { "pass" } else { "FAIL" }.into(),
                goodput,
            });
        }
    }

    println!(
        "\ninterop matrix ({} bytes of /bytes/N over 10 Mbit/s, 20 ms each way, {BUFFER_PKTS}-packet buffer; \
         body and status verified):",
        o.bytes
    );
    println!(
        "{:<13} {:<26} {:<22} {:<6} goodput Mbit/s",
        "peer", "direction", "algorithm (sender)", "result"
    );
    for r in &rows {
        println!(
            "{:<13} {:<26} {:<22} {:<6} {}",
            r.peer, r.direction, r.algorithm, r.result, r.goodput
        );
    }
    println!("(wall): gtlsclient prints no timing; process start to exit, handshake included");
    println!("logs: {}", ctx.out.join("logs").display());
    report.matrix = Some((o.bytes, rows));
}

/// One line of the queue log.
struct Event {
    t_ms: f64,
    kind: char,
    bytes: u64,
    queue: u64,
    flow: usize,
}

fn read_queue_log(path: &Path) -> Result<Vec<Event>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            Some(Event {
                t_ms: f.first()?.parse().ok()?,
                kind: f.get(1)?.chars().next()?,
                bytes: f.get(2)?.parse().ok()?,
                queue: f.get(3)?.parse().ok()?,
                flow: f.get(4)?.parse().ok()?,
            })
        })
        .collect())
}

/// One flow of a shared-bottleneck run, over the common window.
struct SharedFlow {
    name: String,
    mbit: f64,
    share_pct: f64,
    drops: u64,
    first_s: f64,
    last_s: f64,
}

/// A shared-bottleneck run's figures.
struct SharedResult {
    vegas: String,
    other: String,
    link: SharedLink,
    bytes: u64,
    start_s: f64,
    end_s: f64,
    flows: Vec<SharedFlow>,
    queue_mean: f64,
    queue_max: u64,
    clients_ok: bool,
    queue_log: PathBuf,
}

/// Bytes of one shared-bottleneck flow: `bytes_at_10_mbit` scaled with the
/// rate, so every rate's run lasts about as long.
fn shared_flow_bytes(bytes_at_10_mbit: u64, rate_mbit: u32) -> u64 {
    bytes_at_10_mbit * rate_mbit as u64 / 10
}

/// The shared bottleneck's down link: 20 ms each way, a buffer of
/// [`BUFFER_PKTS`] or one BDP of 1200-byte packets where that is more.
#[derive(Clone, Copy, Debug)]
struct SharedLink {
    rate_mbit: u32,
    buffer_pkts: usize,
    /// Bytes each flow fetches.
    bytes: u64,
}

impl SharedLink {
    fn new(rate_mbit: u32, bytes_at_10_mbit: u64) -> Self {
        let bdp_pkts = (rate_mbit as f64 * 1e6 / 8.0 * 0.040 / 1200.0).round() as usize;
        SharedLink {
            rate_mbit,
            buffer_pkts: BUFFER_PKTS.max(bdp_pkts),
            bytes: shared_flow_bytes(bytes_at_10_mbit, rate_mbit),
        }
    }

    fn flags(&self) -> [String; 6] {
        [
            "--rate-mbit".into(),
            self.rate_mbit.to_string(),
            "--delay-ms".into(),
            "20".into(),
            "--buffer-pkts".into(),
            self.buffer_pkts.to_string(),
        ]
    }
}

/// A Vegas-family flow against a loss-based one through one down link.
fn shared_run(
    ctx: &Ctx,
    vegas: &str,
    cc: &str,
    peer: &str,
    link: SharedLink,
) -> Result<SharedResult, String> {
    let bytes = link.bytes;
    let rate_mbit = link.rate_mbit;
    let buffer_pkts = link.buffer_pkts;
    let run = format!("shared-{vegas}-{cc}-{rate_mbit}m");
    let (other_peer, other_name) = match (peer, &ctx.tools.ngtcp2) {
        ("ngtcp2", Ok(_)) => ("ngtcp2", format!("ngtcp2 {cc}")),
        ("ngtcp2", Err(e)) => {
            eprintln!("interop: ngtcp2 cannot be had ({e}); quiche's {cc} competes instead");
            ("quiche-vegas", format!("quiche {cc}"))
        }
        _ => ("quiche-vegas", format!("quiche {cc}")),
    };
    let (_s1, p1) =
        ctx.start_server_for("quiche-vegas", vegas, &format!("{run}-vegas"), buffer_pkts)?;
    let (_s2, p2) = ctx.start_server_for(other_peer, cc, &format!("{run}-other"), buffer_pkts)?;
    let (emu, ports) = ctx.start_emulator_on(&[p1, p2], &run, &link.flags())?;
    let fetches: Vec<_> = ports
        .iter()
        .enumerate()
        .map(|(i, &port)| {
            let (ca, bin) = (ctx.ca(), ctx.bin.clone());
            let log = ctx.log(&run, &format!("client{i}"));
            std::thread::spawn(move || {
                let mut c = bounded(bin.join("examples/h3-client"), CLIENT_LIMIT_S);
                c.args(["--quiet", "--timeout-s", "120", "--ca"])
                    .arg(ca)
                    .arg(format!("https://localhost:{port}/bytes/{bytes}"));
                let r = output(c);
                if let Ok((_, t, e)) = &r {
                    let _ = std::fs::write(log, format!("{t}\n{e}"));
                }
                r
            })
        })
        .collect();
    let mut client_ok = Vec::new();
    for f in fetches {
        let (ok, text, err) = f.join().map_err(|_| "client thread panicked")??;
        let good = ok && text.contains(&format!("-> 200, {bytes} bytes"));
        if !good {
            eprintln!(
                "interop: {run}: client failed: {}",
                last_lines(&format!("{text}\n{err}"), 3)
            );
        }
        client_ok.push(good);
    }
    drop(emu); // SIGTERM: the emulator flushes its queue log and reports
    let events = read_queue_log(&ctx.out.join(format!("queue-{run}.log")))?;
    // Flows are numbered in order of their first packet; the report says
    // which route (0: ours, 1: the competitor) each one took.
    let flow_route = flow_routes(ctx, &run);
    let mut first: HashMap<usize, f64> = HashMap::new();
    let mut last: HashMap<usize, f64> = HashMap::new();
    for e in events.iter().filter(|e| e.kind == '-') {
        first.entry(e.flow).or_insert(e.t_ms);
        last.insert(e.flow, e.t_ms);
    }
    if first.len() < 2 {
        return Err(format!("only {} flow(s) in the queue log", first.len()));
    }
    let start = first.values().cloned().fold(f64::MIN, f64::max) + SHARED_WARMUP_MS;
    let end = last.values().cloned().fold(f64::MAX, f64::min);
    if end <= start {
        return Err(format!(
            "the flows overlapped for less than the {SHARED_WARMUP_MS} ms warm-up"
        ));
    }
    let mut flow_bytes: HashMap<usize, u64> = HashMap::new();
    let mut drops: HashMap<usize, u64> = HashMap::new();
    let (mut area, mut max_q, mut prev_t, mut prev_q) = (0.0, 0, start, None);
    for e in &events {
        if e.t_ms < start {
            prev_q = Some(e.queue);
            continue;
        }
        if e.t_ms >= end {
            break;
        }
        if let Some(q) = prev_q {
            area += q as f64 * (e.t_ms - prev_t);
        }
        prev_t = e.t_ms;
        prev_q = Some(e.queue);
        max_q = max_q.max(e.queue);
        match e.kind {
            '-' => *flow_bytes.entry(e.flow).or_default() += e.bytes,
            'd' => *drops.entry(e.flow).or_default() += 1,
            _ => {}
        }
    }
    if let Some(q) = prev_q {
        area += q as f64 * (end - prev_t);
    }
    let window_s = (end - start) / 1e3;
    let total: u64 = flow_bytes.values().sum();
    println!(
        "\nshared bottleneck: our {vegas} vs {other_name}, one {rate_mbit} Mbit/s down link, \
         {buffer_pkts}-packet buffer, 20 ms each way; {bytes} bytes each, started together"
    );
    println!(
        "common window: {:.2} s to {:.2} s ({window_s:.2} s: both sending, first {:.0} ms skipped, \
         until the first flow ended)",
        start / 1e3,
        end / 1e3,
        SHARED_WARMUP_MS
    );
    let mut flows: Vec<usize> = first.keys().cloned().collect();
    flows.sort_unstable();
    let mut result = SharedResult {
        vegas: vegas.to_string(),
        other: other_name.clone(),
        link,
        bytes,
        start_s: start / 1e3,
        end_s: end / 1e3,
        flows: Vec::new(),
        queue_mean: area / (end - start),
        queue_max: max_q,
        clients_ok: client_ok.iter().all(|&b| b),
        queue_log: ctx.out.join(format!("queue-{run}.log")),
    };
    for f in flows {
        let name = match flow_route.get(&f) {
            Some(0) => format!("our {vegas}"),
            Some(1) => other_name.clone(),
            _ => format!("flow {f}"),
        };
        let b = flow_bytes.get(&f).copied().unwrap_or(0);
        let flow = SharedFlow {
            name,
            mbit: b as f64 * 8.0 / window_s / 1e6,
            share_pct: if total > 0 {
                100.0 * b as f64 / total as f64
            } else {
                0.0
            },
            drops: drops.get(&f).copied().unwrap_or(0),
            first_s: first[&f] / 1e3,
            last_s: last[&f] / 1e3,
        };
        println!(
            "  {:<22} {:>6.2} Mbit/s  share {:>5.1}%  drop-tail drops {}  (whole run: {:.2} s to {:.2} s)",
            flow.name, flow.mbit, flow.share_pct, flow.drops, flow.first_s, flow.last_s
        );
        result.flows.push(flow);
    }
    println!(
        "  bottleneck queue in the window: mean {:.1} packets, max {max_q} (buffer {buffer_pkts})",
        result.queue_mean
    );
    println!(
        "  clients: {}; queue log {}",
        if result.clients_ok {
            "both complete, 200"
        } else {
            "FAILED"
        },
        result.queue_log.display()
    );
    Ok(result)
}

/// Flow index -> route index, from the emulator report's
/// `flow I (route R, client ...)` lines (its stdout, in `RUN-report.log`).
fn flow_routes(ctx: &Ctx, run: &str) -> HashMap<usize, usize> {
    let text = std::fs::read_to_string(ctx.log(run, "report")).unwrap_or_default();
    text.lines()
        .filter_map(|l| {
            let rest = l.strip_prefix("flow ")?;
            let (i, rest) = rest.split_once(" (route ")?;
            let (r, _) = rest.split_once(',')?;
            Some((i.parse().ok()?, r.parse().ok()?))
        })
        .collect()
}
