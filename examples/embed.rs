//! How to embed quiche-vegas in an application that already uses quiche:
//! one call on the `quiche::Config`, everything else is plain quiche.
//!
//! ```sh
//! cargo run --release --example embed -- vegas alpha=2 beta=4
//! ```
//!
//! Runs a client and a server connection in memory (no sockets: datagrams
//! are handed over directly), sends 1 MB from server to client on one
//! stream and prints what the sender's controller did.

use std::process::ExitCode;

use quiche_vegas::Algorithm;
use quiche_vegas::CcSpec;
use quiche_vegas::Params;

const TRANSFER_BYTES: usize = 1_000_000;

/// A plain quiche configuration for one end of the in-memory connection.
pub fn quiche_config(is_server: bool) -> Result<quiche::Config, quiche::Error> {
    let mut config = quiche::Config::new(quiche::PROTOCOL_VERSION)?;
    config.set_application_protos(&[b"embed"])?;
    if is_server {
        config.load_cert_chain_from_pem_file("examples/certs/cert.pem")?;
        config.load_priv_key_from_pem_file("examples/certs/key.pem")?;
    } else {
        config.verify_peer(false);
    }
    config.set_initial_max_data(10_000_000);
    config.set_initial_max_stream_data_bidi_local(10_000_000);
    config.set_initial_max_stream_data_bidi_remote(10_000_000);
    config.set_initial_max_streams_bidi(10);
    Ok(config)
}

/// A client and a server connection, connected to nothing yet: datagrams
/// go from one to the other through [`deliver`].
pub fn connect_pair(
    client_config: &mut quiche::Config,
    server_config: &mut quiche::Config,
) -> Result<(quiche::Connection, quiche::Connection), quiche::Error> {
    let client_addr = "127.0.0.1:1111".parse().unwrap();
    let server_addr = "127.0.0.1:2222".parse().unwrap();
    let cid_c = quiche::ConnectionId::from_ref(&[1; 16]);
    let cid_s = quiche::ConnectionId::from_ref(&[2; 16]);
    let client = quiche::connect(None, &cid_c, client_addr, server_addr, client_config)?;
    let server = quiche::accept(&cid_s, None, server_addr, client_addr, server_config)?;
    Ok((client, server))
}

/// Moves every datagram `from` wants to send into `to`.
pub fn deliver(from: &mut quiche::Connection, to: &mut quiche::Connection) -> usize {
    let mut buf = [0u8; 1500];
    let mut count = 0;
    while let Ok((len, info)) = from.send(&mut buf) {
        let recv = quiche::RecvInfo {
            from: info.from,
            to: info.to,
        };
        let _ = to.recv(&mut buf[..len], recv);
        count += 1;
    }
    count
}

/// The client opens stream 0, the server answers with `bytes`; returns
/// the bytes the client received.
pub fn transfer(
    client: &mut quiche::Connection,
    server: &mut quiche::Connection,
    bytes: usize,
) -> Result<usize, quiche::Error> {
    let body = vec![7u8; bytes];
    let mut sent_bytes = 0;
    let mut received_bytes = 0;
    let mut buf = vec![0u8; 65536];
    let (mut requested, mut request_seen) = (false, false);
    for _round in 0..100_000 {
        if client.is_established() && !requested {
            client.stream_send(0, b"GET", true)?;
            requested = true;
        }
        while server.stream_recv(0, &mut buf).is_ok() {
            request_seen = true;
        }
        if request_seen && sent_bytes < bytes {
            if let Ok(n) = server.stream_send(0, &body[sent_bytes..], true) {
                sent_bytes += n;
            }
        }
        while let Ok((n, _fin)) = client.stream_recv(0, &mut buf) {
            received_bytes += n;
        }
        if received_bytes == bytes {
            break;
        }
        let moved = deliver(client, server) + deliver(server, client);
        if moved == 0 {
            // Nothing in flight: let the timers (loss detection, pacing) run.
            client.on_timeout();
            server.on_timeout();
        }
    }
    Ok(received_bytes)
}

fn main() -> ExitCode {
    let mut words = std::env::args().skip(1);
    let name = words.next().unwrap_or_else(|| "vegas".into());
    let result = (|| -> Result<(), String> {
        // 1. Parse a name and `key=value` parameters; both are validated.
        let algorithm: Algorithm = name.parse().map_err(|e| format!("{e}"))?;
        let mut params = Params::new();
        for word in words {
            let (k, v) = quiche_vegas::algorithm::parse_param(&word).map_err(|e| e.to_string())?;
            params.insert(k, v);
        }
        let spec = CcSpec::new(algorithm, params).map_err(|e| e.to_string())?;

        // 2. Configure both ends (the one line that selects the congestion
        //    controller is `spec.configure`) and connect them in memory.
        let mut server_config = quiche_config(true).map_err(|e| format!("server config: {e}"))?;
        let mut client_config = quiche_config(false).map_err(|e| format!("client config: {e}"))?;
        spec.configure(&mut server_config);
        spec.configure(&mut client_config);
        let (mut client, mut server) =
            connect_pair(&mut client_config, &mut server_config).map_err(|e| e.to_string())?;

        // 3. Run: the client opens stream 0, the server answers with 1 MB.
        let received_bytes =
            transfer(&mut client, &mut server, TRANSFER_BYTES).map_err(|e| e.to_string())?;
        let path = server.path_stats().next().ok_or("no path")?;
        println!(
            "{}: {received_bytes} bytes delivered; server sent {} packets, lost {}, cwnd {} bytes",
            spec.algorithm,
            server.stats().sent,
            server.stats().lost,
            path.cwnd
        );
        if received_bytes != TRANSFER_BYTES {
            return Err(format!(
                "only {received_bytes} of {TRANSFER_BYTES} bytes arrived"
            ));
        }
        Ok(())
    })();
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("embed: error: {e}");
            ExitCode::FAILURE
        }
    }
}
