//! A project of its own that uses quiche and quiche-vegas exactly as the
//! README's "Use it in your own project" says; `cargo xtask test` builds it
//! out of tree and runs it. It moves 1 MB over an in-memory quiche
//! connection with Vegas on the sending side and checks that Vegas made
//! its decisions.
//!
//! Usage: downstream-quiche CERT.pem KEY.pem

use std::process::ExitCode;
use std::sync::Arc;
use std::sync::Mutex;

use quiche_vegas::{Algorithm, CcSpec, Params, TraceData};

const TRANSFER_BYTES: usize = 1_000_000;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("downstream-quiche: {e}");
            ExitCode::FAILURE
        }
    }
}

fn deliver(from: &mut quiche::Connection, to: &mut quiche::Connection) -> usize {
    let mut buf = [0u8; 1500];
    let mut count = 0;
    while let Ok((len, info)) = from.send(&mut buf) {
        let _ = to.recv(
            &mut buf[..len],
            quiche::RecvInfo {
                from: info.from,
                to: info.to,
            },
        );
        count += 1;
    }
    count
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [cert, key] = args.as_slice() else {
        return Err("usage: downstream-quiche CERT.pem KEY.pem".into());
    };
    let trace = Arc::new(Mutex::new(TraceData::default()));
    let config = |server: bool| -> Result<quiche::Config, Box<dyn std::error::Error>> {
        let mut config = quiche::Config::new(quiche::PROTOCOL_VERSION)?;
        config.set_application_protos(&[b"downstream"])?;
        if server {
            config.load_cert_chain_from_pem_file(cert)?;
            config.load_priv_key_from_pem_file(key)?;
        } else {
            config.verify_peer(false);
        }
        config.set_initial_max_data(10_000_000);
        config.set_initial_max_stream_data_bidi_local(10_000_000);
        config.set_initial_max_stream_data_bidi_remote(10_000_000);
        config.set_initial_max_streams_bidi(10);
        // The README's one call (traced here, to check what Vegas did):
        let mut params = Params::new();
        params.insert("alpha".into(), "2".into());
        let spec = CcSpec::new(Algorithm::Vegas, params)?;
        if server {
            spec.configure_traced(&mut config, Some(trace.clone()));
        } else {
            spec.configure(&mut config);
        }
        Ok(config)
    };
    let (mut server_config, mut client_config) = (config(true)?, config(false)?);
    let client_addr = "127.0.0.1:1111".parse()?;
    let server_addr = "127.0.0.1:2222".parse()?;
    let mut client = quiche::connect(
        None,
        &quiche::ConnectionId::from_ref(&[1; 16]),
        client_addr,
        server_addr,
        &mut client_config,
    )?;
    let mut server = quiche::accept(
        &quiche::ConnectionId::from_ref(&[2; 16]),
        None,
        server_addr,
        client_addr,
        &mut server_config,
    )?;
    let body = vec![7u8; TRANSFER_BYTES];
    let (mut sent, mut received, mut requested, mut asked) = (0, 0, false, false);
    let mut buf = vec![0u8; 65536];
    for _ in 0..100_000 {
        if client.is_established() && !requested {
            client.stream_send(0, b"GET", true)?;
            requested = true;
        }
        while server.stream_recv(0, &mut buf).is_ok() {
            asked = true;
        }
        if asked && sent < TRANSFER_BYTES {
            if let Ok(n) = server.stream_send(0, &body[sent..], true) {
                sent += n;
            }
        }
        while let Ok((n, _)) = client.stream_recv(0, &mut buf) {
            received += n;
        }
        if received == TRANSFER_BYTES {
            break;
        }
        if deliver(&mut client, &mut server) + deliver(&mut server, &mut client) == 0 {
            client.on_timeout();
            server.on_timeout();
        }
    }
    let trace = trace.lock().map_err(|_| "trace lock")?;
    println!(
        "vegas on quiche: {received} of {TRANSFER_BYTES} bytes, {} decision records, {} ACK events",
        trace.events.len(),
        trace.congestion_events
    );
    if received != TRANSFER_BYTES {
        return Err(format!("only {received} of {TRANSFER_BYTES} bytes arrived").into());
    }
    if trace.events.is_empty() || trace.congestion_events == 0 {
        return Err("the Vegas controller was not used".into());
    }
    Ok(())
}
