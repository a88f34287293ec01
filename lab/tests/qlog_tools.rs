//! qlog tools over real simulated quiche connections: the `vegas:` event
//! schema, reading back (the `qlog` crate's reader and ours), the qvis
//! export, the trace graph's series (by content, not pixels) and bad input.

use std::path::Path;
use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

use quiche_vegas::qlog;
use vegas_lab::plot;
use vegas_lab::qlog_read;
use vegas_lab::qlog_read::Trace;
use vegas_lab::qvis;
use vegas_lab::sim::RunOptions;

#[path = "support/sim.rs"]
mod sim_support;

use sim_support::load;
use sim_support::vegas_lab;

fn temp_dir(name: &str) -> PathBuf {
    sim_support::temp_dir(&format!("qlog-tools-{name}"))
}

/// The demo scenario (1 MB of Vegas over the Fig. 6 bottleneck), run once
/// with qlogs and queue logs.
fn demo_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = temp_dir("demo");
        let scenario = load("demo", &["qlog=true"]);
        let options = RunOptions {
            out_dir: Some(dir.clone()),
            ..Default::default()
        };
        vegas_lab::sim::run(&scenario, options).unwrap();
        dir
    })
}

fn server_trace() -> Trace {
    Trace::read(&demo_dir().join("flow-0-server.sqlog")).unwrap()
}

fn client_trace() -> Trace {
    Trace::read(&demo_dir().join("flow-0-client.sqlog")).unwrap()
}

#[test]
fn round_decisions_follow_the_documented_schema() {
    let trace = server_trace();
    let rounds: Vec<_> = trace.named(qlog::ROUND_DECISION).collect();
    assert!(
        rounds.len() > 20,
        "one decision per RTT over ~5 s: {}",
        rounds.len()
    );
    let actions = [
        "increase",
        "hold",
        "decrease",
        "slow_start_grow",
        "slow_start_hold",
        "slow_start_exit",
        "base_rtt_probe",
        "pipe_recheck",
    ];
    for r in &rounds {
        for field in [
            "base_rtt_ms",
            "round_rtt_ms",
            "expected_bytes_per_s",
            "actual_bytes_per_s",
            "diff_pkts",
            "alpha_pkts",
            "beta_pkts",
            "gamma_pkts",
            "cwnd_before_bytes",
            "cwnd_after_bytes",
            "samples",
            "bytes_acked",
            "pipe_bytes",
        ] {
            assert!(r.f64(field).is_some(), "{field} missing in {:?}", r.data);
        }
        assert!(actions.contains(&r.str("action").unwrap()), "{:?}", r.data);
        assert!(
            ["slow_start", "congestion_avoidance", "recovery"].contains(&r.str("phase").unwrap())
        );
        // Diff = (Expected - Actual) * BaseRTT in packets of the 1200-byte
        // max datagram size, at least 0 (vegas.rs).
        let diff = ((r.f64("expected_bytes_per_s").unwrap()
            - r.f64("actual_bytes_per_s").unwrap())
            * r.f64("base_rtt_ms").unwrap()
            / 1e3
            / 1200.0)
            .max(0.0);
        assert!(
            (diff - r.f64("diff_pkts").unwrap()).abs() < 1e-6 * diff.max(1.0),
            "{:?}",
            r.data
        );
        assert!(r.f64("round_rtt_ms").unwrap() >= r.f64("base_rtt_ms").unwrap());
        // The paper's propagation RTT is 50 ms; BaseRTT adds serialization.
        assert!((50.0..80.0).contains(&r.f64("base_rtt_ms").unwrap()));
    }
    let exit: Vec<_> = trace.named(qlog::SLOW_START_EXIT).collect();
    assert_eq!(exit.len(), 1);
    assert!(exit[0].str("cause").is_some() && exit[0].f64("cwnd_bytes").unwrap() > 0.0);
    // Every vegas event written is one of the documented names.
    assert!(trace
        .events
        .iter()
        .filter(|e| e.name.starts_with("vegas:"))
        .all(|e| qlog::VEGAS_EVENTS.contains(&e.name.as_str())));
}

#[test]
fn the_qlog_crate_reader_reads_our_events_back() {
    let path = demo_dir().join("flow-0-server.sqlog");
    let events = qlog::read_vegas_events(&path).unwrap();
    let strict = server_trace();
    let expected: Vec<_> = strict
        .events
        .iter()
        .filter(|e| e.name.starts_with("vegas:"))
        .collect();
    assert_eq!(events.len(), expected.len());
    for (a, b) in events.iter().zip(expected) {
        assert_eq!(a.name, b.name);
        assert_eq!(a.data, b.data);
        assert!((a.time - b.time_ms).abs() < 1e-3);
    }
}

#[test]
fn setup_writes_a_connection_qlog_where_quiche_apps_do() {
    let dir = temp_dir("setup");
    // Path rules.
    assert_eq!(
        qlog::qlog_path(Some(&dir), "client", "ab"),
        Some(dir.join("ab-client.sqlog"))
    );
    let file = dir.join("x.sqlog");
    assert_eq!(
        qlog::qlog_path(Some(&file), "client", "ab"),
        Some(file.clone())
    );
    std::env::set_var(qlog::QLOGDIR_ENV, &dir);
    assert_eq!(
        qlog::qlog_path(None, "server", "cd"),
        Some(dir.join("cd-server.sqlog"))
    );

    // A real quiche connection writes its qlog there.
    let mut config = quiche::Config::new(quiche::PROTOCOL_VERSION).unwrap();
    config.set_application_protos(&[b"hq-interop"]).unwrap();
    config.verify_peer(false);
    let scid = quiche::ConnectionId::from_ref(&[7; 16]);
    let local = "127.0.0.1:4433".parse().unwrap();
    let peer = "127.0.0.1:4434".parse().unwrap();
    let mut conn = quiche::connect(None, &scid, local, peer, &mut config).unwrap();
    let written = qlog::setup(&mut conn, None, "client", "0707").unwrap();
    assert_eq!(written, Some(dir.join("0707-client.sqlog")));
    let mut buf = [0; 1500];
    conn.send(&mut buf).unwrap();
    drop(conn); // flushes quiche's writer
    let trace = Trace::read(&dir.join("0707-client.sqlog")).unwrap();
    assert_eq!(trace.vantage_point, "client");
    assert!(trace.named("quic:packet_sent").count() >= 1);
    assert_eq!(trace.time_origin_ms(), None);

    // The time origin recorded by setup_writer is read back.
    let mut conn = quiche::connect(None, &scid, local, peer, &mut config).unwrap();
    let file = std::fs::File::create(dir.join("origin.sqlog")).unwrap();
    let origin = std::time::Duration::from_micros(25_019);
    qlog::setup_writer(&mut conn, Box::new(file), "client", "flow-3", Some(origin));
    conn.send(&mut buf).unwrap();
    drop(conn);
    let trace = Trace::read(&dir.join("origin.sqlog")).unwrap();
    assert_eq!(trace.time_origin_ms(), Some(25.019));
    assert_eq!(
        plot::flow_id_from_title(trace.title.as_deref().unwrap()),
        Some(3)
    );
}

const HEADER: &str = "\u{1e}{\"qlog_version\":\"0.3\",\"serialization_format\":\"JSON-SEQ\",\"trace\":{\"title\":\"t\",\"vantage_point\":{\"type\":\"server\"}}}\n";

fn record(json: &str) -> String {
    format!("\u{1e}{json}\n")
}

#[test]
fn bad_input_names_the_record_and_what_was_wrong() {
    let good = record(
        r#"{"time":1.0,"name":"quic:packet_sent","data":{"header":{"packet_type":"1RTT","packet_number":0},"raw":{"length":1200}}}"#,
    );

    // Truncated: the file ends inside record 3.
    let text = format!("{HEADER}{good}{}", &good[..40]);
    let e = Trace::parse(text.as_bytes(), "cut.sqlog").unwrap_err();
    assert_eq!(e.record, 3, "{e}");
    assert!(e.what.contains("truncated"), "{e}");
    assert!(e.to_string().starts_with("cut.sqlog: record 3: "), "{e}");

    // Malformed records in the middle.
    for (bad, expected) in [
        (
            r#"{"time":"soon","name":"quic:packet_sent"}"#,
            "numeric `time`",
        ),
        (r#"{"time":2.0,"data":{}}"#, "string `name`"),
        (
            r#"{"time":2.0,"name":"quic:packet_sent","data":[1]}"#,
            "not an object",
        ),
        ("not json at all", "not JSON"),
    ] {
        let text = format!("{HEADER}{good}{}{good}", record(bad));
        let e = Trace::parse(text.as_bytes(), "bad.sqlog").unwrap_err();
        assert_eq!(e.record, 3, "{bad}: {e}");
        assert!(e.what.contains(expected), "{bad}: {e}");
    }

    // A header that is not a qlog header.
    let e = Trace::parse(record("{\"hello\":1}").as_bytes(), "x").unwrap_err();
    assert_eq!(e.record, 1);

    // Unknown events are skipped and counted.
    let text = format!(
        "{HEADER}{good}{}{}{}",
        record(r#"{"time":2.0,"name":"foo:bar","data":{}}"#),
        record(r#"{"time":3.0,"name":"vegas:not_ours","data":{}}"#),
        record(r#"{"time":4.0,"name":"foo:bar"}"#),
    );
    let trace = Trace::parse(text.as_bytes(), "u").unwrap();
    assert_eq!(trace.events.len(), 1);
    assert_eq!(trace.unknown_events.get("foo:bar"), Some(&2));
    assert_eq!(trace.unknown_events.get("vegas:not_ours"), Some(&1));
    assert_eq!(trace.unknown_count(), 3);

    // Empty traces are errors, not empty pictures.
    let e = Trace::parse(HEADER.as_bytes(), "h").unwrap_err();
    assert!(e.what.contains("empty trace"), "{e}");
    let e = Trace::parse(b"", "nothing").unwrap_err();
    assert!(e.what.contains("empty file"), "{e}");
    let text = format!(
        "{HEADER}{}",
        record(r#"{"time":0.0,"name":"quic:parameters_set","data":{}}"#)
    );
    let trace = Trace::parse(text.as_bytes(), "p").unwrap();
    let flows = [plot::FlowInput {
        trace: &trace,
        label: "p".into(),
        flow_id: None,
    }];
    let e = plot::build_figure("t", &flows, None).unwrap_err();
    assert!(e.what.contains("nothing to draw"), "{e}");

    // Queue logs too.
    let e = plot::QueueLog::parse("# c\n1.0 + 1200 0 0\n2.0 x 1200 0 0\n", "q").unwrap_err();
    assert_eq!(
        (e.record, e.what.contains("unknown event `x`")),
        (3, true),
        "{e}"
    );
    assert!(plot::QueueLog::parse("# only comments\n", "q").is_err());
}

fn parse_export(text: &str) -> serde_json::Value {
    serde_json::from_str(text).expect("export is JSON")
}

#[test]
fn qvis_export_has_the_fields_qvis_requires() {
    let server = server_trace();
    let client = client_trace();
    let export = qvis::export(
        &[server.clone(), client.clone()],
        &qvis::ExportOptions::default(),
    )
    .unwrap();
    assert_eq!(export.parts.len(), 1);
    let json = parse_export(&export.parts[0]);
    // QlogLoader.fromJSON: qlog_version in the top-level object, a draft-02
    // alias; qlog_format; traces with vantage points and relative times.
    assert_eq!(json["qlog_version"], "0.3");
    assert_eq!(json["qlog_format"], "JSON");
    let traces = json["traces"].as_array().unwrap();
    assert_eq!(traces.len(), 2);
    assert_eq!(traces[0]["vantage_point"]["type"], "server");
    assert_eq!(traces[1]["vantage_point"]["type"], "client");
    for t in traces {
        assert_eq!(t["common_fields"]["time_format"], "relative");
        assert!(t["common_fields"]["reference_time"].is_number());
        let times: Vec<f64> = t["events"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["time"].as_f64().unwrap())
            .collect();
        assert!(
            times.windows(2).all(|w| w[0] <= w[1]),
            "events sorted by time"
        );
        for e in t["events"].as_array().unwrap() {
            let name = e["name"].as_str().unwrap();
            assert!(!name.starts_with("quic:"), "{name} not renamed");
            assert!(e["data"].is_object());
        }
    }
    let counts = qvis::event_counts(&json);
    assert_eq!(
        counts["transport:packet_sent"],
        server.named("quic:packet_sent").count() + client.named("quic:packet_sent").count()
    );
    assert_eq!(
        counts["vegas:round_decision"],
        server.named(qlog::ROUND_DECISION).count()
    );
    // The congestion graph's inputs in the sender's trace.
    let server_events = traces[0]["events"].as_array().unwrap();
    let metrics: Vec<_> = server_events
        .iter()
        .filter(|e| e["name"] == "recovery:metrics_updated")
        .collect();
    assert!(metrics
        .iter()
        .any(|m| m["data"]["congestion_window"].as_f64().is_some()));
    assert!(metrics
        .iter()
        .any(|m| m["data"]["bytes_in_flight"].as_f64().is_some()));
    assert!(metrics
        .iter()
        .any(|m| m["data"]["smoothed_rtt"].as_f64().is_some()));
    assert!(metrics
        .iter()
        .any(|m| m["data"]["min_rtt"].as_f64().is_some()));
    let acks = server_events
        .iter()
        .filter(|e| e["name"] == "transport:packet_received")
        .flat_map(|e| e["data"]["frames"].as_array().cloned().unwrap_or_default())
        .filter(|f| f["frame_type"] == "ack" && f["acked_ranges"].is_array())
        .count();
    assert!(acks > 100, "ACK frames with ranges: {acks}");
    assert!(server_events
        .iter()
        .any(|e| e["name"] == "transport:parameters_set" && e["data"]["owner"] == "remote"));
    // Losses: one packet_lost per packet whose data was sent again, each
    // naming a packet the server sent.
    let lost: Vec<_> = server_events
        .iter()
        .filter(|e| e["name"] == "recovery:packet_lost")
        .collect();
    assert_eq!(lost.len(), qlog_read::retransmitted_packets(&server).len());
    assert_eq!(export.inferred_losses[0], lost.len());
    let drops = std::fs::read_to_string(demo_dir().join("bottleneck.queue"))
        .unwrap()
        .lines()
        .filter(|l| l.split_whitespace().nth(1) == Some("d"))
        .count();
    assert!(
        lost.len() >= drops,
        "every drop-tail drop is retransmitted: {} < {drops}",
        lost.len()
    );
    for l in &lost {
        let pn = &l["data"]["header"]["packet_number"];
        assert!(server_events
            .iter()
            .any(|e| e["name"] == "transport:packet_sent"
                && &e["data"]["header"]["packet_number"] == pn));
    }

    // One time base: every packet is received after it was sent.
    let sent_at = |t: &serde_json::Value| {
        let mut m = std::collections::HashMap::new();
        for e in t["events"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["name"] == "transport:packet_sent")
        {
            let key = (
                e["data"]["header"]["packet_type"].to_string(),
                e["data"]["header"]["packet_number"].as_u64().unwrap(),
            );
            m.entry(key).or_insert(
                e["data"]["send_at_time"]
                    .as_f64()
                    .unwrap_or(e["time"].as_f64().unwrap()),
            );
        }
        m
    };
    let mut matched = 0;
    for (from, to) in [(0, 1), (1, 0)] {
        let sent = sent_at(&traces[from]);
        for e in traces[to]["events"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["name"] == "transport:packet_received")
        {
            let key = (
                e["data"]["header"]["packet_type"].to_string(),
                e["data"]["header"]["packet_number"].as_u64().unwrap(),
            );
            if let Some(tx) = sent.get(&key) {
                matched += 1;
                assert!(
                    e["time"].as_f64().unwrap() >= tx - 0.002,
                    "{key:?} received before sent"
                );
            }
        }
    }
    assert!(matched > 1000);
    // The server starts when the client's first Initial arrives: about one
    // 25 ms one-way delay later on the client's clock.
    assert!(
        (15.0..40.0).contains(&export.alignments[0].offset_ms),
        "{:?}",
        export.alignments[0]
    );
}

#[test]
fn exact_alignment_from_recorded_time_origins() {
    let trace = |vp: &str, origin: &str| {
        let text = format!(
            "\u{1e}{{\"trace\":{{\"title\":\"flow 0 {vp}\",\"description\":\"sim time_origin_ms={origin}\",\"vantage_point\":{{\"type\":\"{vp}\"}}}}}}\n{}",
            record(r#"{"time":0.0,"name":"quic:packet_sent","data":{"header":{"packet_type":"1RTT","packet_number":0}}}"#)
        );
        Trace::parse(text.as_bytes(), vp).unwrap()
    };
    let a = qvis::align(&trace("client", "10"), &trace("server", "35.5"));
    assert_eq!(a.offset_ms, 25.5);
    assert!(a.method.starts_with("exact"));
}

#[test]
fn large_exports_are_split_and_say_so() {
    let traces = [server_trace(), client_trace()];
    let whole = qvis::export(&traces, &qvis::ExportOptions::default()).unwrap();
    let options = qvis::ExportOptions {
        max_file_bytes: 300_000,
        title: "demo".into(),
    };
    let split = qvis::export(&traces, &options).unwrap();
    assert!(split.parts.len() >= 3, "{} parts", split.parts.len());
    let whole_counts = qvis::event_counts(&parse_export(&whole.parts[0]));
    let mut counts = std::collections::BTreeMap::new();
    let mut last_end = f64::NEG_INFINITY;
    for (i, part) in split.parts.iter().enumerate() {
        assert!(
            part.len() <= options.max_file_bytes,
            "part {i}: {} bytes",
            part.len()
        );
        let json = parse_export(part);
        assert_eq!(json["qlog_version"], "0.3");
        assert_eq!(
            json["title"],
            format!("demo (part {} of {})", i + 1, split.parts.len())
        );
        assert!(json["description"].as_str().unwrap().contains("Split into"));
        assert_eq!(json["traces"].as_array().unwrap().len(), 2);
        let times: Vec<f64> = json["traces"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|t| {
                t["events"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|e| e["time"].as_f64().unwrap())
            })
            .collect();
        let start = times.iter().copied().fold(f64::INFINITY, f64::min);
        assert!(start >= last_end, "parts cover consecutive time ranges");
        last_end = times.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        for (name, n) in qvis::event_counts(&json) {
            *counts.entry(name).or_insert(0) += n;
        }
    }
    assert_eq!(
        counts, whole_counts,
        "no event lost or duplicated by the split"
    );
    let paths = qvis::part_paths(Path::new("/x/out.qlog"), 3);
    assert_eq!(paths[1], Path::new("/x/out.part2of3.qlog"));

    // A limit that would need more than MAX_PARTS files is refused.
    let tiny = qvis::ExportOptions {
        max_file_bytes: 1,
        title: "demo".into(),
    };
    match qvis::export(&traces, &tiny) {
        Err(e @ qvis::ExportError::TooManyParts { parts, .. }) => {
            assert!(parts > qvis::MAX_PARTS, "{parts}");
            assert!(e.to_string().contains("more than 1000"), "{e}");
        }
        other => panic!("{:?}", other.map(|e| e.parts.len())),
    }
}

#[test]
fn figure_series_match_the_trace_and_the_queue_log() {
    let server = server_trace();
    let queue = plot::QueueLog::read(&demo_dir().join("bottleneck.queue")).unwrap();
    let flows = [plot::FlowInput {
        trace: &server,
        label: "vegas".into(),
        flow_id: None,
    }];
    let figure = plot::build_figure("demo", &flows, Some(&queue)).unwrap();
    let f = &figure.flows[0];

    // Common marks: a tick per packet sent, per ACK received.
    assert_eq!(f.sends_s.len(), server.named("quic:packet_sent").count());
    let acks = server
        .named("quic:packet_received")
        .filter(|r| {
            r.data["frames"]
                .as_array()
                .is_some_and(|fs| fs.iter().any(|f| f["frame_type"] == "ack"))
        })
        .count();
    assert_eq!(f.acks_s.len(), acks);
    assert!(f.ptos_s.is_empty(), "no PTO in the demo");
    // The 1 MB transfer crosses 100, 200, ..., 1000 KB.
    assert_eq!(
        f.kb_sent_marks.iter().map(|m| m.1).collect::<Vec<_>>(),
        (1..=10).map(|n| n * 100).collect::<Vec<_>>()
    );

    // CAM: one tick and one Expected/Actual point per decision; the alpha
    // line above the beta line, both below Expected by alpha/beta packets.
    let rounds: Vec<_> = server
        .named(qlog::ROUND_DECISION)
        .filter(|r| r.str("action") != Some("base_rtt_probe"))
        .collect();
    assert_eq!(f.decisions_s.len(), rounds.len());
    for (i, r) in rounds.iter().enumerate() {
        let expected_kb = r.f64("expected_bytes_per_s").unwrap() / 1e3;
        assert!((f.expected_kb_per_s[i].1 - expected_kb).abs() < 1e-9);
        assert!((f.actual_kb_per_s[i].1 - r.f64("actual_bytes_per_s").unwrap() / 1e3).abs() < 1e-9);
        let per_pkt_kb_s = 1.2 / (r.f64("base_rtt_ms").unwrap() / 1e3);
        let alpha = (expected_kb - r.f64("alpha_pkts").unwrap() * per_pkt_kb_s).max(0.0);
        assert!((f.alpha_threshold_kb_per_s[i].1 - alpha).abs() < 1e-6);
        assert!(f.alpha_threshold_kb_per_s[i].1 >= f.beta_threshold_kb_per_s[i].1);
        // The decision tick sits where the record says, on the queue log's clock.
        assert!((f.decisions_s[i] - (r.time_ms + f.time_shift_ms) / 1e3).abs() < 1e-9);
    }

    // Sending rate over the last 12 packets: Vegas keeps the 200 KB/s
    // bottleneck busy once past slow start.
    let mut steady: Vec<f64> = f
        .sending_rate_kb_per_s
        .iter()
        .filter(|p| p.0 > 1.0 && p.0 < 5.0)
        .map(|p| p.1)
        .collect();
    steady.sort_by(f64::total_cmp);
    let median = steady[steady.len() / 2];
    assert!(
        (180.0..=220.0).contains(&median),
        "median sending rate {median} KB/s"
    );

    // Windows: cwnd and bytes in flight as quiche logged them.
    let cwnd_logged = server
        .named("quic:recovery_metrics_updated")
        .filter(|m| m.f64("congestion_window").is_some())
        .count();
    assert_eq!(f.cwnd_kb.len(), cwnd_logged);
    assert!(!f.ssthresh_kb.is_empty() && !f.bytes_in_flight_kb.is_empty());

    // Queue: the buffer holds 10 packets; every drop is marked.
    let q = figure.queue.as_ref().unwrap();
    assert!(q.queue_pkts.iter().all(|p| p.1 <= 10.0));
    let drops = queue.events.iter().filter(|e| e.kind == 'd').count();
    assert_eq!(q.drops.len(), drops);
    // Alignment: the demo's access link has no delay, so a dropped packet
    // was sent when it reached the bottleneck; its send is one of the
    // "later retransmitted" lines, at the drop's time.
    assert_eq!(
        f.retransmitted_sends_s.len(),
        qlog_read::retransmitted_packets(&server).len()
    );
    for &(drop_s, _) in &q.drops {
        assert!(
            f.retransmitted_sends_s
                .iter()
                .any(|&t| (t - drop_s).abs() < 1e-3),
            "drop at {drop_s} s without a retransmitted send at that time: {:?}",
            f.retransmitted_sends_s
        );
    }

    // Drawn to SVG, alone and with a second flow overlaid.
    let dir = temp_dir("figure");
    plot::render(&figure, &dir.join("one.svg")).unwrap();
    let svg = std::fs::read_to_string(dir.join("one.svg")).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("CAM") && svg.contains("bottleneck queue"));
    let client = client_trace();
    let both = [
        plot::FlowInput {
            trace: &server,
            label: "vegas".into(),
            flow_id: Some(0),
        },
        plot::FlowInput {
            trace: &server,
            label: "again".into(),
            flow_id: Some(0),
        },
    ];
    let overlay = plot::build_figure("overlay", &both, Some(&queue)).unwrap();
    assert_eq!(overlay.flows.len(), 2);
    assert_eq!(overlay.flows[0].sends_s, overlay.flows[1].sends_s);
    plot::render(&overlay, &dir.join("two.svg")).unwrap();
    assert!(std::fs::read_to_string(dir.join("two.svg"))
        .unwrap()
        .contains("again Actual"));
    // A client trace has no Vegas decisions: said, not hidden.
    let flows = [plot::FlowInput {
        trace: &client,
        label: "client".into(),
        flow_id: None,
    }];
    let figure = plot::build_figure("client", &flows, None).unwrap();
    assert!(figure
        .notes
        .iter()
        .any(|n| n.contains("CAM panel is empty")));
    // PNG is refused with the reason.
    let e = plot::render(&figure, &dir.join("x.png"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("SVG"), "{e}");
}

#[test]
fn cli_run_plot_qvis_and_errors() {
    let exe = env!("CARGO_BIN_EXE_vegas-lab");
    let dir = temp_dir("cli");
    let out = Command::new(exe)
        .args(["run", "demo", "--json", "--plot", "--out"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value =
        serde_json::from_slice(&out.stdout).expect("--json prints only JSON");
    assert_eq!(report["flows"][0]["algorithm"], "vegas");
    assert!(std::fs::read_to_string(dir.join("flow-0.svg"))
        .unwrap()
        .starts_with("<svg"));

    let qlog_out = dir.join("flow-0.qlog");
    let out = Command::new(exe)
        .arg("qvis")
        .arg(dir.join("flow-0-server.sqlog"))
        .arg("-o")
        .arg(&qlog_out)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json = parse_export(&std::fs::read_to_string(&qlog_out).unwrap());
    assert_eq!(
        json["traces"].as_array().unwrap().len(),
        2,
        "the client's qlog is added"
    );

    // A truncated qlog is drawn up to the cut, with a warning.
    let text = std::fs::read(dir.join("flow-0-server.sqlog")).unwrap();
    std::fs::write(dir.join("cut.sqlog"), &text[..text.len() / 2]).unwrap();
    let out = Command::new(exe)
        .arg("plot")
        .arg(dir.join("cut.sqlog"))
        .arg("-o")
        .arg(dir.join("cut.svg"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("warning: ") && stderr.contains("cut.sqlog: last record truncated at byte"),
        "{stderr}"
    );

    // A qlog without a complete header: exit status 2 and the record.
    std::fs::write(dir.join("head.sqlog"), &text[..100]).unwrap();
    let out = Command::new(exe)
        .arg("plot")
        .arg(dir.join("head.sqlog"))
        .arg("-o")
        .arg(dir.join("head.svg"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("head.sqlog: record 1: header is not JSON: the file ends inside it"),
        "{stderr}"
    );
}

/// Byte offsets of the record separators in `bytes`.
fn separators(bytes: &[u8]) -> Vec<usize> {
    (0..bytes.len()).filter(|&i| bytes[i] == 0x1e).collect()
}

/// The real server qlog of the demo with a last record holding multi-byte
/// UTF-8, and the offset of the 3-byte `≥` in it.
fn qlog_with_utf8_tail() -> (Vec<u8>, usize) {
    let mut bytes = std::fs::read(demo_dir().join("flow-0-server.sqlog")).unwrap();
    let tail =
        record(r#"{"time":9999.0,"name":"loglevel:info","data":{"message":"délai ≥ 50 ms ✓"}}"#);
    let at = bytes.len() + tail.find('≥').unwrap();
    bytes.extend_from_slice(tail.as_bytes());
    (bytes, at)
}

/// The same records (without printing thousands of them when not).
fn assert_same(a: &[qlog_read::Record], b: &[qlog_read::Record], cut: usize) {
    assert_eq!(a.len(), b.len(), "cut at {cut}: number of events");
    if let Some(i) = (0..a.len()).find(|&i| a[i] != b[i]) {
        panic!("cut at {cut}: event {i} differs: {:?} vs {:?}", a[i], b[i]);
    }
}

#[test]
fn truncated_qlogs_are_read_up_to_the_cut() {
    let (bytes, utf8_at) = qlog_with_utf8_tail();
    let rs = separators(&bytes);
    let whole = Trace::parse(&bytes, "whole").unwrap();
    let n = rs.len();
    // (cut, whether the cut falls inside a record)
    let cuts = [
        (bytes.len() / 2, true),
        (bytes.len() / 3 + 7, true),
        (rs[n / 2] + 1, false), // just after a separator
        (rs[n / 2] - 1, false), // after a record's `}`, before its newline
        (rs[n / 2] + 2, true),  // one byte into a record
        (rs[n - 1] + 30, true), // inside the last record
        (utf8_at + 1, true),    // inside a 3-byte UTF-8 character
        (utf8_at + 2, true),
        (bytes.len() - 1, false), // only the final newline missing
        (bytes.len(), false),
    ];
    for (cut, inside) in cuts {
        let cut_bytes = &bytes[..cut];
        let (trace, salvage) = Trace::parse_tolerant(cut_bytes, "cut.sqlog")
            .unwrap_or_else(|e| panic!("cut at {cut}: {e}"));
        // What strictly parses: everything before the record the cut is
        // in (or the whole prefix when the cut is at a boundary).
        let last_rs = *rs.iter().rfind(|&&p| p < cut).unwrap();
        let complete = if inside { &bytes[..last_rs] } else { cut_bytes };
        let expected = Trace::parse(complete, "prefix").unwrap();
        assert_same(&trace.events, &expected.events, cut);
        assert!(trace.events.len() <= whole.events.len());
        assert_same(&trace.events, &whole.events[..trace.events.len()], cut);
        assert!(salvage.malformed.is_empty(), "cut at {cut}");
        let records =
            rs.iter().filter(|&&p| p < last_rs).count() + usize::from(!inside && cut > last_rs + 1);
        assert_eq!(salvage.records_read, records, "cut at {cut}");
        assert_eq!(salvage.truncated.is_some(), inside, "cut at {cut}");
        if inside {
            let t = salvage.truncated.as_ref().expect("a truncated record");
            assert_eq!(t.start_byte, last_rs, "cut at {cut}");
            let warning = salvage.warning("cut.sqlog").unwrap();
            assert_eq!(
                warning,
                format!(
                    "cut.sqlog: last record truncated at byte {cut} (record {}, from byte \
                     {last_rs}, skipped); read {records} records",
                    records + 1
                )
            );
        }
    }
    // A complete last record whose newline is missing is read.
    let (trace, salvage) = Trace::parse_tolerant(&bytes[..bytes.len() - 1], "x").unwrap();
    assert!(salvage.is_complete() && salvage.warning("x").is_none());
    assert_same(&trace.events, &whole.events, bytes.len() - 1);

    // No usable header, no events: still errors.
    for cut in [0, 1, 50, rs[1] - 5] {
        let e = Trace::parse_tolerant(&bytes[..cut], "h").unwrap_err();
        assert_eq!(e.record, if cut <= 1 { 0 } else { 1 }, "cut at {cut}: {e}");
    }
    let e = Trace::parse_tolerant(&bytes[..rs[1] + 20], "h").unwrap_err();
    assert!(
        e.what.contains("empty trace") && e.what.contains("1 that do not parse"),
        "{e}"
    );
}

#[test]
fn malformed_records_are_skipped_by_the_tolerant_reader_only() {
    let good = record(
        r#"{"time":1.0,"name":"quic:packet_sent","data":{"header":{"packet_type":"1RTT","packet_number":0}}}"#,
    );
    let bad = [
        record("not json at all"),
        record(r#"{"time":"soon","name":"quic:packet_sent"}"#),
        record("{\"time\":2.0,\"name\":\"quic:packet_sent\",\"data\":{\"x\":\"\u{ff}\"}}"),
    ];
    let text = format!("{HEADER}{good}{}{good}{}{}{good}", bad[0], bad[1], bad[2]);
    let mut bytes = text.into_bytes();
    // Invalid UTF-8 inside the third bad record.
    let at = bytes
        .windows(2)
        .position(|w| w == "\u{ff}".as_bytes())
        .unwrap();
    bytes[at] = 0xff;
    assert!(Trace::parse(&bytes, "m").is_err());
    let (trace, salvage) = Trace::parse_tolerant(&bytes, "m.sqlog").unwrap();
    assert_eq!(trace.events.len(), 3);
    assert_eq!(salvage.records_read, 4);
    assert!(salvage.truncated.is_none());
    assert_eq!(
        salvage
            .malformed
            .iter()
            .map(|m| m.record)
            .collect::<Vec<_>>(),
        [3, 5, 6]
    );
    let warning = salvage.warning("m.sqlog").unwrap();
    assert!(
        warning
            .starts_with("m.sqlog: skipped 3 records that do not parse (first: record 3 at byte ")
            && warning.contains("not JSON")
            && warning.ends_with("; read 4 records"),
        "{warning}"
    );
    // A malformed last record that is complete (newline-terminated) is
    // malformed, not truncated.
    let text = format!("{HEADER}{good}{}", bad[1]);
    let (_, salvage) = Trace::parse_tolerant(text.as_bytes(), "l").unwrap();
    assert!(salvage.truncated.is_none() && salvage.malformed.len() == 1);
    // Newline-delimited JSON (no separators) is cut the same way.
    let ndjson = format!(
        "{}\n{}\n{}",
        &HEADER[1..HEADER.len() - 1],
        &good[1..good.len() - 1],
        &good[1..30]
    );
    let (trace, salvage) = Trace::parse_tolerant(ndjson.as_bytes(), "nd").unwrap();
    assert_eq!(trace.events.len(), 1);
    assert_eq!(salvage.truncated.as_ref().map(|t| t.record), Some(3));
}

/// Runs `vegas-lab` with `args`; (success, stderr).
fn lab(args: &[&std::ffi::OsStr]) -> (bool, String) {
    let out = vegas_lab(args);
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn cli_plot_and_qvis_read_truncated_qlogs_with_a_warning() {
    let dir = temp_dir("truncated");
    let (bytes, utf8_at) = qlog_with_utf8_tail();
    let rs = separators(&bytes);
    for (name, cut) in [
        ("half", bytes.len() / 2),
        ("one-byte", rs[rs.len() / 3] + 2),
        ("utf8", utf8_at + 1),
    ] {
        let path = dir.join(format!("{name}-server.sqlog"));
        std::fs::write(&path, &bytes[..cut]).unwrap();
        let last_rs = *rs.iter().rfind(|&&p| p < cut).unwrap();
        let before = Trace::parse(&bytes[..last_rs], "prefix").unwrap();
        let records = rs.iter().filter(|&&p| p < last_rs).count();
        let warning = format!(
            "warning: {}: last record truncated at byte {cut} (record {}, from byte {last_rs}, \
             skipped); read {records} records",
            path.display(),
            records + 1
        );

        let svg = dir.join(format!("{name}.svg"));
        let (ok, stderr) = lab(&[
            "plot".as_ref(),
            path.as_os_str(),
            "-o".as_ref(),
            svg.as_os_str(),
        ]);
        assert!(ok, "{name}: {stderr}");
        assert_eq!(stderr.matches("warning: ").count(), 1, "{name}: {stderr}");
        assert!(stderr.contains(&warning), "{name}: {stderr}");
        assert!(std::fs::read_to_string(&svg).unwrap().starts_with("<svg"));
        // The figure holds every packet sent before the cut.
        let (trace, _) = Trace::read_tolerant(&path).unwrap();
        let flows = [plot::FlowInput {
            trace: &trace,
            label: name.into(),
            flow_id: None,
        }];
        let figure = plot::build_figure(name, &flows, None).unwrap();
        assert_eq!(
            figure.flows[0].sends_s.len(),
            before.named("quic:packet_sent").count()
        );

        let export = dir.join(format!("{name}.qlog"));
        let (ok, stderr) = lab(&[
            "qvis".as_ref(),
            path.as_os_str(),
            "--no-peer".as_ref(),
            "-o".as_ref(),
            export.as_os_str(),
        ]);
        assert!(ok, "{name}: {stderr}");
        assert_eq!(stderr.matches("warning: ").count(), 1, "{name}: {stderr}");
        assert!(stderr.contains(&warning), "{name}: {stderr}");
        let json = parse_export(&std::fs::read_to_string(&export).unwrap());
        let counts = qvis::event_counts(&json);
        for (qlog_name, qvis_name) in [
            ("quic:packet_sent", "transport:packet_sent"),
            ("quic:packet_received", "transport:packet_received"),
            (qlog::ROUND_DECISION, qlog::ROUND_DECISION),
        ] {
            assert_eq!(
                counts.get(qvis_name).copied().unwrap_or(0),
                before.named(qlog_name).count(),
                "{name}: {qvis_name}"
            );
        }
        let last_ms = json["traces"][0]["events"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["time"].as_f64().unwrap())
            .fold(f64::NEG_INFINITY, f64::max);
        let expected_ms = before
            .events
            .iter()
            .map(|e| e.time_ms)
            .fold(f64::NEG_INFINITY, f64::max);
        assert!(
            (last_ms - expected_ms).abs() < 1e-3,
            "{name}: {last_ms} vs {expected_ms}"
        );
    }

    // A record that does not parse in the middle is skipped with a warning.
    let middle = rs[rs.len() / 2];
    let mut damaged = bytes[..middle].to_vec();
    damaged.extend_from_slice(b"\x1e{\"time\":12.5,\"name\":oops}\n");
    damaged.extend_from_slice(&bytes[middle..]);
    let path = dir.join("damaged-server.sqlog");
    std::fs::write(&path, &damaged).unwrap();
    let svg = dir.join("damaged.svg");
    let (ok, stderr) = lab(&[
        "plot".as_ref(),
        path.as_os_str(),
        "-o".as_ref(),
        svg.as_os_str(),
    ]);
    assert!(ok, "{stderr}");
    let expected = format!(
        "warning: {}: skipped record {} at byte {middle}: not JSON: ",
        path.display(),
        rs.len() / 2 + 1
    );
    assert!(stderr.contains(&expected), "{stderr}");
    assert!(
        stderr.contains(&format!("; read {} records", rs.len())),
        "{stderr}"
    );

    // A file that is no qlog at all is still refused (exit status 2).
    let junk = dir.join("junk.sqlog");
    std::fs::write(&junk, b"\x1e{\"trac").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_vegas-lab"))
        .arg("qvis")
        .arg(&junk)
        .arg("-o")
        .arg(dir.join("junk.qlog"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("junk.sqlog: record 1: header is not JSON"),
        "{stderr}"
    );
}
