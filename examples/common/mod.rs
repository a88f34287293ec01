//! Code shared by `h3-server` and `h3-client`: congestion-control and
//! transport options, qlog files, and the wait for the next event or
//! paced packet (the pacer itself is `quiche_vegas::sending`).
//!
//! Not an example itself: cargo only builds `examples/*.rs` and
//! `examples/*/main.rs`.

#![allow(dead_code)]

use std::path::Path;
use std::path::PathBuf;
use std::time::Instant;

use quiche_vegas::sending;
use quiche_vegas::Algorithm;
use quiche_vegas::CcSpec;
use quiche_vegas::Params;

pub mod paths;
pub mod request;
pub mod summary;

/// The largest UDP payload sent and received.
pub const MAX_DATAGRAM_BYTES: usize = 1350;

/// The longest timeout any flag accepts: one day, in milliseconds.
pub const MAX_TIMEOUT_MS: u64 = 86_400_000;
/// The longest timeout any flag accepts: one day, in seconds.
pub const MAX_TIMEOUT_S: f64 = 86_400.0;
/// The UDP socket buffer asked for by default, each direction: 4 MiB,
/// a few hundred milliseconds of 100 Mbit/s. Linux's default (208 KiB,
/// about 90 datagrams) overflows when the process is not scheduled for
/// 10 ms at 100 Mbit/s: a 30 s download at 100 Mbit/s x 200 ms through
/// vegas-link-emu lost 741 datagrams that way and Vegas halved its window
/// (`docs/real-rates.md`). quic-go asks for 7 MiB. The same as
/// `vegas_interop::sockets::DEFAULT_SOCKET_BUFFER_BYTES`, which the
/// examples do not depend on.
pub const DEFAULT_SOCKET_BUFFER_KB: u64 = 4096;
/// The largest socket buffer a flag accepts: 1 GiB (the kernel caps it).
pub const MAX_SOCKET_BUFFER_KB: u64 = 1 << 20;
/// The smallest flow-control window a flag accepts: room for the HTTP/3
/// control streams and a request's header block (smaller windows block them).
pub const MIN_WINDOW_BYTES: u64 = 16 * 1024;
/// The largest flow-control window a flag accepts (1 GiB): what a peer may
/// make us buffer per stream or connection.
pub const MAX_WINDOW_BYTES: u64 = 1 << 30;
/// The most concurrent bidirectional streams a peer may be allowed.
pub const MAX_STREAMS_BIDI: u64 = 10_000;

/// clap parser for a whole number in `min..=max`; the error gives the range
/// whatever was wrong (sign, digits, size).
pub fn u64_in(
    min: u64,
    max: u64,
) -> impl Fn(&str) -> Result<u64, String> + Clone + Send + Sync + 'static {
    move |text: &str| match text.trim().parse::<u64>() {
        Ok(n) if (min..=max).contains(&n) => Ok(n),
        _ => Err(format!("want a whole number from {min} to {max}")),
    }
}

/// clap parser for a whole number of milliseconds in 1..=[`MAX_TIMEOUT_MS`].
pub fn timeout_ms() -> impl Fn(&str) -> Result<u64, String> + Clone + Send + Sync + 'static {
    u64_in(1, MAX_TIMEOUT_MS)
}

/// clap parser for a number of seconds in (0, [`MAX_TIMEOUT_S`]]: finite,
/// so that `Duration::from_secs_f64` and `Instant + Duration` cannot panic.
pub fn timeout_s(text: &str) -> Result<f64, String> {
    let allowed = format!("want a number of seconds above 0, at most {MAX_TIMEOUT_S} (one day)");
    match text.trim().parse::<f64>() {
        Ok(s) if s.is_finite() && s > 0.0 && s <= MAX_TIMEOUT_S => Ok(s),
        _ => Err(allowed),
    }
}

// Options both examples take. Every number is bounded; a value out of
// range is a command-line error (exit status 2) naming the flag, the value
// and the range.
//
// Where quiche's own apps (`quiche-server`, `quiche-client`) have a flag of
// the same meaning under another name, that name is a visible alias
// (`--cc-algorithm`, `--idle-timeout`, `--disable-pacing`).
//
// (Not a doc comment: clap would show it as the `--help` text of both
// examples.)
#[derive(clap::Args, Debug, Clone)]
pub struct CommonArgs {
    /// Congestion control: vegas, vegas-a, gallop-vegas, gallop-vegas-a,
    /// vegas-compat, vegas-a-compat, gallop-vegas-compat,
    /// gallop-vegas-a-compat, newreno (vegas-cc) or reno, cubic, bbr2
    /// (quiche's own; quiche's spellings bbr and bbr2_gcongestion are
    /// bbr2).
    #[arg(
        long,
        visible_alias = "cc-algorithm",
        default_value = "vegas",
        value_name = "NAME"
    )]
    pub cc: String,
    /// A controller parameter, e.g. `alpha=2`; repeatable. Checked before
    /// anything starts: unknown keys and bad values are errors.
    #[arg(long = "cc-param", value_name = "KEY=VALUE")]
    pub cc_params: Vec<String>,
    /// Write one qlog file per connection into DIR (also taken from the
    /// QLOGDIR environment variable).
    #[arg(long, value_name = "DIR")]
    pub qlog_dir: Option<PathBuf>,
    /// Connection-level flow-control window advertised to the peer,
    /// 16384 to 1073741824 (1 GiB).
    #[arg(long, default_value_t = 25_000_000, value_name = "BYTES",
          allow_negative_numbers = true,
          value_parser = u64_in(MIN_WINDOW_BYTES, MAX_WINDOW_BYTES))]
    pub max_data: u64,
    /// Per-stream flow-control window advertised to the peer, 16384 to
    /// 1073741824 (1 GiB).
    #[arg(long, default_value_t = 10_000_000, value_name = "BYTES",
          allow_negative_numbers = true,
          value_parser = u64_in(MIN_WINDOW_BYTES, MAX_WINDOW_BYTES))]
    pub max_stream_data: u64,
    /// Concurrent bidirectional streams (requests) the peer may open,
    /// 1 to 10000.
    #[arg(long, default_value_t = 100, value_name = "N",
          allow_negative_numbers = true,
          value_parser = u64_in(1, MAX_STREAMS_BIDI))]
    pub max_streams_bidi: u64,
    /// Idle timeout of a connection, 1 ms to 86400000 ms (one day); a
    /// connection whose peer vanished is dropped after it.
    #[arg(long, visible_alias = "idle-timeout", default_value_t = 30_000, value_name = "MS",
          allow_negative_numbers = true, value_parser = timeout_ms())]
    pub idle_timeout_ms: u64,
    /// Send packets as soon as quiche makes them instead of at the time it
    /// asks for (`SendInfo::at`), and tell quiche the application does not
    /// pace.
    #[arg(long, visible_alias = "disable-pacing")]
    pub no_pacing: bool,
    /// Receive and send buffer asked for the UDP socket, 0 (the system's
    /// default) to 1048576 KiB; the kernel caps it at net.core.rmem_max and
    /// wmem_max. A full receive buffer drops datagrams the sender takes as
    /// congestion.
    #[arg(long, default_value_t = DEFAULT_SOCKET_BUFFER_KB, value_name = "KB",
          allow_negative_numbers = true,
          value_parser = u64_in(0, MAX_SOCKET_BUFFER_KB))]
    pub socket_buffer_kb: u64,
}

impl CommonArgs {
    /// Asks for `--socket-buffer-kb` of receive and send buffer on `socket`.
    /// Where the kernel grants less (its maximum is lower), says so on
    /// stderr with the sysctl that raises it, and goes on.
    pub fn size_socket_buffers(&self, socket: &mio::net::UdpSocket) -> Result<(), String> {
        if self.socket_buffer_kb == 0 {
            return Ok(());
        }
        let bytes = (self.socket_buffer_kb * 1024) as usize;
        let socket = socket2::SockRef::from(socket);
        let sized = || -> std::io::Result<(usize, usize)> {
            socket.set_recv_buffer_size(bytes)?;
            socket.set_send_buffer_size(bytes)?;
            Ok((socket.recv_buffer_size()?, socket.send_buffer_size()?))
        };
        let (receive, send) =
            sized().map_err(|e| format!("--socket-buffer-kb {}: {e}", self.socket_buffer_kb))?;
        // Linux reports twice what it granted; a grant below the request
        // is the kernel's maximum.
        for (what, granted, sysctl) in [
            ("receive", receive, "net.core.rmem_max"),
            ("send", send, "net.core.wmem_max"),
        ] {
            if granted < bytes {
                eprintln!(
                    "warning: --socket-buffer-kb {}: the kernel granted a {what} buffer of \
                     {} KiB; raise it with `sysctl -w {sysctl}={bytes}`",
                    self.socket_buffer_kb,
                    granted / 1024
                );
            }
        }
        Ok(())
    }

    /// The validated congestion-control choice.
    pub fn cc_spec(&self) -> Result<CcSpec, String> {
        let algorithm: Algorithm = cc_name(&self.cc)
            .parse()
            .map_err(|e| format!("--cc (--cc-algorithm): {e}"))?;
        let mut params = Params::new();
        for text in &self.cc_params {
            let (key, value) = quiche_vegas::algorithm::parse_param(text)
                .map_err(|e| format!("--cc-param: {e}"))?;
            params.insert(key, value);
        }
        CcSpec::new(algorithm, params).map_err(|e| format!("--cc-param: {e}"))
    }

    /// `--qlog-dir`, else `QLOGDIR`; created if missing.
    pub fn qlog_dir(&self) -> Result<Option<PathBuf>, String> {
        let dir = self
            .qlog_dir
            .clone()
            .or_else(|| std::env::var_os("QLOGDIR").map(PathBuf::from));
        if let Some(d) = &dir {
            let flag = if self.qlog_dir.is_some() {
                "--qlog-dir"
            } else {
                "QLOGDIR"
            };
            std::fs::create_dir_all(d)
                .map_err(|e| format!("{flag} {}: cannot create the directory: {e}", d.display()))?;
        }
        Ok(dir)
    }

    /// A quiche config with these transport and congestion-control options
    /// and HTTP/3 as the application protocol.
    pub fn quiche_config(&self, spec: &CcSpec) -> Result<quiche::Config, String> {
        let mut config = quiche::Config::new(quiche::PROTOCOL_VERSION)
            .map_err(|e| format!("cannot create QUIC config: {e}"))?;
        config
            .set_application_protos(quiche::h3::APPLICATION_PROTOCOL)
            .map_err(|e| format!("cannot set ALPN: {e}"))?;
        config.set_max_idle_timeout(self.idle_timeout_ms);
        config.set_max_recv_udp_payload_size(MAX_DATAGRAM_BYTES);
        config.set_max_send_udp_payload_size(MAX_DATAGRAM_BYTES);
        config.set_initial_max_data(self.max_data);
        config.set_initial_max_stream_data_bidi_local(self.max_stream_data);
        config.set_initial_max_stream_data_bidi_remote(self.max_stream_data);
        config.set_initial_max_stream_data_uni(self.max_stream_data);
        config.set_initial_max_streams_bidi(self.max_streams_bidi);
        config.set_initial_max_streams_uni(100);
        config.set_max_connection_window(self.max_data.max(25_000_000));
        config.set_max_stream_window(self.max_stream_data.max(16_000_000));
        config.set_disable_active_migration(true);
        // quiche records a packet as sent at its pacing time unless told
        // the application does not pace: without this, `--no-pacing`
        // shortened every RTT sample.
        config.enable_pacing(!self.no_pacing);
        spec.configure(&mut config);
        Ok(config)
    }
}

/// Our name of a congestion controller given as `name`: quiche's apps also
/// call BBRv2 `bbr` and `bbr2_gcongestion` (quiche 0.30 has one BBR).
pub fn cc_name(name: &str) -> &str {
    match name {
        "bbr" | "bbr2_gcongestion" => "bbr2",
        other => other,
    }
}

/// `path` of flag `flag` as the UTF-8 text quiche's TLS loaders take,
/// after checking it names a readable regular file.
pub fn readable_file<'a>(flag: &str, path: &'a Path) -> Result<&'a str, String> {
    let text = path
        .to_str()
        .ok_or_else(|| format!("{flag} {}: the path is not UTF-8", path.display()))?;
    let metadata =
        std::fs::metadata(path).map_err(|e| format!("cannot read {flag} {text}: {e}"))?;
    if !metadata.is_file() {
        return Err(format!("{flag} {text} is not a regular file"));
    }
    std::fs::File::open(path).map_err(|e| format!("cannot read {flag} {text}: {e}"))?;
    Ok(text)
}

/// Starts a qlog file `<dir>/<role>-<trace id>.sqlog` for `conn`.
pub fn attach_qlog(conn: &mut quiche::Connection, dir: &Path, role: &str, cc: &str) {
    let path = dir.join(format!("{role}-{}.sqlog", conn.trace_id()));
    match std::fs::File::create(&path) {
        Ok(file) => conn.set_qlog(
            Box::new(std::io::BufWriter::new(file)),
            format!("quiche-vegas h3-{role}"),
            format!("h3-{role} cc={cc} id={}", conn.trace_id()),
        ),
        Err(e) => eprintln!("warning: no qlog, cannot create {}: {e}", path.display()),
    }
}

/// Waits for socket events or `deadline`, whichever comes first, to within
/// the timer's precision (tens of microseconds): mio waits whole
/// milliseconds, rounded up, which would hold a paced sender to about one
/// packet per millisecond. The poll waits the whole milliseconds (rounded
/// down), a sleep the rest.
pub fn wait(
    poll: &mut mio::Poll,
    events: &mut mio::Events,
    deadline: Option<Instant>,
) -> std::io::Result<()> {
    let timeout = sending::poll_timeout(deadline, Instant::now());
    match poll.poll(events, timeout) {
        Err(e) if e.kind() != std::io::ErrorKind::Interrupted => return Err(e),
        _ => {}
    }
    if let (true, Some(d)) = (events.is_empty(), deadline) {
        sending::sleep_until(d);
    }
    Ok(())
}

/// Megabits per second from bytes and seconds.
pub fn mbit_per_s(bytes: u64, seconds: f64) -> f64 {
    if seconds > 0.0 {
        bytes as f64 * 8.0 / seconds / 1e6
    } else {
        0.0
    }
}
