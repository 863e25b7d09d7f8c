#!/usr/bin/env python3
"""Geodesic lengths (WGS 84) of the bundled routes, for the trip-distance test.

Writes Tests/FleetTrackingTests/Golden/geodesic_lengths.txt: one line per
route, "name metres". Uses geographiclib (Karney's geodesic algorithms; pip
install geographiclib). Segments implying more than 300 km/h after forgiving
100 m (t01's GNSS jump, fix 618 -> 619) are left out, as fleetd's jump
filter leaves them out of the odometer.

Run: python3 scripts/geodesic_lengths.py  (from the repository root)
"""
import csv
import datetime
import sys

from geographiclib.geodesic import Geodesic

ROUTES = ["t01_munich_car_1hz", "t02_visnjan_car", "t03_limerick_bus304"]


def seconds(text):
    return datetime.datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def main():
    lines = ["# route geodesic_length_m (WGS 84, geographiclib; jumps > 300 km/h left out)"]
    for name in ROUTES:
        with open(f"Simulator/routes/{name}.csv", newline="") as f:
            rows = list(csv.DictReader(f))
        total = 0.0
        skipped = []
        for i in range(1, len(rows)):
            a, b = rows[i - 1], rows[i]
            d = Geodesic.WGS84.Inverse(
                float(a["lat"]), float(a["lon"]), float(b["lat"]), float(b["lon"]))["s12"]
            dt = max(1e-3, seconds(b["time"]) - seconds(a["time"]))
            if max(0.0, d - 100) / dt * 3.6 > 300:
                skipped.append((i - 1, i, round(d, 1)))
                continue
            total += d
        lines.append(f"{name} {total:.1f}")
        for s in skipped:
            print(f"{name}: left out jump {s[0]} -> {s[1]} ({s[2]} m)", file=sys.stderr)
    out = "Tests/FleetTrackingTests/Golden/geodesic_lengths.txt"
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"wrote {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
