//! A project of its own that uses quinn with the vegas-cc controllers
//! through quinn-vegas exactly as the README says (no patch);
//! `cargo xtask test` builds it out of tree and runs it. It moves 2 MB over
//! loopback with Vegas on the sending side and checks that quinn ran it.

use std::sync::Arc;

use quinn::rustls::pki_types::{CertificateDer, PrivatePkcs8KeyDer};
use quinn_vegas::VegasFactory;

const TRANSFER_BYTES: usize = 2_000_000;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    // The README's lines: a factory, put on quinn's TransportConfig.
    let records = quinn_vegas::records(100_000);
    let factory = VegasFactory::new("vegas", &Default::default())?.with_records(records.clone());
    let mut transport = quinn::TransportConfig::default();
    transport.congestion_controller_factory(Arc::new(factory));

    let generated = rcgen::generate_simple_self_signed(vec!["localhost".into()])?;
    let cert = CertificateDer::from(generated.cert);
    let key = PrivatePkcs8KeyDer::from(generated.signing_key.serialize_der());
    let mut server_config = quinn::ServerConfig::with_single_cert(vec![cert.clone()], key.into())?;
    server_config.transport_config(Arc::new(transport));
    let server = quinn::Endpoint::server(server_config, "127.0.0.1:0".parse()?)?;
    let addr = server.local_addr()?;
    let serve = tokio::spawn(async move {
        let conn = server.accept().await.ok_or("no connection")?.await?;
        let mut send = conn.open_uni().await?;
        send.write_all(&vec![7u8; TRANSFER_BYTES]).await?;
        send.finish()?;
        let _ = send.stopped().await;
        let name = conn
            .congestion_state()
            .into_any()
            .downcast::<quinn_vegas::VegasController>()
            .map(|c| c.controller().name())
            .map_err(|_| "quinn did not run our controller")?;
        Ok::<_, Box<dyn std::error::Error + Send + Sync>>(name)
    });

    let mut roots = quinn::rustls::RootCertStore::empty();
    roots.add(cert)?;
    let mut client = quinn::Endpoint::client("127.0.0.1:0".parse()?)?;
    client.set_default_client_config(quinn::ClientConfig::with_root_certificates(Arc::new(
        roots,
    ))?);
    let conn = client.connect(addr, "localhost")?.await?;
    let mut recv = conn.accept_uni().await?;
    let body = recv.read_to_end(TRANSFER_BYTES).await?;
    let name = serve.await??;
    let decisions = records.lock().map_err(|_| "records lock")?.records.len();
    println!(
        "{name} on quinn: {} of {TRANSFER_BYTES} bytes, {decisions} decision records",
        body.len()
    );
    if body.len() != TRANSFER_BYTES || decisions == 0 {
        return Err("the transfer or the Vegas controller failed".into());
    }
    conn.close(0u32.into(), b"done");
    client.wait_idle().await;
    Ok(())
}
