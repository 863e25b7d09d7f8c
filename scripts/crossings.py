#!/usr/bin/env python3
"""Replays the real-track crossing set through a real fleetd and scores it.

    scripts/crossings.py BIN_DIR [CROSSINGS_DIR] [ROUTES_DIR]

BIN_DIR holds fleetd, fleetsim and fleetctl. CROSSINGS_DIR (default
../shared/data/crossings) holds fences.geojson and reference.json (enter/exit
events a GEOS point-in-polygon reference gives, by track, fence and fix
index; its README says how to replay); ROUTES_DIR (default
../shared/data/routes) the tracks as CSV. Each track is one device, every fix
sent in order (fleetsim replay --ordered); fleetd runs with margin 0, dwell 0
and exit_confirm_fixes 1, so an alert must fall where the reference puts it.

An alert is placed at the first fix whose time is at or after the alert's
time. It matches a reference event of its fence and type at that index (one
fix either way for a `fragile` event, five fixes after a `fast_fixes` entry);
an enter at fix 0 of a fence the track starts inside is optional. Prints, per
track and in all: reference events, matched, missed, unexpected alerts, and
lists each miss and each unexpected alert. Exit status 0 either way: the
figures are the finding.
"""
import csv, json, os, signal, socket, subprocess, sys, tempfile, time
from datetime import datetime

bins = sys.argv[1]
crossings = sys.argv[2] if len(sys.argv) > 2 else "../shared/data/crossings"
routes = sys.argv[3] if len(sys.argv) > 3 else "../shared/data/routes"
reference = json.load(open(os.path.join(crossings, "reference.json")))["tracks"]

def free_port():
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p

def ms(text):
    return int(datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp() * 1000)

with tempfile.TemporaryDirectory() as tmp:
    port = free_port()
    db = os.path.join(tmp, "crossings.db")
    config = os.path.join(tmp, "fleetd.toml")
    with open(config, "w") as f:
        f.write(f"""[storage]
database = "{db}"
retain_days = 0
[geofences]
file = "{os.path.abspath(os.path.join(crossings, 'fences.geojson'))}"
[listen]
json = "127.0.0.1:{port}"
teltonika = ""
nmea = ""
osmand = ""
[tracking]
margin_m = 0.0
dwell_s = 0.0
exit_confirm_fixes = 1
[log]
level = "error"
""")
    daemon = subprocess.Popen([os.path.join(bins, "fleetd"), "--config", config])
    try:
        time.sleep(3)
        files = [os.path.join(routes, t + ".csv") for t in reference]
        subprocess.run(
            [os.path.join(bins, "fleetsim"), "replay", "--ordered", "--speedup", "0",
             "--target", f"127.0.0.1:{port}"] + files, check=True, stdout=subprocess.DEVNULL)
    finally:
        daemon.send_signal(signal.SIGTERM)
        daemon.wait(timeout=60)
    out = subprocess.run([os.path.join(bins, "fleetctl"), "alerts", "--json", "--db", db],
                         check=True, capture_output=True, text=True).stdout
    alerts = [json.loads(l) for l in out.splitlines() if l.strip()]

totals = [0, 0, 0, 0]
for track, ref in reference.items():
    times = [ms(r["time"]) for r in csv.DictReader(open(os.path.join(routes, track + ".csv")))]
    def index(t):
        return next((i for i, x in enumerate(times) if x >= t), len(times) - 1)
    fast = ref.get("fast_fixes", [])
    expected = []
    for fence, f in ref["fences"].items():
        for e in f["events"]:
            expected.append(dict(e, fence=fence))
    got = [dict(type=a["type"].replace("geofence_", ""), fence=a["fence"],
                index=index(ms(a["time"]) if isinstance(a["time"], str) else a["time"]))
           for a in alerts if a["device"] == track and a["type"] in ("geofence_enter", "geofence_exit")
           and a["fence"] in ref["fences"]]
    unmatched = list(got)
    missed = []
    for e in expected:
        slack = 1 if e["fragile"] else 0
        late = 5 if any(0 <= e["index"] - k <= 5 for k in fast) else 0
        hit = next((g for g in unmatched if g["fence"] == e["fence"] and g["type"] == e["type"]
                    and e["index"] - slack - late <= g["index"] <= e["index"] + slack + late), None)
        if hit:
            unmatched.remove(hit)
        else:
            missed.append(e)
    unexpected = [g for g in unmatched
                  if not (g["type"] == "enter" and g["index"] == 0
                          and ref["fences"][g["fence"]]["start_inside"])]
    n = len(expected)
    print(f"{track}: {n} reference events, {n - len(missed)} matched, {len(missed)} missed, "
          f"{len(unexpected)} unexpected")
    for e in missed:
        print(f"  missed {e['type']} {e['fence']} at fix {e['index']} ({e['kind']})")
    for g in unexpected:
        print(f"  unexpected {g['type']} {g['fence']} at fix {g['index']}")
    totals = [totals[0] + n, totals[1] + n - len(missed), totals[2] + len(missed),
              totals[3] + len(unexpected)]
print(f"all: {totals[0]} reference events, {totals[1]} matched, {totals[2]} missed, "
      f"{totals[3]} unexpected")
