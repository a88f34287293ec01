//! The HTTP/3 examples: request-path resolution (no escape from the root),
//! and end to end over loopback: `h3-server` on a port the system picks,
//! `h3-client` fetching from it.
//!
//! The example binaries are built by `cargo test` (all targets); when this
//! test is run alone (`--test h3_examples`) it builds them itself with the
//! same profile. Every child process is bounded in time and killed on drop.

use std::path::Path;
use std::path::PathBuf;
use std::process::Command;
use std::process::Output;
use std::process::Stdio;
use std::time::Duration;
use std::time::Instant;

mod support;

use support::ca_args;
use support::certs;
use support::example;
use support::run_bounded;
use support::text;
use support::Server;
use support::TempDir;

#[path = "../examples/common/paths.rs"]
mod paths;

use paths::Target;

fn get(root: &Path, path: &str) -> Target {
    paths::resolve(root, Some(b"GET"), Some(path.as_bytes()))
}

fn status(t: &Target) -> u16 {
    match t {
        Target::File(_) | Target::Synthetic { .. } => 200,
        Target::Error { status, .. } => *status,
    }
}

/// A root with `a.txt`, `sub/b.txt`, `sub/index.html`, and a `secret.txt`
/// beside (outside) the root.
fn site() -> (TempDir, PathBuf) {
    let dir = TempDir::new("site");
    let root = dir.0.join("root");
    std::fs::create_dir_all(root.join("sub")).unwrap();
    std::fs::write(root.join("a.txt"), b"file a\n").unwrap();
    std::fs::write(root.join("sub/b.txt"), b"file b\n").unwrap();
    std::fs::write(root.join("sub/index.html"), b"<p>index</p>\n").unwrap();
    std::fs::write(dir.0.join("secret.txt"), b"must not be served\n").unwrap();
    (dir, root)
}

#[test]
fn files_under_the_root_are_served() {
    let (_dir, root) = site();
    let canonical = root.canonicalize().unwrap();
    assert_eq!(get(&root, "/a.txt"), Target::File(canonical.join("a.txt")));
    assert_eq!(
        get(&root, "/sub/b.txt"),
        Target::File(canonical.join("sub/b.txt"))
    );
    assert_eq!(
        get(&root, "/sub/"),
        Target::File(canonical.join("sub/index.html"))
    );
    // `.`, empty segments, a query and percent-encoded letters are fine.
    assert_eq!(
        get(&root, "/./sub//%62.txt?x=../../secret.txt#frag"),
        Target::File(canonical.join("sub/b.txt"))
    );
    assert_eq!(status(&get(&root, "/missing.txt")), 404);
    assert_eq!(status(&get(&root, "/")), 404, "no index.html at the root");
}

#[test]
fn no_request_escapes_the_root() {
    let (_dir, root) = site();
    let attempts = [
        "/../secret.txt",
        "/sub/../../secret.txt",
        "/%2e%2e/secret.txt",
        "/%2E%2E/secret.txt",
        "/.%2e/secret.txt",
        "/%2e./secret.txt",
        "/sub/..%2fsecret.txt",
        "/..%2F..%2Fsecret.txt",
        "/..%5csecret.txt",
        "/..\\secret.txt",
        "/a.txt%00.html",
        "/%252e%252e/secret.txt",
        "/%",
        "/%2",
        "/%zz",
        "/%ff%fe",
        "/C:/Windows",
        "secret.txt",
        "../secret.txt",
        "",
    ];
    for path in attempts {
        let target = get(&root, path);
        let code = status(&target);
        assert!(
            code == 400 || code == 404,
            "{path:?} gave {target:?}, want 400 or 404"
        );
    }
    // Double-encoded dots are a literal file name `%2e%2e`, not a parent.
    assert_eq!(status(&get(&root, "/%252e%252e/secret.txt")), 404);
    // An absolute path in the request is looked up *under* the root.
    let abs = root.parent().unwrap().join("secret.txt");
    let t = get(&root, &format!("/{}", abs.display()));
    assert_eq!(status(&t), 404, "{t:?}");
}

#[cfg(unix)]
#[test]
fn symbolic_links_out_of_the_root_are_not_followed() {
    let (dir, root) = site();
    std::os::unix::fs::symlink(dir.0.join("secret.txt"), root.join("link.txt")).unwrap();
    std::os::unix::fs::symlink(&dir.0, root.join("up")).unwrap();
    assert_eq!(status(&get(&root, "/link.txt")), 404);
    assert_eq!(status(&get(&root, "/up/secret.txt")), 404);
    // A link that stays inside is fine.
    std::os::unix::fs::symlink(root.join("a.txt"), root.join("alias.txt")).unwrap();
    assert_eq!(status(&get(&root, "/alias.txt")), 200);
}

#[test]
fn synthetic_bytes_and_methods() {
    let (_dir, root) = site();
    assert_eq!(
        get(&root, "/bytes/12345"),
        Target::Synthetic { len_bytes: 12345 }
    );
    assert_eq!(get(&root, "/bytes/0"), Target::Synthetic { len_bytes: 0 });
    for bad in ["/bytes/-1", "/bytes/1e3", "/bytes/99999999999999999999"] {
        assert_eq!(status(&get(&root, bad)), 400, "{bad}");
    }
    let too_big = format!("/bytes/{}", paths::MAX_SYNTHETIC_BYTES + 1);
    assert_eq!(status(&get(&root, &too_big)), 400);
    let post = paths::resolve(&root, Some(b"POST"), Some(b"/a.txt"));
    assert_eq!(status(&post), 405);
    assert_eq!(status(&paths::resolve(&root, None, Some(b"/a.txt"))), 400);
    assert_eq!(status(&paths::resolve(&root, Some(b"GET"), None)), 400);
    let long = format!("/{}", "a".repeat(paths::MAX_PATH_BYTES));
    assert_eq!(status(&get(&root, &long)), 400);
}

// ---------------------------------------------------------------------------
// End to end.

/// Runs h3-client with `args`, killed after 60 s.
fn client(args: &[String]) -> Output {
    let mut cmd = Command::new(example("h3-client"));
    cmd.args([
        "--quiet",
        "--connect-timeout-ms",
        "3000",
        "--timeout-s",
        "50",
    ])
    .args(args);
    run_bounded(cmd, Duration::from_secs(60))
}

fn start_server(root: &Path, extra: &[&str]) -> Server {
    support::start_server(root, extra, Stdio::null())
}

#[test]
fn client_fetches_files_and_bytes_from_server() {
    let (_dir, root) = site();
    let server = start_server(&root, &["--cc", "vegas"]);
    let out_dir = TempDir::new("out");
    let qlog_dir = TempDir::new("qlog");
    let base = format!("https://localhost:{}", server.port);
    let mut args = ca_args();
    args.extend([
        "--output-dir".into(),
        out_dir.0.display().to_string(),
        "--qlog-dir".into(),
        qlog_dir.0.display().to_string(),
        "--cc".into(),
        "gallop-vegas".into(),
        "--cc-param".into(),
        "alpha=2".into(),
        format!("{base}/a.txt"),
        format!("{base}/bytes/3000000"),
    ]);
    let out = client(&args);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", text(&out.stderr));
    assert!(stdout.contains("/a.txt -> 200, 7 bytes"), "{stdout}");
    assert!(
        stdout.contains("/bytes/3000000 -> 200, 3000000 bytes"),
        "{stdout}"
    );
    assert!(stdout.contains("3000007 bytes"), "{stdout}");
    assert!(stdout.contains("cc gallop-vegas"), "{stdout}");
    assert_eq!(std::fs::read(out_dir.0.join("a.txt")).unwrap(), b"file a\n");
    let body = std::fs::read(out_dir.0.join("3000000")).unwrap();
    assert_eq!(body.len(), 3_000_000);
    assert!(
        body.iter().enumerate().all(|(i, &b)| b == (i % 251) as u8),
        "synthetic body has the documented pattern"
    );
    let qlogs: Vec<_> = std::fs::read_dir(&qlog_dir.0)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    assert_eq!(qlogs.len(), 1, "one client qlog: {qlogs:?}");
    let qlog = std::fs::read_to_string(&qlogs[0]).unwrap();
    assert!(qlog.contains("gallop-vegas"), "qlog names the algorithm");
}

/// Both examples size their UDP socket buffers; a request above the
/// kernel's maximum still transfers, and says which sysctl to raise.
#[test]
fn a_socket_buffer_above_the_kernels_maximum_warns_and_still_transfers() {
    let (_dir, root) = site();
    let server = start_server(&root, &["--socket-buffer-kb", "1048576"]);
    let mut args = ca_args();
    args.extend([
        "--socket-buffer-kb".into(),
        "1048576".into(),
        format!("https://localhost:{}/a.txt", server.port),
    ]);
    let out = client(&args);
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains("/a.txt -> 200, 7 bytes"), "{stdout}");
    let rmem_max: Option<u64> = std::fs::read_to_string("/proc/sys/net/core/rmem_max")
        .ok()
        .and_then(|t| t.trim().parse().ok());
    if rmem_max.is_some_and(|max| max < 1 << 30) {
        assert!(
            stderr.contains(
                "warning: --socket-buffer-kb 1048576: the kernel granted a receive buffer of"
            ) && stderr.contains("sysctl -w net.core.rmem_max="),
            "{stderr}"
        );
    }
}

#[test]
fn hostile_paths_get_errors_over_the_wire() {
    let (_dir, root) = site();
    let server = start_server(&root, &[]);
    let base = format!("https://127.0.0.1:{}", server.port);
    let mut args = ca_args();
    args.push(format!("{base}/a.txt"));
    for p in [
        "/../secret.txt",
        "/%2e%2e/secret.txt",
        "/..%2fsecret.txt",
        "/bytes/x",
    ] {
        args.push("--raw-path".into());
        args.push(p.into());
    }
    let out = client(&args);
    let stdout = text(&out.stdout);
    // Exit 3: some response was not 2xx.
    assert_eq!(out.status.code(), Some(3), "{stdout}{}", text(&out.stderr));
    assert!(stdout.contains("/a.txt -> 200"), "{stdout}");
    for p in [
        "/../secret.txt",
        "/%2e%2e/secret.txt",
        "/..%2fsecret.txt",
        "/bytes/x",
    ] {
        assert!(stdout.contains(&format!("{p} -> 400")), "{p}: {stdout}");
    }
    assert!(!stdout.contains("must not be served"));
}

#[test]
fn several_clients_at_once() {
    let (_dir, root) = site();
    let server = start_server(&root, &["--cc", "vegas-a"]);
    let url = format!("https://localhost:{}/bytes/1000000", server.port);
    let handles: Vec<_> = (0..4)
        .map(|_| {
            let mut args = ca_args();
            args.push(url.clone());
            std::thread::spawn(move || client(&args))
        })
        .collect();
    for h in handles {
        let out = h.join().unwrap();
        let stdout = text(&out.stdout);
        assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
        assert!(stdout.contains("-> 200, 1000000 bytes"), "{stdout}");
    }
}

#[test]
fn clear_errors_for_bad_certificates_ports_and_flags() {
    let (_dir, root) = site();
    let server = start_server(&root, &["--no-retry"]);
    let url = format!("https://localhost:{}/a.txt", server.port);

    // No --ca: the test CA is not trusted.
    let out = client(std::slice::from_ref(&url));
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr.contains("--ca FILE"), "{stderr}");

    // --insecure works, explicitly.
    let out = client(&["--insecure".into(), url.clone()]);
    assert!(out.status.success(), "{}", text(&out.stderr));

    // Nothing listens on the port.
    let closed = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    let closed_port = closed.local_addr().unwrap().port();
    drop(closed);
    let out = client(&[
        "--insecure".into(),
        format!("https://127.0.0.1:{closed_port}/"),
    ]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr.contains("refused") || stderr.contains("no QUIC handshake"),
        "{stderr}"
    );

    // Bad flags name the flag.
    let out = client(&["--cc".into(), "vegass".into(), url.clone()]);
    assert!(text(&out.stderr).contains("vegass"));
    let out = client(&["--cc-param".into(), "alpha=-1".into(), url.clone()]);
    assert!(text(&out.stderr).contains("alpha"));
    let out = client(&["http://localhost/".into()]);
    assert!(text(&out.stderr).contains("https"));

    // The server: a busy port and an unreadable certificate.
    let busy = Command::new(example("h3-server"))
        .args(["--listen", &format!("127.0.0.1:{}", server.port)])
        .arg("--cert")
        .arg(certs().join("cert.pem"))
        .arg("--key")
        .arg(certs().join("key.pem"))
        .output()
        .unwrap();
    assert!(!busy.status.success());
    assert!(
        text(&busy.stderr).contains("cannot listen"),
        "{}",
        text(&busy.stderr)
    );
    let no_cert = Command::new(example("h3-server"))
        .args(["--listen", "127.0.0.1:0", "--cert", "/nonexistent/cert.pem"])
        .output()
        .unwrap();
    assert!(!no_cert.status.success());
    assert!(text(&no_cert.stderr).contains("--cert"));
}

#[test]
fn sigterm_closes_open_connections_and_writes_whole_qlogs() {
    let (_dir, root) = site();
    let qlog_dir = TempDir::new("qlog-term");
    let qlog_arg = qlog_dir.0.display().to_string();
    let mut server = start_server(&root, &["--cc", "vegas", "--qlog-dir", &qlog_arg]);
    // A download too long to finish (1 GiB): the connection is open when
    // the signal comes.
    let mut fetch = Command::new(example("h3-client"))
        .args(["--quiet", "--timeout-s", "50"])
        .args(ca_args())
        .arg(format!(
            "https://localhost:{}/bytes/{}",
            server.port,
            paths::MAX_SYNTHETIC_BYTES
        ))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("h3-client starts");
    let deadline = Instant::now() + Duration::from_secs(20);
    let qlog_grows = || {
        std::fs::read_dir(&qlog_dir.0)
            .unwrap()
            .flatten()
            .any(|e| e.metadata().map(|m| m.len() > 100_000).unwrap_or(false))
    };
    while !qlog_grows() {
        assert!(Instant::now() < deadline, "no transfer within 20 s");
        std::thread::sleep(Duration::from_millis(20));
    }
    let kill = Command::new("kill")
        .args(["-TERM", &server.child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    let deadline = Instant::now() + Duration::from_secs(10);
    let status = loop {
        if let Some(status) = server.child.try_wait().unwrap() {
            break status;
        }
        assert!(
            Instant::now() < deadline,
            "h3-server still running 10 s after SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(status.success(), "{status}");
    // The client hears the close (H3_NO_ERROR) and stops.
    let deadline = Instant::now() + Duration::from_secs(10);
    while fetch.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = fetch.kill();
            panic!("h3-client still running 10 s after the server closed");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    // The server's qlog is whole: every record parses, the last one says
    // the connection closed.
    let qlogs: Vec<_> = std::fs::read_dir(&qlog_dir.0)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("server")
        })
        .collect();
    assert_eq!(qlogs.len(), 1, "{qlogs:?}");
    let text = std::fs::read_to_string(&qlogs[0]).unwrap();
    let records: Vec<serde_json::Value> = text
        .split('\u{1e}')
        .map(str::trim)
        .filter(|r| !r.is_empty())
        .map(|r| serde_json::from_str(r).unwrap_or_else(|e| panic!("{e}: {r:.200}")))
        .collect();
    let closed = records
        .iter()
        .rev()
        .take(20)
        .any(|r| r["name"] == "quic:connection_closed");
    assert!(
        closed,
        "no connection_closed near the end of the server qlog"
    );
}

// ---------------------------------------------------------------------------
// quiche-apps' flag names, methods, headers, --connect-to, the summaries.

/// Starts h3-server with `extra` flags, its stderr into a file of `dir`;
/// returns the server and the log's path.
fn start_logged_server(root: &Path, dir: &TempDir, extra: &[&str]) -> (Server, PathBuf) {
    let log = dir.0.join("server.err");
    let file = std::fs::File::create(&log).unwrap();
    (support::start_server(root, extra, Stdio::from(file)), log)
}

/// Waits (at most 10 s) until the server log at `log` has `lines` lines
/// with ` closed: `; returns them.
fn close_lines(log: &Path, lines: usize) -> Vec<String> {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let text = std::fs::read_to_string(log).unwrap_or_default();
        let found: Vec<String> = text
            .lines()
            .filter(|l| l.contains(" closed: "))
            .map(str::to_string)
            .collect();
        if found.len() >= lines {
            return found;
        }
        assert!(
            Instant::now() < deadline,
            "{} of {lines} `closed:` lines within 10 s; log:\n{text}",
            found.len()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The lines of the client's summary block: the `summary:` line, the
/// download line, the client -> server heading and its figures.
fn summary_block(stdout: &str) -> (String, String, String, String) {
    let lines: Vec<&str> = stdout.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.starts_with("summary: "))
        .unwrap_or_else(|| panic!("no summary line: {stdout}"));
    assert!(lines.len() >= at + 4, "summary block too short: {stdout}");
    (
        lines[at].to_string(),
        lines[at + 1].to_string(),
        lines[at + 2].to_string(),
        lines[at + 3].to_string(),
    )
}

#[test]
fn a_transfer_with_only_quiche_apps_flag_names() {
    let (_dir, root) = site();
    let logs = TempDir::new("apps-names-log");
    let server_qlogs = TempDir::new("apps-names-server-qlog");
    let server_qlog_arg = server_qlogs.0.display().to_string();
    // The server, with quiche-server's names too.
    let (server, log) = start_logged_server(
        &root,
        &logs,
        &[
            "--cc-algorithm",
            "vegas-a",
            "--disable-pacing",
            "--idle-timeout",
            "5000",
            "--qlog-dir",
            &server_qlog_arg,
        ],
    );
    let dump = TempDir::new("apps-names-dump");
    let client_qlogs = TempDir::new("apps-names-client-qlog");
    let base = format!("https://localhost:{}", server.port);
    let mut cmd = Command::new(example("h3-client"));
    cmd.env("QLOGDIR", &client_qlogs.0)
        .args(["--cc-algorithm", "cubic", "--no-verify", "--dump-responses"])
        .arg(&dump.0)
        .args(["--disable-pacing", "--idle-timeout", "5000"])
        .arg(format!("{base}/a.txt"))
        .arg(format!("{base}/bytes/200000"));
    let out = run_bounded(cmd, Duration::from_secs(60));
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", text(&out.stderr));
    assert!(stdout.contains("/a.txt -> 200, 7 bytes"), "{stdout}");
    assert!(
        stdout.contains("/bytes/200000 -> 200, 200000 bytes"),
        "{stdout}"
    );
    // --dump-responses saved the bodies.
    assert_eq!(std::fs::read(dump.0.join("a.txt")).unwrap(), b"file a\n");
    let body = std::fs::read(dump.0.join("200000")).unwrap();
    assert_eq!(body.len(), 200_000);
    assert!(body.iter().enumerate().all(|(i, &b)| b == (i % 251) as u8));
    // --cc-algorithm cubic is the client's controller: its own direction
    // says so, and so does its qlog (QLOGDIR, as quiche-client).
    let (_, _, heading, figures) = summary_block(&stdout);
    assert!(
        heading.starts_with("client -> server direction"),
        "{stdout}"
    );
    assert!(figures.trim_start().starts_with("cc cubic,"), "{stdout}");
    let qlogs: Vec<PathBuf> = std::fs::read_dir(&client_qlogs.0)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    assert_eq!(qlogs.len(), 1, "{qlogs:?}");
    let qlog = std::fs::read_to_string(&qlogs[0]).unwrap();
    assert!(qlog.contains("h3-client cc=cubic"), "{:.400}", qlog);
    // The server's --cc-algorithm vegas-a drove the download: vegas-cc's
    // decision records are in its qlog, and its close line names it.
    let line = &close_lines(&log, 1)[0];
    assert!(line.contains("cc vegas-a,"), "{line}");
    let server_qlog: String = std::fs::read_dir(&server_qlogs.0)
        .unwrap()
        .flatten()
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .collect();
    assert!(
        server_qlog.contains("\"vegas:"),
        "no vegas:* events in the server's qlog"
    );
}

#[test]
fn head_gets_headers_and_no_body() {
    let (_dir, root) = site();
    let server = start_server(&root, &[]);
    let dump = TempDir::new("head-dump");
    let base = format!("https://localhost:{}", server.port);
    let mut args = ca_args();
    args.extend([
        "--method".into(),
        "HEAD".into(),
        "--output-dir".into(),
        dump.0.display().to_string(),
        format!("{base}/a.txt"),
        format!("{base}/bytes/50000"),
    ]);
    let out = client(&args);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", text(&out.stderr));
    assert!(
        stdout.contains("HEAD https://localhost:")
            && stdout.contains("/a.txt -> 200, 0 bytes (HEAD: content-length 7, no body)"),
        "{stdout}"
    );
    assert!(
        stdout.contains("/bytes/50000 -> 200, 0 bytes (HEAD: content-length 50000, no body)"),
        "{stdout}"
    );
    assert!(!stdout.contains("truncated"), "{stdout}");
    assert_eq!(std::fs::read(dump.0.join("a.txt")).unwrap(), b"");
    assert_eq!(std::fs::read(dump.0.join("50000")).unwrap(), b"");
}

#[test]
fn extra_headers_are_sent_lower_cased() {
    let (_dir, root) = site();
    let server = start_server(&root, &[]);
    let qlog_dir = TempDir::new("headers-qlog");
    let mut args = ca_args();
    args.extend([
        "--qlog-dir".into(),
        qlog_dir.0.display().to_string(),
        "-H".into(),
        "x-test: 1".into(),
        "-H".into(),
        "X-Other:two words ".into(),
        "--header".into(),
        "User-Agent: h3-examples-test".into(),
        format!("https://localhost:{}/a.txt", server.port),
    ]);
    let out = client(&args);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", text(&out.stderr));
    assert!(stdout.contains("GET https://localhost:"), "{stdout}");
    assert!(stdout.contains("/a.txt -> 200, 7 bytes"), "{stdout}");
    // The request as the client's qlog recorded it (quiche's http3 frame
    // events list the fields handed to it): names in lower case, values
    // without the surrounding blanks, our user-agent replaced.
    let qlog: String = std::fs::read_dir(&qlog_dir.0)
        .unwrap()
        .flatten()
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .collect();
    for field in [
        r#"{"name":":method","value":"GET"}"#,
        r#"{"name":"x-test","value":"1"}"#,
        r#"{"name":"x-other","value":"two words"}"#,
        r#"{"name":"user-agent","value":"h3-examples-test"}"#,
    ] {
        assert!(qlog.contains(field), "{field} not in the client's qlog");
    }
    assert!(!qlog.contains("quiche-vegas-h3-client"), "two user-agents");
}

#[test]
fn a_request_body_does_not_break_the_connection() {
    let (_dir, root) = site();
    let logs = TempDir::new("body-log");
    let (mut server, log) = start_logged_server(&root, &logs, &["--verbose"]);
    let upload = TempDir::new("body");
    let big = upload.0.join("big.bin");
    std::fs::write(&big, support::pseudo_random_bytes(3_000_000, 7)).unwrap();
    let empty = upload.0.join("empty.bin");
    std::fs::write(&empty, b"").unwrap();
    let base = format!("https://localhost:{}", server.port);
    // POST with a 3 MB body to two URLs, PUT with an empty one: 405 each
    // (a file server changes nothing), exit status 3, no HTTP/3 error.
    for (method, body) in [("POST", &big), ("PUT", &empty)] {
        let mut args = ca_args();
        args.extend(["--method".into(), method.into(), "--body".into()]);
        args.push(body.display().to_string());
        args.push(format!("{base}/a.txt"));
        args.push(format!("{base}/bytes/10"));
        let out = client(&args);
        let stdout = text(&out.stdout);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(3), "{method}: {stdout}\n{stderr}");
        assert!(
            stdout.contains(&format!("{method} {base}/a.txt -> 405")),
            "{stdout}"
        );
        assert!(
            stdout.contains(&format!("{method} {base}/bytes/10 -> 405")),
            "{stdout}"
        );
        assert!(stdout.contains("summary: 2 requests"), "{stdout}");
        assert!(
            stdout.contains("request bodies") == (method == "POST"),
            "{stdout}"
        );
        assert!(!stderr.contains("error"), "{stderr}");
    }
    // DELETE and OPTIONS: 405 as well.
    for method in ["DELETE", "OPTIONS"] {
        let mut args = ca_args();
        args.extend(["--method".into(), method.into(), format!("{base}/a.txt")]);
        let out = client(&args);
        let stdout = text(&out.stdout);
        assert_eq!(out.status.code(), Some(3), "{stdout}{}", text(&out.stderr));
        assert!(
            stdout.contains(&format!("{method} {base}/a.txt -> 405")),
            "{stdout}"
        );
    }
    // The server is still there and serves a GET; every connection closed
    // cleanly (the client's NO_ERROR close).
    assert!(server.is_alive(), "h3-server exited");
    let mut args = ca_args();
    args.push(format!("{base}/a.txt"));
    let out = client(&args);
    assert!(out.status.success(), "{}", text(&out.stderr));
    for line in close_lines(&log, 5) {
        assert!(
            line.contains("closed by the peer, application error 0x100 (done)"),
            "{line}"
        );
    }
    let log_text = std::fs::read_to_string(&log).unwrap();
    assert!(log_text.contains("POST /a.txt -> 405"), "{log_text}");
}

#[test]
fn connect_to_sends_elsewhere_and_keeps_the_url_host() {
    let (_dir, root) = site();
    let server = start_server(&root, &[]);
    let to = format!("127.0.0.1:{}", server.port);
    // A host name that never resolves (RFC 6761 .invalid); no certificate
    // names it, hence --no-verify.
    let out = client(&[
        "--connect-to".into(),
        to.clone(),
        "--no-verify".into(),
        "https://localhost.invalid/a.txt".into(),
    ]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", text(&out.stderr));
    assert!(
        stdout.contains("GET https://localhost.invalid/a.txt -> 200, 7 bytes"),
        "{stdout}"
    );
    // The certificate is still checked against the URL's host (SNI
    // `localhost`), whatever the port the URL names.
    let mut args = ca_args();
    args.extend([
        "--connect-to".into(),
        to,
        "https://localhost:9/sub/b.txt".into(),
    ]);
    let out = client(&args);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", text(&out.stderr));
    assert!(stdout.contains("/sub/b.txt -> 200, 7 bytes"), "{stdout}");
    // Without --connect-to the name does not resolve: a clear error.
    let out = client(&[
        "--no-verify".into(),
        "https://localhost.invalid/a.txt".into(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("cannot resolve localhost.invalid"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn summaries_say_whose_direction_they_describe() {
    let (_dir, root) = site();
    let logs = TempDir::new("summary-log");
    let (server, log) = start_logged_server(&root, &logs, &["--cc", "cubic"]);
    let mut args = ca_args();
    args.extend([
        "--cc".into(),
        "vegas".into(),
        format!("https://localhost:{}/bytes/2000000", server.port),
    ]);
    let out = client(&args);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", text(&out.stderr));
    let (summary, download, heading, figures) = summary_block(&stdout);
    // The download's figures are not the client's: no cc on the summary
    // line, the download line sends the reader to the server.
    assert!(summary.contains("2000000 bytes"), "{summary}");
    assert!(summary.contains("goodput "), "{summary}");
    assert!(!summary.contains("cc "), "{summary}");
    assert!(
        download.starts_with("download (server -> client)")
            && download.contains("congestion-controlled by the server"),
        "{download}"
    );
    assert!(
        heading.starts_with("client -> server direction (requests and ACKs"),
        "{heading}"
    );
    for needle in [
        "cc vegas,",
        "cwnd final ",
        "sent ",
        "lost ",
        "retransmitted ",
        "rtt smoothed ",
    ] {
        assert!(figures.contains(needle), "{needle}: {figures}");
    }
    // The server's own line, once the connection is gone: its controller
    // and figures for the download.
    let lines = close_lines(&log, 1);
    assert_eq!(lines.len(), 1, "{lines:?}");
    let line = &lines[0];
    for needle in [
        "closed: peer 127.0.0.1:",
        "duration ",
        "server -> client direction (responses): cc cubic,",
        "cwnd final ",
        "lost ",
        "retransmitted ",
        "rtt smoothed ",
        ", min ",
    ] {
        assert!(line.contains(needle), "{needle}: {line}");
    }
    // Its bytes sent cover the 2 MB body.
    let sent_bytes: u64 = line
        .split("packets (")
        .nth(1)
        .and_then(|s| s.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no sent bytes in {line}"));
    assert!(sent_bytes >= 2_000_000, "{line}");

    // --quiet: no such line.
    let quiet_logs = TempDir::new("summary-quiet-log");
    let (quiet, quiet_log) = start_logged_server(&root, &quiet_logs, &["--quiet"]);
    let mut args = ca_args();
    args.push(format!("https://localhost:{}/a.txt", quiet.port));
    let out = client(&args);
    assert!(out.status.success(), "{}", text(&out.stderr));
    std::thread::sleep(Duration::from_millis(500));
    drop(quiet);
    let text = std::fs::read_to_string(&quiet_log).unwrap();
    assert!(!text.contains(" closed: "), "{text}");
}
