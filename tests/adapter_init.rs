//! The adapter never panics inside quiche: quiche accepts an initial
//! window of 1 packet, which `vegas-cc` refuses (RFC 9002 7.2's minimum
//! window is 2). The factory raises it to 2 and says so in the qlog.

use std::io::Write;
use std::sync::Arc;
use std::sync::Mutex;

use quiche_vegas::Algorithm;
use quiche_vegas::CcSpec;

/// The in-memory client and server of `examples/embed.rs`.
#[allow(dead_code)]
#[path = "../examples/embed.rs"]
mod embed;

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

/// quiche's configuration for one end, with an initial window of 1
/// packet set before `configure`, as a user would: quiche allows it.
fn config(spec: &CcSpec, is_server: bool) -> quiche::Config {
    let mut config = embed::quiche_config(is_server).unwrap();
    config.set_initial_congestion_window_packets(1);
    spec.configure(&mut config);
    config
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
        let (mut client, mut server) =
            embed::connect_pair(&mut client_config, &mut server_config).unwrap();
        let log = SharedLog::default();
        server.set_qlog(Box::new(log.clone()), "test".into(), "test".into());
        let received = embed::transfer(&mut client, &mut server, TRANSFER_BYTES).unwrap();
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
