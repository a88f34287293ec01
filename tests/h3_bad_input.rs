//! Bad input to the HTTP/3 examples: every bad flag value of `h3-client`
//! and `h3-server` is a clear error (non-zero exit, the flag and the value
//! named, no panic), and the server answers malformed requests (RFC 9114
//! 4.1.2, 4.3.1) with 400 while serving the connection's other streams.
//!
//! Requests are sent by a small in-process quiche HTTP/3 client: h3-client
//! only sends well-formed header lists.

mod support;

// Only `check` is used here.
#[allow(dead_code)]
#[path = "../examples/common/request.rs"]
mod request;

use std::net::SocketAddr;
use std::net::UdpSocket;
use std::path::PathBuf;
use std::process::Command;
use std::process::Stdio;
use std::time::Duration;
use std::time::Instant;

use quiche::h3::Header;
use quiche::h3::NameValue;
use support::*;

/// A run of `binary` with `args` that must fail, with `needles` in stderr.
struct BadCase {
    binary: &'static str,
    args: Vec<String>,
    /// Texts stderr must contain: the flag and the bad value as shown.
    needles: Vec<String>,
}

fn manifest_path(rel: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join(rel)
        .display()
        .to_string()
}

/// A file of `len_bytes` (sparse: no disk used) in a directory removed on
/// drop.
fn sparse_file(len_bytes: u64) -> (TempDir, String) {
    let dir = TempDir::new("sparse");
    let path = dir.0.join("big.bin");
    std::fs::File::create(&path)
        .unwrap()
        .set_len(len_bytes)
        .unwrap();
    let shown = path.display().to_string();
    (dir, shown)
}

/// Client cases: `flag value` before a URL nobody listens on (every case
/// must fail before any packet is sent). Files the cases use are kept in
/// `keep` until the cases have run.
fn client_cases(keep: &mut Vec<TempDir>) -> Vec<BadCase> {
    let not_a_file = manifest_path("Cargo.toml");
    let a_dir = manifest_path("examples/certs");
    let long_path = format!("/{}", "a".repeat(8192));
    let long_header = format!("x-long: {}", "v".repeat(8192));
    // 64 MiB + 1: one byte over --body's limit.
    let (big_dir, too_big) = sparse_file((64 << 20) + 1);
    keep.push(big_dir);
    let flag_cases: Vec<(&str, String, &str)> = vec![
        ("--timeout-s", "1e30".into(), "1e30"),
        ("--timeout-s", "NaN".into(), "NaN"),
        ("--timeout-s", "inf".into(), "inf"),
        ("--timeout-s", "-1".into(), "-1"),
        ("--timeout-s", "0".into(), "'0'"),
        ("--timeout-s", "86401".into(), "86401"),
        ("--timeout-s", "soon".into(), "soon"),
        ("--connect-timeout-ms", "0".into(), "'0'"),
        ("--connect-timeout-ms", "-5".into(), "-5"),
        ("--connect-timeout-ms", "1.5".into(), "1.5"),
        ("--connect-timeout-ms", "86400001".into(), "86400001"),
        (
            "--connect-timeout-ms",
            "18446744073709551616".into(),
            "18446744073709551616",
        ),
        ("--idle-timeout-ms", "0".into(), "'0'"),
        ("--idle-timeout-ms", "86400001".into(), "86400001"),
        ("--max-data", "0".into(), "'0'"),
        ("--max-data", "1".into(), "'1'"),
        ("--max-data", "1073741825".into(), "1073741825"),
        ("--max-data", "-1".into(), "-1"),
        ("--max-stream-data", "99999999999".into(), "99999999999"),
        ("--max-streams-bidi", "0".into(), "'0'"),
        ("--max-streams-bidi", "10001".into(), "10001"),
        ("--socket-buffer-kb", "-1".into(), "-1"),
        ("--socket-buffer-kb", "1048577".into(), "1048577"),
        ("--socket-buffer-kb", "4k".into(), "4k"),
        ("--raw-path", String::new(), "0 bytes"),
        ("--raw-path", long_path, "8193 bytes"),
        ("--ca", "/nonexistent/ca.pem".into(), "/nonexistent/ca.pem"),
        ("--ca", a_dir.clone(), &a_dir),
        ("--ca", not_a_file.clone(), &not_a_file),
        ("--output-dir", not_a_file.clone(), &not_a_file),
        ("--qlog-dir", not_a_file.clone(), &not_a_file),
        ("--cc", "vegass".into(), "vegass"),
        ("--cc-param", "alpha=-1".into(), "-1"),
        ("--cc-param", "alpha=NaN".into(), "NaN"),
        ("--cc-param", "pacing_gain=inf".into(), "inf"),
        (
            "--cc-param",
            "initial_cwnd_pkts=1".into(),
            "initial_cwnd_pkts",
        ),
        ("--cc-param", "no_such_key=1".into(), "no_such_key"),
        ("--cc-param", "alpha".into(), "alpha"),
        // quiche-client's names of our flags: the same checks.
        ("--cc-algorithm", "vegass".into(), "vegass"),
        ("--cc-algorithm", "bbr3".into(), "bbr3"),
        ("--idle-timeout", "0".into(), "'0'"),
        ("--idle-timeout", "-1".into(), "-1"),
        (
            "--trust-origin-ca-pem",
            "/nonexistent/ca.pem".into(),
            "/nonexistent/ca.pem",
        ),
        ("--trust-origin-ca-pem", not_a_file.clone(), &not_a_file),
        ("--dump-responses", not_a_file.clone(), &not_a_file),
        // -H/--header: "name: value", a token name, no pseudo-headers, no
        // fields the client sets or HTTP/3 forbids, bounded.
        ("-H", ":path: /x".into(), ":path: /x"),
        ("-H", ":method: POST".into(), "pseudo-header"),
        ("-H", "no colon".into(), "no colon"),
        ("-H", "".into(), "no `:`"),
        ("-H", ": value".into(), "pseudo-header"),
        ("-H", " : value".into(), "pseudo-header"),
        ("-H", "bad name: 1".into(), "\"bad name\""),
        ("-H", "x(y): 1".into(), "not an HTTP token"),
        ("-H", "caf\u{e9}: 1".into(), "not an HTTP token"),
        ("-H", "x-a: b\u{1}c".into(), "control character"),
        ("-H", "host: example.com".into(), "host"),
        ("-H", "Content-Length: 5".into(), "content-length"),
        ("-H", "connection: close".into(), "connection-specific"),
        (
            "-H",
            "Transfer-Encoding: chunked".into(),
            "connection-specific",
        ),
        ("-H", "te: gzip".into(), "te"),
        ("-H", long_header, "8200 bytes"),
        ("--header", "no colon".into(), "no colon"),
        // --method: the listed methods, upper case.
        ("--method", "get".into(), "get"),
        ("--method", "PATCH".into(), "PATCH"),
        ("--method", "".into(), "possible values"),
        // --body: a readable regular file of at most 64 MiB.
        (
            "--body",
            "/nonexistent/body.bin".into(),
            "/nonexistent/body.bin",
        ),
        ("--body", a_dir.clone(), &a_dir),
        ("--body", too_big.clone(), "67108865 bytes"),
        // --connect-to: HOST:PORT.
        ("--connect-to", "nonsense".into(), "nonsense"),
        ("--connect-to", "127.0.0.1".into(), "HOST:PORT"),
        ("--connect-to", "127.0.0.1:0".into(), "port 0"),
        ("--connect-to", "127.0.0.1:99999".into(), "127.0.0.1:99999"),
        ("--connect-to", "[::1]".into(), "[::1]"),
        ("--connect-to", ":4433".into(), ":4433"),
        ("--connect-to", "a b:4433".into(), "a b:4433"),
        (
            "--connect-to",
            "no-such-host.invalid:4433".into(),
            "cannot resolve",
        ),
    ];
    let url = "https://127.0.0.1:9/a.txt".to_string();
    let mut cases: Vec<BadCase> = flag_cases
        .into_iter()
        .map(|(flag, value, shown)| {
            // --ca conflicts with --insecure; the others are checked first.
            let mut args = if flag == "--ca" || flag == "--trust-origin-ca-pem" {
                vec![]
            } else {
                vec!["--insecure".to_string()]
            };
            args.extend([flag.to_string(), value, url.clone()]);
            BadCase {
                binary: "h3-client",
                args,
                needles: vec![flag.to_string(), shown.to_string()],
            }
        })
        .collect();
    for bad_url in ["http://127.0.0.1:9/", "https://127.0.0.1:0/", "no url"] {
        cases.push(BadCase {
            binary: "h3-client",
            args: vec!["--insecure".into(), bad_url.into()],
            needles: vec!["URL".into(), bad_url.into()],
        });
    }
    // Flags that are wrong together.
    let client = |args: Vec<String>, needles: &[&str]| BadCase {
        binary: "h3-client",
        args,
        needles: needles.iter().map(|n| n.to_string()).collect(),
    };
    let body = manifest_path("Cargo.toml");
    for method in ["GET", "HEAD", "DELETE", "OPTIONS"] {
        cases.push(client(
            vec![
                "--insecure".into(),
                "--method".into(),
                method.into(),
                "--body".into(),
                body.clone(),
                url.clone(),
            ],
            &["--body", "POST or PUT", method],
        ));
    }
    // --body without --method: GET.
    cases.push(client(
        vec!["--insecure".into(), "--body".into(), body, url.clone()],
        &["--body", "POST or PUT", "GET"],
    ));
    // 65 headers; 3 of 7000 bytes (more than 16384 in all).
    let mut many = vec!["--insecure".to_string()];
    for i in 0..65 {
        many.extend(["-H".to_string(), format!("x-h{i}: {i}")]);
    }
    many.push(url.clone());
    cases.push(client(many, &["65 -H/--header", "at most 64"]));
    let mut large = vec!["--insecure".to_string()];
    for i in 0..3 {
        large.extend(["-H".to_string(), format!("x-h{i}: {}", "v".repeat(7000))]);
    }
    large.push(url.clone());
    cases.push(client(large, &["-H/--header", "16384"]));
    // --ca and its alias against --insecure and its alias.
    let ca = certs().join("ca.pem").display().to_string();
    cases.push(client(
        vec![
            "--trust-origin-ca-pem".into(),
            ca,
            "--no-verify".into(),
            url.clone(),
        ],
        &["--ca", "--insecure", "cannot be used with"],
    ));
    cases
}

/// Server cases: `flag value` with everything else valid (port 0, the
/// test certificates, the manifest directory as root).
fn server_cases() -> Vec<BadCase> {
    let not_a_file = manifest_path("Cargo.toml");
    let a_dir = manifest_path("examples/certs");
    let flag_cases: Vec<(&str, String, &str)> = vec![
        ("--max-connections", "0".into(), "'0'"),
        ("--max-connections", "100001".into(), "100001"),
        ("--max-connections", "-1".into(), "-1"),
        ("--idle-timeout-ms", "0".into(), "'0'"),
        ("--idle-timeout-ms", "1e9".into(), "1e9"),
        ("--max-data", "1".into(), "'1'"),
        ("--max-stream-data", "NaN".into(), "NaN"),
        ("--max-streams-bidi", "0".into(), "'0'"),
        ("--listen", "nonsense".into(), "nonsense"),
        ("--listen", "127.0.0.1:99999".into(), "127.0.0.1:99999"),
        ("--root", "/nonexistent/www".into(), "/nonexistent/www"),
        ("--root", not_a_file.clone(), &not_a_file),
        (
            "--cert",
            "/nonexistent/cert.pem".into(),
            "/nonexistent/cert.pem",
        ),
        ("--cert", a_dir.clone(), &a_dir),
        ("--cert", not_a_file.clone(), &not_a_file),
        (
            "--key",
            "/nonexistent/key.pem".into(),
            "/nonexistent/key.pem",
        ),
        ("--key", not_a_file.clone(), &not_a_file),
        ("--qlog-dir", not_a_file.clone(), &not_a_file),
        ("--cc", "cubicc".into(), "cubicc"),
        ("--cc-param", "beta=0".into(), "beta"),
        // quiche-server's names of our flags: the same checks.
        ("--cc-algorithm", "cubicc".into(), "cubicc"),
        ("--idle-timeout", "0".into(), "'0'"),
        ("--idle-timeout", "86400001".into(), "86400001"),
        // -q and -v together.
        ("--quiet", "--verbose".into(), "cannot be used with"),
    ];
    flag_cases
        .into_iter()
        .map(|(flag, value, shown)| {
            let defaults = [
                ("--root", env!("CARGO_MANIFEST_DIR").to_string()),
                ("--cert", certs().join("cert.pem").display().to_string()),
                ("--key", certs().join("key.pem").display().to_string()),
                ("--listen", "127.0.0.1:0".to_string()),
            ];
            let mut args: Vec<String> = defaults
                .into_iter()
                .filter(|(name, _)| *name != flag)
                .flat_map(|(name, v)| [name.to_string(), v])
                .collect();
            args.extend([flag.to_string(), value]);
            BadCase {
                binary: "h3-server",
                args,
                needles: vec![flag.to_string(), shown.to_string()],
            }
        })
        .collect()
}

#[test]
fn every_bad_flag_is_a_clear_error_not_a_panic() {
    let mut failures = Vec::new();
    let mut keep = Vec::new();
    for case in client_cases(&mut keep).into_iter().chain(server_cases()) {
        let mut cmd = Command::new(example(case.binary));
        cmd.args(&case.args);
        let out = run_bounded(cmd, Duration::from_secs(20));
        let stderr = text(&out.stderr);
        let code = out.status.code();
        let shown_args: Vec<String> = case
            .args
            .iter()
            .map(|a| {
                if a.len() > 60 {
                    format!("{}...", &a[..60])
                } else {
                    a.clone()
                }
            })
            .collect();
        let mut problems = Vec::new();
        if out.status.success() {
            problems.push("exit status 0".to_string());
        }
        if code == Some(101) || code.is_none() || stderr.contains("panicked") {
            problems.push(format!("panicked or killed ({:?})", out.status));
        }
        for needle in &case.needles {
            if !stderr.contains(needle.as_str()) {
                problems.push(format!("stderr does not name {needle:?}"));
            }
        }
        if !problems.is_empty() {
            failures.push(format!(
                "{} {shown_args:?}: {}\n  stderr: {}",
                case.binary,
                problems.join(", "),
                stderr.trim()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn help_texts_give_the_bounds() {
    for (binary, bounds) in [
        (
            "h3-client",
            &["86400000", "86400", "8192", "1073741824", "10000"][..],
        ),
        ("h3-server", &["100000", "86400000", "16384"][..]),
    ] {
        let mut cmd = Command::new(example(binary));
        cmd.arg("--help");
        let out = run_bounded(cmd, Duration::from_secs(20));
        let help = text(&out.stdout);
        assert!(out.status.success(), "{binary} --help: {help}");
        for bound in bounds {
            assert!(
                help.contains(bound),
                "{binary} --help lacks {bound}:\n{help}"
            );
        }
    }
}

/// quiche-apps' flag names are visible aliases: `--help` shows them beside
/// ours.
#[test]
fn help_texts_show_quiche_apps_names() {
    for (binary, shown) in [
        (
            "h3-client",
            &[
                "[alias: --no-verify]",
                "[alias: --trust-origin-ca-pem]",
                "[alias: --dump-responses]",
                "[alias: --cc-algorithm]",
                "[alias: --idle-timeout]",
                "[alias: --disable-pacing]",
                "--method <METHOD>",
                "--body <FILE>",
                "-H, --header <NAME: VALUE>",
                "--connect-to <HOST:PORT>",
                "67108864",
            ][..],
        ),
        (
            "h3-server",
            &[
                "[alias: --cc-algorithm]",
                "[alias: --idle-timeout]",
                "[alias: --disable-pacing]",
                "-q, --quiet",
            ][..],
        ),
    ] {
        let mut cmd = Command::new(example(binary));
        cmd.arg("--help");
        let out = run_bounded(cmd, Duration::from_secs(20));
        let help = text(&out.stdout);
        assert!(out.status.success(), "{binary} --help: {help}");
        for s in shown {
            assert!(help.contains(s), "{binary} --help lacks {s}:\n{help}");
        }
    }
}

// ---------------------------------------------------------------------------
// Malformed requests over the wire.

/// What came back on one request stream.
#[derive(Debug, Default)]
struct Reply {
    status: Option<u16>,
    body: Vec<u8>,
    finished: bool,
    reset: Option<u64>,
}

/// A request's fields as (name, value) text.
type Fields = Vec<(String, String)>;

fn header_list(fields: &[(&str, &str)]) -> Vec<Header> {
    fields
        .iter()
        .map(|(n, v)| Header::new(n.as_bytes(), v.as_bytes()))
        .collect()
}

/// Sends every header list as a request (no body) on one QUIC connection
/// to the server on `port`; returns the replies in the same order, or the
/// peer's error if it closed the connection. Fails the test if neither
/// happens within 20 s.
fn exchange(port: u16, requests: &[Vec<Header>]) -> Result<Vec<Reply>, quiche::ConnectionError> {
    let socket = UdpSocket::bind("127.0.0.1:0").unwrap();
    let local = socket.local_addr().unwrap();
    let peer: SocketAddr = ([127, 0, 0, 1], port).into();
    let mut config = quiche::Config::new(quiche::PROTOCOL_VERSION).unwrap();
    config
        .set_application_protos(quiche::h3::APPLICATION_PROTOCOL)
        .unwrap();
    config.verify_peer(true);
    config
        .load_verify_locations_from_file(certs().join("ca.pem").to_str().unwrap())
        .unwrap();
    config.set_max_idle_timeout(10_000);
    config.set_max_recv_udp_payload_size(1350);
    config.set_max_send_udp_payload_size(1350);
    config.set_initial_max_data(10_000_000);
    config.set_initial_max_stream_data_bidi_local(1_000_000);
    config.set_initial_max_stream_data_bidi_remote(1_000_000);
    config.set_initial_max_stream_data_uni(1_000_000);
    config.set_initial_max_streams_bidi(100);
    config.set_initial_max_streams_uni(100);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    let scid_bytes: Vec<u8> = nanos
        .to_le_bytes()
        .iter()
        .copied()
        .cycle()
        .take(20)
        .collect();
    let scid = quiche::ConnectionId::from_ref(&scid_bytes);
    let mut conn = quiche::connect(Some("localhost"), &scid, local, peer, &mut config).unwrap();
    let h3_config = quiche::h3::Config::new().unwrap();
    let mut h3: Option<quiche::h3::Connection> = None;
    let mut replies: Vec<Reply> = requests.iter().map(|_| Reply::default()).collect();
    let mut stream_index = std::collections::HashMap::new();
    let mut buf = vec![0u8; 65535];
    let mut out = vec![0u8; 1350];
    let mut body = vec![0u8; 65535];
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        assert!(
            Instant::now() < deadline,
            "replies not complete within 20 s: {replies:?}"
        );
        loop {
            match conn.send(&mut out) {
                Ok((len, info)) => {
                    socket.send_to(&out[..len], info.to).unwrap();
                }
                Err(quiche::Error::Done) => break,
                Err(e) => panic!("send: {e}"),
            }
        }
        let wait = conn
            .timeout()
            .unwrap_or(Duration::from_millis(10))
            .clamp(Duration::from_millis(1), Duration::from_millis(10));
        socket.set_read_timeout(Some(wait)).unwrap();
        match socket.recv_from(&mut buf) {
            Ok((len, from)) => {
                let _ = conn.recv(&mut buf[..len], quiche::RecvInfo { from, to: local });
            }
            // A signal (another test's server exiting) interrupts the
            // wait: wait again.
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock
                        | std::io::ErrorKind::TimedOut
                        | std::io::ErrorKind::Interrupted
                ) => {}
            Err(e) => panic!("recv: {e}"),
        }
        conn.on_timeout();
        if let Some(e) = conn.peer_error() {
            return Err(e.clone());
        }
        assert!(
            !conn.is_closed(),
            "connection closed: local {:?}",
            conn.local_error()
        );
        if conn.is_established() && h3.is_none() {
            let mut h3_conn =
                quiche::h3::Connection::with_transport(&mut conn, &h3_config).unwrap();
            for (i, headers) in requests.iter().enumerate() {
                let id = h3_conn.send_request(&mut conn, headers, true).unwrap();
                stream_index.insert(id, i);
            }
            h3 = Some(h3_conn);
        }
        let Some(h3_conn) = h3.as_mut() else {
            continue;
        };
        loop {
            match h3_conn.poll(&mut conn) {
                Ok((id, quiche::h3::Event::Headers { list, .. })) => {
                    let r = &mut replies[stream_index[&id]];
                    r.status = list
                        .iter()
                        .find(|h| h.name() == b":status")
                        .and_then(|h| std::str::from_utf8(h.value()).ok()?.parse().ok());
                }
                Ok((id, quiche::h3::Event::Data)) => {
                    while let Ok(n) = h3_conn.recv_body(&mut conn, id, &mut body) {
                        replies[stream_index[&id]]
                            .body
                            .extend_from_slice(&body[..n]);
                    }
                }
                Ok((id, quiche::h3::Event::Finished)) => replies[stream_index[&id]].finished = true,
                Ok((id, quiche::h3::Event::Reset(code))) => {
                    replies[stream_index[&id]].reset = Some(code)
                }
                Ok(_) => {}
                Err(quiche::h3::Error::Done) => break,
                Err(e) => panic!("HTTP/3 error: {e}"),
            }
        }
        if replies.iter().all(|r| r.finished || r.reset.is_some()) {
            let _ = conn.close(true, 0x100, b"done");
            let _ = conn
                .send(&mut out)
                .map(|(len, info)| socket.send_to(&out[..len], info.to));
            return Ok(replies);
        }
    }
}

#[test]
fn malformed_requests_get_400_and_the_connection_goes_on() {
    let dir = TempDir::new("malformed");
    let root = dir.0.join("root");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::write(root.join("a.txt"), b"file a\n").unwrap();
    std::fs::write(dir.0.join("secret.txt"), b"must not be served\n").unwrap();
    let mut server = start_server(&root, &["--cc", "vegas"], Stdio::null());

    let authority = format!("127.0.0.1:{}", server.port);
    let base = |path: &str| -> Fields {
        vec![
            (":method".into(), "GET".into()),
            (":scheme".into(), "https".into()),
            (":authority".into(), authority.clone()),
            (":path".into(), path.into()),
        ]
    };
    let with = |mut fields: Fields, extra: &[(&str, &str)]| {
        fields.extend(extra.iter().map(|(n, v)| (n.to_string(), v.to_string())));
        fields
    };
    let without = |fields: Fields, name: &str| -> Fields {
        fields.into_iter().filter(|(n, _)| n != name).collect()
    };
    let long_path = format!("/{}", "a".repeat(5000));
    // (what, fields, expected status, text the body must contain)
    let cases: Vec<(&str, Fields, u16, &str)> = vec![
        (
            "duplicate :path",
            with(base("/a.txt"), &[(":path", "/a.txt")]),
            400,
            "duplicate pseudo-header :path",
        ),
        (
            "duplicate :method",
            {
                let mut f = base("/a.txt");
                f.insert(1, (":method".into(), "GET".into()));
                f
            },
            400,
            "duplicate pseudo-header :method",
        ),
        (
            "missing :method",
            without(base("/a.txt"), ":method"),
            400,
            "missing :method",
        ),
        (
            "missing :scheme",
            without(base("/a.txt"), ":scheme"),
            400,
            "missing :scheme",
        ),
        (
            "missing :path",
            without(base("/a.txt"), ":path"),
            400,
            "missing :path",
        ),
        ("empty :path", base(""), 400, "empty :path"),
        (
            "unknown pseudo-header",
            with(base("/a.txt"), &[(":foo", "bar")]),
            400,
            "unknown request pseudo-header :foo",
        ),
        (
            ":status in a request",
            with(base("/a.txt"), &[(":status", "200")]),
            400,
            ":status",
        ),
        (
            "pseudo-header after a regular field",
            {
                let mut f = without(base("/a.txt"), ":path");
                f.push(("user-agent".into(), "test".into()));
                f.push((":path".into(), "/a.txt".into()));
                f
            },
            400,
            "after a regular field",
        ),
        (
            "connection-specific field",
            with(base("/a.txt"), &[("connection", "close")]),
            400,
            "connection-specific",
        ),
        (
            "NUL in a value",
            with(base("/a.txt"), &[("x-test", "a\0b")]),
            400,
            "NUL",
        ),
        (
            "CONNECT with :path",
            {
                let mut f = base("/a.txt");
                f[0].1 = "CONNECT".into();
                f
            },
            400,
            "CONNECT",
        ),
        (
            "no authority",
            without(base("/a.txt"), ":authority"),
            400,
            ":authority",
        ),
        ("path traversal", base("/../secret.txt"), 400, ".."),
        ("encoded traversal", base("/%2e%2e/secret.txt"), 400, ".."),
        ("long path", base(&long_path), 400, "too long"),
        (
            "POST (well formed, not served)",
            {
                let mut f = base("/a.txt");
                f[0].1 = "POST".into();
                f
            },
            405,
            "only GET and HEAD",
        ),
        ("well formed", base("/a.txt"), 200, "file a"),
        (
            "well formed, host equals :authority",
            with(base("/a.txt"), &[("host", &authority)]),
            200,
            "file a",
        ),
    ];
    let requests: Vec<Vec<Header>> = cases
        .iter()
        .map(|(_, fields, _, _)| {
            let pairs: Vec<(&str, &str)> = fields
                .iter()
                .map(|(n, v)| (n.as_str(), v.as_str()))
                .collect();
            header_list(&pairs)
        })
        .collect();
    let replies = exchange(server.port, &requests).expect("no connection error");
    let mut failures = Vec::new();
    for ((what, _, status, needle), reply) in cases.iter().zip(&replies) {
        let body = text(&reply.body);
        if reply.status != Some(*status) || !body.contains(needle) || !reply.finished {
            failures.push(format!(
                "{what}: want {status} with {needle:?}, got {reply:?} ({body:?})"
            ));
        }
        assert!(!body.contains("must not be served"), "{what}");
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));

    // A field section beyond quiche's limit (32 KiB decoded): quiche closes
    // that connection with H3_EXCESSIVE_LOAD. 1000 `accept: */*` fields
    // (a static-table entry, 41 bytes each as the limit counts) fit in the
    // client's initial window encoded, which a long path would not.
    let mut many = vec![
        (":method", "GET"),
        (":scheme", "https"),
        (":authority", authority.as_str()),
        (":path", "/a.txt"),
    ];
    many.extend(std::iter::repeat_n(("accept", "*/*"), 1000));
    match exchange(server.port, &[header_list(&many)]) {
        Err(e) => assert_eq!(e.error_code, 0x107, "{e:?}"),
        Ok(r) => panic!("a 41 kB field section was answered: {:?}", r[0].status),
    }

    // The server is still there and serves a new connection.
    assert!(server.is_alive(), "h3-server exited");
    let again = exchange(
        server.port,
        &[header_list(&[
            (":method", "GET"),
            (":scheme", "https"),
            (":authority", &authority),
            (":path", "/a.txt"),
        ])],
    );
    let again = again.expect("no connection error");
    assert_eq!(again[0].status, Some(200));
    assert_eq!(again[0].body, b"file a\n");
}

/// The request checks that an HTTP/3 client library will not let us send
/// (quiche lower-cases field names), without the network.
#[test]
fn request_checks_without_the_network() {
    let ok = [
        (":method", "GET"),
        (":scheme", "https"),
        (":authority", "localhost"),
        (":path", "/a.txt"),
    ];
    let head_of = |fields: &[(&str, &str)]| {
        let list = header_list(fields);
        request::check(&list).map(|h| (h.method.to_vec(), h.path.map(<[u8]>::to_vec)))
    };
    assert_eq!(
        head_of(&ok),
        Ok((b"GET".to_vec(), Some(b"/a.txt".to_vec())))
    );
    let with = |extra: (&'static str, &'static str)| {
        let mut f = ok.to_vec();
        f.push(extra);
        f
    };
    for (fields, why) in [
        (with(("User-Agent", "x")), "lowercase"),
        (with(("", "x")), "empty field name"),
        (with(("bad name", "x")), "lowercase token"),
        (with(("te", "gzip")), "te"),
        (with(("te", "trailers")), ""),
        (with(("host", "other")), "differ"),
        (with(("host", "localhost")), ""),
        (with(("x-a", "line\r\nbreak")), "CR or LF"),
        (
            with(("transfer-encoding", "chunked")),
            "connection-specific",
        ),
        (
            vec![(":method", "CONNECT"), (":authority", "localhost:443")],
            "",
        ),
        (vec![(":method", "CONNECT")], "without :authority"),
        (
            vec![(":method", ""), (":scheme", "https"), (":path", "/")],
            "empty :method",
        ),
        (
            vec![(":method", "GET"), (":scheme", "https"), (":path", "/")],
            "neither",
        ),
        (
            vec![
                (":method", "GET"),
                (":scheme", "https"),
                (":path", "/"),
                ("host", "localhost"),
            ],
            "",
        ),
        (
            vec![(":method", "GET"), (":scheme", "ftp"), (":path", "/")],
            "",
        ),
    ] {
        let got = head_of(&fields);
        if why.is_empty() {
            assert!(got.is_ok(), "{fields:?}: {got:?}");
        } else {
            let err = got.expect_err(why);
            assert!(err.contains(why), "{fields:?}: {err}");
        }
    }
}
