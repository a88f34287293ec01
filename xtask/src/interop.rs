//! `cargo xtask interop [--algorithms a,b] [--mbytes N]`: our HTTP/3
//! examples through the link emulator (10 Mbit/s, 20 ms each way, 50-packet
//! buffer), then a shared bottleneck.
//!
//! Peers so far: `quiche-vegas` itself (our h3-server with each Vegas-family
//! algorithm, fetched by our h3-client). The drivers for aioquic (PyPI),
//! quic-go (Go modules) and ngtcp2 (Debian `ngtcp2-client`/`ngtcp2-server`
//! 0.12.1 in bookworm) are not written yet: their rows say so.
//!
//! Shared bottleneck: two of our servers behind one emulator (two routes,
//! one down link), a Vegas-family flow against quiche's CUBIC, each
//! fetched by its own client at the same time; the emulator's report gives
//! each flow's throughput share and the queue.

use std::io::BufRead;
use std::io::BufReader;
use std::path::Path;
use std::process::Child;
use std::process::Command;
use std::process::Stdio;
use std::time::Duration;
use std::time::Instant;

const VEGAS_FAMILY: [&str; 8] = [
    "vegas",
    "vegas-a",
    "gallop-vegas",
    "gallop-vegas-a",
    "vegas-compat",
    "vegas-a-compat",
    "gallop-vegas-compat",
    "gallop-vegas-a-compat",
];
const BUFFER_PKTS: usize = 50;
const LINK: [&str; 6] = [
    "--rate-mbit",
    "10",
    "--delay-ms",
    "20",
    "--buffer-pkts",
    "50",
];
const OTHER_PEERS: [&str; 3] = ["aioquic", "quic-go", "ngtcp2"];

/// A child process killed on drop.
struct Proc(Child);

impl Drop for Proc {
    fn drop(&mut self) {
        // SIGTERM first so the emulator prints its report.
        let _ = Command::new("kill").arg(self.0.id().to_string()).status();
        let deadline = Instant::now() + Duration::from_secs(2);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.0.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `cmd` and returns it with the first stdout line(s) it prints.
fn spawn_reading(
    mut cmd: Command,
    lines: usize,
) -> Result<(Proc, Vec<String>, BufReader<std::process::ChildStdout>), String> {
    let shown = format!("{cmd:?}");
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| format!("cannot start {shown}: {e}"))?;
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let proc = Proc(child);
    let mut got = Vec::new();
    for _ in 0..lines {
        let mut line = String::new();
        out.read_line(&mut line).map_err(|e| e.to_string())?;
        if line.is_empty() {
            return Err(format!("{shown} exited before it was ready"));
        }
        got.push(line.trim().to_string());
    }
    Ok((proc, got, out))
}

fn port_of(line: &str, word: usize) -> Result<u16, String> {
    line.split_whitespace()
        .nth(word)
        .and_then(|a| a.rsplit(':').next())
        .and_then(|p| p.parse().ok())
        .ok_or_else(|| format!("no port in `{line}`"))
}

fn start_server(bin: &Path, root: &Path, cc: &str) -> Result<(Proc, u16), String> {
    let mut c = Command::new(bin.join("examples/h3-server"));
    c.current_dir(root)
        .args(["--listen", "127.0.0.1:0", "--root", ".", "--cc", cc]);
    if cc.contains("compat") {
        // Reno-compatible alpha/beta come from the bottleneck buffer.
        // One Vegas flow; one loss-based competitor (the shared run's CUBIC).
        for p in [
            format!("buffer_pkts={BUFFER_PKTS}"),
            "reno_flows=1".into(),
            "vegas_flows=1".into(),
            "approach=1".into(),
        ] {
            c.args(["--cc-param", &p]);
        }
    }
    let (p, lines, _) = spawn_reading(c, 1)?;
    Ok((p, port_of(&lines[0], 2)?))
}

fn start_emulator(
    bin: &Path,
    servers: &[u16],
    log: &Path,
) -> Result<(Proc, Vec<u16>, BufReader<std::process::ChildStdout>), String> {
    let mut c = Command::new(bin.join("vegas-link-emu"));
    for s in servers {
        c.args(["--route", &format!("127.0.0.1:0=127.0.0.1:{s}")]);
    }
    c.args(LINK).arg("--queue-log").arg(log);
    let (p, lines, rest) = spawn_reading(c, servers.len())?;
    let ports = lines
        .iter()
        .map(|l| port_of(l, 1))
        .collect::<Result<_, _>>()?;
    Ok((p, ports, rest))
}

fn client(bin: &Path, root: &Path, port: u16, bytes: u64) -> Command {
    let mut c = Command::new(bin.join("examples/h3-client"));
    c.current_dir(root)
        .args([
            "--quiet",
            "--timeout-s",
            "120",
            "--ca",
            "examples/certs/ca.pem",
        ])
        .arg(format!("https://localhost:{port}/bytes/{bytes}"));
    c
}

/// Runs a client to the end; (ok, goodput Mbit/s, its stdout).
fn fetch(mut c: Command, bytes: u64) -> (bool, f64, String) {
    match c.output() {
        Ok(out) => {
            let text = String::from_utf8_lossy(&out.stdout).to_string();
            let ok = out.status.success() && text.contains(&format!("-> 200, {bytes} bytes"));
            let goodput = text
                .split("goodput ")
                .nth(1)
                .and_then(|s| s.split_whitespace().next())
                .and_then(|s| s.parse().ok())
                .unwrap_or(0.0);
            (ok, goodput, text + &String::from_utf8_lossy(&out.stderr))
        }
        Err(e) => (false, 0.0, e.to_string()),
    }
}

pub fn run(root: &Path, args: &[String]) -> Result<(), String> {
    let mut algorithms: Vec<String> = VEGAS_FAMILY.iter().map(|s| s.to_string()).collect();
    let mut bytes: u64 = 2_000_000;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--algorithms" => {
                algorithms = it
                    .next()
                    .ok_or("--algorithms needs a list")?
                    .split(',')
                    .map(str::to_string)
                    .collect()
            }
            "--mbytes" => {
                let v: f64 = it
                    .next()
                    .and_then(|v| v.parse().ok())
                    .ok_or("--mbytes needs a number")?;
                bytes = (v * 1e6) as u64;
            }
            other => return Err(format!("interop: unknown option `{other}`")),
        }
    }
    let mut build = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    build.current_dir(root).args([
        "build",
        "--release",
        "--quiet",
        "--example",
        "h3-server",
        "--example",
        "h3-client",
        "-p",
        "quiche-vegas",
    ]);
    crate::run(build)?;
    let mut build = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    build
        .current_dir(root)
        .args(["build", "--release", "--quiet", "-p", "vegas-interop"]);
    crate::run(build)?;
    if !root.join("examples/certs/cert.pem").is_file() {
        crate::certs::write(&root.join("examples/certs"))?;
    }
    let bin = root.join("target/release");
    let out_dir = root.join("target/interop");
    std::fs::create_dir_all(&out_dir).map_err(|e| e.to_string())?;

    // peer, direction, algorithm, result, goodput
    let mut rows: Vec<(String, String, String, String, String)> = Vec::new();
    let mut failures = 0;
    for alg in &algorithms {
        let (_server, port) = start_server(&bin, root, alg)?;
        let log = out_dir.join(format!("queue-{alg}.log"));
        let (_emu, ports, _) = start_emulator(&bin, &[port], &log)?;
        let (ok, goodput, text) = fetch(client(&bin, root, ports[0], bytes), bytes);
        if !ok {
            failures += 1;
            eprintln!("interop: quiche-vegas server {alg} failed:\n{text}");
        }
        rows.push((
            "quiche-vegas".into(),
            "our server -> our client".into(),
            alg.clone(),
            if ok { "pass" } else { "FAIL" }.into(),
            format!("{goodput:.2}"),
        ));
    }
    for peer in OTHER_PEERS {
        for dir in ["our server -> peer client", "peer server -> our client"] {
            rows.push((
                peer.into(),
                dir.into(),
                "-".into(),
                "not run".into(),
                "driver not written".into(),
            ));
        }
    }

    println!("\ninterop matrix ({bytes} bytes over 10 Mbit/s, 20 ms each way, 50-packet buffer):");
    println!(
        "{:<14} {:<28} {:<24} {:<8} goodput Mbit/s",
        "peer", "direction", "algorithm", "result"
    );
    for (p, d, a, r, g) in &rows {
        println!("{p:<14} {d:<28} {a:<24} {r:<8} {g}");
    }

    // Shared bottleneck: a Vegas flow and a CUBIC flow through one down link.
    let vegas = algorithms
        .first()
        .cloned()
        .unwrap_or_else(|| "vegas".into());
    let (_s1, p1) = start_server(&bin, root, &vegas)?;
    let (_s2, p2) = start_server(&bin, root, "cubic")?;
    let log = out_dir.join("queue-shared.log");
    let (emu, ports, mut emu_out) = start_emulator(&bin, &[p1, p2], &log)?;
    let shared_bytes = bytes * 3;
    let t1 = std::thread::spawn({
        let c = client(&bin, root, ports[0], shared_bytes);
        move || fetch(c, shared_bytes)
    });
    let t2 = std::thread::spawn({
        let c = client(&bin, root, ports[1], shared_bytes);
        move || fetch(c, shared_bytes)
    });
    let (ok1, g1, _) = t1.join().map_err(|_| "client thread")?;
    let (ok2, g2, _) = t2.join().map_err(|_| "client thread")?;
    drop(emu); // SIGTERM: the emulator prints its report
    let mut report = String::new();
    let _ = std::io::Read::read_to_string(&mut emu_out, &mut report);
    println!("\nshared bottleneck: {vegas} (route 0) vs cubic (route 1), {shared_bytes} bytes each, started together");
    println!(
        "client goodput: {vegas} {g1:.2} Mbit/s ({}), cubic {g2:.2} Mbit/s ({})",
        if ok1 { "ok" } else { "FAIL" },
        if ok2 { "ok" } else { "FAIL" }
    );
    print!("emulator report:\n{report}");
    println!("queue log: {}", log.display());
    if !(ok1 && ok2) {
        failures += 1;
    }
    if failures > 0 {
        return Err(format!("interop: {failures} run(s) failed"));
    }
    Ok(())
}
