#!/usr/bin/env bash
# `make bench`'s console step: fleetd (release) with the standard fences,
# fleetsim load driving VEHICLES devices at one fix a second each (JSON over
# UDP), and the console open in headless chromium measuring its frame rate
# and the commit-to-marker delay (scripts/console_bench.py), with positions
# taken one event each (the baseline), batched as full records, and batched
# compact (the console's way), in the same sitting. Three sittings.
set -euo pipefail
bin=${1:?usage: console_bench.sh BIN_DIR}
vehicles=${VEHICLES:-10000}
cd "$(dirname "$0")/.."
python=.build/pytools/bin/python
if [ ! -x "$python" ] || [ ! -x /usr/bin/chromium ]; then
  echo "console bench: $python or chromium missing (make setup-test installs them); skipped"
  exit 0
fi
fences=""
[ -f .build/bench-data/fences10k.geojson ] && fences="$PWD/.build/bench-data/fences10k.geojson"
for sitting in $(seq "${SITTINGS:-3}"); do
  dir=$(mktemp -d /tmp/fleetd-console-bench-XXXXXX)
  cat > "$dir/fleetd.toml" <<CONF
[storage]
database = "$dir/fleetd.db"
[geofences]
file = "$fences"
[listen]
json = "127.0.0.1:0"
teltonika = "127.0.0.1:0"
nmea = "127.0.0.1:0"
osmand = ""
[http]
listen = "127.0.0.1:0"
CONF
  "$bin/fleetd" --config "$dir/fleetd.toml" 2> "$dir/fleetd.log" &
  fleetd=$!
  for _ in $(seq 300); do grep -q "ready:" "$dir/fleetd.log" && break; sleep 0.1; done
  ready=$(grep "ready:" "$dir/fleetd.log")
  json=$(sed -n 's/.*json 127\.0\.0\.1:\([0-9]*\).*/\1/p' <<<"$ready")
  http=$(sed -n 's/.*http 127\.0\.0\.1:\([0-9]*\).*/\1/p' <<<"$ready")
  echo "bench-password" | "$bin/fleetctl" users add bench --role viewer --password-stdin --db "$dir/fleetd.db" >/dev/null
  # Warm-up (one fix per device), then a fix per device per second for 110 s.
  "$bin/fleetsim" load --proto json --target "127.0.0.1:$json" --devices "$vehicles" \
    --rate "$vehicles" --seconds 110 --warmup-rate 20000 > "$dir/load.txt" &
  load=$!
  sleep 5
  echo "-- sitting $sitting"
  for positions in on batch compact; do
    "$python" scripts/console_bench.py --url "http://127.0.0.1:$http/" --user bench \
      --password bench-password --udp "$json" --vehicles "$vehicles" --seconds 20 \
      --positions "$positions" | sed 's/^/  /' || echo "  console bench failed"
  done
  kill "$load" 2>/dev/null; wait "$load" 2>/dev/null || true
  kill -TERM "$fleetd"; wait "$fleetd" || true
  rm -rf "$dir"
done
