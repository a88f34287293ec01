//! The adapter never panics inside quiche: quiche accepts an initial
//! window of 1 packet, which `vegas-cc` refuses (RFC 9002 7.2's minimum
//! window is 2). The factory raises it to 2 and says so in the qlog.

use std::io::Write;
use std::sync::Arc;
use std::sync::Mutex;

use quiche_vegas::Algorithm;
use quiche_vegas::CcSpec;

const MDS: usize = 1200;
const TRANSFER_BYTES: usize = 200_000;

/// A qlog sink the test can read back.
#[derive(Clone, Default)]
struct SharedLog(Arc<Mutex<Vec<u8>>>);

impl Write for SharedLog {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn config(spec: &CcSpec, is_server: bool) -> quiche::Config {
    let mut config = quiche::Config::new(quiche::PROTOCOL_VERSION).unwrap();
    config.set_application_protos(&[b"test"]).unwrap();
    if is_server {
        let dir = env!("CARGO_MANIFEST_DIR");
        config
            .load_cert_chain_from_pem_file(&format!("{dir}/examples/certs/cert.pem"))
            .unwrap();
        config
            .load_priv_key_from_pem_file(&format!("{dir}/examples/certs/key.pem"))
            .unwrap();
    } else {
        config.verify_peer(false);
    }
    config.set_initial_max_data(10_000_000);
    config.set_initial_max_stream_data_bidi_local(10_000_000);
    config.set_initial_max_stream_data_bidi_remote(10_000_000);
    config.set_initial_max_streams_bidi(10);
    // Before `configure`, as a user would: quiche allows 1 packet.
    config.set_initial_congestion_window_packets(1);
    spec.configure(&mut config);
    config
}

fn deliver(from: &mut quiche::Connection, to: &mut quiche::Connection) -> usize {
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

#[test]
fn an_initial_window_of_one_packet_is_raised_to_two_with_a_qlog_warning() {
    for algorithm in [
        Algorithm::Vegas,
        Algorithm::GallopVegasA,
        Algorithm::NewReno,
    ] {
        let spec = CcSpec::plain(algorithm);
        let mut server_config = config(&spec, true);
        let mut client_config = config(&spec, false);
        let client_addr = "127.0.0.1:1111".parse().unwrap();
        let server_addr = "127.0.0.1:2222".parse().unwrap();
        let mut client = quiche::connect(
            None,
            &quiche::ConnectionId::from_ref(&[1; 16]),
            client_addr,
            server_addr,
            &mut client_config,
        )
        .unwrap();
        let mut server = quiche::accept(
            &quiche::ConnectionId::from_ref(&[2; 16]),
            None,
            server_addr,
            client_addr,
            &mut server_config,
        )
        .unwrap();
        let log = SharedLog::default();
        server.set_qlog(Box::new(log.clone()), "test".into(), "test".into());

        let body = vec![7u8; TRANSFER_BYTES];
        let (mut sent, mut received, mut requested, mut asked) = (0, 0, false, false);
        let mut buf = vec![0u8; 65536];
        for _ in 0..100_000 {
            if client.is_established() && !requested {
                client.stream_send(0, b"GET", true).unwrap();
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
        assert_eq!(received, TRANSFER_BYTES, "{algorithm}");
        let cwnd = server.path_stats().next().unwrap().cwnd;
        assert!(cwnd >= 2 * MDS, "{algorithm}: cwnd {cwnd}");
        drop(server);
        let qlog = String::from_utf8(log.0.lock().unwrap().clone()).unwrap();
        let warning = qlog
            .lines()
            .find(|l| l.contains("vegas:warning"))
            .unwrap_or_else(|| panic!("{algorithm}: no vegas:warning in the qlog"));
        assert!(
            warning.contains("initial congestion window of 1 packets")
                && warning.contains("using 2"),
            "{algorithm}: {warning}"
        );
    }
}
