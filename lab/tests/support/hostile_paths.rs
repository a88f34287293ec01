// The six hostile paths: bottleneck-section overlays (TOML) on 10 Mbit/s,
// 40 ms RTT, a 100-packet buffer. One table for `lab/tests/hostile_network.rs`
// and `cargo xtask bench --coexist` (its false-alarm cells), which both
// `include!` this file.

/// (name, the `[bottleneck]` keys and `[reverse]` section it adds).
pub const HOSTILE_PATHS: [(&str, &str); 6] = [
    ("30% random loss", "loss = 0.3"),
    ("bursty loss", "loss = 0.05\nloss_burst_pkts = 8"),
    (
        "reordering",
        "reorder = 0.1\nreorder_delay = \"15ms\"\n[reverse]\nreorder = 0.1",
    ),
    ("duplication", "duplicate = 0.2\n[reverse]\nduplicate = 0.2"),
    (
        "a 3 s blackhole",
        "changes = [{ at = \"100ms\", loss = 1.0 }, { at = \"3100ms\", loss = 0.0 }]",
    ),
    (
        "delay spikes",
        "changes = [\n  { at = \"300ms\", delay = \"500ms\" },\n  { at = \"600ms\", delay = \"20ms\" },\n  \
         { at = \"1s\", delay = \"1s\" },\n  { at = \"1100ms\", delay = \"20ms\" },\n]",
    ),
];
