#!/usr/bin/env bash
# Part of `make bench`: one fleet (fleetsim fleet: 1 000 vehicles, one hour
# of fixes, each vehicle resending until acknowledged, from 16 loopback
# addresses) sent as fast as acknowledgements allow to
#   1. one fleetd on SQLite (directly),
#   2. one fleetd on PostgreSQL (directly),
#   3. 1, 2 and 3 fleetd nodes on PostgreSQL behind nginx (config/nginx-stream.conf),
# each on a fresh database; prints fixes/s for each. Every run must end with
# every fix acknowledged. Needs postgresql-15, nginx and libnginx-mod-stream.
set -euo pipefail
bin=${1:?usage: cluster-bench.sh BIN_DIR}
cd "$(dirname "$0")/.."
work=$(mktemp -d /tmp/fleetd-cluster-bench.XXXXXX)
chmod 755 "$work"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  [ -f "$work/nginx.pid" ] && kill "$(cat "$work/nginx.pid")" 2>/dev/null || true
  scripts/pg-test-server.sh stop "$work/pg" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
fleet=(fleet --vehicles 1000 --hours 1 --start "$(( ($(date +%s) / 86400 - 1) * 86400 * 1000 + 6 * 3600 * 1000 ))"
  --seed 3 --proto json --no-yards --fences config/geofences.geojson --speedup 0 --sources 16)

# A node: fleetd with the given backend lines, its JSON port written to $work/NAME.port.
start_node() {
  local name=$1 backend=$2 port
  port=$(free_port)
  mkdir -p "$work/$name"
  cat >"$work/$name.toml" <<CONF
[storage]
database = "$work/$name/fleetd.db"
retain_days = 0
$backend
[geofences]
file = "config/geofences.geojson"
[listen]
json = "127.0.0.1:$port"
teltonika = "127.0.0.1:$(free_port)"
nmea = "127.0.0.1:$(free_port)"
osmand = ""
[http]
listen = ""
[log]
level = "error"
CONF
  "$bin/fleetd" --config "$work/$name.toml" 2>"$work/$name.log" &
  pids+=($!)
  echo "$port" >"$work/$name.port"
  for _ in $(seq 100); do grep -q "ready" "$work/$name.log" 2>/dev/null && break; sleep 0.1; done
}
stop_nodes() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  pids=()
}
run_fleet() { # label, target
  local out
  out=$("$bin/fleetsim" "${fleet[@]}" --json-target "$2" | tail -n 1)
  # "fleetsim: sent F fixes in D datagrams, A acknowledged, R resends, U unacknowledged, in S s"
  echo "$out" | awk -v label="$1" '{ gsub(",", ""); printf "%-34s %7d fixes in %5.1f s = %6.0f fixes/s (%d resends, %d unacknowledged)\n", label, $3, $(NF-1), $3 / $(NF-1), $10, $12 }'
}
fresh_pg() {
  scripts/pg-test-server.sh stop "$work/pg" >/dev/null 2>&1 || true
  rm -rf "$work/pg"
  pgport=$(free_port)
  scripts/pg-test-server.sh start "$work/pg" "$pgport"
  pg="backend = \"postgresql\"
[postgresql]
url = \"postgres://fleetd@127.0.0.1:$pgport/fleetd\"
password_file = \"$work/pg/password\""
}

start_node lite ""
run_fleet "one node, SQLite, direct" "127.0.0.1:$(cat "$work/lite.port")"
stop_nodes

fresh_pg
start_node pg1 "$pg"
run_fleet "one node, PostgreSQL, direct" "127.0.0.1:$(cat "$work/pg1.port")"
stop_nodes

for n in 1 2 3; do
  fresh_pg
  upstream=""
  for i in $(seq "$n"); do
    start_node "n$i" "$pg
[cluster]
node = \"n$i\""
    upstream="$upstream        server 127.0.0.1:$(cat "$work/n$i.port");
"
  done
  lb=$(free_port)
  # The shipped stream config, its JSON upstream replaced by these nodes.
  awk -v up="$upstream" -v lb="$lb" '
    /upstream fleetd_json/ { print; printf "        hash $remote_addr consistent;\n%s", up; skip = 1; next }
    skip && /}/ { skip = 0 }
    skip { next }
    /listen 5600 udp;/ { print "        listen 127.0.0.1:" lb " udp;"; next }
    /upstream fleetd_teltonika|upstream fleetd_nmea/ { drop = 1 }
    drop { if (/}/) drop = 0; next }
    /listen 5027 udp;|listen 10110 udp;/ { print "        listen 127.0.0.1:" (lb + 0) " udp;"; next }
    { print }' config/nginx-stream.conf |
    awk 'BEGIN{s=0} /^    server \{/{buf=$0; s=1; next} s{buf=buf "\n" $0; if (/^    \}/){ if (buf ~ /fleetd_json/) print buf; s=0 } next} {print}' \
      >"$work/stream.conf"
  cat >"$work/nginx.conf" <<CONF
load_module /usr/lib/nginx/modules/ngx_stream_module.so;
worker_processes 1;
pid $work/nginx.pid;
error_log $work/nginx-error.log error;
events { worker_connections 4096; }
include $work/stream.conf;
CONF
  nginx -c "$work/nginx.conf" -p "$work"
  sleep 0.5
  run_fleet "$n node(s), PostgreSQL, behind nginx" "127.0.0.1:$lb"
  kill "$(cat "$work/nginx.pid")"
  rm -f "$work/nginx.pid"
  stop_nodes
done
