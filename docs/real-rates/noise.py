#!/usr/bin/env python3
"""Which of `cargo xtask bench --real`'s misses ran on a stalled machine.

    python3 docs/real-rates/noise.py target/bench-real/report.json [LATE_US]

A run is *late* when its emulator sent a datagram more than LATE_US
(default 1000) microseconds after its scheduled time at the 99th
percentile: 4.6 packet times at 50 Mbit/s, more than the whole queue of
1-3 packets a Vegas flow keeps, so the emulated link (or the sender) stood
still for longer than that queue covers. A family row's goodput is judged
against CUBIC's on the same path, so a pair is late when either side was.
Prints each family row that misses a target (the bench's own targets) with
its runs' emulator lateness, then the targets counted over on-time paths.
"""
import json
import statistics
import sys

QUEUE = (1.0, 4.0)
GOODPUT = 0.95

report = json.load(open(sys.argv[1]))
late_us = float(sys.argv[2]) if len(sys.argv) > 2 else 1000.0
totals = {}
print("| path | algorithm | x cubic | steady queue (sim) | runs' emulator p99, us (cubic's) | late |")
print("|---|---|---|---|---|---|")
for c in report["cells"]:
    path = "%g Mbit/s x %g ms, %g BDP, %g s" % (
        c["rate_mbit"], c["rtt_ms"], c["buffer_bdp"], c["seconds"])
    runs = {}
    for r in c["runs"]:
        if "goodput_mbit" in r:
            runs.setdefault(r["algorithm"], []).append(r)
    sims = {s["algorithm"]: s for s in c["sim"] if "goodput_mbit" in s}
    cubic = runs.get("cubic", [])
    if not cubic:
        continue
    cubic_g = statistics.median(r["goodput_mbit"] for r in cubic)
    cubic_late = [r["emulator_p99_us"] for r in cubic]
    for cc, rs in runs.items():
        if cc == "cubic":
            continue
        ratio = statistics.median(r["goodput_mbit"] for r in rs) / cubic_g
        steady = statistics.median(r["steady_queue_mean_pkts"] for r in rs)
        sim = sims.get(cc, {}).get("steady_queue_mean_pkts")
        q_ok = QUEUE[0] <= steady <= QUEUE[1] or (
            sim is not None and abs(steady - sim) <= 1.0)
        g_ok = ratio >= GOODPUT
        late = max([r["emulator_p99_us"] for r in rs] + cubic_late) > late_us
        t = totals.setdefault(cc, [0, 0, 0, 0])
        if not late:
            t[0] += 1
            t[1] += q_ok
            t[2] += g_ok
            t[3] += q_ok and g_ok
        if not (q_ok and g_ok):
            print("| %s | %s | %.2f | %.1f (%s) | %s (%s) | %s |" % (
                path, cc, ratio, steady, "-" if sim is None else "%.1f" % sim,
                " / ".join("%.0f" % r["emulator_p99_us"] for r in rs),
                " / ".join("%.0f" % v for v in cubic_late),
                "yes" if late else "**no**"))
print()
print("On the paths where no run of the pair was late (emulator p99 <= %.0f us):" % late_us)
print()
print("| algorithm | on-time paths | queue target met | goodput target met | both |")
print("|---|---|---|---|---|")
for cc, (n, q, g, b) in totals.items():
    print("| %s | %d | %d | %d | %d |" % (cc, n, q, g, b))
