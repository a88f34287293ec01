//! An HTTP/3 client on quiche with a quiche-vegas congestion controller,
//! modelled on quiche's own `http3-client` example and apps.
//!
//! ```sh
//! cargo run --release --example h3-client -- --ca examples/certs/ca.pem \
//!     https://127.0.0.1:4433/bytes/10000000
//! ```
//!
//! Fetches every URL (one origin, one connection, concurrent requests),
//! verifies the server certificate against `--ca FILE` (or the system's
//! roots; `--insecure` turns verification off explicitly), shows a progress
//! bar when stderr is a terminal, then prints one line per request and a
//! summary: bytes, time and goodput of the download, then, under a heading
//! of its own, the figures of the client -> server direction (requests and
//! ACKs: packets lost and retransmitted, cwnd, RTT), the only direction the
//! client's `--cc` controls. The download is paced and congestion-controlled
//! by the server; h3-server prints its figures per connection.
//!
//! Requests: `--method` (GET, HEAD, POST, PUT, DELETE, OPTIONS), `--body
//! FILE` (POST and PUT), `-H "name: value"` (repeatable; names are HTTP
//! tokens, sent in lower case; pseudo-headers, connection-specific fields,
//! `host` and `content-length` are refused: the client sets them), and
//! `--connect-to HOST:PORT` (send the datagrams there; the URL's host
//! stays the TLS server name and the `:authority`).
//!
//! quiche-client's flag names work too where they mean the same:
//! `--no-verify` (= `--insecure`), `--trust-origin-ca-pem` (= `--ca`),
//! `--dump-responses` (= `--output-dir`), `--cc-algorithm` (= `--cc`),
//! `--idle-timeout` (= `--idle-timeout-ms`), `--disable-pacing`
//! (= `--no-pacing`); `--method`, `--body`, `-H/--header`, `--connect-to`,
//! `--max-data`, `--max-stream-data`, `--max-streams-bidi` have
//! quiche-client's names.
//!
//! Exit status: 0 when every response was 2xx, 3 when a response had
//! another status, 1 on any other error, 2 for a bad command line.

use std::collections::HashMap;
use std::fs::File;
use std::io::IsTerminal;
use std::io::Write;
use std::net::SocketAddr;
use std::net::ToSocketAddrs;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;
use std::time::Instant;

use clap::CommandFactory;
use clap::Parser;
use quiche::h3::NameValue;
use quiche_vegas::sending;
use quiche_vegas::sending::Flush;
use quiche_vegas::sending::PacedSender;
use ring::rand::SecureRandom;
use ring::rand::SystemRandom;
use url::Url;

#[path = "common/mod.rs"]
mod common;

use common::summary::CwndStats;
use common::summary::SendSummary;
use common::MAX_DATAGRAM_BYTES;

#[derive(Parser, Debug)]
#[command(
    name = "h3-client",
    about = "HTTP/3 client with TCP Vegas family congestion control"
)]
struct Args {
    /// https:// URLs to fetch, all of one origin (scheme, host, port).
    #[arg(required = true, value_name = "URL")]
    urls: Vec<String>,
    /// Trust the server certificate if it chains to this CA (PEM).
    #[arg(
        long,
        visible_alias = "trust-origin-ca-pem",
        value_name = "FILE",
        conflicts_with = "insecure"
    )]
    ca: Option<PathBuf>,
    /// Do not verify the server certificate.
    #[arg(long, visible_alias = "no-verify")]
    insecure: bool,
    /// Save each body into DIR (named after the URL's last segment).
    #[arg(long, visible_alias = "dump-responses", value_name = "DIR")]
    output_dir: Option<PathBuf>,
    /// The method of every request.
    #[arg(long, value_enum, default_value_t = Method::Get, value_name = "METHOD")]
    method: Method,
    /// Send FILE as the body of every request (with --method POST or PUT),
    /// at most 67108864 bytes (64 MiB); `content-length` gives its size.
    #[arg(long, value_name = "FILE", value_parser = body_file)]
    body: Option<PathBuf>,
    /// Add a request header, "name: value"; repeatable, at most 64 times,
    /// 8192 bytes each, 16384 in all. The name is an HTTP token (sent in
    /// lower case); pseudo-headers (:path, ...), connection-specific
    /// fields, host and content-length are set by the client and refused
    /// here; a user-agent given here replaces the client's.
    #[arg(short = 'H', long = "header", value_name = "NAME: VALUE",
          value_parser = header)]
    headers: Vec<ExtraHeader>,
    /// Send the UDP datagrams to this HOST:PORT instead of the address of
    /// the URLs' host, which stays the TLS server name (SNI) and the
    /// :authority.
    #[arg(long, value_name = "HOST:PORT", value_parser = connect_to)]
    connect_to: Option<String>,
    /// Also request this :path verbatim on the URLs' origin (for testing
    /// servers with paths a URL parser would normalise); repeatable; at
    /// most 8192 bytes each.
    #[arg(long, value_name = "PATH", value_parser = raw_path)]
    raw_path: Vec<String>,
    /// Give up if the handshake is not done within this time, 1 to
    /// 86400000 ms (one day).
    #[arg(long, default_value_t = 5_000, value_name = "MS",
          allow_negative_numbers = true, value_parser = common::timeout_ms())]
    connect_timeout_ms: u64,
    /// Give up if all responses are not complete within this time, in
    /// seconds: more than 0, at most 86400 (one day); fractions allowed.
    #[arg(long, default_value_t = 300.0, value_name = "S",
          allow_negative_numbers = true, value_parser = common::timeout_s)]
    timeout_s: f64,
    /// After the last response, keep the connection open this long before
    /// closing it, 0 to 60000 ms: lets a load test hold many connections
    /// open at once.
    #[arg(long, default_value_t = 0, value_name = "MS",
          allow_negative_numbers = true, value_parser = common::u64_in(0, MAX_LINGER_MS))]
    linger_ms: u64,
    /// No progress bar.
    #[arg(short, long)]
    quiet: bool,
    #[command(flatten)]
    common: common::CommonArgs,
}

/// The longest `--raw-path` (bytes): room to test a server's own limit
/// (h3-server refuses paths over 4096 bytes) within any flow-control window
/// the flags allow.
const MAX_RAW_PATH_BYTES: usize = 8192;
/// The longest `--linger-ms`.
const MAX_LINGER_MS: u64 = 60_000;
/// The most requests (URLs and raw paths) one run sends.
const MAX_REQUESTS: usize = 10_000;
/// The largest `--body` (64 MiB): it is read into memory once.
const MAX_BODY_BYTES: u64 = 64 << 20;
/// The most `-H/--header` flags.
const MAX_HEADERS: usize = 64;
/// The longest `-H/--header` (bytes, as given).
const MAX_HEADER_BYTES: usize = 8192;
/// The most bytes of all `-H/--header` flags together: with the longest
/// `--raw-path`, a header block well within quiche's 32 KiB limit
/// (SETTINGS_MAX_FIELD_SECTION_SIZE) and the smallest stream window the
/// examples allow.
const MAX_HEADERS_TOTAL_BYTES: usize = 16384;

/// The request methods `--method` takes (RFC 9110 9.3); HTTP methods are
/// case-sensitive, so only the upper-case names.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum Method {
    #[value(name = "GET")]
    Get,
    #[value(name = "HEAD")]
    Head,
    #[value(name = "POST")]
    Post,
    #[value(name = "PUT")]
    Put,
    #[value(name = "DELETE")]
    Delete,
    #[value(name = "OPTIONS")]
    Options,
}

impl Method {
    fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Head => "HEAD",
            Method::Post => "POST",
            Method::Put => "PUT",
            Method::Delete => "DELETE",
            Method::Options => "OPTIONS",
        }
    }

    /// Whether the method defines a meaning for a request body (RFC 9110
    /// 9.3): the ones `--body` goes with, and that send `content-length`.
    fn has_body(self) -> bool {
        matches!(self, Method::Post | Method::Put)
    }
}

/// A `-H/--header` field, its name lower-cased.
#[derive(Clone, Debug, PartialEq, Eq)]
struct ExtraHeader {
    name: String,
    value: String,
}

/// Fields the client sets itself, or that HTTP/3 forbids (RFC 9114 4.2).
const REFUSED_HEADERS: [(&str, &str); 7] = [
    ("host", "the URL's host is sent as :authority"),
    ("content-length", "the client sets it from --body"),
    (
        "connection",
        "connection-specific fields are not allowed in HTTP/3",
    ),
    (
        "keep-alive",
        "connection-specific fields are not allowed in HTTP/3",
    ),
    (
        "proxy-connection",
        "connection-specific fields are not allowed in HTTP/3",
    ),
    (
        "transfer-encoding",
        "connection-specific fields are not allowed in HTTP/3",
    ),
    (
        "upgrade",
        "connection-specific fields are not allowed in HTTP/3",
    ),
];

/// clap parser for `-H/--header "name: value"`.
fn header(text: &str) -> Result<ExtraHeader, String> {
    const FLAG: &str = "-H/--header";
    if text.len() > MAX_HEADER_BYTES {
        return Err(format!(
            "{} bytes; {FLAG} takes at most {MAX_HEADER_BYTES}",
            text.len()
        ));
    }
    if text.trim_start().starts_with(':') {
        return Err(format!(
            "pseudo-headers cannot be set with {FLAG}: the client sets :method \
             (--method), :scheme, :authority and :path (the URL)"
        ));
    }
    let Some((name, value)) = text.split_once(':') else {
        return Err(format!("{FLAG} wants \"name: value\" (no `:` found)"));
    };
    let name = name.trim();
    if name.is_empty() {
        return Err(format!("{FLAG} wants \"name: value\" (empty name)"));
    }
    if !name.bytes().all(is_token_byte) {
        return Err(format!(
            "{FLAG}: header name {name:?} is not an HTTP token (letters, digits \
             and !#$%&'*+-.^_`|~, RFC 9110 5.6.2)"
        ));
    }
    let name = name.to_ascii_lowercase();
    if let Some((_, why)) = REFUSED_HEADERS.iter().find(|(n, _)| *n == name) {
        return Err(format!("{name} cannot be set with {FLAG}: {why}"));
    }
    // Optional whitespace around the value is not part of it (RFC 9110 5.5).
    let value = value.trim_matches([' ', '\t']);
    if value.bytes().any(|b| b.is_ascii_control() && b != b'\t') {
        return Err(format!(
            "{FLAG}: the value of {name} has a control character (NUL, CR, LF, ...)"
        ));
    }
    if name == "te" && value != "trailers" {
        return Err(format!(
            "te other than `trailers` cannot be sent in HTTP/3 ({FLAG})"
        ));
    }
    Ok(ExtraHeader {
        name,
        value: value.to_string(),
    })
}

/// A byte of an RFC 9110 5.6.2 token.
fn is_token_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

/// clap parser for `--body FILE`: a readable regular file of at most
/// [`MAX_BODY_BYTES`].
fn body_file(text: &str) -> Result<PathBuf, String> {
    let path = PathBuf::from(text);
    let metadata = std::fs::metadata(&path).map_err(|e| format!("cannot read the file: {e}"))?;
    if !metadata.is_file() {
        return Err("not a regular file".into());
    }
    if metadata.len() > MAX_BODY_BYTES {
        return Err(format!(
            "{} bytes; a body is at most {MAX_BODY_BYTES} bytes (64 MiB)",
            metadata.len()
        ));
    }
    File::open(&path).map_err(|e| format!("cannot read the file: {e}"))?;
    Ok(path)
}

/// clap parser for `--connect-to HOST:PORT` (`[v6]:PORT` for an IPv6
/// address): checked for form here, resolved when the client starts.
fn connect_to(text: &str) -> Result<String, String> {
    let want = "want HOST:PORT, e.g. 127.0.0.1:4433, [::1]:4433 or localhost:4433";
    let port = match text.parse::<SocketAddr>() {
        Ok(addr) => addr.port(),
        Err(_) => {
            let (host, port) = text.rsplit_once(':').ok_or(want)?;
            if host.is_empty() || host.contains([':', '[', ']', '/', ' ']) {
                return Err(want.into());
            }
            port.parse::<u16>().map_err(|_| want)?
        }
    };
    if port == 0 {
        return Err("port 0 is not a port a server listens on".into());
    }
    Ok(text.to_string())
}

/// Checks between flags clap cannot express; exits with clap's status 2
/// and message on failure.
fn check_flags(args: &Args) {
    let fail = |kind: clap::error::ErrorKind, message: String| -> ! {
        Args::command().error(kind, message).exit()
    };
    if let (Some(body), false) = (&args.body, args.method.has_body()) {
        fail(
            clap::error::ErrorKind::ArgumentConflict,
            format!(
                "--body {} needs --method POST or PUT, not {} (which defines no request body)",
                body.display(),
                args.method.as_str()
            ),
        );
    }
    if args.headers.len() > MAX_HEADERS {
        fail(
            clap::error::ErrorKind::TooManyValues,
            format!(
                "{} -H/--header flags; at most {MAX_HEADERS}",
                args.headers.len()
            ),
        );
    }
    let total: usize = args
        .headers
        .iter()
        .map(|h| h.name.len() + h.value.len() + 2)
        .sum();
    if total > MAX_HEADERS_TOTAL_BYTES {
        fail(
            clap::error::ErrorKind::ValueValidation,
            format!(
                "-H/--header: {total} bytes of headers in all; at most {MAX_HEADERS_TOTAL_BYTES}"
            ),
        );
    }
}

/// clap parser for `--raw-path`: non-empty, at most [`MAX_RAW_PATH_BYTES`].
fn raw_path(text: &str) -> Result<String, String> {
    if text.is_empty() || text.len() > MAX_RAW_PATH_BYTES {
        return Err(format!(
            "{} bytes; want a :path of 1 to {MAX_RAW_PATH_BYTES} bytes",
            text.len()
        ));
    }
    Ok(text.to_string())
}

/// One request and what came back.
struct Request {
    label: String,
    status: Option<u16>,
    content_length_bytes: Option<u64>,
    body_bytes: u64,
    output: Option<File>,
    done: bool,
    failed: Option<String>,
    /// Request body bytes sent so far; None when the whole body is sent
    /// (or there is none, or the server stopped reading it).
    upload_sent_bytes: Option<usize>,
    /// The server stopped reading the request body (STOP_SENDING, code).
    upload_stopped: Option<u64>,
}

fn main() -> ExitCode {
    let args = Args::parse();
    check_flags(&args);
    match fetch(args) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(3),
        Err(e) => {
            eprintln!("h3-client: error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Checks that every URL is https and of one origin; returns the parsed URLs.
fn parse_urls(texts: &[String]) -> Result<Vec<Url>, String> {
    let mut urls = Vec::new();
    for text in texts {
        let url = Url::parse(text).map_err(|e| format!("bad URL `{text}`: {e}"))?;
        if url.scheme() != "https" {
            return Err(format!("URL `{text}`: only https:// is supported"));
        }
        if url.host_str().is_none() {
            return Err(format!("URL `{text}` has no host"));
        }
        if url.port() == Some(0) {
            return Err(format!(
                "URL `{text}`: port 0 is not a port a server listens on"
            ));
        }
        if let Some(first) = urls.first() {
            let first: &Url = first;
            if first.origin() != url.origin() {
                return Err(format!(
                    "all URLs must share one origin: `{text}` differs from `{first}`"
                ));
            }
        }
        urls.push(url);
    }
    Ok(urls)
}

/// The address to send to: `--connect-to` if given, else the URL's host.
fn resolve(url: &Url, connect_to: Option<&str>) -> Result<SocketAddr, String> {
    let addrs: Vec<SocketAddr> = match connect_to {
        Some(text) => text
            .to_socket_addrs()
            .map_err(|e| format!("--connect-to {text}: cannot resolve: {e}"))?
            .collect(),
        None => {
            let host = url.host_str().unwrap_or_default();
            let port = url.port_or_known_default().unwrap_or(443);
            let host = host.trim_start_matches('[').trim_end_matches(']');
            (host, port)
                .to_socket_addrs()
                .map_err(|e| format!("cannot resolve {host}: {e}"))?
                .collect()
        }
    };
    // Prefer IPv4: `localhost` often resolves to ::1 first, where servers
    // started with the default --listen are not.
    addrs
        .iter()
        .find(|a| a.is_ipv4())
        .or(addrs.first())
        .copied()
        .ok_or_else(|| match connect_to {
            Some(text) => format!("--connect-to {text} has no address"),
            None => format!("{} has no address", url.host_str().unwrap_or_default()),
        })
}

fn output_file(dir: &std::path::Path, url_path: &str, index: usize) -> Result<File, String> {
    let last = url_path.rsplit('/').next().unwrap_or("");
    let safe: String = last
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "._-".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    let name = if safe.is_empty() || safe.starts_with('.') {
        format!("response-{index}")
    } else {
        safe
    };
    let path = dir.join(name);
    File::create(&path).map_err(|e| format!("cannot create {}: {e}", path.display()))
}

fn fetch(args: Args) -> Result<bool, String> {
    let urls = parse_urls(&args.urls)?;
    if urls.len() + args.raw_path.len() > MAX_REQUESTS {
        return Err(format!(
            "{} requests (URLs and --raw-path); at most {MAX_REQUESTS} per run",
            urls.len() + args.raw_path.len()
        ));
    }
    let spec = args.common.cc_spec()?;
    let qlog_dir = args.common.qlog_dir()?;
    let mut config = args.common.quiche_config(&spec)?;
    if args.insecure {
        config.verify_peer(false);
    } else {
        config.verify_peer(true);
        if let Some(ca) = &args.ca {
            let ca = common::readable_file("--ca (--trust-origin-ca-pem)", ca)?;
            config.load_verify_locations_from_file(ca).map_err(|e| {
                format!("--ca (--trust-origin-ca-pem) {ca} is not a PEM certificate ({e})")
            })?;
        }
    }
    if let Some(dir) = &args.output_dir {
        std::fs::create_dir_all(dir).map_err(|e| {
            format!(
                "cannot create --output-dir (--dump-responses) {}: {e}",
                dir.display()
            )
        })?;
    }
    let upload: Vec<u8> = match &args.body {
        Some(path) => {
            let data = std::fs::read(path)
                .map_err(|e| format!("cannot read --body {}: {e}", path.display()))?;
            if data.len() as u64 > MAX_BODY_BYTES {
                return Err(format!(
                    "--body {}: {} bytes; at most {MAX_BODY_BYTES}",
                    path.display(),
                    data.len()
                ));
            }
            data
        }
        None => Vec::new(),
    };

    let first = &urls[0];
    let peer = resolve(first, args.connect_to.as_deref())?;
    let bind: SocketAddr = if peer.is_ipv4() {
        "0.0.0.0:0".parse().unwrap()
    } else {
        "[::]:0".parse().unwrap()
    };
    let mut socket =
        mio::net::UdpSocket::bind(bind).map_err(|e| format!("cannot open a UDP socket: {e}"))?;
    args.common.size_socket_buffers(&socket)?;
    // Connected, so that "port unreachable" comes back as an error.
    socket
        .connect(peer)
        .map_err(|e| format!("cannot reach {peer}: {e}"))?;
    let local = socket.local_addr().map_err(|e| e.to_string())?;
    let mut poll = mio::Poll::new().map_err(|e| e.to_string())?;
    poll.registry()
        .register(&mut socket, mio::Token(0), mio::Interest::READABLE)
        .map_err(|e| e.to_string())?;

    let mut scid = [0u8; quiche::MAX_CONN_ID_LEN];
    SystemRandom::new()
        .fill(&mut scid)
        .map_err(|_| "no randomness for the connection ID")?;
    let scid = quiche::ConnectionId::from_ref(&scid);
    // quiche checks a host name (SNI and X509_VERIFY_PARAM_set1_host), not
    // an IP address: for an IP-literal URL no name is sent and the iPAddress
    // subjectAltName is checked after the handshake (`cert_names_ip`).
    let url_ip = match first.host() {
        Some(url::Host::Ipv4(ip)) => Some(std::net::IpAddr::V4(ip)),
        Some(url::Host::Ipv6(ip)) => Some(std::net::IpAddr::V6(ip)),
        _ => None,
    };
    let server_name = match url_ip {
        Some(_) => None,
        None => first.host_str().map(str::to_string),
    };
    let mut conn = quiche::connect(server_name.as_deref(), &scid, local, peer, &mut config)
        .map_err(|e| format!("cannot start a QUIC connection: {e}"))?;
    if let Some(dir) = &qlog_dir {
        common::attach_qlog(&mut conn, dir, "client", spec.algorithm.name());
    }
    let h3_config =
        quiche::h3::Config::new().map_err(|e| format!("cannot create HTTP/3 config: {e}"))?;

    let authority = match first.port() {
        Some(p) => format!("{}:{p}", first.host_str().unwrap_or_default()),
        None => first.host_str().unwrap_or_default().to_string(),
    };
    let mut to_send: Vec<(String, String)> = urls
        .iter()
        .map(|u| {
            let mut path = u.path().to_string();
            if let Some(q) = u.query() {
                path = format!("{path}?{q}");
            }
            (u.to_string(), path)
        })
        .collect();
    for p in &args.raw_path {
        to_send.push((format!("https://{authority}{p}"), p.clone()));
    }

    let progress = !args.quiet && std::io::stderr().is_terminal();
    let start = Instant::now();
    // Both bounded to a day by their parsers: no overflow.
    let deadline = start + Duration::from_secs_f64(args.timeout_s);
    let connect_deadline = start + Duration::from_millis(args.connect_timeout_ms);
    let mut requests_sent_at: Option<Instant> = None;
    let mut last_body_at: Option<Instant> = None;
    let mut h3: Option<quiche::h3::Connection> = None;
    let mut requests: HashMap<u64, Request> = HashMap::new();
    let mut sender = PacedSender::new(!args.common.no_pacing);
    let mut next_send: Option<Instant> = None;
    let mut cwnd = CwndStats::default();
    let method = args.method.as_str();
    // A user-agent given with -H replaces the client's.
    let user_agent = if args.headers.iter().any(|h| h.name == "user-agent") {
        None
    } else {
        Some("quiche-vegas-h3-client")
    };
    let mut events = mio::Events::with_capacity(64);
    let mut buf = vec![0u8; 65535];
    let mut out = vec![0u8; MAX_DATAGRAM_BYTES];
    let mut body_buf = vec![0u8; 64 * 1024];
    let mut last_progress = start;
    // When every response is complete: the connection closes at
    // `done_at + --linger-ms`.
    let mut close_at: Option<Instant> = None;

    // The client speaks first: send the Initial before waiting.
    if let Flush::Failed(e) = sender.flush(&mut conn, &mut out, |d, to| socket.send_to(d, to)) {
        return Err(refused_or(peer, e));
    }
    loop {
        let mut wake = sending::earliest(conn.timeout_instant(), next_send);
        wake = sending::earliest(wake, Some(deadline));
        if !conn.is_established() {
            wake = sending::earliest(wake, Some(connect_deadline));
        }
        if progress {
            wake = sending::earliest(wake, Some(last_progress + Duration::from_millis(100)));
        }
        wake = sending::earliest(wake, close_at);
        common::wait(&mut poll, &mut events, wake).map_err(|e| format!("poll failed: {e}"))?;
        loop {
            match socket.recv_from(&mut buf) {
                Ok((len, from)) => {
                    let info = quiche::RecvInfo { from, to: local };
                    // Undecryptable or stray packets are dropped.
                    let _ = conn.recv(&mut buf[..len], info);
                }
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break,
                Err(e) => return Err(refused_or(peer, e)),
            }
        }
        let now = Instant::now();
        if conn.timeout_instant().is_some_and(|t| t <= now) {
            conn.on_timeout();
        }
        if conn.is_closed() {
            break;
        }
        if !conn.is_established() && now >= connect_deadline {
            return Err(format!(
                "no QUIC handshake with {peer} within {} ms: is the server running and reachable?",
                args.connect_timeout_ms
            ));
        }
        if now >= deadline && close_at.is_none() {
            return Err(format!(
                "responses not complete within {} s ({} of {} done)",
                args.timeout_s,
                requests.values().filter(|r| r.done).count(),
                to_send.len()
            ));
        }

        if conn.is_established() && h3.is_none() {
            if let (Some(ip), false) = (url_ip, args.insecure) {
                let der = conn.peer_cert().unwrap_or_default();
                if !cert_names_ip(der, ip) {
                    return Err(format!(
                        "the server certificate does not name {ip} (no iPAddress subjectAltName); \
                         use its host name in the URL, or --insecure (--no-verify)"
                    ));
                }
            }
            let mut h3_conn = quiche::h3::Connection::with_transport(&mut conn, &h3_config)
                .map_err(|e| format!("HTTP/3 setup failed: {e}"))?;
            let streams_allowed = conn.peer_streams_left_bidi();
            if to_send.len() as u64 > streams_allowed {
                return Err(format!(
                    "{} requests, but the server allows {streams_allowed} concurrent streams: \
                     fetch fewer URLs at once",
                    to_send.len()
                ));
            }
            for (index, (label, path)) in to_send.iter().enumerate() {
                let mut headers = vec![
                    quiche::h3::Header::new(b":method", method.as_bytes()),
                    quiche::h3::Header::new(b":scheme", b"https"),
                    quiche::h3::Header::new(b":authority", authority.as_bytes()),
                    quiche::h3::Header::new(b":path", path.as_bytes()),
                ];
                if let Some(agent) = user_agent {
                    headers.push(quiche::h3::Header::new(b"user-agent", agent.as_bytes()));
                }
                for h in &args.headers {
                    headers.push(quiche::h3::Header::new(
                        h.name.as_bytes(),
                        h.value.as_bytes(),
                    ));
                }
                if args.method.has_body() {
                    // RFC 9110 8.6: also when the body is empty.
                    headers.push(quiche::h3::Header::new(
                        b"content-length",
                        upload.len().to_string().as_bytes(),
                    ));
                }
                let stream_id = h3_conn
                    .send_request(&mut conn, &headers, upload.is_empty())
                    .map_err(|e| format!("cannot send request {label}: {e}"))?;
                let output = match &args.output_dir {
                    Some(dir) => Some(output_file(dir, path, index)?),
                    None => None,
                };
                requests.insert(
                    stream_id,
                    Request {
                        label: label.clone(),
                        status: None,
                        content_length_bytes: None,
                        body_bytes: 0,
                        output,
                        done: false,
                        failed: None,
                        upload_sent_bytes: (!upload.is_empty()).then_some(0),
                        upload_stopped: None,
                    },
                );
            }
            requests_sent_at = Some(Instant::now());
            h3 = Some(h3_conn);
        }

        if let Some(h3_conn) = h3.as_mut() {
            loop {
                match h3_conn.poll(&mut conn) {
                    Ok((stream_id, quiche::h3::Event::Headers { list, .. })) => {
                        if let Some(r) = requests.get_mut(&stream_id) {
                            for h in &list {
                                let value = String::from_utf8_lossy(h.value());
                                match h.name() {
                                    b":status" => r.status = value.parse().ok(),
                                    b"content-length" => {
                                        r.content_length_bytes = value.parse().ok()
                                    }
                                    _ => {}
                                }
                            }
                        }
                    }
                    Ok((stream_id, quiche::h3::Event::Data)) => {
                        while let Ok(n) = h3_conn.recv_body(&mut conn, stream_id, &mut body_buf) {
                            if let Some(r) = requests.get_mut(&stream_id) {
                                r.body_bytes += n as u64;
                                if let Some(f) = r.output.as_mut() {
                                    f.write_all(&body_buf[..n])
                                        .map_err(|e| format!("writing {}: {e}", r.label))?;
                                }
                            }
                            last_body_at = Some(Instant::now());
                        }
                    }
                    Ok((stream_id, quiche::h3::Event::Finished)) => {
                        if let Some(r) = requests.get_mut(&stream_id) {
                            r.done = true;
                        }
                    }
                    Ok((stream_id, quiche::h3::Event::Reset(code))) => {
                        if let Some(r) = requests.get_mut(&stream_id) {
                            r.done = true;
                            r.failed = Some(format!("stream reset by server (code {code:#x})"));
                        }
                    }
                    Ok(_) => {}
                    Err(quiche::h3::Error::Done) => break,
                    Err(e) => return Err(format!("HTTP/3 error: {e}")),
                }
            }
            if !upload.is_empty() {
                send_bodies(&mut conn, h3_conn, &mut requests, &upload);
            }
            if !requests.is_empty() && requests.values().all(|r| r.done) && !conn.is_draining() {
                let at = *close_at.get_or_insert(now + Duration::from_millis(args.linger_ms));
                if now >= at || now >= deadline {
                    let _ = conn.close(true, 0x100, b"done");
                }
            }
        }

        if progress && now.duration_since(last_progress) >= Duration::from_millis(100) {
            last_progress = now;
            draw_progress(&requests, requests_sent_at.map(|t| now.duration_since(t)));
        }
        cwnd.sample(&conn);
        next_send = match sender.flush(&mut conn, &mut out, |d, to| socket.send_to(d, to)) {
            Flush::Idle => None,
            Flush::HeldUntil(t) => Some(t),
            Flush::Failed(e) => return Err(refused_or(peer, e)),
        };
    }
    if progress {
        eprintln!();
    }

    let complete = !requests.is_empty() && requests.values().all(|r| r.done);
    if !complete {
        let why = match (conn.local_error(), conn.peer_error()) {
            (Some(e), _) | (None, Some(e)) => describe_close(e, args.insecure),
            (None, None) if conn.is_timed_out() => "idle timeout".to_string(),
            _ => "closed".to_string(),
        };
        return Err(format!(
            "connection to {peer} ended before the responses: {why}"
        ));
    }

    let mut ids: Vec<&u64> = requests.keys().collect();
    ids.sort();
    let mut all_ok = true;
    let mut total_bytes = 0;
    for id in ids {
        let r = &requests[id];
        total_bytes += r.body_bytes;
        let status = r.status.map_or("no status".to_string(), |s| s.to_string());
        let ok = r.failed.is_none() && r.status.is_some_and(|s| (200..300).contains(&s));
        // A response to HEAD has the content-length of the body a GET would
        // get, and no body.
        let length_note = match r.content_length_bytes {
            Some(n) if args.method == Method::Head => {
                format!(" (HEAD: content-length {n}, no body)")
            }
            Some(n) if n != r.body_bytes => format!(" (content-length {n}: truncated)"),
            _ => String::new(),
        };
        let truncated = length_note.ends_with("truncated)");
        all_ok &= ok && !truncated;
        let failed = r
            .failed
            .as_deref()
            .map(|f| format!(", {f}"))
            .unwrap_or_default();
        // The server may answer without reading the whole body (RFC 9114
        // 4.1); say so rather than leave it unsaid.
        let stopped = match (r.upload_sent_bytes, r.upload_stopped) {
            (Some(sent), Some(code)) => format!(
                ", {sent} of {} body bytes sent: the server stopped reading the body \
                 (code {code:#x})",
                upload.len()
            ),
            (Some(sent), None) => format!(
                ", {sent} of {} body bytes sent: the response came before the rest",
                upload.len()
            ),
            (None, _) => String::new(),
        };
        println!(
            "{method} {} -> {status}, {} bytes{length_note}{failed}{stopped}",
            r.label, r.body_bytes
        );
    }
    let transfer_s = match (requests_sent_at, last_body_at) {
        (Some(a), Some(b)) => b.duration_since(a).as_secs_f64(),
        _ => 0.0,
    };
    let own = SendSummary::of(&conn, spec.algorithm.name(), &cwnd);
    println!(
        "summary: {} request{}, {total_bytes} bytes in {transfer_s:.3} s (total {:.3} s), \
         goodput {:.2} Mbit/s",
        requests.len(),
        if requests.len() == 1 { "" } else { "s" },
        start.elapsed().as_secs_f64(),
        common::mbit_per_s(total_bytes, transfer_s),
    );
    println!(
        "download (server -> client): received {} packets ({} bytes); sent, paced and \
         congestion-controlled by the server (its figures: h3-server's `closed:` line)",
        own.recv_pkts, own.recv_bytes
    );
    let carried = if upload.is_empty() {
        "requests and ACKs"
    } else {
        "requests, request bodies and ACKs"
    };
    println!(
        "client -> server direction ({carried}; this client's own congestion control, \
         not the download's):"
    );
    println!("  {}", own.describe());
    Ok(all_ok)
}

/// Sends as much of every request's body as flow and congestion control
/// allow (about one window unsent in quiche, as the server does). A
/// request whose response is complete, or whose body the server stopped
/// reading (RFC 9114 4.1: it may answer without it), sends no more.
fn send_bodies(
    conn: &mut quiche::Connection,
    h3: &mut quiche::h3::Connection,
    requests: &mut HashMap<u64, Request>,
    upload: &[u8],
) {
    for (&stream_id, r) in requests.iter_mut() {
        let Some(mut sent) = r.upload_sent_bytes else {
            continue;
        };
        if r.done || r.upload_stopped.is_some() {
            continue;
        }
        loop {
            let budget = sending::send_budget_bytes(conn);
            if budget == 0 {
                break;
            }
            let rest = &upload[sent..];
            let chunk = &rest[..rest.len().min(budget)];
            let fin = chunk.len() == rest.len();
            match h3.send_body(conn, stream_id, chunk, fin) {
                Ok(n) => {
                    sent += n;
                    if n < chunk.len() {
                        break;
                    }
                    if fin {
                        r.upload_sent_bytes = None;
                        break;
                    }
                }
                Err(quiche::h3::Error::Done) | Err(quiche::h3::Error::StreamBlocked) => break,
                Err(quiche::h3::Error::TransportError(quiche::Error::StreamStopped(code))) => {
                    r.upload_stopped = Some(code);
                    break;
                }
                Err(e) => {
                    r.failed = Some(format!("sending the request body: {e}"));
                    r.upload_sent_bytes = None;
                    break;
                }
            }
        }
        if r.upload_sent_bytes.is_some() {
            r.upload_sent_bytes = Some(sent);
        }
    }
}

/// "Connection refused" in words, or the error as it is.
fn refused_or(peer: SocketAddr, e: std::io::Error) -> String {
    if e.kind() == std::io::ErrorKind::ConnectionRefused {
        format!("{peer} refused the connection: no server listens on that UDP port")
    } else {
        format!("talking to {peer}: {e}")
    }
}

/// Whether a DER certificate carries `ip` as an iPAddress subjectAltName:
/// the GeneralName `[7] IMPLICIT OCTET STRING` (tag 0x87, length 4 or 16,
/// the address bytes). A byte-level search: quiche exposes the peer
/// certificate only as DER, and the chain itself was verified by BoringSSL.
fn cert_names_ip(der: &[u8], ip: std::net::IpAddr) -> bool {
    let octets = match ip {
        std::net::IpAddr::V4(a) => a.octets().to_vec(),
        std::net::IpAddr::V6(a) => a.octets().to_vec(),
    };
    let mut needle = vec![0x87, octets.len() as u8];
    needle.extend_from_slice(&octets);
    der.windows(needle.len()).any(|w| w == needle.as_slice())
}

/// Says why a connection was closed, with a hint for TLS failures.
fn describe_close(e: &quiche::ConnectionError, insecure: bool) -> String {
    let reason = String::from_utf8_lossy(&e.reason);
    let mut text = format!(
        "{} error {:#x}{}",
        if e.is_app { "application" } else { "transport" },
        e.error_code,
        if reason.is_empty() {
            String::new()
        } else {
            format!(" ({reason})")
        }
    );
    // 0x100 + TLS alert: 42 bad_certificate, 45 expired, 46 unknown, 48 unknown_ca.
    if !e.is_app && (0x100..0x200).contains(&e.error_code) {
        text.push_str(&format!(", TLS alert {}", e.error_code - 0x100));
        if !insecure && [0x12a, 0x12d, 0x12e, 0x130].contains(&e.error_code) {
            text.push_str(
                ": the server certificate was not accepted; pass --ca FILE to trust its CA, \
                 or --insecure (--no-verify)",
            );
        }
    }
    text
}

fn draw_progress(requests: &HashMap<u64, Request>, elapsed: Option<Duration>) {
    let got: u64 = requests.values().map(|r| r.body_bytes).sum();
    let expected: Option<u64> = requests.values().map(|r| r.content_length_bytes).sum();
    let rate = common::mbit_per_s(got, elapsed.map_or(0.0, |d| d.as_secs_f64()));
    const WIDTH: usize = 30;
    let line = match expected {
        Some(total) if total > 0 => {
            let fraction = (got as f64 / total as f64).min(1.0);
            let filled = (fraction * WIDTH as f64) as usize;
            format!(
                "[{}{}] {:5.1}% {} / {} bytes, {rate:.2} Mbit/s",
                "=".repeat(filled),
                " ".repeat(WIDTH - filled),
                fraction * 100.0,
                got,
                total
            )
        }
        _ => format!("{got} bytes, {rate:.2} Mbit/s"),
    };
    eprint!("\r{line}   ");
}
