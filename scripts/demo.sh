#!/usr/bin/env bash
# `make run`: start fleetd on its embedded defaults, replay the bundled routes
# through fleetsim, show alerts live as they commit, serve the console (its
# URL and a demo login are printed), print a summary. Started on a terminal,
# it replays at 30x real time and keeps fleetd running afterwards, so the
# console can be looked at, until Ctrl-C; otherwise (CI) it replays at 200x
# and stops. Ctrl-C stops it all cleanly either way.
set -uo pipefail
bin=${1:?usage: demo.sh BIN_DIR}
interactive=false
[ -t 0 ] && [ -t 1 ] && interactive=true
if $interactive; then speedup=${SPEEDUP:-30}; else speedup=${SPEEDUP:-200}; fi
cd "$(dirname "$0")/.."
mkdir -p var

# A fresh database for each demo; an earlier one is kept beside it.
if [ -e var/fleetd.db ]; then
  keep="var/fleetd-$(date +%Y%m%d-%H%M%S).db"
  for suffix in "" -wal -shm; do [ -e "var/fleetd.db$suffix" ] && mv "var/fleetd.db$suffix" "$keep$suffix"; done
  echo "demo: kept the previous database as $keep"
fi

fleetd_pid="" follow_pid="" sim_pid=""
stop_all() {
  [ -n "$sim_pid" ] && kill "$sim_pid" 2>/dev/null
  if [ -n "$fleetd_pid" ] && kill -0 "$fleetd_pid" 2>/dev/null; then
    kill -TERM "$fleetd_pid"; wait "$fleetd_pid" 2>/dev/null
  fi
  [ -n "$follow_pid" ] && { kill "$follow_pid" 2>/dev/null; wait "$follow_pid" 2>/dev/null; }
  fleetd_pid="" follow_pid="" sim_pid=""
}
trap 'echo; echo "demo: interrupted, stopping"; stop_all; exit 130' INT TERM
trap stop_all EXIT

"$bin/fleetd" 2> var/fleetd.log &
fleetd_pid=$!
for _ in $(seq 100); do
  grep -q "ready:" var/fleetd.log 2>/dev/null && break
  kill -0 "$fleetd_pid" 2>/dev/null || { echo "demo: fleetd did not start:"; cat var/fleetd.log; exit 1; }
  sleep 0.1
done
grep "ready:" var/fleetd.log | sed 's/^.*ready:/demo: fleetd ready:/'

# A viewer for this demo database only (a fresh database each run), with a
# random password.
demo_password=$(head -c 12 /dev/urandom | base64 | tr -dc 'A-Za-z0-9' | head -c 12)
echo "$demo_password" | "$bin/fleetctl" users add demo --role viewer --password-stdin >/dev/null
echo "demo: the console is at http://127.0.0.1:8080/ — log in as demo / $demo_password (a viewer)"

echo "demo: alerts as they are committed (fleetctl alerts --follow):"
"$bin/fleetctl" alerts --follow &
follow_pid=$!

# --retime: the recordings are years old and fleetd keeps 90 days of positions.
"$bin/fleetsim" replay --retime --speedup "$speedup" \
  Simulator/routes/t01_munich_car_1hz.csv Simulator/routes/t02_visnjan_car.gpx \
  Simulator/routes/t03_limerick_bus304.gpx > var/fleetsim.out &
sim_pid=$!
wait "$sim_pid"; sim_status=$?; sim_pid=""
sleep 0.3   # let --follow print the last commits

if $interactive; then
  echo
  echo "demo: the replay is over; fleetd keeps running for the console at http://127.0.0.1:8080/"
  echo "demo: (log in as demo / $demo_password). Ctrl-C stops it and prints the summary."
  trap 'echo; echo "demo: stopping"; kill -TERM "$fleetd_pid" 2>/dev/null' INT TERM
  fleetd_status=0
  while kill -0 "$fleetd_pid" 2>/dev/null; do wait "$fleetd_pid"; fleetd_status=$?; done
  fleetd_pid=""
  trap 'echo; echo "demo: interrupted, stopping"; stop_all; exit 130' INT TERM
fi

if [ -n "$fleetd_pid" ]; then
  kill -TERM "$fleetd_pid"; wait "$fleetd_pid"; fleetd_status=$?; fleetd_pid=""
fi
kill "$follow_pid" 2>/dev/null; wait "$follow_pid" 2>/dev/null; follow_pid=""

echo
echo "demo: summary"
sed 's/^/  /' var/fleetsim.out
"$bin/fleetctl" summary | sed 's/^/  /'
echo "demo: trips finished (a trip still under way when its route ended is not listed)"
"$bin/fleetctl" trips | sed 's/^/  /'
echo "demo: devices and odometers"
"$bin/fleetctl" devices | sed 's/^/  /'
echo "  fleetd exited with status $fleetd_status (log: var/fleetd.log)"
[ "$sim_status" -eq 0 ] && [ "$fleetd_status" -eq 0 ]
