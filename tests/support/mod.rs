//! Helpers the HTTP/3 example tests share (`h3_examples`, `h3_bad_input`,
//! `load`, and the lab's `real_time_base` and `reproduce`): temp directories, the example binaries, a running h3-server,
//! bounded client runs. Binaries come from `target/<profile>/examples`,
//! built with `--all-features` when missing or older than the example
//! sources; every child is bounded in time and killed on drop.

#![allow(dead_code)]

use std::io::BufRead;
use std::io::BufReader;
use std::path::Path;
use std::path::PathBuf;
use std::process::Child;
use std::process::Command;
use std::process::Output;
use std::process::Stdio;
use std::sync::atomic::AtomicUsize;
use std::sync::atomic::Ordering;
use std::sync::mpsc;
use std::sync::OnceLock;
use std::time::Duration;
use std::time::Instant;
use std::time::SystemTime;

static DIR_COUNTER: AtomicUsize = AtomicUsize::new(0);

/// A fresh, empty directory under the system's temp dir, removed on drop.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> TempDir {
        let n = DIR_COUNTER.fetch_add(1, Ordering::SeqCst);
        let dir = std::env::temp_dir().join(format!("h3-test-{tag}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The repository's root: the folder of the root package, whose
/// `examples/` these helpers run, for the tests of the root package and of
/// `lab/` alike.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .find(|dir| dir.join("examples/h3-server.rs").is_file())
        .expect("the repository's examples/ above this package")
        .to_path_buf()
}

/// The newest modification time of example `name`'s own sources
/// (`examples/NAME.rs` and `examples/common/`).
fn newest_source(name: &str) -> Option<SystemTime> {
    let dir = repo_root().join("examples");
    let mut files = vec![dir.join(format!("{name}.rs"))];
    for entry in std::fs::read_dir(dir.join("common")).ok()?.flatten() {
        files.push(entry.path());
    }
    files
        .iter()
        .map(|f| std::fs::metadata(f).and_then(|m| m.modified()).ok())
        .max()
        .flatten()
}

/// `target/<profile>/examples/NAME`, built once per test process (with the
/// `--all-features` of `cargo xtask test`, so that no library is rebuilt
/// with other features) when missing or older than its sources.
pub fn example(name: &str) -> PathBuf {
    static BUILT: OnceLock<()> = OnceLock::new();
    let exe = std::env::current_exe().unwrap();
    // target/<profile>/deps/<test>-<hash>
    let profile_dir = exe.parent().unwrap().parent().unwrap().to_path_buf();
    let path = |n: &str| profile_dir.join("examples").join(n);
    BUILT.get_or_init(|| {
        let fresh = |n: &str| {
            let built = std::fs::metadata(path(n)).and_then(|m| m.modified()).ok();
            built.is_some() && built >= newest_source(n)
        };
        if fresh("h3-server") && fresh("h3-client") {
            return;
        }
        let mut cargo = Command::new(env!("CARGO"));
        cargo
            .current_dir(repo_root())
            .args(["build", "--quiet", "--all-features", "-p", "quiche-vegas"])
            .args(["--example", "h3-server", "--example", "h3-client"]);
        if profile_dir.ends_with("release") {
            cargo.arg("--release");
        }
        let status = cargo.status().expect("cargo runs");
        assert!(status.success(), "building the examples failed");
    });
    path(name)
}

pub fn certs() -> PathBuf {
    repo_root().join("examples/certs")
}

/// `--ca examples/certs/ca.pem`.
pub fn ca_args() -> Vec<String> {
    vec!["--ca".into(), certs().join("ca.pem").display().to_string()]
}

/// A running h3-server, killed on drop.
pub struct Server {
    pub child: Child,
    pub port: u16,
}

impl Server {
    /// Whether the process is still running.
    pub fn is_alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts h3-server on a loopback port the system picks, with `extra`
/// flags; its stderr goes to `stderr`.
pub fn start_server(root: &Path, extra: &[&str], stderr: Stdio) -> Server {
    let mut child = Command::new(example("h3-server"))
        .args(["--listen", "127.0.0.1:0", "--root"])
        .arg(root)
        .arg("--cert")
        .arg(certs().join("cert.pem"))
        .arg("--key")
        .arg(certs().join("key.pem"))
        .args(extra)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(stderr)
        .spawn()
        .expect("h3-server starts");
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let _ = BufReader::new(stdout).read_line(&mut line);
        let _ = tx.send(line);
    });
    let line = rx
        .recv_timeout(Duration::from_secs(20))
        .expect("h3-server prints `listening on` within 20 s");
    let port = line
        .split_whitespace()
        .nth(2)
        .and_then(|a| a.rsplit(':').next())
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("no port in {line:?}"));
    Server { child, port }
}

/// Runs `cmd` to its end with stdout and stderr captured; killed (and the
/// test failed) after `limit`.
pub fn run_bounded(mut cmd: Command, limit: Duration) -> Output {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the program starts");
    // Read both pipes on threads: a full pipe would block the child.
    let mut stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let out = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = std::io::Read::read_to_end(&mut stdout, &mut v);
        v
    });
    let err = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = std::io::Read::read_to_end(&mut stderr, &mut v);
        v
    });
    let deadline = Instant::now() + limit;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{cmd:?} did not finish within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    Output {
        status,
        stdout: out.join().unwrap(),
        stderr: err.join().unwrap(),
    }
}

pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// `len` bytes of a fixed pseudo-random sequence (xorshift64*, seeded by
/// `seed`): a body whose every byte a transfer must get right.
pub fn pseudo_random_bytes(len: usize, seed: u64) -> Vec<u8> {
    let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let mut out = Vec::with_capacity(len + 8);
    while out.len() < len {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        out.extend_from_slice(&state.wrapping_mul(0x2545_f491_4f6c_dd1d).to_le_bytes());
    }
    out.truncate(len);
    out
}
