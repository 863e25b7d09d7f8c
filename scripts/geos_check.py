#!/usr/bin/env python3
"""fleetd's point-in-fence answers beside real boundaries, against GEOS.

Usage: geos_check.py FLEETCTL FENCES.geojson [POINTS] [SEED]

Draws POINTS (default 20 000) points 1e-12° to 1e-6° to either side of random
edges of the fences' polygons (one in ten exactly on a vertex), asks
`fleetctl fences locate` which fences contain each, and compares with
shapely's `covers` (GEOS: exact orientation, a point on the boundary is
covered, as fleetd counts it inside). Prints the counts; exits 1 on any
disagreement, naming the first few.
"""
import json
import math
import random
import subprocess
import sys
import tempfile

import shapely
from shapely.geometry import shape


def main():
    fleetctl, fences = sys.argv[1], sys.argv[2]
    n = int(sys.argv[3]) if len(sys.argv) > 3 else 20_000
    rng = random.Random(int(sys.argv[4]) if len(sys.argv) > 4 else 785)
    features = json.load(open(fences))["features"]
    ids, geoms, edges = [], [], []
    for f in features:
        g = f["geometry"]
        if g["type"] not in ("Polygon", "MultiPolygon"):
            continue
        fid = f.get("id") or f.get("properties", {}).get("id") or f["properties"].get("name")
        ids.append(str(fid))
        geoms.append(shape(g))
        polys = g["coordinates"] if g["type"] == "MultiPolygon" else [g["coordinates"]]
        for p in polys:
            for r in p:
                edges += [(r[k], r[k + 1]) for k in range(len(r) - 1)]
    points = []
    while len(points) < n:
        a, b = rng.choice(edges)
        if len(points) % 10 == 0:
            x, y = a
        else:
            t = rng.random()
            dx, dy = b[0] - a[0], b[1] - a[1]
            length = math.hypot(dx, dy)
            if length == 0:
                continue
            d = 10 ** rng.uniform(-12, -6) * rng.choice((-1, 1))
            x = a[0] + t * dx - dy / length * d
            y = a[1] + t * dy + dx / length * d
        if abs(x) <= 180 and abs(y) <= 90:
            points.append((x, y))
    with tempfile.NamedTemporaryFile("w", suffix=".csv") as csv:
        csv.write("id,lon,lat\n")
        for k, (x, y) in enumerate(points):
            csv.write(f"{k},{x!r},{y!r}\n")
        csv.flush()
        out = subprocess.run(
            [fleetctl, "fences", "locate", "--fences", fences, "--input", csv.name],
            check=True, capture_output=True, text=True).stdout
    got = set(tuple(line.split(",", 1)) for line in out.splitlines() if line)
    tree = shapely.STRtree(geoms)
    pts = shapely.points(points)
    pi, gi = tree.query(pts, predicate="covered_by")
    want = set((str(p), ids[g]) for p, g in zip(pi, gi))
    wrong_in = sorted(got - want, key=lambda e: int(e[0]))
    wrong_out = sorted(want - got, key=lambda e: int(e[0]))
    print(f"geos check: {n} points within 1e-12..1e-6 deg of {len(edges)} edges "
          f"(a tenth on vertices): {len(want)} (point, fence) pairs covered by GEOS; "
          f"fleetd inside where GEOS outside: {len(wrong_in)}, outside where GEOS inside: "
          f"{len(wrong_out)}")
    for k, fid in (wrong_in + wrong_out)[:5]:
        x, y = points[int(k)]
        print(f"  point {k} ({x!r}, {y!r}) fence {fid}: fleetd "
              f"{'inside' if (k, fid) in got else 'outside'}")
    return 1 if wrong_in or wrong_out else 0


if __name__ == "__main__":
    sys.exit(main())
