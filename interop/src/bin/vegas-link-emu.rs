//! `vegas-link-emu`: a bottleneck between QUIC clients and servers on
//! loopback, in user space.
//!
//! ```sh
//! # clients connect to 127.0.0.1:5000; the server listens on 4433
//! vegas-link-emu --route 127.0.0.1:5000=127.0.0.1:4433 \
//!     --rate-mbit 10 --delay-ms 20 --buffer-pkts 50 --queue-log down.log
//! ```
//!
//! Prints `relaying LISTEN -> SERVER` per route once bound, runs until
//! `--duration-s` passes or SIGINT/SIGTERM, then prints per-link counters,
//! each flow's downstream throughput and share, and the timing precision.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::sync::atomic::Ordering;
use std::time::Duration;
use std::time::Instant;

use clap::Parser;
use vegas_interop::Config;
use vegas_interop::Emulator;
use vegas_interop::LinkSpec;
use vegas_interop::Route;
use vegas_interop::Step;

#[derive(Parser, Debug)]
#[command(about = "User-space UDP bottleneck emulator (loopback, no root)")]
struct Args {
    /// LISTEN=SERVER: clients send to LISTEN, datagrams go on to SERVER;
    /// repeatable, all routes share one bottleneck.
    #[arg(long, required = true, value_parser = parse_route, value_name = "LISTEN=SERVER")]
    route: Vec<Route>,
    /// Rate of the server-to-client (down) link.
    #[arg(long, default_value_t = 10.0, value_name = "MBIT/S")]
    rate_mbit: f64,
    /// One-way delay of the down link.
    #[arg(long, default_value_t = 20.0, value_name = "MS")]
    delay_ms: f64,
    /// Drop-tail buffer of the down link (waiting packets).
    #[arg(long, default_value_t = 50)]
    buffer_pkts: usize,
    /// Random loss rate of the down link, in [0, 1).
    #[arg(long, default_value_t = 0.0)]
    loss: f64,
    /// Mean loss burst length in packets (above 1: Gilbert model).
    #[arg(long, default_value_t = 1.0)]
    loss_burst_pkts: f64,
    /// Rate of the client-to-server (up) link [default: --rate-mbit].
    #[arg(long, value_name = "MBIT/S")]
    up_rate_mbit: Option<f64>,
    /// One-way delay of the up link [default: --delay-ms].
    #[arg(long, value_name = "MS")]
    up_delay_ms: Option<f64>,
    /// Buffer of the up link.
    #[arg(long, default_value_t = 1000)]
    up_buffer_pkts: usize,
    /// Random loss rate of the up link.
    #[arg(long, default_value_t = 0.0)]
    up_loss: f64,
    /// Release up-link packets (ACKs of a download) only at multiples of
    /// this period: ACK aggregation. 0 = off.
    #[arg(long, default_value_t = 0.0, value_name = "MS")]
    ack_aggregation_ms: f64,
    /// Same for the down link.
    #[arg(long, default_value_t = 0.0, value_name = "MS")]
    down_aggregation_ms: f64,
    /// Seed of the random loss.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// A scheduled change T_MS:down|up|both:KEY=VALUE (KEY rate_mbit,
    /// delay_ms, buffer_pkts, loss); repeatable.
    #[arg(long, value_name = "STEP")]
    step: Vec<Step>,
    /// Queue log of the down link (the simulator's format).
    #[arg(long, value_name = "FILE")]
    queue_log: Option<PathBuf>,
    /// Queue log of the up link.
    #[arg(long, value_name = "FILE")]
    up_queue_log: Option<PathBuf>,
    /// Busy-wait this long before each event instead of sleeping (more
    /// precise, costs CPU).
    #[arg(long, default_value_t = 0, value_name = "US")]
    spin_us: u64,
    /// Stop after this long (default: at SIGINT/SIGTERM).
    #[arg(long, value_name = "S")]
    duration_s: Option<f64>,
}

fn parse_route(text: &str) -> Result<Route, String> {
    let (l, s) = text.split_once('=').ok_or_else(|| {
        format!("`{text}`: want LISTEN=SERVER, e.g. 127.0.0.1:5000=127.0.0.1:4433")
    })?;
    let listen: SocketAddr = l.parse().map_err(|e| format!("`{l}`: {e}"))?;
    let server: SocketAddr = s.parse().map_err(|e| format!("`{s}`: {e}"))?;
    for a in [listen, server] {
        if !a.ip().is_loopback() {
            return Err(format!(
                "{a} is not a loopback address: the emulator stays on this machine"
            ));
        }
    }
    Ok(Route { listen, server })
}

static STOP: AtomicBool = AtomicBool::new(false);

extern "C" fn on_signal(_: libc::c_int) {
    STOP.store(true, Ordering::SeqCst);
}

fn link_spec(
    rate_mbit: f64,
    delay_ms: f64,
    buffer_pkts: usize,
    loss: f64,
) -> Result<LinkSpec, String> {
    if !(rate_mbit > 0.0 && rate_mbit.is_finite()) {
        return Err(format!("rate {rate_mbit} Mbit/s: must be > 0"));
    }
    if !(delay_ms >= 0.0 && delay_ms.is_finite()) {
        return Err(format!("delay {delay_ms} ms: must be >= 0"));
    }
    if !(0.0..1.0).contains(&loss) {
        return Err(format!("loss {loss}: must be in [0, 1)"));
    }
    let mut spec = LinkSpec::new(
        (rate_mbit * 1e6) as u64,
        (delay_ms * 1e6) as u64,
        buffer_pkts,
    );
    spec.loss = loss;
    Ok(spec)
}

fn open_log(path: &Option<PathBuf>) -> Result<Option<Box<dyn std::io::Write + Send>>, String> {
    match path {
        None => Ok(None),
        Some(p) => {
            let f = std::fs::File::create(p)
                .map_err(|e| format!("cannot create {}: {e}", p.display()))?;
            Ok(Some(Box::new(std::io::BufWriter::new(f))))
        }
    }
}

fn run(args: Args) -> Result<(), String> {
    let mut down = link_spec(args.rate_mbit, args.delay_ms, args.buffer_pkts, args.loss)?;
    down.loss_burst_pkts = args.loss_burst_pkts;
    down.aggregation_ns = (args.down_aggregation_ms * 1e6) as u64;
    let mut up = link_spec(
        args.up_rate_mbit.unwrap_or(args.rate_mbit),
        args.up_delay_ms.unwrap_or(args.delay_ms),
        args.up_buffer_pkts,
        args.up_loss,
    )?;
    up.aggregation_ns = (args.ack_aggregation_ms * 1e6) as u64;
    let config = Config {
        routes: args.route.clone(),
        down,
        up,
        seed: args.seed,
        steps: args.step.clone(),
        down_log: open_log(&args.queue_log)?,
        up_log: open_log(&args.up_queue_log)?,
        spin_ns: args.spin_us * 1000,
    };
    // SAFETY: the handler only stores to an atomic.
    unsafe {
        libc::signal(libc::SIGINT, on_signal as *const () as libc::sighandler_t);
        libc::signal(libc::SIGTERM, on_signal as *const () as libc::sighandler_t);
    }
    let emulator = Emulator::start(config)?;
    use std::io::Write;
    for (route, addr) in args.route.iter().zip(emulator.listen_addrs()) {
        let _ = writeln!(std::io::stdout(), "relaying {addr} -> {}", route.server);
    }
    let _ = std::io::stdout().flush();
    let start = Instant::now();
    let limit = args.duration_s.map(Duration::from_secs_f64);
    while !STOP.load(Ordering::SeqCst) && limit.is_none_or(|l| start.elapsed() < l) {
        std::thread::sleep(Duration::from_millis(20));
    }
    let report = emulator.stop();
    // Whoever started us may have stopped reading: never panic on that.
    let _ = writeln!(std::io::stdout(), "{report}");
    Ok(())
}

fn main() -> ExitCode {
    match run(Args::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("vegas-link-emu: error: {e}");
            ExitCode::FAILURE
        }
    }
}
