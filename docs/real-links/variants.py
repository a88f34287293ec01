# The throwaway variants of docs/real-links.md's analysis, measured on the cells
# `cargo xtask bench --traces` leaves in target/bench-traces/ (run from the
# repository root): git apply docs/real-links/variants.patch; cargo build --release
# -p vegas-lab; python3 docs/real-links/variants.py
# target/release/vegas-lab ";outage;vel;nodeep;nodeep,outage;nodeep,vel;nodeep,outage,vel"
# (each variant a VX value; "" is the default). Prints vegas over cubic per cell.
import json, subprocess, glob, re, os, sys
from concurrent.futures import ThreadPoolExecutor
lab = sys.argv[1]; variants = sys.argv[2].split(';')
cells = {}
for f in glob.glob('target/bench-traces/cell-*.toml'):
    t = open(f).read(); m = re.search(r'name = "trace-(.*)-(\d+)ms-(\d+)pkts-([a-z0-9-]+)"', t)
    if 'bytes =' in t: continue
    cells[(m.group(1), int(m.group(2)), int(m.group(3)), m.group(4))] = f
def run(args):
    key, var = args
    env = dict(os.environ, VX=var)
    out = subprocess.run([lab, 'run', cells[key], '--json'], capture_output=True, env=env).stdout
    d = json.loads(out); l = d['links'][0]
    return key, var, d['flows'][0]['goodput_bps']/1e6, l['p95_delay_ms']
jobs = [(k, v) for k in cells if k[3] == 'vegas' for v in variants] + [(k, '') for k in cells if k[3] == 'cubic']
with ThreadPoolExecutor(2) as ex: res = list(ex.map(run, jobs))
cub = {k[:3]: (t, p) for k, v, t, p in res if k[3] == 'cubic'}
print('cell'.ljust(34), *[f'{v or "default":>22}' for v in variants])
agg = {v: [] for v in variants}
for k in sorted(cub):
    row = []
    for v in variants:
        t, p = next((t, p) for kk, vv, t, p in res if kk[:3] == k and kk[3] == 'vegas' and vv == v)
        ct, cp = cub[k]; row.append(f'{t/ct:.2f}x {p/cp:.2f}x ({t:.2f},{p:.0f})'); agg[v].append((t/ct, p/cp))
    print(f'{k[0][:20]} {k[1]}ms {k[2]}p'.ljust(34), *[f'{r:>22}' for r in row])
for v in variants:
    a = agg[v]; print(v or 'default', 'mean tput x %.3f, mean p95 x %.3f, goal %d' % (sum(x for x, _ in a)/len(a), sum(y for _, y in a)/len(a), sum(1 for x, y in a if x >= 0.8 and y <= 0.25)))
