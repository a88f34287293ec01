//! `vegas-link-emu`: a bottleneck between QUIC clients and servers on
//! loopback, in user space.
//!
//! ```sh
//! # clients connect to 127.0.0.1:5000; the server listens on 4433
//! vegas-link-emu --route 127.0.0.1:5000=127.0.0.1:4433 \
//!     --rate-mbit 10 --delay-ms 20 --buffer-pkts 50 --queue-log down.log
//! ```
//!
//! `--trace-down FILE` / `--trace-up FILE` replay a mahimahi trace
//! (`vegas_link_model::trace`) instead of a fixed rate.
//!
//! Prints `relaying LISTEN -> SERVER` per route once bound, runs until
//! `--duration-s` passes or SIGINT/SIGTERM, then prints per-link counters,
//! each flow's downstream throughput and share, and the timing precision.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;
use std::time::Instant;

use clap::CommandFactory;
use clap::Parser;
use vegas_interop::cli::resolved_path;
use vegas_interop::limits;
use vegas_interop::Config;
use vegas_interop::Emulator;
use vegas_interop::LinkSpec;
use vegas_interop::Route;
use vegas_interop::Step;
use vegas_link_model::trace::DeliveryTrace;

/// The accepted ranges (interop/src/limits.rs) in the help text.
const AFTER_HELP: &str = "Ranges: rates 0.001 (1 kbit/s) to 100000 (100 Gbit/s) Mbit/s; delays \
0 to 60000 ms; buffers 0 to 1000000 packets; loss rates in [0, 1); mean loss bursts 1 to 10000 \
packets, and a loss rate of at most B/(B+1) with bursts of B > 1; aggregation periods 0 (off) or \
0.001 to 60000 ms; --spin-us at most 50000; --socket-buffer-kb 0 to 1048576; --duration-s above 0, at most 86400 (1 day); step \
times 0 to 86400000 ms, step values in the ranges of their flags. Out-of-range values are \
refused with an error naming the flag and the value (non-zero exit status), never clamped.";

#[derive(Parser, Debug)]
#[command(
    about = "User-space UDP bottleneck emulator (loopback, no root)",
    after_help = AFTER_HELP
)]
struct Args {
    /// LISTEN=SERVER: clients send to LISTEN, datagrams go on to SERVER;
    /// repeatable, all routes share one bottleneck. Loopback addresses
    /// only; LISTEN port 0 picks a free port, SERVER needs a port.
    #[arg(long, required = true, value_parser = parse_route, value_name = "LISTEN=SERVER")]
    route: Vec<Route>,
    /// Rate of the server-to-client (down) link, 0.001 to 100000 Mbit/s.
    #[arg(long, default_value_t = 10.0, value_name = "MBIT/S", value_parser = parse_rate_mbit, allow_hyphen_values = true)]
    rate_mbit: f64,
    /// One-way delay of the down link, 0 to 60000 ms.
    #[arg(long, default_value_t = 20.0, value_name = "MS", value_parser = parse_delay_ms, allow_hyphen_values = true)]
    delay_ms: f64,
    /// Drop-tail buffer of the down link (waiting packets), 0 to 1000000.
    #[arg(long, default_value_t = 50, value_name = "PKTS", value_parser = limits::parse_buffer_pkts, allow_hyphen_values = true)]
    buffer_pkts: usize,
    /// Random loss rate of the down link, in [0, 1).
    #[arg(long, default_value_t = 0.0, value_parser = parse_loss, allow_hyphen_values = true)]
    loss: f64,
    /// Mean loss burst length of the down link in packets, 1 to 10000
    /// (above 1: Gilbert model, which allows a loss rate of at most B/(B+1)).
    #[arg(long, default_value_t = 1.0, value_name = "PKTS", value_parser = parse_loss_burst_pkts, allow_hyphen_values = true)]
    loss_burst_pkts: f64,
    /// Rate of the client-to-server (up) link [default: --rate-mbit].
    #[arg(long, value_name = "MBIT/S", value_parser = parse_rate_mbit, allow_hyphen_values = true)]
    up_rate_mbit: Option<f64>,
    /// One-way delay of the up link [default: --delay-ms].
    #[arg(long, value_name = "MS", value_parser = parse_delay_ms, allow_hyphen_values = true)]
    up_delay_ms: Option<f64>,
    /// Buffer of the up link, 0 to 1000000 packets.
    #[arg(long, default_value_t = 1000, value_name = "PKTS", value_parser = limits::parse_buffer_pkts, allow_hyphen_values = true)]
    up_buffer_pkts: usize,
    /// Random loss rate of the up link, in [0, 1).
    #[arg(long, default_value_t = 0.0, value_parser = parse_loss, allow_hyphen_values = true)]
    up_loss: f64,
    /// Release up-link packets (ACKs of a download) only at multiples of
    /// this period: ACK aggregation. 0 = off, else 0.001 to 60000 ms.
    #[arg(long, default_value_t = 0.0, value_name = "MS", value_parser = parse_aggregation_ms, allow_hyphen_values = true)]
    ack_aggregation_ms: f64,
    /// Same for the down link.
    #[arg(long, default_value_t = 0.0, value_name = "MS", value_parser = parse_aggregation_ms, allow_hyphen_values = true)]
    down_aggregation_ms: f64,
    /// Seed of the random loss (0 to 2^64-1).
    #[arg(long, default_value_t = 1, value_parser = parse_seed, allow_hyphen_values = true)]
    seed: u64,
    /// A scheduled change T_MS:down|up|both:KEY=VALUE (KEY rate_mbit,
    /// delay_ms, buffer_pkts, loss, in their flags' ranges; T_MS 0 to
    /// 86400000); repeatable.
    #[arg(long, value_name = "STEP", value_parser = parse_step, allow_hyphen_values = true)]
    step: Vec<StepArg>,
    /// Serve the down link with this mahimahi trace (one 1500-byte
    /// delivery opportunity per line, a time in ms, repeated at its end)
    /// instead of --rate-mbit; the buffer and delay still apply.
    #[arg(long, value_name = "FILE", value_parser = parse_trace, conflicts_with = "rate_mbit")]
    trace_down: Option<Arc<DeliveryTrace>>,
    /// The same for the up link, instead of --up-rate-mbit.
    #[arg(long, value_name = "FILE", value_parser = parse_trace, conflicts_with = "up_rate_mbit")]
    trace_up: Option<Arc<DeliveryTrace>>,
    /// Queue log of the down link (the simulator's format).
    #[arg(long, value_name = "FILE")]
    queue_log: Option<PathBuf>,
    /// Queue log of the up link (not the same file as --queue-log).
    #[arg(long, value_name = "FILE")]
    up_queue_log: Option<PathBuf>,
    /// Busy-wait this long before each event instead of sleeping (more
    /// precise, costs CPU), 0 to 50000 us.
    #[arg(long, default_value_t = 0, value_name = "US", value_parser = parse_spin_us, allow_hyphen_values = true)]
    spin_us: u64,
    /// Receive and send buffer asked for each socket, 0 (the system's
    /// default) to 1048576 KiB; the kernel caps it at net.core.rmem_max and
    /// wmem_max. A full receive buffer drops datagrams outside the emulated
    /// link: the report counts the machine's.
    #[arg(long, default_value_t = vegas_interop::sockets::DEFAULT_SOCKET_BUFFER_BYTES / 1024, value_name = "KB", value_parser = parse_socket_buffer_kb, allow_hyphen_values = true)]
    socket_buffer_kb: usize,
    /// Stop after this long, above 0 and at most 86400 s (default: at
    /// SIGINT/SIGTERM).
    #[arg(long, value_name = "S", value_parser = parse_duration_s, allow_hyphen_values = true)]
    duration_s: Option<Duration>,
}

/// A `--step` as given (kept for error messages) and parsed.
#[derive(Clone, Debug)]
struct StepArg {
    text: String,
    step: Step,
}

fn parse_step(text: &str) -> Result<StepArg, String> {
    Ok(StepArg {
        text: text.to_string(),
        step: text.parse()?,
    })
}

fn parse_socket_buffer_kb(text: &str) -> Result<usize, String> {
    let kb: usize = text
        .trim()
        .parse()
        .map_err(|_| format!("`{text}` is not a whole number of KiB"))?;
    limits::socket_buffer_bytes(kb)?;
    Ok(kb)
}

fn parse_rate_mbit(text: &str) -> Result<f64, String> {
    let mbit = limits::number(text)?;
    limits::rate_bps(mbit)?;
    Ok(mbit)
}

fn parse_delay_ms(text: &str) -> Result<f64, String> {
    let ms = limits::number(text)?;
    limits::delay_ns(ms)?;
    Ok(ms)
}

fn parse_aggregation_ms(text: &str) -> Result<f64, String> {
    let ms = limits::number(text)?;
    limits::aggregation_ns(ms)?;
    Ok(ms)
}

fn parse_loss(text: &str) -> Result<f64, String> {
    limits::loss(limits::number(text)?)
}

fn parse_loss_burst_pkts(text: &str) -> Result<f64, String> {
    limits::loss_burst_pkts(limits::number(text)?)
}

fn parse_spin_us(text: &str) -> Result<u64, String> {
    let us: u64 = text.trim().parse().map_err(|_| {
        format!(
            "`{text}` is not a whole number of microseconds from 0 to {}",
            limits::MAX_SPIN_US
        )
    })?;
    limits::spin_ns(us)?;
    Ok(us)
}

fn parse_seed(text: &str) -> Result<u64, String> {
    text.trim()
        .parse()
        .map_err(|_| format!("`{text}` is not a whole number from 0 to {}", u64::MAX))
}

fn parse_duration_s(text: &str) -> Result<Duration, String> {
    limits::duration_s(limits::number(text)?)
}

fn parse_trace(text: &str) -> Result<Arc<DeliveryTrace>, String> {
    DeliveryTrace::load(std::path::Path::new(text))
        .map(Arc::new)
        .map_err(|e| e.to_string())
}

fn parse_route(text: &str) -> Result<Route, String> {
    let (l, s) = text.split_once('=').ok_or_else(|| {
        format!("`{text}`: want LISTEN=SERVER, e.g. 127.0.0.1:5000=127.0.0.1:4433")
    })?;
    let listen: SocketAddr = l
        .parse()
        .map_err(|e| format!("LISTEN `{l}`: {e} (want e.g. 127.0.0.1:5000)"))?;
    let server: SocketAddr = s
        .parse()
        .map_err(|e| format!("SERVER `{s}`: {e} (want e.g. 127.0.0.1:4433)"))?;
    for a in [listen, server] {
        if !a.ip().is_loopback() {
            return Err(format!(
                "{a} is not a loopback address: the emulator stays on this machine"
            ));
        }
    }
    if server.port() == 0 {
        return Err(format!("SERVER {server}: port 0 cannot be sent to"));
    }
    if listen == server {
        return Err(format!(
            "LISTEN and SERVER are both {listen}: the relay would send to itself"
        ));
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
    let mut spec = LinkSpec::new(
        limits::rate_bps(rate_mbit)?,
        limits::delay_ns(delay_ms)?,
        limits::buffer_pkts(buffer_pkts)?,
    );
    spec.loss = limits::loss(loss)?;
    Ok(spec)
}

/// Creates a queue log; `flag` names it in errors.
fn open_log(
    flag: &str,
    path: &Option<PathBuf>,
) -> Result<Option<Box<dyn std::io::Write + Send>>, String> {
    match path {
        None => Ok(None),
        Some(p) => {
            let f = std::fs::File::create(p)
                .map_err(|e| format!("{flag} {}: cannot create: {e}", p.display()))?;
            Ok(Some(Box::new(std::io::BufWriter::new(f))))
        }
    }
}

/// Both links' parameters, after the checks that involve more than one
/// flag (each flag's own range is checked by its value parser).
fn links(args: &Args) -> Result<(LinkSpec, LinkSpec), String> {
    limits::loss_fits_burst(args.loss, args.loss_burst_pkts).map_err(|e| {
        format!(
            "--loss {} with --loss-burst-pkts {}: {e}",
            args.loss, args.loss_burst_pkts
        )
    })?;
    let mut listening = std::collections::HashSet::new();
    for r in &args.route {
        if r.listen.port() != 0 && !listening.insert(r.listen) {
            return Err(format!(
                "--route: LISTEN {} is given twice (one route per listen address)",
                r.listen
            ));
        }
    }
    for r in &args.route {
        if args.route.iter().any(|other| other.listen == r.server) {
            return Err(format!(
                "--route: SERVER {} is also a LISTEN address: the relay would send to itself",
                r.server
            ));
        }
    }
    if let (Some(a), Some(b)) = (&args.queue_log, &args.up_queue_log) {
        if resolved_path(a) == resolved_path(b) {
            return Err(format!(
                "--queue-log {} and --up-queue-log {}: the same file; give each link its own",
                a.display(),
                b.display()
            ));
        }
    }
    let mut down = link_spec(args.rate_mbit, args.delay_ms, args.buffer_pkts, args.loss)?;
    down.loss_burst_pkts = limits::loss_burst_pkts(args.loss_burst_pkts)?;
    down.aggregation_ns = limits::aggregation_ns(args.down_aggregation_ms)?;
    let mut up = link_spec(
        args.up_rate_mbit.unwrap_or(args.rate_mbit),
        args.up_delay_ms.unwrap_or(args.delay_ms),
        args.up_buffer_pkts,
        args.up_loss,
    )?;
    up.aggregation_ns = limits::aggregation_ns(args.ack_aggregation_ms)?;
    for s in &args.step {
        let rate_step = matches!(s.step.change, vegas_interop::relay::Change::RateBps(_));
        let on =
            |d| s.step.direction == d || s.step.direction == vegas_interop::relay::Direction::Both;
        for (flag, traced, direction) in [
            (
                "--trace-down",
                args.trace_down.is_some(),
                vegas_interop::relay::Direction::Down,
            ),
            (
                "--trace-up",
                args.trace_up.is_some(),
                vegas_interop::relay::Direction::Up,
            ),
        ] {
            if rate_step && traced && on(direction) {
                return Err(format!(
                    "--step {}: that link is trace-driven ({flag}): its rate is the trace's and cannot step",
                    s.text
                ));
            }
        }
        s.step.check(&down, &up).map_err(|e| {
            format!(
                "--step {}: {e} (--loss-burst-pkts {})",
                s.text, args.loss_burst_pkts
            )
        })?;
    }
    Ok((down, up))
}

fn run(args: Args, down: LinkSpec, up: LinkSpec) -> Result<(), String> {
    let config = Config {
        routes: args.route.clone(),
        down,
        up,
        seed: args.seed,
        steps: args.step.iter().map(|s| s.step).collect(),
        down_log: open_log("--queue-log", &args.queue_log)?,
        up_log: open_log("--up-queue-log", &args.up_queue_log)?,
        spin_ns: limits::spin_ns(args.spin_us)?,
        socket_buffer_bytes: limits::socket_buffer_bytes(args.socket_buffer_kb)?,
        down_trace: args.trace_down.clone(),
        up_trace: args.trace_up.clone(),
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
    while !STOP.load(Ordering::SeqCst) && args.duration_s.is_none_or(|l| start.elapsed() < l) {
        std::thread::sleep(Duration::from_millis(20));
    }
    let report = emulator.stop();
    // Whoever started us may have stopped reading: never panic on that.
    let _ = writeln!(std::io::stdout(), "{report}");
    Ok(())
}

fn main() -> ExitCode {
    let args = Args::parse();
    // Conflicting flags are usage errors, reported like clap's own (exit
    // status 2).
    let (down, up) = links(&args).unwrap_or_else(|e| {
        Args::command()
            .error(clap::error::ErrorKind::ArgumentConflict, e)
            .exit()
    });
    match run(args, down, up) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("vegas-link-emu: error: {e}");
            ExitCode::FAILURE
        }
    }
}
