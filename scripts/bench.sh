#!/usr/bin/env bash
# `make bench`: the benchmarks, printing figures (never asserted by tests).
# Needs python3 for the standard workload generator in ../shared/bench.
set -euo pipefail
bin=${1:?usage: bench.sh BIN_DIR}
cd "$(dirname "$0")/.."
data=.build/bench-data
gen=../shared/bench/gen_workload.py
if [ ! -f "$data/points100k.csv" ]; then
  if [ -f "$gen" ]; then
    python3 "$gen" "$data" >/dev/null
  else
    echo "bench: $gen not found; running the synthetic workloads only" >&2
  fi
fi

echo "== geofence classification (one core) =="
if [ -f "$data/points100k.csv" ]; then
  "$bin/fleetbench" geo --fences "$data/fences10k.geojson" --points "$data/points100k.csv" \
    --scaling 1000 --scaling 10000 --scaling 100000
else
  "$bin/fleetbench" geo --scaling 1000 --scaling 10000 --scaling 100000
fi

echo
echo "== decoding (one core) =="
"$bin/fleetbench" decode

echo
echo "== ingest through the real daemon on loopback (acknowledged after commit) =="
"$bin/fleetbench" ingest --fleetd "$bin/fleetd" --proto teltonika --rate 25000 --rate 50000 --rate 100000
"$bin/fleetbench" ingest --fleetd "$bin/fleetd" --proto teltonika --records 10 --rate 10000 --rate 20000
"$bin/fleetbench" ingest --fleetd "$bin/fleetd" --proto json --rate 25000 --rate 50000
