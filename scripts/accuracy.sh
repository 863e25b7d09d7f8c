#!/usr/bin/env bash
# The accuracy benchmark (`make bench`): fleetsim's standard scenario driven
# through a real fleetd with its default tracking settings and scored against
# the truth, once with the accuracy gate and once without.
#
# Standard scenario: 60 vehicles (20 per protocol: JSON, Teltonika, NMEA),
# 24 hours, seed 1, GNSS error 5 m per axis correlated over 60 s, 0.2 %
# outliers (half of them reported), tunnels on 30 % of journeys, coverage
# gaps on 15 %, 0.5 % of datagrams duplicated and 0.5 % reordered, speed
# limit 80 km/h; the bundled fences plus two yards per vehicle.
set -euo pipefail
bin=${1:?usage: accuracy.sh BIN_DIR [VEHICLES] [HOURS] [SEED]}
vehicles=${2:-60}
hours=${3:-24}
seed=${4:-1}
cd "$(dirname "$0")/.."
work=$(mktemp -d)
pid=""
cleanup() {
  [ -n "$pid" ] && kill "$pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
start=$((($(date +%s) / 86400 - (hours + 23) / 24) * 86400000))
world=(--vehicles "$vehicles" --hours "$hours" --seed "$seed" --start "$start"
  --fences config/geofences.geojson)
"$bin/fleetsim" fleet "${world[@]}" --write-fences "$work/fences.geojson" \
  --truth "$work/truth.json" --dry-run
for gate in true false; do
  rm -f "$work"/fleetd.db*
  cat >"$work/fleetd.toml" <<TOML
[storage]
database = "$work/fleetd.db"
retain_days = 0
[geofences]
file = "$work/fences.geojson"
[listen]
json = "127.0.0.1:45055"
teltonika = "127.0.0.1:45027"
nmea = "127.0.0.1:40110"
osmand = ""
[tracking]
accuracy_gate = $gate
[overspeed]
limit_kmh = 80.0
[http]
listen = ""
TOML
  "$bin/fleetd" --config "$work/fleetd.toml" 2>"$work/fleetd.log" &
  pid=$!
  for _ in $(seq 100); do
    grep -q "ready:" "$work/fleetd.log" && break
    sleep 0.1
  done
  "$bin/fleetsim" fleet "${world[@]}" --json-target 127.0.0.1:45055 \
    --teltonika-target 127.0.0.1:45027 --nmea-target 127.0.0.1:40110
  sleep 2 # NMEA is not acknowledged: let its last fixes commit
  kill -TERM "$pid"
  wait "$pid" || true
  pid=""
  echo "-- accuracy gate $gate:"
  "$bin/fleetsim" score --truth "$work/truth.json" --db "$work/fleetd.db"
  echo
done
