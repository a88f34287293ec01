//! The vegas-cc controllers on quinn: a server, a client, or both in one
//! process over loopback, each direction's controller chosen with `--cc`.
//!
//! ```sh
//! cargo run --release -p quinn-vegas --example quinn-vegas -- local --cc vegas --bytes 50000000
//! cargo run --release -p quinn-vegas --example quinn-vegas -- server --listen 127.0.0.1:4434 \
//!     --cert examples/certs/cert.pem --key examples/certs/key.pem --cc vegas
//! cargo run --release -p quinn-vegas --example quinn-vegas -- client --connect 127.0.0.1:4434 \
//!     --ca examples/certs/ca.pem --bytes 10000000
//! ```
//!
//! The server sends each connection what it asks for and prints one
//! summary line per connection at its close (its sending direction: cc,
//! bytes, loss, final window, RTT). The client prints its goodput.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use clap::Subcommand;
use quinn_vegas::vegas_cc::spec::Params;

mod transfer;

#[derive(Parser, Debug)]
#[command(about = "vegas-cc congestion control on quinn: server, client, or both over loopback")]
struct Args {
    #[command(subcommand)]
    mode: Mode,
}

#[derive(clap::Args, Debug, Clone)]
struct Cc {
    /// Congestion control of this endpoint's sending direction: vegas,
    /// vegas-a, gallop-vegas, gallop-vegas-a, vegas-compat, vegas-a-compat,
    /// gallop-vegas-compat, gallop-vegas-a-compat, newreno (vegas-cc), or
    /// quinn's own cubic, bbr.
    #[arg(
        long,
        visible_alias = "cc-algorithm",
        default_value = "vegas",
        value_name = "NAME"
    )]
    cc: String,
    /// A controller parameter `key=value` (repeatable), as quiche-vegas
    /// takes them.
    #[arg(long = "cc-param", value_name = "KEY=VALUE")]
    cc_params: Vec<String>,
    /// Write each connection's `vegas:*` decision records as a qlog into
    /// DIR (also taken from the QLOGDIR environment variable).
    #[arg(long, value_name = "DIR")]
    qlog_dir: Option<PathBuf>,
}

impl Cc {
    fn params(&self) -> anyhow::Result<Params> {
        let mut params = Params::new();
        for p in &self.cc_params {
            let (k, v) = p
                .split_once('=')
                .filter(|(k, _)| !k.trim().is_empty())
                .ok_or_else(|| anyhow::anyhow!("--cc-param `{p}`: want key=value"))?;
            params.insert(k.trim().into(), v.trim().into());
        }
        Ok(params)
    }

    /// The factory, and where its records go when `--qlog-dir` (or
    /// QLOGDIR) is set.
    fn factory(
        &self,
    ) -> anyhow::Result<(
        std::sync::Arc<dyn quinn_proto::congestion::ControllerFactory + Send + Sync>,
        Option<transfer::QlogOut>,
    )> {
        let dir = self.qlog_dir.clone().or_else(|| {
            std::env::var_os("QLOGDIR")
                .filter(|d| !d.is_empty())
                .map(PathBuf::from)
        });
        let out = dir.map(|dir| transfer::QlogOut {
            records: quinn_vegas::records(1_000_000),
            dir,
        });
        let records = out.as_ref().map(|o| o.records.clone());
        let factory = transfer::factory(&self.cc, &self.params()?, records)?;
        Ok((factory, out))
    }
}

fn bytes_arg(text: &str) -> Result<u64, String> {
    match text.trim().parse::<u64>() {
        Ok(n) if (1..=transfer::MAX_REQUEST_BYTES).contains(&n) => Ok(n),
        _ => Err(format!(
            "want a whole number of bytes from 1 to {}",
            transfer::MAX_REQUEST_BYTES
        )),
    }
}

#[derive(Subcommand, Debug)]
enum Mode {
    /// Serve transfers until killed (or `--connections` have closed).
    Server {
        #[arg(long, default_value = "127.0.0.1:4434")]
        listen: SocketAddr,
        /// Certificate chain (PEM), e.g. examples/certs/cert.pem.
        #[arg(long)]
        cert: PathBuf,
        /// Private key (PEM), e.g. examples/certs/key.pem.
        #[arg(long)]
        key: PathBuf,
        /// Exit after this many connections have closed (0: never).
        #[arg(long, default_value_t = 0)]
        connections: u64,
        #[command(flatten)]
        cc: Cc,
    },
    /// Fetch `--bytes` from a server.
    Client {
        #[arg(long)]
        connect: SocketAddr,
        /// The server name to verify (and send as SNI).
        #[arg(long, default_value = "localhost")]
        server_name: String,
        /// Trust this CA (PEM), e.g. examples/certs/ca.pem.
        #[arg(long, visible_alias = "trust-origin-ca-pem")]
        ca: PathBuf,
        #[arg(long, default_value_t = 10_000_000, value_parser = bytes_arg)]
        bytes: u64,
        /// Give up after this many seconds.
        #[arg(long, default_value_t = 300)]
        timeout_s: u64,
        #[command(flatten)]
        cc: Cc,
    },
    /// A server and a client in this process over 127.0.0.1.
    Local {
        #[arg(long, default_value_t = 10_000_000, value_parser = bytes_arg)]
        bytes: u64,
        #[command(flatten)]
        cc: Cc,
    },
}

#[tokio::main]
async fn main() -> ExitCode {
    match run(Args::parse()).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("quinn-vegas: {e:#}");
            ExitCode::FAILURE
        }
    }
}

async fn run(args: Args) -> anyhow::Result<()> {
    match args.mode {
        Mode::Server {
            listen,
            cert,
            key,
            connections,
            cc,
        } => {
            let (factory, qlog) = cc.factory()?;
            let (config, _) =
                transfer::server_config(Some((&cert, &key)), transfer::transport(factory))?;
            let endpoint = quinn::Endpoint::server(config, listen)?;
            eprintln!("listening on {} (cc {})", endpoint.local_addr()?, cc.cc);
            let mut tasks = tokio::task::JoinSet::new();
            let mut closed = 0;
            loop {
                tokio::select! {
                    incoming = endpoint.accept() => {
                        let Some(incoming) = incoming else { break };
                        tasks.spawn(transfer::serve_connection(incoming, cc.cc.clone(), qlog.clone()));
                    }
                    Some(done) = tasks.join_next() => {
                        match done? {
                            Ok(summary) => eprintln!("{summary}"),
                            Err(e) => eprintln!("connection failed: {e:#}"),
                        }
                        closed += 1;
                        if connections > 0 && closed >= connections {
                            break;
                        }
                    }
                }
            }
            endpoint.wait_idle().await;
            Ok(())
        }
        Mode::Client {
            connect,
            server_name,
            ca,
            bytes,
            timeout_s,
            cc,
        } => {
            let roots = transfer::roots_from_pem(&ca)?;
            let (factory, qlog) = cc.factory()?;
            let config = transfer::client_config(&roots, transfer::transport(factory))?;
            let bind: SocketAddr = if connect.is_ipv4() {
                "0.0.0.0:0"
            } else {
                "[::]:0"
            }
            .parse()?;
            let mut endpoint = quinn::Endpoint::client(bind)?;
            endpoint.set_default_client_config(config);
            let work = async {
                let conn = endpoint.connect(connect, &server_name)?.await?;
                let result = transfer::fetch(&conn, bytes).await?;
                if let Some(out) = &qlog {
                    transfer::write_connection_qlog(&conn, out, "client")?;
                }
                conn.close(0u32.into(), b"done");
                anyhow::Ok((conn, result))
            };
            let (conn, result) = tokio::time::timeout(Duration::from_secs(timeout_s), work)
                .await
                .map_err(|_| anyhow::anyhow!("not done within --timeout-s {timeout_s}"))??;
            let stats = conn.stats();
            println!(
                "downloaded {} bytes in {:.3} s: {:.2} Mbit/s (the server's controller sent them)",
                result.bytes,
                result.transfer.as_secs_f64(),
                transfer::mbit_per_s(result.bytes, result.transfer)
            );
            println!(
                "client->server (requests and ACKs; cc {}): {} packets sent, {} lost, rtt {:.1} ms",
                cc.cc,
                stats.path.sent_packets,
                stats.path.lost_packets,
                stats.path.rtt.as_secs_f64() * 1e3
            );
            endpoint.wait_idle().await;
            Ok(())
        }
        Mode::Local { bytes, cc } => {
            let (factory, qlog) = cc.factory()?;
            let (config, roots) = transfer::server_config(None, transfer::transport(factory))?;
            let server = quinn::Endpoint::server(config, "127.0.0.1:0".parse()?)?;
            let addr = server.local_addr()?;
            let served = tokio::spawn({
                let server = server.clone();
                let name = cc.cc.clone();
                async move {
                    let incoming = server
                        .accept()
                        .await
                        .ok_or_else(|| anyhow::anyhow!("no connection"))?;
                    transfer::serve_connection(incoming, name, qlog).await
                }
            });
            let client_cc = transfer::factory("newreno", &Params::new(), None)?;
            let mut client = quinn::Endpoint::client("127.0.0.1:0".parse()?)?;
            client.set_default_client_config(transfer::client_config(
                &roots,
                transfer::transport(client_cc),
            )?);
            let conn = client.connect(addr, "localhost")?.await?;
            let result = transfer::fetch(&conn, bytes).await?;
            conn.close(0u32.into(), b"done");
            println!("{}", served.await??);
            println!(
                "client: {} bytes in {:.3} s: {:.2} Mbit/s",
                result.bytes,
                result.transfer.as_secs_f64(),
                transfer::mbit_per_s(result.bytes, result.transfer)
            );
            client.wait_idle().await;
            Ok(())
        }
    }
}
