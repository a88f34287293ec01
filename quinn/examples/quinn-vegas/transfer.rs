//! What the quinn example and its tests share: endpoints with a chosen
//! congestion controller, and one transfer protocol: the client opens a
//! bidirectional stream, sends the number of bytes it wants (8 bytes, big
//! endian) and finishes; the server sends that many bytes and finishes.

#![allow(dead_code)]

use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;
use std::time::Instant;

use anyhow::Context;
use quinn::crypto::rustls::QuicClientConfig;
use quinn::rustls;
use quinn::rustls::pki_types::pem::PemObject;
use quinn::rustls::pki_types::CertificateDer;
use quinn::rustls::pki_types::PrivateKeyDer;
use quinn::rustls::pki_types::PrivatePkcs8KeyDer;
use quinn::TransportConfig;
use quinn_proto::congestion::ControllerFactory;
use quinn_vegas::vegas_cc::spec::Params;
use quinn_vegas::Records;
use quinn_vegas::VegasFactory;

pub const ALPN: &[u8] = b"vegas-transfer";

/// The most bytes one request may ask for (100 GB).
pub const MAX_REQUEST_BYTES: u64 = 100_000_000_000;

/// quinn's own controllers, offered next to vegas-cc's for comparison.
pub const QUINN_OWN: [&str; 2] = ["cubic", "bbr"];

/// Every name `--cc` takes.
pub fn cc_names() -> Vec<&'static str> {
    let mut names: Vec<&str> = quinn_vegas::vegas_cc::spec::NAMES.to_vec();
    names.extend(QUINN_OWN);
    names
}

/// The controller factory for `name`: vegas-cc's through `quinn-vegas`, or
/// quinn's own `cubic` / `bbr` (which take no parameters).
pub fn factory(
    name: &str,
    params: &Params,
    records: Option<Records>,
) -> anyhow::Result<Arc<dyn ControllerFactory + Send + Sync>> {
    match name {
        "cubic" | "bbr" if !params.is_empty() => {
            anyhow::bail!("--cc {name} is quinn's own and takes no --cc-param")
        }
        "cubic" => Ok(Arc::new(quinn_proto::congestion::CubicConfig::default())),
        "bbr" => Ok(Arc::new(quinn_proto::congestion::BbrConfig::default())),
        _ => {
            let mut f = VegasFactory::new(name, params)
                .map_err(|e| anyhow::anyhow!("{e} (quinn's own: {})", QUINN_OWN.join(", ")))?;
            if let Some(r) = records {
                f = f.with_records(r);
            }
            Ok(Arc::new(f))
        }
    }
}

pub fn transport(factory: Arc<dyn ControllerFactory + Send + Sync>) -> TransportConfig {
    let mut t = TransportConfig::default();
    t.congestion_controller_factory(factory);
    // Room for a bandwidth-delay product of 1 Gbit/s x 200 ms.
    t.stream_receive_window(quinn::VarInt::from_u32(32 << 20));
    t.receive_window(quinn::VarInt::from_u32(64 << 20));
    t.send_window(64 << 20);
    t.max_idle_timeout(Some(quinn::VarInt::from_u32(30_000).into()));
    t
}

/// A server config from PEM files, or from a fresh self-signed
/// certificate for `localhost` (returned so a client can trust it).
pub fn server_config(
    cert_key: Option<(&Path, &Path)>,
    transport: TransportConfig,
) -> anyhow::Result<(quinn::ServerConfig, Vec<CertificateDer<'static>>)> {
    let (chain, key) = match cert_key {
        Some((cert, key)) => {
            let chain = CertificateDer::pem_file_iter(cert)
                .with_context(|| format!("--cert {}", cert.display()))?
                .collect::<Result<Vec<_>, _>>()
                .with_context(|| format!("--cert {}", cert.display()))?;
            let key = PrivateKeyDer::from_pem_file(key)
                .with_context(|| format!("--key {}", key.display()))?;
            (chain, key)
        }
        None => {
            let generated = rcgen::generate_simple_self_signed(vec!["localhost".into()])?;
            let key = PrivatePkcs8KeyDer::from(generated.signing_key.serialize_der());
            (vec![CertificateDer::from(generated.cert)], key.into())
        }
    };
    let mut tls = rustls::ServerConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_protocol_versions(&[&rustls::version::TLS13])?
    .with_no_client_auth()
    .with_single_cert(chain.clone(), key)?;
    tls.alpn_protocols = vec![ALPN.to_vec()];
    tls.max_early_data_size = 0;
    let crypto = quinn::crypto::rustls::QuicServerConfig::try_from(tls)?;
    let mut config = quinn::ServerConfig::with_crypto(Arc::new(crypto));
    config.transport_config(Arc::new(transport));
    Ok((config, chain))
}

/// A client config trusting `roots` (DER certificates).
pub fn client_config(
    roots: &[CertificateDer<'static>],
    transport: TransportConfig,
) -> anyhow::Result<quinn::ClientConfig> {
    let mut store = rustls::RootCertStore::empty();
    for cert in roots {
        store.add(cert.clone())?;
    }
    let mut tls = rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_protocol_versions(&[&rustls::version::TLS13])?
    .with_root_certificates(store)
    .with_no_client_auth();
    tls.alpn_protocols = vec![ALPN.to_vec()];
    let crypto = QuicClientConfig::try_from(tls)?;
    let mut config = quinn::ClientConfig::new(Arc::new(crypto));
    config.transport_config(Arc::new(transport));
    Ok(config)
}

/// Roots from a PEM file (the CA of `cargo xtask certs`).
pub fn roots_from_pem(path: &Path) -> anyhow::Result<Vec<CertificateDer<'static>>> {
    CertificateDer::pem_file_iter(path)
        .with_context(|| format!("--ca {}", path.display()))?
        .collect::<Result<Vec<_>, _>>()
        .with_context(|| format!("--ca {}", path.display()))
}

/// What the server saw on one connection, at its close.
#[derive(Debug, Clone)]
pub struct ServerSummary {
    pub peer: SocketAddr,
    pub cc: String,
    pub bytes_sent: u64,
    pub cwnd_bytes: u64,
    pub lost_packets: u64,
    pub sent_packets: u64,
    pub rtt: Duration,
    pub duration: Duration,
}

impl std::fmt::Display for ServerSummary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "server->client {}: cc {}, {} bytes in {:.3} s ({:.2} Mbit/s), {} packets sent, \
             {} lost, final cwnd {} bytes, rtt {:.1} ms",
            self.peer,
            self.cc,
            self.bytes_sent,
            self.duration.as_secs_f64(),
            mbit_per_s(self.bytes_sent, self.duration),
            self.sent_packets,
            self.lost_packets,
            self.cwnd_bytes,
            self.rtt.as_secs_f64() * 1e3
        )
    }
}

pub fn mbit_per_s(bytes: u64, time: Duration) -> f64 {
    bytes as f64 * 8.0 / time.as_secs_f64().max(1e-9) / 1e6
}

/// Where decision records go: the factory's sink, and a folder for one
/// qlog per connection (`<port>-<id>-server.sqlog`).
#[derive(Clone)]
pub struct QlogOut {
    pub records: Records,
    pub dir: std::path::PathBuf,
}

/// Writes the qlog of the controller quinn runs on `conn` into `out.dir`;
/// returns its path, or None when the controller is not vegas-cc's.
pub fn write_connection_qlog(
    conn: &quinn::Connection,
    out: &QlogOut,
    role: &str,
) -> anyhow::Result<Option<std::path::PathBuf>> {
    let Ok(ours) = conn
        .congestion_state()
        .into_any()
        .downcast::<quinn_vegas::VegasController>()
    else {
        return Ok(None);
    };
    std::fs::create_dir_all(&out.dir).with_context(|| format!("{}", out.dir.display()))?;
    let path = out.dir.join(format!(
        "{}-{}-{role}.sqlog",
        conn.remote_address().port(),
        ours.id()
    ));
    let file = std::fs::File::create(&path).with_context(|| format!("{}", path.display()))?;
    let log = out
        .records
        .lock()
        .map_err(|_| anyhow::anyhow!("records lock"))?;
    quinn_vegas::write_qlog(
        Box::new(std::io::BufWriter::new(file)),
        &log,
        ours.id(),
        &format!("quinn-vegas {role} {}", ours.controller().name()),
        role == "server",
    )?;
    Ok(Some(path))
}

/// Serves one connection: every stream asks for a number of bytes.
pub async fn serve_connection(
    incoming: quinn::Incoming,
    cc: String,
    qlog: Option<QlogOut>,
) -> anyhow::Result<ServerSummary> {
    let conn = incoming.await?;
    let start = Instant::now();
    let peer = conn.remote_address();
    let mut bytes_sent = 0;
    loop {
        let (mut send, mut recv) = match conn.accept_bi().await {
            Ok(s) => s,
            Err(quinn::ConnectionError::ApplicationClosed(_)) => break,
            Err(e) => return Err(e.into()),
        };
        let request = recv.read_to_end(8).await?;
        let want = u64::from_be_bytes(
            request
                .as_slice()
                .try_into()
                .map_err(|_| anyhow::anyhow!("a request is 8 bytes"))?,
        );
        anyhow::ensure!(want <= MAX_REQUEST_BYTES, "request of {want} bytes");
        let chunk = vec![0x5a_u8; 64 * 1024];
        let mut left = want;
        while left > 0 {
            let n = left.min(chunk.len() as u64) as usize;
            send.write_all(&chunk[..n]).await?;
            left -= n as u64;
        }
        send.finish()?;
        let _ = send.stopped().await;
        bytes_sent += want;
    }
    if let Some(out) = &qlog {
        write_connection_qlog(&conn, out, "server")?;
    }
    let stats = conn.stats();
    Ok(ServerSummary {
        peer,
        cc,
        bytes_sent,
        cwnd_bytes: stats.path.cwnd,
        lost_packets: stats.path.lost_packets,
        sent_packets: stats.path.sent_packets,
        rtt: stats.path.rtt,
        duration: start.elapsed(),
    })
}

/// What the client measured.
#[derive(Debug, Clone)]
pub struct ClientResult {
    pub bytes: u64,
    /// From sending the request to the last byte.
    pub transfer: Duration,
}

/// Asks `conn` for `bytes` and reads them.
pub async fn fetch(conn: &quinn::Connection, bytes: u64) -> anyhow::Result<ClientResult> {
    let start = Instant::now();
    let (mut send, mut recv) = conn.open_bi().await?;
    send.write_all(&bytes.to_be_bytes()).await?;
    send.finish()?;
    let mut got = 0u64;
    let mut buf = vec![0u8; 64 * 1024];
    while let Some(n) = recv.read(&mut buf).await? {
        got += n as u64;
    }
    anyhow::ensure!(got == bytes, "received {got} of {bytes} bytes");
    Ok(ClientResult {
        bytes: got,
        transfer: start.elapsed(),
    })
}
